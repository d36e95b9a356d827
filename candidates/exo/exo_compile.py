"""Compiles one Exo procedure to C for `halo exo` and `halo fuzz --target exo`, and
describes its signature so that halo can write the kernel manifest (docs/kernels.md,
"Exo as a candidate").

    python exo_compile.py SCRIPT.py PROC OUTDIR

runs SCRIPT.py as a module (its own directory first on sys.path, as `python SCRIPT.py`
would have it), takes the procedure PROC it defines at module level, compiles it with
Exo's own compiler into OUTDIR/PROC.c and OUTDIR/PROC.h, and writes OUTDIR/signature.json:
the C function's name, the platform its instructions need ("gemmini", "avx512" or "c"),
and one entry per argument in the C function's order after the context: its kind
("size", "index", "stride", "bool", "scalar", "tensor"), Exo and C element types, its
shape (each extent an integer, the name of a size argument, or an expression halo
cannot evaluate), and its roles: "read" and "written" say whether the specification
reads and writes it, "scheduled_read" and "scheduled_written" whether the scheduled
procedure does. The specification is the procedure PROC was scheduled from (PROC itself
when no scheduling primitive produced it; exo-lang 1.0.0 records no provenance across
partial_eval, transpose and add_assertion, so their result is a specification of its
own): halo takes each tensor's role (input, output, inout) from it, so that a rewrite
which stops writing an argument is compared against the values the specification
writes there instead of being checked as an input that stays unchanged.

Exit status: 0 compiled; 2 the script, the procedure or Exo rejected it (the message is
on stderr; for a fuzzing campaign this is a schedule Exo refused, not a finding); 3 Exo
is not importable in this interpreter.
"""

import importlib.util
import json
import os
import sys
import traceback


def fail(status, message):
    sys.stderr.write(message.rstrip() + "\n")
    sys.exit(status)


try:
    import exo
    from exo.API import Procedure, compile_procs_to_strings
    from exo.core.LoopIR import LoopIR
except Exception as e:  # noqa: BLE001 - any import failure means the same to halo
    fail(3, f"exo-lang is not importable by {sys.executable}: {e}")


def exo_version():
    try:
        from importlib.metadata import version

        return version("exo-lang")
    except Exception:  # noqa: BLE001
        return "unknown"


def type_name(t):
    return type(t).__name__.lower()


class Effects:
    """Which buffers a statement list reads and which it writes, through calls (a callee's
    arguments map to the caller's buffers) and window aliases (`W = A[...]`)."""

    def __init__(self):
        self.reads, self.writes = set(), set()

    def stmts(self, body, alias):
        # a window statement binds its name for the rest of its own block, at any depth
        for s in body:
            self.pending_alias = None
            self.stmt(s, alias)
            if self.pending_alias is not None:
                alias = self.pending_alias
        self.pending_alias = None

    def root(self, name, alias):
        return alias.get(name, name)

    def expr(self, e, alias):
        if isinstance(e, (LoopIR.Read, LoopIR.WindowExpr)):
            self.reads.add(self.root(e.name, alias))
        for field in ("idx", "args"):
            for sub in getattr(e, field, None) or []:
                self.expr(sub, alias)
        for field in ("lhs", "rhs", "arg", "cond", "pt", "lo", "hi"):
            sub = getattr(e, field, None)
            if sub is not None and not isinstance(sub, (list, str, int, float)):
                self.expr(sub, alias)

    def stmt(self, s, alias):
        if isinstance(s, (LoopIR.Assign, LoopIR.Reduce)):
            target = self.root(s.name, alias)
            self.writes.add(target)
            if isinstance(s, LoopIR.Reduce):
                self.reads.add(target)
            for i in s.idx:
                self.expr(i, alias)
            self.expr(s.rhs, alias)
        elif isinstance(s, LoopIR.For):
            self.expr(s.lo, alias)
            self.expr(s.hi, alias)
            self.stmts(s.body, alias)
        elif isinstance(s, LoopIR.If):
            self.expr(s.cond, alias)
            self.stmts(s.body, alias)
            self.stmts(s.orelse, alias)
        elif isinstance(s, LoopIR.WindowStmt):
            alias = dict(alias)
            alias[s.name] = self.root(s.rhs.name, alias)
            # a window statement binds a name for the rest of the block: record it for the caller
            self.pending_alias = alias
        elif isinstance(s, LoopIR.Call):
            inner = Effects()
            inner.stmts(s.f.body, {})
            for actual, formal in zip(s.args, s.f.args):
                name = getattr(actual, "name", None)
                if isinstance(actual, (LoopIR.Read, LoopIR.WindowExpr)) and name is not None:
                    if formal.name in inner.writes:
                        self.writes.add(self.root(name, alias))
                    if formal.name in inner.reads:
                        self.reads.add(self.root(name, alias))
                    for sub in getattr(actual, "idx", []):
                        self.expr(sub, alias)
                else:
                    self.expr(actual, alias)

    def block(self, body):
        self.stmts(body, {})


def extent(e, sizes):
    if isinstance(e, LoopIR.Const):
        return int(e.val)
    if isinstance(e, LoopIR.Read) and not e.idx and str(e.name) in sizes:
        return str(e.name)
    return {"expr": str(e)}


def specification_of(p):
    """The procedure p was scheduled from: each signature-preserving primitive records
    its input as the result's `_provenance_eq_Procedure`, back to a procedure no
    primitive produced (p itself if unscheduled). Exo 1.0.0's `Procedure._root()` is no
    help here: it is a cursor on p's own tree."""
    seen = set()
    while getattr(p, "_provenance_eq_Procedure", None) is not None and id(p) not in seen:
        seen.add(id(p))
        p = p._provenance_eq_Procedure
    return p


def effects_of(p):
    """[(argument name, read, written)] of a procedure, in argument order."""
    eff = Effects()
    eff.block(p._loopir_proc.body)
    return [(str(a.name), a.name in eff.reads, a.name in eff.writes) for a in p._loopir_proc.args]


def spec_roles(p):
    """{argument name of p: (read, written)} as the specification has them."""
    sched = effects_of(p)
    spec = effects_of(specification_of(p))
    if [n for n, _, _ in spec] == [n for n, _, _ in sched]:
        return {n: (r, w) for n, r, w in spec}
    # Exo's equivalence is of the C interface, which is positional: an argument renamed
    # by a schedule still has its specification's role.
    if len(spec) == len(sched):
        return {n: (r, w) for (n, _, _), (_, r, w) in zip(sched, spec)}
    fail(2, f"error: '{p.name()}' has {len(sched)} arguments but the procedure it was scheduled from, "
            f"'{specification_of(p).name()}', has {len(spec)}: halo cannot tell their roles")


def describe(p):
    ir = p._loopir_proc
    spec = spec_roles(p)
    sched = {n: (r, w) for n, r, w in effects_of(p)}
    sizes = {str(a.name) for a in ir.args if type_name(a.type) == "size"}
    args = []
    for a in ir.args:
        t = a.type
        name = str(a.name)
        entry = {"name": name, "read": spec[name][0], "written": spec[name][1],
                 "scheduled_read": sched[name][0], "scheduled_written": sched[name][1],
                 "mem": getattr(a.mem, "name", lambda: str(a.mem))() if a.mem else "DRAM"}
        tn = type_name(t)
        if tn in ("size", "index", "stride"):
            entry.update(kind=tn, ctype="int_fast32_t")
        elif tn == "bool":
            entry.update(kind="bool", ctype="bool")
        elif tn == "tensor":
            base = t.basetype()
            entry.update(kind="window" if t.is_window else "tensor", type=str(base),
                         ctype=base.ctype(), shape=[extent(e, sizes) for e in t.shape()])
        else:
            entry.update(kind="scalar", type=str(t), ctype=t.ctype())
        args.append(entry)
    return args


def platform_of(c_text):
    if "gemmini_" in c_text or "include/gemmini.h" in c_text:
        return "gemmini"
    if "_mm512_" in c_text or "_mm256_" in c_text or "_mm_" in c_text:
        return "avx512"
    return "c"


def main(argv):
    if len(argv) != 4:
        fail(2, "usage: exo_compile.py SCRIPT.py PROC OUTDIR")
    script, proc_name, outdir = argv[1], argv[2], argv[3]
    script_dir = os.path.dirname(os.path.abspath(script))
    sys.path.insert(0, script_dir)
    try:
        spec = importlib.util.spec_from_file_location("halo_exo_user_script", script)
        if spec is None:
            fail(2, f"{script}: error: cannot load this file as a Python module")
        module = importlib.util.module_from_spec(spec)
        # registered as `python SCRIPT.py` would be: Exo's @config and @instr read their
        # class's source through the module
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    except SystemExit as e:
        # The script's own exit is its failure (status 2 here), never mistaken for this
        # helper's statuses (3 means exo-lang is missing).
        fail(2, f"{script}: error: the script exited (sys.exit({e.code!r})) while it was loaded, "
                f"before '{proc_name}' could be taken from it")
    except BaseException:  # noqa: BLE001 - the user's script or Exo's scheduling rejected it
        fail(2, f"{script}: error: the script failed under Exo {exo_version()}:\n" + traceback.format_exc(limit=6))
    p = getattr(module, proc_name, None)
    if p is None:
        fail(2, f"{script}: error: the script defines no module-level name '{proc_name}'")
    if not isinstance(p, Procedure):
        fail(2, f"{script}: error: '{proc_name}' is a {type(p).__name__}, not an Exo procedure (@proc)")
    try:
        c_text, h_text = compile_procs_to_strings([p], f"{proc_name}.h")
    except BaseException:  # noqa: BLE001
        fail(2, f"{script}: error: Exo {exo_version()} cannot compile '{proc_name}':\n" + traceback.format_exc(limit=6))
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, f"{proc_name}.c"), "w") as f:
        f.write(c_text)
    with open(os.path.join(outdir, f"{proc_name}.h"), "w") as f:
        f.write(h_text)
    sig = {"exo_version": exo_version(), "function": p.name(), "source": f"{proc_name}.c",
           "platform": platform_of(c_text), "args": describe(p)}
    with open(os.path.join(outdir, "signature.json"), "w") as f:
        json.dump(sig, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
