// `halo import PIPELINE.hlpipe` (docs/import.md): a pipeline that Halide serialized
// (Halide::serialize_pipeline, hl.serialize_pipeline, a generator's `-e hlpipe`; Halide 19
// and later) becomes a .halo program with its schedule and a realization. The file is read
// by the Halide version that wrote it, since the format changes between versions and only
// Halide's own deserialize_pipeline reads it: like the oracle's runs, that happens in the
// version's worker (worker/import_ir.cpp walks Halide's IR there and writes the .halo
// text), never in halo, which links no Halide. This header is both halves' contract.
#pragma once

#include "interp/input.hpp"
#include "semantics/ast.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace halo::halide {

// The realization the program gets (an .hlpipe holds no buffers and no output size), in the
// spelling of `halo eval`'s flags: --param NAME=VALUE, --window MIN,LEN (one per output
// dimension), --input NAME=SPEC (SPEC: seeded:SEED:MIN,EXTENT:..., or a file path).
struct ImportOptions {
  InputOverrides realization;
  std::optional<int> halide_major;  // --halide-version: read with this Halide instead of the writer's
};

// ---------------------------------------------------------------- in the worker
// What halo cannot express (a float, an extern stage, a GPU loop, a Tuple, ...): the message
// names the construct and the func and stage where it is. The worker exits with status 2.
struct ImportRefused : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The .halo text of the pipeline in `path`, read with the worker's Halide.
std::string import_hlpipe_with_halide(const std::string& path, const ImportOptions& o);

// ---------------------------------------------------------------- in halo
// "19.0.0": the Halide version an .hlpipe records (Pipeline.halide_version of
// src/halide_ir.fbs), read without Halide; nullopt when `bytes` is not an .hlpipe.
std::optional<std::string> hlpipe_writer_version(std::string_view bytes);
bool is_hlpipe_path(const std::string& path);  // named *.hlpipe
// The .halo text of the pipeline in `path`, read by the worker of the version that wrote it
// (or o.halide_major). Throws InputError naming the file: not an .hlpipe, no worker for that
// version, a version without serialization, or a construct halo cannot express.
// (tools/cmd_import.cpp parses it where a command is given an .hlpipe.)
std::string import_hlpipe(const std::string& path, const ImportOptions& o);

}  // namespace halo::halide
