// An XSpace in its wire format: the file is walked first, counting planes, lines, events and
// the memory their messages would take, and refused before anything is decoded when it holds
// too many (the limits are in hloroof/xspace_modules.h). Then each plane is decoded without its
// lines (its name and metadata), and its lines one at a time. The modules reader here and the
// profile layer's timeline reader both walk it so.
#ifndef HLOROOF_PROTO_XSPACE_WIRE_H_
#define HLOROOF_PROTO_XSPACE_WIRE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hloroof/xspace_modules.h"
#include "proto/xplane.pb.h"

namespace hloroof::xspace {

// Field numbers of xplane.proto.
inline constexpr uint64_t kSpacePlanes = 1;
inline constexpr uint64_t kPlaneLines = 3, kPlaneEventMetadata = 4, kPlaneStatMetadata = 5;
inline constexpr uint64_t kLineEvents = 4;
inline constexpr uint64_t kEventStats = 4;
inline constexpr uint64_t kMapValue = 2;
inline constexpr uint64_t kEventMetadataStats = 5;

// One plane's bytes and what it holds, counted in its wire format.
struct PlaneCount {
  std::string_view bytes;
  std::vector<std::string_view> lines;
  int64_t events = 0;
  int64_t shell_bytes = 0;     // decoded memory of the plane without its lines
  int64_t max_line_bytes = 0;  // decoded memory of its largest line
};

// "1 GiB": a limit in messages.
std::string size_words(int64_t bytes);

// The error for bytes that are not an XSpace.
absl::Status not_xspace(std::string_view origin);

// The planes of `bytes`, counted; an error when the bytes are not an XSpace or hold more than
// the limits allow (file size, planes, lines, events, one plane's decoded memory).
absl::StatusOr<std::vector<PlaneCount>> count_xspace(std::string_view bytes,
                                                     std::string_view origin);

// A number stat's value (double, int64 or uint64) as a double; -1 for a stat of another type.
double stat_value(const xplane::XStat& s);

// The plane without its lines: a copy of its other fields, decoded as an XPlane.
std::string plane_shell(std::string_view plane);

// What a plane (decoded without its lines) says its device is: its `device_type_string` stat on
// TPU ("TPU v6 Lite"), `gpu_device_name` on GPU; on ROCm, which names no model, its vendor,
// compute capability and compute units. Empty when it says nothing.
std::string plane_device_type(const xplane::XPlane& plane);

// The modules the "/host:metadata" plane carries (its event metadata's "Hlo Proto" stats),
// appended to `out` in the plane's order; nothing for another plane.
void add_carried_modules(const xplane::XPlane& plane, std::vector<ProfileModuleProto>* out);

}  // namespace hloroof::xspace

#endif  // HLOROOF_PROTO_XSPACE_WIRE_H_
