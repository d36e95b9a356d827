// Running untrusted work — a production compiler JIT-compiling and running a pipeline — in
// a forked child process with a time limit and a memory limit, so that its crash, hang or
// runaway allocation is an observation, never the end of halo.
//
// The child runs `body(fd)`, which reports through `fd` (a pipe); its stdout and stderr go
// to a second pipe, whose last bytes are kept for the report. The parent kills the child
// (SIGKILL) at the deadline; the child also arms alarm() as a backstop. The memory limit is
// RLIMIT_AS on top of the address space the child starts with; under AddressSanitizer,
// whose shadow memory reserves terabytes of address space, no limit is set (docs/halide.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace halo {

struct IsolatedRun {
  enum class End : uint8_t { Exited, Signaled, TimedOut, CouldNotStart };
  End end = End::Exited;
  int exit_code = 0;
  int signal = 0;
  std::string report;       // what the child wrote on its report pipe
  std::string output_tail;  // the last bytes of its stdout and stderr
  double seconds = 0;
  std::string error;        // CouldNotStart: why
};

// `body` must not return into the caller's stack in the child: its return value is the
// child's exit status (_exit, no atexit handlers, no flushing of the parent's buffers).
IsolatedRun run_isolated(const std::function<int(int report_fd)>& body, double timeout_seconds,
                         uint64_t max_memory_bytes);

// The address space this process uses now (VmSize), in bytes; 0 when unknown.
uint64_t current_address_space();
// Built with AddressSanitizer (whose shadow memory rules out an address-space limit)?
bool address_sanitizer_active();
// In a child about to run candidate code: crash signals get their default action again, so
// a crash ends the child with its own signal (SIGSEGV, not a sanitizer's abort) whatever
// handlers halo's build installed; the finding's signature then does not depend on it.
void default_crash_signals();

// Writes all of `data` to `fd` (retrying short writes); false on error.
bool write_all(int fd, const std::string& data);

// "SIGSEGV (segmentation fault)" and the like.
std::string signal_description(int sig);

}  // namespace halo
