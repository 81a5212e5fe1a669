#include "cli.h"

#include <iostream>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "re2/re2.h"

namespace hloroof::cli {

std::string Args::get(std::string_view name, std::string_view fallback) const {
  auto it = options.find(std::string(name));
  if (it == options.end() || it->second.empty()) return std::string(fallback);
  return it->second.back();
}

absl::StatusOr<Args> parse_args(const std::vector<std::string>& args, const ArgSpec& spec) {
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
    return absl::InvalidArgumentError(absl::StrCat("unknown option '", name, "'"));
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

std::string json_text(const nlohmann::ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

int fail(const absl::Status& status) {
  static const RE2 kFileDiagnostic(R"(^[^\s:][^:\n]*:\d+:\d+: error: )");
  static const RE2 kBareLocation(R"(^(\d+:\d+): error: )");
  std::string message(status.message());
  if (RE2::PartialMatch(message, kFileDiagnostic)) {
    // Already `file:line:column: error: ...`, the form editors and tools understand.
    std::cerr << message << "\n";
  } else {
    RE2::Replace(&message, kBareLocation, "\\1: ");
    std::cerr << "error: " << message << "\n";
  }
  return kExitBadInput;
}

int usage_error(absl::string_view message, std::string_view usage) {
  std::cerr << "error: " << message << "\nusage: " << usage << "\n";
  return kExitUsage;
}

}  // namespace hloroof::cli
