// β0 as a bounds engine on a program (beta0.hpp): extraction then lifting. Kept apart from
// beta0.cpp so that β0 on a given query does not depend on the extractor.
#include "bounds/beta0.hpp"
#include "bounds/extract.hpp"

namespace halo {

Beta0Completion complete_with_beta0(const TgtProgram& t) { return complete_with_beta0(extract_query(t), t); }

}  // namespace halo
