// The JSON form of target programs (Tgt and Tgt?), their expressions and their holes,
// documented field by field in docs/target-syntax.md ("JSON form").
//
// It exists for other programs: external bounds engines read the program with its holes
// and answer with expressions for them, test harnesses and the CLI's --json output exchange
// programs without parsing the text format. Every tree survives the trip:
// same_tgt(tgt_from_json(tgt_to_json(p)), p) (source locations are not kept).
//
// Reading checks everything (shapes, field names, names being identifiers, indices, the
// nesting limit of the text format) and reports the first problem as an InputError at
// location 0:0 whose message names the JSON pointer of the offending value, e.g.
// `malformed target program JSON at /body/stmts/2/min: expected an object, found number`.
#pragma once

#include "semantics/tgt.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace halo {

nlohmann::json tgt_to_json(const TgtProgram& p);
TgtProgram tgt_from_json(const nlohmann::json& j, const std::string& file);

nlohmann::json stmt_to_json(const Stmt& s);
Stmt stmt_from_json(const nlohmann::json& j, const std::string& file);

nlohmann::json expr_to_json(const Expr& e);
Expr expr_from_json(const nlohmann::json& j, const std::string& file);

// The label of a hole alone: {"kind": "cpu", "bound": "min", "func": "f", "var": "x",
// "stage": 0, "spec": 0 | "*"} (no stage and spec for mem holes). An expression hole is
// {"hole": <this>}; bounds engines use it to say which hole an answer fills.
nlohmann::json hole_to_json(const HoleLabel& h);
HoleLabel hole_from_json(const nlohmann::json& j, const std::string& file);

}  // namespace halo
