// Reads a device spec from JSON (schema: data/hardware/README.md). The reader is strict: an
// unknown key, a missing unit or a negative bandwidth is an error naming the file and field,
// because a typo in a spec would otherwise silently change every prediction.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <initializer_list>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "device/registry.h"
#include "device/spec_units.h"
#include "hloroof/device.h"
#include "nlohmann/json.hpp"
#include "hloroof/absl_compat.h"

namespace hloroof {
namespace {

using internal::Quantity;
using nlohmann::json;

constexpr int kSchemaVersion = 1;

const char* type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::binary:
      return "binary data";
    case json::value_t::discarded:
      return "nothing";
    default:
      return "a number";
  }
}

std::string join_path(std::string_view parent, std::string_view key) {
  return parent.empty() ? std::string(key) : absl::StrCat(sv(parent), ".", sv(key));
}

// Whether a figure must be above zero (rates, sizes) or may be zero (latencies, overheads).
enum class Sign { kPositive, kNonNegative };

class SpecReader {
 public:
  SpecReader(std::string_view origin, DeviceSpec* spec) : origin_(origin), spec_(spec) {}

  absl::Status read(const json& root);

 private:
  absl::Status error(std::string_view path, std::string_view message) const {
    if (path.empty()) return absl::InvalidArgumentError(absl::StrCat(origin_, ": ", sv(message)));
    return absl::InvalidArgumentError(
        absl::StrCat(origin_, ": field '", sv(path), "': ", sv(message)));
  }

  absl::Status expect_object(const json& v, std::string_view path) const {
    if (v.is_object()) return absl::OkStatus();
    return error(path, absl::StrCat("expected an object, got ", type_name(v)));
  }

  // Every key of `obj` must be listed in `allowed`.
  absl::Status check_keys(const json& obj, std::string_view path,
                          std::initializer_list<std::string_view> allowed) const {
    for (const auto& [key, value] : obj.items()) {
      bool known = false;
      for (std::string_view a : allowed) known = known || a == key;
      if (!known) {
        return error(
            join_path(path, key),
            absl::StrCat("unknown field; expected one of: ",
                         absl::StrJoin(allowed, ", ", [](std::string* out, std::string_view a) {
                           out->append(a);
                         })));
      }
    }
    return absl::OkStatus();
  }

  // The member `key` of `obj` (at `path`), or nullptr when absent and not required.
  absl::StatusOr<const json*> member(const json& obj, std::string_view path, std::string_view key,
                                     bool required) const {
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) return error(join_path(path, key), "missing");
      return nullptr;
    }
    return &*it;
  }

  absl::StatusOr<std::string> string_member(const json& obj, std::string_view path,
                                            std::string_view key, bool required) const;
  absl::StatusOr<std::vector<std::string>> string_list(const json& obj, std::string_view path,
                                                       std::string_view key) const;

  // A figure object {"value", "unit", "source", ...} at `obj[key]`. Its value, converted to the
  // base unit of `q`, is returned and recorded in spec_->figures. nullopt when absent and not
  // required.
  absl::StatusOr<std::optional<double>> figure(const json& obj, std::string_view path,
                                               std::string_view key, Quantity q, Sign sign,
                                               bool required);
  absl::StatusOr<double> required_figure(const json& obj, std::string_view path,
                                         std::string_view key, Quantity q, Sign sign);
  // A figure whose value is a whole count in `unit` ("links", "GPUs", "axes"...), within
  // [min, max].
  absl::StatusOr<std::optional<int64_t>> count_figure(const json& obj, std::string_view path,
                                                      std::string_view key, std::string_view unit,
                                                      int64_t min, int64_t max, bool required);
  // A figure whose value is a share of something, unit "fraction", in (0, 1].
  absl::StatusOr<std::optional<double>> fraction_figure(const json& obj, std::string_view key);
  // A figure whose value is a list of positive counts (a shape in chips).
  absl::StatusOr<std::vector<int64_t>> shape_figure(const json& obj, std::string_view path,
                                                    std::string_view key, size_t rank);
  // The common part of every figure: checks keys, unit presence and records provenance.
  absl::StatusOr<const json*> figure_header(const json& obj, std::string_view path,
                                            std::string_view key, bool required,
                                            DeviceFigure* out) const;

  absl::Status read_measured_on(const json& root);
  absl::Status read_matrix_rates(const json& root);
  absl::Status read_memories(const json& root);
  absl::Status read_efficiency(const json& root, std::string_view key, double* out) const;
  absl::Status read_torus(const json& ic, std::string_view path);
  absl::Status read_wraparound(const json& ic, std::string_view path, TorusSpec* torus) const;
  absl::Status read_gpu_fabric(const json& ic, std::string_view path);
  absl::Status read_sol(const json& ic, std::string_view path, GpuFabricSpec* gpu);
  absl::Status read_default_tiles(const json& root);

  std::string origin_;
  DeviceSpec* spec_;
};

absl::StatusOr<std::string> SpecReader::string_member(const json& obj, std::string_view path,
                                                      std::string_view key, bool required) const {
  absl::StatusOr<const json*> v = member(obj, path, key, required);
  if (!v.ok()) return v.status();
  if (*v == nullptr) return std::string();
  if (!(*v)->is_string()) {
    return error(join_path(path, key), absl::StrCat("expected a string, got ", type_name(**v)));
  }
  return (*v)->get<std::string>();
}

absl::StatusOr<std::vector<std::string>> SpecReader::string_list(const json& obj,
                                                                 std::string_view path,
                                                                 std::string_view key) const {
  absl::StatusOr<const json*> v = member(obj, path, key, /*required=*/false);
  if (!v.ok()) return v.status();
  std::vector<std::string> out;
  if (*v == nullptr) return out;
  const std::string p = join_path(path, key);
  if (!(*v)->is_array()) {
    return error(p, absl::StrCat("expected an array of strings, got ", type_name(**v)));
  }
  for (const json& item : **v) {
    if (!item.is_string()) {
      return error(p, absl::StrCat("expected an array of strings, found ", type_name(item)));
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

absl::StatusOr<const json*> SpecReader::figure_header(const json& obj, std::string_view path,
                                                      std::string_view key, bool required,
                                                      DeviceFigure* out) const {
  absl::StatusOr<const json*> v = member(obj, path, key, required);
  if (!v.ok() || *v == nullptr) return v;
  const json& fig = **v;
  out->path = join_path(path, key);
  if (!fig.is_object()) {
    return error(out->path, absl::StrCat("expected a figure {\"value\": ..., \"unit\": ...}, got ",
                                         type_name(fig)));
  }
  if (absl::Status s = check_keys(fig, out->path,
                                  {"value", "unit", "source", "verified", "note", "alternatives"});
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::string> unit = string_member(fig, out->path, "unit", /*required=*/true);
  if (!unit.ok()) return unit.status();
  out->unit = *unit;
  for (auto [field, target] : {std::pair{"source", &out->source}, std::pair{"note", &out->note},
                               std::pair{"alternatives", &out->alternatives}}) {
    absl::StatusOr<std::string> s = string_member(fig, out->path, field, /*required=*/false);
    if (!s.ok()) return s.status();
    *target = *s;
  }
  if (auto it = fig.find("verified"); it != fig.end()) {
    if (!it->is_boolean()) {
      return error(join_path(out->path, "verified"),
                   absl::StrCat("expected true or false, got ", type_name(*it)));
    }
    out->verified = it->get<bool>();
  }
  auto value = fig.find("value");
  if (value == fig.end()) return error(join_path(out->path, "value"), "missing");
  return &*value;
}

absl::StatusOr<std::optional<double>> SpecReader::figure(const json& obj, std::string_view path,
                                                         std::string_view key, Quantity q,
                                                         Sign sign, bool required) {
  DeviceFigure fig;
  absl::StatusOr<const json*> value = figure_header(obj, path, key, required, &fig);
  if (!value.ok()) return value.status();
  if (*value == nullptr) return std::nullopt;
  const std::string value_path = join_path(fig.path, "value");
  if (!(*value)->is_number()) {
    return error(value_path, absl::StrCat("expected a number, got ", type_name(**value)));
  }
  std::optional<double> factor = internal::unit_factor(q, fig.unit);
  if (!factor) {
    return error(join_path(fig.path, "unit"),
                 absl::StrCat("'", fig.unit, "' is not a unit of this field; use one of: ",
                              internal::accepted_units(q)));
  }
  const double v = (*value)->get<double>() * *factor;
  if (!std::isfinite(v)) return error(value_path, "must be finite");
  if (sign == Sign::kPositive && !(v > 0)) return error(value_path, "must be positive");
  if (sign == Sign::kNonNegative && v < 0) return error(value_path, "must not be negative");
  if (const internal::SanityRange range = internal::sanity_range(q);
      (v != 0 && v < range.min) || v > range.max) {
    return error(
        value_path,
        absl::StrCat("must be from ", range.min, " to ", range.max, " ", sv(internal::base_unit(q)),
                     " (physical sanity range), got ", v, " ", sv(internal::base_unit(q))));
  }
  fig.value = v;
  fig.unit = std::string(internal::base_unit(q));
  spec_->figures.push_back(std::move(fig));
  return v;
}

absl::StatusOr<double> SpecReader::required_figure(const json& obj, std::string_view path,
                                                   std::string_view key, Quantity q, Sign sign) {
  absl::StatusOr<std::optional<double>> v = figure(obj, path, key, q, sign, /*required=*/true);
  if (!v.ok()) return v.status();
  return **v;
}

absl::StatusOr<std::optional<int64_t>> SpecReader::count_figure(const json& obj,
                                                                std::string_view path,
                                                                std::string_view key,
                                                                std::string_view unit, int64_t min,
                                                                int64_t max, bool required) {
  DeviceFigure fig;
  absl::StatusOr<const json*> value = figure_header(obj, path, key, required, &fig);
  if (!value.ok()) return value.status();
  if (*value == nullptr) return std::nullopt;
  if (fig.unit != unit) {
    return error(join_path(fig.path, "unit"),
                 absl::StrCat("expected \"", sv(unit), "\", got \"", fig.unit, "\""));
  }
  const std::string value_path = join_path(fig.path, "value");
  if (!(*value)->is_number()) {
    return error(value_path, absl::StrCat("expected a whole number, got ", type_name(**value)));
  }
  const double v = (*value)->get<double>();
  if (!(v >= static_cast<double>(min) && v <= static_cast<double>(max)) || v != std::floor(v)) {
    return error(value_path, absl::StrCat("expected a whole number from ", min, " to ", max));
  }
  fig.value = v;
  spec_->figures.push_back(std::move(fig));
  return static_cast<int64_t>(v);
}

absl::StatusOr<std::optional<double>> SpecReader::fraction_figure(const json& obj,
                                                                  std::string_view key) {
  DeviceFigure fig;
  absl::StatusOr<const json*> value = figure_header(obj, "", key, /*required=*/false, &fig);
  if (!value.ok()) return value.status();
  if (*value == nullptr) return std::nullopt;
  if (fig.unit != "fraction") {
    return error(join_path(fig.path, "unit"),
                 absl::StrCat("expected \"fraction\", got \"", fig.unit, "\""));
  }
  const double v = (*value)->is_number() ? (*value)->get<double>() : 0;
  if (!(*value)->is_number() || !(v >= internal::kMinEfficiency && v <= 1)) {
    return error(join_path(fig.path, "value"),
                 absl::StrCat("expected a fraction from ", internal::kMinEfficiency, " to 1"));
  }
  fig.value = v;
  spec_->figures.push_back(std::move(fig));
  return v;
}

absl::StatusOr<std::vector<int64_t>> SpecReader::shape_figure(const json& obj,
                                                              std::string_view path,
                                                              std::string_view key, size_t rank) {
  DeviceFigure fig;
  absl::StatusOr<const json*> value = figure_header(obj, path, key, /*required=*/false, &fig);
  if (!value.ok()) return value.status();
  std::vector<int64_t> dims;
  if (*value == nullptr) return dims;
  if (fig.unit != "chips") {
    return error(join_path(fig.path, "unit"),
                 absl::StrCat("expected \"chips\", got \"", fig.unit, "\""));
  }
  const std::string value_path = join_path(fig.path, "value");
  if (!(*value)->is_array() || (*value)->size() != rank) {
    return error(value_path, absl::StrCat("expected ", rank, " chip counts, one per torus axis"));
  }
  double chips = 1;
  for (const json& d : **value) {
    if (!d.is_number_integer() || d.get<int64_t>() < 1 || d.get<int64_t>() > 1'000'000) {
      return error(value_path, "expected positive whole numbers");
    }
    dims.push_back(d.get<int64_t>());
    chips *= static_cast<double>(dims.back());
  }
  fig.value = chips;
  spec_->figures.push_back(std::move(fig));
  return dims;
}

absl::Status SpecReader::read(const json& root) {
  if (absl::Status s = expect_object(root, ""); !s.ok()) return s;
  if (absl::Status s =
          check_keys(root, "",
                     {"schema_version", "name", "display_name", "aliases", "base", "kind",
                      "device_note", "measured_on", "matrix_flops_per_s", "vector_flops_per_s",
                      "transcendentals_per_s", "hbm", "on_chip_memory", "host_link",
                      "per_op_overhead", "launch_floor", "stores_per_s", "mxu_size", "gemm_plateau",
                      "sharded_compute_share",
                      "tuple_table_granule",
                      "matmul_efficiency", "hbm_efficiency", "collective_bandwidth_efficiency",
                      "collective_latency", "interconnect", "default_tiles", "notes"});
      !s.ok()) {
    return s;
  }
  absl::StatusOr<const json*> version = member(root, "", "schema_version", /*required=*/true);
  if (!version.ok()) return version.status();
  if (!(*version)->is_number_integer() || (*version)->get<int64_t>() != kSchemaVersion) {
    return error("schema_version", absl::StrCat("expected ", kSchemaVersion));
  }

  absl::StatusOr<std::string> name = string_member(root, "", "name", /*required=*/true);
  if (!name.ok()) return name.status();
  if (name->empty() || name->find_first_of(" \t\n:/,") != std::string::npos) {
    return error("name", "expected a non-empty name without spaces, ':', '/' or ','");
  }
  spec_->name = *name;
  absl::StatusOr<std::string> display = string_member(root, "", "display_name", false);
  if (!display.ok()) return display.status();
  spec_->display_name = display->empty() ? spec_->name : *display;
  absl::StatusOr<std::vector<std::string>> aliases = string_list(root, "", "aliases");
  if (!aliases.ok()) return aliases.status();
  spec_->aliases = *std::move(aliases);
  absl::StatusOr<std::string> base = string_member(root, "", "base", false);
  if (!base.ok()) return base.status();
  if (!base->empty()) {
    const std::vector<std::string> builtin = builtin_device_names();
    if (std::find(builtin.begin(), builtin.end(), *base) == builtin.end()) {
      return error("base", absl::StrCat("expected the name of a built-in device (",
                                        absl::StrJoin(builtin, ", "), "), got '", *base, "'"));
    }
  }
  spec_->base = *std::move(base);
  if (absl::Status s = read_measured_on(root); !s.ok()) return s;
  absl::StatusOr<std::string> note = string_member(root, "", "device_note", false);
  if (!note.ok()) return note.status();
  spec_->device_note = *note;
  absl::StatusOr<std::vector<std::string>> notes = string_list(root, "", "notes");
  if (!notes.ok()) return notes.status();
  spec_->notes = *std::move(notes);

  absl::StatusOr<std::string> kind = string_member(root, "", "kind", /*required=*/true);
  if (!kind.ok()) return kind.status();
  if (*kind == "tpu") {
    spec_->kind = DeviceKind::kTpu;
  } else if (*kind == "gpu") {
    spec_->kind = DeviceKind::kGpu;
  } else {
    return error("kind", absl::StrCat("expected \"tpu\" or \"gpu\", got \"", *kind, "\""));
  }

  if (absl::Status s = read_matrix_rates(root); !s.ok()) return s;
  absl::StatusOr<double> vector =
      required_figure(root, "", "vector_flops_per_s", Quantity::kFlopRate, Sign::kPositive);
  if (!vector.ok()) return vector.status();
  spec_->vector_flops_per_s = *vector;
  absl::StatusOr<double> trans =
      required_figure(root, "", "transcendentals_per_s", Quantity::kOpRate, Sign::kPositive);
  if (!trans.ok()) return trans.status();
  spec_->transcendentals_per_s = *trans;
  if (absl::Status s = read_memories(root); !s.ok()) return s;
  absl::StatusOr<double> overhead =
      required_figure(root, "", "per_op_overhead", Quantity::kTime, Sign::kNonNegative);
  if (!overhead.ok()) return overhead.status();
  spec_->per_op_overhead_s = *overhead;
  absl::StatusOr<std::optional<double>> floor =
      figure(root, "", "launch_floor", Quantity::kTime, Sign::kNonNegative, false);
  if (!floor.ok()) return floor.status();
  spec_->launch_floor_s = *floor;
  absl::StatusOr<std::optional<double>> stores =
      figure(root, "", "stores_per_s", Quantity::kOpRate, Sign::kPositive, false);
  if (!stores.ok()) return stores.status();
  spec_->stores_per_s = *stores;
  // Read by the TPU expected time from `figures` (DeviceSpec::figure("mxu_size")).
  absl::StatusOr<std::optional<int64_t>> mxu =
      count_figure(root, "", "mxu_size", "elements", 8, 4096, /*required=*/false);
  if (!mxu.ok()) return mxu.status();
  // Read by the memory report from `figures` (DeviceSpec::figure("tuple_table_granule")).
  absl::StatusOr<std::optional<int64_t>> granule = count_figure(
      root, "", "tuple_table_granule", "B", 1, int64_t{1} << 20, /*required=*/false);
  if (!granule.ok()) return granule.status();
  absl::StatusOr<std::optional<double>> plateau = fraction_figure(root, "gemm_plateau");
  if (!plateau.ok()) return plateau.status();
  spec_->gemm_plateau = *plateau;
  absl::StatusOr<std::optional<double>> sharded = fraction_figure(root, "sharded_compute_share");
  if (!sharded.ok()) return sharded.status();
  spec_->sharded_compute_share = *sharded;
  if (absl::Status s = read_efficiency(root, "matmul_efficiency", &spec_->matmul_efficiency);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = read_efficiency(root, "hbm_efficiency", &spec_->hbm_efficiency); !s.ok()) {
    return s;
  }
  spec_->matmul_efficiency_set = root.contains("matmul_efficiency");
  spec_->hbm_efficiency_set = root.contains("hbm_efficiency");
  if (root.contains("collective_bandwidth_efficiency")) {
    double e = 1;
    if (absl::Status s = read_efficiency(root, "collective_bandwidth_efficiency", &e); !s.ok()) {
      return s;
    }
    spec_->collective_bandwidth_efficiency = e;
  }
  if (root.contains("collective_latency")) {
    absl::StatusOr<double> latency =
        required_figure(root, "", "collective_latency", Quantity::kTime, Sign::kNonNegative);
    if (!latency.ok()) return latency.status();
    spec_->collective_latency_s = *latency;
  }

  absl::StatusOr<const json*> ic = member(root, "", "interconnect", /*required=*/true);
  if (!ic.ok()) return ic.status();
  if (absl::Status s = expect_object(**ic, "interconnect"); !s.ok()) return s;
  absl::StatusOr<std::string> type = string_member(**ic, "interconnect", "type", true);
  if (!type.ok()) return type.status();
  // A TPU's ICI torus; a GPU's NVLink (NVIDIA) or xGMI (AMD Infinity Fabric) inside a node.
  const bool tpu = spec_->kind == DeviceKind::kTpu;
  if (tpu ? *type != "ici_torus" : *type != "nvlink" && *type != "xgmi") {
    const std::string_view takes = tpu ? "\"ici_torus\"" : "\"nvlink\" or \"xgmi\"";
    return error("interconnect.type",
                 absl::StrCat("a ", *kind, " takes ", sv(takes), ", got \"", *type, "\""));
  }
  absl::Status s = tpu ? read_torus(**ic, "interconnect") : read_gpu_fabric(**ic, "interconnect");
  if (!s.ok()) return s;
  if (!tpu && *type == "xgmi") spec_->gpu->vendor = GpuVendor::kAmd;
  return read_default_tiles(root);
}

absl::Status SpecReader::read_measured_on(const json& root) {
  absl::StatusOr<const json*> on = member(root, "", "measured_on", /*required=*/false);
  if (!on.ok()) return on.status();
  if (*on == nullptr) return absl::OkStatus();
  if (absl::Status s = expect_object(**on, "measured_on"); !s.ok()) return s;
  MeasuredOn& out = spec_->measured_on;
  const std::pair<std::string_view, std::string*> sets[] = {
      {"gemm_tables", &out.gemm_tables},   {"collective_tables", &out.collective_tables},
      {"op_profiles", &out.op_profiles},   {"kernel_floor", &out.kernel_floor},
      {"hbm_fraction", &out.hbm_fraction}, {"host_link", &out.host_link},
      {"tpu_fits", &out.tpu_fits}};
  if (absl::Status s = check_keys(**on, "measured_on",
                                  {"gemm_tables", "collective_tables", "op_profiles",
                                   "kernel_floor", "hbm_fraction", "host_link", "tpu_fits"});
      !s.ok()) {
    return s;
  }
  const std::vector<std::string> builtin = builtin_device_names();
  for (const auto& [key, field] : sets) {
    absl::StatusOr<std::string> name = string_member(**on, "measured_on", key, false);
    if (!name.ok()) return name.status();
    // A device's own measurements (data/measured holds some for devices not built in, such
    // as gb300), or a built-in device's, borrowed.
    const std::string_view own = spec_->base.empty() ? spec_->name : spec_->base;
    if (!name->empty() && *name != own &&
        std::find(builtin.begin(), builtin.end(), *name) == builtin.end()) {
      return error(join_path("measured_on", key),
                   absl::StrCat("expected '", sv(own), "' or the name of a built-in device (",
                                absl::StrJoin(builtin, ", "), "), got '", *name, "'"));
    }
    *field = *std::move(name);
  }
  return absl::OkStatus();
}

absl::Status SpecReader::read_matrix_rates(const json& root) {
  absl::StatusOr<const json*> rates = member(root, "", "matrix_flops_per_s", /*required=*/true);
  if (!rates.ok()) return rates.status();
  if (absl::Status s = expect_object(**rates, "matrix_flops_per_s"); !s.ok()) return s;
  if (absl::Status s =
          check_keys(**rates, "matrix_flops_per_s",
                     {"bf16", "f16", "tf32", "f32", "f64", "int8", "int4", "fp8", "fp6", "fp4"});
      !s.ok()) {
    return s;
  }
  if ((*rates)->empty()) return error("matrix_flops_per_s", "lists no element type");
  for (const auto& [key, value] : (*rates)->items()) {
    absl::StatusOr<double> v =
        required_figure(**rates, "matrix_flops_per_s", key, Quantity::kFlopRate, Sign::kPositive);
    if (!v.ok()) return v.status();
    spec_->matrix_flops_per_s[key] = *v;
  }
  return absl::OkStatus();
}

absl::Status SpecReader::read_memories(const json& root) {
  absl::StatusOr<const json*> hbm = member(root, "", "hbm", /*required=*/true);
  if (!hbm.ok()) return hbm.status();
  if (absl::Status s = expect_object(**hbm, "hbm"); !s.ok()) return s;
  if (absl::Status s =
          check_keys(**hbm, "hbm", {"capacity", "bandwidth", "unaligned_bandwidth"});
      !s.ok()) {
    return s;
  }
  absl::StatusOr<double> cap =
      required_figure(**hbm, "hbm", "capacity", Quantity::kBytes, Sign::kPositive);
  if (!cap.ok()) return cap.status();
  spec_->hbm_capacity_bytes = *cap;
  absl::StatusOr<double> bw =
      required_figure(**hbm, "hbm", "bandwidth", Quantity::kBandwidth, Sign::kPositive);
  if (!bw.ok()) return bw.status();
  spec_->hbm_bandwidth = *bw;
  absl::StatusOr<std::optional<double>> unaligned = figure(
      **hbm, "hbm", "unaligned_bandwidth", Quantity::kBandwidth, Sign::kPositive, false);
  if (!unaligned.ok()) return unaligned.status();
  spec_->hbm_unaligned_bandwidth = *unaligned;

  absl::StatusOr<const json*> chip = member(root, "", "on_chip_memory", /*required=*/false);
  if (!chip.ok()) return chip.status();
  if (*chip != nullptr) {
    if (absl::Status s = expect_object(**chip, "on_chip_memory"); !s.ok()) return s;
    if (absl::Status s = check_keys(**chip, "on_chip_memory", {"name", "capacity", "bandwidth"});
        !s.ok()) {
      return s;
    }
    absl::StatusOr<std::string> name = string_member(**chip, "on_chip_memory", "name", true);
    if (!name.ok()) return name.status();
    spec_->on_chip_memory_name = *name;
    absl::StatusOr<double> c =
        required_figure(**chip, "on_chip_memory", "capacity", Quantity::kBytes, Sign::kPositive);
    if (!c.ok()) return c.status();
    spec_->on_chip_capacity_bytes = *c;
    absl::StatusOr<std::optional<double>> b =
        figure(**chip, "on_chip_memory", "bandwidth", Quantity::kBandwidth, Sign::kPositive, false);
    if (!b.ok()) return b.status();
    spec_->on_chip_bandwidth = *b;
  }

  absl::StatusOr<const json*> host = member(root, "", "host_link", /*required=*/false);
  if (!host.ok()) return host.status();
  if (*host != nullptr) {
    if (absl::Status s = expect_object(**host, "host_link"); !s.ok()) return s;
    if (absl::Status s = check_keys(**host, "host_link", {"bandwidth"}); !s.ok()) return s;
    absl::StatusOr<double> b =
        required_figure(**host, "host_link", "bandwidth", Quantity::kBandwidth, Sign::kPositive);
    if (!b.ok()) return b.status();
    spec_->host_bandwidth = *b;
  }
  return absl::OkStatus();
}

absl::Status SpecReader::read_efficiency(const json& root, std::string_view key,
                                         double* out) const {
  auto it = root.find(key);
  if (it == root.end()) return absl::OkStatus();
  const double v = it->is_number() ? it->get<double>() : 0;
  if (!it->is_number() || !(v >= internal::kMinEfficiency && v <= 1)) {
    return error(key, absl::StrCat("expected a fraction from ", internal::kMinEfficiency,
                                   " to 1 (a thousandth of the peak to all of it)",
                                   it->is_number() ? absl::StrCat(", got ", v) : std::string()));
  }
  *out = it->get<double>();
  return absl::OkStatus();
}

absl::Status SpecReader::read_wraparound(const json& ic, std::string_view path,
                                         TorusSpec* torus) const {
  const std::string p = join_path(path, "wraparound");
  absl::StatusOr<const json*> w = member(ic, path, "wraparound", /*required=*/true);
  if (!w.ok()) return w.status();
  if (absl::Status s = expect_object(**w, p); !s.ok()) return s;
  if (absl::Status s =
          check_keys(**w, p, {"rule", "axis_sizes", "cube", "source", "verified", "note"});
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::string> rule = string_member(**w, p, "rule", /*required=*/true);
  if (!rule.ok()) return rule.status();
  Wraparound& wrap = torus->wraparound;
  if (*rule == "none") {
    wrap.rule = Wraparound::Rule::kNone;
  } else if (*rule == "axis_sizes") {
    wrap.rule = Wraparound::Rule::kAxisSizes;
    absl::StatusOr<const json*> sizes = member(**w, p, "axis_sizes", /*required=*/true);
    if (!sizes.ok()) return sizes.status();
    if (!(*sizes)->is_array()) return error(join_path(p, "axis_sizes"), "expected an array");
    for (const json& s : **sizes) {
      if (!s.is_number_integer() || s.get<int64_t>() < 1) {
        return error(join_path(p, "axis_sizes"), "expected positive whole numbers");
      }
      wrap.axis_sizes.push_back(s.get<int64_t>());
    }
  } else if (*rule == "whole_cubes") {
    wrap.rule = Wraparound::Rule::kWholeCubes;
    if (auto it = (*w)->find("cube"); it != (*w)->end()) {
      if (!it->is_number_integer() || it->get<int64_t>() < 2) {
        return error(join_path(p, "cube"), "expected a whole number of at least 2");
      }
      wrap.cube = it->get<int64_t>();
    }
  } else {
    return error(
        join_path(p, "rule"),
        absl::StrCat("expected \"none\", \"axis_sizes\" or \"whole_cubes\", got \"", *rule, "\""));
  }
  return absl::OkStatus();
}

absl::Status SpecReader::read_torus(const json& ic, std::string_view path) {
  if (absl::Status s =
          check_keys(ic, path,
                     {"type", "torus_rank", "devices_per_chip", "cores_per_chip", "link_bandwidth",
                      "links_per_chip",
                      "wraparound", "hop_latency", "core_link_bandwidth", "dcn_bandwidth_per_chip",
                      "dcn_latency", "host_shape", "max_slice", "pod_chips"});
      !s.ok()) {
    return s;
  }
  TorusSpec torus;
  absl::StatusOr<std::optional<int64_t>> rank =
      count_figure(ic, path, "torus_rank", "axes", 1, 3, /*required=*/true);
  if (!rank.ok()) return rank.status();
  torus.rank = static_cast<int>(**rank);
  absl::StatusOr<std::optional<int64_t>> per_chip =
      count_figure(ic, path, "devices_per_chip", "devices", 1, 16, /*required=*/true);
  if (!per_chip.ok()) return per_chip.status();
  torus.devices_per_chip = static_cast<int>(**per_chip);
  // TensorCores per chip: as many as devices unless given (a megacore chip gives 2 over 1).
  absl::StatusOr<std::optional<int64_t>> cores =
      count_figure(ic, path, "cores_per_chip", "TensorCores", 1, 16, /*required=*/false);
  if (!cores.ok()) return cores.status();
  torus.cores_per_chip = static_cast<int>(cores->value_or(torus.devices_per_chip));
  if (torus.cores_per_chip < torus.devices_per_chip ||
      torus.cores_per_chip % torus.devices_per_chip != 0) {
    return error(join_path(path, "cores_per_chip"),
                 absl::StrCat("a chip's ", torus.cores_per_chip,
                              " TensorCore(s) are no whole number of its ", torus.devices_per_chip,
                              " device(s): expected a multiple of devices_per_chip"));
  }
  absl::StatusOr<double> link =
      required_figure(ic, path, "link_bandwidth", Quantity::kBandwidth, Sign::kPositive);
  if (!link.ok()) return link.status();
  torus.link_bandwidth = *link;
  absl::StatusOr<std::optional<int64_t>> links =
      count_figure(ic, path, "links_per_chip", "links", 1, 64, /*required=*/true);
  if (!links.ok()) return links.status();
  torus.links_per_chip = static_cast<int>(**links);
  if (absl::Status s = read_wraparound(ic, path, &torus); !s.ok()) return s;
  absl::StatusOr<double> hop =
      required_figure(ic, path, "hop_latency", Quantity::kTime, Sign::kNonNegative);
  if (!hop.ok()) return hop.status();
  torus.hop_latency_s = *hop;

  absl::StatusOr<std::optional<double>> core =
      figure(ic, path, "core_link_bandwidth", Quantity::kBandwidth, Sign::kPositive,
             /*required=*/torus.cores_per_chip > 1);
  if (!core.ok()) return core.status();
  torus.core_link_bandwidth = *core;
  absl::StatusOr<std::optional<double>> dcn =
      figure(ic, path, "dcn_bandwidth_per_chip", Quantity::kBandwidth, Sign::kPositive, false);
  if (!dcn.ok()) return dcn.status();
  torus.dcn_bandwidth_per_chip = *dcn;
  absl::StatusOr<std::optional<double>> dcn_latency =
      figure(ic, path, "dcn_latency", Quantity::kTime, Sign::kNonNegative, false);
  if (!dcn_latency.ok()) return dcn_latency.status();
  torus.dcn_latency_s = dcn_latency->value_or(0.0);

  absl::StatusOr<std::vector<int64_t>> host = shape_figure(ic, path, "host_shape", torus.rank);
  if (!host.ok()) return host.status();
  torus.host_shape = *std::move(host);
  absl::StatusOr<std::vector<int64_t>> max_slice = shape_figure(ic, path, "max_slice", torus.rank);
  if (!max_slice.ok()) return max_slice.status();
  torus.max_slice = *std::move(max_slice);
  absl::StatusOr<std::optional<int64_t>> pod =
      count_figure(ic, path, "pod_chips", "chips", 1, 1'000'000, /*required=*/false);
  if (!pod.ok()) return pod.status();
  if (pod->has_value()) {
    torus.pod_chips = **pod;
  } else if (!torus.max_slice.empty()) {
    torus.pod_chips = 1;
    for (int64_t d : torus.max_slice) torus.pod_chips *= d;
  }
  spec_->torus = std::move(torus);
  return absl::OkStatus();
}

absl::Status SpecReader::read_gpu_fabric(const json& ic, std::string_view path) {
  if (absl::Status s = check_keys(
          ic, path,
          {"type", "nvlink_domain_size", "nvlink_bandwidth", "nvlink_links", "scale_out_bandwidth",
           "nics_per_node", "nic_bandwidth", "nic_efficiency", "scale_out_latency",
           "collective_launch_latency", "compute_capability", "xla_sol"});
      !s.ok()) {
    return s;
  }
  GpuFabricSpec gpu;
  absl::StatusOr<std::optional<int64_t>> domain =
      count_figure(ic, path, "nvlink_domain_size", "GPUs", 1, 1'000'000, /*required=*/true);
  if (!domain.ok()) return domain.status();
  gpu.nvlink_domain_size = **domain;
  absl::StatusOr<double> nvlink =
      required_figure(ic, path, "nvlink_bandwidth", Quantity::kBandwidth, Sign::kPositive);
  if (!nvlink.ok()) return nvlink.status();
  gpu.nvlink_bandwidth = *nvlink;
  absl::StatusOr<std::optional<int64_t>> links =
      count_figure(ic, path, "nvlink_links", "links", 1, 1024, /*required=*/true);
  if (!links.ok()) return links.status();
  gpu.nvlink_links = static_cast<int>(**links);
  // A cluster's own NICs (data/hardware/README.md): the expected time of collectives across
  // nodes reads them from `figures`; without scale_out_bandwidth they give it, each GPU's share
  // of its node's NICs.
  absl::StatusOr<std::optional<int64_t>> nics =
      count_figure(ic, path, "nics_per_node", "NICs", 1, 1024, /*required=*/false);
  if (!nics.ok()) return nics.status();
  absl::StatusOr<std::optional<double>> nic =
      figure(ic, path, "nic_bandwidth", Quantity::kBandwidth, Sign::kPositive, false);
  if (!nic.ok()) return nic.status();
  if (nics->has_value() != nic->has_value()) {
    return error(join_path(path, nics->has_value() ? "nic_bandwidth" : "nics_per_node"),
                 "nics_per_node and nic_bandwidth go together; give both or neither");
  }
  absl::StatusOr<std::optional<double>> scale_out =
      figure(ic, path, "scale_out_bandwidth", Quantity::kBandwidth, Sign::kPositive,
             /*required=*/!nics->has_value());
  if (!scale_out.ok()) return scale_out.status();
  // Each GPU's share of its node's NICs; a scale_out_bandwidth given as well may be lower
  // (traffic of its own), not higher: the NICs carry no more.
  const double share =
      nics->has_value()
          ? static_cast<double>(**nics) * **nic / static_cast<double>(gpu.nvlink_domain_size)
          : 0;
  if (scale_out->has_value() && nics->has_value() && **scale_out > share * (1 + 1e-9)) {
    return error(join_path(path, "scale_out_bandwidth"),
                 absl::StrCat(**scale_out, " B/s per GPU is more than the NICs carry: ", **nics,
                              " x ", **nic, " B/s over ", gpu.nvlink_domain_size, " GPUs = ",
                              share, " B/s; leave scale_out_bandwidth out (the NICs give it) "
                              "or give at most that"));
  }
  gpu.scale_out_bandwidth = scale_out->has_value() ? **scale_out : share;
  // The share of line rate the cluster's network reaches, a plain fraction like the calibrated
  // efficiencies (docs/prediction-model.md, "Across nodes (GPUs)").
  if (auto it = ic.find("nic_efficiency"); it != ic.end()) {
    const double v = it->is_number() ? it->get<double>() : 0;
    if (!it->is_number() || !(v >= internal::kMinEfficiency && v <= 1)) {
      return error(join_path(path, "nic_efficiency"),
                   absl::StrCat("expected the share of the NICs' line rate reached, a fraction "
                                "from ",
                                internal::kMinEfficiency, " to 1",
                                it->is_number() ? absl::StrCat(", got ", v) : std::string()));
    }
    gpu.nic_efficiency = v;
  }
  // A cluster's own latency across nodes, added to NCCL's latency model (docs/prediction-model.md,
  // "Across nodes (GPUs)").
  absl::StatusOr<std::optional<double>> scale_out_latency =
      figure(ic, path, "scale_out_latency", Quantity::kTime, Sign::kNonNegative, false);
  if (!scale_out_latency.ok()) return scale_out_latency.status();
  gpu.scale_out_latency_s = *scale_out_latency;
  absl::StatusOr<double> launch =
      required_figure(ic, path, "collective_launch_latency", Quantity::kTime, Sign::kNonNegative);
  if (!launch.ok()) return launch.status();
  gpu.collective_launch_latency_s = *launch;

  absl::StatusOr<std::string> cc = string_member(ic, path, "compute_capability", true);
  if (!cc.ok()) return cc.status();
  std::vector<absl::string_view> parts = absl::StrSplit(*cc, '.');
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &gpu.compute_capability_major) ||
      !absl::SimpleAtoi(parts[1], &gpu.compute_capability_minor) ||
      gpu.compute_capability_major < 1 || gpu.compute_capability_minor < 0) {
    return error(join_path(path, "compute_capability"),
                 absl::StrCat("expected \"MAJOR.MINOR\" such as \"9.0\", got \"", *cc, "\""));
  }
  if (absl::Status s = read_sol(ic, path, &gpu); !s.ok()) return s;
  spec_->gpu = std::move(gpu);
  return absl::OkStatus();
}

absl::Status SpecReader::read_sol(const json& ic, std::string_view path, GpuFabricSpec* gpu) {
  absl::StatusOr<const json*> sol_json = member(ic, path, "xla_sol", /*required=*/false);
  if (!sol_json.ok() || *sol_json == nullptr) return sol_json.status();
  const std::string p = join_path(path, "xla_sol");
  const json& j = **sol_json;
  if (absl::Status s = expect_object(j, p); !s.ok()) return s;
  if (absl::Status s = check_keys(j, p,
                                  {"nccl_op_launch", "nic_speed", "chunk_prep", "rtt",
                                   "gpus_per_node", "chunk_size", "nvlink_barrier"});
      !s.ok()) {
    return s;
  }
  SolModelSpec sol;
  struct Field {
    std::string_view key;
    Quantity q;
    Sign sign;
    double* out;
  };
  for (const Field& f :
       {Field{"nccl_op_launch", Quantity::kTime, Sign::kNonNegative, &sol.nccl_op_launch_s},
        Field{"nic_speed", Quantity::kBandwidth, Sign::kPositive, &sol.nic_speed},
        Field{"chunk_prep", Quantity::kTime, Sign::kNonNegative, &sol.chunk_prep_s},
        Field{"rtt", Quantity::kTime, Sign::kNonNegative, &sol.rtt_s},
        Field{"chunk_size", Quantity::kBytes, Sign::kPositive, &sol.chunk_size_bytes},
        Field{"nvlink_barrier", Quantity::kTime, Sign::kNonNegative, &sol.nvlink_barrier_s}}) {
    absl::StatusOr<double> v = required_figure(j, p, f.key, f.q, f.sign);
    if (!v.ok()) return v.status();
    *f.out = *v;
  }
  absl::StatusOr<std::optional<int64_t>> per_node =
      count_figure(j, p, "gpus_per_node", "GPUs", 1, 1'000'000, /*required=*/true);
  if (!per_node.ok()) return per_node.status();
  sol.gpus_per_node = **per_node;
  gpu->xla_sol = sol;
  return absl::OkStatus();
}

absl::Status SpecReader::read_default_tiles(const json& root) {
  absl::StatusOr<const json*> tiles = member(root, "", "default_tiles", /*required=*/false);
  if (!tiles.ok() || *tiles == nullptr) return tiles.status();
  if (absl::Status s = expect_object(**tiles, "default_tiles"); !s.ok()) return s;
  for (const auto& [key, list] : (*tiles)->items()) {
    const std::string p = join_path("default_tiles", key);
    int bits = 0;
    if (!absl::SimpleAtoi(key, &bits) || bits < 1 || bits > 64) {
      return error(p, "expected an element bit width (1 to 64) as the key");
    }
    if (!list.is_array() || list.empty()) {
      return error(p, "expected a list of tiles such as [[8, 128], [2, 1]]");
    }
    std::vector<Tile> parsed;
    for (const json& tile : list) {
      if (!tile.is_array() || tile.empty()) {
        return error(p, "expected each tile to be a non-empty list of sizes");
      }
      Tile t;
      for (const json& d : tile) {
        if (!d.is_number_integer() || d.get<int64_t>() < 1 || d.get<int64_t>() > 1'000'000) {
          return error(p, "expected tile sizes to be positive whole numbers");
        }
        t.dims.push_back(d.get<int64_t>());
      }
      parsed.push_back(std::move(t));
    }
    spec_->default_tiles[bits] = std::move(parsed);
  }
  return absl::OkStatus();
}

// "line L, column C" of byte offset `byte` (1-based, as nlohmann reports it).
std::string position_of(std::string_view text, size_t byte) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return absl::StrCat("line ", line, ", column ", column);
}

}  // namespace

absl::StatusOr<DeviceSpec> parse_device_spec(std::string_view text, std::string_view origin) {
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // nlohmann's message starts with its own position ("... column 5: "); keep the reason.
    std::string_view what = e.what();
    if (size_t column = what.find("column"); column != std::string_view::npos) {
      if (size_t colon = what.find(": ", column); colon != std::string_view::npos) {
        what.remove_prefix(colon + 2);
      }
    }
    return absl::InvalidArgumentError(
        absl::StrCat(sv(origin), ": invalid JSON at ", position_of(text, e.byte), ": ", sv(what)));
  } catch (const json::out_of_range& e) {
    // A number beyond double ("1e999", 400 digits), under any key.
    return absl::InvalidArgumentError(absl::StrCat(
        sv(origin), ": invalid JSON: a number is out of range (beyond a double): ", e.what()));
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(sv(origin), ": invalid JSON: ", e.what()));
  }
  DeviceSpec spec;
  spec.origin = std::string(origin);
  spec.json = std::string(text);
  SpecReader reader(origin, &spec);
  try {
    if (absl::Status s = reader.read(root); !s.ok()) return s;
  } catch (const json::exception& e) {
    // The reader checks every type before reading a value; this is a safety net.
    return absl::InvalidArgumentError(absl::StrCat(sv(origin), ": unexpected JSON: ", e.what()));
  }
  if (!root.contains("measured_on")) {
    absl::StatusOr<MeasuredOn> inherited = internal::inherited_measured_on(spec);
    if (!inherited.ok()) return inherited.status();
    spec.measured_on = *std::move(inherited);
  }
  return spec;
}

namespace {

// Whether `unit` is the base unit of a quantity (a figure --set may give with a unit), not a
// count's word ("NICs", "GPUs").
bool is_quantity_unit(std::string_view unit) {
  for (Quantity q : {Quantity::kBytes, Quantity::kBandwidth, Quantity::kFlopRate,
                     Quantity::kOpRate, Quantity::kTime}) {
    if (internal::unit_factor(q, unit).has_value()) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<DeviceSpec> set_device_figures(const DeviceSpec& spec,
                                              const std::vector<std::string>& settings) {
  if (settings.empty()) return spec;
  json root;
  try {
    root = json::parse(spec.json);
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(spec.origin, ": the spec's JSON is not at hand to set figures in"));
  }
  const auto no_such_figure = [&spec](const std::string& path) {
    std::vector<std::string> paths;
    for (const DeviceFigure& f : spec.figures) paths.push_back(f.path);
    return absl::InvalidArgumentError(absl::StrCat(
        "--set ", path, ": ", spec.name, " has no such figure; its figures: ",
        absl::StrJoin(paths, ", "), " (and matmul_efficiency, hbm_efficiency, "
        "collective_bandwidth_efficiency, collective_latency; interconnect.nic_efficiency on "
        "GPUs; and any other a device JSON takes: `hloroof devices ", spec.name,
        " --json` prints one to start from)"));
  };
  std::vector<std::string> said;
  std::vector<std::string> added;  // figures the spec did not have, given without a unit
  std::vector<std::string> bare;   // paths set without a unit
  for (const std::string& setting : settings) {
    const size_t eq = setting.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--set '", setting, "': expected PATH=VALUE, e.g. hbm.bandwidth=3e12"));
    }
    const std::string path = setting.substr(0, eq);
    const std::string text = setting.substr(eq + 1);
    // VALUE is a number in the figure's base unit, or a number and a unit a device JSON takes
    // for the figure ("200Gb/s", "5us"): the longest leading number, the rest its unit.
    double value = 0;
    std::string unit;
    bool parsed = absl::SimpleAtod(text, &value);
    for (size_t n = text.size(); !parsed && n > 0; --n) {
      if (absl::SimpleAtod(text.substr(0, n), &value)) {
        unit = std::string(absl::StripAsciiWhitespace(text.substr(n)));
        parsed = !unit.empty() && absl::ascii_isalpha(static_cast<unsigned char>(unit[0]));
      }
    }
    if (!parsed || !std::isfinite(value)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--set ", path, ": '", text, "' is not a number (in the figure's base unit, e.g. "
          "2.5e10) or a number and a unit (e.g. 200Gb/s)"));
    }
    if (unit.empty()) bare.push_back(path);
    json* node = &root;
    for (absl::string_view part : absl::StrSplit(path, '.')) {
      if (!node->is_object()) {
        node = nullptr;
        break;
      }
      node = &(*node)[std::string(part)];  // a missing key becomes null
    }
    const DeviceFigure* figure = spec.figure(path);
    static constexpr std::string_view kFractions[] = {
        "matmul_efficiency", "hbm_efficiency", "collective_bandwidth_efficiency",
        "interconnect.nic_efficiency"};
    const bool fraction =
        std::find(std::begin(kFractions), std::end(kFractions), path) != std::end(kFractions);
    if (!unit.empty() && (fraction || (node != nullptr && node->is_number()) ||
                          (figure != nullptr && !is_quantity_unit(figure->unit)))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--set ", path, "=", text, ": this figure is a plain number (a fraction or a count), "
          "with no unit; give the number alone"));
    }
    if (node != nullptr && node->is_object() && node->contains("value") && figure != nullptr) {
      (*node)["value"] = value;
      // The unit given, else the base unit: VALUE is in it.
      (*node)["unit"] = unit.empty() ? figure->unit : unit;
      (*node)["source"] = "set";
      (*node)["verified"] = false;
      (*node)["note"] =
          absl::StrCat("set by the user (", spec.name, " gives ", figure->value, " ",
                       figure->unit, figure->source.empty() ? "" : ", source " + figure->source,
                       ")");
    } else if (node != nullptr && (node->is_number() || (node->is_null() && fraction))) {
      *node = value;
    } else if (node != nullptr && node->is_null() && path == "collective_latency") {
      *node = {{"value", value},
               {"unit", unit.empty() ? std::string("s") : unit},
               {"source", "set"},
               {"verified", false}};
    } else if (node != nullptr && node->is_null() && path.find('.') != std::string::npos) {
      // A figure the spec leaves out, in an object it has (interconnect.nics_per_node): added
      // as a device JSON would hold it; its unit the one given, else the one the reader asks
      // for below (the base unit of a quantity).
      *node = {{"value", value}, {"unit", unit}, {"source", "set"}, {"verified", false}};
      if (unit.empty()) added.push_back(path);
    } else {
      return no_such_figure(path);
    }
    said.push_back(absl::StrCat(path, "=", text));
  }
  // The NICs give each GPU's scale-out bandwidth, as in a device JSON that names them without
  // scale_out_bandwidth: the spec's own figure goes unless it is set too.
  const auto set = [&settings](std::string_view path) {
    return std::any_of(settings.begin(), settings.end(), [path](const std::string& s) {
      return absl::StartsWith(s, absl::StrCat(sv(path), "="));
    });
  };
  if ((set("interconnect.nics_per_node") || set("interconnect.nic_bandwidth")) &&
      !set("interconnect.scale_out_bandwidth") && root.contains("interconnect") &&
      root["interconnect"].is_object()) {
    root["interconnect"].erase("scale_out_bandwidth");
  }
  const std::string origin =
      absl::StrCat(spec.origin, " with --set ", absl::StrJoin(said, " --set "));
  absl::StatusOr<DeviceSpec> changed = parse_device_spec(root.dump(2), origin);
  // An added figure takes the unit the reader names: "field 'P.unit': expected \"NICs\"", or
  // the first of "use one of: B/s, KB/s, ...".
  for (size_t tries = 0; !changed.ok() && tries < added.size(); ++tries) {
    const std::string message(changed.status().message());
    bool fixed = false;
    for (const std::string& path : added) {
      // A count names its unit; a quantity lists its units, the base unit (which --set's
      // values are in) first.
      std::string asked = absl::StrCat("field '", path, ".unit': expected \"");
      char close = '"';
      size_t at = message.find(asked);
      if (at == std::string::npos) {
        asked = absl::StrCat("field '", path, ".unit': '' is not a unit of this field; use one "
                             "of: ");
        close = ',';
        at = message.find(asked);
      }
      if (at == std::string::npos) continue;
      const size_t begin = at + asked.size();
      const size_t end = message.find(close, begin);
      if (end == std::string::npos) continue;
      json* node = &root;
      for (absl::string_view part : absl::StrSplit(path, '.')) node = &(*node)[std::string(part)];
      (*node)["unit"] = std::string(message.substr(begin, end - begin));
      fixed = true;
    }
    if (!fixed) break;
    changed = parse_device_spec(root.dump(2), origin);
  }
  if (!changed.ok() && !bare.empty() &&
      absl::StrContains(changed.status().message(), "(physical sanity range)")) {
    // 200 for a bandwidth is 200 B/s: say in what unit VALUE was read, and how to give another.
    for (const std::string& path : bare) {
      if (!absl::StrContains(changed.status().message(), absl::StrCat("'", path, ".value'"))) {
        continue;
      }
      return absl::Status(
          changed.status().code(),
          absl::StrCat(changed.status().message(), ": --set ", path, "=VALUE without a unit is "
                       "in the figure's base unit; give its unit, e.g. "
                       "--set interconnect.nic_bandwidth=200Gb/s"));
    }
  }
  if (!changed.ok() && !added.empty()) {
    // A key no device JSON takes there (a typo): the figures this device has.
    const std::string message(changed.status().message());
    for (const std::string& path : added) {
      if (message.find(absl::StrCat("field '", path, "': unknown field")) != std::string::npos) {
        return no_such_figure(path);
      }
    }
    return absl::Status(changed.status().code(),
                        absl::StrCat(changed.status().message(),
                                     " (a device JSON is the other route: `hloroof devices ",
                                     spec.name, " --json` prints one to edit and give as --device "
                                     "FILE)"));
  }
  return changed;
}

absl::StatusOr<DeviceSpec> per_core_spec(const DeviceSpec& spec) {
  if (!spec.torus || spec.torus->cores_per_chip <= spec.torus->devices_per_chip) return spec;
  const int cores = spec.torus->cores_per_chip;
  const int share = cores / spec.torus->devices_per_chip;
  json root;
  try {
    root = json::parse(spec.json);
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(spec.origin, ": the spec's JSON is not at hand to divide among its cores"));
  }
  // What one device of the chip has that its TensorCores share: compute, HBM, and the on-chip
  // bandwidth quoted for the device (the on-chip capacity is per TensorCore already).
  const auto at = [&root](std::initializer_list<std::string_view> path) -> json* {
    json* node = &root;
    for (std::string_view key : path) {
      if (!node->is_object()) return nullptr;
      auto it = node->find(std::string(key));
      if (it == node->end()) return nullptr;
      node = &*it;
    }
    return node;
  };
  std::vector<json*> shared = {at({"vector_flops_per_s"}), at({"transcendentals_per_s"}),
                               at({"hbm", "capacity"}), at({"hbm", "bandwidth"}),
                               at({"on_chip_memory", "bandwidth"})};
  if (json* rates = at({"matrix_flops_per_s"}); rates != nullptr && rates->is_object()) {
    for (auto& rate : rates->items()) shared.push_back(&rate.value());
  }
  for (json* f : shared) {
    if (f == nullptr || !f->is_object() || !f->contains("value") || !(*f)["value"].is_number()) {
      continue;
    }
    (*f)["value"] = (*f)["value"].get<double>() / share;
    const std::string was = f->contains("note") && (*f)["note"].is_string()
                                ? absl::StrCat("; ", (*f)["note"].get<std::string>())
                                : "";
    (*f)["note"] = absl::StrCat("one TensorCore's share, 1/", share, " of the chip's", was);
  }
  json* per_chip = at({"interconnect", "devices_per_chip"});
  if (per_chip == nullptr || !per_chip->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(spec.origin, ": no interconnect.devices_per_chip to set to ", cores));
  }
  (*per_chip)["value"] = cores;
  (*per_chip)["note"] = "one device per TensorCore, as libtpu's offline compiler gives this chip";
  root["display_name"] = absl::StrCat(spec.display_name, ", one TensorCore");
  root["device_note"] = absl::StrCat(
      "One JAX device is one TensorCore, 1/", share, " of a chip (libtpu's offline compiler "
      "gives a ", spec.name, " chip as ", cores, " devices; the hardware as one megacore "
      "device): the chip's compute, HBM and HBM capacity are divided among them.");
  return parse_device_spec(root.dump(2), absl::StrCat(spec.origin, ", one device per TensorCore"));
}

}  // namespace hloroof
