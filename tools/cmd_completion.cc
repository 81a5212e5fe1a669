// `hloroof completion bash|zsh`: a shell completion script, made from the commands' own flag
// lists (Command::spec), so that it offers what each command takes and nothing else.
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/device.h"

namespace hloroof::cli {
namespace {

// The words of a bash `case` arm: flags and options of one command, each group sorted.
std::string words_of(const std::set<std::string>& names) { return absl::StrJoin(names, " "); }

// The script for bash; zsh reads it through its bash compatibility (bashcompinit).
std::string bash_script() {
  std::vector<std::string> names;
  for (const Command* c : all_commands()) names.emplace_back(c->name);
  const std::string commands = absl::StrJoin(names, " ");
  std::string arms;
  for (const Command* c : all_commands()) {
    if (c->spec == nullptr) continue;
    const ArgSpec spec = accepted_options(c->spec());
    std::set<std::string> flags = spec.flags;
    std::set<std::string> options = spec.options;
    options.insert(spec.repeatable_options.begin(), spec.repeatable_options.end());
    absl::StrAppend(&arms, "    ", std::string(c->name), ") flags='", words_of(flags), "'; options='",
                    words_of(options), "' ;;\n");
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
      "      # An option's value: a built-in device after --device and --devices; files\n"
      "      # otherwise (what an empty reply falls back to).\n"
      "      case $prev in\n"
      "        --device|--devices) COMPREPLY=($(compgen -W '",
      devices,
      "' -- \"$cur\")) ;;\n"
      "      esac\n"
      "      return ;;\n"
      "  esac\n"
      "  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"$flags $options\" -- \"$cur\")); fi\n"
      "}\n"
      "complete -o default -F _hloroof hloroof\n");
}

int run(const std::vector<std::string>& words) {
  int exit_code = kExitOk;
  std::optional<Args> args = parse_command_args(words, {}, kCompletionCommand, exit_code);
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
    "after --device and --devices, the built-in devices; files elsewhere.\n\n"
    "Load it in the current shell, or once for every shell:\n"
    "  source <(hloroof completion bash)            # bash, this shell\n"
    "  hloroof completion bash > ~/.local/share/bash-completion/completions/hloroof\n"
    "  source <(hloroof completion zsh)             # zsh (its bashcompinit)\n",
    run,
    "hloroof completion bash|zsh",
    nullptr,
};

}  // namespace hloroof::cli
