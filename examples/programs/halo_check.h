// What each program of this folder calls once, after computing its output the way any
// Halide program does: it leaves behind what halo needs to check that very program
// (README.md): the pipeline serialized by Halide itself (NAME.hlpipe), the input buffers
// and the output as NumPy arrays (NAME.INPUT.npy, NAME.out.npy), and NAME.args, the halo
// flags that repeat the realization (one per line). Nothing here changes the pipeline.
#pragma once

#include "Halide.h"

#include <xtensor/xadapt.hpp>
#include <xtensor/xnpy.hpp>

#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace halo_check {

// A buffer as a NumPy array: Halide's dimension 0 (x) varies fastest, which is NumPy's last
// axis, so the shape is the extents reversed. Mins must be 0, as halo reads .npy inputs.
template <typename T>
void write_npy(const Halide::Buffer<T>& b, const std::string& path) {
  std::vector<size_t> shape;
  for (int d = b.dimensions() - 1; d >= 0; --d) shape.push_back(size_t(b.dim(d).extent()));
  std::vector<T> values;
  values.reserve(b.number_of_elements());
  Halide::Buffer<T> dense = b.copy();  // a dense copy, x fastest
  for (size_t i = 0; i < size_t(dense.number_of_elements()); ++i) values.push_back(dense.data()[i]);
  xt::dump_npy(path, xt::adapt(values, shape));
}

struct Input {
  std::string name;                 // the ImageParam's name
  std::function<void(const std::string&)> write;  // writes its buffer as .npy
};
template <typename T>
Input input(const std::string& name, const Halide::Buffer<T>& b) {
  return Input{name, [b](const std::string& path) { write_npy(b, path); }};
}

// `folder` is argv[1]; `name` the program's name; `params` the scalar Params with the
// values the program realized with.
template <typename T>
int save(const char* folder, const std::string& name, const Halide::Func& output, const Halide::Buffer<T>& result,
         const std::vector<Input>& inputs, const std::vector<std::pair<std::string, long long>>& params = {}) {
  std::string base = std::string(folder) + "/" + name;
  Halide::serialize_pipeline(Halide::Pipeline(output), base + ".hlpipe");
  write_npy(result, base + ".out.npy");
  std::ofstream args(base + ".args");
  for (int d = 0; d < result.dimensions(); ++d) args << "--window\n" << result.dim(d).min() << "," << result.dim(d).extent() << "\n";
  for (const Input& in : inputs) {
    std::string path = base + "." + in.name + ".npy";
    in.write(path);
    args << "--input\n" << in.name << "=" << path << "\n";
  }
  for (const auto& [p, v] : params) args << "--param\n" << p << "=" << v << "\n";
  std::printf("%s: wrote %s.hlpipe, its inputs, its output and %s.args\n", name.c_str(), base.c_str(), base.c_str());
  return 0;
}

// A deterministic image: what a test photo would be, without a file.
inline Halide::Buffer<uint8_t> test_image(int width, int height, int seed = 1) {
  Halide::Buffer<uint8_t> b(width, height);
  uint32_t s = 2463534242u + uint32_t(seed);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      s ^= s << 13, s ^= s >> 17, s ^= s << 5;
      b(x, y) = uint8_t((x * 7 + y * 13 + (s & 63)) & 255);
    }
  return b;
}

}  // namespace halo_check
