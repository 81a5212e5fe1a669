// An HLO module: computations (callees before callers), the entry computation, header
// attributes and stack-frame tables. The module owns the text it was parsed from; names and
// attribute text are views into it.
#ifndef HLOROOF_MODULE_H_
#define HLOROOF_MODULE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hloroof/computation.h"
#include "hloroof/instruction.h"
#include "hloroof/metadata.h"
#include "hloroof/shape.h"

namespace hloroof {

namespace detail {
struct ModuleState;
}

using ShapeIndex = std::vector<int64_t>;

// `input_output_alias={ {0}: (1, {}, may-alias) }`: output {0} may reuse parameter 1's buffer.
struct InputOutputAlias {
  ShapeIndex output_index;
  int64_t parameter_number = 0;
  ShapeIndex parameter_index;
  bool must_alias = false;
  friend bool operator==(const InputOutputAlias&, const InputOutputAlias&) = default;
};

// `buffer_donor={ (0, {}) }`: parameter 0 may be donated.
struct BufferDonor {
  int64_t parameter_number = 0;
  ShapeIndex parameter_index;
  friend bool operator==(const BufferDonor&, const BufferDonor&) = default;
};

// A header attribute kept as written, e.g. frontend_attributes or
// allow_spmd_sharding_propagation_to_output.
struct RawModuleAttribute {
  std::string_view name;
  std::string_view text;
  friend bool operator==(const RawModuleAttribute&, const RawModuleAttribute&) = default;
};

// The attributes of the `HloModule` line (docs/hlo-text.md, "Module header").
struct ModuleAttributes {
  bool is_scheduled = false;
  int64_t replica_count = 1;
  int64_t num_partitions = 1;
  bool has_entry_computation_layout = false;
  // Shapes the module holds (a parsed module's interned shapes: one per distinct shape, however
  // many parameters have it); shapes set by hand must outlive the module.
  std::vector<const Shape*> entry_parameter_layouts;
  const Shape* entry_result_layout = nullptr;  // null when there is no entry_computation_layout
  bool has_input_output_alias = false;
  std::vector<InputOutputAlias> input_output_alias;
  bool has_buffer_donor = false;
  std::vector<BufferDonor> buffer_donor;
  std::vector<RawModuleAttribute> others;  // in print order
  // Compares the layouts' shapes, not their addresses.
  friend bool operator==(const ModuleAttributes&, const ModuleAttributes&);
};

class Module {
 public:
  Module();
  ~Module();
  Module(Module&&) noexcept;
  Module& operator=(Module&&) noexcept;

  std::string_view name() const;
  const ModuleAttributes& attributes() const;
  ModuleAttributes& mutable_attributes();
  const StackFrameTables& stack_frames() const;

  // Computations in printed order: every callee before its callers.
  absl::Span<Computation* const> computations() const;
  Computation* entry() const;
  // False when the text marked no computation ENTRY: as XLA does, the parser then takes the
  // last computation as the entry (a dump cut off mid-file leaves only fused computations),
  // and predict_step_time refuses it (such a module is not a whole step) until set_entry
  // names one.
  bool entry_marked() const;
  // Takes the computation named `computation` as the entry, the step every analysis starts
  // from, as if the text had marked it ENTRY (entry_marked() is true afterwards). Errors: no
  // computation of that name (the message lists some).
  absl::Status set_entry(std::string_view computation);
  Computation* find_computation(std::string_view name) const;
  // Instructions over all computations.
  int64_t instruction_count() const;
  // ---- Edits (edit.h checks the result: verify).
  // The name of the `HloModule` line (a module, like an identifier, has a non-empty one).
  absl::Status set_name(std::string_view name);
  // A new computation without instructions (add them with Computation::add_instruction; the
  // first one added is the root until set_root). It is printed before the entry computation
  // (before any caller, when an instruction is made to call it). The name must be free. In a
  // module built from nothing (Module()), the first computation is the entry, and names the
  // module `module_NAME` unless set_name named it.
  absl::StatusOr<Computation*> add_computation(std::string_view name);
  // A copy of `computation` (of this module) named `name`: the same instructions, shapes,
  // attributes and callees, printed just before the original.
  absl::StatusOr<Computation*> clone_computation(const Computation& computation,
                                                 std::string_view name);
  // Removes a computation nothing calls, other than the entry.
  absl::Status remove_computation(Computation* computation);

  // The text the module was parsed from.
  std::string_view source() const;
  // Bytes held by the module's arena and source text (for memory accounting).
  size_t memory_bytes() const;

 private:
  friend struct detail::IrAccess;
  std::unique_ptr<detail::ModuleState> state_;
};

// True when two modules have the same computations, instructions (names, opcodes, shapes,
// operands, attributes) and header; `difference` (if not null) says where they first differ.
bool structurally_equal(const Module& a, const Module& b, std::string* difference = nullptr);

// A destroyed module leaves up to 64 MiB of its memory resident for the next module parsed, so
// that parsing file after file does not make fresh pages resident each time. This returns that
// memory to the system, and returns how many bytes it was.
size_t release_unused_module_memory();

}  // namespace hloroof

#endif  // HLOROOF_MODULE_H_
