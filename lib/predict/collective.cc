// collective_time(): checks the input, places each group or pair on the topology, runs the
// chosen model and keeps the slowest group.
#include "hloroof/collective.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hloroof/absl_compat.h"
#include "predict/collective_models.h"
#include "util/number_text.h"

namespace hloroof {
namespace {

absl::StatusOr<CollectiveEstimate> pair_time(const DeviceSpec& device, const Topology& topology,
                                             std::pair<int64_t, int64_t> pair,
                                             const CollectiveInput& input,
                                             const CollectiveOptions& options) {
  const auto [source, target] = pair;
  absl::StatusOr<GroupPlacement> placement =
      source == target ? place_group(topology, {source}) : place_group(topology, {source, target});
  if (!placement.ok()) return placement.status();
  CollectiveEstimate e;
  if (source == target) {
    e.group_size = 1;
    e.bytes = input.bytes;
    e.formula = "a device sends to itself: nothing crosses a link";
  } else {
    switch (options.formula) {
      case CollectiveFormula::kNetwork:
        e = device.kind == DeviceKind::kTpu
                ? internal::tpu_pair_time(device, topology, source, target, input.bytes)
                : internal::gpu_pair_time(device, topology, source, target, input.bytes);
        break;
      case CollectiveFormula::kXlaGpuNccl: {
        absl::StatusOr<CollectiveEstimate> nccl =
            internal::xla_nccl_time(device, input.kind, input.bytes, 2, options);
        if (!nccl.ok()) return nccl.status();
        e = *std::move(nccl);
        break;
      }
      case CollectiveFormula::kXlaGpuSol: {
        absl::StatusOr<CollectiveEstimate> sol =
            internal::xla_sol_pair_time(device, input.bytes, placement->domains > 1);
        if (!sol.ok()) return sol.status();
        e = *std::move(sol);
        break;
      }
    }
  }
  e.placement = *std::move(placement);
  return e;
}

absl::StatusOr<CollectiveEstimate> group_time(const DeviceSpec& device, const Topology& topology,
                                              absl::Span<const int64_t> ids,
                                              const CollectiveInput& input,
                                              const CollectiveOptions& options) {
  absl::StatusOr<GroupPlacement> placement = place_group(topology, ids);
  if (!placement.ok()) return placement.status();
  switch (options.formula) {
    case CollectiveFormula::kNetwork:
      return device.kind == DeviceKind::kTpu
                 ? internal::tpu_group_time(device, topology, *placement, input.kind, input.bytes,
                                            options)
                 : internal::gpu_group_time(device, *placement, input.kind, input.bytes, options);
    case CollectiveFormula::kXlaGpuNccl: {
      absl::StatusOr<CollectiveEstimate> e =
          internal::xla_nccl_time(device, input.kind, input.bytes, placement->size, options);
      if (e.ok()) e->placement = *std::move(placement);
      return e;
    }
    case CollectiveFormula::kXlaGpuSol:
      return internal::xla_sol_group_time(device, *placement, input.kind, input.bytes);
  }
  return absl::InternalError("unknown collective formula");
}

}  // namespace

std::string_view collective_formula_name(CollectiveFormula formula) {
  switch (formula) {
    case CollectiveFormula::kNetwork:
      return "network";
    case CollectiveFormula::kXlaGpuNccl:
      return "xla-gpu-nccl";
    case CollectiveFormula::kXlaGpuSol:
      return "xla-gpu-sol";
  }
  return "?";
}

absl::StatusOr<CollectiveFormula> collective_formula_from_name(std::string_view name,
                                                              std::string_view option) {
  for (CollectiveFormula f : {CollectiveFormula::kNetwork, CollectiveFormula::kXlaGpuNccl,
                              CollectiveFormula::kXlaGpuSol}) {
    if (collective_formula_name(f) == name) return f;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(sv(option), ": unknown formula '", sv(name),
                   "'; expected network, xla-gpu-nccl or xla-gpu-sol"));
}

absl::StatusOr<CollectiveEstimate> collective_time(const DeviceSpec& device,
                                                   const Topology& topology,
                                                   const CollectiveInput& input,
                                                   const CollectiveOptions& options) {
  if (!std::isfinite(input.bytes) || input.bytes < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("collective bytes must be a finite, non-negative count, got ", input.bytes));
  }
  if (topology.device != device.name) {
    return absl::InvalidArgumentError(
        absl::StrCat("topology ", topology.to_string(), " is not a topology of ", device.name));
  }
  if ((device.kind == DeviceKind::kTpu && !device.torus) ||
      (device.kind == DeviceKind::kGpu && !device.gpu)) {
    return absl::InvalidArgumentError(absl::StrCat(device.name, " has no interconnect spec"));
  }
  if (options.formula != CollectiveFormula::kNetwork && device.kind != DeviceKind::kGpu) {
    return absl::InvalidArgumentError(
        absl::StrCat("the ", sv(collective_formula_name(options.formula)),
                     " formula is XLA's GPU model; ", device.name, " is not a GPU"));
  }

  std::optional<CollectiveEstimate> slowest;
  auto keep_slowest = [&](CollectiveEstimate e) {
    if (!slowest || e.time_s > slowest->time_s) slowest = std::move(e);
  };
  if (is_point_to_point(input.kind)) {
    if (input.pairs.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(sv(collective_kind_name(input.kind)), " needs source-target pairs"));
    }
    for (const auto& pair : input.pairs) {
      absl::StatusOr<CollectiveEstimate> e = pair_time(device, topology, pair, input, options);
      if (!e.ok()) return e.status();
      keep_slowest(*std::move(e));
    }
    if (input.pairs.size() > 1) {
      slowest->notes.push_back(
          absl::StrCat(input.pairs.size(),
                       " pairs at once; the slowest pair bounds the collective (links "
                       "shared by several pairs are not modelled)"));
    }
  } else {
    if (input.groups.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(sv(collective_kind_name(input.kind)),
                       " has no replica groups; expand an empty `{}` into explicit device ids"));
    }
    for (const std::vector<int64_t>& group : input.groups) {
      absl::StatusOr<CollectiveEstimate> e = group_time(device, topology, group, input, options);
      if (!e.ok()) return e.status();
      keep_slowest(*std::move(e));
    }
  }
  if (slowest->placement.approximate) slowest->approximate = true;
  return *std::move(slowest);
}

std::string CollectiveEstimate::explain() const {
  // (StrCat and to_chars, as printf writes them: a sharded module has thousands.)
  std::string out = absl::StrCat(
      formula, "\n  N = ", group_size, ", V = ", util::general_text(bytes, 6), " B, bandwidth ",
      util::general_text(bandwidth, 4), " B/s -> ", util::general_text(bandwidth_time_s, 4),
      " s; hops ", hops, ", latency ", util::general_text(latency_s, 4), " s; time ",
      util::general_text(time_s, 4), " s");
  if (!placement.description.empty()) absl::StrAppend(&out, "\n  group: ", placement.description);
  if (approximate) absl::StrAppend(&out, "\n  approximate: a conservative bound, not a model");
  for (const std::string& n : notes) absl::StrAppend(&out, "\n  note: ", n);
  return out;
}

}  // namespace hloroof
