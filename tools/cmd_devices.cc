// `hloroof devices [NAME|PATH] [--json]`: the built-in device specs, or every figure of one.
#include <cmath>
#include <iostream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/device.h"
#include "hloroof/summary_json.h"
#include "hloroof/topology.h"
#include "hloroof/text_table.h"
#include "hloroof/units.h"
#include "hloroof/wrap.h"

namespace hloroof::cli {
namespace {

// Capacities in the units vendors quote them in: binary when a whole number of MiB
// ("95 GiB", "128 MiB"), decimal otherwise ("80 GB").
std::string format_capacity(double bytes) {
  if (std::fmod(bytes, 1024.0 * 1024) == 0) return format_bytes(bytes);
  return absl::StrReplaceAll(format_byte_rate(bytes), {{"B/s", "B"}});
}

// A figure for people: its value in a readable unit, '*' when unverified.
std::string format_figure(const DeviceSpec& d, const DeviceFigure& f) {
  std::string text;
  if (f.unit == "B") {
    text = format_capacity(f.value);
  } else if (f.unit == "B/s") {
    text = format_byte_rate(f.value);
  } else if (f.unit == "FLOP/s" || f.unit == "OP/s") {
    text = absl::StrReplaceAll(format_flop_rate(f.value),
                               {{"FLOP", f.unit.substr(0, f.unit.find('/'))}});
  } else if (f.unit == "op/s") {
    text = absl::StrReplaceAll(format_flop_rate(f.value), {{"FLOP", "op"}});
  } else if (f.unit == "s") {
    text = format_seconds(f.value);
  } else if (f.path == "interconnect.host_shape" && d.torus) {
    text = absl::StrCat(absl::StrJoin(d.torus->host_shape, "x"), " chips");
  } else if (f.path == "interconnect.max_slice" && d.torus) {
    text = absl::StrCat(absl::StrJoin(d.torus->max_slice, "x"), " chips");
  } else {
    text = absl::StrFormat("%g %s", f.value, f.unit);
  }
  return f.verified ? text : text + "*";
}

std::string headline(const DeviceSpec& d, std::string_view path) {
  const DeviceFigure* f = d.figure(path);
  return f == nullptr ? "-" : format_figure(d, *f);
}

// The HBM column of the table: binary units for every device (GiB, as `memory` reports), so
// that one column compares like with like; `devices NAME` gives the vendor's own figure.
std::string capacity_headline(const DeviceSpec& d) {
  const DeviceFigure* f = d.figure("hbm.capacity");
  if (f == nullptr) return "-";
  return format_bytes(f->value) + (f->verified ? "" : "*");
}

std::string interconnect_summary(const DeviceSpec& d) {
  if (d.torus) {
    const TorusSpec& t = *d.torus;
    std::string s = absl::StrCat("ICI ", t.rank, "D torus, ", t.links_per_chip, " links x ",
                                 headline(d, "interconnect.link_bandwidth"), " one way, ",
                                 describe_wraparound(t.wraparound));
    if (t.devices_per_chip > 1) absl::StrAppend(&s, "; ", t.devices_per_chip, " devices per chip");
    if (t.cores_per_chip > t.devices_per_chip) {
      absl::StrAppend(&s, "; ", t.cores_per_chip, " TensorCores per chip as one device (a module on ",
                      t.cores_per_chip, " devices per chip: each 1/",
                      t.cores_per_chip / t.devices_per_chip, " of one)");
    }
    if (t.dcn_bandwidth_per_chip) {
      absl::StrAppend(&s, "; DCN ", headline(d, "interconnect.dcn_bandwidth_per_chip"),
                      " per chip");
    }
    return s;
  }
  if (d.gpu) {
    const std::string_view fabric = d.gpu->vendor == GpuVendor::kAmd ? "xGMI " : "NVLink ";
    return absl::StrCat(std::string(fabric), d.gpu->nvlink_domain_size, " GPUs x ",
                        headline(d, "interconnect.nvlink_bandwidth"), " one way; scale-out ",
                        headline(d, "interconnect.scale_out_bandwidth"), " per GPU");
  }
  return "-";
}

int list_devices(bool json) {
  std::vector<DeviceSpec> specs;
  for (const std::string& name : builtin_device_names()) {
    absl::StatusOr<DeviceSpec> d = device(name);
    if (!d.ok()) return fail(d.status());
    specs.push_back(*std::move(d));
  }
  if (json) {
    absl::StatusOr<std::string> text = device_summaries_to_json(specs);
    if (!text.ok()) return fail(text.status());
    std::cout << *text;
    return kExitOk;
  }
  TextTable table({{"name", TextTable::Align::kLeft},
                   {"kind", TextTable::Align::kLeft},
                   {"bf16 peak"},
                   {"HBM"},
                   {"HBM bandwidth"}});
  std::string interconnects;
  for (const DeviceSpec& d : specs) {
    table.add_row({d.name, std::string(device_kind_name(d.kind)),
                   headline(d, "matrix_flops_per_s.bf16"), capacity_headline(d),
                   headline(d, "hbm.bandwidth")});
    interconnects +=
        report_internal::wrap(interconnect_summary(d), absl::StrFormat("  %-9s ", d.name),
                              std::string(12, ' '));
  }
  std::cout << "Built-in devices; figures are per JAX device (a TPU7x, v3 or v2 device is one\n"
               "TensorCore; a v4 or v5p device is a chip, its 2 TensorCores as one megacore).\n\n"
            << table.render() << "\ninterconnect:\n"
            << interconnects
            << "\n* unverified figure: a configurable default, not a published number.\n"
               "`hloroof devices NAME` lists every figure of a device with its source.\n";
  return kExitOk;
}

int show_device(const std::string& text, bool json, const std::vector<std::string>& settings) {
  absl::StatusOr<DeviceTarget> choice = resolve_device(text, nullptr, {.settings = settings});
  if (!choice.ok()) return fail(choice.status());
  const DeviceSpec* d = &choice->spec;
  const std::optional<Topology>& topology = choice->slice;
  if (json) {
    // The spec itself (data/hardware/README.md): a file of it is a device for every command.
    absl::StatusOr<std::string> spec_json = device_spec_to_json(*d);
    if (!spec_json.ok()) return fail(spec_json.status());
    std::cout << *spec_json;
    return kExitOk;
  }
  std::cout << report_internal::wrap(
                   absl::StrCat(d->display_name, " (", d->name, ", ", d->origin, ")"), "", "  ")
            << report_internal::wrap(d->device_note, "", "")
            << report_internal::wrap(interconnect_summary(*d), "interconnect: ", "  ");
  if (topology) {
    std::cout << report_internal::wrap(
        absl::StrCat(topology->num_devices(), " devices, ", topology->describe()),
        absl::StrCat("topology ", topology->shape, ": "), "  ");
  }
  std::cout << "\n";
  // Notes are footnotes, wrapped, so that the table fits 100 columns.
  TextTable table({{"figure", TextTable::Align::kLeft, 40},
                   {"value"},
                   {"source", TextTable::Align::kLeft, 24},
                   {"note"}});
  std::string footnotes;
  int footnote = 0;
  for (const DeviceFigure& f : d->figures) {
    std::string note = f.note;
    if (!f.alternatives.empty()) {
      note = note.empty() ? "alternatives: " + f.alternatives
                          : note + "; alternatives: " + f.alternatives;
    }
    std::string mark;
    if (!note.empty()) {
      mark = absl::StrCat("[", ++footnote, "]");
      footnotes += report_internal::wrap(absl::StrCat(f.path, ": ", note),
                                         absl::StrFormat("%5s ", mark), std::string(6, ' '));
    }
    table.add_row({f.path, format_figure(*d, f), f.source, mark});
  }
  if (d->gpu) {
    // A cluster's own network figures, listed also when the spec leaves them out: what --set
    // (or a device JSON) may give, in what unit.
    struct Optional {
      std::string path, value, source, note;
    };
    const double efficiency = d->gpu->nic_efficiency.value_or(kPublishedNicEfficiency);
    const Optional optional[] = {
        {"interconnect.nics_per_node", "-", "not set",
         "NICs of a node, with nic_bandwidth (a cluster's own, e.g. --set "
         "interconnect.nics_per_node=4); not set: one NIC per GPU at scale_out_bandwidth"},
        {"interconnect.nic_bandwidth", "-", "not set",
         "one NIC's line rate, one way, with nics_per_node: --set "
         "interconnect.nic_bandwidth=200Gb/s (a number without a unit is in B/s, 2.5e10)"},
        {"interconnect.nic_efficiency", absl::StrFormat("%.3f", efficiency),
         d->gpu->nic_efficiency ? "file" : "default",
         "the share of the NICs' line rate NCCL reaches across nodes, a plain fraction "
         "(default: the published 0.86; hloroof calibrate fits it to nccl-tests logs)"},
        {"interconnect.scale_out_latency",
         d->gpu->scale_out_latency_s ? format_seconds(*d->gpu->scale_out_latency_s) : "-",
         d->gpu->scale_out_latency_s ? "file" : "not set",
         "latency added to NCCL's latency model for every collective across nodes (hloroof "
         "calibrate fits it to nccl-tests logs; e.g. --set interconnect.scale_out_latency=20us)"},
    };
    for (const Optional& o : optional) {
      if (d->figure(o.path) != nullptr) continue;
      const std::string mark = absl::StrCat("[", ++footnote, "]");
      footnotes += report_internal::wrap(absl::StrCat(o.path, ": ", o.note),
                                         absl::StrFormat("%5s ", mark), std::string(6, ' '));
      table.add_row({o.path, o.value, o.source, mark});
    }
  }
  std::cout << table.render()
            << "\n* unverified figure: a configurable default. Sources: docs/sources.md.\n";
  if (!footnotes.empty()) std::cout << "\nnotes:\n" << footnotes;
  for (const std::string& n : d->notes) std::cout << report_internal::wrap(n, "note: ", "  ");
  return kExitOk;
}

constexpr Flag kJson{
    .name = "--json",
    .help = "the list as JSON, numbers in base units named in the keys (bf16_peak_flop_per_s, "
            "hbm_bandwidth_bytes_per_s, ...); with NAME, the spec itself "
            "(data/hardware/README.md): save it, edit it, give it as --device"};
constexpr Flag kSet{.name = "--set",
                    .type = FlagType::kText,
                    .value_name = "PATH=VALUE",
                    .help = "set a figure (interconnect.scale_out_bandwidth=12.5e9; VALUE in the "
                            "figure's base unit), as every command that takes a device does; "
                            "repeat it for more",
                    .repeatable = true};

// The flags and options the command takes, in the order its help lists them.
constexpr const Flag* kFlags[] = {&kJson, &kSet};

int run(const std::vector<std::string>& words) {
  int exit_code = kExitOk;
  std::optional<Args> args = parse_command_args(words, kDevicesCommand, exit_code);
  if (!args) return exit_code;
  if (args->positional.size() > 1) {
    return usage_error("expected at most one device", kDevicesCommand.usage);
  }
  if (args->positional.empty()) {
    if (args->has(kSet)) return usage_error("--set needs a device NAME", kDevicesCommand.usage);
    return list_devices(args->flag(kJson));
  }
  return show_device(args->positional[0], args->flag(kJson), args->all(kSet));
}

}  // namespace

const Command kDevicesCommand = {
    "devices",
    "the built-in device specs: peak rates, memory, interconnect",
    "Without NAME, lists the built-in devices with their headline figures (bf16 peak, HBM\n"
    "capacity and bandwidth, interconnect). With a device name, alias or the path of a JSON\n"
    "spec (schema: data/hardware/README.md), lists every figure with its unit and source;\n"
    "with :TOPOLOGY (tpu_v5e:4x4, h100:2x8, as predict takes it) also the slice's devices and\n"
    "axes, or why no such slice exists. Sources: docs/sources.md.\n"
    "Figures marked * are unverified defaults.\n",
    run,
    "hloroof devices [NAME[:TOPOLOGY]|PATH] [--set PATH=VALUE]... [--json]",
    kFlags,
    {},
    "examples:\n"
    "  hloroof devices\n"
    "  hloroof devices tpu_v5e:4x4\n"
    "  hloroof devices h100 --set hbm.bandwidth=4e12 --json > my_h100.json\n"
    "  hloroof predict step.hlo --device my_h100.json\n",
};

}  // namespace hloroof::cli
