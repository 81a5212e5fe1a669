#include "hloroof/summary_json.h"

#include <map>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hloroof/hlo_text.h"
#include "hloroof/shape_size.h"
#include "hloroof/shape_text.h"
#include "nlohmann/json.hpp"

namespace hloroof {
namespace {

using Json = nlohmann::ordered_json;

// Indented by `indent` spaces, or on one line when -1; invalid UTF-8 replaced; a newline after.
std::string json_text(const Json& j, int indent) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace

int64_t common_memory_space(const Shape& shape) {
  int64_t space = -2;  // no leaf yet
  for_each_array_leaf(shape, [&](const Shape& leaf) {
    const int64_t s = leaf.layout ? leaf.layout->memory_space : kDefaultMemorySpace;
    space = (space == -2 || space == s) ? s : -1;
  });
  return space == -2 ? kDefaultMemorySpace : space;
}

std::string_view memory_space_name(int64_t space) {
  switch (space) {
    case kDefaultMemorySpace:
      return "device (HBM)";
    case kOnChipMemorySpace:
      return "on-chip (VMEM-class)";
    case kHostMemorySpace:
      return "host";
    case kScalarMemorySpace:
      return "on-chip (TPU SMEM, scalars)";
    default:
      return "backend-specific";
  }
}

std::string describe_wraparound(const Wraparound& w) {
  switch (w.rule) {
    case Wraparound::Rule::kNone:
      return "no wraparound";
    case Wraparound::Rule::kAxisSizes:
      return absl::StrCat("wraps on axes of ", absl::StrJoin(w.axis_sizes, " or "));
    case Wraparound::Rule::kWholeCubes:
      return absl::StrCat("wraps on whole ", w.cube, "x", w.cube, "x", w.cube, " cubes");
  }
  return "";
}

absl::StatusOr<std::string> device_summaries_to_json(absl::Span<const DeviceSpec> devices) {
  Json all = Json::array();
  for (const DeviceSpec& d : devices) {
    auto bf16 = d.matrix_flops_per_s.find("bf16");
    if (bf16 == d.matrix_flops_per_s.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(d.name, " (", d.origin, ") has no bf16 matrix rate to summarize"));
    }
    Json j;
    j["name"] = d.name;
    j["display_name"] = d.display_name;
    j["kind"] = std::string(device_kind_name(d.kind));
    j["bf16_peak_flop_per_s"] = bf16->second;
    j["hbm_capacity_bytes"] = d.hbm_capacity_bytes;
    j["hbm_bandwidth_bytes_per_s"] = d.hbm_bandwidth;
    if (d.torus) {
      j["interconnect"] = {{"type", "ici_torus"},
                           {"torus_rank", d.torus->rank},
                           {"links_per_chip", d.torus->links_per_chip},
                           {"link_bandwidth_bytes_per_s", d.torus->link_bandwidth},
                           {"devices_per_chip", d.torus->devices_per_chip},
                           {"cores_per_chip", d.torus->cores_per_chip},
                           {"wraparound", describe_wraparound(d.torus->wraparound)}};
    } else if (d.gpu) {
      j["interconnect"] = {{"type", d.gpu->vendor == GpuVendor::kAmd ? "xgmi" : "nvlink"},
                           {"nvlink_domain_gpus", d.gpu->nvlink_domain_size},
                           {"nvlink_bandwidth_bytes_per_s", d.gpu->nvlink_bandwidth},
                           {"scale_out_bandwidth_bytes_per_s", d.gpu->scale_out_bandwidth}};
    }
    all.push_back(std::move(j));
  }
  return json_text(all, 2);
}

absl::StatusOr<std::string> device_spec_to_json(const DeviceSpec& device) {
  Json j = Json::parse(device.json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return absl::InternalError(absl::StrCat(device.origin, ": its JSON is not at hand"));
  }
  return json_text(j, 2);
}

std::string parse_summary_to_json(std::string_view file, const Module& module,
                                  const std::vector<std::string>& warnings) {
  std::map<std::string, int64_t> opcodes;
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) ++opcodes[std::string(opcode_name(i->opcode()))];
  }
  Json j;
  j["file"] = std::string(file);
  j["ok"] = true;
  j["module"] = std::string(module.name());
  j["computations"] = module.computations().size();
  j["instructions"] = module.instruction_count();
  j["entry_marked"] = module.entry_marked();
  j["warnings"] = warnings;
  j["opcodes"] = opcodes;
  return json_text(j, -1);
}

std::string parse_failure_to_json(std::string_view file, const absl::Status& status) {
  Json j;
  j["file"] = std::string(file);
  j["ok"] = false;
  Json error;
  if (std::optional<ParseErrorLocation> where = parse_error_location(status)) {
    error["line"] = where->line;
    error["column"] = where->column;
    error["message"] = where->message;
  } else {
    error["message"] = std::string(status.message());
  }
  j["error"] = error;
  return json_text(j, -1);
}

absl::StatusOr<std::string> shape_to_json(const Shape& shape) {
  absl::StatusOr<ShapeSize> size = shape_size(shape);
  if (!size.ok()) return size.status();
  const int64_t space = common_memory_space(shape);
  Json j;
  j["shape"] = to_string(shape);
  j["elements"] = size->elements;
  j["logical_bytes"] = size->logical_bytes;
  j["padded_bytes"] = size->padded_bytes;
  j["padding_factor"] = size->padding_factor();
  j["memory_space"] = space;
  j["memory_space_name"] = space < 0 ? "mixed" : std::string(memory_space_name(space));
  j["padded_bytes_by_memory_space"] = {{"device", size->padded_bytes_default},
                                       {"on_chip", size->padded_bytes_on_chip},
                                       {"host", size->padded_bytes_host}};
  return json_text(j, 2);
}

}  // namespace hloroof
