// The library's sources include it by this name; the header is public (hloroof/text_safety.h),
// as the command and Python use it too.
#ifndef HLOROOF_LIB_UTIL_TEXT_SAFETY_H_
#define HLOROOF_LIB_UTIL_TEXT_SAFETY_H_

#include "hloroof/text_safety.h"

#endif  // HLOROOF_LIB_UTIL_TEXT_SAFETY_H_
