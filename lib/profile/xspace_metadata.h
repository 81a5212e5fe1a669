// What an XSpace says besides its timelines: the modules it ran (as HloProtos), what each
// device is, and XLA's own per-op costs on TPU.
#ifndef HLOROOF_PROFILE_XSPACE_METADATA_H_
#define HLOROOF_PROFILE_XSPACE_METADATA_H_

#include "hloroof/profile.h"
#include "proto/xplane.pb.h"

namespace hloroof {

// Reads what `plane` (an XPlane without its lines) says besides its timeline into `out`, the
// ProfilePlane converted from it: its device_type, and XLA's per-op costs (the event metadata
// that carries `flops` or `bytes_accessed` stats: TPU's "XLA Ops"); from "/host:metadata", the
// modules' HloProtos into profile->module_protos.
void read_plane_metadata(const xplane::XPlane& plane, ProfilePlane* out, Profile* profile);
// After every plane: the modules in name order (metadata maps are unordered).
void finish_xspace_metadata(Profile* profile);

}  // namespace hloroof

#endif  // HLOROOF_PROFILE_XSPACE_METADATA_H_
