// An input z (Def. 2.1): parameter values and the output window R(z), taken from the
// realize section and overridden from the command line; and the buffer an evaluator
// returns on R(z). Both evaluators, and later the target machine, share these.
#pragma once

#include "interp/input_buffers.hpp"
#include "semantics/ast.hpp"
#include "semantics/tgt.hpp"

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace halo {

struct Input {
  std::vector<Value> params;         // in the pipeline's parameter order
  std::vector<Interval> window;      // one (min, len) per output dimension
  std::vector<InputBuffer> buffers;  // one per input buffer, in declaration order
  const InputBuffer* buffer(const std::string& name) const;
  // The parameters by name, then every buffer's geometry (img.min.0, ...): what a startup
  // expression may read.
  std::vector<std::pair<std::string, Value>> startup_bindings(const std::vector<std::string>& param_names) const;
};

struct InputOverrides {
  std::vector<std::string> params;   // "NAME=VALUE"
  std::vector<std::string> windows;  // "MIN,LEN", one per output dimension
  std::vector<std::string> inputs;   // "NAME=FILE" or "NAME=seeded:SEED:MIN,LEN..." (input_buffers.hpp)
};

// Throws InputError when a parameter is missing, unknown or malformed, or when the
// window has the wrong number of dimensions or a negative length.
Input resolve_input(const Program& prog, const InputOverrides& over);
// The same for any program with these parameters, output dimensions and realize section
// (target programs take their input the same way as algorithms).
Input resolve_input(const std::string& file, const std::string& output, const std::vector<std::string>& params,
                    size_t dims, const std::optional<Realization>& realize, const InputOverrides& over,
                    const std::vector<TgtInput>& inputs = {});


// Values on R(z), row-major with the first dimension fastest (as Halide stores them).
struct OutputBuffer {
  std::string func;
  std::vector<Interval> window;
  std::vector<Value> values;
};

// Resource limits: a runaway evaluation stops with ResourceLimit, never hangs.
struct Limits {
  uint64_t max_steps = 4'000'000'000ull;          // rule applications / loop iterations
  uint64_t max_memory_bytes = 4ull << 30;          // memo tables, buffers
  double max_seconds = 0;                          // 0: no time limit
};

// Counts steps and checks the clock every so often; throws ResourceLimit with a message
// naming the exceeded limit and the flag that raises it.
class Budget {
 public:
  explicit Budget(const Limits& l);
  void step(uint64_t n = 1) {
    steps_ += n;
    // The clock (and the command's budget) every 1024 steps: a step may be a big-integer
    // operation of a millisecond, and --timeout must hold within a fraction of a second.
    if (steps_ > limits_.max_steps || (steps_ & 0x3ff) < n) check_slow();
  }
  void charge_memory(uint64_t bytes);
  uint64_t steps() const { return steps_; }

 private:
  void check_slow();
  Limits limits_;
  uint64_t steps_ = 0;
  uint64_t memory_ = 0;
  std::chrono::steady_clock::time_point start_;
};

// Number of points in the window; throws ResourceLimit when it cannot be held in memory.
uint64_t window_volume(const std::vector<Interval>& w, const Limits& l);
// The i-th point of the window in row-major order, first dimension fastest.
std::vector<Value> window_point(const std::vector<Interval>& w, uint64_t i);

// z bound to a target program's pipeline variables, as [REALIZE] (fig. 2.8) binds them:
// the parameters p̄, then x_min and x_len of each output dimension. Passes that evaluate
// a program with holes outside the machine (the dynamic query check, the brute-force
// completion, the report's hole values) start from these bindings.
std::vector<std::pair<std::string, Value>> realize_bindings(const TgtProgram& t, const Input& in);

}  // namespace halo
