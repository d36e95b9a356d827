// The command-line side of the candidates (candidates/registry.hpp; docs/halide.md):
// `halo oracle FILE --target NAME` (cli.cpp owns the `oracle` subcommand; these are the
// flags it adds and the action it runs for a candidate). `halo fuzz --target NAME` is
// tools/cmd_candidate_fuzz.hpp. The flags named --halide-* are Halide's and need
// --target halide.
#pragma once

#include "interp/input.hpp"
#include "oracle/candidate.hpp"

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

// The Halide flags mean nothing for another target; a mistyped Halide target string is a
// usage error. Shared by the oracle's flags and the fuzzer's (tools/cmd_candidate_fuzz.cpp).
void check_halide_flags(CLI::App* cmd, const std::string& target, const std::string& halide_target,
                        std::vector<const char*> flags);
CandidateOptions candidate_options(const std::string& platform, bool no_memcheck, double timeout,
                                   const std::string& float_mode);

// The expr generator's `--weight float=PERCENT` (fuzz/expr_gen.hpp): 0 when not given;
// any other weight name is an InputError.
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
