// The manifest of `halo kernel` (docs/kernels.md, "The manifest"): which C sources to
// compile for which platform, the function to call, the .halo spec it claims to implement,
// and each argument of the function: a zeroed context struct, a scalar, or a buffer whose
// elements correspond to a func of the spec. Every malformed manifest is an InputError
// located at the offending JSON value (FILE:LINE:COL).
#pragma once

#include "support/diagnostics.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace halo {

enum class KernelPlatform { Gemmini, Avx512, C };
const char* kernel_platform_name(KernelPlatform p);

// A C type the manifest may name: its spelling, size and kind.
struct KernelCType {
  std::string name;   // as written in C: "int8_t", "float", "int_fast32_t", "bool", ...
  int bytes = 0;
  bool is_float = false;
  bool is_signed = true;
  bool is_bool = false;
  bool buffer_element = false;  // may be the element type of a buffer
};
// nullopt for an unknown name.
std::optional<KernelCType> kernel_ctype(const std::string& name);

// An integer written in the manifest, or the name of a spec parameter standing for one.
struct KernelIntRef {
  int64_t value = 0;
  std::string param;  // non-empty: the value is this parameter's
  SourceLoc loc;
};

enum class KernelArgKind { Context, Scalar, Input, Output, InOut };
const char* kernel_arg_kind_name(KernelArgKind k);

struct KernelArg {
  KernelArgKind kind = KernelArgKind::Scalar;
  SourceLoc loc;
  // context
  uint64_t bytes = 0;
  // scalar
  KernelCType type;
  bool by_pointer = false;
  // scalar value: a number, a boolean, or the name of a spec parameter
  double number = 0;
  bool number_is_integer = true;
  int64_t integer = 0;
  std::string value_param;
  // buffers: element type, shape, the spec func their elements correspond to; an inout's
  // initial contents come from `init` (zeros when empty), its expected final contents from `func`
  std::vector<KernelIntRef> shape;
  std::string func, init;
  SourceLoc func_loc, init_loc;
  std::string name;  // what messages call it: the manifest's "name", else the func
};

struct KernelManifest {
  std::string path;  // as given
  std::string dir;   // the directory relative paths are resolved against
  KernelPlatform platform = KernelPlatform::C;
  std::vector<std::string> sources;       // resolved paths
  std::vector<std::string> include_dirs;  // resolved paths
  std::vector<std::string> cflags;
  std::string function;
  std::string spec;  // resolved path
  std::vector<std::pair<std::string, std::string>> params;  // NAME, VALUE (decimal)
  bool sanitize = true;
  std::vector<KernelArg> args;
  SourceLoc function_loc, spec_loc, params_loc;
};

KernelManifest parse_kernel_manifest(const std::string& path);
KernelManifest parse_kernel_manifest_text(const std::string& text, const std::string& path);

}  // namespace halo
