#include "calibrate_nccl_tests.h"

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "commands.h"
#include "hloroof/device_target.h"
#include "hloroof/nccl_tests.h"
#include "hloroof/output_file.h"
#include "hloroof/text_safety.h"

namespace hloroof::cli {

std::optional<int> calibrate_from_nccl_tests(const Args& args) {
  std::vector<InputFile> logs;
  std::string a_log, not_a_log;  // an input of each kind, for the error when both are given
  for (const std::string& path : args.positional) {
    // Standard input is read once, as a profile (which says so when it holds a log).
    absl::StatusOr<InputFile> file =
        path == "-" ? absl::StatusOr<InputFile>(absl::CancelledError()) : read_input(path);
    if (!file.ok() || !looks_like_nccl_tests(file->text())) {
      if (not_a_log.empty()) not_a_log = path == "-" ? "standard input" : path;
      continue;
    }
    if (a_log.empty()) a_log = path;
    logs.push_back(*std::move(file));
  }
  if (logs.empty()) return std::nullopt;
  if (!not_a_log.empty()) {
    return usage_error(absl::StrCat("'", printable(a_log), "' is an nccl-tests log, but '",
                                    printable(not_a_log),
                                    "' is not one: give nccl-tests logs alone (as files), or "
                                    "profiles alone"),
                       kCalibrateCommand.usage);
  }
  using namespace calibrate_flags;  // NOLINT: the command's own flags
  if (args.has(kHlo) || args.has(kModule) || args.has(kTripCountFlag) ||
      args.has(kDeviceIndex) || args.has(kTopologyFlag)) {
    return usage_error(
        "nccl-tests logs take --device, --set, --name and -o only (their ranks and hosts give "
        "the topology)",
        kCalibrateCommand.usage);
  }
  // The GPU the logs' ranks ran on ("NVIDIA A100-SXM4-80GB"), as a profile's device plane
  // names it: the device to start from, and one a given --device must be.
  std::string gpu;
  for (size_t k = 0; k < logs.size(); ++k) {
    const std::string named = nccl_tests_gpu(logs[k].text());
    if (named.empty()) continue;
    if (!gpu.empty() && named != gpu) {
      return usage_error(absl::StrCat("the logs ran on different GPUs ('", printable(gpu),
                                      "', '", printable(named), "' in ",
                                      printable(args.positional[k]),
                                      "): fit one cluster's logs at a time"),
                         kCalibrateCommand.usage);
    }
    gpu = named;
  }
  const KindDevice measured = device_for_kind(gpu);
  if (!args.has(kDevice) && measured.device.empty()) {
    return usage_error(
        gpu.empty() ? "--device is required: the logs' rank lines name no GPU (e.g. --device a100)"
                    : absl::StrCat("--device is required: the logs ran on '", printable(gpu),
                                   "', which is not a built-in device (a device JSON can "
                                   "describe it)"),
        kCalibrateCommand.usage);
  }
  std::vector<NcclTestsRun> runs;
  for (size_t k = 0; k < logs.size(); ++k) {
    absl::StatusOr<std::vector<NcclTestsRun>> read =
        parse_nccl_tests(logs[k].text(), args.positional[k]);
    if (!read.ok()) return fail(read.status());
    runs.insert(runs.end(), read->begin(), read->end());
  }
  const std::string device = args.has(kDevice) ? args.text(kDevice) : measured.device;
  absl::StatusOr<DeviceTarget> target =
      resolve_device(device, nullptr, {.settings = args.all(kSet)});
  if (!target.ok()) return fail(target.status());
  const DeviceSpec& spec = target->spec;
  if (!args.has(kDevice)) {
    print_message("note: ", absl::StrCat("device ", measured.device, " from the logs, which ran "
                                         "on '", gpu, "'; --device overrides it"));
  } else if (!gpu.empty()) {
    // The GPU the given device describes: its base, a built-in's own name, else the GPU its
    // display name names ("NVIDIA A100 SXM 80GB" of a cluster's own file).
    std::string given = spec.base;
    if (given.empty()) {
      const std::vector<std::string> builtin = builtin_device_names();
      given = std::find(builtin.begin(), builtin.end(), spec.name) != builtin.end()
                  ? spec.name
                  : device_for_kind(spec.display_name).device;
    }
    if (!measured.device.empty() && !given.empty() && given != measured.device) {
      return usage_error(
          absl::StrCat("the logs ran on '", printable(gpu), "' (", measured.device,
                       ") and --device ", printable(device), " is ", given,
                       ": a network is fitted on the device it ran on; give --device ",
                       measured.device, " (or a device JSON of that GPU)"),
          kCalibrateCommand.usage);
    }
    if (given.empty() || measured.device.empty()) {
      print_message("warning: ",
                    absl::StrCat("the logs ran on '", gpu, "', and --device ", device,
                                 " names no GPU hloroof can match to it: taken as that GPU"));
    }
  }
  absl::StatusOr<NcclTestsFit> fit = fit_nccl_tests(runs, spec, args.text(kName));
  if (!fit.ok()) return fail(fit.status());
  std::cout << render_nccl_tests_fit(*fit);
  const std::string output = args.text(kOutput);
  if (!fit->accepted) {
    if (output.empty()) return kExitOk;
    return fail(absl::FailedPreconditionError(absl::StrCat(
        "'", output, "' not written: the fit predicts the logs no better than --device ", device,
        " (above); keep using it")));
  }
  if (output.empty()) {
    std::cout << "\nnot written (no -o OUT.json)\n";
    return kExitOk;
  }
  std::vector<std::string> inputs = args.positional;
  inputs.push_back(device);
  if (absl::Status s = write_output_file(output, fit->json, "the device", inputs); !s.ok()) {
    return fail(s);
  }
  std::cout << "\ndevice written to " << output << "\nuse it as: hloroof predict HLO --device "
            << output << ":NODESxGPUS\n";
  return kExitOk;
}

}  // namespace hloroof::cli
