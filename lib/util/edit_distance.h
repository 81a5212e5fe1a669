// The library's sources include it by this name; the header is public (hloroof/edit_distance.h),
// as the command and Python use it too.
#ifndef HLOROOF_LIB_UTIL_EDIT_DISTANCE_H_
#define HLOROOF_LIB_UTIL_EDIT_DISTANCE_H_

#include "hloroof/edit_distance.h"

#endif  // HLOROOF_LIB_UTIL_EDIT_DISTANCE_H_
