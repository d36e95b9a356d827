// Entry point of the `halo` executable.
#include "tools/cli.hpp"

#include "support/standard_output.hpp"

#include <iostream>

int main(int argc, char** argv) {
  halo::StandardOutput out(halo::reserve_standard_descriptors());  // write errors kept for the exit status
  halo::report_file_size_limit_as_error();
  return halo::run_cli(argc, argv, out.stream(), std::cerr, true);
}
