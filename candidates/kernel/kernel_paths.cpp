// Where `halo kernel` finds what kernels compile against: paths fixed at build time by
// CMake (HALO_GEMMINI_INCLUDE_DIR, HALO_GEMMINI_RUNTIME_LIB, HALO_KERNEL_AVX512_PRELUDE on
// this file only), each overridable by an environment variable of the same name, for an
// installed or relocated halo.
#include "candidates/kernel/kernel.hpp"

#include <cstdlib>

#ifndef HALO_GEMMINI_INCLUDE_DIR
#define HALO_GEMMINI_INCLUDE_DIR ""
#endif
#ifndef HALO_GEMMINI_RUNTIME_LIB
#define HALO_GEMMINI_RUNTIME_LIB ""
#endif
#ifndef HALO_KERNEL_AVX512_PRELUDE
#define HALO_KERNEL_AVX512_PRELUDE ""
#endif

namespace halo {

KernelSupportPaths kernel_support_paths() {
  auto pick = [](const char* env, const char* built) {
    const char* v = std::getenv(env);
    return std::string(v && *v ? v : built);
  };
  return KernelSupportPaths{pick("HALO_GEMMINI_INCLUDE_DIR", HALO_GEMMINI_INCLUDE_DIR),
                            pick("HALO_GEMMINI_RUNTIME_LIB", HALO_GEMMINI_RUNTIME_LIB),
                            pick("HALO_KERNEL_AVX512_PRELUDE", HALO_KERNEL_AVX512_PRELUDE)};
}

}  // namespace halo
