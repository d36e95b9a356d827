// The standalone reproducer of a TVM case (tvm_oracle.hpp): the script the worker ran, the
// case's inputs, and the values halo expects on R(z), in one Python file that needs only
// TVM and NumPy. It runs the schedule, builds, runs twice inside guard zones filled with
// two different sentinels, and prints every differing point with its expected and actual
// value and every guard byte TVM wrote, so that a TVM maintainer sees the bug without halo.
#include "candidates/tvm/translate.hpp"
#include "candidates/tvm/tvm_oracle.hpp"
#include "interp/fast_eval.hpp"
#include "semantics/printer.hpp"
#include "support/diagnostics.hpp"

#include <fmt/format.h>

namespace halo::tvm {

namespace {

std::string py_value(const Value& v) {
  if (v.is_error()) return "None";
  if (v.is_float()) return std::to_string(v.float_bits());
  return v.to_string();
}

std::string py_values(const std::vector<Value>& vs) {
  std::string s = "[";
  for (size_t k = 0; k < vs.size(); ++k) {
    if (k) s += k % 16 ? ", " : ",\n    ";
    s += py_value(vs[k]);
  }
  return s + "]";
}

std::string py_box(const std::vector<std::pair<int64_t, int64_t>>& box) {
  std::vector<std::string> s;
  for (const auto& [mn, len] : box) s.push_back(fmt::format("({}, {})", mn, len));
  return fmt::format("[{}]", fmt::join(s, ", "));
}

constexpr const char* kRunner = R"PY(

def as_array(dtype, shape, values):
    # Floats travel as their IEEE bits, so that every value is exact.
    bits = {"float32": "uint32", "float64": "uint64"}.get(dtype)
    a = np.array(values, dtype=bits or dtype).reshape(shape)
    return a.view(dtype) if bits else a


GUARD = 4096


def guarded(dtype, shape, values, sentinel):
    """The buffer as a view into a larger allocation whose guard zones hold `sentinel`."""
    itemsize = np.dtype(dtype).itemsize
    size = int(np.prod(shape)) * itemsize
    raw = np.full(2 * GUARD + size + 64, sentinel, dtype=np.uint8)
    start = (-raw.ctypes.data) % 64 + GUARD
    if values is not None:
        raw[start:start + size] = as_array(dtype, shape, values).view(np.uint8).reshape(-1)
    view = raw[start:start + size].view(dtype).reshape(shape)
    return raw, start, size, view


def to_tvm(view):
    return tvm.runtime.from_dlpack(view) if hasattr(tvm.runtime, "from_dlpack") else tvm.nd.from_dlpack(view)


def run_once(lib, sentinel):
    bufs = [guarded(d, s, v, sentinel) for (_, d, s, v) in ARGS]
    lib(*[to_tvm(b[3]) for b in bufs])
    damage = []
    for (name, dtype, shape, _), (raw, start, size, _) in zip(ARGS, bufs):
        item = np.dtype(dtype).itemsize
        for k in np.nonzero(raw[:start] != sentinel)[0][:10]:
            damage.append(f"{name}: element {(int(k) - start) // item} (before the buffer) written")
        for k in np.nonzero(raw[start + size:] != sentinel)[0][:10]:
            damage.append(f"{name}: element {(size + int(k)) // item} (after the buffer) written")
    return bufs[-1][3].copy(), damage


def main():
    sch = tvm.s_tir.Schedule(Module)
    schedule(sch)
    lib = tvm.compile(sch.mod, target="llvm")
    out1, damage1 = run_once(lib, 0xA5)
    out2, damage2 = run_once(lib, 0x5A)
    dtype = ARGS[-1][1]
    bits = {"float32": "uint32", "float64": "uint64"}.get(dtype)
    wrong = 0
    for k, want in enumerate(EXPECTED):
        point, rest = [], k
        for (mn, ln) in WINDOW:
            point.append(mn + (rest % ln if ln else 0))
            rest = rest // ln if ln else 0
        index = tuple(p - mn for p, (mn, _) in reversed(list(zip(point, BOX))))
        got1, got2 = out1[index], out2[index]
        have = int(got1.view(bits)) if bits else int(got1)
        if want is None:
            continue  # undefined in Halide's semantics (e.g. a signed 32-bit overflow)
        if have != want or (got1 != got2 and not (bits and np.isnan(got1) and np.isnan(got2))):
            wrong += 1
            if wrong <= 10:
                shown = as_array(dtype, (), [want]) if bits else want
                print(f"at {tuple(point)}: expected {shown!r}, TVM computed {got1.item()!r}"
                      + (f" (then {got2.item()!r} with other guard bytes)" if got1 != got2 else ""))
    for d in damage1 + damage2:
        print("memory:", d)
    defined = sum(e is not None for e in EXPECTED)
    print(f"{wrong} wrong point(s) of {defined} compared; {len(damage1) + len(damage2)} guard byte region(s) written")
    print("tvm", tvm.__version__)
    sys.exit(1 if wrong or damage1 or damage2 else 0)


if __name__ == "__main__":
    main()
)PY";

}  // namespace

std::string tvm_reproducer(const Program& prog, const Input& in, const TvmVerdict& v, const TvmOptions& opt) {
  auto translated = translate_to_tvm(prog, in);
  if (auto* err = std::get_if<TvmTranslationError>(&translated))
    throw InputError(Diagnostic{prog.file, {}, "no TVM reproducer: " + err->message});
  const TvmCase& c = std::get<TvmCase>(translated);
  OutputBuffer ref = evaluate_fast(prog.pipeline, in, opt.reference_limits);
  std::string s = "#!/usr/bin/env python3\n";
  s += fmt::format("# A TVM {} on a TensorIR program and schedule (halo: {}).\n", v.outcome, v.signature);
  s += fmt::format("# Reproduces with: apache-tvm {}. Needs only TVM and NumPy: python3 {}.\n", v.version,
                   "THIS_FILE.py");
  s += "# The program, as halo wrote it (the .halo source is below, commented):\n#\n";
  std::string source = print_program(prog);
  for (size_t at = 0; at < source.size();) {
    size_t end = source.find('\n', at);
    if (end == std::string::npos) end = source.size();
    s += "#   " + source.substr(at, end - at) + "\n";
    at = end + 1;
  }
  for (const std::string& n : v.notes) s += "# note: " + n + "\n";
  s += "import sys\n\nimport numpy as np\n";
  s += c.script();
  s += "\n\n# (name, dtype, shape, values): the prim_func's buffers; the output's values are TVM's to write.\nARGS = [\n";
  for (const TvmBuffer& a : c.args) {
    std::vector<std::string> dims;
    for (int64_t d : a.shape()) dims.push_back(std::to_string(d));
    s += fmt::format("    ({:?}, {:?}, ({}{}), {}),\n", a.name, tvm_dtype(a.type), fmt::join(dims, ", "),
                     dims.size() == 1 ? "," : "", a.is_output ? "None" : py_values(a.values));
  }
  s += "]\n";
  std::vector<std::pair<int64_t, int64_t>> window;
  for (const Interval& w : ref.window) window.emplace_back(w.min.small(), w.len.small());
  s += fmt::format("WINDOW = {}  # R(z): (min, extent) per dimension, the first fastest\n", py_box(window));
  s += fmt::format("BOX = {}  # the output buffer's region in the same coordinates\n", py_box(c.args.back().box));
  s += "# What halo's semantics computes on R(z) (floats as IEEE bits; None: undefined).\n";
  s += "EXPECTED = " + py_values(ref.values) + "\n";
  s += kRunner;
  return s;
}

}  // namespace halo::tvm
