// compare_devices (hloroof/analysis.h): one module predicted on several devices at once.
#include <cstddef>
#include <memory>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "hloroof/analysis.h"
#include "hloroof/threads.h"

namespace hloroof {
namespace {

// One module predicted on several devices, and what the caller is handed of it.
class Comparison {
 public:
  Comparison(const Module& module, absl::Span<const DeviceTarget> devices,
             DeviceComparisonOptions options)
      : module_(module), devices_(devices), options_(std::move(options)) {}

  DeviceComparison run();

 private:
  void analyse_shared_parts();
  void make(size_t k);
  bool hand_over(size_t k, int threads);

  const Module& module_;
  const absl::Span<const DeviceTarget> devices_;
  const DeviceComparisonOptions options_;
  std::optional<absl::StatusOr<ModuleCost>> cost_;
  std::vector<std::optional<absl::StatusOr<Prediction>>> predicted_;
  DeviceComparison result_;
  // Handed over one by one, the devices' steps are timed at once, but a prediction makes its
  // op records (most of what it holds) only once at most one device before it is still to be
  // handed over: two devices' records are held at a time, not one per thread, at no cost in
  // time. The third waits while the first is written, then makes its records while the second
  // is.
  detail::EmitWindow records_{2};
  std::vector<std::thread> releases_;  // the predictions handed over being freed
};

// The cost of the module's instructions depends on no device: analysed once for them all,
// while the devices' measured tables are read. Should it fail (or the module have no step),
// each prediction says why, as alone.
void Comparison::analyse_shared_parts() {
  detail::for_each_on_threads(2, options_.threads, [&](size_t part) {
    if (part == 0 && module_.entry_marked()) {
      cost_ = analyze_cost(module_, cost_options(options_.predict));
    }
    if (part == 1) {
      for (const DeviceTarget& device : devices_) load_measured_models(device.spec);
    }
  });
}

void Comparison::make(size_t k) {
  PredictOptions each = options_.predict;
  if (options_.each) {
    each.before_records = [this, k, own = options_.predict.before_records] {
      if (own) own();
      records_.wait(k);
    };
  }
  const std::optional<size_t>& later = options_.later_ops;
  if (later && k > 0 && *later > 0) each.max_ops = *later;
  absl::StatusOr<Prediction> p = cost_ && cost_->ok()
                                     ? predict_step_time(module_, devices_[k], each, **cost_)
                                     : predict_step_time(module_, devices_[k], each);
  if (p.ok() && later && k > 0 && p->ops.size() > *later) {
    p->ops.erase(p->ops.begin() + static_cast<std::ptrdiff_t>(*later), p->ops.end());
    p->ops.shrink_to_fit();
  }
  predicted_[k] = std::move(p);
  if (options_.check_capacity && k == 0) {
    result_.memory = analyze_memory(module_, {.top_buffers = 0});
  }
}

// Once handed over, a device's prediction is let go: the others on a thread of their own, once
// the next device may make its records, so that neither the next output nor those records
// wait while a million ops' records are freed (0.07-0.10 s each on a 16-core host); the last
// one here (the caller moved out what it keeps).
bool Comparison::hand_over(size_t k, int threads) {
  if (!options_.each(k, *predicted_[k], threads)) {
    records_.release_all();  // no prediction waits after the last call
    return false;
  }
  if (k + 1 < devices_.size()) {
    auto handed = std::make_unique<absl::StatusOr<Prediction>>(*std::move(predicted_[k]));
    predicted_[k].reset();
    try {
      releases_.emplace_back([handed = std::move(handed)]() mutable { handed.reset(); });
    } catch (const std::system_error&) {
      // No thread to be had: the prediction was freed here, as the thread's work unwound.
    }
  } else {
    predicted_[k].reset();
  }
  records_.emitted(k);
  return true;
}

DeviceComparison Comparison::run() {
  const size_t n = devices_.size();
  predicted_.resize(n);
  analyse_shared_parts();
  if (options_.each) {
    detail::make_then_emit_in_order(
        n, options_.threads, [this](size_t k) { make(k); },
        [this](size_t k, int threads) { return hand_over(k, threads); });
    for (std::thread& release : releases_) release.join();
  } else {
    detail::for_each_on_threads(n, options_.threads, [this](size_t k) { make(k); });
    result_.predictions.reserve(n);
    for (std::optional<absl::StatusOr<Prediction>>& p : predicted_) {
      result_.predictions.push_back(*std::move(p));
    }
  }
  result_.fits.resize(n);
  if (result_.memory && result_.memory->ok()) {
    for (size_t k = 0; k < n; ++k) {
      result_.fits[k] = check_capacity((*result_.memory)->footprint_bytes, devices_[k].spec,
                                       CapacityBasis::kFootprint);
    }
  }
  return std::move(result_);
}

}  // namespace

DeviceComparison compare_devices(const Module& module, absl::Span<const DeviceTarget> devices,
                                 DeviceComparisonOptions options) {
  return Comparison(module, devices, std::move(options)).run();
}

}  // namespace hloroof
