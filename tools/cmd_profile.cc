// `hloroof profile HLO PROFILE --device D [--json] [--top N] [--trace OUT.json]`: a measured
// JAX profile of a module beside its prediction, joined per HLO op.
#include <filesystem>
#include <iostream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/output_file.h"
#include "hloroof/predict.h"
#include "hloroof/profile.h"
#include "hloroof/topology.h"
#include "input.h"

namespace hloroof::cli {
namespace {

constexpr std::string_view kUsage =
    "hloroof profile HLO|DUMP_DIR PROFILE --device D [--topology T] [--device-index N]\n"
    "       [--module NAME] [--json] [--top N] [--trace OUT.json] [--trip-count N]\n"
    "       hloroof profile CAPTURE_DIR --device D ...";

// A capture folder (tools/capture) holds the module as module.hlo beside its profile.
constexpr char kCapturedModule[] = "module.hlo";

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
    profile_path = args->positional[0];
    hlo_path = (std::filesystem::path(profile_path) / kCapturedModule).string();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(hlo_path, ec)) {
      return usage_error(
          absl::StrCat("expected HLO and PROFILE, or a capture folder holding ", kCapturedModule),
          kUsage);
    }
  } else {
    return usage_error("expected an HLO file and a profile", kUsage);
  }
  if (!args->has("--device")) return usage_error("--device is required", kUsage);

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

  // With a dump directory, --module picks its module, which is also the profile's module.
  std::error_code error;
  const bool dump_directory = std::filesystem::is_directory(hlo_path, error);
  absl::StatusOr<LoadedModule> loaded =
      load_module(hlo_path, dump_directory ? args->get("--module") : "");
  if (!loaded.ok()) return fail(loaded.status());
  print_input_messages(*loaded);
  const Module* module = &loaded->module;
  absl::StatusOr<DeviceChoice> choice =
      resolve_device(args->get("--device"), options.topology, module, args->all("--set"));
  if (!choice.ok()) return fail(choice.status());
  const DeviceSpec* spec = &choice->spec;
  options.topology = choice->topology;
  absl::StatusOr<Prediction> prediction = predict_step_time(*module, *spec, options);
  if (!prediction.ok()) return fail(prediction.status());
  prepend_input_notes(*loaded, *choice, *prediction);
  absl::StatusOr<Profile> profile = read_profile(profile_path);
  if (!profile.ok()) return fail(profile.status());
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
