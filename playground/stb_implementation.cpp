// stb's image reader and writer, compiled from Debian's headers (libstb-dev) for the
// browser build: the native build links Debian's libstb instead, which has no WebAssembly
// flavour.
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>
