// See command_budget.hpp.
#include "support/command_budget.hpp"

#include "support/diagnostics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <limits>
#include <unistd.h>

namespace halo {

namespace {
std::atomic<int64_t> g_deadline_ns{0};  // steady_clock nanoseconds; 0: none
std::atomic<int64_t> g_command_deadline_ns{0};  // of the whole command only; 0: none
std::atomic<double> g_seconds{0};
std::atomic<uint64_t> g_big_limit{uint64_t{4} << 30};
std::atomic<int64_t> g_big_live{0};
std::atomic<int64_t> g_expr_live{0};
thread_local uint32_t t_ticks = 0;
// The resident size the whole command's memory limit counts from (bytes); -1: no such limit.
std::atomic<int64_t> g_resident_base{-1};
std::atomic<int64_t> g_next_resident_check_ns{0};
std::atomic<bool> g_watch_polls{false};
std::atomic<int64_t> g_longest_poll_gap_ns{0};
thread_local int64_t t_last_poll_cpu_ns = -1;  // -1: no poll yet on this thread

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Taken while the executable loads, before main.
const int64_t g_process_start_ns = now_ns();
std::atomic<bool> g_from_process_start{false};

int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The process's resident set in bytes (/proc/self/statm), or -1 where it cannot be read.
int64_t resident_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return -1;
  long long size = 0, resident = -1;
  int n = std::fscanf(f, "%lld %lld", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * int64_t(sysconf(_SC_PAGESIZE)) : -1;
}

// Reading /proc costs microseconds: at most every 10 ms.
void check_resident_size(int64_t now) {
  int64_t base = g_resident_base.load(std::memory_order_relaxed);
  if (base < 0 || now < g_next_resident_check_ns.load(std::memory_order_relaxed)) return;
  g_next_resident_check_ns.store(now + 10'000'000, std::memory_order_relaxed);
  int64_t rss = resident_bytes();
  uint64_t limit = g_big_limit.load(std::memory_order_relaxed);
  if (rss >= 0 && rss > base && uint64_t(rss - base) > limit)
    throw ResourceLimit(fmt::format("memory limit reached: halo holds {} MiB more than when the command began, more "
                                    "than the limit of {} MiB; raise it with --max-memory",
                                    (rss - base) >> 20, limit >> 20));
}
}  // namespace

ScopedCommandBudget::ScopedCommandBudget(const CommandLimits& l)
    : saved_deadline_ns_(g_deadline_ns.load()),
      saved_command_deadline_ns_(g_command_deadline_ns.load()),
      saved_big_bytes_(g_big_limit.load()),
      saved_seconds_(g_seconds.load()),
      saved_resident_base_(g_resident_base.load()) {
  int64_t start = l.whole_command && g_from_process_start.load() ? g_process_start_ns : now_ns();
  g_deadline_ns.store(l.seconds > 0 ? start + int64_t(l.seconds * 1e9) : 0);
  if (l.whole_command) {
    g_resident_base.store(resident_bytes());
    g_next_resident_check_ns.store(0);
  }
  if (l.whole_command) g_command_deadline_ns.store(g_deadline_ns.load());
  g_seconds.store(l.seconds);
  g_big_limit.store(l.big_integer_bytes);
}

ScopedCommandBudget::~ScopedCommandBudget() {
  g_deadline_ns.store(saved_deadline_ns_);
  g_command_deadline_ns.store(saved_command_deadline_ns_);
  g_seconds.store(saved_seconds_);
  g_big_limit.store(saved_big_bytes_);
  g_resident_base.store(saved_resident_base_);
}

std::string time_limit_message() {
  return fmt::format("time limit reached ({} s); raise it with --timeout", g_seconds.load());
}

void poll_command_budget() {
  if (g_watch_polls.load(std::memory_order_relaxed)) {
    int64_t cpu = thread_cpu_ns();
    if (t_last_poll_cpu_ns >= 0) {
      int64_t gap = cpu - t_last_poll_cpu_ns, seen = g_longest_poll_gap_ns.load();
      while (gap > seen && !g_longest_poll_gap_ns.compare_exchange_weak(seen, gap)) {
      }
    }
    t_last_poll_cpu_ns = cpu;
  }
  int64_t now = now_ns();
  int64_t d = g_deadline_ns.load(std::memory_order_relaxed);
  if (d != 0 && now > d) throw ResourceLimit(time_limit_message());
  check_resident_size(now);
}

void count_commands_from_process_start() { g_from_process_start.store(true); }

void watch_poll_gaps(bool on) {
  g_longest_poll_gap_ns.store(0);
  t_last_poll_cpu_ns = -1;
  g_watch_polls.store(on);
}

double longest_poll_gap_cpu_seconds() { return double(g_longest_poll_gap_ns.load()) / 1e9; }

double command_seconds_left() {
  int64_t d = g_deadline_ns.load(std::memory_order_relaxed);
  if (d == 0) return std::numeric_limits<double>::infinity();
  return std::max(0.0, double(d - now_ns()) / 1e9);
}

bool command_overran(double grace) {
  int64_t d = g_command_deadline_ns.load();
  return d != 0 && now_ns() > d + int64_t(grace * 1e9);
}

void tick_command_budget() {
  if ((++t_ticks & 1023) == 0) poll_command_budget();
}

void check_big_integer(uint64_t bits) {
  if (bits > kMaxIntegerBits)
    throw ResourceLimit(fmt::format("an integer would need {} bits, more than the limit of {} bits for one integer",
                                    bits, kMaxIntegerBits));
  uint64_t live = uint64_t(std::max<int64_t>(0, g_big_live.load(std::memory_order_relaxed)));
  if (live + bits / 8 > g_big_limit.load(std::memory_order_relaxed))
    throw ResourceLimit(fmt::format("memory limit reached: big integers hold more than {} MiB; raise it with "
                                    "--max-memory",
                                    g_big_limit.load() >> 20));
  poll_command_budget();
}

void charge_big_integer_bytes(int64_t delta) { g_big_live.fetch_add(delta, std::memory_order_relaxed); }

void charge_expr_node() {
  int64_t live = g_expr_live.fetch_add(kExprNodeBytes, std::memory_order_relaxed) + kExprNodeBytes;
  if (uint64_t(std::max<int64_t>(live, 0)) > g_big_limit.load(std::memory_order_relaxed)) {
    g_expr_live.fetch_sub(kExprNodeBytes, std::memory_order_relaxed);
    throw ResourceLimit(fmt::format("memory limit reached: expressions (the program's, and those bounds inference, "
                                    "lifting and simplification build) hold more than {} MiB; raise it with "
                                    "--max-memory",
                                    g_big_limit.load() >> 20));
  }
}

void release_expr_node() noexcept { g_expr_live.fetch_sub(kExprNodeBytes, std::memory_order_relaxed); }

}  // namespace halo
