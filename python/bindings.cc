// The compiled half of the `hloroof` Python package: the library's records as Python classes.
// The pure-Python half (hloroof/__init__.py) accepts text, JAX objects and options, and adds
// to_dict() and to_pandas(); its type stubs are hloroof/_hloroof.pyi.
//
// Every record field is registered through Record::field, which binds it read-only and lists its
// name in the class's `_fields` tuple (to_dict() and the tests walk that tuple): a new C++ field
// is one line here, plus one in _hloroof.pyi.
// Results that point into a module (instructions, computations) keep it alive; the GIL is
// released while the library parses, costs, predicts or prints.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl_bind.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/status/statusor.h"
#include "hloroof/advise.h"
#include "hloroof/analysis_json.h"
#include "hloroof/cost.h"
#include "hloroof/device.h"
#include "hloroof/device_target.h"
#include "hloroof/diff.h"
#include "hloroof/edit.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/hlo_text.h"
#include "hloroof/input_file.h"
#include "hloroof/memory.h"
#include "hloroof/output_file.h"
#include "hloroof/platform.h"
#include "hloroof/predict.h"
#include "hloroof/profile.h"
#include "hloroof/report.h"
#include "hloroof/summary_json.h"
#include "hloroof/version.h"
#include "hloroof/xspace.h"

namespace py = pybind11;

// Vectors of records that point into a module or a prediction stay C++ vectors, indexed in
// place: their elements keep their owner alive, and a long list is not copied on each access.
PYBIND11_MAKE_OPAQUE(std::vector<hloroof::OpPrediction>)
PYBIND11_MAKE_OPAQUE(std::vector<hloroof::TimelineEvent>)
PYBIND11_MAKE_OPAQUE(std::vector<hloroof::InstructionCost>)
PYBIND11_MAKE_OPAQUE(std::vector<hloroof::ComputationCost>)

namespace hloroof::python {
namespace {

constexpr auto kInternal = py::return_value_policy::reference_internal;

// A library error on its way to Python: a ParseError when it points into the text, else a
// ValueError, either with the message the command-line tool prints.
class StatusError : public std::exception {
 public:
  explicit StatusError(absl::Status status)
      : status_(std::move(status)), message_(status_.message()) {}
  const char* what() const noexcept override { return message_.c_str(); }
  const absl::Status& status() const { return status_; }

 private:
  absl::Status status_;
  std::string message_;
};

// Debian's abseil has its own string_view, which StrCat does not take: text is built here.
template <typename T>
void append_one(std::string* out, const T& piece) {
  if constexpr (std::is_integral_v<T>) {
    out->append(std::to_string(piece));
  } else if constexpr (std::is_floating_point_v<T>) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.4g", static_cast<double>(piece));
    out->append(buffer);
  } else {
    out->append(std::string_view(piece));
  }
}
template <typename... Parts>
void append(std::string* out, const Parts&... parts) {
  (append_one(out, parts), ...);
}
template <typename... Parts>
std::string cat(const Parts&... parts) {
  std::string out;
  append(&out, parts...);
  return out;
}

template <typename T>
T value_or_raise(absl::StatusOr<T> result) {
  if (!result.ok()) throw StatusError(result.status());
  return *std::move(result);
}

py::object& parse_error_type() {
  static py::object* type = nullptr;  // set once at import, lives with the interpreter
  if (type == nullptr) type = new py::object();
  return *type;
}

void raise_status(const StatusError& error) {
  const absl::Status& status = error.status();
  std::optional<ParseErrorLocation> where = parse_error_location(status);
  if (!where) {
    PyErr_SetString(PyExc_ValueError, error.what());
    return;
  }
  py::object exception = parse_error_type()(error.what());
  exception.attr("line") = where->line;
  exception.attr("column") = where->column;
  exception.attr("reason") = where->message;
  PyErr_SetObject(parse_error_type().ptr(), exception.ptr());
}

// Binds a record: each field read-only, its name listed in `_fields`.
template <typename T, typename... Extra>
class Record {
 public:
  Record(py::handle scope, const char* name, const char* doc) : class_(scope, name, doc) {}
  // A record that also takes attributes Python sets on it (a prediction keeps its module).
  Record(py::handle scope, const char* name, const char* doc, py::dynamic_attr attr)
      : class_(scope, name, doc, attr) {}

  template <typename M>
  Record& field(const char* name, M T::*member, const char* doc) {
    class_.def_readonly(name, member, doc);
    names_.push_back(name);
    return *this;
  }
  // A field Python may set (options).
  template <typename M>
  Record& option(const char* name, M T::*member, const char* doc) {
    class_.def_readwrite(name, member, doc);
    names_.push_back(name);
    return *this;
  }
  // A settable field with its own conversion (an enum read and written by name).
  template <typename Getter, typename Setter>
  Record& property(const char* name, Getter getter, Setter setter, const char* doc) {
    class_.def_property(name, getter, setter, doc);
    names_.push_back(name);
    return *this;
  }
  // A field computed from the record (a name for an enum, a list for a span, ...).
  template <typename Getter>
  Record& computed(const char* name, Getter getter, const char* doc,
                   py::return_value_policy policy = py::return_value_policy::automatic) {
    class_.def_property_readonly(name, py::cpp_function(getter, policy), doc);
    names_.push_back(name);
    return *this;
  }
  py::class_<T, Extra...>& cls() { return class_; }
  // Call last: publishes `_fields`.
  py::class_<T, Extra...>& done() {
    class_.attr("_fields") = py::tuple(py::cast(names_));
    return class_;
  }

 private:
  py::class_<T, Extra...> class_;
  std::vector<std::string> names_;
};

template <typename Span>
py::list pointer_list(const Span& items, py::handle parent) {
  py::list out(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    out[i] = py::cast(items[i], kInternal, parent);
  }
  return out;
}

std::string shape_text(const Instruction& i) { return to_string(i.shape()); }

std::string instruction_repr(const Instruction& i) {
  std::string operands;
  for (const Instruction* o : i.operands()) {
    append(&operands, operands.empty() ? "" : ", ", "%", o->name());
  }
  return cat("<hloroof.Instruction %", i.name(), " = ", shape_text(i), " ", opcode_name(i.opcode()),
             "(", operands, ")>");
}

void ok_or_raise(const absl::Status& status) {
  if (!status.ok()) throw StatusError(status);
}

Shape shape_or_raise(std::string_view text) { return value_or_raise(parse_shape(text)); }

// Computation.add_instruction: `opcode(operands...)` with `shape` (inferred when None, after the
// attributes are set from their text). On an error nothing is added.
Instruction* add_instruction(Computation& c, std::string_view opcode, std::string_view name,
                             const std::vector<Instruction*>& operands,
                             const std::optional<std::string>& shape,
                             const std::vector<std::pair<std::string, std::string>>& attributes,
                             Instruction* before) {
  std::optional<Opcode> op = opcode_from_name(opcode);
  if (!op) throw StatusError(absl::InvalidArgumentError(cat("unknown opcode '", opcode, "'")));
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

// ---- The module.

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
          [](Instruction& i, std::string_view shape) { i.set_shape(shape_or_raise(shape)); },
          py::arg("shape"),
          "replaces the result shape (HLO text, e.g. 'f32[8]{0:S(1)}'); on the entry "
          "computation's parameters and root, the module header follows")
      .def(
          "replace_operand",
          [](Instruction& i, size_t index, Instruction* operand) {
            ok_or_raise(i.replace_operand(index, operand));
          },
          py::arg("index"), py::arg("operand"), "makes `operand` the index-th operand")
      .def(
          "replace_all_uses_with",
          [](Instruction& i, Instruction* other) { ok_or_raise(i.replace_all_uses_with(other)); },
          py::arg("other"), "makes every user use `other` instead (and it the root if this was)")
      .def(
          "set_attribute",
          [](Instruction& i, std::string_view name, std::string_view value) {
            ok_or_raise(set_attribute_from_text(i, name, value));
          },
          py::arg("name"), py::arg("value"),
          "sets an attribute from its value text, as a module writes it: "
          "set_attribute('dimensions', '{1,0}'), set_attribute('calls', '%fused')")
      .def(
          "copy_attributes_from",
          [](Instruction& i, const Instruction& other) {
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
              throw StatusError(absl::InvalidArgumentError(cat("unknown attribute '", name, "'")));
            }
            i.remove_attribute(*id);
          },
          py::arg("name"), "removes an attribute (nothing when absent)")
      .def(
          "set_dimensions",
          [](Instruction& i, const std::vector<int64_t>& dimensions) {
            ok_or_raise(i.set_dimensions(dimensions));
          },
          py::arg("dimensions"), "sets dimensions={...}")
      .def(
          "infer_shape",
          [](const Instruction& i) { return to_string(value_or_raise(infer_shape(i))); },
          "the shape its operands and attributes give (ValueError when they give none)")
      .def("__repr__", &instruction_repr);

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
          [](Computation& c, Instruction* i) { ok_or_raise(c.remove_instruction(i)); },
          py::arg("instruction"), "removes an instruction without users that is not the root")
      .def(
          "replace_instruction",
          [](Computation& c, Instruction* old_instruction, Instruction* new_instruction) {
            ok_or_raise(c.replace_instruction(old_instruction, new_instruction));
          },
          py::arg("old"), py::arg("new"), "old's users use new, and old is removed")
      .def(
          "set_root", [](Computation& c, Instruction* i) { ok_or_raise(c.set_root(i)); },
          py::arg("instruction"), "makes one of its instructions the root")
      .def("__repr__", [](const Computation& c) {
        return cat("<hloroof.Computation %", c.name(), ": ", c.instruction_count(),
                   " instructions>");
      });

  py::class_<Module>(m, "Module", "A parsed HLO module. str() and print() give its text.")
      .def_property_readonly("name", &Module::name, "the HloModule name")
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
            absl::Status s = mod.set_entry(name);
            if (!s.ok()) throw StatusError(s);
          },
          py::arg("name"),
          "takes the computation named `name` as the entry, the step predict, memory and cost "
          "start from (as hloroof's --entry NAME); ValueError when there is none of that name")
      .def(
          "add_computation",
          [](Module& mod, std::string_view name) {
            return value_or_raise(mod.add_computation(name));
          },
          kInternal, py::arg("name"),
          "a new, empty computation, printed before the entry (add instructions to it)")
      .def(
          "clone_computation",
          [](Module& mod, const Computation& c, std::string_view name) {
            return value_or_raise(mod.clone_computation(c, name));
          },
          kInternal, py::arg("computation"), py::arg("name"),
          "a copy of one of its computations, named `name`")
      .def(
          "remove_computation",
          [](Module& mod, Computation* c) { ok_or_raise(mod.remove_computation(c)); },
          py::arg("computation"), "removes a computation nothing calls (not the entry)")
      .def(
          "verify",
          [](const Module& mod) {
            absl::Status status;
            {
              py::gil_scoped_release release;
              status = verify(mod);
            }
            ok_or_raise(status);
          },
          "the parser's checks, and shapes against inference, on the module as it now is: "
          "ValueError naming the computation, instruction and rule that fails")
      .def(
          "print",
          [](const Module& mod) {
            py::gil_scoped_release release;
            return print(mod);
          },
          "the canonical HLO text of the module (parse(m.print()) gives the same module)")
      .def(
          "as_text",
          [](const Module& mod) {
            py::gil_scoped_release release;
            return print(mod);
          },
          "the same as print(), so that a Module goes wherever text does")
      .def("__str__",
           [](const Module& mod) {
             py::gil_scoped_release release;
             return print(mod);
           })
      .def("__repr__", [](const Module& mod) {
        return cat("<hloroof.Module ", mod.name(), ": ", mod.computations().size(),
                   " computations, ", mod.instruction_count(), " instructions>");
      });

  m.def(
      "_parse",
      [](std::string_view text, const std::string& file_name) {
        absl::StatusOr<Module> module;
        {
          py::gil_scoped_release release;
          module = parse_module(text, ParseOptions{.file_name = file_name});
        }
        return value_or_raise(std::move(module));
      },
      py::arg("text"), py::arg("file_name") = "");
  m.def(
      "_read_proto",
      [](py::bytes data, const std::string& file_name) -> std::optional<Module> {
        // The bytes are told apart and read in one parse; they are not copied (a bytes object
        // does not change, and `data` holds it while the GIL is released).
        const std::string_view bytes = data;
        absl::StatusOr<Module> module;
        InputKind kind = InputKind::kEmpty;
        {
          py::gil_scoped_release release;
          const std::string origin = file_name.empty() ? std::string("<bytes>") : file_name;
          ParsedHloProto proto;
          kind = detect_input_kind(bytes, &proto);
          if (kind == InputKind::kHloProto) {
            module = proto.module(ParseOptions{.file_name = origin});
          } else if (kind == InputKind::kXSpace) {
            // The module that ran longest in the profile, as the command reads it.
            absl::StatusOr<Profile> profile = parse_xspace(bytes, origin);
            if (!profile.ok()) {
              module = profile.status();
            } else {
              absl::StatusOr<const ProfileModuleProto*> picked =
                  pick_profile_module(*profile, "");
              module = picked.ok() ? parse_hlo_proto((*picked)->hlo_proto,
                                                     ParseOptions{.file_name = origin})
                                   : absl::StatusOr<Module>(picked.status());
            }
          }
        }
        if (kind != InputKind::kHloProto && kind != InputKind::kXSpace) return std::nullopt;
        return value_or_raise(std::move(module));
      },
      py::arg("data"), py::arg("file_name") = "",
      "The Module of an HloProto, an HloModuleProto or an XSpace carrying modules; None for "
      "other bytes.");
}

// ---- Devices.

void bind_device(py::module_& m) {
  Record<DeviceFigure>(m, "DeviceFigure", "One numeric fact of a device spec and its source.")
      .field("path", &DeviceFigure::path, "JSON path, e.g. 'hbm.bandwidth'")
      .field("value", &DeviceFigure::value, "the value, in `unit`")
      .field("unit", &DeviceFigure::unit, "base unit: 'B', 'B/s', 'FLOP/s', 's', ...")
      .field("source", &DeviceFigure::source, "where it comes from (a source tag, 'assumed', ...)")
      .field("verified", &DeviceFigure::verified, "False: a configurable default, not a fact")
      .field("note", &DeviceFigure::note, "derivation or remark")
      .field("alternatives", &DeviceFigure::alternatives, "other published values, not used")
      .done();

  Record<DeviceSpec>(m, "DeviceSpec",
                     "What an accelerator can do. Every number in base units (B, B/s, FLOP/s, s).")
      .field("name", &DeviceSpec::name, "e.g. 'tpu_v5e'")
      .field("display_name", &DeviceSpec::display_name, "e.g. 'Google TPU v5e'")
      .field("aliases", &DeviceSpec::aliases, "other names it goes by")
      .computed(
          "kind", [](const DeviceSpec& d) { return device_kind_name(d.kind); }, "'tpu' or 'gpu'")
      .field("origin", &DeviceSpec::origin, "built-in file or the path it was read from")
      .field("device_note", &DeviceSpec::device_note, "what one JAX device is")
      .field("base", &DeviceSpec::base,
             "built-in device whose measured tables apply ('' for its own name)")
      .field("matrix_flops_per_s", &DeviceSpec::matrix_flops_per_s,
             "peak matrix FLOP/s by type class ('bf16', 'int8', 'fp8', ...)")
      .field("vector_flops_per_s", &DeviceSpec::vector_flops_per_s, "vector unit, FLOP/s")
      .field("transcendentals_per_s", &DeviceSpec::transcendentals_per_s, "op/s")
      .field("hbm_capacity_bytes", &DeviceSpec::hbm_capacity_bytes, "B")
      .field("hbm_bandwidth", &DeviceSpec::hbm_bandwidth, "B/s")
      .field("on_chip_memory_name", &DeviceSpec::on_chip_memory_name, "'VMEM', 'L2', ...")
      .field("on_chip_capacity_bytes", &DeviceSpec::on_chip_capacity_bytes, "B")
      .field("on_chip_bandwidth", &DeviceSpec::on_chip_bandwidth, "B/s, or None when unknown")
      .field("host_bandwidth", &DeviceSpec::host_bandwidth, "host<->device B/s each way, or None")
      .field("per_op_overhead_s", &DeviceSpec::per_op_overhead_s, "fixed cost of each op, s")
      .field("matmul_efficiency", &DeviceSpec::matmul_efficiency, "fraction of matrix peak")
      .field("hbm_efficiency", &DeviceSpec::hbm_efficiency, "fraction of HBM bandwidth")
      .field("figures", &DeviceSpec::figures, "every numeric fact with its source")
      .field("notes", &DeviceSpec::notes, "remarks of the spec")
      .computed(
          "torus_rank", [](const DeviceSpec& d) { return d.torus ? d.torus->rank : 0; },
          "axes of the TPU's ICI torus (2 or 3); 0 for a GPU")
      .computed(
          "devices_per_chip",
          [](const DeviceSpec& d) { return d.torus ? d.torus->devices_per_chip : 1; },
          "JAX devices per chip: 2 where each TensorCore is one (TPU v2, v3, TPU7x), else 1")
      .done()
      .def("__repr__",
           [](const DeviceSpec& d) {
             return cat("<hloroof.DeviceSpec ", d.name, ": ", d.display_name, ">");
           })
      .def(
          "to_json", [](const DeviceSpec& d) { return value_or_raise(device_spec_to_json(d)); },
          "The spec as `hloroof devices NAME --json` prints it (a file of it reads back as the "
          "device).");
  m.def(
      "device_summaries_to_json",
      [](const std::vector<DeviceSpec>& specs) {
        return value_or_raise(device_summaries_to_json(specs));
      },
      py::arg("devices"), "The JSON of `hloroof devices --json`, for these devices.");

  m.def(
      "_device", [](std::string_view name) { return value_or_raise(device(name)); },
      py::arg("name"));
  m.def("devices", &builtin_device_names, "Names of the built-in device specs, sorted.");
  m.def("_infer_platform", &infer_platform, py::arg("module"),
        "'gpu', 'tpu', 'cpu', 'neuron' or '' (nothing tells): what the compiler left in the "
        "module says.");
  m.def(
      "_default_device",
      [](const Module& module) {
        DefaultDevice d = default_device(module, "device=");
        return py::make_tuple(d.device, d.decided, d.note);
      },
      py::arg("module"),
      "(device, decided, note): the device a module is predicted on when none is given.");
  Record<DeviceTarget>(m, "DeviceTarget",
                       "A checked device and slice, as resolve_device gives them.")
      .field("spec", &DeviceTarget::spec, "the device")
      .field("topology", &DeviceTarget::topology, "the slice ('4x4'); '' when inferred")
      .computed(
          "source",
          [](const DeviceTarget& t) { return std::string(device_source_name(t.source)); },
          "how it was chosen: 'named', 'platform' (the module's), 'guess'")
      .field("notes", &DeviceTarget::notes, "what a report's assumptions say of it")
      .field("warnings", &DeviceTarget::warnings, "what a report says first: a guessed device")
      .done();
  m.def(
      "_resolve_device",
      [](std::string_view text, const Module* module, const std::string& topology,
         std::vector<std::string> settings) {
        absl::StatusOr<DeviceTarget> t;
        {
          py::gil_scoped_release release;
          t = resolve_device(text, module,
                             {.topology = topology,
                              .settings = std::move(settings),
                              .device_option = "device=",
                              .topology_option = "topology="});
        }
        return value_or_raise(std::move(t));
      },
      py::arg("text"), py::arg("module").none(true), py::arg("topology"),
      py::arg("settings") = std::vector<std::string>(),
      "The command's --device rule (hloroof/device_target.h), with Python's argument names.");
  m.def(
      "_check_slice",
      [](const DeviceSpec& spec, std::string_view topology) {
        if (absl::Status s = check_slice(spec, topology); !s.ok()) throw StatusError(s);
      },
      py::arg("spec"), py::arg("topology"),
      "Raises ValueError for a slice no such device has (the command's rule).");
  m.def(
      "_device_for_kind",
      [](std::string_view kind) {
        KindDevice d = device_for_kind(kind);
        return py::make_tuple(d.device, d.platform, d.exact);
      },
      py::arg("kind"),
      "(device, platform, exact): the built-in device of a JAX device kind ('' when none).");
  m.attr("_DEFAULT_TPU_DEVICE") = std::string(kDefaultTpuDevice);
  m.attr("_DEFAULT_GPU_DEVICE") = std::string(kDefaultGpuDevice);
}

// ---- Cost.

void bind_cost(py::module_& m) {
  Record<CostOptions>(m, "CostOptions", "Options of cost(); pass them as keywords.")
      .option("use_padded_sizes", &CostOptions::use_padded_sizes,
              "measure bytes with the layout's tiles applied")
      .option("default_trip_count", &CostOptions::default_trip_count,
              "trip count assumed for a loop whose count cannot be told")
      .option("fused_records", &CostOptions::fused_records,
              "keep every fused and applied instruction's record (else a collective's only)")
      .done()
      .def(py::init<>());

  Record<SpaceBytes>(m, "SpaceBytes", "Bytes by memory space.")
      .field("device", &SpaceBytes::device, "S(0): HBM")
      .field("on_chip", &SpaceBytes::on_chip, "S(1) and other on-chip spaces")
      .field("host", &SpaceBytes::host, "S(5), S(6): host memory")
      .done();

  Record<OpCost>(m, "OpCost", "The work of one execution of an instruction, callees included.")
      .field("flops", &OpCost::flops, "all FLOPs")
      .computed("matrix_flops", &OpCost::matrix_flops, "matrix-unit FLOPs")
      .computed("vector_flops", &OpCost::vector_flops, "other FLOPs")
      .computed(
          "matrix_flops_by_type",
          [](const OpCost& c) {
            py::dict out;
            for (const MatrixFlops& f : c.matrix) {
              out[py::str(primitive_type_name(f.type))] = f.flops;
            }
            return out;
          },
          "matrix FLOPs by operand element type, e.g. {'bf16': 2.1e9}")
      .field("transcendentals", &OpCost::transcendentals, "exp, log, tanh, ...")
      .computed("bytes", &OpCost::bytes, "logical bytes read and written, every memory space")
      .field("bytes_read", &OpCost::bytes_read, "logical bytes read")
      .field("bytes_written", &OpCost::bytes_written, "logical bytes written")
      .field("padded_read", &OpCost::padded_read, "bytes read, padded by tiles, by space")
      .field("padded_written", &OpCost::padded_written, "bytes written, padded, by space")
      .computed("padded_bytes", &OpCost::padded_bytes, "padded bytes, every space")
      .computed("hbm_bytes", &OpCost::hbm_bytes, "padded bytes in device memory (HBM)")
      .computed("on_chip_bytes", &OpCost::on_chip_bytes, "padded bytes in on-chip memory")
      .computed("host_bytes", &OpCost::host_bytes, "padded bytes in host memory")
      .field("xla_flops", &OpCost::xla_flops, "XLA's cost_analysis() count (loops once)")
      .field("xla_transcendentals", &OpCost::xla_transcendentals, "XLA's count")
      .field("xla_bytes_accessed", &OpCost::xla_bytes_accessed, "XLA's count")
      .field("unknown_ops", &OpCost::unknown_ops, "instructions whose cost could not be told")
      .done();

  Record<CollectiveCost>(m, "CollectiveCost", "A collective's payload and groups.")
      .computed(
          "kind", [](const CollectiveCost& c) { return collective_kind_name(c.kind); },
          "'all-gather', 'all-reduce', ...")
      .field("is_async", &CollectiveCost::is_async, "started here, finished by a -done")
      .field("is_host_transfer", &CollectiveCost::is_host_transfer, "send/recv to the host")
      .computed(
          "id_mode", [](const CollectiveCost& c) { return id_mode_name(c.id_mode); },
          "what replica_groups ids mean: 'cross-replica', 'flattened-id', ...")
      .field("channel_id", &CollectiveCost::channel_id, "channel_id, or None")
      .field("payload_bytes", &CollectiveCost::payload_bytes, "V: the full array of one group, B")
      .field("group_size", &CollectiveCost::group_size, "N: devices per group")
      .field("groups", &CollectiveCost::groups, "every group as global device ids")
      .field("pairs", &CollectiveCost::pairs, "collective-permute: (source, target) ids")
      .done();

  Record<TripCount>(m, "TripCount", "A while loop's trip count and where it came from.")
      .field("count", &TripCount::count, "executions of the body")
      .computed(
          "source", [](const TripCount& t) { return trip_count_source_name(t.source); },
          "'backend_config', 'derived' or 'assumed'")
      .done();

  Record<InstructionCost>(m, "InstructionCost", "The cost of one instruction.")
      .computed(
          "computation", [](const InstructionCost& c) { return c.computation; }, "its computation",
          kInternal)
      .computed(
          "instruction", [](const InstructionCost& c) { return c.instruction; }, "the instruction",
          kInternal)
      .computed(
          "role", [](const InstructionCost& c) { return cost_role_name(c.role); },
          "'scheduled', 'fused' or 'applied'")
      .field("multiplier", &InstructionCost::multiplier, "executions per step")
      .field("cost", &InstructionCost::cost, "one execution")
      .field("unknown", &InstructionCost::unknown, "its own cost could not be told")
      .computed(
          "collective", [](const InstructionCost& c) { return c.collective.get(); },
          "collectives: payload and groups", kInternal)
      .computed(
          "trip_count", [](const InstructionCost& c) { return c.trip_count.get(); },
          "while loops: the trip count", kInternal)
      .done();

  Record<ComputationCost>(m, "ComputationCost", "The cost of one computation.")
      .computed(
          "computation", [](const ComputationCost& c) { return c.computation; }, "the computation",
          kInternal)
      .computed(
          "role", [](const ComputationCost& c) { return cost_role_name(c.role); },
          "'scheduled', 'fused' or 'applied'")
      .field("multiplier", &ComputationCost::multiplier, "executions per step")
      .field("per_execution", &ComputationCost::per_execution, "sum of its instructions")
      .done();

  py::bind_vector<std::vector<InstructionCost>>(m, "InstructionCostList");
  py::bind_vector<std::vector<ComputationCost>>(m, "ComputationCostList");

  Record<ModuleCost>(m, "ModuleCost", "The static cost of a module: every instruction and a step.")
      .field("module_name", &ModuleCost::module_name, "the HloModule name")
      .field("instructions", &ModuleCost::instructions,
             "callers first (entry first), instructions in schedule order")
      .field("computations", &ModuleCost::computations, "every computation")
      .field("totals", &ModuleCost::totals, "one step, loops expanded by their trip counts")
      .field("unknown", &ModuleCost::unknown, "instructions whose cost could not be told")
      .field("notes", &ModuleCost::notes, "assumptions made, one line each")
      .field("is_lower_bound", &ModuleCost::is_lower_bound,
             "a trip count was assumed or a cost is unknown: the totals are a floor")
      .done()
      .def(
          "to_json", [](const ModuleCost& cost) { return cost_to_json(cost); },
          "The JSON object of `hloroof cost --json` (the keys of to_dict()).");

  m.def(
      "_cost",
      [](const Module& module, const CostOptions& options) {
        absl::StatusOr<ModuleCost> cost;
        {
          py::gil_scoped_release release;
          cost = analyze_cost(module, options);
        }
        return value_or_raise(std::move(cost));
      },
      py::arg("module"), py::arg("options"), py::keep_alive<0, 1>());
}

// ---- Memory.

void bind_memory(py::module_& m) {
  Record<MemoryBuffer>(m, "MemoryBuffer", "One array buffer and its live range.")
      .field("id", &MemoryBuffer::id, "its number in this analysis (what shares_with names)")
      .field("name", &MemoryBuffer::name, "defining instruction, with a tuple index: 'ag.1{1}'")
      .field("instruction", &MemoryBuffer::instruction, "the defining instruction: 'ag.1'")
      .field("shape_index", &MemoryBuffer::shape_index, "the leaf's index in its result")
      .field("computation", &MemoryBuffer::computation, "where it is defined")
      .field("shape", &MemoryBuffer::shape, "the array, as text")
      .computed(
          "kind", [](const MemoryBuffer& b) { return buffer_kind_name(b.kind); },
          "'parameter', 'output', 'temporary' or 'constant'")
      .field("is_output", &MemoryBuffer::is_output, "reaches the entry root")
      .field("donated", &MemoryBuffer::donated, "a parameter whose buffer an output reuses")
      .field("logical_bytes", &MemoryBuffer::logical_bytes, "B")
      .field("padded_bytes", &MemoryBuffer::padded_bytes, "B, padded by the layout's tiles")
      .computed("padding_waste_bytes", &MemoryBuffer::padding_waste_bytes, "padded - logical, B")
      .field("memory_space", &MemoryBuffer::memory_space, "S(n)")
      .computed(
          "memory", [](const MemoryBuffer& b) { return memory_tier_name(b.tier()); },
          "'device', 'on_chip' or 'host'")
      .field("live_from", &MemoryBuffer::live_from, "first instruction it is live at")
      .field("live_to", &MemoryBuffer::live_to, "last instruction it is live at")
      .field("allocation", &MemoryBuffer::allocation, "index in allocations; -1: none of its own")
      .field("allocation_offset", &MemoryBuffer::allocation_offset, "B into its allocation")
      .field("program_from", &MemoryBuffer::program_from,
             "first position its allocation holds it, bodies laid out where they run; -1: none")
      .field("program_to", &MemoryBuffer::program_to, "last such position; -1: none")
      .field("shares_with", &MemoryBuffer::shares_with,
             "id of the dying operand whose bytes it takes over, or -1")
      .done();

  Record<MemoryAllocation>(m, "MemoryAllocation", "One allocation of the buffer assignment.")
      .field("index", &MemoryAllocation::index, "its index")
      .computed(
          "kind", [](const MemoryAllocation& a) { return allocation_kind_name(a.kind); },
          "'parameter', 'output', 'temp' or 'constant'")
      .field("bytes", &MemoryAllocation::bytes, "B")
      .field("memory_space", &MemoryAllocation::memory_space, "S(n)")
      .field("maybe_live_out", &MemoryAllocation::maybe_live_out,
             "an output, or a parameter donated to one")
      .field("parameter_number", &MemoryAllocation::parameter_number, "parameters; else -1")
      .field("buffer_count", &MemoryAllocation::buffer_count, "buffers assigned to it")
      .field("buffers", &MemoryAllocation::buffers, "their names, largest first")
      .done();

  Record<MemoryBreakdown>(m, "MemoryBreakdown", "Device bytes by buffer kind.")
      .field("parameters", &MemoryBreakdown::parameters, "B")
      .field("outputs", &MemoryBreakdown::outputs, "B")
      .field("temporaries", &MemoryBreakdown::temporaries, "B")
      .field("constants", &MemoryBreakdown::constants, "B")
      .computed("total", &MemoryBreakdown::total, "B")
      .done();

  Record<PeakFrame>(m, "PeakFrame", "One level of where the peak happens.")
      .field("computation", &PeakFrame::computation, "computation name")
      .field("instruction", &PeakFrame::instruction, "the instruction running at the peak")
      .done();

  Record<LiveBytesPoint>(m, "LiveBytesPoint", "Live device bytes while an entry op runs.")
      .field("instruction", &LiveBytesPoint::instruction, "entry instruction")
      .field("device_bytes", &LiveBytesPoint::device_bytes, "B")
      .field("computation", &LiveBytesPoint::computation, "where it is: the entry, or a body")
      .field("depth", &LiveBytesPoint::depth, "0: the entry; 1: a body the entry runs; ...")
      .done();

  Record<CapacityCheck>(m, "CapacityCheck", "A memory figure against a device's HBM capacity.")
      .field("device", &CapacityCheck::device, "the spec's name")
      .field("capacity_bytes", &CapacityCheck::capacity_bytes, "B")
      .computed(
          "basis",
          [](const CapacityCheck& c) { return std::string(capacity_basis_name(c.basis)); },
          "the figure checked: 'footprint_bytes' or 'peak_bytes'")
      .field("checked_bytes", &CapacityCheck::checked_bytes, "B, the figure `basis` names")
      .field("fits", &CapacityCheck::fits, "checked_bytes <= capacity_bytes")
      .field("headroom", &CapacityCheck::headroom, "(capacity - checked) / capacity")
      .field("shortfall_bytes", &CapacityCheck::shortfall_bytes, "B missing; 0 when it fits")
      .done();

  Record<MemoryReport>(m, "MemoryReport", "Peak device memory from buffer liveness.")
      .field("module_name", &MemoryReport::module_name, "the HloModule name")
      .field("entry", &MemoryReport::entry, "the computation analysed as the step")
      .field("entry_marked", &MemoryReport::entry_marked, "it is the one the input marks ENTRY")
      .field("scheduled", &MemoryReport::scheduled, "the printed order is the execution order")
      .field("peak_bytes", &MemoryReport::peak_bytes, "device-memory high-water mark, B")
      .field("peak_at", &MemoryReport::peak_at, "the entry instruction running at the peak")
      .field("peak_path", &MemoryReport::peak_path, "entry first, then into loop and call bodies")
      .field("peak_breakdown", &MemoryReport::peak_breakdown, "the peak by buffer kind")
      .field("peak_padding_waste_bytes", &MemoryReport::peak_padding_waste_bytes, "B")
      .field("argument_bytes", &MemoryReport::argument_bytes, "B (XLA memory_analysis terms)")
      .field("output_bytes", &MemoryReport::output_bytes, "B")
      .field("alias_bytes", &MemoryReport::alias_bytes, "B of parameters donated to outputs")
      .field("temporary_peak_bytes", &MemoryReport::temporary_peak_bytes, "B")
      .field("temp_bytes", &MemoryReport::temp_bytes, "B of XLA's temp allocation, as assigned")
      .field("footprint_bytes", &MemoryReport::footprint_bytes,
             "B held by a step: arguments + outputs - aliased + temp + constants")
      .field("allocations", &MemoryReport::allocations, "every allocation, all memories")
      .computed(
          "allocation_counts",
          [](const MemoryReport& r) {
            py::dict out;
            for (AllocationKind kind : {AllocationKind::kParameter, AllocationKind::kOutput,
                                        AllocationKind::kTemp, AllocationKind::kConstant}) {
              out[py::str(std::string(allocation_kind_name(kind)))] =
                  r.allocation_counts[static_cast<size_t>(kind)];
            }
            return out;
          },
          "allocations of each kind: {'parameter': n, 'output': n, 'temp': n, 'constant': n}")
      .field("temps_in_live_out", &MemoryReport::temps_in_live_out,
             "temporaries placed in output or donated allocations")
      .field("shared_with_operand", &MemoryReport::shared_with_operand,
             "results written over a dying operand's bytes")
      .field("constant_bytes", &MemoryReport::constant_bytes, "B")
      .field("padding_waste_bytes", &MemoryReport::padding_waste_bytes, "B")
      .field("peak_on_chip_bytes", &MemoryReport::peak_on_chip_bytes, "B")
      .field("peak_host_bytes", &MemoryReport::peak_host_bytes, "B")
      .field("buffer_count", &MemoryReport::buffer_count, "distinct buffers, all memories")
      .field("peak_buffer_count", &MemoryReport::peak_buffer_count, "device buffers at the peak")
      .field("largest_buffers", &MemoryReport::largest_buffers, "largest first")
      .field("peak_buffers", &MemoryReport::peak_buffers, "device buffers live at the peak")
      .field("live_curve", &MemoryReport::live_curve, "one point per entry instruction")
      .field("live_timeline", &MemoryReport::live_timeline,
             "one point per instruction that runs, in order, bodies' inside (one iteration)")
      .field("capacity", &MemoryReport::capacity, "check against the device, or None")
      .field("notes", &MemoryReport::notes, "assumptions that shaped the numbers")
      .field("warnings", &MemoryReport::warnings, "what to know first: the device is a guess, ...")
      .done()
      .def(
          "to_json", [](const MemoryReport& report) { return memory_to_json(report); },
          "The JSON object of `hloroof memory --json` (the keys of to_dict()).");

  m.def(
      "_memory",
      [](const Module& module, const DeviceSpec* spec, size_t top_buffers,
         bool first_tile_padding) {
        absl::StatusOr<MemoryReport> report;
        {
          py::gil_scoped_release release;
          const MemoryOptions options{.top_buffers = top_buffers,
                                      .first_tile_padding = first_tile_padding};
          report = spec == nullptr ? analyze_memory(module, options)
                                   : analyze_memory(module, *spec, options);
        }
        return value_or_raise(std::move(report));
      },
      py::arg("module"), py::arg("device").none(true), py::arg("top_buffers"),
      py::arg("first_tile_padding"));
}

// ---- Prediction.

CollectiveFormula formula_from_name(std::string_view name) {
  for (CollectiveFormula f : {CollectiveFormula::kNetwork, CollectiveFormula::kXlaGpuNccl,
                              CollectiveFormula::kXlaGpuSol}) {
    if (collective_formula_name(f) == name) return f;
  }
  throw py::value_error(cat("collective_formula: unknown formula '", name,
                            "'; expected network, xla-gpu-nccl or xla-gpu-sol"));
}

void bind_predict(py::module_& m) {
  Record<PredictOptions>(m, "PredictOptions",
                         "Options of predict(); pass them as keywords: "
                         "predict(m, 'tpu_v5e:4x4', default_trip_count=4).")
      .option("topology", &PredictOptions::topology,
              "the slice, e.g. '4x4' or '2x8'; empty: from the device name or inferred")
      .option("device_coordinates", &PredictOptions::device_coordinates,
              "explicit coordinates of each device id (default: row-major)")
      .property(
          "collective_formula",
          [](const PredictOptions& o) { return collective_formula_name(o.collective_formula); },
          [](PredictOptions& o, std::string_view name) {
            o.collective_formula = formula_from_name(name);
          },
          "'network' (default), 'xla-gpu-nccl' or 'xla-gpu-sol'")
      .option("collective_large_n", &PredictOptions::collective_large_n,
              "the scaling book's large-N collective forms")
      .option("default_trip_count", &PredictOptions::default_trip_count,
              "trip count for loops whose count cannot be told")
      .option("use_padded_sizes", &PredictOptions::use_padded_sizes, "bytes padded by tiles")
      .option("include_overhead", &PredictOptions::include_overhead, "add the per-op overhead")
      .option("roofline_only", &PredictOptions::roofline_only,
              "expected time = roofline time everywhere (no measured model)")
      .option("max_expanded_iterations", &PredictOptions::max_expanded_iterations,
              "loop iterations laid out one by one in the timeline")
      .option("model_flops", &PredictOptions::model_flops,
              "the model's FLOPs of one step over all devices (6 x parameters x tokens for a "
              "dense model's training step): gives Prediction.mfu")
      .option("explain", &PredictOptions::explain,
              "write each op's explanation (off: left empty, for speed)")
      .option("timeline", &PredictOptions::timeline,
              "lay out Prediction.timeline (off: left empty, for speed)")
      .option("max_ops", &PredictOptions::max_ops,
              "keep the records of this many ops with the most step time (0: all)")
      .done()
      .def(py::init<>());

  Record<CollectivePrediction>(m, "CollectivePrediction", "A collective's predicted time.")
      .field("kind", &CollectivePrediction::kind, "'all-gather', ...")
      .field("payload_bytes", &CollectivePrediction::payload_bytes, "V, B")
      .field("group_size", &CollectivePrediction::group_size, "N")
      .field("formula", &CollectivePrediction::formula, "e.g. 'ring: V (N-1) / (N W_bi)'")
      .field("time_s", &CollectivePrediction::time_s, "its own duration, s")
      .field("exposed_s", &CollectivePrediction::exposed_s, "per execution, waited for, s")
      .field("hidden_s", &CollectivePrediction::hidden_s, "per execution, overlapped, s")
      .field("is_async", &CollectivePrediction::is_async, "a start/done pair")
      .field("approximate", &CollectivePrediction::approximate, "a conservative bound")
      .done();

  Record<AsyncPrediction>(m, "AsyncPrediction", "An asynchronous start/done pair.")
      .field("stream", &AsyncPrediction::stream, "timeline track, e.g. 'async all-gather'")
      .field("start", &AsyncPrediction::start, "the start's name")
      .field("done", &AsyncPrediction::done, "the done's name")
      .field("latency_s", &AsyncPrediction::latency_s, "per execution: how long it runs, s")
      .field("hidden_s", &AsyncPrediction::hidden_s, "per execution: overlapped, s")
      .field("exposed_s", &AsyncPrediction::exposed_s, "per execution: the done's wait, s")
      .done();

  Record<OpPrediction>(m, "OpPrediction", "One op of the predicted step.")
      .field("instruction", &OpPrediction::instruction,
             "the instruction when predicted from a Module, else None")
      .computed("name", &OpPrediction::name, "instruction name")
      .computed("opcode", &OpPrediction::opcode, "opcode")
      .computed("computation", &OpPrediction::computation, "computation name")
      .computed("category", &OpPrediction::category,
                "XProf-like: 'loop fusion', 'all-gather', ...")
      .computed("op_name", &OpPrediction::op_name, "metadata op_name")
      .field("multiplier", &OpPrediction::multiplier, "executions per step")
      .field("time_s", &OpPrediction::time_s, "one execution on the critical path, expected, s")
      .field("roofline_time_s", &OpPrediction::roofline_time_s, "the same at the roofline, s")
      .field("efficiency", &OpPrediction::efficiency, "roofline_time_s / time_s, in (0, 1]")
      .computed("model", &OpPrediction::model, "the model behind time_s")
      .computed("total_time_s", &OpPrediction::total_time_s, "time_s x multiplier, s")
      .computed("total_roofline_time_s", &OpPrediction::total_roofline_time_s,
                "roofline_time_s x multiplier, s")
      .computed(
          "bound", [](const OpPrediction& o) { return op_bound_name(o); },
          "'compute', 'memory', 'collective' or 'overhead'")
      .computed(
          "resource", [](const OpPrediction& o) { return resource_name(o); },
          "the roofline term behind `bound`: 'matrix', 'HBM', ..., 'network'")
      .field("flops", &OpPrediction::flops, "one execution")
      .field("matrix_flops", &OpPrediction::matrix_flops, "one execution")
      .field("transcendentals", &OpPrediction::transcendentals, "one execution")
      .field("hbm_bytes", &OpPrediction::hbm_bytes, "one execution, B")
      .field("on_chip_bytes", &OpPrediction::on_chip_bytes, "one execution, B")
      .field("host_bytes", &OpPrediction::host_bytes, "one execution, B")
      .computed("explanation", &OpPrediction::explanation, "the formula with the device numbers")
      .computed(
          "collective", [](const OpPrediction& o) { return o.collective.get(); },
          "collectives: the network time, or None", kInternal)
      .computed(
          "async_", [](const OpPrediction& o) { return o.async.get(); },
          "both ops of an async pair, or None ('async' in to_dict())", kInternal)
      .done();

  Record<TimelineEvent>(m, "TimelineEvent", "A slice of the predicted timeline.")
      .field("name", &TimelineEvent::name, "op, loop or iteration name")
      .field("track", &TimelineEvent::track, "'compute' or an async stream")
      .field("start_s", &TimelineEvent::start_s, "s from the step's start")
      .field("duration_s", &TimelineEvent::duration_s, "s")
      .field("depth", &TimelineEvent::depth, "nesting: 0 top level, 1 inside an iteration, ...")
      .field("instruction", &TimelineEvent::instruction, "the instruction, or None")
      .done();

  Record<Prediction::Breakdown>(m, "Breakdown",
                                "What the step is made of: compute + memory + "
                                "collective_exposed + overhead = step time.")
      .field("compute_s", &Prediction::Breakdown::compute_s, "ops bound by FLOPs, s")
      .field("memory_s", &Prediction::Breakdown::memory_s, "ops bound by memory bandwidth, s")
      .field("collective_exposed_s", &Prediction::Breakdown::collective_exposed_s,
             "collective time waited for, s")
      .field("collective_hidden_s", &Prediction::Breakdown::collective_hidden_s,
             "collective time overlapped with other work, s")
      .field("overhead_s", &Prediction::Breakdown::overhead_s, "ops bound by the overhead, s")
      .field("async_hidden_s", &Prediction::Breakdown::async_hidden_s,
             "other async work overlapped, s")
      .done();

  py::bind_vector<std::vector<OpPrediction>>(m, "OpPredictionList");
  py::bind_vector<std::vector<TimelineEvent>>(m, "TimelineEventList");

  Record<Prediction>(m, "Prediction", "One predicted step on one device.", py::dynamic_attr())
      .field("device", &Prediction::device, "the spec's name, e.g. 'tpu_v5e'")
      .field("topology", &Prediction::topology, "e.g. '2x2'")
      .field("step_time_s", &Prediction::step_time_s, "the predicted step, expected, s")
      .field("roofline_step_time_s", &Prediction::roofline_step_time_s,
             "the step with every op at its roofline time, s")
      .field("breakdown", &Prediction::breakdown, "what the step is made of")
      .field("flops", &Prediction::flops, "per step, one device")
      .field("matrix_flops", &Prediction::matrix_flops, "per step, one device")
      .field("hbm_bytes", &Prediction::hbm_bytes, "per step, one device, B")
      .field("peak_flop_rate", &Prediction::peak_flop_rate,
             "the matrix peak of HFU and MFU, FLOP/s")
      .field("peak_flop_rate_type", &Prediction::peak_flop_rate_type, "its type class, e.g. 'bf16'")
      .field("hfu", &Prediction::hfu,
             "hardware FLOP utilization: flops / (step_time_s x peak_flop_rate)")
      .field("model_flops", &Prediction::model_flops,
             "the model's FLOPs per step given (PredictOptions.model_flops); 0: none")
      .field("devices", &Prediction::devices, "devices the module runs on")
      .computed(
          "mfu",
          [](const Prediction& p) {
            return p.model_flops > 0 ? std::optional<double>(p.mfu) : std::nullopt;
          },
          "model FLOP utilization: model_flops / (devices x step_time_s x peak_flop_rate); "
          "None without model_flops (JSON's null)")
      .field("ops", &Prediction::ops, "every op of the step once, largest total_time_s first")
      .field("timeline", &Prediction::timeline, "the predicted timeline, in start order")
      .field("unknown_ops", &Prediction::unknown_ops, "instructions whose cost is unknown")
      .field("assumptions", &Prediction::assumptions, "inferred topology, assumed trip counts, ...")
      .field("warnings", &Prediction::warnings,
             "what to know before any figure: the device is a guess, ...")
      .field("is_lower_bound", &Prediction::is_lower_bound, "the step time is a floor")
      .done()
      .def("to_json", &prediction_to_json,
           "The JSON object of `hloroof predict --json` (the keys of to_dict()).")
      .def(
          "summary",
          [](const Prediction& p, size_t top) { return prediction_summary(p, {.top_ops = top}); },
          py::arg("top") = 10,
          "The text summary: device, step time, breakdown, HFU, assumptions, top ops.")
      .def("__str__", [](const Prediction& p) { return prediction_summary(p, {.top_ops = 10}); })
      .def("__repr__", [](const Prediction& p) {
        return cat("<hloroof.Prediction ", p.device, ":", p.topology, " step ", p.step_time_s * 1e3,
                   " ms, ", p.ops.size(), " ops>");
      });

  // A profile read once: the device it names, the module it carries, the join.
  py::class_<Profile, std::shared_ptr<Profile>>(m, "_Profile");
  m.def(
      "_read_profile",
      [](std::string_view path) {
        absl::StatusOr<Profile> profile;
        {
          py::gil_scoped_release release;
          profile = read_profile(path);
        }
        return std::make_shared<Profile>(value_or_raise(std::move(profile)));
      },
      py::arg("path"));
  m.def(
      "_profile_device",
      [](const Profile& profile) {
        const std::string kind = profile_device_type(profile);
        const KindDevice d = kind.empty() ? KindDevice{} : device_for_kind(kind);
        return py::make_tuple(kind, d.device, d.platform);
      },
      py::arg("profile"), "(device kind, built-in device or '', platform or '') of the profile");
  m.def(
      "_profile_module",
      [](const Profile& profile, std::string_view name) {
        std::string note;
        const ProfileModuleProto* picked =
            value_or_raise(pick_profile_module(profile, name, &note));
        return py::make_tuple(py::bytes(picked->hlo_proto), picked->name, note);
      },
      py::arg("profile"), py::arg("name"),
      "(HloProto bytes, NAME(ID), note) of the module the profile carries, as `profile` picks it");
  m.def(
      "_compare_profile",
      [](const Module& module, const Prediction& prediction, const Profile& profile,
         std::string_view module_name, int device_index) {
        ProfileOptions options{.device_index = device_index,
                               .module_name = std::string(module_name)};
        // "NAME(ID)": program ID, as the profile's events name it.
        if (const size_t open = module_name.rfind('(');
            open != std::string_view::npos && open > 0 && module_name.ends_with(")")) {
          uint64_t id = 0;
          if (absl::SimpleAtoi(std::string(module_name.substr(open + 1,
                                                              module_name.size() - open - 2)),
                               &id)) {
            options.program_id = id;
            bool full = false;
            for (const ProfilePlane& p : profile.planes) {
              for (const ProfileLine& l : p.lines) {
                for (const ProfileEvent& e : l.events) full = full || e.name == module_name;
              }
            }
            if (!full) options.module_name = std::string(module_name.substr(0, open));
          }
        }
        std::string json, text;
        {
          py::gil_scoped_release release;
          absl::StatusOr<ProfileComparison> c =
              compare_with_profile(module, prediction, profile, options);
          if (c.ok()) {
            json = profile_comparison_to_json(*c);
            text = render_profile_comparison(*c);
          } else {
            json = std::string("\x01") + std::string(c.status().message());
          }
        }
        if (!json.empty() && json[0] == '\x01') throw py::value_error(json.substr(1));
        return py::make_tuple(json, text);
      },
      py::arg("module"), py::arg("prediction"), py::arg("profile"), py::arg("module_name"),
      py::arg("device_index"));
  m.def(
      "_calibrate",
      [](const std::vector<const Module*>& modules, const std::vector<std::string>& profiles,
         std::string_view device, std::string name, int device_index,
         std::vector<std::string> settings) {
        if (modules.size() != profiles.size()) {
          throw py::value_error("calibrate: one module for every profile");
        }
        absl::StatusOr<CalibrationResult> result;
        std::string text;
        {
          py::gil_scoped_release release;
          std::vector<Profile> read;
          read.reserve(profiles.size());
          absl::Status status;
          for (const std::string& path : profiles) {
            absl::StatusOr<Profile> profile = read_profile(path);
            if (!profile.ok()) {
              status = profile.status();
              break;
            }
            read.push_back(*std::move(profile));
          }
          if (status.ok()) {
            std::vector<CalibrationRun> runs;
            for (size_t k = 0; k < profiles.size(); ++k) {
              runs.push_back({modules[k], &read[k], profiles[k]});
            }
            CalibrationOptions options;
            options.name = std::move(name);
            options.profile.device_index = device_index;
            options.settings = std::move(settings);
            result = calibrate(runs, device, options);
            if (result.ok()) text = render_calibration(*result);
          } else {
            result = status;
          }
        }
        const CalibrationResult& r = value_or_raise(std::move(result));
        py::list figures, errors, steps, held_out;
        for (const FittedFigure& f : r.figures) {
          py::dict d;
          d["field"] = f.field, d["before"] = f.before, d["after"] = f.after;
          d["fitted"] = f.fitted, d["why"] = f.why, d["given_model"] = f.given_model;
          figures.append(d);
        }
        for (const ClassError& e : r.errors) {
          py::dict d;
          d["op_class"] = e.op_class, d["ops"] = e.ops, d["before"] = e.before;
          d["after"] = e.after;
          errors.append(d);
        }
        for (const CalibrationStep& c : r.steps) {
          py::dict d;
          d["label"] = c.label, d["measured_s"] = c.measured_s, d["given_s"] = c.given_s;
          d["fitted_s"] = c.fitted_s, d["lower_bound"] = c.lower_bound;
          steps.append(d);
        }
        for (const CalibrationResult::HeldOut& h : r.held_out) {
          py::dict d;
          d["label"] = h.label, d["before"] = h.before, d["after"] = h.after;
          d["step_before"] = h.step_before, d["step_after"] = h.step_after;
          d["lower_bound"] = h.lower_bound;
          held_out.append(d);
        }
        py::dict out;
        out["accepted"] = r.accepted;
        out["rejected_why"] = r.rejected_why;
        out["device_json"] = r.json;
        out["figures"] = figures;
        out["errors"] = errors;
        out["steps"] = steps;
        out["held_out"] = held_out;
        out["ops_used"] = r.ops_used;
        out["ops_left_out"] = r.ops_left_out;
        out["notes"] = r.notes;
        return py::make_tuple(out, text);
      },
      py::arg("modules"), py::arg("profiles"), py::arg("device"), py::arg("name"),
      py::arg("device_index"), py::arg("settings"),
      "hloroof calibrate: the fit as a dict and the command's report.");
  m.def(
      "_write_xspace",
      [](const Module& module, const Prediction& prediction, const DeviceSpec& device,
         std::string_view log_dir, int64_t steps, std::string run, std::string host) {
        absl::StatusOr<XSpaceFile> file;
        {
          py::gil_scoped_release release;
          XSpaceOptions options;
          options.steps = steps;
          options.run = std::move(run);
          options.host = std::move(host);
          options.start_time_ns = static_cast<int64_t>(time(nullptr)) * 1'000'000'000;
          // Two parts at a time where there is a second core (the writer's most), as the
          // command makes them.
          options.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
          file = write_xspace(module, prediction, device, log_dir, options);
        }
        XSpaceFile f = value_or_raise(std::move(file));
        py::dict out;
        out["path"] = f.path;
        out["events"] = f.events;
        out["program_id"] = f.program_id;
        out["unfilled"] = f.unfilled;
        return out;
      },
      py::arg("module"), py::arg("prediction"), py::arg("device"), py::arg("log_dir"),
      py::arg("steps"), py::arg("run"), py::arg("host"));
  m.def(
      "_predict_text",
      [](std::string_view text, std::string_view device, const PredictOptions& options) {
        absl::StatusOr<Prediction> p;
        {
          py::gil_scoped_release release;
          p = predict_step_time(text, device, options);
        }
        return value_or_raise(std::move(p));
      },
      py::arg("text"), py::arg("device"), py::arg("options"));
  m.def(
      "_predict_module",
      [](const Module& module, std::string_view device, const PredictOptions& options) {
        absl::StatusOr<Prediction> p;
        {
          py::gil_scoped_release release;
          p = predict_step_time(module, device, options);
        }
        return value_or_raise(std::move(p));
      },
      py::arg("module"), py::arg("device"), py::arg("options"), py::keep_alive<0, 1>());
  m.def(
      "_predict_module_spec",
      [](const Module& module, const DeviceSpec& device, const PredictOptions& options) {
        absl::StatusOr<Prediction> p;
        {
          py::gil_scoped_release release;
          p = predict_step_time(module, device, options);
        }
        return value_or_raise(std::move(p));
      },
      py::arg("module"), py::arg("device"), py::arg("options"), py::keep_alive<0, 1>());
  m.def(
      "_add_assumptions",
      [](Prediction& prediction, const std::vector<std::string>& notes) {
        prediction.assumptions.insert(prediction.assumptions.begin(), notes.begin(), notes.end());
      },
      py::arg("prediction"), py::arg("notes"), "Puts `notes` first in the assumptions.");
  m.def(
      "_add_warnings",
      [](Prediction& prediction, const std::vector<std::string>& warnings) {
        prediction.warnings.insert(prediction.warnings.end(), warnings.begin(), warnings.end());
      },
      py::arg("prediction"), py::arg("warnings"), "Adds `warnings` to the prediction's.");
  m.def(
      "_add_memory_notes",
      [](MemoryReport& report, const std::vector<std::string>& warnings,
         const std::vector<std::string>& first, const std::vector<std::string>& last) {
        report.warnings.insert(report.warnings.end(), warnings.begin(), warnings.end());
        report.notes.insert(report.notes.begin(), first.begin(), first.end());
        report.notes.insert(report.notes.end(), last.begin(), last.end());
      },
      py::arg("report"), py::arg("warnings"), py::arg("first"), py::arg("last"),
      "Adds the caller's `warnings` (how the device was chosen) to the report's, `first` before\n"
      "its notes and `last` after them.");
  m.def(
      "_add_cost_notes",
      [](ModuleCost& cost, const std::vector<std::string>& first) {
        cost.notes.insert(cost.notes.begin(), first.begin(), first.end());
      },
      py::arg("cost"), py::arg("first"), "Puts `first` before the cost's notes.");
  m.def(
      "_text_report",
      [](const Prediction& prediction, const DeviceSpec& device, size_t top) {
        OpStatsOptions options;
        options.top = top;
        return value_or_raise(render_text_report(prediction, device, options));
      },
      py::arg("prediction"), py::arg("device"), py::arg("top"),
      "The report of `hloroof predict` (without its findings).");
  m.def(
      "_render_comparison",
      [](const std::vector<Prediction>& predictions, size_t top,
         const std::vector<std::optional<CapacityCheck>>& memory) {
        return render_comparison(predictions, top, memory);
      },
      py::arg("predictions"), py::arg("top"), py::arg("memory"),
      "The report of `hloroof compare`.");
  m.def(
      "_advise",
      [](const Module& module, const Prediction& prediction, const DeviceSpec& device,
         size_t top, size_t evidence_rows) {
        absl::StatusOr<Advice> advice;
        {
          py::gil_scoped_release release;
          absl::StatusOr<MemoryReport> memory = analyze_memory(module, device);
          advice = memory.ok() ? advise(module, prediction, *memory, device,
                                        {.top = top, .evidence_rows = evidence_rows})
                               : absl::StatusOr<Advice>(memory.status());
        }
        const Advice& a = value_or_raise(std::move(advice));
        return py::make_tuple(advice_to_json(a), render_advice_text(a));
      },
      py::arg("module"), py::arg("prediction"), py::arg("device"), py::arg("top"),
      py::arg("evidence_rows"),
      "The object of `hloroof advise --json`, as JSON text, and the command's report.");
}

// CPU time of this thread, ms: what bench/python_parse_bench.py and python_predict_bench.py
// compare Python's calls with.
double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// ---- Diff.

void bind_diff(py::module_& m) {
  Record<DiffSide>(m, "DiffSide", "One side of a diff: the step's figures.")
      .field("step_time_s", &DiffSide::step_time_s, "expected, s")
      .field("roofline_step_time_s", &DiffSide::roofline_step_time_s, "at the roofline, s")
      .field("flops", &DiffSide::flops, "per step, one device")
      .field("hbm_bytes", &DiffSide::hbm_bytes, "per step, one device, B")
      .field("op_count", &DiffSide::op_count, "ops of the step")
      .field("peak_bytes", &DiffSide::peak_bytes, "device-memory peak, B, or None")
      .done();
  Record<OpDelta>(m, "OpDelta", "One op in either version, with its per-step figures on each "
                                "side (0 on the side it is absent from).")
      .field("name", &OpDelta::name, "the name after the change (before, for a removed op)")
      .field("before_name", &OpDelta::before_name, "the name before, when it differs")
      .field("computation", &OpDelta::computation, "its computation")
      .field("opcode", &OpDelta::opcode, "its opcode")
      .computed(
          "change", [](const OpDelta& d) { return std::string(op_change_name(d.change)); },
          "'changed', 'unchanged', 'added' or 'removed'")
      .field("before_time_s", &OpDelta::before_time_s, "per step, expected, s")
      .field("after_time_s", &OpDelta::after_time_s, "per step, expected, s")
      .computed("delta_time_s", &OpDelta::delta_time_s, "after_time_s - before_time_s, s")
      .field("before_flops", &OpDelta::before_flops, "per step")
      .field("after_flops", &OpDelta::after_flops, "per step")
      .field("before_hbm_bytes", &OpDelta::before_hbm_bytes, "per step, B")
      .field("after_hbm_bytes", &OpDelta::after_hbm_bytes, "per step, B")
      .done();
  py::bind_vector<std::vector<OpDelta>>(m, "OpDeltaList");
  Record<PredictionDiff>(m, "PredictionDiff",
                         "Two versions of a program on one device: what changed per op and "
                         "per step. str() gives the report of `hloroof diff`.")
      .field("device", &PredictionDiff::device, "the device of both sides, e.g. 'h100:1x8'")
      .field("before", &PredictionDiff::before, "the step before")
      .field("after", &PredictionDiff::after, "the step after")
      .field("ops", &PredictionDiff::ops, "every op of either version, largest change first")
      .field("changed", &PredictionDiff::changed, "matched ops whose figures differ")
      .field("unchanged", &PredictionDiff::unchanged, "matched ops with the same figures")
      .field("added", &PredictionDiff::added, "ops only after")
      .field("removed", &PredictionDiff::removed, "ops only before")
      .field("renamed", &PredictionDiff::renamed, "matched by opcode and op_name, not by name")
      .done()
      .def("to_json", &diff_to_json,
           "The JSON object of `hloroof diff --json` (docs/reports.md, \"diff\").")
      .def(
          "summary", [](const PredictionDiff& d, size_t top) { return render_diff(d, top); },
          py::arg("top") = 10, "The report of `hloroof diff`, with `top` ops.")
      .def("__str__", [](const PredictionDiff& d) { return render_diff(d, 10); })
      .def("__repr__", [](const PredictionDiff& d) {
        return cat("<hloroof.PredictionDiff ", d.device, " step ", d.before.step_time_s * 1e3,
                   " -> ", d.after.step_time_s * 1e3, " ms, ", d.ops.size(), " ops>");
      });
  m.def(
      "_diff",
      [](const Prediction& before, const Prediction& after, std::optional<int64_t> before_peak,
         std::optional<int64_t> after_peak) {
        return diff_predictions(before, after, before_peak, after_peak);
      },
      py::arg("before"), py::arg("after"), py::arg("before_peak").none(true),
      py::arg("after_peak").none(true));
  m.def("_diff_trace", &diff_to_trace_json, py::arg("diff"), py::arg("before"), py::arg("after"),
        "Both timelines in one Perfetto trace (`hloroof diff --trace`).");
  // The commands' own reading and writing, for the Python API's files: inputs that are not
  // regular files (/dev/zero, a FIFO) refused rather than read forever, and outputs written
  // whole or not at all, never over an input.
  m.def(
      "_read_file",
      [](const std::string& path) {
        InputFile file = value_or_raise(read_input_file(path));
        return py::bytes(file.text().data(), file.text().size());
      },
      py::arg("path"), "The bytes of `path`, read as the commands read their inputs.");
  m.def(
      "_write_file",
      [](const std::string& path, const std::string& contents, const std::string& what,
         const std::vector<std::string>& inputs) {
        ok_or_raise(write_output_file(path, contents, what, inputs));
      },
      py::arg("path"), py::arg("contents"), py::arg("what"), py::arg("inputs"),
      "Writes `contents` to `path` as the commands write their outputs.");
}

}  // namespace
}  // namespace hloroof::python

PYBIND11_MODULE(_hloroof, m) {
  using namespace hloroof;
  using namespace hloroof::python;
  m.doc() = "hloroof's compiled bindings; use the `hloroof` package.";
  m.attr("__version__") = std::string(version());
  parse_error_type() = py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc(
      "hloroof.ParseError",
      "HLO text that does not parse. str() is the located message of the command-line tool "
      "(LINE:COLUMN: error: ..., the source line and a caret); `line`, `column` and `reason` "
      "say the same as data.",
      PyExc_ValueError, nullptr));
  m.attr("ParseError") = parse_error_type();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      raise_status(e);
    }
  });

  bind_module(m);
  bind_device(m);
  bind_cost(m);
  bind_memory(m);
  bind_predict(m);
  bind_diff(m);

  m.def(
      "_parse_cpu_ms",
      [](std::string_view text) {
        py::gil_scoped_release release;
        const double t0 = thread_cpu_ms();
        const bool ok = parse_module(text).ok();
        const double ms = thread_cpu_ms() - t0;
        return std::make_pair(ms, ok);
      },
      py::arg("text"),
      "Thread CPU ms of one parse_module call made from C++ (for the parse benchmark).");
  m.def("parse_summary_to_json", &parse_summary_to_json, py::arg("file"), py::arg("module"),
        py::arg("warnings") = std::vector<std::string>(),
        "One line of `hloroof parse FILE --json` for a module parsed from `file`, with the "
        "warnings given.");
  m.def(
      "shape_to_json",
      [](std::string_view shape) { return value_or_raise(shape_to_json(shape_or_raise(shape))); },
      py::arg("shape"), "The JSON of `hloroof shape SHAPE --json`; ValueError for a bad shape.");
  m.def(
      "_predict_cpu_ms",
      [](std::string_view text, std::string_view device) {
        py::gil_scoped_release release;
        const double t0 = thread_cpu_ms();
        const bool ok = predict_step_time(text, device).ok();
        const double ms = thread_cpu_ms() - t0;
        return std::make_pair(ms, ok);
      },
      py::arg("text"), py::arg("device"),
      "Thread CPU ms of one predict_step_time(text, device) call made from C++, the prediction "
      "freed (for bench/python_predict_bench.py).");
}
