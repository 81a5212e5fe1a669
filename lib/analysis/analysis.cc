#include "hloroof/analysis.h"

#include <chrono>
#include <functional>
#include <future>
#include <optional>
#include <utility>
#include <vector>

#include "hloroof/threads.h"

namespace hloroof {

struct Analysis::State {
  State(const Module& m, const DeviceTarget& d, AnalysisOptions o)
      : module(m), device(d), options(std::move(o)) {}

  void predict();
  void analyze_memory_for_xspace();
  void narrow_xspace_memory();

  const Module& module;
  const DeviceTarget& device;
  AnalysisOptions options;
  std::optional<absl::Status> ran;
  std::optional<absl::StatusOr<Prediction>> predicted;
  std::optional<absl::StatusOr<MemoryReport>> memory;
  // The XSpace's analysis, every buffer and allocation listed, while the XSpace may read it.
  std::optional<absl::StatusOr<MemoryReport>> xspace_memory;
  std::promise<const MemoryReport*> xspace_memory_made;
  std::optional<AdviceMaker> advice_maker;
  std::optional<absl::StatusOr<XSpaceFile>> xspace_file;
};

namespace {

// Now, ns since the Unix epoch: the predicted profile's start time.
int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

// memory() from the XSpace's analysis, narrowed, and every other buffer it describes freed: as
// soon as the XSpace has read it, else once both have run.
void Analysis::State::narrow_xspace_memory() {
  if (options.memory) {
    memory = !xspace_memory->ok() ? absl::StatusOr<MemoryReport>(xspace_memory->status())
                                  : narrow_memory_report(**xspace_memory, *options.memory);
  }
  xspace_memory.reset();
}

void Analysis::State::predict() {
  // The target's slice as resolving it parsed it.
  predicted = predict_step_time(module, device, options.predict);
  if (!predicted->ok()) return;
  Prediction& prediction = **predicted;
  if (options.advise) advice_maker.emplace(module, prediction, device.spec, *options.advise);
  if (options.predicted) options.predicted(prediction);
  if (options.xspace_dir.empty()) return;
  XSpaceOptions xspace = options.xspace;
  if (xspace.start_time_ns == 0) xspace.start_time_ns = now_ns();
  xspace.memory_future = xspace_memory_made.get_future().share();
  xspace.memory_read = [this] { narrow_xspace_memory(); };
  if (!options.keep_timeline) {
    xspace.timeline_read = [&prediction] {
      std::vector<TimelineEvent>().swap(prediction.timeline);
    };
  }
  xspace_file = hloroof::write_xspace(module, prediction, device.spec, options.xspace_dir, xspace);
}

// First where the two run one after the other: the XSpace finds it made (a failed one is made
// again, and its failure said, by the XSpace writer).
void Analysis::State::analyze_memory_for_xspace() {
  MemoryOptions wide = xspace_memory_options(options.xspace);
  if (options.memory) {
    const size_t every = wide.placements;
    wide = *options.memory;
    wide.placements = every;
    wide.allocations = true;
  }
  xspace_memory = analyze_memory(module, device.spec, wide);
  xspace_memory_made.set_value(xspace_memory->ok() ? &**xspace_memory : nullptr);
}

Analysis::Analysis(const Module& module, const DeviceTarget& device, AnalysisOptions options)
    : state_(std::make_unique<State>(module, device, std::move(options))) {}
Analysis::Analysis(Analysis&&) noexcept = default;
Analysis& Analysis::operator=(Analysis&&) noexcept = default;
Analysis::~Analysis() = default;

absl::Status Analysis::run() {
  State& s = *state_;
  if (s.ran) return *s.ran;
  std::vector<std::function<void()>> analyses;
  if (!s.options.xspace_dir.empty()) {
    analyses.push_back([&s] { s.analyze_memory_for_xspace(); });
  } else if (s.options.memory) {
    analyses.push_back(
        [&s] { s.memory = analyze_memory(s.module, s.device.spec, *s.options.memory); });
  }
  analyses.push_back([&s] { s.predict(); });
  detail::for_each_on_threads(analyses.size(), s.options.threads,
                              [&](size_t k) { analyses[k](); });
  if (s.xspace_memory) s.narrow_xspace_memory();  // not read by the XSpace (failed, or none)
  if (!s.predicted->ok()) {
    s.ran = s.predicted->status();
  } else if (s.xspace_file && !s.xspace_file->ok()) {
    s.ran = s.xspace_file->status();
  } else {
    s.ran = absl::OkStatus();
  }
  return *s.ran;
}

absl::StatusOr<Prediction>& Analysis::prediction() {
  run().IgnoreError();  // the prediction's error is the prediction
  return *state_->predicted;
}

const absl::StatusOr<MemoryReport>& Analysis::memory() {
  run().IgnoreError();
  static const absl::StatusOr<MemoryReport> kNone =
      absl::FailedPreconditionError("the analysis made no memory analysis");
  return state_->memory ? *state_->memory : kNone;
}

const absl::StatusOr<XSpaceFile>& Analysis::write_xspace() {
  run().IgnoreError();
  static const absl::StatusOr<XSpaceFile> kNone =
      absl::FailedPreconditionError("the analysis wrote no XSpace");
  return state_->xspace_file ? *state_->xspace_file : kNone;
}

absl::StatusOr<Advice> Analysis::advice() {
  run().IgnoreError();
  State& s = *state_;
  if (!s.advice_maker) return absl::FailedPreconditionError("the analysis made no advice");
  const absl::StatusOr<MemoryReport>& memory = this->memory();
  if (!memory.ok()) return memory.status();
  return s.advice_maker->finish(*memory);
}

const DeviceSpec& Analysis::device() const { return state_->device.spec; }

}  // namespace hloroof
