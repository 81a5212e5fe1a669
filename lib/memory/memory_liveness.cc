#include "memory/memory_liveness.h"

#include <algorithm>
#include <limits>

#include "absl/container/flat_hash_set.h"
#include "absl/numeric/int128.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "hloroof/computation.h"
#include "hloroof/shape_size.h"
#include "memory/buffer_aliasing.h"
#include "memory/shape_leaves.h"
#include "hloroof/absl_compat.h"

namespace hloroof::detail {
namespace {

// Loops and calls nest a few levels in real programs; this bounds recursion on malformed input.
constexpr int kMaxNesting = 200;

int64_t clamp_to_int64(absl::int128 v) {
  if (v > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
  if (v < 0) return 0;
  return static_cast<int64_t>(v);
}

Channel tier_channel(MemoryTier tier) {
  switch (tier) {
    case MemoryTier::kDevice:
      return kDeviceTemporaries;
    case MemoryTier::kOnChip:
      return kOnChip;
    case MemoryTier::kHost:
      return kHost;
  }
  return kDeviceTemporaries;
}

// The bodies an instruction runs whose temporaries need memory of their own. Fusions, and the
// scalar computations of reduce, sort, scatter and the like, run without buffers of their own.
bool runs_bodies_with_memory(const Instruction& i) {
  switch (i.opcode()) {
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kCall:
      return true;
    case Opcode::kAsyncStart:
      // `fusion-start(...), calls=%fused` wraps a fusion; `call-start` or an explicit
      // `async-start(...), calls=%c` runs a computation.
      return !i.uses_async_sugar() || i.async_wrapped_opcode() == Opcode::kCall;
    default:
      return false;
  }
}

// The last position of the async-done that ends `start` (through async-updates), or `start`'s.
int64_t async_window_end(const Instruction& start, const ScheduledLeaves& leaves) {
  int64_t end = leaves.position_of(&start);
  std::vector<const Instruction*> stack = {&start};
  absl::flat_hash_set<const Instruction*> seen;
  while (!stack.empty()) {
    const Instruction* i = stack.back();
    stack.pop_back();
    for (const Instruction* user : i->users()) {
      if (!seen.insert(user).second) continue;
      const int64_t position = leaves.position_of(user);
      if (position < 0) continue;
      if (user->opcode() == Opcode::kAsyncUpdate) stack.push_back(user);
      if (user->opcode() == Opcode::kAsyncUpdate || user->opcode() == Opcode::kAsyncDone) {
        end = std::max(end, position);
      }
    }
  }
  return end;
}

// Room for `more` elements at the end of `v`: the exact size the first time (a wide tuple's
// arrays in one allocation each, never copied into doubled ones, which would hold both at
// once), else at least double, so that many small additions stay linear.
template <typename V>
void make_room(V& v, size_t more) {
  if (v.size() + more > v.capacity()) v.reserve(std::max(v.size() + more, 2 * v.capacity()));
}

}  // namespace

Channel Buffer::channel() const {
  if (tier() != MemoryTier::kDevice) return tier_channel(tier());
  switch (kind) {
    case BufferKind::kParameter:
      return kDeviceParameters;
    case BufferKind::kOutput:
      return kDeviceOutputs;
    case BufferKind::kConstant:
      return kDeviceConstants;
    case BufferKind::kTemporary:
      return kDeviceTemporaries;
  }
  return kDeviceTemporaries;
}

const ComputationLiveness* ComputationLiveness::largest_body(const Window& window) {
  const ComputationLiveness* best = nullptr;
  for (const ComputationLiveness* body : window.bodies) {
    if (best == nullptr || body->peak[0] > best->peak[0]) best = body;
  }
  return best;
}

class ModuleLiveness::Builder {
 public:
  Builder(const Module& module, bool first_tile_padding, ModuleLiveness& out)
      : module_(module), first_tile_padding_(first_tile_padding), out_(out) {}

  absl::Status run() {
    const Computation* entry = module_.entry();
    if (entry == nullptr) return absl::InvalidArgumentError("the module has no entry computation");
    entry_size_ = static_cast<int64_t>(entry->instruction_count());
    absl::StatusOr<const ComputationLiveness*> e = analyze(*entry, /*depth=*/0);
    if (!e.ok()) return e.status();
    out_.entry_ = *e;
    if (unsized_ > 0) {
      out_.notes_.push_back(
          absl::StrCat(unsized_,
                       " array shapes have no static size (unbounded dimensions); their buffers "
                       "count 0 B"));
    }
    return absl::OkStatus();
  }

 private:
  absl::StatusOr<const ComputationLiveness*> analyze(const Computation& c, int depth);
  void define_leaves(bool is_entry, int64_t p, const Instruction& i, ScheduledLeaves& leaves);
  void mark_entry_outputs(const Computation& c, const ScheduledLeaves& leaves);
  void apply_donation(const Computation& c, const ScheduledLeaves& leaves);
  void sweep(ComputationLiveness& liveness, int64_t n, bool is_entry);
  const LeafClass* class_of(const Shape& leaf);

  const Module& module_;
  bool first_tile_padding_;
  ModuleLiveness& out_;
  int64_t entry_size_ = 0;
  // Leaves without a static size, over the distinct shapes of the instructions analysed.
  int64_t unsized_ = 0;
  absl::flat_hash_set<const Shape*> counted_shapes_;
  absl::flat_hash_map<const Computation*, const ComputationLiveness*> analyzed_;
  absl::flat_hash_set<const Computation*> in_progress_;
  // The computations a loop runs as its condition: their result is a buffer of their own.
  absl::flat_hash_set<const Computation*> conditions_;
  // By leaf shape: shapes are interned, so a wide tuple's alike leaves share one.
  absl::flat_hash_map<const Shape*, const LeafClass*> classes_;
  std::vector<LeafSource> sources_;  // define_leaves': the instruction's, room kept
};

const LeafClass* ModuleLiveness::Builder::class_of(const Shape& leaf) {
  auto [it, inserted] = classes_.try_emplace(&leaf, nullptr);
  if (!inserted) return it->second;
  LeafClass c;
  c.shape = &leaf;
  if (absl::StatusOr<ArraySize> s = array_size(leaf); s.ok()) {
    c.logical_bytes = s->logical_bytes;
    c.padded_bytes = first_tile_padding_ ? s->first_tile_padded_bytes : s->padded_bytes;
    c.memory_space = s->memory_space;
  } else {
    c.memory_space = leaf.layout ? leaf.layout->memory_space : 0;
    c.sized = false;
  }
  out_.classes_.push_back(c);
  it->second = &out_.classes_.back();
  return it->second;
}

void ModuleLiveness::Builder::define_leaves(bool is_entry, int64_t p, const Instruction& i,
                                            ScheduledLeaves& leaves) {
  // Parameters and constants define every leaf (nothing forwards into them): no per-leaf
  // sources to work out, which a parameter of a million leaves would hold at once.
  const bool all_new = i.opcode() == Opcode::kParameter || i.opcode() == Opcode::kConstant;
  std::vector<LeafSource>& sources = sources_;
  if (all_new) {
    sources.clear();
  } else {
    leaf_sources(i, sources);
  }
  const auto count = static_cast<size_t>(leaf_count(i.shape()));
  make_room(leaves.ids, count);
  const bool defines = !(i.opcode() == Opcode::kParameter && !is_entry);
  if (defines) make_room(out_.buffers_, all_new ? count : 0);
  const bool new_shape = counted_shapes_.insert(&i.shape()).second;
  size_t k = 0;
  for_each_array_leaf(i.shape(), [&](const Shape& leaf_shape) {
    const size_t leaf = k++;
    if (new_shape && !class_of(leaf_shape)->sized) ++unsized_;
    if (!all_new && leaf < sources.size() && sources[leaf].operand != LeafSource::kNewBuffer) {
      const LeafSource& source = sources[leaf];
      absl::Span<const int32_t> operand_leaves = leaves.of(i.operand(source.operand));
      leaves.ids.push_back(source.leaf < static_cast<int64_t>(operand_leaves.size())
                               ? operand_leaves[source.leaf]
                               : kExternal);
      return;
    }
    if (!defines) {
      leaves.ids.push_back(kExternal);  // the caller's buffer
      return;
    }
    Buffer b;
    b.instruction = &i;
    b.leaf = static_cast<int32_t>(leaf);
    b.leaf_class = class_of(leaf_shape);
    b.from = b.to = static_cast<int32_t>(p);
    const int32_t id = static_cast<int32_t>(out_.buffers_.size());
    if (all_new) {
      b.kind = i.opcode() == Opcode::kParameter ? BufferKind::kParameter : BufferKind::kConstant;
      b.whole_step = true;
      b.from = 0;
      b.to = static_cast<int32_t>(std::max<int64_t>(0, entry_size_ - 1));
      auto& ranges = out_.whole_step_;
      if (!ranges.empty() && ranges.back().first + ranges.back().second == id) {
        ++ranges.back().second;
      } else {
        ranges.push_back({id, 1});
      }
    }
    out_.buffers_.push_back(b);
    leaves.ids.push_back(id);
  });
}

absl::StatusOr<const ComputationLiveness*> ModuleLiveness::Builder::analyze(const Computation& c,
                                                                            int depth) {
  if (auto it = analyzed_.find(&c); it != analyzed_.end()) return it->second;
  if (depth > kMaxNesting) {
    return absl::InvalidArgumentError(absl::StrCat("computations nest more than ", kMaxNesting,
                                                   " levels deep at %", sv(c.name())));
  }
  if (!in_progress_.insert(&c).second) {
    return absl::InvalidArgumentError(
        absl::StrCat("computation %", sv(c.name()), " runs itself (a call cycle)"));
  }
  const bool is_entry = depth == 0;
  auto liveness = std::make_unique<ComputationLiveness>();
  liveness->computation = &c;
  const absl::Span<Instruction* const> schedule = c.instructions();
  const int64_t n = static_cast<int64_t>(schedule.size());
  if (n > kMaxPositions) {
    return absl::InvalidArgumentError(absl::StrCat("computation %", sv(c.name()), " has ", n,
                                                   " instructions; the memory analysis takes at "
                                                   "most ", kMaxPositions));
  }

  ScheduledLeaves leaves;
  leaves.computation = &c;
  leaves.offset.reserve(n + 1);
  leaves.offset.push_back(0);
  const size_t first_buffer = out_.buffers_.size();
  // Room made at once for every leaf of the computation's results, and for the buffers of its
  // parameters' and constants' leaves and one per other instruction (most define one array):
  // a wide tuple parameter is never copied into a doubled array, which would hold both at
  // once. (Each result's shape is written in the input, so the leaves are bounded by it.)
  size_t result_leaves = 0, new_buffers = 0;
  for (const Instruction* i : schedule) {
    const auto count = static_cast<size_t>(leaf_count(i->shape()));
    if (count > static_cast<size_t>(kMaxLeaves)) {
      return absl::InvalidArgumentError(absl::StrCat("%", sv(i->name()), "'s result has ", count,
                                                     " array leaves; the memory analysis takes "
                                                     "at most ", kMaxLeaves));
    }
    result_leaves += count;
    const bool all_new = i->opcode() == Opcode::kConstant ||
                         (i->opcode() == Opcode::kParameter && is_entry);
    new_buffers += all_new ? count : 1;
  }
  make_room(leaves.ids, result_leaves);
  make_room(out_.buffers_, new_buffers);

  for (int64_t p = 0; p < n; ++p) {
    const Instruction& i = *schedule[p];
    define_leaves(is_entry, p, i, leaves);
    leaves.offset.push_back(static_cast<int64_t>(leaves.ids.size()));
    // A real use keeps every operand buffer alive up to here.
    if (!only_forwards_buffers(i.opcode())) {
      for (const Instruction* operand : i.operands()) {
        for (int32_t id : leaves.of(operand)) {
          if (id < 0) continue;
          Buffer& b = out_.buffers_[id];
          b.to = std::max(b.to, static_cast<int32_t>(p));
          b.last_use = std::max(b.last_use, static_cast<int32_t>(p));
        }
      }
    }
    if (runs_bodies_with_memory(i) && !i.called_computations().empty()) {
      ComputationLiveness::Window window;
      window.from = p;
      window.to = i.opcode() == Opcode::kAsyncStart ? async_window_end(i, leaves) : p;
      if (i.opcode() == Opcode::kWhile) {
        if (const Computation* condition = i.computation_attribute(AttrId::kCondition)) {
          conditions_.insert(condition);
        }
      }
      for (const Computation* body : i.called_computations()) {
        absl::StatusOr<const ComputationLiveness*> b = analyze(*body, depth + 1);
        if (!b.ok()) return b.status();
        window.bodies.push_back(*b);
      }
      liveness->windows.push_back(std::move(window));
    }
  }

  if (is_entry) {
    mark_entry_outputs(c, leaves);
    apply_donation(c, leaves);
  } else if (c.root() != nullptr && !conditions_.contains(&c)) {
    // A body's result is its caller's buffer (a loop's state, a call's result); a loop
    // condition's predicate is a buffer of its own, as XLA assigns it (the TPU compiler places
    // it in the temp allocation like any scalar).
    for (int32_t id : leaves.of(c.root())) {
      if (id >= 0 && !out_.buffers_[id].whole_step) out_.buffers_[id].counted = false;
    }
  }
  for (size_t id = first_buffer; id < out_.buffers_.size(); ++id) {
    const Buffer& b = out_.buffers_[id];
    if (b.computation() == &c && !b.whole_step) {
      liveness->buffers.push_back(static_cast<int32_t>(id));
    }
  }
  sweep(*liveness, n, is_entry);
  liveness->leaves = std::move(leaves);

  in_progress_.erase(&c);
  const ComputationLiveness* result = liveness.get();
  out_.computations_.push_back(std::move(liveness));
  analyzed_[&c] = result;
  out_.by_computation_[&c] = result;
  return result;
}

void ModuleLiveness::Builder::mark_entry_outputs(const Computation& c,
                                                 const ScheduledLeaves& leaves) {
  if (c.root() == nullptr) return;
  const auto last = static_cast<int32_t>(c.instruction_count()) - 1;
  for (int32_t id : leaves.of(c.root())) {
    if (id < 0) continue;
    Buffer& b = out_.buffers_[id];
    b.is_output = true;
    b.to = std::max(b.to, last);
    if (b.kind == BufferKind::kTemporary) b.kind = BufferKind::kOutput;
  }
}

// input_output_alias pairs parameter leaves with output leaves; buffer_donor leaves are
// paired with outputs of the same memory space and size, largest first, as XLA's
// OptimizeInputOutputBufferAlias does when it compiles. A paired output's memory is the
// parameter's.
void ModuleLiveness::Builder::apply_donation(const Computation& c, const ScheduledLeaves& leaves) {
  const ModuleAttributes& attributes = module_.attributes();
  if (c.root() == nullptr) return;
  if (attributes.input_output_alias.empty() && attributes.buffer_donor.empty()) return;
  const Shape& result = c.root()->shape();
  absl::Span<const int32_t> outputs = leaves.of(c.root());
  std::vector<bool> output_taken(outputs.size(), false);
  absl::flat_hash_set<int32_t> aliased_parameter_buffers;
  int64_t bad_entries = 0;

  auto parameter_leaves = [&](int64_t number, const ShapeIndex& index)
      -> std::optional<std::pair<absl::Span<const int32_t>, LeafRange>> {
    if (number < 0 || number >= static_cast<int64_t>(c.parameters().size()) ||
        c.parameters()[number] == nullptr) {
      return std::nullopt;
    }
    const Instruction* parameter = c.parameters()[number];
    std::optional<LeafRange> range = leaf_range(parameter->shape(), index);
    if (!range) return std::nullopt;
    return std::make_pair(leaves.of(parameter), *range);
  };
  auto merge = [&](int32_t parameter_id, size_t output_leaf) {
    output_taken[output_leaf] = true;
    aliased_parameter_buffers.insert(parameter_id);
    const int32_t output_id = outputs[output_leaf];
    Buffer& p = out_.buffers_[parameter_id];
    p.donated = true;
    p.is_output = true;
    if (output_id < 0 || output_id == parameter_id) return;
    Buffer& o = out_.buffers_[output_id];
    if (o.whole_step) return;  // another parameter or a constant: XLA copies it
    o.counted = false;
    out_.aliased_outputs_[parameter_id] = output_id;
    if (o.padded_bytes() > p.padded_bytes() || o.logical_bytes() > p.logical_bytes()) {
      LeafClass merged = *p.leaf_class;
      merged.padded_bytes = std::max(p.padded_bytes(), o.padded_bytes());
      merged.logical_bytes = std::max(p.logical_bytes(), o.logical_bytes());
      out_.classes_.push_back(merged);
      p.leaf_class = &out_.classes_.back();
    }
  };

  for (const InputOutputAlias& alias : attributes.input_output_alias) {
    std::optional<LeafRange> out = leaf_range(result, alias.output_index);
    auto in = parameter_leaves(alias.parameter_number, alias.parameter_index);
    if (!out || !in || out->count != in->second.count ||
        in->second.first + in->second.count > static_cast<int64_t>(in->first.size()) ||
        out->first + out->count > static_cast<int64_t>(outputs.size())) {
      ++bad_entries;
      continue;
    }
    for (int64_t k = 0; k < out->count; ++k) {
      merge(in->first[in->second.first + k], static_cast<size_t>(out->first + k));
    }
  }

  // Donors and free outputs by memory space, largest first; equal sizes pair up.
  struct Candidate {
    int64_t bytes;
    int64_t index;  // buffer id (donors) or output leaf (outputs)
  };
  absl::flat_hash_map<int64_t, std::vector<Candidate>> donors, donees;
  int64_t donor_leaves = 0;
  for (const BufferDonor& donor : attributes.buffer_donor) {
    auto in = parameter_leaves(donor.parameter_number, donor.parameter_index);
    if (!in || in->second.first + in->second.count > static_cast<int64_t>(in->first.size())) {
      ++bad_entries;
      continue;
    }
    for (int64_t k = 0; k < in->second.count; ++k) {
      const int32_t id = in->first[in->second.first + k];
      if (id < 0 || aliased_parameter_buffers.contains(id)) continue;
      const Buffer& b = out_.buffers_[id];
      donors[b.memory_space()].push_back({b.padded_bytes(), id});
      ++donor_leaves;
    }
  }
  for (size_t k = 0; k < outputs.size() && !donors.empty(); ++k) {
    if (output_taken[k] || outputs[k] < 0) continue;
    const Buffer& b = out_.buffers_[outputs[k]];
    donees[b.memory_space()].push_back({b.padded_bytes(), static_cast<int64_t>(k)});
  }
  int64_t matched = 0;
  for (auto& [space, donor_list] : donors) {
    auto it = donees.find(space);
    if (it == donees.end()) continue;
    std::vector<Candidate>& donee_list = it->second;
    auto larger = [](const Candidate& a, const Candidate& b) { return a.bytes > b.bytes; };
    std::stable_sort(donor_list.begin(), donor_list.end(), larger);
    std::stable_sort(donee_list.begin(), donee_list.end(), larger);
    size_t d = 0, e = 0;
    while (d < donor_list.size() && e < donee_list.size()) {
      if (donor_list[d].bytes > donee_list[e].bytes) {
        ++d;
      } else if (donor_list[d].bytes < donee_list[e].bytes) {
        ++e;
      } else {
        merge(static_cast<int32_t>(donor_list[d].index), static_cast<size_t>(donee_list[e].index));
        ++matched;
        ++d;
        ++e;
      }
    }
  }
  if (bad_entries > 0) {
    out_.notes_.push_back(
        absl::StrCat(bad_entries,
                     " input_output_alias or buffer_donor entries name no parameter or output "
                     "leaf of matching shape; ignored"));
  }
  if (donor_leaves > matched) {
    out_.notes_.push_back(absl::StrCat(
        donor_leaves - matched,
        " buffer_donor leaves match no output of the same size and memory space; they stay "
        "allocated for the whole step"));
  }
}

void ModuleLiveness::Builder::sweep(ComputationLiveness& liveness, int64_t n, bool is_entry) {
  // Per channel, made at its first buffer (most computations use a few of them).
  std::array<std::vector<absl::int128>, kChannelCount> diff;
  auto add = [&](Channel channel, int64_t from, int64_t to, int64_t bytes) {
    if (n == 0 || bytes == 0) return;
    from = std::clamp<int64_t>(from, 0, n - 1);
    to = std::clamp<int64_t>(to, from, n - 1);
    if (diff[channel].empty()) diff[channel].assign(n + 1, 0);
    diff[channel][from] += bytes;
    diff[channel][to + 1] -= bytes;
  };
  for (int32_t id : liveness.buffers) {
    const Buffer& b = out_.buffers_[id];
    if (b.counted) add(b.channel(), b.from, b.to, b.padded_bytes());
  }
  if (is_entry) {
    out_.for_each_whole_step([&](int32_t id) {
      const Buffer& b = out_.buffers_[id];
      if (b.counted) add(b.channel(), 0, n - 1, b.padded_bytes());
    });
  }
  for (const ComputationLiveness::Window& window : liveness.windows) {
    for (MemoryTier tier : {MemoryTier::kDevice, MemoryTier::kOnChip, MemoryTier::kHost}) {
      int64_t most = 0;
      for (const ComputationLiveness* body : window.bodies) {
        most = std::max(most, body->peak[static_cast<int>(tier)]);
      }
      add(tier_channel(tier), window.from, window.to, most);
    }
  }
  // Each channel's live bytes (its running sum, clamped) taken position by position, never
  // held whole: only the device channels together are kept, and each channel where it peaks.
  std::array<absl::int128, kChannelCount> running = {};
  std::array<int64_t, kChannelCount> live = {};
  liveness.device.resize(n);
  for (int64_t p = 0; p < n; ++p) {
    for (int c = 0; c < kChannelCount; ++c) {
      if (diff[c].empty()) continue;  // no bytes: all 0
      running[c] += diff[c][p];
      live[c] = clamp_to_int64(running[c]);
    }
    absl::int128 sum = 0;
    for (Channel c : {kDeviceParameters, kDeviceOutputs, kDeviceTemporaries, kDeviceConstants}) {
      sum += live[c];
    }
    const int64_t device = liveness.device[p] = clamp_to_int64(sum);
    if (device > liveness.peak[0]) {
      liveness.peak[0] = device;
      liveness.peak_position = p;
      liveness.peak_breakdown = {live[kDeviceParameters], live[kDeviceOutputs],
                                 live[kDeviceTemporaries], live[kDeviceConstants]};
    }
    liveness.peak[1] = std::max(liveness.peak[1], live[kOnChip]);
    liveness.peak[2] = std::max(liveness.peak[2], live[kHost]);
    liveness.temporary_peak = std::max(liveness.temporary_peak, live[kDeviceTemporaries]);
  }
}

absl::StatusOr<ModuleLiveness> ModuleLiveness::analyze(const Module& module,
                                                       bool first_tile_padding) {
  ModuleLiveness liveness;
  Builder builder(module, first_tile_padding, liveness);
  if (absl::Status s = builder.run(); !s.ok()) return s;
  return liveness;
}

const ComputationLiveness* ModuleLiveness::of(const Computation* c) const {
  auto it = by_computation_.find(c);
  return it == by_computation_.end() ? nullptr : it->second;
}

absl::Span<const int32_t> ModuleLiveness::leaves_of(const Instruction& i) const {
  const ComputationLiveness* c = of(i.parent());
  return c == nullptr ? absl::Span<const int32_t>() : c->leaves.of(&i);
}

void ModuleLiveness::for_each_live_at(const ComputationLiveness& liveness, int64_t position,
                                      absl::FunctionRef<void(int32_t)> fn) const {
  absl::flat_hash_set<const ComputationLiveness*> visited;
  visit_live(liveness, position, visited, fn);
}

void ModuleLiveness::visit_live(const ComputationLiveness& liveness, int64_t position,
                                absl::flat_hash_set<const ComputationLiveness*>& visited,
                                absl::FunctionRef<void(int32_t)> fn) const {
  for (int32_t id : liveness.buffers) {
    const Buffer& b = buffers_[id];
    if (b.counted && b.tier() == MemoryTier::kDevice && b.from <= position && position <= b.to) {
      fn(id);
    }
  }
  if (&liveness == entry_) {
    for_each_whole_step([&](int32_t id) {
      const Buffer& b = buffers_[id];
      if (b.counted && b.tier() == MemoryTier::kDevice) fn(id);
    });
  }
  for (const ComputationLiveness::Window& window : liveness.windows) {
    if (position < window.from || position > window.to) continue;
    const ComputationLiveness* body = ComputationLiveness::largest_body(window);
    if (body != nullptr && visited.insert(body).second) {
      visit_live(*body, body->peak_position, visited, fn);
    }
  }
}

}  // namespace hloroof::detail
