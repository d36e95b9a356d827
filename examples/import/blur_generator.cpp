// The example of docs/import.md: a Halide generator as Halide users write them — a uint8
// 3x3 box blur with BoundaryConditions::repeat_edge, widened to uint16 and cast back, tiled
// with the horizontal pass computed per tile — whose `-e hlpipe` output `halo import` reads.
// Built against each installed Halide wheel by examples/import/CMakeLists.txt:
//
//   blur_generator -g import_blur -e hlpipe -o DIR target=host    # writes DIR/import_blur.hlpipe
#include <Halide.h>

namespace {

class ImportBlur : public Halide::Generator<ImportBlur> {
 public:
  Input<Buffer<uint8_t, 2>> input{"input_"};
  Output<Buffer<uint8_t, 2>> blur_y{"blur_y"};

  void generate() {
    clamped = Halide::BoundaryConditions::repeat_edge(input);
    blur_x(x, y) = Halide::cast<uint16_t>(clamped(x - 1, y)) + clamped(x, y) + clamped(x + 1, y);
    blur_y(x, y) = Halide::cast<uint8_t>((blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 9);
  }

  void schedule() {
    blur_y.tile(x, y, xo, yo, xi, yi, 8, 4);
    blur_x.compute_at(blur_y, xo);
  }

 private:
  Halide::Var x{"x"}, y{"y"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"};
  Halide::Func clamped{"clamped"}, blur_x{"blur_x"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(ImportBlur, import_blur)
