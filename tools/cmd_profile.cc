// `hloroof profile HLO PROFILE --device D [--json] [--top N] [--trace OUT.json]`: a measured
// JAX profile of a module beside its prediction, joined per HLO op.
#include <filesystem>
#include <iostream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/output_file.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/predict.h"
#include "hloroof/profile.h"
#include "hloroof/topology.h"
#include "input.h"

namespace hloroof::cli {
namespace {

constexpr std::string_view kUsage =
    "hloroof profile [HLO|DUMP_DIR] PROFILE [--device D] [--topology T] [--device-index N]\n"
    "       [--module NAME] [--json] [--top N] [--trace OUT.json] [--trip-count N]\n"
    "       hloroof profile CAPTURE_DIR [--device D] ...";

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

int run(const std::vector<std::string>& words) {
  absl::StatusOr<Args> args =
      parse_args(words, {.flags = {"--json"},
                         .options = {"--device", "--topology", "--device-index", "--module",
                                     "--top", "--trace", "--trip-count"}});
  if (!args.ok()) return usage_error(args.status().message(), kUsage);
  if (args->flag("--help")) {
    std::cout << kProfileCommand.help;
    return kExitOk;
  }
  std::string hlo_path, profile_path;
  if (args->positional.size() == 2) {
    hlo_path = args->positional[0];
    profile_path = args->positional[1];
  } else if (args->positional.size() == 1) {
    // A capture folder holds its module as module.hlo; otherwise the profile's own metadata
    // holds the module (as an HloProto).
    profile_path = args->positional[0];
    const std::string captured = (std::filesystem::path(profile_path) / kCapturedModule).string();
    std::error_code ec;
    if (std::filesystem::is_regular_file(captured, ec)) hlo_path = captured;
  } else {
    return usage_error("expected a profile, or an HLO file and a profile", kUsage);
  }
  PredictOptions options;
  options.topology = args->get("--topology");
  if (args->has("--trip-count")) {
    absl::StatusOr<int64_t> n = parse_count("--trip-count", args->get("--trip-count"));
    if (!n.ok()) return usage_error(n.status().message(), kUsage);
    options.default_trip_count = *n;
  }
  ProfileOptions profile_options;
  profile_options.module_name = args->get("--module");
  if (args->has("--device-index")) {
    absl::StatusOr<int64_t> n = parse_count("--device-index", args->get("--device-index"));
    if (!n.ok()) return usage_error(n.status().message(), kUsage);
    if (*n > 1 << 20) return usage_error("--device-index: too large", kUsage);
    profile_options.device_index = static_cast<int>(*n);
  }
  size_t top = 20;
  if (args->has("--top")) {
    absl::StatusOr<int64_t> n = parse_count("--top", args->get("--top"));
    if (!n.ok()) return usage_error(n.status().message(), kUsage);
    top = static_cast<size_t>(*n);
  }

  absl::StatusOr<Profile> profile = read_profile(profile_path);
  if (!profile.ok()) return fail(profile.status());

  // The module: the HLO given (with a dump directory, --module picks its module, which is
  // also the profile's), else the one the profile carries.
  LoadedModule from_profile;
  absl::StatusOr<LoadedModule> loaded;
  if (!hlo_path.empty()) {
    std::error_code error;
    const bool dump_directory = std::filesystem::is_directory(hlo_path, error);
    loaded = load_module(hlo_path, dump_directory ? args->get("--module") : "");
  } else {
    std::string note;
    absl::StatusOr<const ProfileModuleProto*> picked =
        pick_profile_module(*profile, args->get("--module"), &note);
    if (!picked.ok()) return fail(picked.status());
    absl::StatusOr<Module> m = parse_hlo_proto(
        (*picked)->hlo_proto, ParseOptions{.file_name = absl::StrCat(profile->origin, ":",
                                                                      (*picked)->name)});
    if (!m.ok()) return fail(m.status());
    from_profile.module = *std::move(m);
    from_profile.file = profile->origin;
    from_profile.notes.push_back(note);
    from_profile.hlo_proto = (*picked)->hlo_proto;
    from_profile.profile_module = (*picked)->name;
    profile_options.module_name = profile_module_name(*profile, (*picked)->name);
    loaded = std::move(from_profile);
  }
  if (!loaded.ok()) return fail(loaded.status());
  print_input_messages(*loaded);
  const Module* module = &loaded->module;

  // The device: --device, else the one the capture names (the profile's device planes, a
  // capture's meta.json); a profile of one platform is not joined with a prediction for another.
  absl::StatusOr<MeasuredDevice> measured = measured_device(*profile, profile_path);
  if (!measured.ok()) return fail(measured.status());
  std::string device_text = args->get("--device");
  if (device_text.empty()) {
    if (measured->device.empty()) {
      return usage_error(
          measured->kind.empty()
              ? std::string("--device is required: the profile does not name its device")
              : absl::StrCat("--device is required: the profile ran on '", measured->kind,
                             "', which is not a built-in device (a device JSON can describe it)"),
          kUsage);
    }
    device_text = measured->device;
  }
  absl::StatusOr<DeviceChoice> choice =
      resolve_device(device_text, options.topology, module, args->all("--set"));
  if (!choice.ok()) return fail(choice.status());
  if (absl::Status same = check_same_platform(*measured, choice->spec); !same.ok()) {
    return fail(same);
  }
  if (!args->has("--device")) {
    std::string said =
        absl::StrCat("device ", measured->device, " from the profile, which ran on '",
                     measured->kind, "' (", measured->source, "); --device overrides it");
    std::cerr << "note: " << said << "\n";
    choice->notes.insert(choice->notes.begin(), std::move(said));
  }
  const DeviceSpec* spec = &choice->spec;
  options.topology = choice->topology;
  absl::StatusOr<Prediction> prediction = predict_step_time(*module, *spec, options);
  if (!prediction.ok()) return fail(prediction.status());
  prepend_input_notes(*loaded, *choice, *prediction);
  absl::StatusOr<ProfileComparison> comparison =
      compare_with_profile(*module, *prediction, *profile, profile_options);
  if (!comparison.ok()) return fail(comparison.status());

  if (args->has("--trace")) {
    const std::vector<std::string> inputs = {hlo_path, loaded->file, profile_path,
                                             profile->origin, args->get("--device")};
    absl::Status s =
        write_output_file(args->get("--trace"),
                          profile_comparison_to_trace_json(*comparison, *prediction),
                          "the trace", inputs);
    if (!s.ok()) return fail(s);
  }
  if (args->flag("--json")) {
    std::cout << profile_comparison_to_json(*comparison);
  } else {
    std::cout << render_profile_comparison(*comparison, top);
    if (args->has("--trace")) std::cout << "\ntrace written to " << args->get("--trace") << "\n";
  }
  return kExitOk;
}

}  // namespace

const Command kProfileCommand = {
    "profile",
    "a measured JAX profile beside the prediction, op by op",
    "usage: hloroof profile HLO|DUMP_DIR PROFILE --device D [--topology T] [--device-index N]\n"
    "                       [--module NAME] [--json] [--top N] [--trace OUT.json]\n"
    "                       [--trip-count N]\n"
    "       hloroof profile CAPTURE_DIR --device D ...   (a folder of tools/capture)\n\n"
    "Predicts one step of the HLO module (a file, or the module of an XLA dump directory, as\n"
    "`hloroof predict` reads it) on the device and joins it, per HLO op, with the\n"
    "measured run in PROFILE: the .xplane.pb that jax.profiler.trace writes, a perfetto or\n"
    "TensorBoard *.trace.json.gz, the run folder holding one, or the profile directory\n"
    "(DIR/plugins/profile/RUN/). GPU kernels map to ops through their hlo_op stat; TPU ops by\n"
    "name. Steps are the module's executions; the median step is compared.\n\n"
    "Shows the measured step against the expected and roofline ones, the share of the gap per\n"
    "category (matmul, memory-bound, other ops, collectives exposed, idle gaps), the ops\n"
    "ranked by time lost against their expectation, and the ops seen on one side only.\n\n"
    "options:\n"
    "  --device D        device as `hloroof predict` takes it (h100, tpu_v5e:2x2, my.json)\n"
    "  --topology T      the slice, when --device does not give it\n"
    "  --device-index N  the profile's device plane GPU:N or TPU:N (default 0)\n"
    "  --module NAME     the module's name in the profile (default: the HLO module's name);\n"
    "                    with a dump directory, also the module of it to read (default: the\n"
    "                    largest jit_* one)\n"
    "  --top N           ops listed (default 20; 0 lists all)\n"
    "  --trace OUT.json  a Perfetto trace: the median measured step and the predicted one on\n"
    "                    parallel tracks, slices named by HLO op\n"
    "  --trip-count N    trip count assumed for loops whose count cannot be told (default 1)\n"
    "  --json            step {measured_s, expected_s, roofline_s}, ops, unmatched, gaps,\n"
    "                    idle_s as JSON (seconds)\n\n"
    "example:\n"
    "  hloroof profile capture/module.hlo capture/profile --device h100\n",
    run,
};

}  // namespace hloroof::cli
