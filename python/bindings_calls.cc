// The steps every call of the Python API (hloroof/__init__.py) takes, through the front door
// the commands take (hloroof/analysis.h): the module read from whatever was given
// (load_path_or_text: a path or text), the device chosen from whatever names it
// (choose_device, spec_target), and what both said merged into the result
// (add_input_diagnostics). Python keeps what is Python's: JAX objects, open files, pandas.
#include <ctime>
#include <map>
#include <mutex>

#include "absl/strings/ascii.h"
#include "bindings.h"
#include "hloroof/analysis.h"
#include "module_guard.h"

namespace hloroof::python {
namespace {

// ---- Reading a module.

// The UTF-8 bytes of a str, held by the str; ValueError for a lone surrogate, which UTF-8
// cannot hold.
std::string_view utf8_of(py::handle text) {
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
  if (data != nullptr) return {data, static_cast<size_t>(size)};
  PyErr_Clear();
  const Py_ssize_t length = PyUnicode_GetLength(text.ptr());
  for (Py_ssize_t i = 0; i < length; ++i) {
    const Py_UCS4 c = PyUnicode_ReadChar(text.ptr(), i);
    if (c >= 0xD800 && c <= 0xDFFF) {
      const py::str one =
          py::reinterpret_steal<py::str>(PyUnicode_FromOrdinal(static_cast<int>(c)));
      throw py::value_error(str_cat("the text holds ", py::repr(one).cast<std::string>(),
                                    " at character ", i,
                                    ", a lone surrogate, which UTF-8 cannot hold: not text a "
                                    "program wrote"));
    }
  }
  throw py::value_error("the text cannot be encoded as UTF-8");
}

bool is_path_like(py::handle source) {
  return !py::isinstance<py::str>(source) && py::hasattr(source, "__fspath__");
}

std::string fs_path(py::handle path) {
  py::module_ os = py::module_::import("os");
  return os.attr("fsdecode")(os.attr("fspath")(path)).cast<std::string>();
}

// A module read from a str (a path or HLO text: load_path_or_text decides), bytes, or an
// os.PathLike; `file_name` names text in parse errors. The Module carries what loading it said
// (Module.diagnostics); the second value is true when it was read from a file.
py::tuple load(py::handle source, const std::string& file_name, const std::string& module_name) {
  const LoadOptions options = python_load_options(module_name);
  absl::StatusOr<LoadedModule> loaded;
  bool from_file = false;
  if (py::isinstance<py::str>(source)) {
    const std::string_view text = utf8_of(source);
    {
      GilRelease release;
      loaded = load_path_or_text(text, options, file_name);
    }
    if (!loaded.ok() && absl::IsNotFound(loaded.status()) &&
        input_form(text) == InputForm::kMissingPath) {
      PyErr_SetString(PyExc_FileNotFoundError, std::string(loaded.status().message()).c_str());
      throw py::error_already_set();
    }
    from_file = input_form(text) == InputForm::kPath;
  } else if (py::isinstance<py::bytes>(source) || py::isinstance<py::bytearray>(source)) {
    // A bytearray may change: its bytes are copied; a bytes object is read in place.
    std::string copy;
    std::string_view bytes;
    if (py::isinstance<py::bytes>(source)) {
      bytes = source.cast<std::string_view>();
    } else {
      copy.assign(PyByteArray_AsString(source.ptr()),
                  static_cast<size_t>(PyByteArray_Size(source.ptr())));
      bytes = copy;
    }
    GilRelease release;
    loaded = load_module(ModuleBytes{.bytes = bytes, .name = file_name}, options);
  } else if (is_path_like(source)) {
    std::string path = fs_path(source);
    if (path == "-") path = "./-";  // a file of that name, not standard input
    from_file = true;
    GilRelease release;
    loaded = load_module(path, options);
  } else {
    throw py::type_error(str_cat("expected HLO text, a path, an open file, a hloroof.Module or "
                                 "an object with as_text(), got ",
                                 py::type::handle_of(source).attr("__name__").cast<std::string>()));
  }
  LoadedModule read = value_or_raise(std::move(loaded));
  py::object module = py::cast(std::move(read.module));
  module.attr("_diagnostics") = py::cast(std::move(read.diagnostics));
  // What choose_device reads of where the module came from.
  module.attr("_file") = read.file;
  module.attr("_profile_device_kind") = read.profile_device_kind;
  return py::make_tuple(module, from_file);
}

std::string text_attr(py::handle object, const char* name) {
  py::object value = py::getattr(object, name, py::none());
  return value.is_none() ? std::string() : value.cast<std::string>();
}

// What was said before an analysis of `module`: what loading it said (Module.diagnostics), the
// warning for a module that marks no computation ENTRY (the commands' banner), what the caller
// read (`notes`: a JAX object, a profile) and what choosing `target` said (none without one).
InputDiagnostics said_of(py::handle module, const DeviceTarget* target = nullptr,
                         const std::vector<std::string>& notes = {}) {
  InputDiagnostics out;
  py::object said = py::getattr(module, "_diagnostics", py::none());
  if (!said.is_none()) out.loaded = said.cast<Diagnostics>();
  out.banner = no_entry_warning(module.cast<const Module&>(),
                                python_load_options().entry_naming);
  out.caller_notes = notes;
  if (target != nullptr) out.device = target->diagnostics;
  return out;
}

// What reading the input said, for the notes of a cost report as the command's --json gives
// them: as a memory report's (add_input_diagnostics), with no device.
std::vector<std::string> input_notes(const InputDiagnostics& said) {
  MemoryReport report;
  add_input_diagnostics(said, report);
  return report.notes;
}

// ---- Choosing the device.

std::string type_name(py::handle value) {
  return py::type::handle_of(value).attr("__name__").cast<std::string>();
}

// `settings` as the command's --set values: None, one 'PATH=VALUE' string, or a list of them.
std::vector<std::string> settings_of(py::handle settings, std::string_view function) {
  std::vector<std::string> out;
  if (settings.is_none()) return out;
  if (py::isinstance<py::str>(settings)) return {settings.cast<std::string>()};
  for (py::handle s : py::iter(settings)) {
    if (!py::isinstance<py::str>(s)) {
      throw py::type_error(str_cat(function, ": settings wants 'PATH=VALUE' strings, got ",
                                   type_name(s), " ", py::repr(s).cast<std::string>()));
    }
    out.push_back(s.cast<std::string>());
  }
  return out;
}

// How a call takes its device: any (a name, a JSON path, a DeviceSpec, or None: the module's
// platform's), names (no DeviceSpec), or one name (no DeviceSpec, not None or empty).
enum class Accepts { kAny, kNames, kName };

// The device and slice `device` names for `module`, by the command's --device rule, with
// `settings` (the command's --set) applied. `compiled_for`: the platform a JAX object's devices
// are, where its text may not tell.
DeviceTarget target(py::handle device, py::handle module_object, const std::string& topology,
                    py::handle settings, const std::string& function, const std::string& accepts,
                    const std::string& compiled_for) {
  const Module* module =
      module_object.is_none() ? nullptr : &module_object.cast<const Module&>();
  const Accepts mode = accepts == "names" ? Accepts::kNames
                       : accepts == "name" ? Accepts::kName
                                           : Accepts::kAny;
  std::vector<std::string> set = settings_of(settings, function);
  const PlatformInference platform{.platform = compiled_for, .marker = "the JAX object's devices"};
  std::optional<ModuleUse> use;
  if (module != nullptr) use.emplace(*module);
  absl::StatusOr<DeviceTarget> t;
  if (mode == Accepts::kAny && py::isinstance<DeviceSpec>(device)) {
    if (!set.empty()) {
      throw py::type_error(str_cat(function,
                                   ": settings apply to a device given by name or JSON path; a "
                                   "DeviceSpec has its figures: make it with hloroof.device(name, "
                                   "settings)"));
    }
    const DeviceSpec& spec = device.cast<const DeviceSpec&>();
    GilRelease release;
    t = spec_target(spec, topology, module, platform);
  } else if (py::isinstance<py::str>(device) || is_path_like(device) ||
             (device.is_none() && mode != Accepts::kName)) {
    const std::string text = device.is_none()        ? std::string()
                             : is_path_like(device) ? fs_path(device)
                                                    : device.cast<std::string>();
    if (mode == Accepts::kName && absl::StripAsciiWhitespace(text).empty()) {
      throw py::value_error("device: no name given (hloroof.devices() lists the built-in ones)");
    }
    const std::string file = text_attr(module_object, "_file");
    const std::string kind = text_attr(module_object, "_profile_device_kind");
    GilRelease release;
    absl::StatusOr<DeviceChoice> chosen =
        choose_device(module, file, kind, text,
                      {.topology = topology,
                       .settings = std::move(set),
                       .device_option = "device=",
                       .topology_option = "topology=",
                       .compiled_for = platform});
    if (chosen.ok() && !chosen->profile_note.empty()) {
      // The command says it on standard error; Python, first among the device's notes.
      std::vector<std::string>& notes = chosen->target.diagnostics.notes;
      notes.insert(notes.begin(), chosen->profile_note);
    }
    t = chosen.ok() ? absl::StatusOr<DeviceTarget>(std::move(chosen->target))
                    : absl::StatusOr<DeviceTarget>(chosen.status());
  } else if (mode == Accepts::kAny) {
    throw py::type_error(str_cat("device wants a name ('h100', 'tpu_v5e:2x2'), a device JSON "
                                 "path or a DeviceSpec, got ",
                                 type_name(device)));
  } else {
    throw py::type_error(str_cat("device wants a device name (as `hloroof devices` lists them) "
                                 "or a device JSON path, got ",
                                 type_name(device), " ", py::repr(device).cast<std::string>()));
  }
  return value_or_raise(std::move(t));
}

// ---- The results, with what was said merged in.

// A count of bytes with its thousands grouped: 167,772,160.
std::string grouped(int64_t n) {
  const uint64_t magnitude = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  const std::string digits = absl::StrCat(magnitude);
  std::string out = n < 0 ? "-" : "";
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

// XLA's own figures of a JAX Compiled (memory_analysis(), by hloroof's names), set beside the
// report's: hloroof's in brackets wherever it differs.
std::string xla_memory_note(const MemoryReport& report,
                            const std::map<std::string, int64_t>& xla) {
  const std::pair<const char*, int64_t> terms[] = {{"argument", report.argument_bytes},
                                                   {"output", report.output_bytes},
                                                   {"alias", report.alias_bytes},
                                                   {"temp", report.temp_bytes}};
  std::string said;
  for (const auto& [name, ours] : terms) {
    const auto it = xla.find(str_cat(name, "_bytes"));
    if (it == xla.end()) continue;
    str_append(&said, said.empty() ? "" : ", ", name, " ", grouped(it->second), " B",
               it->second == ours ? "" : str_cat(" (hloroof ", grouped(ours), " B)"));
  }
  return str_cat("XLA's memory_analysis() of the compiled object: ", said);
}

py::dict xspace_dict(const XSpaceFile& f) {
  py::dict out;
  out["path"] = f.path;
  out["events"] = f.events;
  out["program_id"] = f.program_id;
  out["unfilled"] = f.unfilled;
  return out;
}

// ---- Analysis: the prediction, memory analysis, advice and XSpace of one module at once.

struct PyAnalysisRequest {
  MemoryOptions memory;
  std::optional<AdviseOptions> advise;
  std::string xspace_dir;
  int64_t steps = 1;
  std::string run;
  std::string host;
  int threads = 1;
};

XSpaceOptions xspace_options(int64_t steps, std::string run, std::string host) {
  XSpaceOptions options;
  options.steps = steps;
  options.run = std::move(run);
  options.host = std::move(host);
  // The time in whole seconds; two parts at a time where there is a second core (the writer's
  // most), as the command makes them.
  options.start_time_ns = static_cast<int64_t>(time(nullptr)) * 1'000'000'000;
  options.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return options;
}

// The analysis and the target it reads, held in one place that does not move (the analysis
// keeps a reference to the target); the module is kept alive by the Python object.
class PyAnalysis {
 public:
  PyAnalysis(const Module& module, DeviceTarget target, const PredictOptions& predict,
             const PyAnalysisRequest& request, InputDiagnostics said)
      : module_(module), target_(std::move(target)), said_(std::move(said)) {
    AnalysisOptions options;
    options.predict = predict;
    options.memory = request.memory;
    options.advise = request.advise;
    options.xspace_dir = request.xspace_dir;
    options.xspace = xspace_options(request.steps, request.run, request.host);
    options.keep_timeline = true;  // Python reads the timeline after the XSpace
    options.threads = std::max(1, request.threads);
    // What was said, merged as predict() merges it, before the XSpace reads the prediction.
    options.predicted = [this](Prediction& p) { add_input_diagnostics(said_, p); };
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
  // Analysis::advice() is made once: kept for every later call, with what was said.
  const absl::StatusOr<Advice>& advice() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!advice_) {
      advice_ = analysis_->advice();
      if (advice_->ok()) add_input_diagnostics(said_, **advice_);
    }
    return *advice_;
  }
  MemoryReport memory_report(const MemoryReport& made) const {
    MemoryReport report = made;
    add_input_diagnostics(said_, report);
    return report;
  }
  const DeviceTarget& target() const { return target_; }
  const Module& module() const { return module_; }

 private:
  const Module& module_;
  DeviceTarget target_;
  InputDiagnostics said_;
  std::optional<Analysis> analysis_;  // made last: it reads target_ and said_
  std::mutex mutex_;
  std::optional<absl::StatusOr<Advice>> advice_;
};

// Runs `a` with the GIL released, then reads what `get` gives.
template <typename Get>
auto ran(PyAnalysis& a, Get get) -> decltype(get(a.analysis())) {
  ModuleUse use(a.module());
  GilRelease release;
  a.run().IgnoreError();  // each result carries its own error
  return get(a.analysis());
}

// The folder an XSpace is written into: a path, never the text of another object (None would
// make a folder named None), and not empty.
std::string log_dir_of(py::handle log_dir, std::string_view function) {
  if (!py::isinstance<py::str>(log_dir) && !py::isinstance<py::bytes>(log_dir) &&
      !is_path_like(log_dir)) {
    throw py::type_error(str_cat(function,
                                 ": the log folder wants a path (str or os.PathLike), got ",
                                 type_name(log_dir)));
  }
  std::string path = fs_path(log_dir);
  if (path.empty()) {
    throw py::value_error(str_cat(function,
                                  ": cannot write the XSpace: the log folder's path is empty; "
                                  "name a folder (made if missing)"));
  }
  return path;
}

void bind_analysis_class(py::module_& m) {
  py::class_<PyAnalysis>(m, "_Analysis")
      .def(py::init([](py::object module, const DeviceTarget& target,
                       const PredictOptions& predict, std::vector<std::string> notes,
                       size_t top_buffers, bool first_tile_padding, bool advise, size_t top,
                       size_t evidence_rows, py::object xspace_dir, int64_t steps,
                       std::string run, std::string host, int threads) {
             PyAnalysisRequest request{
                 .memory = {.top_buffers = top_buffers, .first_tile_padding = first_tile_padding},
                 .xspace_dir = xspace_dir.is_none() ? "" : log_dir_of(xspace_dir, "Analysis"),
                 .steps = steps,
                 .run = std::move(run),
                 .host = std::move(host),
                 .threads = threads};
             if (advise) request.advise = AdviseOptions{.top = top, .evidence_rows = evidence_rows};
             return std::make_unique<PyAnalysis>(module.cast<const Module&>(), target, predict,
                                                 request, said_of(module, &target, notes));
           }),
           py::arg("module"), py::arg("target"), py::arg("predict"), py::arg("notes"),
           py::kw_only(), py::arg("top_buffers"), py::arg("first_tile_padding"),
           py::arg("advise"), py::arg("top"), py::arg("evidence_rows"), py::arg("xspace_dir"),
           py::arg("steps"), py::arg("run"), py::arg("host"), py::arg("threads"),
           py::keep_alive<1, 2>())
      .def(
          "run",
          [](PyAnalysis& a) {
            absl::Status s;
            {
              ModuleUse use(a.module());
              GilRelease release;
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
            return a.memory_report(**r);
          },
          "A copy of the memory analysis, with what was said.")
      .def(
          "advice",
          [](PyAnalysis& a) {
            const absl::StatusOr<Advice>* advice = nullptr;
            {
              ModuleUse use(a.module());
              GilRelease release;
              a.run().IgnoreError();
              advice = &a.advice();
            }
            if (!advice->ok()) throw StatusError(advice->status());
            return Advice(**advice);
          },
          "A copy of the advice.")
      .def(
          "write_xspace",
          [](PyAnalysis& a) {
            const absl::StatusOr<XSpaceFile>* file =
                &ran(a, [](Analysis& made) -> const auto& { return made.write_xspace(); });
            if (!file->ok()) throw StatusError(file->status());
            return xspace_dict(**file);
          },
          "The XSpace written: path, events, program_id, unfilled.")
      .def_property_readonly(
          "target", [](const PyAnalysis& a) -> const DeviceTarget& { return a.target(); },
          kInternal, "The device and slice analysed on.");
}

}  // namespace

void bind_calls(py::module_& m) {
  m.def("_load", &load, py::arg("source"), py::arg("file_name") = "",
        py::arg("module_name") = "",
        "(Module, read from a file): a str is a path when it names a file or a directory (an XLA "
        "dump), FileNotFoundError when it can only be a path, else HLO text (load_path_or_text); "
        "bytes are the text or a proto's bytes; an os.PathLike is a path. The Module carries what "
        "loading it said (Module.diagnostics).");
  m.def(
      "_target",
      [](py::handle device, py::object module, const std::string& topology, py::handle settings,
         const std::string& function, const std::string& accepts,
         const std::string& compiled_for) {
        return target(device, module, topology, settings, function, accepts, compiled_for);
      },
      py::arg("device"), py::arg("module"), py::arg("topology") = "", py::arg("settings"),
      py::arg("function"), py::arg("accepts") = "any", py::arg("compiled_for") = "",
      "The device and slice `device` names (a name, a JSON path, a DeviceSpec when `accepts` is\n"
      "'any'; None: the module's platform's), by the command's --device rule, `settings` set.");
  m.def(
      "_profile_target",
      [](py::handle device, const Profile& profile, const std::string& profile_path,
         py::handle module_object, const std::string& topology) {
        const Module& module = module_object.cast<const Module&>();
        if (py::isinstance<DeviceSpec>(device)) {
          // A spec given whole: the profile chooses nothing, and is of its platform.
          DeviceTarget t = target(device, module_object, topology, py::none(), "compare_profile",
                                  "any", "");
          absl::StatusOr<MeasuredDevice> measured = measured_device(profile, profile_path);
          const absl::Status same =
              measured.ok() ? check_same_platform(*measured, t.spec) : measured.status();
          if (!same.ok()) throw StatusError(same);
          return py::make_tuple(std::move(t), std::string());
        }
        if (!device.is_none() && !py::isinstance<py::str>(device) && !is_path_like(device)) {
          throw py::type_error(str_cat("device wants a name ('h100', 'tpu_v5e:2x2'), a device "
                                       "JSON path or a DeviceSpec, got ",
                                       type_name(device)));
        }
        const std::string text = device.is_none()        ? std::string()
                                 : is_path_like(device) ? fs_path(device)
                                                        : device.cast<std::string>();
        absl::StatusOr<ProfileDevice> chosen;
        {
          ModuleUse use(module);
          GilRelease release;
          chosen = resolve_profile_device(text, profile, profile_path, module,
                                          {.topology = topology,
                                           .device_option = "device=",
                                           .topology_option = "topology="});
        }
        ProfileDevice d = value_or_raise(std::move(chosen));
        return py::make_tuple(std::move(d.target), d.stand_in ? d.said : std::string());
      },
      py::arg("device"), py::arg("profile"), py::arg("profile_path"), py::arg("module"),
      py::arg("topology") = "",
      "(target, stand-in note): the device a profile is joined on, as the command's `profile`\n"
      "chooses it (resolve_profile_device): `device`, else the one the profile ran on; the note\n"
      "says which device stands in for one with no built-in spec ('' when none).");
  m.def(
      "_predict",
      [](py::object module_object, const DeviceTarget& target, const PredictOptions& options,
         const std::vector<std::string>& notes, bool keep_module) {
        const Module& module = module_object.cast<const Module&>();
        const InputDiagnostics said = said_of(module_object, &target, notes);
        absl::StatusOr<Prediction> p;
        {
          ModuleUse use(module);
          GilRelease release;
          p = predict_step_time(module, target, options);
          if (p.ok()) {
            add_input_diagnostics(said, *p);
            if (!keep_module) {  // the module ends with the call: no record may point into it
              for (OpPrediction& op : p->ops) op.instruction = nullptr;
              for (TimelineEvent& e : p->timeline) e.instruction = nullptr;
            }
          }
        }
        py::object out = py::cast(value_or_raise(std::move(p)));
        if (keep_module) py::detail::keep_alive_impl(out, module_object);
        out.attr("_device") = py::cast(target.spec);
        return out;
      },
      py::arg("module"), py::arg("target"), py::arg("options"), py::arg("notes"),
      py::arg("keep_module"),
      "The module predicted on the target, what reading it, `notes` and the target said merged\n"
      "in the commands' order (add_input_diagnostics).");
  m.def(
      "_cost",
      [](py::object module_object, const CostOptions& options) {
        const Module& module = module_object.cast<const Module&>();
        absl::StatusOr<ModuleCost> cost;
        {
          ModuleUse use(module);
          GilRelease release;
          cost = analyze_cost(module, options);
        }
        ModuleCost out = value_or_raise(std::move(cost));
        const std::vector<std::string> first = input_notes(said_of(module_object));
        out.notes.insert(out.notes.begin(), first.begin(), first.end());
        return out;
      },
      py::arg("module"), py::arg("options"), py::keep_alive<0, 1>(),
      "The module's cost, what reading it said first in its notes (as `hloroof cost --json`).");
  m.def(
      "_memory",
      [](py::object module_object, const DeviceTarget& target, size_t top_buffers,
         bool first_tile_padding, const std::vector<std::string>& notes,
         const std::optional<std::map<std::string, int64_t>>& xla) {
        const Module& module = module_object.cast<const Module&>();
        absl::StatusOr<MemoryReport> report;
        {
          ModuleUse use(module);
          GilRelease release;
          report = analyze_memory(module, target.spec,
                                  {.top_buffers = top_buffers,
                                   .first_tile_padding = first_tile_padding});
        }
        MemoryReport out = value_or_raise(std::move(report));
        add_input_diagnostics(said_of(module_object, &target, notes), out);
        if (xla) out.notes.push_back(xla_memory_note(out, *xla));
        return out;
      },
      py::arg("module"), py::arg("target"), py::arg("top_buffers"),
      py::arg("first_tile_padding"), py::arg("notes"), py::arg("xla").none(true) = py::none(),
      "The module's memory on the target, what reading it and choosing the device said merged\n"
      "as `hloroof memory --json` merges them, `notes` after the device's, and a note setting\n"
      "`xla` (a JAX Compiled's memory_analysis(): argument_bytes, ...) beside the report.");
  m.def("_settings", &settings_of, py::arg("settings"), py::arg("function"),
        "`settings` as the command's --set values: None, one 'PATH=VALUE' string, or a list.");
  m.def(
      "_advise",
      [](py::object module_object, const DeviceTarget& target, const PredictOptions& options,
         const std::vector<std::string>& notes, size_t top, size_t evidence_rows) {
        const Module& module = module_object.cast<const Module&>();
        const InputDiagnostics said = said_of(module_object, &target, notes);
        absl::StatusOr<Advice> advice;
        {
          ModuleUse use(module);
          GilRelease release;
          AnalysisOptions analysis_options;
          analysis_options.predict = options;
          analysis_options.memory = MemoryOptions{};
          analysis_options.advise = AdviseOptions{.top = top, .evidence_rows = evidence_rows};
          analysis_options.predicted = [&](Prediction& p) { add_input_diagnostics(said, p); };
          Analysis analysis(module, target, std::move(analysis_options));
          absl::Status s = analysis.run();
          advice = s.ok() ? analysis.advice() : absl::StatusOr<Advice>(s);
          if (advice.ok()) add_input_diagnostics(said, *advice);
        }
        return value_or_raise(std::move(advice));
      },
      py::arg("module"), py::arg("target"), py::arg("options"), py::arg("notes"), py::arg("top"),
      py::arg("evidence_rows"),
      "What to fix (`hloroof advise`): the advice of the module's prediction on the target.");
  m.def(
      "_write_xspace",
      [](py::object prediction, py::handle log_dir, int64_t steps, std::string run,
         std::string host) {
        const std::string dir = log_dir_of(log_dir, "write_xspace");
        py::object source = py::getattr(prediction, "_source", py::none());
        if (source.is_none()) {
          throw py::value_error("write_xspace: this prediction was not made by hloroof.predict, "
                                "which keeps the module it predicted");
        }
        // A prediction from text keeps the text: its module is read again.
        py::object module = source;
        if (!py::isinstance<Module>(source)) module = load(source, "", "")[0];
        const Module& mod = module.cast<const Module&>();
        const Prediction& p = prediction.cast<const Prediction&>();
        const DeviceSpec& spec = prediction.attr("_device").cast<const DeviceSpec&>();
        absl::StatusOr<XSpaceFile> file;
        {
          ModuleUse use(mod);
          GilRelease release;
          file = write_xspace(mod, p, spec, dir, xspace_options(steps, run, host));
        }
        return xspace_dict(value_or_raise(std::move(file)));
      },
      py::arg("prediction"), py::arg("log_dir"), py::arg("steps"), py::arg("run"),
      py::arg("host"), "Prediction.write_xspace.");
  m.def(
      "_compare",
      [](py::object module_object, const std::vector<DeviceTarget>& targets,
         const PredictOptions& options) {
        const Module& module = module_object.cast<const Module&>();

        DeviceComparison c;
        {
          ModuleUse use(module);
          GilRelease release;
          c = compare_devices(module, targets, {.predict = options, .check_capacity = true});
        }
        py::list predictions;
        for (size_t k = 0; k < targets.size(); ++k) {
          Prediction p = value_or_raise(std::move(c.predictions[k]));
          add_input_diagnostics(said_of(module_object, &targets[k]), p);
          py::object out = py::cast(std::move(p));
          py::detail::keep_alive_impl(out, module_object);
          out.attr("_device") = py::cast(targets[k].spec);
          predictions.append(out);
        }
        return py::make_tuple(predictions, c.fits);
      },
      py::arg("module"), py::arg("targets"), py::arg("options"),
      "`hloroof compare`: the module predicted on each target, and whether it fits each.");
  m.def(
      "_peak_bytes",
      [](const Module& module) {
        absl::StatusOr<MemoryReport> report;
        {
          ModuleUse use(module);
          GilRelease release;
          report = analyze_memory(module, MemoryOptions{.top_buffers = 1});
        }
        return value_or_raise(std::move(report)).peak_bytes;
      },
      py::arg("module"), "The module's device-memory peak, B (a diff's side).");
  bind_analysis_class(m);
}

}  // namespace hloroof::python
