// `halo import PIPELINE.hlpipe [-o FILE.halo]`: a pipeline Halide serialized, as a .halo
// program with its schedule and a realization (candidates/halide/import.hpp,
// docs/import.md). The realization options are eval's (--param, --window) plus --input;
// --halide-version reads the file with another installed Halide than the one that wrote it.
// Exit 0 with the program written, 2 when the file is not an .hlpipe, no worker can read it,
// or it holds something halo cannot express (the message names it and where).
#include "candidates/halide/import.hpp"
#include "semantics/lexer.hpp"
#include "semantics/parser.hpp"
#include "tools/cmd_halide.hpp"
#include "support/output_file.hpp"
#include "tools/commands.hpp"

#include <fmt/format.h>

#include <fstream>
#include <memory>

namespace halo::cli {

namespace {

struct ImportState {
  std::string file, output;
  halide::ImportOptions options;
  int halide_version = 0;
};

}  // namespace

std::string read_program_source(const std::string& path, const InputOverrides& over) {
  if (!halide::is_hlpipe_path(path)) return read_source_file(path);
  halide::ImportOptions o;
  o.realization = over;
  return halide::import_hlpipe(path, o);
}

Program parse_program_file(const std::string& path, const InputOverrides& over) {
  return parse_program(read_program_source(path, over), path);
}

Subcommand register_import(CLI::App& app) {
  auto st = std::make_shared<ImportState>();
  auto* cmd = app.add_subcommand("import", "write a pipeline Halide serialized (.hlpipe, Halide 19 and later) as a "
                                           ".halo program with its schedule (docs/import.md)");
  cmd->add_option("FILE", st->file, "an .hlpipe (Halide::serialize_pipeline, a generator's -e hlpipe)")->required();
  cmd->add_option("-o,--output", st->output, "where to write the program (default: standard output)");
  cmd->add_option("--param", st->options.realization.params, "the realization's value of a pipeline parameter, NAME=VALUE "
                                                 "(repeatable; default: the value the file holds)");
  cmd->add_option("--window", st->options.realization.windows, "the output interval MIN,LEN, one per output dimension "
                                                   "(repeatable; default: (0, 16) in the first two, (0, 4) in others)");
  cmd->add_option("--input", st->options.realization.inputs, "an input's data: NAME=seeded:SEED:MIN,EXTENT:... or NAME=FILE "
                                                 "(.png/.pgm/.ppm, .npy) (repeatable; default: seeded data over the "
                                                 "region Halide's bounds inference asks for)");
  cmd->add_option("--halide-version", st->halide_version,
                  "read the file with this installed Halide major version instead of the one that wrote it")
      ->check(unsigned_integer());
  return Subcommand{cmd, [st](std::ostream& out, std::ostream&) {
                      if (st->halide_version) st->options.halide_major = st->halide_version;
                      std::string text = halide::import_hlpipe(st->file, st->options);
                      if (st->output.empty() || st->output == "-") {
                        out << text;
                      } else {
                        write_file_atomically(st->output, text);
                      }
                      return kExitOk;
                    }};
}

}  // namespace halo::cli
