// One HLO instruction: opcode, result shape, operands and users, typed attributes.
#ifndef HLOROOF_INSTRUCTION_H_
#define HLOROOF_INSTRUCTION_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hloroof/attributes.h"
#include "hloroof/backend_config.h"
#include "hloroof/metadata.h"
#include "hloroof/opcode.h"
#include "hloroof/replica_groups.h"
#include "hloroof/shape.h"
#include "hloroof/sharding.h"

namespace hloroof {

class Computation;
namespace detail {
struct IrAccess;
struct EdgeLists;
class Arena;
}  // namespace detail

class Instruction {
 public:
  Instruction(const Instruction&) = delete;
  Instruction& operator=(const Instruction&) = delete;

  Opcode opcode() const { return opcode_; }
  std::string_view name() const { return std::string_view(name_, name_size_); }
  const Shape& shape() const { return *shape_; }
  Computation* parent() const { return parent_; }
  // Where it is in parent()->instructions(), from 0: its place in the schedule. Kept as
  // instructions are added and removed, so that analyses index arrays by it.
  int64_t position() const { return position_; }
  bool is_root() const;

  // For async-start/-update/-done: the opcode of the wrapped operation (the sugared
  // `custom-call-start` wraps kCustomCall; an explicit `async-start(...), calls=%c` wraps the
  // root of %c). nullopt for other opcodes or when it cannot be told.
  std::optional<Opcode> async_wrapped_opcode() const;
  // For an async done or update (async-done, all-gather-done, ...): the start it waits for,
  // reached through its operand 0 and any async-updates. nullptr for other opcodes or when the
  // chain ends elsewhere.
  const Instruction* async_start() const;
  // True when the text spelled this op with async sugar (`custom-call-start`).
  bool uses_async_sugar() const { return async_sugar_; }

  absl::Span<Instruction* const> operands() const { return operands_.span(); }
  Instruction* operand(size_t i) const { return operands_.data()[i]; }
  size_t operand_count() const { return operands_.size; }
  // Instructions that use this one as an operand, each once, in the order they were added.
  absl::Span<Instruction* const> users() const { return users_.span(); }
  absl::Span<Instruction* const> control_predecessors() const;
  absl::Span<Instruction* const> control_successors() const;
  // Every computation this instruction calls, each once, in attribute order (to_apply, calls,
  // condition and body, branches, ...).
  absl::Span<Computation* const> called_computations() const;

  // kParameter: the parameter number; -1 otherwise.
  int64_t parameter_number() const { return parameter_number_; }
  // kConstant: the literal as written, e.g. `{1, 2}`, `0.5`, `{...}` (elided).
  std::string_view literal_text() const;

  // ---- Attributes.
  absl::Span<const Attribute> attributes() const {
    return absl::Span<const Attribute>(attributes_, attribute_count_);
  }
  const Attribute* attribute(AttrId id) const;
  bool has_attribute(AttrId id) const { return attribute(id) != nullptr; }
  // Typed reads; absent attributes give empty spans, nullopt, nullptr, false or "".
  IntList int_list(AttrId id) const;
  std::optional<int64_t> int_attribute(AttrId id) const;
  bool bool_attribute(AttrId id) const;
  // kString, kWord and kBackendConfig attributes, decoded.
  std::string_view string_attribute(AttrId id) const;
  Computation* computation_attribute(AttrId id) const;

  IntList dimensions() const { return int_list(AttrId::kDimensions); }
  const Slice* slice() const;
  const Padding* padding() const;
  const Window* window() const;
  const ConvDimLabels* conv_dim_labels() const;
  int64_t feature_group_count() const;  // 1 when absent
  int64_t batch_group_count() const;    // 1 when absent
  DotDimensionNumbers dot_dimensions() const;
  GatherDimensionNumbers gather_dimensions() const;
  ScatterDimensionNumbers scatter_dimensions() const;
  const WordList* operand_precision() const;
  const ReplicaGroups* replica_groups() const;
  const IntListList* source_target_pairs() const;
  std::optional<int64_t> channel_id() const { return int_attribute(AttrId::kChannelId); }
  bool use_global_device_ids() const { return bool_attribute(AttrId::kUseGlobalDeviceIds); }
  Computation* to_apply() const { return computation_attribute(AttrId::kToApply); }
  std::string_view fusion_kind() const { return string_attribute(AttrId::kFusionKind); }
  std::string_view custom_call_target() const {
    return string_attribute(AttrId::kCustomCallTarget);
  }
  std::string_view comparison_direction() const { return string_attribute(AttrId::kDirection); }
  IntList fft_length() const { return int_list(AttrId::kFftLength); }
  BackendConfig backend_config() const {
    return BackendConfig(string_attribute(AttrId::kBackendConfig));
  }
  const Sharding* sharding() const;
  // `metadata={...}`, decoded on each call from the attribute's text (views point into the
  // module); nullopt when absent.
  std::optional<OpMetadata> metadata() const;
  // metadata()->op_name without decoding the rest ("jit(step)/layer_3/dot"); empty when absent.
  std::string_view op_name() const;
  const FrontendAttributes* frontend_attributes() const;

  // ---- Edits (edit.h checks the result: verify). Names, attribute values and text given here
  // are copied into the module.
  // Replaces the result shape (e.g. to try another layout or memory space). On the entry
  // computation's parameters and root it also updates the module header's
  // entry_computation_layout, which names their shapes.
  void set_shape(const Shape& shape);

  // Typed attribute setters: set or replace one attribute. An error when the attribute does
  // not hold that kind of value (attribute_kind: `set_int_list(AttrId::kDimensions, ...)`,
  // not `set_int_attribute`), or names a computation or instruction of another module or
  // computation. Setting a called computation keeps the module's computations in callee-first
  // order. Attributes kept as text (sharding, metadata, ...) are set with
  // set_attribute_from_text (hlo_text.h).
  absl::Status set_bool_attribute(AttrId id, bool value);
  absl::Status set_int_attribute(AttrId id, int64_t value);
  absl::Status set_float_attribute(AttrId id, double value);
  absl::Status set_int_list(AttrId id, IntList values);  // also slice_sizes={1,2}
  absl::Status set_int_list_list(AttrId id, const IntListList& values);
  // kString, kWord (fusion kind, comparison direction, ...) and backend_config.
  absl::Status set_string_attribute(AttrId id, std::string_view value);
  absl::Status set_computation_attribute(AttrId id, Computation* computation);
  absl::Status set_computation_list(AttrId id, ComputationList computations);
  absl::Status set_control_predecessors(InstructionList predecessors);
  absl::Status set_replica_groups(const ReplicaGroups& groups);
  absl::Status set_slice(const Slice& slice);
  absl::Status set_padding(const Padding& padding);
  absl::Status set_window(const Window& window);
  // The common ones by name.
  absl::Status set_dimensions(IntList dimensions) {
    return set_int_list(AttrId::kDimensions, dimensions);
  }
  absl::Status set_to_apply(Computation* computation) {
    return set_computation_attribute(AttrId::kToApply, computation);
  }
  absl::Status set_channel_id(int64_t id) { return set_int_attribute(AttrId::kChannelId, id); }
  absl::Status set_fusion_kind(std::string_view kind) {
    return set_string_attribute(AttrId::kFusionKind, kind);
  }
  // lhs/rhs batch and contracting dimensions; an empty list removes its attribute.
  absl::Status set_dot_dimensions(const DotDimensionNumbers& dimensions);
  void remove_attribute(AttrId id);
  // Sets this instruction's attributes to those of `other`, an instruction of the same module in
  // any computation: a collective's on the async start that takes its place, an op's on its
  // copy in a fused computation. The computations `other` calls are called from here too. This
  // instruction's control predecessors stay, and `other`'s are not copied (they are
  // instructions of `other`'s computation). Errors: `other` in another module or not in a
  // computation, or calling this instruction's own computation.
  absl::Status copy_attributes_from(const Instruction& other);
  // Makes `operand` the i-th operand, updating both instructions' operand and user lists.
  absl::Status replace_operand(size_t i, Instruction* operand);
  // Makes every user of this instruction use `other` instead (and `other` the root where this
  // was). Both must be in the same computation.
  absl::Status replace_all_uses_with(Instruction* other);

 private:
  friend struct detail::IrAccess;
  friend struct detail::EdgeLists;
  friend class detail::Arena;
  Instruction() = default;

  // A list of pointers as a node holds it: up to one element in place, a longer list in the
  // module's arena. Read here only; lib/ir/edge_list.h appends, replaces and erases.
  template <typename T>
  struct Edges {
    absl::Span<T* const> span() const { return absl::Span<T* const>(data(), size); }
    T* const* data() const { return capacity <= 1 ? &one : many; }

    union {
      T* one = nullptr;  // capacity <= 1
      T** many;          // capacity > 1: arena memory
    };
    uint32_t size = 0;
    uint32_t capacity = 1;
  };
  // What few instructions have, out of line (null when none of it is set): a literal, control
  // successors, the called computations (lib/ir/module_state.h).
  struct Rare;

  // A module holds one node per instruction, so the node is kept small and trivially
  // destructible (the arena records no destructor for it): 88 bytes on 64-bit targets.
  Opcode opcode_ = Opcode::kParameter;
  Opcode wrapped_opcode_ = Opcode::kParameter;  // valid when has_wrapped_opcode_
  bool has_wrapped_opcode_ : 1 = false;
  bool async_sugar_ : 1 = false;
  uint8_t attribute_count_ = 0;    // at most one attribute of each AttrId (fewer than 256)
  int32_t parameter_number_ = -1;  // the parser refuses numbers past 2^31 - 1
  uint32_t name_size_ = 0;         // inputs are at most 4 GiB; edits check the length
  // In parent_'s instruction list: a computation of 2^32 instructions would need more memory
  // than an input of at most 4 GiB can describe.
  uint32_t position_ = 0;
  const char* name_ = nullptr;
  Attribute* attributes_ = nullptr;
  const Shape* shape_ = nullptr;
  Computation* parent_ = nullptr;
  Edges<Instruction> operands_;
  Edges<Instruction> users_;
  Rare* rare_ = nullptr;
};

// The opcode as the text spells it: an async op printed with sugar reads `all-to-all-start`
// (opcode_name gives `async-start`).
std::string spelled_opcode(const Instruction& i);

}  // namespace hloroof

#endif  // HLOROOF_INSTRUCTION_H_
