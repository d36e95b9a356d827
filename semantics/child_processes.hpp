// Candidates never outlive halo. An external bounds engine, a compiled kernel and the C
// compiler run as child processes in process groups of their own; this module keeps track
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
// Everything the signal handler calls is async-signal-safe (raw system calls only).
// Lives in semantics/ (the lowest layer) because bounds/ and oracle/ both start children.
#pragma once

#include <string>
#include <sys/types.h>

namespace halo {

// Installs the SIGINT/SIGTERM/SIGHUP handlers (once; later calls do nothing). A handler
// installed afterwards for SIGINT (a campaign's graceful stop) takes precedence and should
// call kill_all_candidates() before ending halo.
void install_candidate_cleanup();

// The environment entry ("HALO_CANDIDATE=...") to give the next child, unique per child.
std::string new_candidate_marker();

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

// Kills every process whose environment carries `marker` (async-signal-safe).
void kill_marked_processes(const char* marker);

// Kills every registered group and marked process (async-signal-safe).
void kill_all_candidates();

// A temporary directory (holding files only) that a signal handler removes; unregister
// before removing it normally. Returns a slot, or -1 if the table is full.
int register_temp_dir(const std::string& path);
void unregister_temp_dir(int slot);

}  // namespace halo
