// `halo explain`: one self-contained HTML page that walks a student through everything halo
// does to one program and one input z, so that each rule and each directive of thesis
// chapter 2 can be seen, not only read: the algorithm (§2.4), L(P) (fig. 2.9), the program
// after each directive (fig. 2.11) with the change highlighted, the query B(T) and β0's
// answer per hole (fig. 2.10), the completed program, the oracle's verdict (Theorems 2.1,
// 2.2), pictures of each func's iteration space per tile (the model is figs. 2.1-2.3:
// requested, allocated, computed and written points), heat maps of the buffers, the
// big-step derivation of one output point (fig. 2.6) and the small-step trace of one store
// (fig. 2.8), every rule name linked to a glossary in the page.
//
// The work is split in two: explain_program() runs halo's own passes and the small-step
// machine (observed through TraceSink's memory events) and gathers what the page shows in
// an Explanation; render_html() (report/explain_html.cpp, pictures in explain_svg.cpp)
// only formats it. Tests check the gathered facts directly and the page in a browser.
#pragma once

#include "interp/derivation.hpp"
#include "interp/input.hpp"
#include "candidates/halide/halide_oracle.hpp"
#include "oracle/theorems.hpp"
#include "semantics/ast.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace halo::explain {

// A point of a func's domain and a box of them, as machine integers: pictures can only draw
// coordinates that fit (points beyond int64 are left out of them, and counted).
using Point = std::vector<int64_t>;
struct Box {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (min, len) per dimension
  bool contains(const Point& p) const;
};

// One computation of a func: the whole run when the func is computed once, or one
// iteration of the loops enclosing its `label f` when compute_at put it inside them.
struct TileObservation {
  std::string label;              // "xo = 1": those loops' variables; empty at the root
  std::optional<Box> allocated;   // σ(f)'s bounds while this tile ran ([ALLOC])
  // Which [ALLOC] of f that was (1: the first of the run; 0: none seen). Tiles share one
  // when store_at keeps the buffer outside the loops compute_at puts f in.
  uint64_t allocation = 0;
  // ?cpu f (the last stage's compute hole, the region consumers may rely on) evaluated at
  // `label f` for this tile. A dimension without such a hole has no entry.
  std::vector<std::optional<std::pair<int64_t, int64_t>>> computed;
  std::map<Point, std::pair<Value, uint32_t>> written;  // point → last value stored, how many stores
  std::set<Point> read;                                 // points read from this tile's buffer
};

struct FuncObservation {
  std::string func;
  std::vector<std::string> vars;
  // The dimensions the pictures draw across and down (`--slice`); the others are projected.
  std::array<size_t, 2> axes{0, 1};
  bool is_output = false;
  std::vector<std::string> tile_loops;   // the loops enclosing `label f`, outermost first
  std::vector<TileObservation> tiles;    // at most ExplainOptions::max_tiles
  uint64_t tiles_dropped = 0;            // tiles beyond the limit (counted, not kept)
  uint64_t allocations = 0;              // [ALLOC]s of f in the whole run
  std::map<Point, Value> last_values;    // every point's last stored value (the heat map)
  uint64_t stores = 0, loads = 0, points_too_large = 0;
  uint64_t points_not_kept = 0;  // accesses to points beyond ExplainOptions::max_points (counted, not kept)
};

// What β0's completion did when run on the small-step machine, observed store by store.
struct RunObservation {
  bool ran = false;
  std::string drawn_by = "β0";  // whose completion ran: β1's when β0 gave up
  std::string note;  // why there is nothing to draw, or what limited the drawing
  std::vector<FuncObservation> funcs;  // in definition order
};

struct TraceEntry {
  uint64_t step = 0;  // the rule application's number in the whole run
  std::string rule;   // as fig. 2.8 names it
  std::string redex;
  // What the step read and bound, in the rule's terms: Σ(x) for [VAR] ("x = 3"), σ(f)[c̄]
  // for [READ] ("g[3] = 10"), the operands and result of [EVAL], min and len for
  // [FOR-ITER], the condition for [IF-T]/[IF-F], Σ's new binding for [LET], ... Empty for
  // [NOP] and [END], which read nothing.
  std::string reads;
};

// The steps of one execution of a store `f^ℓ[p̄] <- e`: from the FOR-ITER that began the
// iteration of f's innermost loop around it to the ASSN that wrote f(p̄). When the same
// point is stored more than once (update stages), the last store is shown.
struct StoreTrace {
  std::string func;
  Point point;
  bool found = false;
  uint64_t stores_to_point = 0;
  std::vector<TraceEntry> head, tail;  // the segment, with `elided` entries between them
  uint64_t elided = 0;
  std::string note;
};

struct ScheduleStep {
  std::string title;    // "L(P): ..." or the directive, as written
  std::string program;  // print_tgt
};

struct HoleAnswer {
  std::string hole;        // ?cpu<g, *, 0, x>.min
  std::string expression;  // β0's expression for it, as β0 built it (the raw form)
  std::string simplified;  // the same expression through bounds/simplify (what the page shows first)
  std::string value;       // its value under z, or what it still depends on (loop variables)
};

// The compiler's side of the same case (`halo explain --target halide`): what each Halide
// version made of it, and for the version shown (the newest that fails, else the newest)
// the region it realized for each func next to the one halo's completion allocated, its
// memory check and the standalone C++ reproducer.
struct HalideRegion {
  std::string func;
  std::optional<Box> halide;  // hull of Halide's realizations (none: never realized, e.g. inlined)
  std::optional<Box> halo;    // hull of what halo's completion allocated (none: not run or inlined)
};
struct HalideSide {
  struct Row {
    std::string version, outcome, detail;
    bool finding = false;
  };
  std::vector<Row> versions;
  std::string shown_version, shown_outcome;
  std::vector<std::string> notes;  // readings the translation took
  bool memcheck_ran = false;
  uint64_t loads = 0, stores = 0, out_of_bounds = 0, uninitialized = 0, unjudged_lanes = 0;
  std::vector<std::string> memcheck_examples;
  std::vector<HalideRegion> regions;
  std::vector<halide::PointMismatch> mismatches;
  std::string reproducer, reproducer_note;
  std::string note;  // why there is no Halide side (a limit)
};

struct Explanation {
  std::string file, source;  // the .halo file as given
  std::string output_func;
  std::vector<std::string> output_vars;
  std::vector<std::pair<std::string, Value>> params;
  std::vector<Interval> window;  // R(z)
  std::vector<ScheduleStep> steps;
  // A directive whose rewrite rejects it (§2.8): the steps before it are shown, then this
  // error, and nothing after the schedule is gathered (`halo explain` writes the page and
  // exits 2 with the error).
  std::vector<Diagnostic> schedule_rejected;
  std::string query;
  bool beta0_ok = false;
  std::string beta0_reason;
  std::vector<std::pair<std::string, std::string>> beta0_tuples;  // ?mem<g> → "x ∈ [min, len]; ..."
  std::vector<HoleAnswer> filling;
  std::string completed;
  std::optional<OracleVerdict> verdict;
  std::string verdict_note;  // why the oracle stopped (a limit); the verdict's detail names B(T)'s violated conjunct
  RunObservation observation;
  std::vector<Value> point;  // the output point whose derivation is shown
  DerivationPtr derivation;
  std::string derivation_note;
  StoreTrace trace;
  std::optional<HalideSide> halide;
  // The realize section of the file, when the input above (--param, --window) differs from it.
  std::string realize_overridden;
};

struct ExplainOptions {
  InputOverrides input;
  std::optional<std::vector<Value>> point;  // default: the first point of R(z)
  std::string trace_func;                   // default: the output func
  std::optional<std::vector<Value>> trace_point;  // default: `point` (output) or the func's first store
  Limits limits = default_limits();
  size_t trace_entries = 400;  // the longest trace shown (head and tail kept)
  size_t max_tiles = 32;       // tiles kept per func
  size_t max_points = 100'000; // distinct points kept per func (memory, for large windows)
  // `--slice A,B`: the dimensions drawn across and down in the pictures of every func that
  // has both (default: the first two).
  std::optional<std::array<size_t, 2>> slice;
  // `--target halide[@M|@all]`: the Halide versions to run the case on (none: halo alone).
  std::vector<halide::HalideOptions> halide;

  // Explanations are for programs small enough to look at: a lower step budget than
  // `halo run`'s, so a large window stops early with a message naming --max-steps.
  static Limits default_limits() {
    Limits l;
    l.max_steps = 20'000'000;
    return l;
  }
};

// Runs every pass on a valid program (check_program must have accepted it). Throws
// InputError for an option that does not fit the program (a point of the wrong dimension,
// an unknown func); a resource limit met in one part leaves a note in that part.
Explanation explain_program(const Program& prog, const std::string& source, const ExplainOptions& opts);

// The page: one HTML document with inline CSS, SVG and script (no network access).
std::string render_html(const Explanation& e);

// One section of the page, rendered. The explain page and the playground (playground/)
// show the same sections through these functions: render_html() puts them in one document
// behind a table of contents made from their titles; the playground puts each in a pane.
struct RenderedSection {
  std::string id;     // "bounds": the element's id and the table of contents' anchor
  std::string title;  // "4. Bounds: B(T) and β0 (§2.7)", exactly as its heading reads
  std::string html;   // the whole <section> element
};
std::vector<RenderedSection> render_sections(const Explanation& e);
// The style sheet and the script every page that shows sections includes. The script
// defines window.haloExplainInit(root): it wires the switches and toggles found under
// root and returns "ok" or what is missing; the explain page calls it on load (and sets
// body[data-loaded] from it), the playground after each render.
std::string_view page_style();
std::string_view page_script();

// A line diff (longest common subsequence), for showing what a directive changed.
enum class DiffKind : uint8_t { Same, Added, Removed };
struct DiffLine {
  DiffKind kind;
  std::string text;
};
std::vector<DiffLine> line_diff(const std::string& before, const std::string& after);

// Text → HTML text or attribute value (& < > " ' escaped). Every string that reaches the
// page goes through it exactly once (HtmlWriter in explain_html.cpp).
std::string escape_html(std::string_view s);

}  // namespace halo::explain
