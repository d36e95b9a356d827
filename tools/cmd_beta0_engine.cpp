// `halo beta0-engine [FILE]`: β0 (fig. 2.10b) behind the external bounds-engine protocol
// (docs/bounds-engines.md). It reads the bounds query document halo sends to an engine —
// on stdin, or from FILE — and answers with β0's substitution, exactly what halo's own
// completion uses. It exists so that engine authors can compare their answers with the
// reference engine's, wrap it (an engine that improves on β0 for some programs and defers
// to it otherwise), and so that the example engines of examples/engines/ can be small
// shell scripts that edit β0's answer (docs/fuzzing.md).
//
// The document must carry the program ("program", the JSON form of docs/target-syntax.md),
// as halo's documents do; β0 runs on the query extracted from it, which is the document's.
// The answer has one hole per line, so that line-oriented tools can edit it.
#include "bounds/beta0.hpp"
#include "bounds/extract.hpp"
#include "support/json_text.hpp"
#include "semantics/lexer.hpp"
#include "semantics/printer.hpp"
#include "semantics/tgt_json.hpp"
#include "tools/commands.hpp"

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

namespace halo::cli {

Subcommand register_beta0_engine(CLI::App& app) {
  auto file = std::make_shared<std::string>("-");
  CLI::App* cmd = app.add_subcommand(
      "beta0-engine", "answer a bounds query document (stdin or FILE) with β0's substitution, as an external engine would");
  cmd->add_option("FILE", *file, "the query document (default -: standard input)")->capture_default_str();
  return {cmd, [file](std::ostream& out, std::ostream&) {
            std::string source = *file == "-" ? "<stdin>" : *file;
            std::stringstream text;
            text << read_source_file(*file);  // regular files (or stdin), size-capped
            nlohmann::json doc = parse_json_text(text.str(), source);
            if (!doc.is_object() || !doc.contains("program"))
              throw InputError(Diagnostic{source, {}, "not a bounds query document with the program in it (it needs "
                                                      "the \"program\" field that halo sends to engines)"});
            TgtProgram t = tgt_from_json(doc["program"], source);
            Beta0Result r = run_beta0(extract_query(t), t);
            nlohmann::json answer;
            if (!r.ok) {
              answer["fail"] = "β0 found no finite bounds: " + r.why_failed;
            } else {
              answer["holes"] = nlohmann::json::object();
              for (const auto& [hole, e] : r.filling) answer["holes"][hole.to_string()] = print_expr(e);
            }
            out << answer.dump(1, ' ', false, kReplaceInvalidUtf8) << "\n";
            return kExitOk;
          }};
}

}  // namespace halo::cli
