// The contents of input buffers (docs/inputs.md): an n-dimensional box of values of the
// input's type, loaded from an image file (through stb_image, Debian's libstb), a NumPy
// .npy file (through xtensor's reader) or a seeded generator, as the realization or
// `--input` names it. Every evaluator reads an input through InputBuffer::at, which is
// where a read outside the buffer becomes ε_mem.
#pragma once

#include "semantics/ast.hpp"
#include "semantics/tgt.hpp"

#include <string>
#include <vector>

namespace halo {

struct Limits;

struct InputBuffer {
  std::string name;
  Type type;
  std::vector<Interval> box;  // (min, extent) per dimension
  std::vector<Value> values;  // first dimension fastest, as Halide stores a dense buffer
  std::string origin;         // where the values came from, for reports: `image("photo.png")`
  // The value at `point` (one coordinate per dimension), or null outside the box.
  const Value* at(const std::vector<Value>& point) const;
  const Value* at(const int64_t* point) const;  // the same with machine-word coordinates
  uint64_t volume() const { return values.size(); }
};

// Loads the buffer `binding` describes for input `decl`. A relative file name is relative
// to `base_dir` (the program's folder for a realize section, "" for the command line).
// Throws InputError (located at the binding) when the file cannot be read, its shape does
// not fit the input's dimensions, or a value is not one of the input's type; ResourceLimit
// when the buffer would exceed the memory limit.
InputBuffer load_input_buffer(const TgtInput& decl, const InputBinding& binding, const std::string& file,
                              const std::string& base_dir, const Limits& limits);

// `--input NAME=SPEC`: SPEC is `seeded:SEED:MIN,LEN[:MIN,LEN...]`, a `.npy` file, or an
// image file. Throws InputError naming the flag when malformed.
InputBinding parse_input_flag(const std::string& text, const std::string& file);

// The geometry variables of every buffer (img.min.k, img.extent.k: ast.hpp), which the
// evaluators bind beside the parameters.
std::vector<std::pair<std::string, Value>> buffer_geometry_bindings(const std::vector<InputBuffer>& buffers);

// The seeded generator's values for a type: uniform over the type, with one value in
// eight drawn from the type's edges (min, max, 0, 1, -1, min + 1, max - 1) so that
// wrapping and saturation are reached; ℤ draws small values and, one in four, 32-bit ones;
// a float type draws pixels in [0, 1), one in eight a small integer, one in eight an IEEE
// edge (±0, subnormal, greatest finite, ±inf, NaN).
Value seeded_value(Type t, uint64_t& state);

}  // namespace halo
