// Building the input z from the realize section and the command line, and the resource
// budget every evaluator charges.
#include "interp/input.hpp"
#include "semantics/lexer.hpp"
#include "support/command_budget.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace halo {

namespace {
Diagnostic cli_error(const std::string& file, std::string msg) { return Diagnostic{file, SourceLoc{}, std::move(msg)}; }

std::string trim(std::string s) {
  auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}
}  // namespace

Input resolve_input(const Program& prog, const InputOverrides& over) {
  std::vector<std::string> names;
  for (const auto& p : prog.pipeline.params) names.push_back(p.text);
  size_t dims = prog.pipeline.funcs.empty() ? 0 : prog.pipeline.output().vars.size();
  Input in = resolve_input(prog.file, prog.pipeline.name.text, names, dims, prog.realize, over,
                           input_decls(prog.pipeline));
  // A float parameter takes any number, rounded to its type (Param<float>::set(2.2)); a
  // typed integer parameter only values of its type (a Param<uint8_t> holds no 300).
  for (size_t i = 0; i < in.params.size() && i < names.size(); ++i) {
    Type t = prog.pipeline.param_type(i);
    Value& v = in.params[i];
    if (t.is_float()) {
      v = number_as_float(t, v);
      continue;
    }
    if (v.is_float() && !t.is_float())
      throw InputError(Diagnostic{prog.file, {}, fmt::format("--param {}: {} is not a value of its type {}", names[i],
                                                             v.to_string(), t.to_string())});
    if (!t.can_represent(v))
      throw InputError(Diagnostic{prog.file, {}, fmt::format("--param {}: {} is not a value of its type {}", names[i],
                                                             in.params[i].to_string(),
                                                             prog.pipeline.param_type(i).to_string())});
  }
  return in;
}

const InputBuffer* Input::buffer(const std::string& name) const {
  for (const auto& b : buffers)
    if (b.name == name) return &b;
  return nullptr;
}

std::vector<std::pair<std::string, Value>> Input::startup_bindings(const std::vector<std::string>& names) const {
  std::vector<std::pair<std::string, Value>> b;
  for (size_t i = 0; i < names.size() && i < params.size(); ++i) b.emplace_back(names[i], params[i]);
  for (auto& g : buffer_geometry_bindings(buffers)) b.push_back(std::move(g));
  return b;
}

namespace {
// Each declared input's buffer: the command line's --input, else the realize section's.
void resolve_buffers(Input& in, const std::string& file, const std::vector<TgtInput>& decls,
                     const std::optional<Realization>& realize, const InputOverrides& over,
                     std::vector<Diagnostic>& errs) {
  std::vector<std::optional<InputBinding>> chosen(decls.size());
  std::vector<bool> from_cli(decls.size(), false);  // a --input path is relative to the working directory
  auto index_of = [&](const std::string& name) -> int {
    for (size_t i = 0; i < decls.size(); ++i)
      if (decls[i].name == name) return int(i);
    return -1;
  };
  if (realize)
    for (const auto& b : realize->inputs)
      if (int i = index_of(b.name.text); i >= 0) chosen[i] = b;
  for (const auto& text : over.inputs) {
    InputBinding b = parse_input_flag(text, file);
    int i = index_of(b.name.text);
    if (i < 0) {
      errs.push_back(Diagnostic{file, {}, fmt::format("--input: the pipeline has no input '{}'", b.name.text)});
      continue;
    }
    chosen[i] = b;
    from_cli[i] = true;
  }
  std::string base = std::filesystem::path(file).parent_path().string();
  for (size_t i = 0; i < decls.size(); ++i) {
    if (!chosen[i]) {
      errs.push_back(Diagnostic{file, {}, fmt::format("no buffer for input '{}': give it in the realize section "
                                                      "(with {} = image(\"FILE\") or seeded(SEED) over ...) or "
                                                      "with --input {}=FILE",
                                                      decls[i].name, decls[i].name, decls[i].name)});
      continue;
    }
    in.buffers.push_back(load_input_buffer(decls[i], *chosen[i], file, from_cli[i] ? "" : base, Limits{}));
  }
}
}  // namespace

Input resolve_input(const std::string& file, const std::string& output, const std::vector<std::string>& names,
                    size_t dims, const std::optional<Realization>& realize, const InputOverrides& over,
                    const std::vector<TgtInput>& inputs) {
  auto cli_error = [&](std::string msg) { return halo::cli_error(file, std::move(msg)); };
  std::vector<std::optional<Value>> params(names.size());
  auto index_of = [&](const std::string& name) -> int {
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return int(i);
    return -1;
  };
  if (realize)
    for (const auto& b : realize->params)
      if (int i = index_of(b.name.text); i >= 0) params[i] = b.value;

  std::vector<Diagnostic> errs;
  for (const auto& kv : over.params) {
    auto eq = kv.find('=');
    if (eq == std::string::npos) {
      errs.push_back(cli_error(fmt::format("--param expects NAME=VALUE, got '{}'", kv)));
      continue;
    }
    std::string name = trim(kv.substr(0, eq)), val = trim(kv.substr(eq + 1));
    int i = index_of(name);
    auto v = parse_number_text(val);
    if (i < 0)
      errs.push_back(cli_error(fmt::format("--param: the pipeline has no parameter '{}'", name)));
    else if (!v)
      errs.push_back(cli_error(fmt::format("--param {}: '{}' is not a number", name, val)));
    else
      params[i] = *v;
  }

  Input in;
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i]) in.params.push_back(*params[i]);
    else errs.push_back(cli_error(fmt::format("no value for parameter '{}': give it in the realize "
                                                    "section or with --param {}=VALUE",
                                                    names[i], names[i])));
  }

  if (!over.windows.empty()) {
    for (const auto& w : over.windows) {
      auto comma = w.find(',');
      auto mn = comma == std::string::npos ? std::nullopt : Value::parse(trim(w.substr(0, comma)));
      auto ln = comma == std::string::npos ? std::nullopt : Value::parse(trim(w.substr(comma + 1)));
      if (!mn || !ln) {
        errs.push_back(cli_error(fmt::format("--window expects MIN,LEN with integers, got '{}'", w)));
        continue;
      }
      in.window.push_back(Interval{*mn, *ln, {}});
    }
  } else if (realize) {
    in.window = realize->window;
  } else if (dims > 0) {
    errs.push_back(cli_error("no output window: add a realize section or give --window MIN,LEN "
                                   "for each output dimension"));
  }
  if (errs.empty() && in.window.size() != dims)
    errs.push_back(cli_error(fmt::format("the output func '{}' has {} dimension(s) but the window "
                                               "has {} interval(s)",
                                               output, dims, in.window.size())));
  for (const auto& iv : in.window)
    if (iv.len.sign() < 0)
      errs.push_back(cli_error(fmt::format("window interval ({}, {}) has a negative length",
                                                 iv.min.to_string(), iv.len.to_string())));
  resolve_buffers(in, file, inputs, realize, over, errs);
  if (!errs.empty()) throw InputError(std::move(errs));
  return in;
}

Budget::Budget(const Limits& l) : limits_(l), start_(std::chrono::steady_clock::now()) {}

void Budget::check_slow() {
  poll_command_budget();
  if (steps_ > limits_.max_steps)
    throw ResourceLimit(fmt::format("step limit reached ({} steps); raise it with --max-steps", limits_.max_steps));
  if (limits_.max_seconds > 0) {
    std::chrono::duration<double> d = std::chrono::steady_clock::now() - start_;
    if (d.count() > limits_.max_seconds)
      throw ResourceLimit(fmt::format("time limit reached ({} s); raise it with --timeout", limits_.max_seconds));
  }
}

void Budget::charge_memory(uint64_t bytes) {
  memory_ += bytes;
  if (memory_ > limits_.max_memory_bytes)
    throw ResourceLimit(fmt::format("memory limit reached ({} MiB); raise it with --max-memory",
                                    limits_.max_memory_bytes >> 20));
}

uint64_t window_volume(const std::vector<Interval>& w, const Limits& l) {
  // Each point of the output costs at least one Value; refuse windows that cannot fit.
  const uint64_t cap = std::max<uint64_t>(1, l.max_memory_bytes / sizeof(Value));
  uint64_t n = 1;
  for (const auto& iv : w) {
    auto len = iv.len.as_int64();
    if (!len || *len < 0 || (*len != 0 && n > cap / uint64_t(*len)))
      throw ResourceLimit(fmt::format("the output window has too many points for the memory limit "
                                      "({} MiB); use a smaller --window or raise --max-memory",
                                      l.max_memory_bytes >> 20));
    n *= uint64_t(*len);
  }
  return n;
}

std::vector<Value> window_point(const std::vector<Interval>& w, uint64_t i) {
  std::vector<Value> pt;
  pt.reserve(w.size());
  for (const auto& iv : w) {
    uint64_t len = uint64_t(*iv.len.as_int64());
    pt.push_back(add(iv.min, Value(int64_t(i % len))));
    i /= len;
  }
  return pt;
}

std::vector<std::pair<std::string, Value>> realize_bindings(const TgtProgram& t, const Input& in) {
  std::vector<std::pair<std::string, Value>> b;
  for (size_t i = 0; i < t.params.size() && i < in.params.size(); ++i) b.emplace_back(t.params[i], in.params[i]);
  for (size_t d = 0; d < t.window.size() && d < in.window.size(); ++d) {
    b.emplace_back(t.window[d].first, in.window[d].min);
    b.emplace_back(t.window[d].second, in.window[d].len);
  }
  for (auto& g : buffer_geometry_bindings(in.buffers)) b.push_back(std::move(g));
  return b;
}

}  // namespace halo
