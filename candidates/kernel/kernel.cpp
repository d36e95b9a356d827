// `halo kernel` (kernel.hpp): reference values, the generated driver, compilation, the
// child run, and the classification of what happened. docs/kernels.md describes the
// behaviour; this file follows it section by section.
#include "candidates/kernel/kernel.hpp"

#include "interp/fast_eval.hpp"
#include "support/run_process.hpp"
#include "candidates/kernel/gemmini/simulator.hpp"
#include "support/child_processes.hpp"
#include "support/command_budget.hpp"
#include "semantics/parser.hpp"
#include "semantics/validity.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace halo {

namespace fs = std::filesystem;

bool KernelReport::holds() const {
  bool completed = !runs.empty() && std::all_of(runs.begin(), runs.end(), [](const KernelRun& r) { return r.completed; });
  return completed && mismatches == 0 && findings.empty() && native_agrees;
}

bool host_has_avx512f() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("flags", 0) == 0) {
      std::istringstream ss(line);
      std::string w;
      while (ss >> w)
        if (w == "avx512f") return true;
    }
  return false;
}

namespace {

// ------------------------------------------------------------------ small helpers

constexpr uint64_t kGuard = 64;  // guard-zone bytes on each side of a harness buffer

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  out.write(data.data(), std::streamsize(data.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string c_string_literal(const std::string& s) {
  std::string r = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') r += '\\', r += char(c);
    else if (c < 32 || c > 126) r += fmt::format("\\{:03o}", c);
    else r += char(c);
  }
  return r + "\"";
}

std::string shape_text(const KernelCType& t, const std::vector<int64_t>& dims) {
  std::string s = t.name;
  for (int64_t d : dims) s += fmt::format("[{}]", d);
  return s;
}

std::string index_text(const std::string& name, const std::vector<int64_t>& idx) {
  std::string s = name;
  for (int64_t i : idx) s += fmt::format("[{}]", i);
  return s;
}

// The multi-index of the i-th element of a row-major C array.
std::vector<int64_t> c_index(const std::vector<int64_t>& dims, uint64_t i) {
  std::vector<int64_t> idx(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    idx[d] = int64_t(i % uint64_t(dims[d]));
    i /= uint64_t(dims[d]);
  }
  return idx;
}


// ------------------------------------------------------------------ values <-> C bytes

// Stores `v` as a `t` at `out`; false (with `why`) when `t` cannot hold it exactly.
bool encode_value(const Value& v, const KernelCType& t, uint8_t* out, std::string& why) {
  if (v.is_error()) {
    why = fmt::format("the spec's value is {}", v.to_string());
    return false;
  }
  auto i = v.as_int64();
  if (t.is_float) {
    int64_t limit = t.bytes == 4 ? (int64_t(1) << 24) : (int64_t(1) << 53);
    if (!i || *i <= -limit || *i >= limit) {
      why = fmt::format("{} is not an integer below 2^{} in magnitude, where {} arithmetic is exact", v.to_string(),
                        t.bytes == 4 ? 24 : 53, t.name);
      return false;
    }
    if (t.bytes == 4) {
      float f = float(*i);
      std::memcpy(out, &f, 4);
    } else {
      double d = double(*i);
      std::memcpy(out, &d, 8);
    }
    return true;
  }
  bool fits = false;
  if (i) {
    if (t.is_signed) {
      int64_t lo = t.bytes == 8 ? INT64_MIN : -(int64_t(1) << (8 * t.bytes - 1));
      int64_t hi = t.bytes == 8 ? INT64_MAX : (int64_t(1) << (8 * t.bytes - 1)) - 1;
      fits = *i >= lo && *i <= hi;
    } else {
      fits = *i >= 0 && (t.bytes == 8 || *i < (int64_t(1) << (8 * t.bytes)));
    }
  } else if (!t.is_signed && t.bytes == 8 && v.is_int()) {
    // a uint64_t above INT64_MAX
    std::string text = v.to_string();
    if (text.size() <= 20 && text[0] != '-') {
      errno = 0;
      unsigned long long u = std::strtoull(text.c_str(), nullptr, 10);
      if (errno == 0) {
        uint64_t w = u;
        std::memcpy(out, &w, 8);
        return true;
      }
    }
  }
  if (!fits) {
    why = fmt::format("{} does not fit {}", v.to_string(), t.name);
    return false;
  }
  uint64_t u = uint64_t(*i);
  std::memcpy(out, &u, size_t(t.bytes));  // little-endian: the low bytes
  return true;
}

// The element at `p` as the reference would write it, and whether it equals `v`.
bool element_equals(const uint8_t* p, const KernelCType& t, const Value& v, std::string& text) {
  auto want = v.as_int64();
  if (t.is_float) {
    double d;
    if (t.bytes == 4) {
      float f;
      std::memcpy(&f, p, 4);
      d = f;
    } else {
      std::memcpy(&d, p, 8);
    }
    text = fmt::format("{}", d);
    return want && std::isfinite(d) && d == double(*want);
  }
  if (t.is_signed) {
    int64_t x = 0;
    std::memcpy(&x, p, size_t(t.bytes));
    if (t.bytes < 8) x = (x << (64 - 8 * t.bytes)) >> (64 - 8 * t.bytes);  // sign-extend
    text = std::to_string(x);
    return want && *want == x;
  }
  uint64_t x = 0;
  std::memcpy(&x, p, size_t(t.bytes));
  text = std::to_string(x);
  return v.is_int() && Value::parse(text) && *Value::parse(text) == v;
}

// ------------------------------------------------------------------ the plan

struct Buffer {
  size_t arg = 0;  // index in the manifest's args
  std::vector<int64_t> dims;
  uint64_t elems = 1, bytes = 0;
  std::string initial;            // the bytes the driver starts with
  std::vector<Value> expected;    // output/inout: the reference, C row-major
  std::string description;        // "input a (int8_t[50][36])"
};

struct Plan {
  KernelManifest m;
  Program prog;
  Input input;
  std::vector<Buffer> buffers;        // in argument order
  std::vector<size_t> buffer_of_arg;  // arg index -> buffer index (or SIZE_MAX)
  std::map<size_t, std::string> scalar_literal;  // arg index -> C literal
};

int64_t param_value(const Plan& p, const std::string& name, SourceLoc loc) {
  const auto& ps = p.prog.pipeline.params;
  for (size_t i = 0; i < ps.size(); ++i)
    if (ps[i].text == name) {
      auto v = p.input.params[i].as_int64();
      if (!v) throw InputError(Diagnostic{p.m.path, loc, fmt::format("parameter '{}' is too large", name)});
      return *v;
    }
  throw InputError(Diagnostic{p.m.path, loc, fmt::format("the spec has no parameter '{}'", name)});
}

// The Halide type of a C element type; ℤ for a floating-point one, which no typed func has.
Type halide_type_of(const KernelCType& t) {
  if (t.is_float) return Type::z();
  if (t.is_bool) return Type::boolean();
  return t.is_signed ? Type::int_(8 * t.bytes) : Type::uint(8 * t.bytes);
}

Plan make_plan(const std::string& manifest_path, const KernelOptions& opt) {
  Plan p;
  p.m = parse_kernel_manifest(manifest_path);
  const KernelManifest& m = p.m;
  p.prog = parse_file(m.spec);
  check_program(p.prog);
  const Pipeline& pipe = p.prog.pipeline;

  // Funcs named by buffers must exist and have one dimension per extent; in a typed spec
  // (docs/types.md) each also has the buffer's element type, so that the spec computes in
  // the kernel's types (int8 operands, int32 sums) rather than being read into them.
  std::vector<Diagnostic> errs;
  auto check_func = [&](const std::string& f, SourceLoc loc, const KernelArg& a) {
    const FuncDef* fd = pipe.find(f);
    if (!fd) errs.push_back(Diagnostic{m.path, loc, fmt::format("the spec {} has no func '{}'", m.spec, f)});
    else if (fd->vars.size() != a.shape.size())
      errs.push_back(Diagnostic{m.path, loc, fmt::format("func '{}' has {} dimension(s) but the buffer's shape has {}",
                                                          f, fd->vars.size(), a.shape.size())});
    else if (pipe.typed && fd->type != halide_type_of(a.type))
      errs.push_back(Diagnostic{
          m.path, loc,
          fmt::format("func '{}' of the typed spec {} has type {}, but the buffer {} holds {}{}", f, m.spec,
                      fd->type.to_string(), a.name, a.type.name,
                      a.type.is_float ? " (the typed language has no floating-point types yet)"
                                      : fmt::format(" (write fun {}(...) : {})", f, halide_type_of(a.type).to_string()))});
  };
  for (const auto& a : m.args) {
    if (a.kind == KernelArgKind::Context || a.kind == KernelArgKind::Scalar) continue;
    check_func(a.func, a.func_loc, a);
    if (!a.init.empty()) check_func(a.init, a.init_loc, a);
  }
  if (!errs.empty()) throw InputError(errs);

  // The input z: the manifest's parameters; the window is the shape of the buffer holding
  // the pipeline's output, if any (it only decides where the evaluator memoizes densely).
  InputOverrides over;
  for (const auto& kv : m.params) {
    // Not a structured binding: clang before 16 cannot capture one in a lambda.
    const std::string& k = kv.first;
    const auto& v = kv.second;
    bool known = std::any_of(pipe.params.begin(), pipe.params.end(), [&](const Name& n) { return n.text == k; });
    if (!known)
      throw InputError(Diagnostic{m.path, m.params_loc, fmt::format("the spec {} has no parameter '{}'", m.spec, k)});
    over.params.push_back(k + "=" + v);
  }
  Input probe;
  {
    InputOverrides params_only = over;
    for (size_t i = 0; i < pipe.output().vars.size(); ++i) params_only.windows.push_back("0,1");
    probe = resolve_input(p.prog, params_only);
  }
  p.input = probe;
  for (const auto& a : m.args) {
    if (a.func != pipe.name.text || (a.kind != KernelArgKind::Output && a.kind != KernelArgKind::InOut)) continue;
    p.input.window.clear();
    for (const auto& e : a.shape) {
      int64_t d = e.param.empty() ? e.value : param_value(p, e.param, e.loc);
      p.input.window.push_back(Interval{Value(0), Value(d), {}});
    }
    break;
  }

  uint64_t total_bytes = 0;
  p.buffer_of_arg.assign(m.args.size(), SIZE_MAX);
  for (size_t ai = 0; ai < m.args.size(); ++ai) {
    const KernelArg& a = m.args[ai];
    if (a.kind == KernelArgKind::Context) continue;
    if (a.kind == KernelArgKind::Scalar) {
      std::string lit, why;
      uint8_t tmp[8];
      if (!a.type.is_float && !a.type.is_bool && a.value_param.empty() && !encode_value(Value(a.integer), a.type, tmp, why))
        throw InputError(Diagnostic{m.path, a.loc, fmt::format("the value of {}: {}", a.name, why)});
      if (!a.value_param.empty()) {
        int64_t v = param_value(p, a.value_param, a.loc);
        if (!a.type.is_float && !a.type.is_bool && !encode_value(Value(v), a.type, tmp, why))
          throw InputError(Diagnostic{m.path, a.loc, fmt::format("the value of {}: {}", a.name, why)});
        lit = a.type.is_float ? fmt::format("({}){}.0", a.type.name, v) : fmt::format("({})({}LL)", a.type.name, v);
      } else if (a.type.is_bool) {
        lit = a.integer ? "true" : "false";
      } else if (a.type.is_float) {
        lit = fmt::format("({}){:a}", a.type.name, a.number);
      } else {
        lit = fmt::format("({})({}LL)", a.type.name, a.integer);
      }
      p.scalar_literal[ai] = lit;
      continue;
    }
    Buffer b;
    b.arg = ai;
    for (const auto& e : a.shape) {
      int64_t d = e.param.empty() ? e.value : param_value(p, e.param, e.loc);
      if (d < 0 || d > (int64_t(1) << 32))
        throw InputError(Diagnostic{m.path, e.loc, fmt::format("extent {} is out of range", d)});
      b.dims.push_back(d);
      if (d != 0 && b.elems > (uint64_t(1) << 40) / uint64_t(d))
        throw ResourceLimit(fmt::format("{} has more than 2^40 elements", a.name));
      b.elems *= uint64_t(d);
    }
    b.bytes = b.elems * uint64_t(a.type.bytes);
    total_bytes += b.bytes;
    if (total_bytes > opt.reference_limits.max_memory_bytes / 4)
      throw ResourceLimit(fmt::format("the buffers need {} bytes; raise --max-memory", total_bytes));
    b.description = fmt::format("{} {} ({})", kernel_arg_kind_name(a.kind), a.name, shape_text(a.type, b.dims));
    b.initial.assign(size_t(b.bytes), '\0');
    auto fill = [&](const std::string& func, SourceLoc loc, bool expected) {
      std::vector<Value> vals = kernel_reference_values(pipe, p.input.params, func, b.dims, opt.reference_limits);
      std::string why;
      for (uint64_t i = 0; i < b.elems; ++i) {
        uint8_t tmp[8];
        if (!encode_value(vals[i], a.type, tmp, why))
          throw InputError(Diagnostic{
              m.path, loc,
              fmt::format("{} of {}: {}; {}", index_text(func, c_index(b.dims, i)), b.description, why,
                          expected ? "the spec must describe exactly the values the kernel stores"
                                   : "choose a spec whose values the buffer's type holds exactly")});
        if (!expected) std::memcpy(&b.initial[size_t(i * uint64_t(a.type.bytes))], tmp, size_t(a.type.bytes));
      }
      if (expected) b.expected = std::move(vals);
    };
    if (a.kind == KernelArgKind::Input) fill(a.func, a.func_loc, false);
    if (a.kind == KernelArgKind::InOut && !a.init.empty()) fill(a.init, a.init_loc, false);
    if (a.kind == KernelArgKind::Output || a.kind == KernelArgKind::InOut) fill(a.func, a.func_loc, true);
    if (a.kind == KernelArgKind::Output) {
      // Every element starts different from its reference value, so an element the kernel
      // never writes cannot pass by accident.
      const size_t w = size_t(a.type.bytes);
      for (uint64_t i = 0; i < b.elems; ++i) {
        uint8_t* at = reinterpret_cast<uint8_t*>(&b.initial[size_t(i * uint64_t(w))]);
        std::string why;
        encode_value(b.expected[i], a.type, at, why);
        if (!a.type.is_float) {
          at[0] ^= 1;  // the low bit of the integer
        } else {
          int64_t e = *b.expected[i].as_int64();
          encode_value(Value(e + 1 < (int64_t(1) << 24) ? e + 1 : e - 1), a.type, at, why);
        }
      }
    }
    p.buffer_of_arg[ai] = p.buffers.size();
    p.buffers.push_back(std::move(b));
  }
  return p;
}

// ------------------------------------------------------------------ the driver

std::string driver_source(const Plan& p) {
  const KernelManifest& m = p.m;
  const bool gemmini = m.platform == KernelPlatform::Gemmini;
  std::string s;
  s += "/* Generated by `halo kernel` for " + m.path + ": allocates the buffers with guard zones, fills them,\n"
       " * calls " + m.function + " once, checks the guard zones and writes the outputs back. */\n";
  s += R"(#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define HALO_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define HALO_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define HALO_POISON(p, n) ((void)(p), (void)(n))
#define HALO_UNPOISON(p, n) ((void)(p), (void)(n))
#endif
)";
  s += fmt::format("#define HALO_GUARD {}u\n", kGuard);
  if (gemmini)
    s += R"(void halo_gemmini_harness_begin(const char* report_path);
void halo_gemmini_harness_buffer(const void* data, uint64_t bytes, const char* name, int writable);
void halo_gemmini_harness_call(int begin);
void halo_gemmini_harness_end(void);
)";
  // The prototype, from the manifest: pointers for context, buffers and scalars by pointer.
  std::vector<std::string> params;
  for (const auto& a : m.args) {
    if (a.kind == KernelArgKind::Context) params.push_back("void*");
    else if (a.kind == KernelArgKind::Scalar) params.push_back(a.type.name + (a.by_pointer ? "*" : ""));
    else params.push_back(a.type.name + "*");
  }
  s += fmt::format("void {}({});\n", m.function, params.empty() ? "void" : fmt::format("{}", fmt::join(params, ", ")));
  s += R"(
static FILE* halo_report;

static void halo_fail(const char* what) {
  fprintf(halo_report, "finding\tharness\t%s\n", what);
  fflush(halo_report);
  exit(3);
}

/* A buffer of `bytes` bytes between two guard zones of HALO_GUARD bytes, filled from `in`. */
static unsigned char* halo_buffer(const char* name, size_t bytes, FILE* in) {
  size_t total = (HALO_GUARD + bytes + HALO_GUARD + 63) / 64 * 64;
  unsigned char* base = (unsigned char*)aligned_alloc(64, total);
  if (!base) halo_fail("cannot allocate a buffer");
  memset(base, 0xA5, total);
  unsigned char* data = base + HALO_GUARD;
  if (bytes && fread(data, 1, bytes, in) != bytes) halo_fail("the input file is short");
  HALO_POISON(base, HALO_GUARD);
  HALO_POISON(data + bytes, total - HALO_GUARD - bytes);
  fprintf(halo_report, "buffer\t%s\t%p\t%zu\n", name, (void*)data, bytes);
  fflush(halo_report);
  return data;
}

static void halo_check_guards(const char* name, unsigned char* data, size_t bytes) {
  unsigned char* base = data - HALO_GUARD;
  size_t total = (HALO_GUARD + bytes + HALO_GUARD + 63) / 64 * 64;
  HALO_UNPOISON(base, total);
  for (size_t i = 0; i < HALO_GUARD; ++i)
    if (base[i] != 0xA5) {
      fprintf(halo_report, "finding\tguard\tthe guard zone before %s was overwritten (%zu bytes before its start)\n",
              name, HALO_GUARD - i);
      break;
    }
  for (size_t i = HALO_GUARD + bytes; i < total; ++i)
    if (base[i] != 0xA5) {
      fprintf(halo_report, "finding\tguard\tthe guard zone after %s was overwritten (%zu bytes past its end)\n",
              name, i - HALO_GUARD - bytes);
      break;
    }
  fflush(halo_report);
}

/* An input buffer must come back as it went in: the first element that differs is named. */
static void halo_check_unchanged(const char* name, const unsigned char* data, const unsigned char* copy,
                                 size_t bytes, size_t elem_bytes) {
  for (size_t i = 0; i < bytes; ++i)
    if (data[i] != copy[i]) {
      fprintf(halo_report, "finding\tinput-write\tthe kernel wrote into %s, which the manifest declares an "
              "input: element %zu (byte offset %zu) changed\n", name, i / elem_bytes, i);
      break;
    }
  fflush(halo_report);
}

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  halo_report = fopen(argv[3], "a");
  if (!halo_report) return 2;
  FILE* in = fopen(argv[1], "rb");
  if (!in) halo_fail("cannot open the input file");
)";
  if (gemmini) s += "  halo_gemmini_harness_begin(argv[3]);\n";
  std::vector<std::string> call;
  for (size_t ai = 0; ai < m.args.size(); ++ai) {
    const KernelArg& a = m.args[ai];
    if (a.kind == KernelArgKind::Context) {
      s += fmt::format("  static unsigned char halo_ctx{}[{}] __attribute__((aligned(64)));\n", ai, a.bytes);
      call.push_back(fmt::format("(void*)halo_ctx{}", ai));
    } else if (a.kind == KernelArgKind::Scalar) {
      s += fmt::format("  {} halo_arg{} = {};\n", a.type.name, ai, p.scalar_literal.at(ai));
      call.push_back(fmt::format("{}halo_arg{}", a.by_pointer ? "&" : "", ai));
    } else {
      const Buffer& b = p.buffers[p.buffer_of_arg[ai]];
      std::string name = c_string_literal(b.description);
      s += fmt::format("  unsigned char* halo_buf{} = halo_buffer({}, {}u, in);\n", ai, name, b.bytes);
      if (a.kind == KernelArgKind::Input)  // a copy, to find writes into the input after the call
        s += fmt::format("  unsigned char* halo_copy{0} = (unsigned char*)malloc({1}u + 1);\n"
                         "  if (!halo_copy{0}) halo_fail(\"cannot allocate a buffer\");\n"
                         "  memcpy(halo_copy{0}, halo_buf{0}, {1}u);\n",
                         ai, b.bytes);
      if (gemmini)
        s += fmt::format("  halo_gemmini_harness_buffer(halo_buf{}, {}u, {}, {});\n", ai, b.bytes, name,
                         a.kind == KernelArgKind::Input ? 0 : 1);
      call.push_back(fmt::format("({}*)halo_buf{}", a.type.name, ai));
    }
  }
  s += "  fclose(in);\n";
  if (gemmini) s += "  halo_gemmini_harness_call(1);\n";
  s += fmt::format("  {}({});\n", m.function, fmt::join(call, ", "));
  if (gemmini) s += "  halo_gemmini_harness_call(0);\n";
  for (size_t ai = 0; ai < m.args.size(); ++ai)
    if (p.buffer_of_arg[ai] != SIZE_MAX) {
      const Buffer& b = p.buffers[p.buffer_of_arg[ai]];
      s += fmt::format("  halo_check_guards({}, halo_buf{}, {}u);\n", c_string_literal(b.description), ai, b.bytes);
      if (m.args[ai].kind == KernelArgKind::Input)
        s += fmt::format("  halo_check_unchanged({}, halo_buf{}, halo_copy{}, {}u, {}u);\n",
                         c_string_literal(b.description), ai, ai, b.bytes, std::max<int>(1, m.args[ai].type.bytes));
    }
  s += "  FILE* out = fopen(argv[2], \"wb\");\n  if (!out) halo_fail(\"cannot open the output file\");\n";
  for (size_t ai = 0; ai < m.args.size(); ++ai) {
    const KernelArg& a = m.args[ai];
    if (a.kind == KernelArgKind::Output || a.kind == KernelArgKind::InOut) {
      const Buffer& b = p.buffers[p.buffer_of_arg[ai]];
      s += fmt::format("  if ({}u && fwrite(halo_buf{}, 1, {}u, out) != {}u) halo_fail(\"cannot write the outputs\");\n",
                       b.bytes, ai, b.bytes, b.bytes);
    }
  }
  s += "  fclose(out);\n";
  if (gemmini) s += "  halo_gemmini_harness_end();\n";
  s += "  fprintf(halo_report, \"done\\n\");\n  fclose(halo_report);\n  return 0;\n}\n";
  return s;
}

// ------------------------------------------------------------------ compiling

// $CC as build tools read it, a command line ("ccache gcc", "gcc -O0"): the program, then
// arguments that come before halo's own. A compiler that is not there is the user's
// environment (exit 2), with what to do about it.
std::vector<std::string> c_compiler_command() {
  const char* cc = std::getenv("CC");
  std::vector<std::string> words = command_words(cc ? cc : "");
  bool from_env = !words.empty();
  if (!from_env) words = {"cc"};
  std::string path = find_program(words[0]);
  if (path.empty()) {
    std::string where = words[0].find('/') != std::string::npos ? "no executable file" : "not on PATH";
    throw InputError(Diagnostic{
        "", {},
        from_env ? fmt::format("no C compiler: CC='{}' names '{}', which is {}; set CC to a C compiler or install cc",
                               cc, words[0], where)
                 : "no C compiler: cc is not on PATH; set CC or install cc"});
  }
  words[0] = path;
  return words;
}

// No kernel halo can check takes longer to compile; a --timeout above it does not raise it.
constexpr double kCompileSeconds = 300;

// A compile that did not end in time: the limit that ended it, as exit 3.
[[noreturn]] void compile_limit(double wall, double left, const KernelOptions& opt) {
  if (wall >= left) throw ResourceLimit(time_limit_message());
  if (wall >= opt.timeout_seconds)
    throw ResourceLimit(fmt::format("time limit reached ({} s) while compiling the kernel; raise it with {}",
                                    opt.timeout_seconds, opt.timeout_flag));
  throw ResourceLimit(fmt::format("the C compiler did not finish within {} s, halo's limit for one compile",
                                  kCompileSeconds));
}

std::string process_failure(const ProcessResult& r, const std::string& program) {
  return r.exited ? fmt::format("{} exited with status {}", program, r.exit_code)
                  : fmt::format("{} was {}", program, describe_signal(r.signal));
}

// After a failed compile: does the compiler build an empty program with the same command
// line? If not, $CC is broken ("gcc -Wbogus", a ccache without its compiler, a compiler
// without the sanitizers' libraries), the environment's fault: exit 2 saying so, never the
// kernel's (and for Exo never a finding about Exo).
void check_compiler_works(const std::vector<std::string>& cc, size_t halo_flags_end, const std::string& dir,
                          const ProcessLimits& lim) {
  std::string src = (fs::path(dir) / "halo_cc_probe.c").string();
  write_file(src, "int main(void) { return 0; }\n");
  std::vector<std::string> argv(cc.begin(), cc.begin() + std::ptrdiff_t(halo_flags_end));
  for (const auto& a : {src, std::string("-o"), (fs::path(dir) / "halo_cc_probe").string()}) argv.push_back(a);
  ProcessResult r = run_process(argv, {}, "", lim, 16 * 1024);
  if (r.timed_out || (r.started && r.exited && r.exit_code == 0)) return;
  std::string line;
  for (const auto& a : argv) line += (line.empty() ? "" : " ") + a;
  throw InputError(Diagnostic{
      "", {},
      fmt::format("the C compiler does not work: it cannot compile an empty program ({}; {}); set CC to a working "
                  "C compiler:\n{}",
                  line, r.started ? process_failure(r, argv[0]) : r.error, r.output)});
}

void compile(const Plan& p, const KernelSupportPaths& paths, bool native, const std::string& driver,
             const std::string& exe, const KernelOptions& opt) {
  const KernelManifest& m = p.m;
  std::vector<std::string> argv = c_compiler_command();
  for (const char* f : {"-std=gnu11", "-O1", "-g", "-fno-omit-frame-pointer", "-Wno-psabi"}) argv.push_back(f);
  if (m.sanitize)
    for (const char* f : {"-fsanitize=address,undefined", "-fsanitize-recover=address,undefined"}) argv.push_back(f);
  // The Gemmini runtime is C++: built by a sanitizer build of halo with clang, it calls the
  // C++ half of UBSan's runtime, which clang links into a C program only when told (GCC's
  // libubsan has both halves). The compiler may come after a launcher ("ccache clang").
  bool clang = std::any_of(argv.begin(), argv.end(), [](const std::string& w) {
    return w.rfind('-', 0) != 0 && fs::path(w).filename().string().find("clang") != std::string::npos;
  });
  if (m.sanitize && m.platform == KernelPlatform::Gemmini && clang) argv.push_back("-fsanitize-link-c++-runtime");
  const size_t halo_flags_end = argv.size();
  if (m.platform == KernelPlatform::Gemmini) argv.push_back("-I" + paths.gemmini_include);
  if (m.platform == KernelPlatform::Avx512) {
    if (native) {
      argv.push_back("-mavx512f");
    } else {
      argv.push_back("-include");
      argv.push_back(paths.avx512_prelude);
    }
  }
  for (const auto& d : m.include_dirs) argv.push_back("-I" + d);
  for (const auto& f : m.cflags) argv.push_back(f);
  for (const auto& src : m.sources) argv.push_back(src);
  argv.push_back(driver);
  argv.push_back("-o");
  argv.push_back(exe);
  if (m.platform == KernelPlatform::Gemmini) {
    argv.push_back(paths.gemmini_runtime);
    argv.push_back("-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,--wrap=aligned_alloc,"
                   "--wrap=posix_memalign");
    argv.push_back("-lstdc++");
    argv.push_back("-lpthread");
  }
  argv.push_back("-lm");
  ProcessLimits lim;
  // The earliest of the compiler's own limit, the command's --timeout and what is left of
  // an enclosing budget (a campaign's case).
  const double left = command_seconds_left();
  lim.wall_seconds = std::min({kCompileSeconds, opt.timeout_seconds, left});
  // A compiler fed a runaway input (`#include "/dev/zero"`) is stopped at 2 GiB of address
  // space; a real kernel's translation unit needs a fraction of that.
  lim.address_space_bytes = uint64_t{2} << 30;
  ProcessResult r = run_process(argv, {}, "", lim, 64 * 1024);
  if (!r.started) throw std::runtime_error("cannot run the C compiler: " + r.error);
  if (r.exited && r.exit_code == 0) return;
  if (r.timed_out || r.signal == SIGXCPU) compile_limit(lim.wall_seconds, left, opt);
  check_compiler_works(argv, halo_flags_end, fs::path(exe).parent_path().string(), lim);
  throw KernelCompileError(Diagnostic{m.path, SourceLoc{1, 1},
                                      fmt::format("the kernel does not compile{} ({}):\n{}", native ? " natively" : "",
                                                  process_failure(r, argv[0]), r.output)});
}

// ------------------------------------------------------------------ running and classifying

struct HarnessBuffer {
  std::string name;
  uint64_t data = 0, bytes = 0;
};

// Where an address lies relative to the harness buffers, for sanitizer reports.
std::string locate(uint64_t addr, const std::vector<HarnessBuffer>& bufs) {
  for (const auto& b : bufs) {
    if (addr >= b.data && addr < b.data + b.bytes) return fmt::format(", {} bytes into {}", addr - b.data, b.name);
    if (addr >= b.data + b.bytes && addr < b.data + b.bytes + kGuard + 64)
      return fmt::format(", {} bytes past the end of {}", addr - (b.data + b.bytes), b.name);
    if (addr < b.data && addr + kGuard >= b.data) return fmt::format(", {} bytes before {}", b.data - addr, b.name);
  }
  return "";
}

bool is_kernel_frame(const std::string& file, const KernelManifest& m) {
  for (const auto& s : m.sources)
    if (!file.empty() && (file == s || fs::path(file).filename() == fs::path(s).filename())) return true;
  return false;
}

// The sanitizers' reports in the child's output, one finding each (duplicates merged).
void sanitizer_findings(const std::string& output, const std::vector<HarnessBuffer>& bufs, const KernelManifest& m,
                        std::vector<KernelFinding>& out) {
  std::set<std::string> seen;
  std::istringstream in(output);
  std::string line;
  static const std::regex asan_head(R"(==\d+==ERROR: AddressSanitizer: ([\w-]+) on (?:unknown )?address (0x[0-9a-f]+))");
  static const std::regex access(R"(^(READ|WRITE) of size (\d+) at (0x[0-9a-f]+))");
  static const std::regex frame(R"(^\s*#(\d+) 0x[0-9a-f]+ in (\S+) (\S+?):(\d+))");
  static const std::regex ubsan(R"(^(\S+?):(\d+):(\d+): runtime error: (.*)$)");
  static const std::regex rss(R"(AddressSanitizer: (hard rss limit exhausted|out of memory|requested allocation size.*))");
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch mt;
    if (std::regex_search(lines[i], mt, asan_head)) {
      std::string type = mt[1], addr = mt[2];
      std::string acc, where;
      std::string first_frame;
      for (size_t j = i + 1; j < lines.size() && j < i + 60; ++j) {
        std::smatch a, f;
        if (acc.empty() && std::regex_search(lines[j], a, access)) acc = fmt::format("{} of size {}", a[1].str(), a[2].str());
        if (std::regex_search(lines[j], f, frame)) {
          std::string loc = fmt::format("in {} at {}:{}", f[2].str(), fs::path(f[3].str()).filename().string(), f[4].str());
          if (first_frame.empty()) first_frame = loc;
          if (where.empty() && is_kernel_frame(f[3].str(), m)) where = loc;
        }
        if (lines[j].rfind("SUMMARY:", 0) == 0 || lines[j].find("==ERROR:") != std::string::npos) break;
      }
      if (where.empty()) where = first_frame;
      uint64_t a = std::strtoull(addr.c_str(), nullptr, 16);
      std::string msg = fmt::format("AddressSanitizer: {}{} at {}{}{}", type, acc.empty() ? "" : ": " + acc, addr,
                                    locate(a, bufs), where.empty() ? "" : " " + where);
      if (seen.insert(type + acc + where).second) out.push_back(KernelFinding{"asan", msg, true});
      continue;
    }
    if (std::regex_search(lines[i], mt, rss)) {
      if (seen.insert("rss").second)
        out.push_back(KernelFinding{"limit", "AddressSanitizer: " + mt[1].str() + " (the kernel ran out of memory)", false});
      continue;
    }
    if (std::regex_match(lines[i], mt, ubsan)) {
      std::string msg = mt[4];
      std::string loc = fmt::format("{}:{}", fs::path(mt[1].str()).filename().string(), mt[2].str());
      bool memory = msg.find("out of bounds") != std::string::npos || msg.find("insufficient space") != std::string::npos ||
                    msg.find("null pointer") != std::string::npos;
      if (seen.insert(loc + msg).second)
        out.push_back(KernelFinding{"ubsan", fmt::format("UndefinedBehaviorSanitizer at {}: {}", loc, msg), memory});
    }
  }
}

KernelRun run_kernel(const Plan& p, const WorkDir& dir, const std::string& exe, const std::string& label,
                     const KernelOptions& opt) {
  KernelRun run;
  run.label = label;
  std::string out_path = dir.file(label + ".out"), report_path = dir.file(label + ".report");
  std::error_code ec;
  fs::remove(out_path, ec);  // a leftover of an earlier run, if any
  write_file(report_path, "");
  uint64_t out_bytes = 0;
  for (const auto& b : p.buffers) out_bytes += b.bytes;
  ProcessLimits lim;
  // An enclosing budget (a campaign's case) that ends first makes the stop a limit, not a hang.
  const double left = command_seconds_left();
  lim.wall_seconds = std::min(opt.timeout_seconds, left);
  lim.file_bytes = out_bytes + (64u << 20);
  if (!p.m.sanitize) lim.address_space_bytes = opt.max_memory_mib << 20;
  std::vector<std::string> env = {
      fmt::format("ASAN_OPTIONS=detect_leaks=0:halt_on_error=0:abort_on_error=0:allocator_may_return_null=1:"
                  "hard_rss_limit_mb={}:detect_stack_use_after_return=0:symbolize=1",
                  opt.max_memory_mib),
      "UBSAN_OPTIONS=print_stacktrace=0:halt_on_error=0",
  };
  ProcessResult r = run_process({exe, dir.file("input.bin"), out_path, report_path}, env, dir.path, lim);
  if (!r.started) throw std::runtime_error("cannot run the kernel: " + r.error);
  run.seconds = r.seconds;

  std::vector<HarnessBuffer> bufs;
  bool done = false;
  std::istringstream rep(read_file(report_path));
  std::string line;
  while (std::getline(rep, line)) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    std::string part;
    while (std::getline(ls, part, '\t')) f.push_back(part);
    if (f.empty()) continue;
    if (f[0] == "done") {
      done = true;
    } else if (f[0] == "buffer" && f.size() == 4) {
      // "%p" and "%zu" from the driver; anything else (the kernel may scribble) is skipped
      char* e1 = nullptr;
      char* e2 = nullptr;
      uint64_t data = std::strtoull(f[2].c_str(), &e1, 16), bytes = std::strtoull(f[3].c_str(), &e2, 10);
      if (e1 && *e1 == '\0' && e2 && *e2 == '\0') bufs.push_back(HarnessBuffer{f[1], data, bytes});
    } else if (f[0] == "stats" && f.size() > 1) {
      run.stats.clear();
      for (size_t i = 1; i < f.size(); ++i) run.stats += (i > 1 ? " " : "") + f[i];
    } else if (f[0] == "finding" && f.size() >= 3) {
      bool memory = f[1] == "guard" || f[1] == "gemmini-memory" || f[1] == "input-write";
      run.findings.push_back(KernelFinding{f[1], f[2], memory});
    }
  }
  sanitizer_findings(r.output, bufs, p.m, run.findings);
  if (r.timed_out && left <= opt.timeout_seconds) throw ResourceLimit(time_limit_message());
  if (r.timed_out) {
    run.findings.push_back(KernelFinding{"hang", fmt::format("the kernel did not finish within {} s and was killed",
                                                             opt.timeout_seconds), false});
  } else if (!done) {
    if (r.signal == SIGXCPU) {
      run.findings.push_back(KernelFinding{"hang", "the kernel exceeded its CPU-time limit and was killed", false});
    } else if (r.signal) {
      bool memory = r.signal == SIGSEGV || r.signal == SIGBUS;
      run.findings.push_back(KernelFinding{"crash", "the kernel was " + describe_signal(r.signal), memory});
    } else {
      bool asan_abort = std::any_of(run.findings.begin(), run.findings.end(),
                                    [](const KernelFinding& k) { return k.kind == "asan" || k.kind == "limit"; });
      if (!asan_abort)
        run.findings.push_back(KernelFinding{"crash", fmt::format("the program exited with status {} before the kernel "
                                                                  "returned", r.exit_code), false});
    }
    std::string tail = r.output.size() > 2000 ? r.output.substr(r.output.size() - 2000) : r.output;
    if (!tail.empty() && run.findings.back().kind != "asan") run.findings.back().message += "; its last output:\n" + tail;
  }
  run.completed = done;
  if (done) {
    std::string data = read_file(out_path);
    size_t at = 0;
    for (const auto& b : p.buffers) {
      const KernelArg& a = p.m.args[b.arg];
      if (a.kind != KernelArgKind::Output && a.kind != KernelArgKind::InOut) continue;
      std::vector<uint8_t> bytes(size_t(b.bytes), 0);
      if (at + b.bytes <= data.size()) std::memcpy(bytes.data(), data.data() + at, size_t(b.bytes));
      at += size_t(b.bytes);
      run.outputs.push_back(std::move(bytes));
    }
    if (at != data.size()) run.findings.push_back(KernelFinding{"harness", "the output file has the wrong size", false});
  }
  return run;
}

// Compares one run's outputs with the reference.
void compare(const Plan& p, const KernelRun& run, KernelReport& rep) {
  size_t o = 0;
  for (const auto& b : p.buffers) {
    const KernelArg& a = p.m.args[b.arg];
    if (a.kind != KernelArgKind::Output && a.kind != KernelArgKind::InOut) continue;
    const std::vector<uint8_t>& bytes = run.outputs[o++];
    for (uint64_t i = 0; i < b.elems; ++i) {
      std::string actual;
      ++rep.compared;
      if (element_equals(&bytes[size_t(i * uint64_t(a.type.bytes))], a.type, b.expected[i], actual)) continue;
      ++rep.mismatches;
      if (!rep.first_mismatch)
        rep.first_mismatch = KernelMismatch{a.name, c_index(b.dims, i), b.expected[i].to_string(), actual};
    }
  }
}

}  // namespace

// ------------------------------------------------------------------ the check

// The pipeline cut after the func (funcs only use earlier ones, Def. 2.10), realized on the
// box; halo's buffers are first-dimension fastest, C's last-dimension fastest.
std::vector<Value> kernel_reference_values(const Pipeline& full, const std::vector<Value>& params,
                                           const std::string& func, const std::vector<int64_t>& dims,
                                           const Limits& lim) {
  Pipeline cut;
  cut.params = full.params;
  cut.loc = full.loc;
  for (const auto& f : full.funcs) {
    cut.funcs.push_back(f);
    if (f.name.text == func) break;
  }
  if (cut.funcs.empty() || cut.funcs.back().name.text != func)
    throw std::invalid_argument("kernel_reference_values: no func " + func);
  cut.name = cut.funcs.back().name;
  Input in;
  in.params = params;
  uint64_t n = 1;
  for (int64_t d : dims) {
    in.window.push_back(Interval{Value(0), Value(d), {}});
    n *= uint64_t(d);
  }
  if (n == 0) return {};
  OutputBuffer ob = evaluate_fast(cut, in, lim);
  std::vector<Value> out(n);
  for (uint64_t c = 0; c < n; ++c) {
    auto idx = c_index(dims, c);
    uint64_t h = 0;
    for (size_t d = dims.size(); d-- > 0;) h = h * uint64_t(dims[d]) + uint64_t(idx[d]);
    out[c] = ob.values[h];
  }
  return out;
}

KernelReport check_kernel(const std::string& manifest_path, const KernelOptions& opt) {
  Plan p = make_plan(manifest_path, opt);
  KernelReport rep;
  rep.manifest = manifest_path;
  rep.function = p.m.function;
  rep.platform = kernel_platform_name(p.m.platform);
  rep.spec = p.m.spec;
  rep.native_requested = opt.native;

  KernelSupportPaths paths = kernel_support_paths();
  WorkDir dir;
  dir.keep = opt.keep;
  if (opt.keep) rep.workdir = dir.path, unregister_temp_dir(dir.signal_slot), dir.signal_slot = -1;
  std::string inputs;
  for (const auto& b : p.buffers) inputs += b.initial;
  write_file(dir.file("input.bin"), inputs);
  std::string driver = dir.file("halo_driver.c");
  write_file(driver, driver_source(p));

  const char* label = p.m.platform == KernelPlatform::Gemmini ? "simulated"
                      : p.m.platform == KernelPlatform::Avx512 ? "emulated"
                                                                : "run";
  compile(p, paths, false, driver, dir.file("kernel"), opt);
  rep.runs.push_back(run_kernel(p, dir, dir.file("kernel"), label, opt));

  if (opt.native) {
    if (p.m.platform != KernelPlatform::Avx512) {
      rep.native_note = "--native applies to avx512 kernels only; nothing else to run natively";
    } else if (!host_has_avx512f()) {
      rep.native_note = "the host has no AVX-512F (/proc/cpuinfo); the native run was skipped";
    } else {
      compile(p, paths, true, driver, dir.file("kernel-native"), opt);
      rep.runs.push_back(run_kernel(p, dir, dir.file("kernel-native"), "native", opt));
      rep.native_ran = true;
      const KernelRun& a = rep.runs[0];
      const KernelRun& b = rep.runs[1];
      rep.native_agrees = a.completed && b.completed && a.outputs == b.outputs;
      if (a.completed && b.completed && !rep.native_agrees) {
        // name the first element where they differ
        size_t o = 0;
        for (const auto& buf : p.buffers) {
          const KernelArg& arg = p.m.args[buf.arg];
          if (arg.kind != KernelArgKind::Output && arg.kind != KernelArgKind::InOut) continue;
          const auto& x = a.outputs[o];
          const auto& y = b.outputs[o++];
          for (uint64_t i = 0; i < buf.elems && rep.native_note.empty(); ++i)
            if (std::memcmp(&x[size_t(i * uint64_t(arg.type.bytes))], &y[size_t(i * uint64_t(arg.type.bytes))],
                            size_t(arg.type.bytes)) != 0) {
              std::string ex, ey;
              element_equals(&x[size_t(i * uint64_t(arg.type.bytes))], arg.type, Value(0), ex);
              element_equals(&y[size_t(i * uint64_t(arg.type.bytes))], arg.type, Value(0), ey);
              rep.native_note = fmt::format("the emulated and native runs disagree first at {}: {} vs {}",
                                            index_text(arg.name, c_index(buf.dims, i)), ex, ey);
            }
        }
      }
    }
  }

  for (const auto& run : rep.runs) {
    for (auto f : run.findings) {
      if (rep.runs.size() > 1) f.message = run.label + " run: " + f.message;
      if (f.memory) rep.memory_safe = false;
      rep.findings.push_back(f);
    }
  }
  if (rep.runs[0].completed) compare(p, rep.runs[0], rep);
  if (rep.native_ran && rep.runs[1].completed && !rep.runs[0].completed) compare(p, rep.runs[1], rep);
  return rep;
}

// ------------------------------------------------------------------ reports

nlohmann::json kernel_report_to_json(const KernelReport& r) {
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& f : r.findings) findings.push_back({{"kind", f.kind}, {"message", f.message}, {"memory", f.memory}});
  nlohmann::json first = nullptr;
  if (r.first_mismatch)
    first = {{"arg", r.first_mismatch->arg},
             {"index", r.first_mismatch->index},
             {"expected", r.first_mismatch->expected},
             {"actual", r.first_mismatch->actual}};
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& run : r.runs)
    runs.push_back({{"label", run.label}, {"completed", run.completed}, {"seconds", run.seconds}, {"stats", run.stats}});
  nlohmann::json j = {{"verdict", r.holds() ? "holds" : "violated"},
                      {"mismatches", r.mismatches},
                      {"first_mismatch", first},
                      {"memory_safe", r.memory_safe},
                      {"findings", findings},
                      {"compared", r.compared},
                      {"function", r.function},
                      {"platform", r.platform},
                      {"spec", r.spec},
                      {"runs", runs},
                      {"native", {{"requested", r.native_requested},
                                  {"ran", r.native_ran},
                                  {"agrees", r.native_agrees},
                                  {"note", r.native_note}}}};
  if (!r.workdir.empty()) j["workdir"] = r.workdir;
  return j;
}

std::string render_kernel_report(const KernelReport& r) {
  std::string s = fmt::format("kernel {} ({}) against {}\n", r.function, r.platform, r.spec);
  for (const auto& run : r.runs)
    s += fmt::format("  {} run: {} in {:.2f} s{}\n", run.label, run.completed ? "completed" : "did not complete",
                     run.seconds, run.stats.empty() ? "" : " (" + run.stats + ")");
  if (r.compared == 0 && !r.runs.empty() && !r.runs[0].completed)
    s += "  outputs: not compared (the kernel did not complete)\n";
  else if (r.mismatches == 0)
    s += fmt::format("  outputs: {} elements compared, all equal to the reference\n", r.compared);
  else
    s += fmt::format("  outputs: {} elements compared, {} differ; first: {} is {}, the reference says {}\n", r.compared,
                     r.mismatches, index_text(r.first_mismatch->arg, r.first_mismatch->index),
                     r.first_mismatch->actual, r.first_mismatch->expected);
  if (r.native_requested)
    s += fmt::format("  native run: {}\n", !r.native_ran ? r.native_note
                                           : r.native_agrees ? std::string("agrees with the emulated run")
                                                             : "DISAGREES: " + r.native_note);
  s += fmt::format("  memory safety: {}\n", r.memory_safe ? "no violation found" : "VIOLATED");
  if (!r.findings.empty()) {
    constexpr size_t kShown = 10;
    s += fmt::format("  findings ({}{}):\n", r.findings.size(),
                     r.findings.size() >= gemmini::Simulator::kMaxKeptFindings ? " or more" : "");
    for (size_t i = 0; i < r.findings.size() && i < kShown; ++i)
      s += fmt::format("    [{}] {}\n", r.findings[i].kind, r.findings[i].message);
    if (r.findings.size() > kShown) s += fmt::format("    ... {} more (--json lists them)\n", r.findings.size() - kShown);
  }
  if (!r.workdir.empty()) s += "  build directory kept: " + r.workdir + "\n";
  s += fmt::format("verdict: {}\n", r.holds() ? "holds" : "violated");
  return s;
}

}  // namespace halo
