/* For code that includes "include/gemmini_params.h", as the Gemmini tests do. */
#include "../gemmini_params.h"
