// The command-line side of the candidates (candidates/registry.hpp; docs/halide.md):
// `halo oracle FILE --target NAME` (cli.cpp owns the `oracle` subcommand; these are the
// flags it adds and the action it runs for a candidate) and `halo fuzz --target NAME`
// (tools/cmd_fuzz.cpp owns `fuzz`; these are its candidate flags and setup). The flags
// named --halide-* are Halide's and need --target halide.
#pragma once

#include "interp/input.hpp"
#include "tools/campaign_cli.hpp"

#include <CLI/CLI.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace halo::cli {

struct HalideOracleFlags {
  std::string target = "self";        // self: halo's own pipeline (β0, small-step); halide[@M|@all]: Halide
  std::string halide_target = "host";
  bool no_memcheck = false;
  double halide_timeout = 60;
  std::string emit_cpp;               // write the reproducer here ("-": stdout)
  std::string autoscheduler;          // replace the file's schedule with this autoscheduler of Halide's
  std::string float_mode = "strict";  // how float outputs are judged (docs/floats.md)
};

void add_halide_oracle_flags(CLI::App* oracle, HalideOracleFlags& f);

// The expr generator's `--weight float=PERCENT` (fuzz/expr_gen.hpp): 0 when not given;
// any other weight name is an InputError.
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
// The --target check of `oracle` and `fuzz`: self, or a registered candidate (NAME,
// NAME@V, NAME@all).
CLI::Validator self_or_candidate(const std::string& self_text);

// The program text in `path`: a .halo file's, or an .hlpipe imported (tools/cmd_import.cpp)
// with this realization (--param, --window, --input); and that text parsed (not validated).
std::string read_program_source(const std::string& path, const InputOverrides& over);
Program parse_program_file(const std::string& path, const InputOverrides& over);

int run_candidate_oracle(const HalideOracleFlags& f, const std::string& file, const InputOverrides& over, bool json,
                         const Limits& limits, std::ostream& out, std::ostream& err);

}  // namespace halo::cli
