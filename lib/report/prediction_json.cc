// prediction_to_json: a Prediction as one JSON object, for programs.
#include "hloroof/report.h"
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

Json op_json(const OpPrediction& op) {
  return {{"name", op.name},
          {"opcode", op.opcode},
          {"computation", op.computation},
          {"category", op.category},
          {"op_name", op.op_name},
          {"multiplier", op.multiplier},
          {"time_s", op.time_s},
          {"total_time_s", op.total_time_s},
          {"roofline_time_s", op.roofline_time_s},
          {"total_roofline_time_s", op.total_roofline_time_s},
          {"efficiency", op.efficiency},
          {"model", op.model},
          {"bound", op_bound_name(op)},
          {"resource", resource_name(op)},
          {"flops", op.flops},
          {"matrix_flops", op.matrix_flops},
          {"transcendentals", op.transcendentals},
          {"hbm_bytes", op.hbm_bytes},
          {"on_chip_bytes", op.on_chip_bytes},
          {"host_bytes", op.host_bytes},
          {"collective", op.collective ? collective_json(*op.collective) : Json(nullptr)},
          {"async", op.async ? async_json(*op.async) : Json(nullptr)},
          {"explanation", op.explanation}};
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
  Json ops = Json::array();
  for (const OpPrediction& op : p.ops) ops.push_back(op_json(op));
  const Prediction::Breakdown& b = p.breakdown;
  Json j = {{"device", p.device},
            {"topology", p.topology},
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
            {"mfu", p.mfu},
            {"peak_flop_rate", p.peak_flop_rate},
            {"peak_flop_rate_type", p.peak_flop_rate_type},
            {"lower_bound", p.is_lower_bound},
            {"unknown_ops", p.unknown_ops},
            {"unknown_work", unknown_work_json(p)},
            {"assumptions", p.assumptions},
            {"ops", std::move(ops)}};
  // Replace, not throw, on text that is not UTF-8 (names come from the user's file).
  return j.dump(2, ' ', false, Json::error_handler_t::replace);
}

}  // namespace hloroof
