// The printer of printer.hpp: the canonical .halo text of a tree.
//
// It exists so that every tool (lower, schedule, the fuzzers' reproducers) shows programs
// in the notation users write, and so that parse(print(p)) = p can be tested. It adds a
// parenthesis only where the precedence table of lexer.hpp would otherwise regroup the
// tree, and writes negative constants as `(-5)`, the one spelling the parser reads back
// as a constant rather than as the negation of 5.
#include "semantics/printer.hpp"

#include "semantics/command_budget.hpp"

#include <fmt/format.h>

#include "semantics/lexer.hpp"

namespace halo {

namespace {

template <typename Range, typename F>
std::string join(const Range& items, F show) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ", ";
    out += show(item);
  }
  return out;
}

std::string show_name(const Name& n) { return n.text; }

Precedence precedence_of(const Expr& e) {
  return e->kind == ExprKind::Op ? precedence(as<OpNode>(e).op) : Precedence::Primary;
}

bool is_op(const Expr& e, Op op) { return e->kind == ExprKind::Op && as<OpNode>(e).op == op; }

std::string print_operand(const Expr& e, bool parenthesise) {
  return parenthesise ? fmt::format("({})", print_expr(e)) : print_expr(e);
}

std::string print_const(const Value& v) {
  if (v.is_int() && v.sign() < 0) return fmt::format("({})", v.to_string());
  return v.to_string();  // error values print as err_rdom / err_mem, which do not parse back
}

std::string print_op(const OpNode& n) {
  // The sugar as written (ast.hpp, OpSugar): clamp = max(min(e, hi), lo), abs = max(e, -e).
  if (n.sugar == OpSugar::Clamp && is_op(n.args[0], Op::Min)) {
    const auto& inner = as<OpNode>(n.args[0]);
    return fmt::format("clamp({}, {}, {})", print_expr(inner.args[0]), print_expr(n.args[1]), print_expr(inner.args[1]));
  }
  if (n.sugar == OpSugar::Abs) return fmt::format("abs({})", print_expr(n.args[0]));
  if (is_builtin(n.op)) return fmt::format("{}({})", op_name(n.op), join(n.args, print_expr));
  Precedence p = precedence(n.op);
  if (n.args.size() == 1) {
    // `- -x`, not `--x`: two minus signs never touch.
    const char* gap = n.op == Op::Neg && is_op(n.args[0], Op::Neg) ? " " : "";
    return fmt::format("{}{}{}", op_name(n.op), gap, print_operand(n.args[0], precedence_of(n.args[0]) < p));
  }
  // Left-associative: an equally binding operator needs parentheses only on the right.
  return fmt::format("{} {} {}", print_operand(n.args[0], precedence_of(n.args[0]) < p), op_name(n.op),
                     print_operand(n.args[1], precedence_of(n.args[1]) <= p));
}

std::string print_interval(const Value& min, const Value& len) {
  return fmt::format("({}, {})", min.to_string(), len.to_string());
}

std::string print_rvar(const RVar& r) {
  return fmt::format("{} = ({}, {})", r.name.text, print_expr(r.min), print_expr(r.len));
}

std::string print_update(const UpdateStage& u) {
  std::string out;
  if (u.explicit_rdom || !u.rdom.empty()) out = fmt::format("rdom({}) in ", join(u.rdom, print_rvar));
  out += fmt::format("({}) <- {}", join(u.lhs, print_expr), print_expr(u.value));
  if (u.predicate) out += fmt::format(" if {}", print_expr(u.predicate));
  return out;
}

// One line when the func has only its pure stage, else one stage per line.
std::string print_func(const FuncDef& f) {
  std::string head = fmt::format("  fun {}({}) = {{", f.name.text, join(f.vars, show_name));
  if (f.updates.empty()) return fmt::format("{} {} }}\n", head, print_expr(f.pure));
  std::string out = fmt::format("{}\n    {}", head, print_expr(f.pure));
  for (const auto& u : f.updates) out += fmt::format(";\n    {}", print_update(u));
  return out + "\n  }\n";
}

std::string print_pipeline(const Pipeline& p) {
  std::string out = fmt::format("pipeline {}({}) {{\n", p.name.text, join(p.params, show_name));
  for (const auto& f : p.funcs) out += print_func(f);
  return out + "}\n";
}

std::string print_schedule(const std::vector<Directive>& ds) {
  std::string out = "schedule {\n";
  for (const auto& d : ds) out += fmt::format("  {};\n", print_directive(d));
  return out + "}\n";
}

}  // namespace

// Shared with the target-language printer (lexer.hpp): both kinds of program end alike.
std::string print_realization(const Realization& r) {
  std::string out = fmt::format("realize ({})", join(r.params, [](const ParamBinding& b) {
                                  return fmt::format("{} = {}", b.name.text, b.value.to_string());
                                }));
  if (!r.window.empty())
    out += " over " + join(r.window, [](const Interval& i) { return print_interval(i.min, i.len); });
  return out + "\n";
}

std::string print_expr(const Expr& e) {
  tick_command_budget();  // report rendering answers to --timeout like every phase
  switch (e->kind) {
    case ExprKind::Const: return print_const(as<ConstNode>(e).value);
    case ExprKind::Var: return as<VarNode>(e).name;
    case ExprKind::Call: {
      const auto& c = as<CallNode>(e);
      if (!c.label.labelled()) return fmt::format("{}[{}]", c.func, join(c.args, print_expr));
      // f^(stage, spec)[...]: a target-language buffer access with its label (§2.6).
      std::string spec = c.label.spec == FuncLabel::kShared ? "*" : std::to_string(c.label.spec);
      return fmt::format("{}^({}, {})[{}]", c.func, c.label.stage, spec, join(c.args, print_expr));
    }
    case ExprKind::Op: return print_op(as<OpNode>(e));
    case ExprKind::Hole: return as<HoleNode>(e).label.to_string();
  }
  return "?";
}

std::string print_loop_name(const LoopName& l) {
  if (l.spec == LoopName::kEverySpec) return fmt::format("<{}, *, {}, {}>", l.func.text, l.stage, l.var.text);
  return fmt::format("<{}, {}, {}, {}>", l.func.text, l.spec, l.stage, l.var.text);
}

std::string print_directive(const Directive& d) {
  std::vector<std::string> args;
  size_t names = 0, exprs = 0;
  for (const auto& param : directive_syntax(d.kind).params) {
    switch (param.arg) {
      case DirectiveArg::Func: args.push_back(d.func.text); break;
      case DirectiveArg::Loop: args.push_back(print_loop_name(d.loop)); break;
      case DirectiveArg::With: args.push_back(print_loop_name(d.with)); break;
      case DirectiveArg::Name: args.push_back(d.names.at(names++).text); break;
      case DirectiveArg::Expression: args.push_back(print_expr(d.exprs.at(exprs++))); break;
      case DirectiveArg::Expressions:
        while (exprs < d.exprs.size()) args.push_back(print_expr(d.exprs[exprs++]));
        break;
      case DirectiveArg::Tail: args.push_back(tail_name(d.tail)); break;
      case DirectiveArg::Order: args.push_back(traversal_name(d.order)); break;
    }
  }
  return fmt::format("{}({})", directive_name(d.kind), join(args, [](const std::string& s) { return s; }));
}

std::string print_program(const Program& p) {
  std::string out = print_pipeline(p.pipeline);
  if (p.schedule) out += "\n" + print_schedule(*p.schedule);
  if (p.realize) out += "\n" + print_realization(*p.realize);
  return out;
}

}  // namespace halo
