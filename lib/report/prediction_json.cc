// prediction_to_json: a Prediction as one JSON object, for programs.
#include "hloroof/report.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "nlohmann/json.hpp"
#include "report/op_terms.h"
#include "report/unknown_work.h"

namespace hloroof {
namespace {

using Json = nlohmann::ordered_json;

Json collective_json(const CollectivePrediction& c) {
  return {{"kind", c.kind},
          {"payload_bytes", c.payload_bytes},
          {"group_size", c.group_size},
          {"formula", c.formula},
          {"time_s", c.time_s},
          {"exposed_s", c.exposed_s},
          {"hidden_s", c.hidden_s},
          {"async", c.is_async},
          {"approximate", c.approximate}};
}

Json async_json(const AsyncPrediction& a) {
  return {{"stream", a.stream},       {"start", a.start},       {"done", a.done},
          {"latency_s", a.latency_s}, {"hidden_s", a.hidden_s}, {"exposed_s", a.exposed_s}};
}

// Appends JSON text to a string exactly as Json::dump(2, ' ', false, replace) writes it, one
// value or one field at a time: the ops, most of a prediction, are written without first
// building a document of them all.
class JsonWriter {
 public:
  explicit JsonWriter(std::string& out)
      : out_(out),
        serializer_(nlohmann::detail::output_adapter<char>(out), ' ',
                    Json::error_handler_t::replace) {}

  void value(const Json& j, unsigned indent) { serializer_.dump(j, true, false, 2, indent); }
  void begin_object() {
    out_ += '{';
    first_ = true;
  }
  // A field of an object whose brace is at `indent`; the key is plain ASCII.
  void field(std::string_view key, const Json& j, unsigned indent) {
    start_field(key, indent);
    value(j, indent + 2);
  }
  // A string field: printable ASCII other than quote and backslash is written as it is (as
  // the serializer would write it), anything else goes through the serializer.
  void text_field(std::string_view key, std::string_view text, unsigned indent) {
    const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
      return c >= 0x20 && c <= 0x7e && c != '"' && c != '\\';
    });
    if (!plain) return field(key, Json(text), indent);
    start_field(key, indent);
    out_ += '"';
    out_ += text;
    out_ += '"';
  }
  void start_field(std::string_view key, unsigned indent) {
    out_ += first_ ? "\n" : ",\n";
    first_ = false;
    out_.append(indent + 2, ' ');
    out_ += '"';
    out_ += key;
    out_ += "\": ";
  }
  void end_object(unsigned indent) {
    out_ += '\n';
    out_.append(indent, ' ');
    out_ += '}';
  }

 private:
  std::string& out_;
  nlohmann::detail::serializer<Json> serializer_;
  bool first_ = true;
};

void write_op(const OpPrediction& op, unsigned indent, JsonWriter& w) {
  w.begin_object();
  w.text_field("name", op.name, indent);
  w.text_field("opcode", op.opcode, indent);
  w.text_field("computation", op.computation, indent);
  w.text_field("category", op.category, indent);
  w.text_field("op_name", op.op_name, indent);
  w.field("multiplier", op.multiplier, indent);
  w.field("time_s", op.time_s, indent);
  w.field("total_time_s", op.total_time_s, indent);
  w.field("roofline_time_s", op.roofline_time_s, indent);
  w.field("total_roofline_time_s", op.total_roofline_time_s, indent);
  w.field("efficiency", op.efficiency, indent);
  w.text_field("model", op.model, indent);
  w.text_field("bound", op_bound_name(op), indent);
  w.text_field("resource", resource_name(op), indent);
  w.field("flops", op.flops, indent);
  w.field("matrix_flops", op.matrix_flops, indent);
  w.field("transcendentals", op.transcendentals, indent);
  w.field("hbm_bytes", op.hbm_bytes, indent);
  w.field("on_chip_bytes", op.on_chip_bytes, indent);
  w.field("host_bytes", op.host_bytes, indent);
  w.field("collective", op.collective ? collective_json(*op.collective) : Json(nullptr), indent);
  w.field("async", op.async ? async_json(*op.async) : Json(nullptr), indent);
  w.text_field("explanation", op.explanation, indent);
  w.end_object(indent);
}

Json unknown_work_json(const Prediction& p) {
  Json list = Json::array();
  for (const report_internal::UnknownWork& w : report_internal::unknown_work(p)) {
    list.push_back({{"target", w.target},
                    {"count", w.count},
                    {"time_s", w.time_s},
                    {"step_share", w.step_share}});
  }
  return list;
}

}  // namespace

std::string prediction_to_json(const Prediction& p) {
  const Prediction::Breakdown& b = p.breakdown;
  Json j = {{"device", p.device},
            {"topology", p.topology},
            {"warnings", p.warnings},
            {"step_time_s", p.step_time_s},
            {"roofline_step_time_s", p.roofline_step_time_s},
            {"breakdown",
             {{"compute_s", b.compute_s},
              {"memory_s", b.memory_s},
              {"collective_exposed_s", b.collective_exposed_s},
              {"collective_hidden_s", b.collective_hidden_s},
              {"overhead_s", b.overhead_s},
              {"async_hidden_s", b.async_hidden_s}}},
            {"flops", p.flops},
            {"matrix_flops", p.matrix_flops},
            {"hbm_bytes", p.hbm_bytes},
            {"hfu", p.hfu},
            {"model_flops", p.model_flops > 0 ? Json(p.model_flops) : Json(nullptr)},
            {"devices", p.devices},
            {"mfu", p.model_flops > 0 ? Json(p.mfu) : Json(nullptr)},
            {"peak_flop_rate", p.peak_flop_rate},
            {"peak_flop_rate_type", p.peak_flop_rate_type},
            {"lower_bound", p.is_lower_bound},
            {"unknown_ops", p.unknown_ops},
            {"unknown_work", unknown_work_json(p)},
            {"assumptions", p.assumptions}};
  // Replace, not throw, on text that is not UTF-8 (names come from the user's file).
  std::string out;
  JsonWriter w(out);
  if (p.ops.empty()) {
    j["ops"] = Json::array();
    w.value(j, 0);
    return out;
  }
  // The other fields, then the ops as the last field: "ops": [ one object per op ].
  w.value(j, 0);
  out.resize(out.size() - 2);  // the object's closing "\n}"
  out += ",\n  \"ops\": [\n";
  for (size_t k = 0; k < p.ops.size(); ++k) {
    out += k ? ",\n    " : "    ";
    write_op(p.ops[k], 4, w);
  }
  out += "\n  ]\n}";
  return out;
}

}  // namespace hloroof
