// Python bindings of devices: specs, their figures, device targets.
#include "module_guard.h"

namespace hloroof::python {

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
      .computed(
          "cores_per_chip",
          [](const DeviceSpec& d) { return d.torus ? d.torus->cores_per_chip : 1; },
          "TensorCores per chip: 2 on TPU v2, v3, v4, v5p and TPU7x (v4 and v5p run them as one "
          "megacore device on the hardware, as two devices when libtpu compiles offline)")
      .done()
      .def("__repr__",
           [](const DeviceSpec& d) {
             return str_cat("<hloroof.DeviceSpec ", d.name, ": ", d.display_name, ">");
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
  Record<DeviceTarget>(m, "DeviceTarget",
                       "A checked device and slice, as resolve_device gives them.")
      .field("spec", &DeviceTarget::spec, "the device")
      .computed(
          "topology",
          [](const DeviceTarget& t) { return t.slice ? t.slice->shape : std::string(); },
          "the slice ('4x4'); '' when inferred")
      .computed(
          "source",
          [](const DeviceTarget& t) { return std::string(device_source_name(t.source)); },
          "how it was chosen: 'named', 'platform' (the module's), 'guess'")
      .computed(
          "notes", [](const DeviceTarget& t) { return t.diagnostics.notes; },
          "what a report's assumptions say of it")
      .computed(
          "warnings", [](const DeviceTarget& t) { return t.diagnostics.warnings; },
          "what a report says first: a guessed device")
      .done();
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

}  // namespace hloroof::python
