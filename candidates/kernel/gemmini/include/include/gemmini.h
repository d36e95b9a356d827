/* For code that includes <include/gemmini.h>, as Exo's generated code does. */
#include "../gemmini.h"
