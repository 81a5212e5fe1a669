// Python bindings of predictions: options, Prediction and its records, diffs of two.
#include "bindings.h"
#include "hloroof/analysis.h"
#include "hloroof/variant_table.h"
#include "module_guard.h"

namespace hloroof::python {

void bind_predict(py::module_& m) {
  Record<PredictOptions>(m, "PredictOptions",
                         "Options of predict(); pass them as keywords: "
                         "predict(m, 'tpu_v5e:4x4', default_trip_count=4).")
      .option("device_coordinates", &PredictOptions::device_coordinates,
              "explicit coordinates of each device id (default: row-major)")
      .property(
          "collective_formula",
          [](const PredictOptions& o) { return collective_formula_name(o.collective_formula); },
          [](PredictOptions& o, std::string_view name) {
            o.collective_formula =
                value_or_raise(collective_formula_from_name(name, "collective_formula"));
          },
          "'network' (default), 'xla-gpu-nccl' or 'xla-gpu-sol'")
      .option("collective_large_n", &PredictOptions::collective_large_n,
              "the scaling book's large-N collective forms")
      .option("default_trip_count", &PredictOptions::default_trip_count,
              "trip count for loops whose count cannot be told")
      .option("use_padded_sizes", &PredictOptions::use_padded_sizes, "bytes padded by tiles")
      .option("include_overhead", &PredictOptions::include_overhead, "add the per-op overhead")
      .option("roofline_only", &PredictOptions::roofline_only,
              "expected time = roofline time everywhere (no measured model)")
      .option("max_expanded_iterations", &PredictOptions::max_expanded_iterations,
              "loop iterations laid out one by one in the timeline")
      .option("model_flops", &PredictOptions::model_flops,
              "the model's FLOPs of one step over all devices (6 x parameters x tokens for a "
              "dense model's training step): gives Prediction.mfu")
      .option("explain", &PredictOptions::explain,
              "write each op's explanation (off: left empty, for speed)")
      .option("timeline", &PredictOptions::timeline,
              "lay out Prediction.timeline (off: left empty, for speed)")
      .option("max_ops", &PredictOptions::max_ops,
              "keep the records of this many ops with the most step time (0: all)")
      .done()
      .def(py::init<>());

  Record<CollectivePrediction>(m, "CollectivePrediction", "A collective's predicted time.")
      .field("kind", &CollectivePrediction::kind, "'all-gather', ...")
      .field("payload_bytes", &CollectivePrediction::payload_bytes, "V, B")
      .field("group_size", &CollectivePrediction::group_size, "N")
      .field("formula", &CollectivePrediction::formula, "e.g. 'ring: V (N-1) / (N W_bi)'")
      .field("time_s", &CollectivePrediction::time_s, "its own duration, s")
      .field("exposed_s", &CollectivePrediction::exposed_s, "per execution, waited for, s")
      .field("hidden_s", &CollectivePrediction::hidden_s, "per execution, overlapped, s")
      .field("is_async", &CollectivePrediction::is_async, "a start/done pair")
      .field("approximate", &CollectivePrediction::approximate, "a conservative bound")
      .done();

  Record<AsyncPrediction>(m, "AsyncPrediction", "An asynchronous start/done pair.")
      .field("stream", &AsyncPrediction::stream, "timeline track, e.g. 'async all-gather'")
      .field("start", &AsyncPrediction::start, "the start's name")
      .field("done", &AsyncPrediction::done, "the done's name")
      .field("latency_s", &AsyncPrediction::latency_s, "per execution: how long it runs, s")
      .field("queued_s", &AsyncPrediction::queued_s,
             "per execution: waited for its engine (the host link) before it began, s")
      .field("hidden_s", &AsyncPrediction::hidden_s, "per execution: overlapped, s")
      .field("exposed_s", &AsyncPrediction::exposed_s, "per execution: the done's wait, s")
      .field("contended_s", &AsyncPrediction::contended_s,
             "per execution: of the done's wait, what the work's memory traffic waits for, s")
      .done();

  Record<TimeRange>(m, "TimeRange",
                    "The range a time spans where the data decide it, with what each end "
                    "assumes.")
      .field("low_s", &TimeRange::low_s, "one execution (a step's: the step) at the low end, s")
      .field("high_s", &TimeRange::high_s, "the same at the high end, s")
      .field("low", &TimeRange::low, "what the low end assumes")
      .field("high", &TimeRange::high, "what the high end assumes")
      .done();

  Record<OpPrediction>(m, "OpPrediction", "One op of the predicted step.")
      .field("instruction", &OpPrediction::instruction,
             "the instruction when predicted from a Module, else None")
      .computed("name", &OpPrediction::name, "instruction name")
      .computed("opcode", &OpPrediction::opcode, "opcode")
      .computed("computation", &OpPrediction::computation, "computation name")
      .computed("category", &OpPrediction::category,
                "XProf-like: 'loop fusion', 'all-gather', ...")
      .computed("op_name", &OpPrediction::op_name, "metadata op_name")
      .field("multiplier", &OpPrediction::multiplier, "executions per step")
      .field("time_s", &OpPrediction::time_s, "one execution on the critical path, expected, s")
      .field("roofline_time_s", &OpPrediction::roofline_time_s, "the same at the roofline, s")
      .field("efficiency", &OpPrediction::efficiency, "roofline_time_s / time_s, in (0, 1]")
      .computed(
          "time_range", [](const OpPrediction& o) { return o.time_range(); },
          "the range time_s spans where the data decide it (TimeRange), or None")
      .computed("model", &OpPrediction::model, "the model behind time_s")
      .computed("total_time_s", &OpPrediction::total_time_s, "time_s x multiplier, s")
      .computed("total_roofline_time_s", &OpPrediction::total_roofline_time_s,
                "roofline_time_s x multiplier, s")
      .computed(
          "bound", [](const OpPrediction& o) { return op_bound_name(o); },
          "'compute', 'memory', 'collective' or 'overhead'")
      .computed(
          "resource", [](const OpPrediction& o) { return resource_name(o); },
          "the roofline term behind `bound`: 'matrix', 'HBM', ..., 'network'")
      .field("flops", &OpPrediction::flops, "one execution")
      .field("matrix_flops", &OpPrediction::matrix_flops, "one execution")
      .field("transcendentals", &OpPrediction::transcendentals, "one execution")
      .field("hbm_bytes", &OpPrediction::hbm_bytes, "one execution, B")
      .field("on_chip_bytes", &OpPrediction::on_chip_bytes, "one execution, B")
      .field("host_bytes", &OpPrediction::host_bytes, "one execution, B")
      .computed("explanation", &OpPrediction::explanation, "the formula with the device numbers")
      .computed(
          "collective", [](const OpPrediction& o) { return o.collective.get(); },
          "collectives: the network time, or None", kInternal)
      .computed(
          "async_", [](const OpPrediction& o) { return o.async.get(); },
          "both ops of an async pair, or None ('async' in to_dict())", kInternal)
      .done();
}

void bind_prediction(py::module_& m) {
  Record<TimelineEvent>(m, "TimelineEvent", "A slice of the predicted timeline.")
      .field("name", &TimelineEvent::name, "op, loop or iteration name")
      .field("track", &TimelineEvent::track, "'compute' or an async stream")
      .field("start_s", &TimelineEvent::start_s, "s from the step's start")
      .field("duration_s", &TimelineEvent::duration_s, "s")
      .field("depth", &TimelineEvent::depth, "nesting: 0 top level, 1 inside an iteration, ...")
      .field("instruction", &TimelineEvent::instruction, "the instruction, or None")
      .done();

  Record<Prediction::Breakdown>(m, "Breakdown",
                                "What the step is made of: compute + memory + "
                                "collective_exposed + overhead = step time.")
      .field("compute_s", &Prediction::Breakdown::compute_s, "ops bound by FLOPs, s")
      .field("memory_s", &Prediction::Breakdown::memory_s, "ops bound by memory bandwidth, s")
      .field("collective_exposed_s", &Prediction::Breakdown::collective_exposed_s,
             "collective time waited for, s")
      .field("collective_hidden_s", &Prediction::Breakdown::collective_hidden_s,
             "collective time overlapped with other work, s")
      .field("overhead_s", &Prediction::Breakdown::overhead_s, "ops bound by the overhead, s")
      .field("async_hidden_s", &Prediction::Breakdown::async_hidden_s,
             "other async work overlapped, s")
      .done();

  py::bind_vector<std::vector<OpPrediction>>(m, "OpPredictionList");
  py::bind_vector<std::vector<TimelineEvent>>(m, "TimelineEventList");

  Record<Prediction>(m, "Prediction", "One predicted step on one device.", py::dynamic_attr())
      .field("device", &Prediction::device, "the spec's name, e.g. 'tpu_v5e'")
      .field("topology", &Prediction::topology, "e.g. '2x2'")
      .field("step_time_s", &Prediction::step_time_s, "the predicted step, expected, s")
      .field("roofline_step_time_s", &Prediction::roofline_step_time_s,
             "the step with every op at its roofline time, s")
      .field("step_time_range", &Prediction::step_time_range,
             "the range the step spans where ops have one (TimeRange), or None")
      .field("breakdown", &Prediction::breakdown, "what the step is made of")
      .field("flops", &Prediction::flops, "per step, one device")
      .field("matrix_flops", &Prediction::matrix_flops, "per step, one device")
      .field("hbm_bytes", &Prediction::hbm_bytes, "per step, one device, B")
      .field("peak_flop_rate", &Prediction::peak_flop_rate,
             "the matrix peak of HFU and MFU, FLOP/s")
      .field("peak_flop_rate_type", &Prediction::peak_flop_rate_type, "its type class, e.g. 'bf16'")
      .field("hfu", &Prediction::hfu,
             "hardware FLOP utilization: flops / (step_time_s x peak_flop_rate)")
      .field("model_flops", &Prediction::model_flops,
             "the model's FLOPs per step given (PredictOptions.model_flops); 0: none")
      .field("devices", &Prediction::devices, "devices the module runs on")
      .computed(
          "mfu",
          [](const Prediction& p) {
            return p.model_flops > 0 ? std::optional<double>(p.mfu) : std::nullopt;
          },
          "model FLOP utilization: model_flops / (devices x step_time_s x peak_flop_rate); "
          "None without model_flops (JSON's null)")
      .field("ops", &Prediction::ops, "every op of the step once, largest total_time_s first")
      .field("timeline", &Prediction::timeline, "the predicted timeline, in start order")
      .field("unknown_ops", &Prediction::unknown_ops, "instructions whose cost is unknown")
      .computed(
          "assumptions", [](const Prediction& p) { return p.diagnostics.notes; },
          "inferred topology, assumed trip counts, ... (the diagnostics' notes)")
      .computed(
          "warnings", [](const Prediction& p) { return p.diagnostics.warnings; },
          "what to know before any figure: the device is a guess, ...")
      .field("is_lower_bound", &Prediction::is_lower_bound, "the step time is a floor")
      .done()
      .def("to_json", &prediction_to_json,
           "The JSON object of `hloroof predict --json` (the keys of to_dict()).")
      .def(
          "summary",
          [](const Prediction& p, int64_t top) {
            if (top < 0) {
              throw py::value_error(str_cat("summary: top wants a count of ops, 0 or more; got ",
                                            top));
            }
            return prediction_summary(p, {.top_ops = static_cast<size_t>(top)});
          },
          py::arg("top") = 10,
          "The text summary: device, step time, breakdown, HFU, assumptions, top ops.")
      .def("__str__", [](const Prediction& p) { return prediction_summary(p, {.top_ops = 10}); })
      .def("__repr__", [](const Prediction& p) {
        return str_cat("<hloroof.Prediction ", p.device, ":", p.topology, " step ",
                       repr_figure(p.step_time_s * 1e3), " ms, ", p.ops.size(), " ops>");
      });
}

void bind_profile(py::module_& m) {
  // A profile read once: the device it names, the module it carries, the join.
  py::class_<Profile, std::shared_ptr<Profile>>(m, "_Profile");
  m.def(
      "_read_profile",
      [](std::string_view path) {
        absl::StatusOr<Profile> profile;
        {
          GilRelease release;
          profile = read_profile(path);
        }
        return std::make_shared<Profile>(value_or_raise(std::move(profile)));
      },
      py::arg("path"));
  m.def(
      "_profile_module",
      [](const Profile& profile, std::string_view name) {
        std::string note;
        const ProfileModuleProto* picked =
            value_or_raise(pick_profile_module(profile, name, &note));
        return py::make_tuple(py::bytes(picked->hlo_proto), picked->name, note);
      },
      py::arg("profile"), py::arg("name"),
      "(HloProto bytes, NAME(ID), note) of the module the profile carries, as `profile` picks it");
  m.def(
      "_profile_module_times",
      [](const Profile& profile) {
        py::list out;
        for (const ProfileModuleTime& t : profile_module_times(profile)) {
          out.append(py::make_tuple(t.name, t.time_s));
        }
        return out;
      },
      py::arg("profile"),
      "(NAME(ID), seconds run) of every module the profile carries, the longest run first, as "
      "`profile --modules` lists them");
  m.def(
      "_compare_profile",
      [](const Module& module, const Prediction& prediction, const Profile& profile,
         std::string_view module_name, int device_index, const std::string& stand_in) {
        ProfileOptions options{.device_index = device_index,
                               .module_name = std::string(module_name)};
        // "NAME(ID)": program ID, as the profile's events name it.
        if (const size_t open = module_name.rfind('(');
            open != std::string_view::npos && open > 0 && module_name.ends_with(")")) {
          uint64_t id = 0;
          if (absl::SimpleAtoi(std::string(module_name.substr(open + 1,
                                                              module_name.size() - open - 2)),
                               &id)) {
            options.program_id = id;
            bool full = false;
            for (const ProfilePlane& p : profile.planes) {
              for (const ProfileLine& l : p.lines) {
                for (const ProfileEvent& e : l.events) full = full || e.name == module_name;
              }
            }
            if (!full) options.module_name = std::string(module_name.substr(0, open));
          }
        }
        std::string json, text;
        {
          ModuleUse use(module);
          GilRelease release;
          absl::StatusOr<ProfileComparison> c =
              compare_with_profile(module, prediction, profile, options);
          if (c.ok()) {
            // A device that stands in for the measured one, said first (as the command does).
            if (!stand_in.empty()) c->notes.insert(c->notes.begin(), stand_in);
            json = profile_comparison_to_json(*c);
            text = render_profile_comparison(*c);
          } else {
            json = std::string("\x01") + std::string(c.status().message());
          }
        }
        if (!json.empty() && json[0] == '\x01') throw py::value_error(json.substr(1));
        return py::make_tuple(json, text);
      },
      py::arg("module"), py::arg("prediction"), py::arg("profile"), py::arg("module_name"),
      py::arg("device_index"), py::arg("stand_in") = "");
}

void bind_calibrate(py::module_& m) {
  m.def(
      "_calibrate",
      [](const std::vector<const Module*>& modules, const std::vector<std::string>& profiles,
         std::string device, std::string name, int device_index,
         std::vector<std::string> settings, std::string module_name) {
        ProfileCalibrationInputs in;
        in.profiles = profiles;
        in.modules = modules;
        in.device = std::move(device);
        in.load = python_load_options(module_name);
        in.device_option = "device";
        in.modules_option = "modules";
        in.options.name = std::move(name);
        in.options.profile.device_index = device_index;
        in.options.settings = std::move(settings);
        absl::StatusOr<CalibrationResult> result;
        std::string text, device_used;
        std::vector<std::string> notes;
        in.on_note = [&](const std::string& note) { notes.push_back(note); };
        in.on_loaded = [&](const LoadedModule& loaded) {
          notes.insert(notes.end(), loaded.diagnostics.notes.begin(),
                       loaded.diagnostics.notes.end());
        };
        {
          std::vector<std::unique_ptr<ModuleUse>> uses;
          for (const Module* module : modules) {
            if (module != nullptr) uses.push_back(std::make_unique<ModuleUse>(*module));
          }
          GilRelease release;
          absl::StatusOr<ProfileCalibration> calibrated = calibrate_profiles(in);
          if (calibrated.ok()) {
            text = render_calibration(calibrated->result);
            device_used = calibrated->device;
            result = std::move(calibrated->result);
          } else {
            result = calibrated.status();
          }
        }
        const CalibrationResult& r = value_or_raise(std::move(result));
        py::list figures, errors, steps, held_out;
        for (const FittedFigure& f : r.figures) {
          py::dict d;
          d["field"] = f.field, d["before"] = f.before, d["after"] = f.after;
          d["fitted"] = f.fitted, d["why"] = f.why, d["given_model"] = f.given_model;
          figures.append(d);
        }
        for (const ClassError& e : r.errors) {
          py::dict d;
          d["op_class"] = e.op_class, d["ops"] = e.ops, d["before"] = e.before;
          d["after"] = e.after;
          errors.append(d);
        }
        for (const CalibrationStep& c : r.steps) {
          py::dict d;
          d["label"] = c.label, d["measured_s"] = c.measured_s, d["given_s"] = c.given_s;
          d["fitted_s"] = c.fitted_s, d["lower_bound"] = c.lower_bound;
          steps.append(d);
        }
        for (const CalibrationResult::HeldOut& h : r.held_out) {
          py::dict d;
          d["label"] = h.label, d["before"] = h.before, d["after"] = h.after;
          d["step_before"] = h.step_before, d["step_after"] = h.step_after;
          d["lower_bound"] = h.lower_bound;
          held_out.append(d);
        }
        py::dict out;
        out["accepted"] = r.accepted;
        out["rejected_why"] = r.rejected_why;
        out["device_json"] = r.json;
        out["figures"] = figures;
        out["errors"] = errors;
        out["steps"] = steps;
        out["held_out"] = held_out;
        out["ops_used"] = r.ops_used;
        out["ops_left_out"] = r.ops_left_out;
        // What reading the inputs said (which module of a profile, the device it named), then
        // the fit's own notes.
        notes.insert(notes.end(), r.notes.begin(), r.notes.end());
        out["notes"] = notes;
        out["device"] = device_used;
        return py::make_tuple(out, text);
      },
      py::arg("modules"), py::arg("profiles"), py::arg("device"), py::arg("name"),
      py::arg("device_index"), py::arg("settings"), py::arg("module_name") = "",
      "hloroof calibrate: the fit as a dict and the command's report. No modules: each\n"
      "capture folder's module.hlo, else the module each profile carries; device \"\": the one\n"
      "the profiles name.");
}

void bind_outputs(py::module_& m) {
  m.def(
      "_render_comparison",
      [](const std::vector<Prediction>& predictions, size_t top,
         const std::vector<std::optional<CapacityCheck>>& memory) {
        return render_comparison(predictions, top, memory);
      },
      py::arg("predictions"), py::arg("top"), py::arg("memory"),
      "The report of `hloroof compare`.");
}

// ---- Diff.

void bind_diff(py::module_& m) {
  Record<DiffSide>(m, "DiffSide", "One side of a diff: the step's figures.")
      .field("device", &DiffSide::device, "the device and slice it was predicted on")
      .field("step_time_s", &DiffSide::step_time_s, "expected, s")
      .field("roofline_step_time_s", &DiffSide::roofline_step_time_s, "at the roofline, s")
      .field("flops", &DiffSide::flops, "per step, one device")
      .field("hbm_bytes", &DiffSide::hbm_bytes, "per step, one device, B")
      .field("op_count", &DiffSide::op_count, "ops of the step")
      .field("peak_bytes", &DiffSide::peak_bytes, "device-memory peak, B, or None")
      .field("warnings", &DiffSide::warnings, "what this side's prediction warns of")
      .field("assumptions", &DiffSide::assumptions, "this side's prediction's assumptions")
      .done();
  Record<OpDelta>(m, "OpDelta", "One op in either version, with its per-step figures on each "
                                "side (0 on the side it is absent from).")
      .field("name", &OpDelta::name, "the name after the change (before, for a removed op)")
      .field("before_name", &OpDelta::before_name, "the name before, when it differs")
      .field("computation", &OpDelta::computation, "its computation")
      .field("opcode", &OpDelta::opcode, "its opcode")
      .computed(
          "change", [](const OpDelta& d) { return std::string(op_change_name(d.change)); },
          "'changed', 'unchanged', 'added' or 'removed'")
      .field("before_time_s", &OpDelta::before_time_s, "per step, expected, s")
      .field("after_time_s", &OpDelta::after_time_s, "per step, expected, s")
      .computed("delta_time_s", &OpDelta::delta_time_s, "after_time_s - before_time_s, s")
      .field("before_flops", &OpDelta::before_flops, "per step")
      .field("after_flops", &OpDelta::after_flops, "per step")
      .field("before_hbm_bytes", &OpDelta::before_hbm_bytes, "per step, B")
      .field("after_hbm_bytes", &OpDelta::after_hbm_bytes, "per step, B")
      .done();
  py::bind_vector<std::vector<OpDelta>>(m, "OpDeltaList");
  Record<PredictionDiff>(m, "PredictionDiff",
                         "Two versions of a program on one device: what changed per op and "
                         "per step. str() gives the report of `hloroof diff`.")
      .field("device", &PredictionDiff::device,
             "the device of both sides, e.g. 'h100:1x8'; 'BEFORE -> AFTER' when they differ")
      .field("before", &PredictionDiff::before, "the step before")
      .field("after", &PredictionDiff::after, "the step after")
      .field("ops", &PredictionDiff::ops, "every op of either version, largest change first")
      .field("changed", &PredictionDiff::changed, "matched ops whose figures differ")
      .field("unchanged", &PredictionDiff::unchanged, "matched ops with the same figures")
      .field("added", &PredictionDiff::added, "ops only after")
      .field("removed", &PredictionDiff::removed, "ops only before")
      .field("renamed", &PredictionDiff::renamed, "matched by opcode and op_name, not by name")
      .done()
      .def("to_json", &diff_to_json,
           "The JSON object of `hloroof diff --json` (docs/reports.md, \"diff\").")
      .def(
          "summary", [](const PredictionDiff& d, size_t top) { return render_diff(d, top); },
          py::arg("top") = 10, "The report of `hloroof diff`, with `top` ops.")
      .def("__str__", [](const PredictionDiff& d) { return render_diff(d, 10); })
      .def("__repr__", [](const PredictionDiff& d) {
        return str_cat("<hloroof.PredictionDiff ", d.device, " step ",
                       repr_figure(d.before.step_time_s * 1e3), " -> ",
                       repr_figure(d.after.step_time_s * 1e3), " ms, ", d.ops.size(), " ops>");
      });
  m.def(
      "_diff",
      [](const Prediction& before, const Prediction& after, std::optional<int64_t> before_peak,
         std::optional<int64_t> after_peak) {
        return diff_predictions(before, after, before_peak, after_peak);
      },
      py::arg("before"), py::arg("after"), py::arg("before_peak").none(true),
      py::arg("after_peak").none(true));
  m.def("_diff_trace", &diff_to_trace_json, py::arg("diff"), py::arg("before"), py::arg("after"),
        "Both timelines in one Perfetto trace (`hloroof diff --trace`).");
  // Design-space what-ifs (hloroof/variant_table.h): the step re-timed on device variants.
  py::class_<VariantTable>(m, "_VariantTable")
      .def(py::init([](py::object module_object, const DeviceTarget& target,
                       const PredictOptions& options) {
             const Module& module = module_object.cast<const Module&>();
             absl::StatusOr<VariantTable> table;
             {
               ModuleUse use(module);
               GilRelease release;
               table = VariantTable::build(module, target, options);
             }
             return value_or_raise(std::move(table));
           }),
           py::arg("module"), py::arg("target"), py::arg("options"))
      .def_property_readonly("op_count", &VariantTable::op_count)
      .def(
          "times",
          [](const VariantTable& table, const std::vector<double>& flop_rate_scale,
             const std::vector<double>& hbm_bandwidth_scale,
             const std::vector<double>& link_bandwidth_scale) {
            const size_t n = flop_rate_scale.size();
            if (hbm_bandwidth_scale.size() != n || link_bandwidth_scale.size() != n) {
              throw py::value_error("the scales want lists of one length");
            }
            std::vector<double> step(n), roofline(n);
            absl::Status status;
            {
              GilRelease release;
              for (size_t k = 0; k < n && status.ok(); ++k) {
                absl::StatusOr<VariantTime> t = table.time(
                    {.flop_rate_scale = flop_rate_scale[k],
                     .hbm_bandwidth_scale = hbm_bandwidth_scale[k],
                     .link_bandwidth_scale = link_bandwidth_scale[k]});
                if (!t.ok()) {
                  status = t.status();
                  break;
                }
                step[k] = t->step_time_s;
                roofline[k] = t->roofline_step_time_s;
              }
            }
            ok_or_raise(status);
            return py::make_tuple(step, roofline);
          },
          py::arg("flop_rate_scale"), py::arg("hbm_bandwidth_scale"),
          py::arg("link_bandwidth_scale"),
          "(step_time_s, roofline_step_time_s): lists, one per variant.");
  // The commands' own writing, for the Python API's files: outputs written whole or not at
  // all, never over an input.
  m.def(
      "_write_file",
      [](const std::string& path, const std::string& contents, const std::string& what,
         const std::vector<std::string>& inputs) {
        ok_or_raise(write_output_file(path, contents, what, inputs));
      },
      py::arg("path"), py::arg("contents"), py::arg("what"), py::arg("inputs"),
      "Writes `contents` to `path` as the commands write their outputs.");
}

}  // namespace hloroof::python
