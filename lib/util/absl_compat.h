// The library's sources include it by this name; the header is public (hloroof/absl_compat.h),
// as the command and Python use it too.
#ifndef HLOROOF_LIB_UTIL_ABSL_COMPAT_H_
#define HLOROOF_LIB_UTIL_ABSL_COMPAT_H_

#include "hloroof/absl_compat.h"

#endif  // HLOROOF_LIB_UTIL_ABSL_COMPAT_H_
