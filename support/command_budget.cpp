// See command_budget.hpp.
#include "support/command_budget.hpp"

#include "support/diagnostics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>

namespace halo {

namespace {
std::atomic<int64_t> g_deadline_ns{0};  // steady_clock nanoseconds; 0: none
std::atomic<int64_t> g_command_deadline_ns{0};  // of the whole command only; 0: none
std::atomic<double> g_seconds{0};
std::atomic<uint64_t> g_big_limit{uint64_t{4} << 30};
std::atomic<int64_t> g_big_live{0};
std::atomic<int64_t> g_expr_live{0};
thread_local uint32_t t_ticks = 0;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

ScopedCommandBudget::ScopedCommandBudget(const CommandLimits& l)
    : saved_deadline_ns_(g_deadline_ns.load()),
      saved_command_deadline_ns_(g_command_deadline_ns.load()),
      saved_big_bytes_(g_big_limit.load()),
      saved_seconds_(g_seconds.load()) {
  g_deadline_ns.store(l.seconds > 0 ? now_ns() + int64_t(l.seconds * 1e9) : 0);
  if (l.whole_command) g_command_deadline_ns.store(g_deadline_ns.load());
  g_seconds.store(l.seconds);
  g_big_limit.store(l.big_integer_bytes);
}

ScopedCommandBudget::~ScopedCommandBudget() {
  g_deadline_ns.store(saved_deadline_ns_);
  g_command_deadline_ns.store(saved_command_deadline_ns_);
  g_seconds.store(saved_seconds_);
  g_big_limit.store(saved_big_bytes_);
}

std::string time_limit_message() {
  return fmt::format("time limit reached ({} s); raise it with --timeout", g_seconds.load());
}

void poll_command_budget() {
  int64_t d = g_deadline_ns.load(std::memory_order_relaxed);
  if (d != 0 && now_ns() > d) throw ResourceLimit(time_limit_message());
}

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
