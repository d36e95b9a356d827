// What every program of examples/programs/ calls once, at its end, so that halo can judge
// the pipeline it just ran: halo_check::save(argv[1], "NAME", output_func, output_buffer,
// {inputs...}, {params...}) writes into the folder argv[1]
//   NAME.hlpipe         the pipeline, serialized by Halide (Halide 19 and later)
//   NAME.INPUT.npy      each input's values, NAME.out.npy the output the C++ program computed
//   NAME.args           the halo flags that reproduce this realization, one per line:
//                       --window MIN,LEN per output dimension, --input NAME=PATH per
//                       input, --param NAME=VALUE per scalar Param
// check.sh then runs `halo eval NAME.hlpipe $(cat NAME.args) --expect NAME.out.npy` and
// `halo oracle ... --target halide@all`. The .npy files are in NumPy's C order: axis k is
// Halide dimension n-1-k (a[y, x]), which is how halo reads them; halo's .npy inputs have
// their mins at 0, so the programs keep their inputs' mins at 0 (the output's min is its
// --window's, and `--expect` reads the array from there).
#pragma once

#include <Halide.h>

#include <xtensor/xadapt.hpp>
#include <xtensor/xnpy.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace halo_check {

// An input of the pipeline: an ImageParam (its name, and the buffer bound to it by set()).
struct Input {
  Input(const Halide::ImageParam& image) : name(image.name()), buffer(image.get()) {}
  std::string name;
  Halide::Buffer<> buffer;
};

// A scalar Param, with the value it had when the program realized the pipeline.
struct ParamValue {
  template <typename T>
  ParamValue(const Halide::Param<T>& param) : name(param.name()), value(std::to_string(+param.get())) {}
  std::string name, value;
};

namespace detail {

[[noreturn]] inline void fail(const std::string& message) {
  std::cerr << "halo_check: " << message << "\n";
  std::exit(1);
}

// The buffer's values in C order (the last Halide dimension first), written as .npy; the
// array's first point is the buffer's min.
template <typename T>
void dump_typed(const std::string& path, Halide::Buffer<T> buffer) {
  const int n = buffer.dimensions();
  std::vector<std::size_t> shape(n);
  for (int d = 0; d < n; ++d) shape[n - 1 - d] = static_cast<std::size_t>(buffer.dim(d).extent());
  std::vector<T> values(buffer.number_of_elements());
  buffer.for_each_element([&](const int* pos) {
    std::size_t index = 0;
    for (int d = n - 1; d >= 0; --d) index = index * buffer.dim(d).extent() + (pos[d] - buffer.dim(d).min());
    values[index] = buffer(pos);
  });
  xt::dump_npy(path, xt::adapt(values.data(), values.size(), xt::no_ownership(), shape));
}

inline void dump_npy(const std::string& path, const Halide::Buffer<>& buffer) {
  const Halide::Type t = buffer.type();
  if (t == Halide::UInt(8)) return dump_typed<uint8_t>(path, buffer);
  if (t == Halide::UInt(16)) return dump_typed<uint16_t>(path, buffer);
  if (t == Halide::UInt(32)) return dump_typed<uint32_t>(path, buffer);
  if (t == Halide::Int(8)) return dump_typed<int8_t>(path, buffer);
  if (t == Halide::Int(16)) return dump_typed<int16_t>(path, buffer);
  if (t == Halide::Int(32)) return dump_typed<int32_t>(path, buffer);
  if (t == Halide::Float(32)) return dump_typed<float>(path, buffer);
  if (t == Halide::Float(64)) return dump_typed<double>(path, buffer);
  fail(path + ": a buffer of a type halo_check does not write");
}

}  // namespace detail

inline void save(const std::string& dir, const std::string& name, const Halide::Pipeline& pipeline,
                 const Halide::Buffer<>& output, const std::vector<Input>& inputs,
                 const std::vector<ParamValue>& params = {}) {
  const std::filesystem::path folder = std::filesystem::absolute(dir);
  std::filesystem::create_directories(folder);
  const std::string base = (folder / name).string();
  Halide::serialize_pipeline(pipeline, base + ".hlpipe");
  detail::dump_npy(base + ".out.npy", output);
  std::ofstream args(base + ".args");
  for (int d = 0; d < output.dimensions(); ++d)
    args << "--window " << output.dim(d).min() << "," << output.dim(d).extent() << "\n";
  for (const Input& input : inputs) {
    const std::string path = base + "." + input.name + ".npy";
    for (int d = 0; d < input.buffer.dimensions(); ++d)
      if (input.buffer.dim(d).min() != 0) detail::fail(path + ": an input whose min is not 0 (halo's .npy inputs start at 0)");
    detail::dump_npy(path, input.buffer);
    args << "--input " << input.name << "=" << path << "\n";
  }
  for (const ParamValue& param : params) args << "--param " << param.name << "=" << param.value << "\n";
  if (!args) detail::fail(base + ".args: cannot be written");
}

}  // namespace halo_check
