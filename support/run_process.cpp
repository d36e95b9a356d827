// The child-process runner of run_process.hpp: fork, limits, exec, wait with a deadline.
#include "support/run_process.hpp"
#include "support/candidate_output.hpp"
#include "support/child_processes.hpp"
#include "support/diagnostics.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>
#include <map>
#include <sstream>

extern char** environ;

namespace halo {

std::string describe_signal(int sig) {
  const char* what = strsignal(sig);
  std::string name;
  switch (sig) {
    case SIGSEGV: name = "SIGSEGV"; break;
    case SIGBUS: name = "SIGBUS"; break;
    case SIGFPE: name = "SIGFPE"; break;
    case SIGILL: name = "SIGILL"; break;
    case SIGABRT: name = "SIGABRT"; break;
    case SIGKILL: name = "SIGKILL"; break;
    case SIGXCPU: name = "SIGXCPU"; break;
    case SIGXFSZ: name = "SIGXFSZ"; break;
    default: name = "signal " + std::to_string(sig);
  }
  return "killed by " + name + (what ? std::string(" (") + what + ")" : std::string());
}

ProcessResult run_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                          const std::string& cwd, const ProcessLimits& limits, size_t max_output) {
  ProcessResult r;
  if (argv.empty()) {
    r.error = "no program to run";
    return r;
  }
#ifdef HALO_BROWSER
  // The playground's WebAssembly build (docs/playground.md): a page cannot start programs.
  r.error = "cannot start " + argv[0] + ": the playground runs in a browser, which starts no other program; run this "
            "command with the halo executable";
  return r;
#endif
  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  std::map<std::string, std::string> envmap;
  for (char** e = environ; e && *e; ++e) {
    std::string s = *e;
    auto eq = s.find('=');
    if (eq != std::string::npos) envmap[s.substr(0, eq)] = s.substr(eq + 1);
  }
  for (const auto& s : env) {
    auto eq = s.find('=');
    if (eq != std::string::npos) envmap[s.substr(0, eq)] = s.substr(eq + 1);
  }
  std::string marker = new_candidate_marker();  // finds descendants that leave the group
  envmap.erase("HALO_CANDIDATE");
  std::vector<std::string> env_strings{marker};
  for (const auto& [k, v] : envmap) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& s : argv_copy) args.push_back(s.data());
  args.push_back(nullptr);

  // A pipe, read as the child writes: its output is kept within the cap of
  // support/candidate_output.hpp however much it prints (a file would fill the disk).
  int out_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    r.error = std::string("cannot create a pipe for the child's output: ") + std::strerror(errno);
    return r;
  }
  int out_fd = out_pipe[0];

  uint64_t cpu = limits.cpu_seconds ? limits.cpu_seconds : uint64_t(std::ceil(limits.wall_seconds)) + 1;
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    r.error = std::string("fork: ") + std::strerror(errno);
    close(out_pipe[0]);
    close(out_pipe[1]);
    return r;
  }
  if (pid == 0) {
    setpgid(0, 0);  // its own group: the deadline kills everything it started
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(out_pipe[1], 1);
    dup2(out_pipe[1], 2);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    struct rlimit rl;
    rl.rlim_cur = rl.rlim_max = cpu;
    setrlimit(RLIMIT_CPU, &rl);
    rl.rlim_cur = rl.rlim_max = 0;
    setrlimit(RLIMIT_CORE, &rl);
    if (limits.address_space_bytes) {
      rl.rlim_cur = rl.rlim_max = limits.address_space_bytes;
      setrlimit(RLIMIT_AS, &rl);
    }
    if (limits.file_bytes) {
      rl.rlim_cur = rl.rlim_max = limits.file_bytes;
      setrlimit(RLIMIT_FSIZE, &rl);
    }
    enter_candidate_pid_namespace();
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  r.started = true;
  setpgid(pid, pid);  // also from the parent, so the group exists before any kill
  ChildGuard guard(pid, marker);
  close(out_pipe[1]);
  CappedOutput output("its output", std::max<size_t>(max_output / 2, 1), std::max<size_t>(max_output / 2, 1),
                      kCandidateOutputTailLines);
  bool out_open = true;
  char buf[65536];
  auto read_output = [&] {
    ssize_t got = read(out_fd, buf, sizeof buf);
    if (got > 0) output.append(buf, size_t(got));
    else if (got == 0 || (errno != EINTR && errno != EAGAIN)) out_open = false;
    return got > 0;
  };
  auto deadline = start + std::chrono::duration<double>(limits.wall_seconds);
  int status = 0;
  long sleep_ns = 200'000;
  while (true) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      r.error = std::string("waitpid: ") + std::strerror(errno);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      r.timed_out = true;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    pollfd p{out_open ? out_fd : -1, POLLIN, 0};
    int ready = poll(&p, 1, int(std::max<long>(sleep_ns / 1'000'000, 1)));
    if (ready > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR))) read_output();
    else sleep_ns = std::min<long>(sleep_ns * 2, 10'000'000);
  }
  kill(-pid, SIGKILL);  // anything the child left running in its group
  // What is left in the pipe, without waiting for a descendant that escaped the group and
  // still holds it (the guard kills that one).
  fcntl(out_fd, F_SETFL, fcntl(out_fd, F_GETFL) | O_NONBLOCK);
  for (int i = 0; i < 64 && out_open && read_output(); ++i) {
  }
  close(out_fd);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status)) {
    r.exited = !r.timed_out;
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
  }
  if (r.exited && r.exit_code == 127 && argv.size() > 0) {
    struct stat st;
    if (stat(argv[0].c_str(), &st) != 0) r.error = "cannot execute " + argv[0];
  }

  r.output = output.text();
  return r;
}

std::vector<std::string> command_words(const std::string& command_line) {
  std::vector<std::string> words;
  std::istringstream in(command_line);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::string find_program(const std::string& name) {
  auto executable = [](const std::string& p) {
    struct stat st;
    return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0;
  };
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return executable(name) ? name : "";
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    std::string p = (std::filesystem::path(dir.empty() ? "." : dir) / name).string();
    if (executable(p)) return p;
  }
  return "";
}

WorkDir::WorkDir(const std::string& prefix) {
  // $TMPDIR as POSIX defines it (and mkdtemp's users read it): what the user asked for is
  // where halo works, or a clear refusal; never a silent fallback to another folder.
  const char* tmpdir = std::getenv("TMPDIR");
  bool from_env = tmpdir && *tmpdir;
  std::string root = from_env ? tmpdir : "/tmp";
  std::string tmpl = (std::filesystem::path(root) / (prefix + "-XXXXXX")).string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  TempDirChange change;  // a signal now finds the directory registered, or not made yet
  if (!mkdtemp(buf.data())) {
    int e = errno;
    throw InputError(Diagnostic{"", {},
                                fmt::format("cannot create a temporary folder in {}: {}",
                                            from_env ? "TMPDIR=" + root : root + " (TMPDIR is not set)",
                                            std::strerror(e))});
  }
  path = buf.data();
  signal_slot = register_temp_dir(path);
}

WorkDir::~WorkDir() {
  TempDirChange change;  // a signal now finds the directory registered, or removed
  if (!keep) {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  unregister_temp_dir(signal_slot);
}

std::string WorkDir::file(const std::string& name) const { return (std::filesystem::path(path) / name).string(); }

}  // namespace halo
