// hloroof: reads XLA HLO text and predicts, without running anything, how long a step takes.
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "cli.h"
#include "commands.h"
#include "hloroof/version.h"
#include "hloroof/edit_distance.h"
#include "hloroof/huge_pages.h"
#include "standard_output.h"

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
    &hloroof::cli::kCompletionCommand,
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

// `error: unknown command 'WORD'`, with the closest command when one is close, and the
// overview.
int unknown_command(const std::string& word) {
  std::vector<std::string_view> names;
  for (const Command* c : kCommands) names.push_back(c->name);
  const std::string_view best = hloroof::closest_name(word, names);
  hloroof::cli::print_message(
      "error: ", "unknown command '" + word + "'" +
                     (best.empty() ? "" : "; did you mean '" + std::string(best) + "'?"));
  std::cerr << "\n";
  print_overview(std::cerr);
  return hloroof::cli::kExitUsage;
}

constexpr char kOutOfMemory[] =
    "error: out of memory: the input needs more memory than this machine (or its ulimit -v)\n"
    "  gives; no output file was replaced\n";

// An allocation that fails, on any thread, ends the process through std::terminate (nothing
// catches std::bad_alloc, so no stack is unwound under a thread still at work): said as an
// error (exit 1), not SIGABRT. Other uncaught exceptions abort as before.
[[noreturn]] void on_terminate() {
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      (void)!::write(STDERR_FILENO, kOutOfMemory, sizeof(kOutOfMemory) - 1);
      std::_Exit(hloroof::cli::kExitBadInput);
    } catch (...) {
    }
  }
  std::abort();
}

}  // namespace

std::span<const Command* const> hloroof::cli::all_commands() { return kCommands; }

namespace {

int run_command(int argc, char** argv) {
  hloroof::detail::back_heap_with_huge_pages(size_t{1} << 30);
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
  // Every thread allocates from that one heap (`compare` predicts its devices side by side): a
  // thread's heap of its own would take 4 KiB pages (a fault each, where a huge page of the one
  // heap faults once for 512) and keep what it frees from the other threads.
  (void)mallopt(M_ARENA_MAX, 1);
#endif
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
      return unknown_command(words[1]);
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
  return unknown_command(words[0]);
}

}  // namespace

int main(int argc, char** argv) {
  std::set_terminate(on_terminate);
  hloroof::cli::take_standard_output();
  return hloroof::cli::finish_standard_output(run_command(argc, argv));
}
