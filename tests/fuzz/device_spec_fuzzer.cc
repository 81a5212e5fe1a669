// Fuzzes device specs and topology strings. The input's first line is a topology shape
// ("4x4", "2x8", "16x16,slices=2", anything); the rest is a device spec in JSON. The shape is
// applied to a TPU and a GPU built-in; when the spec parses, to it too, and a small module is
// predicted on it and plotted (extreme figures must give a bounded, finite chart).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "hloroof/hloroof.h"
#include "hloroof/roofline_chart.h"
#include "hloroof/topology.h"

namespace {

constexpr std::string_view kModule = R"(HloModule m, num_partitions=4
%sum (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}
ENTRY %e (a: bf16[512,512], b: bf16[512,512]) -> f32[512,512] {
  %a = bf16[512,512] parameter(0)
  %b = bf16[512,512] parameter(1)
  %d = f32[512,512] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %t = f32[512,512] tanh(%d)
  ROOT %r = f32[512,512] all-reduce(%t), replica_groups={{0,1,2,3}}, to_apply=%sum
})";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const std::string_view shape = input.substr(0, newline);
  const std::string_view json =
      newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);

  (void)hloroof::split_topology_text(shape);
  for (const char* name : {"tpu_v5p", "h100"}) {
    absl::StatusOr<hloroof::DeviceSpec> builtin = hloroof::device(name);
    if (!builtin.ok()) std::abort();
    absl::StatusOr<hloroof::Topology> t = hloroof::make_topology(*builtin, shape);
    if (t.ok()) (void)t->describe();
  }

  absl::StatusOr<hloroof::DeviceSpec> spec = hloroof::parse_device_spec(json, "fuzz.json");
  if (!spec.ok()) return 0;
  absl::StatusOr<hloroof::Topology> t = hloroof::make_topology(*spec, shape);
  if (t.ok()) (void)t->describe();
  static const absl::StatusOr<hloroof::Module> module = hloroof::parse_module(kModule);
  if (!module.ok()) std::abort();
  absl::StatusOr<hloroof::Prediction> p = hloroof::predict_step_time(*module, {.spec = *spec});
  if (!p.ok()) return 0;
  (void)hloroof::render_text_report(*p, *spec);
  const std::string svg = hloroof::render_roofline_svg(hloroof::roofline_chart(*p, *spec));
  if (svg.size() > (size_t{1} << 20)) std::abort();  // a chart is a few kilobytes
  return 0;
}
