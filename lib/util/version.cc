#include "hloroof/version.h"

namespace hloroof {

// HLOROOF_VERSION comes from the project's VERSION (lib/util/sources.cmake).
std::string_view version() { return HLOROOF_VERSION; }

}  // namespace hloroof
