// Typed target programs (docs/types.md, "Typed target programs"): a typed program's target
// program is typed throughout, prints with its parameters' and buffers' types, reads back
// (text and JSON) as the same tree, and goes through the bounds-engine protocol with every
// expression's type; malformed types are located errors.
#include "bounds/beta0.hpp"
#include "bounds/extract.hpp"
#include "fuzz/expr_gen.hpp"
#include "fuzz/halide_gen.hpp"
#include "interp/fast_eval.hpp"
#include "interp/small_step.hpp"
#include "schedule/schedule.hpp"
#include "semantics/printer.hpp"
#include "semantics/tgt_json.hpp"
#include "semantics/tgt_parser.hpp"
#include "semantics/tgt_printer.hpp"
#include "support.hpp"
#include "tests/cli_support.hpp"

#include <nlohmann/json.hpp>
#include <rapidcheck/catch.h>

#include <string>

namespace halo {

namespace {

std::string example(const std::string& name) { return std::string(HALO_SOURCE_DIR) + "/examples/" + name; }

// The three forms of a target program agree: text and JSON read back as the same tree.
void require_round_trips(const TgtProgram& t) {
  std::string text = print_tgt(t);
  RC_LOG() << text;
  TgtProgram again = parse_tgt(text, "again.tgt");
  RC_ASSERT(same_tgt(again, t));
  RC_ASSERT(print_tgt(again) == text);
  RC_ASSERT(same_tgt(tgt_from_json(tgt_to_json(t), "again.json"), t));
}

// Every expression node of a statement, with the type each has.
struct TypesSeen : StmtVisitor {
  struct Walk : ExprVisitor {
    std::vector<Type> types;
    void visit_const(const ConstNode& n) override { types.push_back(n.type); }
    void visit_var(const VarNode& n) override { types.push_back(n.type); }
    void visit_hole(const HoleNode& n) override { types.push_back(n.type); }
    void visit_call(const CallNode& n) override {
      types.push_back(n.type);
      ExprVisitor::visit_call(n);
    }
    void visit_op(const OpNode& n) override {
      types.push_back(n.type);
      ExprVisitor::visit_op(n);
    }
  } walk;
  void visit_expr(const Expr& e) override { walk.visit(e); }
};

}  // namespace

TEST_CASE("typed target: the scheduled unsharp mask prints its types, reads back and runs", "[types][tgt]") {
  Program p = parse_file(example("types/unsharp_u8.halo"));
  TgtProgram t = schedule_pipeline(p);
  REQUIRE(t.typed);
  std::string text = print_tgt(t);
  INFO(text);
  CHECK(text.find("target pipeline sharpen(k : u8) over") != std::string::npos);
  CHECK(text.find(") : u8;") != std::string::npos);  // allocate blur(...) : u8;
  CHECK(text.find("if (1)") != std::string::npos);   // the implicit cast to bool stays implicit
  // Typed throughout: no node keeps ℤ (loop bounds, holes, indices are Int(32)).
  TypesSeen seen;
  seen.visit(t.body);
  REQUIRE(seen.walk.types.size() > 50);
  for (const Type& ty : seen.walk.types) CHECK(ty.is_typed());
  TgtProgram again = parse_tgt(text, "again.tgt");
  CHECK(same_tgt(again, t));
  CHECK(same_tgt(tgt_from_json(tgt_to_json(t), "again.json"), t));
  // Completed by β0, printed and read back, it computes the user's uint8 values.
  Beta0Completion c = complete_with_beta0(t);
  REQUIRE(c.ok);
  TgtProgram filled = parse_tgt(print_tgt(c.program), "filled.tgt");
  CHECK(same_tgt(filled, c.program));
  Input in = resolve_input(p, {});
  RunResult run = run_tgt(filled, in, Limits{});
  REQUIRE(run.status == RunStatus::Ok);
  OutputBuffer ref = evaluate_fast(p.pipeline, in, Limits{});
  CHECK(run.output.values == ref.values);
  CHECK(run.output.values[1] == Value(int64_t{37}));  // sharpen(1, 0): input 37, blur (0 + 74 + 74) / 4 = 37
}

TEST_CASE("property: typed target programs survive the text and JSON forms", "[types][tgt][property]") {
  rc::prop("expression cases, scheduled and completed", [] {
    Program p = *fuzz::gen_expr_case(fuzz::expr_case_config(*rc::gen::inRange(0, fuzz::kMaxCaseSize + 1)));
    RC_LOG() << print_program(p);
    TgtProgram t = schedule_pipeline(p);
    require_round_trips(t);
    require_round_trips(complete_with_beta0(t).program);
  });
  rc::prop("typed image pipelines, scheduled and completed", [] {
    fuzz::HalideGenWeights w;
    w.set("typed=100");
    Program p = *fuzz::gen_halide_case(fuzz::halide_case_config(*rc::gen::inRange(0, fuzz::kMaxCaseSize + 1), w));
    RC_PRE(p.pipeline.typed);
    RC_LOG() << print_program(p);
    TgtProgram t = schedule_formal_part(p);
    require_round_trips(t);
    require_round_trips(complete_with_beta0(t).program);
  });
}

TEST_CASE("typed target: type errors in the text form are located", "[types][tgt]") {
  auto error_of = [](const std::string& src) {
    try {
      parse_tgt(src, "t.tgt");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string head = "target pipeline f(k : u8) over (x_min, x_len) {\n  allocate f((x_min, x_len)) : u8;\n";
  // A literal that does not fit the buffer's type (check_representable).
  std::string lit = error_of(head + "  for <f, 0, 0, x> in (x_min, x_len) serial { f^(0, 0)[x] <- 300; }\n}\n");
  CHECK_THAT(lit, Catch::Contains("t.tgt:3:") && Catch::Contains("300") && Catch::Contains("u8"));
  // A value of another type.
  std::string wide =
      error_of(head + "  for <f, 0, 0, x> in (x_min, x_len) serial { f^(0, 0)[x] <- u16(k) + 1; }\n}\n");
  CHECK_THAT(wide, Catch::Contains("t.tgt:3:") && Catch::Contains("has type u16, but the func's values are u8"));
  // A u64 index cannot be cast to Int(32) losslessly (check_call_arg_types).
  std::string index = error_of(head + "  for <f, 0, 0, x> in (x_min, x_len) serial { f^(0, 0)[u64(x)] <- k; }\n}\n");
  CHECK_THAT(index, Catch::Contains("t.tgt:3:") && Catch::Contains("implicit cast from u64 to int"));
  // A condition that is not bool.
  std::string cond =
      error_of(head + "  for <f, 0, 0, x> in (x_min, x_len) serial { if (x) { f^(0, 0)[x] <- k; } }\n}\n");
  CHECK_THAT(cond, Catch::Contains("t.tgt:3:") && Catch::Contains("must be bool"));
  // A realized value outside its parameter's type.
  std::string realize = error_of(head + "}\nrealize (k = 256) over (0, 4)\n");
  CHECK_THAT(realize, Catch::Contains("t.tgt:4:") && Catch::Contains("256 is not a value of k's type u8"));
  // Unknown type names.
  CHECK_THAT(error_of("target pipeline f(k : u7) { }\n"), Catch::Contains("t.tgt:1:23") && Catch::Contains("a type"));
  // Well typed: the same program with a cast.
  CHECK(error_of(head + "  for <f, 0, 0, x> in (x_min, x_len) serial { f^(0, 0)[x] <- u8(u16(k) + 1); }\n}\n") ==
        "no error");
}

TEST_CASE("typed target: JSON types are checked against Halide's rules", "[types][tgt]") {
  Program p = parse_file(example("types/unsharp_u8.halo"));
  nlohmann::json j = tgt_to_json(schedule_pipeline(p));
  CHECK(j["typed"] == true);
  CHECK(j["param_types"] == nlohmann::json::array({"u8"}));
  CHECK(j["body"]["stmts"][0]["type"] == "u8");  // allocate blur
  auto error_of = [](const nlohmann::json& doc) {
    try {
      tgt_from_json(doc, "t.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  REQUIRE(error_of(j) == "no error");
  // A buffer type that its stores do not have.
  nlohmann::json wrong = j;
  wrong["body"]["stmts"][0]["type"] = "u16";
  CHECK_THAT(error_of(wrong), Catch::Contains("at /body: the store of func input has type u8, but the func's values "
                                              "are u16"));
  // A node whose type is not the one the rules give (a hole is Int(32)).
  nlohmann::json hole = j;
  hole["body"]["stmts"][0]["bounds"][0]["min"]["type"] = "i16";
  CHECK_THAT(error_of(hole), Catch::Contains("types of the expressions are not those Halide's rules give"));
  nlohmann::json bad_name = j;
  bad_name["param_types"][0] = "u7";
  CHECK_THAT(error_of(bad_name), Catch::Contains("/param_types/0") && Catch::Contains("'u7' is not a type"));
  nlohmann::json untyped = j;
  untyped.erase("typed");
  CHECK_THAT(error_of(untyped), Catch::Contains("/param_types") && Catch::Contains("not \"typed\": true"));
  nlohmann::json count = j;
  count["param_types"].push_back("i32");
  CHECK_THAT(error_of(count), Catch::Contains("2 types for 1 parameters"));
  // A cast needs its type; a constant must be a value of its type.
  const std::string shell = R"({"name": "f", "params": [], "window": [], "typed": true, "body": {"stmt": "assert", "cond": )";
  CHECK_THAT(error_of(nlohmann::json::parse(shell + R"({"op": "cast", "args": [{"const": "1"}]}}})")),
             Catch::Contains("'cast' needs the field 'type'"));
  CHECK_THAT(error_of(nlohmann::json::parse(shell + R"({"const": "300", "type": "u8"}}})")),
             Catch::Contains("300 is not a value of u8"));
}

TEST_CASE("typed target: the bounds-engine protocol carries types, and beta0-engine answers it", "[types][engine]") {
  Program p = parse_file(example("types/unsharp_u8.halo"));
  TgtProgram t = schedule_pipeline(p);
  nlohmann::json q = query_to_json(extract_query(t), t);
  CHECK(q["typed"] == true);
  CHECK(q["param_types"] == nlohmann::json::array({"u8"}));
  CHECK(q.dump().find("\"type\":\"i32\"") != std::string::npos);
  // halo's own β0 behind the protocol: the oracle runs the typed case end to end and the
  // engine's completion meets Def. 2.5 and both theorems.
  test::CliResult r = test::run_halo({"oracle", example("types/unsharp_u8.halo"), "--engine", std::string(HALO_BINARY) + " beta0-engine",
                     "--json"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  nlohmann::json v = nlohmann::json::parse(r.out);
  CHECK(v["verdict"] == "holds");
}

}  // namespace halo
