// Built-in device specs (data/hardware/*.json compiled in) and user spec files.

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "device/embedded_files.h"
#include "hloroof/device.h"
#include "hloroof/input_file.h"
#include "util/absl_compat.h"

namespace hloroof {
namespace {

std::string_view stem(std::string_view file_name) {
  return file_name.substr(0, file_name.rfind('.'));
}

absl::StatusOr<DeviceSpec> parse_builtin(const internal::EmbeddedFile& file) {
  return parse_device_spec(file.contents, absl::StrCat("built-in ", sv(file.name)));
}

// A device spec is a few kilobytes (the built-in ones about 3 KB); anything much larger is not
// one (data/hardware/README.md).
constexpr int64_t kMaxDeviceSpecBytes = int64_t{1} << 20;

absl::StatusOr<DeviceSpec> read_spec_file(const std::string& path) {
  // One reader for every input: regular files only, size known, bounded.
  absl::StatusOr<InputFile> file = read_input_file(path, kMaxDeviceSpecBytes);
  if (!file.ok()) {
    return absl::Status(file.status().code(),
                        absl::StrCat("device spec: ", file.status().message()));
  }
  return parse_device_spec(file->text(), path);
}

}  // namespace

std::vector<std::string> builtin_device_names() {
  std::vector<std::string> names;
  for (const internal::EmbeddedFile& f : internal::builtin_device_files()) {
    names.emplace_back(stem(f.name));
  }
  return names;
}

absl::StatusOr<DeviceSpec> device(std::string_view name_or_path) {
  const std::string wanted = absl::AsciiStrToLower(sv(name_or_path));
  for (const internal::EmbeddedFile& f : internal::builtin_device_files()) {
    if (stem(f.name) == wanted) return parse_builtin(f);
  }
  // Aliases live inside the files; parsing all of them is cheap (a dozen small files).
  for (const internal::EmbeddedFile& f : internal::builtin_device_files()) {
    absl::StatusOr<DeviceSpec> spec = parse_builtin(f);
    if (!spec.ok()) return spec.status();
    for (const std::string& alias : spec->aliases) {
      if (absl::AsciiStrToLower(alias) == wanted) return spec;
    }
  }
  if (absl::StrContains(sv(name_or_path), '/') || absl::EndsWith(sv(name_or_path), ".json")) {
    return read_spec_file(std::string(name_or_path));
  }
  return absl::NotFoundError(absl::StrCat(
      "unknown device '", sv(name_or_path), "'; built-in devices: ",
      absl::StrJoin(builtin_device_names(), ", "), " (or give the path of a JSON spec)"));
}

}  // namespace hloroof
