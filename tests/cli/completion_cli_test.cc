// `hloroof completion bash|zsh`: the script offers, after each command, the flags and options
// that command parses, and bash completes with it.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"

namespace {

using hloroof::testing::run_cli;

// The commands `hloroof --help` lists.
std::vector<std::string> commands() {
  std::vector<std::string> out;
  std::istringstream lines(run_cli("--help").out);
  bool listing = false;
  for (std::string line; std::getline(lines, line);) {
    if (line == "commands:") {
      listing = true;
    } else if (listing && line.rfind("  ", 0) == 0) {
      out.push_back(line.substr(2, line.find(' ', 2) - 2));
    } else if (listing) {
      break;
    }
  }
  return out;
}

// The words the script offers after `command`: its case arm's flags and options.
std::set<std::string> offered(const std::string& script, const std::string& command) {
  const std::regex arm("\n    " + command + "\\) flags='([^']*)'; options='([^']*)' ;;\n");
  std::smatch m;
  if (!std::regex_search(script, m, arm)) return {};
  std::set<std::string> out;
  std::istringstream words(m[1].str() + " " + m[2].str());
  for (std::string w; words >> w;) out.insert(w);
  return out;
}

// What bash's completion gives for the words of a command line, the last the one completed.
std::string complete(const std::string& script_path, const std::string& words) {
  const std::string shell =
      "source " + script_path + "; COMP_WORDS=(" + words +
      "); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _hloroof; "
      "echo \"${COMPREPLY[*]}\"";
  const std::string path = script_path + ".sh";
  std::ofstream(path) << shell << "\n";
  std::string out;
  if (FILE* pipe = popen(("bash " + path).c_str(), "r")) {
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
    pclose(pipe);
  }
  std::remove(path.c_str());
  return out;
}

TEST_CASE("the completion script offers each command's own flags and options") {
  const auto bash = run_cli("completion bash");
  REQUIRE(bash.exit_code == 0);
  const std::vector<std::string> names = commands();
  REQUIRE(names.size() >= 12);
  for (const std::string& command : names) {
    if (command == "completion") continue;
    INFO(command);
    const std::set<std::string> words = offered(bash.out, command);
    CHECK(words.count("--help") == 1);
    // Each option the command's help lists is offered ...
    const std::string help = run_cli(command + " --help").out;
    std::istringstream lines(help);
    for (std::string line; std::getline(lines, line);) {
      CHECK(line.size() <= 100);  // the help made of the flags fits a terminal
      std::smatch m;
      static const std::regex option("^  (--[a-z][a-z-]*)");
      if (std::regex_search(line, m, option)) CHECK(words.count(m[1].str()) == 1);
    }
    // ... and each word offered is one the command takes (a usage error names no other).
    for (const std::string& w : words) {
      INFO(w);
      CHECK(run_cli(command + " " + w + " x").err.find("unknown option") == std::string::npos);
    }
  }
  // A word no command takes is refused, so the check above can fail.
  CHECK(run_cli("predict --no-such-option x").err.find("unknown option") != std::string::npos);
}

TEST_CASE("bash completes commands, flags, devices and shells with the script") {
  if (std::system("command -v bash >/dev/null 2>&1") != 0) {
    WARN("bash not installed: completion not run");
    return;
  }
  const std::string script = std::string(HLOROOF_TEST_OUT) + "/hloroof_completion.bash";
  std::ofstream(script) << run_cli("completion bash").out;
  CHECK(complete(script, "hloroof pre") == "predict\n");
  CHECK(complete(script, "hloroof comp") == "compare completion\n");
  CHECK(complete(script, "hloroof predict model.hlo --dev") == "--device\n");
  CHECK(complete(script, "hloroof diff a b --tr") == "--trace --trip-count\n");
  CHECK(complete(script, "hloroof parse --") == "--help --json --print --module\n");
  CHECK(complete(script, "hloroof predict model.hlo --device tpu_v5") == "tpu_v5e tpu_v5p\n");
  CHECK(complete(script, "hloroof completion ''") == "bash zsh\n");
  // A file where a file goes: nothing offered, bash's own file names instead.
  CHECK(complete(script, "hloroof predict mod") == "\n");
  std::remove(script.c_str());
  // zsh reads the same script through its bash completion support.
  const auto zsh = run_cli("completion zsh");
  CHECK(zsh.exit_code == 0);
  CHECK(zsh.out.find("autoload -U +X bashcompinit && bashcompinit\n") == zsh.out.find('\n') + 1);
  CHECK(zsh.out.find(run_cli("completion bash").out) != std::string::npos);
  // Another shell is a usage error.
  const auto fish = run_cli("completion fish");
  CHECK(fish.exit_code == 2);
  CHECK(fish.err.find("no completion for the shell 'fish'; bash or zsh") != std::string::npos);
}

}  // namespace
