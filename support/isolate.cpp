// The isolated child process of isolate.hpp.
#include "support/isolate.hpp"
#include "support/candidate_output.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace halo {

namespace {

constexpr size_t kOutputHeadBytes = 4096, kOutputTailBytes = 4096;
constexpr int kOutputTailLines = 40;
constexpr size_t kMaxReportBytes = 256u << 20;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif


// In the child: `address_space_limit` was computed by the parent (0: none).
void limit_child(double timeout_seconds, uint64_t address_space_limit) {
  if (address_space_limit > 0) {
    rlimit rl{rlim_t(address_space_limit), rlim_t(address_space_limit)};
    setrlimit(RLIMIT_AS, &rl);
  }
  rlimit core{0, 0};
  setrlimit(RLIMIT_CORE, &core);  // a crash of the compiler under test needs no core file
  if (timeout_seconds > 0) alarm(unsigned(std::ceil(timeout_seconds)) + 2);
}

}  // namespace

bool address_sanitizer_active() { return kAddressSanitizer; }

void default_crash_signals() {
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) signal(sig, SIG_DFL);
}

uint64_t current_address_space() {
  // Plain system calls: iostreams in a freshly forked child cost milliseconds.
  int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[64] = {};
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  return std::strtoull(buf, nullptr, 10) * uint64_t(sysconf(_SC_PAGESIZE));
}

bool write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t w = write(fd, data.data() + done, data.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    done += size_t(w);
  }
  return true;
}

std::string signal_description(int sig) {
#ifdef HALO_BROWSER
  const char* name = nullptr;  // Emscripten's libc has no sigabbrev_np, and a page no signals
#else
  const char* name = sigabbrev_np(sig);
#endif
  const char* what = strsignal(sig);
  return fmt::format("SIG{} ({})", name ? name : std::to_string(sig).c_str(), what ? what : "unknown signal");
}

IsolatedRun run_isolated(const std::function<int(int report_fd)>& body, double timeout_seconds,
                         uint64_t max_memory_bytes) {
  IsolatedRun r;
  int report_pipe[2], out_pipe[2];
  if (pipe2(report_pipe, O_CLOEXEC) != 0) {
    r.end = IsolatedRun::End::CouldNotStart;
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    close(report_pipe[0]);
    close(report_pipe[1]);
    r.end = IsolatedRun::End::CouldNotStart;
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  auto start = std::chrono::steady_clock::now();
  uint64_t address_space_limit =
      !kAddressSanitizer && max_memory_bytes > 0 ? current_address_space() + max_memory_bytes : 0;
  std::fflush(nullptr);  // nothing buffered by the parent is written twice
  pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {report_pipe[0], report_pipe[1], out_pipe[0], out_pipe[1]}) close(fd);
    r.end = IsolatedRun::End::CouldNotStart;
    r.error = std::string("fork: ") + std::strerror(errno);
    return r;
  }
  if (pid == 0) {
    close(report_pipe[0]);
    close(out_pipe[0]);
    dup2(out_pipe[1], 1);
    dup2(out_pipe[1], 2);
    close(out_pipe[1]);
    signal(SIGPIPE, SIG_IGN);
    default_crash_signals();
    limit_child(timeout_seconds, address_space_limit);
    int code = 120;
    try {
      code = body(report_pipe[1]);
    } catch (const std::bad_alloc&) {
      write_all(report_pipe[1], "\nOUT_OF_MEMORY\n");
      code = 121;
    } catch (const std::exception& e) {
      write_all(report_pipe[1], std::string("\nEXCEPTION ") + e.what() + "\n");
      code = 122;
    } catch (...) {
      code = 123;
    }
    close(report_pipe[1]);
    _exit(code);
  }
  close(report_pipe[1]);
  close(out_pipe[1]);
  auto deadline = start + std::chrono::duration<double>(timeout_seconds > 0 ? timeout_seconds : 1e9);
  bool report_open = true, out_open = true;
  CappedOutput output("the child's output", kOutputHeadBytes, kOutputTailBytes, kOutputTailLines);
  char buf[65536];
  while (report_open || out_open) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.end = IsolatedRun::End::TimedOut;
      break;
    }
    pollfd fds[2];
    int n = 0;
    int report_slot = -1, out_slot = -1;
    if (report_open) report_slot = n, fds[n++] = {report_pipe[0], POLLIN, 0};
    if (out_open) out_slot = n, fds[n++] = {out_pipe[0], POLLIN, 0};
    int got = poll(fds, nfds_t(n), int(std::min<int64_t>(left.count(), 1000)));
    if (got < 0 && errno != EINTR) break;
    if (got <= 0) continue;
    if (report_slot >= 0 && (fds[report_slot].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t k = read(report_pipe[0], buf, sizeof buf);
      if (k <= 0) report_open = false;
      else if (r.report.size() < kMaxReportBytes) r.report.append(buf, size_t(k));
    }
    if (out_slot >= 0 && (fds[out_slot].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t k = read(out_pipe[0], buf, sizeof buf);
      if (k <= 0) {
        out_open = false;
      } else {
        output.append(buf, size_t(k));
      }
    }
  }
  close(report_pipe[0]);
  close(out_pipe[0]);
  if (r.end == IsolatedRun::End::TimedOut) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (r.end != IsolatedRun::End::TimedOut) {
    if (WIFSIGNALED(status)) {
      r.end = IsolatedRun::End::Signaled;
      r.signal = WTERMSIG(status);
      if (r.signal == SIGALRM) r.end = IsolatedRun::End::TimedOut;
    } else {
      r.end = IsolatedRun::End::Exited;
      r.exit_code = WEXITSTATUS(status);
    }
  }
  r.output_tail = output.text();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace halo
