// The library's sources include it by this name; the header is public (hloroof/huge_pages.h),
// as the command and Python use it too.
#ifndef HLOROOF_LIB_UTIL_HUGE_PAGES_H_
#define HLOROOF_LIB_UTIL_HUGE_PAGES_H_

#include "hloroof/huge_pages.h"

#endif  // HLOROOF_LIB_UTIL_HUGE_PAGES_H_
