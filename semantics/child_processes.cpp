// See child_processes.hpp.
#include "semantics/child_processes.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
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
std::atomic<uint64_t> g_next_marker{0};

// ---- async-signal-safe helpers: open/read/close/kill/unlinkat/rmdir and the getdents64
// system call, no allocation.
struct LinuxDirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

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

void remove_dir_files(const char* dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  alignas(8) char buf[4096];
  long got;
  while ((got = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
    for (long off = 0; off < got;) {
      auto* d = reinterpret_cast<LinuxDirent64*>(buf + off);
      off += d->d_reclen;
      if (std::strcmp(d->d_name, ".") == 0 || std::strcmp(d->d_name, "..") == 0) continue;
      unlinkat(fd, d->d_name, 0);
    }
  }
  close(fd);
  rmdir(dir);
}

void on_signal(int sig) {
  int saved = errno;
  kill_all_candidates();
  for (auto& d : g_dirs)
    if (d.used.load()) remove_dir_files(d.path);
  errno = saved;
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void kill_marked_processes(const char* marker) {
  if (!marker || !*marker) return;
  int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  pid_t self = getpid();
  alignas(8) char buf[8192];
  long got;
  while ((got = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
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

std::string new_candidate_marker() {
  return "HALO_CANDIDATE=" + std::to_string(getpid()) + "-" + std::to_string(g_next_marker.fetch_add(1));
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

}  // namespace halo
