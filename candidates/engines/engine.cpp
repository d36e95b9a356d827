// The external bounds-engine protocol: see engine.hpp and docs/bounds-engines.md.
#include "candidates/engines/engine.hpp"
#include "support/candidate_unavailable.hpp"

#include "bounds/beta0.hpp"
#include "bounds/extract.hpp"
#include "support/candidate_output.hpp"
#include "support/child_processes.hpp"
#include "support/json_text.hpp"
#include "semantics/tgt_json.hpp"
#include "semantics/tgt_parser.hpp"

#include <fmt/format.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <set>
#include <vector>

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

// Runs `command` with `input` on stdin; collects stdout until the engine exits or the
// deadline. Nothing here blocks past the deadline: the input is written without blocking
// (an engine that never reads it cannot stall halo), the exit is awaited with WNOHANG, and
// once the engine itself has exited its output is taken as complete after a short grace
// period even if a background child still holds the pipe open (that engine answered). On
// every path the engine's process group is killed, so nothing it started outlives the call.
// The engine's standard error goes on to halo's as it comes, up to the cap of
// support/candidate_output.hpp; its last lines and how much was left out follow at the end.
ChildOutput run_child(const std::string& command, const std::string& input, double seconds) {
  ChildOutput r;
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    close(in_pipe[0]);
    close(in_pipe[1]);
    return r;
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1]}) close(fd);
    return r;
  }
  // The environment, with the marker that finds the engine's escaped descendants, is built
  // before fork: after it, only async-signal-safe calls.
  std::string marker = new_candidate_marker();
  std::vector<char*> envp = candidate_environment(marker);
  pid_t pid = fork();
  if (pid < 0) {
    r.error = std::string("fork: ") + std::strerror(errno);
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
    return r;
  }
  if (pid == 0) {
    setpgid(0, 0);  // its own group, so a timeout kills everything it started
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    enter_candidate_pid_namespace();
    execle("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr), envp.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent, so the group exists before any kill
  ChildGuard guard(pid, marker);
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  CappedOutput stderr_text("the engine's standard error");
  bool err_open = true;
  // Reads what the engine printed on its standard error and relays the part within the cap.
  auto relay_stderr = [&](char* chunk, size_t size) {
    ssize_t got = read(err_pipe[0], chunk, size);
    if (got <= 0) {
      if (got == 0 || (errno != EINTR && errno != EAGAIN)) err_open = false;
      return false;
    }
    size_t head = stderr_text.append(chunk, size_t(got));
    if (head > 0) (void)!write(STDERR_FILENO, chunk, head);
    return true;
  };
  fcntl(in_pipe[1], F_SETFL, fcntl(in_pipe[1], F_GETFL) | O_NONBLOCK);
  signal(SIGPIPE, SIG_IGN);  // an engine that does not read its input must not kill halo
  size_t written = 0;
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  std::optional<Clock::time_point> exited_at;
  bool in_open = true, out_open = true, reaped = false;
  if (input.empty()) close(in_pipe[1]), in_open = false;
  char buf[65536];
  while (out_open) {
    if (!reaped) {
      pid_t w = waitpid(pid, &r.status, WNOHANG);
      if (w == pid) reaped = true, exited_at = Clock::now();
    }
    auto now = Clock::now();
    // The engine exited: whatever it wrote is in the pipe by now; a background child that
    // keeps the pipe open does not turn an answer into a timeout.
    if (exited_at && now - *exited_at > std::chrono::milliseconds(200)) break;
    if (now >= deadline) {
      r.timed_out = !reaped;
      break;
    }
    pollfd fds[3] = {{out_pipe[0], POLLIN, 0}, {in_open ? in_pipe[1] : -1, POLLOUT, 0},
                     {err_open ? err_pipe[0] : -1, POLLIN, 0}};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    int wait_ms = int(std::clamp<int64_t>(left, 1, reaped ? 20 : 50));
    if (poll(fds, 3, wait_ms) < 0 && errno != EINTR) {
      r.error = std::string("poll: ") + std::strerror(errno);
      break;
    }
    if (in_open && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t w = (fds[1].revents & POLLOUT) ? write(in_pipe[1], input.data() + written, input.size() - written) : -1;
      if (w > 0) written += size_t(w);
      bool again = w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
      if ((w < 0 && !again) || w == 0 || written == input.size()) {
        close(in_pipe[1]);
        in_open = false;
      }
    }
    if (err_open && (fds[2].revents & (POLLIN | POLLHUP | POLLERR))) relay_stderr(buf, sizeof buf);
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t got = read(out_pipe[0], buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        out_open = false;  // end of output
        break;
      }
      r.out.append(buf, size_t(got));
      if (r.out.size() > (64u << 20)) {
        r.error = "the engine wrote more than 64 MiB";
        break;
      }
    }
  }
  if (in_open) close(in_pipe[1]);
  close(out_pipe[0]);
  // Output closed but the engine still runs: it may take until the deadline to exit.
  while (!reaped && !r.timed_out && r.error.empty()) {
    pid_t w = waitpid(pid, &r.status, WNOHANG);
    if (w == pid) {
      reaped = true;
      break;
    }
    if (w < 0 && errno != EINTR) break;
    if (Clock::now() >= deadline) {
      r.timed_out = true;
      break;
    }
    pollfd err{err_open ? err_pipe[0] : -1, POLLIN, 0};  // it may still be writing there
    if (poll(&err, 1, 5) > 0 && (err.revents & (POLLIN | POLLHUP | POLLERR))) relay_stderr(buf, sizeof buf);
  }
  kill(-pid, SIGKILL);  // the whole group: background children of an engine that answered too
  if (!reaped) kill(pid, SIGKILL), waitpid(pid, &r.status, 0);
  // What is left in the pipe (without waiting for a descendant that escaped and still holds
  // it; ChildGuard kills that one), then the end of the relay.
  fcntl(err_pipe[0], F_SETFL, fcntl(err_pipe[0], F_GETFL) | O_NONBLOCK);
  for (int i = 0; i < 64 && err_open && relay_stderr(buf, sizeof buf); ++i) {
  }
  close(err_pipe[0]);
  std::string rest = stderr_text.rest();
  if (!rest.empty()) (void)!write(STDERR_FILENO, rest.data(), rest.size());
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
    // A plain name x means the innermost variable of the scope a reader calls x (a loop's
    // qualified <f, j, i, x>), as in the text form of target programs.
    FreeVars plain;
    plain.visit(e);
    std::map<std::string, std::string> readable;
    for (const auto& v : plain.names)
      if (std::find(sc->second.begin(), sc->second.end(), v) == sc->second.end())
        for (auto it = sc->second.rbegin(); it != sc->second.rend(); ++it)
          if (short_var(*it) == v) {
            readable[v] = *it;
            break;
          }
    e = rename_vars(e, readable);
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
  // The built-in engines run in-process (`--engine beta1`; docs/beta1.md).
  if (auto builtin = builtin_engine(command)) {
    Beta0Result b = run_builtin_engine(q, t, *builtin);
    if (!b.ok) return {EngineResult::Kind::GaveUp, {}, b.gave_up + ": " + b.why_failed};
    return {EngineResult::Kind::Filled, std::move(b.filling), {}};
  }
#ifdef HALO_BROWSER
  // The playground (docs/playground.md): a page starts no program, and an engine that
  // never ran has given no answer to judge (not a finding, not a verdict).
  throw CandidateUnavailable(Diagnostic{"", {}, "cannot start the engine '" + command +
                                                    "': the playground runs in a browser, which starts no other program; "
                                                    "the built-in engines beta0, beta1 and beta0-literal run here, an "
                                                    "external one with the halo executable"});
#endif
  nlohmann::json doc = query_to_json(q, t);
  doc["program"] = tgt_to_json(t);  // for engines that analyse the program itself (docs/bounds-engines.md)
  ChildOutput c = run_child(command, json_text(doc) + "\n", seconds);
  if (!c.error.empty()) return {EngineResult::Kind::Failed, {}, c.error};
  if (c.timed_out)
    return {EngineResult::Kind::Failed, {},
            c.out.empty() ? fmt::format("no answer within {} s", seconds)
                          : fmt::format("it wrote an answer but did not exit within {} s", seconds)};
  if (WIFSIGNALED(c.status))
    return {EngineResult::Kind::Failed, {}, fmt::format("killed by signal {} ({})", WTERMSIG(c.status),
                                                        strsignal(WTERMSIG(c.status)))};
  if (WEXITSTATUS(c.status) != 0)
    return {EngineResult::Kind::Failed, {}, fmt::format("exited with status {}", WEXITSTATUS(c.status))};
  return interpret_engine_answer(c.out, t);
}

EngineResult interpret_engine_answer(const std::string& answer, const TgtProgram& t) {
  EngineResult r;
  nlohmann::json j;
  try {
    j = parse_json_text(answer, "engine answer", kMaxEngineAnswerNesting);
  } catch (const InputError& e) {
    return {EngineResult::Kind::Failed, {}, std::string("its output is not JSON: ") + e.what()};
  }
  if (j.is_object() && j.contains("fail")) {
    std::string why = j["fail"].is_string() ? j["fail"].get<std::string>() : json_text(j["fail"]);
    if (why.size() > 2000) why = why.substr(0, 2000) + "...";
    return {EngineResult::Kind::GaveUp, {}, why};
  }
  if (!j.is_object() || !j.contains("holes"))
    return {EngineResult::Kind::Failed, {}, "its answer has neither \"holes\" nor \"fail\""};
  try {
    r.filling = filling_from_json(j["holes"], t, "engine answer");
  } catch (const InputError& e) {
    return {EngineResult::Kind::Failed, {}, e.what()};
  } catch (const ResourceLimit& e) {  // e.g. a literal of a million digits
    return {EngineResult::Kind::Failed, {}, std::string("its answer exceeds a limit: ") + e.what()};
  }
  std::vector<HoleLabel> unfilled;
  fill_holes(t, r.filling, &unfilled);
  if (!unfilled.empty())
    return {EngineResult::Kind::Failed, {}, fmt::format("it left {} hole(s) unfilled, e.g. {}", unfilled.size(),
                                                        unfilled.front().to_string())};
  r.kind = EngineResult::Kind::Filled;
  return r;
}
EngineVerdict check_engine(const Program& prog, const TgtProgram& t, const Input& in, const Limits& lim,
                           const std::string& command, double engine_seconds) {
  return judge_engine(prog, t, in, lim, [&](const Query& q) { return run_engine(command, q, t, engine_seconds); });
}

}  // namespace halo
