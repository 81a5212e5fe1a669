// parse_hlo_proto: an HloModuleProto becomes the text XLA prints for it (the dump profile of
// docs/hlo-text.md: `%` names, attributes in XLA's order, async sugar), which the text parser
// then reads, so that a module read from a proto gets every check, shape inference and decoded
// attribute a module read from text gets, and prints as XLA would print it. Writing the text is
// a small part of the work (each attribute keeps its text in the module anyway); the bytes are
// checked on the way (names, ids, element types), and a parse error is reported against the
// computation and instruction it came from. The values' text is proto_text.cc's, the opcodes'
// attributes opcode_attributes.cc's.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/opcode.h"
#include "hloroof/absl_compat.h"
#include "proto/hlo.pb.h"
#include "proto/hlo_proto_internal.h"
#include "proto/proto_text.h"
#include "proto/text_builder.h"
#include "text/name_chars.h"
#include "util/wire_reader.h"

namespace hloroof::proto_internal {

const pb::HloInstructionProto* TextBuilder::operand(const Comp& c,
                                                    const pb::HloInstructionProto& i,
                                                    int k) const {
  if (k >= i.operand_ids_size()) return nullptr;
  auto it = c.by_id.find(i.operand_ids(k));
  return it == c.by_id.end() ? nullptr : it->second;
}

std::string_view merged_payload(std::string_view fields, uint64_t number, std::string* storage,
                                int* count) {
  std::string_view first;
  int n = 0;
  wire::for_each_field(fields, [&](const wire::Field& f) {
    if (f.number != number || f.type != 2) return true;
    if (++n == 1) {
      first = f.payload;
    } else {
      if (n == 2) storage->assign(first);
      storage->append(f.payload);
    }
    return true;
  });
  if (count != nullptr) *count = n;
  return n > 1 ? std::string_view(*storage) : first;
}

int TextBuilder::element_type_of(const pb::HloInstructionProto& i) {
  // The last element type of the shape's occurrences, as protobuf merges them; kept, as a
  // tuple's fields are many and many instructions may ask for one operand's.
  auto [at, added] = element_types_.try_emplace(&i, 0);
  if (!added) return at->second;
  int& type = at->second;
  wire::for_each_field(set_aside(i), [&](const wire::Field& f) {
    if (f.number != 3 || f.type != 2) return true;
    wire::for_each_field(f.payload, [&](const wire::Field& g) {
      if (g.number == 2 && g.type == 0) type = static_cast<int32_t>(g.value);
      return true;
    });
    return true;
  });
  return type;
}

bool TextBuilder::append_field_shape(std::string* out, const pb::HloInstructionProto& i,
                                     uint64_t number) {
  std::string storage;
  return append_shape_bytes(out, merged_payload(set_aside(i), number, &storage), 0, &error_);
}

bool TextBuilder::called(const Comp& c, const pb::HloInstructionProto& i, int k,
                         std::string* name) {
  if (k >= i.called_computation_ids_size()) {
    return fail_at(*c.proto, i, str_cat("calls ", i.called_computation_ids_size(),
                                        " computations; its opcode calls more"));
  }
  auto it = comp_by_id_.find(i.called_computation_ids(k));
  if (it == comp_by_id_.end()) {
    return fail_at(*c.proto, i,
                   str_cat("calls computation id ", i.called_computation_ids(k),
                           ", which the module does not hold"));
  }
  *name = str_cat("%", comps_[it->second].proto->name());
  return true;
}

const TextBuilder::Comp* TextBuilder::sugar_target(const Comp& c,
                                                   const pb::HloInstructionProto& i) {
  (void)c;
  if (i.opcode() != "async-start" || i.called_computation_ids_size() != 1) return nullptr;
  auto it = comp_by_id_.find(i.called_computation_ids(0));
  if (it == comp_by_id_.end()) return nullptr;
  const Comp& w = comps_[it->second];
  // Called only by this start (and its update/done, which do not count as callers here).
  if (called_by_[static_cast<size_t>(it->second)] != 1) return nullptr;
  auto root_it = w.by_id.find(w.proto->root_id());
  if (root_it == w.by_id.end()) return nullptr;
  const pb::HloInstructionProto& root = *root_it->second;
  std::optional<Opcode> op = opcode_from_name(root.opcode());
  if (!op || *op == Opcode::kParameter || has_native_async_forms(*op) ||
      opcode_category(*op) == OpCategory::kAsync || root.control_predecessor_ids_size() > 0) {
    return nullptr;
  }
  // XLA's CanExpandIntoSingleInstruction: the root and its parameters, in order.
  int params = 0;
  for (const pb::HloInstructionProto& x : w.proto->instructions()) {
    if (&x == &root) continue;
    if (x.opcode() != "parameter") return nullptr;
    ++params;
  }
  if (root.operand_ids_size() != params) return nullptr;
  for (int k = 0; k < root.operand_ids_size(); ++k) {
    auto p = w.by_id.find(root.operand_ids(k));
    if (p == w.by_id.end() || p->second->opcode() != "parameter" ||
        p->second->parameter_number() != k) {
      return nullptr;
    }
  }
  return &w;
}

bool TextBuilder::build(std::string* text, std::string* error) {
  // The text is about as long as the proto (1.1x for JAX's programs): room for a quarter more
  // up front spares the copies and fresh pages of growing it (room not written costs no page).
  out_.reserve(proto_bytes_ + proto_bytes_ / 4);
  comps_.resize(static_cast<size_t>(m_.computations_size()));
  absl::flat_hash_set<std::string_view> names;
  // One walk over the instructions (each is touched once before it is written, which is what
  // a large module's reading costs): their names and ids checked, and what the checks after it
  // need noted, the computations called (but by async updates and dones, which repeat their
  // start's) and the async starts, which may print as sugar.
  std::vector<int64_t> callee_ids;
  std::vector<std::pair<size_t, const pb::HloInstructionProto*>> starts;
  for (int k = 0; k < m_.computations_size(); ++k) {
    Comp& c = comps_[static_cast<size_t>(k)];
    c.proto = &m_.computations(k);
    if (!valid_name(c.proto->name())) {
      *error = str_cat("computation ", k, " has the name ", quote_text(c.proto->name()),
                       ", which is not an HLO name ([A-Za-z0-9_.-]+)");
      return false;
    }
    if (!names.insert(c.proto->name()).second) {
      *error = str_cat("two computations are named %", c.proto->name());
      return false;
    }
    if (!comp_by_id_.emplace(c.proto->id(), static_cast<size_t>(k)).second) {
      *error = str_cat("two computations have the id ", c.proto->id());
      return false;
    }
    for (const pb::HloInstructionProto& i : c.proto->instructions()) {
      if (!valid_name(i.name())) {
        *error = str_cat("computation %", c.proto->name(), " has an instruction named ",
                         quote_text(i.name()), ", which is not an HLO name ([A-Za-z0-9_.-]+)");
        return false;
      }
      if (!c.by_id.emplace(i.id(), &i).second) {
        *error = str_cat("computation %", c.proto->name(), ": two instructions have the id ",
                         i.id());
        return false;
      }
      if (i.called_computation_ids_size() == 0) continue;
      const std::string& opcode = i.opcode();
      if (opcode == "async-update" || opcode == "async-done") continue;
      callee_ids.insert(callee_ids.end(), i.called_computation_ids().begin(),
                        i.called_computation_ids().end());
      if (opcode == "async-start") starts.emplace_back(static_cast<size_t>(k), &i);
    }
  }
  called_by_.assign(comps_.size(), 0);
  for (int64_t id : callee_ids) {
    auto it = comp_by_id_.find(id);
    if (it != comp_by_id_.end()) ++called_by_[it->second];
  }
  for (const auto& [k, i] : starts) {
    if (const Comp* w = sugar_target(comps_[k], *i)) {
      comps_[comp_by_id_[w->proto->id()]].sugar_wrapped = true;
      sugared_starts_.insert(i);
    }
  }
  // The entry: by id, else by name, else (as XLA) the last computation.
  int64_t entry = -1;
  for (size_t k = 0; k < comps_.size(); ++k) {
    const pb::HloComputationProto& c = *comps_[k].proto;
    if ((m_.entry_computation_id() != 0 && c.id() == m_.entry_computation_id()) ||
        (m_.entry_computation_id() == 0 && c.name() == m_.entry_computation_name())) {
      entry = static_cast<int64_t>(k);
    }
  }
  if (entry < 0 && (m_.entry_computation_id() != 0 || !m_.entry_computation_name().empty())) {
    *error = str_cat("the entry computation (id ", m_.entry_computation_id(), ", name ",
                     quote_text(m_.entry_computation_name()), ") is not among the computations");
    return false;
  }
  if (!header() || !stack_frames()) {
    *error = error_;
    return false;
  }
  // Computations print in the proto's order (callees before callers). XLA's printer orders them
  // by a walk over each computation's instructions in their order in memory, which the proto
  // does not keep: a module whose computations were added out of that order (split-K GEMMs
  // and their reductions) prints them in another order than XLA's dump.
  bool first = true;
  for (size_t k = 0; k < comps_.size(); ++k) {
    if (comps_[k].sugar_wrapped) continue;
    if (!first) line("", Owner{});
    first = false;
    if (!computation(comps_[k], static_cast<int64_t>(k) == entry)) {
      *error = error_;
      return false;
    }
  }
  *text = std::move(out_);
  return true;
}

bool TextBuilder::header() {
  std::string h = "HloModule ";
  // Module names are free text in XLA (JAX writes `jit_f`, some tools `jit_<lambda>`): a name
  // the text cannot hold has its other bytes written `_`.
  std::string name = m_.name().empty() ? std::string("module") : m_.name();
  for (char& ch : name) {
    if (!text::is_name_char(ch)) ch = '_';
  }
  if (!text::is_name_start(name[0])) name.insert(name.begin(), '_');
  h += name;
  if (m_.has_schedule()) h += ", is_scheduled=true";
  if (m_.has_input_output_alias() && m_.input_output_alias().entries_size() > 0) {
    h += ", input_output_alias={";
    for (int k = 0; k < m_.input_output_alias().entries_size(); ++k) {
      const auto& e = m_.input_output_alias().entries(k);
      h += k > 0 ? ", " : " ";
      str_append(&h, ints(e.output_shape_index()), ": (", e.parameter_number(), ", ",
                 ints(e.parameter_shape_index()), ", ",
                 e.kind() == 2 ? "must-alias" : "may-alias", ")");
    }
    h += " }";
  }
  if (m_.has_buffer_donor() && m_.buffer_donor().entries_size() > 0) {
    h += ", buffer_donor={";
    for (int k = 0; k < m_.buffer_donor().entries_size(); ++k) {
      const auto& e = m_.buffer_donor().entries(k);
      h += k > 0 ? ", " : " ";
      str_append(&h, "(", e.parameter_number(), ", ", ints(e.parameter_shape_index()), ")");
    }
    h += " }";
  }
  if (aside_.module_entry != 0) {
    // The host program shape, set aside: its parameters (field 1) and result (2).
    std::string storage;
    const std::string_view p = merged_payload(aside_.entry(aside_.module_entry), 4, &storage);
    h += ", entry_computation_layout={(";
    int k = 0;
    const bool ok = wire::for_each_field(p, [&](const wire::Field& f) {
      if (f.number != 1 || f.type != 2) return true;
      if (k > 0) h += ", ";
      if (k > 0 && k % 5 == 0) str_append(&h, "/*index=", k, "*/");
      ++k;
      return append_shape_bytes(&h, f.payload, 0, &error_);
    });
    if (!ok) {
      if (error_.empty()) error_ = "the host program shape is not a well-formed message";
      return fail(str_cat("entry computation layout: ", error_));
    }
    h += ")->";
    std::string result_storage;
    if (!append_shape_bytes(&h, merged_payload(p, 2, &result_storage), 0, &error_)) {
      return fail(str_cat("entry computation layout: ", error_));
    }
    h += "}";
  }
  if (m_.has_device_assignment()) {
    const pb::DeviceAssignmentProto& d = m_.device_assignment();
    if (d.replica_count() > 1) str_append(&h, ", replica_count=", d.replica_count());
    if (d.computation_count() > 1) str_append(&h, ", num_partitions=", d.computation_count());
  }
  if (m_.frontend_attributes().map_size() > 0) {
    if (!valid_frontend_keys(m_.frontend_attributes())) {
      return fail("a module frontend attribute's key is not an HLO name");
    }
    str_append(&h, ", frontend_attributes=", frontend_attributes_text(m_.frontend_attributes()));
  }
  line(h, Owner{"the module header"});
  line("", Owner{});
  return true;
}

bool TextBuilder::stack_frames() {
  if (!m_.has_stack_frame_index()) return true;
  const pb::StackFrameIndexProto& t = m_.stack_frame_index();
  const Owner owner{"the stack frame tables"};
  auto names = [&](std::string_view heading, const auto& table) {
    line(std::string(heading), owner);
    for (int k = 0; k < table.size(); ++k) line(str_cat(k + 1, " ", quote_text(table[k])), owner);
    line("", owner);
  };
  names("FileNames", t.file_names());
  names("FunctionNames", t.function_names());
  line("FileLocations", owner);
  for (int k = 0; k < t.file_locations_size(); ++k) {
    const auto& l = t.file_locations(k);
    line(str_cat(k + 1, " {file_name_id=", l.file_name_id(),
                 " function_name_id=", l.function_name_id(), " line=", l.line(),
                 " end_line=", l.end_line(), " column=", l.column(),
                 " end_column=", l.end_column(), "}"),
         owner);
  }
  line("", owner);
  line("StackFrames", owner);
  for (int k = 0; k < t.stack_frames_size(); ++k) {
    const auto& f = t.stack_frames(k);
    // The text writes a parent id one more than the proto's (0, no parent, is written 1).
    line(str_cat(k + 1, " {file_location_id=", f.file_location_id(),
                 " parent_frame_id=", static_cast<int64_t>(f.parent_frame_id()) + 1, "}"),
         owner);
  }
  line("", owner);
  return true;
}

std::vector<const pb::HloInstructionProto*> TextBuilder::instruction_order(const Comp& c) const {
  // A scheduled computation prints in its schedule's order, when the sequence holds each of
  // its instructions once; otherwise (fused computations) in the proto's order.
  const pb::HloComputationProto& p = *c.proto;
  std::vector<const pb::HloInstructionProto*> order;
  if (m_.has_schedule()) {
    auto seq = m_.schedule().sequences().find(p.id());
    if (seq != m_.schedule().sequences().end() &&
        seq->second.instruction_ids_size() == p.instructions_size()) {
      absl::flat_hash_set<int64_t> seen;
      for (int64_t id : seq->second.instruction_ids()) {
        auto it = c.by_id.find(id);
        if (it == c.by_id.end() || !seen.insert(id).second) {
          order.clear();
          break;
        }
        order.push_back(it->second);
      }
    }
  }
  if (order.empty()) {
    for (const pb::HloInstructionProto& i : p.instructions()) order.push_back(&i);
  }
  return order;
}

bool TextBuilder::computation(Comp& c, bool entry) {
  const pb::HloComputationProto& p = *c.proto;
  const Owner owner{{}, &p};
  line(str_cat(entry ? "ENTRY %" : "%", p.name(), " {"), owner);
  if (c.by_id.find(p.root_id()) == c.by_id.end()) {
    return fail(str_cat("computation %", p.name(), ": its root id ", p.root_id(),
                        " is not one of its instructions"));
  }
  const std::vector<const pb::HloInstructionProto*> order = instruction_order(c);
  for (const pb::HloInstructionProto* i : order) {
    if (!instruction(c, *i, i->id() == p.root_id())) return false;
  }
  std::string close = "}";
  if (!p.execution_thread().empty() && p.execution_thread() != "main") {
    str_append(&close, ", execution_thread=", quote_text(p.execution_thread()));
  }
  line(close, owner);
  return true;
}

bool TextBuilder::instruction(const Comp& c, const pb::HloInstructionProto& i, bool root) {
  std::optional<Opcode> op = opcode_from_name(i.opcode());
  if (!op) return fail_at(*c.proto, i, str_cat("unknown opcode ", quote_text(i.opcode())));
  // The line is written in place (on an error the text is dropped whole).
  std::string& text = out_;
  str_append(&text, root ? "  ROOT %" : "  %", i.name(), " = ");
  if (!append_field_shape(&text, i, 3)) return fail_at(*c.proto, i, error_);

  // Async sugar: a start prints as its wrapped op (`fusion-start`), its update and done after it.
  const pb::HloInstructionProto* wrapped = nullptr;
  const Comp* wrapped_comp = nullptr;
  std::string sugar_opcode;
  std::string_view opcode_text = i.opcode();
  if (*op == Opcode::kAsyncStart && sugared_starts_.contains(&i)) {
    wrapped_comp = &comps_[comp_by_id_[i.called_computation_ids(0)]];
    wrapped = wrapped_comp->by_id.at(wrapped_comp->proto->root_id());
    sugar_opcode = str_cat(wrapped->opcode(), "-start");
    opcode_text = sugar_opcode;
  } else if (*op == Opcode::kAsyncUpdate || *op == Opcode::kAsyncDone) {
    // The start this update/done follows (through updates, at most one per instruction of the
    // computation: more is a loop).
    const pb::HloInstructionProto* start = operand(c, i, 0);
    for (int steps = 0; start != nullptr && start->opcode() == "async-update"; ++steps) {
      if (steps >= c.proto->instructions_size()) {
        return fail_at(*c.proto, i,
                       "its operands lead through async-updates in a loop, never to an "
                       "async-start");
      }
      start = operand(c, *start, 0);
    }
    if (start != nullptr && sugared_starts_.contains(start)) {
      const Comp& w = comps_[comp_by_id_[start->called_computation_ids(0)]];
      sugar_opcode = str_cat(w.by_id.at(w.proto->root_id())->opcode(),
                             *op == Opcode::kAsyncUpdate ? "-update" : "-done");
      opcode_text = sugar_opcode;
      wrapped = start;  // marks the sugar: no calls attribute
    }
  }
  str_append(&text, " ", opcode_text, "(");
  if (*op == Opcode::kParameter) {
    if (i.parameter_number() < 0) return fail_at(*c.proto, i, "a negative parameter number");
    str_append(&text, i.parameter_number());
  } else if (*op == Opcode::kConstant) {
    std::string error, storage;
    pb::ShapeProto shape;
    if (!shape.ParseFromString(std::string(merged_payload(set_aside(i), 3, &storage)))) {
      return fail_at(*c.proto, i, "its shape's bytes are not a well-formed ShapeProto");
    }
    if (!append_literal(&text, i.literal(), shape, 0, &error)) {
      return fail_at(*c.proto, i, error);
    }
  } else {
    for (int k = 0; k < i.operand_ids_size(); ++k) {
      const pb::HloInstructionProto* o = operand(c, i, k);
      if (o == nullptr) {
        return fail_at(*c.proto, i,
                       str_cat("operand ", k, " has the id ", i.operand_ids(k),
                               ", which is not an instruction of this computation"));
      }
      if (k > 0) text += ", ";
      text.push_back('%');
      text.append(o->name());
      if (text.size() > text_limit()) return fail_too_long(*c.proto, i);
    }
  }
  text += ")";

  // The attributes, in XLA's order.
  if (wrapped != nullptr && *op == Opcode::kAsyncStart) {
    std::optional<Opcode> wop = opcode_from_name(wrapped->opcode());
    if (!opcode_attributes(*wrapped_comp, *wrapped, *wop)) return false;
    if (!i.async_execution_thread().empty() && i.async_execution_thread() != "main") {
      attr("async_execution_thread", quote_text(i.async_execution_thread()));
    }
  } else if (wrapped == nullptr) {
    if (!opcode_attributes(c, i, *op)) return false;
  }
  // Attributes any instruction may carry, in XLA's order.
  if (i.has_sharding()) {
    std::string s;
    if (!sharding_text(i.sharding(), &s, false, &error_)) return fail_at(*c.proto, i, error_);
    attr("sharding", s);
  }
  if (i.frontend_attributes().map_size() > 0) {
    if (!valid_frontend_keys(i.frontend_attributes())) {
      return fail_at(*c.proto, i, "a frontend attribute's key is not an HLO name");
    }
    attr("frontend_attributes", frontend_attributes_text(i.frontend_attributes()));
  }
  if (i.control_predecessor_ids_size() > 0) {
    std::string s = "{";
    for (int k = 0; k < i.control_predecessor_ids_size(); ++k) {
      auto it = c.by_id.find(i.control_predecessor_ids(k));
      if (it == c.by_id.end()) {
        return fail_at(*c.proto, i,
                       str_cat("control predecessor id ", i.control_predecessor_ids(k),
                               " is not an instruction of this computation"));
      }
      if (k > 0) s += ", ";
      str_append(&s, "%", it->second->name());
      if (out_.size() + s.size() > text_limit()) return fail_too_long(*c.proto, i);
    }
    attr("control-predecessors", s + "}");
  }
  if (i.has_result_accuracy()) {
    const pb::ResultAccuracy& r = i.result_accuracy();
    if (r.has_tolerance()) {
      attr("result_accuracy", str_cat("{tolerance={atol=", float_text(r.tolerance().atol(), 12),
                                      ",rtol=", float_text(r.tolerance().rtol(), 12),
                                      ",ulps=", r.tolerance().ulps(), "}}"));
    } else if (r.mode() == 1) {
      attr("result_accuracy", "{mode=highest}");
    }
  }
  if (i.has_metadata()) {
    const size_t mark = out_.size();
    out_.append(", metadata=");
    const size_t value = out_.size();
    append_metadata(&out_, i.metadata());
    if (out_.size() - value == 2) out_.resize(mark);  // `{}`: not printed
  }
  if (!i.backend_config().empty()) {
    attr("backend_config", backend_config_text(i.backend_config()));
  }
  if (out_.size() > text_limit()) return fail_too_long(*c.proto, i);
  end_line(Owner{{}, c.proto, &i});
  return true;
}

google::protobuf::ArenaOptions arena_options(size_t bytes) {
  google::protobuf::ArenaOptions options;
  // The messages take a few times the bytes they come from; the first block holds a small
  // proto whole, and no block is larger than 1 MiB whatever the bytes claim.
  constexpr size_t kMaxBlock = size_t{1} << 20;
  options.start_block_size =
      std::min(kMaxBlock, std::max<size_t>(4096, std::min(bytes, kMaxBlock) * 4));
  options.max_block_size = kMaxBlock;
  return options;
}

namespace {

constexpr uint64_t kSetAsideField = 536870911;  // HloInstructionProto.hloroof_set_aside

// Copies the fields of `message` into `kept`, but those `set_aside` picks (length-delimited
// fields of the given numbers), which go whole into a new entry of `aside`, and the ones
// `drop` names. Groups of unknown fields are left out (protobuf would keep them unread). The
// number of the new entry, 0 when nothing was set aside; -1 when `message` is not well formed.
template <typename SetAsideFn, typename DropFn>
int64_t split_fields(std::string_view message, std::string* kept, SetAside* aside,
                     SetAsideFn set_aside, DropFn drop) {
  const size_t start = aside->bytes.size();
  const bool ok = wire::for_each_field(message, [&](const wire::Field& f) {
    if (f.type == 2 && set_aside(f.number)) {
      aside->bytes.append(f.raw);
    } else if (!drop(f)) {
      kept->append(f.raw);
    }
    return true;
  });
  if (!ok) return -1;
  if (aside->bytes.size() == start) return 0;
  aside->ends.push_back(aside->bytes.size());
  return static_cast<int64_t>(aside->ends.size());
}

// An instruction takes at least 16 bytes on the wire where a module holds more than a few:
// a name, an opcode, a shape and an id, all but the shape unique or nearly so.
constexpr int64_t kBytesPerInstruction = 16;
constexpr int64_t kFloorInstructions = int64_t{1} << 16;

bool strip_computation(std::string_view computation, std::string* out, std::string* scratch,
                       SetAside* aside, int64_t* instructions) {
  std::string kept;
  const bool ok = wire::for_each_field(computation, [&](const wire::Field& f) {
    if (f.type == 2 && f.number == 4) return true;  // program_shape: not read
    if (f.type != 2 || f.number != 2) {
      kept.append(f.raw);
      return true;
    }
    ++*instructions;
    scratch->clear();
    const int64_t entry = split_fields(
        f.payload, scratch, aside, [](uint64_t n) { return n == 3 || n == 29 || n == 57; },
        [](const wire::Field& g) { return g.number == kSetAsideField; });
    if (entry < 0) return false;
    if (entry > 0) {
      wire::put_varint(scratch, kSetAsideField << 3);
      wire::put_varint(scratch, static_cast<uint64_t>(entry));
    }
    wire::put_bytes_field(&kept, 2, *scratch);
    return true;
  });
  if (!ok) return false;
  wire::put_bytes_field(out, 3, kept);
  return true;
}

// `module` (an HloModuleProto's bytes) with its shapes set aside in `aside`, and its
// instructions counted; false when the bytes are not well formed down to the instructions.
bool strip_module(std::string_view module, std::string* out, SetAside* aside,
                  int64_t* instructions) {
  std::string scratch;
  std::string host;  // host_program_shape: the payloads of each occurrence, merged
  const bool ok = wire::for_each_field(module, [&](const wire::Field& f) {
    if (f.type != 2 || (f.number != 3 && f.number != 4)) {
      out->append(f.raw);
      return true;
    }
    if (f.number == 4) {
      host.append(f.raw);
      return true;
    }
    return strip_computation(f.payload, out, &scratch, aside, instructions);
  });
  if (!ok) return false;
  if (!host.empty()) {
    aside->bytes.append(host);
    aside->ends.push_back(aside->bytes.size());
    aside->module_entry = aside->ends.size();
  }
  return true;
}

}  // namespace

bool parse_module_proto(std::string_view bytes, google::protobuf::Arena* arena,
                        ParsedModuleProto* out, SetAside* aside) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) return false;
  // As an HloProto: its module (protobuf merges repeated occurrences, as their payloads
  // concatenated would be) with its shapes set aside, and the other fields as they are.
  std::string_view module;
  std::string merged_module, rest;
  int modules = 0;
  const bool well_formed = wire::for_each_field(bytes, [&](const wire::Field& f) {
    if (f.type != 2 || f.number != 1) return true;
    if (++modules == 1) {
      module = f.payload;
    } else {
      if (modules == 2) merged_module.assign(module);
      merged_module.append(f.payload);
    }
    return true;
  });
  if (modules > 1) module = merged_module;
  // Decoded, each instruction takes some 700 bytes whatever its size on the wire.
  const int64_t max_instructions =
      kFloorInstructions + static_cast<int64_t>(bytes.size()) / kBytesPerInstruction;
  auto too_many = [&](int64_t instructions) {
    if (instructions <= max_instructions) return false;
    out->refused = str_cat("its ", instructions, " instructions in ", bytes.size(),
                           " bytes take under ", kBytesPerInstruction,
                           " bytes each, less than a name, an opcode, a shape and an id take "
                           "(at most one per ", kBytesPerInstruction,
                           " bytes, plus 65536): refused before decoding, which would take "
                           "many times the file");
    return true;
  };
  std::string stripped;
  int64_t instructions = 0;
  if (well_formed && modules > 0 && strip_module(module, &stripped, aside, &instructions) &&
      !too_many(instructions)) {
    std::string().swap(merged_module);
    wire::for_each_field(bytes, [&](const wire::Field& f) {
      if (f.type != 2 || f.number != 1) rest.append(f.raw);
      return true;
    });
    auto* whole = google::protobuf::Arena::CreateMessage<pb::HloProto>(arena);
    if (whole->ParseFromString(rest) && whole->mutable_hlo_module()->MergeFromString(stripped) &&
        whole->hlo_module().computations_size() > 0) {
      out->module = &whole->hlo_module();
      out->assignment = &whole->buffer_assignment();
      out->kind = "HloProto";
      return true;
    }
  }
  // Not an HloProto: what that attempt allocated goes before the second one.
  arena->Reset();
  aside->clear();
  std::string().swap(merged_module);
  std::string().swap(rest);
  stripped.clear();
  instructions = 0;
  if (!strip_module(bytes, &stripped, aside, &instructions) || too_many(instructions)) {
    return false;
  }
  auto* module_proto = google::protobuf::Arena::CreateMessage<pb::HloModuleProto>(arena);
  if (module_proto->ParseFromString(stripped) && module_proto->computations_size() > 0) {
    out->module = module_proto;
    out->assignment = &pb::BufferAssignmentProto::default_instance();
    out->kind = "HloModuleProto";
    return true;
  }
  return false;
}

}  // namespace hloroof::proto_internal

namespace hloroof {
namespace {

// The line a parse error points at: "FILE:LINE:COLUMN: error: MESSAGE".
absl::Status proto_error(const ParseOptions& options, std::string_view kind,
                         std::string message) {
  std::string prefix = options.file_name.empty() ? std::string() : str_cat(options.file_name, ": ");
  return absl::InvalidArgumentError(
      str_cat(prefix, "error: ", kind, ": ", message));
}

}  // namespace

ParsedHloProto::ParsedHloProto() = default;
ParsedHloProto::ParsedHloProto(ParsedHloProto&&) noexcept = default;
ParsedHloProto& ParsedHloProto::operator=(ParsedHloProto&&) noexcept = default;
ParsedHloProto::~ParsedHloProto() = default;

ParsedHloProto::ParsedHloProto(std::string_view bytes) : empty_input_(bytes.empty()) {
  if (bytes.empty()) return;  // no message with computations
  // Each length-delimited field decodes to an object or a string of some 30-500 bytes: real
  // HLO protos hold one per 7-9 bytes, and a message of empty messages one per 2 bytes (100
  // times its size once decoded). More than one per kBytesPerField bytes (past a floor) is
  // refused before anything is decoded.
  constexpr int64_t kBytesPerField = 4;
  constexpr int64_t kFloorFields = int64_t{1} << 16;
  const int64_t limit = kFloorFields + static_cast<int64_t>(bytes.size()) / kBytesPerField;
  if (wire::count_length_delimited(bytes, limit) > limit) {
    refused_ = str_cat("its ", bytes.size(), " bytes hold more than ", limit,
                       " messages and strings (one per ", kBytesPerField,
                       " bytes, plus 65536; real HLO protos hold one per 7-9 bytes): refused "
                       "before decoding, which would take many times the file");
    return;
  }
  auto messages = std::make_unique<Messages>(bytes.size());
  // What a failed attempt allocated goes with `messages`.
  if (proto_internal::parse_module_proto(bytes, &messages->arena, &messages->read,
                                         &messages->aside)) {
    messages_ = std::move(messages);
  } else {
    refused_ = std::move(messages->read.refused);
  }
}

bool ParsedHloProto::ok() const { return messages_ != nullptr; }

absl::StatusOr<Module> ParsedHloProto::module(const ParseOptions& options) const {
  if (empty_input_) return proto_error(options, "HloModuleProto", "the input is empty");
  if (!refused_.empty()) return proto_error(options, "HloModuleProto", refused_);
  if (messages_ == nullptr) {
    return proto_error(options, "HloModuleProto",
                       "the bytes are neither an xla.HloProto nor an xla.HloModuleProto with "
                       "computations (truncated or another message?)");
  }
  const proto_internal::ParsedModuleProto& read = messages_->read;
  const std::string_view kind = read.kind;
  proto_internal::TextBuilder builder(*read.module, messages_->size, messages_->aside);
  std::string text, error;
  if (!builder.build(&text, &error)) return proto_error(options, kind, error);
  ParseOptions text_options;
  text_options.show_source_line = false;
  absl::StatusOr<Module> parsed = parse_module(std::move(text), text_options);
  if (parsed.ok()) return parsed;
  std::optional<ParseErrorLocation> at = parse_error_location(parsed.status());
  if (!at) return proto_error(options, kind, std::string(parsed.status().message()));
  std::string where = builder.where(at->line);
  return proto_error(options, kind,
                     where.empty() ? at->message : str_cat(where, ": ", at->message));
}

bool is_hlo_proto(std::string_view bytes) { return ParsedHloProto(bytes).ok(); }

absl::StatusOr<Module> parse_hlo_proto(std::string_view bytes, const ParseOptions& options) {
  return ParsedHloProto(bytes).module(options);
}

}  // namespace hloroof
