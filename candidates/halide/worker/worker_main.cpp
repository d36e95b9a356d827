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
//   WORKER --import FILE.hlpipe --output OUT [--param P]... [--window W]... [--input I]...
//                                       `halo import` (import.hpp): writes the .halo text to
//                                       OUT, or why not (exit 2)
//   WORKER --serialize FILE.halo OUT.hlpipe
//                                       the program as the oracle translates it, serialized
//                                       by this Halide (the import's round-trip tests)
#include "candidates/halide/import.hpp"
#include "candidates/halide/jit.hpp"
#include "candidates/halide/protocol.hpp"
#include "support/worker_process.hpp"

#include "semantics/parser.hpp"
#include "semantics/validity.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>
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
  jo.reuse_key = compile_reuse_key(c);
  jo.strict_float = c.strict_float;
  // Halide's messages are not always UTF-8 (a corrupted error message is a finding of its
  // own): invalid bytes are replaced, so that the report still arrives.
  auto line = [](const JitResult& r) {
    return jit_to_json(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  JitResult plain = run_plan_jit(plan, jo, phase(""));
  write_all(fd, "RESULT " + line(plain) + "\n");
  if (c.memcheck && plain.status == JitResult::Status::Ok) {
    jo.memcheck = true;
    JitResult traced = run_plan_jit(plan, jo, phase("memcheck_"));
    write_all(fd, "MEMCHECK " + line(traced) + "\n");
  }
}

// `--import`: the text, or the refusal's message, in `out`; exit 0 or 2.
int import_mode(int argc, char** argv) {
  std::string file = argv[2], out;
  ImportOptions o;
  for (int i = 3; i + 1 < argc; i += 2) {
    std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--output") out = value;
    else if (flag == "--param") o.realization.params.push_back(value);
    else if (flag == "--window") o.realization.windows.push_back(value);
    else if (flag == "--input") o.realization.inputs.push_back(value);
    else return 2;
  }
  std::ofstream f(out, std::ios::binary);
  try {
    f << import_hlpipe_with_halide(file, o);
    return 0;
  } catch (const ImportRefused& e) {
    f << e.what();
  } catch (const InputError& e) {
    f << e.what();
  }
  return 2;
}

int serialize_mode(const std::string& file, const std::string& out) {
  Program prog = parse_file(file);
  check_program(prog);
  Input in = resolve_input(prog, InputOverrides{});
  auto translated = translate_to_halide(prog, in);
  if (auto* err = std::get_if<TranslationError>(&translated)) {
    std::fprintf(stderr, "%s: not expressible in Halide: %s\n", file.c_str(), err->message.c_str());
    return 2;
  }
  serialize_plan(std::get<HalidePlan>(translated), out);
  return 0;
}

int usage() {
  std::fprintf(stderr, "usage: %s --version | --valid-target T | --serve [--no-warm-up] [--target T]\n"
                       "       | --import FILE --output OUT [--param P] [--window W] [--input I] | --serialize FILE OUT\n"
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
  if (argc >= 5 && !std::strcmp(argv[1], "--import")) return import_mode(argc, argv);
  if (argc == 4 && !std::strcmp(argv[1], "--serialize")) return serialize_mode(argv[2], argv[3]);
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
