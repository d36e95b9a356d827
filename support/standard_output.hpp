// halo's verdicts, tables and JSON go to standard output, and a verdict the user never
// receives must not end with status 0: `halo eval FILE > /dev/full`, a closed stdout
// (`>&-`) or a reader that went away are failures of the run. std::cout keeps only a
// failbit, not the system's reason, so halo writes standard output through this buffer,
// which remembers the first write error (errno) for the message.
#pragma once

#include <memory>
#include <ostream>
#include <string>

namespace halo {

// Descriptors 0, 1 and 2 that are closed when halo starts are opened on /dev/null, so that
// no file halo opens later (a program, an output file, a candidate's pipe) takes their
// number and receives what was meant for standard output. Returns whether standard output
// (descriptor 1) was closed: then every write to it fails with EBADF, as the user made it.
bool reserve_standard_descriptors();

// Standard output (descriptor 1) as a stream whose write errors are kept with their errno.
class StandardOutput {
 public:
  // closed: descriptor 1 was closed at start (reserve_standard_descriptors), so nothing
  // written can reach the user.
  explicit StandardOutput(bool closed);
  ~StandardOutput();
  std::ostream& stream();
  // Flushes what is buffered. The errno of the first failed write since the start, or 0.
  int finish();

  struct Buffer;  // public for output_stream_error, which finds it behind any std::ostream

 private:
  std::unique_ptr<Buffer> buf_;
  std::unique_ptr<std::ostream> stream_;
};

// Flushes `out` and says whether everything written to it arrived: 0, or the errno of the
// first failure (a StandardOutput's own; EIO for any other stream in a failed state).
int output_stream_error(std::ostream& out);

// "cannot write standard output: No space left on device"
std::string standard_output_error(int err);

// A write beyond the file-size limit (ulimit -f, RLIMIT_FSIZE) fails with EFBIG and is
// reported like a full disk, instead of SIGXFSZ killing halo with a core dump. A handler,
// not SIG_IGN: handlers revert to the default in exec, so candidates keep theirs.
void report_file_size_limit_as_error();

}  // namespace halo
