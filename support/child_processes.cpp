// See child_processes.hpp.
#include "support/child_processes.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace halo {

namespace {

constexpr int kSlots = 64;
constexpr size_t kMarkerBytes = 64, kPathBytes = 512;

struct GroupSlot {
  std::atomic<pid_t> pgid{0};
  char marker[kMarkerBytes] = {};
};
struct DirSlot {
  std::atomic<bool> used{false};
  char path[kPathBytes] = {};
};
GroupSlot g_groups[kSlots];
DirSlot g_dirs[kSlots];
std::mutex g_mutex;  // registration only; the handler reads the atomics
// TempDirChange and the handler (a Dekker handshake: each stores its own flag, then reads
// the other's): the handler waits while g_dir_changes > 0, a change begun after
// g_stopping was set waits for the end.
std::atomic<int> g_dir_changes{0};
std::atomic<bool> g_stopping{false};
std::atomic<uint64_t> g_next_marker{0};
std::atomic<bool> g_waits_interrupted{false};
std::atomic<int64_t> g_waits_deadline_ns{0};

// ---- async-signal-safe helpers: open/read/close/kill/unlinkat/rmdir and the getdents64
// system call, no allocation.
struct LinuxDirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

// Linux's getdents64: entries of an open directory, without allocation. The playground's
// WebAssembly build (docs/playground.md) starts no process, so it has no directory of
// them to read.
long read_dir_entries(int fd, char* buf, size_t size) {
#ifdef HALO_BROWSER
  return 0;
#else
  return syscall(SYS_getdents64, fd, buf, size);
#endif
}

bool all_digits(const char* s) {
  if (!*s) return false;
  for (; *s; ++s)
    if (*s < '0' || *s > '9') return false;
  return true;
}

pid_t to_pid(const char* s) {
  pid_t p = 0;
  for (; *s; ++s) p = p * 10 + (*s - '0');
  return p;
}

// Does /proc/PID/environ contain the entry `marker` exactly?
bool has_marker(const char* pid, const char* marker) {
  char path[64] = "/proc/";
  size_t n = std::strlen(path);
  for (const char* c = pid; *c && n < sizeof path - 16; ++c) path[n++] = *c;
  const char* tail = "/environ";
  for (const char* c = tail; *c; ++c) path[n++] = *c;
  path[n] = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  size_t mlen = std::strlen(marker);
  char buf[4096];
  // An entry is matched by carrying the bytes between NULs over read boundaries.
  char entry[kMarkerBytes + 2];
  size_t elen = 0;
  bool found = false, overflow = false;
  ssize_t got;
  while (!found && (got = read(fd, buf, sizeof buf)) > 0) {
    for (ssize_t i = 0; i < got; ++i) {
      if (buf[i] == 0) {
        if (!overflow && elen == mlen && std::memcmp(entry, marker, mlen) == 0) {
          found = true;
          break;
        }
        elen = 0;
        overflow = false;
      } else if (elen < sizeof entry) {
        entry[elen++] = buf[i];
      } else {
        overflow = true;
      }
    }
  }
  close(fd);
  return found;
}

// True when the directory is gone.
bool remove_dir_files(const char* dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT;
  alignas(8) char buf[4096];
  long got;
  while ((got = read_dir_entries(fd, buf, sizeof buf)) > 0) {
    for (long off = 0; off < got;) {
      auto* d = reinterpret_cast<LinuxDirent64*>(buf + off);
      off += d->d_reclen;
      if (std::strcmp(d->d_name, ".") == 0 || std::strcmp(d->d_name, "..") == 0) continue;
      unlinkat(fd, d->d_name, 0);
    }
  }
  close(fd);
  return rmdir(dir) == 0 || errno == ENOENT;
}

void on_signal(int sig) {
  int saved = errno;
  end_candidates_now();
  errno = saved;
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void end_candidates_now() {
  g_stopping.store(true);
  kill_all_candidates();
  // A directory being made or removed on another thread: at most a removal's time (bounded
  // here all the same, 5 s, so that a stuck change cannot keep halo from ending).
  for (int i = 0; i < 5000 && g_dir_changes.load() > 0; ++i) {
    struct timespec ms{0, 1'000'000};
    nanosleep(&ms, nullptr);
  }
  // A file can still appear after the listing: a candidate just sent SIGKILL ends its
  // current system call first (the linker creating the kernel), and the work goes on on its
  // thread until halo ends. Once the directory is gone nothing can be put in it.
  for (auto& d : g_dirs)
    for (int i = 0; d.used.load() && !remove_dir_files(d.path) && i < 200; ++i) {
      struct timespec ms{0, 1'000'000};
      nanosleep(&ms, nullptr);
    }
}

void kill_marked_processes(const char* marker) {
  if (!marker || !*marker) return;
  int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  pid_t self = getpid();
  alignas(8) char buf[8192];
  long got;
  while ((got = read_dir_entries(fd, buf, sizeof buf)) > 0) {
    for (long off = 0; off < got;) {
      auto* d = reinterpret_cast<LinuxDirent64*>(buf + off);
      off += d->d_reclen;
      if (!all_digits(d->d_name)) continue;
      pid_t p = to_pid(d->d_name);
      if (p == self || p <= 1) continue;
      if (has_marker(d->d_name, marker)) kill(p, SIGKILL);
    }
  }
  close(fd);
}

void kill_all_candidates() {
  for (auto& g : g_groups) {
    pid_t p = g.pgid.load();
    if (p > 0) {
      kill(-p, SIGKILL);
      kill_marked_processes(g.marker);
    }
  }
}

void set_candidate_waits_interrupted(bool interrupted) { g_waits_interrupted.store(interrupted); }
void set_candidate_waits_deadline(int64_t monotonic_ns) { g_waits_deadline_ns.store(monotonic_ns); }

int64_t monotonic_now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec;
}

bool candidate_waits_interrupted() {
  int64_t deadline = g_waits_deadline_ns.load();
  return g_waits_interrupted.load() || (deadline > 0 && monotonic_now_ns() >= deadline);
}

void install_candidate_cleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      sigaction(sig, nullptr, &old);
      if (old.sa_handler == SIG_IGN) continue;  // e.g. nohup: keep ignoring
      struct sigaction sa {};
      sa.sa_handler = on_signal;
      sigemptyset(&sa.sa_mask);
      sigaction(sig, &sa, nullptr);
    }
  });
}

namespace {
// HALO_PID_NAMESPACE=0 in halo's environment (read in the forked child: no allocation).
bool pid_namespaces_turned_off() {
  static const char kOff[] = "HALO_PID_NAMESPACE=0";
  for (char** e = environ; e && *e; ++e)
    if (std::strcmp(*e, kOff) == 0) return true;
  return false;
}

// Writes the one-line id map "A B 1" (id A inside is id B outside) to `file` (async-signal-safe).
bool write_id_map(const char* file, unsigned a, unsigned b) {
  char buf[64];
  size_t n = 0;
  auto put = [&](unsigned v) {
    char digits[12];
    size_t k = 0;
    do digits[k++] = char('0' + v % 10), v /= 10;
    while (v);
    while (k) buf[n++] = digits[--k];
  };
  put(a);
  buf[n++] = ' ';
  put(b);
  buf[n++] = ' ';
  buf[n++] = '1';
  int fd = open(file, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = write(fd, buf, n) == ssize_t(n);
  close(fd);
  return ok;
}

bool unshare_pid_namespace() {
  if (unshare(CLONE_NEWPID) == 0) return true;
  // Without CAP_SYS_ADMIN: a user namespace first, in which this process maps its own ids.
  unsigned uid = getuid(), gid = getgid();
  if (unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0) return false;
  int fd = open("/proc/self/setgroups", O_WRONLY | O_CLOEXEC);
  if (fd >= 0) {
    (void)!write(fd, "deny", 4);
    close(fd);
  }
  return write_id_map("/proc/self/uid_map", uid, uid) && write_id_map("/proc/self/gid_map", gid, gid);
}
}  // namespace

namespace {
void close_all_but(int keep) {
  for (int fd = 0; fd < 1024; ++fd)
    if (fd != keep) close(fd);
}

// Ends this process as `status` (from waitpid) ended its process: same code, same signal.
[[noreturn]] void end_as(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, nullptr);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    sigprocmask(SIG_UNBLOCK, &one, nullptr);
    kill(getpid(), sig);
  }
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}
}  // namespace

void enter_candidate_pid_namespace() {
  if (pid_namespaces_turned_off()) return;
  int status_pipe[2];
  if (pipe2(status_pipe, O_CLOEXEC) != 0) return;
  if (!unshare_pid_namespace()) {  // the marker and the group remain
    close(status_pipe[0]);
    close(status_pipe[1]);
    return;
  }
  // The candidate does not become the namespace's first process: that one ignores every
  // signal it has no handler for (abort() would end as SIGSEGV, kill(0, SIGTERM) would do
  // nothing), so a small init is first and the candidate second.
  pid_t init = fork();
  if (init < 0) {  // fork refused in the namespace: run here, tracked by the marker
    close(status_pipe[0]);
    close(status_pipe[1]);
    return;
  }
  if (init == 0) {
    // (Should the relay die before this line, ChildGuard's group kill still reaches this
    // process: it stays in the relay's process group.)
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    pid_t candidate = fork();
    if (candidate == 0) return;  // executes the candidate; the status pipe closes on exec
    int status = candidate < 0 ? (127 << 8) : 0;
    close_all_but(status_pipe[1]);
    while (candidate > 0) {  // reaps orphans too, until the candidate itself ends
      pid_t w = waitpid(-1, &status, 0);
      if (w == candidate || (w < 0 && errno == ECHILD)) break;
    }
    (void)!write(status_pipe[1], &status, sizeof status);
    _exit(0);  // the kernel now kills whatever the candidate left in the namespace
  }
  // The relay, halo's child: holds nothing the candidate's reader waits on, lives exactly
  // as long as the namespace, and ends as the candidate ended.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  close_all_but(status_pipe[0]);
  int status = 0, init_status = 0;
  ssize_t got;
  do got = read(status_pipe[0], &status, sizeof status);
  while (got < 0 && errno == EINTR);
  while (waitpid(init, &init_status, 0) < 0 && errno == EINTR) {
  }
  end_as(got == ssize_t(sizeof status) ? status : init_status);
}

std::string new_candidate_marker() {
  return "HALO_CANDIDATE=" + std::to_string(getpid()) + "-" + std::to_string(g_next_marker.fetch_add(1));
}

std::vector<char*> candidate_environment(std::string& marker) {
  std::vector<char*> envp;
  for (char** e = environ; e && *e; ++e)
    if (std::strncmp(*e, "HALO_CANDIDATE=", 15) != 0) envp.push_back(*e);
  envp.push_back(marker.data());
  envp.push_back(nullptr);
  return envp;
}

ChildGuard::ChildGuard(pid_t pgid, const std::string& marker) : pgid_(pgid), marker_(marker) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (int i = 0; i < kSlots; ++i)
    if (g_groups[i].pgid.load() == 0) {
      std::strncpy(g_groups[i].marker, marker.c_str(), kMarkerBytes - 1);
      g_groups[i].pgid.store(pgid);
      slot_ = i;
      break;
    }
}

ChildGuard::~ChildGuard() {
  if (pgid_ > 0) kill(-pgid_, SIGKILL);
  kill_marked_processes(marker_.c_str());
  if (slot_ >= 0) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_groups[slot_].pgid.store(0);
  }
}

int register_temp_dir(const std::string& path) {
  if (path.size() >= kPathBytes) return -1;
  std::lock_guard<std::mutex> lock(g_mutex);
  for (int i = 0; i < kSlots; ++i)
    if (!g_dirs[i].used.load()) {
      std::memcpy(g_dirs[i].path, path.c_str(), path.size() + 1);
      g_dirs[i].used.store(true);
      return i;
    }
  return -1;
}

void unregister_temp_dir(int slot) {
  if (slot < 0) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_dirs[slot].used.store(false);
}

TempDirChange::TempDirChange() {
  sigset_t ending;
  sigemptyset(&ending);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&ending, sig);
  pthread_sigmask(SIG_BLOCK, &ending, &saved_);
  g_dir_changes.fetch_add(1);
  if (g_stopping.load())  // the handler has begun (on another thread) and will end halo
    for (;;) pause();
}

TempDirChange::~TempDirChange() {
  g_dir_changes.fetch_sub(1);
  pthread_sigmask(SIG_SETMASK, &saved_, nullptr);  // a signal that came meanwhile is handled now
}

}  // namespace halo
