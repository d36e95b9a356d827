// Every file halo writes for the user (explain's page, an imported program, a reproducer,
// --png and --npy, a campaign's findings, a kernel manifest) appears whole or not at all:
// a full disk, a file-size limit or a vanished directory must not leave a truncated file
// behind that a later run or a reader takes for a result. And a directory the user names
// for output that cannot be made is bad input (exit 2), never an exception from
// std::filesystem that ends as an internal error.
#pragma once

#include <string>

namespace halo {

// Writes `contents` to `path` atomically: a temporary file in the same directory, written
// and closed with every error checked, then renamed onto `path`. On failure the temporary
// is removed and InputError says "cannot write the file: REASON" (the system's words) about
// `path`, never about the temporary. A `path` that is an existing device or FIFO
// (/dev/null, /dev/stdout) cannot be replaced by a rename: it is written in place, still
// checked. A symbolic link is written through, not replaced.
void write_file_atomically(const std::string& path, const std::string& contents);

// Creates the directory `dir` and its parents, as a user-named output folder: InputError
// "cannot create DIR: REASON" when that fails or `dir` exists and is not a directory.
void create_output_directory(const std::string& dir);

}  // namespace halo
