// Shared pieces of the command-line tool: argument parsing, exit codes, error printing.
#ifndef HLOROOF_TOOLS_CLI_H_
#define HLOROOF_TOOLS_CLI_H_

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hloroof/device.h"
#include "hloroof/device_target.h"
#include "hloroof/input_file.h"
#include "hloroof/module.h"

namespace hloroof::cli {

// Exit codes of every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;

// What a command accepts: boolean flags (`--json`) and options with a value (`--device D` or
// `--device=D`). Anything else that starts with `--` is a usage error; `-` alone is positional.
struct ArgSpec {
  std::set<std::string> flags;
  std::set<std::string> options;
  std::set<std::string> repeatable_options;  // may be given more than once
};

struct Args {
  std::vector<std::string> positional;
  std::set<std::string> flags;
  std::map<std::string, std::vector<std::string>> options;

  bool flag(std::string_view name) const { return flags.count(std::string(name)) > 0; }
  bool has(std::string_view name) const { return options.count(std::string(name)) > 0; }
  // The last value given for an option, or `fallback`.
  std::string get(std::string_view name, std::string_view fallback = "") const;
  // Every value given for a repeatable option, in order.
  std::vector<std::string> all(std::string_view name) const;
};

// Parses `args` (the words after the command name) by accepted_options(spec).
absl::StatusOr<Args> parse_args(const std::vector<std::string>& args, const ArgSpec& spec);
// What a command of `spec` accepts: `--help` (or `-h`) as well, and where it takes `--device`
// or `--devices`, `--set PATH=VALUE`, repeatable (DeviceTargetOptions::settings).
ArgSpec accepted_options(ArgSpec spec);

// Parses a non-negative integer option value; a usage error names the option otherwise.
absl::StatusOr<int64_t> parse_count(absl::string_view option, absl::string_view value);

// Reads a whole input file, or standard input for "-", with the checks of read_input_file.
absl::StatusOr<InputFile> read_input(const std::string& path);

// The model's FLOPs of one step over all devices, for MFU: `--model-flops F`, or `--params N`
// with `--tokens D` counted as 6 x N x D. 0 when neither is given; `note` (for the assumptions)
// says how it was counted. Errors: a value that is not a positive number, --model-flops with
// --params, --params without --tokens or the reverse.
struct ModelFlops {
  double flops = 0;
  std::string note;
};
absl::StatusOr<ModelFlops> model_flops_option(const Args& args);

// ---- The options that predict, compare, profile and diff share, declared and parsed once:
// `--json` or `--csv` (one or the other), `--top N`, `--trip-count N`, and where the command
// takes them, `--model-flops F | --params N --tokens D` and `--xspace LOG_DIR [--steps N]`.
enum SharedOption : unsigned {
  kOutputOptions = 0,      // --json, --csv, --top, --trip-count: every one of them
  kModelFlopsOptions = 1,  // --model-flops, --params, --tokens
  kXSpaceOptions = 2,      // --xspace, --steps
};

// `spec` with the shared options of `which` (kOutputOptions | ...) added.
ArgSpec with_shared_options(ArgSpec spec, unsigned which);

struct SharedOptions {
  bool json = false;
  bool csv = false;
  size_t top = 0;              // --top, else the command's default
  int64_t trip_count = 1;      // --trip-count: PredictOptions::default_trip_count
  ModelFlops model_flops;      // model_flops_option
  int64_t steps = 1;           // --steps: XSpaceOptions::steps
};

// The shared options of `args`, `top` their --top's default. Errors (for usage_error): --json
// with --csv, a count that is not one, those of model_flops_option, --steps without --xspace or
// out of [1, kMaxXSpaceSteps].
absl::StatusOr<SharedOptions> parse_shared_options(const Args& args, size_t top);

// The words of `command` parsed by `spec`: std::nullopt where the command ends there, with
// `exit_code` set: its help printed for --help (kExitOk), a usage error for words it does not
// take.
struct Command;
std::optional<Args> parse_command_args(const std::vector<std::string>& words, const ArgSpec& spec,
                                       const Command& command, int& exit_code);

// CSV (RFC 4180) for the op tables' --csv: one line of cells, each quoted when it holds a comma,
// a quote or a line break (its quotes doubled), ending in "\n". Numbers (csv_number) printed
// in the fewest digits that read back as the same double ("3", "0.1"); a missing value is an
// empty cell.
std::string csv_line(const std::vector<std::string>& cells);
std::string csv_number(double value);
// A table of many rows is written cell by cell: report_internal::append_csv_cell and
// append_csv_number (report/csv_text.h), which these two use.

// The one way a message reaches stderr: `prefix` ("error: ", "warning: ", "note: ", or "")
// and `message`, its control characters escaped (printable: names come from files) and each
// of its lines that exceeds 100 columns word-wrapped, continued on lines indented two spaces
// past the line's own indent. A word longer than a line (a path) is cut at the edge.
std::string message_text(std::string_view prefix, std::string_view message);
void print_message(std::string_view prefix, std::string_view message);

// Prints the error on stderr (print_message) and returns kExitBadInput: `error: MESSAGE`,
// except that a diagnostic located in a file (`model.hlo:3:5: error: ...`) prints as it is,
// and a bare `3:5: error: ...` becomes `error: 3:5: ...`.
int fail(const absl::Status& status);
// Prints `error: MESSAGE` (print_message) and the usage line on stderr and returns kExitUsage.
int usage_error(absl::string_view message, std::string_view usage);

// ---- Devices: one syntax for every command, `DEVICE[:TOPOLOGY]`, resolved by the library
// (resolve_device, hloroof/device_target.h).

// The devices of `--devices "a, b:2x2,c"`: comma-separated, spaces around names ignored; a
// piece `slices=S` belongs to the topology before it. Errors: an empty name.
absl::StatusOr<std::vector<std::string>> split_device_list(std::string_view list);

// Hands a command's large results (the module read, predictions, reports) over to the end of
// the process instead of destroying them: when the command is about to exit, walking and freeing
// every node and record is work the kernel does at once on exit (about 5% of `predict`). They
// stay reachable, so leak checkers do not count them. Called once, at the end of a successful
// command, from the main thread: `keep_until_exit(std::move(loaded), std::move(prediction));`
template <typename... T>
void keep_until_exit(T&&... objects);

// ---- Work at the same time. Analyses of one module only read it (and the device spec): the
// predictions on several devices run side by side (`compare`), the memory analysis beside the
// prediction (`predict`, `advise`), and the trace is written while the text report and its
// advice are made, each a task (tests/predict/concurrent_analysis_test.cc). The library runs
// them (hloroof/analysis.h; util/threads.h); the command says how many threads.

// The threads that run at once: $HLOROOF_THREADS where it is a whole number from 1 to 1024 (a
// machine shared with other work, or a many-core machine's figures reproduced on a small one),
// else std::thread::hardware_concurrency(), 1 where it is unknown.
int cores();

// The threads that make the pieces of one output file or stream (a trace, the JSON or CSV of
// the ops): cores(), at most 4. Each holds the piece it makes (up to 512 KiB for a trace), and
// one stream takes the pieces in order: sixteen made gemma3's trace no sooner and held 11.3
// bytes per input byte at the peak, against 9.1 with two.
int writer_threads();

// ---- Details of the templates above.

namespace internal {
template <typename T>
void keep_one(T&& object) {
  static_assert(!std::is_lvalue_reference_v<T>, "keep_until_exit takes objects moved in");
  static auto* const kKept = new std::vector<std::remove_cvref_t<T>>();
  kKept->push_back(std::move(object));
}
}  // namespace internal

template <typename... T>
void keep_until_exit(T&&... objects) {
  (internal::keep_one(std::forward<T>(objects)), ...);
}

}  // namespace hloroof::cli

#endif  // HLOROOF_TOOLS_CLI_H_
