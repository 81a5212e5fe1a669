// Ops of unknown cost, grouped by what they run.
#include <algorithm>
#include <map>
#include <set>

#include "report/unknown_work.h"

#include "hloroof/instruction.h"

namespace hloroof::report_internal {

std::vector<UnknownWork> unknown_work(const Prediction& p) {
  const std::set<std::string_view> unknown(p.unknown_ops.begin(), p.unknown_ops.end());
  std::map<std::string, UnknownWork> by_target;
  for (const OpPrediction& op : p.ops) {
    if (!unknown.count(op.name())) continue;
    std::string target(op.opcode());
    if (op.instruction != nullptr && op.instruction->opcode() == Opcode::kCustomCall) {
      target = std::string(op.instruction->custom_call_target());
    }
    UnknownWork& w = by_target[target];
    w.target = target;
    ++w.count;
    w.time_s += op.total_time_s();
  }
  std::vector<UnknownWork> out;
  for (auto& [target, w] : by_target) {
    w.step_share = p.step_time_s > 0 ? w.time_s / p.step_time_s : 0;
    out.push_back(std::move(w));
  }
  std::stable_sort(out.begin(), out.end(), [](const UnknownWork& a, const UnknownWork& b) {
    return a.time_s != b.time_s ? a.time_s > b.time_s : a.count > b.count;
  });
  return out;
}

}  // namespace hloroof::report_internal
