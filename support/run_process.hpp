// Running a command in a child process under limits: CPU time and address space
// (setrlimit), written file size, no core dumps, and a wall-clock deadline after which the
// child's whole process group is killed. A compiled kernel, the C compiler or a
// candidate's Python that crashes or hangs is thereby a result to classify
// (candidates/kernel/kernel.cpp, candidates/exo/), never a crash or hang of halo.
#pragma once

#include "support/command_budget.hpp"  // command_seconds_left: a child ends with the command

#include <cstdint>
#include <string>
#include <vector>

namespace halo {

struct ProcessLimits {
  double wall_seconds = 60;
  uint64_t cpu_seconds = 0;          // 0: wall_seconds rounded up, plus one
  uint64_t address_space_bytes = 0;  // 0: no limit (AddressSanitizer reserves terabytes of it)
  uint64_t file_bytes = 0;           // 0: no limit
};

struct ProcessResult {
  bool started = false;
  std::string error;        // why it could not be started
  bool exited = false;      // exited normally with exit_code
  int exit_code = 0;
  int signal = 0;           // killed by this signal (0 if it exited)
  bool timed_out = false;   // killed at the wall-clock deadline
  double seconds = 0;
  std::string output;       // stdout and stderr interleaved: half of `max_output` from the start, the
                            // last lines, and a note of what was left out (support/candidate_output.hpp)
};

// Runs argv[0] (a path) with the given extra environment entries ("NAME=VALUE", replacing
// inherited ones) in directory `cwd`.
ProcessResult run_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                          const std::string& cwd, const ProcessLimits& limits, size_t max_output = 1 << 20);

// "killed by SIGSEGV (segmentation fault)" and the like.
std::string describe_signal(int sig);

// A program given as a command line in an environment variable ($CC, "ccache gcc", "gcc
// -O0"): split on whitespace as build tools split it, the first word the program, the rest
// arguments that come before halo's own. No quoting, as make and CMake read $CC.
std::vector<std::string> command_words(const std::string& command_line);

// A program named without a slash, looked up in PATH as a shell would; a name with a slash
// as it is. Empty when no executable file of that name exists.
std::string find_program(const std::string& name);

// A fresh temporary directory named PREFIX-XXXXXX in $TMPDIR (else /tmp), removed with
// everything in it unless kept. A folder that cannot be made there is the user's
// environment, not halo's failure: InputError (exit 2) naming the folder and the system's
// reason.
struct WorkDir {
  std::string path;
  bool keep = false;
  int signal_slot = -1;  // registered so that SIGINT/SIGTERM remove it too (support/child_processes.hpp)
  explicit WorkDir(const std::string& prefix = "halo-kernel");
  ~WorkDir();
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;
  std::string file(const std::string& name) const;
};

}  // namespace halo
