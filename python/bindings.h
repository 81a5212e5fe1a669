// What the compiled half of the `hloroof` Python package shares across its files
// (bindings*.cc, one per topic): the library's errors turned into Python's, the Record helper
// that binds a record's fields, and each topic's bind_* function.
#ifndef HLOROOF_PYTHON_BINDINGS_H_
#define HLOROOF_PYTHON_BINDINGS_H_

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl_bind.h>
#include <time.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "hloroof/advise.h"
#include "hloroof/analysis_json.h"
#include "hloroof/analysis_text.h"
#include "hloroof/cost.h"
#include "hloroof/device.h"
#include "hloroof/device_target.h"
#include "hloroof/diff.h"
#include "hloroof/edit.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/hlo_text.h"
#include "hloroof/input_file.h"
#include "hloroof/load.h"
#include "hloroof/memory.h"
#include "hloroof/output_file.h"
#include "hloroof/platform.h"
#include "hloroof/predict.h"
#include "hloroof/profile.h"
#include "hloroof/report.h"
#include "hloroof/summary_json.h"
#include "hloroof/version.h"
#include "hloroof/xspace.h"
#include "hloroof/absl_compat.h"

namespace py = pybind11;

// Vectors of records that point into a module or a prediction stay C++ vectors, indexed in
// place: their elements keep their owner alive, and a long list is not copied on each access.
PYBIND11_MAKE_OPAQUE(std::vector<hloroof::OpPrediction>)
PYBIND11_MAKE_OPAQUE(std::vector<hloroof::TimelineEvent>)
PYBIND11_MAKE_OPAQUE(std::vector<hloroof::InstructionCost>)
PYBIND11_MAKE_OPAQUE(std::vector<hloroof::ComputationCost>)

namespace hloroof::python {

inline constexpr auto kInternal = py::return_value_policy::reference_internal;

// The GIL released while the library works, as py::gil_scoped_release does, but safe at the
// interpreter's exit. A thread that takes the GIL back while the interpreter finalizes is ended
// by Python (pthread_exit); from py::gil_scoped_release's destructor, which may not throw, that
// ended the process instead ("terminate called without an active exception", SIGABRT) when a
// daemon thread was in an analysis at exit. So every release is counted, and at exit (an atexit
// function, run before Python finalizes: register_exit_wait) the main thread waits for the
// analyses running with the GIL released to take it back; after that, analyses keep the GIL.
namespace gil {
struct State {
  std::mutex mutex;
  std::condition_variable done;
  int64_t released = 0;  // releases running
  bool exiting = false;  // set with the GIL held: no release starts after it
};
inline State& state() {
  static State* const kState = new State();  // lives past the interpreter
  return *kState;
}
}  // namespace gil

class GilRelease {
 public:
  GilRelease() {
    gil::State& s = gil::state();
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      if (s.exiting) return;
      ++s.released;
    }
    thread_ = PyEval_SaveThread();
  }
  ~GilRelease() {
    if (thread_ == nullptr) return;
    PyEval_RestoreThread(thread_);
    gil::State& s = gil::state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (--s.released == 0) s.done.notify_all();
  }
  GilRelease(const GilRelease&) = delete;
  GilRelease& operator=(const GilRelease&) = delete;

 private:
  PyThreadState* thread_ = nullptr;
};

// Registers with Python's atexit the wait GilRelease needs (once, at import).
inline void register_exit_wait() {
  py::module_::import("atexit").attr("register")(py::cpp_function([] {
    gil::State& s = gil::state();
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.exiting = true;
      if (s.released == 0) return;
    }
    PyThreadState* main = PyEval_SaveThread();
    {
      std::unique_lock<std::mutex> lock(s.mutex);
      s.done.wait(lock, [&] { return s.released == 0; });
    }
    PyEval_RestoreThread(main);
  }));
}

// A library error on its way to Python: a ParseError when it points into the text, else a
// ValueError, either with the message the command-line tool prints.
// Messages quote what they read (a name, a line): one of hostile text could be megabytes. As
// the command's: past 4 KiB, the head and the last 256 bytes, the middle counted.
inline std::string capped_message(std::string_view message) {
  constexpr size_t kMaxMessageBytes = 4096;
  if (message.size() <= kMaxMessageBytes) return std::string(message);
  return str_cat(message.substr(0, kMaxMessageBytes - 512), " [... ",
                 message.size() - kMaxMessageBytes + 256, " bytes left out ...] ",
                 message.substr(message.size() - 256));
}

class StatusError : public std::exception {
 public:
  explicit StatusError(absl::Status status)
      : status_(std::move(status)), message_(capped_message(sv(status_.message()))) {}
  const char* what() const noexcept override { return message_.c_str(); }
  const absl::Status& status() const { return status_; }

 private:
  absl::Status status_;
  std::string message_;
};

// Text is built with the library's str_cat and str_append (hloroof/absl_compat.h: absl::StrCat
// that takes std::string_view too); a figure in a repr has four significant digits.
inline std::string repr_figure(double value) { return absl::StrFormat("%.4g", value); }

template <typename T>
T value_or_raise(absl::StatusOr<T> result) {
  if (!result.ok()) throw StatusError(result.status());
  return *std::move(result);
}

inline py::object& parse_error_type() {
  static py::object* type = nullptr;  // set once at import, lives with the interpreter
  if (type == nullptr) type = new py::object();
  return *type;
}

inline void raise_status(const StatusError& error) {
  const absl::Status& status = error.status();
  std::optional<ParseErrorLocation> where = parse_error_location(status);
  if (!where) {
    PyErr_SetString(PyExc_ValueError, error.what());
    return;
  }
  py::object exception = parse_error_type()(error.what());
  exception.attr("line") = where->line;
  exception.attr("column") = where->column;
  exception.attr("reason") = capped_message(where->message);
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

inline std::string shape_text(const Instruction& i) { return to_string(i.shape()); }

inline std::string instruction_repr(const Instruction& i) {
  std::string operands;
  for (const Instruction* o : i.operands()) {
    str_append(&operands, operands.empty() ? "" : ", ", "%", o->name());
  }
  return str_cat("<hloroof.Instruction %", i.name(), " = ", shape_text(i), " ",
                 opcode_name(i.opcode()), "(", operands, ")>");
}

inline void ok_or_raise(const absl::Status& status) {
  if (!status.ok()) throw StatusError(status);
}

inline Shape shape_or_raise(std::string_view text) { return value_or_raise(parse_shape(text)); }

// Each binds one topic's classes and functions into the extension module.
void bind_module(py::module_& m);   // Instruction, Computation and their editing
void bind_module_class(py::module_& m);  // Module and its editing
void bind_device(py::module_& m);   // devices, their specs and targets
void bind_cost(py::module_& m);     // costs of instructions and modules
void bind_memory(py::module_& m);   // memory reports
void bind_predict(py::module_& m);     // predict's options and its op records
void bind_prediction(py::module_& m);  // the predicted step: timeline, breakdown, Prediction
void bind_profile(py::module_& m);     // profiles read, and predictions joined with them
void bind_calibrate(py::module_& m);   // a device calibrated from profiles
void bind_outputs(py::module_& m);     // the commands' reports and files of a prediction
void bind_diff(py::module_& m);     // two predictions compared; the commands' output files
void bind_calls(py::module_& m);  // the API's steps: read, choose the device, merge what was said
void bind_results(py::module_& m);  // last: to_dict, to_pandas, str of every result; Advice

// Plain Python data of a bound value: a record's fields by name, lists, dicts; instructions and
// computations by name.
py::object plain(py::handle value);

// The options every module Python reads is loaded with: messages name Python's arguments and
// Module.set_entry, and a file cut inside a computation is an error (a module read in part
// would pass for the whole).
LoadOptions python_load_options(const std::string& module_name = "");

}  // namespace hloroof::python

#endif  // HLOROOF_PYTHON_BINDINGS_H_
