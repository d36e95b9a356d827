"""The scheduling steps of `halo fuzz --target exo` (docs/kernels.md, "Fuzzing Exo").

A generated case script holds its schedule as a list of draws, `("divide_loop", 1234)`:
a primitive of Exo's scheduling language and a seed. This module turns each draw into one
call of that primitive on the procedure as it is at that point: the seed picks the cursor
(a loop, a statement, a gap, an allocation, an expression, a window, ...) among those the
procedure has, and the arguments, preferring the ones where rewrites go wrong (partial
windows, tails, aliasing writes, nested divisions). Choosing at run time, from the real
procedure, is what lets a step name a loop or a buffer that an earlier step created, and
lets the shrinker drop any step without breaking the ones after it.

Every call is logged as the literal Python that makes it (`p = divide_loop(p,
p.body()[2].body()[0], 4, ['jo', 'ji'], tail='cut')`), so a finding's reproducer is a
plain Exo script with no dependency on this module.

A step Exo refuses (SchedulingError, or its argument checks' TypeError/ValueError) leaves
the procedure unchanged; any other exception from inside Exo is an internal error and is
reported as such (a finding of the campaign).

    run(proc, draws, namespace) -> scheduled proc
prints one line per draw on stdout (`say`): `halo-step applied|rejected|crashed|skipped:
PRIMITIVE | CALL | REASON`, the call empty when the step was skipped, the reason when it
was applied.
"""

import random
import traceback

import exo.API_scheduling as S
from exo.API_cursors import (
    AllocCursor,
    AssignCursor,
    BinaryOpCursor,
    CallCursor,
    ExternFunctionCursor,
    ForCursor,
    IfCursor,
    LiteralCursor,
    ReadCursor,
    ReduceCursor,
    UnaryMinusCursor,
    WindowStmtCursor,
    AssignConfigCursor,
    WindowExprCursor,
)

from exo import SchedulingError
from exo.frontend.parse_fragment import ParseFragmentError
from exo.rewrite.LoopIR_unification import UnificationError

# The exceptions with which Exo refuses a step: its scheduling errors, its argument checks'
# TypeError/ValueError, a pattern or expression string naming what is not in scope, and
# replace's failure to unify (documented: "replace fails to unify").
REFUSALS = (SchedulingError, TypeError, ValueError, ParseFragmentError, UnificationError)

# Exo's API layer checks some arguments with `assert` (resize_dim's fold size, ...): an
# AssertionError raised there, and not deeper inside Exo, is such a check saying no.
ARGUMENT_LAYER = ("exo/API_scheduling.py", "exo/API_cursors.py", "exo/API.py")


def innermost_exo_frame(e):
    frames = [f for f in traceback.extract_tb(e.__traceback__) if "/exo/" in f.filename]
    if not frames:
        return "?"
    f = frames[-1]
    return f"exo/{f.filename.split('/exo/', 1)[1]}:{f.lineno}"

# Primitives exported by exo.API_scheduling that the campaign never draws, and why. Every
# other exported primitive has a drawer below (tests/test_exo.cpp checks both lists against
# the installed package).
NOT_DRAWN = {
    "make_instr": "its C template is the user's claim, which Exo does not check",
    "add_unsafe_guard": "unsafe by contract: the user vouches for the guard",
}


# --- the procedure's cursors, each with the Python text that reaches it -----------------


def stmts(p, block=None, text="p.body()"):
    """Every statement with its path text, in program order: of the procedure, or of
    `block` (a statement's body) whose path is `text`."""
    out = []

    def walk(block, text):
        for k, s in enumerate(block):
            t = f"{text}[{k}]"
            out.append((s, t))
            if isinstance(s, ForCursor):
                walk(s.body(), t + ".body()")
            elif isinstance(s, IfCursor):
                walk(s.body(), t + ".body()")
                orelse = s.orelse()
                try:
                    if len(orelse) > 0:
                        walk(orelse, t + ".orelse()")
                except Exception:  # noqa: BLE001 - no else branch
                    pass

    walk(p.body() if block is None else block, text)
    return out


def exprs(p, statements=None):
    """Every expression with its path text: of the procedure, or of `statements`."""
    out = []

    def walk(e, t):
        out.append((e, t))
        if isinstance(e, BinaryOpCursor):
            walk(e.lhs(), t + ".lhs()")
            walk(e.rhs(), t + ".rhs()")
        elif isinstance(e, UnaryMinusCursor):
            walk(e.arg(), t + ".arg()")
        elif isinstance(e, (ReadCursor, WindowExprCursor)):
            for k, i in enumerate(e.idx()):
                if not hasattr(i, "lo"):  # an interval of a window has no single value
                    walk(i, f"{t}.idx()[{k}]")
        elif isinstance(e, ExternFunctionCursor):
            for k, a in enumerate(e.args()):
                walk(a, f"{t}.args()[{k}]")

    for s, t in stmts(p) if statements is None else statements:
        if isinstance(s, (AssignCursor, ReduceCursor)):
            for k, i in enumerate(s.idx()):
                walk(i, f"{t}.idx()[{k}]")
            walk(s.rhs(), t + ".rhs()")
        elif isinstance(s, AssignConfigCursor):
            walk(s.rhs(), t + ".rhs()")
        elif isinstance(s, IfCursor):
            walk(s.cond(), t + ".cond()")
        elif isinstance(s, ForCursor):
            walk(s.hi(), t + ".hi()")
    return out


def of(items, *kinds):
    return [(c, t) for c, t in items if isinstance(c, kinds)]


def text_of(e):
    """An expression's Exo source text (cursors print as their source)."""
    try:
        return str(e._impl._node)
    except Exception:  # noqa: BLE001
        return str(e)


def _type(e):
    try:
        return e.type()
    except Exception:  # noqa: BLE001 - an expression without a type
        return None


def data_exprs(p):
    return [(e, t) for e, t in exprs(p) if _type(e) is not None and _type(e).is_numeric()]


def index_exprs(p):
    return [(e, t) for e, t in exprs(p) if _type(e) is not None and _type(e).is_indexable()]


# --- drawing arguments -----------------------------------------------------------------


class Draw:
    def __init__(self, p, seed, ns):
        self.p, self.r, self.ns = p, random.Random(seed), ns

    def one(self, items):
        if not items:
            raise Skip("nothing to apply it to")
        return items[self.r.randrange(len(items))]

    def loops(self):
        return of(stmts(self.p), ForCursor)

    def loop_pair(self):
        """A loop and the loop directly inside it (the nests reorder_loops and mult_loops take)."""
        pairs = [(c, t) for c, t in self.loops() if len(c.body()) == 1 and isinstance(c.body()[0], ForCursor)]
        return self.one(pairs)

    def adjacent(self, kinds=None):
        """Two neighbouring statements of one block (fuse, join, merge, reorder)."""
        pairs = []
        for c, t in stmts(self.p):
            nxt = c.next()
            try:
                nxt.parent()
            except Exception:  # noqa: BLE001 - the last statement of its block
                continue
            if kinds and not (isinstance(c, kinds) and isinstance(nxt, kinds)):
                continue
            if isinstance(nxt, (AllocCursor, WindowStmtCursor)) and kinds is None and self.r.random() < 0.5:
                continue
            pairs.append((c, t, nxt, self.next_text(t)))
        return self.one(pairs)

    @staticmethod
    def next_text(t):
        head, k = t.rsplit("[", 1)
        return f"{head}[{int(k[:-1]) + 1}]"

    def allocs(self):
        return of(stmts(self.p), AllocCursor)

    def hi_text(self, loop):
        return text_of(loop.hi())

    def index_var(self, c):
        """The names of the loops around cursor c."""
        names = []
        node = c
        for _ in range(64):  # the root's parent is no statement (and may be itself)
            try:
                node = node.parent()
            except Exception:  # noqa: BLE001
                break
            if not isinstance(node, (ForCursor, IfCursor)):
                break
            if isinstance(node, ForCursor):
                names.append(node.name())
        return names


class Skip(Exception):
    """The procedure has nothing this primitive can be applied to."""


# Each drawer returns (call text, thunk). The text is the literal call the thunk makes.


def d_divide_loop(d):
    c, t = d.one(d.loops())
    n = c.name()
    q = d.r.choice([2, 3, 4, 4, 8, 16])
    tail = d.r.choice(["guard", "cut", "cut_and_guard"])
    perfect = d.r.random() < 0.1
    new = [n + "o", n + "i"]
    return f"divide_loop(p, {t}, {q}, {new!r}, tail={tail!r}, perfect={perfect})", lambda: S.divide_loop(
        d.p, c, q, new, tail=tail, perfect=perfect)


def d_divide_with_recompute(d):
    c, t = d.one(d.loops())
    n = c.name()
    s = d.r.choice([2, 3, 4])
    hi = f"({d.hi_text(c)} + {s - 1}) / {s}" if d.r.random() < 0.5 else f"{d.hi_text(c)} / {s}"
    new = [n + "o", n + "i"]
    return f"divide_with_recompute(p, {t}, {hi!r}, {s}, {new!r})", lambda: S.divide_with_recompute(
        d.p, c, hi, s, new)


def d_cut_loop(d):
    c, t = d.one(d.loops())
    cut = d.r.choice([0, 1, 2, 3, f"{d.hi_text(c)} - 1", f"{d.hi_text(c)} / 2", d.hi_text(c)])
    return f"cut_loop(p, {t}, {cut!r})", lambda: S.cut_loop(d.p, c, cut)


def d_shift_loop(d):
    c, t = d.one(d.loops())
    lo = d.r.choice([0, 1, 2, 5])
    return f"shift_loop(p, {t}, {lo!r})", lambda: S.shift_loop(d.p, c, lo)


def d_join_loops(d):
    a, ta, b, tb = d.adjacent((ForCursor,))
    return f"join_loops(p, {ta}, {tb})", lambda: S.join_loops(d.p, a, b)


def d_mult_loops(d):
    c, t = d.loop_pair()
    inner = c.body()[0]
    nest = f"{c.name()} {inner.name()}"
    new = c.name() + inner.name()
    return f"mult_loops(p, {nest!r}, {new!r})", lambda: S.mult_loops(d.p, nest, new)


def d_reorder_loops(d):
    c, t = d.loop_pair()
    return f"reorder_loops(p, {t})", lambda: S.reorder_loops(d.p, c)


def d_unroll_loop(d):
    consts = [(c, t) for c, t in d.loops() if isinstance(c.hi(), LiteralCursor) and isinstance(c.lo(), LiteralCursor)]
    c, t = d.one(consts)
    return f"unroll_loop(p, {t})", lambda: S.unroll_loop(d.p, c)


def d_fuse(d):
    a, ta, b, tb = d.adjacent((ForCursor, IfCursor))
    return f"fuse(p, {ta}, {tb})", lambda: S.fuse(d.p, a, b)


def gap_of(d):
    c, t = d.one(stmts(d.p))
    if d.r.random() < 0.5:
        return c.after(), t + ".after()"
    return c.before(), t + ".before()"


def d_fission(d):
    g, t = gap_of(d)
    n = d.r.choice([1, 1, 2, 3])
    return f"fission(p, {t}, n_lifts={n})", lambda: S.fission(d.p, g, n_lifts=n)


def d_autofission(d):
    g, t = gap_of(d)
    n = d.r.choice([1, 2, 3])
    return f"autofission(p, {t}, n_lifts={n})", lambda: S.autofission(d.p, g, n_lifts=n)


def d_specialize(d):
    c, t = d.one(stmts(d.p))
    conds = d.r.choice([["N == 1"], ["M == 1"], ["N == 4"], ["M % 2 == 0"], ["N < 3", "M > 5"], ["M == 3", "N == 2"]])
    return f"specialize(p, {t}, {conds!r})", lambda: S.specialize(d.p, c, conds)


def d_add_loop(d):
    c, t = d.one(stmts(d.p))
    hi = d.r.choice([1, 2, 3, "N", "M"])
    guard = d.r.random() < 0.5
    return f"add_loop(p, {t}, 'x', {hi!r}, guard={guard})", lambda: S.add_loop(d.p, c, "x", hi, guard=guard)


def block_of_two(d):
    a, ta, b, tb = d.adjacent()
    return a.expand(0, 1), f"{ta}.expand(0, 1)"


def d_commute_expr(d):
    e, t = d.one(of(exprs(d.p), BinaryOpCursor))
    return f"commute_expr(p, [{t}])", lambda: S.commute_expr(d.p, [e])


def d_left_reassociate_expr(d):
    e, t = d.one(of(exprs(d.p), BinaryOpCursor))
    return f"left_reassociate_expr(p, {t})", lambda: S.left_reassociate_expr(d.p, e)


def d_rewrite_expr(d):
    e, t = d.one(index_exprs(d.p))
    s = text_of(e)
    # equal forms and a few that are equal only on part of the domain: Exo must prove it
    new = d.r.choice([f"{s} + 0", f"({s} * 2) / 2", f"{s} / 1", f"({s} + 4) - 4", f"{s} % 64", f"({s} / 2) * 2",
                      f"{s} - {s} + {s}"])
    return f"rewrite_expr(p, {t}, {new!r})", lambda: S.rewrite_expr(d.p, e, new)


def d_bind_expr(d):
    e, t = d.one(data_exprs(d.p))
    return f"bind_expr(p, [{t}], 'bx')", lambda: S.bind_expr(d.p, [e], "bx")


def d_inline_assign(d):
    scalars = {c.name() for c, _ in d.allocs() if not c.is_tensor()}
    cands = [(c, t) for c, t in of(stmts(d.p), AssignCursor) if c.name() in scalars]
    c, t = d.one(cands)
    return f"inline_assign(p, {t})", lambda: S.inline_assign(d.p, c)


def d_set_window(d):
    c, t = d.one(d.allocs())
    v = d.r.random() < 0.8
    return f"set_window(p, {t}, {v})", lambda: S.set_window(d.p, c, v)


def d_lift_alloc(d):
    c, t = d.one(d.allocs())
    n = d.r.choice([1, 1, 2, 3])
    return f"lift_alloc(p, {t}, n_lifts={n})", lambda: S.lift_alloc(d.p, c, n_lifts=n)


def d_autolift_alloc(d):
    c, t = d.one(d.allocs())
    n = d.r.choice([1, 2])
    keep = d.r.random() < 0.5
    return f"autolift_alloc(p, {t}, n_lifts={n}, keep_dims={keep})", lambda: S.autolift_alloc(
        d.p, c, n_lifts=n, keep_dims=keep)


def d_expand_dim(d):
    c, t = d.one(d.allocs())
    loops = d.index_var(c)
    # the loop just below the allocation is the usual choice; a constant index is the odd one
    cand = []
    nxt = c.next()
    try:
        if isinstance(nxt, ForCursor):
            cand.append((d.hi_text(nxt), nxt.name()))
    except Exception:  # noqa: BLE001
        pass
    for n in loops:
        cand.append(("N", n))
    cand.append(("4", "0"))
    cand.append(("M", "M - 1"))
    size, idx = d.one(cand)
    return f"expand_dim(p, {t}, {size!r}, {idx!r})", lambda: S.expand_dim(d.p, c, size, idx)


def tensor_allocs(d):
    return [(c, t) for c, t in d.allocs() if c.is_tensor()]


def d_divide_dim(d):
    c, t = d.one(tensor_allocs(d))
    dim = d.r.randrange(len(c.shape()))
    q = d.r.choice([2, 4])
    return f"divide_dim(p, {t}, {dim}, {q})", lambda: S.divide_dim(d.p, c, dim, q)


def d_mult_dim(d):
    c, t = d.one([(c, t) for c, t in tensor_allocs(d) if len(c.shape()) >= 2])
    hi, lo = d.r.sample(range(len(c.shape())), 2)
    return f"mult_dim(p, {t}, {hi}, {lo})", lambda: S.mult_dim(d.p, c, hi, lo)


def d_rearrange_dim(d):
    c, t = d.one([(c, t) for c, t in tensor_allocs(d) if len(c.shape()) >= 2])
    perm = list(range(len(c.shape())))
    d.r.shuffle(perm)
    return f"rearrange_dim(p, {t}, {perm!r})", lambda: S.rearrange_dim(d.p, c, perm)


def d_resize_dim(d):
    c, t = d.one(tensor_allocs(d))
    dim = d.r.randrange(len(c.shape()))
    size = d.r.choice([1, 2, 3, 4, 8, "M", "N", "M - 1"])
    off = d.r.choice([0, 0, 1, 2, "M - 1"])
    fold = d.r.random() < 0.3
    return f"resize_dim(p, {t}, {dim}, {size!r}, {off!r}, fold={fold})", lambda: S.resize_dim(
        d.p, c, dim, size, off, fold=fold)


def d_unroll_buffer(d):
    c, t = d.one(tensor_allocs(d))
    dim = d.r.randrange(len(c.shape()))
    return f"unroll_buffer(p, {t}, {dim})", lambda: S.unroll_buffer(d.p, c, dim)


def d_reuse_buffer(d):
    allocs = d.allocs()
    if len(allocs) < 2:
        raise Skip("fewer than two allocations")
    (a, ta), (b, tb) = d.r.sample(allocs, 2)
    return f"reuse_buffer(p, {ta}, {tb})", lambda: S.reuse_buffer(d.p, a, b)


def buffers_in(d, c):
    """The tensors statement c (and what is inside it) reads or writes, with the rank each
    is indexed with."""
    inside = [(c, "")] + (stmts(d.p, c.body(), "") if isinstance(c, (ForCursor, IfCursor)) else [])
    seen = {}
    for x, _ in inside + exprs(d.p, inside):
        if isinstance(x, (ReadCursor, AssignCursor, ReduceCursor)) and len(x.idx()) > 0:
            seen.setdefault(x.name(), len(x.idx()))
    return seen


def d_stage_mem(d):
    c, t = d.one([(c, t) for c, t in stmts(d.p) if isinstance(c, (ForCursor, IfCursor, AssignCursor, ReduceCursor))])
    bufs = buffers_in(d, c)
    if not bufs:
        raise Skip("the block touches no tensor")
    name = d.r.choice(sorted(bufs))
    rank = bufs[name]
    around = d.index_var(c)
    dims = []
    for k in range(rank):
        size = "N" if k == 0 and rank == 2 else "M"
        choice = d.r.random()
        if around and choice < 0.35:
            dims.append(d.r.choice(around))  # a point: the loop's own index
        elif choice < 0.7:
            dims.append(f"0:{size}")  # the whole dimension
        else:  # a part of it: where a block that writes only some of it goes wrong
            dims.append(d.r.choice([f"0:{size} - 1", f"1:{size}", f"0:{size} / 2", f"0:1"]))
    win = f"{name}[{', '.join(dims)}]"
    accum = d.r.random() < 0.2
    return f"stage_mem(p, {t}, {win!r}, 'stg', accum={accum})", lambda: S.stage_mem(d.p, c, win, "stg", accum=accum)


def d_set_memory(d):
    c, t = d.one(d.allocs())
    constant = not c.is_tensor() or all(isinstance(e, LiteralCursor) for e in c.shape())
    # DRAM_STATIC takes constant shapes only (Exo says so when it writes C, not here)
    mem = d.r.choice(["DRAM", "DRAM_STACK", "DRAM_STATIC"] if constant else ["DRAM", "DRAM_STACK"])
    m = d.ns[mem]
    return f"set_memory(p, {t}, {mem})", lambda: S.set_memory(d.p, c, m)


def d_set_precision(d):
    c, t = d.one(d.allocs())
    # types that hold every value the cases compute exactly (|v| < 2^20): a precision that
    # rounds would change the result by the user's own choice
    floating = str(c.type()).lower().find("f") >= 0 if c.type() is not None else False
    typ = d.r.choice(["f32", "f64"] if floating else ["i32"])
    return f"set_precision(p, {t}, {typ!r})", lambda: S.set_precision(d.p, c, typ)


def d_write_config(d):
    g, t = gap_of(d)
    field, rhs = d.r.choice([("vi", "3"), ("vf", "2.0"), ("ix", "N")])
    cfg = d.ns["Cfg"]
    return f"write_config(p, {t}, Cfg, {field!r}, {rhs!r})", lambda: S.write_config(d.p, g, cfg, field, rhs)


def d_bind_config(d):
    e, t = d.one(data_exprs(d.p))
    field = d.r.choice(["vi", "vf"])
    cfg = d.ns["Cfg"]
    return f"bind_config(p, {t}, Cfg, {field!r})", lambda: S.bind_config(d.p, e, cfg, field)


def d_delete_pass(d):
    return "delete_pass(p)", lambda: S.delete_pass(d.p)


def d_rename(d):
    return "rename(p, 'scheduled_kernel')", lambda: S.rename(d.p, "scheduled_kernel")


def d_simplify(d):
    return "simplify(p)", lambda: S.simplify(d.p)


def d_extract_subproc(d):
    c, t = d.one(stmts(d.p))
    name = f"sub{len(d.ns['_halo_subprocs'])}"

    def go():
        p, sub = S.extract_subproc(d.p, c.as_block(), name)
        d.ns["_halo_subprocs"].append(sub)
        d.ns[name] = sub
        return p

    return f"p, {name} = extract_subproc(p, {t}.as_block(), {name!r})", go


def calls(d):
    return of(stmts(d.p), CallCursor)


def d_call_eqv(d):
    c, t = d.one(calls(d))
    callee = c.subproc()
    name = callee.name()
    if name not in d.ns:
        raise Skip("the callee is not a name of the script")
    # an equivalent procedure: the callee simplified (Exo records the equivalence)
    def go():
        alt = S.simplify(S.rename(d.ns[name], name + "_eqv"))
        d.ns[name + "_eqv"] = alt
        return S.call_eqv(d.p, c, alt)

    return (f"{name}_eqv = simplify(rename({name}, {name + '_eqv'!r}))\np = call_eqv(p, {t}, {name}_eqv)", go)


def d_replace(d):
    subs = d.ns["_halo_subprocs"]
    if not subs:
        raise Skip("no extracted subprocedure to replace with")
    sub = d.r.choice(subs)
    c, t = d.one(stmts(d.p))
    return f"replace(p, {t}.as_block(), {sub.name()})", lambda: S.replace(d.p, c.as_block(), sub)


def d_insert_noop_call(d):
    g, t = gap_of(d)
    noop = d.ns["halo_noop"]
    return f"insert_noop_call(p, {t}, halo_noop, [])", lambda: S.insert_noop_call(d.p, g, noop, [])


# Where a primitive applies when a cursor is all it takes.
def loops(d):
    return d.one(d.loops())


def scopes(d):
    return d.one(of(stmts(d.p), ForCursor, IfCursor))


def writes(d):
    return d.one(of(stmts(d.p), AssignCursor, ReduceCursor))


def assigns(d):
    return d.one(of(stmts(d.p), AssignCursor))


def windows(d):
    return d.one(of(stmts(d.p), WindowStmtCursor))


def allocs(d):
    return d.one(d.allocs())


def config_writes(d):
    return d.one(of(stmts(d.p), AssignConfigCursor))


def call_sites(d):
    return d.one(calls(d))


ON_A_CURSOR = {
    "remove_loop": loops, "parallelize_loop": loops, "lift_scope": scopes, "eliminate_dead_code": scopes,
    "lift_reduce_constant": block_of_two, "merge_writes": block_of_two, "reorder_stmts": block_of_two,
    "split_write": writes, "fold_into_reduce": assigns, "inline_window": windows, "sink_alloc": allocs,
    "delete_buffer": allocs, "delete_config": config_writes, "insert_pass": gap_of, "inline": call_sites,
}


def on_a_cursor(name, where):
    def drawer(d):
        c, t = where(d)
        return f"{name}(p, {t})", lambda: getattr(S, name)(d.p, c)

    return drawer


DRAWERS = {name[2:]: f for name, f in globals().items() if name.startswith("d_")}
DRAWERS.update({name: on_a_cursor(name, where) for name, where in ON_A_CURSOR.items()})


def say(status, prim, call, reason):
    """One line per draw, `halo-step STATUS: PRIMITIVE | CALL | REASON` (fuzz/exo_gen.hpp,
    exo_step_log, reads it back); a call of two lines is written with " ;; " between them."""
    call = call.replace("\n", " ;; ")
    print(f"halo-step {status}: {prim} | {call} | {reason}")


def run(p, draws, ns):
    """Applies each draw to p; returns the scheduled procedure. Logs each on stdout."""
    ns.setdefault("_halo_subprocs", [])
    for prim, seed in draws:
        if prim not in DRAWERS:
            say("skipped", prim, "", "not a primitive this module draws")
            continue
        d = Draw(p, seed, ns)
        try:
            text, thunk = DRAWERS[prim](d)
        except Skip as e:
            say("skipped", prim, "", e)
            continue
        except REFUSALS as e:  # a cursor Exo would not give
            say("skipped", prim, "", f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            continue
        call = text if "\n" in text or text.startswith("p, ") else f"p = {text}"
        try:
            q = thunk()
        except Exception as e:  # noqa: BLE001 - a refusal, or Exo failed inside: an internal error
            where = innermost_exo_frame(e)
            first = str(e).strip().splitlines()[0] if str(e).strip() else ""
            if isinstance(e, REFUSALS) or (isinstance(e, AssertionError) and where.rsplit(":", 1)[0] in ARGUMENT_LAYER):
                say("rejected", prim, call, f"{type(e).__name__} at {where}: {first[:200]}")
                continue
            say("crashed", prim, call, f"{type(e).__name__} at {where}: {str(e)[:200]!r}")
            raise
        p = q
        say("applied", prim, call, "")
    return p
