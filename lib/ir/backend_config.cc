#include "hloroof/backend_config.h"

#include <array>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <utility>

#include "absl/strings/numbers.h"
#include "hloroof/absl_compat.h"

namespace hloroof {
namespace {

using nlohmann::json;

json parse(std::string_view text) {
  if (text.empty()) return json(json::value_t::discarded);
  return json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

// `text` decoded (discarded where it is not JSON), valid until this thread's next call. A GPU
// prediction looks up several values in each op's config (a cuBLAS call's precision,
// dimensions, algorithm...), going back and forth between a fusion's config and those of the
// calls in it, and each lookup decoded the whole text: the last few texts this thread decoded
// are kept with their documents, and a text of the same bytes as one of them reuses it.
const json& decoded(std::string_view text) {
  struct Kept {
    std::string text;
    json doc = json(json::value_t::discarded);
  };
  thread_local std::array<Kept, 4> kept;
  thread_local size_t next = 0;  // the one replaced next: the one kept longest
  for (const Kept& k : kept) {
    if (k.text.size() == text.size() &&
        (text.empty() || std::memcmp(k.text.data(), text.data(), text.size()) == 0)) {
      return k.doc;
    }
  }
  // Both made before either is kept (moving them cannot throw): a text is never kept beside
  // another's document.
  json doc = parse(text);
  std::string copy(text);
  Kept& k = kept[next];
  next = (next + 1) % kept.size();
  k.doc = std::move(doc);
  k.text = std::move(copy);
  return k.doc;
}

// The value at a JSON pointer, or null; nlohmann reports bad pointers by throwing, which must
// not cross our API. Valid until this thread's next decoded().
const json* find(std::string_view text, std::string_view pointer) {
  const json& doc = decoded(text);
  if (doc.is_discarded()) return nullptr;
  try {
    json::json_pointer p{std::string(pointer)};
    if (!doc.contains(p)) return nullptr;
    return &doc.at(p);
  } catch (const json::exception&) {
    return nullptr;
  }
}

// One ReificationCost message, or nullopt when it gives no usable exec_time_us. Microseconds
// may be JSON numbers or strings.
std::optional<KernelTimeEstimate> estimate_from(const json& cost, std::string_view key) {
  if (!cost.is_object()) return std::nullopt;
  auto micros = [&cost](const char* field) -> double {
    auto it = cost.find(field);
    if (it == cost.end()) return 0;
    double v = 0;
    if (it->is_number()) {
      v = it->get<double>();
    } else if (!it->is_string() ||
               !absl::SimpleAtod(sv(it->get_ref<const std::string&>()), &v)) {
      return 0;
    }
    return std::isfinite(v) && v > 0 ? v * 1e-6 : 0;
  };
  KernelTimeEstimate e;
  e.exec_time_s = micros("exec_time_us");
  if (e.exec_time_s <= 0) return std::nullopt;
  e.compute_time_s = micros("compute_time_us");
  e.memory_access_time_s = micros("memory_access_time_us");
  if (auto it = cost.find("name"); it != cost.end() && it->is_string()) {
    e.model = it->get<std::string>();
  }
  e.key = std::string(key);
  return e;
}

}  // namespace

std::optional<KernelTimeEstimate> BackendConfig::kernel_time_estimate() const {
  // Asked of every op of a GPU prediction: most configs name no run time at all (or only
  // `"reification_cost":[]`), and a scan for the field is far cheaper than decoding them.
  if (text_.find("exec_time_us") == std::string_view::npos) return std::nullopt;
  const json& doc = decoded(text_);
  if (!doc.is_object()) return std::nullopt;
  // Where XLA's backend_configs.proto has a ReificationCost field: GpuBackendConfig (repeated,
  // newer versions), FusionBackendConfig (one), GemmBackendConfig and CollectiveBackendConfig
  // (repeated).
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kPlaces = {{
      {"", "reification_cost"},
      {"fusion_backend_config", "fusion_backend_config.reification_cost"},
      {"gemm_backend_config", "gemm_backend_config.reification_cost"},
      {"collective_backend_config", "collective_backend_config.reification_cost"},
  }};
  for (const auto& [parent, key] : kPlaces) {
    const json* holder = &doc;
    if (!parent.empty()) {
      auto it = doc.find(std::string(parent));
      if (it == doc.end() || !it->is_object()) continue;
      holder = &*it;
    }
    auto it = holder->find("reification_cost");
    if (it == holder->end()) continue;
    if (it->is_array()) {
      for (const json& cost : *it) {
        if (std::optional<KernelTimeEstimate> e = estimate_from(cost, key)) return e;
      }
    } else if (std::optional<KernelTimeEstimate> e = estimate_from(*it, key)) {
      return e;
    }
  }
  return std::nullopt;
}

std::optional<GemmConfig> BackendConfig::gemm_config() const {
  // Checked by name first, as kernel_time_estimate is: asked of every custom call.
  if (text_.find("lhs_contracting_dimensions") == std::string_view::npos) return std::nullopt;
  const json& doc = decoded(text_);
  if (!doc.is_object()) return std::nullopt;
  auto ints = [](const json& holder, const char* field) {
    std::vector<int64_t> out;
    auto it = holder.find(field);
    if (it == holder.end() || !it->is_array()) return out;
    for (const json& v : *it) {
      int64_t d = 0;
      if (v.is_number_integer()) {
        d = v.get<int64_t>();
      } else if (!v.is_string() || !absl::SimpleAtoi(sv(v.get_ref<const std::string&>()), &d)) {
        break;
      }
      out.push_back(d);
    }
    return out;
  };
  for (const char* parent : {"gemm_backend_config", ""}) {
    const json* holder = &doc;
    if (*parent != '\0') {
      auto it = doc.find(parent);
      if (it == doc.end() || !it->is_object()) continue;
      holder = &*it;
    }
    auto dims = holder->find("dot_dimension_numbers");
    if (dims == holder->end() || !dims->is_object() ||
        !dims->contains("lhs_contracting_dimensions")) {
      continue;
    }
    GemmConfig g;
    g.lhs_batch = ints(*dims, "lhs_batch_dimensions");
    g.lhs_contracting = ints(*dims, "lhs_contracting_dimensions");
    auto precision = holder->find("precision_config");
    if (precision != holder->end() && precision->is_object()) {
      auto operands = precision->find("operand_precision");
      if (operands != precision->end() && operands->is_array()) {
        for (const json& p : *operands) {
          if (!p.is_string()) break;
          g.operand_precision.push_back(p.get<std::string>());
        }
      }
      auto algorithm = precision->find("algorithm");
      if (algorithm != precision->end() && algorithm->is_string()) {
        g.algorithm = algorithm->get<std::string>();
      }
    }
    return g;
  }
  return std::nullopt;
}

bool BackendConfig::is_json() const { return !decoded(text_).is_discarded(); }

std::optional<int64_t> BackendConfig::find_int(std::string_view json_pointer) const {
  const json* v = find(text_, json_pointer);
  if (!v) return std::nullopt;
  if (v->is_number_integer()) return v->get<int64_t>();
  if (v->is_number_unsigned()) return static_cast<int64_t>(v->get<uint64_t>());
  int64_t parsed;
  if (v->is_string() && absl::SimpleAtoi(sv(v->get_ref<const std::string&>()), &parsed)) {
    return parsed;
  }
  return std::nullopt;
}

std::optional<double> BackendConfig::find_double(std::string_view json_pointer) const {
  const json* v = find(text_, json_pointer);
  if (!v) return std::nullopt;
  if (v->is_number()) return v->get<double>();
  double parsed;
  if (v->is_string() && absl::SimpleAtod(sv(v->get_ref<const std::string&>()), &parsed)) {
    return parsed;
  }
  return std::nullopt;
}

std::optional<bool> BackendConfig::find_bool(std::string_view json_pointer) const {
  const json* v = find(text_, json_pointer);
  if (!v || !v->is_boolean()) return std::nullopt;
  return v->get<bool>();
}

std::optional<std::string> BackendConfig::find_string(std::string_view json_pointer) const {
  const json* v = find(text_, json_pointer);
  if (!v || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

std::optional<std::string> BackendConfig::find_json(std::string_view json_pointer) const {
  const json* v = find(text_, json_pointer);
  if (!v) return std::nullopt;
  return v->dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace hloroof
