// Analysis (hloroof/analysis.h): one module analysed on one device, the prediction beside the
// memory analysis, with the advice and the XSpace where asked for. hloroof.Analysis
// (hloroof/__init__.py) resolves the device and adds what it said; this holds the target the
// analysis reads and hands its results to Python.
#include <ctime>
#include <mutex>

#include "module_guard.h"
#include "hloroof/analysis.h"
#include "hloroof/topology.h"

namespace hloroof::python {
namespace {

// What Python asks of an analysis besides the prediction's options.
struct AnalysisRequest {
  MemoryOptions memory;
  std::optional<AdviseOptions> advise;
  std::string xspace_dir;
  int64_t steps = 1;
  std::string run;
  std::string host;
  int threads = 1;
};

// The analysis and the target it reads, held in one place that does not move (the analysis
// keeps a reference to the target); the module is kept alive by the Python object.
class PyAnalysis {
 public:
  PyAnalysis(const Module& module, DeviceTarget target, const PredictOptions& predict,
             const AnalysisRequest& request, Diagnostics said)
      : module_(module), target_(std::move(target)), said_(std::move(said)) {
    AnalysisOptions options;
    options.predict = predict;
    options.memory = request.memory;
    options.advise = request.advise;
    options.xspace_dir = request.xspace_dir;
    options.xspace.steps = request.steps;
    options.xspace.run = request.run;
    options.xspace.host = request.host;
    // As Prediction.write_xspace: the time in whole seconds, two parts at a time where there is
    // a second core.
    options.xspace.start_time_ns = static_cast<int64_t>(time(nullptr)) * 1'000'000'000;
    options.xspace.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    options.keep_timeline = true;  // Python reads the timeline after the XSpace
    options.threads = std::max(1, request.threads);
    // What resolving the device said, merged as predict() merges it, before the XSpace reads
    // the prediction.
    options.predicted = [this](Prediction& p) { add_diagnostics(said_, p); };
    analysis_.emplace(module, target_, std::move(options));
  }
  PyAnalysis(const PyAnalysis&) = delete;
  PyAnalysis& operator=(const PyAnalysis&) = delete;

  // run() once, from whichever thread comes first; the getters after it may run at once.
  absl::Status run() {
    std::lock_guard<std::mutex> lock(mutex_);
    return analysis_->run();
  }
  Analysis& analysis() { return *analysis_; }
  // Analysis::advice() is made once: kept for every later call.
  const absl::StatusOr<Advice>& advice() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!advice_) advice_ = analysis_->advice();
    return *advice_;
  }
  const DeviceTarget& target() const { return target_; }
  const Module& module() const { return module_; }

 private:
  const Module& module_;
  DeviceTarget target_;
  Diagnostics said_;
  std::optional<Analysis> analysis_;  // made last: it reads target_ and said_
  std::mutex mutex_;
  std::optional<absl::StatusOr<Advice>> advice_;
};

// Runs `a` with the GIL released, then reads what `get` gives.
template <typename Get>
auto ran(PyAnalysis& a, Get get) -> decltype(get(a.analysis())) {
  ModuleUse use(a.module());
  py::gil_scoped_release release;
  a.run().IgnoreError();  // each result carries its own error
  return get(a.analysis());
}

// A DeviceSpec with an optional slice as a target: the slice checked as a named device's is
// (check_slice, as predict() checks a spec's) and parsed once.
DeviceTarget spec_target(const DeviceSpec& spec, const std::string& topology) {
  ok_or_raise(check_slice(spec, topology));
  DeviceTarget target{.spec = spec};
  if (!topology.empty()) target.slice = value_or_raise(make_topology(spec, topology));
  return target;
}

}  // namespace

void bind_analysis(py::module_& m) {
  m.def("_spec_target", &spec_target, py::arg("spec"), py::arg("topology"),
        "A DeviceSpec and a slice as a DeviceTarget, the slice checked as a named device's.");
  py::class_<PyAnalysis>(m, "_Analysis")
      .def(py::init([](const Module& module, const DeviceTarget& target,
                       const PredictOptions& predict, size_t top_buffers, bool first_tile_padding,
                       bool advise, size_t top, size_t evidence_rows, std::string xspace_dir,
                       int64_t steps, std::string run, std::string host, int threads,
                       std::vector<std::string> notes, std::vector<std::string> warnings) {
             AnalysisRequest request{
                 .memory = {.top_buffers = top_buffers, .first_tile_padding = first_tile_padding},
                 .xspace_dir = std::move(xspace_dir),
                 .steps = steps,
                 .run = std::move(run),
                 .host = std::move(host),
                 .threads = threads};
             if (advise) request.advise = AdviseOptions{.top = top, .evidence_rows = evidence_rows};
             return std::make_unique<PyAnalysis>(
                 module, target, predict, request,
                 Diagnostics{.notes = std::move(notes), .warnings = std::move(warnings)});
           }),
           py::arg("module"), py::arg("target"), py::arg("predict"), py::arg("top_buffers"),
           py::arg("first_tile_padding"), py::arg("advise"), py::arg("top"),
           py::arg("evidence_rows"), py::arg("xspace_dir"), py::arg("steps"), py::arg("run"),
           py::arg("host"), py::arg("threads"), py::arg("notes"), py::arg("warnings"),
           py::keep_alive<1, 2>())
      .def(
          "run",
          [](PyAnalysis& a) {
            absl::Status s;
            {
              ModuleUse use(a.module());
              py::gil_scoped_release release;
              s = a.run();
            }
            ok_or_raise(s);
          },
          "Makes what was asked for (once); raises the prediction's error, else the XSpace's.")
      .def(
          "prediction",
          [](PyAnalysis& a) -> Prediction& {
            absl::StatusOr<Prediction>* p =
                &ran(a, [](Analysis& made) -> auto& { return made.prediction(); });
            if (!p->ok()) throw StatusError(p->status());
            return **p;
          },
          kInternal, "The prediction, held by the analysis.")
      .def(
          "memory",
          [](PyAnalysis& a) {
            const absl::StatusOr<MemoryReport>* r =
                &ran(a, [](Analysis& made) -> const auto& { return made.memory(); });
            if (!r->ok()) throw StatusError(r->status());
            return MemoryReport(**r);
          },
          "A copy of the memory analysis.")
      .def(
          "advice",
          [](PyAnalysis& a) {
            const absl::StatusOr<Advice>* advice = nullptr;
            {
              ModuleUse use(a.module());
              py::gil_scoped_release release;
              a.run().IgnoreError();
              advice = &a.advice();
            }
            if (!advice->ok()) throw StatusError(advice->status());
            return py::make_tuple(advice_to_json(**advice), render_advice_text(**advice));
          },
          "The object of `hloroof advise --json`, as JSON text, and the report.")
      .def(
          "write_xspace",
          [](PyAnalysis& a) {
            const absl::StatusOr<XSpaceFile>* file =
                &ran(a, [](Analysis& made) -> const auto& { return made.write_xspace(); });
            if (!file->ok()) throw StatusError(file->status());
            py::dict out;
            out["path"] = (*file)->path;
            out["events"] = (*file)->events;
            out["program_id"] = (*file)->program_id;
            out["unfilled"] = (*file)->unfilled;
            return out;
          },
          "The XSpace written: path, events, program_id, unfilled.")
      .def_property_readonly(
          "target", [](const PyAnalysis& a) -> const DeviceTarget& { return a.target(); },
          kInternal, "The device and slice analysed on.");
}

}  // namespace hloroof::python
