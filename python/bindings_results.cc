// What every result offers Python, bound with its class: to_dict() (a record's fields as plain
// data; a report's object of the command's --json), to_pandas() (one row per op, instruction or
// buffer; hloroof/_frames.py makes the DataFrame), str() as the command's report, and a repr of
// its short fields. The advice is bound whole: findings and evidence are records.
#include "bindings.h"

namespace hloroof::python {
namespace {

py::object json_loads(const std::string& json) {
  return py::module_::import("json").attr("loads")(json);
}

py::object data_frame(py::handle rows) {
  return py::module_::import("hloroof._frames").attr("data_frame")(rows);
}

// Sets `name` on `cls` as a method, in place of any it has (not an overload of it).
template <typename F>
void set_method(py::handle cls, const char* name, F&& f, const char* doc) {
  cls.attr(name) = py::cpp_function(std::forward<F>(f), py::name(name), py::is_method(cls), doc);
}

// The record's name and its number and short text fields.
std::string record_repr(py::handle self) {
  std::string parts;
  const py::object fields = py::type::handle_of(self).attr("_fields");
  for (py::handle name : fields) {
    py::object value = self.attr(name);
    const bool shown = PyLong_Check(value.ptr()) || PyFloat_Check(value.ptr()) ||
                       (py::isinstance<py::str>(value) && py::len(value) <= 60);
    if (shown) {
      str_append(&parts, " ", name.cast<std::string>(), "=", py::repr(value).cast<std::string>());
    }
  }
  return str_cat("<hloroof.", py::type::handle_of(self).attr("__name__").cast<std::string>(),
                 parts, ">");
}

// A record's field by its name, for `advice["findings"]` as well as `advice.findings`.
py::object item(py::handle self, const std::string& key) {
  const py::object fields = py::type::handle_of(self).attr("_fields");
  for (py::handle name : fields) {
    if (name.cast<std::string>() == key) return self.attr(name);
  }
  throw py::key_error(key);
}

template <typename T>
void bind_mapping(py::class_<T>& cls) {
  cls.def("__getitem__", &item, py::arg("key"), "a field by its name, as the JSON's key")
      .def("keys",
           [](py::handle self) -> py::object { return py::type::handle_of(self).attr("_fields"); },
           "the fields' names, the JSON's keys");
}

void bind_advice(py::module_& m) {
  auto evidence =
      Record<AdviceEvidence>(m, "AdviceEvidence", "An op or buffer, and what the rule saw in it.")
          .field("op", &AdviceEvidence::op, "instruction or buffer name")
          .field("computation", &AdviceEvidence::computation, "where it is")
          .field("scope", &AdviceEvidence::scope, "metadata op_name without its last part")
          .field("shape", &AdviceEvidence::shape, "result shape, as HLO text")
          .field("detail", &AdviceEvidence::detail, "what the rule saw, with units")
          .field("bytes", &AdviceEvidence::bytes, "B the rule is about")
          .field("time_s", &AdviceEvidence::time_s, "per step, s")
          .field("multiplier", &AdviceEvidence::multiplier, "executions per step")
          .field("time_at_stake_s", &AdviceEvidence::time_at_stake_s,
                 "per step, before the ranking, s")
          .done();
  bind_mapping(evidence);
  auto finding =
      Record<AdviceFinding>(m, "AdviceFinding", "One finding (docs/advise.md names each rule).")
          .field("id", &AdviceFinding::id, "stable: 'exposed-collective', 'layout-copy', ...")
          .field("title", &AdviceFinding::title, "in users' words")
          .field("what", &AdviceFinding::what, "what was found, with figures and units")
          .field("fix", &AdviceFinding::fix, "what to change, in JAX terms")
          .field("time_at_stake_s", &AdviceFinding::time_at_stake_s,
                 "predicted s per step the fix could save, after the ranking")
          .field("step_share", &AdviceFinding::step_share, "time_at_stake_s / step time")
          .field("counted_elsewhere_s", &AdviceFinding::counted_elsewhere_s,
                 "this rule's time that a finding ranked higher counts, s")
          .field("arithmetic", &AdviceFinding::arithmetic, "how time_at_stake_s was computed")
          .field("bytes_at_stake", &AdviceFinding::bytes_at_stake, "B the finding is about")
          .field("op_count", &AdviceFinding::op_count, "ops the rule flagged")
          .field("evidence", &AdviceFinding::evidence, "the largest, first")
          .done();
  bind_mapping(finding);
  auto advice =
      Record<Advice>(m, "Advice",
                     "What to fix (advise()), as `hloroof advise --json` names it: fields or "
                     "keys (advice.findings, advice[\"findings\"]); str() is the command's "
                     "report.")
          .field("device", &Advice::device, "the device's name")
          .computed(
              "module", [](const Advice& a) { return a.module_name; }, "the HloModule name")
          .field("warnings", &Advice::warnings, "the prediction's warnings, shown first")
          .field("step_time_s", &Advice::step_time_s, "the predicted step, s")
          .computed(
              "lower_bound", [](const Advice& a) { return a.step_is_lower_bound; },
              "the step time is a floor")
          .field("time_at_stake_s", &Advice::time_at_stake_s,
                 "over the findings, no time counted twice, s")
          .field("notes", &Advice::notes, "what the figures rest on")
          .field("findings", &Advice::findings, "ranked (docs/advise.md)")
          .done();
  bind_mapping(advice);
  advice
      .def("to_json", &advice_to_json, "The JSON object of `hloroof advise --json`.")
      .def(
          "to_dict", [](const Advice& a) { return json_loads(advice_to_json(a)); },
          "The object of `hloroof advise --json`, as Python data.")
      .def("__str__", &render_advice_text, "The report of `hloroof advise`.");
}

}  // namespace

py::object plain(py::handle value) {
  if (py::isinstance<Instruction>(value) || py::isinstance<Computation>(value)) {
    return value.attr("name");
  }
  if (value.is_none() || py::isinstance<py::str>(value) || py::isinstance<py::bytes>(value) ||
      PyLong_Check(value.ptr()) || PyFloat_Check(value.ptr())) {
    return py::reinterpret_borrow<py::object>(value);
  }
  py::object fields = py::getattr(py::type::handle_of(value), "_fields", py::none());
  if (!fields.is_none()) {
    py::dict out;
    for (py::handle name : fields) {
      // A field named like a Python keyword ends in "_" (`async_`); its key does not.
      std::string key = name.cast<std::string>();
      while (!key.empty() && key.back() == '_') key.pop_back();
      out[py::str(key)] = plain(value.attr(name));
    }
    return out;
  }
  if (py::isinstance<py::dict>(value)) {
    py::dict out;
    for (auto [key, item] : py::reinterpret_borrow<py::dict>(value)) out[key] = plain(item);
    return out;
  }
  py::list out;
  for (py::handle item : py::iter(value)) out.append(plain(item));
  return out;
}

void bind_results(py::module_& m) {
  bind_advice(m);

  py::handle prediction = py::type::of<Prediction>();
  set_method(
      prediction, "to_dict",
      [](const Prediction& p) { return json_loads(prediction_to_json(p)); },
      "The object of `hloroof predict --json`, as Python data: the same keys (`async` for "
      "`async_`, `lower_bound` for `is_lower_bound`); the timeline is left out.");
  set_method(
      prediction, "to_pandas",
      [](py::handle self) {
        const py::object record = self.attr("to_dict")();
        return data_frame(record["ops"]);
      },
      "A pandas DataFrame with one row per op, in the order of `ops` (largest total time "
      "first); columns are the keys of to_dict()[\"ops\"], nested records flattened as "
      "`collective.time_s`, `async.stream`, ...");
  set_method(
      prediction, "__str__",
      [](const Prediction& p) {
        // The report of `hloroof predict`; the summary when the device is not a built-in one.
        absl::StatusOr<DeviceTarget> target = resolve_device(p.device, nullptr);
        if (!target.ok()) return prediction_summary(p, {.top_ops = 10});
        OpStatsOptions options;
        options.top = 20;
        return value_or_raise(render_text_report(p, target->spec, options));
      },
      "The report of `hloroof predict` (overview, op stats, collectives), 100 columns wide; the "
      "summary when the device is not a built-in one.");
  prediction.attr("write_xspace") = py::cpp_function(
      [](py::object self, py::object log_dir, int64_t steps, std::string run, std::string host) {
        return py::module_::import("hloroof._hloroof")
            .attr("_write_xspace")(self, log_dir, steps, run, host);
      },
      py::name("write_xspace"), py::is_method(prediction), py::arg("log_dir"),
      py::arg("steps") = 1, py::arg("run") = "", py::arg("host") = "hloroof-predicted",
      "Writes the predicted step as the profile XProf and TensorBoard open: "
      "log_dir/plugins/profile/RUN/HOST.xplane.pb (RUN: predicted_DEVICE by default), `steps` "
      "steps end to end; open it with `xprof --logdir log_dir`. Returns a dict: path, events, "
      "program_id, unfilled (what XProf shows of a measured run that the file leaves empty). "
      "docs/xspace.md says what it holds.");
  py::handle diff = py::type::of<PredictionDiff>();
  set_method(
      diff, "to_dict", [](const PredictionDiff& d) { return json_loads(diff_to_json(d)); },
      "The object of `hloroof diff --json`, as Python data.");

  py::handle cost = py::type::of<ModuleCost>();
  set_method(
      cost, "to_dict", [](const ModuleCost& c) { return json_loads(cost_to_json(c)); },
      "The object of `hloroof cost --json`, as Python data: totals, notes and every "
      "instruction (per execution), keyed as the command keys them.");
  set_method(
      cost, "to_pandas",
      [](py::handle self) {
        py::list rows;
        const py::object records = self.attr("instructions");
        for (py::handle record : records) {
          py::object row = plain(record);
          row["cost"].attr("pop")("matrix_flops_by_type");
          rows.append(row);
        }
        return data_frame(rows);
      },
      "A pandas DataFrame with one row per instruction (as `instructions`): its name, "
      "computation, role, multiplier and costs (`cost.flops`, `cost.hbm_bytes`, ...).");

  py::handle memory = py::type::of<MemoryReport>();
  set_method(
      memory, "to_dict", [](const MemoryReport& r) { return json_loads(memory_to_json(r)); },
      "The object of `hloroof memory --json`, as Python data (`buffers` are the report's "
      "largest_buffers).");
  set_method(
      memory, "to_pandas",
      [](py::handle self) {
        py::list rows;
        const py::object buffers = self.attr("largest_buffers");
        for (py::handle buffer : buffers) rows.append(plain(buffer));
        return data_frame(rows);
      },
      "A pandas DataFrame with one row per buffer of `largest_buffers`.");

  // Every other record: its fields as plain data, and a repr of its short fields.
  for (auto entry : m.attr("__dict__").cast<py::dict>()) {
    py::handle value = entry.second;
    if (!PyType_Check(value.ptr()) || !py::hasattr(value, "_fields")) continue;
    py::object own = value.attr("__dict__");
    if (!own.contains("to_dict")) {
      set_method(value, "to_dict", [](py::handle self) { return plain(self); },
                 "Every field as plain Python data (dicts, lists, numbers, strings); "
                 "instructions and computations by name.");
    }
    if (!own.contains("__repr__")) {
      set_method(value, "__repr__", &record_repr, "The record's name and short fields.");
    }
  }
}

}  // namespace hloroof::python
