// Python bindings of the module: Module, Computation, Instruction and their editing.
#include "module_guard.h"

namespace hloroof::python {
namespace {

// Computation.add_instruction: `opcode(operands...)` with `shape` (inferred when None, after the
// attributes are set from their text). On an error nothing is added.
Instruction* add_instruction(Computation& c, std::string_view opcode, std::string_view name,
                             const std::vector<Instruction*>& operands,
                             const std::optional<std::string>& shape,
                             const std::vector<std::pair<std::string, std::string>>& attributes,
                             Instruction* before) {
  std::optional<Opcode> op = opcode_from_name(opcode);
  if (!op) throw StatusError(absl::InvalidArgumentError(str_cat("unknown opcode '", opcode, "'")));
  if (!shape && *op == Opcode::kParameter) {
    throw StatusError(absl::InvalidArgumentError("a parameter needs its shape"));
  }
  Instruction* i = value_or_raise(
      c.add_instruction(*op, name, shape ? shape_or_raise(*shape) : Shape(), operands, before));
  absl::Status status;
  for (const auto& [key, value] : attributes) {
    status = set_attribute_from_text(*i, key, value);
    if (!status.ok()) break;
  }
  if (status.ok() && !shape) status = set_inferred_shape(*i);
  if (!status.ok()) {
    (void)c.remove_instruction(i);
    throw StatusError(status);
  }
  return i;
}

// Instruction's properties and editing methods.
void bind_instruction(py::class_<Instruction>& instruction) {
  instruction.def_property_readonly("name", &Instruction::name, "the name, without '%'")
      .def_property_readonly(
          "opcode", [](const Instruction& i) { return opcode_name(i.opcode()); },
          "the opcode as HLO text spells it, e.g. 'fusion', 'all-gather-start'")
      .def_property_readonly("shape", &shape_text, "the result shape as HLO text")
      .def_property_readonly(
          "operands",
          [](py::handle self) { return pointer_list(self.cast<Instruction&>().operands(), self); },
          "operand instructions, in order")
      .def_property_readonly(
          "users",
          [](py::handle self) { return pointer_list(self.cast<Instruction&>().users(), self); },
          "instructions that use this one")
      .def_property_readonly(
          "called_computations",
          [](py::handle self) {
            return pointer_list(self.cast<Instruction&>().called_computations(), self);
          },
          "computations it calls (fusion body, loop condition and body, to_apply, ...)")
      .def_property_readonly("computation", &Instruction::parent, kInternal,
                             "the computation it belongs to")
      .def_property_readonly("position", &Instruction::position,
                             "its place in its computation's schedule, from 0")
      .def_property_readonly("is_root", &Instruction::is_root, "the root of its computation")
      .def_property_readonly("parameter_number", &Instruction::parameter_number,
                             "parameter: its number; -1 otherwise")
      .def_property_readonly(
          "metadata",
          // Decoded on each read; the record's strings point into the module, which it keeps.
          py::cpp_function([](const Instruction& i) { return i.metadata(); },
                           py::keep_alive<0, 1>()),
          "source metadata, or None")
      .def_property_readonly(
          "op_name",
          [](const Instruction& i) { return std::string(i.op_name()); },
          "the metadata's op_name, e.g. 'jit(step)/layer_3/dot'; '' when none")
      .def_property_readonly(
          "attributes",
          [](const Instruction& i) {
            py::dict out;
            for (const Attribute& a : i.attributes()) out[py::str(a.name())] = py::str(a.text());
            return out;
          },
          "attribute name -> value text as written, e.g. {'dimensions': '{0,1}'}")
      .def(
          "set_shape",
          [](Instruction& i, std::string_view shape) {
            const Shape parsed = shape_or_raise(shape);
            check_editable(i);
            i.set_shape(parsed);
          },
          py::arg("shape"),
          "replaces the result shape (HLO text, e.g. 'f32[8]{0:S(1)}'); on the entry "
          "computation's parameters and root, the module header follows")
      .def(
          "replace_operand",
          [](Instruction& i, int64_t index, Instruction* operand) {
            if (index < 0 || static_cast<size_t>(index) >= i.operand_count()) {
              throw py::index_error(str_cat("replace_operand: ", i.name(), " has ",
                                            i.operand_count(), " operands; index ", index,
                                            " is none of them"));
            }
            check_editable(i);
            ok_or_raise(i.replace_operand(static_cast<size_t>(index), operand));
          },
          py::arg("index"), py::arg("operand"), "makes `operand` the index-th operand")
      .def(
          "replace_all_uses_with",
          [](Instruction& i, Instruction* other) {
            check_editable(i);
            ok_or_raise(i.replace_all_uses_with(other));
          },
          py::arg("other"), "makes every user use `other` instead (and it the root if this was)")
      .def(
          "set_attribute",
          [](Instruction& i, std::string_view name, std::string_view value) {
            check_editable(i);
            ok_or_raise(set_attribute_from_text(i, name, value));
          },
          py::arg("name"), py::arg("value"),
          "sets an attribute from its value text, as a module writes it: "
          "set_attribute('dimensions', '{1,0}'), set_attribute('calls', '%fused')")
      .def(
          "copy_attributes_from",
          [](Instruction& i, const Instruction& other) {
            check_editable(i);
            ok_or_raise(i.copy_attributes_from(other));
          },
          py::arg("other"),
          "sets every attribute to `other`'s (an instruction of the same module: a collective's "
          "on the async start that replaces it); its computations are called from here too, "
          "and this instruction's control-predecessors stay")
      .def(
          "remove_attribute",
          [](Instruction& i, std::string_view name) {
            std::optional<AttrId> id = attribute_from_name(name);
            if (!id) {
              throw StatusError(
                  absl::InvalidArgumentError(str_cat("unknown attribute '", name, "'")));
            }
            check_editable(i);
            i.remove_attribute(*id);
          },
          py::arg("name"), "removes an attribute (nothing when absent)")
      .def(
          "set_dimensions",
          [](Instruction& i, const std::vector<int64_t>& dimensions) {
            check_editable(i);
            ok_or_raise(i.set_dimensions(dimensions));
          },
          py::arg("dimensions"), "sets dimensions={...}")
      .def(
          "infer_shape",
          [](const Instruction& i) { return to_string(value_or_raise(infer_shape(i))); },
          "the shape its operands and attributes give (ValueError when they give none)")
      .def("__repr__", &instruction_repr);
}

// Computation's properties and editing methods.
void bind_computation(py::class_<Computation>& computation) {
  computation.def_property_readonly("name", &Computation::name, "the name, without '%'")
      .def_property_readonly("is_entry", &Computation::is_entry, "the ENTRY computation")
      .def_property_readonly("execution_thread", &Computation::execution_thread,
                             "'main' unless the text names another thread")
      .def_property_readonly(
          "instructions",
          [](py::handle self) {
            return pointer_list(self.cast<Computation&>().instructions(), self);
          },
          "instructions in schedule (printed) order")
      .def_property_readonly("root", &Computation::root, kInternal, "the root instruction")
      .def_property_readonly(
          "parameters",
          [](py::handle self) {
            return pointer_list(self.cast<Computation&>().parameters(), self);
          },
          "parameter instructions by number")
      .def("instruction", &Computation::find_instruction, kInternal, py::arg("name"),
           "the instruction named `name` (without '%'), or None")
      .def("__len__", &Computation::instruction_count)
      .def(
          "add_instruction",
          [](Computation& c, std::string_view opcode, std::string_view name,
             const std::vector<Instruction*>& operands, const std::optional<std::string>& shape,
             const py::dict& attributes, Instruction* before) {
            std::vector<std::pair<std::string, std::string>> texts;
            for (const auto& [key, value] : attributes) {
              texts.emplace_back(py::cast<std::string>(key), py::cast<std::string>(value));
            }
            check_editable(&c);
            return add_instruction(c, opcode, name, operands, shape, texts, before);
          },
          kInternal, py::arg("opcode"), py::arg("name"),
          py::arg("operands") = std::vector<Instruction*>(), py::arg("shape") = py::none(),
          py::arg("attributes") = py::dict(), py::arg("before") = nullptr,
          "adds `opcode(operands...)` before `before` (at the end when None): `shape` as HLO "
          "text, or None to infer it once `attributes` ({name: value text}, in order) are set; "
          "the name gets a .N suffix when taken")
      .def(
          "remove_instruction",
          [](Computation& c, Instruction* i) {
            check_editable(&c);
            ok_or_raise(c.remove_instruction(i));
          },
          py::arg("instruction"), "removes an instruction without users that is not the root")
      .def(
          "replace_instruction",
          [](Computation& c, Instruction* old_instruction, Instruction* new_instruction) {
            check_editable(&c);
            ok_or_raise(c.replace_instruction(old_instruction, new_instruction));
          },
          py::arg("old"), py::arg("new"), "old's users use new, and old is removed")
      .def(
          "set_root",
          [](Computation& c, Instruction* i) {
            check_editable(&c);
            ok_or_raise(c.set_root(i));
          },
          py::arg("instruction"), "makes one of its instructions the root")
      .def("__repr__", [](const Computation& c) {
        return str_cat("<hloroof.Computation %", c.name(), ": ", c.instruction_count(),
                       " instructions>");
      });
}

}  // namespace

void bind_module(py::module_& m) {
  Record<OpMetadata>(m, "OpMetadata", "Source metadata of an instruction (`metadata={...}`).")
      .field("op_type", &OpMetadata::op_type, "framework op type, e.g. 'dot_general'")
      .field("op_name", &OpMetadata::op_name, "framework op name, e.g. 'jit(f)/layer_0/dot'")
      .field("source_file", &OpMetadata::source_file, "Python file of the op")
      .field("source_line", &OpMetadata::source_line, "line in source_file (0: none)")
      .field("source_end_line", &OpMetadata::source_end_line, "last line (0: none)")
      .field("source_column", &OpMetadata::source_column, "column (0: none)")
      .field("source_end_column", &OpMetadata::source_end_column, "last column (0: none)")
      .field("deduplicated_name", &OpMetadata::deduplicated_name, "XLA's deduplicated name")
      .field("scheduling_name", &OpMetadata::scheduling_name, "XLA's scheduling name")
      .field("stack_frame_id", &OpMetadata::stack_frame_id,
             "1-based row of the module's StackFrames table (0: none)")
      .done();

  auto instruction = py::class_<Instruction>(m, "Instruction", "One HLO instruction.");
  auto computation =
      py::class_<Computation>(m, "Computation", "A named list of instructions in schedule order.");
  bind_instruction(instruction);
  bind_computation(computation);
}

void bind_module_class(py::module_& m) {
  Record<Diagnostics>(m, "Diagnostics",
                      "What a step said beside its result, one sentence each: reading a module "
                      "(Module.diagnostics), choosing a device.")
      .field("notes", &Diagnostics::notes,
             "what was read or chosen: which module of a dump directory or a profile")
      .field("warnings", &Diagnostics::warnings,
             "what the figures do not assume: HLO before optimization, ...")
      .done();
  // Dynamic attributes: what loading the module said (`_diagnostics`, set by _load).
  py::class_<Module>(m, "Module", "A parsed HLO module. str() and print() give its text.",
                     py::dynamic_attr())
      .def_property_readonly("name", &Module::name, "the HloModule name")
      .def_property_readonly(
          "diagnostics",
          [](py::handle self) {
            py::object said = py::getattr(self, "_diagnostics", py::none());
            return said.is_none() ? Diagnostics{} : said.cast<Diagnostics>();
          },
          "what reading it said (Diagnostics): which module of a dump directory or profile was "
          "read (notes), HLO before optimization (warnings); the results made from it say the "
          "same, first")
      .def_property_readonly(
          "computations",
          [](py::handle self) { return pointer_list(self.cast<Module&>().computations(), self); },
          "computations, every callee before its callers")
      .def_property_readonly("entry", &Module::entry, kInternal, "the ENTRY computation")
      .def_property_readonly("instruction_count", &Module::instruction_count,
                             "instructions over all computations")
      .def_property_readonly(
          "is_scheduled", [](const Module& mod) { return mod.attributes().is_scheduled; },
          "is_scheduled=true: the printed order is the execution order")
      .def_property_readonly(
          "replica_count", [](const Module& mod) { return mod.attributes().replica_count; },
          "replica_count of the header (1 when absent)")
      .def_property_readonly(
          "num_partitions", [](const Module& mod) { return mod.attributes().num_partitions; },
          "num_partitions of the header (1 when absent)")
      .def("computation", &Module::find_computation, kInternal, py::arg("name"),
           "the computation named `name` (without '%'), or None")
      .def_property_readonly("entry_marked", &Module::entry_marked,
                             "False when the text marked no computation ENTRY (a dump cut off "
                             "before its end?): predict refuses such a module until set_entry "
                             "names the computation to take as the step")
      .def(
          "set_entry",
          [](Module& mod, std::string_view name) {
            check_editable(&mod);
            absl::Status s = mod.set_entry(name);
            if (!s.ok()) throw StatusError(s);
          },
          py::arg("name"),
          "takes the computation named `name` as the entry, the step predict, memory and cost "
          "start from (as hloroof's --entry NAME); ValueError when there is none of that name")
      .def(
          "add_computation",
          [](Module& mod, std::string_view name) {
            check_editable(&mod);
            return value_or_raise(mod.add_computation(name));
          },
          kInternal, py::arg("name"),
          "a new, empty computation, printed before the entry (add instructions to it)")
      .def(
          "clone_computation",
          [](Module& mod, const Computation& c, std::string_view name) {
            check_editable(&mod);
            return value_or_raise(mod.clone_computation(c, name));
          },
          kInternal, py::arg("computation"), py::arg("name"),
          "a copy of one of its computations, named `name`")
      .def(
          "remove_computation",
          [](Module& mod, Computation* c) {
            check_editable(&mod);
            ok_or_raise(mod.remove_computation(c));
          },
          py::arg("computation"), "removes a computation nothing calls (not the entry)")
      .def(
          "verify",
          [](const Module& mod) {
            absl::Status status;
            {
              ModuleUse use(mod, /*verify_edits=*/false);
              GilRelease release;
              status = verify(mod);
            }
            ok_or_raise(status);
          },
          "the parser's checks, and shapes against inference, on the module as it now is: "
          "ValueError naming the computation, instruction and rule that fails")
      .def(
          "print",
          [](const Module& mod) {
            ModuleUse use(mod, /*verify_edits=*/false);
            GilRelease release;
            return print(mod);
          },
          "the canonical HLO text of the module (parse(m.print()) gives the same module)")
      .def(
          "as_text",
          [](const Module& mod) {
            ModuleUse use(mod, /*verify_edits=*/false);
            GilRelease release;
            return print(mod);
          },
          "the same as print(), so that a Module goes wherever text does")
      .def("__str__",
           [](const Module& mod) {
             ModuleUse use(mod, /*verify_edits=*/false);
             GilRelease release;
             return print(mod);
           })
      .def("__repr__", [](const Module& mod) {
        return str_cat("<hloroof.Module ", mod.name(), ": ", mod.computations().size(),
                       " computations, ", mod.instruction_count(), " instructions>");
      });
}

}  // namespace hloroof::python
