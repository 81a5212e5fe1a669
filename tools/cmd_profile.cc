// `hloroof profile HLO PROFILE --device D [--json] [--top N] [--trace OUT.json]
// [--xspace LOG_DIR]`: a measured JAX profile of a module beside its prediction, joined per HLO op.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/analysis.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/output_file.h"
#include "hloroof/predict.h"
#include "hloroof/profile.h"
#include "hloroof/topology.h"
#include "hloroof/units.h"
#include "hloroof/xspace.h"
#include "input.h"
#include "nlohmann/json.hpp"
#include "hloroof/wrap.h"
#include "hloroof/text_safety.h"

namespace hloroof::cli {
namespace {

// A capture folder (tools/capture) holds the module as module.hlo beside its profile.
constexpr char kCapturedModule[] = "module.hlo";

// How the profile's events name a module it carries: "jit_f(12)" where its "XLA Modules"
// events carry the program id (TPU), else "jit_f" (GPU kernels and host events name it so).
std::string profile_module_name(const Profile& profile, const std::string& full_name) {
  for (const ProfilePlane& p : profile.planes) {
    for (const ProfileLine& l : p.lines) {
      for (const ProfileEvent& e : l.events) {
        if (e.name == full_name) return full_name;
      }
    }
  }
  const size_t open = full_name.rfind('(');
  return open == std::string::npos || open == 0 ? full_name : full_name.substr(0, open);
}

// What `--xspace LOG_DIR` wrote (write_profile_xspaces), as the lines to print.
std::string xspaces_summary(const ProfileXSpaces& written, std::string_view log_dir) {
  return absl::StrCat("measured run: ", written.measured_path,
                      written.measured_copied ? " (copied)\n" : " (left where it is)\n",
                      render_xspace_summary(written.predicted, log_dir),
                      "XProf lists both runs; pick one in its Runs menu (the same tool on each)\n");
}

constexpr Flag kDevice{
    .name = "--device",
    .type = FlagType::kText,
    .value_name = "D",
    .help = "device as `hloroof predict` takes it (h100, tpu_v5e:2x2, my.json)",
    .default_help = "the one the profile names (its device planes, a capture's meta.json)"};
constexpr Flag kDeviceIndex{.name = "--device-index",
                            .type = FlagType::kCount,
                            .value_name = "N",
                            .help = "the profile's device plane GPU:N or TPU:N",
                            .default_value = "0",
                            .max = 1 << 20};
constexpr Flag kModule{
    .name = "--module",
    .type = FlagType::kText,
    .value_name = "NAME",
    .help = "the module's name in the profile (default: the HLO module's name); with a dump "
            "directory, also the module of it to read (default: the largest jit_* one)"};
constexpr Flag kTop{.name = "--top",
                    .type = FlagType::kCount,
                    .value_name = "N",
                    .help = "ops listed; 0 lists all",
                    .default_value = "20"};
constexpr Flag kTrace{.name = "--trace",
                      .type = FlagType::kText,
                      .value_name = "OUT.json",
                      .help = "a Perfetto trace: the median measured step and the predicted one "
                              "on parallel tracks, slices named by HLO op"};
constexpr Flag kXSpace{
    .name = "--xspace",
    .type = FlagType::kText,
    .value_name = "LOG_DIR",
    .help = "the measured XSpace and the predicted step as two runs of one log directory "
            "(LOG_DIR/plugins/profile/{measured_RUN,predicted_DEVICE}), side by side in `xprof "
            "--logdir LOG_DIR` (docs/xspace.md)"};
constexpr Flag kModules{.name = "--modules",
                        .help = "list the modules the profile carries and the time each ran "
                                "(over all its devices), the longest first, and predict "
                                "nothing; with --json as JSON"};
constexpr Flag kJson{.name = "--json",
                     .help = "step {measured_s, expected_s, roofline_s}, ops, unmatched, gaps, "
                             "idle_s as JSON (seconds)"};
constexpr Flag kCsv{.name = "--csv",
                    .help = "the joined ops instead, one CSV row each, the JSON's op keys as "
                            "columns (empty where the JSON has null)"};

// The flags and options the command takes, in the order its help lists them.
constexpr const Flag* kFlags[] = {&kDevice, &kTopologyFlag, &kSetFlag, &kDeviceIndex,
                                  &kModule, &kTop,          &kTrace,   &kTripCountFlag,
                                  &kXSpace, &kStepsFlag,    &kModules, &kJson,
                                  &kCsv};

// A cell for an optional figure: empty where the profile gives none (-1).
std::string csv_optional(double value) { return value < 0 ? "" : csv_number(value); }

// The joined ops, one CSV row each, the keys of the JSON's ops as columns (ratios empty where
// the JSON has null).
void print_csv(const ProfileComparison& c) {
  std::cout << csv_line({"name", "opcode", "category", "bound", "measured_s", "expected_s",
                         "roofline_s", "occurrences", "launches", "predicted_occurrences",
                         "kernels", "lost_s", "measured_async", "flops", "bytes_accessed",
                         "xla_flops", "xla_model_flops", "xla_bytes_accessed",
                         "measured_over_expected", "measured_over_roofline",
                         "alignment_uncertain"});
  auto ratio = [](double a, double b) { return b > 0 ? csv_number(a / b) : std::string(); };
  for (const JoinedOp& op : c.ops) {
    std::cout << csv_line({op.name, op.opcode, op.category, op.bound, csv_number(op.measured_s),
                           csv_number(op.expected_s), csv_number(op.roofline_s),
                           csv_number(op.occurrences), csv_number(op.launches),
                           csv_number(op.predicted_occurrences), csv_number(op.kernels),
                           csv_number(op.lost_s), op.measured_async ? "true" : "false",
                           csv_number(op.flops), csv_number(op.bytes_accessed),
                           csv_optional(op.xla_flops), csv_optional(op.xla_model_flops),
                           csv_optional(op.xla_bytes_accessed),
                           ratio(op.measured_s, op.expected_s),
                           ratio(op.measured_s, op.roofline_s),
                           op.alignment_uncertain ? "true" : "false"});
  }
}

// What the words ask for, and what is read and resolved of them.
struct Request {
  Args args;
  SharedOptions shared;
  std::string hlo_path, profile_path;
  PredictOptions options;
  ProfileOptions profile_options;
};

// The request of `args`: an HLO and a profile, or a capture folder or profile alone. Errors
// are usage errors.
absl::StatusOr<Request> parse_request(Args args) {
  Request r;
  r.args = std::move(args);
  const Args& a = r.args;
  if (a.flag(kJson) && a.flag(kCsv)) {
    return absl::InvalidArgumentError("--json and --csv: one or the other");
  }
  if (a.flag(kModules) && a.flag(kCsv)) {
    return absl::InvalidArgumentError("--modules lists as text or --json, not --csv");
  }
  if (a.positional.size() == 2) {
    r.hlo_path = a.positional[0];
    r.profile_path = a.positional[1];
  } else if (a.positional.size() == 1) {
    // A capture folder holds its module as module.hlo; otherwise the profile's own metadata
    // holds the module (as an HloProto).
    r.profile_path = a.positional[0];
    const std::string captured =
        (std::filesystem::path(r.profile_path) / kCapturedModule).string();
    std::error_code ec;
    if (std::filesystem::is_regular_file(captured, ec)) r.hlo_path = captured;
  } else {
    return absl::InvalidArgumentError("expected a profile, or an HLO file and a profile");
  }
  absl::StatusOr<SharedOptions> shared = parse_shared_options(a);
  if (!shared.ok()) return shared.status();
  r.shared = *std::move(shared);
  r.options.default_trip_count = r.shared.trip_count;
  r.profile_options.module_name = a.text(kModule);
  r.profile_options.device_index = static_cast<int>(a.count(kDeviceIndex));
  return r;
}

// The module the profile carries (as an HloProto), picked by --module; the profile's name of
// it and its program id go to `r.profile_options`.
absl::StatusOr<LoadedModule> load_module_of_profile(Request& r, const Profile& profile) {
  std::string note;
  absl::StatusOr<const ProfileModuleProto*> picked =
      pick_profile_module(profile, r.args.text(kModule), &note);
  if (!picked.ok()) return picked.status();
  const ParsedHloProto proto((*picked)->hlo_proto);
  absl::StatusOr<Module> m = proto.module(
      ParseOptions{.file_name = absl::StrCat(profile.origin, ":", (*picked)->name)});
  if (!m.ok()) return m.status();
  LoadedModule from_profile;
  from_profile.module = *std::move(m);
  from_profile.file = profile.origin;
  from_profile.diagnostics.notes.push_back(note);
  from_profile.xla_assignment = proto.xla_buffer_assignment();
  from_profile.profile_module = (*picked)->name;
  r.profile_options.module_name = profile_module_name(profile, (*picked)->name);
  // "jit_dot(21)": program 21, told from other programs named jit_dot by the program_id
  // stat of its op events.
  r.profile_options.program_id = profile_program_id((*picked)->name);
  return from_profile;
}

// The module: the HLO given (with a dump directory, --module picks its module, which is also
// the profile's), else the one the profile carries.
absl::StatusOr<LoadedModule> load_profiled_module(Request& r, const Profile& profile) {
  if (r.hlo_path.empty()) return load_module_of_profile(r, profile);
  std::error_code error;
  const bool dump_directory = std::filesystem::is_directory(r.hlo_path, error);
  absl::StatusOr<LoadedModule> loaded =
      load_input(r.hlo_path, dump_directory ? r.args.text(kModule) : "");
  if (!loaded.ok()) return loaded;
  // The program of the HLO given: named by --module NAME(ID), else (compare_with_profile) the
  // one of its name whose entry is this module's.
  const std::string name = r.profile_options.module_name.empty()
                               ? std::string(loaded->module.name())
                               : r.profile_options.module_name;
  if (const uint64_t id = profile_program_id(name); id != 0) {
    r.profile_options.program_id = id;
    r.profile_options.module_name = profile_module_name(profile, name);
  }
  return loaded;
}


// The trace, the XSpaces and the report.
int write_outputs(const Request& r, const Profile& profile, const LoadedModule& loaded,
                  const DeviceTarget& choice, const ProfileJoin& joined) {
  const Args& args = r.args;
  const ProfileComparison& comparison = joined.comparison;
  if (args.has(kTrace)) {
    const std::vector<std::string> inputs = {r.hlo_path, loaded.file, r.profile_path,
                                             profile.origin, args.text(kDevice)};
    absl::Status s = write_output_file(
        args.text(kTrace), profile_comparison_to_trace_json(comparison, joined.prediction),
        "the trace", inputs);
    if (!s.ok()) return fail(s);
  }
  std::string xspace_summary;
  if (args.has(kXSpace)) {
    const std::vector<std::string> inputs = {r.hlo_path, loaded.file, r.profile_path,
                                             profile.origin};
    absl::StatusOr<ProfileXSpaces> written =
        write_profile_xspaces(loaded.module, joined, choice.spec, profile, args.text(kXSpace),
                              {.steps = r.shared.steps}, inputs);
    if (!written.ok()) return fail(written.status());
    xspace_summary = xspaces_summary(*written, args.text(kXSpace));
  }
  if (r.shared.csv) {
    print_csv(comparison);
    std::cerr << xspace_summary;
  } else if (r.shared.json) {
    std::cout << profile_comparison_to_json(comparison);
    std::cerr << xspace_summary;
  } else {
    std::cout << render_profile_comparison(comparison, r.shared.top);
    if (args.has(kTrace)) std::cout << "\ntrace written to " << args.text(kTrace) << "\n";
    if (!xspace_summary.empty()) std::cout << "\n" << xspace_summary;
  }
  return kExitOk;
}

// --modules: what the profile carries, the longest run first.
int list_modules(const Request& r, const Profile& profile) {
  const std::vector<ProfileModuleTime> modules = profile_module_times(profile);
  if (r.shared.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const ProfileModuleTime& m : modules) {
      list.push_back({{"name", m.name}, {"time_s", m.time_s}});
    }
    const nlohmann::json out = {{"profile", profile.origin}, {"modules", std::move(list)}};
    std::cout << out.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return kExitOk;
  }
  if (modules.empty()) {
    std::cout << printable(profile.origin) << " carries no HLO module\n";
    return kExitOk;
  }
  size_t width = std::string_view("module").size();
  for (const ProfileModuleTime& m : modules) width = std::max(width, printable(m.name).size());
  std::cout << "profile " << printable(profile.origin) << "\n"
            << "module" << std::string(width - 4, ' ') << "time run (over all its devices)\n";
  for (const ProfileModuleTime& m : modules) {
    const std::string name = printable(m.name);
    std::cout << name << std::string(width - name.size() + 2, ' ') << format_seconds(m.time_s)
              << "\n";
  }
  return kExitOk;
}

int run(const std::vector<std::string>& words) {
  int exit_code = kExitOk;
  std::optional<Args> args = parse_command_args(words, kProfileCommand, exit_code);
  if (!args) return exit_code;
  absl::StatusOr<Request> r = parse_request(*std::move(args));
  if (!r.ok()) return usage_error(r.status().message(), kProfileCommand.usage);

  absl::StatusOr<Profile> profile = read_profile(r->profile_path);
  if (!profile.ok()) return fail(profile.status());
  if (r->args.flag(kModules)) return list_modules(*r, *profile);
  absl::StatusOr<LoadedModule> loaded = load_profiled_module(*r, *profile);
  if (!loaded.ok()) return fail(loaded.status());
  print_input_messages(*loaded);
  const Module& module = loaded->module;
  // The device: --device, else the one the capture names; a profile of one platform is not
  // joined with a prediction for another.
  absl::StatusOr<ProfileDevice> device = resolve_profile_device(
      r->args.text(kDevice), *profile, r->profile_path, module,
      {.topology = r->args.text(kTopologyFlag), .settings = r->args.all(kSetFlag)});
  if (!device.ok()) {
    if (device.status().GetPayload(kCalibrationUsagePayload).has_value()) {
      return usage_error(device.status().message(), kProfileCommand.usage);
    }
    return fail(device.status());
  }
  if (!device->said.empty()) {
    std::cerr << report_internal::wrap(printable(device->said),
                                       device->stand_in ? "warning: " : "note: ", "  ");
  }
  const DeviceTarget& choice = device->target;
  absl::StatusOr<ProfileJoin> joined = join_profile(
      module, choice, *profile, {.predict = r->options, .profile = r->profile_options});
  if (!joined.ok()) return fail(joined.status());
  add_input_diagnostics(input_diagnostics(*loaded, choice, /*loaded_notes_shown=*/true),
                        joined->prediction);
  std::vector<std::string>& notes = joined->comparison.notes;
  if (device->stand_in) notes.insert(notes.begin(), device->said);
  if (const std::string set = settings_note(r->args); !set.empty()) {
    notes.insert(notes.begin(), set);
  }
  return write_outputs(*r, *profile, *loaded, choice, *joined);
}

}  // namespace

const Command kProfileCommand = {
    "profile",
    "a measured JAX profile beside the prediction, op by op",
    "Predicts one step of the HLO module (a file, or the module of an XLA dump directory, as\n"
    "`hloroof predict` reads it) on the device and joins it, per HLO op, with the\n"
    "measured run in PROFILE: the .xplane.pb that jax.profiler.trace writes, a perfetto or\n"
    "TensorBoard *.trace.json.gz, the run folder holding one, or the profile directory\n"
    "(DIR/plugins/profile/RUN/). GPU kernels map to ops through their hlo_op stat; TPU ops by\n"
    "name. Steps are the module's executions; the median step is compared.\n\n"
    "Shows the measured step against the expected and roofline ones, the share of the gap per\n"
    "category (matmul, memory-bound, other ops, collectives exposed, idle gaps), the ops\n"
    "ranked by time lost against their expectation, and the ops seen on one side only.\n",
    run,
    "hloroof profile [HLO|DUMP_DIR] PROFILE [--device D] [--topology T] [--device-index N]\n"
    "       [--module NAME] [--json | --csv] [--top N] [--trace OUT.json] [--trip-count N]\n"
    "       [--xspace LOG_DIR [--steps N]]\n"
    "       hloroof profile PROFILE --modules [--json]   (the modules it carries)\n"
    "       hloroof profile CAPTURE_DIR [--device D] ...   (a folder of tools/capture)",
    kFlags,
    {},
    "example:\n"
    "  hloroof profile capture/module.hlo capture/profile --device h100\n",
};

}  // namespace hloroof::cli
