// Instruction ids in module order, as the HloModuleProto numbers them and XProf's symbols do.
#ifndef HLOROOF_EXPORT_INSTRUCTION_IDS_H_
#define HLOROOF_EXPORT_INSTRUCTION_IDS_H_

#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "hloroof/computation.h"
#include "hloroof/instruction.h"
#include "hloroof/module.h"

namespace hloroof::proto_internal {

// Every instruction's id in the module's HloModuleProto, numbered from `next` on (left past the
// last) in print order: the computations in the module's order, each one's instructions in
// order. An instruction's id is its computation's first plus its position.
class InstructionIds {
 public:
  InstructionIds(const Module& module, int64_t& next) {
    for (const Computation* c : module.computations()) {
      first_[c] = next;
      next += static_cast<int64_t>(c->instruction_count());
    }
  }
  // The id of `i`, an instruction of the module.
  int64_t at(const Instruction* i) const { return first_.at(i->parent()) + i->position(); }
  // The id of `i`, or -1 when it is null or not the module's.
  int64_t find(const Instruction* i) const {
    if (i == nullptr) return -1;
    auto it = first_.find(i->parent());
    return it == first_.end() ? -1 : it->second + i->position();
  }

 private:
  absl::flat_hash_map<const Computation*, int64_t> first_;
};

}  // namespace hloroof::proto_internal

#endif  // HLOROOF_EXPORT_INSTRUCTION_IDS_H_
