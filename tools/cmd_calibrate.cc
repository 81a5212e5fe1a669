// `hloroof calibrate PROFILE... --hlo HLO... --device D -o OUT.json`: the device's efficiency
// figures fitted to measured profiles, written as a device JSON.
#include <filesystem>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/output_file.h"
#include "hloroof/profile.h"
#include "input.h"
#include "report/wrap.h"
#include "util/text_safety.h"

namespace hloroof::cli {
namespace {

// The device every capture names (the profile's device plane, a capture's meta.json), as
// `profile` infers it, and a note that says so. Errors (usage errors): a profile that names no
// built-in device, profiles of different devices.
absl::StatusOr<std::string> device_of_profiles(const std::vector<std::string>& profiles,
                                               const std::vector<MeasuredDevice>& measured) {
  for (size_t k = 0; k < measured.size(); ++k) {
    if (measured[k].device.empty()) {
      return absl::InvalidArgumentError(
          measured[k].kind.empty()
              ? absl::StrCat("--device is required: ", profiles[k], " does not name its device")
              : absl::StrCat("--device is required: ", profiles[k], " ran on '",
                             measured[k].kind, "', which is not a built-in device"));
    }
    if (measured[k].device != measured[0].device) {
      return absl::InvalidArgumentError(
          absl::StrCat("the profiles ran on different devices (", profiles[0], ": ",
                       measured[0].device, ", ", profiles[k], ": ", measured[k].device,
                       "): calibrate one device at a time"));
    }
  }
  const std::string& device = measured[0].device;
  std::cerr << report_internal::wrap(
      printable(absl::StrCat("device ", device, " from the profiles, which ran on '",
                             measured[0].kind, "' (", measured[0].source,
                             "); --device overrides it")),
      "note: ", "  ");
  return device;
}

// The flags and options the command takes (`hloroof completion` offers them).
ArgSpec arg_spec() {
  return {.options = {"--device", "--output", "--name", "--topology", "--device-index",
                      "--trip-count", "--module"},
          .repeatable_options = {"--hlo"}};
}

int run(const std::vector<std::string>& given) {
  // `-o FILE` as compilers take it; the shared parser knows only long options.
  std::vector<std::string> words = given;
  for (std::string& w : words) {
    if (w == "-o") w = "--output";
  }
  absl::StatusOr<Args> args = parse_args(words, arg_spec());
  if (!args.ok()) return usage_error(args.status().message(), kCalibrateCommand.usage);
  if (args->flag("--help")) {
    print_help(kCalibrateCommand);
    return kExitOk;
  }
  const std::vector<std::string>& profiles = args->positional;
  if (profiles.empty()) {
    return usage_error("expected one or more profiles", kCalibrateCommand.usage);
  }
  const std::string output = args->get("--output");
  std::vector<std::string> hlos;
  if (auto it = args->options.find("--hlo"); it != args->options.end()) hlos = it->second;
  const bool shared = hlos.size() == 1;  // one module for every profile: read once
  if (hlos.empty()) {
    // Capture folders hold their module.
    for (const std::string& p : profiles) {
      hlos.push_back((std::filesystem::path(p) / "module.hlo").string());
    }
  } else if (hlos.size() == 1) {
    hlos.resize(profiles.size(), hlos.front());
  } else if (hlos.size() != profiles.size()) {
    return usage_error(absl::StrCat("give one --hlo for every profile (", profiles.size(),
                                    " profiles, ", hlos.size(), " --hlo), or one for all"),
                       kCalibrateCommand.usage);
  }

  CalibrationOptions options;
  options.name = args->get("--name");
  options.settings = args->all("--set");  // the fit starts from the figures set
  options.predict.topology = args->get("--topology");
  if (args->has("--trip-count")) {
    absl::StatusOr<int64_t> n = parse_count("--trip-count", args->get("--trip-count"));
    if (!n.ok()) return usage_error(n.status().message(), kCalibrateCommand.usage);
    options.predict.default_trip_count = *n;
  }
  if (args->has("--device-index")) {
    absl::StatusOr<int64_t> n = parse_count("--device-index", args->get("--device-index"));
    if (!n.ok()) return usage_error(n.status().message(), kCalibrateCommand.usage);
    if (*n > 1 << 20) return usage_error("--device-index: too large", kCalibrateCommand.usage);
    options.profile.device_index = static_cast<int>(*n);
  }

  std::vector<Module> modules;
  std::vector<std::string> module_files;  // the files parsed (a dump directory's module)
  std::vector<Profile> read;
  modules.reserve(profiles.size());
  read.reserve(profiles.size());
  for (size_t k = 0; k < profiles.size(); ++k) {
    if (!shared || k == 0) {
      std::error_code error;
      const bool dump_directory = std::filesystem::is_directory(hlos[k], error);
      if (args->has("--module") && !dump_directory) {
        return usage_error(absl::StrCat("--module picks a module of a dump directory; '",
                                        hlos[k], "' is not a directory"),
                           kCalibrateCommand.usage);
      }
      absl::StatusOr<LoadedModule> loaded = load_input(hlos[k], args->get("--module"));
      if (!loaded.ok()) return fail(loaded.status());
      print_input_messages(*loaded);
      module_files.push_back(loaded->file);
      modules.push_back(std::move(loaded->module));
    }
    absl::StatusOr<Profile> profile = read_profile(profiles[k]);
    if (!profile.ok()) return fail(profile.status());
    read.push_back(*std::move(profile));
  }
  std::vector<CalibrationRun> runs;
  for (size_t k = 0; k < profiles.size(); ++k) {
    runs.push_back({&modules[shared ? 0 : k], &read[k], profiles[k]});
  }

  // The device: --device, else the one every capture names (the profile's device plane, a
  // capture's meta.json), as `profile` infers it. A capture of one platform is not fitted
  // with a device of another.
  std::vector<MeasuredDevice> measured;
  for (size_t k = 0; k < profiles.size(); ++k) {
    absl::StatusOr<MeasuredDevice> m = measured_device(read[k], profiles[k]);
    if (!m.ok()) return fail(m.status());
    measured.push_back(*std::move(m));
  }
  std::string device = args->get("--device");
  if (device.empty()) {
    absl::StatusOr<std::string> named = device_of_profiles(profiles, measured);
    if (!named.ok()) return usage_error(named.status().message(), kCalibrateCommand.usage);
    device = *std::move(named);
  }
  absl::StatusOr<DeviceTarget> choice =
      resolve_device(device, &modules[0],
                     {.topology = options.predict.topology, .settings = options.settings});
  if (!choice.ok()) return fail(choice.status());
  for (const MeasuredDevice& m : measured) {
    if (absl::Status same = check_same_platform(m, choice->spec); !same.ok()) return fail(same);
  }
  absl::StatusOr<CalibrationResult> result = calibrate(runs, device, options);
  if (!result.ok()) {
    // The join's advice is `profile`'s (its --module names the profile's module); here each
    // run's module is the one given, so the advice is to give the module that ran.
    std::string message(result.status().message());
    constexpr std::string_view kProfileAdvice = ". Give the profile's name with --module";
    if (const size_t at = message.find(kProfileAdvice); at != std::string::npos) {
      message.replace(at, kProfileAdvice.size(),
                      ": the module given is not the one profiled. Give that module's HLO with "
                      "--hlo (from a dump directory: --module NAME picks it)");
    }
    return fail(absl::Status(result.status().code(), message));
  }
  std::cout << render_calibration(*result);
  if (!result->accepted) {
    if (output.empty()) return kExitOk;
    return fail(absl::FailedPreconditionError(absl::StrCat(
        "'", output, "' not written: the fit predicts steps worse than --device ",
        device, " (above); keep using it")));
  }
  if (output.empty()) {
    std::cout << "\nnot written (no -o OUT.json)\n";
    return kExitOk;
  }
  // Every file read: the profiles (and the file found in a profile folder), the modules, the
  // device spec.
  std::vector<std::string> inputs = profiles;
  for (const Profile& p : read) inputs.push_back(p.origin);
  inputs.insert(inputs.end(), hlos.begin(), hlos.end());
  inputs.insert(inputs.end(), module_files.begin(), module_files.end());
  inputs.push_back(device);
  if (absl::Status s = write_output_file(output, result->json, "the device", inputs); !s.ok()) {
    return fail(s);
  }
  std::cout << "\ndevice written to " << output << "\nuse it as: hloroof predict HLO --device "
            << output << "\n";
  return kExitOk;
}

}  // namespace

const Command kCalibrateCommand = {
    "calibrate",
    "fit a device's efficiencies to measured profiles; write a device JSON",
    "Joins each profile with its HLO module (as `hloroof profile` does) and fits, by weighted\n"
    "least squares over the measured ops (each op's relative error counts alike),\n"
    "matmul_efficiency, hbm_efficiency and per_op_overhead; on GPUs collective_latency and\n"
    "collective_bandwidth_efficiency from the collectives inside one node and\n"
    "interconnect.nic_efficiency from those whose groups cross nodes. Writes the device with\n"
    "the fitted fields (they replace the measured models; times marked source \"fitted\",\n"
    "unverified) to OUT.json and reports the error per op class and per step of the given\n"
    "device and of the fit, and with several profiles the error of each one predicted by the\n"
    "fit to the others (leave one out). Ops whose kernels' placement is uncertain, of unknown\n"
    "cost, or more than 4x from what the other ops agree on are left out. A second fit keeps\n"
    "the device's measured models and moves only the overhead; the one that predicts steps\n"
    "better is proposed, and written only if it predicts the held-out steps (one profile: its\n"
    "own step) better than the given device; otherwise nothing is written (exit 1 with -o).\n\n"
    "options:\n"
    "  --hlo HLO         the module of each profile, in order (or one for all): a file or an\n"
    "                    XLA dump directory; without it each PROFILE is a capture folder of\n"
    "                    tools/capture holding module.hlo\n"
    "  --module NAME     with dump directories: the module of each to read (default: the\n"
    "                    largest jit_* one)\n"
    "  --device D        the device to start from, as `hloroof predict` takes it; default:\n"
    "                    the one the profiles name (device plane, meta.json), as `profile`\n"
    "                    infers it; a device of another platform than theirs is an error\n"
    "  --set PATH=VALUE  a figure of the device set before the fit, in base units (repeat it;\n"
    "                    `hloroof devices D` lists them): e.g. --set hbm.bandwidth=3e12; the\n"
    "                    written device keeps it, and its notes say so\n"
    "  -o, --output OUT.json  where the fitted device goes (without it: the report only)\n"
    "  --name NAME       the fitted device's name (default DEVICE_fitted)\n"
    "  --topology T      the slice, when --device does not give it\n"
    "  --device-index N  the profiles' device plane GPU:N or TPU:N (default 0)\n"
    "  --trip-count N    trip count assumed for loops whose count cannot be told (default 1)\n\n"
    "example:\n"
    "  hloroof calibrate runs/gemm runs/mlp runs/attention --device h100 -o my_h100.json\n"
    "  hloroof predict train_step.hlo --device my_h100.json\n",
    run,
    "hloroof calibrate PROFILE... [--hlo HLO...] [--device D] [--set PATH=VALUE]...\n"
    "       [-o OUT.json] [--name NAME] [--topology T] [--device-index N] [--trip-count N]\n"
    "       [--module NAME]",
    arg_spec,
};

}  // namespace hloroof::cli
