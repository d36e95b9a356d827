// The printer of tgt_printer.hpp: the canonical text of a target program.
//
// It writes only what the grammar of docs/target-syntax.md reads back, reusing the .halo
// printer for everything the two languages share (expressions with their precedence and
// holes, loop names, the realize section), so that the two formats cannot drift apart.
#include "semantics/tgt_printer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join

#include "semantics/lexer.hpp"
#include "semantics/printer.hpp"
#include "support/command_budget.hpp"

namespace halo {

namespace {


// Statements without a body: a block holding only one of them stays on one line,
// `if (1) { f^(0, 0)[x] <- x; }`, which keeps lowered programs (full of such guards) short.
bool is_simple(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::Nop:
    case StmtKind::Assert:
    case StmtKind::Allocate:
    case StmtKind::Store: return true;
    default: return false;
  }
}

class Printer {
 public:
  std::string out;
  // The loops and lets around the statement being printed, innermost last, as (the name a
  // reader writes, the variable bound): the parser's scope (lexer.hpp), which decides
  // whether a qualified variable may be printed by its short name.
  std::vector<std::pair<std::string, std::string>> scope;

  // e as the parser reads it back in the current scope: a qualified variable <f, j, i, x>
  // is printed x when x names it here (the innermost binder a reader calls x is its loop
  // or let), and as the qualified atom otherwise.
  std::string expr(const Expr& e) const {
    struct Shorten : ExprMutator {
      const Printer& p;
      explicit Shorten(const Printer& pp) : p(pp) {}
      Expr mutate_var(const Expr& e) override {
        const auto& n = as<VarNode>(e);
        if (!is_qualified_var(n.name)) return e;
        std::string s = short_var(n.name);
        for (auto it = p.scope.rbegin(); it != p.scope.rend(); ++it)
          if (it->first == s) return it->second == n.name ? make_var(s, e->loc) : e;
        return e;
      }
    } shorten(*this);
    return print_expr(scope.empty() ? e : shorten.mutate(e));
  }
  std::string interval_text(const Expr& min, const Expr& len) const {
    return fmt::format("({}, {})", expr(min), expr(len));
  }

  void stmt(const Stmt& s, int indent) {
    if (s->kind == StmtKind::Seq) {
      for (const auto& x : as<SeqStmt>(s).stmts) stmt(x, indent);
      return;
    }
    tick_command_budget();
    out.append(indent_width(indent), ' ');
    line(s, indent);
    out += '\n';
  }

 private:
  // One statement from its first character, without the final newline.
  void line(const Stmt& s, int indent) {
    switch (s->kind) {
      case StmtKind::Nop: out += "nop;"; return;
      case StmtKind::Assert: out += fmt::format("assert {};", expr(as<AssertStmt>(s).cond)); return;
      case StmtKind::Allocate: {
        const auto& a = as<AllocateStmt>(s);
        std::vector<std::string> dims;
        for (const auto& [min, len] : a.bounds) dims.push_back(interval_text(min, len));
        out += fmt::format("allocate {}({}){};", a.func, fmt::join(dims, ", "),
                           a.type.is_typed() ? " : " + a.type.to_string() : "");
        return;
      }
      case StmtKind::Store: {
        // The left-hand side is spelled exactly as the access expression it parses as.
        const auto& st = as<StoreStmt>(s);
        out += fmt::format("{} <- {};", expr(make_call(st.func, st.args, st.loc, st.label)), expr(st.value));
        return;
      }
      case StmtKind::If: {
        const auto& i = as<IfStmt>(s);
        out += fmt::format("if ({}) ", expr(i.cond));
        block(i.then_case, indent);
        if (i.else_case->kind != StmtKind::Nop) {
          out += " else ";
          block(i.else_case, indent);
        }
        return;
      }
      case StmtKind::For: {
        const auto& f = as<ForStmt>(s);
        out += fmt::format("for {} in {} {} ", print_loop_name(f), interval_text(f.min, f.len),
                           traversal_name(f.order));
        scope.emplace_back(f.var, f.binder());
        block(f.body, indent);
        scope.pop_back();
        return;
      }
      case StmtKind::Let: {
        const auto& l = as<LetStmt>(s);
        out += fmt::format("let {} = {} in ", l.var, expr(l.value));
        scope.emplace_back(short_var(l.var), l.var);
        block(l.body, indent);
        scope.pop_back();
        return;
      }
      case StmtKind::Label: {
        const auto& l = as<LabelStmt>(s);
        out += fmt::format("label {}: ", l.label);
        block(l.body, indent);
        return;
      }
      case StmtKind::Seq: break;  // never on one line: stmt() splits it
    }
  }

  void block(const Stmt& body, int indent) {
    if (is_simple(body)) {
      out += "{ ";
      line(body, indent);
      out += " }";
      return;
    }
    out += "{\n";
    stmt(body, indent + 1);
    out.append(indent_width(indent), ' ');
    out += '}';
  }
};

}  // namespace

std::string print_stmt(const Stmt& s, int indent) {
  Printer p;
  p.stmt(s, indent);
  return std::move(p.out);
}

std::string print_tgt(const TgtProgram& p) {
  // A typed program writes every parameter's type, so that even one without a typed buffer
  // reads back typed.
  std::vector<std::string> params;
  for (size_t i = 0; i < p.params.size(); ++i)
    params.push_back(p.typed ? p.params[i] + " : " + p.param_type(i).to_string() : p.params[i]);
  std::string out = fmt::format("target pipeline {}({})", p.name, fmt::join(params, ", "));
  if (!p.window.empty()) {
    std::vector<std::string> dims;
    for (const auto& [min, len] : p.window) dims.push_back(fmt::format("({}, {})", min, len));
    out += fmt::format(" over {}", fmt::join(dims, ", "));
  }
  for (const TgtInput& in : p.inputs)
    out += fmt::format(" input {}({}){}", in.name, fmt::join(in.vars, ", "),
                       p.typed ? " : " + in.type.to_string() : "");
  out += " {\n" + print_stmt(p.body, 1) + "}\n";
  if (p.realize) out += "\n" + print_realization(*p.realize);
  return out;
}

std::string print_loop_name(const ForStmt& f) {
  // Member by member: GCC 12 warns (falsely) on the aggregate initializer of LoopName here.
  LoopName n;
  n.func.text = f.func;
  n.spec = f.spec;
  n.stage = f.stage;
  n.var.text = f.var;
  return print_loop_name(n);
}

}  // namespace halo
