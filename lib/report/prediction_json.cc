// prediction_to_json and write_prediction_json: a Prediction as one JSON object, for programs.
#include "hloroof/report.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "nlohmann/json.hpp"
#include "report/json_writer.h"
#include "report/op_terms.h"
#include "report/unknown_work.h"
#include "hloroof/threads.h"

namespace hloroof {
namespace {

using Json = nlohmann::ordered_json;

using report_internal::JsonWriter;

void write_op(const OpPrediction& op, JsonWriter& w) {
  w.begin_object();
  w.text_field("name", op.name());
  w.text_field("opcode", op.opcode());
  w.text_field("computation", op.computation());
  w.text_field("category", op.category());
  w.text_field("op_name", op.op_name());
  w.number_field("multiplier", op.multiplier);
  w.number_field("time_s", op.time_s);
  w.number_field("total_time_s", op.total_time_s());
  w.number_field("roofline_time_s", op.roofline_time_s);
  w.number_field("total_roofline_time_s", op.total_roofline_time_s());
  w.number_field("efficiency", op.efficiency);
  w.key("time_range");
  if (const std::optional<TimeRange> r = op.time_range()) {
    w.begin_object();
    w.number_field("low_s", r->low_s);
    w.number_field("high_s", r->high_s);
    w.text_field("low", r->low);
    w.text_field("high", r->high);
    w.end_object();
  } else {
    w.null();
  }
  w.repeated_text_field("model", op.model());
  w.text_field("bound", op_bound_name(op));
  w.text_field("resource", resource_name(op));
  w.number_field("flops", op.flops);
  w.number_field("matrix_flops", op.matrix_flops);
  w.number_field("transcendentals", op.transcendentals);
  w.number_field("hbm_bytes", op.hbm_bytes);
  w.number_field("on_chip_bytes", op.on_chip_bytes);
  w.number_field("host_bytes", op.host_bytes);
  // Field by field as the rest: no JSON document made for each (a sharded module has
  // thousands of collectives and async pairs).
  w.key("collective");
  if (const CollectivePrediction* c = op.collective.get()) {
    w.begin_object();
    w.text_field("kind", c->kind);
    w.number_field("payload_bytes", c->payload_bytes);
    w.number_field("group_size", c->group_size);
    w.text_field("formula", c->formula);
    w.number_field("time_s", c->time_s);
    w.number_field("exposed_s", c->exposed_s);
    w.number_field("hidden_s", c->hidden_s);
    w.bool_field("async", c->is_async);
    w.bool_field("approximate", c->approximate);
    w.end_object();
  } else {
    w.null();
  }
  w.key("async");
  if (const AsyncPrediction* a = op.async.get()) {
    w.begin_object();
    w.text_field("stream", a->stream);
    w.text_field("start", a->start);
    w.text_field("done", a->done);
    w.number_field("latency_s", a->latency_s);
    w.number_field("queued_s", a->queued_s);
    w.number_field("hidden_s", a->hidden_s);
    w.number_field("exposed_s", a->exposed_s);
    w.number_field("contended_s", a->contended_s);
    w.end_object();
  } else {
    w.null();
  }
  w.repeated_text_field("explanation", op.explanation());
  w.end_object();
}

Json time_range_json(const std::optional<TimeRange>& r) {
  if (!r) return nullptr;
  return {{"low_s", r->low_s}, {"high_s", r->high_s}, {"low", r->low}, {"high", r->high}};
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

// Ops made into one piece of text before it is written: about 300 KiB (an op's text is about
// 1.3 KB), few enough that each thread holds one at a time, many enough that threads seldom
// wait for each other's turn. Each thread's writer has room for a piece of up to
// kPieceBytes made in place; a larger one is gathered in a string (copied once more). Room of
// 512 KiB, not a MiB, fits holes that earlier work left in the heap, so the peak stays lower.
constexpr size_t kOpsPerPiece = 256;
constexpr size_t kPieceBytes = 512 << 10;

// The ops written into `w`'s open array in pieces of kOpsPerPiece, made by `threads` threads
// at once (each takes the next piece not taken, makes it, then writes it to `sink` when every
// piece before it is written).
void write_ops_in_pieces(const std::vector<OpPrediction>& ops, JsonWriter& w,
                         std::ostream& sink, int threads) {
  w.finish();  // what comes before the ops
  // Each thread's writer (made where it stays: it writes into the spill beside it).
  struct Maker {
    std::string spill;
    JsonWriter piece{spill, kPieceBytes};
  };
  detail::make_pieces_in_order(
      (ops.size() + kOpsPerPiece - 1) / kOpsPerPiece, threads, [] { return Maker(); },
      [&](Maker& m, size_t k) {
        const size_t begin = k * kOpsPerPiece;
        const size_t end = std::min(ops.size(), begin + kOpsPerPiece);
        m.piece.continue_at(w, begin);
        for (size_t i = begin; i < end; ++i) write_op(ops[i], m.piece);
      },
      [&](Maker& m) { m.piece.write_to(sink); });
  w.count_values(ops.size());
}

// The fields other than the ops, then the ops as the last field, one object at a time (with a
// sink and more than one thread, in pieces made at once).
void write_json(const Prediction& p, JsonWriter& w, std::ostream* sink = nullptr,
                int threads = 1) {
  const Prediction::Breakdown& b = p.breakdown;
  const Json head = {{"device", p.device},
                     {"topology", p.topology},
                     {"warnings", p.diagnostics.warnings},
                     {"step_time_s", p.step_time_s},
                     {"roofline_step_time_s", p.roofline_step_time_s},
                     {"step_time_range", time_range_json(p.step_time_range)},
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
                     {"assumptions", p.diagnostics.notes}};
  w.begin_object();
  for (auto it = head.begin(); it != head.end(); ++it) {
    w.key(it.key());
    w.value(it.value());
  }
  w.key("ops");
  w.begin_array();
  if (sink != nullptr && threads > 1 && p.ops.size() > kOpsPerPiece) {
    write_ops_in_pieces(p.ops, w, *sink, threads);
  } else {
    for (const OpPrediction& op : p.ops) write_op(op, w);
  }
  w.end_array();
  w.end_object();
}

}  // namespace

// Text that is not UTF-8 (names come from the user's file) is replaced, not thrown on.
std::string prediction_to_json(const Prediction& p) {
  std::string out;
  {
    JsonWriter w(out);
    write_json(p, w);
    w.finish();
  }
  return out;
}

void write_prediction_json(const Prediction& p, std::ostream& sink, int threads) {
  std::string out;
  JsonWriter w(out, &sink);
  write_json(p, w, &sink, threads);
  w.finish();
}

}  // namespace hloroof
