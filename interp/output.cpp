// Text and JSON renderings of evaluation results.
#include "interp/output.hpp"

#include "support/output_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stb/stb_image_write.h>
#include <xtensor/xarray.hpp>
#include <xtensor/xnpy.hpp>

#include <cmath>
#include <cstdlib>
#include <optional>

#include <algorithm>

namespace halo {

nlohmann::json value_to_json(const Value& v) {
  if (v.is_error()) return v.to_string();
  // A float is a JSON number written as its shortest round-trip decimal (docs/floats.md);
  // JSON has no NaN or infinity, which are the strings "nan", "inf", "-inf".
  if (v.is_float()) {
    if (!std::isfinite(v.as_double())) return v.to_string();
    return v.is_f32() ? std::strtod(v.to_string().c_str(), nullptr) : v.as_double();
  }
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
  if (b.window.empty()) return out + b.values[0].display() + "\n";

  size_t w = 1;
  for (const auto& v : b.values) w = std::max(w, v.display().size());
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
      for (uint64_t x = 0; x < nx; ++x) out += fmt::format(" {:>{}}", b.values[p * plane + y * nx + x].display(), w);
      out += "\n";
    }
  }
  return out;
}

std::string write_buffer_png(const OutputBuffer& b, const std::string& path) {
  auto fail = [&](std::string why) -> InputError { return InputError(Diagnostic{path, {}, std::move(why)}); };
  const size_t dims = b.window.size();
  int64_t channels = dims == 3 ? b.window[2].len.as_int64().value_or(0) : 1;
  if (dims != 2 && !(dims == 3 && channels >= 1 && channels <= 4))
    throw fail(fmt::format("--png: the output has {} dimension(s); a picture needs 2 (x, y) or 3 with 1 to 4 points "
                           "in the last (channels)",
                           dims));
  const int64_t w = b.window[0].len.as_int64().value_or(0), h = b.window[1].len.as_int64().value_or(0);
  if (w <= 0 || h <= 0 || w > (1 << 15) || h > (1 << 15)) throw fail("--png: the window is empty or too large for a picture");
  std::optional<BigInt> lo, hi;
  uint64_t errors = 0;
  for (const Value& v : b.values) {
    if (!v.is_int()) {
      ++errors;
      continue;
    }
    BigInt x = v.to_big();
    if (!lo || x < *lo) lo = x;
    if (!hi || x > *hi) hi = x;
  }
  const bool exact = lo && *lo >= 0 && *hi <= 255;
  std::vector<unsigned char> px(size_t(w * h * channels));
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) {
        const Value& v = b.values[size_t((c * h + y) * w + x)];
        unsigned char p = 0;
        if (v.is_int()) {
          BigInt val = v.to_big();
          if (exact) p = static_cast<unsigned char>(static_cast<int>(val));
          else if (*hi != *lo) p = static_cast<unsigned char>(static_cast<int>((val - *lo) * 255 / (*hi - *lo)));
        }
        px[size_t((y * w + x) * channels + c)] = p;  // PNG interleaves channels
      }
  std::string png;  // encoded in memory, then written whole (support/output_file.hpp)
  auto append = [](void* to, void* data, int size) { static_cast<std::string*>(to)->append(static_cast<char*>(data), size_t(size)); };
  if (!stbi_write_png_to_func(append, &png, int(w), int(h), int(channels), px.data(), int(w * channels)))
    throw fail("--png: cannot encode the picture");
  write_file_atomically(path, png);
  std::vector<std::string> notes;
  if (!exact && lo) notes.push_back(fmt::format("values scaled from [{}, {}] onto [0, 255]", lo->str(), hi->str()));
  if (errors) notes.push_back(fmt::format("{} error point(s) drawn as 0", errors));
  return fmt::format("{}", fmt::join(notes, "; "));
}

namespace {

template <typename T>
void dump_npy_as(const OutputBuffer& b, const std::string& path) {
  std::vector<size_t> shape;
  for (auto it = b.window.rbegin(); it != b.window.rend(); ++it) shape.push_back(size_t(it->len.as_int64().value_or(0)));
  xt::xarray<T> a = xt::xarray<T>::from_shape(shape);
  size_t i = 0;
  for (const Value& v : b.values) a.data()[i++] = static_cast<T>(*v.as_int64());
  write_file_atomically(path, xt::dump_npy(a));
}

}  // namespace

void write_buffer_npy(const OutputBuffer& b, Type type, const std::string& path) {
  auto fail = [&](std::string why) -> InputError { return InputError(Diagnostic{path, {}, std::move(why)}); };
  for (const Value& v : b.values) {
    if (v.is_error()) throw fail(fmt::format("--npy: the output holds the error value {}, which NumPy cannot hold", v.to_string()));
    if (!v.as_int64()) throw fail(fmt::format("--npy: the output holds {}, beyond the 64 bits of NumPy's int64", v.to_string()));
  }
  try {
    if (type.is_bool()) dump_npy_as<bool>(b, path);
    else if (type.is_z() || type.bits() == 64) {
      if (type.is_uint()) dump_npy_as<uint64_t>(b, path);
      else dump_npy_as<int64_t>(b, path);
    } else if (type.is_uint()) {
      if (type.bits() == 8) dump_npy_as<uint8_t>(b, path);
      else if (type.bits() == 16) dump_npy_as<uint16_t>(b, path);
      else dump_npy_as<uint32_t>(b, path);
    } else {
      if (type.bits() == 8) dump_npy_as<int8_t>(b, path);
      else if (type.bits() == 16) dump_npy_as<int16_t>(b, path);
      else dump_npy_as<int32_t>(b, path);
    }
  } catch (const InputError&) {
    throw;  // the file's own error, already about `path`
  } catch (const std::exception& e) {
    throw fail(fmt::format("--npy: cannot write the file ({})", e.what()));
  }
}

std::string compare_with_expected(const OutputBuffer& b, const InputBuffer& expected,
                                  const std::vector<std::string>& dim_names, size_t listed) {
  std::vector<int64_t> extents;
  for (const Interval& iv : b.window) extents.push_back(iv.len.as_int64().value_or(0));
  std::vector<int64_t> theirs;
  for (const Interval& iv : expected.box) theirs.push_back(iv.len.as_int64().value_or(0));
  if (theirs != extents)
    return fmt::format("{} has extents ({}) but the output's window has ({})", expected.origin, fmt::join(theirs, ", "),
                       fmt::join(extents, ", "));
  uint64_t differing = 0;
  std::vector<std::string> lines;
  std::vector<int64_t> point(extents.size(), 0);
  for (size_t i = 0; i < b.values.size(); ++i) {
    if (!(b.values[i] == expected.values[i])) {
      if (++differing <= listed) {
        std::vector<std::string> coords;
        for (size_t k = 0; k < point.size(); ++k) {
          Value at = add(b.window[k].min, Value(point[k]));
          coords.push_back(fmt::format("{}={}", k < dim_names.size() ? dim_names[k] : std::to_string(k), at.to_string()));
        }
        lines.push_back(fmt::format("  at ({}): expected {}, the reference computes {}", fmt::join(coords, ", "),
                                    expected.values[i].to_string(), b.values[i].to_string()));
      }
    }
    for (size_t k = 0; k < point.size() && ++point[k] == extents[k]; ++k) point[k] = 0;
  }
  if (!differing) return "";
  return fmt::format("differs from {} at {} of {} point(s){}\n{}", expected.origin, differing, b.values.size(),
                     differing > listed ? fmt::format(" (the first {}:)", listed) : ":", fmt::join(lines, "\n"));
}

}  // namespace halo
