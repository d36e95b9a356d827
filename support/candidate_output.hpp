// What a candidate prints is not bounded by anything it promises: an engine running
// `yes >&2` writes gigabytes a second, and relaying or keeping all of it fills halo's
// standard error, memory or disk. Every place that relays or collects a candidate's
// standard error or output (the engines, run_process for kernels, compilers and Exo, the
// Halide worker) keeps it through CappedOutput: the first bytes (where the useful message
// usually is), the last few lines (where a crash report usually is), and a note of how much
// was left out between them ("... 3.1 GB more of the engine's standard error left out").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace halo {

inline constexpr size_t kCandidateOutputHeadBytes = 64 << 10;
inline constexpr size_t kCandidateOutputTailBytes = 4 << 10;
inline constexpr int kCandidateOutputTailLines = 5;

class CappedOutput {
 public:
  // `what` names the stream in the note: "the engine's standard error".
  explicit CappedOutput(std::string what, size_t head_bytes = kCandidateOutputHeadBytes,
                        size_t tail_bytes = kCandidateOutputTailBytes, int tail_lines = kCandidateOutputTailLines);

  // Takes the next bytes. Returns how many of them went to the head (the first ones): a
  // relay writes those on at once and the rest (rest()) when the candidate has ended.
  size_t append(const char* data, size_t n);

  uint64_t total_bytes() const { return total_; }
  uint64_t left_out_bytes() const;
  const std::string& head() const { return head_; }
  // What follows the head: the note of what was left out, then the last lines ("" when
  // everything fitted in the head).
  std::string rest() const;
  // All that is kept: head() + rest().
  std::string text() const { return head_ + rest(); }

 private:
  std::string what_;
  size_t head_bytes_, tail_bytes_;
  int tail_lines_;
  std::string head_, tail_;
  uint64_t total_ = 0, dropped_ = 0;  // dropped_: bytes cut from the front of tail_
  std::string kept_tail() const;      // the last tail_lines_ lines of tail_
};

// "3.1 GB", "12 KB", "17 bytes".
std::string human_byte_count(uint64_t n);

}  // namespace halo
