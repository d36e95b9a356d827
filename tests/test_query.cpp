// Query extraction B(T) (thesis fig. 2.10a), its printed and JSON forms, and the dynamic
// check of a completed run against it (bounds/extract.hpp, bounds/query_check.hpp).
// One test per rule of the figure, the stage-coverage fix (docs/semantics-decisions.md
// item 9) with its counterexample, and the check on the §2.2 example and on brute-force
// completions of random programs.
#include "bounds/beta0.hpp"
#include "bounds/extract.hpp"
#include "bounds/query_check.hpp"
#include "fuzz/program_gen.hpp"
#include "interp/small_step.hpp"
#include "lower/brute_force_filling.hpp"
#include "lower/lower.hpp"
#include "schedule/schedule.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"
#include "semantics/tgt_parser.hpp"
#include "semantics/validity.hpp"

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <fstream>
#include <functional>
#include <set>
#include <sstream>

using namespace halo;

namespace {

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
std::string example(const std::string& name) { return std::string(HALO_SOURCE_DIR) + "/examples/" + name; }

TgtProgram lower_source(const std::string& src) {
  Program p = parse_program(src, "test.halo");
  check_program(p);
  return lower_pipeline(p);
}
TgtProgram tgt(const std::string& src) { return parse_tgt(src, "test.tgt"); }
std::string printed(const TgtProgram& t) { return print_query(extract_query(t)); }

Input input_of(const TgtProgram& t) { return resolve_input(t.file, t.name, t.params, t.window.size(), t.realize, {}); }

// A filling from {"hole text": "expression text"}, as in examples/*.fill.json.
HoleFilling filling(const std::map<std::string, std::string>& m) {
  HoleFilling g;
  for (const auto& [h, e] : m) g[as<HoleNode>(parse_tgt_expr(h, "fill")).label] = parse_tgt_expr(e, "fill");
  return g;
}
HoleFilling filling_file(const std::string& path) {
  auto j = nlohmann::json::parse(read(path));
  std::map<std::string, std::string> m;
  for (const auto& [k, v] : j.items()) m[k] = v.get<std::string>();
  return filling(m);
}

// Every leaf of a query, in order.
void leaves(const Query& q, std::vector<Query>& out) {
  if (q->kids.empty()) out.push_back(q);
  for (const auto& k : q->kids) leaves(k, out);
}

const char* kThesis = R"(∀ x_min ∈ [-∞, ∞] :
  ∀ x_len ∈ [-∞, ∞] :
      ∃ ?mem<g> :
          ∃ ?cpu<g, *, 0> :
              ?cpu<g, *, 0, x>.len >= 0
            ∧ ∀ x ∈ [?cpu<g, *, 0, x>.min, ?cpu<g, *, 0, x>.len] :
                (1) ⇒
                  (x) ∈ ?mem<g>
        ∧ ∃ ?mem<f> :
            ∃ ?cpu<f, *, 0> :
                ?cpu<f, *, 0, x>.len >= 0
              ∧ ∀ x ∈ [?cpu<f, *, 0, x>.min, ?cpu<f, *, 0, x>.len] :
                  (1) ⇒
                      (x) ∈ ?mem<f>
                    ∧ (x) ∈ ?mem<g>
                    ∧ (x + 1) ∈ ?mem<g>
                    ∧ ((x) ∈ ?cpu<f, *, 0>) ⇒
                          (x) ∈ ?mem<g>
                        ∧ (x) ∈ ?cpu<g, *, 0>
                        ∧ (x + 1) ∈ ?mem<g>
                        ∧ (x + 1) ∈ ?cpu<g, *, 0>
    ∧ [x_min, x_len] ∈ ?cpu<f, *, 0>
)";

}  // namespace

TEST_CASE("query: the §2.2 example (pipeline, allocate, label, for, if, store)", "[bounds]") {
  TgtProgram t = lower_source(read(example("thesis_2_2.halo")));
  CHECK(printed(t) == kThesis);
}

TEST_CASE("query: B(assert), B(nop), B(let), B(if)", "[bounds]") {
  TgtProgram t = tgt(R"(target pipeline f(n) over (x_min, x_len) {
  assert n > 0;
  nop;
  let y = g^(0, *)[n] in { assert y > 0; }
  if (g^(0, *)[0] > 0) { assert 1; } else { assert n; }
  if (n) { nop; }
})");
  // assert e ↦ e; nop ↦ true (dropped); let ↦ B_cpu(e) ∧ let v = e in B(s);
  // if ↦ B_cpu(e) ∧ e ⇒ B(s1) ∧ ¬e ⇒ B(s2); an if over nops gives only true.
  CHECK(printed(t) == R"(∀ n ∈ [-∞, ∞] :
  ∀ x_min ∈ [-∞, ∞] :
    ∀ x_len ∈ [-∞, ∞] :
        n > 0
      ∧ (n) ∈ ?mem<g>
      ∧ (n) ∈ ?cpu<g, *, 0>
      ∧ let y = g^(0, *)[n] in
          y > 0
      ∧ (0) ∈ ?mem<g>
      ∧ (0) ∈ ?cpu<g, *, 0>
      ∧ (g^(0, *)[0] > 0) ⇒
          1
      ∧ (!(g^(0, *)[0] > 0)) ⇒
          n
      ∧ [x_min, x_len] ∈ ?cpu<f, *, 0>
)");
  // The structure, not only the text: the if's two implications carry e and ¬e.
  Query q = extract_query(t);
  while (q->kind == QueryKind::Forall) q = q->kids[0];
  REQUIRE(q->kind == QueryKind::And);
  REQUIRE(q->kids.size() == 9);
  CHECK(q->kids[0]->kind == QueryKind::Pred);
  CHECK(q->kids[0]->origin == "the assertion must hold");
  CHECK(q->kids[3]->kind == QueryKind::Let);
  CHECK(q->kids[3]->var == "y");
  CHECK(q->kids[6]->kind == QueryKind::Implies);
  CHECK(q->kids[7]->kind == QueryKind::Implies);
  CHECK(as<OpNode>(q->kids[7]->expr).op == Op::Not);
  CHECK(q->kids[8]->kind == QueryKind::Cover);
}

TEST_CASE("query: B(allocate then s) scopes over the rest of the sequence, B(store) with reads in indices", "[bounds]") {
  TgtProgram t = tgt(R"(target pipeline f() over (x_min, x_len) {
  allocate f((?mem<f, x>.min, ?mem<f, x>.len));
  assert 1;
  label f: {
    label f.s0: {
      for <f, 0, 0, x> in (?cpu<f, *, 0, x>.min, ?cpu<f, *, 0, x>.len) serial {
        f^(0, *)[h^(0, *)[x]] <- g^(0, *)[h^(0, *)[x]];
      }
    }
  }
})");
  // ē ∈ ?mem f ∧ B_cpu(ē) ∧ B_mem(e0) ∧ (ē ∈ ?cpu f ⇒ B_cpu(e0)), where B_mem(g[h[x]])
  // still asks B_cpu of the index h[x].
  CHECK(printed(t) == R"(∀ x_min ∈ [-∞, ∞] :
  ∀ x_len ∈ [-∞, ∞] :
      ∃ ?mem<f> :
          1
        ∧ ∃ ?cpu<f, *, 0> :
              ?cpu<f, *, 0, x>.len >= 0
            ∧ ∀ x ∈ [?cpu<f, *, 0, x>.min, ?cpu<f, *, 0, x>.len] :
                  (h^(0, *)[x]) ∈ ?mem<f>
                ∧ (x) ∈ ?mem<h>
                ∧ (x) ∈ ?cpu<h, *, 0>
                ∧ (x) ∈ ?mem<h>
                ∧ (x) ∈ ?cpu<h, *, 0>
                ∧ (h^(0, *)[x]) ∈ ?mem<g>
                ∧ ((h^(0, *)[x]) ∈ ?cpu<f, *, 0>) ⇒
                      (x) ∈ ?mem<h>
                    ∧ (x) ∈ ?cpu<h, *, 0>
                    ∧ (h^(0, *)[x]) ∈ ?mem<g>
                    ∧ (h^(0, *)[x]) ∈ ?cpu<g, *, 0>
    ∧ [x_min, x_len] ∈ ?cpu<f, *, 0>
)");
  // The store's implication has a membership antecedent: a null expr and two kids.
  std::vector<Query> ls;
  Query q = extract_query(t);
  std::function<void(const Query&)> find = [&](const Query& n) {
    if (n->kind == QueryKind::Implies && !n->expr) ls.push_back(n);
    for (const auto& k : n->kids) find(k);
  };
  find(q);
  REQUIRE(ls.size() == 1);
  REQUIRE(ls[0]->kids.size() == 2);
  CHECK(ls[0]->kids[0]->kind == QueryKind::Member);
  CHECK(ls[0]->kids[0]->hole.to_string() == "?cpu<f, *, 0>");
  CHECK(ls[0]->kids[0]->origin == "the point written to f (stage 0) is in its compute bounds");
}

TEST_CASE("query: origins and locations", "[bounds]") {
  TgtProgram t = lower_source(read(example("thesis_2_2.halo")));
  std::vector<Query> ls;
  leaves(extract_query(t), ls);
  std::set<std::string> origins;
  for (const auto& l : ls) {
    CHECK(!l->origin.empty());
    origins.insert(l->origin);
  }
  CHECK(origins.count("loop <g, 0, 0, x> must not have a negative length"));
  CHECK(origins.count("write of f (stage 0) must be allocated"));
  CHECK(origins.count("read of g in the value stored to f (stage 0) must be allocated"));
  CHECK(origins.count("read of g in the value stored to f (stage 0) must be computed"));
  CHECK(origins.count("the output window must be computed by f"));
  for (const auto& l : ls)
    if (l->kind == QueryKind::Member) CHECK(l->loc.line > 0);
}

// docs/semantics-decisions.md item 9: the literal figure never relates stage i-1's compute
// region to stage i's.
TEST_CASE("query: stage coverage (decision 9) and its counterexample", "[bounds]") {
  TgtProgram t = lower_source("pipeline f() {\n  fun f(x) = { x; rdom(r = (0, 2)) in (r) <- 7 }\n}\n"
                              "realize () over (0, 4)\n");
  std::string q = printed(t);
  CHECK_THAT(q, Catch::Contains("∧ [?cpu<f, *, 1, x>.min, ?cpu<f, *, 1, x>.len] ∈ ?cpu<f, 0, 0>\n"
                                "            ∧ 2 >= 0"));  // at the start of stage 1
  std::vector<Query> ls;
  leaves(extract_query(t), ls);
  int covers = 0;
  for (const auto& l : ls)
    if (l->kind == QueryKind::Cover && l->hole.stage == 0) {
      ++covers;
      CHECK_THAT(l->origin, Catch::Contains("semantics decision 9"));
    }
  CHECK(covers == 1);

  // The counterexample: ?cpu<f,0,0,x> = (0, 0) satisfies every literal conjunct, yet the
  // run outputs ε_mem at f(2), f(3). Only the cover catches it.
  HoleFilling bad = filling({{"?mem<f, x>.min", "0"},
                             {"?mem<f, x>.len", "4"},
                             {"?cpu<f, 0, 0, x>.min", "0"},
                             {"?cpu<f, 0, 0, x>.len", "0"},
                             {"?cpu<f, *, 1, x>.min", "x_min"},
                             {"?cpu<f, *, 1, x>.len", "x_len"}});
  Input in = input_of(t);
  RunResult run = run_tgt(fill_holes(t, bad), in, Limits{});
  REQUIRE(run.status == RunStatus::Ok);
  CHECK(run.output.values[2].is_error());  // the wrong answer the literal query allows
  auto v = check_run_against_query(t, bad, in, Limits{});
  REQUIRE(v);
  CHECK(v->conjunct == "[?cpu<f, *, 1, x>.min, ?cpu<f, *, 1, x>.len] ∈ ?cpu<f, 0, 0>");
  CHECK_THAT(v->origin, Catch::Contains("stage coverage"));
  CHECK_THAT(v->detail, Catch::Contains("(0, 4)"));

  HoleFilling good = bad;
  good[as<HoleNode>(parse_tgt_expr("?cpu<f, 0, 0, x>.len", "t")).label] = parse_tgt_expr("x_len", "t");
  CHECK_FALSE(check_run_against_query(t, good, in, Limits{}));
}

TEST_CASE("query: specialized stages are covered within their own specialization", "[bounds]") {
  TgtProgram t = tgt(R"(target pipeline f(n) over (x_min, x_len) {
  allocate f((?mem<f, x>.min, ?mem<f, x>.len));
  label f: {
    if (n) {
      label f.s0: { for <f, 1, 0, x> in (?cpu<f, 1, 0, x>.min, ?cpu<f, 1, 0, x>.len) serial { f^(0, 1)[x] <- 1; } }
      label f.s1: { for <f, 1, 1, x> in (?cpu<f, *, 1, x>.min, ?cpu<f, *, 1, x>.len) serial { f^(1, *)[x] <- f^(0, 1)[x]; } }
    } else {
      label f.s0: { for <f, 0, 0, x> in (?cpu<f, 0, 0, x>.min, ?cpu<f, 0, 0, x>.len) serial { f^(0, 0)[x] <- 2; } }
      label f.s1: { for <f, 0, 1, x> in (?cpu<f, *, 1, x>.min, ?cpu<f, *, 1, x>.len) serial { f^(1, *)[x] <- f^(0, 0)[x]; } }
    }
  }
})");
  std::string q = printed(t);
  // Each branch covers the shared last stage by its own specialization's stage 0, only.
  CHECK_THAT(q, Catch::Contains("(n) ⇒"));
  std::vector<Query> ls;
  leaves(extract_query(t), ls);
  std::vector<std::string> covers;
  for (const auto& l : ls)
    if (l->kind == QueryKind::Cover && l->hole.stage == 0) covers.push_back(print_conjunct(l));
  CHECK(covers == std::vector<std::string>{"[?cpu<f, *, 1, x>.min, ?cpu<f, *, 1, x>.len] ∈ ?cpu<f, 1, 0>",
                                           "[?cpu<f, *, 1, x>.min, ?cpu<f, *, 1, x>.len] ∈ ?cpu<f, 0, 0>"});
  // ∃ for every cpu tuple of f at `label f`.
  CHECK_THAT(q, Catch::Contains("∃ ?cpu<f, 0, 0> :\n"));
  CHECK_THAT(q, Catch::Contains("∃ ?cpu<f, 1, 0> :\n"));
  CHECK_THAT(q, Catch::Contains("∃ ?cpu<f, *, 1> :\n"));
}

TEST_CASE("query: printing with origins", "[bounds]") {
  TgtProgram t = lower_source(read(example("thesis_2_2.halo")));
  std::string q = print_query(extract_query(t), true);
  CHECK_THAT(q, Catch::Contains("(x + 1) ∈ ?cpu<g, *, 0>  # read of g in the value stored to f (stage 0) must be "
                                "computed\n"));
  CHECK_THAT(q, Catch::Contains("((x) ∈ ?cpu<f, *, 0>) ⇒  # the point written to f (stage 0) is in its compute "
                                "bounds\n"));
}

TEST_CASE("query: JSON form", "[bounds]") {
  TgtProgram t = lower_source(read(example("thesis_2_2.halo")));
  nlohmann::json j = query_to_json(extract_query(t), t);
  CHECK(j["format"] == "halo-bounds-query");
  CHECK(j["version"] == 1);
  CHECK(j["pipeline"] == "f");
  CHECK(j["params"] == nlohmann::json::array());
  CHECK(j["window"] == nlohmann::json::parse(R"([{"min": "x_min", "len": "x_len"}])"));
  REQUIRE(j["holes"].size() == 4);
  nlohmann::json g;
  for (const auto& h : j["holes"])
    if (h["tuple"] == "?cpu<g, *, 0>") g = h;
  REQUIRE(g.is_object());
  CHECK(g["kind"] == "cpu");
  CHECK(g["func"] == "g");
  CHECK(g["stage"] == 0);
  CHECK(g["spec"] == "*");
  REQUIRE(g["dims"].size() == 1);
  CHECK(g["dims"][0]["var"] == "x");
  CHECK(g["dims"][0]["min"]["text"] == "?cpu<g, *, 0, x>.min");
  CHECK(g["dims"][0]["len"]["label"] ==
        nlohmann::json::parse(R"({"kind": "cpu", "bound": "len", "func": "g", "var": "x", "stage": 0, "spec": "*"})"));
  CHECK(g["dims"][0]["min"]["scope"] == nlohmann::json::parse(R"(["x_min", "x_len"])"));

  // The tree: ∀ x_min : ∀ x_len : (B(s) ∧ window).
  const auto& q = j["query"];
  CHECK(q["op"] == "forall");
  CHECK(q["var"] == "x_min");
  CHECK(q["min"].is_null());
  const auto& body = q["body"]["body"];
  REQUIRE(body["op"] == "and");
  const auto& window = body["args"].back();
  CHECK(window["op"] == "cover");
  CHECK(window["hole"] == "?cpu<f, *, 0>");
  CHECK(window["text"] == "[x_min, x_len] ∈ ?cpu<f, *, 0>");
  CHECK(window["origin"] == "the output window must be computed by f");
  CHECK(window["box"][0][0] == nlohmann::json::parse(R"({"var": "x_min"})"));
  // A membership-antecedent implication is {"if_member": member, "then": ...}.
  std::string dump = j.dump();
  CHECK_THAT(dump, Catch::Contains(R"("if_member":{)"));
  CHECK_THAT(dump, Catch::Contains(R"("op":"exists")"));

  // Without the program: no scopes, same tree.
  nlohmann::json bare = query_to_json(extract_query(t));
  CHECK(bare["query"] == j["query"]);
  CHECK_FALSE(bare["holes"][0]["dims"][0]["min"].contains("scope"));
}

// ---------------------------------------------------------------- the dynamic check

TEST_CASE("query check: the §2.2 example with its tight filling, and two wrong ones", "[bounds]") {
  TgtProgram t = lower_source(read(example("thesis_2_2.halo")));
  Input in = input_of(t);
  HoleFilling tight = filling_file(example("thesis_2_2.fill.json"));
  auto ok = check_run_against_query(t, tight, in, Limits{});
  INFO((ok ? ok->conjunct + " / " + ok->detail : std::string()));
  CHECK_FALSE(ok);

  SECTION("g allocated one point short: g's own write at 6 comes first") {
    HoleFilling g = tight;
    g[as<HoleNode>(parse_tgt_expr("?mem<g, x>.len", "t")).label] = parse_tgt_expr("x_len", "t");
    auto v = check_run_against_query(t, g, in, Limits{});
    REQUIRE(v);
    // The conjunct names g's loop variable in full (docs/target-syntax.md, "Variables").
    CHECK(v->conjunct == "(<g, 0, 0, x>) ∈ ?mem<g>");
    CHECK(v->origin == "write of g (stage 0) must be allocated");
    CHECK_THAT(v->detail, Catch::Contains("<g, 0, 0, x> = 6"));
  }
  SECTION("g allocated and computed one point short: the read of g at x + 1 = 6") {
    HoleFilling g = tight;
    g[as<HoleNode>(parse_tgt_expr("?mem<g, x>.len", "t")).label] = parse_tgt_expr("x_len", "t");
    g[as<HoleNode>(parse_tgt_expr("?cpu<g, *, 0, x>.len", "t")).label] = parse_tgt_expr("x_len", "t");
    auto v = check_run_against_query(t, g, in, Limits{});
    REQUIRE(v);
    CHECK(v->conjunct == "(<f, 0, 0, x> + 1) ∈ ?mem<g>");
    CHECK(v->origin == "read of g in the value stored to f (stage 0) must be allocated");
    CHECK_THAT(v->detail, Catch::Contains("the point (6) of g"));
    CHECK_THAT(v->detail, Catch::Contains("?mem<g, x>.len = x_len = 6"));
    CHECK_THAT(v->detail, Catch::Contains("<f, 0, 0, x> = 5"));
    CHECK(v->loc.line > 0);
  }
  SECTION("g computed one point short: the compute bound of g") {
    HoleFilling g = tight;
    g[as<HoleNode>(parse_tgt_expr("?cpu<g, *, 0, x>.len", "t")).label] = parse_tgt_expr("x_len", "t");
    auto v = check_run_against_query(t, g, in, Limits{});
    REQUIRE(v);
    CHECK(v->conjunct == "(<f, 0, 0, x> + 1) ∈ ?cpu<g, *, 0>");
    CHECK(v->origin == "read of g in the value stored to f (stage 0) must be computed");
  }
  SECTION("f computed one point short: the output window") {
    HoleFilling g = tight;
    g[as<HoleNode>(parse_tgt_expr("?cpu<f, *, 0, x>.len", "t")).label] = parse_tgt_expr("x_len - 1", "t");
    auto v = check_run_against_query(t, g, in, Limits{});
    REQUIRE(v);
    CHECK(v->conjunct == "[x_min, x_len] ∈ ?cpu<f, *, 0>");
    CHECK(v->origin == "the output window must be computed by f");
  }
  SECTION("a negative loop length") {
    HoleFilling g = tight;
    g[as<HoleNode>(parse_tgt_expr("?cpu<g, *, 0, x>.len", "t")).label] = parse_tgt_expr("0 - 1", "t");
    auto v = check_run_against_query(t, g, in, Limits{});
    REQUIRE(v);
    CHECK(v->conjunct == "?cpu<g, *, 0, x>.len >= 0");
    CHECK(v->origin == "loop <g, 0, 0, x> must not have a negative length");
  }
  SECTION("an unfilled hole is an input error") {
    HoleFilling g = tight;
    g.erase(as<HoleNode>(parse_tgt_expr("?mem<f, x>.min", "t")).label);
    CHECK_THROWS_AS(check_run_against_query(t, g, in, Limits{}), InputError);
  }
}

TEST_CASE("query check: a false assertion and reads of uncomputed values", "[bounds]") {
  TgtProgram t = tgt(R"(target pipeline f(n) over (x_min, x_len) {
  allocate f((?mem<f, x>.min, ?mem<f, x>.len));
  label f: {
    label f.s0: {
      for <f, 0, 0, x> in (?cpu<f, *, 0, x>.min, ?cpu<f, *, 0, x>.len) serial { f^(0, *)[x] <- x; }
    }
  }
  assert n < 3;
}
realize (n = 1) over (0, 4))");
  HoleFilling g = filling({{"?mem<f, x>.min", "x_min"},
                           {"?mem<f, x>.len", "x_len"},
                           {"?cpu<f, *, 0, x>.min", "x_min"},
                           {"?cpu<f, *, 0, x>.len", "x_len"}});
  Input in = input_of(t);
  CHECK_FALSE(check_run_against_query(t, g, in, Limits{}));
  in.params[0] = Value(int64_t(5));
  auto v = check_run_against_query(t, g, in, Limits{});
  REQUIRE(v);
  CHECK(v->conjunct == "n < 3");
  CHECK(v->origin == "the assertion must hold");
  CHECK_THAT(v->detail, Catch::Contains("n = 5"));
}

TEST_CASE("property: brute-force completions satisfy B(T) on their input", "[bounds][property]") {
  rc::prop("check_run_against_query accepts brute_force_filling", [] {
    Program p = *fuzz::gen_program();
    RC_LOG() << print_program(p);
    Input in = resolve_input(p, {});
    TgtProgram t = lower_pipeline(p);
    BruteForceOptions opt;
    opt.max_steps = 300'000;
    opt.max_extent = 512;
    auto bf = brute_force_filling(t, in, opt);
    if (!bf) RC_DISCARD("the completion is too large for brute force");
    Limits lim;
    lim.max_steps = 5'000'000;
    std::optional<QueryViolation> v;
    try {
      v = check_run_against_query(t, bf->filling, in, lim);
    } catch (const ResourceLimit&) {
      RC_DISCARD("the run is too long for a property test");
    }
    if (v) RC_LOG() << v->conjunct << "  # " << v->origin << "\n" << v->detail << "\n";
    if (bf->assertion_failure) {
      // A negative rdom extent: its startup check (§2.9) is the first conjunct of B(T) to
      // fail, so no completion satisfies B(T) for this input.
      RC_ASSERT(v.has_value());
      RC_ASSERT(v->origin == "the assertion must hold");
      return;
    }
    RC_ASSERT(!bf->rdom_failure);
    RC_ASSERT(!v.has_value());
  });
}

// Found by libFuzzer (halo_fuzz_target, 1,292 executions in): the update stage of a
// specialized func is shared by the specializations (?cpu<f0, *, 1>) and does not iterate
// x, so its x hole is its predecessor's; the check took the predecessor of whichever
// specialization the filling listed first, not of the one that ran (p0 = 0 runs
// specialization 2), and called β0's correct completion a violation of B(T).
TEST_CASE("query check: a shared last stage's missing hole is its predecessor in the specialization that ran", "[bounds][query]") {
  Program p = parse_program(
      "pipeline f0(p0) {\n  fun f0(x, y) = {\n    0;\n    rdom(r21 = (0, 1)) in (0, y) <- f0[r21, y]\n  }\n}\n\n"
      "schedule {\n  specialize(f0, p0 > 0, p0 % 2 == 0);\n  split(<f0, 0, 1, r21>, r21o, r21i, 2, guard);\n}\n\n"
      "realize (p0 = 0) over (0, 1), (0, 1)\n",
      "spec.halo");
  REQUIRE(validate_program(p).empty());
  TgtProgram t = schedule_pipeline(p);
  Beta0Result b = run_beta0(extract_query(t), t);
  Beta0Completion c = complete_with_beta0(b, t);
  REQUIRE(c.ok);
  for (int64_t p0 : {0, 1, 3}) {  // specializations 2, 1 and 0 run
    INFO("p0 = " << p0);
    InputOverrides over;
    over.params = {"p0=" + std::to_string(p0)};
    Input in = resolve_input(p, over);
    auto v = check_run_against_query(t, b.filling, in, Limits{});
    CHECK_FALSE(v);
  }
}
