// The commands of the `hloroof` tool. Each takes the words after its name and returns an exit
// code (cli.h). Each lives in its own cmd_<name>.cc.
#ifndef HLOROOF_TOOLS_COMMANDS_H_
#define HLOROOF_TOOLS_COMMANDS_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hloroof::cli {

struct Flag;

struct Command {
  std::string_view name;
  std::string_view summary;  // one line for `hloroof --help`
  // `hloroof COMMAND --help` (print_help) prints `usage: USAGE`, a blank line, `about`, then
  // the options made of `flags` (options_help), `notes`, and `examples` as they are.
  std::string_view about;
  int (*run)(const std::vector<std::string>& args);
  // The usage lines, as a usage error prints them after `usage: ` (lines after the first
  // indented by seven spaces, under the first's command).
  std::string_view usage = {};
  // The flags and options it takes, declared once (cli.h): its words are parsed by them, its
  // help lists them and `hloroof completion` offers them after the command's name.
  std::span<const Flag* const> flags = {};
  // Said after the options: what holds for several of them.
  std::string_view notes = {};
  // "example:" or "examples:" and the command lines, as printed.
  std::string_view examples = {};
};

// Every command, in the order `hloroof --help` lists them (main.cc).
std::span<const Command* const> all_commands();

// Prints the command's --help text on standard output.
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
