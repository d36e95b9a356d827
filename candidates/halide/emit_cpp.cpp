// The reproducer printer (emit_cpp.hpp). Each HlCall prints as the call jit.cpp makes for
// it; the realization code mirrors jit.cpp's (bounds query, then realize into the buffer
// it asked for, then read R(z)).
#include "candidates/halide/emit_cpp.hpp"
#include "candidates/halide/jit.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fmt/ranges.h>

#include <set>
#include <sstream>

namespace halo::halide {

namespace {

// A C++ string literal of a message as written in a .halo file (one line, no '"', but it
// may hold a backslash or a tab).
std::string cpp_string_literal(const std::string& text) {
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '\\' || ch == '"') out += '\\';
    if (ch == '\t') {
      out += "\\t";
      continue;
    }
    out += ch;
  }
  return out + "\"";
}

std::string cpp_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string comment(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '\n' ? ' ' : c;
  return out;
}

const char* tail_cpp(TailStrategy t) {
  switch (t) {
    case TailStrategy::Guard: return "TailStrategy::GuardWithIf";
    case TailStrategy::Shift: return "TailStrategy::ShiftInwards";
    case TailStrategy::Round: return "TailStrategy::RoundUp";
    case TailStrategy::Predicate: return "TailStrategy::Predicate";
    case TailStrategy::PredicateLoads: return "TailStrategy::PredicateLoads";
    case TailStrategy::PredicateStores: return "TailStrategy::PredicateStores";
    case TailStrategy::Auto: return "TailStrategy::Auto";
  }
  return "TailStrategy::GuardWithIf";
}

std::string call_cpp(const HlCall& c) {
  auto loop = [&](size_t i) { return cpp_loop(c.loops[i]); };
  std::string st = cpp_stage(c.stage);
  switch (c.kind) {
    case HlCall::Kind::ComputeRoot: return fmt::format("{}.compute_root();", cpp_func(c.func));
    case HlCall::Kind::StoreRoot: return fmt::format("{}.store_root();", cpp_func(c.func));
    case HlCall::Kind::Specialize:
      return fmt::format("Stage {} = {}.specialize({});", cpp_stage(c.result), st, hl_expr_cpp(c.exprs[0]));
    case HlCall::Kind::Split:
      return fmt::format("{}.split({}, {}, {}, {}, {});", st, loop(0), loop(1), loop(2), hl_expr_cpp(c.exprs[0]),
                         tail_cpp(c.tail));
    case HlCall::Kind::Fuse: return fmt::format("{}.fuse({}, {}, {});", st, loop(0), loop(1), loop(2));
    case HlCall::Kind::Reorder: return fmt::format("{}.reorder({}, {});", st, loop(0), loop(1));
    case HlCall::Kind::Parallel: return fmt::format("{}.parallel({});", st, loop(0));
    case HlCall::Kind::Vectorize: return fmt::format("{}.vectorize({});", st, loop(0));
    case HlCall::Kind::Unroll: return fmt::format("{}.unroll({});", st, loop(0));
    case HlCall::Kind::Serial: return fmt::format("{}.serial({});", st, loop(0));
    case HlCall::Kind::ComputeAt:
      return fmt::format("{}.compute_at(LoopLevel({}, {}));", cpp_func(c.func), cpp_func(c.at.func), loop(0));
    case HlCall::Kind::StoreAt:
      return fmt::format("{}.store_at(LoopLevel({}, {}));", cpp_func(c.func), cpp_func(c.at.func), loop(0));
    case HlCall::Kind::Bound:
      return fmt::format("{}.bound({}, {}, {});", cpp_func(c.func), loop(0), hl_expr_cpp(c.exprs[0]),
                         hl_expr_cpp(c.exprs[1]));
    case HlCall::Kind::BoundExtent:
      return fmt::format("{}.bound_extent({}, {});", cpp_func(c.func), loop(0), hl_expr_cpp(c.exprs[0]));
    case HlCall::Kind::AlignBounds:
      return fmt::format("{}.align_bounds({}, {}, {});", cpp_func(c.func), loop(0), hl_expr_cpp(c.exprs[0]),
                         hl_expr_cpp(c.exprs[1]));
    case HlCall::Kind::Rfactor:
      if (!c.func.empty()) return fmt::format("Func {} = {}.rfactor({}, {});", cpp_func(c.func), st, loop(0), loop(1));
      return fmt::format("{}.rfactor({}, {}).compute_root();", st, loop(0), loop(1));
    case HlCall::Kind::ComputeWith:
      return fmt::format("{}.compute_with({}, {});", st, cpp_stage(c.at), loop(0));
    case HlCall::Kind::FoldStorage:
      return fmt::format("{}.fold_storage({}, {});", cpp_func(c.func), loop(0), hl_expr_cpp(c.exprs[0]));
    case HlCall::Kind::Async: return fmt::format("{}.async();", cpp_func(c.func));
    case HlCall::Kind::HoistStorage:
      return fmt::format("{}.hoist_storage(LoopLevel({}, {}));", cpp_func(c.func), cpp_func(c.at.func), loop(0));
    case HlCall::Kind::Atomic: return fmt::format("{}.atomic();", st);
    case HlCall::Kind::Prefetch:
      return fmt::format("{}.prefetch({}, {}, {}, {});", st, c.of_input ? cpp_input(c.func) : cpp_func(c.func), loop(0),
                         loop(1), hl_expr_cpp(c.exprs[0]));
    case HlCall::Kind::Memoize: return fmt::format("{}.memoize();", cpp_func(c.func));
    case HlCall::Kind::StoreIn:
      return fmt::format("{}.store_in(MemoryType::{});", cpp_func(c.func),
                         c.text == "heap" ? "Heap" : c.text == "stack" ? "Stack" : c.text == "register" ? "Register" : "Auto");
    case HlCall::Kind::HoistStorageRoot: return fmt::format("{}.hoist_storage_root();", cpp_func(c.func));
    case HlCall::Kind::ReorderStorage: {
      std::vector<std::string> dims;
      for (size_t k = 0; k < c.loops.size(); ++k) dims.push_back(loop(k));
      return fmt::format("{}.reorder_storage({{{}}});", cpp_func(c.func), fmt::join(dims, ", "));
    }
    case HlCall::Kind::AlignStorage:
      return fmt::format("{}.align_storage({}, {});", cpp_func(c.func), loop(0), hl_expr_cpp(c.exprs[0]));
    case HlCall::Kind::BoundStorage:
      return fmt::format("{}.bound_storage({}, {});", cpp_func(c.func), loop(0), hl_expr_cpp(c.exprs[0]));
    case HlCall::Kind::AlignExtent:
      return fmt::format("{}.align_extent({}, {});", cpp_func(c.func), loop(0), hl_expr_cpp(c.exprs[0]));
    case HlCall::Kind::RingBuffer: return fmt::format("{}.ring_buffer({});", cpp_func(c.func), hl_expr_cpp(c.exprs[0]));
    case HlCall::Kind::Partition:
      return fmt::format("{}.partition({}, Partition::{});", st, loop(0),
                         c.text == "never" ? "Never" : c.text == "always" ? "Always" : "Auto");
    case HlCall::Kind::Unscheduled: return fmt::format("{}.unscheduled();", st);
    case HlCall::Kind::AllowRaceConditions: return fmt::format("{}.allow_race_conditions();", st);
    case HlCall::Kind::SpecializeFail: return fmt::format("{}.specialize_fail({});", st, cpp_string_literal(c.text));
    case HlCall::Kind::In:
    case HlCall::Kind::CloneIn: {
      std::vector<std::string> gs;
      for (const std::string& g : c.consumers) gs.push_back(cpp_func(g));
      return fmt::format("Func {} = {}.{}({});", cpp_func(c.text), cpp_func(c.func),
                         c.kind == HlCall::Kind::In ? "in" : "clone_in",
                         gs.size() == 1 ? gs[0] : gs.empty() ? "" : fmt::format("{{{}}}", fmt::join(gs, ", ")));
    }
  }
  return "";
}

// Every Var and derived RVar the program names.
void collect_names(const HlExpr& e, std::set<std::string>& vars) {
  if (e.kind == HlExpr::Kind::Var) vars.insert(e.name);
  for (const HlExpr& a : e.args) collect_names(a, vars);
}

const char* kMemcheckSupport = R"(// The memory check halo ran: every load and store of every Func, traced, must lie inside
// the region of the innermost open realization of that Func (the output: its buffer).
// Parallel loops run serially so that realizations nest.
struct TracedRegion { std::vector<int> min, max; };
struct MemcheckContext : JITUserContext {
  std::string output;
  TracedRegion output_region;
  std::map<std::string, std::vector<TracedRegion>> open;
  long violations = 0;
};
static int32_t memcheck_trace(JITUserContext *u, const halide_trace_event_t *e) {
  auto *c = static_cast<MemcheckContext *>(u);
  if (e->event == halide_trace_begin_realization) {
    TracedRegion r;
    for (int d = 0; d + 1 < e->dimensions; d += 2) {
      r.min.push_back(e->coordinates[d]);
      r.max.push_back(e->coordinates[d] + e->coordinates[d + 1] - 1);
    }
    c->open[e->func].push_back(r);
  } else if (e->event == halide_trace_end_realization) {
    if (!c->open[e->func].empty()) c->open[e->func].pop_back();
  } else if (e->event == halide_trace_load || e->event == halide_trace_store) {
    const TracedRegion *r = nullptr;
    if (c->output == e->func) r = &c->output_region;
    else if (!c->open[e->func].empty()) r = &c->open[e->func].back();
    // Halide 14 pads each coordinate vector to a power of two lanes in memory.
    int lanes = e->type.lanes > 0 ? e->type.lanes : 1, dims = e->dimensions / lanes, stride = 1;
    while (stride < lanes) stride *= 2;
    for (int lane = 0; lane < lanes; lane++) {
      bool inside = r != nullptr;
      for (int d = 0; inside && d < dims; d++) {
        int v = e->coordinates[d * stride + lane];
        inside = v >= r->min[d] && v <= r->max[d];
      }
      if (!inside && c->violations++ < 20) {
        printf("%s of %s at (", e->event == halide_trace_store ? "store" : "load", e->func);
        for (int d = 0; d < dims; d++) printf("%s%d", d ? ", " : "", e->coordinates[d * stride + lane]);
        printf(") is outside its realized region\n");
      }
    }
  }
  return 1;
}
static int memcheck_serial_par_for(JITUserContext *u, int (*f)(JITUserContext *, int, uint8_t *), int min,
                                   int extent, uint8_t *closure) {
  for (int i = min; i < min + extent; i++)
    if (int r = f(u, i, closure)) return r;
  return 0;
}

)";

bool uses_fixed_point(const HlExpr& e) {
  if (e.kind == HlExpr::Kind::Intrinsic && is_fixed_point_intrinsic(e.op)) return true;
  for (const HlExpr& a : e.args)
    if (uses_fixed_point(a)) return true;
  return false;
}
bool uses_fixed_point(const HalidePlan& plan) {
  for (const HlFunc& f : plan.funcs)
    for (const HlStage& s : f.stages)
      if (uses_fixed_point(s.value) || (s.where && uses_fixed_point(*s.where))) return true;
  return false;
}

// A value of type t (a u64 as its bit pattern, a float as its IEEE bits) as a C++ literal
// of that type.
std::string value_cpp(Type t, int64_t v) {
  if (t.is_float()) return float_literal_cpp(t, hl_value(t, v));
  if (t.is_bool()) return v ? "true" : "false";
  if (t == Type::uint(64)) return fmt::format("UINT64_C({})", uint64_t(v));
  if (v == INT64_MIN) return "INT64_MIN";
  if (v == INT32_MIN) return "INT32_MIN";
  return t.bits() == 64 ? fmt::format("INT64_C({})", v) : std::to_string(v);
}

std::string indented(const std::string& text, const std::string& indent) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out += line.empty() ? "\n" : indent + line + "\n";
  return out;
}

// The autoscheduler's schedule in the reproducer: pasted when the judged run recorded it,
// else computed again by the same autoscheduler with the same estimates and parameters
// (jit.cpp's autoschedule, for the Halide the reproducer is compiled against).
std::string autoscheduler_cpp(const HalidePlan& plan, const ReproducerOptions& opt) {
  const std::string& name = plan.autoscheduler;
  std::string o;
  // Adams2019 and Mullapudi2016 write their schedule as C++ that declares its own handles
  // (pipeline.get_func(i)); Li2018 writes a log of the calls (no declarations, Halide's
  // internal names such as r$x), which no compiler takes.
  bool compiles = opt.schedule_source.find("pipeline.get_func(") != std::string::npos &&
                  opt.schedule_source.find('$') == std::string::npos;
  if (compiles) {
    o += fmt::format("    // halo: schedule autoscheduler {} ({}): the schedule it chose in the run halo judged\n"
                     "    // (AutoSchedulerResults::schedule_source), pasted, so that this program runs that very\n"
                     "    // schedule whatever the autoscheduler would choose today.\n",
                     name, autoscheduler_params_text(name));
    o += "    {\n      using ::Halide::Func;\n      using ::Halide::MemoryType;\n      using ::Halide::RVar;\n"
         "      using ::Halide::TailStrategy;\n      using ::Halide::Var;\n";
    return o + indented(opt.schedule_source, "      ") + "    }\n";
  }
  if (opt.schedule_source.empty())
    o += fmt::format("    // halo: schedule autoscheduler {}: applied here with halo's parameters ({}), since the run\n"
                     "    // halo judged recorded no schedule (the autoscheduler failed, or did not run).\n",
                     name, autoscheduler_params_text(name));
  else
    o += fmt::format("    // halo: schedule autoscheduler {}: applied here with halo's parameters ({}), since the\n"
                     "    // schedule it chose in the run halo judged is not C++ that compiles; as recorded:\n{}",
                     name, autoscheduler_params_text(name), indented(opt.schedule_source, "    //   "));
  o += "    {\n";
  for (size_t i = 0; i < opt.autoscheduler_dirs.size(); ++i) {
    const auto& [major, dir] = opt.autoscheduler_dirs[i];
    o += fmt::format("#{} {}\n      const std::string plugins = {};\n", i == 0 ? "if" : "elif",
                     major == 14 ? "!defined(HALIDE_VERSION_MAJOR)" : fmt::format("HALIDE_VERSION_MAJOR == {}", major),
                     cpp_string(dir));
  }
  o += fmt::format("#{}\n      const std::string plugins = \"\";  // the directory of this Halide's libautoschedule_*.so\n"
                   "#endif\n",
                   opt.autoscheduler_dirs.empty() ? "if 1" : "else");
  o += fmt::format("      load_plugin(plugins + \"/{}\");\n", autoscheduler_plugin_file(name));
  o += "      // Estimates: the realization's own sizes (the window, each buffer's box, each parameter's value).\n";
  for (const HlParam& p : plan.params)
    o += fmt::format("      {}.set_estimate({});\n", cpp_param(p.name), value_cpp(p.type, p.value));
  auto region = [](const std::vector<std::pair<int32_t, int32_t>>& box) {
    std::vector<std::string> r;
    for (const auto& [mn, ext] : box) r.push_back(fmt::format("{{{}, {}}}", mn, ext));
    return fmt::format("Region{{{}}}", fmt::join(r, ", "));
  };
  for (const HlInput& in : plan.inputs) o += fmt::format("      {}.set_estimates({});\n", cpp_input(in.name), region(in.box));
  o += fmt::format("      {}.set_estimates({});\n", cpp_func(plan.output), region(plan.window));
  std::vector<std::string> params;
  for (const auto& [k, v] : autoscheduler_params(name)) params.push_back(fmt::format("{{\"{}\", \"{}\"}}", k, v));
  o += "#ifdef HALIDE_VERSION_MAJOR\n";
  o += fmt::format("      AutoSchedulerResults results = pipeline.apply_autoscheduler(target, {{\"{}\", {{{}}}}});\n", name,
                   fmt::join(params, ", "));
  o += "#else\n";
  o += fmt::format("      setenv(\"HL_BEAM_SIZE\", \"{}\", 1);\n      setenv(\"HL_RANDOM_DROPOUT\", \"{}\", 1);\n",
                   autoscheduler_param("beam_size"), autoscheduler_param("random_dropout"));
  o += fmt::format("      AutoSchedulerResults results = pipeline.auto_schedule(\"{}\", target, MachineParams({}, {}, {}));\n",
                   name, autoscheduler_param("parallelism"), autoscheduler_param("last_level_cache_size"),
                   autoscheduler_param("balance"));
  o += "#endif\n      printf(\"the schedule the autoscheduler chose:\\n%s\\n\", results.schedule_source.c_str());\n    }\n";
  return o;
}


}  // namespace

std::string emit_reproducer_cpp(const HalidePlan& plan, const OutputBuffer& expected, const ReproducerOptions& opt) {
  std::ostringstream o;
  o << "// A Halide reproducer written by halo (an executable formal semantics of Halide-style\n"
       "// languages, used as a test oracle) for "
    << comment(plan.file) << ".\n";
  for (const std::string& h : opt.header) o << "// " << comment(h) << "\n";
  o << "//\n"
       "// Build and run with Debian's Halide 14, or with a Halide wheel from PyPI (pip install\n"
       "// halide==21.0.0; ROOT is what `python -c 'import halide; print(halide.install_dir())'`\n"
       "// prints in its environment, e.g. halo's .venv/halide/21.0.0/halide):\n"
       "//   g++ -std=c++17 repro.cpp -I/usr/include/halide14 -lHalide14 -lpthread -ldl -o repro && ./repro\n"
       "//   g++ -std=c++17 repro.cpp -I$ROOT/include $ROOT/lib64/libHalide.so -Wl,-rpath,$ROOT/lib64 -lpthread -ldl -o repro\n"
       "// It prints every point of the output window where Halide's value differs from the value\n"
       "// of halo's reference semantics, and exits 0 when they all agree, 1 when some differ, 2\n"
       "// when Halide reports an error.\n";
  for (const std::string& n : plan.notes) o << "// Note: " << comment(n) << "\n";
  o << "#include \"Halide.h\"\n\n#include <algorithm>\n#include <cinttypes>\n#include <cmath>\n#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n#include <limits>\n#include <map>\n"
       "#include <iterator>\n#include <string>\n#include <vector>\n\nusing namespace Halide;\n\n";
  if (uses_fixed_point(plan))
    o << "// Halide 19 and later declare the fixed-point intrinsics (widening_add, ...) in namespace\n"
         "// Halide, Halide 14 in Halide::Internal (its Halide.h has no HALIDE_VERSION_MAJOR).\n"
         "#ifdef HALIDE_VERSION_MAJOR\nnamespace fixed_point = Halide;\n#else\n"
         "namespace fixed_point = Halide::Internal;\n#endif\n\n";
  o << "// Halide's runtime errors (a failed check) arrive here rather than as exceptions, since a\n"
       "// JITUserContext is passed to realize.\n"
       "static bool runtime_error_seen = false;\n"
       "static void on_runtime_error(JITUserContext *, const char *msg) {\n"
       "  printf(\"Halide runtime error: %s\\n\", msg);\n"
       "  runtime_error_seen = true;\n"
       "}\n\n";
  if (opt.memcheck) o << kMemcheckSupport;
  o << "int main() {\n"
       "#ifdef HALIDE_VERSION_MAJOR\n"
       "  printf(\"Halide %d.%d.%d\\n\", HALIDE_VERSION_MAJOR, HALIDE_VERSION_MINOR, HALIDE_VERSION_PATCH);\n"
       "#else\n"
       "  printf(\"Halide 14 or older (its Halide.h has no HALIDE_VERSION_MAJOR)\\n\");\n"
       "#endif\n"
       "  try {\n";

  o << "    // Parameters, with their values under the realization z.\n";
  for (const HlParam& p : plan.params)
    o << fmt::format("    Param<{}> {}({});\n    {}.set({});\n", p.type.c_type(), cpp_param(p.name), cpp_string(p.name),
                     cpp_param(p.name), value_cpp(p.type, p.value));

  if (!plan.inputs.empty()) o << "    // Input buffers (ImageParams), with the realization's values, first dimension fastest.\n";
  for (const HlInput& in : plan.inputs) {
    std::vector<std::string> extents, mins, values;
    for (const auto& [mn, ext] : in.box) extents.push_back(std::to_string(ext)), mins.push_back(std::to_string(mn));
    for (int64_t v : in.values) values.push_back(value_cpp(in.type, v));
    std::string ctype = in.type.is_typed() ? in.type.c_type() : "int32_t";
    o << fmt::format("    ImageParam {}({}, {}, {});\n", cpp_input(in.name), hl_type_cpp(in.type), in.box.size(),
                     cpp_string(in.name));
    o << fmt::format("    Buffer<{}> {}({{{}}});\n    {}.set_min({{{}}});\n", ctype, cpp_input_buffer(in.name),
                     fmt::join(extents, ", "), cpp_input_buffer(in.name), fmt::join(mins, ", "));
    o << fmt::format("    {{\n      static const {} values[] = {{{}}};\n", ctype, fmt::join(values, ", "));
    o << fmt::format("      std::copy(std::begin(values), std::end(values), {}.data());\n    }}\n",
                     cpp_input_buffer(in.name));
    o << fmt::format("    {}.set({});\n", cpp_input(in.name), cpp_input_buffer(in.name));
  }

  std::set<std::string> vars, rvars;
  for (const HlFunc& f : plan.funcs) {
    for (const std::string& v : f.vars) vars.insert(v);
    for (const HlStage& s : f.stages) {
      for (const HlExpr& e : s.lhs) collect_names(e, vars);
      collect_names(s.value, vars);
      if (s.where) collect_names(*s.where, vars);
      if (s.compound) collect_names(*s.compound, vars);
    }
  }
  for (const HlCall& c : plan.schedule)
    for (const HlLoop& l : c.loops)
      if (l.rdom_dim < 0) (l.rvar ? rvars : vars).insert(l.name);
  o << "    // Variables: the funcs' pure variables and the loops the schedule introduces.\n";
  for (const std::string& v : vars) o << fmt::format("    Var v_{}({});\n", v, cpp_string(v));
  for (const std::string& v : rvars) o << fmt::format("    RVar rv_{}({});\n", v, cpp_string(v));

  o << (plan.typed ? "    // Funcs, in definition order; each has its definition's type.\n"
                    : "    // Funcs, in definition order; every value is Int(32).\n");
  for (const HlFunc& f : plan.funcs) o << fmt::format("    Func {}({});\n", cpp_func(f.name), cpp_string(f.name));

  o << "\n    // The algorithm. RDom dimension i is the reduction variable r(i+1) (r1 innermost).\n";
  for (const HlFunc& f : plan.funcs) {
    if (f.boundary) {
      const HlBoundary& bc = *f.boundary;
      std::vector<std::string> args{bc.source_is_input ? cpp_input(bc.source) : cpp_func(bc.source)}, vs;
      if (bc.value) args.push_back(hl_expr_cpp(*bc.value));
      std::vector<std::string> region;
      for (const auto& [mn, ext] : bc.bounds) region.push_back(fmt::format("{{{}, {}}}", hl_expr_cpp(mn), hl_expr_cpp(ext)));
      if (!region.empty() || !bc.source_is_input) args.push_back(fmt::format("Region{{{}}}", fmt::join(region, ", ")));
      for (const std::string& v : f.vars) vs.push_back("v_" + v);
      o << fmt::format("    {}({}) = BoundaryConditions::{}({})({});\n", cpp_func(f.name), fmt::join(vs, ", "),
                       boundary_name(bc.kind), fmt::join(args, ", "), fmt::join(vs, ", "));
      continue;
    }
    for (size_t i = 0; i < f.stages.size(); ++i) {
      const HlStage& s = f.stages[i];
      if (i == 0 && f.implicit_pure) {
        o << fmt::format("    // {} has no pure definition: Halide adds its implicit one ({}(_0, ...) = {}).\n", f.name,
                         cpp_func(f.name), *f.implicit_pure == Op::Mul || *f.implicit_pure == Op::Div ? 1 : 0);
        continue;
      }
      if (s.rdom) {
        std::vector<std::string> ranges;
        for (const auto& [mn, ln] : s.rdom->ranges)
          ranges.push_back(fmt::format("{{{}, {}}}", hl_expr_cpp(mn), hl_expr_cpp(ln)));
        o << fmt::format("    RDom {}({{{}}}, {});  // {}\n", s.rdom->cpp_name, fmt::join(ranges, ", "),
                         cpp_string(s.rdom->halide_name), fmt::join(s.rdom->vars, ", "));
        if (s.where) o << fmt::format("    {}.where({});\n", s.rdom->cpp_name, hl_expr_cpp(*s.where));
      }
      std::vector<std::string> lhs;
      for (const HlExpr& e : s.lhs) lhs.push_back(hl_expr_cpp(e));
      if (s.compound)
        o << fmt::format("    {}({}) {}= {};\n", cpp_func(f.name), fmt::join(lhs, ", "), op_name(*f.implicit_pure),
                         hl_expr_cpp(*s.compound));
      else
        o << fmt::format("    {}({}) = {};\n", cpp_func(f.name), fmt::join(lhs, ", "), hl_expr_cpp(s.value));
    }
  }

  if (!plan.autoscheduler.empty())
    o << fmt::format("\n    // The schedule: Halide's autoscheduler {} chooses it (halo: schedule autoscheduler {} {{ }}),\n"
                     "    // once the pipeline is made, below.\n",
                     plan.autoscheduler, plan.autoscheduler);
  else if (plan.halide_mode)
    o << "\n    // The schedule as written (`schedule halide`): Halide's own defaults apply; a func is placed\n"
         "    // at the root only where the schedule says compute_root or store_root.\n";
  else
    o << "\n    // The schedule. First the formal default: every func computed and stored at the root\n"
         "    // (Halide's own default would inline it). Then each halo directive.\n";
  std::string last_origin;
  for (const HlCall& c : plan.schedule) {
    if (c.origin != last_origin && !c.origin.empty()) o << "    // halo: " << comment(c.origin) << "\n";
    last_origin = c.origin;
    o << "    " << call_cpp(c) << "\n";
  }

  const HlFunc* out = plan.find(plan.output);
  Type out_type = out ? out->type : Type::int_(32);
  std::string buffer_type = fmt::format("Buffer<{}>", out_type.c_type());
  size_t dims = plan.window.size();
  std::vector<std::string> mins, exts;
  for (const auto& [mn, ln] : plan.window) mins.push_back(std::to_string(mn)), exts.push_back(std::to_string(ln));
  o << "\n    // Realize on R(z). The bounds query may ask for a larger buffer (a rounded-up split of the\n"
       "    // output); only R(z) is compared.\n";
  o << (opt.target == "host" || opt.target.empty()
            ? std::string("    Target target = get_jit_target_from_environment();\n")
            : fmt::format("    Target target({});\n", cpp_string(opt.target)));
  if (plan_uses_floats(plan))
    o << "    // Floats are compared bit for bit: strict_float keeps every operation IEEE's.\n"
         "    target = target.with_feature(Target::StrictFloat);\n";
  o << fmt::format("    Pipeline pipeline({});\n", cpp_func(plan.output));
  if (!plan.autoscheduler.empty()) o << autoscheduler_cpp(plan, opt);
  if (opt.memcheck) {
    o << "    for (Func f : {";
    std::vector<std::string> fs;
    for (const HlFunc& f : plan.funcs) fs.push_back(cpp_func(f.name));
    o << fmt::format("{}", fmt::join(fs, ", ")) << "}) f.trace_loads().trace_stores().trace_realizations();\n";
    o << "    MemcheckContext ctx;\n    ctx.handlers.custom_trace = memcheck_trace;\n"
         "    ctx.handlers.custom_do_par_for = memcheck_serial_par_for;\n";
    o << fmt::format("    ctx.output = {}.name();\n", cpp_func(plan.output));
  } else {
    o << "    JITUserContext ctx;\n";
  }
  o << "    ctx.handlers.custom_error = on_runtime_error;\n";
  o << fmt::format("    {} out(nullptr, std::vector<int>{{{}}});\n", buffer_type, fmt::join(exts, ", "));
  if (dims) o << fmt::format("    out.set_min(std::vector<int>{{{}}});\n", fmt::join(mins, ", "));
  o << "    pipeline.realize(&ctx, out, target);  // the bounds query\n"
       "    if (runtime_error_seen) return 2;\n";
  // As the oracle does (jit.cpp): an answer that does not contain the window (or a
  // negative one) is not trusted; the pipeline is realized on a buffer over the window.
  std::vector<std::string> window_checks;
  for (size_t d = 0; d < dims; ++d) {
    const auto& [mn, ln] = plan.window[d];
    window_checks.push_back(fmt::format("out.dim({}).extent() < 0", d));
    if (ln > 0)
      window_checks.push_back(fmt::format("out.dim({}).min() > {} || out.dim({}).max() < {}", d, mn, d,
                                          int64_t(mn) + ln - 1));
  }
  if (!window_checks.empty())
    o << fmt::format("    if ({}) {{\n", fmt::join(window_checks, " || "))
      << "      printf(\"the bounds query answers a region that does not contain the window: realized on a buffer "
         "over the window instead\\n\");\n"
      << fmt::format("      out = {}(nullptr, std::vector<int>{{{}}});\n", buffer_type, fmt::join(exts, ", "))
      << (dims ? fmt::format("      out.set_min(std::vector<int>{{{}}});\n", fmt::join(mins, ", ")) : "")
      << "    }\n";
  o << "    out.allocate();\n"
    << fmt::format("    // A point Halide never writes must not pass for a computed value.\n"
                   "    std::memset(out.raw_buffer()->host, 0x{:X}, out.raw_buffer()->size_in_bytes());\n",
                   opt.memcheck ? kTracedRunFill : kPlainRunFill);
  if (opt.memcheck)
    o << "    for (int d = 0; d < out.dimensions(); d++) {\n"
         "      ctx.output_region.min.push_back(out.dim(d).min());\n"
         "      ctx.output_region.max.push_back(out.dim(d).max());\n    }\n";
  o << "    pipeline.realize(&ctx, out, target);\n"
       "    if (runtime_error_seen) return 2;\n";
  if (opt.memcheck)
    o << "    if (ctx.violations) printf(\"%ld load(s)/store(s) outside their realized region\\n\", "
         "ctx.violations);\n";

  o << "\n    // halo's reference values on R(z) (fig. 2.6), first dimension fastest.\n";
  bool u64 = out_type == Type::uint(64), fl = out_type.is_float();
  const std::string word = fl ? out_type.c_type() : u64 ? "uint64_t" : "int64_t";
  o << fmt::format("    static const {} expected[] = {{", word);
  for (size_t i = 0; i < expected.values.size(); ++i) {
    if (i % (fl ? 6 : 12) == 0) o << "\n       ";
    const Value& v = expected.values[i];
    if (fl && v.is_float()) o << " " << float_literal_cpp(out_type, v) << ",";
    else if (fl) o << " 0 /* " << v.to_string() << " */,";
    else if (u64 && v.is_int()) o << " " << value_cpp(out_type, wrap_to(Type::int_(64), v).small()) << ",";
    else o << " " << (v.is_small() ? std::to_string(v.small()) + "LL" : std::string("0 /* ") + v.to_string() + " */") << ",";
  }
  o << "\n        0};\n";
  // Points where the reference is undefined (a typed program's err_undef) are not compared.
  bool some_undefined = false;
  for (const Value& v : expected.values) some_undefined = some_undefined || v.is_error();
  if (some_undefined) {
    o << "    // 0 where the reference is undefined (err_undef: an operation Halide leaves undefined).\n"
         "    static const unsigned char compared[] = {";
    for (size_t i = 0; i < expected.values.size(); ++i) {
      if (i % 24 == 0) o << "\n       ";
      o << " " << (expected.values[i].is_error() ? 0 : 1) << ",";
    }
    o << "\n        0};\n";
  }
  o << "    long mismatches = 0, i = 0;\n";
  std::string indent = "    ";
  std::vector<std::string> coords;
  for (size_t d = dims; d-- > 0;) {
    const auto& [mn, ln] = plan.window[d];
    o << fmt::format("{}for (int c{} = {}; c{} < {}; c{}++)\n", indent, d, mn, d, int64_t(mn) + ln, d);
    indent += "  ";
  }
  for (size_t d = 0; d < dims; ++d) coords.push_back(fmt::format("c{}", d));
  o << indent << "{\n";
  // A bool is read as its byte: one Halide never wrote is neither true nor false.
  std::string at = fmt::format("out({})", fmt::join(coords, ", "));
  o << fmt::format("{}  {} got = {}, want = expected[i++];\n", indent, word,
                   out_type.is_bool() ? fmt::format("*(const uint8_t *)&{}", at) : fmt::format("({}){}", word, at));
  std::string fmt_coords, args_coords;
  for (size_t d = 0; d < dims; ++d) {
    fmt_coords += (d ? ", " : "") + std::string("%d");
    args_coords += ", c" + std::to_string(d);
  }
  // Floats agree when their bits do (so -0 differs from +0), every NaN agreeing with every
  // NaN (IEEE leaves a NaN's payload unspecified); shown as decimals and exact hex.
  std::string differ = fl ? "(std::isnan(got) != std::isnan(want) || (!std::isnan(got) && std::memcmp(&got, &want, "
                            "sizeof got) != 0))"
                          : "got != want";
  o << fmt::format("{}  if ({}{} && mismatches++ < 50)\n", indent, some_undefined ? "compared[i - 1] && " : "", differ);
  if (fl) {
    const char* g = out_type.bits() == 32 ? "%.9g" : "%.17g";
    o << fmt::format("{}    printf(\"{}({}) = {} (%a), expected {} (%a)\\n\"{}, (double)got, (double)got, (double)want, "
                     "(double)want);\n",
                     indent, out ? out->name : plan.output, fmt_coords, g, g, args_coords);
  } else {
    const char* pri = u64 ? "PRIu64" : "PRId64";
    o << fmt::format("{}    printf(\"{}({}) = %\" {} \", expected %\" {} \"\\n\"{}, got, want);\n", indent,
                     out ? out->name : plan.output, fmt_coords, pri, pri, args_coords);
  }
  o << indent << "}\n";
  o << "    printf(\"%ld of %ld point(s) differ from halo's reference\\n\", mismatches, i);\n";
  o << (opt.memcheck ? "    return mismatches || ctx.violations ? 1 : 0;\n" : "    return mismatches ? 1 : 0;\n");
  o << "  } catch (const Halide::Error &e) {\n"
       "    printf(\"Halide error: %s\\n\", e.what());\n"
       "    return 2;\n"
       "  }\n"
       "}\n";
  return o.str();
}

}  // namespace halo::halide
