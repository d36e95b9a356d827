// Standard output with its write errors kept (support/standard_output.hpp).
#include "support/standard_output.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <streambuf>
#include <unistd.h>

namespace halo {

bool reserve_standard_descriptors() {
  bool stdout_closed = false;
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    if (fd == 1) stdout_closed = true;
    // open returns the lowest free descriptor: this one, since those below it are open.
    int got = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (got >= 0 && got != fd) ::close(got);  // /dev/null missing or odd: nothing better to do
  }
  return stdout_closed;
}

// No put area: every write reaches xsputn/overflow under the mutex, so that a stream
// shared by threads stays whole, as std::cout's stdio-synchronized buffer is.
struct StandardOutput::Buffer : std::streambuf {
  std::mutex mu;
  std::string pending;
  int error = 0;
  bool closed;  // descriptor 1 was closed at start: the first byte written fails, as it would have
  bool interactive = ::isatty(1) == 1;

  explicit Buffer(bool was_closed) : closed(was_closed) {}

  // Writes out `pending`; after the first failure everything is dropped (the run has failed).
  void drain() {
    if (closed && !pending.empty() && error == 0) error = EBADF;
    size_t done = 0;
    while (error == 0 && done < pending.size()) {
      ssize_t n = ::write(1, pending.data() + done, pending.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) error = n < 0 ? errno : EIO;
      else done += size_t(n);
    }
    pending.clear();
  }
  void append(const char* s, size_t n) {
    pending.append(s, n);
    bool line = interactive && std::memchr(s, '\n', n) != nullptr;
    if (pending.size() >= (size_t{1} << 16) || line) drain();
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    std::lock_guard<std::mutex> lock(mu);
    append(s, size_t(n));
    return n;
  }
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    char ch = traits_type::to_char_type(c);
    std::lock_guard<std::mutex> lock(mu);
    append(&ch, 1);
    return c;
  }
  int sync() override {
    std::lock_guard<std::mutex> lock(mu);
    drain();
    return 0;  // the error is reported once, at the end of the command
  }
};

StandardOutput::StandardOutput(bool closed)
    : buf_(std::make_unique<Buffer>(closed)), stream_(std::make_unique<std::ostream>(buf_.get())) {}

StandardOutput::~StandardOutput() { finish(); }

std::ostream& StandardOutput::stream() { return *stream_; }

int StandardOutput::finish() { return output_stream_error(*stream_); }

int output_stream_error(std::ostream& out) {
  out.flush();
  if (auto* b = dynamic_cast<StandardOutput::Buffer*>(out.rdbuf())) {
    std::lock_guard<std::mutex> lock(b->mu);
    b->drain();
    if (b->error) return b->error;
  }
  return out ? 0 : EIO;
}

namespace {
void ignore_signal(int) {}
}  // namespace

void report_file_size_limit_as_error() {
  struct sigaction sa {};
  sa.sa_handler = ignore_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGXFSZ, &sa, nullptr);
}

std::string standard_output_error(int err) {
  return fmt::format("cannot write standard output: {}", std::strerror(err));
}

}  // namespace halo
