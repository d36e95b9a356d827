// A stand-in for libFuzzer's driver, for compilers without -fsanitize=fuzzer (the project
// builds with GCC): runs LLVMFuzzerTestOneInput once on each input file named on the
// command line, or on every file of a named directory — libFuzzer's reproduce mode — so
// that a corpus or a crash input from a fuzzing cluster replays with a plain build.
//
//   halo_fuzz_NAME FILE|DIR...                 run the inputs (a finding aborts)
//   halo_fuzz_NAME --write-corpus DIR N [SEED] write the inputs of the first N cases of
//                                                campaign SEED (default 1): a seed corpus
#include "fuzz/case_gen.hpp"

#include <algorithm>
#include <cstdint>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::string program = "halo_fuzz_target";  // this binary's name, for messages

int run_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "%s: cannot read %s\n", program.c_str(), p.c_str());
    return 2;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  return 0;
}

int write_corpus(const std::string& dir, uint64_t n, uint64_t seed) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  for (uint64_t k = 0; k < n; ++k) {
    std::vector<uint8_t> bytes = halo::fuzz::encode_case_bytes(halo::fuzz::campaign_case(seed, k));
    std::ofstream out(fs::path(dir) / ("case-" + std::to_string(seed) + "-" + std::to_string(k)), std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (!out) {
      std::fprintf(stderr, "%s: cannot write to %s\n", program.c_str(), dir.c_str());
      return 2;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (argc > 0) program = fs::path(argv[0]).filename().string();
  const char* name = program.c_str();
  if (args.empty()) {
    std::fprintf(stderr, "usage: %s FILE|DIR...\n       %s --write-corpus DIR N [SEED]\n", name, name);
    return 2;
  }
  if (args[0] == "--write-corpus") {
    if (args.size() < 3) {
      std::fprintf(stderr, "usage: %s --write-corpus DIR N [SEED]\n", name);
      return 2;
    }
    // std::stoull reads "-1" as 2^64 - 1: a sign is refused before it gets there.
    auto count = [](const std::string& text) {
      if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) throw std::invalid_argument(text);
      return std::stoull(text);
    };
    try {
      return write_corpus(args[1], count(args[2]), args.size() > 3 ? count(args[3]) : 1);
    } catch (const std::exception&) {
      std::fprintf(stderr, "%s: N and SEED are non-negative integers\n", name);
      return 2;
    }
  }
  size_t ran = 0;
  for (const std::string& a : args) {
    std::error_code ec;
    if (fs::is_directory(a, ec)) {
      std::vector<fs::path> files;
      for (const auto& e : fs::directory_iterator(a))
        if (e.is_regular_file()) files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) {
        if (int rc = run_file(f)) return rc;
        ++ran;
      }
    } else {
      if (int rc = run_file(a)) return rc;
      ++ran;
    }
  }
  std::fprintf(stderr, "%s: %zu input(s), no finding\n", name, ran);
  return 0;
}
