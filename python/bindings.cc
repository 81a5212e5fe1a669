// The compiled half of the `hloroof` Python package: the library's records as Python classes,
// with to_dict(), to_pandas() and str() (bindings_results.cc), and the steps of every call
// (bindings_calls.cc). The pure-Python half (hloroof/__init__.py) accepts JAX objects, open
// files and keyword options; its type stubs are hloroof/_hloroof.pyi.
//
// Every record field is registered through Record::field, which binds it read-only and lists its
// name in the class's `_fields` tuple (to_dict() and the tests walk that tuple): a new C++ field
// is one line in its topic's bindings_*.cc, plus one in _hloroof.pyi. Every module Python
// reads comes through load_path_or_text (bindings_calls.cc), as the command's do.
// Results that point into a module (instructions, computations) keep it alive; the GIL is
// released while the library parses, costs, predicts or prints.
#include "bindings.h"

#include <time.h>

namespace hloroof::python {
namespace {

// CPU time of this thread, ms: what bench/python_parse_bench.py and python_predict_bench.py
// compare Python's calls with.
double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

}  // namespace
}  // namespace hloroof::python

PYBIND11_MODULE(_hloroof, m) {
  using namespace hloroof;
  using namespace hloroof::python;
  m.doc() = "hloroof's compiled bindings; use the `hloroof` package.";
  m.attr("__version__") = std::string(version());
  register_exit_wait();
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
  bind_module_class(m);
  bind_device(m);
  bind_cost(m);
  bind_memory(m);
  bind_predict(m);
  bind_prediction(m);
  bind_profile(m);
  bind_calibrate(m);
  bind_outputs(m);
  bind_diff(m);
  bind_calls(m);
  bind_results(m);

  m.def(
      "_parse_cpu_ms",
      [](std::string_view text) {
        GilRelease release;
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
        GilRelease release;
        const double t0 = thread_cpu_ms();
        // As predict_step_time on text did: the module parsed, the device resolved.
        absl::StatusOr<Module> module = parse_module(text);
        absl::StatusOr<DeviceTarget> target =
            module.ok() ? resolve_device(device, &*module)
                        : absl::StatusOr<DeviceTarget>(module.status());
        const bool ok = target.ok() && predict_step_time(*module, *target).ok();
        const double ms = thread_cpu_ms() - t0;
        return std::make_pair(ms, ok);
      },
      py::arg("text"), py::arg("device"),
      "Thread CPU ms of one prediction of text on a named device made from C++ (parsed, the "
      "device resolved, predict_step_time), the prediction freed (for "
      "bench/python_predict_bench.py).");
}
