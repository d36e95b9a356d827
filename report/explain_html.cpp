// The `halo explain` page (report/explain.hpp): one function per section, in the order a
// student meets the semantics (thesis chapter 2): the algorithm, L(P), the schedule
// directive by directive, the bounds query and β0, the completed program, the oracle's
// verdict, the pictures, the derivation and the trace, and a glossary of the rules every
// rule name links to. Everything is inline (style, script, SVG): the page is viewed
// without a network. Text reaches the page only through HtmlWriter, which escapes it.
#include "report/explain_render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace halo::explain {

namespace {

// ---------------------------------------------------------------- the rules (glossary)
struct RuleText {
  const char* figure;  // "2.6" or "2.8"
  const char* name;
  const char* statement;
  const char* code;
};

// Figs. 2.6 and 2.8 as plain text, with where each rule is implemented (docs/figures.md).
const RuleText kRules[] = {
    {"2.6", "REALIZE", "∀ y = (i1..in) ∈ I1 × … × In : [c̄/p̄](D; f[i1..in]) ⇓ c_y  ⟹  pipeline f(p̄) = D; realize(Ī, c̄) ⇓ g(y) := c_y",
     "interp/derivation.cpp: derive_point"},
    {"2.6", "CONST-EVAL", "D; c ⇓ c", "interp/derivation.cpp: Machine::step_eval"},
    {"2.6", "OP-EVAL", "D; e_i ⇓ c_i (each i)   D; op(c̄) ⇓ c'  ⟹  D; op(ē) ⇓ c'", "interp/derivation.cpp: Machine::step_eval"},
    {"2.6", "FUNC-ARG-EVAL", "D; e_i ⇓ c_i (each i)   D; f[c̄] ⇓ c'  ⟹  D; f[ē] ⇓ c'", "interp/derivation.cpp: Machine::step_call"},
    {"2.6", "FUNC-ARG-ERR",
     "some c_i is an error value  ⟹  D; f[c̄] ⇓ the greatest error among c̄ (Def. 2.6; the project's reading, docs/bigstep.md)",
     "interp/derivation.cpp: Machine::step_call"},
    {"2.6", "FUNC-SKIP", "f ≠ g   D; f[c̄] ⇓ c'  ⟹  D; fun g[x̄] = {B}; f[c̄] ⇓ c'", "interp/derivation.cpp: Machine::step_lookup"},
    {"2.6", "FUNC-EVAL", "D; [c̄/x̄]e ⇓ c'  ⟹  D; fun f[x̄] = {e}; f[c̄] ⇓ c'", "interp/derivation.cpp: Impl::func_eval_term"},
    {"2.6", "UPDATE-EVAL",
     "D; fun f[x̄] = {Ū}; [c̄/x̄] select(ē = x̄ ∧ e_p, e_b, f[x̄]) ⇓ c'  ⟹  D; fun f[x̄] = {Ū; rdom() in (ē) ← e_b if e_p}; f[c̄] ⇓ c'",
     "interp/derivation.cpp: Impl::update_term"},
    {"2.6", "RDOM-ERR", "the rdom's bounds evaluate to c^min, c^len and some c_j^len < 0  ⟹  D; fun f[x̄] = {…; rdom(r̄ = Ī) in …}; f[c̄] ⇓ ε_rdom",
     "interp/derivation.cpp: Machine::decide_rdom"},
    {"2.6", "RDOM-EVAL",
     "the rdom's bounds evaluate   D; fun f[x̄] = {Ū; unroll}; f[c̄] ⇓ c'  ⟹  D; fun f[x̄] = {Ū; rdom(r̄ = Ī) in …}; f[c̄] ⇓ c'   (unroll: one "
     "point update per r̄, r1 fastest)",
     "interp/derivation.cpp: Impl::unroll"},
    {"2.8", "REDUCE", "⟨s | Σ | σ⟩ → ⟨s' | Σ' | σ'⟩  ⟹  ⟨E[s] | Σ | σ⟩ → ⟨E[s'] | Σ' | σ'⟩   (every step below happens inside a context E)",
     "interp/small_step.cpp: the context stack Machine::k_"},
    {"2.8", "REALIZE", "⟨pipeline f(p̄): s; realize(c̄) | Σ | σ⟩ → ⟨pipeline f(p̄): s | Σ[p̄ = c̄] | σ⟩", "interp/small_step.cpp: Machine::realize"},
    {"2.8", "VAR", "v = Σ(x)  ⟹  ⟨x | Σ | σ⟩ → ⟨v | Σ | σ⟩", "interp/small_step.cpp: Machine::execute"},
    {"2.8", "EVAL", "op(c̄) = c'  ⟹  ⟨op(c̄) | Σ | σ⟩ → ⟨c' | Σ | σ⟩", "interp/small_step.cpp: Machine::execute"},
    {"2.8", "NOP", "⟨nop; s | Σ | σ⟩ → ⟨s | Σ | σ⟩", "interp/small_step.cpp: Machine::execute"},
    {"2.8", "ASSERT-TRUE", "c ≠ 0  ⟹  ⟨assert c | Σ | σ⟩ → ⟨nop | Σ | σ⟩   (assert 0 is stuck: Def. 2.11)", "interp/small_step.cpp: Machine::execute"},
    {"2.8", "LET", "⟨let x = c in s | Σ | σ⟩ → ⟨s | Σ[x = c] | σ⟩", "interp/small_step.cpp: Machine::execute"},
    {"2.8", "FOR-ITER",
     "c^len > 0  ⟹  ⟨for x in (c^min, c^len) do s | Σ | σ⟩ → ⟨s; for x in (c^min + 1, c^len − 1) do s | Σ[x = c^min] | σ⟩",
     "interp/small_step.cpp: Machine::execute"},
    {"2.8", "FOR-STOP", "⟨for x in (c^min, 0) do s | Σ | σ⟩ → ⟨nop | Σ \\ {x} | σ⟩   (a negative length is stuck: Def. 2.12)",
     "interp/small_step.cpp: Machine::execute"},
    {"2.8", "IF-T", "c ≠ 0  ⟹  ⟨if c then s1 else s2 | Σ | σ⟩ → ⟨s1 | Σ | σ⟩", "interp/small_step.cpp: Machine::execute"},
    {"2.8", "IF-F", "⟨if 0 then s1 else s2 | Σ | σ⟩ → ⟨s2 | Σ | σ⟩", "interp/small_step.cpp: Machine::execute"},
    {"2.8", "ALLOC", "σ' = σ[f ↦ ⟨λx̄. ε_mem, Ī⟩]  ⟹  ⟨allocate f(Ī) | Σ | σ⟩ → ⟨nop | Σ | σ'⟩", "interp/small_step.cpp: Machine::allocate"},
    {"2.8", "READ", "InBounds(f[c̄], σ)  ⟹  ⟨f[c̄] | Σ | σ⟩ → ⟨σ(f[c̄]) | Σ | σ⟩   (out of bounds is stuck: Def. 2.13)",
     "interp/small_step.cpp: Machine::finish_access"},
    {"2.8", "ASSN", "InBounds(f[c̄], σ)   σ' = σ[f(c̄) = c']  ⟹  ⟨f[c̄] ← c' | Σ | σ⟩ → ⟨nop | Σ | σ'⟩   (out of bounds is stuck: Def. 2.13)",
     "interp/small_step.cpp: Machine::finish_access"},
    {"2.8", "END", "σ(f) = ⟨f̂, …⟩  ⟹  ⟨pipeline f(p̄): nop | Σ | σ⟩ → ⟨f̂ | Σ | σ⟩", "interp/small_step.cpp: Machine::end"},
};

std::string rule_anchor(const std::string& figure, const std::string& rule) { return "rule-" + figure + "-" + rule; }

bool known_rule(const std::string& figure, const std::string& rule) {
  for (const auto& r : kRules)
    if (figure == r.figure && rule == r.name) return true;
  return false;
}

// [RULE] as a link to its glossary entry (plain text for a name the glossary lacks).
void rule_link(HtmlWriter& w, const std::string& figure, const std::string& rule) {
  if (known_rule(figure, rule))
    w.element("a", {{"class", "rule"}, {"href", "#" + rule_anchor(figure, rule)}, {"title", "fig. " + figure}}, "[" + rule + "]");
  else
    w.element("span", {{"class", "rule"}}, "[" + rule + "]");
}

// ---------------------------------------------------------------- page furniture
const char* const kStyle = R"CSS(
:root { --allocated: #d9d9d9; --computed: #1f63c6; --written: #74c476; --requested: #f08c00; }
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1180px; padding: 0 18px 60px; color: #1d1d1f; }
header { border-bottom: 2px solid #ccc; margin-bottom: 10px; }
h1 { font-size: 1.6em; margin: 18px 0 4px; } h2 { margin-top: 34px; border-bottom: 1px solid #ddd; }
h3 { margin: 18px 0 4px; font-size: 1.05em; }
nav ol { columns: 2; font-size: 0.95em; } nav ol.toc { list-style: none; padding-left: 0; } /* the titles carry their numbers */
pre { background: #f7f7f9; border: 1px solid #e3e3e8; padding: 8px 10px; overflow-x: auto; font: 13px/1.35 ui-monospace, monospace; }
pre.diff span { display: block; } pre.diff .add { background: #e3f6e3; } pre.diff .del { background: #fde8e8; color: #8a1c1c; }
table { border-collapse: collapse; margin: 6px 0; } td, th { border: 1px solid #ddd; padding: 2px 8px; text-align: left; vertical-align: top; }
td.mono, .mono { font-family: ui-monospace, monospace; font-size: 13px; }
.ok { color: #16794a; font-weight: 600; } .bad { color: #b3261e; font-weight: 600; }
.note { color: #555; font-style: italic; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 8px 0; }
.legend-item { display: flex; align-items: center; gap: 4px; }
figure { margin: 12px 0 22px; } figcaption { margin-bottom: 4px; }
.tiles { display: flex; flex-wrap: wrap; gap: 10px; }
svg text { font: 11px ui-monospace, monospace; } svg .axis { fill: #666; } svg .tile-label { fill: #222; }
svg .gridline { fill: none; stroke: #e2e2e2; stroke-width: 1; } svg .frame { stroke: #bbb; }
svg .layer.allocated { fill: var(--allocated); fill-opacity: 0.75; stroke: #9a9a9a; }
svg .layer.computed { fill: none; stroke: var(--computed); stroke-width: 2.5; stroke-dasharray: 6 3; }
svg .layer.written { fill: var(--written); stroke: #2f7d32; } svg .layer.written.recomputed { stroke: #0b3d0f; stroke-width: 3; }
svg text.layer.written { fill: #0d2a10; stroke: #fff; stroke-width: 2.5px; paint-order: stroke; }
table.grid td { text-align: right; min-width: 2.2em; font: 12px ui-monospace, monospace; padding: 1px 4px; }
table.grid td.differs { background: #fde2e0; outline: 2px solid #b3261e; outline-offset: -2px; }
table.grid td.halide-differs { background: #fff1cc; outline: 2px dashed #a05a00; outline-offset: -2px; }
table.grid th { color: #666; font-weight: normal; font-size: 12px; }
svg .layer.requested { fill: var(--requested); } svg .layer.requested.window { fill: none; stroke: var(--requested); stroke-width: 3; }
svg.swatch .layer.requested { fill: var(--requested); stroke: none; }
.hide-allocated .layer.allocated, .hide-computed .layer.computed,
.hide-written .layer.written, .hide-requested .layer.requested { visibility: hidden; }
svg .heat-value { fill: #111; } svg .heat-value.dark { fill: #fff; } svg .window-outline { fill: none; stroke: #f08c00; stroke-width: 3; }
svg .heat-allocated { fill: #e4e4e4; stroke: #9a9a9a; stroke-dasharray: 3 2; }
.heat-views, .heat-allocations { display: flex; flex-wrap: wrap; gap: 10px 18px; align-items: flex-start; }
.heat-view.merged:not(:last-child) { padding-right: 14px; border-right: 2px solid #ddd; }
.heat-map.rows .heat-views, .heat-map.rows .heat-allocations { flex-direction: column; gap: 4px; }
.heat-map.rows .heat-view.merged:not(:last-child) { padding: 0 0 6px; border-right: none; border-bottom: 2px solid #ddd; }
.heat-label { font-size: 0.9em; color: #333; margin-bottom: 2px; max-width: 420px; }
.hide-per-allocation .heat-allocations { display: none; } .hide-per-allocation .heat-view.merged { border-right: none; }
.derivation-tree details { margin-left: 18px; border-left: 1px dotted #bbb; padding-left: 6px; }
.derivation-tree summary, .derivation-tree .leaf { font: 13px/1.5 ui-monospace, monospace; }
.derivation-tree .leaf { margin-left: 30px; } .derivation-tree > details { margin-left: 0; }
details.raw { margin-top: 3px; } details.raw summary { color: #666; font: 12px system-ui, sans-serif; cursor: pointer; }
details.raw pre { margin: 2px 0 0; white-space: pre-wrap; word-break: break-all; }
a.rule, span.rule { color: #7a3db8; text-decoration: none; font-weight: 600; margin-left: 6px; }
:target { background: #fff6c9; }
table.trace td:first-child { text-align: right; color: #777; } table.trace td.reads { color: #14532d; }
dl.glossary dt { font-weight: 600; margin-top: 8px; } dl.glossary dd { margin-left: 18px; }
.value { font-weight: 600; }
)CSS";

// Wires what the sections found under `root` need: the layer switches of the pictures and
// the view switch of the heat maps (a class on the switch's own section, so that two panes
// of the playground do not switch each other), and the buttons that open or close every
// <details> of a kind in their section (the derivation's judgments, the bounds' raw
// forms). Every element is wired once, however often it is called. `expected`: the ids of
// the sections that must be under root. Links are checked only on a whole page (root =
// document): a pane's may lead to another pane. Returns 'ok' or what is missing or broken.
const char* const kScript = R"JS(
window.haloExplainInit = function (root, expected) {
  try {
    root = root || document;
    var whole = root === document || root === document.documentElement || root === document.body;
    var fallback = root.nodeType === 1 ? root : document.body;
    function scope(el) { return el.closest('section') || fallback; }
    function once(el) {
      if (el.dataset.haloWired) return false;
      el.dataset.haloWired = '1';
      return true;
    }
    root.querySelectorAll('input[data-layer], input[data-view]').forEach(function (box) {
      if (!once(box)) return;
      var name = 'hide-' + (box.dataset.layer || box.dataset.view);
      var sync = function () { scope(box).classList.toggle(name, !box.checked); };
      box.addEventListener('change', sync);
      sync();  // a state the browser restored
    });
    root.querySelectorAll('button[data-open-all]').forEach(function (button) {
      if (!once(button)) return;
      button.addEventListener('click', function () {
        var open = button.dataset.open === 'true';
        scope(button).querySelectorAll(button.dataset.openAll).forEach(function (d) { d.open = open; });
      });
    });
    function find(id) {
      if (root.nodeType === 9) return root.getElementById(id);
      return root.id === id ? root : root.querySelector('#' + CSS.escape(id));
    }
    var missing = (expected || []).filter(function (id) { return !find(id); });
    if (missing.length) return 'missing: ' + missing.join(' ');
    if (whole) {
      var broken = Array.prototype.filter.call(document.querySelectorAll('a[href^="#"]'), function (a) {
        return a.getAttribute('href').length > 1 && !document.getElementById(a.getAttribute('href').slice(1));
      });
      if (broken.length) return 'broken link: ' + broken[0].getAttribute('href');
    }
    return 'ok';
  } catch (e) {
    return 'error: ' + e.message;
  }
};
)JS";

void open_section(HtmlWriter& w, const char* id, const std::string& title) {
  w.open("section", {{"id", id}});
  w.element("h2", {}, title);
}

void paragraph(HtmlWriter& w, const std::string& text) { w.element("p", {}, text); }
void note(HtmlWriter& w, const std::string& text) { w.element("p", {{"class", "note"}}, text); }
void program_block(HtmlWriter& w, const std::string& text, const char* cls = "program") {
  w.element("pre", {{"class", cls}}, text);
}

std::string input_text(const Explanation& e) {
  std::vector<std::string> ps, ws;
  for (const auto& [name, v] : e.params) ps.push_back(name + " = " + v.to_string());
  for (size_t i = 0; i < e.window.size(); ++i)
    ws.push_back(fmt::format("{} ∈ {}", i < e.output_vars.size() ? e.output_vars[i] : "?",
                             interval_text(e.window[i].min, e.window[i].len)));
  return fmt::format("input z: parameters {}; output window R(z): {}", ps.empty() ? "none" : fmt::format("{}", fmt::join(ps, ", ")),
                     ws.empty() ? "a single point" : fmt::format("{}", fmt::join(ws, ", ")));
}

// The page's title and its table of contents, made from the sections as rendered: an entry
// is a section's own heading, so the two cannot disagree.
void write_header(HtmlWriter& w, const Explanation& e, const std::vector<RenderedSection>& sections) {
  w.open("header");
  w.element("h1", {}, "halo explain: " + e.file);
  w.open("nav");
  w.open("ol", {{"class", "toc"}});
  for (const auto& sec : sections) {
    w.open("li");
    w.element("a", {{"href", "#" + sec.id}}, sec.title);
    w.close("li");
  }
  w.close("ol");
  w.close("nav");
  w.close("header");
}

// ---------------------------------------------------------------- the sections
void write_algorithm(HtmlWriter& w, const Explanation& e, const std::string& title) {
  open_section(w, "algorithm", title);
  w.element("p", {{"class", "input"}}, input_text(e));
  paragraph(w, "The program as written: funcs defined on unbounded integer domains (fig. 2.5), an optional schedule "
               "(fig. 2.11) and a realization, the input z. The algorithm alone defines every value (fig. 2.6); the "
               "schedule may only change how and where they are computed.");
  program_block(w, e.source, "source");
  if (!e.realize_overridden.empty())
    note(w, "This page is for the input given on the command line (" + input_text(e) + "), not the file's " +
                e.realize_overridden.substr(0, e.realize_overridden.find('\n')) + ".");
  w.close("section");
}

void write_lowered(HtmlWriter& w, const Explanation& e, const std::string& title) {
  open_section(w, "lowered", title);
  paragraph(w, "Lowering gives one allocate and one labelled loop nest per func, in definition order, with the first "
               "pure variable innermost. Every bound is a hole: ?mem f for allocations, ?cpu f for the region computed "
               "(Def. 2.14). Bounds inference fills them later (§2.7).");
  if (!e.steps.empty()) program_block(w, e.steps.front().program);
  w.close("section");
}

void write_diff(HtmlWriter& w, const std::string& before, const std::string& after) {
  w.open("pre", {{"class", "diff"}});
  for (const auto& line : line_diff(before, after)) {
    const char* cls = line.kind == DiffKind::Added ? "add" : line.kind == DiffKind::Removed ? "del" : "same";
    const char* mark = line.kind == DiffKind::Added ? "+ " : line.kind == DiffKind::Removed ? "- " : "  ";
    w.element("span", {{"class", cls}}, mark + line.text);
  }
  w.close("pre");
}

void write_schedule(HtmlWriter& w, const Explanation& e, const std::string& title) {
  open_section(w, "schedule", title);
  paragraph(w, "Each directive rewrites the program with holes: T_i = S(s_i, T_{i-1}) (fig. 2.4). Lines the directive "
               "added are green (+), lines it removed are red (−).");
  if (e.steps.size() <= 1) note(w, "This program has no schedule: the default one of fig. 2.9 is used as lowered.");
  for (size_t i = 1; i < e.steps.size(); ++i) {
    w.element("h3", {{"id", fmt::format("step-{}", i)}}, e.steps[i].title);
    write_diff(w, e.steps[i - 1].program, e.steps[i].program);
  }
  for (const auto& d : e.schedule_rejected) {
    w.open("p", {{"class", "bad"}, {"id", "schedule-rejected"}});
    w.text("The next directive is rejected: " + d.format());
    w.close("p");
  }
  w.close("section");
}

// A section the page cannot fill because the schedule was rejected (section 3).
bool not_reached(HtmlWriter& w, const Explanation& e, const char* id, const std::string& title) {
  if (e.schedule_rejected.empty()) return false;
  open_section(w, id, title);
  note(w, "Not reached: the schedule was rejected (section 3), so there is no scheduled program to complete, run "
          "or draw.");
  w.close("section");
  return true;
}

void write_bounds(HtmlWriter& w, const Explanation& e, const std::string& title) {
  if (not_reached(w, e, "bounds", title)) return;
  open_section(w, "bounds", title);
  paragraph(w, "The query is the predicate every completion must satisfy (Def. 2.15): each store inside ?mem, each "
               "access a computed point needs inside ?cpu, the window inside the output's ?cpu.");
  program_block(w, e.query, "query");
  w.element("h3", {}, "β0's intervals, per hole tuple");
  paragraph(w, "β0 folds naive interval arithmetic over the query, consumers before producers, and covers each hole "
               "tuple with the union of what is demanded of it (§2.7.2).");
  w.open("table", {{"class", "beta0-tuples"}});
  w.open("tr");
  w.element("th", {}, "hole tuple");
  w.element("th", {}, "interval per dimension");
  w.close("tr");
  for (const auto& [tuple, dims] : e.beta0_tuples) {
    w.open("tr");
    w.element("td", {{"class", "mono"}}, tuple);
    w.element("td", {{"class", "mono"}}, dims);
    w.close("tr");
  }
  w.close("table");
  w.element("h3", {}, "β0's solution, per hole");
  if (!e.beta0_ok) {
    w.open("p");
    w.element("span", {{"class", "bad"}}, "β0 fails: ");
    w.text(e.beta0_reason + ". Lifted to a bounds engine, it completes the program as `assert 0` (§2.7.2).");
    w.close("p");
  }
  paragraph(w, "Each expression is shown simplified (bounds/simplify: constant folding, linear forms, min and max of "
               "terms a constant apart, select with a constant condition or equal branches), the form β0 built one "
               "click away; the value under z is the raw form's, and both have it.");
  w.open("p");
  w.element("button", {{"type", "button"}, {"data-open-all", "details.raw"}, {"data-open", "true"}}, "show every raw form");
  w.text(" ");
  w.element("button", {{"type", "button"}, {"data-open-all", "details.raw"}, {"data-open", "false"}}, "hide them");
  w.close("p");
  w.open("table", {{"class", "filling"}});
  w.open("tr");
  w.element("th", {}, "hole");
  w.element("th", {}, "β0's expression, simplified");
  w.element("th", {}, "its value under z");
  w.close("tr");
  for (const auto& h : e.filling) {
    w.open("tr");
    w.element("td", {{"class", "mono"}}, h.hole);
    w.open("td", {{"class", "mono"}});
    w.element("span", {{"class", "simplified"}}, h.simplified);
    if (h.simplified != h.expression) {
      w.open("details", {{"class", "raw"}});
      w.element("summary", {}, fmt::format("as β0 built it ({} characters)", h.expression.size()));
      w.element("pre", {{"class", "raw-expression"}}, h.expression);
      w.close("details");
    }
    w.close("td");
    w.element("td", {{"class", "mono"}}, h.value);
    w.close("tr");
  }
  w.close("table");
  w.close("section");
}

void write_completed(HtmlWriter& w, const Explanation& e, const std::string& title) {
  if (not_reached(w, e, "completed", title)) return;
  open_section(w, "completed", title);
  paragraph(w, "The scheduled program with every hole replaced by β0's expression: a program of Tgt the small-step "
               "machine runs (fig. 2.8).");
  program_block(w, e.completed);
  w.close("section");
}

void verdict_row(HtmlWriter& w, const std::string& what, bool holds) {
  w.open("tr");
  w.element("td", {}, what);
  w.element("td", {{"class", holds ? "ok" : "bad"}}, holds ? "holds" : "VIOLATED");
  w.close("tr");
}

// P(z) on R(z) as a grid (x across, y down; one row for 1-D), each cell P(z)'s value, the
// points where P'(z) differs marked, and those where Halide's output differs (when
// --target halide ran) marked apart. Windows wider than 48 or taller than 32 are cut.
bool write_output_grid(HtmlWriter& w, const OracleVerdict& v, const std::optional<HalideSide>& halide) {
  const auto& win = v.reference.window;
  const auto& ref = v.reference.values;
  const auto& got = v.run.output.values;
  if (win.empty() || win.size() > 2 || ref.empty()) return false;
  auto len = [&](size_t d) { return d < win.size() ? win[d].len.as_int64().value_or(0) : 1; };
  const int64_t nx = len(0), ny = len(1);
  if (nx <= 0 || ny <= 0 || !win[0].min.as_int64() || (win.size() > 1 && !win[1].min.as_int64())) return false;
  const int64_t x0 = *win[0].min.as_int64(), y0 = win.size() > 1 ? *win[1].min.as_int64() : 0;
  const int64_t shown_x = std::min<int64_t>(nx, 48), shown_y = std::min<int64_t>(ny, 32);
  std::set<std::pair<int64_t, int64_t>> halide_differs;
  if (halide)
    for (const auto& m : halide->mismatches)
      if (auto px = m.point.empty() ? std::optional<int64_t>{} : m.point[0].as_int64())
        halide_differs.insert({*px, m.point.size() > 1 ? m.point[1].as_int64().value_or(0) : 0});
  w.element("h3", {}, "P(z) on R(z), with the points where P'(z) differs marked");
  w.open("table", {{"class", "grid"}});
  w.open("tr");
  w.element("th", {}, win.size() > 1 ? "y \\ x" : "x");
  for (int64_t i = 0; i < shown_x; ++i) w.element("th", {}, std::to_string(x0 + i));
  w.close("tr");
  for (int64_t j = 0; j < shown_y; ++j) {
    w.open("tr");
    w.element("th", {}, win.size() > 1 ? std::to_string(y0 + j) : "");
    for (int64_t i = 0; i < shown_x; ++i) {
      size_t k = size_t(j * nx + i);  // first dimension fastest
      bool differs = k < got.size() && !(got[k] == ref[k]);
      bool hal = halide_differs.count({x0 + i, y0 + j}) > 0;
      std::string title = fmt::format("P(z) = {}", ref[k].to_string());
      if (k < got.size()) title += fmt::format(", P'(z) = {}", got[k].to_string());
      if (hal) title += ", Halide's output differs here";
      w.open("td", {{"class", differs ? "differs" : hal ? "halide-differs" : ""}, {"title", title}});
      w.text(ref[k].to_string());
      w.close("td");
    }
    w.close("tr");
  }
  w.close("table");
  if (shown_x < nx || shown_y < ny) note(w, fmt::format("The grid shows the first {} × {} points of R(z).", shown_x, shown_y));
  note(w, halide ? "Red: P'(z) (halo's completed program) differs from P(z). Dashed amber: Halide's output differs "
                   "(the first points Halide reported)."
                 : "Red: P'(z) (halo's completed program) differs from P(z).");
  return true;
}

// Point by point; after a grid, only the points where P'(z) differs (if any).
void write_outputs(HtmlWriter& w, const OracleVerdict& v, bool only_differences) {
  const auto& ref = v.reference.values;
  const auto& got = v.run.output.values;
  if (ref.empty()) return;
  if (only_differences) {
    size_t differ = 0;
    for (size_t i = 0; i < ref.size(); ++i) differ += i < got.size() && !(got[i] == ref[i]);
    if (differ == 0) return;
  }
  w.element("h3", {}, "P(z) and P'(z) on R(z)");
  w.open("table", {{"class", "outputs"}});
  w.open("tr");
  for (const char* h : {"point", "P(z): big-step (fig. 2.6)", "P'(z): completed program (fig. 2.8)", ""}) w.element("th", {}, h);
  w.close("tr");
  size_t shown = 0, listed = 0;
  for (size_t i = 0; i < ref.size() && listed < 64; ++i, ++shown) {
    if (only_differences && !(i < got.size() && !(got[i] == ref[i]))) continue;
    ++listed;
    std::vector<Value> pt = window_point(v.reference.window, i);
    std::vector<std::string> cs;
    for (const auto& c : pt) cs.push_back(c.to_string());
    const bool have = i < got.size();
    const bool same = have && got[i] == ref[i];
    w.open("tr");
    w.element("td", {{"class", "mono"}}, fmt::format("{}({})", v.reference.func, fmt::join(cs, ", ")));
    w.element("td", {{"class", "mono"}}, ref[i].to_string());
    w.element("td", {{"class", "mono"}}, have ? got[i].to_string() : "—");
    // No mark where P'(z) has no output (it got stuck): Def. 2.3 decides that case, above.
    w.element("td", {{"class", same ? "ok" : "bad"}}, same ? "=" : have ? "≠" : "");
    w.close("tr");
  }
  w.close("table");
  if (ref.size() > shown) note(w, fmt::format("{} more points of R(z) are not listed.", ref.size() - shown));
}

void write_verdict(HtmlWriter& w, const Explanation& e, const std::string& title) {
  if (not_reached(w, e, "verdict", title)) return;
  open_section(w, "verdict", title);
  paragraph(w, "Theorem 2.1: the completed program never reads or writes out of bounds. Theorem 2.2 via Def. 2.3: "
               "either P(z) has an error value in R(z), or P'(z) fails an assertion, or P and P' agree on every point "
               "of R(z) (and only there: the output buffer may be larger).");
  if (!e.verdict) {
    note(w, e.verdict_note);
    w.close("section");
    return;
  }
  const OracleVerdict& v = *e.verdict;
  w.open("table", {{"class", "verdict"}, {"data-verdict", v.holds() ? "holds" : "violated"}});
  verdict_row(w, "Theorem 2.1 (memory safety)", v.memory_safe);
  verdict_row(w, "Theorem 2.2 (confluence, Def. 2.3)", v.confluent);
  verdict_row(w, "parallel loops race-free", v.race_free);
  w.open("tr");
  w.element("td", {}, "the completed program");
  w.element("td", {{"class", "mono"}}, fmt::format("{} after {} steps", run_status_name(v.run.status), v.run.steps));
  w.close("tr");
  w.close("table");
  paragraph(w, v.detail);
  if (!e.verdict_note.empty()) note(w, e.verdict_note);
  bool grid = write_output_grid(w, v, e.halide);
  write_outputs(w, v, grid);
  w.close("section");
}

std::string optional_box_text(const std::optional<Box>& b, const char* none) { return b ? box_text(*b) : none; }

// The same case on the compiler people use (`--target halide`).
void write_halide(HtmlWriter& w, const Explanation& e, const std::string& title) {
  if (!e.halide) return;
  const HalideSide& h = *e.halide;
  open_section(w, "halide", title);
  paragraph(w, "The same program, schedule and input translated to Halide (docs/halide.md), compiled and run; its "
               "output is compared with P(z) on R(z) (Theorem 2.2), and a second, traced run checks every load and "
               "store of every func against the region Halide realized for it (Theorem 2.1).");
  if (!h.note.empty()) {
    note(w, h.note);
    w.close("section");
    return;
  }
  w.open("table", {{"class", "halide-versions"}});
  w.open("tr");
  for (const char* c : {"Halide", "outcome", "what happened"}) w.element("th", {}, c);
  w.close("tr");
  for (const auto& r : h.versions) {
    w.open("tr");
    w.element("td", {{"class", "mono"}}, r.version);
    w.element("td", {{"class", r.finding ? "bad" : "ok"}}, r.outcome);
    w.element("td", {}, r.detail);
    w.close("tr");
  }
  w.close("table");
  for (const auto& n : h.notes) note(w, "Translation: " + n);
  w.element("h3", {}, fmt::format("Regions, Halide {} next to halo's completion", h.shown_version));
  paragraph(w, "For each func, the hull of the regions Halide realized (its allocations) and of the regions halo's "
               "completed program allocated (β0's ?mem, over every tile). Halide may realize less than β0 allocates "
               "(its bounds inference is sharper) or more (rounding for vectors and splits); a func Halide inlined "
               "has no realization.");
  w.open("table", {{"class", "halide-regions"}});
  w.open("tr");
  for (const char* c : {"func", "Halide realized", "halo allocated"}) w.element("th", {}, c);
  w.close("tr");
  for (const auto& r : h.regions) {
    w.open("tr");
    w.element("td", {{"class", "mono"}}, r.func);
    w.element("td", {{"class", "mono"}}, optional_box_text(r.halide, "not realized (inlined)"));
    w.element("td", {{"class", "mono"}}, optional_box_text(r.halo, "not allocated (inlined, or the run stopped)"));
    w.close("tr");
  }
  w.close("table");
  w.element("h3", {}, "The memory check");
  if (!h.memcheck_ran) {
    note(w, "The traced run was not made.");
  } else {
    w.open("p", {{"class", h.out_of_bounds == 0 ? "ok" : "bad"}});
    w.text(fmt::format("{} loads and {} stores checked; {} outside their func's realized region; {} loads of points no "
                       "store wrote{}.",
                       h.loads, h.stores, h.out_of_bounds, h.uninitialized,
                       h.unjudged_lanes ? fmt::format("; {} lanes of predicated vector accesses not judged", h.unjudged_lanes)
                                        : ""));
    w.close("p");
    for (const auto& ex : h.memcheck_examples) program_block(w, ex);
  }
  if (!h.mismatches.empty()) {
    w.element("h3", {}, "Where Halide's output differs");
    w.open("table");
    w.open("tr");
    for (const char* c : {"point", "P(z)", "Halide"}) w.element("th", {}, c);
    w.close("tr");
    for (const auto& m : h.mismatches) {
      std::vector<std::string> cs;
      for (const auto& c : m.point) cs.push_back(c.to_string());
      w.open("tr");
      w.element("td", {{"class", "mono"}}, fmt::format("{}({})", e.output_func, fmt::join(cs, ", ")));
      w.element("td", {{"class", "mono"}}, m.expected.to_string());
      w.element("td", {{"class", "mono bad"}}, m.got.to_string());
      w.close("tr");
    }
    w.close("table");
  }
  w.element("h3", {}, "The standalone C++ reproducer");
  if (h.reproducer.empty()) {
    note(w, h.reproducer_note);
  } else {
    w.open("details", {{"class", "reproducer"}});
    w.element("summary", {}, fmt::format("a Halide {} program that rebuilds this case and prints its values next to "
                                         "halo's ({} lines)",
                                         h.shown_version, std::count(h.reproducer.begin(), h.reproducer.end(), '\n')));
    program_block(w, h.reproducer, "reproducer");
    w.close("details");
  }
  w.close("section");
}

void write_pictures(HtmlWriter& w, const Explanation& e, const std::string& title) {
  if (not_reached(w, e, "pictures", title)) return;
  open_section(w, "pictures", title);
  paragraph(w, "What the completed program did to each func, observed on the small-step machine. A tile is one "
               "iteration of the loops that compute_at placed the func's computation in (the whole run when it is "
               "computed at the root). The allocated region may exceed the computed one, and points may be written "
               "outside both the computed region and R(z): that is over-computation (split with round), and it is "
               "allowed as long as R(z) is right. Hover over a cell for its value.");
  write_layer_legend(w);
  const RunObservation& o = e.observation;
  if (!o.note.empty()) note(w, o.note);
  if (o.ran)
    for (const auto& f : o.funcs) write_iteration_space(w, f, e.window);
  w.close("section");
}

void write_buffers(HtmlWriter& w, const Explanation& e, const std::string& title) {
  if (not_reached(w, e, "buffers", title)) return;
  open_section(w, "buffers", title);
  paragraph(w, "Each func's values as last stored, darker for smaller values; for the output func, R(z) is outlined. "
               "A func whose allocation store_at (or compute_at alone) put inside a loop is allocated once per "
               "iteration: after its merged map (below it for 1-D funcs, beside it for 2-D ones), one map per "
               "allocation shows its box and what was stored in it, grey where nothing was.");
  w.open("p");
  w.open("label");
  w.empty("input", {{"type", "checkbox"}, {"checked", "checked"}, {"data-view", "per-allocation"}});
  w.text(" one map per allocation");
  w.close("label");
  w.close("p");
  const RunObservation& o = e.observation;
  if (!o.ran) note(w, o.note);
  if (o.ran)
    for (const auto& f : o.funcs) write_heat_map(w, f, e.window);
  w.close("section");
}

// The derivation as nested <details>, the first levels open. A judgment derived more than
// once is written in full the first time and referred to afterwards (the tree is a DAG).
class DerivationWriter {
 public:
  explicit DerivationWriter(HtmlWriter& w) : w_(w) {}
  static constexpr size_t kMaxNodes = 1500, kMaxDepth = 120;

  void node(const Derivation& d, size_t depth) {
    if (written_ >= kMaxNodes || depth > kMaxDepth) {
      truncated_ = true;
      return;
    }
    ++written_;
    auto seen = ids_.find(&d);
    if (seen != ids_.end()) {
      w_.open("div", {{"class", "leaf"}});
      w_.text(d.judgment + "  (derived above: ");
      w_.element("a", {{"href", fmt::format("#d{}", seen->second)}}, fmt::format("#{}", seen->second));
      w_.text(")");
      w_.close("div");
      return;
    }
    const int id = int(ids_.size()) + 1;
    ids_.emplace(&d, id);
    if (d.premises.empty()) {
      w_.open("div", {{"class", "leaf"}, {"id", fmt::format("d{}", id)}});
      w_.text(d.judgment);
      rule_link(w_, "2.6", d.rule);
      w_.close("div");
      return;
    }
    if (depth < 3)
      w_.open("details", {{"id", fmt::format("d{}", id)}, {"open", "open"}});
    else
      w_.open("details", {{"id", fmt::format("d{}", id)}});
    w_.open("summary");
    w_.text(d.judgment);
    rule_link(w_, "2.6", d.rule);
    w_.close("summary");
    for (const auto& p : d.premises) node(*p, depth + 1);
    w_.close("details");
  }
  bool truncated() const { return truncated_; }
  size_t written() const { return written_; }

 private:
  HtmlWriter& w_;
  std::unordered_map<const Derivation*, int> ids_;
  size_t written_ = 0;
  bool truncated_ = false;
};

void write_derivation(HtmlWriter& w, const Explanation& e, const std::string& title) {
  if (not_reached(w, e, "derivation", title)) return;
  open_section(w, "derivation", title);
  std::vector<std::string> cs;
  for (const auto& c : e.point) cs.push_back(c.to_string());
  paragraph(w, fmt::format("How the algorithm alone defines {}({}): each line is a judgment D; e ⇓ c, concluded by "
                           "the rule named after it from the judgments indented below it. Click a line to open or "
                           "close its premises. (Choose the point with --point.)",
                           e.output_func, fmt::join(cs, ", ")));
  if (!e.derivation) {
    note(w, e.derivation_note);
    w.close("section");
    return;
  }
  w.open("p");
  w.element("button", {{"type", "button"}, {"data-open-all", ".derivation-tree details"}, {"data-open", "true"}}, "expand all");
  w.text(" ");
  w.element("button", {{"type", "button"}, {"data-open-all", ".derivation-tree details"}, {"data-open", "false"}},
            "collapse all");
  w.close("p");
  w.open("div", {{"id", "derivation-tree"}, {"class", "derivation-tree"}});
  DerivationWriter dw(w);
  dw.node(*e.derivation, 0);
  w.close("div");
  if (dw.truncated())
    note(w, fmt::format("The derivation is larger than the page shows ({} judgments drawn); `halo eval --derivation` "
                        "prints it whole.",
                        dw.written()));
  w.close("section");
}

void trace_row(HtmlWriter& w, const TraceEntry& t) {
  w.open("tr");
  w.element("td", {}, std::to_string(t.step));
  w.open("td");
  rule_link(w, "2.8", t.rule);
  w.close("td");
  w.element("td", {{"class", "mono"}}, t.redex);
  w.element("td", {{"class", "mono reads"}}, t.reads);
  w.close("tr");
}

void write_trace(HtmlWriter& w, const Explanation& e, const std::string& title) {
  if (not_reached(w, e, "trace", title)) return;
  const StoreTrace& t = e.trace;
  open_section(w, "trace", title);
  paragraph(w, fmt::format("Every rule the machine applied from the start of the loop iteration that stores {} "
                           "to the [ASSN] that writes it, each at the redex its evaluation context designates "
                           "([REDUCE]), with what the step read: Σ(x) for [VAR], σ(f)[c̄] for [READ], the operands "
                           "and result of [EVAL], the bounds of a loop, a condition, and what it bound in Σ. Choose "
                           "the store with --trace-func and --trace-point.",
                           point_text(t.func, t.point)));
  if (!t.found) {
    note(w, t.note);
    w.close("section");
    return;
  }
  if (t.stores_to_point > 1)
    note(w, fmt::format("{} is stored {} times (update stages, or recomputation per tile); this is the last.",
                        point_text(t.func, t.point), t.stores_to_point));
  w.open("table", {{"class", "trace"}});
  w.open("tr");
  for (const char* h : {"step", "rule", "redex", "reads"}) w.element("th", {}, h);
  w.close("tr");
  for (const auto& entry : t.head) trace_row(w, entry);
  if (t.elided) {
    w.open("tr");
    w.element("td", {{"colspan", "4"}, {"class", "note"}}, fmt::format("… {} steps not shown …", t.elided));
    w.close("tr");
  }
  for (const auto& entry : t.tail) trace_row(w, entry);
  w.close("table");
  w.close("section");
}

void write_glossary(HtmlWriter& w, const Explanation&, const std::string& title) {
  open_section(w, "glossary", title);
  paragraph(w, "Every rule name on this page links here. docs/figures.md lists the same rules with the code and the "
               "tests of each.");
  for (const char* figure : {"2.6", "2.8"}) {
    w.element("h3", {}, std::string(figure) == "2.6" ? "Fig. 2.6: the big-step semantics of algorithms"
                                                     : "Fig. 2.8: the small-step semantics of Tgt");
    w.open("dl", {{"class", "glossary"}});
    for (const auto& r : kRules) {
      if (std::string(r.figure) != figure) continue;
      w.element("dt", {{"id", rule_anchor(r.figure, r.name)}}, fmt::format("[{}] (fig. {})", r.name, r.figure));
      w.open("dd");
      w.element("div", {{"class", "mono"}}, r.statement);
      w.element("div", {{"class", "note"}}, r.code);
      w.close("dd");
    }
    w.close("dl");
  }
  w.close("section");
}

bool has_halide(const Explanation& e) { return e.halide.has_value(); }

// The sections in page order, their titles without the number: render_sections numbers
// them as it emits them, so a section present only sometimes (Halide's) shifts the ones
// after it instead of leaving a gap or a "6b".
struct SectionSpec {
  const char* id;
  const char* title;
  void (*write)(HtmlWriter&, const Explanation&, const std::string& title);
  bool (*present)(const Explanation&) = nullptr;  // nullptr: always
};
const SectionSpec kSections[] = {
    {"algorithm", "The algorithm (§2.4)", write_algorithm},
    {"lowered", "L(P): the lowered program (fig. 2.9)", write_lowered},
    {"schedule", "The schedule, directive by directive (fig. 2.11)", write_schedule},
    {"bounds", "Bounds: the query B(T) (fig. 2.10a) and β0 (fig. 2.10b)", write_bounds},
    {"completed", "The completed program [Γ]T", write_completed},
    {"verdict", "The oracle's verdict (Theorems 2.1, 2.2)", write_verdict},
    {"halide", "The compiler's side: Halide (--target halide)", write_halide, has_halide},
    {"pictures", "Iteration spaces, tile by tile (figs. 2.1–2.3)", write_pictures},
    {"buffers", "Buffers as heat maps, merged and per allocation", write_buffers},
    {"derivation", "The big-step derivation of one output point (fig. 2.6)", write_derivation},
    {"trace", "The small-step trace of one store (fig. 2.8)", write_trace},
    {"glossary", "Glossary: the rules of figs. 2.6 and 2.8", write_glossary},
};

}  // namespace

std::vector<RenderedSection> render_sections(const Explanation& e) {
  // One writer for all the sections, cut after each: fresh_id's ids stay unique on the page.
  HtmlWriter w;
  std::vector<RenderedSection> out;
  int number = 0;
  for (const SectionSpec& spec : kSections) {
    if (spec.present && !spec.present(e)) continue;
    std::string title = fmt::format("{}. {}", ++number, spec.title);
    spec.write(w, e, title);
    out.push_back({spec.id, std::move(title), w.take()});
  }
  return out;
}

std::string_view page_style() { return kStyle; }
std::string_view page_script() { return kScript; }

std::string render_html(const Explanation& e) {
  const std::vector<RenderedSection> sections = render_sections(e);
  HtmlWriter w;
  w.trusted("<!DOCTYPE html>\n");
  w.open("html", {{"lang", "en"}});
  w.open("head");
  w.empty("meta", {{"charset", "utf-8"}});
  w.empty("meta", {{"name", "viewport"}, {"content", "width=device-width, initial-scale=1"}});
  w.element("title", {}, "halo explain: " + e.file);
  w.open("style");
  w.trusted(page_style());
  w.close("style");
  w.close("head");
  w.open("body", {{"data-loaded", "no-script"}});
  write_header(w, e, sections);
  for (const auto& sec : sections) w.trusted(sec.html);  // written by render_sections, through a writer
  w.open("script");
  w.trusted(page_script());
  // The whole page: every section rendered must be there (the ids are this file's own).
  std::string ids;
  for (const auto& sec : sections) ids += (ids.empty() ? "'" : ", '") + sec.id + "'";
  w.trusted(fmt::format("\ndocument.body.dataset.loaded = typeof window.haloExplainInit === 'function'\n"
                        "    ? window.haloExplainInit(document, [{}]) : 'error: haloExplainInit is not defined';\n",
                        ids));
  w.close("script");
  w.close("body");
  w.close("html");
  w.trusted("\n");
  return w.take();
}

}  // namespace halo::explain
