// Output files written whole or not at all (support/output_file.hpp).
#include "support/output_file.hpp"

#include "support/diagnostics.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace halo {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void cannot_write(const std::string& path, int err) {
  throw InputError(Diagnostic{path, {}, fmt::format("cannot write the file: {}", std::strerror(err))});
}

// Writes all of `contents` to `fd`; the errno of the first failure, or 0.
int write_all(int fd, const std::string& contents) {
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    done += size_t(n);
  }
  return 0;
}

// A device or FIFO the user named as the output: written in place.
void write_in_place(const std::string& path, const std::string& contents) {
  // Not blocking in open: a FIFO nobody reads is an error (ENXIO), not a hang.
  int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) cannot_write(path, errno);
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  int err = write_all(fd, contents);
  if (::close(fd) != 0 && err == 0 && errno != EINTR) err = errno;
  if (err) cannot_write(path, err);
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& contents) {
  if (path.empty()) throw InputError(Diagnostic{"", {}, "an output file name is empty"});
  std::error_code ec;
  fs::path target(path);
  if (fs::is_symlink(fs::symlink_status(target, ec))) {
    fs::path real = fs::weakly_canonical(target, ec);
    if (!ec) target = real;
  }
  struct stat st;
  if (::stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) throw InputError(Diagnostic{path, {}, "cannot write the file: it is a directory"});
    write_in_place(target.string(), contents);
    return;
  }
  // One temporary per process and call: two threads writing findings never share one.
  static std::atomic<unsigned> serial{0};
  fs::path tmp = target.parent_path() /
                 fmt::format(".{}.tmp.{}.{}", target.filename().string(), ::getpid(), serial.fetch_add(1));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) cannot_write(path, errno);
  int err = write_all(fd, contents);
  if (::close(fd) != 0 && err == 0 && errno != EINTR) err = errno;
  if (err == 0 && ::rename(tmp.c_str(), target.c_str()) != 0) err = errno;
  if (err) {
    ::unlink(tmp.c_str());
    cannot_write(path, err);
  }
}

void create_output_directory(const std::string& dir) {
  auto refuse = [&](const std::string& why) {
    return InputError(Diagnostic{"", {}, fmt::format("cannot create {}: {}", dir, why)});
  };
  if (dir.empty()) throw refuse("the directory name is empty");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw refuse(ec.message());
  if (!fs::is_directory(dir, ec)) throw refuse(ec ? ec.message() : "it exists and is not a directory");
}

}  // namespace halo
