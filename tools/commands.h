// The commands of the `hloroof` tool. Each takes the words after its name and returns an exit
// code (cli.h). Each lives in its own cmd_<name>.cc.
#ifndef HLOROOF_TOOLS_COMMANDS_H_
#define HLOROOF_TOOLS_COMMANDS_H_

#include <string>
#include <string_view>
#include <vector>

namespace hloroof::cli {

struct Command {
  std::string_view name;
  std::string_view summary;  // one line for `hloroof --help`
  std::string_view help;     // full text for `hloroof COMMAND --help`
  int (*run)(const std::vector<std::string>& args);
};

extern const Command kAdviseCommand;
extern const Command kCalibrateCommand;
extern const Command kCompareCommand;
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
