// HLO opcodes: their text names, categories and operand counts, all from opcodes.def.
#ifndef HLOROOF_OPCODE_H_
#define HLOROOF_OPCODE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace hloroof {

enum class Opcode : uint8_t {
#define HLOROOF_OPCODE(e, text, category, arity) e,
#include "hloroof/opcodes.def"
#undef HLOROOF_OPCODE
};

inline constexpr int kOpcodeCount = 0
#define HLOROOF_OPCODE(e, text, category, arity) +1
#include "hloroof/opcodes.def"
#undef HLOROOF_OPCODE
    ;

// What kind of work an opcode does; the cost model picks its rule by category first.
enum class OpCategory : uint8_t {
  kElementwise,     // one output element from the same element of each operand
  kTranscendental,  // elementwise, and costed as transcendental functions
  kContraction,     // dot, convolution, fft, linear algebra, batch norm
  kReduction,       // ops that apply a called computation across elements
  kDataMovement,    // layout and shape changes, slicing, gathering, copies
  kLeaf,            // parameter, constant, tuple, get-tuple-element
  kControlFlow,     // call, conditional, while
  kFusion,          // fusion
  kCustom,          // custom-call
  kAsync,           // async-start/-update/-done, copy-start/-done
  kCollective,      // all-reduce, all-gather, ... and replica-id/partition-id
  kCommunication,   // send/recv, infeed/outfeed
  kOrdering,        // after-all, add-dependency, opt-barrier, domain
  kRandom,          // rng, rng-bit-generator, rng-get-and-update-state
};

// The text spelling, e.g. "get-tuple-element": a view of static text, valid as long as the
// program runs (as category_name's).
std::string_view opcode_name(Opcode op);
// The opcode spelled `name` (exact spelling, no async sugar); nullopt if none.
std::optional<Opcode> opcode_from_name(std::string_view name);
OpCategory opcode_category(Opcode op);
std::string_view category_name(OpCategory category);
// The fixed operand count, or -1 when it varies (docs/hlo-text.md, "Opcodes").
int opcode_arity(Opcode op);

// Elementwise or transcendental.
bool is_elementwise(Opcode op);
// Ops with their own -start/-done opcodes, which therefore cannot be written with the generic
// async sugar (`all-reduce-update` is an error): all-gather, all-reduce, collective-permute,
// copy, send, recv.
bool has_native_async_forms(Opcode op);
// Ops that begin an asynchronous operation whose result a matching *-done op waits for.
bool is_async_start(Opcode op);
bool is_async_done(Opcode op);

}  // namespace hloroof

#endif  // HLOROOF_OPCODE_H_
