// Reading and validating a `halo kernel` manifest (kernel_manifest.hpp). nlohmann::json
// does not keep source positions, so a small scanner walks the same text once more and
// records where each value starts, keyed by its JSON pointer; every error is then reported
// at the value it is about.
#include "candidates/kernel/kernel_manifest.hpp"
#include "support/json_text.hpp"
#include "semantics/lexer.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace halo {

namespace fs = std::filesystem;
using nlohmann::json;

const char* kernel_platform_name(KernelPlatform p) {
  switch (p) {
    case KernelPlatform::Gemmini: return "gemmini";
    case KernelPlatform::Avx512: return "avx512";
    case KernelPlatform::C: return "c";
  }
  return "?";
}

const char* kernel_arg_kind_name(KernelArgKind k) {
  switch (k) {
    case KernelArgKind::Context: return "context";
    case KernelArgKind::Scalar: return "scalar";
    case KernelArgKind::Input: return "input";
    case KernelArgKind::Output: return "output";
    case KernelArgKind::InOut: return "inout";
  }
  return "?";
}

std::optional<KernelCType> kernel_ctype(const std::string& name) {
  static const std::vector<KernelCType> types = {
      {"int8_t", 1, false, true, false, true},     {"uint8_t", 1, false, false, false, true},
      {"int16_t", 2, false, true, false, true},    {"uint16_t", 2, false, false, false, true},
      {"int32_t", 4, false, true, false, true},    {"uint32_t", 4, false, false, false, true},
      {"int64_t", 8, false, true, false, true},    {"uint64_t", 8, false, false, false, true},
      {"float", 4, true, true, false, true},       {"double", 8, true, true, false, true},
      {"bool", 1, false, false, true, false},      {"int", 4, false, true, false, false},
      {"long", 8, false, true, false, false},      {"size_t", 8, false, false, false, false},
      {"int_fast32_t", 8, false, true, false, false}, {"int_fast64_t", 8, false, true, false, false},
  };
  for (const auto& t : types)
    if (t.name == name) return t;
  return std::nullopt;
}

namespace {

// ------------------------------------------------------------------ value positions

class PositionScanner {
 public:
  static constexpr int kMaxDepth = 64;
  struct TooDeep {
    SourceLoc where;
  };
  explicit PositionScanner(const std::string& text) : s_(text) {}
  std::map<std::string, SourceLoc> scan() {
    skip_ws();
    value("");
    return locs_;
  }
  // The scan asks for increasing offsets: the cursor moves on from the last answer, so the
  // whole scan is linear in the text (restarting at 0 made a 300 KB manifest take seconds).
  SourceLoc loc_at(size_t offset) const {
    if (offset < cursor_) {
      cursor_ = 0;
      cursor_loc_ = SourceLoc{1, 1};
    }
    for (; cursor_ < offset && cursor_ < s_.size(); ++cursor_) {
      if (s_[cursor_] == '\n') {
        ++cursor_loc_.line;
        cursor_loc_.col = 1;
      } else {
        ++cursor_loc_.col;
      }
    }
    return cursor_loc_;
  }

 private:
  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  std::string string_token() {
    std::string out;
    ++i_;  // opening quote
    while (i_ < s_.size() && s_[i_] != '"') {
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) {
        out += s_[i_ + 1];
        i_ += 2;
      } else {
        out += s_[i_++];
      }
    }
    ++i_;  // closing quote
    return out;
  }
  static std::string escape_pointer(const std::string& key) {
    std::string r;
    for (char c : key) r += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
    return r;
  }
  void value(const std::string& ptr, int depth = 0) {
    if (i_ >= s_.size()) return;
    // A manifest is a few levels deep; a deeper one would only exhaust the stack here.
    if (depth > kMaxDepth) throw TooDeep{loc_at(i_)};
    locs_[ptr] = loc_at(i_);
    char c = s_[i_];
    if (c == '{') {
      ++i_;
      skip_ws();
      while (i_ < s_.size() && s_[i_] != '}') {
        std::string key = string_token();
        skip_ws();
        ++i_;  // ':'
        skip_ws();
        value(ptr + "/" + escape_pointer(key), depth + 1);
        skip_ws();
        if (i_ < s_.size() && s_[i_] == ',') ++i_;
        skip_ws();
      }
      ++i_;
    } else if (c == '[') {
      ++i_;
      skip_ws();
      for (int n = 0; i_ < s_.size() && s_[i_] != ']'; ++n) {
        value(ptr + "/" + std::to_string(n), depth + 1);
        skip_ws();
        if (i_ < s_.size() && s_[i_] == ',') ++i_;
        skip_ws();
      }
      ++i_;
    } else if (c == '"') {
      string_token();
    } else {
      while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '}' && s_[i_] != ']' && s_[i_] != ' ' && s_[i_] != '\n' &&
             s_[i_] != '\r' && s_[i_] != '\t')
        ++i_;
    }
  }

  const std::string& s_;
  size_t i_ = 0;
  mutable size_t cursor_ = 0;
  mutable SourceLoc cursor_loc_{1, 1};
  std::map<std::string, SourceLoc> locs_;
};

// ------------------------------------------------------------------ the reader

class ManifestReader {
 public:
  ManifestReader(const std::string& text, const std::string& path) : path_(path) {
    PositionScanner scanner(text);
    // Absurd depths are refused before parsing, so that no recursion (destroying the tree
    // included) meets them; the scanner below locates the first level past kMaxDepth.
    if (json_nesting_depth(text) > 10000) {
      size_t depth = 0, at = 0;  // the bracket the scanner would stop at (the root is level 0)
      for (bool in_string = false; at < text.size(); ++at) {
        char c = text[at];
        if (in_string) {
          if (c == '\\') ++at;
          else if (c == '"') in_string = false;
        } else if (c == '"') {
          in_string = true;
        } else if ((c == '[' || c == '{') && ++depth > size_t(PositionScanner::kMaxDepth) + 1) {
          break;
        } else if ((c == ']' || c == '}') && depth > 0) {
          --depth;
        }
      }
      throw InputError(Diagnostic{path, scanner.loc_at(at),
                                  fmt::format("JSON nested deeper than {} levels", PositionScanner::kMaxDepth)});
    }
    try {
      root_ = json::parse(text);
    } catch (const json::parse_error& e) {
      throw InputError(Diagnostic{path, scanner.loc_at(e.byte > 0 ? e.byte - 1 : 0),
                                  std::string("not valid JSON: ") + e.what()});
    } catch (const json::exception& e) {  // out_of_range: a number such as 1e400
      throw InputError(Diagnostic{path, {}, std::string("not valid JSON: ") + e.what()});
    }
    try {
      locs_ = scanner.scan();
    } catch (const PositionScanner::TooDeep& e) {
      throw InputError(Diagnostic{path, e.where, fmt::format("JSON nested deeper than {} levels", PositionScanner::kMaxDepth)});
    }
  }

  KernelManifest read() {
    KernelManifest m;
    m.path = path_;
    fs::path p(path_);
    m.dir = p.has_parent_path() ? p.parent_path().string() : ".";
    if (!root_.is_object()) {
      error("", "a manifest is a JSON object with \"platform\", \"sources\", \"function\", \"spec\" and \"args\"");
      finish();
    }
    known_keys("", root_, {"platform", "sources", "include_dirs", "cflags", "function", "spec", "params", "args",
                           "sanitize", "comment"});
    // platform
    if (auto* v = field("", root_, "platform", true)) {
      std::string s = v->is_string() ? v->get<std::string>() : "";
      if (s == "gemmini") m.platform = KernelPlatform::Gemmini;
      else if (s == "avx512") m.platform = KernelPlatform::Avx512;
      else if (s == "c") m.platform = KernelPlatform::C;
      else error("/platform", "\"platform\" is one of \"gemmini\", \"avx512\", \"c\"");
    }
    m.sources = paths("/sources", "sources", true, false, m.dir);
    if (root_.contains("sources") && root_["sources"].is_array() && root_["sources"].empty())
      error("/sources", "\"sources\" lists at least one C file");
    m.include_dirs = paths("/include_dirs", "include_dirs", false, true, m.dir);
    if (auto* v = field("", root_, "cflags", false)) {
      if (!v->is_array()) error("/cflags", "\"cflags\" is an array of strings");
      else
        for (size_t i = 0; i < v->size(); ++i) {
          if (!(*v)[i].is_string()) error(fmt::format("/cflags/{}", i), "a compiler flag is a string");
          else m.cflags.push_back((*v)[i].get<std::string>());
        }
    }
    if (auto* v = field("", root_, "function", true)) {
      m.function_loc = loc("/function");
      if (!v->is_string() || !is_identifier(v->get<std::string>()))
        error("/function", "\"function\" is the name of the C function to call");
      else m.function = v->get<std::string>();
    }
    if (auto* v = field("", root_, "spec", true)) {
      m.spec_loc = loc("/spec");
      if (!v->is_string()) error("/spec", "\"spec\" is the path of a .halo file");
      else {
        m.spec = resolve(m.dir, v->get<std::string>());
        std::error_code ec;  // a name too long for the system is "no such file" too, not an exception
        if (!fs::is_regular_file(m.spec, ec)) error("/spec", fmt::format("no such file: {}", m.spec));
      }
    }
    if (auto* v = field("", root_, "params", false)) {
      m.params_loc = loc("/params");
      if (!v->is_object()) error("/params", "\"params\" maps each spec parameter to an integer");
      else
        for (const auto& [k, val] : v->items()) {
          if (!val.is_number_integer()) error("/params/" + k, fmt::format("parameter '{}' must be an integer", k));
          else m.params.emplace_back(k, val.is_number_unsigned() ? std::to_string(val.get<uint64_t>())
                                                                 : std::to_string(val.get<int64_t>()));
        }
    }
    if (auto* v = field("", root_, "sanitize", false)) {
      if (!v->is_boolean()) error("/sanitize", "\"sanitize\" is true or false");
      else m.sanitize = v->get<bool>();
    }
    if (auto* v = field("", root_, "args", true)) {
      if (!v->is_array()) error("/args", "\"args\" is an array with one object per argument of the function");
      else
        for (size_t i = 0; i < v->size(); ++i) m.args.push_back(arg(fmt::format("/args/{}", i), (*v)[i], i));
    }
    finish();
    return m;
  }

 private:
  static bool is_identifier(const std::string& s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    for (char c : s)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return true;
  }
  static std::string resolve(const std::string& dir, const std::string& p) {
    fs::path q(p);
    return q.is_absolute() ? q.string() : (fs::path(dir) / q).lexically_normal().string();
  }
  SourceLoc loc(const std::string& ptr) const {
    auto it = locs_.find(ptr);
    return it == locs_.end() ? SourceLoc{1, 1} : it->second;
  }
  void error(const std::string& ptr, std::string msg) { errs_.push_back(Diagnostic{path_, loc(ptr), std::move(msg)}); }
  void finish() {
    if (!errs_.empty()) throw InputError(errs_);
  }
  void known_keys(const std::string& ptr, const json& obj, std::set<std::string> keys) {
    for (const auto& [k, v] : obj.items())
      if (!keys.count(k))
        error(ptr + "/" + k, fmt::format("unknown key \"{}\" (expected one of: {})", k, fmt::join(keys, ", ")));
  }
  const json* field(const std::string& ptr, const json& obj, const char* key, bool required) {
    if (obj.contains(key)) return &obj[key];
    if (required) error(ptr, fmt::format("missing \"{}\"", key));
    return nullptr;
  }
  std::vector<std::string> paths(const std::string& ptr, const char* key, bool required, bool dirs,
                                 const std::string& dir) {
    std::vector<std::string> out;
    const json* v = field("", root_, key, required);
    if (!v) return out;
    if (!v->is_array()) {
      error(ptr, fmt::format("\"{}\" is an array of paths", key));
      return out;
    }
    for (size_t i = 0; i < v->size(); ++i) {
      std::string p = fmt::format("{}/{}", ptr, i);
      if (!(*v)[i].is_string()) {
        error(p, "a path is a string");
        continue;
      }
      std::string r = resolve(dir, (*v)[i].get<std::string>());
      std::error_code ec;
      if (dirs ? !fs::is_directory(r, ec) : !fs::is_regular_file(r, ec))
        error(p, fmt::format("no such {}: {}", dirs ? "directory" : "file", r));
      out.push_back(r);
    }
    return out;
  }
  std::optional<KernelIntRef> int_ref(const std::string& ptr, const json& v) {
    KernelIntRef r;
    r.loc = loc(ptr);
    if (v.is_number_integer() && (v.is_number_unsigned() || v.get<int64_t>() >= 0)) {
      r.value = v.is_number_unsigned() ? int64_t(v.get<uint64_t>()) : v.get<int64_t>();
      return r;
    }
    if (v.is_string() && is_identifier(v.get<std::string>())) {
      r.param = v.get<std::string>();
      return r;
    }
    error(ptr, "an extent is a non-negative integer or the name of a spec parameter");
    return std::nullopt;
  }

  KernelArg arg(const std::string& ptr, const json& a, size_t index) {
    KernelArg r;
    r.loc = loc(ptr);
    if (!a.is_object()) {
      error(ptr, "an argument is an object with a \"kind\"");
      return r;
    }
    const json* kind = field(ptr, a, "kind", true);
    if (!kind) return r;
    std::string k = kind->is_string() ? kind->get<std::string>() : "";
    if (k == "context") r.kind = KernelArgKind::Context;
    else if (k == "scalar") r.kind = KernelArgKind::Scalar;
    else if (k == "input") r.kind = KernelArgKind::Input;
    else if (k == "output") r.kind = KernelArgKind::Output;
    else if (k == "inout") r.kind = KernelArgKind::InOut;
    else {
      error(ptr + "/kind", "\"kind\" is one of \"context\", \"scalar\", \"input\", \"output\", \"inout\"");
      return r;
    }
    if (const json* n = field(ptr, a, "name", false)) {
      if (!n->is_string()) error(ptr + "/name", "\"name\" is a string");
      else r.name = n->get<std::string>();
    }
    switch (r.kind) {
      case KernelArgKind::Context: {
        known_keys(ptr, a, {"kind", "bytes", "name"});
        if (const json* b = field(ptr, a, "bytes", true)) {
          if (!b->is_number_integer() || b->get<int64_t>() < 1 || b->get<int64_t>() > (int64_t(1) << 30))
            error(ptr + "/bytes", "\"bytes\" is the size of the context struct, a positive integer");
          else r.bytes = b->get<uint64_t>();
        }
        if (r.name.empty()) r.name = "context";
        break;
      }
      case KernelArgKind::Scalar: {
        known_keys(ptr, a, {"kind", "type", "by_pointer", "value", "name"});
        if (const json* t = field(ptr, a, "type", true)) {
          auto ct = t->is_string() ? kernel_ctype(t->get<std::string>()) : std::nullopt;
          if (!ct) error(ptr + "/type", "unknown scalar type (int8_t ... uint64_t, float, double, bool, int, long, "
                                        "size_t, int_fast32_t, int_fast64_t)");
          else r.type = *ct;
        }
        if (const json* b = field(ptr, a, "by_pointer", false)) {
          if (!b->is_boolean()) error(ptr + "/by_pointer", "\"by_pointer\" is true or false");
          else r.by_pointer = b->get<bool>();
        }
        if (const json* v = field(ptr, a, "value", true)) {
          if (v->is_boolean()) r.integer = v->get<bool>(), r.number = double(r.integer);
          else if (v->is_number_integer()) {
            r.integer = v->is_number_unsigned() ? int64_t(v->get<uint64_t>()) : v->get<int64_t>();
            r.number = double(r.integer);
          } else if (v->is_number_float()) {
            r.number = v->get<double>();
            r.number_is_integer = false;
          } else if (v->is_string() && is_identifier(v->get<std::string>())) {
            r.value_param = v->get<std::string>();
          } else {
            error(ptr + "/value", "a scalar's \"value\" is a number, true/false, or the name of a spec parameter");
          }
          // A bool is true or false, or 0 or 1 as C programmers write it.
          if (r.type.is_bool && !v->is_boolean() && r.value_param.empty() &&
              !(v->is_number_integer() && (r.integer == 0 || r.integer == 1)))
            error(ptr + "/value", "a bool scalar's value is true or false (or 0 or 1)");
          if (!r.type.is_float && !r.type.is_bool && !r.number_is_integer)
            error(ptr + "/value", fmt::format("an integer is expected for type {}", r.type.name));
        }
        if (r.name.empty()) r.name = fmt::format("scalar argument {}", index + 1);
        break;
      }
      default: {
        known_keys(ptr, a, {"kind", "type", "shape", "func", "init", "init_func", "name"});
        if (const json* t = field(ptr, a, "type", true)) {
          auto ct = t->is_string() ? kernel_ctype(t->get<std::string>()) : std::nullopt;
          if (!ct || !ct->buffer_element)
            error(ptr + "/type", "a buffer's element type is one of int8_t ... uint64_t, float, double");
          else r.type = *ct;
        }
        if (const json* s = field(ptr, a, "shape", true)) {
          if (!s->is_array()) error(ptr + "/shape", "\"shape\" is an array of extents [d0, d1, ...]");
          else
            for (size_t i = 0; i < s->size(); ++i)
              if (auto e = int_ref(fmt::format("{}/shape/{}", ptr, i), (*s)[i])) r.shape.push_back(*e);
        }
        if (const json* f = field(ptr, a, "func", true)) {
          r.func_loc = loc(ptr + "/func");
          if (!f->is_string() || !is_identifier(f->get<std::string>()))
            error(ptr + "/func", "\"func\" names a func of the spec");
          else r.func = f->get<std::string>();
        }
        // The initial contents of an inout buffer: "init_func" is the contract's name for the
        // key (TARGETS.md), "init" halo's earlier one; either, not both.
        if (a.contains("init") && a.contains("init_func"))
          error(ptr + "/init_func", "give \"init_func\" or \"init\" (the same key), not both");
        for (const char* key : {"init_func", "init"})
          if (const json* f = field(ptr, a, key, false)) {
            std::string at = ptr + "/" + key;
            r.init_loc = loc(at);
            if (r.kind != KernelArgKind::InOut) error(at, fmt::format("only an inout buffer has \"{}\"", key));
            else if (!f->is_string() || !is_identifier(f->get<std::string>()))
              error(at, fmt::format("\"{}\" names the func giving the buffer's initial contents", key));
            else r.init = f->get<std::string>();
            break;
          }
        if (r.name.empty()) r.name = r.func;
      }
    }
    return r;
  }

  std::string path_;
  json root_;
  std::map<std::string, SourceLoc> locs_;
  std::vector<Diagnostic> errs_;
};

}  // namespace

KernelManifest parse_kernel_manifest_text(const std::string& text, const std::string& path) {
  return ManifestReader(text, path).read();
}

KernelManifest parse_kernel_manifest(const std::string& path) {
  return parse_kernel_manifest_text(read_source_file(path), path);
}

}  // namespace halo
