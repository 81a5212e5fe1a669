// What the expected-time models share (expected_time_internal.h): the measured tables' devices,
// the texts of seconds, the memo of explanations and the rendering of each model's basis.
#include "predict/expected_time.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
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

Source measured_source(const DeviceSpec& device, const std::string& measured_on) {
  if (measured_on.empty()) return {};
  return {measured_on, measured_on != table_device(device)};
}

// An AMD GPU borrows the H100's GEMM efficiency at each shape (its file says so), scaled to its
// own measured plateau (gemm_plateau): on the MI300X profiles of ../shared/profiles/mi300 a dot's
// measured/expected per step is 0.89x, attention's matmul 1.12x (tests/profile).
Source gemm_source(const DeviceSpec& device) {
  if (device.kind != DeviceKind::kGpu || !device.gpu) return {};
  return measured_source(device, device.measured_on.gemm_tables);
}

Source collective_source(const DeviceSpec& device) {
  if (device.kind != DeviceKind::kGpu || !device.gpu) return {};
  return measured_source(device, device.measured_on.collective_tables);
}

const DeviceSpec* source_spec(std::string_view name) {
  // Built-in specs only (a spec file names built-in devices in measured_on), each read once.
  static std::mutex mu;
  static auto* specs = new std::map<std::string, absl::StatusOr<DeviceSpec>, std::less<>>;
  std::lock_guard<std::mutex> lock(mu);
  auto it = specs->find(name);
  if (it == specs->end()) it = specs->emplace(std::string(name), device(name)).first;
  return it->second.ok() ? &*it->second : nullptr;
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

}  // namespace hloroof::predict

namespace hloroof {

void load_measured_models(const DeviceSpec& device) {
  for (const predict::Source& source :
       {predict::gemm_source(device), predict::collective_source(device)}) {
    if (!source.name.empty()) (void)measured::tables_for(source.name);
  }
}

}  // namespace hloroof
