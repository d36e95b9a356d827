// Thrown when a candidate (a compiler under test) cannot run at all, whatever the case: its
// worker does not start for the requested target, or dies before serving a request, each
// time it is started. That is bad input (a flag the candidate refuses) or the candidate's
// own error, not a finding of any case: a campaign stops with this message (exit 2) instead
// of filing every case as a finding (docs/fuzzing.md). Its own header, apart from
// diagnostics.hpp, because only the candidates that start workers and the campaign's case
// guard need it.
#pragma once

#include "support/diagnostics.hpp"

namespace halo {

class CandidateUnavailable : public InputError {
 public:
  using InputError::InputError;
};

}  // namespace halo
