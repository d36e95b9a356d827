// The Exo campaign's standalone reproducers (exo_reproducer.hpp).
#include "fuzz/exo_reproducer.hpp"

#include "candidates/kernel/kernel.hpp"
#include "semantics/parser.hpp"

#include <fmt/format.h>

namespace halo::fuzz {

std::vector<std::string> exo_applied_calls(const std::string& log) {
  std::vector<std::string> calls;
  for (const auto& l : exo_step_log(log))
    if ((l.status == "applied" || l.status == "crashed") && !l.call.empty()) calls.push_back(l.call);
  return calls;
}

namespace {

// A func's values on the box, as a Python list literal (row-major).
std::string values_of(const Pipeline& pipe, const std::vector<Value>& params, const std::string& func,
                      const std::vector<int64_t>& dims) {
  Limits lim;
  std::vector<Value> v = kernel_reference_values(pipe, params, func, dims, lim);
  std::string s = "[";
  for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + v[k].to_string();
  return s + "]";
}

}  // namespace

std::string exo_program_reproducer(const ExoKernelCase& c, const std::vector<std::string>& calls,
                                   const std::string& what) {
  const ExoProgram& p = c.program;
  Program spec = parse_program(exo_program_spec(p), "spec.halo");
  std::vector<Value> params = {Value(p.n), Value(p.m)};
  std::string s = fmt::format(
      "\"\"\"Exo reproducer written by halo (halo fuzz --target exo, seed {}).\n\n"
      "The procedure `kernel` below and the schedule after it are all there is: run\n"
      "    python3 THIS.py\n"
      "with exo-lang installed and a C compiler (`cc`, or $CC). It compiles the scheduled and the\n"
      "unscheduled procedure with the installed Exo, runs both on the inputs below, and prints\n"
      "expected beside actual values. Expected values are halo's reference semantics of the\n"
      "unscheduled procedure (its .halo spec), independent of Exo. Exit status 1: the\n"
      "scheduled procedure is wrong (or Exo crashed, or its C did not compile); 0: it is right.\n\n"
      "What halo saw with exo-lang 1.0.0: {}\n\"\"\"\n",
      c.seed, what);
  s += exo_script_prelude(c);
  s += "\n\np = kernel\n";
  for (const auto& call : calls) s += call + "\n";
  s += "scheduled = p\n\n";
  s += fmt::format("N, M = {}, {}\nELEM = {:?}\n", p.n, p.m, p.elem);
  s += fmt::format("X = {}  # X[{}, {}], row-major\n", values_of(spec.pipeline, params, "X", {p.px, p.qx}), p.px, p.qx);
  s += fmt::format("Z = {}\n", values_of(spec.pipeline, params, "Z", {p.pz}));
  s += "INIT = {" + fmt::format("\"Y\": {}", values_of(spec.pipeline, params, "Y0", {p.n, p.m}));
  if (p.use_w) s += fmt::format(", \"W\": {}", values_of(spec.pipeline, params, "W0", {p.n, p.m}));
  s += "}\nEXPECTED = {" + fmt::format("\"Y\": {}", values_of(spec.pipeline, params, "Y", {p.n, p.m}));
  if (p.use_w) s += fmt::format(", \"W\": {}", values_of(spec.pipeline, params, "W", {p.n, p.m}));
  s += "}\n";
  s += R"PY(

import ctypes
import os
import shlex
import subprocess
import sys
import tempfile


def run(proc):
    """Compiles proc with Exo and runs it; returns the outputs, or the reason it could not."""
    ct = ctypes.c_float if ELEM == "f32" else ctypes.c_int32
    with tempfile.TemporaryDirectory() as d:
        c_text, h_text = compile_procs_to_strings([proc], "proc.h")
        with open(os.path.join(d, "proc.c"), "w") as f:
            f.write(c_text)
        with open(os.path.join(d, "proc.h"), "w") as f:
            f.write(h_text)
        cc = shlex.split(os.environ.get("CC", "cc"))
        r = subprocess.run(cc + ["-O0", "-shared", "-fPIC", "-o", os.path.join(d, "proc.so"), os.path.join(d, "proc.c")],
                           capture_output=True, text=True)
        if r.returncode != 0:
            return None, "its C does not compile:\n" + r.stderr[:2000]
        try:
            lib = ctypes.CDLL(os.path.join(d, "proc.so"))
        except OSError as e:  # a function the C calls and never defines
            return None, f"its C does not link: {e}"
        fn = getattr(lib, proc.name())
        ctxt = ctypes.create_string_buffer(4096)
        bufs = {"X": (ct * len(X))(*X), "Z": (ct * len(Z))(*Z)}
        for name, init in INIT.items():
            bufs[name] = (ct * len(init))(*init)
        args = [ctxt, ctypes.c_long(N), ctypes.c_long(M), bufs["X"], bufs["Z"], bufs["Y"]]
        if "W" in INIT:
            args.append(bufs["W"])
        fn(*args)
        return {name: list(bufs[name]) for name in INIT}, ""


def show(label, got, note):
    if got is None:
        print(f"{label}: {note}")
        return True
    wrong = False
    for name, want in EXPECTED.items():
        bad = [k for k, (a, b) in enumerate(zip(want, got[name])) if a != b]
        if not bad:
            print(f"{label}: {name} is right ({len(want)} elements)")
            continue
        wrong = True
        print(f"{label}: {name}: {len(bad)} of {len(want)} elements differ")
        for k in bad[:8]:
            print(f"  {name}[{k // M}, {k % M}]: expected {want[k]}, actual {got[name][k]}")
    return wrong


try:
    import importlib.metadata

    version = importlib.metadata.version("exo-lang")
except Exception:  # noqa: BLE001 - a source checkout has no metadata
    version = "unknown (source)"
print(f"Exo {version} from {os.path.dirname(sys.modules['exo'].__file__)}")
print(scheduled)
wrong_scheduled = show("scheduled", *run(scheduled))
wrong_unscheduled = show("unscheduled", *run(kernel))
if wrong_scheduled and wrong_unscheduled:
    print("both are wrong: Exo's C code generation, not the schedule")
elif wrong_scheduled:
    print("only the scheduled procedure is wrong: a rewrite changed what the procedure computes")
sys.exit(1 if wrong_scheduled else 0)
)PY";
  return s;
}

}  // namespace halo::fuzz
