// `hloroof parse FILE... [--print | --json]`: does HLO text load, and what is in it.
#include <filesystem>
#include <iostream>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/hlo_text.h"
#include "hloroof/load.h"
#include "hloroof/summary_json.h"
#include "input.h"
#include "hloroof/text_safety.h"

namespace hloroof::cli {
namespace {

constexpr Flag kPrint{.name = "--print",
                      .help = "write each module as canonical HLO text (the current dump profile)"};
constexpr Flag kModule{.name = "--module",
                       .type = FlagType::kText,
                       .value_name = "NAME",
                       .help = "the module of a profile to read (jit_step, jit_step(12) or 12)"};
constexpr Flag kJson{
    .name = "--json",
    .help = "one JSON object per file: file, ok, module, computations, instructions, opcodes "
            "(opcode -> count), entry_marked (false: no computation is marked ENTRY and the last "
            "one is taken), warnings; on failure error {line, column, message}"};

// The flags and options the command takes, in the order its help lists them.
constexpr const Flag* kFlags[] = {&kPrint, &kModule, &kJson};

int run(const std::vector<std::string>& words) {
  int exit_code = kExitOk;
  std::optional<Args> args = parse_command_args(words, kParseCommand, exit_code);
  if (!args) return exit_code;
  if (args->positional.empty()) {
    return usage_error("expected at least one file", kParseCommand.usage);
  }
  const bool json = args->flag(kJson);
  const bool print_text = args->flag(kPrint);
  if (json && print_text) {
    return usage_error("--print and --json exclude each other", kParseCommand.usage);
  }

  // A dump directory stands for its modules after optimization, largest first.
  std::vector<std::string> files;
  for (const std::string& path : args->positional) {
    std::error_code error;
    if (path == "-" || !std::filesystem::is_directory(path, error)) {
      files.push_back(path);
      continue;
    }
    absl::StatusOr<std::vector<DumpModule>> modules = dump_modules(path);
    if (!modules.ok()) return fail(modules.status());
    for (const DumpModule& m : *modules) files.push_back(m.file);
  }

  LoadOptions options = cli_load_options();
  options.module_name = args->text(kModule);
  options.module_name_everywhere = false;
  options.stdin_name = "<stdin>";
  for (const std::string& file : files) {
    absl::StatusOr<LoadedModule> loaded = load_module(file, options);
    absl::StatusOr<Module> module = absl::UnknownError("unread");
    std::vector<std::string> warnings;
    if (loaded.ok()) {
      // A profile's note: which of its modules was read.
      for (const std::string& n : loaded->diagnostics.notes) print_message("note: ", n);
      module = std::move(loaded->module);
      // What parsing found: which computation is the entry, where a cut dump was cut (the
      // warning load_module gives it). Whether the module is the optimized program is a
      // question for the commands that predict from it, and they say so.
      if (!loaded->banner.empty()) warnings.push_back(std::move(loaded->banner));
      for (std::string& w : loaded->diagnostics.warnings) {
        if (w.rfind("the file ends inside computation ", 0) == 0) warnings.push_back(std::move(w));
      }
    } else {
      module = loaded.status();
    }
    if (!module.ok()) {
      exit_code = kExitBadInput;
      if (json) {
        std::cout << parse_failure_to_json(file, module.status());
      } else {
        fail(module.status());
      }
      continue;
    }
    if (json) {
      std::cout << parse_summary_to_json(file, *module, warnings);
    } else {
      if (print_text) {
        std::cout << print(*module);
      } else {
        // The file's and module's names as every path prints: control characters escaped (a
        // file named `x\e[2J.hlo` must not clear the screen).
        std::cout << absl::StrFormat("%s: ok, module %s, %d computations, %d instructions\n",
                                     printable(file), printable(module->name()),
                                     module->computations().size(), module->instruction_count());
      }
      for (const std::string& w : warnings) {
        print_message("warning: ", printable(absl::StrCat(file, ": ", w)));
      }
    }
    if (&file == &files.back()) keep_until_exit(*std::move(module));
  }
  return exit_code;
}

}  // namespace

const Command kParseCommand = {
    "parse",
    "check that HLO text parses; print it canonically or summarize it",
    "Parses each file (`-` reads standard input) and reports success or the first error as\n"
    "FILE:LINE:COLUMN: error: MESSAGE with the offending line. Exits 1 if any file fails.\n"
    "Files are told by their content: HLO text, an HloProto or HloModuleProto (*.hlo.pb), or\n"
    "an XSpace profile (*.xplane.pb: the module it carries that ran longest, or --module).\n"
    "A directory that XLA_FLAGS=--xla_dump_to wrote stands for its modules after optimization\n"
    "(*after_optimizations.txt), largest first: `hloroof parse DIR` lists them. Warns when a\n"
    "module marks no ENTRY computation (whether it is the optimized program, the commands\n"
    "that predict from it say). A file that ends inside a computation (a cut dump) is read\n"
    "up to that computation, with a warning, as every command reads it (standard input is\n"
    "not: its text cannot be read again).\n",
    run,
    "hloroof parse FILE... [--print | --json] [--module NAME]",
    kFlags,
    {},
    "example:\n"
    "  hloroof parse model.hlo --json\n",
};

}  // namespace hloroof::cli
