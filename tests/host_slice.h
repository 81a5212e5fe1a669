// A module that loads one row back from a buffer in memory space `memory_space` (5: host
// memory) as an async dynamic-slice, as libtpu loads an offloaded layer input: the row is
// f32[1,1048576], 4 MiB, and nothing runs beside it.
#ifndef HLOROOF_TESTS_HOST_SLICE_H_
#define HLOROOF_TESTS_HOST_SLICE_H_

#include <string>

#include "absl/strings/str_cat.h"

namespace hloroof::testing {

inline std::string host_slice_module(int memory_space) {
  const std::string buffer =
      absl::StrCat("f32[4,1048576]{1,0", memory_space ? absl::StrCat(":S(", memory_space, ")")
                                                      : std::string(), "}");
  return absl::StrCat(R"(HloModule m, is_scheduled=true
wrapped {
  h = )", buffer, R"( parameter(0)
  i = s32[] parameter(1)
  z = s32[] constant(0)
  ROOT s = f32[1,1048576] dynamic-slice(h, i, z), dynamic_slice_sizes={1,1048576}
}
ENTRY e {
  h = )", buffer, R"( parameter(0)
  i = s32[] parameter(1)
  st = (()", buffer, R"(, s32[]), f32[1,1048576], u32[]) async-start(h, i), calls=wrapped
  ROOT dn = f32[1,1048576] async-done(st)
})");
}

}  // namespace hloroof::testing

#endif  // HLOROOF_TESTS_HOST_SLICE_H_
