// `hloroof completion bash|zsh`: a shell completion script, made from the commands' own flag
// lists (Command::flags), so that it offers what each command takes and nothing else.
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/absl_compat.h"
#include "hloroof/device.h"

namespace hloroof::cli {
namespace {

// The script for bash; zsh reads it through its bash compatibility (bashcompinit). After each
// command, its flags and options (Command::flags, as it parses its words); after an option of
// fixed choices, those.
std::string bash_script() {
  std::vector<std::string> names;
  for (const Command* c : all_commands()) names.emplace_back(c->name);
  const std::string commands = absl::StrJoin(names, " ");
  std::string arms;
  std::map<std::string, std::string> choices;  // by option name: `--by`'s "op category scope"
  for (const Command* c : all_commands()) {
    if (c->flags.empty()) continue;
    std::set<std::string> flags = {"--help"};
    std::set<std::string> options;
    for (const Flag* f : c->flags) {
      (f->type == FlagType::kSwitch ? flags : options).emplace(f->name);
      if (f->type == FlagType::kChoice) {
        choices[std::string(f->name)] = absl::StrReplaceAll(sv(f->choices), {{"|", " "}});
      }
    }
    absl::StrAppend(&arms, "    ", std::string(c->name), ") flags='", absl::StrJoin(flags, " "),
                    "'; options='", absl::StrJoin(options, " "), "' ;;\n");
  }
  std::string values;
  for (const auto& [option, words] : choices) {
    absl::StrAppend(&values, "        ", option, ") COMPREPLY=($(compgen -W '", words,
                    "' -- \"$cur\")) ;;\n");
  }
  const std::string devices = absl::StrJoin(builtin_device_names(), " ");
  return absl::StrCat(
      "# hloroof completion, made by `hloroof completion` from the commands' flag lists.\n"
      "_hloroof() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
      "  local flags='' options=''\n"
      "  if [[ $COMP_CWORD -eq 1 ]]; then\n"
      "    COMPREPLY=($(compgen -W '",
      commands,
      " help --help --version' -- \"$cur\"))\n"
      "    return\n"
      "  fi\n"
      "  # --device=h1 is split at the '=': the option is the word before it.\n"
      "  if [[ $prev == = && $COMP_CWORD -ge 3 ]]; then prev=${COMP_WORDS[COMP_CWORD-2]}; fi\n"
      "  if [[ $cur == = ]]; then cur=''; fi\n"
      "  case ${COMP_WORDS[1]} in\n",
      arms,
      "    help) [[ $COMP_CWORD -eq 2 ]] && COMPREPLY=($(compgen -W '", commands,
      "' -- \"$cur\")); return ;;\n"
      "    completion)\n"
      "      [[ $COMP_CWORD -eq 2 ]] && COMPREPLY=($(compgen -W 'bash zsh' -- \"$cur\"))\n"
      "      return ;;\n"
      "    *) return ;;\n"
      "  esac\n"
      "  case \" $options \" in\n"
      "    *\" $prev \"*)\n"
      "      # An option's value: a built-in device after --device and --devices, an option's\n"
      "      # choices; files otherwise (what an empty reply falls back to).\n"
      "      case $prev in\n"
      "        --device|--devices) COMPREPLY=($(compgen -W '",
      devices,
      "' -- \"$cur\")) ;;\n",
      values,
      "      esac\n"
      "      return ;;\n"
      "  esac\n"
      "  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"$flags $options\" -- \"$cur\")); fi\n"
      "}\n"
      "complete -o default -F _hloroof hloroof\n");
}

int run(const std::vector<std::string>& words) {
  int exit_code = kExitOk;
  std::optional<Args> args = parse_command_args(words, kCompletionCommand, exit_code);
  if (!args) return exit_code;
  if (args->positional.size() != 1) {
    return usage_error("expected a shell", kCompletionCommand.usage);
  }
  const std::string& shell = args->positional[0];
  if (shell == "bash") {
    std::cout << bash_script();
  } else if (shell == "zsh") {
    std::cout << "# zsh: the bash script through zsh's bash completion support.\n"
                 "autoload -U +X bashcompinit && bashcompinit\n"
              << bash_script();
  } else {
    return usage_error(absl::StrCat("no completion for the shell '", shell, "'; bash or zsh"),
                       kCompletionCommand.usage);
  }
  std::cout.flush();
  return std::cout ? kExitOk : kExitBadInput;
}

}  // namespace

const Command kCompletionCommand = {
    "completion",
    "shell completion of commands, flags and device names, for bash or zsh",
    "Writes a completion script for the shell: after `hloroof`, the commands; after a\n"
    "command, its flags and options (made from the command's own list, as it parses them);\n"
    "after --device and --devices, the built-in devices; after an option of fixed choices\n"
    "(--by, --sort), those; files elsewhere.\n",
    run,
    "hloroof completion bash|zsh",
    {},
    {},
    "Load it in the current shell, or once for every shell:\n"
    "  source <(hloroof completion bash)            # bash, this shell\n"
    "  hloroof completion bash > ~/.local/share/bash-completion/completions/hloroof\n"
    "  source <(hloroof completion zsh)             # zsh (its bashcompinit)\n",
};

}  // namespace hloroof::cli
