# Writes the .hlpipe files tests/test_import.cpp reads: one pipeline per construct `halo
# import` refuses, serialized by Halide 21 from PyPI. Committed, so the tests need no Python;
# rerun after changing a case:  PYTHONPATH=.venv/halide/21.0.0 python3 tests/import/make_fixtures.py tests/import
import os, sys
import halide as hl

out = sys.argv[1]
x, y, xo, xi = hl.Var("x"), hl.Var("y"), hl.Var("xo"), hl.Var("xi")


def save(name, f):
    hl.serialize_pipeline(hl.Pipeline(f), os.path.join(out, name + ".hlpipe"))


# A float stage in the middle of an integer pipeline (imported since floats are halo's:
# docs/floats.md), with Halide's float functions, and a transcendental one, which is refused.
g, f = hl.Func("soft"), hl.Func("float_out")
g[x] = hl.floor(hl.f32(x) * 0.5) + hl.sqrt(hl.f32(x)) + hl.select(hl.is_nan(hl.f32(x)), 1.0, 0.25)
f[x] = hl.i32(g[x])
save("float_stage", f)

g, f = hl.Func("soft"), hl.Func("exp_out")
g[x] = hl.exp(hl.f32(x))
f[x] = hl.i32(g[x])
save("refuse_transcendental", f)

# A Tuple-valued func.
t, f = hl.Func("pair"), hl.Func("tuple_out")
t[x] = (x, x + 1)
f[x] = t[x][0] + t[x][1]
save("refuse_tuple", f)

# A GPU schedule on the output.
f = hl.Func("gpu_out")
f[x] = x * 2
f.gpu_tile(x, xo, xi, 8)
save("refuse_gpu", f)

# An extern stage.
e, f = hl.Func("ext"), hl.Func("extern_out")
e.define_extern("my_extern_stage", [], hl.Int(32), 1)
f[x] = e[x] + 1
save("refuse_extern", f)

# A func with an update stage left inline, read by two stages (Halide computes it around
# the stores of each, which one compute_at cannot say).
u, f = hl.Func("acc"), hl.Func("inline_update_out")
u[x] = x
u[x] += 1
f[x] = u[x] * 2
f[x] += u[x]
save("refuse_inline_update", f)

# A func with an update stage left inline (as an inline sum() makes), read by one stage
# through an inlined func: imported computed at that stage's innermost loop, as Halide does.
u, g, f = hl.Func("partial"), hl.Func("partial_plus"), hl.Func("inline_reduction_out")
u[x] = x
u[x] += 1
g[x] = u[x] + 1
f[x] = g[x] * 2
f.split(x, xo, xi, 4)
save("accept_inline_update", f)

# Specializations that differ between a func's stages.
p = hl.Param(hl.Int(32), "p")
s, f = hl.Func("spec"), hl.Func("spec_out")
s[x] = x
s[x] += p
s.specialize(p > 0)
s.update(0).specialize(p > 5)
s.compute_root()
f[x] = s[x]
save("refuse_specializations", f)

# A plain integer pipeline with an update and an RDom: imported.
h = hl.Func("hist")
r = hl.RDom([(0, 8)], "r")
h[x] = 0
h[r.x % 4] += r.x
h.compute_root()
f = hl.Func("hist_out")
f[x] = h[x] * 2
f.split(x, xo, xi, 2).vectorize(xi)
save("accept_histogram", f)

# A func computed at the output's rows and read by an inlined func (the output reads it
# through that func): imported with the compute_inline first, where halo's dominance holds.
g, h, f = hl.Func("produced"), hl.Func("through"), hl.Func("inline_reader_out")
g[x, y] = x + y
h[x, y] = g[x, y] * 2
f[x, y] = h[x, y] + h[x + 1, y]
g.compute_at(f, y)
save("accept_inline_reader", f)

# Every boundary condition on an input with the input's bounds: imported as such.
img = hl.ImageParam(hl.UInt(8), 2, "img")
bc = hl.BoundaryConditions
ce, ri, mi, mn = bc.constant_exterior(img, 7), bc.repeat_image(img), bc.mirror_image(img), bc.mirror_interior(img)
f = hl.Func("boundaries_out")
f[x, y] = hl.u16(ce[x - 2, y]) + hl.u16(ri[x + 3, y - 1]) + hl.u16(mi[x - 4, y + 2]) + hl.u16(mn[x + 1, y - 3])
save("accept_boundaries", f)

