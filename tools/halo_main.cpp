// Entry point of the `halo` executable.
#include "tools/cli.hpp"

#include <iostream>

int main(int argc, char** argv) { return halo::run_cli(argc, argv, std::cout, std::cerr, true); }
