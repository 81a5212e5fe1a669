// The library's sources include it by this name; the header is public (hloroof/threads.h),
// as the command and Python use it too.
#ifndef HLOROOF_LIB_UTIL_THREADS_H_
#define HLOROOF_LIB_UTIL_THREADS_H_

#include "hloroof/threads.h"

#endif  // HLOROOF_LIB_UTIL_THREADS_H_
