// The printer of printer.hpp: the canonical .halo text of a tree.
//
// It exists so that every tool (lower, schedule, the fuzzers' reproducers) shows programs
// in the notation users write, and so that parse(print(p)) = p can be tested. It adds a
// parenthesis only where the precedence table of lexer.hpp would otherwise regroup the
// tree, and writes negative constants as `(-5)`, the one spelling the parser reads back
// as a constant rather than as the negation of 5.
#include "support/bit_cast.hpp"
#include "semantics/printer.hpp"

#include "support/command_budget.hpp"

#include <fmt/format.h>

#include <cmath>

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
  if (e->kind != ExprKind::Op) return Precedence::Primary;
  const auto& n = as<OpNode>(e);
  if (n.sugar == OpSugar::ImplicitCast) return precedence_of(n.args[0]);  // written as its operand
  // Casts and Halide's named operators are written as calls.
  if (n.op == Op::Cast || n.op == Op::SaturatingCast || n.op == Op::Reinterpret || n.op == Op::Abs || halide_named_op(op_name(n.op)))
    return Precedence::Primary;
  return precedence(n.op);
}

bool is_op(const Expr& e, Op op) { return e->kind == ExprKind::Op && as<OpNode>(e).op == op; }

std::string print_const(const Value& v);

// A float constant in .halo (docs/floats.md): `0.1f` for a Float(32), `f64(0.1)` for a
// Float(64) (Halide's Expr(double)), `0.1` for a literal not typed yet; negative ones in
// parentheses. The values no literal denotes are written through their bits: ±inf and
// NaN as reinterpret<f32>(bits), widened for a Float(64).
std::string print_float_const(const Value& v, Type t) {
  double d = v.as_double();
  if (!std::isfinite(d)) {
    float f = float(d);
    std::string bits = fmt::format("reinterpret<f32>({})", print_const(Value(int64_t(halo::bit_cast<int32_t>(f)))));
    return v.is_f32() ? bits : fmt::format("f64({})", bits);
  }
  std::string text = float_decimal(v);
  if (t.is_z()) return std::signbit(d) ? fmt::format("({})", text) : text;
  if (v.is_f32()) return std::signbit(d) ? fmt::format("({}f)", text) : text + "f";
  return fmt::format("f64({})", std::signbit(d) ? fmt::format("({})", text) : text);
}

std::string print_const(const Value& v) {
  if (v.is_float()) return print_float_const(v, v.is_f32() ? Type::float_(32) : Type::float_(64));
  if (v.is_int() && v.sign() < 0) return fmt::format("({})", v.to_string());
  return v.to_string();  // error values print as err_rdom / err_mem, which do not parse back
}

// Expressions are written into one string, not built from the strings of their operands:
// the simplifier keys terms by their text (bounds/simplify.cpp), and a string per node was
// most of a fuzz case's allocations.
void write_expr(std::string& out, const Expr& e);

void write_args(std::string& out, const std::vector<Expr>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) out += ", ";
    write_expr(out, args[i]);
  }
}

void write_operand(std::string& out, const Expr& e, bool parenthesise) {
  if (parenthesise) out += '(';
  write_expr(out, e);
  if (parenthesise) out += ')';
}

void write_op(std::string& out, const OpNode& n) {
  // The sugar as written (ast.hpp, OpSugar): clamp = max(min(e, hi), lo), abs = max(e, -e).
  if (n.sugar == OpSugar::Clamp && is_op(n.args[0], Op::Min)) {
    const auto& inner = as<OpNode>(n.args[0]);
    out += "clamp(";
    write_args(out, {inner.args[0], n.args[1], inner.args[1]});
    out += ')';
    return;
  }
  if (n.sugar == OpSugar::Abs || n.op == Op::Abs) {
    out += "abs(";
    write_expr(out, n.args[0]);
    out += ')';
    return;
  }
  // Halide's operators (docs/types.md): an implicit cast is not written; casts in Halide's
  // short form u8(e); the named operators as calls.
  if (n.sugar == OpSugar::ImplicitCast) {
    write_expr(out, n.args[0]);
    return;
  }
  if (n.op == Op::Cast || n.op == Op::SaturatingCast || n.op == Op::Reinterpret) {
    out += n.op == Op::Cast ? n.type.to_string() : fmt::format("{}<{}>", op_name(n.op), n.type.to_string());
    out += '(';
    write_expr(out, n.args[0]);
    out += ')';
    return;
  }
  if (is_builtin(n.op) || halide_named_op(op_name(n.op))) {
    out += op_name(n.op);
    out += '(';
    write_args(out, n.args);
    out += ')';
    return;
  }
  Precedence p = precedence(n.op);
  if (n.args.size() == 1) {
    out += op_name(n.op);
    if (n.op == Op::Neg && is_op(n.args[0], Op::Neg)) out += ' ';  // `- -x`, not `--x`
    write_operand(out, n.args[0], precedence_of(n.args[0]) < p);
    return;
  }
  // Left-associative: an equally binding operator needs parentheses only on the right.
  write_operand(out, n.args[0], precedence_of(n.args[0]) < p);
  out += ' ';
  out += op_name(n.op);
  out += ' ';
  write_operand(out, n.args[1], precedence_of(n.args[1]) <= p);
}

void write_expr(std::string& out, const Expr& e) {
  tick_command_budget();  // report rendering answers to --timeout like every phase
  switch (e->kind) {
    case ExprKind::Const: {
      const Value& v = as<ConstNode>(e).value;
      out += v.is_float() ? print_float_const(v, e->type) : print_const(v);
      return;
    }
    case ExprKind::Var: {
      const std::string& name = as<VarNode>(e).name;
      // An input's geometry in Halide's spelling (ast.hpp, buffer_min_var).
      if (auto g = split_buffer_var(name))
        out += fmt::format("{}.dim({}).{}()", g->input, g->dim, g->extent ? "extent" : "min");
      else
        out += name;
      return;
    }
    case ExprKind::Call: {
      const auto& c = as<CallNode>(e);
      out += c.func;
      // f^(stage, spec)[...]: a target-language buffer access with its label (§2.6).
      if (c.label.labelled())
        out += fmt::format("^({}, {})", c.label.stage,
                           c.label.spec == FuncLabel::kShared ? std::string("*") : std::to_string(c.label.spec));
      out += '[';
      write_args(out, c.args);
      out += ']';
      return;
    }
    case ExprKind::Op: write_op(out, as<OpNode>(e)); return;
    case ExprKind::Hole: out += as<HoleNode>(e).label.to_string(); return;
  }
  out += '?';
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

std::string print_boundary(const BoundaryCondition& bc) {
  std::vector<std::string> args{bc.source.text};
  if (bc.value) args.push_back(print_expr(bc.value));
  for (const auto& [min, extent] : bc.bounds)
    args.push_back(fmt::format("({}, {})", print_expr(min), print_expr(extent)));
  return fmt::format("{}({})", boundary_name(bc.kind), join(args, [](const std::string& a) { return a; }));
}

std::string print_input(const InputDef& in) {
  std::string type = in.declared ? " : " + in.declared->to_string() : "";
  return fmt::format("  input {}({}){};\n", in.name.text, join(in.vars, show_name), type);
}

// One line when the func has only its pure stage, else one stage per line.
std::string print_func(const FuncDef& f) {
  std::string type = f.declared ? " : " + f.declared->to_string() : "";
  if (f.boundary)
    return fmt::format("  fun {}({}){} = {}\n", f.name.text, join(f.vars, show_name), type, print_boundary(*f.boundary));
  std::string head = fmt::format("  fun {}({}){} = {{", f.name.text, join(f.vars, show_name), type);
  if (f.updates.empty()) return fmt::format("{} {} }}\n", head, print_expr(f.pure));
  std::string out = head;
  if (!f.implicit_pure) out += fmt::format("\n    {}", print_expr(f.pure));  // else Halide's implicit one
  for (size_t i = 0; i < f.updates.size(); ++i)
    out += fmt::format("{}\n    {}", i == 0 && f.implicit_pure ? "" : ";", print_update(f.updates[i]));
  return out + "\n  }\n";
}

std::string print_pipeline(const Pipeline& p) {
  std::vector<std::string> params;
  for (size_t i = 0; i < p.params.size(); ++i)
    params.push_back(p.declared_param_type(i)
                         ? fmt::format("{} : {}", p.params[i].text, p.declared_param_type(i)->to_string())
                         : p.params[i].text);
  std::string out =
      fmt::format("pipeline {}({}) {{\n", p.name.text, join(params, [](const std::string& x) { return x; }));
  for (const auto& in : p.inputs) out += print_input(in);
  for (const auto& f : p.funcs) out += print_func(f);
  return out + "}\n";
}

// Halide's mode says so; a directive halo added as Halide's default says why in a comment
// (which the parser skips: the directive is then written, and means the same).
std::string print_schedule(const Program& p) {
  if (p.schedule_mode == ScheduleMode::Autoscheduler) return fmt::format("schedule autoscheduler {} {{ }}\n", p.autoscheduler);
  const std::vector<Directive>& ds = *p.schedule;
  std::string out = p.schedule_mode == ScheduleMode::Halide ? "schedule halide {\n" : "schedule {\n";
  for (const auto& [word, func] : p.halide_roots) out += fmt::format("  {}({});\n", word, func);
  for (const auto& d : ds) {
    if (d.halide_implicit) continue;  // the fuse after it prints in Halide's form, which says it
    out += fmt::format("  {};", print_directive(d));
    if (!d.default_note.empty()) out += "  # " + d.default_note;
    if (!d.tail_note.empty()) out += "  # " + d.tail_note;
    if (!d.formal_note.empty()) out += "  # " + d.formal_note;
    out += "\n";
  }
  return out + "}\n";
}

}  // namespace

// Shared with the target-language printer (lexer.hpp): both kinds of program end alike.
std::string print_realization(const Realization& r) {
  std::string out = fmt::format("realize ({})", join(r.params, [](const ParamBinding& b) {
                                  return fmt::format("{} = {}", b.name.text, b.value.to_string());
                                }));
  auto box = [](const std::vector<Interval>& b) {
    return join(b, [](const Interval& i) { return print_interval(i.min, i.len); });
  };
  if (!r.window.empty()) out += " over " + box(r.window);
  for (const auto& b : r.inputs) {
    out += fmt::format("\n  with {} = ", b.name.text);
    switch (b.source) {
      case InputSourceKind::Image: out += fmt::format("image(\"{}\")", b.path); break;
      case InputSourceKind::Npy: out += fmt::format("npy(\"{}\")", b.path); break;
      case InputSourceKind::Seeded: out += fmt::format("seeded({}) over {}", b.seed.to_string(), box(b.box)); break;
    }
  }
  return out + "\n";
}

std::string print_expr(const Expr& e) {
  std::string out;
  write_expr(out, e);
  return out;
}

std::string print_loop_name(const LoopName& l) {
  if (l.stage == LoopName::kAnyStage) return fmt::format("{}, {}", l.func.text, l.var.text);
  if (l.spec == LoopName::kEverySpec) return fmt::format("<{}, *, {}, {}>", l.func.text, l.stage, l.var.text);
  return fmt::format("<{}, {}, {}, {}>", l.func.text, l.spec, l.stage, l.var.text);
}

std::string print_directive(const Directive& d) {
  if (d.kind == DirectiveKind::Fuse && d.names.size() == 2)  // Halide's fuse(f, inner, outer, fused)
    return fmt::format("fuse(<{}, {}, {}>, {}, {}, {})", d.loop.func.text, d.loop.spec, d.loop.stage, d.names[1].text,
                       d.loop.var.text, d.names[0].text);
  std::vector<std::string> args;
  size_t names = 0, exprs = 0;
  for (const auto& param : directive_syntax(d.kind).params) {
    switch (param.arg) {
      case DirectiveArg::Func: args.push_back(d.func.text); break;
      case DirectiveArg::Loop: args.push_back(print_loop_name(d.loop)); break;
      case DirectiveArg::With: args.push_back(print_loop_name(d.with)); break;
      case DirectiveArg::Stage:
        args.push_back(fmt::format("<{}, {}, {}>", d.loop.func.text, d.loop.spec, d.loop.stage));
        break;
      case DirectiveArg::Name: args.push_back(d.names.at(names++).text); break;
      case DirectiveArg::Names:
        for (; names < d.names.size(); ++names) args.push_back(d.names[names].text);
        break;
      case DirectiveArg::Text: args.push_back("\"" + d.message + "\""); break;
      case DirectiveArg::Expression: args.push_back(print_expr(d.exprs.at(exprs++))); break;
      case DirectiveArg::Expressions:
        while (exprs < d.exprs.size()) args.push_back(print_expr(d.exprs[exprs++]));
        break;
      case DirectiveArg::Tail: args.push_back(d.tail_auto ? "auto" : tail_name(d.tail)); break;
      case DirectiveArg::Order: args.push_back(traversal_name(d.order)); break;
    }
  }
  if (d.kind == DirectiveKind::Rfactor && d.names.size() > 1) args.push_back(d.names[1].text);  // the intermediate
  return fmt::format("{}({})", directive_name(d.kind), join(args, [](const std::string& s) { return s; }));
}

std::string print_effective_schedule(const Program& p) {
  if (p.schedule_mode != ScheduleMode::Halide || !p.schedule) return "";
  std::string out = "# the effective schedule: what `schedule halide` means, Halide's defaults added and marked, in "
                    "the order halo applies it\n";
  std::string text = print_schedule(p);
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    out += "#   " + text.substr(at, end - at) + "\n";
    at = end + 1;
  }
  return out;
}

std::string print_program(const Program& p) {
  std::string out = print_pipeline(p.pipeline);
  // An autoscheduled program's section is all there is of its schedule, even where a pass
  // left it without directives to hold.
  if (p.schedule || p.schedule_mode == ScheduleMode::Autoscheduler) out += "\n" + print_schedule(p);
  if (p.realize) out += "\n" + print_realization(*p.realize);
  return out;
}

std::string float_decimal(const Value& v) {
  std::string d = v.to_string();
  if (d.find_first_of(".e") == std::string::npos) d += ".0";
  return d;
}

}  // namespace halo
