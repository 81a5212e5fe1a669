// The commands of the `hloroof` tool. Each takes the words after its name and returns an exit
// code (cli.h). Each lives in its own cmd_<name>.cc.
#ifndef HLOROOF_TOOLS_COMMANDS_H_
#define HLOROOF_TOOLS_COMMANDS_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hloroof::cli {

struct ArgSpec;

struct Command {
  std::string_view name;
  std::string_view summary;  // one line for `hloroof --help`
  // The text for `hloroof COMMAND --help`: `usage: USAGE`, a blank line and `help`; without a
  // usage, `help` alone (which then says it).
  std::string_view help;
  int (*run)(const std::vector<std::string>& args);
  // The usage lines, as a usage error prints them after `usage: ` (lines after the first
  // indented by seven spaces, under the first's command).
  std::string_view usage = {};
  // The flags and options it takes, as its words are parsed by them (cli.h): what
  // `hloroof completion` offers after the command's name.
  ArgSpec (*spec)() = nullptr;
};

// Every command, in the order `hloroof --help` lists them (main.cc).
std::span<const Command* const> all_commands();

// Prints the command's --help text (Command::help) on standard output.
void print_help(const Command& command);

extern const Command kAdviseCommand;
extern const Command kCalibrateCommand;
extern const Command kCompareCommand;
extern const Command kCompletionCommand;
extern const Command kCostCommand;
extern const Command kDevicesCommand;
extern const Command kDiffCommand;
extern const Command kPredictCommand;
extern const Command kShapeCommand;
extern const Command kMemoryCommand;
extern const Command kParseCommand;
extern const Command kProfileCommand;

}  // namespace hloroof::cli

#endif  // HLOROOF_TOOLS_COMMANDS_H_
