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

namespace halo {

namespace {

std::string interval_text(const Expr& min, const Expr& len) {
  return fmt::format("({}, {})", print_expr(min), print_expr(len));
}

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

  void stmt(const Stmt& s, int indent) {
    if (s->kind == StmtKind::Seq) {
      for (const auto& x : as<SeqStmt>(s).stmts) stmt(x, indent);
      return;
    }
    out.append(2 * static_cast<size_t>(indent), ' ');
    line(s, indent);
    out += '\n';
  }

 private:
  // One statement from its first character, without the final newline.
  void line(const Stmt& s, int indent) {
    switch (s->kind) {
      case StmtKind::Nop: out += "nop;"; return;
      case StmtKind::Assert: out += fmt::format("assert {};", print_expr(as<AssertStmt>(s).cond)); return;
      case StmtKind::Allocate: {
        const auto& a = as<AllocateStmt>(s);
        std::vector<std::string> dims;
        for (const auto& [min, len] : a.bounds) dims.push_back(interval_text(min, len));
        out += fmt::format("allocate {}({});", a.func, fmt::join(dims, ", "));
        return;
      }
      case StmtKind::Store: {
        // The left-hand side is spelled exactly as the access expression it parses as.
        const auto& st = as<StoreStmt>(s);
        out +=
            fmt::format("{} <- {};", print_expr(make_call(st.func, st.args, st.loc, st.label)), print_expr(st.value));
        return;
      }
      case StmtKind::If: {
        const auto& i = as<IfStmt>(s);
        out += fmt::format("if ({}) ", print_expr(i.cond));
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
        block(f.body, indent);
        return;
      }
      case StmtKind::Let: {
        const auto& l = as<LetStmt>(s);
        out += fmt::format("let {} = {} in ", l.var, print_expr(l.value));
        block(l.body, indent);
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
    out.append(2 * static_cast<size_t>(indent), ' ');
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
  std::string out = fmt::format("target pipeline {}({})", p.name, fmt::join(p.params, ", "));
  if (!p.window.empty()) {
    std::vector<std::string> dims;
    for (const auto& [min, len] : p.window) dims.push_back(fmt::format("({}, {})", min, len));
    out += fmt::format(" over {}", fmt::join(dims, ", "));
  }
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
