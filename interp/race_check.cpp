// The dynamic race check for parallel loops: see race_check.hpp.
#include "interp/race_check.hpp"

#include <fmt/format.h>

namespace halo {

void ParallelRaceCheck::iterate(const void* loop, bool first, const std::string& loop_name, const std::string& var,
                                const Value& value) {
  if (report_) return;
  if (first || regions_.empty() || regions_.back().loop != loop) {
    regions_.push_back(Region{loop, loop_name, var, 0, {value}, {}});
    return;
  }
  Region& r = regions_.back();
  ++r.iteration;
  r.vars.push_back(value);
}

void ParallelRaceCheck::stop(const void* loop) {
  if (!regions_.empty() && regions_.back().loop == loop) regions_.pop_back();
}

std::string ParallelRaceCheck::iteration_text(const Region& r, int64_t i) const {
  return fmt::format("the iteration {} = {}", r.var, r.vars[size_t(i)].to_string());
}

void ParallelRaceCheck::race(const Region& r, SourceLoc at, std::string what) {
  report_ = RaceReport{fmt::format("data race in parallel loop {}: {}", r.name, what), at};
}

void ParallelRaceCheck::on_write(const Cell& c, const Value& v, SourceLoc at,
                                 const std::function<std::string()>& describe) {
  // Every enclosing parallel loop sees the access, each with its own iteration.
  for (Region& r : regions_) {
    Touch& t = r.cells[c];
    const int64_t i = r.iteration;
    if (t.reader >= 0 && (t.many_readers || t.reader != i)) {
      int64_t other = t.reader != i ? t.reader : -1;
      return race(r, at, fmt::format("{} writes {}, which {} reads", iteration_text(r, i), describe(),
                                     other >= 0 ? iteration_text(r, other) : std::string("another iteration")));
    }
    if (t.writer < 0) {
      t.writer = i;
      t.written = v;
    } else if (t.writer != i || t.many_writers) {
      if (!(t.written == v))
        return race(r, at, fmt::format("{} writes {} = {}, but {} writes it = {}", iteration_text(r, i), describe(),
                                       v.to_string(), t.writer != i ? iteration_text(r, t.writer) : "another iteration",
                                       t.written.to_string()));
      t.many_writers = true;  // the same value twice: benign (a shifted tail)
    } else {
      t.written = v;  // the same iteration overwriting its own point
    }
  }
}

void ParallelRaceCheck::on_read(const Cell& c, SourceLoc at, const std::function<std::string()>& describe) {
  for (Region& r : regions_) {
    const int64_t i = r.iteration;
    auto it = r.cells.find(c);
    if (it == r.cells.end()) {
      Touch t;
      t.reader = i;
      r.cells.emplace(c, std::move(t));
      continue;
    }
    Touch& t = it->second;
    if (t.writer >= 0 && (t.many_writers || t.writer != i)) {
      int64_t other = t.writer != i ? t.writer : -1;
      return race(r, at, fmt::format("{} reads {}, which {} writes", iteration_text(r, i), describe(),
                                     other >= 0 ? iteration_text(r, other) : std::string("another iteration")));
    }
    if (t.reader < 0) t.reader = i;
    else if (t.reader != i) t.many_readers = true;
  }
}

}  // namespace halo
