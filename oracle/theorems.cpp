// The theorem checks of one case: see theorems.hpp.
#include "oracle/theorems.hpp"

#include "bounds/simplify.hpp"
#include "interp/fast_eval.hpp"

#include <fmt/format.h>

namespace halo {

namespace {
std::string point_text(const std::vector<Value>& pt) {
  std::vector<std::string> s;
  for (const auto& v : pt) s.push_back(v.to_string());
  return fmt::format("({})", fmt::join(s, ", "));
}
}  // namespace

bool has_negative_rdom_extent(const Program& prog, const Input& in) {
  Substitution params;
  for (size_t i = 0; i < prog.pipeline.params.size() && i < in.params.size(); ++i)
    params.bindings.emplace_back(prog.pipeline.params[i].text, in.params[i]);
  for (const auto& f : prog.pipeline.funcs)
    for (const auto& u : f.updates)
      for (const auto& r : u.rdom) {
        auto len = const_value(simplify(substitute(r.len, params)));
        if (len && len->is_int() && len->sign() < 0) return true;
      }
  return false;
}

namespace {
// Theorems 2.1 and 2.2 for a run already made (v.reference and v.run are set).
void judge_run(const Program& prog, const Input& in, OracleVerdict& v) {
  const RunResult& r = v.run;
  // An rdom failure is the target-level form of ε_rdom (Def. 2.12). When P itself has a
  // negative rdom extent under z, Halide stops at its startup check; the stuck run is then
  // a failed check, not a wrong output (docs/semantics-decisions.md, item 13).
  v.assertion_failed = r.status == RunStatus::AssertionFailure ||
                       (r.status == RunStatus::RdomFailure && has_negative_rdom_extent(prog, in));
  v.memory_safe = r.status != RunStatus::MemoryError;

  if (!v.memory_safe) {
    v.confluent = v.reference_has_error;
    v.detail = "Theorem 2.1 violated: " + r.message;
    return;
  }
  if (v.reference_has_error) {
    v.detail = "the reference P(z) has an error value in R(z): Def. 2.3 holds whatever P'(z) does";
    return;
  }
  if (v.assertion_failed) {
    v.detail = r.status == RunStatus::AssertionFailure
                   ? "P'(z) failed an assertion (allowed by Def. 2.3): " + r.message
                   : "P'(z) stopped on a negative rdom extent, which P has under z (the startup check, "
                     "allowed by Def. 2.3): " + r.message;
    return;
  }
  if (r.status != RunStatus::Ok) {
    // An rdom failure or an error value in a control position, while the reference is
    // error-free on R(z): the completed program does not compute what P defines.
    v.confluent = false;
    v.detail = fmt::format("Theorem 2.2 violated: P'(z) got stuck ({}) although P(z) has no error value in "
                           "R(z): {}",
                           run_status_name(r.status), r.message);
    return;
  }
  for (size_t i = 0; i < v.reference.values.size(); ++i) {
    if (r.output.values[i] == v.reference.values[i]) continue;
    v.confluent = false;
    v.detail = fmt::format("Theorem 2.2 violated: at {} the completed program computes {} but the algorithm "
                           "defines {}",
                           point_text(window_point(v.reference.window, i)), r.output.values[i].display(),
                           v.reference.values[i].display());
    return;
  }
  v.detail = fmt::format("P'(z) = P(z) on all {} points of R(z)", v.reference.values.size());
}
}  // namespace

OracleVerdict check_theorems(const Program& prog, const TgtProgram& completed, const Input& in, const Limits& lim) {
  OracleVerdict v;
  v.reference = evaluate_fast(prog.pipeline, in, lim);
  for (const auto& x : v.reference.values) v.reference_has_error |= x.is_error();
  v.run = run_tgt(completed, in, lim);
  judge_run(prog, in, v);
  // A race is judged apart from the two theorems (fig. 2.8 runs parallel loops serially),
  // and it is a finding even when the serial run is correct.
  if (v.run.race) {
    v.race_free = false;
    v.detail = v.run.race->message + (v.holds_serially() ? "" : "; and " + v.detail);
  }
  return v;
}

nlohmann::json verdict_to_json(const OracleVerdict& v) {
  return {{"memory_safe", v.memory_safe},
          {"assertion_failed", v.assertion_failed},
          {"reference_has_error", v.reference_has_error},
          {"confluent", v.confluent},
          {"race_free", v.race_free},
          {"verdict", v.holds() ? "holds" : "violated"},
          {"detail", v.detail},
          {"status", run_status_name(v.run.status)},
          {"steps", v.run.steps}};
}

}  // namespace halo
