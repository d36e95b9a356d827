# The example of docs/import.md from Python (Halide 20 and later have hl.serialize_pipeline):
#   .venv/halide/21.0.0 on PYTHONPATH: python3 examples/import/blur.py OUT.hlpipe; halo import OUT.hlpipe
import sys, halide as hl
img, (x, y, xo, yo, xi, yi) = hl.ImageParam(hl.UInt(8), 2, "img"), [hl.Var(n) for n in ("x", "y", "xo", "yo", "xi", "yi")]
clamped, blur_x, blur_y = hl.BoundaryConditions.repeat_edge(img), hl.Func("blur_x"), hl.Func("blur_y")
blur_x[x, y] = hl.u16(clamped[x - 1, y]) + clamped[x, y] + clamped[x + 1, y]
blur_y[x, y] = hl.u8((blur_x[x, y - 1] + blur_x[x, y] + blur_x[x, y + 1]) / 9)
blur_y.tile(x, y, xo, yo, xi, yi, 8, 4); blur_x.compute_at(blur_y, xo)
hl.serialize_pipeline(hl.Pipeline(blur_y), sys.argv[1])
