// RapidCheck generator of valid schedules for a given valid program.
//
// It proposes directives in the phase order of fig. 2.11 (loops, then compute, then
// storage) over the loops that exist in the program scheduled so far, and keeps a
// directive only when its rewrite accepts it (schedule/schedule.hpp checks every
// restriction of §2.8). The emitted schedule is therefore valid by construction and
// replays to the same program.
#pragma once

#include "semantics/ast.hpp"

#include <rapidcheck.h>

namespace halo::fuzz {

struct ScheduleGenConfig {
  int max_directives = 5;
  int max_split_factor = 4;
};

// A copy of `prog` whose schedule section is a random valid schedule.
rc::Gen<Program> gen_scheduled(const Program& prog, ScheduleGenConfig cfg = {});

}  // namespace halo::fuzz
