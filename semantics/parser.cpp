// The recursive-descent parser of parser.hpp, one function per rule of the grammar in
// docs/syntax.md, and the parser core of lexer.hpp that the target-language parser
// (tgt_parser.cpp) shares with it: tokens, errors, expressions, loop names, realize.
//
// Two things shape it beyond the grammar. Every error is an InputError that says, in
// words, what was expected and what was found, at the location of the offending token.
// And no input may exhaust the stack: every construct that makes the parser recurse
// counts against kMaxNesting on the way down, and every tree node built counts its own
// height, so that a long left-associative chain (which the parser builds in a loop) cannot
// produce a tree that would overflow the recursion of later passes either.
#include "semantics/parser.hpp"
#include "semantics/boundary.hpp"
#include "semantics/printer.hpp"
#include "semantics/schedule_vocabulary.hpp"

#include <fmt/format.h>

#include <limits>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>
#include <variant>

#include "semantics/lexer.hpp"
#include "semantics/typing.hpp"

namespace halo {

namespace {

// A stage before we know whether it stands where it is allowed.
using Stage = std::variant<Expr, UpdateStage>;

std::string describe(const Token& t) {
  constexpr size_t kShown = 24;  // keep messages readable when a literal is huge
  if (t.kind == TokenKind::End) return "end of file";
  std::string text =
      t.text.size() > kShown ? fmt::format("{}...", t.text.substr(0, kShown)) : std::string(t.text);
  if (t.kind == TokenKind::Keyword) return fmt::format("reserved word '{}'", text);
  if (t.text == "<-") return "'<-' (to compare with a negative number, write '< -')";
  return fmt::format("'{}'", text);
}

int deepest(const std::vector<ParsedExpr>& ps) {
  int d = 0;
  for (const auto& p : ps) d = std::max(d, p.depth);
  return d;
}

Precedence tighter(Precedence p) { return static_cast<Precedence>(static_cast<int>(p) + 1); }

Value literal_value(const Token& t, bool negative) {
  if (t.kind == TokenKind::Float) return float_literal_value(t, negative);
  // The lexer only makes Integer tokens of at least one digit, so this cannot fail.
  return *Value::parse(negative ? fmt::format("-{}", t.text) : std::string(t.text));
}

// The .halo parser: the core plus the pipeline, schedule and section rules.
class Parser : public ParserCore {
 public:
  Parser(std::string_view source, std::string file) : ParserCore(source, std::move(file), Dialect::Algorithm) {}

  Program program();
  std::vector<Diagnostic>* schedule_errors_ = nullptr;  // parse_file_ignoring_schedule_errors

 private:
  void skip_section(size_t start);
  void sections(Program& p);
  Pipeline pipeline();
  FuncDef func();
  InputDef input();
  BoundaryCondition boundary_condition(BoundaryKind kind);
  void expand_boundaries(Pipeline& pl) const;
  void add_stage(FuncDef& f, Stage stage, SourceLoc start) const;
  Stage stage();
  bool starts_lhs_list() const;
  UpdateStage update_with_rdom();
  UpdateStage update_rest(UpdateStage u);
  std::vector<Directive> schedule(Program& prog);
  std::vector<Directive> autoscheduled(Program& prog, SourceLoc keyword);
  size_t arguments_ahead() const;
  bool halide_fuse_ahead() const;
  void mark_atomic_traversals(std::vector<Directive>& ds) const;
  Directive directive();
  // Directive::on_intermediate: the directives that schedule the func a named rfactor, an in
  // or a clone_in makes.
  void mark_made_funcs(const Pipeline& p, std::vector<Directive>& ds) const;
  VocabularyCall vocabulary_call();
  [[noreturn]] void unknown_directive(const Token& t);
  void directive_arg(Directive& d, const DirectiveParam& param);
  [[noreturn]] void wrong_arity(DirectiveKind kind, SourceLoc loc) const;
};

}  // namespace

namespace {

// The number of nodes of e written out as a tree, counting a shared node once per use
// (what every evaluator walks), or more than `limit` once it exceeds it.
uint64_t tree_size(const Expr& e, uint64_t limit, std::unordered_map<const ExprNode*, uint64_t>& memo) {
  if (auto it = memo.find(e.get()); it != memo.end()) return it->second;
  const std::vector<Expr>* parts = e->kind == ExprKind::Call ? &as<CallNode>(e).args
                                   : e->kind == ExprKind::Op ? &as<OpNode>(e).args
                                                             : nullptr;
  uint64_t n = 1;
  for (size_t k = 0; parts && k < parts->size() && n <= limit; ++k) n += tree_size((*parts)[k], limit, memo);
  memo.emplace(e.get(), n);
  return n;
}

constexpr uint64_t kMaxLetTreeNodes = 1'000'000;

// No variable, func or input read: only literals and operators.
bool reads_nothing(const Expr& e) {
  struct V : ExprVisitor {
    bool reads = false;
    void visit_var(const VarNode&) override { reads = true; }
    void visit_call(const CallNode&) override { reads = true; }
  } v;
  v.visit(e);
  return !v.reads;
}

// Wraps each let value of `values` in a cast to Int(32) wherever the body reads it.
class TypeLetConstants : public ExprMutator {
 public:
  explicit TypeLetConstants(const std::set<const ExprNode*>& values) : values_(values) {}

 protected:
  Expr mutate_const(const Expr& e) override { return values_.count(e.get()) ? cast(e) : e; }
  Expr mutate_op(const Expr& e) override { return values_.count(e.get()) ? cast(e) : ExprMutator::mutate_op(e); }

 private:
  static Expr cast(const Expr& e) { return make_cast(Type::int_(32), e, e->loc); }
  const std::set<const ExprNode*>& values_;
};

}  // namespace

// ---------------------------------------------------------------- sections
Program Parser::program() {
  Program p;
  p.file = file_;
  if (!at("pipeline")) fail_expected("'pipeline' at the start of the program");
  p.pipeline = pipeline();
  sections(p);
  // Writing any of Halide's types makes the whole program typed (docs/types.md).
  p.pipeline.typed = saw_types_;
  // A let naming literals alone: Halide's `Expr c = 200;` is an Int(32) whatever reads it,
  // which a typed program says with the cast (printed, so the printout means the same).
  if (saw_types_ && !let_constants_.empty()) {
    TypeLetConstants typed(let_constants_);
    for (FuncDef& f : p.pipeline.funcs) {
      f.pure = typed.mutate(f.pure);
      for (UpdateStage& u : f.updates) {
        for (Expr& e : u.lhs) e = typed.mutate(e);
        u.value = typed.mutate(u.value);
        if (u.predicate) u.predicate = typed.mutate(u.predicate);
        for (RVar& r : u.rdom) r.min = typed.mutate(r.min), r.len = typed.mutate(r.len);
      }
    }
  }
  type_program(p);
  return p;
}

void Parser::sections(Program& p) {
  std::optional<SourceLoc> schedule_at;
  while (!at_end()) {
    SourceLoc here = peek().loc;
    if (at("schedule")) {
      if (schedule_at)
        fail(here, fmt::format("a program has at most one schedule section (the first is at {})",
                               loc_text(*schedule_at)));
      if (p.realize) fail(here, "the schedule section must come before the realize section");
      schedule_at = here;
      if (!schedule_errors_) {
        p.schedule = schedule(p);
        continue;
      }
      size_t start = pos_;
      try {
        p.schedule = schedule(p);
      } catch (const InputError& e) {
        for (const auto& d : e.diagnostics()) schedule_errors_->push_back(d);
        skip_section(start);
      }
    } else if (at("realize")) {
      if (p.realize)
        fail(here, fmt::format("a program has at most one realize section (the first is at {})",
                               loc_text(p.realize->loc)));
      p.realize = realization();
    } else if (at("pipeline")) {
      fail(here, "a program has exactly one pipeline");
    } else if (p.realize) {
      fail_expected("end of file after the realize section");
    } else if (p.schedule) {
      fail_expected("'realize' or end of file after the schedule");
    } else {
      fail_expected("'schedule', 'realize' or end of file after the pipeline");
    }
  }
}

// From the section's keyword at `start`, past the brace that closes its '{' (or to the end).
void Parser::skip_section(size_t start) {
  pos_ = start;
  advance();
  int depth = 0;
  while (!at_end()) {
    const Token& t = advance();
    if (t.kind != TokenKind::Symbol) continue;
    if (t.text == "{") ++depth;
    if (t.text == "}" && --depth <= 0) return;
  }
}

Pipeline Parser::pipeline() {
  Pipeline pl;
  pl.loc = advance().loc;
  pl.name = name("the name of the pipeline (its output func)");
  for (ParamDecl& d : param_list()) {
    pl.params.push_back(std::move(d.name));
    pl.param_types.push_back(d.type);
  }
  const Token& open = expect("{", "to start the pipeline body");
  while (!at("}")) {
    if (at_end()) unclosed(open, "pipeline body");
    if (at_word("input") && peek(1).kind == TokenKind::Identifier && at("(", 2)) {
      pl.inputs.push_back(input());
      continue;
    }
    if (!at("fun"))
      fail_expected(fmt::format("'fun', 'input' or '}}' to close the pipeline body opened at {}", loc_text(open.loc)));
    FuncDef f = func();
    for (FuncDef& l : lifted_) pl.funcs.push_back(std::move(l));  // before their user
    lifted_.clear();
    pl.funcs.push_back(std::move(f));
    accept(";");  // the thesis separates definitions with `;` (D ::= D; F): tolerate it
  }
  if (pl.funcs.empty()) fail(peek().loc, "a pipeline must define at least one func");
  advance();
  expand_boundaries(pl);
  return pl;
}

// `input img(x, y) : u8;`: an input buffer (Halide's ImageParam), docs/inputs.md.
InputDef Parser::input() {
  InputDef in;
  in.loc = advance().loc;
  Signature s = signature("input", "a dimension name");
  in.name = std::move(s.name);
  in.vars = std::move(s.vars);
  in.declared = s.declared;
  expect(";", fmt::format("after the declaration of input {}", in.name.text));
  return in;
}

// NAME(v1, ..., vn) [: TYPE]: the head of a func or an input declaration.
ParserCore::Signature ParserCore::signature(std::string_view owner, std::string_view var_kind) {
  Signature s;
  s.name = name(fmt::format("a{} {} name", owner == "input" ? "n" : "", owner));
  s.vars = names_in_parens(fmt::format("after the {} name", owner), var_kind);
  if (at(":")) s.declared = type_annotation(fmt::format("of the values of {} {}", owner, s.name.text));
  return s;
}

// repeat_edge(src[, (min, extent), ...]), constant_exterior(src, value[, (min, extent), ...]),
// after `fun g(x, y) =`: Halide's argument order (src/BoundaryConditions.h).
BoundaryCondition Parser::boundary_condition(BoundaryKind kind) {
  BoundaryCondition bc;
  bc.kind = kind;
  const Token& word = advance();
  bc.loc = word.loc;
  const Token& open = expect("(", fmt::format("after '{}'", word.text));
  bc.source = name(fmt::format("the func or input {} reads", word.text));
  if (kind == BoundaryKind::ConstantExterior) {
    expect(",", fmt::format("after the source of constant_exterior (then the value outside the bounds)"));
    bc.value = expr().expr;
  }
  while (accept(",")) {
    auto [loc, min, extent] = interval([&] { return expr().expr; });
    bc.bounds.emplace_back(std::move(min), std::move(extent));
  }
  expect_close(")", open);
  return bc;
}

// Every func defined by a boundary condition gets Halide's formula as its pure stage, once
// every input and func is known (the source may be declared after it).
void Parser::expand_boundaries(Pipeline& pl) const {
  for (auto& f : pl.funcs) {
    if (!f.boundary) continue;
    const BoundaryCondition& bc = *f.boundary;
    const InputDef* in = pl.find_input(bc.source.text);
    const FuncDef* src = pl.find(bc.source.text);
    if (!in && !src)
      fail(bc.source.loc, fmt::format("{} of '{}': no func or input is called {}", boundary_name(bc.kind),
                                      bc.source.text, bc.source.text));
    size_t dims = in ? in->dims() : src->vars.size();
    if (f.vars.size() != dims)
      fail(f.name.loc, fmt::format("func {} has {} variable(s) but its source {} has {} dimension(s): a boundary "
                                   "condition keeps the source's dimensions",
                                   f.name.text, f.vars.size(), bc.source.text, dims));
    if (bc.bounds.size() > dims)
      fail(bc.loc, fmt::format("{} called with more bounds ({}) than dimensions ({}) {} has", boundary_name(bc.kind),
                               bc.bounds.size(), dims, bc.source.text));
    f.pure = boundary_formula(bc, f.vars, in != nullptr);
  }
}

FuncDef Parser::func() {
  FuncDef f;
  f.loc = advance().loc;
  Signature s = signature("func", "a variable name");
  f.name = std::move(s.name);
  f.vars = std::move(s.vars);
  f.declared = s.declared;
  expect("=", fmt::format("after the signature of func {}", f.name.text));
  if (peek().kind == TokenKind::Identifier && at("(", 1))
    if (auto kind = boundary_kind(peek().text)) {
      f.boundary = boundary_condition(*kind);
      return f;
    }
  const Token& open = expect("{", fmt::format("to start the body of func {}", f.name.text));
  enclosing_ = &f;
  struct Leave {
    const FuncDef*& e;
    ~Leave() { e = nullptr; }
  } leave{enclosing_};
  while (true) {
    SourceLoc start = peek().loc;
    add_stage(f, stage(), start);
    if (accept(";") && !at("}")) continue;
    if (accept("}")) return f;
    if (at_end()) unclosed(open, fmt::format("body of func {}", f.name.text));
    fail_expected("';' or '}' after the stage");
  }
}

void Parser::add_stage(FuncDef& f, Stage stage, SourceLoc start) const {
  bool is_update = std::holds_alternative<UpdateStage>(stage);
  if (!f.pure) {
    if (is_update) {
      // Halide's f(lhs) op= e with no pure definition (FuncDef::implicit_pure).
      UpdateStage& u = std::get<UpdateStage>(stage);
      std::optional<Op> op = compound_update_op(f, u);
      if (!op)
        fail(start, fmt::format("the first stage of func {} must be its pure definition (an expression), or an "
                                "update that Halide writes {}(...) += e (or -=, *=, /=): ({}) <- {}[{}] + e, whose "
                                "pure definition is then Halide's implicit one, the operator's identity",
                                f.name.text, f.name.text, "lhs", f.name.text, "lhs"));
      f.implicit_pure = *op;
      f.pure = make_const(implicit_pure_identity(*op), start);
      f.updates.push_back(std::move(u));
      return;
    }
    f.pure = std::get<Expr>(std::move(stage));
    return;
  }
  if (!is_update) fail(start, "every stage after the first must be an update: (e1, ..., en) <- value");
  f.updates.push_back(std::get<UpdateStage>(std::move(stage)));
}

// `(x) <- e` is an update while `(x) + 1` is a pure stage, and only the token after the
// closing parenthesis tells them apart: so a stage that opens with '(' is read as a
// parenthesised list first, then either becomes a left-hand side or the first operand of
// the pure expression.
Stage Parser::stage() {
  if (at("rdom")) return update_with_rdom();
  if (at("<-")) fail(peek().loc, "'<-' needs a left-hand side: (e1, ..., en) <- value");
  ParsedExpr pure;
  if (starts_lhs_list()) {
    const Token& open = advance();
    std::vector<ParsedExpr> items = expr_list(open, ")");
    if (at("<-")) {
      UpdateStage u;
      u.loc = open.loc;
      u.explicit_rdom = false;
      u.lhs = exprs_of(items);
      return update_rest(std::move(u));
    }
    if (items.size() != 1)
      fail_expected(fmt::format("'<-' after the left-hand side opened at {}", loc_text(open.loc)));
    pure = binary_rest(with_depth(items[0].expr, items[0].depth + 1, open.loc), Precedence::Or);
  } else {
    pure = expr();
  }
  if (at("<-")) fail(peek().loc, "the left-hand side of '<-' must be in parentheses: (e1, ..., en) <- value");
  return pure.expr;
}

// A `(-5)` not followed by `<-` is the negative constant, not a one-element list.
bool Parser::starts_lhs_list() const { return at("(") && !(negative_literal_ahead() && !at("<-", 4)); }

UpdateStage Parser::update_with_rdom() {
  UpdateStage u;
  u.loc = advance().loc;
  u.explicit_rdom = true;
  const Token& open = expect("(", "after 'rdom'");
  u.rdom = comma_list(open, ")", [&] { return rvar(); });
  expect("in", "after the rdom");
  const Token& lhs = expect("(", "to start the left-hand side (e1, ..., en) of the update");
  u.lhs = exprs_of(expr_list(lhs, ")"));
  if (!at("<-")) fail_expected("'<-' after the left-hand side of the update");
  return update_rest(std::move(u));
}

UpdateStage Parser::update_rest(UpdateStage u) {
  advance();  // <-
  u.value = expr().expr;
  if (accept("if")) u.predicate = expr().expr;
  return u;
}

RVar ParserCore::rvar() {
  RVar r;
  r.name = name("a reduction variable name");
  expect("=", fmt::format("after the reduction variable {}", r.name.text));
  auto [loc, min, len] = interval([&] { return expr().expr; });
  r.min = std::move(min);
  r.len = std::move(len);
  return r;
}

// The directives as written, Halide's vocabulary among them (schedule_vocabulary.hpp),
// returned expanded and in fig. 2.11's phase order. `schedule halide {` records that the
// schedule means what Halide means (ScheduleMode): the expansion adds Halide's defaults.
std::vector<Directive> Parser::schedule(Program& prog) {
  SourceLoc keyword = advance().loc;
  if (at_word("halide")) {
    advance();
    prog.schedule_mode = ScheduleMode::Halide;
  } else if (at_word("autoscheduler")) {
    return autoscheduled(prog, keyword);
  }
  const Token& open = expect("{", prog.schedule_mode == ScheduleMode::Halide ? "after 'schedule halide'"
                                                                              : "after 'schedule' (or 'schedule halide', 'schedule autoscheduler NAME')");
  std::vector<ScheduleItem> items;
  while (!accept("}")) {
    if (at_end()) unclosed(open, "schedule");
    if ((peek().kind == TokenKind::Identifier && is_vocabulary_word(peek().text) && at("(", 1)) || halide_fuse_ahead())
      items.emplace_back(vocabulary_call());
    else
      items.emplace_back(directive());
    if (accept(";") || at("}")) continue;
    if (at_end()) unclosed(open, "schedule");
    fail_expected("';' after the directive");
  }
  if (prog.schedule_mode == ScheduleMode::Halide)
    for (const ScheduleItem& it : items)
      if (const auto* c = std::get_if<VocabularyCall>(&it); c && (c->word == "compute_root" || c->word == "store_root"))
        prog.halide_roots.emplace_back(c->word, c->func.text);
  std::vector<Directive> out = expand_schedule(prog.pipeline, items, file_, prog.schedule_mode);
  mark_made_funcs(prog.pipeline, out);
  mark_atomic_traversals(out);
  return out;
}

// `schedule autoscheduler NAME { }`: one of Halide's autoschedulers chooses the whole
// schedule (ScheduleMode::Autoscheduler), so there is nothing to write between the braces;
// a directive there would be overwritten by the autoscheduler or make it refuse the
// pipeline (Mullapudi2016 refuses any scheduled func), so it is an error at the directive.
std::vector<Directive> Parser::autoscheduled(Program& prog, SourceLoc keyword) {
  advance();  // autoscheduler
  const Token& name = peek();
  if (name.kind != TokenKind::Identifier) fail_expected("the name of one of Halide's autoschedulers after 'autoscheduler'");
  std::optional<std::string> known = canonical_autoscheduler(std::string(name.text));
  if (!known) {
    std::optional<std::string> near = closest_word(name.text, halide_autoscheduler_names());
    fail(name.loc, fmt::format("'{}' is not one of Halide's autoschedulers ({}){}", name.text,
                               fmt::join(halide_autoscheduler_names(), ", "),
                               near ? fmt::format("; did you mean '{}'?", *near) : std::string()));
  }
  advance();
  use_autoscheduler(prog, *known, keyword);
  const Token& open = expect("{", fmt::format("after 'schedule autoscheduler {}'", *known));
  if (!at("}")) {
    if (at_end()) unclosed(open, "schedule");
    fail(peek().loc, fmt::format("the autoscheduler {} chooses the whole schedule: `schedule autoscheduler {} {{ }}` "
                                 "takes no directive (write the schedule in `schedule {{ }}` or `schedule halide {{ }}` "
                                 "instead)",
                                 *known, *known));
  }
  advance();
  return {};
}

// `rfactor(<f, j, s, r>, u, intm)` names the intermediate func Halide's rfactor returns.
// It exists in Halide only (halo's program never has it), so the directives that schedule
// it are Halide's alone (Directive::on_intermediate, is_halide_only): its loops and its
// placement, which the Halide translation applies to the Func rfactor returned and the
// formal side leaves out (docs/halide.md, "Halide-only directives").
void Parser::mark_made_funcs(const Pipeline& p, std::vector<Directive>& ds) const {
  // intermediate or wrapper -> the directive that names it (an rfactor's third argument, the
  // last of an in or clone_in)
  std::map<std::string, const Directive*> made;
  auto made_here = [&](const Name& n) { return made.count(n.text) > 0; };
  for (Directive& d : ds) {
    bool loop_kind = d.kind == DirectiveKind::Split || d.kind == DirectiveKind::Fuse ||
                     d.kind == DirectiveKind::Swap || d.kind == DirectiveKind::Traverse;
    bool placement = d.kind == DirectiveKind::ComputeAt || d.kind == DirectiveKind::StoreAt;
    bool its_loop = d.kind != DirectiveKind::Specialize && made_here(d.loop.func);
    const Name* other = its_loop            ? &d.loop.func
                        : made_here(d.func) ? &d.func
                        : d.kind == DirectiveKind::ComputeWith && made_here(d.with.func) ? &d.with.func
                                                                                          : nullptr;
    bool wraps = d.kind == DirectiveKind::In || d.kind == DirectiveKind::CloneIn;
    if (wraps)
      for (size_t k = 0; k + 1 < d.names.size() && !other; ++k)
        if (made_here(d.names[k])) other = &d.names[k];
    if (loop_kind && its_loop) {
      if (d.loop.spec != 0)
        fail(d.loop.loc, fmt::format("{} has no specializations: its loops are <{}, 0, i, v>", d.loop.func.text,
                                     d.loop.func.text));
      d.on_intermediate = true;
    } else if (placement && !its_loop && made_here(d.func)) {
      d.on_intermediate = true;
    } else if (other) {
      const Directive& maker = *made.at(other->text);
      fail(d.loc, fmt::format("'{}' on '{}', the func Halide's {} at {}:{} makes: the schedule may split, fuse, swap "
                              "and traverse its loops and place it (compute_at, store_at at a loop of a func of the "
                              "pipeline); nothing is computed inside it",
                              directive_name(d.kind), other->text, directive_name(maker.kind), maker.loc.line,
                              maker.loc.col));
    }
    const Name* new_name = d.kind == DirectiveKind::Rfactor && d.names.size() > 1 ? &d.names[1]
                           : wraps                                               ? &d.names.back()
                                                                                 : nullptr;
    if (d.kind == DirectiveKind::CloneIn && d.names.size() < 2)
      fail(d.loc, "clone_in names the consumers that get the copy, then the copy's name: clone_in(f, g, ..., wrapper)");
    if (new_name) {
      const Name& n = *new_name;
      if (p.find(n.text) || p.find_input(n.text) || made.count(n.text) ||
          std::find_if(p.params.begin(), p.params.end(), [&](const Name& q) { return q.text == n.text; }) !=
              p.params.end())
        fail(n.loc, fmt::format("the func {} makes needs a new name: '{}' is already a name of pipeline '{}'",
                                directive_name(d.kind), n.text, p.name.text));
      made.emplace(n.text, &d);
    }
  }
}

// Halide's fuse(f, inner, outer, fused) or fuse(<f, j, i>, ...), beside fig. 2.11's
// fuse(<f, j, i, v>, t): the stage, not a loop, comes first.
bool Parser::halide_fuse_ahead() const {
  if (!(peek().kind == TokenKind::Keyword && peek().text == "fuse" && at("(", 1))) return false;
  if (peek(2).kind == TokenKind::Identifier) return true;
  return at("<", 2) && at(">", 8);  // fuse ( < f , j , i >
}

// Directive::on_atomic: the parallel and vectorized traversals of the loops of a stage that is
// atomic or allows races.
void Parser::mark_atomic_traversals(std::vector<Directive>& ds) const {
  std::set<std::tuple<std::string, int64_t, int64_t>> atomic;
  for (const Directive& d : ds)
    if (d.kind == DirectiveKind::Atomic || d.kind == DirectiveKind::AllowRaceConditions)
      atomic.emplace(d.loop.func.text, d.loop.spec, d.loop.stage);
  for (Directive& d : ds)
    if (d.kind == DirectiveKind::Traverse && (d.order == Traversal::Vectorized || d.order == Traversal::Parallel) &&
        atomic.count({d.loop.func.text, d.loop.spec, d.loop.stage}))
      d.on_atomic = true;
}

// How many arguments the call whose '(' is the current token has (commas at its depth, plus
// one; a stage <f, j, i> is one argument): tile's two forms differ only in their count.
size_t Parser::arguments_ahead() const {
  size_t depth = 0, args = 1, in_stage = at("<", 1) ? 2 : 0;
  for (size_t k = 1;; ++k) {
    const Token& t = peek(k);
    if (t.kind == TokenKind::End) return args - in_stage;
    if (at("(", k) || at("[", k)) ++depth;
    if (at(")", k) || at("]", k)) {
      if (depth == 0) return args - in_stage;
      --depth;
    }
    if (depth == 0 && at(",", k)) ++args;
  }
}

// A call of the vocabulary: the stage (f, or <f, j, i>), then its arguments by position.
VocabularyCall Parser::vocabulary_call() {
  const Token& w = advance();
  VocabularyCall c;
  c.word = std::string(w.text);
  c.loc = w.loc;
  std::string usage = vocabulary_usage(c.word);
  // tile(f, x, y, xi, yi, fx, fy[, tail]), Halide's other form, has at most 7 arguments
  // after the stage; tile(f, x, y, xo, yo, xi, yi, fx, fy[, tail]) at least 8.
  size_t tile_names = at("(") && arguments_ahead() <= 8 ? 4 : 6;
  const Token& open = expect("(", fmt::format("after '{}'", c.word));
  std::string stage_text;
  if (at("<")) {
    const Token& lt = advance();
    c.func = name("a func name");
    std::string_view owner = "stage <f, j, i>";
    expect(",", "between the func and the specialization of the stage <f, j, i>");
    c.spec = index("specialization", owner);
    expect(",", "between the specialization and the stage index of the stage <f, j, i>");
    c.stage = index("stage index", owner);
    if (at(","))
      fail(lt.loc, fmt::format("{} names the stage (f or <f, j, i>) and then the loop: {}(<{}, {}, {}>, {}, ...) "
                               "({})",
                               c.word, c.word, c.func.text, *c.spec, *c.stage,
                               peek(1).kind == TokenKind::Identifier ? std::string(peek(1).text) : std::string("x"),
                               usage));
    expect_close(">", lt);
    stage_text = fmt::format("<{}, {}, {}>", c.func.text, *c.spec, *c.stage);
  } else {
    c.func = name("a func name, or a stage <f, j, i>");
    stage_text = c.func.text;
  }
  std::vector<std::string> shown{stage_text};
  enum class Slot { Name, Factor, Tail, None };
  auto slot = [&](size_t k) {
    if (c.word == "tile")
      return k < tile_names ? Slot::Name : k < tile_names + 2 ? Slot::Factor : k == tile_names + 2 ? Slot::Tail : Slot::None;
    if (c.word == "reorder") return Slot::Name;
    if (c.word == "fuse") return k < 3 ? Slot::Name : Slot::None;
    if (c.word == "vectorize" || c.word == "unroll")
      return k == 0 ? Slot::Name : k == 1 ? Slot::Factor : k == 2 ? Slot::Tail : Slot::None;
    if (c.word == "parallel") return k == 0 ? Slot::Name : k == 1 ? Slot::Factor : k == 2 ? Slot::Tail : Slot::None;
    return Slot::None;  // compute_root
  };
  for (size_t k = 0; accept(","); ++k) {
    switch (slot(k)) {
      case Slot::Name: c.names.push_back(name("a loop variable")); shown.push_back(c.names.back().text); break;
      case Slot::Factor: c.factors.push_back(expr().expr); shown.push_back(print_expr(c.factors.back())); break;
      case Slot::Tail:
        if (auto tail = tail_strategy(peek().text); tail && peek().kind == TokenKind::Identifier) {
          advance();
          c.tail = *tail;
          shown.push_back(tail_name(*tail));
          break;
        }
        fail_expected("a tail strategy (guard|shift|round|auto)");
      case Slot::None: fail(peek().loc, fmt::format("{} takes at most {} arguments: {}", c.word, k + 1, usage));
    }
  }
  expect_close(")", open);
  size_t least = c.word == "tile"                                       ? tile_names
                 : c.word == "reorder"                                    ? 2
                 : c.word == "fuse"                                       ? 3
                 : c.word == "compute_root" || c.word == "store_root" ? 0
                                                                          : 1;
  if (c.names.size() < least || (c.word == "tile" && c.factors.size() < 2))
    fail(c.loc, fmt::format("{} needs more arguments: {}", c.word, usage));
  c.text = fmt::format("{}({})", c.word, fmt::join(shown, ", "));
  return c;
}

void Parser::unknown_directive(const Token& t) {
  std::vector<std::string> known;
  for (const auto& d : all_directives()) known.push_back(directive_name(d.kind));
  std::vector<std::string> words = known;
  for (auto w : vocabulary_words()) words.emplace_back(w);
  std::string list;
  for (const auto& w : words) list += (list.empty() ? "" : ", ") + w;
  if (t.kind != TokenKind::Identifier) fail_expected(fmt::format("a directive ({})", list));
  std::string hint;
  if (auto near = closest_word(t.text, words)) {
    if (is_vocabulary_word(*near))
      hint = fmt::format("; did you mean '{}'? {} expands into {}", *near, vocabulary_usage(*near),
                         vocabulary_expansion(*near));
    else
      hint = fmt::format("; did you mean '{}'? {}", *near, directive_usage(*directive_kind(*near)));
  }
  fail(t.loc, fmt::format("unknown directive '{}'{}. The directives are {} (docs/halide-users.md maps Halide's "
                          "scheduling calls to them)",
                          t.text, hint, list));
}

Directive Parser::directive() {
  const Token& t = peek();
  auto kind = t.kind == TokenKind::Keyword || t.kind == TokenKind::Identifier ? directive_kind(t.text) : std::nullopt;
  if (!kind) unknown_directive(t);
  advance();
  Directive d;
  d.kind = *kind;
  d.loc = t.loc;
  const Token& open = expect("(", fmt::format("after '{}'", t.text));
  bool first = true;
  for (const auto& param : directive_syntax(d.kind).params) {
    if (at(")")) wrong_arity(d.kind, peek().loc);
    if (!first) expect(",", fmt::format("between the arguments of {}", t.text));
    first = false;
    directive_arg(d, param);
  }
  // rfactor's optional third argument names the intermediate func, which the schedule may
  // then schedule (mark_made_funcs).
  if (d.kind == DirectiveKind::Rfactor && accept(",")) d.names.push_back(name("the intermediate func's name"));
  if (at(",")) wrong_arity(d.kind, peek().loc);
  expect_close(")", open);
  return d;
}

void Parser::directive_arg(Directive& d, const DirectiveParam& param) {
  switch (param.arg) {
    case DirectiveArg::Func: d.func = name("a func name"); return;
    case DirectiveArg::Loop:
      // Halide's LoopLevel(f, y) beside the loop name, where Halide writes one (ast.hpp, kAnyStage).
      if ((d.kind == DirectiveKind::ComputeAt || d.kind == DirectiveKind::StoreAt ||
           d.kind == DirectiveKind::HoistStorage) &&
          peek().kind == TokenKind::Identifier && at(",", 1) && peek(2).kind == TokenKind::Identifier && at(")", 3)) {
        d.loop.loc = peek().loc;
        d.loop.func = name("a func name");
        advance();  // ,
        d.loop.var = name("a loop variable name");
        d.loop.stage = LoopName::kAnyStage;
        return;
      }
      d.loop = loop_name(/*every_spec=*/true);
      if (d.loop.spec == LoopName::kEverySpec && d.kind != DirectiveKind::ComputeAt)
        fail(d.loop.loc, fmt::format("{} names one loop: '*' (the loop in every specialization) is accepted only by "
                                     "compute_at",
                                     directive_name(d.kind)));
      return;
    case DirectiveArg::With: d.with = loop_name(); return;
    case DirectiveArg::Stage: d.loop = stage_name(directive_name(d.kind)); return;
    case DirectiveArg::Names:
      do d.names.push_back(name("a variable name"));
      while (accept(","));
      return;
    case DirectiveArg::Text: {
      if (peek().kind != TokenKind::String) fail_expected(fmt::format("a message in double quotes ({})", param.placeholder));
      const Token& q = advance();
      d.message = std::string(q.text.substr(1, q.text.size() - 2));
      // Halide's Stage::specialize_fail refuses an empty message.
      if (d.message.empty()) fail(q.loc, fmt::format("{}: the message is empty", directive_name(d.kind)));
      return;
    }
    case DirectiveArg::Name:
      if (d.kind == DirectiveKind::Partition) {
        Name m = name(fmt::format("a partition policy ({})", param.placeholder));
        if (!is_partition_policy(m.text))
          fail(m.loc, fmt::format("partition: '{}' is not one of Halide's policies ({})", m.text, param.placeholder));
        d.names.push_back(std::move(m));
        return;
      }
      if (d.kind == DirectiveKind::StoreIn) {
        Name m = name(fmt::format("a memory type ({})", param.placeholder));
        if (!is_cpu_memory_type(m.text))
          fail(m.loc, fmt::format("store_in: '{}' is not a memory type halo runs on a CPU ({})", m.text,
                                  param.placeholder));
        d.names.push_back(std::move(m));
        return;
      }
      d.names.push_back(name("a variable name"));
      return;
    case DirectiveArg::Expression: d.exprs.push_back(expr().expr); return;
    case DirectiveArg::Expressions:
      do d.exprs.push_back(expr().expr);
      while (accept(","));
      return;
    case DirectiveArg::Tail:
      if (auto tail = tail_strategy(peek().text); tail && peek().kind == TokenKind::Identifier) {
        advance();
        d.tail = *tail;
        return;
      }
      fail_expected(fmt::format("a tail strategy ({})", param.placeholder));
    case DirectiveArg::Order: d.order = order(param.placeholder); return;
  }
}

void Parser::wrong_arity(DirectiveKind kind, SourceLoc loc) const {
  const auto& params = directive_syntax(kind).params;
  bool variadic = !params.empty() &&
                  (params.back().arg == DirectiveArg::Expressions || params.back().arg == DirectiveArg::Names);
  fail(loc, fmt::format("{} takes {}{} argument{}: {}", directive_name(kind), variadic ? "at least " : "",
                        params.size(), params.size() == 1 ? "" : "s", directive_usage(kind)));
}

// ---------------------------------------------------------------- the parser core
ParserCore::ParserCore(std::string_view source, std::string file, Dialect dialect)
    : file_(std::move(file)), toks_(lex(source, file_)), dialect_(dialect) {}

ParserCore::Nest::Nest(ParserCore& p, SourceLoc where) : p_(p) {
  if (++p_.open_ > kMaxNesting) p_.too_deep(where);
}

std::string ParserCore::loc_text(SourceLoc l) { return fmt::format("{}:{}", l.line, l.col); }

std::vector<Expr> ParserCore::exprs_of(const std::vector<ParsedExpr>& ps) {
  std::vector<Expr> es;
  es.reserve(ps.size());
  for (const auto& p : ps) es.push_back(p.expr);
  return es;
}

void ParserCore::fail(SourceLoc loc, std::string message) const {
  throw InputError(Diagnostic{file_, loc, std::move(message)});
}
void ParserCore::fail_expected(std::string_view what) const {
  fail(peek().loc, fmt::format("expected {}, found {}", what, describe(peek())));
}
void ParserCore::unclosed(const Token& open, std::string_view what) const {
  fail(peek().loc,
       fmt::format("unexpected end of file: the {} opened at {} is not closed", what, loc_text(open.loc)));
}
void ParserCore::too_deep(SourceLoc loc) const {
  fail(loc, fmt::format("expression nested too deeply (limit {})", kMaxNesting));
}
void ParserCore::list_not_closed(const Token& open, std::string_view close) const {
  fail_expected(fmt::format("',' or '{}' to close '{}' opened at {}", close, open.text, loc_text(open.loc)));
}

const Token& ParserCore::expect(std::string_view text, std::string_view context) {
  if (!at(text)) fail_expected(fmt::format("'{}' {}", text, context));
  return advance();
}
void ParserCore::expect_close(std::string_view close, const Token& open) {
  if (!accept(close))
    fail_expected(fmt::format("'{}' to close '{}' opened at {}", close, open.text, loc_text(open.loc)));
}

Name ParserCore::name(std::string_view what) {
  if (peek().kind != TokenKind::Identifier) fail_expected(what);
  const Token& t = advance();
  return Name{std::string(t.text), t.loc};
}
std::vector<Name> ParserCore::names_in_parens(std::string_view after, std::string_view what) {
  const Token& open = expect("(", after);
  return comma_list(open, ")", [&] { return name(what); });
}

std::string ParserCore::resolve(const std::string& name) const {
  for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
    if (it->first == name) return it->second;
  return name;
}

// "<f, j, i" of a stage <f, j, i> or a loop name <f, j, i, v> (`what`, as messages name
// it; `in`: where a missing comma is); the caller reads the rest and closes at `open`.
// `every_spec`: `*` may stand for the specialization.
LoopName ParserCore::stage_prefix(std::string_view what, std::string_view in, bool every_spec, const Token*& open) {
  open = &advance();
  LoopName l;
  l.loc = open->loc;
  l.func = name("a func name");
  expect(",", in);
  l.spec = every_spec && accept("*") ? LoopName::kEverySpec
                                     : index("specialization index", what,
                                             every_spec ? "an integer, or '*' for every specialization" : "an integer");
  expect(",", in);
  l.stage = index("stage index", what);
  return l;
}

// A stage <f, j, i>, for the directives that name a whole stage (atomic): a LoopName
// without a variable.
LoopName ParserCore::stage_name(std::string_view directive) {
  if (!at("<")) fail_expected(fmt::format("a stage <f, j, i> (the stage {} applies to)", directive));
  const Token* open = nullptr;
  LoopName l = stage_prefix("stage", "in the stage <f, j, i>", false, open);
  expect_close(">", *open);
  return l;
}

LoopName ParserCore::loop_name(bool every_spec) {
  if (!at("<")) fail_expected("a loop name <f, j, i, v>");
  const Token* open = nullptr;
  LoopName l = stage_prefix("loop name", "in the loop name <f, j, i, v>", every_spec, open);
  expect(",", "in the loop name <f, j, i, v>");
  l.var = name("a loop variable name");
  expect_close(">", *open);
  return l;
}

int64_t ParserCore::index(std::string_view what, std::string_view owner, std::string_view alternatives) {
  auto [value, loc] = signed_literal(fmt::format("the {} of the {} ({})", what, owner, alternatives));
  if (value.sign() < 0)
    fail(loc, fmt::format("the {} of a {} must be non-negative, found {}", what, owner, value.to_string()));
  auto small = value.as_int64();
  if (!small) fail(loc, fmt::format("the {} of a {} is too large (it must fit in 64 bits)", what, owner));
  return *small;
}

int64_t ParserCore::spec_or_shared(std::string_view owner) {
  if (accept("*")) return FuncLabel::kShared;
  return index("specialization index", owner, "an integer, or '*' for the last stage's");
}

Traversal ParserCore::order(std::string_view placeholder) {
  // Not reserved words: a func or a variable may be called `serial`.
  if (auto o = traversal(peek().text); o && peek().kind == TokenKind::Identifier) {
    advance();
    return *o;
  }
  fail_expected(fmt::format("a traversal order ({})", placeholder));
}

Realization ParserCore::realization() {
  Realization r;
  r.loc = advance().loc;
  const Token& open = expect("(", "after 'realize' (the parameter values, e.g. realize (w = 1))");
  r.params = comma_list(open, ")", [&] {
    ParamBinding b;
    b.name = name("a parameter name");
    expect("=", fmt::format("after the parameter {}", b.name.text));
    auto [value, loc] = signed_literal("a number", true);
    if (value.is_float() && !saw_types_)
      fail(loc, fmt::format("{} = {}: a float value needs a parameter of a float type ({} : f32)", b.name.text,
                            value.to_string(), b.name.text));
    b.value = value;
    return b;
  });
  if (accept("over")) r.window = constant_box("window");
  while (at_word("with")) r.inputs.push_back(input_binding());
  return r;
}

// (min, len), (min, len), ...: the output window, or a seeded input's box.
std::vector<Interval> ParserCore::constant_box(std::string_view what) {
  std::vector<Interval> box;
  do {
    auto [loc, min, len] = interval([&] { return signed_literal("an integer").value; });
    box.push_back(Interval{std::move(min), std::move(len), loc});
  } while (accept(","));
  if (at("(")) fail_expected(fmt::format("',' between the intervals of the {}", what));
  return box;
}

// with img = image("photo.png") | npy("w.npy") | seeded(7) over (min, extent), ...
InputBinding ParserCore::input_binding() {
  InputBinding b;
  b.loc = advance().loc;
  b.name = name("an input name");
  expect("=", fmt::format("after the input {} (then image(\"FILE\"), npy(\"FILE\") or seeded(SEED) over ...)",
                          b.name.text));
  const Token& kind = peek();
  if (kind.kind != TokenKind::Identifier || (kind.text != "image" && kind.text != "npy" && kind.text != "seeded"))
    fail_expected("image(\"FILE\"), npy(\"FILE\") or seeded(SEED) over (min, extent), ...");
  advance();
  const Token& open = expect("(", fmt::format("after '{}'", kind.text));
  if (kind.text == "seeded") {
    b.source = InputSourceKind::Seeded;
    b.seed = signed_literal("the seed (an integer)").value;
    expect_close(")", open);
    if (!accept("over")) fail_expected(fmt::format("'over' and the box of input {}: seeded(SEED) over (min, extent), ...",
                                                   b.name.text));
    b.box = constant_box("box");
    return b;
  }
  b.source = kind.text == "image" ? InputSourceKind::Image : InputSourceKind::Npy;
  if (peek().kind != TokenKind::String) fail_expected("a file name in double quotes");
  std::string_view quoted = advance().text;
  b.path = std::string(quoted.substr(1, quoted.size() - 2));
  if (b.path.empty()) fail(open.loc, "the file name is empty");
  expect_close(")", open);
  return b;
}

Expr ParserCore::float_literal(const Token& t, bool negative, SourceLoc loc) {
  Value v = float_literal_value(t, negative);
  SourceLoc at = loc.line ? loc : t.loc;
  return make_const(v, at, v.is_f32() ? Type::float_(32) : Type::z());
}

ParserCore::SignedLiteral ParserCore::signed_literal(std::string_view what, bool floats_allowed) {
  SourceLoc loc = peek().loc;
  bool negative = accept("-");
  // A float parameter's value may be infinite or NaN: `w = inf`, `w = -inf`, `w = nan`, as
  // the printer writes them (docs/floats.md).
  if (floats_allowed && (at_word("inf") || at_word("nan"))) {
    bool nan = advance().text == "nan";
    double d = nan ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    return SignedLiteral{Value::f64(negative ? -d : d), loc};
  }
  if (peek().kind != TokenKind::Integer && !(floats_allowed && peek().kind == TokenKind::Float)) fail_expected(what);
  return SignedLiteral{literal_value(advance(), negative), loc};
}

// ---------------------------------------------------------------- expressions
ParsedExpr ParserCore::with_depth(Expr e, int depth, SourceLoc loc) const {
  if (depth > kMaxNesting) too_deep(loc);
  return ParsedExpr{std::move(e), depth};
}

ParsedExpr ParserCore::op_node(Op op, const std::vector<ParsedExpr>& parts, SourceLoc loc) {
  if (is_halide_op(op)) note_types(loc);
  return with_depth(make_op(op, exprs_of(parts), loc), 1 + deepest(parts), loc);
}

ParsedExpr ParserCore::binary_rest(ParsedExpr lhs, Precedence min) {
  while (peek().kind == TokenKind::Symbol) {
    auto op = infix_op(peek().text);
    if (!op || precedence(*op) < min) break;
    const Token& t = advance();
    ParsedExpr rhs = binary_rest(unary(), tighter(precedence(*op)));
    lhs = op_node(*op, {lhs, rhs}, t.loc);
  }
  return lhs;
}

ParsedExpr ParserCore::unary() {
  auto op = peek().kind == TokenKind::Symbol ? prefix_op(peek().text) : std::nullopt;
  if (!op) return primary();
  const Token& t = advance();
  ParsedExpr operand;
  {
    Nest nest(*this, t.loc);
    operand = unary();
  }
  return op_node(*op, {operand}, t.loc);
}

ParsedExpr ParserCore::primary() {
  const Token& t = peek();
  switch (t.kind) {
    case TokenKind::Integer: advance(); return ParsedExpr{make_const(literal_value(t, false), t.loc), 0};
    case TokenKind::Float: advance(); note_types(t.loc); return ParsedExpr{float_literal(t, false), 0};
    case TokenKind::Identifier: return access_or_var();
    case TokenKind::Keyword:
      if (auto op = builtin_op(t.text)) return builtin(*op);
      break;
    case TokenKind::Symbol:
      if (t.text == "(") return negative_literal_ahead() ? negative_literal() : group();
      if (t.text == "<" && dialect_ == Dialect::Target) {  // a qualified variable <f, j, i, x>
        LoopName l = loop_name();
        return ParsedExpr{make_var(qualified_var(l), l.loc), 0};
      }
      if (t.text == "?") {
        if (dialect_ == Dialect::Target) return hole();
        fail(t.loc, "holes (?mem<f, x>.min, ?cpu<f, j, i, x>.len) exist only in target programs, not in algorithms");
      }
      break;
    case TokenKind::String:  // a quoted path belongs to an input declaration, not to an expression
    case TokenKind::End: break;
  }
  fail_expected("an expression");
}

ParsedExpr ParserCore::access_or_var() {
  if ((at_word("clamp") || at_word("abs")) && at("(", 1)) return sugar_call();
  if (auto call = halide_call()) return *call;
  if (dialect_ == Dialect::Algorithm && enclosing_ && inline_reduction_kind(peek().text) && at("(", 1) &&
      at("rdom", 2))
    return inline_reduction();
  if (dialect_ == Dialect::Algorithm && at_word("let") && peek(1).kind == TokenKind::Identifier && at("=", 2))
    return let_expr();
  const Token& name = advance();
  if (at(".") && peek(1).kind == TokenKind::Identifier) return buffer_geometry(name);
  if (at("(")) fail(peek().loc, fmt::format("func accesses use brackets: write {}[...]", name.text));
  FuncLabel label;
  // f^(...) is a label (a target-language access); in an algorithm any other `^` is
  // Halide's exclusive or.
  if (at("^") && (dialect_ == Dialect::Target || at("(", 1))) {
    if (dialect_ != Dialect::Target)
      fail(peek().loc, fmt::format("'^' labels a func access {}^(stage, spec)[...], which exists only in target "
                                   "programs, not in algorithms",
                                   name.text));
    advance();
    label = func_label();
    if (!at("[")) fail_expected(fmt::format("'[' after the label of the access to {}", name.text));
  }
  if (!at("[")) {
    for (auto it = lets_.rbegin(); it != lets_.rend(); ++it)
      if (it->first == name.text) return it->second;
    return ParsedExpr{make_var(resolve(std::string(name.text)), name.loc), 0};
  }
  std::vector<ParsedExpr> args = expr_list(advance(), "]");
  return with_depth(make_call(std::string(name.text), exprs_of(args), name.loc, label), 1 + deepest(args),
                    name.loc);
}

// img.dim(k).min(), img.dim(k).extent(), img.dim(k).max(), img.width(), img.height(),
// img.channels(): Halide's names for an input buffer's geometry, the variables
// buffer_min_var / buffer_extent_var (max is min + extent - 1, as Halide defines it).
ParsedExpr ParserCore::buffer_geometry(const Token& input) {
  std::string in(input.text);
  SourceLoc loc = input.loc;
  advance();  // .
  const Token& what = advance();
  auto empty_call = [&](std::string_view after) {
    const Token& open = expect("(", fmt::format("after '{}'", after));
    expect_close(")", open);
  };
  auto extent = [&](size_t k) { return ParsedExpr{make_var(buffer_extent_var(in, k), loc), 0}; };
  if (what.text == "width" || what.text == "height" || what.text == "channels") {
    empty_call(what.text);
    return extent(what.text == "width" ? 0 : what.text == "height" ? 1 : 2);
  }
  if (what.text != "dim")
    fail(what.loc, fmt::format("'{}.{}': an input's geometry is {}.dim(k).min(), .extent(), .max(), {}.width(), "
                               "{}.height() or {}.channels()",
                               in, what.text, in, in, in, in));
  const Token& open = expect("(", "after 'dim' (the dimension: dim(k))");
  if (peek().kind != TokenKind::Integer) fail_expected("a dimension index");
  size_t k = 0;
  {
    auto v = literal_value(advance(), false).as_int64();
    if (!v || *v >= 64) fail(open.loc, "a buffer has at most 64 dimensions");
    k = static_cast<size_t>(*v);
  }
  expect_close(")", open);
  expect(".", "after dim(k) (then min(), extent() or max())");
  const Token& field = advance();
  if (field.text != "min" && field.text != "extent" && field.text != "max")
    fail(field.loc, fmt::format("expected min(), extent() or max() after {}.dim({}), found '{}'", in, k, field.text));
  empty_call(field.text);
  Expr min = make_var(buffer_min_var(in, k), loc);
  if (field.text == "min") return ParsedExpr{min, 0};
  if (field.text == "extent") return extent(k);
  return with_depth(make_op(Op::Sub, {make_op(Op::Add, {min, extent(k).expr}, loc), make_const(Value(1), loc)}, loc),
                    2, loc);
}


// let t = e in body: Halide's Let, and what a C++ user writes as `Expr t = e;` before
// using t. The body reads e wherever it reads t, so every pass and evaluator sees the
// expression it would see had the user written e there (a let changes no value: a func's
// expressions have no effects, and an error value of an unused e is one no Halide
// version computes either). Nested lets can make a tree exponentially larger than its
// text; beyond a million nodes that is an error at the let.
ParsedExpr ParserCore::let_expr() {
  const Token& keyword = advance();
  const Token& var = advance();
  advance();  // =
  ParsedExpr value;
  {
    Nest nest(*this, keyword.loc);
    value = expr();
  }
  expect("in", fmt::format("after the value of 'let {}'", var.text));
  if (reads_nothing(value.expr)) let_constants_.insert(value.expr.get());
  lets_.emplace_back(std::string(var.text), value);
  ParsedExpr body;
  {
    Nest nest(*this, keyword.loc);
    body = expr();
  }
  lets_.pop_back();
  std::unordered_map<const ExprNode*, uint64_t> memo;
  if (tree_size(body.expr, kMaxLetTreeNodes, memo) > kMaxLetTreeNodes)
    fail(keyword.loc, fmt::format("the lets here make an expression of more than {} nodes written out (each use "
                                  "of '{}' is a copy of its value); use a func for a value read many times",
                                  kMaxLetTreeNodes, var.text));
  return with_depth(body.expr, body.depth + value.depth, keyword.loc);
}

// sum(rdom(r = (min, len), ...) in e), and product, maximum, minimum: Halide's inline
// reductions. Like Halide, halo makes a func of the enclosing func's variables that e uses,
//   fun f_sum(x̄) = { 0; rdom(r = ...) in (x̄) <- f_sum[x̄] + e }
// (product: 1 and *, maximum: the type's least value and max, minimum: its greatest and
// min; an untyped program takes Int(32)'s, as its Halide translation does), and reads it
// at x̄. The identity's type is e's, which the typing pass fixes (typing.hpp).
ParsedExpr ParserCore::inline_reduction() {
  const Token& word = advance();
  Op op = *inline_reduction_kind(word.text);
  const Token& open = advance();  // (
  SourceLoc rloc = advance().loc;  // rdom
  const Token& ropen = expect("(", "after 'rdom'");
  std::vector<RVar> rdom = comma_list(ropen, ")", [&] { return rvar(); });
  expect("in", fmt::format("after the rdom of {}", word.text));
  ParsedExpr e = expr();
  expect_close(")", open);
  // The lifted func's variables: the enclosing func's that e mentions, in their order.
  std::vector<Name> vars;
  for (const Name& x : enclosing_->vars)
    if (occurs(e.expr, x.text)) vars.push_back(x);
  FuncDef g;
  g.loc = word.loc;
  g.name.loc = word.loc;
  std::string base = fmt::format("{}_{}", enclosing_->name.text, word.text);
  g.name.text = base;
  for (int k = 2; std::any_of(lifted_.begin(), lifted_.end(), [&](const FuncDef& l) { return l.name.text == g.name.text; });
       ++k)
    g.name.text = fmt::format("{}_{}", base, k);
  g.vars = vars;
  g.inline_reduction = op;
  g.pure = make_const(inline_reduction_identity(op, Type::int_(32)), word.loc);
  std::vector<Expr> self;
  for (const Name& x : vars) self.push_back(make_var(x.text, x.loc));
  UpdateStage u;
  u.loc = rloc;
  u.rdom = std::move(rdom);
  u.lhs = self;
  u.explicit_rdom = true;
  u.value = make_op(op, {make_call(g.name.text, self, word.loc), e.expr}, word.loc);
  g.updates.push_back(std::move(u));
  Expr read = make_call(g.name.text, self, word.loc);
  lifted_.push_back(std::move(g));
  return with_depth(read, 1, word.loc);
}

FuncLabel ParserCore::func_label() {
  const Token& open = expect("(", "after '^' (a func label is ^(stage, spec))");
  FuncLabel l;
  l.stage = index("stage index", "func label");
  expect(",", "between the stage and the specialization of the func label (stage, spec)");
  l.spec = spec_or_shared("func label");
  expect_close(")", open);
  return l;
}

// ?mem<f, x>.min and ?cpu<f, spec, stage, x>.len (Def. 2.14): the spelling of
// HoleLabel::to_string, which print_expr uses.
ParsedExpr ParserCore::hole() {
  const Token& q = advance();  // ?
  HoleLabel h;
  if (at_word("mem")) {
    h.kind = HoleKind::Mem;
  } else if (at_word("cpu")) {
    h.kind = HoleKind::Cpu;
  } else {
    fail_expected("'mem' or 'cpu' after '?' (a hole is ?mem<f, x>.min or ?cpu<f, j, i, x>.len)");
  }
  bool cpu = advance().text == "cpu";
  std::string_view shape = cpu ? "<f, j, i, x>" : "<f, x>";
  const Token& open = expect("<", fmt::format("to start the label {} of the hole", shape));
  std::string in = fmt::format("in the hole label {}", shape);
  h.func = name("a func name").text;
  expect(",", in);
  if (cpu) {
    h.spec = spec_or_shared("hole");
    expect(",", in);
    h.stage = index("stage index", "hole");
    expect(",", in);
  }
  h.var = name("a dimension name (a pure variable of the func)").text;
  expect_close(">", open);
  expect(".", "after the hole label (then 'min' or 'len')");
  // `min` is a reserved word (the built-in) and `len` an identifier: compare the text.
  if (peek().text != "min" && peek().text != "len") fail_expected("'min' or 'len' after the hole label");
  h.is_len = advance().text == "len";
  return ParsedExpr{make_hole(std::move(h), q.loc), 0};
}

ParsedExpr ParserCore::builtin(Op op) {
  const Token& name = advance();
  if (at("["))
    fail(peek().loc,
         fmt::format("'{}' is a built-in operator, not a func: write {}(...)", name.text, name.text));
  std::vector<ParsedExpr> args = expr_list(expect("(", fmt::format("after the built-in '{}'", name.text)), ")");
  if (op == Op::Select && args.size() > 3 && args.size() % 2 == 1) {
    // Halide's multi-way select(c0, v0, c1, v1, ..., default) is
    // select(c0, v0, select(c1, v1, ..., default)) (src/IROperator.h).
    ParsedExpr rest = args.back();
    for (size_t i = args.size() - 1; i >= 2; i -= 2) rest = op_node(op, {args[i - 2], args[i - 1], rest}, name.loc);
    return rest;
  }
  if (std::ssize(args) != op_arity(op))
    fail(name.loc, fmt::format("{} expects {} arguments{}, found {}", name.text, op_arity(op),
                               op == Op::Select ? " (or an odd number, Halide's multi-way select(c0, v0, c1, v1, ..., "
                                                  "default))"
                                                : "",
                               args.size()));
  return op_node(op, args, name.loc);
}

// clamp(e, lo, hi) and abs(e): Halide's spelling, built from fig. 2.5b's operators (ast.hpp,
// OpSugar). Not reserved words: a func or variable may still be called clamp or abs.
ParsedExpr ParserCore::sugar_call() {
  const Token& name = advance();
  bool clamp = name.text == "clamp";
  size_t arity = clamp ? 3 : 1;
  std::vector<ParsedExpr> args = expr_list(advance(), ")");
  if (args.size() != arity)
    fail(name.loc, fmt::format("{} expects {} argument{}, found {}: {}", name.text, arity, arity == 1 ? "" : "s",
                               args.size(), clamp ? "clamp(e, lo, hi), which is max(min(e, hi), lo)"
                                                  : "abs(e), which is max(e, -e)"));
  Expr e = clamp ? make_clamp(args[0].expr, args[1].expr, args[2].expr, name.loc) : make_abs(args[0].expr, name.loc);
  return with_depth(std::move(e), 2 + deepest(args), name.loc);
}

void ParserCore::note_types(SourceLoc) { saw_types_ = true; }

std::optional<ParsedExpr> ParserCore::halide_call() {
  const Token& word = peek();
  bool cast = word.text == "cast", saturating = word.text == "saturating_cast", reinterpret = word.text == "reinterpret";
  if (is_transcendental(word.text) && at("(", 1))
    fail(word.loc, fmt::format("halo does not judge '{}': Halide computes it with its own approximation, which "
                               "no exact reference matches bit for bit (docs/floats.md, \"Transcendental "
                               "functions\")",
                               word.text));
  auto short_cast = parse_type_name(word.text);
  auto named = halide_named_op(word.text);
  if ((cast || saturating || reinterpret) && at("<", 1)) {
    advance();
    const Token& open = advance();
    const Token& tn = peek();
    auto t = tn.kind == TokenKind::Identifier ? parse_type_name(tn.text) : std::nullopt;
    if (!t) fail_expected(fmt::format("a type after '{}<' (bool, u8, u16, u32, u64, i8, i16, i32, i64, f32, f64)", word.text));
    advance();
    expect_close(">", open);
    std::vector<ParsedExpr> args = expr_list(expect("(", fmt::format("after {}<{}>", word.text, tn.text)), ")");
    if (args.size() != 1) fail(word.loc, fmt::format("{}<{}> takes one expression, found {}", word.text, tn.text, args.size()));
    note_types(word.loc);
    Op op = cast ? Op::Cast : saturating ? Op::SaturatingCast : Op::Reinterpret;
    Expr e = std::make_shared<OpNode>(op, exprs_of(args), word.loc, OpSugar::None, *t);
    return with_depth(std::move(e), 1 + deepest(args), word.loc);
  }
  if ((!short_cast && !named) || !at("(", 1)) return std::nullopt;
  advance();
  std::vector<ParsedExpr> args = expr_list(advance(), ")");
  note_types(word.loc);
  if (short_cast) {  // u8(e): Halide's u8(), i16(), ... (src/IROperator.h)
    if (args.size() != 1) fail(word.loc, fmt::format("{}(e) takes one expression, found {}", word.text, args.size()));
    return with_depth(make_cast(*short_cast, args[0].expr, word.loc), 1 + deepest(args), word.loc);
  }
  if (std::ssize(args) != op_arity(*named))
    fail(word.loc, fmt::format("{} expects {} arguments, found {}", word.text, op_arity(*named), args.size()));
  return op_node(*named, args, word.loc);
}

std::vector<ParserCore::ParamDecl> ParserCore::param_list() {
  return comma_list(expect("(", "after the pipeline name"), ")", [&] {
    Name n = name("a parameter name");
    return ParamDecl{std::move(n), at(":") ? std::optional<Type>(type_annotation("after the parameter")) : std::nullopt};
  });
}

Type ParserCore::type_annotation(std::string_view owner) {
  expect(":", owner);
  const Token& t = peek();
  auto type = t.kind == TokenKind::Identifier ? parse_type_name(t.text) : std::nullopt;
  if (!type) fail_expected(fmt::format("a type {} (bool, u8, u16, u32, u64, i8, i16, i32, i64, f32, f64)", owner));
  note_types(advance().loc);
  return *type;
}

// `(-5)` is how the printer writes a negative constant, while `-5` is the negation of 5:
// both evaluate alike, but the tree must survive printing and parsing unchanged.
bool ParserCore::negative_literal_ahead() const {
  return at("(") && at("-", 1) && (peek(2).kind == TokenKind::Integer || peek(2).kind == TokenKind::Float) &&
         at(")", 3);
}

ParsedExpr ParserCore::negative_literal() {
  SourceLoc loc = advance().loc;
  advance();  // -
  const Token& t = advance();
  advance();  // )
  if (t.kind == TokenKind::Float) {
    note_types(t.loc);
    return ParsedExpr{float_literal(t, true, loc), 0};
  }
  return ParsedExpr{make_const(literal_value(t, true), loc), 0};
}

ParsedExpr ParserCore::group() {
  const Token& open = advance();
  ParsedExpr inner;
  {
    Nest nest(*this, open.loc);
    inner = expr();
  }
  expect_close(")", open);
  return with_depth(inner.expr, inner.depth + 1, open.loc);
}

std::vector<ParsedExpr> ParserCore::expr_list(const Token& open, std::string_view close) {
  Nest nest(*this, open.loc);
  return comma_list(open, close, [&] { return expr(); });
}

Expr ParserCore::lone_expr() {
  ParsedExpr e = expr();
  if (!at_end()) fail_expected("end of input after the expression");
  return e.expr;
}

// ---------------------------------------------------------------- the public interface
Program parse_program(std::string_view source, const std::string& file) {
  return Parser(source, file).program();
}

Expr parse_expr(std::string_view source, const std::string& file) {
  return Parser(source, file).lone_expr();
}

std::string read_source_file(const std::string& path) {
  auto refuse = [&](const std::string& why) { return InputError(Diagnostic{path, {}, why}); };
  auto cannot_read = [&](int err) { return refuse(fmt::format("cannot read file: {}", std::strerror(err))); };
  bool from_stdin = path == "-";
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(nullptr, &std::fclose);
  if (!from_stdin) {
    // Opened without blocking: open() of a FIFO waits for a writer, forever and deaf to
    // --timeout, before fstat can refuse it. A regular file then reads as usual.
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw cannot_read(errno);
    struct stat st;
    if (fstat(fd, &st) != 0) {
      int err = errno;
      ::close(fd);
      throw cannot_read(err);
    }
    if (!S_ISREG(st.st_mode)) {
      ::close(fd);
      if (S_ISDIR(st.st_mode)) throw refuse("cannot read file: is a directory");
      throw refuse("cannot read file: not a regular file (a device, pipe or socket)");
    }
    if (uint64_t(st.st_size) > kMaxInputFileBytes) {
      ::close(fd);
      throw refuse(fmt::format("the file is larger than the input limit of {} MiB", kMaxInputFileBytes >> 20));
    }
    f.reset(::fdopen(fd, "rb"));
    if (!f) {
      int err = errno;
      ::close(fd);
      throw cannot_read(err);
    }
  }
  std::FILE* in = from_stdin ? stdin : f.get();
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, in)) > 0) {
    text.append(buf, n);
    if (text.size() > kMaxInputFileBytes)
      throw refuse(fmt::format("the input is larger than the limit of {} MiB", kMaxInputFileBytes >> 20));
  }
  if (std::ferror(in)) throw cannot_read(errno);
  return text;
}

Program parse_file(const std::string& path) { return parse_program(read_source_file(path), path); }

Program parse_file_ignoring_schedule_errors(const std::string& path, std::vector<Diagnostic>& schedule_errors) {
  std::string src = read_source_file(path);
  Parser parser(src, path);
  parser.schedule_errors_ = &schedule_errors;
  Program p = parser.program();
  if (!schedule_errors.empty()) p.schedule.reset();
  return p;
}

}  // namespace halo
