// A long-lived isolated child process that serves many requests: the fast path of every
// candidate whose compiler is slow to start (a Halide worker per Halide version, the
// Python worker that keeps TVM imported). The child is a worker executable,
// started with fork and exec; requests go down its stdin, reports come back on its fd 3,
// and its stdout and stderr are kept per request. A process forked per case (isolate.hpp) costs about as much as a tenth of
// a small pipeline's JIT compile (fork, copy-on-write faults, tearing down the address
// space), so a campaign sends its cases to one worker that stays warm; each request still
// has its own time limit (the worker is killed and the request reported as timed out) and
// its own memory limit (the worker's soft RLIMIT_AS, raised or lowered before each
// request). A crash or hang ends the worker; the next request starts a new one.
//
// The worker is a candidate like any other (support/child_processes.hpp): its own process
// group, the HALO_CANDIDATE marker, a PID namespace where the system allows it, and a
// ChildGuard for as long as it lives, so that halo's signal handlers, its --timeout and
// even a SIGKILL of halo leave no worker compiling on. What it prints is kept through
// support/candidate_output.hpp.
//
// What the worker cannot give that a fresh process does: independence between requests. A
// request that corrupts memory without crashing could affect a later one, which is why
// halide_oracle.cpp recycles the worker after any crash, hang or memory finding and
// confirms those findings in a fresh process (docs/halide.md).
#pragma once

#include "support/isolate.hpp"

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace halo {

class ChildGuard;

// The worker's file descriptors, as the executable sees them.
constexpr int kWorkerRequestFd = 0, kWorkerReportFd = 3;

// In the worker executable: `init` runs once; then `handler` serves each request from
// `request_fd`, writing its report to `report_fd`, under the request's time and memory
// limits; returns (to exit) when the requests end.
using WorkerHandler = std::function<void(const std::string& request, int report_fd)>;
void serve_requests(int request_fd, int report_fd, const std::function<void()>& init, const WorkerHandler& handler);

class Worker {
 public:
  // Starts `executable` with `args` (throws std::runtime_error when it cannot); `what`
  // names it in messages ("the Halide worker"). `env` entries (NAME=VALUE) are added to
  // the worker's environment.
  Worker(const std::string& executable, const std::vector<std::string>& args, std::string what = "the Halide worker",
         std::vector<std::string> env = {});
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Reaps a worker that ended between requests (e.g. killed from outside) without waiting.
  bool alive();
  uint64_t requests() const { return requests_; }

  // Serves one request. `report` holds what the handler wrote; `end` is Exited when it
  // completed, Signaled or TimedOut when the worker died or was killed (it is then gone).
  // An empty request runs no handler: it returns once the worker has finished `init`.
  IsolatedRun call(const std::string& request, double timeout_seconds, uint64_t max_memory_bytes);

  // One request under the earlier of the candidate's own limit (`seconds`, 0: none) and the
  // command's deadline (--timeout, or a campaign case's), so that the command's limit bounds
  // the candidate too. When the command's deadline fires, or a campaign is interrupted, the
  // worker is stopped and ResourceLimit thrown (exit 3); when the candidate's limit fires,
  // the run is the candidate's hang.
  IsolatedRun call_within_deadline(const std::string& request, double seconds, uint64_t max_memory_bytes);

  // Ends the worker (EOF on its request pipe, then SIGKILL if it does not exit).
  void stop();

 private:
  pid_t pid_ = -1;
  int request_fd_ = -1, report_fd_ = -1, output_fd_ = -1;
  uint64_t requests_ = 0;
  std::string what_;
  std::unique_ptr<ChildGuard> guard_;  // registered for the signal handlers while it runs
  void close_fds();
  void forget();  // the worker has been reaped: kill what it left, close the pipes
};

}  // namespace halo
