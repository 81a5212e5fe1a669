// The canonical printer: the current dump profile (docs/hlo-text.md, "Printer profiles") with `%`
// names, computation signatures, `/*index=N*/` comments and explicit get-tuple-element lines.
#include <cmath>
#include <cstdlib>

#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"
#include "hloroof/hlo_text.h"
#include "hloroof/replica_groups.h"
#include "ir/module_state.h"
#include "ir/shape_printer.h"
#include "ir/shape_util.h"
#include "hloroof/absl_compat.h"
#include "text/module_attributes.h"
#include "text/printer.h"

namespace hloroof::text {

using detail::append_layout;
using detail::append_shape;

namespace {

void append_int_list(std::string* out, absl::Span<const int64_t> values) {
  out->push_back('{');
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out->push_back(',');
    str_append(out, values[i]);
  }
  out->push_back('}');
}

void append_quoted(std::string* out, std::string_view value) {
  out->push_back('"');
  out->append(absl::CEscape(sv(value)));
  out->push_back('"');
}

// Floats print with %g at 6 significant digits, or 9 when 6 would not read back as the same
// f32 (syntax 1.5).
void append_float(std::string* out, double v) {
  std::string text = absl::StrFormat("%g", v);
  if (static_cast<float>(std::strtod(text.c_str(), nullptr)) != static_cast<float>(v)) {
    text = absl::StrFormat("%.9g", v);
  }
  out->append(text);
}

void append_window(std::string* out, const Window& w) {
  out->push_back('{');
  if (w.dims.empty()) {
    out->push_back('}');
    return;
  }
  auto field = [&](std::string_view name, auto get, auto is_default) {
    bool any = false;
    for (const WindowDim& d : w.dims) any = any || !is_default(d);
    if (!any && name != "size") return;
    if (name != "size") out->push_back(' ');
    str_append(out, name, "=");
    for (size_t i = 0; i < w.dims.size(); ++i) {
      if (i > 0) out->push_back('x');
      get(w.dims[i]);
    }
  };
  field(
      "size", [&](const WindowDim& d) { str_append(out, d.size); },
      [](const WindowDim&) { return false; });
  field(
      "stride", [&](const WindowDim& d) { str_append(out, d.stride); },
      [](const WindowDim& d) { return d.stride == 1; });
  field(
      "pad", [&](const WindowDim& d) { str_append(out, d.pad_low, "_", d.pad_high); },
      [](const WindowDim& d) { return d.pad_low == 0 && d.pad_high == 0; });
  field(
      "lhs_dilate", [&](const WindowDim& d) { str_append(out, d.lhs_dilation); },
      [](const WindowDim& d) { return d.lhs_dilation == 1; });
  field(
      "rhs_dilate", [&](const WindowDim& d) { str_append(out, d.rhs_dilation); },
      [](const WindowDim& d) { return d.rhs_dilation == 1; });
  field(
      "rhs_reversal", [&](const WindowDim& d) { str_append(out, d.reversal ? 1 : 0); },
      [](const WindowDim& d) { return !d.reversal; });
  out->push_back('}');
}

void append_replica_groups(std::string* out, const ReplicaGroups& g, std::string_view text) {
  switch (g.form) {
    case ReplicaGroups::Form::kList:
      out->push_back('{');
      for (size_t i = 0; i < g.groups.size(); ++i) {
        if (i > 0) out->push_back(',');
        append_int_list(out, g.groups[i]);
      }
      out->push_back('}');
      return;
    case ReplicaGroups::Form::kIota:
      str_append(out, "[", g.num_groups, ",", g.group_size, "]<=[");
      for (size_t i = 0; i < g.iota_dims.size(); ++i) {
        if (i > 0) out->push_back(',');
        str_append(out, g.iota_dims[i]);
      }
      out->push_back(']');
      if (!g.iota_transpose.empty()) {
        out->append("T(");
        for (size_t i = 0; i < g.iota_transpose.size(); ++i) {
          if (i > 0) out->push_back(',');
          str_append(out, g.iota_transpose[i]);
        }
        out->push_back(')');
      }
      return;
    case ReplicaGroups::Form::kMesh:
      out->append(text);
      return;
  }
}

void append_name_list(std::string* out, absl::Span<Instruction* const> list) {
  out->push_back('{');
  for (size_t i = 0; i < list.size(); ++i) {
    if (i > 0) out->append(", ");
    str_append(out, "%", list[i]->name());
  }
  out->push_back('}');
}

}  // namespace

bool is_balanced_blob(std::string_view text) {
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return false;
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      if (i >= text.size()) return false;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (--depth == 0 && i + 1 != text.size()) return false;
    }
  }
  return depth == 0;
}

void append_attribute_value(std::string* out, const Attribute& a) {
  switch (attribute_kind(a.id)) {
    case AttrKind::kBool:
      out->append(*a.get<bool>() ? "true" : "false");
      return;
    case AttrKind::kInt:
      str_append(out, *a.get<int64_t>());
      return;
    case AttrKind::kFloat:
      append_float(out, *a.get<double>());
      return;
    case AttrKind::kIntList:
      append_int_list(out, *a.get<IntList>());
      return;
    case AttrKind::kSliceSizes:
      if (const IntList* list = a.get<IntList>()) {
        append_int_list(out, *list);
        return;
      }
      [[fallthrough]];
    case AttrKind::kIntListList: {
      const IntListList& lists = **a.get<const IntListList*>();
      out->push_back('{');
      for (size_t i = 0; i < lists.size(); ++i) {
        if (i > 0) out->push_back(',');
        append_int_list(out, lists[i]);
      }
      out->push_back('}');
      return;
    }
    case AttrKind::kString:
      append_quoted(out, *a.get<std::string_view>());
      return;
    case AttrKind::kWord:
      out->append(*a.get<std::string_view>());
      return;
    case AttrKind::kWordList: {
      const WordList& words = **a.get<const WordList*>();
      out->push_back('{');
      for (size_t i = 0; i < words.size(); ++i) {
        if (i > 0) out->push_back(',');
        out->append(words[i]);
      }
      out->push_back('}');
      return;
    }
    case AttrKind::kComputation:
      str_append(out, "%", (*a.get<Computation*>())->name());
      return;
    case AttrKind::kComputationList: {
      ComputationList list = *a.get<ComputationList>();
      out->push_back('{');
      for (size_t i = 0; i < list.size(); ++i) {
        if (i > 0) out->append(", ");
        str_append(out, "%", list[i]->name());
      }
      out->push_back('}');
      return;
    }
    case AttrKind::kInstructionList:
      append_name_list(out, *a.get<InstructionList>());
      return;
    case AttrKind::kSlice: {
      const Slice& slice = **a.get<const Slice*>();
      bool strides = false;
      for (const SliceDim& d : slice.dims) strides = strides || d.stride != 1;
      out->push_back('{');
      for (size_t i = 0; i < slice.dims.size(); ++i) {
        const SliceDim& d = slice.dims[i];
        if (i > 0) out->append(", ");
        str_append(out, "[", d.start, ":", d.limit);
        if (strides) str_append(out, ":", d.stride);
        out->push_back(']');
      }
      out->push_back('}');
      return;
    }
    case AttrKind::kPadding: {
      const Padding& padding = **a.get<const Padding*>();
      bool interior = false;
      for (const PaddingDim& d : padding.dims) interior = interior || d.interior != 0;
      for (size_t i = 0; i < padding.dims.size(); ++i) {
        const PaddingDim& d = padding.dims[i];
        if (i > 0) out->push_back('x');
        str_append(out, d.low, "_", d.high);
        if (interior) str_append(out, "_", d.interior);
      }
      return;
    }
    case AttrKind::kWindow:
      append_window(out, **a.get<const Window*>());
      return;
    case AttrKind::kDimLabels:
      out->append((*a.get<const ConvDimLabels*>())->text);
      return;
    case AttrKind::kReplicaGroups:
      append_replica_groups(out, **a.get<const ReplicaGroups*>(), a.text());
      return;
    case AttrKind::kFrontendAttributes: {
      const FrontendAttributes& attrs = **a.get<const FrontendAttributes*>();
      out->push_back('{');
      for (size_t i = 0; i < attrs.entries.size(); ++i) {
        const FrontendAttribute& e = attrs.entries[i];
        if (i > 0) out->push_back(',');
        str_append(out, e.key, "=");
        if (e.is_blob) {
          out->append(e.value);
        } else {
          append_quoted(out, e.value);
        }
      }
      out->push_back('}');
      return;
    }
    case AttrKind::kBackendConfig: {
      std::string_view config = *a.get<std::string_view>();
      if (is_balanced_blob(config)) {
        out->append(config);
      } else {
        append_quoted(out, config);
      }
      return;
    }
    case AttrKind::kShape:
      append_shape(out, **a.get<const Shape*>());
      return;
    case AttrKind::kSharding:
    case AttrKind::kMetadata:
    case AttrKind::kLiteral:
    case AttrKind::kRaw:
      out->append(a.text());
      return;
  }
}

namespace {

std::string_view opcode_text(const Instruction& i, std::string* scratch) {
  if (!i.uses_async_sugar()) return opcode_name(i.opcode());
  std::string_view suffix = i.opcode() == Opcode::kAsyncStart    ? "-start"
                            : i.opcode() == Opcode::kAsyncUpdate ? "-update"
                                                                 : "-done";
  *scratch = str_cat(opcode_name(*i.async_wrapped_opcode()), suffix);
  return *scratch;
}

// What follows the shape in an instruction's text: ` opcode(operands), attributes`. In a
// profile's form (`profile_shapes` given): each operand's shape before its name, and neither
// metadata nor backend config.
void append_after_shape(std::string* out, const Instruction& i,
                        detail::ShapeTexts* profile_shapes = nullptr) {
  std::string scratch;
  str_append(out, " ", opcode_text(i, &scratch), "(");
  if (i.opcode() == Opcode::kParameter) {
    str_append(out, i.parameter_number());
  } else if (i.opcode() == Opcode::kConstant) {
    out->append(i.literal_text());
  } else {
    for (size_t k = 0; k < i.operand_count(); ++k) {
      if (k > 0) out->append(", ");
      if (k > 0 && k % 5 == 0) str_append(out, "/*index=", k, "*/");
      const Instruction& operand = *i.operand(k);
      if (profile_shapes != nullptr) str_append(out, profile_shapes->text(operand.shape()), " ");
      str_append(out, "%", operand.name());
    }
  }
  out->push_back(')');
  for (const Attribute& a : i.attributes()) {
    if (profile_shapes != nullptr &&
        (a.id == AttrId::kMetadata || a.id == AttrId::kBackendConfig)) {
      continue;
    }
    str_append(out, ", ", a.name(), "=");
    append_attribute_value(out, a);
  }
}

}  // namespace

void append_instruction_text(std::string* out, const Instruction& i) {
  str_append(out, "%", i.name(), " = ");
  append_shape(out, i.shape());
  append_after_shape(out, i);
}

void append_profile_op_text(std::string* out, const Instruction& i, detail::ShapeTexts& shapes) {
  str_append(out, "%", i.name(), " = ", shapes.text(i.shape()));
  append_after_shape(out, i, &shapes);
}

namespace {

void append_instruction(std::string* out, const Instruction& i) {
  out->append(i.is_root() ? "  ROOT " : "  ");
  append_instruction_text(out, i);
  out->push_back('\n');
}

void append_computation(std::string* out, const Computation& c) {
  if (c.is_entry()) out->append("ENTRY ");
  str_append(out, "%", c.name(), " (");
  absl::Span<Instruction* const> params = c.parameters();
  for (size_t k = 0; k < params.size(); ++k) {
    if (k > 0) out->append(", ");
    str_append(out, params[k]->name(), ": ");
    append_shape(out, detail::without_layout(params[k]->shape()));
  }
  out->append(") -> ");
  append_shape(out, detail::without_layout(c.root()->shape()));
  out->append(" {\n");
  for (const Instruction* i : c.instructions()) append_instruction(out, *i);
  out->push_back('}');
  if (c.execution_thread() != "main") {
    out->append(", execution_thread=");
    append_quoted(out, c.execution_thread());
  }
}

void append_shape_index(std::string* out, const ShapeIndex& index) { append_int_list(out, index); }

void append_header(std::string* out, const Module& m) {
  const ModuleAttributes& a = m.attributes();
  str_append(out, "HloModule ", m.name());
  for (std::string_view key : kModuleAttributeOrder) {
    if (key == "is_scheduled") {
      if (a.is_scheduled) out->append(", is_scheduled=true");
    } else if (key == "input_output_alias") {
      if (!a.has_input_output_alias) continue;
      out->append(", input_output_alias={");
      for (size_t k = 0; k < a.input_output_alias.size(); ++k) {
        const InputOutputAlias& alias = a.input_output_alias[k];
        out->append(k > 0 ? ", " : " ");
        append_shape_index(out, alias.output_index);
        str_append(out, ": (", alias.parameter_number, ", ");
        append_shape_index(out, alias.parameter_index);
        str_append(out, ", ", alias.must_alias ? "must-alias" : "may-alias", ")");
      }
      out->append(a.input_output_alias.empty() ? "}" : " }");
    } else if (key == "buffer_donor") {
      if (!a.has_buffer_donor) continue;
      out->append(", buffer_donor={");
      for (size_t k = 0; k < a.buffer_donor.size(); ++k) {
        const BufferDonor& donor = a.buffer_donor[k];
        out->append(k > 0 ? ", " : " ");
        str_append(out, "(", donor.parameter_number, ", ");
        append_shape_index(out, donor.parameter_index);
        out->push_back(')');
      }
      out->append(a.buffer_donor.empty() ? "}" : " }");
    } else if (key == "entry_computation_layout") {
      if (!a.has_entry_computation_layout) continue;
      out->append(", entry_computation_layout={(");
      for (size_t k = 0; k < a.entry_parameter_layouts.size(); ++k) {
        if (k > 0) out->append(", ");
        if (k > 0 && k % 5 == 0) str_append(out, "/*index=", k, "*/");
        append_shape(out, *a.entry_parameter_layouts[k]);
      }
      out->append(")->");
      append_shape(out, *a.entry_result_layout);
      out->push_back('}');
    } else if (key == "replica_count") {
      if (a.replica_count != 1) str_append(out, ", replica_count=", a.replica_count);
    } else if (key == "num_partitions") {
      if (a.num_partitions != 1) str_append(out, ", num_partitions=", a.num_partitions);
    } else {
      for (const RawModuleAttribute& raw : a.others) {
        if (raw.name == key) str_append(out, ", ", raw.name, "=", raw.text);
      }
    }
  }
  out->append("\n\n");
}

void append_stack_frames(std::string* out, const StackFrameTables& t) {
  if (!t.present) return;
  auto names = [&](std::string_view heading, const std::vector<std::string_view>& table) {
    str_append(out, heading, "\n");
    for (size_t k = 0; k < table.size(); ++k) {
      str_append(out, k + 1, " ");
      append_quoted(out, table[k]);
      out->push_back('\n');
    }
    out->push_back('\n');
  };
  names("FileNames", t.file_names);
  names("FunctionNames", t.function_names);
  out->append("FileLocations\n");
  for (size_t k = 0; k < t.file_locations.size(); ++k) {
    const FileLocation& l = t.file_locations[k];
    str_append(out, k + 1, " {file_name_id=", l.file_name_id,
               " function_name_id=", l.function_name_id, " line=", l.line, " end_line=", l.end_line,
               " column=", l.column, " end_column=", l.end_column, "}\n");
  }
  out->append("\nStackFrames\n");
  for (size_t k = 0; k < t.frames.size(); ++k) {
    const StackFrame& f = t.frames[k];
    str_append(out, k + 1, " {file_location_id=", f.file_location_id,
               " parent_frame_id=", f.parent_frame_id, "}\n");
  }
  out->push_back('\n');
}

}  // namespace
}  // namespace hloroof::text

namespace hloroof {

std::string print(const Module& module) {
  std::string out;
  out.reserve(module.source().size() + module.source().size() / 8);
  text::append_header(&out, module);
  text::append_stack_frames(&out, module.stack_frames());
  absl::Span<Computation* const> computations = module.computations();
  for (size_t k = 0; k < computations.size(); ++k) {
    if (k > 0) out.append("\n\n");
    text::append_computation(&out, *computations[k]);
  }
  out.push_back('\n');
  return out;
}

std::string print(const Instruction& instruction) {
  std::string out;
  text::append_instruction_text(&out, instruction);
  return out;
}

}  // namespace hloroof
