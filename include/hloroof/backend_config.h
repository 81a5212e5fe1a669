// An instruction's backend_config: opaque text, usually JSON (hlo-text-syntax.md 5.29).
#ifndef HLOROOF_BACKEND_CONFIG_H_
#define HLOROOF_BACKEND_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hloroof {

// A view of the decoded backend_config text. Lookups decode it as JSON on each call and answer
// nullopt when it is not JSON or the value is missing, so callers never fail on odd configs.
class BackendConfig {
 public:
  BackendConfig() = default;
  explicit BackendConfig(std::string_view text) : text_(text) {}

  std::string_view text() const { return text_; }
  bool empty() const { return text_.empty(); }
  bool is_json() const;

  // Values at a JSON pointer (RFC 6901), e.g. "/known_trip_count/n". Numbers written as JSON
  // strings ("8", as XLA writes 64-bit integers) are read as numbers too.
  std::optional<int64_t> find_int(std::string_view json_pointer) const;
  std::optional<double> find_double(std::string_view json_pointer) const;
  std::optional<bool> find_bool(std::string_view json_pointer) const;
  std::optional<std::string> find_string(std::string_view json_pointer) const;
  // The JSON text of any value (object, array, scalar) at the pointer.
  std::optional<std::string> find_json(std::string_view json_pointer) const;

 private:
  std::string_view text_;
};

}  // namespace hloroof

#endif  // HLOROOF_BACKEND_CONFIG_H_
