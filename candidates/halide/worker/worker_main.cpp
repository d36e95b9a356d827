// A Halide worker executable: one per Halide version (cmake/HalideVersions.cmake), since two
// libHalide builds cannot share a process. halo starts it (worker.hpp) and sends it cases
// (protocol.hpp); it translates each (plan.hpp), runs it with this version's Halide
// (jit.hpp) and reports. Everything that differs between Halide versions lives in jit.cpp.
//
//   WORKER --version                    prints the Halide version it links ("21.0.0")
//   WORKER --valid-target T             exit 0 when Halide understands the target string T
//   WORKER --serve [--no-warm-up] [--target T]
//                                       serves requests: stdin in, fd 3 out (worker.hpp);
//                                       warms Halide's JIT runtime for T first
#include "candidates/halide/jit.hpp"
#include "candidates/halide/protocol.hpp"
#include "candidates/halide/worker.hpp"

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

using namespace halo;
using namespace halo::halide;

namespace {

// The plain run, then (if it succeeded) the traced one, each reported after its phases.
void serve_case(const std::string& text, int fd) {
  CaseRequest c = parse_case_request(text);
  auto translated = translate_to_halide(c.prog, c.in);
  if (auto* err = std::get_if<TranslationError>(&translated)) throw std::runtime_error(err->message);
  const HalidePlan& plan = std::get<HalidePlan>(translated);
  auto phase = [fd](const std::string& prefix) {
    return [fd, prefix](const char* p) { write_all(fd, "PHASE " + prefix + p + "\n"); };
  };
  JitOptions jo;
  jo.target = c.target;
  JitResult plain = run_plan_jit(plan, jo, phase(""));
  write_all(fd, "RESULT " + jit_to_json(plain).dump() + "\n");
  if (c.memcheck && plain.status == JitResult::Status::Ok) {
    jo.memcheck = true;
    JitResult traced = run_plan_jit(plan, jo, phase("memcheck_"));
    write_all(fd, "MEMCHECK " + jit_to_json(traced).dump() + "\n");
  }
}

int usage() {
  std::fprintf(stderr, "usage: %s --version | --valid-target T | --serve [--no-warm-up] [--target T]\n"
                       "(a worker of halo's Halide target: halo starts it; docs/halide.md)\n",
               "halo_halide_worker");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && !std::strcmp(argv[1], "--version")) {
    std::printf("%s\n", HALO_HALIDE_VERSION);
    return 0;
  }
  if (argc == 3 && !std::strcmp(argv[1], "--valid-target")) return halide_understands_target(argv[2]) ? 0 : 1;
  if (argc < 2 || std::strcmp(argv[1], "--serve") != 0) return usage();
  bool warm = true;
  std::string target = "host";
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--no-warm-up")) warm = false;
    else if (!std::strcmp(argv[i], "--target") && i + 1 < argc) target = argv[++i];
    else return usage();
  }
  serve_requests(kWorkerRequestFd, kWorkerReportFd, [&] { if (warm) warm_up_jit(target); }, serve_case);
  return 0;
}
