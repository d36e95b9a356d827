// Loading input buffers; see input_buffers.hpp.
#include "interp/input_buffers.hpp"
#include "support/stable_hash.hpp"

#include "interp/input.hpp"
#include "semantics/type_ops.hpp"

#include <fmt/format.h>

#include <limits>
#include <stb/stb_image.h>
#include <xtensor/xnpy.hpp>

#include <filesystem>
#include <memory>

namespace halo {

const Value* InputBuffer::at(const std::vector<Value>& point) const {
  if (point.size() != box.size()) return nullptr;
  uint64_t offset = 0, stride = 1;
  for (size_t k = 0; k < box.size(); ++k) {
    auto x = point[k].as_int64();
    auto mn = box[k].min.as_int64(), len = box[k].len.as_int64();
    int64_t o;
    if (!x || !mn || !len || __builtin_sub_overflow(*x, *mn, &o) || o < 0 || o >= *len) return nullptr;
    offset += uint64_t(o) * stride;
    stride *= uint64_t(*len);
  }
  return &values[offset];
}

const Value* InputBuffer::at(const int64_t* point) const {
  uint64_t offset = 0, stride = 1;
  for (size_t k = 0; k < box.size(); ++k) {
    auto mn = box[k].min.as_int64(), len = box[k].len.as_int64();
    int64_t o;
    if (!mn || !len || __builtin_sub_overflow(point[k], *mn, &o) || o < 0 || o >= *len) return nullptr;
    offset += uint64_t(o) * stride;
    stride *= uint64_t(*len);
  }
  return &values[offset];
}

namespace {

// splitmix64: a fixed, portable sequence (std's distributions are not the same everywhere,
// and a seed must name the same buffer on every machine).
uint64_t next(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

[[noreturn]] void fail(const std::string& file, SourceLoc loc, std::string msg) {
  throw InputError(Diagnostic{file, loc, std::move(msg)});
}

std::string shown_source(const InputBinding& b) {
  switch (b.source) {
    case InputSourceKind::Image: return fmt::format("image(\"{}\")", b.path);
    case InputSourceKind::Npy: return fmt::format("npy(\"{}\")", b.path);
    case InputSourceKind::Seeded: return fmt::format("seeded({})", b.seed.to_string());
  }
  return "?";
}

void check_volume(const std::vector<Interval>& box, const Limits& limits, const std::string& name) {
  try {
    (void)window_volume(box, limits);
  } catch (const ResourceLimit&) {
    throw ResourceLimit(fmt::format("input {} has too many points for the memory limit ({} MiB); raise it with "
                                    "--max-memory",
                                    name, limits.max_memory_bytes >> 20));
  }
}

// Reads an image: dimensions (x, y) of a grey image, (x, y, c) with the file's channels.
void load_image(InputBuffer& buf, const TgtInput& decl, const InputBinding& b, const std::string& path,
                const std::string& file) {
  size_t dims = decl.vars.size();
  if (dims != 2 && dims != 3)
    fail(file, b.loc, fmt::format("input {} has {} dimension(s); an image gives 2 (x, y) or 3 (x, y, c)", decl.name,
                                  dims));
  int w = 0, h = 0, n = 0;
  if (!stbi_info(path.c_str(), &w, &h, &n))
    fail(file, b.loc, fmt::format("cannot read image '{}': {}", b.path, stbi_failure_reason()));
  bool wide = stbi_is_16_bit(path.c_str());
  int want = dims == 2 ? 1 : 0;  // a grey input takes the file's luminance
  int channels = dims == 2 ? 1 : n;
  std::unique_ptr<void, void (*)(void*)> data(
      wide ? static_cast<void*>(stbi_load_16(path.c_str(), &w, &h, &n, want))
           : static_cast<void*>(stbi_load(path.c_str(), &w, &h, &n, want)),
      stbi_image_free);
  if (!data) fail(file, b.loc, fmt::format("cannot read image '{}': {}", b.path, stbi_failure_reason()));
  if (dims == 2 && n != 1 && n != 2)
    fail(file, b.loc, fmt::format("image '{}' has {} channels but input {} has 2 dimensions (x, y): declare it "
                                  "{}(x, y, c)",
                                  b.path, n, decl.name, decl.name));
  Type sample = wide ? Type::uint(16) : Type::uint(8);
  if (!decl.type.is_z() && !decl.type.can_represent(sample))
    fail(file, b.loc, fmt::format("image '{}' holds {}-bit samples, which input {} of type {} cannot hold", b.path,
                                  sample.bits(), decl.name, decl.type.to_string()));
  buf.box = {Interval{0, w, {}}, Interval{0, h, {}}};
  if (dims == 3) buf.box.push_back(Interval{0, channels, {}});
  buf.values.resize(size_t(w) * size_t(h) * size_t(channels));
  for (int c = 0; c < channels; ++c)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        size_t src = (size_t(y) * w + x) * size_t(dims == 2 ? 1 : n) + c;  // stb interleaves channels
        int64_t v = wide ? static_cast<const uint16_t*>(data.get())[src] : static_cast<const uint8_t*>(data.get())[src];
        // A float input holds the sample exactly (0 to 255, or 65535), as cast<float> of it.
        buf.values[(size_t(c) * h + y) * w + x] = decl.type.is_float() ? cast_value(decl.type, sample, Value(v)) : Value(v);
      }
}

template <typename T>
bool load_npy_as(InputBuffer& buf, const std::string& path) {
  xt::xarray<T> a;
  try {
    a = xt::load_npy<T>(path);
  } catch (const std::exception&) {
    return false;
  }
  // NumPy's C order has the last axis fastest; Halide's x (dimension 0) is the fastest, so
  // axis k of the array is dimension n-1-k (as numpy arrays of images are indexed [y, x]).
  size_t n = a.dimension();
  buf.box.assign(n, Interval{});
  for (size_t k = 0; k < n; ++k) buf.box[n - 1 - k] = Interval{0, int64_t(a.shape()[k]), {}};
  buf.values.reserve(a.size());
  for (const T& v : a) {
    if constexpr (std::is_same_v<T, float>) buf.values.push_back(Value::f32(v));
    else if constexpr (std::is_same_v<T, double>) buf.values.push_back(Value::f64(v));
    else buf.values.push_back(Value(int64_t(v)));
  }
  return true;
}

void load_npy(InputBuffer& buf, const TgtInput& decl, const InputBinding& b, const std::string& path,
              const std::string& file) {
  if (!std::filesystem::is_regular_file(path)) fail(file, b.loc, fmt::format("cannot read '{}': no such file", b.path));
  bool ok = load_npy_as<int64_t>(buf, path) || load_npy_as<int32_t>(buf, path) || load_npy_as<int16_t>(buf, path) ||
            load_npy_as<int8_t>(buf, path) || load_npy_as<uint8_t>(buf, path) || load_npy_as<uint16_t>(buf, path) ||
            load_npy_as<uint32_t>(buf, path) || load_npy_as<bool>(buf, path) || load_npy_as<float>(buf, path) ||
            load_npy_as<double>(buf, path);
  if (!ok)
    fail(file, b.loc, fmt::format("cannot read '{}' as a NumPy array (int8..int64, uint8..uint32, bool, float32, "
                                  "float64; little-endian, C order)",
                                  b.path));
  // A float array fills a float input of its own precision; integers fill an integer one
  // or, exactly, a float one.
  for (Value& v : buf.values) {
    if (v.is_float() && decl.type.is_float() && v.is_f32() != (decl.type.bits() == 32))
      fail(file, b.loc, fmt::format("'{}' holds {} values, but input {} is {}", b.path, v.is_f32() ? "float32" : "float64",
                                    decl.name, decl.type.to_string()));
    if (v.is_int() && decl.type.is_float() && decl.type.can_represent(v))
      v = cast_value(decl.type, Type::int_(64), v);
  }
  if (buf.box.size() != decl.vars.size())
    fail(file, b.loc, fmt::format("'{}' has {} dimension(s) but input {} has {}", b.path, buf.box.size(), decl.name,
                                  decl.vars.size()));
  for (const Value& v : buf.values)
    if (!decl.type.can_represent(v))
      fail(file, b.loc, fmt::format("'{}' holds {}, which is not a value of input {}'s type {}", b.path, v.to_string(),
                                    decl.name, decl.type.to_string()));
}

}  // namespace

Value seeded_value(Type t, uint64_t& state) {
  uint64_t r = next(state);
  if (t.is_float()) {
    // Mostly a pixel in [0, 1) (24 random bits), one in eight a small integer, one in eight an
    // IEEE edge: ±0, ±1, 0.5, the least subnormal, the greatest finite, ±inf, NaN.
    uint64_t v = next(state);
    if ((r & 7) == 0) {
      const double edges[] = {0.0, -0.0, 1.0, -1.0, 0.5, t.bits() == 32 ? double(std::numeric_limits<float>::denorm_min())
                                                                         : std::numeric_limits<double>::denorm_min(),
                              t.bits() == 32 ? double(std::numeric_limits<float>::max()) : std::numeric_limits<double>::max(),
                              std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                              std::numeric_limits<double>::quiet_NaN()};
      return make_float(t, edges[(v >> 8) % 10]);
    }
    if ((r & 7) == 1) return make_float(t, double(int64_t((v >> 32) % 201) - 100));
    return make_float(t, double(v >> 40) / double(uint64_t{1} << 24));
  }
  if (t.is_z()) {
    int64_t v = (r & 3) == 0 ? int64_t(int32_t(r >> 32)) : int64_t((r >> 32) % 201) - 100;
    return Value(v);
  }
  if ((r & 7) == 0) {  // an edge of the type
    Value edges[] = {t.min(), t.max(), Value(0), Value(1), Value(-1), add(t.min(), Value(1)), sub(t.max(), Value(1))};
    Value v = edges[(r >> 8) % 7];
    return t.can_represent(v) ? v : Value(0);
  }
  return wrap_to(t, Value(int64_t(next(state))));
}

InputBuffer load_input_buffer(const TgtInput& decl, const InputBinding& b, const std::string& file,
                              const std::string& base_dir, const Limits& limits) {
  InputBuffer buf;
  buf.name = decl.name;
  buf.type = decl.type;
  buf.origin = shown_source(b);
  std::string path = b.path;
  if (!path.empty() && !std::filesystem::path(path).is_absolute() && !base_dir.empty())
    path = (std::filesystem::path(base_dir) / path).string();
  switch (b.source) {
    case InputSourceKind::Seeded: {
      if (b.box.size() != decl.vars.size())
        fail(file, b.loc, fmt::format("the seeded buffer of input {} has {} interval(s) but the input has {} "
                                      "dimension(s)",
                                      decl.name, b.box.size(), decl.vars.size()));
      for (const Interval& iv : b.box)
        if (!iv.min.as_int64() || !iv.len.as_int64() || iv.len.sign() < 0)
          fail(file, b.loc, fmt::format("the box of input {} needs (min, extent) with extent >= 0", decl.name));
      check_volume(b.box, limits, decl.name);
      buf.box = b.box;
      uint64_t n = window_volume(b.box, limits);
      uint64_t state = stable_string_hash(b.seed.to_string()) ^ 0x5EEDull;
      buf.values.reserve(n);
      for (uint64_t i = 0; i < n; ++i) buf.values.push_back(seeded_value(decl.type, state));
      break;
    }
    case InputSourceKind::Image: load_image(buf, decl, b, path, file); break;
    case InputSourceKind::Npy: load_npy(buf, decl, b, path, file); break;
  }
  check_volume(buf.box, limits, decl.name);
  return buf;
}

InputBinding parse_input_flag(const std::string& text, const std::string& file) {
  auto bad = [&](const std::string& why) -> InputError {
    return InputError(Diagnostic{file, {}, fmt::format("--input '{}': {}", text, why)});
  };
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw bad("expected NAME=FILE or NAME=seeded:SEED:MIN,LEN[:MIN,LEN...]");
  InputBinding b;
  b.name.text = text.substr(0, eq);
  std::string spec = text.substr(eq + 1);
  if (spec.rfind("seeded:", 0) == 0) {
    b.source = InputSourceKind::Seeded;
    std::vector<std::string> parts;
    size_t start = 7;
    while (true) {
      size_t colon = spec.find(':', start);
      parts.push_back(spec.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    auto seed = Value::parse(parts[0]);
    if (!seed) throw bad("the seed must be an integer");
    b.seed = *seed;
    for (size_t k = 1; k < parts.size(); ++k) {
      auto comma = parts[k].find(',');
      auto mn = comma == std::string::npos ? std::nullopt : Value::parse(parts[k].substr(0, comma));
      auto ln = comma == std::string::npos ? std::nullopt : Value::parse(parts[k].substr(comma + 1));
      if (!mn || !ln) throw bad(fmt::format("'{}' is not MIN,LEN", parts[k]));
      b.box.push_back(Interval{*mn, *ln, {}});
    }
    return b;
  }
  if (spec.empty()) throw bad("no file name");
  b.path = spec;
  b.source = spec.size() > 4 && spec.substr(spec.size() - 4) == ".npy" ? InputSourceKind::Npy : InputSourceKind::Image;
  return b;
}

std::vector<std::pair<std::string, Value>> buffer_geometry_bindings(const std::vector<InputBuffer>& buffers) {
  std::vector<std::pair<std::string, Value>> out;
  for (const auto& b : buffers)
    for (size_t k = 0; k < b.box.size(); ++k) {
      out.emplace_back(buffer_min_var(b.name, k), b.box[k].min);
      out.emplace_back(buffer_extent_var(b.name, k), b.box[k].len);
    }
  return out;
}

}  // namespace halo
