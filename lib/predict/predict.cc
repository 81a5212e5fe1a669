// predict_step_time: the device and its topology, the cost of every instruction, every schedule
// timed, then the step gathered into a Prediction: per-op records, breakdown, HFU and MFU,
// timeline.
#include "hloroof/predict.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hloroof/absl_compat.h"
#include "hloroof/device_target.h"
#include "hloroof/hlo_text.h"
#include "hloroof/no_entry.h"
#include "ir/op_notes.h"
#include "predict/predict_internal.h"

namespace hloroof {
namespace {

using predict::FlowTiming;
using predict::InstructionTiming;
using predict::Role;

// num_partitions x replica_count, saturated rather than overflowing on absurd headers.
int64_t header_devices(const ModuleAttributes& header) {
  int64_t n = 0;
  if (__builtin_mul_overflow(std::max<int64_t>(1, header.num_partitions),
                             std::max<int64_t>(1, header.replica_count), &n)) {
    return std::numeric_limits<int64_t>::max();
  }
  return n;
}

// Devices the module names: num_partitions x replica_count, or more when a collective's groups
// or send/recv peers name higher ids (test modules often leave the header out).
int64_t devices_named(const Module& module, const ModuleCost& cost) {
  int64_t n = header_devices(module.attributes());
  auto name = [&n](int64_t id) {
    if (id >= n) n = id < std::numeric_limits<int64_t>::max() ? id + 1 : id;
  };
  for (const InstructionCost& r : cost.instructions) {
    if (!r.collective) continue;
    n = std::max(n, r.collective->group_size);
    for (const std::vector<int64_t>& g : r.collective->groups) {
      for (int64_t id : g) name(id);
    }
    if (r.collective->kind == CollectiveKind::kSend ||
        r.collective->kind == CollectiveKind::kRecv) {
      for (const auto& [source, target] : predict::send_recv_pairs(*r.instruction)) {
        name(source);
        name(target);
      }
    }
  }
  return n;
}

// The slice a prediction runs on: `given` (the target's), else the smallest that holds the
// module (infer_topology); with the options' device coordinates.
absl::StatusOr<Topology> choose_topology(const Module& module, const ModuleCost& cost,
                                         const DeviceSpec& device, const PredictOptions& options,
                                         const Topology* given, Diagnostics& said) {
  const int64_t needed = devices_named(module, cost);
  const int64_t declared = header_devices(module.attributes());
  if (declared > 1 && needed > declared) {
    // A header that says how many devices run the module, and groups that name more: no
    // module XLA runs (its verifier refuses it; so does verify()).
    said.warnings.push_back(absl::StrFormat(
        "the module's collectives name %d devices, but its header says %d (num_partitions=%d x "
        "replica_count=%d): XLA's verifier refuses such a module (verify() says where); the "
        "topology below is for the %d devices the groups name",
        needed, declared, module.attributes().num_partitions, module.attributes().replica_count,
        needed));
  }
  absl::StatusOr<Topology> topology;
  if (given == nullptr) {
    topology = infer_topology(device, needed);
    if (!topology.ok()) return topology.status();
    said.notes.push_back(absl::StrFormat(
        "topology %s (%s) inferred for the %d device%s the module names; give another as "
        "DEVICE:SHAPE or with the topology option",
        topology->shape, topology->describe(), needed, needed == 1 ? "" : "s"));
  } else {
    topology = *given;
    const ModuleAttributes& header = module.attributes();
    const int64_t devices = header_devices(header);
    if (topology->num_devices() < devices) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "topology %s has %d devices, but the module runs on %d (num_partitions=%d x "
          "replica_count=%d)",
          topology->to_string(), topology->num_devices(), devices, header.num_partitions,
          header.replica_count));
    }
  }
  if (!options.device_coordinates.empty()) {
    std::vector<DeviceCoords> coords;
    coords.reserve(options.device_coordinates.size());
    for (const std::vector<int64_t>& c : options.device_coordinates) {
      coords.emplace_back(c.begin(), c.end());
    }
    absl::Status s = set_device_coords(*topology, std::move(coords));
    if (!s.ok()) return s;
  }
  return topology;
}

// The Refs of the texts that records share, each found once: opcodes' names by opcode, and
// other texts (the static categories, the few models) by where they lie, in a small cache
// where each text has one place.
class SharedTexts {
 public:
  explicit SharedTexts(TextPool& pool) : pool_(pool) {}
  TextPool::Ref opcode(Opcode op) {
    TextPool::Ref& ref = opcodes_[static_cast<size_t>(op)];
    if (ref == 0) ref = pool_.ref(opcode_name(op));
    return ref;
  }
  TextPool::Ref text(std::string_view text) {
    Seen& seen = seen_[(reinterpret_cast<uintptr_t>(text.data()) >> 3) % seen_.size()];
    if (seen.text.data() != text.data() || seen.text.size() != text.size()) {
      seen = {text, pool_.ref(text)};
    }
    return seen.ref;
  }

 private:
  struct Seen {
    std::string_view text;
    TextPool::Ref ref = 0;
  };
  TextPool& pool_;
  std::array<TextPool::Ref, kOpcodeCount> opcodes_{};
  std::array<Seen, 64> seen_;
};

}  // namespace

namespace detail {
// How a prediction sets its records' texts: Refs of the pool it holds.
struct OpRecordAccess {
  static void set_texts(OpPrediction& op, const std::shared_ptr<TextPool>& texts,
                        SharedTexts& shared, const Instruction& i, TextPool::Ref computation,
                        std::string_view category, bool own_category, std::string_view model,
                        std::string_view explanation, const TimeRange* time_range) {
    op.texts_ = texts;
    op.name_ = texts->ref_once(i.name());
    // Static text by its opcode or where it lies (op_category's literals); the rest saved.
    op.opcode_ = i.uses_async_sugar() && i.async_wrapped_opcode() ? texts->ref(spelled_opcode(i))
                                                                  : shared.opcode(i.opcode());
    op.computation_ = computation;
    // A collective's category is its own string (a kind: saved by content).
    op.category_ = own_category ? texts->ref(category) : shared.text(category);
    op.op_name_ = texts->ref(i.op_name());
    op.model_ = shared.text(model);
    op.explanation_ = explanation;  // in the pool already, or static
    set_time_range(op, *texts, time_range);
  }
  // A time range as a record of the pool: low_s, high_s, then the Refs of its two texts.
  static TextPool::Ref save_time_range(TextPool& pool, const TimeRange& r) {
    const TextPool::Ref texts[2] = {pool.ref(r.low), pool.ref(r.high)};
    char bytes[kTimeRangeBytes];
    std::memcpy(bytes, &r.low_s, sizeof(double));
    std::memcpy(bytes + sizeof(double), &r.high_s, sizeof(double));
    std::memcpy(bytes + 2 * sizeof(double), texts, sizeof texts);
    return pool.ref(std::string_view(bytes, sizeof bytes));
  }
  static std::optional<TimeRange> time_range(const OpPrediction& op) {
    if (op.time_range_ == 0 || op.texts_ == nullptr) return std::nullopt;
    const std::string_view bytes = op.texts_->text(op.time_range_);
    if (bytes.size() != kTimeRangeBytes) return std::nullopt;
    TimeRange r;
    TextPool::Ref texts[2];
    std::memcpy(&r.low_s, bytes.data(), sizeof(double));
    std::memcpy(&r.high_s, bytes.data() + sizeof(double), sizeof(double));
    std::memcpy(texts, bytes.data() + 2 * sizeof(double), sizeof texts);
    r.low = std::string(op.texts_->text(texts[0]));
    r.high = std::string(op.texts_->text(texts[1]));
    return r;
  }
  static constexpr size_t kTimeRangeBytes = 2 * sizeof(double) + 2 * sizeof(TextPool::Ref);
  static void set_time_range(OpPrediction& op, TextPool& pool, const TimeRange* r) {
    op.time_range_ = r != nullptr ? save_time_range(pool, *r) : 0;
  }
};
}  // namespace detail

namespace {

// What an op's record reads of its cost (one execution), taken before the op records are made
// so that the module's cost records may go first (a cost record is 184 bytes an op).
struct OpFigures {
  double flops = 0;
  double matrix_flops = 0;
  double transcendentals = 0;
  double hbm_bytes = 0;
  double on_chip_bytes = 0;
  double host_bytes = 0;
};

OpFigures figures_of(const InstructionCost* cost) {
  if (cost == nullptr) return {};
  const OpCost& c = cost->cost;
  return {c.flops,       c.matrix_flops(),  c.transcendentals,
          c.hbm_bytes(), c.on_chip_bytes(), c.host_bytes()};
}

// Fills the record `op` (new) of timing `t`, moving the timing's collective into it (each op is
// listed once); its texts are saved in `texts` (the timing's are there already), its
// computation's name as `computation`.
void fill_op_record(OpPrediction& op, InstructionTiming& t, const OpFigures& figures, double runs,
                    double roofline_s, double efficiency, const std::shared_ptr<TextPool>& texts,
                    SharedTexts& shared, TextPool::Ref computation) {
  const Instruction& i = *t.instruction;
  detail::OpRecordAccess::set_texts(op, texts, shared, i, computation,
                                    predict::op_category(t, figures.matrix_flops),
                                    t.collective.has_value(), t.model, t.explanation,
                                    t.time_range.get());
  op.instruction = &i;
  op.in_entry = i.parent()->is_entry();
  op.multiplier = runs;
  op.time_s = t.time_s;
  op.roofline_time_s = std::min(roofline_s, t.time_s);
  op.efficiency = efficiency;
  op.bound = t.bound;
  op.resource = t.resource;
  op.flops = figures.flops;
  op.matrix_flops = figures.matrix_flops;
  op.transcendentals = figures.transcendentals;
  op.hbm_bytes = figures.hbm_bytes;
  op.on_chip_bytes = figures.on_chip_bytes;
  op.host_bytes = figures.host_bytes;
  op.collective = std::move(t.collective);
}

}  // namespace

void OpPrediction::set_texts(const std::shared_ptr<TextPool>& texts, const OpTexts& t) {
  if (texts == nullptr) {  // no texts
    texts_.reset();
    explanation_ = {};
    name_ = opcode_ = computation_ = category_ = op_name_ = model_ = time_range_ = 0;
    return;
  }
  name_ = texts->ref(t.name);
  opcode_ = texts->ref(t.opcode);
  computation_ = texts->ref(t.computation);
  category_ = texts->ref(t.category);
  op_name_ = texts->ref(t.op_name);
  model_ = texts->ref(t.model);
  explanation_ = texts->save(t.explanation);
  detail::OpRecordAccess::set_time_range(*this, *texts,
                                         t.time_range ? &*t.time_range : nullptr);
  texts_ = texts;
}

std::optional<TimeRange> OpPrediction::time_range() const {
  return detail::OpRecordAccess::time_range(*this);
}

namespace {

AsyncPrediction async_record(const InstructionTiming& start, const InstructionTiming& done) {
  const FlowTiming& flow = start.flow();
  return {std::string(flow.stream),
          std::string(start.instruction->name()),
          std::string(done.instruction->name()),
          flow.latency_s,
          flow.queued_s,
          flow.hidden_s,
          flow.exposed_s,
          flow.contended_s,
          flow.async_computation != nullptr ? flow.latency_s
                                            : std::min(flow.roofline_latency_s, flow.latency_s)};
}

// The peak the FLOP rate is measured against: that of the class with the most matrix FLOPs
// (the class they ran on: tf32 for f32 dots on tensor cores; bf16 when the device lists no
// peak for the class); the vector rate when no FLOP ran on matrix units (an FFT or an f64
// elementwise step is not measured against a bf16 matrix peak).
void set_peak(const DeviceSpec& device, const std::map<std::string, double>& matrix_by_class,
              Prediction& p) {
  std::string dominant = "bf16";
  double most = 0;
  for (const auto& [cls, flops] : matrix_by_class) {
    if (flops > most) dominant = cls, most = flops;
  }
  if (most <= 0 && p.flops > 0 && device.vector_flops_per_s > 0) {
    p.peak_flop_rate = device.vector_flops_per_s;
    p.peak_flop_rate_type = "vector";
    return;
  }
  if (auto listed = device.matrix_flops_per_s.find(dominant);
      listed != device.matrix_flops_per_s.end()) {
    p.peak_flop_rate = listed->second;
    p.peak_flop_rate_type = dominant;
    return;
  }
  if (device.kind == DeviceKind::kGpu &&
      (dominant == "f32" || dominant == "tf32" || dominant == "f64")) {
    p.peak_flop_rate = device.vector_flops_per_s;  // what such dots run on without a peak
    p.peak_flop_rate_type = dominant;
    return;
  }
  auto it = device.matrix_flops_per_s.find("bf16");
  if (it == device.matrix_flops_per_s.end()) {
    it = std::max_element(device.matrix_flops_per_s.begin(), device.matrix_flops_per_s.end(),
                          [](const auto& a, const auto& b) { return a.second < b.second; });
  }
  if (it != device.matrix_flops_per_s.end()) {
    p.peak_flop_rate = it->second;
    p.peak_flop_rate_type = it->first;
  }
}

// Instruction `k` of computation `c` in the roofline walk: its time and latency; null when
// absent.
struct RooflineOf {
  double time_s = 0;
  double latency_s = 0;
};
std::optional<RooflineOf> roofline_of(const predict::RooflineTiming* c, int64_t k) {
  if (c == nullptr || k < 0 || static_cast<size_t>(k) >= c->time_s.size()) return std::nullopt;
  return RooflineOf{c->time_s[static_cast<size_t>(k)], c->latency_s[static_cast<size_t>(k)]};
}

// roofline / expected in (0, 1]; 1 when both are 0.
double ratio(double roofline_s, double expected_s) {
  if (expected_s <= 0) return 1.0;
  return std::clamp(roofline_s / expected_s, std::numeric_limits<double>::min(), 1.0);
}

// The step's op records, costliest first, with the breakdown and totals; with `free_timings`,
// each computation's instruction timings are emptied once its records are made (where nothing
// reads them after). `cost_read` is called once the timings' cost records are read no more,
// before any op record is made (the timings' `cost` may dangle after it).
void gather_ops(const Module& module, predict::TimingMap& timings,
                const predict::RooflineMap* roofline, size_t max_ops,
                const std::shared_ptr<TextPool>& texts, Prediction& p,
                std::map<std::string, double>& matrix_by_class, bool free_timings,
                absl::FunctionRef<void()> cost_read) {
  const absl::flat_hash_map<const Computation*, double> runs =
      predict::executions_per_step(module, timings);
  auto listed = [](const InstructionTiming& t) {
    return t.role != Role::kFree && t.role != Role::kWhile && t.role != Role::kConditional &&
           t.role != Role::kCall;
  };
  // visit(computation, its timing, its executions per step) for each computation timed that
  // runs, in the module's order: the order the ops are met in, pass after pass.
  const auto each_run = [&](auto&& visit) {
    for (const Computation* c : module.computations()) {
      auto timing = timings.find(c);
      auto count = runs.find(c);
      if (timing == timings.end() || count == runs.end() || count->second <= 0) continue;
      visit(c, timing->second, count->second);
    }
  };
  // Each listed op's step time, in the order met: the records are placed by it, costliest
  // first (ties in the order met), before any is made, so that each is made in its place
  // rather than moved there (a record is a few hundred bytes, a module has tens of thousands).
  std::vector<std::pair<double, size_t>> totals;  // (total time, place met)
  each_run([&](const Computation*, const predict::ComputationTiming& timing, double m) {
    for (const InstructionTiming& t : timing.instructions) {
      if (listed(t)) totals.push_back({t.time_s * m, totals.size()});
    }
  });
  const size_t met_in_all = totals.size();
  // With a limit, the ops given records: the first `max_ops` by step time, ties in the order
  // met, as the sort below ranks them.
  if (max_ops > 0 && totals.size() > max_ops) {
    const auto first = [](const std::pair<double, size_t>& a, const std::pair<double, size_t>& b) {
      if (a.first != b.first) return a.first > b.first;
      return a.second < b.second;
    };
    std::nth_element(totals.begin(), totals.begin() + static_cast<std::ptrdiff_t>(max_ops),
                     totals.end(), first);
    totals.resize(max_ops);
    std::sort(totals.begin(), totals.end(),
              [](const std::pair<double, size_t>& a, const std::pair<double, size_t>& b) {
                return a.second < b.second;
              });
  }
  std::stable_sort(totals.begin(), totals.end(),
                   [](const std::pair<double, size_t>& a, const std::pair<double, size_t>& b) {
                     return a.first > b.first;
                   });
  // Where each op met is recorded: its place among the records; none for one left out.
  constexpr size_t kNone = std::numeric_limits<size_t>::max();
  std::vector<size_t> place_of(met_in_all, kNone);
  for (size_t k = 0; k < totals.size(); ++k) place_of[totals[k].second] = k;
  const size_t records = totals.size();
  std::vector<std::pair<double, size_t>>().swap(totals);
  // What the step's sums and the records read of the cost: every listed op counts in the sums,
  // whether it gets a record or not, in the order met.
  std::vector<OpFigures> figures(records);
  size_t met = 0;  // ops met so far, in the order of `place_of`
  each_run([&](const Computation*, const predict::ComputationTiming& timing, double m) {
    for (const InstructionTiming& t : timing.instructions) {
      if (!listed(t)) continue;
      const size_t place = place_of[met++];
      if (t.cost != nullptr) {
        for (const MatrixFlops& f : t.cost->cost.matrix) {
          const std::string_view cls = t.matrix_unit.empty() ? matrix_class(f.type) : t.matrix_unit;
          matrix_by_class[std::string(cls)] += f.flops * m;
        }
      }
      const OpFigures op = figures_of(t.cost);
      p.flops += op.flops * m;
      p.matrix_flops += op.matrix_flops * m;
      p.hbm_bytes += op.hbm_bytes * m;
      if (place != kNone) figures[place] = op;
    }
  });
  cost_read();
  p.ops.resize(records);
  SharedTexts shared(*texts);
  met = 0;
  // The step's range: each ranged op's ends less its expected time, times its executions,
  // added to the expected step (docs/reports.md, "Time ranges"); the cases the ends assume,
  // while every ranged op assumes the same.
  struct StepRange {
    bool any = false, same_cases = true;
    double low_s = 0, high_s = 0;
    std::string low, high;
  } step_range;
  each_run([&](const Computation* c, predict::ComputationTiming& timing, double m) {
    const TextPool::Ref computation = texts->ref(c->name());
    std::vector<InstructionTiming>& list = timing.instructions;
    const predict::RooflineTiming* floors = nullptr;
    if (roofline != nullptr) {
      auto it = roofline->find(c);
      if (it != roofline->end()) floors = &it->second;
    }
    for (size_t k = 0; k < list.size(); ++k) {
      InstructionTiming& t = list[k];
      if (!listed(t)) continue;
      const size_t place = place_of[met++];
      const std::optional<RooflineOf> floor =
          roofline ? roofline_of(floors, static_cast<int64_t>(k))
                   : RooflineOf{t.time_s, t.flow().latency_s};
      const double roofline_s = floor ? std::min(floor->time_s, t.time_s) : 0.0;
      // A done's wait depends on the schedule: its efficiency is that of the pair's work.
      double efficiency = ratio(roofline_s, t.time_s);
      const int64_t partner = t.partner();
      if (t.role == Role::kAsyncDone && partner >= 0) {
        const double latency_s = list[partner].flow().latency_s;
        const std::optional<RooflineOf> start =
            roofline ? roofline_of(floors, partner) : RooflineOf{list[partner].time_s, latency_s};
        efficiency = ratio(start ? start->latency_s : 0.0, latency_s);
      }
      // The step's breakdown counts every op, whether it gets a record or not.
      const double total_time_s = t.time_s * m;
      if (partner >= 0 && t.role == Role::kAsyncStart) {
        // The work hidden: its latency less the wait its done exposes (the wait falls on the
        // work's end first; a queued pair's time in its queue is no work of its own).
        const double hidden_s = std::max(0.0, t.flow().latency_s - t.flow().exposed_s);
        (t.bound == BoundBy::kCollective ? p.breakdown.collective_hidden_s
                                         : p.breakdown.async_hidden_s) += hidden_s * m;
      }
      switch (t.bound) {
        case BoundBy::kCompute:
          p.breakdown.compute_s += total_time_s;
          break;
        case BoundBy::kMemory:
          p.breakdown.memory_s += total_time_s;
          break;
        case BoundBy::kCollective:
          p.breakdown.collective_exposed_s += total_time_s;
          break;
        case BoundBy::kOverhead:
          p.breakdown.overhead_s += total_time_s;
          break;
      }
      if (const TimeRange* r = t.time_range.get()) {
        step_range.low_s += (r->low_s - t.time_s) * m;
        step_range.high_s += (r->high_s - t.time_s) * m;
        if (step_range.any && (r->low != step_range.low || r->high != step_range.high)) {
          step_range.same_cases = false;
        }
        if (!step_range.any) step_range.low = r->low, step_range.high = r->high;
        step_range.any = true;
      }
      if (place == kNone) continue;
      OpPrediction& op = p.ops[place];
      fill_op_record(op, t, figures[place], m, roofline_s, efficiency, texts, shared, computation);
      if (partner >= 0) {
        const bool is_start = t.role == Role::kAsyncStart;
        const InstructionTiming& start = is_start ? t : list[partner];
        op.async = async_record(start, is_start ? list[partner] : t);
      }
    }
    // Its records are made: the computation's timings go before the next one's records come.
    if (free_timings) {
      std::vector<InstructionTiming>().swap(list);
      std::vector<double>().swap(timing.begin_s);
    }
  });
  if (step_range.any) {
    TimeRange& r = p.step_time_range.emplace();
    r.low_s = std::max(0.0, p.step_time_s + step_range.low_s);
    r.high_s = p.step_time_s + step_range.high_s;
    r.low = step_range.same_cases ? step_range.low : "each ranged op at its low end's case";
    r.high = step_range.same_cases ? step_range.high : "each ranged op at its high end's case";
  }
}

// Unverified device figures that shaped the estimates (docs/sources.md, "Open questions": treat
// them as configurable defaults).
void add_unverified_figures(const DeviceSpec& device, const predict::RecordedNotes& recorded,
                            std::vector<std::string>& out) {
  std::vector<std::string> paths(recorded.figures_used.begin(), recorded.figures_used.end());
  for (std::string_view cls : recorded.matrix_classes_used) {
    paths.push_back(absl::StrCat("matrix_flops_per_s.", sv(cls)));
  }
  std::sort(paths.begin(), paths.end());
  for (const std::string& path : paths) {
    const DeviceFigure* f = device.figure(path);
    if (f == nullptr || f->verified) continue;
    out.push_back(absl::StrFormat("%s figure %s = %g %s is %s, not verified%s%s", device.name, path,
                                  f->value, f->unit, f->source.empty() ? "unsourced" : f->source,
                                  f->note.empty() ? "" : ": ", f->note));
  }
}

}  // namespace

std::string_view bound_by_name(BoundBy bound) {
  switch (bound) {
    case BoundBy::kCompute:
      return "compute";
    case BoundBy::kMemory:
      return "memory";
    case BoundBy::kCollective:
      return "collective";
    case BoundBy::kOverhead:
      return "overhead";
  }
  return "?";
}

std::string_view op_bound_name(const OpPrediction& op) {
  if (op.bound == BoundBy::kCollective || op.collective) return "collective";
  return bound_by_name(op.bound);
}

std::string_view resource_name(const OpPrediction& op) {
  if (op.bound == BoundBy::kCollective || op.collective) return "network";
  return bound_name(op.resource);
}

CostOptions cost_options(const PredictOptions& options) {
  return {.use_padded_sizes = options.use_padded_sizes,
          .default_trip_count = options.default_trip_count,
          .fused_records = false};
}

namespace {

// predict_step_time with the module's cost given, or analysed here (`given` null), after the
// checks of the module and the options (whose errors come first either way).
absl::StatusOr<Prediction> predict_with_cost(const Module& module, const DeviceSpec& named,
                                             const Topology* slice,
                                             const PredictOptions& options,
                                             const ModuleCost* given) {
  if (!module.entry_marked()) {
    // A fused computation left at the end of a cut dump is not a step: no step time unless
    // one is named.
    return absl::FailedPreconditionError(absl::StrCat(
        sv(kNoEntryMarked), ": the module is not a\n"
        "whole step, so it has no step time; its last computation is ",
        sv(module.entry()->name()),
        ".\nGive the whole module, or name the computation to take as the step: --entry NAME\n"
        "(Module.set_entry(NAME) in Python and C++)"));
  }
  if (options.max_expanded_iterations < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_expanded_iterations wants a non-negative integer, got ",
                     options.max_expanded_iterations));
  }
  if (!std::isfinite(options.model_flops) || options.model_flops < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "model_flops wants a finite non-negative number of FLOPs, got ", options.model_flops));
  }
  if (options.collective_formula != CollectiveFormula::kNetwork &&
      named.kind != DeviceKind::kGpu) {
    return absl::InvalidArgumentError(
        absl::StrCat("the ", sv(collective_formula_name(options.collective_formula)),
                     " collective formula is XLA's GPU model; ", named.name, " is not a GPU"));
  }
  std::optional<absl::StatusOr<ModuleCost>> analyzed;
  if (given == nullptr) {
    analyzed = analyze_cost(module, cost_options(options));
    if (!analyzed->ok()) return analyzed->status();
  }
  const ModuleCost* cost = given != nullptr ? given : &**analyzed;
  // A module of one GEMM alone on tpu7x runs at the plateau measured on GEMMs alone, not at the
  // chip's in-program one (tpu_spec_for_gemm_alone).
  const std::optional<DeviceSpec> alone = predict::tpu_spec_for_gemm_alone(module, named);
  const DeviceSpec& device = alone ? *alone : named;

  Prediction p;
  p.device = device.name;
  absl::StatusOr<Topology> topology =
      choose_topology(module, *cost, device, options, slice, p.diagnostics);
  if (!topology.ok()) return topology.status();
  p.topology = topology->shape;

  // The schedule walked once at the expected times, each op keeping its roofline too; then
  // scheduled again with the roofline times (the async overlaps differ), nothing costed anew.
  const predict::PredictionInputs inputs{
      .module = module, .device = device, .slice = *topology, .options = options, .cost = *cost};
  predict::CombinedModel model(inputs);
  absl::StatusOr<predict::TimingMap> timings = predict::time_computations(model);
  if (!timings.ok()) return timings.status();
  std::optional<predict::RooflineMap> roofline;
  if (!options.roofline_only) {
    absl::StatusOr<predict::RooflineMap> t = predict::roofline_schedule(module, *timings);
    if (!t.ok()) return t.status();
    roofline = *std::move(t);
  }
  p.step_time_s = timings->at(module.entry()).total_s;
  p.roofline_step_time_s =
      roofline ? std::min(p.step_time_s, roofline->at(module.entry()).total_s) : p.step_time_s;

  if (options.before_records) options.before_records();
  std::map<std::string, double> matrix_by_class;
  for (const Instruction* i : cost->unknown) p.unknown_ops.emplace_back(i->name());
  p.is_lower_bound = cost->is_lower_bound;
  // The cost this call made is let go as soon as its figures are taken, before the op records
  // are made (neither the records nor the timeline read it): the cost's records and the op
  // records are not held together (gemma3 4b: 3.3 MB and 2.7 MB; a million ops, 184 and 168 MB).
  const auto cost_read = [&] {
    if (!analyzed) return;
    cost = nullptr;
    analyzed.reset();
  };
  if (options.timeline && analyzed) {
    // The records first (the cost let go before them), then the timeline laid out: neither the
    // cost's records nor the timeline are held beside the op records.
    gather_ops(module, *timings, roofline ? &*roofline : nullptr, options.max_ops,
               model.shared_texts(), p, matrix_by_class, /*free_timings=*/false, cost_read);
    roofline.reset();  // its times are in the records now
    p.timeline = predict::build_timeline(*timings, model);
  } else {
    // The timeline first (counted only, where it is not kept): gather_ops lets each
    // computation's timings go once its ops are made.
    p.timeline = predict::build_timeline(*timings, model);
    gather_ops(module, *timings, roofline ? &*roofline : nullptr, options.max_ops,
               model.shared_texts(), p, matrix_by_class, /*free_timings=*/true, cost_read);
    roofline.reset();
  }
  timings->clear();
  if (model.texts().full()) {
    return absl::ResourceExhaustedError(
        "the prediction's texts (op names, explanations) pass 4 GiB, more than its records "
        "hold; predict with the explain option off");
  }
  set_peak(device, matrix_by_class, p);
  p.devices = std::max<int64_t>(
      1, module.attributes().replica_count * module.attributes().num_partitions);
  // libtpu compiles one slice's program for several slices: every slice runs it, so the step's
  // devices (what model FLOPs are shared by) are the program's times the target's slices.
  for (const TopologyAxis& axis : topology->axes) {
    if (axis.link == LinkKind::kDcn && p.devices * axis.size == topology->num_devices()) {
      p.devices *= axis.size;
    }
  }
  p.model_flops = options.model_flops;
  if (p.step_time_s > 0 && p.peak_flop_rate > 0) {
    p.hfu = p.flops / (p.step_time_s * p.peak_flop_rate);
    p.mfu = p.model_flops / (static_cast<double>(p.devices) * p.step_time_s * p.peak_flop_rate);
    if (p.mfu > 1) {
      // More than the devices' peak could run in the predicted step: the figure given is not
      // this step's (another batch, a model counted twice).
      p.diagnostics.warnings.push_back(absl::StrFormat(
          "model FLOPs %.4g exceed the %.4g FLOPs %d device%s at peak run in the predicted "
          "step: MFU %.3g%% is not possible; check the model FLOPs given",
          p.model_flops, static_cast<double>(p.devices) * p.step_time_s * p.peak_flop_rate,
          p.devices, p.devices == 1 ? "" : "s", p.mfu * 100));
    }
  }

  if (!options.roofline_only) {
    for (std::string& line : predict::tpu_model_assumptions(device)) {
      p.diagnostics.notes.push_back(std::move(line));
    }
  }
  predict::RecordedNotes recorded = model.take_notes();
  for (std::string& line : recorded.assumptions) {
    (line == predict::kUncalibratedNetworkWarning ? p.diagnostics.warnings : p.diagnostics.notes)
        .push_back(std::move(line));
  }
  add_unverified_figures(device, recorded, p.diagnostics.notes);
  p.diagnostics.notes = group_op_notes(p.diagnostics.notes, &module);
  return p;
}

}  // namespace

absl::StatusOr<Prediction> predict_step_time(const Module& module, const DeviceTarget& target,
                                             const PredictOptions& options) {
  return predict_with_cost(module, target.spec, target.slice ? &*target.slice : nullptr, options,
                           nullptr);
}

absl::StatusOr<Prediction> predict_step_time(const Module& module, const DeviceTarget& target,
                                             const PredictOptions& options,
                                             const ModuleCost& cost) {
  return predict_with_cost(module, target.spec, target.slice ? &*target.slice : nullptr, options,
                           &cost);
}

absl::StatusOr<Prediction> predict_step_time(const Module& module, std::string_view device,
                                             const PredictOptions& options) {
  absl::StatusOr<DeviceTarget> target =
      resolve_device(device, &module, {.device_option = "device"});
  if (!target.ok()) return target.status();
  absl::StatusOr<Prediction> prediction = predict_step_time(module, *target, options);
  if (prediction.ok()) add_diagnostics(target->diagnostics, *prediction);
  return prediction;
}

absl::StatusOr<Prediction> predict_step_time(std::string_view hlo_text, std::string_view device,
                                             const PredictOptions& options) {
  absl::StatusOr<Module> parsed = parse_module(hlo_text);
  if (!parsed.ok()) return parsed.status();
  auto module = std::make_shared<const Module>(*std::move(parsed));
  absl::StatusOr<Prediction> prediction = predict_step_time(*module, device, options);
  if (prediction.ok()) prediction->module = std::move(module);
  return prediction;
}

namespace predict {

absl::Status walk_step(const Module& module, const DeviceTarget& target,
                       const PredictOptions& options, absl::FunctionRef<WalkedStep> use) {
  absl::StatusOr<Prediction> checked = [&]() -> absl::StatusOr<Prediction> {
    // The checks of predict_with_cost, without its walk: a module with no entry, options out
    // of range.
    if (!module.entry_marked() || options.max_expanded_iterations < 0 ||
        !std::isfinite(options.model_flops) || options.model_flops < 0 ||
        (options.collective_formula != CollectiveFormula::kNetwork &&
         target.spec.kind != DeviceKind::kGpu)) {
      return predict_with_cost(module, target.spec, target.slice ? &*target.slice : nullptr,
                               options, nullptr);
    }
    return Prediction{};
  }();
  if (!checked.ok()) return checked.status();
  absl::StatusOr<ModuleCost> cost = analyze_cost(module, cost_options(options));
  if (!cost.ok()) return cost.status();
  const std::optional<DeviceSpec> alone = tpu_spec_for_gemm_alone(module, target.spec);
  const DeviceSpec& device = alone ? *alone : target.spec;
  Diagnostics said;
  absl::StatusOr<Topology> topology = choose_topology(
      module, *cost, device, options, target.slice ? &*target.slice : nullptr, said);
  if (!topology.ok()) return topology.status();
  const PredictionInputs inputs{
      .module = module, .device = device, .slice = *topology, .options = options, .cost = *cost};
  CombinedModel model(inputs);
  absl::StatusOr<TimingMap> timings = time_computations(model);
  if (!timings.ok()) return timings.status();
  use(device, *topology, *timings);
  return absl::OkStatus();
}

}  // namespace predict

void add_diagnostics(const Diagnostics& said, Prediction& prediction) {
  Diagnostics& own = prediction.diagnostics;
  own.notes.insert(own.notes.begin(), said.notes.begin(), said.notes.end());
  own.warnings.insert(own.warnings.end(), said.warnings.begin(), said.warnings.end());
}

}  // namespace hloroof
