// The dynamic race check for `parallel` loops (SEMANTICS.md, "Races"; issue: a parallel
// loop never has two iterations touching the same point).
//
// Fig. 2.8 runs every loop serially, so a race is invisible to the semantics itself: a
// parallel loop whose iterations communicate through memory still produces the serial
// answer here, and a different one on a real machine. The machine therefore watches every
// read and write made while a parallel loop runs and reports the first of:
//   * an iteration reading a point that another iteration of the same loop writes
//     (in either order), or
//   * two iterations writing different values to one point.
// Two iterations writing the same value (the overlap of a shifted tail) are benign, as in
// Halide. Points are identified by allocation, not by func: a buffer allocated inside the
// loop body (store_at inside the parallel loop) is private to its iteration.
//
// It lives beside the machine rather than in it so that the serial hot path pays one
// branch (`active()`) per access.
#pragma once

#include "semantics/ast.hpp"
#include "semantics/value.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace halo {

struct RaceReport {
  std::string message;
  SourceLoc loc;  // the access that completed the race
};

class ParallelRaceCheck {
 public:
  // A point of memory: which buffer, which allocation of it, which element.
  struct Cell {
    uint32_t slot;
    uint64_t generation;
    size_t offset;
    bool operator==(const Cell& o) const { return slot == o.slot && generation == o.generation && offset == o.offset; }
  };

  bool active() const { return !regions_.empty() && !report_; }

  // FOR-ITER of a parallel loop: its first iteration (`first`) opens a region, a later one
  // advances the innermost region's iteration. `var` is the loop variable and `value` its
  // value in this iteration (for messages).
  void iterate(const void* loop, bool first, const std::string& loop_name, const std::string& var,
               const Value& value);
  // FOR-STOP of a loop: closes its region if it has one.
  void stop(const void* loop);

  // `describe` prints the cell as `f(3, 4)`; it is called only when reporting.
  void on_write(const Cell& c, const Value& v, SourceLoc at, const std::function<std::string()>& describe);
  void on_read(const Cell& c, SourceLoc at, const std::function<std::string()>& describe);

  const std::optional<RaceReport>& report() const { return report_; }

 private:
  struct CellHash {
    size_t operator()(const Cell& c) const {
      // Mixed in 64 bits, so that a 32-bit size_t (the playground's WebAssembly) keeps the low half.
      return size_t(uint64_t(std::hash<size_t>()(c.offset)) ^ (uint64_t(std::hash<uint64_t>()(c.generation)) * 0x9e3779b97f4a7c15ULL) ^
                    (uint64_t(c.slot) << 48));
    }
  };
  struct Touch {
    int64_t writer = -1, reader = -1;  // the first writing / reading iteration
    bool many_writers = false, many_readers = false;
    Value written;                     // the writer's value (all writers agree, or it is a race)
  };
  struct Region {
    const void* loop;
    std::string name, var;
    int64_t iteration = 0;
    std::vector<Value> vars;  // the loop variable of each iteration, for messages
    std::unordered_map<Cell, Touch, CellHash> cells;
  };
  std::string iteration_text(const Region& r, int64_t i) const;
  void race(const Region& r, SourceLoc at, std::string what);

  std::vector<Region> regions_;  // the parallel loops running, innermost last
  std::optional<RaceReport> report_;
};

}  // namespace halo
