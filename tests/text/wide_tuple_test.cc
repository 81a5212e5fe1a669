// Wide tuples cost memory linear in their text with a small constant: a parameter whose shape
// is a tuple of a million scalars (a 7 MB text) must not take hundreds of megabytes.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <string>

#include "hloroof/hlo_text.h"
#include "require_ok.h"

#if defined(__SANITIZE_ADDRESS__)
#define HLOROOF_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HLOROOF_UNDER_ASAN 1
#endif
#endif

namespace hloroof {
namespace {

// A tuple stores each distinct element once: a million `f32[]` hold one Shape. What remains is
// the copy of the text the module keeps (1 B/B) and, for a tuple of alternating elements, a
// 4-byte index per element (4 / 7 = 0.6 B/B): within 3 either way, the parser's budget.
constexpr double kWideTupleBytesPerInputByte = 3;

// `ROOT p = (f32[], f32[], ...) parameter(0)` with `n` elements; with `alternate`, every other
// element is `s32[]`.
std::string wide_tuple_module(int64_t n, bool alternate = false) {
  std::string text = "HloModule wide\n\nENTRY e {\n  ROOT p = (";
  text.reserve(static_cast<size_t>(n) * 7 + 64);
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) text += ", ";
    text += alternate && i % 2 == 1 ? "s32[]" : "f32[]";
  }
  text += ") parameter(0)\n}\n";
  return text;
}

// Resident set size now and at its peak (VmRSS, VmHWM), in bytes; reset_peak() restarts the peak.
int64_t status_field(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0) return std::atoll(line.c_str() + std::string(field).size()) * 1024;
  }
  return -1;
}
void reset_peak() { std::ofstream("/proc/self/clear_refs") << "5"; }

// Peak memory the parse adds, per byte of text (the text itself is held before and after).
double parse_bytes_per_input_byte(int64_t n, int64_t* elements, bool alternate = false) {
  std::string text = wide_tuple_module(n, alternate);
  const auto bytes = static_cast<double>(text.size());
  reset_peak();
  const int64_t before = status_field("VmRSS:");
  absl::StatusOr<Module> m = parse_module(std::string_view(text));
  const int64_t peak = status_field("VmHWM:");
  REQUIRE_OK(m);
  *elements = static_cast<int64_t>(m->entry()->root()->shape().elements.size());
  return static_cast<double>(peak - before) / bytes;
}

TEST_CASE("a tuple of a million scalars parses in memory linear in its text") {
  int64_t elements = 0;
  [[maybe_unused]] const double small = parse_bytes_per_input_byte(250000, &elements);
  CHECK(elements == 250000);
  [[maybe_unused]] const double large = parse_bytes_per_input_byte(1000000, &elements);
  CHECK(elements == 1000000);
  [[maybe_unused]] const double alternating =
      parse_bytes_per_input_byte(1000000, &elements, /*alternate=*/true);
  CHECK(elements == 1000000);
#ifndef HLOROOF_UNDER_ASAN
  if (status_field("VmHWM:") < 0) return;  // no /proc: nothing to measure
  INFO("bytes per input byte: " << small << " at 250k elements, " << large << " at 1M, "
                                 << alternating << " at 1M alternating f32[] and s32[]");
  // Linear: four times the text costs no more per byte (10% for allocator rounding).
  CHECK(large <= small * 1.1 + 1);
  CHECK(large <= kWideTupleBytesPerInputByte);
  CHECK(alternating <= kWideTupleBytesPerInputByte);
#endif
}

}  // namespace
}  // namespace hloroof
