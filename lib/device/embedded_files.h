// Data files compiled into the library (cmake/EmbedFiles.cmake generates the definitions).
#ifndef HLOROOF_LIB_DEVICE_EMBEDDED_FILES_H_
#define HLOROOF_LIB_DEVICE_EMBEDDED_FILES_H_

#include <string_view>

#include "absl/types/span.h"

namespace hloroof::internal {

struct EmbeddedFile {
  std::string_view name;  // file name without directory, e.g. "tpu_v5e.json"
  std::string_view contents;
};

// data/hardware/*.json, sorted by name.
absl::Span<const EmbeddedFile> builtin_device_files();

}  // namespace hloroof::internal

#endif  // HLOROOF_LIB_DEVICE_EMBEDDED_FILES_H_
