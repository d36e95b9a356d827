// Candidates never outlive halo. An external bounds engine, a compiled kernel, the C
// compiler, an Exo script and the Halide worker (support/worker_process.hpp) run as child
// processes in process groups of their own; this module keeps track
// of them so that nothing they started keeps running after the call that started them, or
// after halo itself is stopped by SIGINT, SIGTERM or SIGHUP:
//
// - each child's group is registered while it runs (ChildGuard) and killed when the call
//   ends, on success and failure alike;
// - each child gets a unique marker in its environment (HALO_CANDIDATE=<halo pid>-<n>),
//   inherited by everything it starts, so that descendants that left the group (setsid(),
//   double fork) are still found, in /proc, and killed;
// - the signal handlers kill every registered group and every marked process, remove the
//   registered temporary directories, and then let the signal end halo as it would have.
//
// Where the system allows it, a candidate also runs in a PID namespace of its own
// (enter_candidate_pid_namespace): when the candidate ends or is killed, the namespace ends
// and the kernel kills everything else in it, including descendants that cleared their
// environment and left the group, and even if halo itself is killed with SIGKILL. Where
// namespaces are unavailable (no privilege, no user namespaces) the marker is the net.
//
// Everything the signal handler calls is async-signal-safe (raw system calls only).
// Lives in semantics/ (the lowest layer) because bounds/ and oracle/ both start children.
#pragma once

#include <signal.h>
#include <cstdint>
#include <string>
#include <vector>
#include <sys/types.h>

namespace halo {

// Installs the SIGINT/SIGTERM/SIGHUP handlers (once; later calls do nothing). A handler
// installed afterwards for SIGINT (a campaign's graceful stop) takes precedence and should
// call kill_all_candidates() before ending halo.
void install_candidate_cleanup();

// The environment entry ("HALO_CANDIDATE=...") to give the next child, unique per child.
std::string new_candidate_marker();

// The environment of a candidate about to be forked: halo's own with `marker` in place of
// any marker halo inherited. Built before fork (after it, only async-signal-safe calls);
// null-terminated, pointing into environ and into `marker`, which must outlive the exec.
std::vector<char*> candidate_environment(std::string& marker);

// Registers a running child's process group (pgid == pid) and its marker; the destructor
// kills the group and every process that still carries the marker, then unregisters.
class ChildGuard {
 public:
  ChildGuard(pid_t pgid, const std::string& marker);
  ~ChildGuard();
  ChildGuard(const ChildGuard&) = delete;
  ChildGuard& operator=(const ChildGuard&) = delete;

 private:
  int slot_ = -1;
  pid_t pgid_;
  std::string marker_;
};

// Called in a freshly forked child just before it executes the candidate (async-signal-safe).
// Tries to move what follows into a new PID namespace: the child unshares one (with a new
// user namespace mapping its own ids when it lacks the privilege) and becomes a relay that
// waits and then ends as the candidate ended (same exit status, same signal); in the
// namespace, a small first process forks the candidate and reaps until it ends. Neither
// holds the candidate's descriptors, and both die with their parent (PR_SET_PDEATHSIG).
// Returns in the process that must execute the candidate, or in the child itself if no
// namespace could be made or halo's environment holds HALO_PID_NAMESPACE=0.
void enter_candidate_pid_namespace();

// Kills every process whose environment carries `marker` (async-signal-safe).
void kill_marked_processes(const char* marker);

// Kills every registered group and marked process (async-signal-safe).
void kill_all_candidates();

// A campaign's first Ctrl-C stops it after the case in progress (tools/campaign_cli.cpp);
// that case's wait on a candidate that takes long (the Halide worker compiling) must not
// keep the user waiting for its whole time limit: with this set, such waits end at once,
// as interrupted. set_candidate_waits_interrupted is async-signal-safe.
void set_candidate_waits_interrupted(bool interrupted);
// The same at a time given in advance: a campaign's --time bounds the whole campaign, the
// case in progress included. `monotonic_ns` is CLOCK_MONOTONIC in nanoseconds (0: none).
void set_candidate_waits_deadline(int64_t monotonic_ns);
int64_t monotonic_now_ns();
// Interrupted, or the deadline has passed.
bool candidate_waits_interrupted();

// What the signal handlers do before halo ends: kills every candidate and removes the
// registered temporary directories; a directory made afterwards never is (TempDirChange).
// Async-signal-safe; for halo's own ending from any thread.
void end_candidates_now();

// A temporary directory (holding files only) that a signal handler removes; unregister
// after removing it normally. Returns a slot, or -1 if the table is full.
int register_temp_dir(const std::string& path);
void unregister_temp_dir(int slot);

// Creating and registering a temporary directory, or removing and unregistering it, as one
// step for the signal handler. The handler usually runs on another thread than the work
// (halo's main thread waits while a command runs on the big stack, support/big_stack.hpp),
// so without this a signal could come between mkdtemp and register_temp_dir, or the handler
// could skip a directory just unregistered and end halo before its removal finished: the
// folder stayed. While a TempDirChange lives, this thread blocks SIGINT/SIGTERM/SIGHUP and
// a handler on another thread waits for it to end; one begun after the handler started
// never returns (halo is about to end).
class TempDirChange {
 public:
  TempDirChange();
  ~TempDirChange();
  TempDirChange(const TempDirChange&) = delete;
  TempDirChange& operator=(const TempDirChange&) = delete;

 private:
  sigset_t saved_;
};

}  // namespace halo
