// The kernel generator of `halo fuzz --target exo` (docs/kernels.md, "Fuzzing Exo"): a
// family of kernels that halo can specify in .halo — matmul with optional bias, scale and
// ReLU; 1-D and 2-D convolution; element-wise maps; row reductions — each produced twice
// from one description: as an Exo procedure (a Python script for the Exo candidate,
// candidates/exo/exo_kernel.hpp) and as its .halo spec. A random sequence of Exo's own
// scheduling operators (loop division with each tail strategy, reordering, staging into a
// buffer, unrolling, lifting allocations, fission, simplification, and replacing loops with
// AVX-512 or Gemmini instructions from Exo's platform libraries) is applied to the
// procedure. The script applies each step leniently: a step Exo rejects leaves the
// procedure unchanged (a rejection is not a finding), so a case always reaches C.
#pragma once

#include "fuzz/exo_program.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace halo::fuzz {

// GemminiMatmul is written with Gemmini's instructions; GemminiReplace is a plain int8
// matmul that the schedule itself turns into them (stage_mem into GEMM_SCRATCH and
// GEMM_ACCUM, replace with ld_i8, zero_acc_i32, matmul_acc_i8, st_acc_i32).
// Program is the random loop-nest family (exo_program.hpp) whose schedule is drawn from
// every primitive of Exo's scheduling language (fuzz/exo_steps.py).
enum class ExoFamily { Matmul, Conv1d, Conv2d, Map, RowSum, GemminiMatmul, GemminiReplace, Program };
const char* exo_family_name(ExoFamily f);

// What the generator draws, each a relative weight (0 switches it off): the families by
// name ("program", "matmul", ...) and the primitives of the program family's schedules by
// Exo's names ("divide_loop", "stage_mem", ...). `--weight NAME=W` sets one (0..100).
struct ExoGenWeights {
  std::map<std::string, int> weight;
  ExoGenWeights();
  void set(const std::string& assignment);
  nlohmann::json to_json() const;
};
// The primitives fuzz/exo_steps.py draws, and those it does not with the reason (the two
// lists together are every primitive exo.API_scheduling exports; tests/test_exo.cpp checks).
const std::vector<std::string>& exo_drawn_primitives();
const std::map<std::string, std::string>& exo_undrawn_primitives();

struct ExoKernelCase {
  ExoFamily family = ExoFamily::Map;
  std::string elem = "f32";  // "f32" or "i32" ("i8" inputs with i32 output for GemminiMatmul)
  bool bias = false, scale = false, relu = false;  // matmul's epilogue; relu also for maps
  std::vector<std::pair<std::string, int64_t>> sizes;  // the free sizes (derived ones follow from them)
  std::vector<std::string> steps;                       // each a Python expression of `p`
  uint64_t seed = 0;                                     // what generated it (for the file names)
  ExoProgram program;                                    // Program: the loop nests
  std::vector<std::pair<std::string, uint64_t>> draws;   // Program: each primitive and its seed
};

ExoKernelCase generate_exo_case(std::mt19937_64& rng, uint64_t seed, const ExoGenWeights& weights = {});

// One line fuzz/exo_steps.py prints per draw, `halo-step STATUS: PRIMITIVE | CALL | REASON`:
// status applied, rejected, skipped or crashed; the literal call (two lines where the
// script wrote " ;; "); for a crash, the reason starts "TYPE at exo/FILE:LINE: ".
struct ExoStepLine {
  std::string status, primitive, call, reason;
};
// Every such line of what a case's script printed, in order.
std::vector<ExoStepLine> exo_step_log(const std::string& log);

// Where generated scripts find fuzz/exo_steps.py (set at build time; $HALO_EXO_STEPS overrides).
std::string exo_steps_dir();

// The Exo script: the algorithm as an @proc `kernel`, the schedule, and the scheduled
// procedure bound to the module-level name `scheduled`. With `lenient`, each step Exo
// rejects is skipped (and reported on stdout); without, a rejection fails the script.
std::string exo_case_script(const ExoKernelCase& c);
// The script's imports, definitions and unscheduled procedure `kernel` (what a
// reproducer shares with the case).
std::string exo_script_prelude(const ExoKernelCase& c);
// The .halo spec: one func per tensor argument, named as the argument; realize with the sizes.
std::string exo_case_spec(const ExoKernelCase& c);
// The tensor arguments that are read and written, with the func they start as (--init).
std::vector<std::pair<std::string, std::string>> exo_case_inits(const ExoKernelCase& c);

// Smaller variants, most promising first: each step dropped, each size halved or reduced by one.
std::vector<ExoKernelCase> exo_case_shrinks(const ExoKernelCase& c);

}  // namespace halo::fuzz
