// The HLO modules an XSpace profile carries, read without its timelines: each module's HloProto,
// how long each ran, and the device the profile ran on. What reading a module needs of a
// profile (hloroof/load.h); the profile layer (hloroof/profile.h) reads the timelines.
//
//   absl::StatusOr<hloroof::XSpaceModules> carried = hloroof::read_xspace_modules(bytes, path);
//   absl::StatusOr<const hloroof::ProfileModuleProto*> m =
//       hloroof::pick_carried_module(*carried, "");  // the one that ran longest
#ifndef HLOROOF_XSPACE_MODULES_H_
#define HLOROOF_XSPACE_MODULES_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace hloroof {

// The largest profile file read (an .xplane.pb, a trace JSON, gzipped or not): 1 GiB. The
// profiles JAX writes for one step of a large model are tens of megabytes.
inline constexpr int64_t kMaxProfileFileBytes = int64_t{1} << 30;
// What one profile may hold (docs/limits.md), checked as it is read, before the memory is taken:
// the JSON text a trace may be or inflate to (1 GiB), its planes (devices and hosts: 4096),
// lines (timeline rows: 2^20), events (2^23, about 8.4 million; a step of a large model has tens
// of thousands), and the memory its planes, lines and events take (1 GiB).
inline constexpr int64_t kMaxTraceTextBytes = int64_t{1} << 30;
inline constexpr int64_t kMaxProfilePlanes = 4096;
inline constexpr int64_t kMaxProfileLines = int64_t{1} << 20;
inline constexpr int64_t kMaxProfileEvents = int64_t{1} << 23;
inline constexpr int64_t kMaxProfileHeldBytes = int64_t{1} << 30;

// An optimized module an XSpace carries: the "/host:metadata" plane holds one event metadata
// per module, named "NAME(PROGRAM_ID)", whose stat "Hlo Proto" is a serialized xla.HloProto
// (the HloModuleProto and XLA's buffer assignment).
struct ProfileModuleProto {
  std::string name;       // "jit_step(12)"
  std::string hlo_proto;  // read with ParsedHloProto (hloroof/hlo_proto.h)
};

// How long the modules of a profile ran, over all its devices: the events named after a module
// on "XLA Modules" lines (TPU: "jit_step(12)") and the host's "NAME:XLA GPU module" events
// (GPU), summed by full name and by name without the program id.
class ModuleRunTimes {
 public:
  // An event of `seconds` on a line named `line`; counted when it is a module's.
  void add(std::string_view line, std::string_view event, double seconds);
  // The time of a module the profile carries ("jit_step(12)"): by its full name where events
  // carry the id, else by its name; 0 when no event names it.
  double of(std::string_view module_name) const;

 private:
  std::map<std::string, double, std::less<>> by_full_, by_base_;
};

struct XSpaceModules {
  std::string origin;                       // the file read
  std::vector<ProfileModuleProto> modules;  // in name order
  ModuleRunTimes run_times;
  // The device kind the profile's device planes name ("TPU v6 Lite"), the first one found;
  // empty when none does.
  std::string device_type;
};

// Reads the modules an XSpace carries, with the same checks and errors as the profile reader
// (hloroof/profile.h: not an XSpace, more than the limits above); the timelines are walked for
// the modules' run times only, never held.
absl::StatusOr<XSpaceModules> read_xspace_modules(std::string_view bytes, std::string_view origin);

// The module to read: the one `name` picks (a name "jit_step", a full name "jit_step(12)", or a
// program id "12"), by default the one that ran longest, the latest compiled of equal ones.
// `note` (if given) says which was read and what else there is. Errors: the profile carries no
// module, or none is named so (they are listed). `module_option` names, in messages, how the
// caller picks another ("--module" for the command).
absl::StatusOr<const ProfileModuleProto*> pick_carried_module(
    const XSpaceModules& carried, std::string_view name, std::string* note = nullptr,
    std::string_view module_option = "module_name");
// The same over a profile's modules (`origin` the file, in messages) and their run times.
absl::StatusOr<const ProfileModuleProto*> pick_carried_module(
    std::string_view origin, const std::vector<ProfileModuleProto>& modules,
    const ModuleRunTimes& run_times, std::string_view name, std::string* note,
    std::string_view module_option);

// `modules` by the time they ran, the longest first; equal times in their given order (a
// profile's are in name order): the order pick_carried_module lists them in.
std::vector<const ProfileModuleProto*> modules_by_run_time(
    const std::vector<ProfileModuleProto>& modules, const ModuleRunTimes& run_times);

// "jit_step(12)" -> "jit_step"; "jit_step:XLA GPU module" -> "jit_step".
std::string_view profile_base_name(std::string_view name);
// "jit_step(12)" -> "12"; "" without an id.
std::string_view profile_program_id_text(std::string_view name);

}  // namespace hloroof

#endif  // HLOROOF_XSPACE_MODULES_H_
