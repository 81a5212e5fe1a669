// hloroof: reads XLA HLO text and predicts, without running anything, how long a step takes.
#include <iostream>
#include <string>
#include <vector>

#include "cli.h"
#include "commands.h"
#include "hloroof/version.h"

namespace {

using hloroof::cli::Command;

const Command* const kCommands[] = {
    &hloroof::cli::kParseCommand,
    &hloroof::cli::kPredictCommand,
    &hloroof::cli::kAdviseCommand,
    &hloroof::cli::kCompareCommand,
    &hloroof::cli::kDiffCommand,
    &hloroof::cli::kCostCommand,
    &hloroof::cli::kShapeCommand,
    &hloroof::cli::kDevicesCommand,
    &hloroof::cli::kMemoryCommand,
    &hloroof::cli::kProfileCommand,
    &hloroof::cli::kCalibrateCommand,
};

void print_overview(std::ostream& out) {
  out << "hloroof: static step-time prediction from XLA HLO text\n\n"
         "usage: hloroof COMMAND [ARGS...]\n\ncommands:\n";
  for (const Command* c : kCommands) {
    out << "  " << c->name << std::string(12 - std::min<size_t>(11, c->name.size()), ' ')
        << c->summary << "\n";
  }
  out << "\n`hloroof COMMAND --help` (or `hloroof help COMMAND`) shows a command's options and\n"
         "an example;\n"
         "`hloroof --version` prints the version.\n"
         "Exit codes: 0 success, 1 bad input, 2 bad usage.\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> words(argv + 1, argv + argc);
  if (words.empty()) {
    print_overview(std::cerr);
    return hloroof::cli::kExitUsage;
  }
  if (words[0] == "--help" || words[0] == "-h" || words[0] == "help") {
    // `hloroof help COMMAND` is `hloroof COMMAND --help`.
    if (words.size() > 1) {
      for (const Command* c : kCommands) {
        if (words[1] == c->name) return c->run({"--help"});
      }
      std::cerr << "error: unknown command '" << words[1] << "'\n\n";
      print_overview(std::cerr);
      return hloroof::cli::kExitUsage;
    }
    print_overview(std::cout);
    return hloroof::cli::kExitOk;
  }
  if (words[0] == "--version" || words[0] == "version") {
    std::cout << "hloroof " << hloroof::version() << "\n";
    return hloroof::cli::kExitOk;
  }
  for (const Command* c : kCommands) {
    if (words[0] == c->name) {
      std::vector<std::string> rest(words.begin() + 1, words.end());
      return c->run(rest);
    }
  }
  std::cerr << "error: unknown command '" << words[0] << "'\n\n";
  print_overview(std::cerr);
  return hloroof::cli::kExitUsage;
}
