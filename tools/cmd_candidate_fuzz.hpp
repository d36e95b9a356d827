// The command-line side of fuzzing a candidate: `halo fuzz --target NAME` (tools/cmd_fuzz.cpp
// owns `fuzz`; these are its candidate flags and the campaign setup). Apart from
// tools/cmd_halide.hpp, the oracle's side, because only this needs fuzz/.
#pragma once

#include "tools/campaign_cli.hpp"
#include "tools/cmd_halide.hpp"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace halo::cli {

// The expr generator's float=PERCENT weight (--generator expr), checked.
int expr_float_percent(const std::vector<std::string>& weights);

// `halo fuzz --target halide`: its flags, and what it changes in the campaign (the check,
// the replay command, the reproducers and the triage written after the campaign).
struct HalideFuzzFlags {
  std::string halide_target = "host";
  bool no_memcheck = false;
  // Shorter than the oracle's 60 s: a generated case compiles and runs in well under a
  // second, and a case that hangs costs a campaign this long twice (the fresh process that
  // confirms it) and once more per installed version when the finding is completed.
  double halide_timeout = 10;
  bool triage = false;
  std::string float_mode = "strict";  // how float outputs are judged (docs/floats.md)
  // The case generator (fuzz/halide_gen.hpp): "halide" (programs as Halide users write
  // them, schedules where Halide's bugs live) or "semantics" (the generator of --target self).
  std::string generator = "halide";
  bool generator_given = false;  // --generator written (else --target tvm draws with its own)
  std::vector<std::string> weights;  // --weight NAME=PERCENT
};
// `target` is the fuzz command's --target (the Halide flags require it to be halide).
void add_halide_fuzz_flags(CLI::App* fuzz, const std::string& target, HalideFuzzFlags& f);
// `target` is halide or halide@M (a campaign runs against one version); `findings_dir` is
// where the campaign writes its findings ("": nowhere), triaged with --triage together
// with the findings other campaigns left there.
void use_candidate_target(const std::string& target, const HalideFuzzFlags& f, const std::string& findings_dir,
                          CampaignCommand& c);

}  // namespace halo::cli
