// The Exo kernel generator (exo_gen.hpp): one description, two texts (the Exo script and
// the .halo spec), and a model of the loop names that lets later steps name loops that
// earlier steps created.
#include "fuzz/exo_gen.hpp"

#include <fmt/format.h>

#include "fuzz/case_gen.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#ifndef HALO_EXO_STEPS
#define HALO_EXO_STEPS ""
#endif

namespace halo::fuzz {

std::string exo_steps_dir() {
  const char* v = std::getenv("HALO_EXO_STEPS");
  return v && *v ? v : HALO_EXO_STEPS;
}

std::vector<ExoStepLine> exo_step_log(const std::string& log) {
  std::vector<ExoStepLine> lines;
  std::istringstream in(log);
  const std::string tag = "halo-step ";
  for (std::string line; std::getline(in, line);) {
    size_t colon = line.find(": ");
    size_t a = colon == std::string::npos ? colon : line.find(" | ", colon);
    if (line.rfind(tag, 0) != 0 || a == std::string::npos) continue;
    ExoStepLine l;
    l.status = line.substr(tag.size(), colon - tag.size());
    l.primitive = line.substr(colon + 2, a - colon - 2);
    size_t b = line.find(" | ", a + 3);
    if (b == std::string::npos) continue;  // not a line exo_steps.py's `say` wrote
    l.call = line.substr(a + 3, b - a - 3);
    l.reason = line.substr(b + 3);
    for (size_t k; (k = l.call.find(" ;; ")) != std::string::npos;) l.call.replace(k, 4, "\n");
    lines.push_back(std::move(l));
  }
  return lines;
}

const std::vector<std::string>& exo_drawn_primitives() {
  static const std::vector<std::string> v = {
      "add_loop", "autofission", "autolift_alloc", "bind_config", "bind_expr", "call_eqv", "commute_expr",
      "cut_loop", "delete_buffer", "delete_config", "delete_pass", "divide_dim", "divide_loop",
      "divide_with_recompute", "eliminate_dead_code", "expand_dim", "extract_subproc", "fission",
      "fold_into_reduce", "fuse", "inline", "inline_assign", "inline_window", "insert_noop_call", "insert_pass",
      "join_loops", "left_reassociate_expr", "lift_alloc", "lift_reduce_constant", "lift_scope", "merge_writes",
      "mult_dim", "mult_loops", "parallelize_loop", "rearrange_dim", "remove_loop", "rename", "reorder_loops",
      "reorder_stmts", "replace", "resize_dim", "reuse_buffer", "rewrite_expr", "set_memory", "set_precision",
      "set_window", "shift_loop", "simplify", "sink_alloc", "specialize", "split_write", "stage_mem",
      "unroll_buffer", "unroll_loop", "write_config"};
  return v;
}

const std::map<std::string, std::string>& exo_undrawn_primitives() {
  static const std::map<std::string, std::string> m = {
      {"make_instr", "its C template is the user's claim, which Exo does not check"},
      {"add_unsafe_guard", "unsafe by contract: the user vouches for the guard"}};
  return m;
}

ExoGenWeights::ExoGenWeights() {
  weight = {{"program", 70}, {"matmul", 5}, {"conv1d", 4}, {"conv2d", 4}, {"map", 4}, {"rowsum", 4},
            {"gemmini-matmul", 4}, {"gemmini-replace", 5}};
  for (const auto& p : exo_drawn_primitives()) weight[p] = 10;
  // not a relative weight but a percent: how often the program family keeps a right operand
  // of the same precedence or a double negation (exo_program.hpp)
  weight["right-nested"] = 10;
  weight["window"] = 5;  // likewise a percent: how often a stage writes through a window
  // where the unsound rewrites have been: staging, inlining, loop division and fission,
  // buffer reshaping and reuse
  for (const char* p : {"stage_mem", "divide_loop", "inline_assign", "fission", "lift_alloc", "reorder_loops",
                        "expand_dim", "bind_expr", "simplify", "reuse_buffer", "cut_loop", "fuse"})
    weight[p] = 25;
}

void ExoGenWeights::set(const std::string& assignment) { set_percent_weight(weight, assignment); }

nlohmann::json ExoGenWeights::to_json() const { return weight; }

const char* exo_family_name(ExoFamily f) {
  switch (f) {
    case ExoFamily::Matmul: return "matmul";
    case ExoFamily::Conv1d: return "conv1d";
    case ExoFamily::Conv2d: return "conv2d";
    case ExoFamily::Map: return "map";
    case ExoFamily::RowSum: return "rowsum";
    case ExoFamily::GemminiMatmul: return "gemmini-matmul";
    case ExoFamily::GemminiReplace: return "gemmini-replace";
    case ExoFamily::Program: return "program";
  }
  return "?";
}

namespace {

int64_t size_of(const ExoKernelCase& c, const std::string& name) {
  for (const auto& [n, v] : c.sizes)
    if (n == name) return v;
  return 0;
}

// The output tensor, its pure loops (the index of the element a reduction accumulates)
// and the reduction loops, as the algorithm names them.
struct Shape {
  std::string out;
  std::vector<std::string> pure, reduction;
};

Shape shape_of(ExoFamily f) {
  switch (f) {
    case ExoFamily::Matmul: return {"C", {"i", "j"}, {"k"}};
    case ExoFamily::Conv1d: return {"Y", {"i"}, {"r"}};
    case ExoFamily::Conv2d: return {"Y", {"i", "j"}, {"r", "s"}};
    case ExoFamily::Map: return {"Y", {"i", "j"}, {}};
    case ExoFamily::RowSum: return {"Y", {"i"}, {"j"}};
    case ExoFamily::GemminiMatmul:
    case ExoFamily::GemminiReplace: return {"C", {"io", "jo"}, {"ko"}};
    case ExoFamily::Program: return {"Y", {"i", "j"}, {}};
  }
  return {};
}

// Every value the family's C computes is an integer of small magnitude, so f32 is exact.
const char* const kInputA = "(i * 7 + k * 13 + 1) % 9 - 4";
const char* const kInputB = "(k * 5 + j * 11 + 3) % 7 - 3";

std::string algorithm(const ExoKernelCase& c) {
  const std::string& E = c.elem;
  std::string s;
  switch (c.family) {
    case ExoFamily::Matmul: {
      s += fmt::format("def kernel(N: size, M: size, K: size, A: {0}[N, K] @ DRAM, B: {0}[K, M] @ DRAM", E);
      if (c.bias) s += fmt::format(", Bias: {}[M] @ DRAM", E);
      if (c.scale) s += fmt::format(", Sc: {}[1] @ DRAM", E);
      s += fmt::format(", C: {}[N, M] @ DRAM):\n", E);
      s += "    for i in seq(0, N):\n        for j in seq(0, M):\n";
      s += c.bias ? "            C[i, j] = Bias[j]\n" : "            C[i, j] = 0.0\n";
      s += "            for k in seq(0, K):\n                C[i, j] += A[i, k] * B[k, j]\n";
      if (c.scale) s += "            C[i, j] = C[i, j] * Sc[0]\n";
      if (c.relu) s += "            C[i, j] = relu(C[i, j])\n";
      break;
    }
    case ExoFamily::Conv1d:
      s += fmt::format("def kernel(N: size, R: size, L: size, X: {0}[L] @ DRAM, W: {0}[R] @ DRAM, Y: {0}[N] @ DRAM):\n", E);
      s += "    assert L == N + R - 1\n    for i in seq(0, N):\n        Y[i] = 0.0\n";
      s += "        for r in seq(0, R):\n            Y[i] += X[i + r] * W[r]\n";
      break;
    case ExoFamily::Conv2d:
      s += fmt::format("def kernel(N: size, M: size, R: size, S: size, H: size, V: size, X: {0}[H, V] @ DRAM, "
                       "W: {0}[R, S] @ DRAM, Y: {0}[N, M] @ DRAM):\n",
                       E);
      s += "    assert H == N + R - 1\n    assert V == M + S - 1\n";
      s += "    for i in seq(0, N):\n        for j in seq(0, M):\n            Y[i, j] = 0.0\n";
      s += "            for r in seq(0, R):\n                for s in seq(0, S):\n";
      s += "                    Y[i, j] += X[i + r, j + s] * W[r, s]\n";
      break;
    case ExoFamily::Map:
      s += fmt::format("def kernel(N: size, M: size, X: {0}[N, M] @ DRAM, Z: {0}[N, M] @ DRAM, Y: {0}[N, M] @ DRAM):\n", E);
      s += "    for i in seq(0, N):\n        for j in seq(0, M):\n";
      s += c.relu ? "            Y[i, j] = relu(X[i, j] + Z[i, j])\n" : "            Y[i, j] = X[i, j] + Z[i, j]\n";
      break;
    case ExoFamily::RowSum:
      s += fmt::format("def kernel(N: size, M: size, X: {0}[N, M] @ DRAM, Y: {0}[N] @ DRAM):\n", E);
      s += "    for i in seq(0, N):\n        Y[i] = 0.0\n        for j in seq(0, M):\n            Y[i] += X[i, j]\n";
      break;
    case ExoFamily::GemminiMatmul:
      // Gemmini's instructions from exo.platforms.gemmini, in 16x16 tiles; the rows past the
      // last full tile take a tail path with partial tiles.
      s += "def kernel(N: size, M: size, K: size, A: i8[N, K] @ DRAM, B: i8[K, M] @ DRAM, C: i32[N, M] @ DRAM):\n";
      s += "    assert M % 16 == 0\n    assert K % 16 == 0\n    config_matmul()\n";
      s += "    for io in seq(0, N / 16):\n        for jo in seq(0, M / 16):\n";
      s += "            res: i32[16, 16] @ GEMM_ACCUM\n            zero_acc_i32(16, 16, res)\n";
      s += "            for ko in seq(0, K / 16):\n";
      s += "                a: i8[16, 16] @ GEMM_SCRATCH\n                b: i8[16, 16] @ GEMM_SCRATCH\n";
      s += "                ld_i8(16, 16, A[16 * io : 16 * io + 16, 16 * ko : 16 * ko + 16], a)\n";
      s += "                ld_i8(16, 16, B[16 * ko : 16 * ko + 16, 16 * jo : 16 * jo + 16], b)\n";
      s += "                matmul_acc_i8(16, 16, 16, a, b, res)\n";
      s += "            st_acc_i32(16, 16, res, C[16 * io : 16 * io + 16, 16 * jo : 16 * jo + 16])\n";
      s += "    if N % 16 > 0:\n        for jt in seq(0, M / 16):\n";
      s += "            rest: i32[N % 16, 16] @ GEMM_ACCUM\n            zero_acc_i32(N % 16, 16, rest)\n";
      s += "            for kt in seq(0, K / 16):\n";
      s += "                at: i8[N % 16, 16] @ GEMM_SCRATCH\n                bt: i8[16, 16] @ GEMM_SCRATCH\n";
      s += "                ld_i8(N % 16, 16, A[N - N % 16 : N, 16 * kt : 16 * kt + 16], at)\n";
      s += "                ld_i8(16, 16, B[16 * kt : 16 * kt + 16, 16 * jt : 16 * jt + 16], bt)\n";
      s += "                matmul_acc_i8(N % 16, 16, 16, at, bt, rest)\n";
      s += "            st_acc_i32(N % 16, 16, rest, C[N - N % 16 : N, 16 * jt : 16 * jt + 16])\n";
      break;
    case ExoFamily::GemminiReplace:
      // The int8 operands widened into i32 temporaries, as matmul_acc_i8's own body reads them.
      s += "def kernel(N: size, M: size, K: size, A: i8[N, K] @ DRAM, B: i8[K, M] @ DRAM, C: i32[N, M] @ DRAM):\n";
      s += "    assert M % 16 == 0\n    assert K % 16 == 0\n";
      s += "    for i in seq(0, N):\n        for j in seq(0, M):\n            C[i, j] = 0.0\n";
      s += "            for k in seq(0, K):\n                a: i32\n                b: i32\n";
      s += "                a = A[i, k]\n                b = B[k, j]\n                C[i, j] += a * b\n";
      break;
    case ExoFamily::Program: s += exo_program_proc(c.program); break;
  }
  return s;
}

// The sizes as the procedure's arguments take them: the free ones and the derived ones.
std::vector<std::pair<std::string, int64_t>> all_sizes(const ExoKernelCase& c) {
  auto s = c.sizes;
  if (c.family == ExoFamily::Conv1d) s.push_back({"L", size_of(c, "N") + size_of(c, "R") - 1});
  if (c.family == ExoFamily::Conv2d) {
    s.push_back({"H", size_of(c, "N") + size_of(c, "R") - 1});
    s.push_back({"V", size_of(c, "M") + size_of(c, "S") - 1});
  }
  return s;
}

int64_t pick(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// A size that hits tail paths: around multiples of the split factors as often as inside them.
int64_t tail_size(std::mt19937_64& rng, int64_t hi) {
  static const int64_t interesting[] = {1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33};
  if (pick(rng, 0, 1) == 0) {
    int64_t v = interesting[pick(rng, 0, int64_t(std::size(interesting)) - 1)];
    if (v <= hi) return v;
  }
  return pick(rng, 1, hi);
}

// The schedule that turns the plain int8 matmul into Gemmini's instructions: full 16x16
// tiles of C staged in the accumulator and of A and B in the scratchpad, then a tail of
// N % 16 rows with partial tiles; each loop nest replaced by the instruction whose body it
// now is. Around that fixed core, the variations Exo accepts: the tail strategy (cut
// issues the tail's instructions also when N % 16 is 0), reordering the tile loops,
// lifting the scratch buffers, dividing and unrolling the reduction over tiles.
std::vector<std::string> gemmini_replace_steps(std::mt19937_64& rng) {
  auto chance = [&](int percent) { return std::uniform_int_distribution<int>(0, 99)(rng) < percent; };
  auto n_lifts = [&](int hi) { return std::uniform_int_distribution<int>(1, hi)(rng); };
  std::vector<std::string> s;
  auto tiles = [&](const std::string& j, const std::string& k, const std::string& rows,
                   const std::string& acc, const std::string& a, const std::string& b, const std::string& row0,
                   const std::string& row_extent) {
    s.push_back(fmt::format("divide_loop(p, \"j\", 16, [\"{0}\", \"{0}i\"], perfect=True)", j));
    s.push_back(fmt::format("divide_loop(p, \"k\", 16, [\"{0}\", \"{0}i\"], perfect=True)", k));
    s.push_back(fmt::format("reorder_loops(p, \"ii {}\")", j));
    s.push_back(fmt::format("stage_mem(p, \"C[_] = 0.0 ; _\", \"C[{}+ii, 16*{}+{}i]\", \"{}\")", row0, j, j, acc));
    s.push_back(fmt::format("expand_dim(p, \"{}\", 16, \"{}i\")", acc, j));
    s.push_back(fmt::format("expand_dim(p, \"{}\", \"{}\", \"ii\")", acc, rows));
    s.push_back(fmt::format("lift_alloc(p, \"{}\", n_lifts=2)", acc));
    s.push_back(fmt::format("fission(p, p.find(\"{}[_] = 0.0\").after(), n_lifts=2)", acc));
    s.push_back(fmt::format("fission(p, p.find(\"for {} in _:_\").after(), n_lifts=2)", k));
    s.push_back(fmt::format("reorder_loops(p, \"{}i {}\")", j, k));
    s.push_back(fmt::format("reorder_loops(p, \"ii {}\")", k));
    s.push_back(fmt::format("stage_mem(p, \"for ii in _:_ #1\", \"A[{}:{}, 16*{}:16*{}+16]\", \"{}\")", row0,
                            row_extent, k, k, a));
    s.push_back(fmt::format("stage_mem(p, \"for ii in _:_ #1\", \"B[16*{}:16*{}+16, 16*{}:16*{}+16]\", \"{}\")", k,
                            k, j, j, b));
    s.push_back("simplify(p)");
    s.push_back(fmt::format("set_memory(p, \"{}\", GEMM_ACCUM)", acc));
    s.push_back(fmt::format("set_memory(p, \"{}\", GEMM_SCRATCH)", a));
    s.push_back(fmt::format("set_memory(p, \"{}\", GEMM_SCRATCH)", b));
    s.push_back("replace(p, \"for ii in _:_ #0\", zero_acc_i32)");
    s.push_back("replace(p, \"for i0 in _:_ #0\", ld_i8)");
    s.push_back("replace(p, \"for i0 in _:_ #0\", ld_i8)");
    s.push_back("replace(p, \"for ii in _:_ #0\", matmul_acc_i8)");
    s.push_back("replace(p, \"for ii in _:_ #0\", st_acc_i32)");
  };
  s.push_back(fmt::format("divide_loop(p, \"i\", 16, [\"io\", \"ii\"], tail=\"{}\")",
                          chance(80) ? "cut_and_guard" : "cut"));
  tiles("jo", "ko", "16", "res", "a_s", "b_s", "16*io", "16*io+16");
  if (chance(30)) s.push_back("reorder_loops(p, \"io jo\")");
  tiles("jt", "kt", "N % 16", "rest", "at", "bt", "N/16*16", "N");
  if (chance(30)) s.push_back(fmt::format("lift_alloc(p, \"a_s\", n_lifts={})", n_lifts(3)));
  if (chance(30)) s.push_back(fmt::format("lift_alloc(p, \"b_s\", n_lifts={})", n_lifts(3)));
  if (chance(30)) s.push_back(fmt::format("lift_alloc(p, \"at\", n_lifts={})", n_lifts(3)));
  if (chance(30)) s.push_back(fmt::format("lift_alloc(p, \"bt\", n_lifts={})", n_lifts(3)));
  if (chance(25)) s.push_back(fmt::format("lift_alloc(p, \"res\", n_lifts={})", n_lifts(2)));
  if (chance(25)) s.push_back(fmt::format("lift_alloc(p, \"rest\", n_lifts={})", n_lifts(2)));
  if (chance(30)) {
    s.push_back("divide_loop(p, \"ko\", 2, [\"koo\", \"koi\"], tail=\"cut\")");
    s.push_back("unroll_loop(p, \"koi\")");
  }
  if (chance(20)) s.push_back("reorder_loops(p, \"io jo\")");
  return s;
}

}  // namespace

// One name drawn with the given relative weights (the first when all are 0).
std::string draw_weighted(std::mt19937_64& rng, const std::vector<std::string>& names, const ExoGenWeights& w) {
  int64_t total = 0;
  for (const auto& n : names) total += std::max(0, w.weight.at(n));
  if (total <= 0) return names.front();
  int64_t r = pick(rng, 0, total - 1);
  for (const auto& n : names) {
    r -= std::max(0, w.weight.at(n));
    if (r < 0) return n;
  }
  return names.back();
}

ExoKernelCase generate_exo_case(std::mt19937_64& rng, uint64_t seed, const ExoGenWeights& weights) {
  ExoKernelCase c;
  c.seed = seed;
  static const std::vector<std::string> families = {"matmul", "conv1d", "conv2d", "map", "rowsum",
                                                    "gemmini-matmul", "gemmini-replace", "program"};
  std::string family = draw_weighted(rng, families, weights);
  c.family = ExoFamily(std::find(families.begin(), families.end(), family) - families.begin());
  c.elem = pick(rng, 0, 2) == 0 ? "i32" : "f32";
  if (c.family == ExoFamily::Program) {
    c.program = generate_exo_program(rng, weights.weight.at("right-nested"), weights.weight.at("window"));
    c.elem = c.program.elem;
    c.sizes = {{"N", c.program.n}, {"M", c.program.m}};
    int n = int(pick(rng, 1, 12));
    for (int k = 0; k < n; ++k) c.draws.push_back({draw_weighted(rng, exo_drawn_primitives(), weights), rng()});
    return c;
  }
  switch (c.family) {
    case ExoFamily::Program: break;  // drawn above
    case ExoFamily::Matmul:
      c.bias = pick(rng, 0, 1);
      c.scale = pick(rng, 0, 2) == 0;
      c.relu = pick(rng, 0, 1);
      c.sizes = {{"N", tail_size(rng, 24)}, {"M", tail_size(rng, 24)}, {"K", tail_size(rng, 17)}};
      break;
    case ExoFamily::Conv1d: c.sizes = {{"N", tail_size(rng, 40)}, {"R", pick(rng, 1, 5)}}; break;
    case ExoFamily::Conv2d:
      c.sizes = {{"N", tail_size(rng, 17)}, {"M", tail_size(rng, 17)}, {"R", pick(rng, 1, 3)}, {"S", pick(rng, 1, 3)}};
      break;
    case ExoFamily::Map:
      c.relu = pick(rng, 0, 2) == 0;
      c.sizes = {{"N", tail_size(rng, 17)}, {"M", tail_size(rng, 40)}};
      break;
    case ExoFamily::RowSum: c.sizes = {{"N", tail_size(rng, 17)}, {"M", tail_size(rng, 40)}}; break;
    case ExoFamily::GemminiMatmul:
    case ExoFamily::GemminiReplace:
      c.elem = "i32";
      c.sizes = {{"N", tail_size(rng, 40)}, {"M", 16 * pick(rng, 1, 2)}, {"K", 16 * pick(rng, 1, 2)}};
      break;
  }
  if (c.family == ExoFamily::GemminiReplace) {
    c.steps = gemmini_replace_steps(rng);
    return c;
  }

  // The schedule, on a model of the loop names: a divided loop L becomes Lo and Li.
  Shape sh = shape_of(c.family);
  std::vector<std::string> loops = sh.pure;
  loops.insert(loops.end(), sh.reduction.begin(), sh.reduction.end());
  std::vector<std::string> constant;  // loops with a constant trip count (the inner loops of divisions)
  bool staged = false;
  static const char* const tails[] = {"guard", "cut", "cut_and_guard", "perfect"};
  static const int64_t factors[] = {2, 3, 4, 5, 8, 16};
  int n = int(pick(rng, 0, 6));
  for (int s = 0; s < n; ++s) {
    auto any_loop = [&] { return loops[size_t(pick(rng, 0, int64_t(loops.size()) - 1))]; };
    switch (pick(rng, 0, 9)) {
      case 0:
      case 1: {
        std::string l = any_loop();
        std::string o = l + "o", i = l + "i";
        int64_t f = factors[pick(rng, 0, 5)];
        c.steps.push_back(fmt::format("divide_loop(p, \"{}\", {}, [\"{}\", \"{}\"], tail=\"{}\")", l, f, o, i,
                                      tails[pick(rng, 0, 3)]));
        auto it = std::find(loops.begin(), loops.end(), l);
        *it = i;
        loops.insert(it, o);
        constant.push_back(i);
        break;
      }
      case 2:
        if (loops.size() >= 2) {  // neighbours in the model: a loop and (often) the loop directly inside it
          size_t k = size_t(pick(rng, 0, int64_t(loops.size()) - 2));
          c.steps.push_back(fmt::format("reorder_loops(p, \"{} {}\")", loops[k], loops[k + 1]));
        }
        break;
      case 3:
        if (!constant.empty())
          c.steps.push_back(
              fmt::format("unroll_loop(p, \"{}\")", constant[size_t(pick(rng, 0, int64_t(constant.size()) - 1))]));
        break;
      case 4:
        if (!sh.reduction.empty() && c.family != ExoFamily::GemminiMatmul) {
          std::string idx;
          for (const auto& v : sh.pure) idx += (idx.empty() ? "" : ", ") + v;
          c.steps.push_back(fmt::format("stage_mem(p, \"for {} in _: _\", \"{}[{}]\", \"{}_acc\")", sh.reduction[0],
                                        sh.out, idx, sh.out));
          staged = true;
        }
        break;
      case 5:
        if (staged) c.steps.push_back(fmt::format("lift_alloc(p, \"{}_acc\", n_lifts={})", sh.out, pick(rng, 1, 2)));
        else if (c.family == ExoFamily::GemminiMatmul) {
          int lifts = pick(rng, 1, 2);  // drawn first, as GCC did: argument order is the compiler's
          c.steps.push_back(fmt::format("lift_alloc(p, \"{}\", n_lifts={})", pick(rng, 0, 1) ? "a" : "b", lifts));
        }
        break;
      case 6:
        if (c.family != ExoFamily::Map && c.family != ExoFamily::GemminiMatmul)
          c.steps.push_back(fmt::format("fission(p, p.find(\"{}[_] = _\").after(), n_lifts={})", sh.out, pick(rng, 1, 2)));
        break;
      case 7: c.steps.push_back("simplify(p)"); break;
      case 8:
        // Replace the innermost rows with Exo's AVX-512 instructions (f32 element-wise maps).
        if (c.family == ExoFamily::Map && c.elem == "f32") c.steps.push_back("_avx512_rows(p)");
        break;
      case 9:
        if (loops.size() >= 2) c.steps.push_back(fmt::format("reorder_loops(p, \"{} {}\")", loops[0], loops[1]));
        break;
    }
  }
  return c;
}

std::string exo_script_prelude(const ExoKernelCase& c) {
  std::string s = "from __future__ import annotations\n\nfrom exo import compile_procs_to_strings, proc\n"
                  "from exo.libs.externs import relu\nfrom exo.platforms.x86 import *\nfrom exo.stdlib.scheduling import *\n";
  if (c.family == ExoFamily::GemminiMatmul || c.family == ExoFamily::GemminiReplace)
    s += "from exo.platforms.gemmini import *\n";
  if (c.family == ExoFamily::Program)
    // The configuration and the no-op instruction that write_config, bind_config and
    // insert_noop_call take; the memories set_memory chooses from.
    s += "from exo import DRAM, config, instr\nfrom exo.libs.externs import select\n"
         "from exo.libs.memories import DRAM_STACK, DRAM_STATIC\n\n\n"
         "@config\nclass Cfg:\n    vi: i32\n    vf: f32\n    ix: index\n\n\n"
         "@instr(\"(void)0;\")\ndef halo_noop():\n    pass\n";
  return s + "\n\n@proc\n" + algorithm(c);
}

std::string exo_case_script(const ExoKernelCase& c) {
  std::string s = fmt::format(
      "# halo fuzz --target exo: a {} kernel ({}), seed {}; its spec is the .halo file beside this one.\n"
      "# Re-run: halo exo THIS.py scheduled --spec THIS.halo",
      exo_family_name(c.family), c.elem, c.seed);
  for (const auto& [name, func] : exo_case_inits(c)) s += fmt::format(" --init {}={}", name, func);
  s += "\n" + exo_script_prelude(c);
  if (c.family == ExoFamily::Program) {
    s += fmt::format("\n\nimport sys  # noqa: E402\n\nsys.path.insert(0, {:?})\nimport exo_steps  # noqa: E402 - "
                     "fuzz/exo_steps.py: each draw becomes one call, logged as its literal Python\n\n",
                     exo_steps_dir());
    s += "p = exo_steps.run(kernel, [\n";
    for (const auto& [prim, seed] : c.draws) s += fmt::format("    ({:?}, {}),\n", prim, seed);
    s += "], globals())\nscheduled = p\n";
    return s;
  }
  s += R"PY(

def _avx512_rows(p):
    # the inner loop in 16-wide rows (tail cut off), each row staged in AVX-512 registers
    p = divide_loop(p, "j", 16, ["jv", "jl"], tail="cut")
    for buf, reg in (("X", "xv"), ("Z", "zv"), ("Y", "yv")):
        p = simplify(stage_mem(p, "for jl in _: _ #0", f"{buf}[i, 16 * jv:16 * jv + 16]", reg))
        p = set_memory(p, reg, AVX512)
    p = replace_all(p, [mm512_loadu_ps, mm512_storeu_ps, mm512_add_ps])
    compile_procs_to_strings([p], "check.h")  # a register left with scalar accesses: the step is rejected
    return p


def _step(p, text, step):
    # a step Exo rejects leaves the procedure as it was: a rejection is not a finding
    try:
        q = step(p)
        print("halo-step applied:", text)
        return q
    except Exception as e:  # noqa: BLE001 - every Exo rejection is the same to the campaign
        print("halo-step rejected:", text, "-", type(e).__name__)
        return p


p = kernel
)PY";
  for (const auto& st : c.steps) {
    std::string quoted;
    for (char ch : st) quoted += ch == '\'' ? std::string("\\'") : std::string(1, ch);
    s += fmt::format("p = _step(p, '{}', lambda p: {})\n", quoted, st);
  }
  s += "scheduled = p\n";
  return s;
}

std::string exo_case_spec(const ExoKernelCase& c) {
  if (c.family == ExoFamily::Program) return exo_program_spec(c.program);
  auto sizes = all_sizes(c);
  std::string params, realize;
  for (const auto& [n, v] : sizes) {
    params += (params.empty() ? "" : ", ") + n;
    realize += fmt::format("{}{} = {}", realize.empty() ? "" : ", ", n, v);
  }
  Shape sh = shape_of(c.family);
  std::string s = fmt::format("# halo fuzz --target exo: what the {} kernel beside this file computes.\n",
                              exo_family_name(c.family));
  s += fmt::format("pipeline {}({}) {{\n", sh.out, params);
  std::string over;
  switch (c.family) {
    case ExoFamily::Program: break;  // written above
    case ExoFamily::Matmul:
    case ExoFamily::GemminiMatmul:
    case ExoFamily::GemminiReplace:
      s += fmt::format("  fun A(i, k) = {{ {} }}\n  fun B(k, j) = {{ {} }}\n", kInputA, kInputB);
      if (c.bias) s += "  fun Bias(j) = { j % 11 - 5 }\n";
      if (c.scale) s += "  fun Sc(i) = { 3 }\n";
      s += fmt::format("  fun acc(i, j) = {{\n    {};\n    rdom(q = (0, K)) in (i, j) <- acc[i, j] + A[i, q] * B[q, j]\n  }}\n",
                       c.bias ? "Bias[j]" : "0");
      {
        std::string e = c.scale ? "acc[i, j] * Sc[0]" : "acc[i, j]";
        if (c.relu) e = "max(0, " + e + ")";
        s += fmt::format("  fun poison(i, j) = {{ 77 }}\n  fun C(i, j) = {{ {} }}\n", e);
      }
      over = fmt::format("(0, {}), (0, {})", size_of(c, "N"), size_of(c, "M"));
      break;
    case ExoFamily::Conv1d:
      s += "  fun X(i) = { (i * 5 + 2) % 9 - 4 }\n  fun W(r) = { r % 5 - 2 }\n  fun poison(i) = { 77 }\n";
      s += "  fun Y(i) = {\n    0;\n    rdom(q = (0, R)) in (i) <- Y[i] + X[i + q] * W[q]\n  }\n";
      over = fmt::format("(0, {})", size_of(c, "N"));
      break;
    case ExoFamily::Conv2d:
      s += "  fun X(i, j) = { (i * 5 + j * 3 + 2) % 9 - 4 }\n  fun W(r, s) = { (r * 2 + s) % 5 - 2 }\n";
      s += "  fun poison(i, j) = { 77 }\n";
      s += "  fun Y(i, j) = {\n    0;\n    rdom(q = (0, R), t = (0, S)) in (i, j) <- Y[i, j] + X[i + q, j + t] * W[q, t]\n  }\n";
      over = fmt::format("(0, {}), (0, {})", size_of(c, "N"), size_of(c, "M"));
      break;
    case ExoFamily::Map:
      s += "  fun X(i, j) = { (i * 7 + j * 3) % 13 - 6 }\n  fun Z(i, j) = { (i + j * 5) % 11 - 5 }\n";
      s += c.relu ? "  fun Y(i, j) = { max(0, X[i, j] + Z[i, j]) }\n" : "  fun Y(i, j) = { X[i, j] + Z[i, j] }\n";
      over = fmt::format("(0, {}), (0, {})", size_of(c, "N"), size_of(c, "M"));
      break;
    case ExoFamily::RowSum:
      s += "  fun X(i, j) = { (i * 7 + j * 3) % 13 - 6 }\n  fun poison(i) = { 77 }\n";
      s += "  fun Y(i) = {\n    0;\n    rdom(q = (0, M)) in (i) <- Y[i] + X[i, q]\n  }\n";
      over = fmt::format("(0, {})", size_of(c, "N"));
      break;
  }
  s += "}\n\n" + fmt::format("realize ({}) over {}\n", realize, over);
  return s;
}

std::vector<std::pair<std::string, std::string>> exo_case_inits(const ExoKernelCase& c) {
  // Outputs the algorithm accumulates into are read and written: they start as a poison
  // value, so an element the kernel never writes cannot pass by accident.
  switch (c.family) {
    case ExoFamily::Program: return exo_program_inits(c.program);
    case ExoFamily::Matmul:
    case ExoFamily::GemminiReplace: return {{"C", "poison"}};
    case ExoFamily::Conv1d:
    case ExoFamily::Conv2d:
    case ExoFamily::RowSum: return {{"Y", "poison"}};
    default: return {};
  }
}

std::vector<ExoKernelCase> exo_case_shrinks(const ExoKernelCase& c) {
  std::vector<ExoKernelCase> out;
  if (c.family == ExoFamily::Program) {
    // the smallest schedule first: each draw dropped; then the program made smaller
    for (size_t i = 0; i < c.draws.size(); ++i) {
      ExoKernelCase d = c;
      d.draws.erase(d.draws.begin() + std::ptrdiff_t(i));
      out.push_back(d);
    }
    for (auto& q : exo_program_shrinks(c.program)) {
      ExoKernelCase d = c;
      d.program = std::move(q);
      d.sizes = {{"N", d.program.n}, {"M", d.program.m}};
      out.push_back(d);
    }
    return out;
  }
  for (size_t i = 0; i < c.steps.size(); ++i) {
    ExoKernelCase d = c;
    d.steps.erase(d.steps.begin() + std::ptrdiff_t(i));
    out.push_back(d);
  }
  for (size_t i = 0; i < c.sizes.size(); ++i) {
    int64_t v = c.sizes[i].second;
    bool gemmini_multiple = (c.family == ExoFamily::GemminiMatmul || c.family == ExoFamily::GemminiReplace) &&
                            c.sizes[i].first != "N";
    for (int64_t smaller : {v / 2, v - 1}) {
      if (smaller < 1 || smaller >= v) continue;
      if (gemmini_multiple && smaller % 16 != 0) continue;
      ExoKernelCase d = c;
      d.sizes[i].second = smaller;
      out.push_back(d);
    }
  }
  return out;
}

}  // namespace halo::fuzz
