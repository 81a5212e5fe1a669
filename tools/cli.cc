#include "cli.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "commands.h"
#include "hloroof/platform.h"
#include "hloroof/topology.h"
#include "hloroof/units.h"
#include "hloroof/xspace.h"
#include "hloroof/csv_text.h"
#include "hloroof/wrap.h"
#include "hloroof/absl_compat.h"
#include "hloroof/edit_distance.h"
#include "hloroof/text_safety.h"
#include "re2/re2.h"

namespace hloroof::cli {

namespace {

// "; did you mean '--device'?" for the flag of `flags` that `name` is a prefix of, or is at
// most two edits from; "" when none is that close or two are.
std::string did_you_mean(std::string_view name, Flags flags) {
  std::vector<std::string_view> known = {"--help"};
  for (const Flag* f : flags) known.push_back(f->name);
  const std::string_view best = closest_name(name, known);
  if (best.empty()) return "";
  return absl::StrCat("; did you mean '", sv(best), "'?");
}

// A count's value, or why it is not one of the flag's.
absl::StatusOr<int64_t> count_value(const Flag& flag, std::string_view text) {
  int64_t n = 0;
  if (!absl::SimpleAtoi(sv(text), &n) || n < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        sv(flag.name), " wants a non-negative integer, got '", sv(text), "'"));
  }
  if (n < flag.min || n > flag.max) {
    return absl::InvalidArgumentError(
        absl::StrCat(sv(flag.name), ": ", n, " is not in [", flag.min, ", ", flag.max, "]"));
  }
  return n;
}

// A positive number's value, or why it is not one.
absl::StatusOr<double> number_value(const Flag& flag, std::string_view text) {
  double v = 0;
  if (!absl::SimpleAtod(sv(text), &v) || !std::isfinite(v) || v <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        sv(flag.name), " wants a positive number (1.2e15), got '", sv(text), "'"));
  }
  return v;
}

// The choices of a kChoice flag.
std::vector<std::string_view> choices_of(const Flag& flag) {
  std::vector<std::string_view> out;
  for (absl::string_view c : absl::StrSplit(sv(flag.choices), '|', absl::SkipEmpty())) {
    out.emplace_back(c.data(), c.size());
  }
  return out;
}

// "op, category or scope".
std::string said_as_list(const std::vector<std::string_view>& words) {
  std::string out;
  for (size_t k = 0; k < words.size(); ++k) {
    if (k > 0) out += k + 1 == words.size() ? " or " : ", ";
    out += words[k];
  }
  return out;
}

absl::Status check_value(const Flag& flag, std::string_view text) {
  switch (flag.type) {
    case FlagType::kCount:
      return count_value(flag, text).status();
    case FlagType::kNumber:
      return number_value(flag, text).status();
    case FlagType::kChoice: {
      const std::vector<std::string_view> choices = choices_of(flag);
      if (std::find(choices.begin(), choices.end(), text) != choices.end()) {
        return absl::OkStatus();
      }
      return absl::InvalidArgumentError(absl::StrCat(sv(flag.name), " wants ",
                                                     said_as_list(choices), ", got '", sv(text),
                                                     "'"));
    }
    case FlagType::kSwitch:
    case FlagType::kText:
      break;
  }
  return absl::OkStatus();
}

}  // namespace

const Flag* Args::declared(const Flag& flag) const {
  for (const Flag* f : flags_) {
    if (f->name == flag.name) return f;
  }
  return nullptr;
}

bool Args::has(const Flag& flag) const { return values_.find(flag.name) != values_.end(); }

std::string Args::text(const Flag& flag) const {
  if (auto it = values_.find(flag.name); it != values_.end() && !it->second.empty()) {
    return it->second.back();
  }
  const Flag* own = declared(flag);
  return std::string(own != nullptr ? own->default_value : flag.default_value);
}

int64_t Args::count(const Flag& flag) const {
  const Flag* own = declared(flag);
  const std::string value = text(flag);
  if (value.empty()) return 0;
  absl::StatusOr<int64_t> n = count_value(own != nullptr ? *own : flag, value);
  return n.ok() ? *n : 0;  // check_values checked the values given and the default
}

double Args::number(const Flag& flag) const {
  const Flag* own = declared(flag);
  const std::string value = text(flag);
  if (value.empty()) return 0;
  absl::StatusOr<double> v = number_value(own != nullptr ? *own : flag, value);
  return v.ok() ? *v : 0;
}

std::vector<std::string> Args::all(const Flag& flag) const {
  auto it = values_.find(flag.name);
  return it == values_.end() ? std::vector<std::string>() : it->second;
}

absl::StatusOr<Args> parse_args(const std::vector<std::string>& words, Flags flags) {
  Args out;
  out.flags_ = flags;
  auto find = [&](std::string_view name) -> const Flag* {
    for (const Flag* f : flags) {
      if (f->name == name || (!f->alias.empty() && f->alias == name)) return f;
    }
    return nullptr;
  };
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& a = words[i];
    if (a == "-h" || a == "--help") {
      out.help_ = true;
      continue;
    }
    // A short alias (`-o`) is a flag; any other word not starting with `--` is positional.
    const Flag* flag = absl::StartsWith(a, "-") && !absl::StartsWith(a, "--") ? find(a) : nullptr;
    if (flag == nullptr && !absl::StartsWith(a, "--")) {
      out.positional.push_back(a);
      continue;
    }
    std::string name = a;
    std::optional<std::string> value;
    if (flag == nullptr) {
      if (size_t eq = a.find('='); eq != std::string::npos) {
        name = a.substr(0, eq);
        value = a.substr(eq + 1);
      }
      flag = find(name);
    }
    if (flag == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown option '", name, "'", did_you_mean(name, flags)));
    }
    name = std::string(flag->name);
    if (flag->type == FlagType::kSwitch) {
      if (value) return absl::InvalidArgumentError(absl::StrCat(name, " takes no value"));
      out.values_[name];
      continue;
    }
    if (!value) {
      if (i + 1 >= words.size()) {
        return absl::InvalidArgumentError(absl::StrCat(name, " needs a value"));
      }
      value = words[++i];
    }
    std::vector<std::string>& values = out.values_[name];
    if (!values.empty() && !flag->repeatable) {
      return absl::InvalidArgumentError(absl::StrCat(name, " given more than once"));
    }
    values.push_back(*std::move(value));
  }
  return out;
}

absl::Status check_values(const Args& args) {
  for (const Flag* f : args.flags_) {
    // A default is read as a given value is: one not of its flag's type is the command's error.
    if (!f->default_value.empty()) {
      if (absl::Status s = check_value(*f, f->default_value); !s.ok()) {
        return absl::InternalError(absl::StrCat("the default of ", s.message()));
      }
    }
    auto it = args.values_.find(f->name);
    if (it == args.values_.end()) continue;
    for (const std::string& value : it->second) {
      if (absl::Status s = check_value(*f, value); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

namespace {

// The width of the help's lines (as the commands' own paragraphs are wrapped), and the widest
// `--name VALUE` that its help follows on the same line.
constexpr size_t kHelpWidth = 92;
constexpr size_t kWidestLabel = 18;

// `text` word-wrapped to kHelpWidth columns after `first`, later lines indented by `indent`.
std::string wrap_help(std::string_view text, std::string first, size_t indent) {
  std::string out = std::move(first);
  size_t column = out.size();
  bool line_empty = true;
  for (absl::string_view word : absl::StrSplit(sv(text), ' ', absl::SkipEmpty())) {
    if (!line_empty && column + 1 + word.size() > kHelpWidth) {
      out += '\n';
      out.append(indent, ' ');
      column = indent;
      line_empty = true;
    }
    if (!line_empty) {
      out += ' ';
      ++column;
    }
    out.append(word.data(), word.size());
    column += word.size();
    line_empty = false;
  }
  return out + "\n";
}

std::string label_of(const Flag& f) {
  std::string label = f.alias.empty() ? "" : absl::StrCat(sv(f.alias), ", ");
  absl::StrAppend(&label, sv(f.name));
  if (f.type == FlagType::kChoice && f.value_name.empty()) {
    absl::StrAppend(&label, " ", sv(f.choices));
  } else if (f.type != FlagType::kSwitch) {
    absl::StrAppend(&label, " ", sv(f.value_name));
  }
  return label;
}

}  // namespace

std::string options_help(Flags flags) {
  size_t width = 0;
  for (const Flag* f : flags) {
    const size_t size = label_of(*f).size();
    if (size <= kWidestLabel) width = std::max(width, size);
  }
  const size_t indent = 2 + width + 2;
  std::string out;
  for (const Flag* f : flags) {
    std::string help(f->help);
    if (!f->default_value.empty()) {
      absl::StrAppend(&help, " (default ", sv(f->default_value), ")");
    } else if (!f->default_help.empty()) {
      absl::StrAppend(&help, "; default: ", sv(f->default_help));
    }
    const std::string label = absl::StrCat("  ", label_of(*f));
    if (label.size() + 2 > indent) {
      out += label + "\n";
      out += wrap_help(help, std::string(indent, ' '), indent);
    } else {
      out += wrap_help(help, label + std::string(indent - label.size(), ' '), indent);
    }
  }
  return out;
}

absl::StatusOr<InputFile> read_input(const std::string& path) { return read_input_file(path); }

absl::StatusOr<ModelFlops> model_flops_option(const Args& args) {
  ModelFlops out;
  const bool flops = args.has(kModelFlopsFlag);
  const bool params = args.has(kParamsFlag), tokens = args.has(kTokensFlag);
  if (flops && (params || tokens)) {
    return absl::InvalidArgumentError("give --model-flops, or --params with --tokens, not both");
  }
  if (flops) {
    out.flops = args.number(kModelFlopsFlag);
    out.note = absl::StrCat("model FLOPs per step ", format_flops(out.flops),
                            " (--model-flops), over every device the module runs on");
    return out;
  }
  if (params != tokens) {
    return absl::InvalidArgumentError("--params and --tokens go together (6 x N x D)");
  }
  if (!params) return out;
  const double n = args.number(kParamsFlag), d = args.number(kTokensFlag);
  out.flops = 6 * n * d;
  if (!std::isfinite(out.flops)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--params %g x --tokens %g: the model FLOPs 6 x N x D pass what a double holds "
        "(1.8e308)", n, d));
  }
  out.note = absl::StrCat(
      "model FLOPs per step 6 x N x D = 6 x ", absl::StrFormat("%.4g", n), " parameters x ",
      absl::StrFormat("%.4g", d),
      " tokens = ", format_flops(out.flops),
      ": a dense model's training step, 2 FLOPs per parameter per token forward and 4 backward, "
      "attention's own FLOPs not counted (the scaling book's and MaxText's convention); for "
      "inference give --model-flops 2ND");
  return out;
}

absl::StatusOr<SharedOptions> parse_shared_options(const Args& args) {
  SharedOptions out;
  out.json = args.flag(kJsonFlag);
  out.csv = args.flag(kCsvFlag);
  if (out.json && out.csv) return absl::InvalidArgumentError("--json and --csv: one or the other");
  out.trip_count = args.count(kTripCountFlag);
  absl::StatusOr<ModelFlops> model_flops = model_flops_option(args);
  if (!model_flops.ok()) return model_flops.status();
  out.model_flops = *std::move(model_flops);
  out.top = static_cast<size_t>(args.count(kTopFlag));
  if (args.has(kStepsFlag) && !args.has(kXSpaceFlag)) {
    return absl::InvalidArgumentError("--steps needs --xspace");
  }
  out.steps = args.count(kStepsFlag);
  return out;
}

void print_help(const Command& command) {
  if (!command.usage.empty()) std::cout << "usage: " << command.usage << "\n\n";
  std::cout << command.about;
  if (!command.flags.empty()) std::cout << "\noptions:\n" << options_help(command.flags);
  if (!command.notes.empty()) std::cout << command.notes;
  if (!command.examples.empty()) std::cout << "\n" << command.examples;
}

std::optional<Args> parse_command_args(const std::vector<std::string>& words,
                                       const Command& command, int& exit_code) {
  absl::StatusOr<Args> args = parse_args(words, command.flags);
  if (!args.ok()) {
    exit_code = usage_error(args.status().message(), command.usage);
    return std::nullopt;
  }
  if (args->help()) {
    print_help(command);
    exit_code = kExitOk;
    return std::nullopt;
  }
  if (absl::Status s = check_values(*args); !s.ok()) {
    exit_code = usage_error(s.message(), command.usage);
    return std::nullopt;
  }
  return *std::move(args);
}

std::string csv_line(const std::vector<std::string>& cells) {
  std::string out;
  for (size_t k = 0; k < cells.size(); ++k) {
    if (k > 0) out += ',';
    report_internal::append_csv_cell(out, cells[k]);
  }
  return out + "\n";
}

std::string csv_number(double value) {
  std::string out;
  report_internal::append_csv_number(out, value);
  return out;
}

std::string message_text(std::string_view prefix, std::string_view message) {
  // A message quotes what it read (a device kind, a name): one from a hostile file could be
  // megabytes. Its head and tail are kept, the middle said in bytes.
  constexpr size_t kMaxMessageBytes = 4096;
  std::string clipped;
  if (message.size() > kMaxMessageBytes) {
    clipped = absl::StrCat(sv(message.substr(0, kMaxMessageBytes - 512)), " [... ",
                           message.size() - kMaxMessageBytes + 256, " bytes left out ...] ",
                           sv(message.substr(message.size() - 256)));
    message = clipped;
  }
  std::string out;
  bool first = true;
  for (absl::string_view piece : absl::StrSplit(sv(message), '\n')) {
    // Names in messages come from files (ops, planes, paths): their control characters print
    // escaped, line by line, so that no message can drive the terminal.
    const std::string line = printable(sv(piece));
    const std::string lead = first ? std::string(prefix) : std::string();
    first = false;
    if (lead.size() + line.size() <= report_internal::kTerminalWidth) {
      absl::StrAppend(&out, lead, line, "\n");
      continue;
    }
    // A source line under a caret is never this long (format_diagnostic cuts it to fit).
    const size_t indent = line.find_first_not_of(' ');
    const std::string own(line.substr(0, indent == std::string::npos ? 0 : indent));
    out += report_internal::wrap(std::string_view(line).substr(own.size()),
                                 absl::StrCat(lead, own), absl::StrCat(own, "  "));
  }
  return out;
}

void print_message(std::string_view prefix, std::string_view message) {
  std::cerr << message_text(prefix, message);
}

int fail(const absl::Status& status) {
  static const RE2 kFileDiagnostic(R"(^[^\s:][^:\n]*:\d+:\d+: error: )");
  static const RE2 kBareLocation(R"(^(\d+:\d+): error: )");
  std::string message(sv(status.message()));
  if (RE2::PartialMatch(message, kFileDiagnostic)) {
    // Already `file:line:column: error: ...`, the form editors and tools understand.
    print_message("", message);
  } else {
    RE2::Replace(&message, kBareLocation, "\\1: ");
    print_message("error: ", message);
  }
  return kExitBadInput;
}

int usage_error(absl::string_view message, std::string_view usage) {
  print_message("error: ", sv(message));
  std::cerr << "usage: " << usage << "\n";
  return kExitUsage;
}

absl::StatusOr<std::vector<std::string>> split_device_list(std::string_view list) {
  std::vector<std::string> devices;
  for (absl::string_view piece : absl::StrSplit(sv(list), ',')) {
    piece = absl::StripAsciiWhitespace(piece);
    if (absl::StartsWith(piece, "slices=") && !devices.empty()) {
      absl::StrAppend(&devices.back(), ",", piece);
    } else if (piece.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--devices: empty name in '", std::string(list), "'"));
    } else {
      devices.emplace_back(piece);
    }
  }
  return devices;
}

int cores() {
  static const int count = [] {
    const int machine = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (const char* given = std::getenv("HLOROOF_THREADS"); given != nullptr) {
      int n = 0;
      const char* end = given + std::strlen(given);
      if (auto [p, error] = std::from_chars(given, end, n);
          error == std::errc() && p == end && n >= 1 && n <= 1024) {
        return n;
      }
      print_message("warning: ", printable(absl::StrCat(
                                     "HLOROOF_THREADS='", given, "' is not a whole number from 1 "
                                     "to 1024; ", machine, " threads used (the machine's cores)")));
    }
    return machine;
  }();
  return count;
}

int writer_threads() { return std::min(cores(), 4); }

}  // namespace hloroof::cli
