// Editing a module and checking the result: the one header for compiler-pass experiments.
//
//   absl::StatusOr<hloroof::Module> m = hloroof::parse_module(text);
//   hloroof::Computation* entry = m->entry();
//   ... add_instruction, replace_all_uses_with, remove_instruction, set_dimensions, ...
//   absl::Status ok = hloroof::verify(*m);  // the parser's checks, on the edited module
//   std::string again = hloroof::print(*m);  // text the parser reads back
//
// The edits themselves are members of the classes they change (module.h: computations;
// computation.h: instructions; instruction.h: shapes, operands and typed attributes); this
// header adds shape inference and the verifier. Text is the text layer's (hlo_text.h:
// parse_module, print, set_attribute_from_text).
#ifndef HLOROOF_EDIT_H_
#define HLOROOF_EDIT_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hloroof/computation.h"
#include "hloroof/instruction.h"
#include "hloroof/module.h"
#include "hloroof/shape.h"

namespace hloroof {

// The result shape an instruction's operands and attributes give, by XLA's shape rules:
// elementwise ops, compare, select, dot, convolution, reduce, reduce-window, transpose, slice,
// pad, concatenate, tuple, get-tuple-element, fusion, call and conditional (the called
// computation's root), gather, scatter, sort, while, copy, and more. An error names the
// instruction and says why: the opcode's shape is not given by its operands (broadcast,
// reshape, convert, parameter, constant, iota, custom-call, ...), or the operands and
// attributes do not fit together. Dot and convolution take the first operand's element type
// (write another with set_shape: preferred_element_type).
absl::StatusOr<Shape> infer_shape(const Instruction& instruction);

// Sets the instruction's shape to infer_shape's.
absl::Status set_inferred_shape(Instruction& instruction);

// Every check the parser makes of a module it reads, on a module as it now is: per computation,
// a root and parameters numbered 0..n-1; per instruction, the opcode's operand count, required
// attributes and shape rules (the same code the parser runs); and what edits can break that text
// cannot: operands in the same computation and defined before their users, user and operand
// lists in step, called computations in the module and printed before their callers. Beyond the
// parser, each shape is checked against infer_shape's (dot and convolution: dimensions only;
// broadcast: its dimension mapping; elementwise ops: every operand's dimensions; dot: the
// contracting and batch sizes), every dimension list within the rank of the shape it indexes
// and without a dimension twice (reduce, transpose, broadcast, concatenate, reverse, sort, the
// collectives' dimensions, dot's, gather's and scatter's dimension numbers, a reduce-window's
// window), and the header's entry_computation_layout against the entry's parameters and root.
// The error names the computation, the instruction, the rule and what is wrong:
// "computation main, instruction dot.1 (dot): shape: ...", "... (reduce): dimensions:
// dimensions={7} names dimension 7, but operand p (f32[4,8]{1,0}) has 2 dimensions".
absl::Status verify(const Module& module);

}  // namespace hloroof

#endif  // HLOROOF_EDIT_H_
