// The library's sources include it by this name; the header is public (hloroof/csv_text.h),
// as the command and Python use it too.
#ifndef HLOROOF_LIB_REPORT_CSV_TEXT_H_
#define HLOROOF_LIB_REPORT_CSV_TEXT_H_

#include "hloroof/csv_text.h"

#endif  // HLOROOF_LIB_REPORT_CSV_TEXT_H_
