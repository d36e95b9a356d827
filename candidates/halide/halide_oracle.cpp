// The Halide target oracle for one case (halide_oracle.hpp): reference, translation,
// Int(32) model, isolated JIT run, classification, signature, reproducer.
#include "candidates/halide/halide_oracle.hpp"

#include "bounds/beta0.hpp"
#include "interp/fast_eval.hpp"
#include "interp/output.hpp"
#include "candidates/halide/emit_cpp.hpp"
#include "oracle/int32_model.hpp"
#include "support/isolate.hpp"
#include "candidates/halide/jit.hpp"
#include "candidates/halide/plan.hpp"
#include "candidates/halide/protocol.hpp"
#include "oracle/candidate.hpp"
#include "candidates/halide/versions.hpp"
#include "support/worker_process.hpp"
#include "oracle/theorems.hpp"
#include "schedule/schedule.hpp"
#include "support/candidate_unavailable.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"
#include "bounds/simplify.hpp"
#include "support/child_processes.hpp"
#include "support/command_budget.hpp"
#include "support/diagnostics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <string.h>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

namespace halo::halide {

namespace {
// The reference reads an input buffer outside its box somewhere on R(z) (ε_mem in a
// program with inputs: the only source of ε_mem in an algorithm, docs/inputs.md).
bool reads_outside_input(const Program& prog, const OutputBuffer& ref) {
  if (prog.pipeline.inputs.empty()) return false;
  return std::any_of(ref.values.begin(), ref.values.end(),
                     [](const Value& x) { return x.kind() == Value::Kind::ErrMem; });
}
}  // namespace

namespace {

constexpr size_t kMaxMismatchExamples = 20;

// Restrictions Halide documents, which halo's schedules do not have: a CompileError whose
// message contains `needle` means "not expressible in Halide", not "Halide is wrong".
struct KnownRestriction {
  const char* needle;
  const char* explanation;
};
const KnownRestriction kKnownRestrictions[] = {
    {"Can only vectorize loops over a constant extent",
     "Halide vectorizes only loops whose extent is a constant greater than 1 after bounds inference; halo's "
     "vectorized loops are semantically serial and may have any extent"},
    {"Can only vectorize for loops over a constant extent",  // the same restriction, in Halide 19 and 21's words
     "Halide vectorizes only loops whose extent is a constant greater than 1 after bounds inference; halo's "
     "vectorized loops are semantically serial and may have any extent"},
    {"Can only unroll for loops over a constant extent",
     "Halide unrolls only loops whose extent is a constant after bounds inference; halo's unrolled loops are "
     "semantically serial and may have any extent"},
    {"in an unbounded way",
     "Halide's bounds inference must bound every access to a producer, and an index that depends on func values "
     "is unbounded to it (as to β0, whose completed program then fails its assertion)"},
    {"but computed within it. This is a potential race condition",
     "Halide treats a vectorized loop like a parallel one: a func computed inside it must be stored inside it; "
     "halo's vectorized loops are semantically serial, and its rule of storage inside the loop holds for parallel "
     "loops only"},
    {kNotInThisVersion, "the schedule uses a directive or an autoscheduler that this Halide version does not have"},
    {kAutoschedulerUnsupported, "the autoscheduler documents this case as unsupported"},
    {"Division by constant zero",
     "Halide rejects a float division whose divisor its simplifier folds to the constant zero (CodeGen_LLVM's "
     "user_assert), where IEEE-754 gives an infinity or NaN; halo refuses a literal zero divisor at the expression "
     "but does not fold what Halide's simplifier folds (docs/floats.md)"},
    {"is accessed over an unbounded domain",
     "Halide's bounds inference must bound every store of an update, and a left-hand side that depends on func "
     "values is unbounded to it (as to β0, whose completed program then fails its assertion)"},
};

// Runtime checks Halide makes of its own directives (outside fig. 2.11): when one fails on a
// schedule that uses the directive, Halide refuses that schedule for this input, which
// halo's rules do not judge; it is not a divergence from halo.
struct OwnDirectiveCheck {
  DirectiveKind directive;
  const char* needle;
  const char* explanation;
};
const OwnDirectiveCheck kOwnDirectiveChecks[] = {
    {DirectiveKind::FoldStorage, "is too small to store the required region",
     "Halide checks at run time that a folded buffer holds the region each iteration needs; fold_storage is "
     "Halide's own directive, which halo's rules do not judge"},
    {DirectiveKind::FoldStorage, "was accessed out of order",
     "Halide checks at run time that a folded dimension is accessed monotonically; fold_storage is Halide's own "
     "directive, which halo's rules do not judge"},
    {DirectiveKind::BoundStorage, "The explicit allocation bound",
     "Halide checks at run time that a func's storage bound holds the region bounds inference requires (Func.h: "
     "\"a runtime error will occur\"); bound_storage is Halide's own directive, which halo's rules do not judge"},
};

// Whether some condition of func's specializations holds under the input, so that the
// default copy, which specialize_fail makes fail, is not the one run (§2.8.1: the first
// condition that holds wins). nullopt when a condition does not reduce to a constant.
std::optional<bool> some_specialization_holds(const Program& prog, const std::string& func, const Input& in) {
  std::vector<std::string> params;
  for (const Name& p : prog.pipeline.params) params.push_back(p.text);
  Substitution z{in.startup_bindings(params)};
  for (const Directive& d : *prog.schedule)
    if (d.kind == DirectiveKind::Specialize && d.func.text == func)
      for (const Expr& c : d.exprs) {
        std::optional<Value> v = const_value(simplify(substitute(c, z)));
        if (!v) return std::nullopt;
        if (!v->is_zero()) return true;
      }
  return false;
}

// Halide stopping with a specialize_fail the program wrote: its promise when every condition
// of the func's specializations is false under the input (not_expressible: the program asks
// Halide to refuse this input), a divergence when one holds (nullptr: Halide took the
// failing branch where the program takes a specialization).
const char* specialize_fail_promised(const Program& prog, const Input& in, const std::string& message) {
  const std::string needle = "specialize_fail() was chosen: ";
  size_t at = message.find(needle);
  if (!prog.schedule || at == std::string::npos) return nullptr;
  for (const Directive& d : *prog.schedule)
    if (d.kind == DirectiveKind::SpecializeFail && message.compare(at + needle.size(), d.message.size(), d.message) == 0 &&
        some_specialization_holds(prog, d.func.text, in) == false)
      return "no condition of the func's specializations holds for this input, and the program's specialize_fail "
             "asks Halide to stop there (Func.h, Stage::specialize_fail)";
  return nullptr;
}


const OwnDirectiveCheck* own_directive_check(const Program& prog, const std::string& message) {
  if (!prog.schedule) return nullptr;
  for (const OwnDirectiveCheck& k : kOwnDirectiveChecks)
    if (message.find(k.needle) != std::string::npos &&
        std::any_of(prog.schedule->begin(), prog.schedule->end(), [&](const Directive& d) { return d.kind == k.directive; }))
      return &k;
  return nullptr;
}

const KnownRestriction* known_restriction(const std::string& message) {
  for (const KnownRestriction& k : kKnownRestrictions)
    if (message.find(k.needle) != std::string::npos) return &k;
  return nullptr;
}

std::string first_line(const std::string& s) {
  std::string t = s;
  size_t start = t.find_first_not_of(" \n");
  if (start == std::string::npos) return "";
  t = t.substr(start);
  if (t.rfind("Error: ", 0) == 0) t = t.substr(7);
  // "Internal Error at /build/.../CodeGen_LLVM.cpp:1302 triggered by user code at : Symbol
  // not found" (14), "Internal Error at /project/src/CodeGen_LLVM.cpp:1294 Symbol not found"
  // (19): the place in Halide's sources differs between versions and builds.
  const std::string internal = "Internal Error at ", user = "triggered by user code at : ";
  if (t.rfind(internal, 0) == 0) {
    size_t end = t.find_first_of(" \n", internal.size());
    if (end != std::string::npos && t[end] == ' ') {
      t = t.substr(end + 1);
      if (t.rfind(user, 0) == 0) t = t.substr(user.size());
    }
  }
  size_t nl = t.find('\n');
  return nl == std::string::npos ? t : t.substr(0, nl);
}

// What an autoscheduler refuses by design, in its own words (its user errors, read from
// its sources in Halide 14, 19 and 21): such a refusal of a valid pipeline is
// `not_expressible`; any other failure of the autoscheduler is `autoscheduler_error`.
struct AutoschedulerRestriction {
  const char* autoscheduler;
  const char* needle;
  const char* explanation;
};
const AutoschedulerRestriction kAutoschedulerRestrictions[] = {
    {"Li2018", "We can only schedule bounded accesses",
     "Li2018 schedules only pipelines whose every access its bounds inference can bound"},
    {"Li2018", "is not constant",
     "Li2018 needs every func's region and every reduction's extent to be a constant once the estimates are "
     "substituted"},
};

const AutoschedulerRestriction* autoscheduler_restriction(const std::string& name, const std::string& message) {
  for (const AutoschedulerRestriction& k : kAutoschedulerRestrictions)
    if (name == k.autoscheduler && message.find(k.needle) != std::string::npos) return &k;
  return nullptr;
}

bool autoscheduler_phase(const std::string& phase) {
  return phase == "autoschedule" || phase == "memcheck_autoschedule";
}

// How a failure of Halide on an autoscheduled case reads, when the autoscheduler is to
// blame: its own failure during the autoschedule phase, or Halide's refusal of the schedule
// it chose. Returns false when the ordinary classification applies.
bool classify_autoscheduler_failure(HalideVerdict& v, const JitResult& r, const Program& prog,
                                    const Int32ModelResult& model) {
  if (prog.schedule_mode != ScheduleMode::Autoscheduler) return false;
  const std::string& name = prog.autoscheduler;
  bool own_phase = autoscheduler_phase(v.phase);
  bool refusal = r.status == JitResult::Status::CompileError || r.status == JitResult::Status::OtherError;
  if (!own_phase && !refusal) return false;  // a runtime check, or an internal error of Halide's compiler
  // What no schedule makes Halide accept (a version without the autoscheduler, a documented
  // restriction of Halide's) reads as for any schedule.
  if (known_restriction(r.message)) return false;
  if (const AutoschedulerRestriction* k = own_phase && refusal ? autoscheduler_restriction(name, r.message) : nullptr) {
    v.outcome = HalideOutcome::NotExpressible;
    v.detail = fmt::format("not expressible with {}: {} (Halide: {})", name, k->explanation, first_line(r.message));
    return true;
  }
  // A pipeline whose regions depend on func values is no valid Halide pipeline under any
  // schedule (the known restriction "in an unbounded way"): whatever the autoscheduler says
  // of it — Adams2019 asserts "Unbounded producer->consumer relationship" internally in 14
  // and 19, as a user error in 21 — is not a bug on a valid pipeline.
  if (model.unbounded_region && (refusal || own_phase)) {
    v.outcome = HalideOutcome::NotExpressible;
    v.detail = fmt::format("Halide cannot bound a region that depends on func values ({}) under any schedule; {} "
                           "stops with (during {}): {}",
                           model.why, own_phase ? name : std::string("Halide"), v.phase, first_line(r.message));
    return true;
  }
  v.outcome = HalideOutcome::AutoschedulerError;
  const char* how = r.status == JitResult::Status::InternalError  ? "an InternalError"
                    : r.status == JitResult::Status::CompileError ? "a user error"
                                                                  : "an error";
  v.detail = own_phase ? fmt::format("Halide's autoscheduler {} failed on a valid pipeline ({} during {}): {}", name,
                                     how, v.phase, first_line(r.message))
                       : fmt::format("Halide refuses the schedule its own autoscheduler {} chose (during {}): {}", name,
                                     v.phase, first_line(r.message));
  return true;
}

// An autoscheduler's schedule without the numbers that make names unique in a process
// (Halide names the traced run's second build blur_y$1, lambda_2, ..., which Adams2019
// writes with `_`; Li2018 counts its Vars v2, v3, ... across the process), so that the two
// runs' schedules compare. Numbers that are not part of a name (split factors) stay.
std::string same_schedule_text(const std::string& source) {
  static const std::regex numbered_name("\\b([A-Za-z_][A-Za-z_0-9]*?)[_$]?[0-9]+\\b");
  return std::regex_replace(source, numbered_name, "$1");
}

// What the child reported: the phases it entered, and the results of its runs.
struct ChildReport {
  std::string last_phase;
  std::optional<JitResult> plain, memcheck;
  bool out_of_memory = false;
  std::string exception;
};

ChildReport parse_report(const std::string& text) {
  ChildReport c;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("PHASE ", 0) == 0) c.last_phase = line.substr(6);
    else if (line == "OUT_OF_MEMORY") c.out_of_memory = true;
    else if (line.rfind("EXCEPTION ", 0) == 0) c.exception = line.substr(10);
    else if (line.rfind("RESULT ", 0) == 0 || line.rfind("MEMCHECK ", 0) == 0) {
      bool plain = line[0] == 'R';
      try {
        JitResult r = jit_from_json(nlohmann::json::parse(line.substr(plain ? 7 : 9)));
        (plain ? c.plain : c.memcheck) = std::move(r);
      } catch (const std::exception&) {
        // A truncated line: the child died while writing it; the phase says where.
      }
    }
  }
  return c;
}

// ------------------------------------------------------------------ signatures
// The schedule's directive kinds (with tail and traversal), sorted: the coordinates of a
// wrong output or a memory violation once the case is minimized.
std::string schedule_features(const Program& prog) {
  if (prog.schedule_mode == ScheduleMode::Autoscheduler) return "autoscheduler." + prog.autoscheduler;
  std::set<std::string> kinds;
  if (prog.schedule)
    for (const Directive& d : *prog.schedule) {
      std::string k = directive_name(d.kind);
      if (d.kind == DirectiveKind::Split) k += std::string(".") + tail_name(d.tail);
      if (d.kind == DirectiveKind::Traverse) k += std::string(".") + traversal_name(d.order);
      kinds.insert(k);
    }
  if (kinds.empty()) return "default_schedule";
  return fmt::format("{}", fmt::join(kinds, "+"));
}

// The program's own names and every number replaced, so that two programs failing the
// same way get the same text: also the numbers inside Halide's own names (its unique_name
// counters: "Repeated name: t15" in one program is "t14" in the next).
std::string normalize_message(const std::string& msg, const Program& prog) {
  std::set<std::string> names;
  for (const Name& p : prog.pipeline.params) names.insert(p.text);
  for (const FuncDef& f : prog.pipeline.funcs) {
    names.insert(f.name.text);
    for (const Name& v : f.vars) names.insert(v.text);
    for (const UpdateStage& u : f.updates)
      for (const RVar& r : u.rdom) names.insert(r.name.text);
  }
  if (prog.schedule)
    for (const Directive& d : *prog.schedule)
      for (const Name& n : d.names) names.insert(n.text);
  std::string out;
  for (size_t i = 0; i < msg.size();) {
    char c = msg[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      while (i < msg.size() && std::isdigit(static_cast<unsigned char>(msg[i]))) ++i;
      out += 'N';
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < msg.size() && (std::isalnum(static_cast<unsigned char>(msg[j])) || msg[j] == '_')) ++j;
      std::string tok = msg.substr(i, j - i);
      if (names.count(tok)) {
        out += '#';
      } else {
        for (size_t k = 0; k < tok.size(); ++k) {
          bool digit = std::isdigit(static_cast<unsigned char>(tok[k]));
          if (!digit) out += tok[k];
          else if (k == 0 || !std::isdigit(static_cast<unsigned char>(tok[k - 1]))) out += 'N';
        }
      }
      i = j;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

std::string signature_of(const HalideVerdict& v, const Program& prog) {
  std::string base = fmt::format("{}:{}", outcome_name(v.outcome), v.phase);
  switch (v.outcome) {
    case HalideOutcome::WrongOutput:
    case HalideOutcome::MemoryViolation:
      return fmt::format("{}:{}", base, schedule_features(prog));
    case HalideOutcome::Crash:
    case HalideOutcome::Hang:
    case HalideOutcome::OutOfMemory:
      return fmt::format("{}:{}", base, normalize_message(first_line(v.message), prog));
    default: return fmt::format("{}:{}", base, normalize_message(first_line(v.message), prog));
  }
}

// ------------------------------------------------------------------ helpers
bool reference_has_error(const OutputBuffer& b) {
  return std::any_of(b.values.begin(), b.values.end(), [](const Value& v) { return v.is_error(); });
}

uint64_t count_undefined(const OutputBuffer& b) {
  return uint64_t(std::count_if(b.values.begin(), b.values.end(),
                                [](const Value& v) { return v.kind() == Value::Kind::ErrUndef; }));
}

// Does halo's own completed program (the schedule applied, β0's bounds) fail an assertion
// on this input? Def. 2.3 allows an assertion failure on both sides.
std::optional<bool> halo_asserts(const Program& prog, const Input& in, const Limits& lim) {
  try {
    // An autoscheduler's schedule is Halide's: halo's completed program is the formal
    // default's, whose assertions (an input read outside its buffer) no schedule changes.
    TgtProgram t = schedule_pipeline(prog.schedule_mode == ScheduleMode::Autoscheduler ? formal_part(prog) : prog);
    Beta0Completion c = complete_with_beta0(t);
    OracleVerdict v = check_theorems(prog, c.program, in, lim);
    return v.assertion_failed;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The output func's type: a typed program's, or ℤ (Halide's Int(32) under the Int(32) model).
Type output_type(const Program& prog) {
  const FuncDef* out = prog.pipeline.find(prog.pipeline.name.text);
  return out ? out->type : Type::z();
}

void compare(const JitResult& r, const OutputBuffer& ref, Type type, bool memcheck_run, bool relaxed, HalideVerdict& v) {
  for (size_t i = 0; i < ref.values.size() && i < r.values.size(); ++i) {
    const Value& want = ref.values[i];
    Value got = hl_value(type, r.values[i]);
    if (want == got || want.kind() == Value::Kind::ErrUndef) continue;
    if (relaxed && type.is_float() && relaxed_agree(type, want, got)) continue;
    ++v.mismatches;
    if (v.first_mismatches.size() < kMaxMismatchExamples)
      v.first_mismatches.push_back(PointMismatch{window_point(ref.window, i), want, got, memcheck_run});
  }
  if (r.values.size() != ref.values.size()) ++v.mismatches;
}

// Without the traced run, an output point whose reference is the plain run's fill value
// agrees whether or not Halide wrote it: counted and said, not passed silently.
void note_fill_points(const JitResult& r, const OutputBuffer& ref, Type type, HalideVerdict& v) {
  Type t = type.is_typed() ? type : Type::int_(32);  // an untyped output is Halide's Int(32)
  int64_t pattern = 0;
  std::memset(&pattern, kPlainRunFill, sizeof pattern);
  Value fill = wrap_to(t, Value(pattern));
  uint64_t n = 0;
  for (size_t i = 0; i < ref.values.size() && i < r.values.size(); ++i)
    n += ref.values[i] == fill && hl_value(type, r.values[i]) == fill;
  if (n > 0)
    v.notes.push_back(fmt::format("{} output point(s) hold {}, the value the output buffer was filled with before "
                                  "Halide ran: without the traced run (--no-memcheck) they are not told from points "
                                  "Halide never wrote, so they are not judged",
                                  n, fill.to_string()));
}

std::string point_text(const std::vector<Value>& p) {
  std::vector<std::string> s;
  for (const Value& x : p) s.push_back(x.to_string());
  return fmt::format("({})", fmt::join(s, ", "));
}

// Classifies what the isolated child did.
void classify(HalideVerdict& v, const IsolatedRun& run, const ChildReport& rep, const OutputBuffer& ref,
              const Program& prog, const Input& in, const HalideOptions& opt, const Int32ModelResult& model) {
  v.phase = rep.last_phase;
  v.output_tail = run.output_tail;
  auto mentions_oom = [](const std::string& text) {
    return text.find("out of memory") != std::string::npos || text.find("Out of memory") != std::string::npos ||
           text.find("bad_alloc") != std::string::npos;
  };
  bool oom_text = mentions_oom(run.output_tail);
  if (run.end == IsolatedRun::End::CouldNotStart) throw std::runtime_error("cannot start Halide's process: " + run.error);
  if (run.end == IsolatedRun::End::TimedOut) {
    v.outcome = HalideOutcome::Hang;
    v.message = fmt::format("no result after {:.0f} s", opt.timeout_seconds);
    v.detail = fmt::format("Halide did not finish within {:.0f} s (phase {}); the process was killed",
                           opt.timeout_seconds, v.phase);
    return;
  }
  if (rep.out_of_memory || (run.end == IsolatedRun::End::Signaled && oom_text)) {
    v.outcome = HalideOutcome::OutOfMemory;
    v.message = "out of memory";
    v.detail = fmt::format("Halide ran out of its {} MiB (phase {})", opt.max_memory_bytes >> 20, v.phase);
    return;
  }
  if (run.end == IsolatedRun::End::Signaled) {
    v.outcome = HalideOutcome::Crash;
    v.message = signal_description(run.signal);
    v.detail = fmt::format("Halide's process died of {} during {}", v.message, v.phase);
    if (autoscheduler_phase(v.phase)) {
      v.outcome = HalideOutcome::AutoschedulerError;
      v.detail = fmt::format("Halide's autoscheduler {} crashed the process ({}) during {}", prog.autoscheduler,
                             v.message, v.phase);
    }
    return;
  }
  if (!rep.plain || (opt.memcheck && rep.plain->status == JitResult::Status::Ok && !rep.memcheck)) {
    v.outcome = HalideOutcome::Crash;
    v.message = rep.exception.empty() ? fmt::format("exited with status {} without a result", run.exit_code)
                                      : "exception: " + rep.exception;
    v.detail = fmt::format("Halide's process {} during {}", v.message, v.phase);
    return;
  }
  v.halide_target = rep.plain->target;
  v.autoscheduler_params = rep.plain->autoscheduler_params;
  v.schedule_source = rep.plain->schedule_source;
  if (rep.memcheck && !rep.plain->schedule_source.empty() &&
      same_schedule_text(rep.memcheck->schedule_source) != same_schedule_text(rep.plain->schedule_source))
    v.notes.push_back(fmt::format("the autoscheduler {} chose another schedule for the traced run's pipeline (the one "
                                  "shown is the plain run's)",
                                  prog.autoscheduler));
  if (!rep.plain->bounds_query_note.empty()) v.notes.push_back(rep.plain->bounds_query_note);
  std::vector<const JitResult*> runs{&*rep.plain};
  if (rep.memcheck) runs.push_back(&*rep.memcheck);
  for (const JitResult* r : runs) {
    if (r->status == JitResult::Status::Ok) continue;
    bool traced = r == &*rep.memcheck;
    v.phase = (traced ? "memcheck_" : "") + r->phase;
    v.message = r->message;
    if (classify_autoscheduler_failure(v, *r, prog, model)) return;
    switch (r->status) {
      case JitResult::Status::InternalError:
        v.outcome = HalideOutcome::InternalError;
        v.detail = fmt::format("Halide raised an InternalError during {}: {}", v.phase, first_line(r->message));
        return;
      case JitResult::Status::CompileError:
      case JitResult::Status::OtherError:
        if (!opt.formal_refusal.empty()) {
          // Both refuse: what the fixed Halide does with the fuse that reorders reductions.
          v.outcome = HalideOutcome::Pass;
          v.detail = fmt::format("Halide refuses the schedule, as halo's rules do ({}) (during {}): {}",
                                 opt.formal_refusal, v.phase, first_line(r->message));
        } else if (const KnownRestriction* k = known_restriction(r->message)) {
          v.outcome = HalideOutcome::NotExpressible;
          v.detail = fmt::format("not expressible in Halide: {} (Halide: {})", k->explanation, first_line(r->message));
        } else if (prog.schedule && std::any_of(prog.schedule->begin(), prog.schedule->end(),
                                                [](const Directive& d) { return is_halide_only(d); })) {
          // halo's rules do not cover Halide's own directives (docs/halide.md), so Halide's
          // refusal of a schedule that uses them is Halide's call, not a divergence.
          v.outcome = HalideOutcome::NotExpressible;
          v.detail = fmt::format("Halide refuses this use of its own directives, which halo's rules do not judge "
                                 "(during {}): {}",
                                 v.phase, first_line(r->message));
        } else if (uint64_t undefined = count_undefined(ref);
                   undefined > 0 &&
                   r->message.find("Signed integer overflow occurred during constant-folding") != std::string::npos) {
          // Halide's simplifier proved, at compile time, an overflow the reference finds
          // too: the program is undefined where it overflows (decision 22), and Halide may
          // refuse it (its constant folding turns a provable signed overflow into an error).
          v.outcome = HalideOutcome::OutOfModel;
          v.detail = fmt::format("Halide refuses a signed overflow it proved while constant-folding, and the "
                                 "reference is undefined at {} point(s) of R(z) (during {}): {}",
                                 undefined, v.phase, first_line(r->message));
        } else {
          v.outcome = HalideOutcome::Rejected;
          v.detail = fmt::format("Halide rejects a program halo accepts (during {}): {}", v.phase,
                                 first_line(r->message));
        }
        return;
      case JitResult::Status::RuntimeError: {
        if (mentions_oom(r->message)) {  // halide_malloc failed under the memory limit: no check of Halide's
          v.outcome = HalideOutcome::OutOfMemory;
          v.message = "out of memory";
          v.detail = fmt::format("Halide ran out of its {} MiB (phase {}): {}", opt.max_memory_bytes >> 20, v.phase,
                                 first_line(r->message));
          return;
        }
        if (const char* why = specialize_fail_promised(prog, in, r->message)) {
          v.outcome = HalideOutcome::NotExpressible;
          v.detail = fmt::format("not expressible in Halide for this input: {} (Halide: {})", why, first_line(r->message));
          return;
        }
        if (const OwnDirectiveCheck* k = own_directive_check(prog, r->message)) {
          v.outcome = HalideOutcome::NotExpressible;
          v.detail = fmt::format("not expressible in Halide for this input: {} (Halide: {})", k->explanation,
                                 first_line(r->message));
          return;
        }
        if (model.unbounded_region) {
          v.outcome = HalideOutcome::NotExpressible;
          v.detail = fmt::format("Halide cannot bound a region that depends on func values ({}); it stops with: {}",
                                 model.why, first_line(r->message));
          return;
        }
        std::optional<bool> both = halo_asserts(prog, in, opt.reference_limits);
        v.outcome = both.value_or(false) ? HalideOutcome::AgreedAssertion : HalideOutcome::RuntimeAssertion;
        v.detail = both.value_or(false)
                       ? fmt::format("Halide's runtime check fails ({}), and so does halo's own completed program: "
                                     "Def. 2.3 allows both",
                                     first_line(r->message))
                       : fmt::format("Halide's runtime check fails ({}) where halo's own completed program {}",
                                     first_line(r->message),
                                     both ? "runs without an assertion failure" : "could not be checked");
        return;
      }
      case JitResult::Status::Ok: break;
    }
  }
  v.compile_seconds = rep.plain->compile_seconds;
  v.compile_reused = rep.plain->compile_reused;
  v.run_seconds = rep.plain->run_seconds;
  if (rep.memcheck) v.mem = rep.memcheck->mem;
  for (const JitResult* r : runs)
    for (const std::string& s : r->heap_corruption) v.heap_corruption.push_back(s);
  if (!v.heap_corruption.empty()) {
    v.outcome = HalideOutcome::MemoryViolation;
    v.message = v.heap_corruption.front();
    v.detail = "Theorem 2.1 violated: " + v.heap_corruption.front();
    v.phase = "run";
    return;
  }
  // Out-of-region lanes of vector accesses: a violation unless a predicating tail (one of
  // Halide's own) could have masked them; then the trace cannot tell, the guard bytes
  // around every buffer (checked above) are the evidence for stores, and the verdict says
  // what it could not check.
  if (v.mem.vector_lanes_out_of_bounds > 0) {
    bool predicated = prog.schedule && std::any_of(prog.schedule->begin(), prog.schedule->end(), [](const Directive& d) {
                        return d.kind == DirectiveKind::Split && is_predicating(d.tail);
                      });
    if (predicated) {
      v.notes.push_back(fmt::format(
          "{} lane(s) of vector loads/stores lie outside the realized region in Halide's trace, e.g. {}; a trace "
          "event of a predicated vector access lists its masked-off lanes too, so the memory check cannot judge "
          "them (the guard bytes around every buffer were intact)",
          v.mem.vector_lanes_out_of_bounds, v.mem.vector_lanes_examples.empty() ? "" : v.mem.vector_lanes_examples.front()));
      v.mem.unjudged_vector_lanes = v.mem.vector_lanes_out_of_bounds;
    } else {
      v.mem.out_of_bounds += v.mem.vector_lanes_out_of_bounds;
      for (const std::string& e : v.mem.vector_lanes_examples)
        if (v.mem.out_of_bounds_examples.size() < kMaxMismatchExamples) v.mem.out_of_bounds_examples.push_back(e);
    }
  }
  if (v.mem.out_of_bounds > 0) {
    v.outcome = HalideOutcome::MemoryViolation;
    v.message = v.mem.out_of_bounds_examples.empty() ? "out-of-bounds access" : v.mem.out_of_bounds_examples.front();
    v.detail = fmt::format("Theorem 2.1 violated: {} load(s)/store(s) outside the region Halide realized, e.g. {}",
                           v.mem.out_of_bounds, v.message);
    v.phase = "memcheck_run";
    return;
  }
  if (reads_outside_input(prog, ref)) {
    v.outcome = HalideOutcome::MemoryViolation;
    v.phase = "run";
    v.message = "the input bounds check did not fail";
    v.detail = "Theorem 2.1 violated: the algorithm reads an input outside its buffer on R(z), yet Halide's run "
               "ended without its input bounds check failing";
    return;
  }
  bool relaxed = opt.relaxed_floats && output_type(prog).is_float();
  compare(*rep.plain, ref, output_type(prog), false, relaxed, v);
  if (!rep.memcheck) note_fill_points(*rep.plain, ref, output_type(prog), v);
  uint64_t plain_mismatches = v.mismatches;
  if (plain_mismatches == 0 && rep.memcheck) compare(*rep.memcheck, ref, output_type(prog), true, relaxed, v);
  // Which float mode judged the case, in every report of a float output.
  if (output_type(prog).is_float()) {
    if (relaxed) {
      RelaxedFloatTolerance tol = relaxed_float_tolerance(output_type(prog));
      v.notes.push_back(fmt::format("float mode relaxed: compiled without strict_float, outputs compared within "
                                    "{:g} + {:g} * |expected|, points whose reference is NaN or infinite not compared",
                                    tol.absolute, tol.relative));
    } else {
      v.notes.push_back("float mode strict: compiled with strict_float, outputs compared bit for bit (NaNs equal)");
    }
  }
  if (v.mismatches > 0) {
    // Halide was seen computing regions: are they still inside the Int(32) model?
    Int32ModelResult again = prog.pipeline.typed ? Int32ModelResult{} : check_int32_model(prog, in, v.mem.realized);
    if (!model.in_model || !again.in_model) {
      v.outcome = HalideOutcome::OutOfModel;
      v.message = !model.in_model ? model.why : again.why;
      v.detail = "the outputs differ, but the case is outside the Int(32) model: " + v.message;
      return;
    }
    const PointMismatch& m = v.first_mismatches.front();
    if (races_allowed(prog)) {
      v.outcome = HalideOutcome::NotExpressible;
      v.detail = fmt::format("the outputs differ at {} point(s) (first {}{} = {}, expected {}), but the schedule lets "
                             "a parallel or vectorized reduction race (allow_race_conditions), for which Halide "
                             "promises no value",
                             v.mismatches, prog.pipeline.name.text, point_text(m.point), m.got.display(),
                             m.expected.display());
      return;
    }
    v.outcome = HalideOutcome::WrongOutput;
    v.phase = plain_mismatches ? "run" : "memcheck_run";
    v.message = fmt::format("{}{} = {}, expected {}", prog.pipeline.name.text, point_text(m.point), m.got.display(),
                            m.expected.display());
    v.detail = fmt::format("Theorem 2.2 violated: Halide's output differs from the reference at {} of {} point(s) "
                           "of R(z){}, first {}",
                           v.mismatches, ref.values.size(), plain_mismatches ? "" : " (in the traced run only)",
                           v.message);
    return;
  }
  // Not a finding: Halide skips computing a producer whose values a select will discard
  // (its "dynamically skipping stages" pass) and still loads them. The output is right.
  if (v.mem.uninitialized > 0)
    v.notes.push_back(fmt::format("{} load(s) of points that no store of the realization wrote (values Halide "
                                  "loads and discards, e.g. under a select after skipping a stage), e.g. {}",
                                  v.mem.uninitialized, v.mem.uninitialized_examples.empty()
                                                           ? std::string()
                                                           : v.mem.uninitialized_examples.front()));
  v.outcome = HalideOutcome::Pass;
  v.phase = "";
  v.detail = fmt::format("Halide's output equals the reference on all {} point(s) of R(z){}", ref.values.size(),
                         !rep.memcheck ? ""
                         : v.mem.unjudged_vector_lanes == 0
                             ? fmt::format("; {} loads and {} stores inside their realizations", v.mem.loads,
                                           v.mem.stores)
                             : fmt::format("; {} loads and {} stores traced, all inside their realizations but {} "
                                           "lane(s) of predicated vector accesses the trace cannot judge",
                                           v.mem.loads, v.mem.stores, v.mem.unjudged_vector_lanes));
}

// The long-lived worker of each Halide version, for one Halide target string; replaced
// after it dies, after a suspicious outcome, and every kWorkerRequests requests.
constexpr uint64_t kWorkerRequests = 1000;
struct WorkerSlot {
  std::unique_ptr<Worker> worker;
  std::string target;
};
std::map<int, WorkerSlot> g_workers;

void stop_worker(int major) { g_workers.erase(major); }

// How a worker that did not come up ended, with the last lines it printed (Halide's own error).
std::string worker_end_text(const IsolatedRun& run) {
  std::string how = run.end == IsolatedRun::End::Signaled   ? fmt::format("killed by signal {} ({})", run.signal, strsignal(run.signal))
                    : run.end == IsolatedRun::End::TimedOut ? std::string("did not finish its warm-up in time")
                    : run.end == IsolatedRun::End::CouldNotStart ? run.error
                                                                : fmt::format("exited with status {}", run.exit_code);
  std::string tail = run.output_tail;
  while (!tail.empty() && std::isspace(static_cast<unsigned char>(tail.back()))) tail.pop_back();
  if (tail.size() > 600) tail = "..." + tail.substr(tail.size() - 600);
  return tail.empty() ? how : how + "; it printed:\n" + tail;
}

// A worker that cannot be started or dies before serving anything says nothing about a
// case: it is restarted, and one that never comes up stops the campaign (bad input, such as
// a target string this machine cannot JIT for), instead of filing every case as a finding.
[[noreturn]] void worker_unavailable(const HalideVersion& v, const HalideOptions& opt, const std::string& why) {
  throw CandidateUnavailable(Diagnostic{
      opt.target == "host" ? std::string("--target") : std::string("--halide-target"), {},
      fmt::format("the Halide {} worker cannot run for the Halide target '{}': {}", v.version, opt.target, why)});
}

constexpr int kWorkerStarts = 2;  // a worker killed during its warm-up is restarted once

Worker& worker_for(const HalideOptions& opt, const HalideVersion& v) {
  WorkerSlot& s = g_workers[v.major];
  if (s.worker && (!s.worker->alive() || s.target != opt.target || s.worker->requests() >= kWorkerRequests))
    s.worker.reset();
  std::string why;
  for (int attempt = 0; !s.worker && attempt < kWorkerStarts; ++attempt) {
    try {
      s.worker = std::make_unique<Worker>(v.worker, std::vector<std::string>{"--serve", "--target", opt.target});
    } catch (const std::runtime_error& e) {
      worker_unavailable(v, opt, e.what());  // not executable: no retry helps
    }
    s.target = opt.target;
    // Wait for the warm-up, so that it is not charged to the first case's time limit.
    IsolatedRun warm = s.worker->call_within_deadline("", 300, 0);
    if (warm.end != IsolatedRun::End::Exited || !s.worker->alive()) {
      why = worker_end_text(warm);
      s.worker.reset();
    }
  }
  if (!s.worker) worker_unavailable(v, opt, fmt::format("{} (started {} times)", why, kWorkerStarts));
  return *s.worker;
}

// One request in a fresh worker process, which ends after it.
IsolatedRun run_fresh(const HalideVersion& v, const std::string& request, const HalideOptions& opt) {
  std::unique_ptr<Worker> w;
  try {
    w = std::make_unique<Worker>(v.worker, std::vector<std::string>{"--serve", "--no-warm-up", "--target", opt.target});
  } catch (const std::runtime_error& e) {
    worker_unavailable(v, opt, e.what());
  }
  IsolatedRun run = w->call_within_deadline(request, opt.timeout_seconds, opt.max_memory_bytes);
  w->stop();
  return run;
}

}  // namespace

const char* outcome_name(HalideOutcome o) {
  switch (o) {
    case HalideOutcome::Pass: return "pass";
    case HalideOutcome::OutOfModel: return "out_of_model";
    case HalideOutcome::ReferenceError: return "reference_error";
    case HalideOutcome::NotExpressible: return "not_expressible";
    case HalideOutcome::AgreedAssertion: return "agreed_assertion";
    case HalideOutcome::WrongOutput: return "wrong_output";
    case HalideOutcome::MemoryViolation: return "memory_violation";
    case HalideOutcome::Crash: return "crash";
    case HalideOutcome::InternalError: return "internal_error";
    case HalideOutcome::Rejected: return "rejected";
    case HalideOutcome::RuntimeAssertion: return "runtime_assertion";
    case HalideOutcome::Hang: return "hang";
    case HalideOutcome::OutOfMemory: return "out_of_memory";
    case HalideOutcome::AutoschedulerError: return "autoscheduler_error";
  }
  return "?";
}

bool is_violation(HalideOutcome o) {
  return o == HalideOutcome::WrongOutput || o == HalideOutcome::MemoryViolation || o == HalideOutcome::Crash ||
         o == HalideOutcome::InternalError || o == HalideOutcome::AutoschedulerError;
}

bool races_allowed(const Program& prog) {
  if (!prog.schedule) return false;
  using Stage = std::tuple<std::string, int64_t, int64_t>;
  // Each race-allowed update stage's reduction loops: its rdom's variables, and the loops a
  // split or fuse of one of them makes (fig. 2.11: they stay reduction loops).
  std::map<Stage, std::set<std::string>> reduction;
  for (const Directive& d : *prog.schedule) {
    if (d.kind != DirectiveKind::AllowRaceConditions || d.loop.stage < 1) continue;
    const FuncDef* f = prog.pipeline.find(d.loop.func.text);
    if (!f || size_t(d.loop.stage) > f->updates.size()) continue;
    auto& loops = reduction[{d.loop.func.text, d.loop.spec, d.loop.stage}];
    for (const RVar& r : f->updates[size_t(d.loop.stage) - 1].rdom) loops.insert(r.name.text);
  }
  for (const Directive& d : *prog.schedule) {
    auto it = reduction.find({d.loop.func.text, d.loop.spec, d.loop.stage});
    if (it == reduction.end() || !it->second.count(d.loop.var.text)) continue;
    if (d.kind == DirectiveKind::Split) it->second.insert({d.names[0].text, d.names[1].text});
    if (d.kind == DirectiveKind::Fuse) it->second.insert(d.names[0].text);
    if (d.kind == DirectiveKind::Traverse && (d.order == Traversal::Parallel || d.order == Traversal::Vectorized))
      return true;
  }
  return false;
}

bool halide_ran(HalideOutcome o) {
  switch (o) {
    case HalideOutcome::Pass: case HalideOutcome::WrongOutput: case HalideOutcome::MemoryViolation:
    case HalideOutcome::AgreedAssertion: case HalideOutcome::RuntimeAssertion:
      return true;
    default: return false;
  }
}

bool is_finding(HalideOutcome o) {
  return is_violation(o) || o == HalideOutcome::Rejected || o == HalideOutcome::RuntimeAssertion ||
         o == HalideOutcome::Hang || o == HalideOutcome::OutOfMemory;
}

HalideVerdict run_halide_case(const Program& prog, const Input& in, const HalideOptions& opt) {
  auto start = std::chrono::steady_clock::now();
  HalideVerdict v;
  const HalideVersion& version = halide_version_for(opt);
  v.halide_version = version.version;
  auto finish = [&](HalideVerdict& out) -> HalideVerdict {
    out.autoscheduler = prog.autoscheduler;
    if (!prog.replaced_schedule.empty() &&
        std::find(out.notes.begin(), out.notes.end(), prog.replaced_schedule) == out.notes.end())
      out.notes.insert(out.notes.begin(), prog.replaced_schedule);
    if (!opt.formal_refusal.empty())
      out.notes.insert(out.notes.begin(),
                       fmt::format("halo's rules refuse this schedule ({}); Halide ran it as written, and must refuse "
                                   "it or compute the reference (Theorem 2.2 holds for every schedule Halide accepts)",
                                   opt.formal_refusal));
    out.signature = signature_of(out, prog);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  };
  OutputBuffer ref = evaluate_fast(prog.pipeline, in, opt.reference_limits);
  // A typed program's reference is undefined (ε_undef) where Halide leaves the result
  // undefined (decision 22): those points have no value to compare Halide's with, the
  // others do (decision 26).
  uint64_t undefined = count_undefined(ref);
  if (undefined > 0 && undefined == ref.values.size()) {
    v.outcome = HalideOutcome::OutOfModel;
    v.phase = "reference";
    v.message = fmt::format("{} is undefined (err_undef) on every point of R(z): an operation Halide leaves "
                            "undefined, such as a signed 32- or 64-bit overflow",
                            prog.pipeline.name.text);
    v.detail = "outside the typed model: " + v.message;
    return finish(v);
  }
  std::vector<std::string> case_notes;  // what every verdict of this case says
  if (undefined > 0)
    case_notes.push_back(fmt::format("{} of {} point(s) of R(z) are undefined in the reference (err_undef: an operation "
                                  "Halide leaves undefined) and not compared",
                                  undefined, ref.values.size()));
  // A reference that reads an input outside its buffer (ε_mem) still runs Halide: its
  // startup check must fail (docs/inputs.md), and a run that ends normally read outside
  // the buffer.
  if (undefined == 0 && reference_has_error(ref) && !reads_outside_input(prog, ref)) {
    v.outcome = HalideOutcome::ReferenceError;
    v.detail = "P(z) has an error value in R(z) (a negative rdom extent): Def. 2.3 holds vacuously, Halide not run";
    return finish(v);
  }
  auto translated = translate_to_halide(prog, in);
  if (auto* err = std::get_if<TranslationError>(&translated)) {
    v.outcome = err->not_expressible ? HalideOutcome::NotExpressible : HalideOutcome::OutOfModel;
    v.phase = "translate";
    v.message = err->message;
    v.detail = (err->not_expressible ? "not expressible in Halide: " : "outside the Int(32) model: ") + err->message;
    return finish(v);
  }
  const HalidePlan& plan = std::get<HalidePlan>(translated);
  case_notes.insert(case_notes.begin(), plan.notes.begin(), plan.notes.end());
  v.notes = case_notes;
  // A typed program needs no Int(32) model: its reference computes what Halide's types do,
  // and is undefined exactly where Halide's is (decision 26).
  Int32ModelResult model = prog.pipeline.typed ? Int32ModelResult{} : check_int32_model(prog, in);
  if (!model.in_model && !model.unbounded_region) {
    v.outcome = HalideOutcome::OutOfModel;
    v.message = model.why;
    v.detail = "outside the Int(32) model: " + model.why;
    return finish(v);
  }
  std::string request = case_request_text(prog, in, opt.memcheck, opt.target, !opt.relaxed_floats);
  IsolatedRun run;
  bool fresh = !opt.reuse_process;
  if (opt.reuse_process) {
    run = worker_for(opt, version).call_within_deadline(request, opt.timeout_seconds, opt.max_memory_bytes);
    ChildReport rep = parse_report(run.report);
    classify(v, run, rep, ref, prog, in, opt, model);
    // A crash, hang or memory finding of the worker could come from an earlier case that
    // corrupted it: the worker is replaced, and the case decided again in a fresh process.
    // So is any failure of a pipeline compiled for an earlier case (another window of the
    // same program): a finding is a verdict on the case run alone, compiled for itself.
    bool reused = (rep.plain && rep.plain->compile_reused) || (rep.memcheck && rep.memcheck->compile_reused);
    if (run.end != IsolatedRun::End::Exited || v.outcome == HalideOutcome::Crash ||
        v.outcome == HalideOutcome::Hang || v.outcome == HalideOutcome::OutOfMemory ||
        v.outcome == HalideOutcome::MemoryViolation || (reused && v.outcome != HalideOutcome::Pass)) {
      stop_worker(version.major);
      std::string seen = outcome_name(v.outcome);
      v = HalideVerdict{};
      v.halide_version = version.version;
      v.notes = case_notes;
      v.notes.push_back("seen as " + seen +
                        (reused ? " with the pipeline compiled for another window of the program"
                                : " in the long-lived worker") +
                        "; decided again in a fresh process");
      fresh = true;
    }
  }
  if (fresh) {
    run = run_fresh(version, request, opt);
    classify(v, run, parse_report(run.report), ref, prog, in, opt, model);
  }
  if (v.outcome == HalideOutcome::Pass && !model.in_model)
    v.notes.push_back("the case passed although interval analysis could not bound a region: " + model.why);
  return finish(v);
}

std::string failure_signature(const HalideVerdict& v) { return v.signature; }

const HalideVersion& halide_version_for(const HalideOptions& opt) {
  if (opt.version == 0) return newest_halide_version();
  const HalideVersion* v = find_halide_version(opt.version);
  if (!v)
    throw std::runtime_error(fmt::format("Halide {} is not installed (installed: {})", opt.version,
                                         installed_halide_list()));
  return *v;
}

std::string halide_reproducer(const Program& prog, const Input& in, const HalideVerdict& v, const HalideOptions& opt) {
  OutputBuffer ref = evaluate_fast(prog.pipeline, in, opt.reference_limits);
  auto translated = translate_to_halide(prog, in);
  if (auto* err = std::get_if<TranslationError>(&translated))
    throw InputError(Diagnostic{prog.file, {}, "no Halide program can be written: " + err->message});
  ReproducerOptions ro;
  ro.target = opt.target;
  ro.schedule_source = v.schedule_source;
  for (const HalideVersion& h : installed_halide_versions())
    if (!h.autoschedulers.empty()) ro.autoscheduler_dirs.emplace_back(h.major, h.autoschedulers);
  ro.memcheck = v.outcome == HalideOutcome::MemoryViolation || v.phase.rfind("memcheck_", 0) == 0;
  ro.header.push_back(fmt::format("halo's verdict: {} ({})", outcome_name(v.outcome), v.signature));
  if (!v.detail.empty()) ro.header.push_back(v.detail);
  if (!v.halide_target.empty()) ro.header.push_back("Halide target when found: " + v.halide_target);
  if (!v.autoscheduler.empty()) {
    ro.header.push_back(fmt::format("The schedule is Halide's autoscheduler {}'s ({}), {}.", v.autoscheduler,
                                    v.autoscheduler_params.empty() ? autoscheduler_params_text(v.autoscheduler)
                                                                   : v.autoscheduler_params,
                                    v.schedule_source.empty() ? "applied again in main() (it recorded no schedule)"
                                                              : "pasted in main() as it chose it"));
    if (!prog.replaced_schedule.empty()) ro.header.push_back(prog.replaced_schedule);
  }
  std::istringstream halo_src(print_program(prog));
  ro.header.push_back("The .halo program:");
  for (std::string line; std::getline(halo_src, line);) ro.header.push_back("  " + line);
  return emit_reproducer_cpp(std::get<HalidePlan>(translated), ref, ro);
}

nlohmann::json halide_verdict_to_json(const HalideVerdict& v) {
  nlohmann::json mism = nlohmann::json::array();
  for (const PointMismatch& m : v.first_mismatches) {
    nlohmann::json p = nlohmann::json::array();
    for (const Value& x : m.point) p.push_back(value_to_json(x));
    mism.push_back({{"point", p}, {"expected", value_to_json(m.expected)}, {"got", value_to_json(m.got)},
                    {"traced_run", m.in_memcheck_run}});
  }
  return {{"target", "halide"},
          {"halide_version", v.halide_version},
          {"outcome", outcome_name(v.outcome)},
          {"finding", v.finding()},
          {"violation", is_violation(v.outcome)},
          {"verdict", verdict_word(v.finding(), halide_ran(v.outcome))},
          {"phase", v.phase},
          {"message", v.message},
          {"detail", v.detail},
          {"signature", v.signature},
          {"halide_target", v.halide_target},
          {"mismatches", v.mismatches},
          {"first_mismatches", mism},
          {"memcheck",
           {{"loads", v.mem.loads},
            {"stores", v.mem.stores},
            {"realizations", v.mem.realizations},
            {"out_of_bounds", v.mem.out_of_bounds},
            {"out_of_bounds_examples", v.mem.out_of_bounds_examples},
            {"unjudged_vector_lanes", v.mem.unjudged_vector_lanes},
            {"uninitialized", v.mem.uninitialized},
            {"uninitialized_examples", v.mem.uninitialized_examples}}},
          {"heap_corruption", v.heap_corruption},
          {"notes", v.notes},
          {"autoscheduler", v.autoscheduler.empty() ? nlohmann::json(nullptr)
                                                    : nlohmann::json{{"name", v.autoscheduler},
                                                                     {"params", v.autoscheduler_params},
                                                                     {"schedule_source", v.schedule_source}}},
          {"output_tail", v.output_tail},
          {"compile_seconds", v.compile_seconds},
          {"compile_reused", v.compile_reused},
          {"run_seconds", v.run_seconds},
          {"seconds", v.seconds}};
}

std::string describe_halide_verdict(const HalideVerdict& v) {
  std::string s = fmt::format("Halide {}{}: {}\n  {}\n", v.halide_version,
                              v.halide_target.empty() ? "" : " (" + v.halide_target + ")", outcome_name(v.outcome),
                              v.detail);
  for (size_t i = 1; i < v.first_mismatches.size() && i < 10; ++i) {
    const PointMismatch& m = v.first_mismatches[i];
    s += fmt::format("  also {} = {}, expected {}\n", point_text(m.point), m.got.display(), m.expected.display());
  }
  for (const std::string& e : v.mem.out_of_bounds_examples) s += "  " + e + "\n";
  for (const std::string& n : v.notes) s += "  note: " + n + "\n";
  if (!v.autoscheduler.empty()) {
    // A finding shows the schedule that failed; a case that holds says only how long it is.
    size_t lines = size_t(std::count(v.schedule_source.begin(), v.schedule_source.end(), '\n'));
    s += fmt::format("  autoscheduler: {} ({})", v.autoscheduler,
                     v.autoscheduler_params.empty() ? autoscheduler_params_text(v.autoscheduler) : v.autoscheduler_params);
    if (v.schedule_source.empty()) s += ", no schedule chosen\n";
    else if (!v.finding()) s += fmt::format(", chose a schedule of {} line(s) (--json or --emit-cpp shows it)\n", lines);
    else {
      s += ", chose this schedule:\n";
      std::istringstream src(v.schedule_source);
      for (std::string line; std::getline(src, line);) s += "    " + line + "\n";
    }
  }
  if (v.finding()) s += "  signature: " + v.signature + "\n";
  if ((v.outcome == HalideOutcome::Crash || v.outcome == HalideOutcome::Hang) && !v.output_tail.empty())
    s += "  Halide's last output:\n" + v.output_tail + "\n";
  s += fmt::format("  verdict: {}\n", v.finding() || halide_ran(v.outcome)
                                           ? verdict_word(v.finding(), true)
                                           : "not run: Halide did not run the case, it is not checked (" +
                                                 std::string(outcome_name(v.outcome)) + ")");
  return s;
}

}  // namespace halo::halide
