// The text XLA prints for an HloModuleProto, written from its messages: what parse_hlo_proto
// hands the text parser (hlo_proto_reader.cc; the opcodes' attributes in opcode_attributes.cc).
#ifndef HLOROOF_PROTO_TEXT_BUILDER_H_
#define HLOROOF_PROTO_TEXT_BUILDER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hloroof/opcode.h"
#include "proto/hlo.pb.h"
#include "proto/hlo_proto_internal.h"
#include "proto/proto_text.h"
#include "hloroof/absl_compat.h"

namespace hloroof::proto_internal {

class TextBuilder {
 public:
  // `proto_bytes`: the size of the serialized module, which the text comes close to.
  // `aside`: the shapes taken out of the bytes before `m` was decoded from them.
  TextBuilder(const pb::HloModuleProto& m, size_t proto_bytes, const SetAside& aside)
      : m_(m), proto_bytes_(proto_bytes), aside_(aside) {}

  // The text, or an error naming where in the proto it is.
  bool build(std::string* text, std::string* error);
  // The instruction (as "computation C, instruction I") that line `line` (1-based) holds.
  std::string where(int line) const {
    if (line <= 0 || static_cast<size_t>(line) > line_owner_.size()) return std::string();
    const Owner& o = line_owner_[static_cast<size_t>(line - 1)];
    if (o.instruction != nullptr) {
      return str_cat("computation %", o.computation->name(), ", instruction %",
                     o.instruction->name());
    }
    if (o.computation != nullptr) return str_cat("computation %", o.computation->name());
    return std::string(o.what);
  }

 private:
  // What a line of the text comes from, named only when a parse error points at it.
  struct Owner {
    std::string_view what;  // a literal, when neither of these
    const pb::HloComputationProto* computation = nullptr;
    const pb::HloInstructionProto* instruction = nullptr;
  };
  struct Comp {
    const pb::HloComputationProto* proto = nullptr;
    absl::flat_hash_map<int64_t, const pb::HloInstructionProto*> by_id;
    bool sugar_wrapped = false;  // printed as the async sugar of its caller: not printed
  };

  bool fail(std::string message) {
    error_ = std::move(message);
    return false;
  }
  bool fail_at(const pb::HloComputationProto& c, const pb::HloInstructionProto& i,
               std::string message) {
    return fail(str_cat("computation %", c.name(), ", instruction %", i.name(), ": ",
                        message));
  }
  // The text a proto writes: names are written at every reference, which the proto holds as
  // ids, so a real module's text is a few times its proto; a long name referenced thousands of
  // times would write gigabytes. Past kTextPerProtoByte times the proto (and a floor for tiny
  // ones), the proto is refused.
  static constexpr size_t kTextPerProtoByte = 32;
  static constexpr size_t kTextFloorBytes = size_t{64} << 20;
  size_t text_limit() const { return kTextFloorBytes + kTextPerProtoByte * proto_bytes_; }
  bool fail_too_long(const pb::HloComputationProto& c, const pb::HloInstructionProto& i) {
    return fail_at(c, i,
                   str_cat("the module's text passes ", text_limit() >> 20, " MiB (",
                           kTextPerProtoByte, " times the proto's ", proto_bytes_,
                           " bytes, plus 64 MiB): names repeated at every reference write far "
                           "more than any real module"));
  }
  void line(std::string_view text, Owner owner) {
    out_.append(text);
    end_line(owner);
  }
  // Ends the line written into out_ since the last one.
  void end_line(Owner owner) {
    out_.push_back('\n');
    line_owner_.push_back(owner);
  }
  bool header();
  bool stack_frames();
  // The instructions of `c` in print order.
  std::vector<const pb::HloInstructionProto*> instruction_order(const Comp& c) const;
  bool computation(Comp& c, bool entry);
  bool instruction(const Comp& c, const pb::HloInstructionProto& i, bool root);
  // Writes `, name=value` on the line.
  void attr(std::string_view name, std::string_view value) {
    str_append(&out_, ", ", name, "=", value);
  }
  // Writes the attributes of the opcode (XLA's ExtraAttributesToStringImpl, then called
  // computations) on the line (opcode_attributes.cc).
  bool opcode_attributes(const Comp& c, const pb::HloInstructionProto& i, Opcode op);
  // Those of a group of opcodes each; nullopt for an opcode of another group.
  std::optional<bool> array_attributes(const Comp& c, const pb::HloInstructionProto& i,
                                       Opcode op);
  std::optional<bool> computation_attributes(const Comp& c, const pb::HloInstructionProto& i,
                                             Opcode op);
  std::optional<bool> control_attributes(const Comp& c, const pb::HloInstructionProto& i,
                                         Opcode op);
  std::optional<bool> transfer_attributes(const Comp& c, const pb::HloInstructionProto& i,
                                          Opcode op);
  // Attributes of several groups: `, name=C` for the k-th called computation C, the channel,
  // replica groups, operand precision, convolution fields, dot dimensions and aliasing.
  bool called_attribute(const Comp& c, const pb::HloInstructionProto& i, std::string_view name,
                        int k);
  void channel_attribute(const pb::HloInstructionProto& i);
  void replica_groups_attribute(const pb::HloInstructionProto& i);
  bool precision_attributes(const Comp& c, const pb::HloInstructionProto& i);
  bool convolution_attributes(const Comp& c, const pb::HloInstructionProto& i);
  void dot_attributes(const pb::DotDimensionNumbers& d);
  void aliasing_attribute(const pb::HloInstructionProto& i);
  bool called(const Comp& c, const pb::HloInstructionProto& i, int k, std::string* name);
  // The set-aside fields of `i` (its shape, outfeed_shape, operand_shapes_with_layout).
  std::string_view set_aside(const pb::HloInstructionProto& i) const {
    return aside_.entry(i.hloroof_set_aside());
  }
  // The element type of `i`'s shape (13 for a tuple; 0 when it has none).
  int element_type_of(const pb::HloInstructionProto& i);
  // Appends the shape that field `number` of `i` holds (the default shape when it is absent,
  // as protobuf would read it); false (and error_) on one the text cannot hold.
  bool append_field_shape(std::string* out, const pb::HloInstructionProto& i,
                          uint64_t number);
  const pb::HloInstructionProto* operand(const Comp& c, const pb::HloInstructionProto& i,
                                         int k) const;
  // The called computation of an async-start when XLA would print it as sugar; else null.
  const Comp* sugar_target(const Comp& c, const pb::HloInstructionProto& i);

  const pb::HloModuleProto& m_;
  size_t proto_bytes_ = 0;
  const SetAside& aside_;
  std::vector<Comp> comps_;
  absl::flat_hash_map<int64_t, size_t> comp_by_id_;
  std::vector<int> called_by_;  // references to each computation, by index
  // The async-starts printed as sugar, by their message (names may repeat in a bad proto).
  absl::flat_hash_set<const pb::HloInstructionProto*> sugared_starts_;
  absl::flat_hash_map<const pb::HloInstructionProto*, int> element_types_;
  std::string out_;
  std::vector<Owner> line_owner_;
  std::string error_;
};

}  // namespace hloroof::proto_internal

#endif  // HLOROOF_PROTO_TEXT_BUILDER_H_
