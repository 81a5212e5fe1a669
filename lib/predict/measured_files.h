// The measured tables compiled into the library (data/measured/*.tsv; cmake/EmbedFiles.cmake
// generates the definition).
#ifndef HLOROOF_LIB_PREDICT_MEASURED_FILES_H_
#define HLOROOF_LIB_PREDICT_MEASURED_FILES_H_

#include "device/embedded_files.h"

namespace hloroof::internal {

// data/measured/*.tsv, sorted by name.
absl::Span<const EmbeddedFile> measured_table_files();

}  // namespace hloroof::internal

#endif  // HLOROOF_LIB_PREDICT_MEASURED_FILES_H_
