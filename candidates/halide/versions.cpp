// The registry of versions.hpp, as CMake generated it (cmake/HalideVersions.cmake).
#include "candidates/halide/versions.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace halo::halide {

namespace {

struct Entry {
  const char* version;
  int major;
  const char* worker;
  const char* include;
  const char* library;
  const char* origin;
  const char* autoschedulers;
};
const Entry kBuilt[] = {
#include "halo_halide_versions.inc"
    {nullptr, 0, nullptr, nullptr, nullptr, nullptr, nullptr},  // the end; a build without Halide has nothing else
};

}  // namespace

std::string HalideVersion::compile_command(const std::string& cpp, const std::string& exe) const {
  // Debian's package is found by the system compiler's paths; a wheel's library needs its
  // directory as the run path.
  std::string lib = library;
  std::string dir = lib.substr(0, lib.find_last_of('/'));
  return fmt::format("g++ -std=c++17 {} -I{} {} -Wl,-rpath,{} -lpthread -ldl -o {}", cpp, include, lib, dir, exe);
}

const std::vector<HalideVersion>& installed_halide_versions() {
  static const std::vector<HalideVersion> versions = [] {
    std::vector<HalideVersion> v;
    for (const Entry& e : kBuilt)
      if (e.worker && access(e.worker, X_OK) == 0) v.push_back(HalideVersion{e.version, e.major, e.worker, e.include, e.library, e.origin,
                                  e.autoschedulers});
    std::sort(v.begin(), v.end(), [](const HalideVersion& a, const HalideVersion& b) { return a.major < b.major; });
    return v;
  }();
  return versions;
}

const HalideVersion* find_halide_version(int major) {
  for (const HalideVersion& v : installed_halide_versions())
    if (v.major == major) return &v;
  return nullptr;
}

const HalideVersion& newest_halide_version() {
  const auto& v = installed_halide_versions();
  if (v.empty()) throw std::runtime_error("no Halide worker is built (cmake/HalideVersions.cmake found no Halide)");
  return v.back();
}

std::string installed_halide_list() {
  std::vector<std::string> s;
  for (const HalideVersion& v : installed_halide_versions()) s.push_back(std::to_string(v.major));
  return s.empty() ? std::string("none") : fmt::format("{}", fmt::join(s, ", "));
}

bool is_halide_target_name(const std::string& target) {
  return target == "halide" || target.rfind("halide@", 0) == 0;
}

HalideSelection select_halide_versions(const std::string& target) {
  HalideSelection s;
  if (installed_halide_versions().empty()) {
    s.error = "no Halide worker is built";
    return s;
  }
  VersionSelection v = select_versions("halide", "Halide", halide_candidate_versions(), target);
  s.all = v.all;
  s.error = v.error;
  for (const std::string& key : v.keys) s.majors.push_back(std::stoi(key));
  return s;
}

std::vector<CandidateVersion> halide_candidate_versions() {
  std::vector<CandidateVersion> out;
  for (const HalideVersion& v : installed_halide_versions()) out.push_back({std::to_string(v.major), v.version, v.origin});
  return out;
}

bool valid_halide_target(int major, const std::string& target) {
  if (target == "host") return true;
  const HalideVersion* v = find_halide_version(major);
  if (!v) return false;
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 1), dup2(null, 2);
    execl(v->worker.c_str(), v->worker.c_str(), "--valid-target", target.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace halo::halide
