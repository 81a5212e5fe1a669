// `hloroof calibrate PROFILE... --hlo HLO... --device D -o OUT.json`: the device's efficiency
// figures fitted to measured profiles, written as a device JSON.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "calibrate_nccl_tests.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/analysis.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/input_file.h"
#include "hloroof/output_file.h"
#include "hloroof/profile.h"
#include "input.h"
#include "hloroof/wrap.h"
#include "hloroof/text_safety.h"

namespace hloroof::cli {
namespace {

// An HLO module by its content (text or proto), not a profile.
bool is_module_file(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return false;
  absl::StatusOr<InputFile> file = read_input_file(path);
  if (!file.ok()) return false;
  const InputKind kind = detect_input_kind(file->text());
  return kind == InputKind::kHloText || kind == InputKind::kHloProto;
}

// The modules --hlo names, in order: each --hlo's value, and the words after it that are HLO
// modules by their content (`--hlo a.hlo b.hlo`), which the parser took for profiles and are
// taken out of `profiles`.
std::vector<std::string> hlo_words(const std::vector<std::string>& words,
                                   std::vector<std::string>& profiles) {
  std::vector<std::string> hlos;
  bool after_hlo = false;  // the last word was an --hlo value or a module after one
  for (size_t k = 0; k < words.size(); ++k) {
    const std::string& w = words[k];
    if (w == calibrate_flags::kHlo.name && k + 1 < words.size()) {
      hlos.push_back(words[++k]);
      after_hlo = true;
    } else if (absl::StartsWith(w, "--hlo=")) {
      hlos.push_back(w.substr(std::string_view("--hlo=").size()));
      after_hlo = true;
    } else if (after_hlo && !absl::StartsWith(w, "-") && is_module_file(w)) {
      hlos.push_back(w);
      auto at = std::find(profiles.begin(), profiles.end(), w);
      if (at != profiles.end()) profiles.erase(at);
    } else {
      after_hlo = false;
    }
  }
  return hlos;
}

using calibrate_flags::kDevice;
using calibrate_flags::kDeviceIndex;
using calibrate_flags::kHlo;
using calibrate_flags::kModule;
using calibrate_flags::kName;
using calibrate_flags::kOutput;
using calibrate_flags::kSet;

// The flags and options the command takes, in the order its help lists them.
constexpr const Flag* kFlags[] = {&kHlo,          &kModule,      &kDevice,       &kSet,
                                  &kOutput,       &kName,        &kTopologyFlag, &kDeviceIndex,
                                  &kTripCountFlag};

// What calibrate_profiles needs, from the command's flags.
ProfileCalibrationInputs calibration_inputs(const Args& args, std::vector<std::string> profiles,
                                            std::vector<std::string> hlos) {
  ProfileCalibrationInputs in;
  in.profiles = std::move(profiles);
  in.module_paths = std::move(hlos);
  in.device = args.text(kDevice);
  in.load = cli_load_options();
  in.load.module_name = args.text(kModule);
  in.device_option = kDevice.name;
  in.modules_option = kHlo.name;
  CalibrationOptions& options = in.options;
  options.name = args.text(kName);
  options.settings = args.all(kSet);  // the fit starts from the figures set
  options.topology = args.text(kTopologyFlag);
  options.predict.default_trip_count = args.count(kTripCountFlag);
  options.profile.device_index = static_cast<int>(args.count(kDeviceIndex));
  in.on_loaded = [](const LoadedModule& loaded) { print_input_messages(loaded); };
  in.on_note = [](const std::string& note) {
    std::cerr << report_internal::wrap(printable(note), "note: ", "  ");
  };
  return in;
}

// The usage error of --hlo values that do not go with the profiles, or none.
std::optional<std::string> hlo_mismatch(const Args& args, size_t profiles,
                                        const std::vector<std::string>& hlos) {
  if (hlos.size() > 1 && hlos.size() != profiles) {
    return absl::StrCat("give one --hlo for every profile (", profiles, " profiles, ",
                        hlos.size(), " --hlo), or one for all");
  }
  for (const std::string& hlo : hlos) {
    std::error_code error;
    if (args.has(kModule) && !std::filesystem::is_directory(hlo, error)) {
      return absl::StrCat("--module picks a module of a dump directory; '", hlo,
                          "' is not a directory");
    }
  }
  return std::nullopt;
}

// Prints the fit and writes the device to `output` (none: only printed) where it is accepted.
int report_fit(const ProfileCalibration& calibrated, const std::string& output) {
  const CalibrationResult& result = calibrated.result;
  std::cout << render_calibration(result);
  if (!result.accepted) {
    if (output.empty()) return kExitOk;
    return fail(absl::FailedPreconditionError(absl::StrCat(
        "'", output, "' not written: the fit predicts steps worse than --device ",
        calibrated.device, " (above); keep using it")));
  }
  if (output.empty()) {
    std::cout << "\nnot written (no -o OUT.json)\n";
    return kExitOk;
  }
  // Every file read: the profiles (and the file found in a profile folder), the modules, the
  // device spec.
  if (absl::Status s = write_output_file(output, result.json, "the device", calibrated.inputs);
      !s.ok()) {
    return fail(s);
  }
  std::cout << "\ndevice written to " << output << "\nuse it as: hloroof predict HLO --device "
            << output << "\n";
  return kExitOk;
}

int run(const std::vector<std::string>& words) {
  int exit_code = kExitOk;
  std::optional<Args> args = parse_command_args(words, kCalibrateCommand, exit_code);
  if (!args) return exit_code;
  std::vector<std::string> profiles = args->positional;
  std::vector<std::string> hlos = hlo_words(words, profiles);
  if (profiles.empty()) {
    return usage_error("expected one or more profiles", kCalibrateCommand.usage);
  }
  if (std::optional<int> done = calibrate_from_nccl_tests(*args)) return *done;
  const std::string output = args->text(kOutput);
  if (args->has(kOutput) && output.empty()) {
    // Refused as every output is, before the profiles are read and fitted.
    return fail(write_output_file("", "", "the device"));
  }
  if (std::optional<std::string> error = hlo_mismatch(*args, profiles.size(), hlos)) {
    return usage_error(*error, kCalibrateCommand.usage);
  }
  absl::StatusOr<ProfileCalibration> calibrated =
      calibrate_profiles(calibration_inputs(*args, std::move(profiles), std::move(hlos)));
  if (!calibrated.ok()) {
    if (calibrated.status().GetPayload(kCalibrationUsagePayload).has_value()) {
      return usage_error(calibrated.status().message(), kCalibrateCommand.usage);
    }
    return fail(calibrated.status());
  }
  return report_fit(*calibrated, output);
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
    "own step) better than the given device; otherwise nothing is written (exit 1 with -o).\n"
    "Given nccl-tests logs instead (all_reduce_perf, all_gather_perf, reduce_scatter_perf,\n"
    "alltoall_perf output, their 'Rank ... on HOST device ...' lines kept), fits the network\n"
    "across nodes to the sizes whose ranks span nodes, each predicted as one collective on the\n"
    "device over the log's nodes: interconnect.nic_efficiency to the bandwidth-bound sizes and\n"
    "interconnect.scale_out_latency (added to NCCL's latency model) to the latency-bound ones;\n"
    "prints each size before and after, warns of a figure at its bound, and writes the device\n"
    "only if its median error falls. The device is the GPU the rank lines name (a --device of\n"
    "another GPU is an error); --set, --name and -o apply.\n",
    run,
    "hloroof calibrate PROFILE... [--hlo HLO...] [--device D] [--set PATH=VALUE]...\n"
    "       [-o OUT.json] [--name NAME] [--topology T] [--device-index N] [--trip-count N]\n"
    "       [--module NAME]",
    kFlags,
    {},
    "example:\n"
    "  hloroof calibrate runs/gemm runs/mlp runs/attention --device h100 -o my_h100.json\n"
    "  hloroof predict train_step.hlo --device my_h100.json\n"
    "  hloroof calibrate all_reduce_perf.log alltoall_perf.log --device a100 -o cluster.json\n",
};

}  // namespace hloroof::cli
