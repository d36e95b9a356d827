// The messages of protocol.hpp.
#include "candidates/halide/protocol.hpp"

#include "candidates/halide/plan.hpp"
#include "semantics/parser.hpp"
#include "semantics/printer.hpp"

#include <optional>
#include <stdexcept>

namespace halo::halide {

namespace {

nlohmann::json box_json(const Box& b) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& [lo, hi] : b) j.push_back({lo, hi});
  return j;
}
Box box_from(const nlohmann::json& j) {
  Box b;
  for (const auto& d : j) b.emplace_back(d[0].get<int64_t>(), d[1].get<int64_t>());
  return b;
}

}  // namespace

nlohmann::json jit_to_json(const JitResult& r) {
  nlohmann::json realized = nlohmann::json::object();
  for (const auto& [f, b] : r.mem.realized) realized[f] = box_json(b);
  return {{"status", int(r.status)},
          {"phase", r.phase},
          {"message", r.message},
          {"output_region", r.output_region},
          {"bounds_query_note", r.bounds_query_note},
          {"values", r.values},
          {"heap_corruption", r.heap_corruption},
          {"target", r.target},
          {"compile_seconds", r.compile_seconds},
          {"run_seconds", r.run_seconds},
          {"compile_reused", r.compile_reused},
          {"autoscheduler_params", r.autoscheduler_params},
          {"schedule_source", r.schedule_source},
          {"mem",
           {{"loads", r.mem.loads},
            {"stores", r.mem.stores},
            {"realizations", r.mem.realizations},
            {"out_of_bounds", r.mem.out_of_bounds},
            {"out_of_bounds_examples", r.mem.out_of_bounds_examples},
            {"vector_lanes_out_of_bounds", r.mem.vector_lanes_out_of_bounds},
            {"vector_lanes_examples", r.mem.vector_lanes_examples},
            {"uninitialized", r.mem.uninitialized},
            {"uninitialized_examples", r.mem.uninitialized_examples},
            {"realized", realized}}}};
}

JitResult jit_from_json(const nlohmann::json& j) {
  JitResult r;
  r.status = JitResult::Status(j.at("status").get<int>());
  r.phase = j.at("phase").get<std::string>();
  r.message = j.at("message").get<std::string>();
  r.output_region = j.at("output_region").get<std::vector<std::pair<int32_t, int32_t>>>();
  r.bounds_query_note = j.at("bounds_query_note").get<std::string>();
  r.values = j.at("values").get<std::vector<int64_t>>();
  r.heap_corruption = j.at("heap_corruption").get<std::vector<std::string>>();
  r.target = j.at("target").get<std::string>();
  r.compile_seconds = j.at("compile_seconds").get<double>();
  r.run_seconds = j.at("run_seconds").get<double>();
  r.compile_reused = j.at("compile_reused").get<bool>();
  r.autoscheduler_params = j.at("autoscheduler_params").get<std::string>();
  r.schedule_source = j.at("schedule_source").get<std::string>();
  const auto& m = j.at("mem");
  r.mem.loads = m.at("loads").get<uint64_t>();
  r.mem.stores = m.at("stores").get<uint64_t>();
  r.mem.realizations = m.at("realizations").get<uint64_t>();
  r.mem.out_of_bounds = m.at("out_of_bounds").get<uint64_t>();
  r.mem.out_of_bounds_examples = m.at("out_of_bounds_examples").get<std::vector<std::string>>();
  r.mem.vector_lanes_out_of_bounds = m.at("vector_lanes_out_of_bounds").get<uint64_t>();
  r.mem.vector_lanes_examples = m.at("vector_lanes_examples").get<std::vector<std::string>>();
  r.mem.uninitialized = m.at("uninitialized").get<uint64_t>();
  r.mem.uninitialized_examples = m.at("uninitialized_examples").get<std::vector<std::string>>();
  for (const auto& [f, b] : m.at("realized").items()) r.mem.realized[f] = box_from(b);
  return r;
}

std::string case_request_text(const Program& prog, const Input& in, bool memcheck, const std::string& target,
                              bool strict_float) {
  nlohmann::json params = nlohmann::json::array(), window = nlohmann::json::array();
  // An integer as a decimal (a u64 exceeds JSON's int64), a float as its exact IEEE bits.
  for (const Value& v : in.params)
    params.push_back(v.is_float() ? nlohmann::json{{"float_bits", v.float_bits()}, {"f32", v.is_f32()}}
                                  : nlohmann::json(v.to_string()));
  for (const Interval& w : in.window) window.push_back({w.min.small(), w.len.small()});
  // Input buffers travel with their values (a u64 as its bit pattern), which the worker
  // hands to Halide as they are.
  nlohmann::json buffers = nlohmann::json::array();
  for (const InputBuffer& b : in.buffers) {
    nlohmann::json box = nlohmann::json::array(), values = nlohmann::json::array();
    for (const Interval& iv : b.box) box.push_back({iv.min.small(), iv.len.small()});
    for (const Value& v : b.values) values.push_back(hl_bits(v));
    buffers.push_back({{"name", b.name}, {"box", box}, {"values", values}, {"origin", b.origin}});
  }
  return nlohmann::json{{"file", prog.file},     {"program", print_program(prog)}, {"params", params},
                        {"window", window},      {"memcheck", memcheck},           {"target", target},
                        {"buffers", buffers},    {"strict_float", strict_float}}
      .dump();
}

std::string compile_reuse_key(const CaseRequest& c) {
  if (c.prog.schedule_mode == ScheduleMode::Autoscheduler) return "";
  if (c.prog.schedule)
    for (const Directive& d : *c.prog.schedule)
      if (d.kind == DirectiveKind::Memoize) return "";
  Program windowless = c.prog;
  if (windowless.realize) windowless.realize->window.clear();
  Input in = c.in;
  in.window.clear();
  return case_request_text(windowless, in, c.memcheck, c.target, c.strict_float);
}

CaseRequest parse_case_request(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text);
  CaseRequest c;
  c.prog = parse_program(j.at("program").get<std::string>(), j.at("file").get<std::string>());
  for (const auto& p : j.at("params")) {
    if (p.is_object()) {
      int64_t bits = int64_t(p.at("float_bits").get<uint64_t>());
      c.in.params.push_back(hl_value(Type::float_(p.at("f32").get<bool>() ? 32 : 64), bits));
      continue;
    }
    std::optional<Value> v = Value::parse(p.get<std::string>());
    if (!v) throw std::runtime_error("a case request with a malformed parameter value");
    c.in.params.push_back(*v);
  }
  for (const auto& w : j.at("window"))
    c.in.window.push_back(Interval{Value(w[0].get<int64_t>()), Value(w[1].get<int64_t>()), {}});
  for (const auto& b : j.at("buffers")) {
    InputBuffer buf;
    buf.name = b.at("name").get<std::string>();
    const InputDef* decl = c.prog.pipeline.find_input(buf.name);
    if (!decl) throw std::runtime_error("a case request with a buffer for no input");
    buf.type = decl->type;
    buf.origin = b.at("origin").get<std::string>();
    for (const auto& iv : b.at("box")) buf.box.push_back(Interval{Value(iv[0].get<int64_t>()), Value(iv[1].get<int64_t>()), {}});
    for (const auto& v : b.at("values")) buf.values.push_back(hl_value(buf.type, v.get<int64_t>()));
    c.in.buffers.push_back(std::move(buf));
  }
  c.memcheck = j.at("memcheck").get<bool>();
  c.strict_float = j.value("strict_float", true);
  c.target = j.at("target").get<std::string>();
  return c;
}

}  // namespace halo::halide
