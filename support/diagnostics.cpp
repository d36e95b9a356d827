// Formatting of located errors.
#include "support/diagnostics.hpp"

#include <fmt/format.h>

namespace halo {

std::string Diagnostic::format() const {
  // An error about no file at all (the command line, the environment): halo speaks itself.
  if (file.empty()) return fmt::format("halo: error: {}", message);
  return fmt::format("{}:{}:{}: error: {}", file, loc.line, loc.col, message);
}

namespace {
std::string join(const std::vector<Diagnostic>& ds) {
  std::string s;
  for (const auto& d : ds) {
    if (!s.empty()) s += '\n';
    s += d.format();
  }
  return s;
}
}  // namespace

InputError::InputError(Diagnostic d) : InputError(std::vector<Diagnostic>{std::move(d)}) {}
InputError::InputError(std::vector<Diagnostic> ds) : std::runtime_error(join(ds)), diags_(std::move(ds)) {}

}  // namespace halo
