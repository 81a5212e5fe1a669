#include "hloroof/opcode.h"

#include <array>

#include "ir/name_table.h"

namespace hloroof {
namespace {

struct OpcodeInfo {
  std::string_view name;
  OpCategory category;
  int arity;
};

constexpr std::array<OpcodeInfo, kOpcodeCount> kOpcodes = {{
#define HLOROOF_OPCODE(e, text, category, arity) {text, OpCategory::category, arity},
#include "hloroof/opcodes.def"
#undef HLOROOF_OPCODE
}};

const OpcodeInfo& info(Opcode op) { return kOpcodes[static_cast<size_t>(op)]; }

constexpr auto kByName = [] {
  std::array<detail::NameEntry<Opcode>, kOpcodes.size()> list{};
  for (size_t i = 0; i < list.size(); ++i) list[i] = {kOpcodes[i].name, static_cast<Opcode>(i)};
  return detail::NameTable<Opcode, kOpcodes.size()>(list);
}();

}  // namespace

std::string_view opcode_name(Opcode op) { return info(op).name; }
OpCategory opcode_category(Opcode op) { return info(op).category; }
int opcode_arity(Opcode op) { return info(op).arity; }

std::optional<Opcode> opcode_from_name(std::string_view name) {
  const Opcode* op = kByName.find(name);
  if (op == nullptr) return std::nullopt;
  return *op;
}

std::string_view category_name(OpCategory category) {
  switch (category) {
    case OpCategory::kElementwise:
      return "elementwise";
    case OpCategory::kTranscendental:
      return "transcendental";
    case OpCategory::kContraction:
      return "contraction";
    case OpCategory::kReduction:
      return "reduction";
    case OpCategory::kDataMovement:
      return "data movement";
    case OpCategory::kLeaf:
      return "leaf";
    case OpCategory::kControlFlow:
      return "control flow";
    case OpCategory::kFusion:
      return "fusion";
    case OpCategory::kCustom:
      return "custom";
    case OpCategory::kAsync:
      return "async";
    case OpCategory::kCollective:
      return "collective";
    case OpCategory::kCommunication:
      return "communication";
    case OpCategory::kOrdering:
      return "ordering";
    case OpCategory::kRandom:
      return "random";
  }
  return "unknown";
}

bool is_elementwise(Opcode op) {
  OpCategory c = opcode_category(op);
  return c == OpCategory::kElementwise || c == OpCategory::kTranscendental;
}

bool has_native_async_forms(Opcode op) {
  switch (op) {
    case Opcode::kAllGather:
    case Opcode::kAllReduce:
    case Opcode::kCollectivePermute:
    case Opcode::kCopy:
    case Opcode::kSend:
    case Opcode::kRecv:
      return true;
    default:
      return false;
  }
}

bool is_async_start(Opcode op) {
  switch (op) {
    case Opcode::kAsyncStart:
    case Opcode::kAllReduceStart:
    case Opcode::kAllGatherStart:
    case Opcode::kCollectivePermuteStart:
    case Opcode::kCopyStart:
    case Opcode::kSend:
    case Opcode::kRecv:
      return true;
    default:
      return false;
  }
}

bool is_async_done(Opcode op) {
  switch (op) {
    case Opcode::kAsyncDone:
    case Opcode::kAllReduceDone:
    case Opcode::kAllGatherDone:
    case Opcode::kCollectivePermuteDone:
    case Opcode::kCopyDone:
    case Opcode::kSendDone:
    case Opcode::kRecvDone:
      return true;
    default:
      return false;
  }
}

}  // namespace hloroof
