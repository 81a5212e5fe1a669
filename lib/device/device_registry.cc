// Built-in device specs (data/hardware/*.json compiled in) and user spec files.

#include <mutex>
#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "device/embedded_files.h"
#include "hloroof/device.h"
#include "hloroof/input_file.h"
#include "hloroof/absl_compat.h"

namespace hloroof {
namespace {

std::string_view stem(std::string_view file_name) {
  return file_name.substr(0, file_name.rfind('.'));
}

absl::StatusOr<DeviceSpec> parse_builtin(const internal::EmbeddedFile& file) {
  return parse_device_spec(file.contents, absl::StrCat("built-in ", sv(file.name)));
}

// The built-in file `index` (of builtin_device_files()), parsed once per process: a command
// that names several devices, or a name looked for among the aliases of every file, asks for
// the same specs again. The result stays where it is, unchanged, once made.
const absl::StatusOr<DeviceSpec>& builtin(size_t index) {
  static std::mutex mu;
  static auto* parsed = new std::vector<std::optional<absl::StatusOr<DeviceSpec>>>(
      internal::builtin_device_files().size());
  std::lock_guard<std::mutex> lock(mu);
  std::optional<absl::StatusOr<DeviceSpec>>& entry = (*parsed)[index];
  if (!entry) entry = parse_builtin(internal::builtin_device_files()[index]);
  return *entry;
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
  const absl::Span<const internal::EmbeddedFile> files = internal::builtin_device_files();
  for (size_t k = 0; k < files.size(); ++k) {
    if (stem(files[k].name) == wanted) return builtin(k);
  }
  // Aliases live inside the files (a dozen small ones, each parsed once).
  for (size_t k = 0; k < files.size(); ++k) {
    const absl::StatusOr<DeviceSpec>& spec = builtin(k);
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
