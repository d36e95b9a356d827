// The external bounds-engine protocol: see engine.hpp and docs/bounds-engines.md.
#include "bounds/engine.hpp"

#include "bounds/beta0.hpp"
#include "bounds/extract.hpp"
#include "semantics/tgt_json.hpp"
#include "semantics/tgt_parser.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <set>

namespace halo {

namespace {
struct FreeVars : ExprVisitor {
  std::set<std::string> names;
  void visit_var(const VarNode& n) override { names.insert(n.name); }
};

struct ChildOutput {
  std::string out;
  int status = 0;
  bool timed_out = false;
  std::string error;  // could not run at all
};

// Runs `command` with `input` on stdin; collects stdout until exit or the deadline.
ChildOutput run_child(const std::string& command, const std::string& input, double seconds) {
  ChildOutput r;
  int in_pipe[2], out_pipe[2];
  if (pipe(in_pipe) != 0 || pipe(out_pipe) != 0) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  pid_t pid = fork();
  if (pid < 0) {
    r.error = std::string("fork: ") + std::strerror(errno);
    return r;
  }
  if (pid == 0) {
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    close(in_pipe[0]);
    close(in_pipe[1]);
    close(out_pipe[0]);
    close(out_pipe[1]);
    setpgid(0, 0);  // its own group, so a timeout kills everything it started
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  signal(SIGPIPE, SIG_IGN);  // an engine that does not read its input must not kill halo
  size_t written = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  bool in_open = true;
  char buf[65536];
  while (true) {
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {in_pipe[1], POLLOUT, 0}};
    int n = in_open ? 2 : 1;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      break;
    }
    if (poll(fds, n, int(std::min<int64_t>(left.count(), 1000))) < 0 && errno != EINTR) break;
    if (in_open && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t w = (fds[1].revents & POLLOUT) ? write(in_pipe[1], input.data() + written, input.size() - written) : -1;
      if (w > 0) written += size_t(w);
      if (w <= 0 || written == input.size()) {
        close(in_pipe[1]);
        in_open = false;
      }
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t got = read(out_pipe[0], buf, sizeof buf);
      if (got <= 0) break;  // end of output
      r.out.append(buf, size_t(got));
      if (r.out.size() > (64u << 20)) {
        r.error = "the engine wrote more than 64 MiB";
        break;
      }
    }
  }
  if (in_open) close(in_pipe[1]);
  close(out_pipe[0]);
  if (r.timed_out || !r.error.empty()) kill(-pid, SIGKILL), kill(pid, SIGKILL);
  waitpid(pid, &r.status, 0);
  return r;
}
}  // namespace

HoleFilling filling_from_json(const nlohmann::json& j, const TgtProgram& t, const std::string& source) {
  if (!j.is_object())
    throw InputError(Diagnostic{source, {}, "a filling is a JSON object from hole to expression, e.g. "
                                            "{\"?mem<f, x>.min\": \"x_min\"}"});
  auto scopes = hole_scopes(t);
  HoleFilling g;
  std::vector<Diagnostic> errs;
  for (const auto& [key, val] : j.items()) {
    Expr h = parse_tgt_expr(key, source);
    if (h->kind != ExprKind::Hole) {
      errs.push_back(Diagnostic{source, {}, fmt::format("'{}' is not a hole (holes look like ?mem<f, x>.min)", key)});
      continue;
    }
    const HoleLabel& label = as<HoleNode>(h).label;
    Expr e = val.is_string() ? parse_tgt_expr(val.get<std::string>(), source) : expr_from_json(val, source);
    auto sc = scopes.find(label);
    if (sc == scopes.end()) {
      errs.push_back(Diagnostic{source, {}, fmt::format("the program has no hole {}", key)});
      continue;
    }
    FreeVars fv;
    fv.visit(e);
    for (const auto& v : fv.names)
      if (std::find(sc->second.begin(), sc->second.end(), v) == sc->second.end())
        errs.push_back(Diagnostic{source, {}, fmt::format("{} is filled with an expression using '{}', which is "
                                                          "not in the hole's scope ({})",
                                                          key, v, fmt::join(sc->second, ", "))});
    g[label] = e;
  }
  if (!errs.empty()) throw InputError(std::move(errs));
  return g;
}

EngineResult run_engine(const std::string& command, const Query& q, const TgtProgram& t, double seconds) {
  EngineResult r;
  // The built-in engines run in-process (`--engine beta1`; docs/beta1.md).
  if (auto builtin = builtin_engine(command)) {
    Beta0Result b = run_builtin_engine(q, t, *builtin);
    if (!b.ok) return {EngineResult::Kind::GaveUp, {}, b.gave_up + ": " + b.why_failed};
    return {EngineResult::Kind::Filled, std::move(b.filling), {}};
  }
  nlohmann::json doc = query_to_json(q, t);
  doc["program"] = tgt_to_json(t);  // for engines that analyse the program itself (docs/bounds-engines.md)
  ChildOutput c = run_child(command, doc.dump() + "\n", seconds);
  if (!c.error.empty()) return {EngineResult::Kind::Failed, {}, c.error};
  if (c.timed_out) return {EngineResult::Kind::Failed, {}, fmt::format("no answer within {} s", seconds)};
  if (WIFSIGNALED(c.status))
    return {EngineResult::Kind::Failed, {}, fmt::format("killed by signal {} ({})", WTERMSIG(c.status),
                                                        strsignal(WTERMSIG(c.status)))};
  if (WEXITSTATUS(c.status) != 0)
    return {EngineResult::Kind::Failed, {}, fmt::format("exited with status {}", WEXITSTATUS(c.status))};
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(c.out);
  } catch (const nlohmann::json::parse_error& e) {
    return {EngineResult::Kind::Failed, {}, std::string("its output is not JSON: ") + e.what()};
  }
  if (j.is_object() && j.contains("fail"))
    return {EngineResult::Kind::GaveUp, {}, j["fail"].is_string() ? j["fail"].get<std::string>() : j["fail"].dump()};
  if (!j.is_object() || !j.contains("holes"))
    return {EngineResult::Kind::Failed, {}, "its answer has neither \"holes\" nor \"fail\""};
  try {
    r.filling = filling_from_json(j["holes"], t, "engine answer");
  } catch (const InputError& e) {
    return {EngineResult::Kind::Failed, {}, e.what()};
  }
  std::vector<HoleLabel> unfilled;
  fill_holes(t, r.filling, &unfilled);
  if (!unfilled.empty())
    return {EngineResult::Kind::Failed, {}, fmt::format("it left {} hole(s) unfilled, e.g. {}", unfilled.size(),
                                                        unfilled.front().to_string())};
  r.kind = EngineResult::Kind::Filled;
  return r;
}

TgtProgram complete_with(const EngineResult& r, const TgtProgram& t) {
  if (r.kind == EngineResult::Kind::Filled) return fill_holes(t, r.filling);
  TgtProgram out = t;
  out.body = make_assert(make_const(Value(0)));
  return out;
}

}  // namespace halo
