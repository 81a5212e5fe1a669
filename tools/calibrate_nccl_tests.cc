#include "calibrate_nccl_tests.h"

#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "commands.h"
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
  if (!args.has(kDevice)) {
    return usage_error("--device is required with nccl-tests logs (e.g. --device a100)",
                       kCalibrateCommand.usage);
  }
  std::vector<NcclTestsRun> runs;
  for (size_t k = 0; k < logs.size(); ++k) {
    absl::StatusOr<std::vector<NcclTestsRun>> read =
        parse_nccl_tests(logs[k].text(), args.positional[k]);
    if (!read.ok()) return fail(read.status());
    runs.insert(runs.end(), read->begin(), read->end());
  }
  absl::StatusOr<DeviceTarget> target =
      resolve_device(args.text(kDevice), nullptr, {.settings = args.all(kSet)});
  if (!target.ok()) return fail(target.status());
  absl::StatusOr<NcclTestsFit> fit = fit_nccl_tests(runs, target->spec, args.text(kName));
  if (!fit.ok()) return fail(fit.status());
  std::cout << render_nccl_tests_fit(*fit);
  const std::string output = args.text(kOutput);
  if (output.empty()) {
    std::cout << "\nnot written (no -o OUT.json)\n";
    return kExitOk;
  }
  std::vector<std::string> inputs = args.positional;
  inputs.push_back(args.text(kDevice));
  if (absl::Status s = write_output_file(output, fit->json, "the device", inputs); !s.ok()) {
    return fail(s);
  }
  std::cout << "\ndevice written to " << output << "\nuse it as: hloroof predict HLO --device "
            << output << ":NODESxGPUS\n";
  return kExitOk;
}

}  // namespace hloroof::cli
