// Rendering an OutputBuffer: the JSON shape of LANGUAGE.md (`halo eval --json`) and a
// text layout people can read (a grid per 2-D slice, y down and x across).
#pragma once

#include "interp/input.hpp"
#include "interp/input_buffers.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace halo {

// A JSON integer when the value fits in 53 bits, else a decimal string; errors are the
// strings "err_rdom" and "err_mem".
nlohmann::json value_to_json(const Value& v);
nlohmann::json buffer_to_json(const OutputBuffer& b);
std::string render_buffer(const OutputBuffer& b, const std::vector<std::string>& dim_names);

// The output as a PNG (stb_image_write, Debian's libstb): a 2-D output is a grey image,
// x across and y down; a 3-D one whose last dimension has 1 to 4 points has that many
// channels. Values of a u8 output (or any output within [0, 255]) are written as they are;
// others are scaled linearly from their [min, max] onto [0, 255]; error values are
// written as 0. Returns what the picture does not show exactly (the scaling, the error
// points), empty when nothing; throws InputError when the shape has no picture or the
// file cannot be written.
std::string write_buffer_png(const OutputBuffer& b, const std::string& path);

// The output as a NumPy .npy array (xtensor's writer, Debian's libxtensor-dev), the way
// `npy(...)` inputs are read: dimension k of the output is axis n-1-k (`a[y, x]`), its
// dtype the output's type (int64 for ℤ). Throws InputError when a value is an error or
// does not fit the dtype (a ℤ value beyond 64 bits), or the file cannot be written.
void write_buffer_npy(const OutputBuffer& b, Type type, const std::string& path);

// `halo eval --expect`: compares the output, point by point, with the values another
// program computed (an .npy array or an image, loaded as an input of the output's shape;
// its first point is the window's first point). Returns "" when they agree everywhere,
// else what differs: the count and the first `listed` points with both values.
std::string compare_with_expected(const OutputBuffer& b, const InputBuffer& expected,
                                  const std::vector<std::string>& dim_names, size_t listed = 5);

}  // namespace halo
