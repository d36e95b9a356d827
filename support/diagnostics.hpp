// Located errors. Every message halo prints about bad input has the shape
// `FILE:LINE:COL: error: message`, and the command exits with status 2 (LANGUAGE.md §2).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace halo {

struct SourceLoc {
  uint32_t line = 0;  // 1-based; 0 means "no location" (built by a pass, or the command line)
  uint32_t col = 0;
};

struct Diagnostic {
  std::string file;
  SourceLoc loc;
  std::string message;
  std::string format() const;  // FILE:LINE:COL: error: message, or halo: error: message without a file
};

// Thrown for bad input: lexing, parsing, validity, usage of the input on the command line.
class InputError : public std::runtime_error {
 public:
  explicit InputError(Diagnostic d);
  explicit InputError(std::vector<Diagnostic> ds);
  const std::vector<Diagnostic>& diagnostics() const { return diags_; }

 private:
  std::vector<Diagnostic> diags_;
};

// Thrown when a run exceeds a resource limit (steps, memory, time): not a crash, not a
// finding about the program's semantics, a message that says which limit and how to raise it.
class ResourceLimit : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace halo
