// The models of one op's time (op_model.h).
#include <algorithm>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hloroof/absl_compat.h"
#include "hloroof/roofline.h"
#include "predict/op_model.h"

namespace hloroof::predict {

BoundBy bound_by(Bound b) {
  switch (b) {
    case Bound::kMatrix:
    case Bound::kVector:
    case Bound::kTranscendental:
      return BoundBy::kCompute;
    case Bound::kHbm:
    case Bound::kOnChip:
    case Bound::kHost:
      return BoundBy::kMemory;
    case Bound::kOverhead:
      return BoundBy::kOverhead;
  }
  return BoundBy::kOverhead;
}

namespace {

// Notes the device figure behind a roofline term as used.
void use_figure(Bound b, const OpWork& w, EstimateNotes& notes) {
  switch (b) {
    case Bound::kMatrix:
      notes.use_matrix_class(w.matrix_class.empty() ? matrix_class(w.matrix_type)
                                                    : w.matrix_class);
      return;
    case Bound::kVector:
      notes.use_figure("vector_flops_per_s");
      return;
    case Bound::kTranscendental:
      notes.use_figure("transcendentals_per_s");
      return;
    case Bound::kHbm:
      notes.use_figure("hbm.bandwidth");
      return;
    case Bound::kOnChip:
      notes.use_figure("on_chip_memory.bandwidth");
      return;
    case Bound::kHost:
      notes.use_figure("host_link.bandwidth");
      return;
    case Bound::kOverhead:
      notes.use_figure("per_op_overhead");
      return;
  }
}

}  // namespace

OpEstimate RooflineModel::estimate(const OpView& op) const {
  const OpWork& work = op.work;
  OpEstimate out;
  // The figures are cited once for the prediction (CombinedModel::rate_source), when an
  // explanation is made; a matrix term's by roofline_time, which picks the class that runs.
  out.roofline = roofline_time(device_, work,
                               {.include_overhead = op.include_overhead,
                                .apply_efficiency = false,
                                .cite_sources = cite_matrix_ && work.matrix_flops > 0});
  RooflineEstimate& e = out.roofline;
  use_figure(e.bound, work, out.notes);
  if (e.overhead_s > 0) out.notes.use_figure("per_op_overhead");
  if (e.overhead_s > 0 && device_.launch_floor_s) out.notes.use_figure("launch_floor");
  if (e.l2_read_bytes > 0) out.notes.use_figure("on_chip_memory.bandwidth");
  for (std::string& note : e.notes) out.notes.assume(std::move(note));
  e.notes.clear();
  out.time_s = e.time_s;
  out.resource = e.bound;
  out.bound = bound_by(e.bound);
  return out;
}

std::optional<KernelTimeEstimate> KernelEstimateModel::find(const Instruction& i) const {
  if (device_.kind != DeviceKind::kGpu) return std::nullopt;
  return i.backend_config().kernel_time_estimate();
}

OpEstimate KernelEstimateModel::estimate(const OpView& op, OpEstimate e) const {
  const KernelTimeEstimate& k = *op.kernel;
  e.notes.assume(
      "kernels with a run-time estimate in their backend_config (reification_cost) are "
      "expected to take it: XLA's own cost model, for the GPU the module was compiled for");
  e.model = absl::StrCat("kernel's own estimate (XLA cost model",
                         k.model.empty() ? "" : absl::StrCat(" ", k.model), ")");
  if (k.exec_time_s > e.time_s) e.time_s = k.exec_time_s;
  e.kernel = k;
  return e;
}

OpEstimate FamilyModel::estimate(const OpView& op, OpEstimate e) const {
  // The family's kernels (or, where it leaves them to the device model, that model's time),
  // never below the roofline, then the host's gap before them.
  const double roofline_s = e.roofline.time_s;
  const FamilyTime& f = *op.family;
  const double overhead = op.include_overhead ? device_.per_op_overhead_s : 0.0;
  if (f.at_least && f.device_s + overhead <= e.model_s) return e;
  const double device = f.device_s > 0 ? f.device_s + overhead : e.model_s;
  e.time_s = std::max(roofline_s, device) + f.host_gap_s;
  if (f.range && f.device_s > 0) {
    // Each end of the family's range made into an op time as the expected one is.
    e.range = f.range;
    e.range->low_s = std::max(roofline_s, f.range->low_s + overhead) + f.host_gap_s;
    e.range->high_s = std::max(roofline_s, f.range->high_s + overhead) + f.host_gap_s;
  }
  e.model = absl::StrCat(sv(f.family), " (", sv(f.source), " family model)");
  if (op.matrix_share < 1 && f.device_s > 0 && op.work.matrix_flops > 0) {
    e.notes.use_figure("sharded_compute_share");
  }
  e.family = &f;
  e.model_s = e.time_s;
  e.device_model = nullptr;
  e.basis = std::monostate();
  return e;
}

CollectiveOpEstimate collective_op_estimate(const CollectiveCost& c, bool is_async) {
  CollectiveOpEstimate out;
  CollectivePrediction& p = out.prediction;
  p.kind = std::string(collective_kind_name(c.kind));
  p.payload_bytes = c.payload_bytes;
  p.group_size = c.group_size;
  p.is_async = is_async;
  return out;
}

namespace {

// A collective across slices (docs/prediction-model.md, "Measured models (TPUs)"): libtpu
// compiles one slice's program, in which each device sends its share to its counterparts in
// the other slices and receives theirs (a send and a recv of the megascale runtime, one
// rendezvous). The recv carries the time, the send none: over a ring of S slices each pass
// moves (S-1)/S of the share B through the device's part of its chip's DCN bandwidth; an
// all-reduce takes two passes (reduce-scatter, then all-gather), a reduce-scatter's B is its
// input (S times its output). Each pass pays the DCN latency once.
CollectiveOpEstimate megascale_estimate(const DeviceSpec& device, const HostTransferOp& op) {
  const CollectiveCost& c = op.cost;
  CollectiveOpEstimate out = collective_op_estimate(c, op.is_async);
  CollectivePrediction& p = out.prediction;
  p.approximate = true;
  out.model = "roofline (DCN assumed)";
  if (c.kind != CollectiveKind::kRecv) {
    p.formula = absl::StrCat("DCN ", sv(op.megascale_type),
                             " across slices: its recv carries the time");
    return out;
  }
  const double per_chip = device.torus ? device.torus->devices_per_chip : 1;
  const double w = device.torus ? device.torus->dcn_bandwidth_per_chip.value_or(0) / per_chip : 0;
  const double latency = device.torus ? device.torus->dcn_latency_s : 0;
  int64_t slices = op.slices;
  if (slices < 2) {
    slices = 2;
    out.notes.assume(absl::StrCat(
        "the program crosses slices over DCN (", sv(op.megascale_type),
        ") but the target has one slice: timed as 2 slices (give DEVICE:SHAPE,slices=N)"));
  }
  const double s = static_cast<double>(slices);
  double passes = 1, bytes = c.payload_bytes * (s - 1) / s;
  std::string_view form = "B (S-1) / (S W_dcn) + T_dcn";
  if (op.megascale_type == "ALL_REDUCE") {
    passes = 2;
    bytes *= 2;
    form = "2 B (S-1) / (S W_dcn) + 2 T_dcn";
  } else if (op.megascale_type == "REDUCE_SCATTER") {
    bytes = c.payload_bytes * (s - 1);
    form = "B_out (S-1) / W_dcn + T_dcn";
  } else if (op.megascale_type != "ALL_GATHER") {
    out.notes.assume(absl::StrCat("DCN transfer type ", sv(op.megascale_type),
                                  " timed as one pass of a gather over the slices"));
  }
  if (w <= 0) {
    out.notes.assume(absl::StrCat(device.name,
                                  " has no DCN bandwidth: transfers across slices take no time"));
    p.formula = absl::StrCat("DCN ", sv(op.megascale_type), ": no DCN bandwidth");
    return out;
  }
  out.notes.use_figure("interconnect.dcn_bandwidth_per_chip");
  out.notes.use_figure("interconnect.dcn_latency");
  p.formula = absl::StrCat("DCN ", sv(op.megascale_type), " across ", slices,
                           " slices (ring over the slices, derived): ", sv(form));
  p.time_s = bytes / w + passes * latency;
  out.roofline_s = p.time_s;
  out.dcn_rate = w;
  return out;
}

}  // namespace

CollectiveOpEstimate HostTransferModel::estimate(const HostTransferOp& op) const {
  if (!op.megascale_type.empty()) return megascale_estimate(device_, op);
  const CollectiveCost& c = op.cost;
  CollectiveOpEstimate out = collective_op_estimate(c, op.is_async);
  CollectivePrediction& p = out.prediction;
  // A host transfer crosses the host link (PCIe), not the network.
  const double rate = device_.host_bandwidth.value_or(0);
  out.host_rate = rate;
  p.formula = "host transfer: V / W_host";
  p.time_s = rate > 0 ? c.payload_bytes / rate : 0;
  if (rate > 0) {
    out.notes.use_figure("host_link.bandwidth");
  } else {
    out.notes.assume(
        absl::StrCat(device_.name, " has no host link bandwidth; host transfers take no time"));
  }
  out.model = "roofline (no measured model)";
  out.roofline_s = p.time_s;
  return out;
}

CollectiveModel::Times CollectiveModel::estimate(const NetworkOp& op) const {
  Times times;
  times.estimate = collective_time(device_, slice_, op.input, op.options);
  if (!times.estimate.ok() || !expected_) return times;
  times.expected = expected_collective_time(op.input.kind, *times.estimate, device_, times.notes);
  return times;
}

}  // namespace hloroof::predict
