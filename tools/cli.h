// Shared pieces of the command-line tool: argument parsing, exit codes, error printing.
#ifndef HLOROOF_TOOLS_CLI_H_
#define HLOROOF_TOOLS_CLI_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <span>
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
#include "hloroof/xspace.h"

namespace hloroof::cli {

// Exit codes of every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;

// ---- Flags. Each flag and option a command takes is declared once, as a Flag: its name, the
// type of its value, its default and its help. The command's words are parsed by its flags
// (parse_command_args), their values read back typed through the same objects
// (`args.count(kTopFlag)`), and its --help options and `hloroof completion` are made of them.
// `--help` (or `-h`) is taken by every command; `-` alone is positional; anything else that
// starts with `--` and is not declared is a usage error. An option's value comes as
// `--device D` or `--device=D`.
enum class FlagType {
  kSwitch,  // no value: `--json`
  kText,    // any text: `--device D`
  kCount,   // a whole number in [min, max]: `--top N`
  kNumber,  // a positive finite number: `--model-flops 1.2e15`
  kChoice,  // one of `choices`: `--by op`
};

struct Flag {
  std::string_view name;        // "--top"
  FlagType type = FlagType::kSwitch;
  // What help calls the value: `--top N`; a kChoice's choices where empty (`--by op|scope`).
  std::string_view value_name;
  // One paragraph, wrapped to fit under the help's option column; the default is added to it.
  std::string_view help;
  // The value taken when the option is not given, as it would be typed ("20"); the help says
  // "(default 20)". Empty: none (a count reads 0, a text "").
  std::string_view default_value;
  // A default the command works out, in words, where it has no one value: "; default: WORDS".
  std::string_view default_help;
  std::string_view choices;  // kChoice: the values, separated by '|' ("op|category|scope")
  int64_t min = 0;           // kCount: the range of the value
  int64_t max = std::numeric_limits<int64_t>::max();
  bool repeatable = false;   // may be given more than once; all() reads every value
  std::string_view alias;    // a short name ("-o") taken for `name`
};

// The flags of a command, in the order its help lists them.
using Flags = std::span<const Flag* const>;

// The words of a command, parsed by its flags. A flag is read through its declaration (or any
// flag of the same name: the shared ones of this header), the command's own declaration of it
// giving the default.
class Args {
 public:
  std::vector<std::string> positional;

  bool help() const { return help_; }
  // Whether the flag (or option) was given.
  bool has(const Flag& flag) const;
  // A kSwitch flag: whether it was given.
  bool flag(const Flag& flag) const { return has(flag); }
  // The last value given for a kText or kChoice option, else its default.
  std::string text(const Flag& flag) const;
  // A kCount option's value (checked when parsed), else its default.
  int64_t count(const Flag& flag) const;
  // A kNumber option's value (checked when parsed), else its default (0 without one).
  double number(const Flag& flag) const;
  // Every value given for a repeatable option, in order.
  std::vector<std::string> all(const Flag& flag) const;

 private:
  friend absl::StatusOr<Args> parse_args(const std::vector<std::string>& words, Flags flags);
  friend absl::Status check_values(const Args& args);
  const Flag* declared(const Flag& flag) const;

  Flags flags_;
  bool help_ = false;
  std::map<std::string, std::vector<std::string>, std::less<>> values_;  // by flag name
};

// Parses `words` (those after the command name) by `flags`: which words are flags, options and
// their values, positional. Errors: an undeclared option (with the closest name), a flag with a
// value, an option without one, a second value of one not repeatable. The values' types are
// checked by check_values, after --help has had its say.
absl::StatusOr<Args> parse_args(const std::vector<std::string>& words, Flags flags);
// Each value given has its flag's type: "--top wants a non-negative integer, got 'x'".
absl::Status check_values(const Args& args);

// The command's flag list and its help's options section: one entry a flag, `--name VALUE`
// then its help wrapped (with the default said) under one column.
std::string options_help(Flags flags);

// The flags every command that reads a module, or predicts, shares: declared here, each with its
// help as the commands say it. A command that says more of one declares its own of that name.
inline constexpr Flag kJsonFlag{.name = "--json", .help = "one JSON object instead"};
inline constexpr Flag kCsvFlag{.name = "--csv", .help = "one CSV row per item instead"};
inline constexpr Flag kTopFlag{.name = "--top",
                               .type = FlagType::kCount,
                               .value_name = "N",
                               .help = "rows listed; 0: all"};
inline constexpr Flag kTripCountFlag{
    .name = "--trip-count",
    .type = FlagType::kCount,
    .value_name = "N",
    .help = "trip count assumed for loops whose count cannot be told",
    .default_value = "1"};
inline constexpr Flag kDeviceFlag{
    .name = "--device",
    .type = FlagType::kText,
    .value_name = "D",
    .help = "a built-in device (`hloroof devices` lists them), optionally with its topology "
            "(tpu_v5e:4x4, h100:2x8), or a device JSON file"};
inline constexpr Flag kTopologyFlag{.name = "--topology",
                                    .type = FlagType::kText,
                                    .value_name = "T",
                                    .help = "the slice, when --device does not give it"};
inline constexpr Flag kSetFlag{
    .name = "--set",
    .type = FlagType::kText,
    .value_name = "PATH=VALUE",
    .help = "set a figure of the device (hbm.bandwidth=4e12; PATH as `hloroof devices D` lists "
            "the figures, VALUE in the figure's base unit); repeat it for more",
    .repeatable = true};
inline constexpr Flag kModuleFlag{
    .name = "--module",
    .type = FlagType::kText,
    .value_name = "NAME",
    .help = "FILE is an XLA dump directory: read its module NAME",
    .default_help = "the largest jit_* module after optimizations"};
inline constexpr Flag kEntryFlag{
    .name = "--entry",
    .type = FlagType::kText,
    .value_name = "NAME",
    .help = "take computation NAME as the step (a module that marks none ENTRY has no step "
            "time without it)"};
inline constexpr Flag kTraceFlag{.name = "--trace",
                                 .type = FlagType::kText,
                                 .value_name = "OUT.json",
                                 .help = "write a Perfetto trace"};
inline constexpr Flag kModelFlopsFlag{
    .name = "--model-flops",
    .type = FlagType::kNumber,
    .value_name = "F",
    .help = "the model's FLOPs of one step over all devices: gives MFU (model FLOP utilization) "
            "= F / (devices x step time x peak), as MaxText counts it"};
inline constexpr Flag kParamsFlag{
    .name = "--params",
    .type = FlagType::kNumber,
    .value_name = "N",
    .help = "with --tokens D, the same as --model-flops 6ND (a dense model's training step: 6 "
            "FLOPs per parameter per token, attention not counted)"};
inline constexpr Flag kTokensFlag{.name = "--tokens",
                                  .type = FlagType::kNumber,
                                  .value_name = "D",
                                  .help = "the tokens of one step, with --params N"};
inline constexpr Flag kXSpaceFlag{.name = "--xspace",
                                  .type = FlagType::kText,
                                  .value_name = "LOG_DIR",
                                  .help = "write the predicted step as an XProf profile"};
inline constexpr Flag kStepsFlag{.name = "--steps",
                                 .type = FlagType::kCount,
                                 .value_name = "N",
                                 .help = "with --xspace: predicted steps laid end to end",
                                 .default_value = "1",
                                 .min = 1,
                                 .max = kMaxXSpaceSteps};

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

// ---- The options that predict, compare, profile and diff share, parsed once: `--json` or
// `--csv` (one or the other), `--top N`, `--trip-count N`, and where the command takes them,
// `--model-flops F | --params N --tokens D` and `--xspace LOG_DIR [--steps N]`.
struct SharedOptions {
  bool json = false;
  bool csv = false;
  size_t top = 0;              // --top, its default the command's
  int64_t trip_count = 1;      // --trip-count: PredictOptions::default_trip_count
  ModelFlops model_flops;      // model_flops_option
  int64_t steps = 1;           // --steps: XSpaceOptions::steps
};

// The shared options of `args`. Errors (for usage_error): --json with --csv, those of
// model_flops_option, --steps without --xspace.
absl::StatusOr<SharedOptions> parse_shared_options(const Args& args);

// The words of `command` parsed by its flags: std::nullopt where the command ends there, with
// `exit_code` set: its help printed for --help (kExitOk), a usage error for words it does not
// take or values not of their flag's type.
struct Command;
std::optional<Args> parse_command_args(const std::vector<std::string>& words,
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
// them (hloroof/analysis.h; hloroof/threads.h); the command says how many threads.

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
