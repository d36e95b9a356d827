// Text and JSON renderings of evaluation results.
#include "interp/output.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace halo {

nlohmann::json value_to_json(const Value& v) {
  if (v.is_error()) return v.to_string();
  if (v.fits_in_bits(53)) return *v.as_int64();
  return v.to_string();
}

nlohmann::json buffer_to_json(const OutputBuffer& b) {
  nlohmann::json window = nlohmann::json::array();
  for (const auto& iv : b.window) window.push_back({value_to_json(iv.min), value_to_json(iv.len)});
  nlohmann::json values = nlohmann::json::array();
  for (const auto& v : b.values) values.push_back(value_to_json(v));
  return {{"func", b.func}, {"window", window}, {"values", values}};
}

namespace {
std::string dim_name(const std::vector<std::string>& names, size_t d) {
  return d < names.size() ? names[d] : fmt::format("d{}", d);
}
}  // namespace

std::string render_buffer(const OutputBuffer& b, const std::vector<std::string>& names) {
  std::string out;
  std::string header = b.func;
  std::vector<std::string> ranges;
  for (size_t d = 0; d < b.window.size(); ++d)
    ranges.push_back(fmt::format("{} in ({}, {})", dim_name(names, d), b.window[d].min.to_string(),
                                 b.window[d].len.to_string()));
  out += fmt::format("{}{}{}\n", header, ranges.empty() ? "" : " on ", fmt::join(ranges, ", "));
  if (b.values.empty()) return out;
  if (b.window.empty()) return out + b.values[0].to_string() + "\n";

  size_t w = 1;
  for (const auto& v : b.values) w = std::max(w, v.to_string().size());
  uint64_t nx = uint64_t(*b.window[0].len.as_int64());
  uint64_t ny = b.window.size() > 1 ? uint64_t(*b.window[1].len.as_int64()) : 1;
  uint64_t plane = nx * ny, planes = b.values.size() / std::max<uint64_t>(plane, 1);
  std::vector<std::string> xs;
  for (uint64_t x = 0; x < nx; ++x) xs.push_back(add(b.window[0].min, Value(int64_t(x))).to_string());
  for (const auto& s : xs) w = std::max(w, s.size());
  size_t lw = 1;
  if (b.window.size() > 1)
    for (uint64_t y = 0; y < ny; ++y) lw = std::max(lw, add(b.window[1].min, Value(int64_t(y))).to_string().size());
  std::string corner = b.window.size() > 1 ? dim_name(names, 1) + "\\" + dim_name(names, 0) : dim_name(names, 0);
  lw = std::max(lw, corner.size());

  for (uint64_t p = 0; p < planes; ++p) {
    if (b.window.size() > 2) {
      std::vector<std::string> outer;
      uint64_t rest = p;
      for (size_t d = 2; d < b.window.size(); ++d) {
        uint64_t len = uint64_t(*b.window[d].len.as_int64());
        outer.push_back(fmt::format("{} = {}", dim_name(names, d),
                                    add(b.window[d].min, Value(int64_t(rest % len))).to_string()));
        rest /= len;
      }
      out += fmt::format("{}[{}]:\n", p ? "\n" : "", fmt::join(outer, ", "));
    }
    out += fmt::format("{:>{}} |", corner, lw);
    for (const auto& s : xs) out += fmt::format(" {:>{}}", s, w);
    out += fmt::format("\n{:-<{}}+{:-<{}}\n", "", lw + 1, "", nx * (w + 1));
    for (uint64_t y = 0; y < ny; ++y) {
      std::string label = b.window.size() > 1 ? add(b.window[1].min, Value(int64_t(y))).to_string() : "";
      out += fmt::format("{:>{}} |", label, lw);
      for (uint64_t x = 0; x < nx; ++x) out += fmt::format(" {:>{}}", b.values[p * plane + y * nx + x].to_string(), w);
      out += "\n";
    }
  }
  return out;
}

}  // namespace halo
