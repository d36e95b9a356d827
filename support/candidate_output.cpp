// See candidate_output.hpp.
#include "support/candidate_output.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace halo {

CappedOutput::CappedOutput(std::string what, size_t head_bytes, size_t tail_bytes, int tail_lines)
    : what_(std::move(what)), head_bytes_(head_bytes), tail_bytes_(tail_bytes), tail_lines_(tail_lines) {}

size_t CappedOutput::append(const char* data, size_t n) {
  total_ += n;
  size_t to_head = std::min(n, head_bytes_ - head_.size());
  head_.append(data, to_head);
  if (to_head < n) {
    tail_.append(data + to_head, n - to_head);
    // Trimmed in batches, so that appending stays linear in what arrives.
    if (tail_.size() > 2 * tail_bytes_ + 65536) {
      size_t cut = tail_.size() - tail_bytes_;
      dropped_ += cut;
      tail_.erase(0, cut);
    }
  }
  return to_head;
}

std::string CappedOutput::kept_tail() const {
  std::string t = tail_.size() > tail_bytes_ ? tail_.substr(tail_.size() - tail_bytes_) : tail_;
  // The last tail_lines_ lines (a final newline does not start another line).
  size_t pos = t.size();
  if (pos > 0 && t[pos - 1] == '\n') --pos;
  for (int line = 0; line < tail_lines_ && pos > 0; ++line) {
    size_t nl = t.rfind('\n', pos - 1);
    if (nl == std::string::npos) {
      pos = 0;
      break;
    }
    pos = nl;
  }
  if (pos > 0) t.erase(0, pos + 1);
  // Cut mid-line at the byte limit: the partial first line is left out too.
  else if (tail_.size() > tail_bytes_ || dropped_ > 0) {
    size_t nl = t.find('\n');
    if (nl != std::string::npos && nl + 1 < t.size()) t.erase(0, nl + 1);
  }
  return t;
}

uint64_t CappedOutput::left_out_bytes() const { return total_ - head_.size() - kept_tail().size(); }

std::string CappedOutput::rest() const {
  if (total_ == head_.size()) return "";
  std::string tail = kept_tail();
  uint64_t left_out = total_ - head_.size() - tail.size();
  if (left_out == 0) return tail;
  std::string note = fmt::format("... {} more of {} left out ...\n", human_byte_count(left_out), what_);
  if (!head_.empty() && head_.back() != '\n') note.insert(note.begin(), '\n');
  return note + tail;
}

std::string human_byte_count(uint64_t n) {
  if (n < 1000) return fmt::format("{} byte{}", n, n == 1 ? "" : "s");
  const char* units[] = {"KB", "MB", "GB", "TB", "PB", "EB"};
  double v = double(n) / 1000;
  int u = 0;
  while (v >= 999.95 && u < 5) v /= 1000, ++u;
  return v < 10 ? fmt::format("{:.1f} {}", v, units[u]) : fmt::format("{:.0f} {}", v, units[u]);
}

}  // namespace halo
