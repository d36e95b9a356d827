// What the two halves of the `halo explain` page writer share (explain_html.cpp writes the
// sections, explain_svg.cpp the pictures): a small HTML/SVG writer that escapes every text
// and attribute value in one place, so no string from a program reaches the page raw.
#pragma once

#include "report/explain.hpp"
#include "support/command_budget.hpp"

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace halo::explain {

class HtmlWriter {
 public:
  // Attribute names are constants of this code; values are escaped.
  using Attrs = std::initializer_list<std::pair<std::string_view, std::string>>;

  void open(std::string_view tag, Attrs attrs = {}) {
    tick_command_budget();  // rendering polls the command's budget too
    start_tag(tag, attrs);
    out_ += '>';
  }
  void close(std::string_view tag) {
    out_ += "</";
    out_ += tag;
    out_ += '>';
  }
  void text(std::string_view s) { out_ += escape_html(s); }
  void element(std::string_view tag, Attrs attrs, std::string_view content) {
    open(tag, attrs);
    text(content);
    close(tag);
  }
  // An element without content (SVG shapes; `<br/>`, `<input/>`).
  void empty(std::string_view tag, Attrs attrs = {}) {
    start_tag(tag, attrs);
    out_ += "/>";
  }
  // Markup written by this code itself (the style sheet, the script, the doctype): never
  // anything derived from the program or the options.
  void trusted(std::string_view markup) { out_ += markup; }
  // What was written since the last take(); the ids fresh_id makes stay unique across
  // takes (render_sections cuts one writer's output into sections).
  std::string take() {
    std::string s = std::move(out_);
    out_.clear();
    return s;
  }
  // An id no other element of this page has ("grid-g-3"), for SVG patterns.
  std::string fresh_id(std::string_view stem) { return std::string(stem) + "-" + std::to_string(++ids_); }

 private:
  void start_tag(std::string_view tag, Attrs attrs) {
    out_ += '<';
    out_ += tag;
    for (const auto& [name, value] : attrs) {
      out_ += ' ';
      out_ += name;
      out_ += "=\"";
      out_ += escape_html(value);
      out_ += '"';
    }
  }
  std::string out_;
  int ids_ = 0;
};

// The iteration space of one func (requested, allocated, computed and written points per
// tile: the thesis figs. 2.1-2.3) and its buffer as heat maps (merged, and one per tile).
void write_iteration_space(HtmlWriter& w, const FuncObservation& f, const std::vector<Interval>& window);
void write_heat_map(HtmlWriter& w, const FuncObservation& f, const std::vector<Interval>& window);
// The swatches and the show/hide switches of the layers of write_iteration_space.
void write_layer_legend(HtmlWriter& w);

// "f(1, 2)"
std::string point_text(const std::string& func, const Point& p);
// An interval written so that it cannot be misread as (min, max) or (min, len): "2 .. 5
// (min 2, len 4)", "empty (min 2, len 0)".
std::string interval_text(const Value& min, const Value& len);
std::string interval_text(std::pair<int64_t, int64_t> min_len);
std::string box_text(const Box& b);  // interval_text per dimension, joined by " × " 

}  // namespace halo::explain
