// Pieces the cost layer's files share: the operation an instruction performs (seen through
// async sugar), shape sizes under the options, the byte tally every rule writes to, and the
// context that holds the costs of computations already analysed.
#ifndef HLOROOF_LIB_COST_COST_INTERNAL_H_
#define HLOROOF_LIB_COST_COST_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/types/span.h"
#include "hloroof/computation.h"
#include "hloroof/cost.h"
#include "hloroof/instruction.h"
#include "hloroof/module.h"

namespace hloroof::cost {

// The operation an instruction performs. A sugared `all-to-all-start(...)` performs an
// all-to-all whose attributes and operands are the start's and whose result is element 1 of
// the start's shape; every other instruction performs itself.
struct OpView {
  Opcode opcode = Opcode::kParameter;
  const Instruction* instruction = nullptr;  // carries the attributes and the operands
  const Shape* result = nullptr;

  size_t operand_count() const { return instruction->operand_count(); }
  // Operand i's shape; nullptr when there is no operand i (malformed input).
  const Shape* operand_shape(size_t i) const;
};
OpView view_of(const Instruction& instruction);

// The attention kernels' calls as the cost rules read them (custom_calls.cc), one reading for
// the rules and for the models that time the calls.
// A fused flash-attention call on a GPU: cuDNN's (`__cudnn$fmha...`: the score tensor
// [B, H, S_q, S_kv] of its backend config, the head dimensions from its operand and result) or
// TransformerEngine's (`te_fused_attn_forward_ffi`, `te_fused_attn_backward_ffi`: every size in
// the typed-FFI attributes of its backend config, as TE's JAX layer writes them; on NVIDIA GPUs
// TE runs cuDNN's fused attention kernels).
struct AttentionCall {
  std::string_view library;   // "cuDNN" or "TransformerEngine"
  double rows = 0;            // B H S_q: a row of scores per query and head (> 0)
  double keys = 0;            // S_kv (> 0)
  double visible_keys = 0;    // keys a query attends to, on average over the rows: the mask's
                              // and the window's share of S_kv (> 0)
  double head_dim = 0;        // of q and k (> 0)
  double head_dim_v = 0;      // of v and the output (> 0)
  bool backward = false;
  bool causal = false;
};
// None when `op` is no such call or its config does not give every size.
std::optional<AttentionCall> attention_call(const OpView& op);
// megablox's grouped matmuls (gmm, tgmm: Pallas TPU kernels, an MoE's experts): the share of
// the kernel's stated work it runs (the tiles it visits over its rows' tiles, custom_calls.cc)
// and its rows' type. None for any other kernel.
struct MegabloxTiles {
  double share = 1;
  PrimitiveType type = PrimitiveType::kF32;
};
std::optional<MegabloxTiles> megablox_tiles(const OpView& op);
// Splash attention's q and k (a Mosaic kernel named splash_mha... or splash_mqa...): the first
// two of its first three floating operands of rank 3 or more, each [..., heads, seq, head_dim]
// or, laid out sequence-minor (the kernel's SEQ_MINOR), [..., heads, head_dim, seq]. None when
// it has fewer than three.
struct SplashOperands {
  const Shape* q = nullptr;
  const Shape* k = nullptr;
  int64_t q_seq = 0, kv_seq = 0, head_dim = 0;  // q's and k's positions; q's and k's head size
  double q_rows() const;  // q's elements over its head size: positions x heads x batch
};
std::optional<SplashOperands> splash_operands(const OpView& op);

// Elements of an array (product of dims, bounds for bounded dims); 0 for non-arrays.
double elements(const Shape& shape);
// Elements of every array leaf.
double leaf_elements(const Shape& shape);
// The memory space an array lives in: its layout's S(n), 0 without one.
int64_t memory_space(const Shape& array);
// The type that sets a matrix unit's peak for operands of types a and b: the wider one
// (bf16 x s8 runs at the bf16 rate), `a` on a tie.
PrimitiveType matrix_operand_type(PrimitiveType a, PrimitiveType b);

// Sizes of one array under the options, cached by the shape's address: every shape measured
// lives in the module, so the addresses are stable for the whole analysis.
struct ArrayBytes {
  double logical = 0;  // dense
  double padded = 0;   // tiles applied (CostOptions::use_padded_sizes), else dense
  double xla = 0;      // XLA's first-tile padding (use_padded_sizes), else dense
  int64_t space = 0;   // memory space
};

class ShapeSizes {
 public:
  explicit ShapeSizes(bool use_padded_sizes) : padded_(use_padded_sizes) {}
  // Sizes of an array leaf (a buffer's array); zero, and counted in failures(), when the shape
  // has no size (unbounded dims).
  ArrayBytes array(const Shape& array);
  int64_t failures() const { return failures_; }

 private:
  bool padded_;
  int64_t failures_ = 0;
  absl::flat_hash_map<const Shape*, ArrayBytes> cache_;
};

// Which byte figures a charge goes to: both models, or one of them where they differ on purpose.
enum class Model : uint8_t { kBoth, kOurs, kXla };

// Bytes read and written by one instruction, as logical, padded (by memory space) and
// XLA-compatible figures. Rules charge shapes; the tally measures them.
class ByteTally {
 public:
  explicit ByteTally(ShapeSizes& sizes) : sizes_(sizes) {}

  // `shape` taken whole, as XLA measures an operand: an array's bytes, a tuple's pointer table
  // (8 bytes per element), a token nothing.
  void read(const Shape& shape, Model model = Model::kBoth, double scale = 1.0);
  void write(const Shape& shape, Model model = Model::kBoth, double scale = 1.0);
  // Every array leaf of `shape`.
  void read_leaves(const Shape& shape, Model model = Model::kBoth);
  void write_leaves(const Shape& shape, Model model = Model::kBoth);
  // `measured`'s bytes, located in memory space `space` (a slice is measured by its result but
  // read from its operand's memory).
  void read_in(const Shape& measured, int64_t space, Model model = Model::kBoth,
               double scale = 1.0);
  void write_in(const Shape& measured, int64_t space, Model model = Model::kBoth,
                double scale = 1.0);

  // Adds the tally's figures to `cost` (bytes and xla_bytes_accessed).
  void add_to(OpCost& cost) const;
  // Adds another tally's figures to this one.
  void add(const ByteTally& other);

 private:
  void charge(bool is_write, const Shape& measured, std::optional<int64_t> space, Model model,
              double scale);

  ShapeSizes& sizes_;
  double logical_read_ = 0;
  double logical_written_ = 0;
  SpaceBytes padded_read_;
  SpaceBytes padded_written_;
  double xla_ = 0;
};

// Adds `bytes` to the figure of `space`'s class (0 device, 5 and 6 host, anything else on-chip).
void add_to_space(SpaceBytes& to, int64_t space, double bytes);

// What the analysis knows while it walks the module: options, sizes, the per-execution cost of
// every computation analysed so far (callees come first) and the trip count of every loop.
struct Context {
  Context(const Module& m, const CostOptions& o)
      : module(m), options(o), sizes(o.use_padded_sizes) {}

  const Module& module;
  CostOptions options;
  ShapeSizes sizes;
  absl::flat_hash_map<const Computation*, OpCost> computation_costs;
  absl::flat_hash_map<const Instruction*, TripCount> trip_counts;
  std::vector<std::string> notes;
  // The reads charged for a fused parameter (or a get-tuple-element of one) in a memory space
  // under a model, including those of the nested fusions it feeds: each is walked once, so
  // that fusions nested in fusions cost time linear in the module (fusion.cc).
  absl::node_hash_map<std::tuple<const Instruction*, int64_t, Model>, ByteTally> fused_reads;
  // Device ids of collectives' groups listed so far, and what the collectives met so far add
  // to the module's bound on them (collectives.cc).
  int64_t listed_devices = 0;
  int64_t listed_devices_budget = 0;
  // The sliding windows splash attention's shrunk forward grids imply, by (q sequence, k
  // sequence, head dimension), read once from the whole module (custom_calls.cc).
  std::optional<absl::flat_hash_map<std::tuple<int64_t, int64_t, int64_t>, double>>
      splash_windows;

  // A computation's per-execution cost; zero for none (a missing callee) or one not yet
  // analysed (only possible in a call cycle, which the parser rejects).
  const OpCost& cost_of(const Computation* computation);
};

// ---- Rules. Each file owns one concern.

// FLOPs and transcendentals of an operation that calls nothing whole (flops.cc): elementwise,
// contractions, reductions (per application of their computation), random numbers,
// all-reduce. Adds to `cost`; ops without arithmetic add nothing.
void add_flops(const OpView& op, Context& context, OpCost& cost);
// Bytes of an operation by docs/cost-conventions.md, "Where hloroof follows XLA" and hloroof's
// async rules (bytes.cc).
void add_bytes(const OpView& op, ByteTally& tally);
// XLA's default charge: every operand whole, every result leaf (bytes.cc).
void add_default_bytes(const OpView& op, ByteTally& tally, Model model = Model::kBoth);
// A transpose whose layouts make it a relabelling of the same bytes (bytes.cc).
bool transpose_is_bitcast(const Shape& operand, const Shape& result, IntList permutation);

// Bytes at a fusion's boundary: results, parameters by how the fused code reads them, large
// constants (docs/cost-conventions.md, "Where hloroof follows XLA"; fusion.cc).
void add_fusion_bytes(const OpView& fusion, const Computation& fused, Context& context,
                      ByteTally& tally);
// The gather or scatter a custom fusion is costed as (docs/cost-conventions.md, "Where hloroof
// follows XLA"), if any.
const Instruction* custom_fusion_stand_in(const OpView& fusion, const Computation& fused);

// For each instruction of fused computation `fused`, the fraction of its elements the fusion's
// result depends on: 1 unless every path from it ends in a gather or slice, through elementwise
// ops, converts, bitcasts and reshapes, which pass their own fraction back (XLA's GPU cost
// model calls it operand utilization). Such an instruction is computed only where it is used.
absl::flat_hash_map<const Instruction*, double> element_utilization(const Computation& fused);

// FLOPs of a convolution (convolution.cc): 2 * (IF / feature groups) * OF * (B / batch groups)
// * the valid (output position, kernel tap) pairs of every spatial dimension. nullopt when the
// dimension labels do not fit the shapes.
std::optional<double> convolution_flops(const Shape& lhs, const Shape& rhs, const Shape& result,
                                        const Window* window, const ConvDimLabels& labels,
                                        int64_t feature_group_count, int64_t batch_group_count);
// (output position, kernel tap) pairs of one spatial dimension whose input index is in bounds
// and not a hole of base dilation.
int64_t valid_window_positions(int64_t input_size, int64_t kernel_size, int64_t output_size,
                               const WindowDim& window);

// A custom call's cost (custom_calls.cc). Returns false when the target is not understood:
// then only its operands and results are charged, as a floor.
bool add_custom_call_cost(const OpView& op, Context& context, OpCost& cost, ByteTally& tally);

// The collective an operation performs, if any (collectives.cc). `is_async` for -start ops and
// async wrappers.
std::optional<CollectiveCost> collective_cost(const OpView& op, bool is_async, Context& context);
// Whether collective_cost gives one for `op` (it does for every collective opcode).
bool performs_collective(const OpView& op);

// The trip count of a while loop (loops.cc).
TripCount while_trip_count(const Instruction& while_op, int64_t default_count);
// The count derived from the loop's condition, body and initial value, if the loop has the
// canonical shape `for (i = c0; i CMP bound; i += step)`.
std::optional<int64_t> derive_trip_count(const Instruction& while_op);

}  // namespace hloroof::cost

#endif  // HLOROOF_LIB_COST_COST_INTERNAL_H_
