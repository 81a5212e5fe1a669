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

std::string Args::get(std::string_view name, std::string_view fallback) const {
  auto it = options.find(std::string(name));
  if (it == options.end() || it->second.empty()) return std::string(fallback);
  return it->second.back();
}

namespace {

// "; did you mean '--device'?" for the option of `spec` that `name` is a prefix of, or is at
// most two edits from; "" when none is that close or two are.
std::string did_you_mean(std::string_view name, const ArgSpec& spec) {
  std::vector<std::string_view> known;
  for (const std::set<std::string>* s : {&spec.flags, &spec.options, &spec.repeatable_options}) {
    known.insert(known.end(), s->begin(), s->end());
  }
  const std::string_view best = closest_name(name, known);
  if (best.empty()) return "";
  return absl::StrCat("; did you mean '", sv(best), "'?");
}

}  // namespace

std::vector<std::string> Args::all(std::string_view name) const {
  auto it = options.find(std::string(name));
  return it == options.end() ? std::vector<std::string>() : it->second;
}

ArgSpec accepted_options(ArgSpec spec) {
  spec.flags.insert("--help");
  if (spec.options.count("--device") || spec.options.count("--devices")) {
    spec.repeatable_options.insert("--set");
  }
  return spec;
}

absl::StatusOr<Args> parse_args(const std::vector<std::string>& args, const ArgSpec& given) {
  const ArgSpec spec = accepted_options(given);
  Args out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      out.flags.insert("--help");
      continue;
    }
    if (!absl::StartsWith(a, "--")) {
      out.positional.push_back(a);
      continue;
    }
    std::string name = a;
    std::optional<std::string> value;
    if (size_t eq = a.find('='); eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
    }
    if (spec.flags.count(name)) {
      if (value) return absl::InvalidArgumentError(absl::StrCat(name, " takes no value"));
      out.flags.insert(name);
      continue;
    }
    if (spec.options.count(name) || spec.repeatable_options.count(name)) {
      if (!value) {
        if (i + 1 >= args.size()) {
          return absl::InvalidArgumentError(absl::StrCat(name, " needs a value"));
        }
        value = args[++i];
      }
      auto& values = out.options[name];
      if (!values.empty() && !spec.repeatable_options.count(name)) {
        return absl::InvalidArgumentError(absl::StrCat(name, " given more than once"));
      }
      values.push_back(*value);
      continue;
    }
    return absl::InvalidArgumentError(absl::StrCat("unknown option '", name, "'",
                                                   did_you_mean(name, spec)));
  }
  return out;
}

absl::StatusOr<int64_t> parse_count(absl::string_view option, absl::string_view value) {
  int64_t n = 0;
  if (!absl::SimpleAtoi(value, &n) || n < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(option, " wants a non-negative integer, got '", value, "'"));
  }
  return n;
}

absl::StatusOr<InputFile> read_input(const std::string& path) { return read_input_file(path); }

absl::StatusOr<ModelFlops> model_flops_option(const Args& args) {
  auto number = [&](std::string_view option) -> absl::StatusOr<double> {
    const std::string text = args.get(option);
    double v = 0;
    if (!absl::SimpleAtod(text, &v) || !std::isfinite(v) || v <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(std::string(option),
                                                     " wants a positive number (1.2e15), got '",
                                                     text, "'"));
    }
    return v;
  };
  ModelFlops out;
  const bool flops = args.has("--model-flops");
  const bool params = args.has("--params"), tokens = args.has("--tokens");
  if (flops && (params || tokens)) {
    return absl::InvalidArgumentError("give --model-flops, or --params with --tokens, not both");
  }
  if (flops) {
    absl::StatusOr<double> f = number("--model-flops");
    if (!f.ok()) return f.status();
    out.flops = *f;
    out.note = absl::StrCat("model FLOPs per step ", format_flops(out.flops),
                            " (--model-flops), over every device the module runs on");
    return out;
  }
  if (params != tokens) {
    return absl::InvalidArgumentError("--params and --tokens go together (6 x N x D)");
  }
  if (!params) return out;
  absl::StatusOr<double> n = number("--params");
  if (!n.ok()) return n.status();
  absl::StatusOr<double> d = number("--tokens");
  if (!d.ok()) return d.status();
  out.flops = 6 * *n * *d;
  if (!std::isfinite(out.flops)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--params %g x --tokens %g: the model FLOPs 6 x N x D pass what a double holds "
        "(1.8e308)", *n, *d));
  }
  out.note = absl::StrCat(
      "model FLOPs per step 6 x N x D = 6 x ", absl::StrFormat("%.4g", *n), " parameters x ",
      absl::StrFormat("%.4g", *d),
      " tokens = ", format_flops(out.flops),
      ": a dense model's training step, 2 FLOPs per parameter per token forward and 4 backward, "
      "attention's own FLOPs not counted (the scaling book's and MaxText's convention); for "
      "inference give --model-flops 2ND");
  return out;
}

ArgSpec with_shared_options(ArgSpec spec, unsigned which) {
  spec.flags.insert({"--json", "--csv"});
  spec.options.insert({"--top", "--trip-count"});
  if (which & kModelFlopsOptions) spec.options.insert({"--model-flops", "--params", "--tokens"});
  if (which & kXSpaceOptions) spec.options.insert({"--xspace", "--steps"});
  return spec;
}

absl::StatusOr<SharedOptions> parse_shared_options(const Args& args, size_t top) {
  SharedOptions out;
  out.json = args.flag("--json");
  out.csv = args.flag("--csv");
  if (out.json && out.csv) return absl::InvalidArgumentError("--json and --csv: one or the other");
  if (args.has("--trip-count")) {
    absl::StatusOr<int64_t> n = parse_count("--trip-count", args.get("--trip-count"));
    if (!n.ok()) return n.status();
    out.trip_count = *n;
  }
  absl::StatusOr<ModelFlops> model_flops = model_flops_option(args);
  if (!model_flops.ok()) return model_flops.status();
  out.model_flops = *std::move(model_flops);
  out.top = top;
  if (args.has("--top")) {
    absl::StatusOr<int64_t> n = parse_count("--top", args.get("--top"));
    if (!n.ok()) return n.status();
    out.top = static_cast<size_t>(*n);
  }
  if (args.has("--steps")) {
    if (!args.has("--xspace")) return absl::InvalidArgumentError("--steps needs --xspace");
    absl::StatusOr<int64_t> n = parse_count("--steps", args.get("--steps"));
    if (!n.ok()) return n.status();
    if (*n < 1 || *n > kMaxXSpaceSteps) {
      return absl::InvalidArgumentError(
          absl::StrCat("--steps: ", *n, " is not in [1, ", kMaxXSpaceSteps, "]"));
    }
    out.steps = *n;
  }
  return out;
}

void print_help(const Command& command) {
  if (!command.usage.empty()) std::cout << "usage: " << command.usage << "\n\n";
  std::cout << command.help;
}

std::optional<Args> parse_command_args(const std::vector<std::string>& words, const ArgSpec& spec,
                                       const Command& command, int& exit_code) {
  absl::StatusOr<Args> args = parse_args(words, spec);
  if (!args.ok()) {
    exit_code = usage_error(args.status().message(), command.usage);
    return std::nullopt;
  }
  if (args->flag("--help")) {
    print_help(command);
    exit_code = kExitOk;
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
