// Rendering an OutputBuffer: the JSON shape of LANGUAGE.md (`halo eval --json`) and a
// text layout people can read (a grid per 2-D slice, y down and x across).
#pragma once

#include "interp/input.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace halo {

// A JSON integer when the value fits in 53 bits, else a decimal string; errors are the
// strings "err_rdom" and "err_mem".
nlohmann::json value_to_json(const Value& v);
nlohmann::json buffer_to_json(const OutputBuffer& b);
std::string render_buffer(const OutputBuffer& b, const std::vector<std::string>& dim_names);

}  // namespace halo
