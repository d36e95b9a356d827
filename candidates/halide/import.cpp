// halo's half of `halo import` (import.hpp): which Halide wrote the .hlpipe (its header
// says, read here without Halide), that version's worker reading it (worker/import_ir.cpp),
// and the .halo text it writes.
#include "candidates/halide/import.hpp"

#include "candidates/halide/versions.hpp"
#include "semantics/lexer.hpp"
#include "support/run_process.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

namespace halo::halide {

namespace {

// Little-endian reads at `at`, nullopt past the end (a truncated or foreign file).
template <typename T>
std::optional<T> read_le(std::string_view b, uint64_t at) {
  if (at + sizeof(T) > b.size()) return std::nullopt;
  T v;
  std::memcpy(&v, b.data() + at, sizeof(T));
  return v;
}

}  // namespace

// A FlatBuffer of src/halide_ir.fbs (the same Pipeline table in Halide 19 and 21): the root
// table's offset, then the table, whose vtable gives each field's offset. Halide writes no
// file identifier (the schema's "HLDE" is not used by its Finish call). Pipeline's fields
// take vtable slots in order, a vector of unions two (requirements: [Stmt]), so
// halide_version, a string, is slot 8. Anything else is not an .hlpipe.
std::optional<std::string> hlpipe_writer_version(std::string_view b) {
  constexpr int kHalideVersionSlot = 8;
  auto root = read_le<uint32_t>(b, 0);
  if (!root) return std::nullopt;
  auto soff = read_le<int32_t>(b, *root);
  if (!soff) return std::nullopt;
  int64_t vtable = int64_t(*root) - *soff;
  if (vtable < 0) return std::nullopt;
  auto vsize = read_le<uint16_t>(b, vtable);
  uint64_t slot = 4 + 2 * kHalideVersionSlot;
  if (!vsize || slot + 2 > *vsize) return std::nullopt;
  auto field = read_le<uint16_t>(b, vtable + slot);
  if (!field || *field == 0) return std::nullopt;
  uint64_t at = uint64_t(*root) + *field;
  auto rel = read_le<uint32_t>(b, at);
  if (!rel) return std::nullopt;
  auto len = read_le<uint32_t>(b, at + *rel);
  if (!len || at + *rel + 4 + *len > b.size()) return std::nullopt;
  std::string v(b.substr(at + *rel + 4, *len));
  // "MAJOR.MINOR.PATCH"
  int dots = 0;
  for (char c : v)
    if (c == '.') ++dots;
    else if (c < '0' || c > '9') return std::nullopt;
  if (dots != 2 || v.front() == '.' || v.back() == '.') return std::nullopt;
  return v;
}

bool is_hlpipe_path(const std::string& path) {
  return path.size() > 7 && path.compare(path.size() - 7, 7, ".hlpipe") == 0;
}

std::string import_hlpipe(const std::string& path, const ImportOptions& o) {
  auto refuse = [&](const std::string& why) { return InputError(Diagnostic{path, {}, why}); };
  std::optional<std::string> written = hlpipe_writer_version(read_source_file(path));
  if (!written)
    throw refuse("not a serialized Halide pipeline (no FlatBuffer Pipeline with a Halide version, as "
                 "Halide::serialize_pipeline and a generator's `-e hlpipe` write)");
  int major = o.halide_major ? *o.halide_major : std::atoi(written->c_str());
  const HalideVersion* v = find_halide_version(major);
  if (!v)
    throw refuse(fmt::format("written by Halide {}, {}; no worker for Halide {} is built (installed: {}); "
                             "--halide-version M reads it with another version",
                             *written, o.halide_major ? "read with --halide-version " + std::to_string(major) : "read with the version that wrote it",
                             major, installed_halide_list().empty() ? "none" : installed_halide_list()));
  WorkDir dir("halo-import");
  std::string out = dir.file("program.halo");
  std::vector<std::string> argv{v->worker, "--import", path, "--output", out};
  for (const auto& p : o.realization.params) argv.insert(argv.end(), {"--param", p});
  for (const auto& w : o.realization.windows) argv.insert(argv.end(), {"--window", w});
  for (const auto& i : o.realization.inputs) argv.insert(argv.end(), {"--input", i});
  ProcessLimits limits;
  limits.wall_seconds = 300;
  ProcessResult r = run_process(argv, {}, ".", limits);
  auto read_out = [&] {
    std::ifstream f(out, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  };
  if (!r.started) throw std::runtime_error("could not start the Halide " + v->version + " worker: " + r.error);
  if (r.exited && r.exit_code == 0) {
    // What Halide said while reading (a version mismatch warning, say), kept as comments
    // after the program's first line.
    std::string text = read_out(), said;
    std::stringstream lines(r.output);
    for (std::string l; std::getline(lines, l);)
      if (!l.empty()) said += fmt::format("# Halide {} said: {}\n", v->version, l);
    return said.empty() ? text : text.insert(text.find('\n') + 1, said);
  }
  if (r.exited && r.exit_code == 2) {
    std::string why = read_out();
    while (!why.empty() && why.back() == '\n') why.pop_back();
    throw refuse(why.empty() ? "the Halide " + v->version + " worker refused it: " + r.output : why);
  }
  throw std::runtime_error(fmt::format("the Halide {} worker failed reading {} ({}): {}", v->version, path,
                                       r.timed_out ? "timed out" : r.exited ? "exit status " + std::to_string(r.exit_code)
                                                                           : describe_signal(r.signal),
                                       r.output));
}

}  // namespace halo::halide
