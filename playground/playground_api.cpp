// The playground's one way into halo (docs/playground.md): a `halo` command line, run
// in-process by run_cli exactly as the executable runs it, on files the page wrote into
// the module's in-memory file system. The page's panes, the guide's "try it" links and the
// browser test all go through this function, so the playground prints what the command
// line prints; there is no second implementation of any command for the browser.
//
// Request (JSON): {"args": ["halo", "eval", "program.halo"], "files": {"program.halo": "..."}}
// Answer (JSON, malloc'd, freed by the caller): {"status": N, "stdout": "...", "stderr": "..."}
#include "tools/cli.hpp"

#include <emscripten/emscripten.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// The working folder: the examples are embedded under it (playground/wasm.cmake), so the
// guide's relative paths (examples/blur.halo) name the same files as in a clone.
constexpr const char* kHome = "/halo";

// A file the page sends may only land inside the working folder.
bool inside_home(const fs::path& p) {
  fs::path full = (p.is_absolute() ? p : fs::path(kHome) / p).lexically_normal();
  std::string s = full.string();
  return s.rfind(std::string(kHome) + "/", 0) == 0;
}

std::string answer(int status, const std::string& out, const std::string& err) {
  nlohmann::json j{{"status", status}, {"stdout", out}, {"stderr", err}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string call(const char* request) {
  std::error_code ec;
  fs::current_path(kHome, ec);
  nlohmann::json req = nlohmann::json::parse(request, nullptr, false);
  if (req.is_discarded() || !req.is_object() || !req.contains("args") || !req["args"].is_array())
    return answer(4, "", "playground: the request is not {\"args\": [...], \"files\": {...}}\n");
  if (req.contains("files") && req["files"].is_object()) {
    for (const auto& [name, text] : req["files"].items()) {
      if (!text.is_string() || !inside_home(name))
        return answer(4, "", "playground: a file must be text inside " + std::string(kHome) + ": " + name + "\n");
      fs::path p = fs::path(kHome) / name;
      fs::create_directories(p.parent_path(), ec);
      std::ofstream(p, std::ios::binary) << text.get<std::string>();
    }
  }
  std::vector<std::string> args;
  for (const auto& a : req["args"]) {
    if (!a.is_string()) return answer(4, "", "playground: every argument must be a string\n");
    args.push_back(a.get<std::string>());
  }
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  int status = halo::run_cli(int(argv.size()), argv.data(), out, err);
  return answer(status, out.str(), err.str());
}

}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE char* halo_playground_call(const char* request) {
  std::string a = call(request);
  char* copy = static_cast<char*>(std::malloc(a.size() + 1));
  std::memcpy(copy, a.c_str(), a.size() + 1);
  return copy;
}
