// The JSON form of tgt_json.hpp: a writer that cannot fail and a reader that checks every
// value it takes, so that a malformed document from another program gets a message naming
// the offending value instead of an exception from deep inside nlohmann::json.
//
// Integers of the value domain (constants, realize values) are written as decimal strings,
// because JSON numbers lose precision beyond 53 bits in most readers and our integers are
// unbounded; indices (stages, specializations) are plain JSON numbers. Operator names are
// the text format's spellings, taken from the same tables (lexer.hpp).
#include "semantics/tgt_json.hpp"

#include "support/command_budget.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <limits>

#include "semantics/lexer.hpp"
#include "semantics/parser.hpp"
#include "semantics/typing.hpp"

namespace halo {

using nlohmann::json;

namespace {

// ---------------------------------------------------------------- writing
json spec_json(int64_t spec) { return spec == FuncLabel::kShared ? json("*") : json(spec); }

json interval_json(json min, json len) { return json{{"min", std::move(min)}, {"len", std::move(len)}}; }

json exprs_json(const std::vector<Expr>& es) {
  json a = json::array();
  for (const auto& e : es) a.push_back(expr_to_json(e));
  return a;
}

json realize_json(const Realization& r) {
  json params = json::array(), window = json::array();
  for (const auto& b : r.params) params.push_back(json{{"name", b.name.text}, {"value", b.value.to_string()}});
  for (const auto& i : r.window) window.push_back(interval_json(i.min.to_string(), i.len.to_string()));
  json out{{"params", std::move(params)}, {"window", std::move(window)}};
  if (r.inputs.empty()) return out;
  json inputs = json::array();
  for (const auto& b : r.inputs) {
    json in{{"name", b.name.text}};
    switch (b.source) {
      case InputSourceKind::Image: in["image"] = b.path; break;
      case InputSourceKind::Npy: in["npy"] = b.path; break;
      case InputSourceKind::Seeded: {
        in["seeded"] = b.seed.to_string();
        json box = json::array();
        for (const auto& i : b.box) box.push_back(interval_json(i.min.to_string(), i.len.to_string()));
        in["box"] = std::move(box);
        break;
      }
    }
    inputs.push_back(std::move(in));
  }
  out["inputs"] = std::move(inputs);
  return out;
}

// ---------------------------------------------------------------- reading
// The JSON pointer of the value being read, extended as the reader descends.
std::string at_key(const std::string& path, std::string_view key) { return fmt::format("{}/{}", path, key); }
std::string at_index(const std::string& path, size_t i) { return fmt::format("{}/{}", path, i); }

class Reader {
 public:
  Reader(const std::string& file, std::string_view what) : file_(file), what_(what) {}

  TgtProgram program(const json& j);
  Stmt stmt(const json& j, const std::string& path, int depth, bool in_seq = false);
  Expr expr(const json& j, const std::string& path, int depth);
  HoleLabel hole(const json& j, const std::string& path);

 private:
  const std::string& file_;
  std::string_view what_;  // "target program", "expression", ...
  // The loops and lets around the statement being read, as in the text parser (lexer.hpp):
  // a plain name x means the innermost of them a reader calls x.
  std::vector<std::pair<std::string, std::string>> scope_;

  // A variable: a plain name, or a qualified one {"func", "spec", "stage", "var"} (ast.hpp).
  std::string variable(const json& j, const std::string& path) {
    if (j.is_object()) {
      const json& l = object(j, path, {"func", "spec", "stage", "var"});
      return qualified_var(ident(l["func"], at_key(path, "func")), index(l["spec"], at_key(path, "spec")),
                           index(l["stage"], at_key(path, "stage")), ident(l["var"], at_key(path, "var")));
    }
    std::string v = ident(j, path);
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
      if (it->first == v) return it->second;
    return v;
  }

  [[noreturn]] void fail(const std::string& path, std::string_view message) const {
    std::string where = path.empty() ? "the top level" : path;
    throw InputError(Diagnostic{file_, {}, fmt::format("malformed {} JSON at {}: {}", what_, where, message)});
  }
  [[noreturn]] void wrong_type(const json& j, const std::string& path, std::string_view expected) const {
    fail(path, fmt::format("expected {}, found {}", expected, j.type_name()));
  }

  // An object with exactly these fields: all of `required`, any of `optional`, no other.
  const json& object(const json& j, const std::string& path, std::initializer_list<std::string_view> required,
                     std::initializer_list<std::string_view> optional = {}) const {
    if (!j.is_object()) wrong_type(j, path, "an object");
    auto known = [&](std::string_view k) {
      return std::find(required.begin(), required.end(), k) != required.end() ||
             std::find(optional.begin(), optional.end(), k) != optional.end();
    };
    for (std::string_view k : required)
      if (!j.contains(k)) fail(path, fmt::format("missing field '{}'", k));
    for (const auto& [k, v] : j.items())
      if (!known(k)) fail(at_key(path, k), fmt::format("unknown field '{}'", k));
    return j;
  }
  const json& array(const json& j, const std::string& path) const {
    if (!j.is_array()) wrong_type(j, path, "an array");
    return j;
  }
  std::string text(const json& j, const std::string& path) const {
    if (!j.is_string()) wrong_type(j, path, "a string");
    return j.get<std::string>();
  }
  // Names must be what the text format reads back, so that every JSON program prints.
  std::string ident(const json& j, const std::string& path) const {
    std::string s = text(j, path);
    if (!is_identifier(s)) fail(path, fmt::format("'{}' is not a name (an identifier that is not a reserved word)", s));
    return s;
  }
  std::vector<std::string> idents(const json& j, const std::string& path) const {
    std::vector<std::string> out;
    for (size_t i = 0; i < array(j, path).size(); ++i) out.push_back(ident(j[i], at_index(path, i)));
    return out;
  }
  // f, f.s0, ...: names joined by dots, as `label` statements are written.
  std::string label(const json& j, const std::string& path) const {
    std::string s = text(j, path);
    size_t start = 0;
    while (true) {
      size_t dot = std::min(s.find('.', start), s.size());
      if (!is_identifier(std::string_view(s).substr(start, dot - start)))
        fail(path, fmt::format("'{}' is not a label (names joined by '.', e.g. f.s0)", s));
      if (dot == s.size()) return s;
      start = dot + 1;
    }
  }
  int64_t index(const json& j, const std::string& path) const {
    // nlohmann keeps a number read from text as unsigned when it is non-negative, and one
    // assigned from a signed C++ integer as signed: both are accepted.
    if (j.is_number_unsigned()) {
      if (j.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
        fail(path, fmt::format("index {} too large (it must fit in 64 bits)", j.dump()));
      return j.get<int64_t>();
    }
    if (!j.is_number_integer()) wrong_type(j, path, "a non-negative integer");
    if (j.get<int64_t>() < 0) fail(path, fmt::format("expected a non-negative index, found {}", j.dump()));
    return j.get<int64_t>();
  }
  // A type name as the text format writes it ("u8", "i32", "bool").
  Type type_named(const json& j, const std::string& path) const {
    std::string s = text(j, path);
    auto t = parse_type_name(s);
    if (!t) fail(path, fmt::format("'{}' is not a type (bool, u8, u16, u32, u64, i8, i16, i32, i64)", s.substr(0, 24)));
    return *t;
  }
  // The optional "type" field of a node: ℤ when absent.
  Type node_type(const json& j, const std::string& path) const {
    return j.contains("type") ? type_named(j["type"], at_key(path, "type")) : Type::z();
  }
  int64_t spec(const json& j, const std::string& path) const {
    if (j.is_string() && j.get<std::string>() == "*") return FuncLabel::kShared;
    if (j.is_string()) fail(path, "expected a specialization index or \"*\"");
    return index(j, path);
  }
  // A value of V: a decimal string (or a JSON integer, for hand-written documents), or one
  // of the error values as derivations and machine states may hold them.
  Value value(const json& j, const std::string& path) const {
    if (j.is_number_unsigned()) return Value::from_big(BigInt(j.get<uint64_t>()));
    if (j.is_number_integer()) return Value(j.get<int64_t>());
    std::string s = text(j, path);
    if (s == Value::err_rdom().to_string()) return Value::err_rdom();
    if (s == Value::err_mem().to_string()) return Value::err_mem();
    if (s == Value::err_undef().to_string()) return Value::err_undef();
    if (s.size() > kMaxLiteralDigits + 1)
      fail(path, fmt::format("integer too long (the limit is {} digits)", kMaxLiteralDigits));
    auto v = Value::parse(s);
    if (!v) fail(path, fmt::format("'{}' is not a decimal integer", s.substr(0, 24)));
    return *v;
  }
  std::pair<json, json> interval(const json& j, const std::string& path) const {
    object(j, path, {"min", "len"});
    return {j["min"], j["len"]};
  }
  std::vector<Expr> exprs(const json& j, const std::string& path, int depth) {
    std::vector<Expr> out;
    for (size_t i = 0; i < array(j, path).size(); ++i) out.push_back(expr(j[i], at_index(path, i), depth));
    return out;
  }
  FuncLabel func_label(const json& j, const std::string& path) const {
    object(j, path, {"stage", "spec"});
    return FuncLabel{index(j["stage"], at_key(path, "stage")), spec(j["spec"], at_key(path, "spec"))};
  }
  Realization realization(const json& j, const std::string& path) const;
  void check_depth(int depth, const std::string& path, std::string_view what, int limit = kMaxNesting) const {
    if (depth > limit) fail(path, fmt::format("{} nested too deeply (limit {})", what, limit));
  }
};

TgtProgram Reader::program(const json& j) {
  object(j, "", {"name", "params", "window", "body"}, {"realize", "typed", "param_types", "inputs"});
  TgtProgram p;
  p.file = file_;
  p.name = ident(j["name"], "/name");
  p.params = idents(j["params"], "/params");
  if (j.contains("typed")) {
    if (!j["typed"].is_boolean()) wrong_type(j["typed"], "/typed", "a boolean");
    p.typed = j["typed"].get<bool>();
  }
  if (j.contains("param_types")) {
    if (!p.typed) fail("/param_types", "parameter types in a program that is not \"typed\": true");
    for (size_t i = 0; i < array(j["param_types"], "/param_types").size(); ++i)
      p.param_types.push_back(type_named(j["param_types"][i], at_index("/param_types", i)));
    if (p.param_types.size() != p.params.size())
      fail("/param_types", fmt::format("{} types for {} parameters", p.param_types.size(), p.params.size()));
  }
  for (size_t i = 0; i < array(j["window"], "/window").size(); ++i) {
    std::string path = at_index("/window", i);
    auto [min, len] = interval(j["window"][i], path);
    p.window.emplace_back(ident(min, at_key(path, "min")), ident(len, at_key(path, "len")));
  }
  if (j.contains("inputs"))
    for (size_t i = 0; i < array(j["inputs"], "/inputs").size(); ++i) {
      std::string at = at_index("/inputs", i);
      const json& in = object(j["inputs"][i], at, {"name", "vars"}, {"type"});
      TgtInput t;
      t.name = ident(in["name"], at_key(at, "name"));
      t.vars = idents(in["vars"], at_key(at, "vars"));
      if (in.contains("type")) {
        if (!p.typed) fail(at_key(at, "type"), "an input type in a program that is not \"typed\": true");
        t.type = type_named(in["type"], at_key(at, "type"));
      } else if (p.typed) {
        fail(at, "an input of a typed program needs its \"type\"");
      }
      p.inputs.push_back(std::move(t));
    }
  p.body = stmt(j["body"], "/body", 0);
  if (j.contains("realize")) p.realize = realization(j["realize"], "/realize");
  if (p.typed) {
    // The types written must be the ones Halide's rules give (docs/types.md): the program
    // typed again from its parameters and buffers is the same program.
    TgtProgram typed = p;
    try {
      type_target(typed);
    } catch (const InputError& e) {
      fail("/body", e.diagnostics().front().message);
    }
    if (!same_tgt(typed, p))
      fail("/body", "the types of the expressions are not those Halide's rules give from the parameters' and "
                    "buffers' types (docs/types.md, \"Typed target programs\"); the text form of the program, "
                    "which has no types on expressions, reads back typed");
  }
  return p;
}

Realization Reader::realization(const json& j, const std::string& path) const {
  object(j, path, {"params", "window"}, {"inputs"});
  Realization r;
  std::string params = at_key(path, "params"), window = at_key(path, "window");
  if (j.contains("inputs")) {
    std::string inputs = at_key(path, "inputs");
    for (size_t i = 0; i < array(j["inputs"], inputs).size(); ++i) {
      std::string at = at_index(inputs, i);
      const json& b = object(j["inputs"][i], at, {"name"}, {"image", "npy", "seeded", "box"});
      InputBinding in;
      in.name = Name{ident(b["name"], at_key(at, "name")), {}};
      int sources = int(b.contains("image")) + int(b.contains("npy")) + int(b.contains("seeded"));
      if (sources != 1) fail(at, "an input binding has exactly one of \"image\", \"npy\" and \"seeded\"");
      if (b.contains("seeded")) {
        in.source = InputSourceKind::Seeded;
        in.seed = value(b["seeded"], at_key(at, "seeded"));
        if (!b.contains("box")) fail(at, "a seeded input needs its \"box\"");
        for (size_t k = 0; k < array(b["box"], at_key(at, "box")).size(); ++k) {
          std::string bk = at_index(at_key(at, "box"), k);
          auto [min, len] = interval(b["box"][k], bk);
          in.box.push_back(Interval{value(min, at_key(bk, "min")), value(len, at_key(bk, "len")), {}});
        }
      } else {
        const char* key = b.contains("image") ? "image" : "npy";
        in.source = b.contains("image") ? InputSourceKind::Image : InputSourceKind::Npy;
        if (!b[key].is_string() || b[key].get<std::string>().empty())
          wrong_type(b[key], at_key(at, key), "a file name");
        in.path = b[key].get<std::string>();
      }
      r.inputs.push_back(std::move(in));
    }
  }
  for (size_t i = 0; i < array(j["params"], params).size(); ++i) {
    std::string at = at_index(params, i);
    const json& b = object(j["params"][i], at, {"name", "value"});
    r.params.push_back(
        ParamBinding{Name{ident(b["name"], at_key(at, "name")), {}}, value(b["value"], at_key(at, "value"))});
  }
  for (size_t i = 0; i < array(j["window"], window).size(); ++i) {
    std::string at = at_index(window, i);
    auto [min, len] = interval(j["window"][i], at);
    r.window.push_back(Interval{value(min, at_key(at, "min")), value(len, at_key(at, "len")), {}});
  }
  return r;
}

// `depth` counts the compound statements around this one, as blocks are counted in the
// text format; a sequence directly inside a sequence (which the text cannot write) counts
// too, so that the reader's recursion is bounded whatever the document.
Stmt Reader::stmt(const json& j, const std::string& path, int depth, bool in_seq) {
  if (!j.is_object()) wrong_type(j, path, "a statement object");
  if (!j.contains("stmt")) fail(path, "missing field 'stmt' (the statement's kind)");
  std::string kind = text(j["stmt"], at_key(path, "stmt"));
  auto field = [&](std::string_view k) { return at_key(path, k); };
  auto body = [&](std::string_view k) {
    check_depth(depth + 1, field(k), "statements", kMaxStatementNesting);
    return stmt(j[k], field(k), depth + 1);
  };
  if (kind == "nop") {
    object(j, path, {"stmt"});
    return make_nop();
  }
  if (kind == "assert") {
    object(j, path, {"stmt", "cond"});
    return make_assert(expr(j["cond"], field("cond"), 0));
  }
  if (kind == "seq") {
    object(j, path, {"stmt", "stmts"});
    if (in_seq) check_depth(depth + 1, path, "statements", kMaxStatementNesting);
    int inner = in_seq ? depth + 1 : depth;
    std::vector<Stmt> stmts;
    for (size_t i = 0; i < array(j["stmts"], field("stmts")).size(); ++i)
      stmts.push_back(stmt(j["stmts"][i], at_index(field("stmts"), i), inner, true));
    return make_seq(std::move(stmts));
  }
  if (kind == "allocate") {
    object(j, path, {"stmt", "func", "bounds"}, {"type"});
    std::vector<std::pair<Expr, Expr>> bounds;
    for (size_t i = 0; i < array(j["bounds"], field("bounds")).size(); ++i) {
      std::string at = at_index(field("bounds"), i);
      auto [min, len] = interval(j["bounds"][i], at);
      bounds.emplace_back(expr(min, at_key(at, "min"), 0), expr(len, at_key(at, "len"), 0));
    }
    return make_allocate(ident(j["func"], field("func")), std::move(bounds), {}, node_type(j, path));
  }
  if (kind == "store") {
    object(j, path, {"stmt", "func", "args", "value"}, {"label"});
    FuncLabel label = j.contains("label") ? func_label(j["label"], field("label")) : FuncLabel{};
    return make_store(ident(j["func"], field("func")), label, exprs(j["args"], field("args"), 0),
                      expr(j["value"], field("value"), 0));
  }
  if (kind == "if") {
    object(j, path, {"stmt", "cond", "then"}, {"else"});
    Expr cond = expr(j["cond"], field("cond"), 0);
    Stmt then_case = body("then");
    return make_if(cond, then_case, j.contains("else") ? body("else") : nullptr);
  }
  if (kind == "for") {
    object(j, path, {"stmt", "loop", "min", "len", "order", "body"});
    std::string at = field("loop");
    const json& l = object(j["loop"], at, {"func", "spec", "stage", "var"});
    std::string order = text(j["order"], field("order"));
    auto o = traversal(order);
    if (!o)
      fail(field("order"), fmt::format("'{}' is not a traversal order (serial|parallel|vectorized|unrolled)", order));
    std::string func = ident(l["func"], at_key(at, "func"));
    int64_t spec = index(l["spec"], at_key(at, "spec"));
    int64_t stage = index(l["stage"], at_key(at, "stage"));
    std::string var = ident(l["var"], at_key(at, "var"));
    Expr mn = expr(j["min"], field("min"), 0);
    Expr ln = expr(j["len"], field("len"), 0);
    scope_.emplace_back(var, qualified_var(func, spec, stage, var));
    Stmt b = body("body");
    scope_.pop_back();
    return make_for(func, spec, stage, var, mn, ln, *o, b);
  }
  if (kind == "let") {
    object(j, path, {"stmt", "var", "value", "body"});
    // A plain let binds the plain name; a qualified one rebinds a loop's variable.
    std::string var = j["var"].is_object() ? variable(j["var"], field("var")) : ident(j["var"], field("var"));
    Expr value = expr(j["value"], field("value"), 0);
    scope_.emplace_back(short_var(var), var);
    Stmt b = body("body");
    scope_.pop_back();
    return make_let(var, value, b);
  }
  if (kind == "label") {
    object(j, path, {"stmt", "label", "body"});
    return make_label(label(j["label"], field("label")), body("body"));
  }
  fail(field("stmt"),
       fmt::format("unknown statement kind '{}' (nop, assert, seq, allocate, store, if, for, let, label)",
                   kind.substr(0, 24)));
}

// The operator spelled `name` taking `arity` operands: "-" is negation with one operand
// and subtraction with two, as in the text format.
std::optional<Op> op_named(std::string_view name, size_t arity) {
  std::optional<Op> op = arity == 1 ? prefix_op(name) : std::nullopt;
  if (!op) op = infix_op(name);
  if (!op) op = builtin_op(name);
  if (!op) op = prefix_op(name);
  // Halide's operators, casts included, by the names op_name gives them.
  for (int k = 0; !op && k <= int(kLastOp); ++k)
    if (name == op_name(Op(k))) op = Op(k);
  return op;
}

Expr Reader::expr(const json& j, const std::string& path, int depth) {
  check_depth(depth, path, "expression");
  if (!j.is_object()) wrong_type(j, path, "an expression object");
  auto field = [&](std::string_view k) { return at_key(path, k); };
  std::vector<std::string_view> kinds;
  for (std::string_view k : {"const", "var", "op", "call", "hole"})
    if (j.contains(k)) kinds.push_back(k);
  if (kinds.size() > 1)
    fail(path, fmt::format("an expression has one of the fields 'const', 'var', 'op', 'call', 'hole', not both "
                           "'{}' and '{}'",
                           kinds[0], kinds[1]));
  Type type = node_type(j, path);
  if (j.contains("const")) {
    object(j, path, {"const"}, {"type"});
    Value v = value(j["const"], field("const"));
    if (!type.can_represent(v)) fail(field("const"), fmt::format("{} is not a value of {}", v.to_string(), type.to_string()));
    return make_const(v, {}, type);
  }
  if (j.contains("var")) {
    object(j, path, {"var"}, {"type"});
    return make_var(variable(j["var"], field("var")), {}, type);
  }
  if (j.contains("hole")) {
    object(j, path, {"hole"}, {"type"});
    return make_hole(hole(j["hole"], field("hole")), {}, type);
  }
  if (j.contains("call")) {
    object(j, path, {"call", "args"}, {"label", "type"});
    FuncLabel label = j.contains("label") ? func_label(j["label"], field("label")) : FuncLabel{};
    return make_call(ident(j["call"], field("call")), exprs(j["args"], field("args"), depth + 1), {}, label, type);
  }
  if (j.contains("op")) {
    object(j, path, {"op", "args"}, {"type", "implicit"});
    std::string name = text(j["op"], field("op"));
    std::vector<Expr> args = exprs(j["args"], field("args"), depth + 1);
    auto op = op_named(name, args.size());
    if (!op) fail(field("op"), fmt::format("unknown operator '{}'", name.substr(0, 24)));
    if (std::ssize(args) != op_arity(*op))
      fail(field("args"), fmt::format("'{}' takes {} operand{}, found {}", name, op_arity(*op),
                                      op_arity(*op) == 1 ? "" : "s", args.size()));
    bool cast = *op == Op::Cast || *op == Op::SaturatingCast;
    if (cast && !type.is_typed()) fail(path, fmt::format("'{}' needs the field 'type' (the type cast to)", name));
    bool implicit = false;
    if (j.contains("implicit")) {
      if (!j["implicit"].is_boolean()) wrong_type(j["implicit"], field("implicit"), "a boolean");
      implicit = j["implicit"].get<bool>();
      if (implicit && *op != Op::Cast) fail(field("implicit"), "only a cast is implicit");
    }
    return std::make_shared<OpNode>(*op, std::move(args), SourceLoc{}, implicit ? OpSugar::ImplicitCast : OpSugar::None,
                                    type);
  }
  fail(path, "an expression needs one of the fields 'const', 'var', 'op', 'call', 'hole'");
}

HoleLabel Reader::hole(const json& j, const std::string& path) {
  if (!j.is_object()) wrong_type(j, path, "a hole object");
  if (!j.contains("kind")) fail(path, "missing field 'kind' (\"mem\" or \"cpu\")");
  std::string kind = text(j["kind"], at_key(path, "kind"));
  if (kind != "mem" && kind != "cpu")
    fail(at_key(path, "kind"), fmt::format("expected \"mem\" or \"cpu\", found \"{}\"", kind.substr(0, 24)));
  HoleLabel h;
  h.kind = kind == "cpu" ? HoleKind::Cpu : HoleKind::Mem;
  if (h.kind == HoleKind::Cpu) {
    object(j, path, {"kind", "bound", "func", "var", "stage", "spec"});
    h.stage = index(j["stage"], at_key(path, "stage"));
    h.spec = spec(j["spec"], at_key(path, "spec"));
  } else {
    object(j, path, {"kind", "bound", "func", "var"});
  }
  std::string bound = text(j["bound"], at_key(path, "bound"));
  if (bound != "min" && bound != "len")
    fail(at_key(path, "bound"), fmt::format("expected \"min\" or \"len\", found \"{}\"", bound.substr(0, 24)));
  h.is_len = bound == "len";
  h.func = ident(j["func"], at_key(path, "func"));
  h.var = ident(j["var"], at_key(path, "var"));
  return h;
}

}  // namespace

// ---------------------------------------------------------------- the public interface
json hole_to_json(const HoleLabel& h) {
  json j{{"kind", h.kind == HoleKind::Cpu ? "cpu" : "mem"},
         {"bound", h.is_len ? "len" : "min"},
         {"func", h.func},
         {"var", h.var}};
  if (h.kind == HoleKind::Cpu) {
    j["stage"] = h.stage;
    j["spec"] = spec_json(h.spec);
  }
  return j;
}

namespace {
// A variable's JSON: its name, or the loop name of a qualified variable as an object.
json var_json(const std::string& v) {
  auto l = split_qualified_var(v);
  if (!l) return v;
  return json{{"func", l->func.text}, {"spec", l->spec}, {"stage", l->stage}, {"var", l->var.text}};
}
}  // namespace

namespace {
json untyped_expr_json(const Expr& e) {
  switch (e->kind) {
    case ExprKind::Const: return json{{"const", as<ConstNode>(e).value.to_string()}};
    case ExprKind::Var: return json{{"var", var_json(as<VarNode>(e).name)}};
    case ExprKind::Hole: return json{{"hole", hole_to_json(as<HoleNode>(e).label)}};
    case ExprKind::Call: {
      const auto& c = as<CallNode>(e);
      json j{{"call", c.func}, {"args", exprs_json(c.args)}};
      if (c.label.labelled()) j["label"] = json{{"stage", c.label.stage}, {"spec", spec_json(c.label.spec)}};
      return j;
    }
    case ExprKind::Op: {
      const auto& o = as<OpNode>(e);
      json j{{"op", op_name(o.op)}, {"args", exprs_json(o.args)}};
      if (o.sugar == OpSugar::ImplicitCast) j["implicit"] = true;
      return j;
    }
  }
  return nullptr;
}
}  // namespace

// Every node of a typed program carries its type, so that a reader needs no typing rules.
json expr_to_json(const Expr& e) {
  tick_command_budget();
  json j = untyped_expr_json(e);
  if (e->type.is_typed()) j["type"] = e->type.to_string();
  return j;
}

json stmt_to_json(const Stmt& s) {
  tick_command_budget();
  switch (s->kind) {
    case StmtKind::Nop: return json{{"stmt", "nop"}};
    case StmtKind::Assert: return json{{"stmt", "assert"}, {"cond", expr_to_json(as<AssertStmt>(s).cond)}};
    case StmtKind::Seq: {
      json stmts = json::array();
      for (const auto& x : as<SeqStmt>(s).stmts) stmts.push_back(stmt_to_json(x));
      return json{{"stmt", "seq"}, {"stmts", std::move(stmts)}};
    }
    case StmtKind::Allocate: {
      const auto& a = as<AllocateStmt>(s);
      json bounds = json::array();
      for (const auto& [min, len] : a.bounds) bounds.push_back(interval_json(expr_to_json(min), expr_to_json(len)));
      json j{{"stmt", "allocate"}, {"func", a.func}, {"bounds", std::move(bounds)}};
      if (a.type.is_typed()) j["type"] = a.type.to_string();
      return j;
    }
    case StmtKind::Store: {
      const auto& st = as<StoreStmt>(s);
      json j{{"stmt", "store"}, {"func", st.func}, {"args", exprs_json(st.args)}, {"value", expr_to_json(st.value)}};
      if (st.label.labelled()) j["label"] = json{{"stage", st.label.stage}, {"spec", spec_json(st.label.spec)}};
      return j;
    }
    case StmtKind::If: {
      const auto& i = as<IfStmt>(s);
      return json{{"stmt", "if"},
                  {"cond", expr_to_json(i.cond)},
                  {"then", stmt_to_json(i.then_case)},
                  {"else", stmt_to_json(i.else_case)}};
    }
    case StmtKind::For: {
      const auto& f = as<ForStmt>(s);
      return json{{"stmt", "for"},
                  {"loop", json{{"func", f.func}, {"spec", f.spec}, {"stage", f.stage}, {"var", f.var}}},
                  {"min", expr_to_json(f.min)},
                  {"len", expr_to_json(f.len)},
                  {"order", traversal_name(f.order)},
                  {"body", stmt_to_json(f.body)}};
    }
    case StmtKind::Let: {
      const auto& l = as<LetStmt>(s);
      return json{{"stmt", "let"}, {"var", var_json(l.var)}, {"value", expr_to_json(l.value)}, {"body", stmt_to_json(l.body)}};
    }
    case StmtKind::Label: {
      const auto& l = as<LabelStmt>(s);
      return json{{"stmt", "label"}, {"label", l.label}, {"body", stmt_to_json(l.body)}};
    }
  }
  return nullptr;
}

json tgt_to_json(const TgtProgram& p) {
  json window = json::array();
  for (const auto& [min, len] : p.window) window.push_back(interval_json(min, len));
  json j{{"name", p.name}, {"params", p.params}, {"window", std::move(window)}, {"body", stmt_to_json(p.body)}};
  if (!p.inputs.empty()) {
    json inputs = json::array();
    for (const auto& in : p.inputs) {
      json i{{"name", in.name}, {"vars", in.vars}};
      if (p.typed) i["type"] = in.type.to_string();
      inputs.push_back(std::move(i));
    }
    j["inputs"] = std::move(inputs);
  }
  if (p.typed) {
    j["typed"] = true;
    json types = json::array();
    for (size_t i = 0; i < p.params.size(); ++i) types.push_back(p.param_type(i).to_string());
    j["param_types"] = std::move(types);
  }
  if (p.realize) j["realize"] = realize_json(*p.realize);
  return j;
}

TgtProgram tgt_from_json(const json& j, const std::string& file) { return Reader(file, "target program").program(j); }

Stmt stmt_from_json(const json& j, const std::string& file) { return Reader(file, "statement").stmt(j, "", 0); }

Expr expr_from_json(const json& j, const std::string& file) { return Reader(file, "expression").expr(j, "", 0); }

HoleLabel hole_from_json(const json& j, const std::string& file) { return Reader(file, "hole").hole(j, ""); }

}  // namespace halo
