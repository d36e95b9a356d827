// The pictures of `halo explain` (report/explain.hpp), drawn as inline SVG: per func, the
// iteration space tile by tile in the manner of thesis figs. 2.1-2.3 — the allocated
// region, the computed region (?cpu as evaluated for the tile), the points actually
// written and the points requested of it — and the buffer as heat maps, merged and one per
// allocation (compute_at makes one per tile). A 1-D func draws
// one row per tile, so the overlap of adjacent tiles (g(3) in fig. 2.2) lines up; a 2-D
// func draws one grid per tile; more dimensions are projected onto the first two.
#include "report/explain_render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <limits>

namespace halo::explain {

std::string point_text(const std::string& func, const Point& p) {
  return fmt::format("{}({})", func, fmt::join(p, ", "));
}

std::string interval_text(const Value& min, const Value& len) {
  if (len.is_int() && len.sign() <= 0) return fmt::format("empty (min {}, len {})", min.to_string(), len.to_string());
  Value last = sub(add(min, len), Value(int64_t{1}));
  return fmt::format("{} .. {} (min {}, len {})", min.to_string(), last.to_string(), min.to_string(), len.to_string());
}

std::string interval_text(std::pair<int64_t, int64_t> i) { return interval_text(Value(i.first), Value(i.second)); }

std::string box_text(const Box& b) {
  std::vector<std::string> parts;
  for (const auto& d : b.dims) parts.push_back(interval_text(d));
  return parts.empty() ? "a single point" : fmt::format("{}", fmt::join(parts, " × "));
}

namespace {

constexpr int64_t kMaxCols = 48, kMaxRows = 32;
// A picture draws one rectangle per cell, however many points of more than two dimensions
// project onto it (8 funcs over a 48×32×70 window once made a 274 MB page of 2.3 million
// rectangles), and the tiles of one func draw at most this many cells together: beyond
// it, the remaining tiles are counted in a note, not drawn.
constexpr int64_t kMaxCellsPerFunc = 12'000;

// An inclusive range of coordinates along one axis of a picture.
struct Range {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  void add(int64_t v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  void add_interval(int64_t min, int64_t len) {
    if (len <= 0) return;
    add(min);
    int64_t last;  // saturates at INT64_MAX (a window (9223372036854775806, 2) ends there)
    add(__builtin_add_overflow(min, std::min<int64_t>(len, INT64_MAX / 4) - 1, &last) ? INT64_MAX : last);
  }
  bool empty() const { return lo > hi; }
  // Saturating: a range from 0 to INT64_MAX has more coordinates than int64 holds, and a
  // wrapped size escaped clip() (the axis then drew labels without end).
  int64_t size() const {
    if (empty()) return 0;
    __int128 n = __int128(hi) - __int128(lo) + 1;
    return n > INT64_MAX ? INT64_MAX : int64_t(n);
  }
  // Keeps at most n coordinates; says whether any were cut.
  bool clip(int64_t n) {
    if (size() <= n) return false;
    hi = lo + n - 1;
    return true;
  }
};

// Coordinates of a picture: dimension 0 across, dimension 1 down (0 for 1-D funcs).
struct Cell {
  int64_t x = 0, y = 0;
  auto operator<=>(const Cell&) const = default;
};
// The point as drawn: dimension axes[0] across, axes[1] down (`--slice`), the others projected.
Cell project(const Point& p, const std::array<size_t, 2>& axes) {
  return {axes[0] < p.size() ? p[axes[0]] : 0, axes[1] < p.size() ? p[axes[1]] : 0};
}
std::pair<int64_t, int64_t> box_dim(const Box& b, size_t d) { return d < b.dims.size() ? b.dims[d] : std::pair<int64_t, int64_t>{0, 1}; }

std::string num(int64_t v) { return std::to_string(v); }

// Where a picture's cells are drawn.
struct Geometry {
  Range rx, ry;
  int64_t ox = 0, oy = 0, cell = 28;
  int64_t px(int64_t x) const { return ox + (x - rx.lo) * cell; }
  int64_t py(int64_t y) const { return oy + (y - ry.lo) * cell; }
  bool visible(Cell c) const { return c.x >= rx.lo && c.x <= rx.hi && c.y >= ry.lo && c.y <= ry.hi; }
};

// The points of `points` as a picture draws them: for each visible cell, in the order the
// cells are first met, the last point projected onto it (the one drawn on top) and how many
// points the projection put there.
template <class Points, class PointOf>
std::vector<std::pair<typename Points::const_iterator, size_t>> by_cell(const Points& points, const Geometry& g,
                                                                       const std::array<size_t, 2>& axes,
                                                                       PointOf point_of) {
  std::vector<std::pair<typename Points::const_iterator, size_t>> drawn;
  std::map<Cell, size_t> slot;
  for (auto it = points.begin(); it != points.end(); ++it) {
    Cell c = project(point_of(*it), axes);
    if (!g.visible(c)) continue;
    auto [at, fresh] = slot.emplace(c, drawn.size());
    if (fresh) drawn.emplace_back(it, 1);
    else drawn[at->second] = {it, drawn[at->second].second + 1};
  }
  return drawn;
}

// "f(1, 2, 69)", and how many more points share its cell.
std::string cell_point_text(const std::string& func, const Point& p, size_t points_in_cell) {
  if (points_in_cell <= 1) return point_text(func, p);
  return fmt::format("{} and {} more point{} projected onto this cell", point_text(func, p), points_in_cell - 1,
                     points_in_cell == 2 ? "" : "s");
}

// One rectangle per box clipped to the picture (nothing when they do not meet).
void box_rect(HtmlWriter& w, const Geometry& g, std::pair<int64_t, int64_t> bx, std::pair<int64_t, int64_t> by,
              const std::string& cls, const std::string& tooltip) {
  if (bx.second <= 0 || by.second <= 0) return;
  // The last cell of a box, clamped at INT64_MAX: a box (9223372036854775806, 3) ends past it.
  auto last = [](std::pair<int64_t, int64_t> b) {
    int64_t end;
    return __builtin_add_overflow(b.first, b.second - 1, &end) ? INT64_MAX : end;
  };
  int64_t x0 = std::max(bx.first, g.rx.lo), x1 = std::min(last(bx), g.rx.hi);
  int64_t y0 = std::max(by.first, g.ry.lo), y1 = std::min(last(by), g.ry.hi);
  if (x0 > x1 || y0 > y1) return;
  w.open("rect", {{"class", cls}, {"x", num(g.px(x0))}, {"y", num(g.py(y0))}, {"width", num((x1 - x0 + 1) * g.cell)},
                  {"height", num((y1 - y0 + 1) * g.cell)}});
  w.element("title", {}, tooltip);
  w.close("rect");
}


// The grid lines of a picture, as one pattern (cheaper than a rectangle per cell).
void grid_background(HtmlWriter& w, const Geometry& g, const std::string& id) {
  w.open("defs");
  w.open("pattern", {{"id", id}, {"width", num(g.cell)}, {"height", num(g.cell)}, {"patternUnits", "userSpaceOnUse"},
                     {"x", num(g.ox)}, {"y", num(g.oy)}});
  w.empty("path", {{"d", fmt::format("M {} 0 L 0 0 0 {}", g.cell, g.cell)}, {"class", "gridline"}});
  w.close("pattern");
  w.close("defs");
  w.empty("rect", {{"x", num(g.ox)}, {"y", num(g.oy)}, {"width", num(g.rx.size() * g.cell)},
                   {"height", num(g.ry.size() * g.cell)}, {"fill", "url(#" + id + ")"}, {"class", "frame"}});
}

// Calls f(v) for lo, lo + step, ... up to hi, without overflowing when hi is INT64_MAX
// (`v += step` past it wrapped and never ended: a window (9223372036854775806, 2)).
template <class F>
void each_label(int64_t lo, int64_t hi, uint64_t step, F f) {
  if (hi < lo) return;
  uint64_t span = uint64_t(hi) - uint64_t(lo);
  for (uint64_t k = 0;; k += step) {
    f(int64_t(uint64_t(lo) + k));
    if (span - k < step) break;
  }
}

void axis_labels(HtmlWriter& w, const Geometry& g, bool with_y) {
  const uint64_t step = g.cell >= 20 ? 1 : 2;
  each_label(g.rx.lo, g.rx.hi, step, [&](int64_t x) {
    w.element("text", {{"class", "axis"}, {"x", num(g.px(x) + g.cell / 2)}, {"y", num(g.oy - 4)}, {"text-anchor", "middle"}},
              num(x));
  });
  if (!with_y) return;
  each_label(g.ry.lo, g.ry.hi, step, [&](int64_t y) {
    w.element("text", {{"class", "axis"}, {"x", num(g.ox - 4)}, {"y", num(g.py(y) + g.cell / 2 + 4)}, {"text-anchor", "end"}},
              num(y));
  });
}

// A value small enough to print inside a cell of this size, or "".
std::string cell_label(const Value& v, int64_t cell) {
  std::string s = v.is_error() ? "ε" : v.to_string();
  return int64_t(s.size()) * 7 <= cell - 3 ? s : "";
}

// The layers of one tile (see the legend): allocated, written, computed, requested.
void tile_layers(HtmlWriter& w, const Geometry& g, const FuncObservation& f, const TileObservation& t,
                 const std::vector<Interval>& window, const std::map<Point, int>& tiles_writing) {
  if (t.allocated)
    box_rect(w, g, box_dim(*t.allocated, f.axes[0]), box_dim(*t.allocated, f.axes[1]), "layer allocated",
             "allocated " + box_text(*t.allocated));
  auto point_of_entry = [](const auto& entry) -> const Point& { return entry.first; };
  auto written = by_cell(t.written, g, f.axes, point_of_entry);
  for (const auto& [entry, n] : written) {
    const auto& [p, wv] = *entry;
    Cell c = project(p, f.axes);
    auto it = tiles_writing.find(p);
    bool again = it != tiles_writing.end() && it->second > 1;
    w.open("rect", {{"class", again ? "layer written recomputed" : "layer written"}, {"x", num(g.px(c.x) + 1)},
                    {"y", num(g.py(c.y) + 1)}, {"width", num(g.cell - 2)}, {"height", num(g.cell - 2)}});
    w.element("title", {},
              fmt::format("{} = {} (stored {}×{})", cell_point_text(f.func, p, n), wv.first.to_string(), wv.second,
                          again ? fmt::format("; computed in {} tiles", it->second) : ""));
    w.close("rect");
  }
  bool has_computed = !t.computed.empty() && std::all_of(t.computed.begin(), t.computed.end(), [](const auto& d) { return d.has_value(); });
  if (has_computed) {
    auto dim = [&](size_t d) {
      d = f.axes[d];
      return d < t.computed.size() ? *t.computed[d] : std::pair<int64_t, int64_t>{0, 1};
    };
    Box cb;
    for (const auto& d : t.computed) cb.dims.push_back(*d);
    box_rect(w, g, dim(0), dim(1), "layer computed", "computed (?cpu) " + box_text(cb));
  }
  if (f.is_output) {
    Box r;
    for (const auto& iv : window)
      if (auto m = iv.min.as_int64(), l = iv.len.as_int64(); m && l) r.dims.emplace_back(*m, *l);
    if (r.dims.size() == window.size())
      box_rect(w, g, box_dim(r, f.axes[0]), box_dim(r, f.axes[1]), "layer requested window", "requested: R(z) = " + box_text(r));
  }
  for (const auto& [entry, n] : by_cell(t.read, g, f.axes, [](const Point& p) -> const Point& { return p; })) {
    Cell c = project(*entry, f.axes);
    w.open("rect", {{"class", "layer requested"}, {"x", num(g.px(c.x) + g.cell / 4)}, {"y", num(g.py(c.y) + g.cell - 6)},
                    {"width", num(g.cell / 2)}, {"height", "4"}});
    w.element("title", {}, "read: " + cell_point_text(f.func, *entry, n));
    w.close("rect");
  }
  // The values last, above every marker and outline, so that none hides a digit. A cell
  // onto which several points project shows none: they need not agree.
  for (const auto& [entry, n] : written) {
    const auto& [p, wv] = *entry;
    Cell c = project(p, f.axes);
    std::string label = n == 1 ? cell_label(wv.first, g.cell) : "";
    if (!label.empty())
      w.element("text", {{"class", "layer written value"}, {"x", num(g.px(c.x) + g.cell / 2)},
                         {"y", num(g.py(c.y) + g.cell / 2 + 3)}, {"text-anchor", "middle"}},
                label);
  }
}

// The extent of every picture of a func, so that its tiles line up.
std::pair<Range, Range> func_extent(const FuncObservation& f, const std::vector<Interval>& window) {
  Range rx, ry;
  auto add_box = [&](const Box& b) {
    auto [xm, xl] = box_dim(b, f.axes[0]);
    auto [ym, yl] = box_dim(b, f.axes[1]);
    if (xl > 0 && yl > 0) {
      rx.add_interval(xm, xl);
      ry.add_interval(ym, yl);
    }
  };
  for (const auto& t : f.tiles) {
    if (t.allocated) add_box(*t.allocated);
    if (!t.computed.empty() && std::all_of(t.computed.begin(), t.computed.end(), [](const auto& d) { return d.has_value(); })) {
      Box b;
      for (const auto& d : t.computed) b.dims.push_back(*d);
      add_box(b);
    }
    for (const auto& [p, v] : t.written) rx.add(project(p, f.axes).x), ry.add(project(p, f.axes).y);
    for (const auto& p : t.read) rx.add(project(p, f.axes).x), ry.add(project(p, f.axes).y);
  }
  if (f.is_output) {
    Box r;
    for (const auto& iv : window)
      if (auto m = iv.min.as_int64(), l = iv.len.as_int64(); m && l) r.dims.emplace_back(*m, *l);
    add_box(r);
  }
  for (const auto& [p, v] : f.last_values) rx.add(project(p, f.axes).x), ry.add(project(p, f.axes).y);
  if (rx.empty()) rx.add(0);
  if (ry.empty()) ry.add(0);
  return {rx, ry};
}

void picture_notes(HtmlWriter& w, const FuncObservation& f, bool clipped, bool about_tiles, size_t tiles_not_drawn = 0) {
  std::vector<std::string> notes;
  if (f.vars.size() > 2)
    notes.push_back(fmt::format("{} has {} dimensions: the picture draws {} across and {} down and projects the others "
                                "onto them (choose two with --slice A,B).",
                                f.func, f.vars.size(), f.vars[f.axes[0]], f.vars[f.axes[1]]));
  if (clipped) notes.push_back(fmt::format("Only the first {} × {} coordinates are drawn.", kMaxCols, kMaxRows));
  if (about_tiles && f.tiles_dropped) notes.push_back(fmt::format("{} more tiles ran; only the first {} are drawn.", f.tiles_dropped, f.tiles.size()));
  if (tiles_not_drawn)
    notes.push_back(fmt::format("The last {} of the tiles kept are not drawn: the page draws at most {} cells of each "
                                "func.",
                                tiles_not_drawn, kMaxCellsPerFunc));
  if (about_tiles && f.points_not_kept)
    notes.push_back(fmt::format("{} accesses of {} went to points beyond those the report keeps: counted, not drawn.",
                                f.points_not_kept, f.func));
  if (about_tiles && f.points_too_large) notes.push_back(fmt::format("{} accesses had coordinates beyond 64 bits and are not drawn.", f.points_too_large));
  for (const auto& n : notes) w.element("p", {{"class", "note"}}, n);
}

// ---------------------------------------------------------------- heat-map colours
std::array<int, 3> ramp(double t) {
  static const std::array<std::array<int, 3>, 5> stops = {
      {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};  // viridis
  t = std::clamp(t, 0.0, 1.0) * (stops.size() - 1);
  size_t i = std::min<size_t>(size_t(t), stops.size() - 2);
  double u = t - double(i);
  std::array<int, 3> c{};
  for (int k = 0; k < 3; ++k) c[k] = int(std::lround(stops[i][k] * (1 - u) + stops[i + 1][k] * u));
  return c;
}

double as_double(const Value& v) {
  if (auto i = v.as_int64()) return double(*i);
  if (v.is_float()) {  // NaN shades as zero; infinities saturate like huge integers
    double d = v.as_double();
    const double limit = std::numeric_limits<double>::max() / 4;
    return std::isnan(d) ? 0.0 : std::clamp(d, -limit, limit);
  }
  // A big integer: its magnitude is what the colour needs. Beyond a double's range the
  // colour saturates; a quarter of the largest double keeps differences of two finite.
  const double limit = std::numeric_limits<double>::max() / 4;
  std::string text = v.to_string();
  try {
    return std::clamp(std::stod(text), -limit, limit);
  } catch (const std::out_of_range&) {
    return text[0] == '-' ? -limit : limit;
  }
}

}  // namespace

void write_layer_legend(HtmlWriter& w) {
  w.open("div", {{"class", "legend"}});
  struct Item {
    const char* layer;
    const char* text;
  };
  for (const Item& it : {Item{"allocated", "allocated region (σ(f)'s bounds, [ALLOC])"},
                         Item{"computed", "computed region (?cpu f as β0 filled it, evaluated for the tile)"},
                         Item{"written", "points actually written ([ASSN]); a double border: written in more than one tile"},
                         Item{"requested", "requested: R(z) for the output func, points read ([READ]) for the others"}}) {
    w.open("label", {{"class", "legend-item"}});
    w.empty("input", {{"type", "checkbox"}, {"checked", "checked"}, {"data-layer", it.layer}});
    w.open("svg", {{"width", "22"}, {"height", "16"}, {"class", "swatch"}});
    w.empty("rect", {{"class", std::string("layer ") + it.layer}, {"x", "2"}, {"y", "2"}, {"width", "18"}, {"height", "12"}});
    w.close("svg");
    w.text(it.text);
    w.close("label");
  }
  w.close("div");
}

void write_iteration_space(HtmlWriter& w, const FuncObservation& f, const std::vector<Interval>& window) {
  auto [rx, ry] = func_extent(f, window);
  bool clipped = rx.clip(kMaxCols);
  clipped = ry.clip(kMaxRows) || clipped;
  std::map<Point, int> tiles_writing;
  for (const auto& t : f.tiles)
    for (const auto& [p, v] : t.written) ++tiles_writing[p];
  // The tiles drawn: the first ones, as many as the page's cells allow (at least one).
  size_t tiles_drawn = 0;
  for (int64_t cells = 0; tiles_drawn < f.tiles.size(); ++tiles_drawn) {
    const TileObservation& t = f.tiles[tiles_drawn];
    int64_t cost = std::min<int64_t>(int64_t(t.written.size() + t.read.size()), 2 * rx.size() * ry.size()) + 1;
    if (tiles_drawn > 0 && cells + cost > kMaxCellsPerFunc) break;
    cells += cost;
  }

  w.open("figure", {{"class", "func-space"}, {"data-func", f.func}, {"id", "space-" + f.func}});
  w.open("figcaption");
  w.element("strong", {}, fmt::format("{}({})", f.func, fmt::join(f.vars, ", ")));
  w.text(fmt::format(": {} tile{}; {} stores, {} loads", f.tiles.size() + f.tiles_dropped,
                     f.tiles.size() + f.tiles_dropped == 1 ? "" : "s", f.stores, f.loads));
  if (!f.tile_loops.empty()) w.text(fmt::format("; computed inside {}", fmt::join(f.tile_loops, " › ")));
  w.close("figcaption");
  picture_notes(w, f, clipped, true, f.tiles.size() - tiles_drawn);
  if (f.tiles.empty()) {
    w.element("p", {{"class", "note"}}, f.func + " was never allocated, written or read in this run.");
    w.close("figure");
    return;
  }

  if (f.vars.size() <= 1) {
    // One row per tile, as in figs. 2.2 and 2.3.
    Geometry g{rx, ry, 130, 22, rx.size() > 24 ? 20 : 30};
    const int64_t row = g.cell + 12;
    const int64_t width = g.ox + rx.size() * g.cell + 10, height = g.oy + int64_t(tiles_drawn) * row + 4;
    w.open("svg", {{"class", "iteration-space"}, {"width", num(width)}, {"height", num(height)},
                   {"viewBox", fmt::format("0 0 {} {}", width, height)}, {"role", "img"},
                   {"aria-label", "iteration space of " + f.func}});
    axis_labels(w, g, false);
    for (size_t i = 0; i < tiles_drawn; ++i) {
      Geometry gi = g;
      gi.oy = g.oy + int64_t(i) * row;
      const TileObservation& t = f.tiles[i];
      w.open("g", {{"class", "tile"}, {"data-tile", num(int64_t(i))}});
      w.element("text", {{"class", "tile-label"}, {"x", "4"}, {"y", num(gi.oy + gi.cell / 2 + 4)}},
                t.label.empty() ? "whole run" : t.label);
      grid_background(w, gi, w.fresh_id("grid-" + f.func));
      tile_layers(w, gi, f, t, window, tiles_writing);
      w.close("g");
    }
    w.close("svg");
  } else {
    // One grid per tile: x across, y down.
    const int64_t cell = std::max<int64_t>(12, std::min<int64_t>(26, 360 / std::max(rx.size(), ry.size())));
    w.open("div", {{"class", "tiles"}});
    for (size_t i = 0; i < tiles_drawn; ++i) {
      const TileObservation& t = f.tiles[i];
      Geometry g{rx, ry, 34, 34, cell};
      const int64_t width = g.ox + rx.size() * cell + 6, height = g.oy + ry.size() * cell + 6;
      w.open("svg", {{"class", "iteration-space"}, {"width", num(width)}, {"height", num(height)},
                     {"viewBox", fmt::format("0 0 {} {}", width, height)}, {"data-tile", num(int64_t(i))},
                     {"role", "img"}, {"aria-label", "iteration space of " + f.func}});
      w.element("text", {{"class", "tile-label"}, {"x", "2"}, {"y", "12"}}, t.label.empty() ? "whole run" : t.label);
      axis_labels(w, g, true);
      grid_background(w, g, w.fresh_id("grid-" + f.func));
      tile_layers(w, g, f, t, window, tiles_writing);
      w.close("svg");
    }
    w.close("div");
  }
  w.close("figure");
}

namespace {

// The colours of every heat map of one func: one scale for the merged map and each tile's,
// so that a colour means the same value in all of them.
struct Scale {
  double lo = INFINITY, hi = -INFINITY;
  void add(const Value& v) {
    if (v.is_int()) lo = std::min(lo, as_double(v)), hi = std::max(hi, as_double(v));
  }
  // The fill, and whether a label on it should be light.
  std::pair<std::string, bool> shade(const Value& v) const {
    if (!v.is_int()) return {"#bbbbbb", false};
    double t = hi > lo ? (as_double(v) - lo) / (hi - lo) : 0.5;
    auto rgb = ramp(t);
    return {fmt::format("rgb({},{},{})", rgb[0], rgb[1], rgb[2]), t < 0.6};
  }
};

// One heat map on g: `values` (point → entry, value_of(entry) its value). `allocated`, for a
// tile's map, is shaded under the values: cells the allocation held that the tile did not
// write. `view` ("merged", or the tile's index) tells the maps of a func apart.
template <class Values, class ValueOf>
void heat_svg(HtmlWriter& w, const FuncObservation& f, const Geometry& g, const Values& values, ValueOf value_of,
              const Scale& scale, const std::string& cls, const std::string& view, const std::string& label,
              const std::optional<Box>& allocated, const std::vector<Interval>* window) {
  const int64_t width = g.ox + g.rx.size() * g.cell + 6, height = g.oy + g.ry.size() * g.cell + 6;
  w.open("svg", {{"class", cls}, {"data-view", view}, {"width", num(width)}, {"height", num(height)},
                 {"viewBox", fmt::format("0 0 {} {}", width, height)}, {"role", "img"}, {"aria-label", label}});
  axis_labels(w, g, f.vars.size() > 1);
  if (allocated)
    box_rect(w, g, box_dim(*allocated, f.axes[0]), box_dim(*allocated, f.axes[1]), "heat-allocated",
             "allocated " + box_text(*allocated) + "; a cell left grey was not written in this tile (it holds ε_mem)");
  auto heat = by_cell(values, g, f.axes, [](const auto& entry) -> const Point& { return entry.first; });
  for (const auto& [entry, n] : heat) {
    const Point& p = entry->first;
    const Value& v = value_of(*entry);
    Cell c = project(p, f.axes);
    w.open("rect", {{"class", v.is_error() ? "heat-cell error" : "heat-cell"}, {"x", num(g.px(c.x))},
                    {"y", num(g.py(c.y))}, {"width", num(g.cell)}, {"height", num(g.cell)},
                    {"fill", scale.shade(v).first}});
    w.element("title", {}, cell_point_text(f.func, p, n) + " = " + v.to_string());
    w.close("rect");
  }
  if (window) {
    Box r;
    for (const auto& iv : *window)
      if (auto m = iv.min.as_int64(), l = iv.len.as_int64(); m && l) r.dims.emplace_back(*m, *l);
    if (r.dims.size() == window->size())
      box_rect(w, g, box_dim(r, f.axes[0]), box_dim(r, f.axes[1]), "window-outline", "R(z) = " + box_text(r));
  }
  // The values last, above the outline of R(z), so that it hides no digit.
  for (const auto& [entry, n] : heat) {
    const Value& v = value_of(*entry);
    Cell c = project(entry->first, f.axes);
    std::string text = n == 1 ? cell_label(v, g.cell) : "";
    if (!text.empty())
      w.element("text", {{"class", scale.shade(v).second ? "heat-value dark" : "heat-value"},
                         {"x", num(g.px(c.x) + g.cell / 2)}, {"y", num(g.py(c.y) + g.cell / 2 + 4)},
                         {"text-anchor", "middle"}},
                text);
  }
  w.close("svg");
}

// One allocation of a func as its heat map draws it: the box [ALLOC] gave and what the
// tiles kept that wrote into it stored there (a later tile's value over an earlier one's).
struct AllocationView {
  uint64_t index = 0;
  std::optional<Box> box;
  std::vector<const TileObservation*> tiles;
  std::map<Point, Value> written;
};

std::vector<AllocationView> allocation_views(const FuncObservation& f) {
  std::vector<AllocationView> views;
  for (const auto& t : f.tiles) {
    if (views.empty() || views.back().index != t.allocation) views.push_back({t.allocation, t.allocated, {}, {}});
    views.back().tiles.push_back(&t);
    for (const auto& [p, wv] : t.written) views.back().written[p] = wv.first;
  }
  return views;
}

// "xo = 0", "xo = 0 … xo = 3 (4 tiles)", or the allocation's number when it ran at the root.
std::string allocation_name(const AllocationView& a) {
  const std::string& first = a.tiles.front()->label;
  if (first.empty()) return fmt::format("allocation {}", a.index);
  if (a.tiles.size() == 1) return first;
  return fmt::format("{} … {} ({} tiles)", first, a.tiles.back()->label, a.tiles.size());
}

// The cells of a map: dimension axes[0] across, axes[1] down, at most kMaxCols × kMaxRows.
Geometry heat_geometry(const FuncObservation& f, Range rx, Range ry, bool& clipped) {
  clipped = rx.clip(kMaxCols);
  clipped = ry.clip(kMaxRows) || clipped;
  const int64_t cell = f.vars.size() <= 1 ? (rx.size() > 24 ? 20 : 30)
                                          : std::max<int64_t>(12, std::min<int64_t>(26, 360 / std::max(rx.size(), ry.size())));
  return Geometry{rx, ry, f.vars.size() <= 1 ? 10 : 34, 22, cell};
}

}  // namespace

// The merged map (each point's last value, whichever allocation held it) and, when the
// func was allocated more than once, one map per allocation: its box and what was stored
// in it. That is where compute_at shows — g's buffer in fig. 2.2 is two buffers of four
// points, each filled anew, not one of seven — and the merged map alone hid it. A 1-D
// func's maps share their coordinates, so that the allocations line up as the tiles of
// its iteration space do; a 2-D func's allocation map covers that allocation alone.
void write_heat_map(HtmlWriter& w, const FuncObservation& f, const std::vector<Interval>& window) {
  const bool aligned = f.vars.size() <= 1;  // one row per map, one under the other
  w.open("figure", {{"class", aligned ? "heat-map rows" : "heat-map"}, {"data-func", f.func}, {"id", "heat-" + f.func}});
  const std::vector<AllocationView> views = allocation_views(f);
  const bool per_allocation = views.size() > 1;
  w.open("figcaption");
  w.element("strong", {}, f.func);
  w.text(per_allocation ? fmt::format(": allocated {} times ([ALLOC]): the merged buffer, then one map per allocation",
                                      f.allocations)
                        : ": the last value stored at each point (the buffer after its last write)");
  w.close("figcaption");
  if (f.last_values.empty()) {
    w.element("p", {{"class", "note"}}, f.func + " stored nothing.");
    w.close("figure");
    return;
  }
  Range rx, ry;
  auto add_point = [&](Range& x, Range& y, const Point& p) { x.add(project(p, f.axes).x), y.add(project(p, f.axes).y); };
  auto add_box = [&](Range& x, Range& y, const std::optional<Box>& b) {
    if (!b) return;
    auto [xm, xl] = box_dim(*b, f.axes[0]);
    auto [ym, yl] = box_dim(*b, f.axes[1]);
    if (xl > 0 && yl > 0) x.add_interval(xm, xl), y.add_interval(ym, yl);
  };
  Scale scale;
  for (const auto& [p, v] : f.last_values) add_point(rx, ry, p), scale.add(v);
  if (per_allocation)
    for (const auto& a : views) {
      if (aligned) add_box(rx, ry, a.box);
      for (const auto& [p, v] : a.written) {
        scale.add(v);
        if (aligned) add_point(rx, ry, p);
      }
    }
  bool clipped = false;
  const Geometry g = heat_geometry(f, rx, ry, clipped);
  auto value_of = [](const auto& entry) -> const Value& { return entry.second; };

  w.open("div", {{"class", "heat-views"}});
  w.open("div", {{"class", "heat-view merged"}});
  w.element("div", {{"class", "heat-label"}},
            per_allocation ? "merged: each point's last value, whichever allocation held it" : "the buffer");
  heat_svg(w, f, g, f.last_values, value_of, scale, "heat", "merged", "heat map of " + f.func, std::nullopt,
           f.is_output ? &window : nullptr);
  w.close("div");
  size_t drawn = 0;
  if (per_allocation) {
    w.open("div", {{"class", "heat-allocations"}});
    for (int64_t cells = 0; drawn < views.size(); ++drawn) {
      const AllocationView& a = views[drawn];
      Geometry ga = g;
      if (!aligned) {
        Range ax, ay;
        add_box(ax, ay, a.box);
        for (const auto& [p, v] : a.written) add_point(ax, ay, p);
        if (ax.empty()) ax.add(0);
        if (ay.empty()) ay.add(0);
        bool cut = false;
        ga = heat_geometry(f, ax, ay, cut);
        clipped = clipped || cut;
      }
      const int64_t cost = std::min<int64_t>(int64_t(a.written.size()), ga.rx.size() * ga.ry.size()) + 1;
      if (drawn > 0 && cells + cost > kMaxCellsPerFunc) break;
      cells += cost;
      const std::string name = allocation_name(a);
      w.open("div", {{"class", "heat-view allocation"}});
      w.element("div", {{"class", "heat-label"}},
                fmt::format("{}: allocated {}; {} point{} written", name,
                            a.box ? box_text(*a.box) : std::string("(no allocation seen)"), a.written.size(),
                            a.written.size() == 1 ? "" : "s"));
      heat_svg(w, f, ga, a.written, value_of, scale, "heat heat-allocation", num(int64_t(a.index)),
               fmt::format("heat map of {}, {}", f.func, name), a.box, nullptr);
      w.close("div");
    }
    w.close("div");
  }
  w.close("div");
  if (std::isfinite(scale.lo))
    w.element("p", {{"class", "scale"}},
              fmt::format("colour scale: {:.0f} (dark) to {:.0f} (light); grey: an error value{}", scale.lo, scale.hi,
                          per_allocation ? ", or a point allocated but not written (ε_mem)" : ""));
  std::vector<std::string> notes;
  if (per_allocation && drawn < views.size())
    notes.push_back(fmt::format("The maps of the last {} of the {} allocations kept are not drawn: the page draws at "
                                "most {} cells of each func.",
                                views.size() - drawn, views.size(), kMaxCellsPerFunc));
  if (f.tiles_dropped && !views.empty()) {
    const uint64_t left_out = f.allocations - views.back().index;
    notes.push_back(fmt::format("{} more tile{} ran{} and {} left out: the report keeps the first {} tiles of each "
                                "func; the merged map has every point kept.",
                                f.tiles_dropped, f.tiles_dropped == 1 ? "" : "s",
                                left_out ? fmt::format(" ({} more allocation{})", left_out, left_out == 1 ? "" : "s") : "",
                                f.tiles_dropped == 1 ? "is" : "are", f.tiles.size()));
  }
  for (const auto& n : notes) w.element("p", {{"class", "note"}}, n);
  picture_notes(w, f, clipped, false);
  w.close("figure");
}

}  // namespace halo::explain
