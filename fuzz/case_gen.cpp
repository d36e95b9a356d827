// Campaign cases from seeds: see case_gen.hpp.
#include "fuzz/case_gen.hpp"
#include "support/diagnostics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <random>

namespace halo::fuzz {

namespace {
// Distinguishes campaign keys from other uses of the same two words ("halocase").
constexpr uint64_t kCaseTag = 0x68616c6f63617365ull;

// Small cases first, cycling: sizes 0, 2, ..., 98, 0, 2, ...
int size_of_case(uint64_t index) { return int(index % 50) * 2; }
}  // namespace

CaseSeed campaign_case(uint64_t seed, uint64_t index) {
  return CaseSeed{rc::Random::Key{seed, index, kCaseTag, 0}, size_of_case(index)};
}

std::vector<Interval> case_window(const CaseSeed& s, uint64_t j, const std::vector<Interval>& drawn) {
  // std::mt19937_64's sequence is the standard's, unlike its distributions: so draws are
  // taken by remainder, the same on every platform.
  uint64_t mixed = (j + 1) * 0x9e3779b97f4a7c15ull;
  for (uint64_t w : s.key) mixed = (mixed ^ w) * 0xbf58476d1ce4e5b9ull + 0x94d049bb133111ebull;
  std::mt19937_64 rng(mixed);
  auto below = [&](uint64_t n) { return int64_t(rng() % n); };
  std::vector<Interval> out;
  int64_t points = 1;
  for (const Interval& d : drawn) {
    int64_t min = below(19) - 9, len;
    int64_t kind = below(16);
    if (kind == 0) len = 0;
    else if (kind < 4) len = 1;
    else len = 2 + below(uint64_t(std::max<int64_t>(2 * std::min<int64_t>(d.len.small(), 1024) + 3, 1)));
    len = std::min(len, std::max<int64_t>(4096 / std::max<int64_t>(points, 1), 1));
    points *= std::max<int64_t>(len, 1);
    out.push_back(Interval{Value(min), Value(len), d.loc});
  }
  return out;
}

bool windows_are_free(const Program& p) {
  if (!p.schedule) return true;
  const std::string& out = p.pipeline.name.text;
  for (const Directive& d : *p.schedule)
    if ((d.kind == DirectiveKind::Bound || d.kind == DirectiveKind::BoundExtent ||
         d.kind == DirectiveKind::AlignBounds) &&
        (d.func.text == out || d.loop.func.text == out))
      return false;
  return true;
}

CaseSeed decode_case_bytes(const uint8_t* data, size_t n) {
  CaseSeed s;
  for (size_t i = 0; i < 32 && i < n; ++i) s.key[i / 8] |= uint64_t(data[i]) << (8 * (i % 8));
  if (n > 32) s.size = int(data[32]) % (kMaxCaseSize + 1);
  return s;
}

std::vector<uint8_t> encode_case_bytes(const CaseSeed& s) {
  std::vector<uint8_t> out(33);
  for (size_t i = 0; i < 32; ++i) out[i] = uint8_t(s.key[i / 8] >> (8 * (i % 8)));
  out[32] = uint8_t(s.size);
  return out;
}

std::string to_hex(const std::vector<uint8_t>& bytes) {
  std::string out;
  for (uint8_t b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

CaseGenConfig case_config(int size) {
  size = std::clamp(size, 0, kMaxCaseSize);
  CaseGenConfig c;
  c.program.max_funcs = 2 + size / 34;          // 2..4
  c.program.max_dims = 2;
  c.program.max_params = 2;
  c.program.max_updates = 2 + size / 50;        // 2..4
  c.program.max_rdom_dims = 2;
  c.program.max_rdom_extent = 2 + size / 25;    // 2..6
  c.program.max_expr_depth = 2 + size / 50;     // 2..4 (operands nest; most leaves are shallow)
  c.program.max_window_extent = 3 + size / 15;  // 3..9
  c.program.live_percent = 85;
  c.program.scatter_percent = 10;
  c.tree.max_loop_transforms = 1 + size / 20;   // 1..6
  c.tree.max_split_factor = 2 + size / 33;      // 2..5
  c.proposals.max_directives = 2 + size / 25;   // 2..6
  c.proposals.max_split_factor = c.tree.max_split_factor;
  return c;
}

rc::Gen<Program> gen_case(int size) {
  return rc::gen::exec([size] {
    CaseGenConfig c = case_config(size);
    // Most funcs share x, y, z, as Halide users write them (compute_at nests producers in
    // consumers over the same names); one case in four gives each func its own names.
    c.program.distinct_names = *rc::gen::inRange(0, 4) == 0;
    // One case in four is a deep pipeline of simple funcs, where producers nest inside
    // consumers inside consumers (compute_at chains), as in image pipelines.
    if (*rc::gen::inRange(0, 4) == 3) {
      c.program.max_funcs = 3 + size / 33;  // 3..6
      c.program.max_updates = 1;
      c.tree.compute_percent = 90;
    }
    Program base = *gen_program(c.program);
    switch (*rc::gen::inRange(0, 8)) {
      case 0: return base;
      case 1:
      case 2: return *gen_scheduled(base, c.proposals);
      default: return *gen_tree_scheduled(base, c.tree);
    }
  });
}

// RapidCheck scales every choice (rc::gen::inRange included) by its size parameter, so a
// small size would also make rare choices impossible; the case's size acts through
// case_config instead, and the generator always runs at the nominal size.
rc::Shrinkable<Program> generate_case(const CaseSeed& s) {
  return gen_case(s.size)(rc::Random(s.key), rc::kNominalSize);
}

void set_percent_weight(std::map<std::string, int>& percent, const std::string& assignment) {
  auto eq = assignment.find('=');
  std::string name = assignment.substr(0, eq);
  auto it = percent.find(name);
  std::vector<std::string> names;
  for (const auto& [n, v] : percent) names.push_back(n);
  if (eq == std::string::npos || it == percent.end())
    throw InputError(Diagnostic{"--weight", {}, fmt::format("'{}' is not NAME=PERCENT with NAME one of {}", assignment,
                                                            fmt::join(names, ", "))});
  int v = -1;
  try {
    size_t used = 0;
    v = std::stoi(assignment.substr(eq + 1), &used);
    if (used != assignment.size() - eq - 1) v = -1;
  } catch (const std::exception&) {
  }
  if (v < 0 || v > 100) throw InputError(Diagnostic{"--weight", {}, fmt::format("'{}': a percent is 0..100", assignment)});
  it->second = v;
}

}  // namespace halo::fuzz
