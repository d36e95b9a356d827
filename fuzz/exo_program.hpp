// The "program" family of `halo fuzz --target exo` (docs/kernels.md, "Fuzzing Exo"): random
// loop nests over two output tensors that Exo's scheduling language can rewrite in every
// way it has, written twice from one description: as an Exo procedure and as its .halo
// spec (each loop nest a sequential rdom update, so a statement that reads the tensor it
// writes, at another element, means in the spec exactly what it means in Exo).
//
// Where Exo's rewrites have gone wrong, the description reaches: index expressions with
// every operator and grouping Exo's quasi-affine indexing allows (`a * (b % c)`,
// `a - (b - c)`, `a / (b * c)`), guarded and partial writes (a block that writes only some
// of a window), reads of the tensor being written at other elements (aliasing), scalar and
// row temporaries (inline_assign, lift/sink/expand/divide...), windows (`yr = Y[i, 0:M]`),
// in-out arguments, and value expressions with + - * / unary minus, select and relu.
// Ranges are checked as the case is drawn: every index is inside its tensor on the whole
// box Exo's assertions allow, every division's numerator is non-negative (C and the spec
// then agree), and every value stays below 2^20 (f32 is exact).
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace halo::fuzz {

struct ExoExpr;
using ExoExprPtr = std::shared_ptr<const ExoExpr>;

struct ExoExpr {
  // Eq and Lt only in guards; Select(a, b, c, d) is Exo's `a < b ? c : d`
  enum class Op { Const, Var, Size, Read, Temp, Add, Sub, Mul, Div, Mod, Eq, Lt, Neg, Select, Relu } op = Op::Const;
  int64_t value = 0;         // Const; Div/Mod's divisor is args[1], a Const (or a product of two)
  std::string name;          // Var (i, j), Size (N, M), Read (the tensor), Temp (the temporary)
  std::vector<ExoExprPtr> args;
};

struct ExoStage {
  std::string target;               // "Y" or "W"
  bool reduce = false;              // `+=` rather than `=`
  int j_lo = 0, j_hi_minus = 0;     // the j loop is seq(j_lo, M - j_hi_minus)
  bool reversed_write = false;      // writes target[i, M - 1 - j] (the j range must be the whole row)
  ExoExprPtr guard;                 // a condition on i and j, or null
  ExoExprPtr temp;                  // `t: T; t = temp` before the write, read as Temp "t" (or null)
  ExoExprPtr row;                   // a row temporary: `tb: T[M]` filled with tb[j] = row, read as Temp "tb"
  ExoExprPtr rhs;
  bool window = false;              // the write (and same-row reads) go through `yr = target[i, 0:M]`
};

struct ExoProgram {
  std::string elem = "i32";  // "i32" or "f32"
  int64_t n = 1, m = 1;      // the sizes N and M
  int64_t px = 1, qx = 1, pz = 1;  // the constant shapes of the inputs X[px, qx] and Z[pz]
  bool use_w = false;        // a second in-out tensor W
  std::vector<ExoStage> stages;
};

// `right_nested_percent`: how often a right operand of the same precedence, or a negation
// of a negation, is kept (exo-lang 1.0.0 prints both wrong in C; 100 keeps every one drawn);
// `window_percent`: how often a stage writes through a window (which exo-lang 1.0.0
// declares read-only in C).
ExoProgram generate_exo_program(std::mt19937_64& rng, int right_nested_percent = 100, int window_percent = 20);

// The algorithm as the body of `@proc def kernel(...)` (no decorator).
std::string exo_program_proc(const ExoProgram& p);
// The .halo spec: funcs X, Z (inputs), Y0, W0 (initial contents) and Y, W.
std::string exo_program_spec(const ExoProgram& p);
// The in-out tensors and the func each starts as (--init).
std::vector<std::pair<std::string, std::string>> exo_program_inits(const ExoProgram& p);
// Smaller programs: a stage dropped, a guard, temporary or window removed, an
// operand in place of an operator, a size reduced. The shapes of X and Z are recomputed,
// and a variant that breaks a range check is not offered.
std::vector<ExoProgram> exo_program_shrinks(const ExoProgram& p);
// Recomputes the input shapes and checks every range; false when the program breaks one.
bool finish_exo_program(ExoProgram& p);

}  // namespace halo::fuzz
