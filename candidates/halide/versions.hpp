// The Halide versions halo can test, one worker executable each (docs/halide.md,
// "Versions"). Two libHalide builds cannot share a process, so halo links none: CMake
// builds a worker per version found (cmake/HalideVersions.cmake: Debian's 14, the wheels
// from PyPI), and the Halide target picks it by name — `halide` is the newest installed,
// `halide@21` one major version, `halide@all` every one.
#pragma once

#include "oracle/candidate.hpp"

#include <string>
#include <vector>

namespace halo::halide {

struct HalideVersion {
  std::string version;   // "21.0.0"
  int major = 0;
  std::string worker;    // the worker executable
  std::string include;   // Halide.h's directory, for the reproducers' command lines
  std::string library;   // libHalide
  std::string origin;    // "debian" or "pip"
  std::string autoschedulers;  // the directory of its autoscheduler plugins, or empty: none installed
  std::string name() const { return "halide@" + std::to_string(major); }
  // How to compile and run a reproducer against this version.
  std::string compile_command(const std::string& cpp, const std::string& exe) const;
};

// The versions whose worker was built, ascending.
const std::vector<HalideVersion>& installed_halide_versions();
const HalideVersion* find_halide_version(int major);
const HalideVersion& newest_halide_version();  // throws when none is installed

// Resolves a `--target` value: "halide" (the newest), "halide@M" (major M), "halide@all"
// (every version). Returns the majors, or an error message naming the installed ones.
struct HalideSelection {
  std::vector<int> majors;
  bool all = false;
  std::string error;
};
HalideSelection select_halide_versions(const std::string& target);
bool is_halide_target_name(const std::string& target);
// The installed versions as the candidate interface names them (key = the major version).
std::vector<CandidateVersion> halide_candidate_versions();  // "halide" or "halide@..."

// Whether Halide `major` understands the target string `target` (asks its worker).
bool valid_halide_target(int major, const std::string& target);

// "14, 19, 21": the installed majors, for messages.
std::string installed_halide_list();

}  // namespace halo::halide
