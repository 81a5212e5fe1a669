#include "hloroof/backend_config.h"

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "ir/strings.h"

namespace hloroof {
namespace {

using nlohmann::json;

json parse(std::string_view text) {
  if (text.empty()) return json(json::value_t::discarded);
  return json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

// The value at a JSON pointer, or nullopt; nlohmann reports bad pointers by throwing, which
// must not cross our API.
std::optional<json> find(std::string_view text, std::string_view pointer) {
  json doc = parse(text);
  if (doc.is_discarded()) return std::nullopt;
  try {
    json::json_pointer p{std::string(pointer)};
    if (!doc.contains(p)) return std::nullopt;
    return doc.at(p);
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

}  // namespace

bool BackendConfig::is_json() const { return !parse(text_).is_discarded(); }

std::optional<int64_t> BackendConfig::find_int(std::string_view json_pointer) const {
  std::optional<json> v = find(text_, json_pointer);
  if (!v) return std::nullopt;
  if (v->is_number_integer()) return v->get<int64_t>();
  if (v->is_number_unsigned()) return static_cast<int64_t>(v->get<uint64_t>());
  int64_t parsed;
  if (v->is_string() && absl::SimpleAtoi(absl_view(v->get_ref<const std::string&>()), &parsed)) {
    return parsed;
  }
  return std::nullopt;
}

std::optional<double> BackendConfig::find_double(std::string_view json_pointer) const {
  std::optional<json> v = find(text_, json_pointer);
  if (!v) return std::nullopt;
  if (v->is_number()) return v->get<double>();
  double parsed;
  if (v->is_string() && absl::SimpleAtod(absl_view(v->get_ref<const std::string&>()), &parsed)) {
    return parsed;
  }
  return std::nullopt;
}

std::optional<bool> BackendConfig::find_bool(std::string_view json_pointer) const {
  std::optional<json> v = find(text_, json_pointer);
  if (!v || !v->is_boolean()) return std::nullopt;
  return v->get<bool>();
}

std::optional<std::string> BackendConfig::find_string(std::string_view json_pointer) const {
  std::optional<json> v = find(text_, json_pointer);
  if (!v || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

std::optional<std::string> BackendConfig::find_json(std::string_view json_pointer) const {
  std::optional<json> v = find(text_, json_pointer);
  if (!v) return std::nullopt;
  return v->dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace hloroof
