// Built-in device specs (data/hardware/*.json compiled in) and user spec files.

#include <mutex>
#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "device/embedded_files.h"
#include "device/registry.h"
#include "hloroof/device.h"
#include "hloroof/input_file.h"
#include "hloroof/absl_compat.h"

namespace hloroof {
namespace {

std::string_view stem(std::string_view file_name) {
  return file_name.substr(0, file_name.rfind('.'));
}

// Set while this thread parses a built-in file (builtin() holds its lock then).
thread_local bool parsing_builtin = false;

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
  if (!entry) {
    parsing_builtin = true;
    entry = parse_builtin(internal::builtin_device_files()[index]);
    parsing_builtin = false;
  }
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

namespace internal {
namespace {

// The string value of `key`'s first occurrence in a built-in file's text, as those files write
// it (`"kind": "gpu"`); empty when absent.
std::string_view text_field(std::string_view text, std::string_view key) {
  const std::string pattern = "\"" + std::string(key) + "\": \"";
  const size_t at = text.find(pattern);
  if (at == std::string_view::npos) return {};
  const size_t begin = at + pattern.size();
  const size_t end = text.find('"', begin);
  return end == std::string_view::npos ? std::string_view() : text.substr(begin, end - begin);
}

}  // namespace

absl::StatusOr<MeasuredOn> inherited_measured_on(const DeviceSpec& spec) {
  if (parsing_builtin) {
    return absl::InvalidArgumentError(
        absl::StrCat(spec.origin, ": field 'measured_on': missing (a built-in spec names the "
                                  "device each set of its measurements was taken on)"));
  }
  if (!spec.base.empty()) {
    absl::StatusOr<DeviceSpec> base = device(spec.base);
    if (!base.ok()) return base.status();
    return base->measured_on;
  }
  // The closest built-in device: the same kind (and maker, for a GPU), the highest compute
  // capability not above the spec's, the first by name among equals. What the rule compares is
  // read from the files' text; only the one chosen is parsed (parsing them all would cost a
  // command that reads a file of its own more than the rest of its start).
  const absl::Span<const EmbeddedFile> files = builtin_device_files();
  const int major = spec.gpu ? spec.gpu->compute_capability_major : 0;
  std::optional<size_t> closest;
  int closest_major = 0;
  for (size_t k = 0; k < files.size(); ++k) {
    const std::string_view text = files[k].contents;
    if (text_field(text, "kind") != device_kind_name(spec.kind)) continue;
    if (spec.gpu) {
      const bool amd = text_field(text, "type") == "xgmi";
      int theirs = 0;
      const std::string_view capability = text_field(text, "compute_capability");
      if (!absl::SimpleAtoi(sv(capability.substr(0, capability.find('.'))), &theirs)) continue;
      if (amd != (spec.gpu->vendor == GpuVendor::kAmd) || theirs > major) continue;
      if (closest && theirs <= closest_major) continue;
      closest_major = theirs;
    } else if (closest) {
      continue;
    }
    closest = k;
  }
  if (!closest) return MeasuredOn{};
  const absl::StatusOr<DeviceSpec>& b = builtin(*closest);
  if (!b.ok()) return b.status();
  return b->measured_on;
}

}  // namespace internal

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
