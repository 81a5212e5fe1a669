#include "cli.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hloroof/platform.h"
#include "hloroof/topology.h"
#include "hloroof/units.h"
#include "util/absl_compat.h"
#include "util/checked_math.h"
#include "util/text_safety.h"
#include "re2/re2.h"

namespace hloroof::cli {

std::string Args::get(std::string_view name, std::string_view fallback) const {
  auto it = options.find(std::string(name));
  if (it == options.end() || it->second.empty()) return std::string(fallback);
  return it->second.back();
}

namespace {

// Edits (insert, delete, substitute one character) from `a` to `b`.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// "; did you mean '--device'?" for the option of `spec` that `name` is a prefix of, or is at
// most two edits from; "" when none is that close or two are.
std::string did_you_mean(std::string_view name, const ArgSpec& spec) {
  std::vector<std::string_view> known;
  for (const std::set<std::string>* s : {&spec.flags, &spec.options, &spec.repeatable_options}) {
    known.insert(known.end(), s->begin(), s->end());
  }
  std::string_view best;
  size_t best_distance = 3;
  bool tie = false;
  for (std::string_view k : known) {
    const size_t d = absl::StartsWith(sv(k), sv(name)) ? 1 : edit_distance(name, k);
    if (d < best_distance) {
      best = k;
      best_distance = d;
      tie = false;
    } else if (d == best_distance) {
      tie = true;
    }
  }
  if (best.empty() || tie) return "";
  return absl::StrCat("; did you mean '", sv(best), "'?");
}

}  // namespace

std::vector<std::string> Args::all(std::string_view name) const {
  auto it = options.find(std::string(name));
  return it == options.end() ? std::vector<std::string>() : it->second;
}

absl::StatusOr<Args> parse_args(const std::vector<std::string>& args, const ArgSpec& given) {
  ArgSpec spec = given;
  if (spec.options.count("--device") || spec.options.count("--devices")) {
    spec.repeatable_options.insert("--set");
  }
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
  out.note = absl::StrCat(
      "model FLOPs per step 6 x N x D = 6 x ", absl::StrFormat("%.4g", *n), " parameters x ",
      absl::StrFormat("%.4g", *d),
      " tokens = ", format_flops(out.flops),
      ": a dense model's training step, 2 FLOPs per parameter per token forward and 4 backward, "
      "attention's own FLOPs not counted (the scaling book's and MaxText's convention); for "
      "inference give --model-flops 2ND");
  return out;
}

std::string csv_line(const std::vector<std::string>& cells) {
  std::string out;
  for (size_t k = 0; k < cells.size(); ++k) {
    if (k > 0) out += ',';
    const std::string& c = cells[k];
    if (c.find_first_of(",\"\r\n") == std::string::npos) {
      out += c;
      continue;
    }
    out += '"';
    for (char ch : c) {
      if (ch == '"') out += '"';
      out += ch;
    }
    out += '"';
  }
  return out + "\n";
}

std::string csv_number(double value) {
  // The fewest digits that read back as the same double: 3 for 3.0, 0.1 for 0.1.
  for (int digits = 15; digits <= 17; ++digits) {
    std::string text = absl::StrFormat("%.*g", digits, value);
    if (std::strtod(text.c_str(), nullptr) == value || !std::isfinite(value)) return text;
  }
  return absl::StrFormat("%.17g", value);
}

std::string json_text(const nlohmann::ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

int fail(const absl::Status& status) {
  static const RE2 kFileDiagnostic(R"(^[^\s:][^:\n]*:\d+:\d+: error: )");
  static const RE2 kBareLocation(R"(^(\d+:\d+): error: )");
  // Names in messages come from files (ops, planes, paths): their control characters print
  // escaped, line by line, so that no message can drive the terminal.
  std::string message;
  bool first = true;
  for (absl::string_view line : absl::StrSplit(status.message(), '\n')) {
    absl::StrAppend(&message, first ? "" : "\n", printable(sv(line)));
    first = false;
  }
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

namespace {

bool is_power_of_two(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// Slices of a 2D-torus TPU (v5e, v6e) come in powers of two, the long side at most twice the
// short one: 1x1, 2x2, 2x4, 4x4, 4x8, 8x8, 8x16, 16x16 (either order).
bool is_2d_slice(int64_t a, int64_t b) {
  const int64_t lo = std::min(a, b), hi = std::max(a, b);
  return is_power_of_two(a) && is_power_of_two(b) && (hi == lo || hi == 2 * lo);
}

std::string valid_2d_slices(const DeviceSpec& spec) {
  std::vector<std::string> shapes;
  const int64_t limit = spec.torus->max_slice.empty()
                            ? 16
                            : *std::max_element(spec.torus->max_slice.begin(),
                                                spec.torus->max_slice.end());
  for (int64_t a = 1; a <= limit; a *= 2) {
    for (int64_t b : {a, 2 * a}) {
      if (b <= limit) shapes.push_back(absl::StrCat(a, "x", b));
    }
  }
  return absl::StrJoin(shapes, ", ");
}

// Slices of a 3D-torus TPU whose axes wrap in whole cubes (v4, v5p): below one cube the shapes
// 2x2x1, 2x2x2, 2x2x4 and 2x4x4 (and one or two chips, what a one- or two-device module is
// given), above it whole cubes, every side a multiple of the cube's (4). The largest slice is
// make_topology's check.
constexpr int64_t kSmall3dSlices[][3] = {{1, 1, 1}, {1, 1, 2}, {1, 2, 2},
                                         {2, 2, 2}, {2, 2, 4}, {2, 4, 4}};

bool is_3d_slice(int64_t a, int64_t b, int64_t c, int64_t cube) {
  int64_t d[3] = {a, b, c};
  std::sort(d, d + 3);
  if (d[0] > 0 && d[0] % cube == 0 && d[1] % cube == 0 && d[2] % cube == 0) return true;
  for (const auto& s : kSmall3dSlices) {
    if (d[0] == s[0] && d[1] == s[1] && d[2] == s[2]) return true;
  }
  return false;
}

std::string valid_3d_slices(const DeviceSpec& spec) {
  std::vector<std::string> small;
  for (const auto& s : kSmall3dSlices) small.push_back(absl::StrCat(s[0], "x", s[1], "x", s[2]));
  const int64_t cube = spec.torus->wraparound.cube;
  std::string text = absl::StrCat(absl::StrJoin(small, ", "), ", then every side a multiple of ",
                                  cube, " (", cube, "x", cube, "x", cube, ", ", cube, "x", cube,
                                  "x", 2 * cube, ", ...");
  if (!spec.torus->max_slice.empty()) {
    absl::StrAppend(&text, " up to ", absl::StrJoin(spec.torus->max_slice, "x"));
  }
  return text + ")";
}

// Rejects a shape no real slice of `spec` has, before the topology model sees it.
absl::Status check_slice_shape(const DeviceSpec& spec, std::string_view shape) {
  if (!spec.torus) return absl::OkStatus();
  std::vector<absl::string_view> parts = absl::StrSplit(sv(shape), ',');
  std::vector<absl::string_view> dims = absl::StrSplit(parts[0], 'x');
  if (spec.torus->rank == 3 && spec.torus->wraparound.rule == Wraparound::Rule::kWholeCubes &&
      spec.torus->wraparound.cube > 0) {
    int64_t a = 0, b = 0, c = 0;
    if (dims.size() != 3 || !absl::SimpleAtoi(dims[0], &a) || !absl::SimpleAtoi(dims[1], &b) ||
        !absl::SimpleAtoi(dims[2], &c)) {
      return absl::OkStatus();  // make_topology explains malformed shapes
    }
    if (is_3d_slice(a, b, c, spec.torus->wraparound.cube)) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("no ", spec.name, " slice is ", parts[0],
                                                   ": its slices are ", valid_3d_slices(spec),
                                                   " chips, in any order"));
  }
  if (spec.torus->rank != 2) return absl::OkStatus();
  int64_t a = 0, b = 0;
  if (dims.size() != 2 || !absl::SimpleAtoi(dims[0], &a) || !absl::SimpleAtoi(dims[1], &b)) {
    return absl::OkStatus();  // make_topology explains malformed shapes
  }
  if (is_2d_slice(a, b)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "no ", spec.name, " slice is ", parts[0], ": its slices are ", valid_2d_slices(spec),
      " chips (either order)"));
}

}  // namespace

absl::StatusOr<DeviceChoice> resolve_device(std::string_view device_text,
                                            std::string_view topology_option,
                                            const Module* module,
                                            const std::vector<std::string>& settings) {
  DeviceChoice choice;
  std::string text(absl::StripAsciiWhitespace(sv(device_text)));
  if (text.empty()) {
    if (module == nullptr) {
      text = std::string(kDefaultTpuDevice);
    } else {
      DefaultDevice picked = default_device(*module);
      text = picked.device;
      (picked.decided ? choice.notes : choice.warnings).push_back(std::move(picked.note));
    }
  }
  const TopologyText named = split_topology_text(text);
  absl::StatusOr<DeviceSpec> spec = device(named.device);
  if (!spec.ok()) return spec.status();
  spec = set_device_figures(*spec, settings);
  if (!spec.ok()) return spec.status();
  if (!settings.empty()) {
    choice.notes.push_back(absl::StrCat("device figures set: ", absl::StrJoin(settings, ", ")));
  }
  choice.spec = *std::move(spec);
  const std::string option(absl::StripAsciiWhitespace(sv(topology_option)));
  if (!option.empty() && !named.shape.empty() && option != named.shape) {
    return absl::InvalidArgumentError(absl::StrCat("--device ", text, " says topology ",
                                                   named.shape, " but --topology says ", option,
                                                   "; give one"));
  }
  choice.topology = option.empty() ? named.shape : option;
  if (choice.topology.empty()) return choice;
  if (absl::Status s = check_slice_shape(choice.spec, choice.topology); !s.ok()) return s;
  absl::StatusOr<Topology> topology = make_topology(choice.spec, choice.topology);
  if (!topology.ok()) return topology.status();
  if (module != nullptr) {
    // Both counts come from the text: their product may not fit in int64.
    const int64_t used = saturating_mul(module->attributes().replica_count,
                                        module->attributes().num_partitions);
    const int64_t idle = topology->num_devices() - used;
    if (used > 0 && idle > 0) {
      choice.notes.push_back(absl::StrCat(
          "topology ", choice.topology, " holds ", topology->num_devices(),
          " devices; the module runs on ", used, " (replica_count x num_partitions), so ", idle,
          " sit idle"));
    }
  }
  return choice;
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

}  // namespace hloroof::cli
