// The long-lived isolated worker of worker_process.hpp. Requests go down a pipe as a fixed header
// (payload length, memory limit, seconds) and the payload; the handler's report comes back
// on a second pipe and ends with a terminator line; the worker's stdout and stderr go to a
// third, of which the first and last bytes are kept per request.
#include "support/worker_process.hpp"
#include "support/candidate_output.hpp"
#include "support/diagnostics.hpp"
#include "support/command_budget.hpp"
#include "support/child_processes.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace halo {

namespace {

constexpr const char* kDone = "\nHALO_WORKER_DONE\n";
// Per request: a finding keeps this much of what Halide printed (its records stay small).
constexpr size_t kOutputHeadBytes = 4096, kOutputTailBytes = 4096;
constexpr int kOutputTailLines = 40;

struct Header {
  uint64_t length;
  uint64_t max_memory_bytes;
  double timeout_seconds;
};

bool read_exact(int fd, void* data, size_t n) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= size_t(r);
  }
  return true;
}

}  // namespace

void serve_requests(int request_fd, int report_fd, const std::function<void()>& init, const WorkerHandler& handler) {
  signal(SIGPIPE, SIG_IGN);
  default_crash_signals();
  rlimit core{0, 0};
  setrlimit(RLIMIT_CORE, &core);
  init();
  while (true) {
    Header h;
    if (!read_exact(request_fd, &h, sizeof h)) return;
    std::string request(h.length, '\0');
    if (!read_exact(request_fd, request.data(), request.size())) return;
    // This request's memory: the soft limit, which the worker may raise again later
    // because the hard limit stays where it was.
    if (h.max_memory_bytes > 0 && !address_sanitizer_active()) {
      rlimit rl;
      getrlimit(RLIMIT_AS, &rl);
      uint64_t want = current_address_space() + h.max_memory_bytes;
      rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ? rlim_t(want) : std::min<rlim_t>(rlim_t(want), rl.rlim_max);
      setrlimit(RLIMIT_AS, &rl);
    }
    if (h.timeout_seconds > 0) alarm(unsigned(std::ceil(h.timeout_seconds)) + 2);
    try {
      if (!request.empty()) handler(request, report_fd);  // an empty request: "are you ready?"
    } catch (const std::bad_alloc&) {
      write_all(report_fd, "\nOUT_OF_MEMORY\n");
    } catch (const std::exception& e) {
      write_all(report_fd, std::string("\nEXCEPTION ") + e.what() + "\n");
    }
    alarm(0);
    if (!write_all(report_fd, kDone)) return;
  }
}

Worker::Worker(const std::string& executable, const std::vector<std::string>& args, std::string what,
               std::vector<std::string> env)
    : what_(std::move(what)) {
  if (access(executable.c_str(), X_OK) != 0)
    throw std::runtime_error("cannot run " + what_ + " " + executable + ": " + std::strerror(errno));
  std::vector<std::string> argv_text{executable};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  int request[2], report[2], output[2];
  if (pipe2(request, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  if (pipe2(report, O_CLOEXEC) != 0 || pipe2(output, O_CLOEXEC) != 0) {
    close(request[0]);
    close(request[1]);
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  // The environment, with the marker that finds the worker's descendants, is built before
  // fork: after it, only async-signal-safe calls.
  std::string marker = new_candidate_marker();
  std::vector<char*> envp = candidate_environment(marker);
  // The worker's own entries go first: execve keeps the first of two equal names.
  envp.insert(envp.begin(), env.size(), nullptr);
  for (size_t i = 0; i < env.size(); ++i) envp[i] = env[i].data();
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {request[0], request[1], report[0], report[1], output[0], output[1]}) close(fd);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    setpgid(0, 0);  // its own group, like every candidate
    rlimit core{0, 0};
    setrlimit(RLIMIT_CORE, &core);  // nor the namespace's relay, which ends as the worker ended
    // Out of the way of 0-3 first (a pipe may have got one of those numbers); dup2 clears
    // close-on-exec on the copies the worker keeps, the others close at exec.
    int rq = fcntl(request[0], F_DUPFD_CLOEXEC, 10), rp = fcntl(report[1], F_DUPFD_CLOEXEC, 10),
        out = fcntl(output[1], F_DUPFD_CLOEXEC, 10);
    if (rq < 0 || rp < 0 || out < 0 || dup2(rq, kWorkerRequestFd) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 ||
        dup2(rp, kWorkerReportFd) < 0)
      _exit(126);
    // A relay that dies with halo (even by SIGKILL) and takes the namespace with it; where
    // no namespace can be made, the worker itself dies with halo's thread that started it.
    pid_t halo = getppid();
    enter_candidate_pid_namespace();
    if (getppid() == halo) prctl(PR_SET_PDEATHSIG, SIGKILL);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent, so the group exists before any kill
  guard_ = std::make_unique<ChildGuard>(pid, marker);
  close(request[0]);
  close(report[1]);
  close(output[1]);
  pid_ = pid;
  request_fd_ = request[1];
  report_fd_ = report[0];
  output_fd_ = output[0];
  signal(SIGPIPE, SIG_IGN);  // a dead worker must not kill halo when the next request is sent
}

Worker::~Worker() { stop(); }

void Worker::close_fds() {
  for (int* fd : {&request_fd_, &report_fd_, &output_fd_})
    if (*fd >= 0) close(*fd), *fd = -1;
}

void Worker::forget() {
  pid_ = -1;
  guard_.reset();  // the group and every marked descendant
  close_fds();
}

bool Worker::alive() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) forget();
  return pid_ > 0;
}

void Worker::stop() {
  if (pid_ <= 0) return forget();
  if (request_fd_ >= 0) close(request_fd_), request_fd_ = -1;  // EOF: the worker exits
  int status = 0;
  for (int i = 0; i < 100; ++i) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
    usleep(10000);
  }
  if (pid_ > 0) {
    kill(-pid_, SIGKILL);
    kill(pid_, SIGKILL);
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  forget();
}

IsolatedRun Worker::call(const std::string& request, double timeout_seconds, uint64_t max_memory_bytes) {
  IsolatedRun r;
  if (pid_ <= 0) {
    r.end = IsolatedRun::End::CouldNotStart;
    r.error = "the worker is not running";
    return r;
  }
  ++requests_;
  auto start = std::chrono::steady_clock::now();
  char buf[65536];
  // Whatever the worker printed after the previous request belongs to it, not to this one.
  for (pollfd p{output_fd_, POLLIN, 0}; poll(&p, 1, 0) > 0 && (p.revents & POLLIN);) {
    if (read(output_fd_, buf, sizeof buf) <= 0) break;
  }
  Header h{request.size(), max_memory_bytes, timeout_seconds};
  bool sent = write_all(request_fd_, std::string(reinterpret_cast<const char*>(&h), sizeof h)) &&
              write_all(request_fd_, request);
  auto deadline = start + std::chrono::duration<double>(timeout_seconds > 0 ? timeout_seconds : 1e9);
  CappedOutput output(what_ + "'s output", kOutputHeadBytes, kOutputTailBytes, kOutputTailLines);
  bool died = !sent, done = false;
  size_t done_len = std::strlen(kDone);
  while (!died && !done) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || candidate_waits_interrupted()) {
      r.end = IsolatedRun::End::TimedOut;
      break;
    }
    pollfd fds[2] = {{report_fd_, POLLIN, 0}, {output_fd_, POLLIN, 0}};
    int got = poll(fds, 2, int(std::min<int64_t>(left.count(), 100)));
    if (got < 0 && errno != EINTR) break;
    if (got <= 0) continue;
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t k = read(output_fd_, buf, sizeof buf);
      if (k > 0) output.append(buf, size_t(k));
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t k = read(report_fd_, buf, sizeof buf);
      if (k <= 0) {
        died = true;
      } else {
        r.report.append(buf, size_t(k));
        if (r.report.size() >= done_len && r.report.compare(r.report.size() - done_len, done_len, kDone) == 0) {
          r.report.erase(r.report.size() - done_len);
          done = true;
        }
      }
    }
  }
  if (done) {
    r.end = IsolatedRun::End::Exited;
  } else {
    // Timed out, or the worker died: reap it and say how it ended.
    if (r.end == IsolatedRun::End::TimedOut) kill(-pid_, SIGKILL), kill(pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    guard_.reset();  // whatever it started, so that nothing holds the output pipe open
    for (ssize_t k; (k = read(output_fd_, buf, sizeof buf)) > 0;) output.append(buf, size_t(k));
    if (r.end != IsolatedRun::End::TimedOut) {
      if (WIFSIGNALED(status)) {
        r.signal = WTERMSIG(status);
        r.end = r.signal == SIGALRM ? IsolatedRun::End::TimedOut : IsolatedRun::End::Signaled;
      } else {
        r.end = IsolatedRun::End::Exited;
        r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
    }
    forget();
  }
  r.output_tail = output.text();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

IsolatedRun Worker::call_within_deadline(const std::string& request, double own_seconds, uint64_t max_memory_bytes) {
  double left = command_seconds_left();
  if (left <= 0) poll_command_budget();  // throws ResourceLimit
  bool command_limit_first = own_seconds <= 0 || left < own_seconds;
  double seconds = !command_limit_first ? own_seconds : std::isinf(left) ? 0 : std::max(left, 0.001);
  IsolatedRun run = call(request, seconds, max_memory_bytes);
  if (run.end == IsolatedRun::End::TimedOut && candidate_waits_interrupted()) {  // a campaign's Ctrl-C
    stop();
    throw ResourceLimit("interrupted");
  }
  if (run.end == IsolatedRun::End::TimedOut && command_limit_first && seconds > 0) {
    stop();
    throw ResourceLimit(time_limit_message());
  }
  return run;
}

}  // namespace halo
