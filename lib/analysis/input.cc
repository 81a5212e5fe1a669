// The front door (hloroof/analysis.h): a module's device chosen by one rule, and what reading
// it and choosing said merged into each result in one order.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hloroof/absl_compat.h"
#include "hloroof/analysis.h"
#include "hloroof/platform.h"

namespace hloroof {
namespace {

// What leads a prediction's assumptions (and an advice's notes): loading's notes (unless
// shown), its warnings, the caller's notes, the device choice's notes.
std::vector<std::string> leading_notes(const InputDiagnostics& said) {
  std::vector<std::string> out;
  if (!said.loaded_notes_shown) out = said.loaded.notes;
  for (const auto* part : {&said.loaded.warnings, &said.caller_notes, &said.device.notes}) {
    out.insert(out.end(), part->begin(), part->end());
  }
  return out;
}

}  // namespace

absl::StatusOr<DeviceChoice> choose_device(const LoadedModule& loaded, std::string_view device,
                                           DeviceTargetOptions options) {
  return choose_device(&loaded.module, loaded.file, loaded.profile_device_kind, device,
                       std::move(options));
}

absl::StatusOr<DeviceChoice> choose_device(const Module* module, std::string_view file,
                                           std::string_view profile_device_kind,
                                           std::string_view device,
                                           DeviceTargetOptions options) {
  DeviceChoice out;
  std::string text(device);
  if (text.empty() && !profile_device_kind.empty()) {
    const std::string kind_device = device_for_kind(profile_device_kind).device;
    if (!kind_device.empty()) {
      text = kind_device;
      out.profile_note = absl::StrCat("device ", kind_device, " from the profile, which ran on '",
                                      sv(profile_device_kind), "' (the profile's device plane); ",
                                      options.device_option, " overrides it");
    }
  }
  if (options.compiled_for.platform.empty() && !file.empty()) {
    options.compiled_for = platform_of_file_name(file);
  }
  absl::StatusOr<DeviceTarget> target = resolve_device(text, module, options);
  if (!target.ok()) return target.status();
  out.target = *std::move(target);
  return out;
}

absl::StatusOr<AnalysisInput> prepare_analysis(const AnalysisRequest& request) {
  absl::StatusOr<LoadedModule> loaded = load_module(request.path, request.load);
  if (!loaded.ok()) return loaded.status();
  if (request.on_loaded) request.on_loaded(*loaded);
  absl::StatusOr<DeviceChoice> choice =
      choose_device(*loaded, request.device, request.device_options);
  if (!choice.ok()) return choice.status();
  return AnalysisInput{.loaded = *std::move(loaded),
                       .target = std::move(choice->target),
                       .profile_note = std::move(choice->profile_note)};
}

InputDiagnostics input_diagnostics(const LoadedModule& loaded, const DeviceTarget& target,
                                   bool loaded_notes_shown) {
  return {.banner = loaded.banner,
          .loaded = loaded.diagnostics,
          .device = target.diagnostics,
          .loaded_notes_shown = loaded_notes_shown};
}

InputDiagnostics AnalysisInput::said(bool loaded_notes_shown) const {
  return input_diagnostics(loaded, target, loaded_notes_shown);
}

void add_input_diagnostics(const InputDiagnostics& said, Prediction& prediction) {
  add_diagnostics({.notes = leading_notes(said), .warnings = said.device.warnings}, prediction);
  if (!said.banner.empty()) {
    std::vector<std::string>& warnings = prediction.diagnostics.warnings;
    warnings.insert(warnings.begin(), said.banner);
  }
}

void add_input_diagnostics(const InputDiagnostics& said, MemoryReport& report) {
  std::vector<std::string> first;
  if (!said.banner.empty()) first.push_back(absl::StrCat("warning: ", said.banner));
  for (const std::string& w : said.loaded.warnings) first.push_back(absl::StrCat("warning: ", w));
  if (!said.loaded_notes_shown) {
    first.insert(first.end(), said.loaded.notes.begin(), said.loaded.notes.end());
  }
  report.notes.insert(report.notes.begin(), first.begin(), first.end());
  for (const auto* part : {&said.caller_notes, &said.device.notes}) {
    report.notes.insert(report.notes.end(), part->begin(), part->end());
  }
  report.warnings.insert(report.warnings.end(), said.device.warnings.begin(),
                         said.device.warnings.end());
}

void add_input_diagnostics(const InputDiagnostics& said, Advice& advice) {
  const std::vector<std::string> lead = leading_notes(said);
  advice.notes.insert(advice.notes.begin(), lead.begin(), lead.end());
}

}  // namespace hloroof
