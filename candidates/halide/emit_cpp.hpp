// Back end (b) of the Halide translation: the plan printed as a standalone Halide C++
// program — the reproducer of a finding, ready for an upstream bug report. It builds the
// same pipeline as jit.cpp (one line per HlCall, each schedule call under a comment naming
// the halo directive it comes from), realizes it on R(z) for the same target, and prints
// every point where Halide's value differs from halo's reference next to the expected one.
// Exit status: 0 when the outputs agree (and, with memcheck, every access was inside its
// realization), 1 when they do not, 2 when Halide reported an error.
#pragma once

#include "interp/input.hpp"
#include "candidates/halide/plan.hpp"

#include <string>
#include <vector>

namespace halo::halide {

struct ReproducerOptions {
  std::string target = "host";  // "host": get_jit_target_from_environment(), as the oracle ran it
  bool memcheck = false;        // include the tracing check of every load and store
  std::vector<std::string> header;  // comment lines at the top: what was found, and where
  // A plan with an autoscheduler: the schedule it chose in the run that was judged, pasted
  // as it is (the robust way: the reproducer runs that very schedule); when empty (the
  // autoscheduler failed, or the case was not run), the reproducer applies the autoscheduler
  // itself, loading its plugin from the directory of the Halide it is compiled against
  // (major version -> directory; 14 is the Halide without HALIDE_VERSION_MAJOR).
  std::string schedule_source;
  std::vector<std::pair<int, std::string>> autoscheduler_dirs;
};

std::string emit_reproducer_cpp(const HalidePlan& plan, const OutputBuffer& expected, const ReproducerOptions& opt);

}  // namespace halo::halide
