// A prediction's op records by instruction, for the reports and rules that meet an instruction
// (a timeline slice, an operand) and want its record.
#ifndef HLOROOF_PREDICT_OP_INDEX_H_
#define HLOROOF_PREDICT_OP_INDEX_H_

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "hloroof/computation.h"
#include "hloroof/instruction.h"
#include "hloroof/predict.h"

namespace hloroof::predict {

// Each computation that has records holds one slot per instruction, by schedule position: a
// look-up is a small map's (by computation) and an index, where a map of every op hashes into a
// table of them all (17 to 34 B an op, against 8 B an instruction of those computations).
class OpIndex {
 public:
  OpIndex() = default;
  // Every op of `ops` by its own instruction (the first op of an instruction where several
  // share it).
  explicit OpIndex(const std::vector<OpPrediction>& ops) {
    for (const OpPrediction& op : ops) add(op.instruction, &op);
  }

  // `op` is the record of `i` unless one was added for it before (a null `i` is skipped).
  void add(const Instruction* i, const OpPrediction* op) {
    if (i == nullptr) return;
    auto [it, added] = slots_.try_emplace(i->parent());
    if (added) it->second.assign(i->parent()->instruction_count(), nullptr);
    const OpPrediction*& slot = it->second[static_cast<size_t>(i->position())];
    if (slot == nullptr) slot = op;
  }

  // The record of `i`, or null.
  const OpPrediction* find(const Instruction* i) const {
    if (i == nullptr) return nullptr;
    auto it = slots_.find(i->parent());
    if (it == slots_.end()) return nullptr;
    const auto position = static_cast<size_t>(i->position());
    if (position >= it->second.size()) return nullptr;
    return it->second[position];
  }

 private:
  absl::flat_hash_map<const Computation*, std::vector<const OpPrediction*>> slots_;
};

}  // namespace hloroof::predict

#endif  // HLOROOF_PREDICT_OP_INDEX_H_
