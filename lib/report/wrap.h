// The library's sources include it by this name; the header is public (hloroof/wrap.h),
// as the command and Python use it too.
#ifndef HLOROOF_LIB_REPORT_WRAP_H_
#define HLOROOF_LIB_REPORT_WRAP_H_

#include "hloroof/wrap.h"

#endif  // HLOROOF_LIB_REPORT_WRAP_H_
