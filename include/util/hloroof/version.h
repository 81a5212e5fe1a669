// The version of hloroof: the CMake project's VERSION, the one number that the command
// (`hloroof --version`), the Python package (`hloroof.__version__`) and its wheel report.
#ifndef HLOROOF_VERSION_H_
#define HLOROOF_VERSION_H_

#include <string_view>

namespace hloroof {

std::string_view version();  // "0.1.0"

}  // namespace hloroof

#endif  // HLOROOF_VERSION_H_
