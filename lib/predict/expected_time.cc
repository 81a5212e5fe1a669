// What the expected-time models share (expected_time_internal.h): the measured tables' devices,
// the texts of seconds, the memo of explanations and the rendering of each model's basis.
#include "predict/expected_time.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <variant>

#include "absl/container/inlined_vector.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cost/cost_internal.h"
#include "hloroof/absl_compat.h"
#include "hloroof/computation.h"
#include "predict/expected_time_internal.h"
#include "predict/gpu_families.h"
#include "predict/tpu_models.h"
#include "util/number_text.h"

namespace hloroof::predict {

std::string_view table_device(const DeviceSpec& device) {
  return device.base.empty() ? std::string_view(device.name) : std::string_view(device.base);
}

bool nvidia(const DeviceSpec& device) {
  return device.kind == DeviceKind::kGpu && device.gpu &&
         device.gpu->vendor == GpuVendor::kNvidia;
}

Source gemm_source(const DeviceSpec& device) {
  if (device.kind != DeviceKind::kGpu || !device.gpu) return {};
  // An AMD GPU borrows the H100's GEMM efficiency at each shape: on the MI300X profiles of
  // ../shared/profiles/mi300 it brings measured/expected from 3.65x to 1.29x (a dot) and from
  // 2.65x to 1.38x (attention's matmuls) where the roofline alone stood (tests/profile).
  if (!nvidia(device)) return {"h100", true};
  const std::string_view name = table_device(device);
  if (name == "h100" || name == "b200") return {name, false};
  if (name == "h200") return {"h100", true};  // same Hopper die, more HBM
  if (name == "gb200") return {"b200", true};
  const int major = device.gpu ? device.gpu->compute_capability_major : 0;
  if (major >= 10) return {"b200", true};
  if (major >= 8) return {"h100", true};
  return {};
}

Source collective_source(const DeviceSpec& device) {
  if (!nvidia(device)) return {};
  const std::string_view name = table_device(device);
  if (name == "h100" || name == "b200" || name == "gb200") return {name, false};
  if (name == "h200") return {"h100", true};
  const int major = device.gpu ? device.gpu->compute_capability_major : 0;
  if (major >= 10) return {"b200", true};
  if (major >= 8) return {"h100", true};
  return {};
}

const DeviceSpec* source_spec(std::string_view name) {
  static const auto* h100 = new absl::StatusOr<DeviceSpec>(device("h100"));
  static const auto* b200 = new absl::StatusOr<DeviceSpec>(device("b200"));
  static const auto* gb200 = new absl::StatusOr<DeviceSpec>(device("gb200"));
  const absl::StatusOr<DeviceSpec>* s = name == "h100"   ? h100
                                        : name == "b200" ? b200
                                        : name == "gb200" ? gb200
                                                          : nullptr;
  return s != nullptr && s->ok() ? &**s : nullptr;
}

std::optional<double> peak(const DeviceSpec& device, std::string_view cls) {
  auto it = device.matrix_flops_per_s.find(cls);
  if (it == device.matrix_flops_per_s.end()) return std::nullopt;
  return it->second;
}

std::string seconds(double s) {
  struct Entry {
    uint64_t bits;
    uint8_t size;  // 0: empty
    char text[23];
  };
  static thread_local std::array<Entry, 256> table{};
  uint64_t bits;
  std::memcpy(&bits, &s, sizeof(bits));
  Entry& e = table[(bits * 0x9e3779b97f4a7c15ull) >> 56];
  if (e.size == 0 || e.bits != bits) {
    const std::string text = util::general_text(s, 4) + " s";
    if (text.size() > sizeof(e.text)) return text;  // never: "-1.234e-308 s" at most
    std::memcpy(e.text, text.data(), text.size());
    e.size = static_cast<uint8_t>(text.size());
    e.bits = bits;
  }
  return std::string(e.text, e.size);
}

void note_once(std::vector<std::string>& assumptions, std::string line) {
  if (std::find(assumptions.begin(), assumptions.end(), line) == assumptions.end()) {
    assumptions.push_back(std::move(line));
  }
}


std::string_view TextMemo::text(std::string_view key, absl::FunctionRef<std::string()> make) {
  if (transient_) return last_ = make();
  if (!memoize_) return pool_.save(make());
  if (auto it = texts_.find(key); it != texts_.end()) return it->second;
  const std::string_view text = pool_.save(make());
  if (texts_.size() < kMaxTexts) texts_.emplace(std::string(key), text);
  return text;
}

double GemmTimeCache::time_s(const measured::GemmTable& table, const measured::GemmShape& shape) {
  const Key key{&table, shape.b, shape.m, shape.n, shape.k};
  auto it = times_.find(key);
  if (it == times_.end()) it = times_.emplace(key, table.time_s(shape)).first;
  return it->second;
}

std::string_view explain_expected_time(const ExpectedTime& e, const DeviceSpec& device,
                                       TextMemo& memo) {
  if (const auto* gpu = std::get_if<GpuOpBasis>(&e.basis)) {
    return explain_gpu_op(e, *gpu, device, memo);
  }
  if (const auto* tpu = std::get_if<TpuOpBasis>(&e.basis)) {
    return explain_tpu_op(e, *tpu, device, memo);
  }
  if (const auto* collective = std::get_if<CollectiveBasis>(&e.basis)) {
    return memo.save(explain_collective(e, *collective, device));
  }
  return {};
}

}  // namespace hloroof::predict

namespace hloroof {

void load_measured_models(const DeviceSpec& device) {
  for (const predict::Source& source :
       {predict::gemm_source(device), predict::collective_source(device)}) {
    if (!source.name.empty()) (void)measured::tables_for(source.name);
  }
}

}  // namespace hloroof
