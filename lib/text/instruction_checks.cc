// The per-opcode rules (ir/instruction_rules.h) on each instruction as it is read, with the
// error at the opcode, and shape inference for the instructions whose text omits the shape
// (hand-written tests do; upstream infers it).
#include "hloroof/shape_text.h"
#include "ir/instruction_rules.h"
#include "ir/shape_inference.h"
#include "hloroof/absl_compat.h"
#include "text/module_parser.h"

namespace hloroof::text {
namespace {

// Limits on a shape built from operands rather than read (docs/limits.md): the depth of a shape
// the text may write, and a million shapes in its tree (a 7 MB tuple shape in text).
constexpr int kMaxInferredShapeDepth = 64;
constexpr int64_t kMaxInferredShapeTreeSize = int64_t{1} << 20;

}  // namespace

bool ModuleParser::check_instruction(Instruction* i, const Token& at) {
  if (!detail::passes_rules_quickly(*i) && !check_instruction_in_full(i, at)) return false;
  // A broadcast written without its shape takes dimensions={...} as the sizes it prepends (XLA's
  // parser's shorthand), and prints them back with the shape inferred: a text the parser must
  // read again. Its dimensions are left to verify(), which refuses both forms.
  if (i->opcode() == Opcode::kBroadcast) return true;
  return check_dimensions(i, at);
}

// verify()'s dimension checks, which a module read from text or a proto gets as one edited
// gets them: a dimension list out of range or repeated is analysed as nothing real.
bool ModuleParser::check_dimensions(Instruction* i, const Token& at) {
  std::string message;
  if (!detail::check_dimension_lists(*i, &message)) return error(at, message);
  if (i->opcode() == Opcode::kDot && i->operand_count() == 2 && !detail::check_dot(*i, &message)) {
    return error(at, message);
  }
  return true;
}

bool ModuleParser::check_instruction_in_full(Instruction* i, const Token& at) {
  std::string message;
  if (!detail::check_operand_and_attribute_rules(*i, &message)) return error(at, message);
  // The shape, inferred when the text left it out.
  if (!detail::IrAccess::has_shape(i)) {
    const Opcode op = i->opcode();
    Shape inferred;
    if (!detail::infer_omitted_shape(*i, &inferred)) {
      return error(at, str_cat("cannot infer the shape of ", opcode_name(op),
                               "; write the shape before the opcode"));
    }
    // A shape written in text is bounded by the text; one built from operands is not: tuples of
    // tuples of ... double at each step without the text growing. Everything that walks shapes
    // (printing, costs, memory) walks them as trees, so bound the tree as the text would.
    if (inferred.depth() > kMaxInferredShapeDepth) {
      return error(at, str_cat("the inferred shape of ", opcode_name(op), " nests tuples ",
                               inferred.depth(), " levels deep, more than the limit of ",
                               kMaxInferredShapeDepth, "; write the shape before the opcode"));
    }
    if (inferred.tree_size() > kMaxInferredShapeTreeSize) {
      return error(at, str_cat("the inferred shape of ", opcode_name(op), " has more than ",
                               kMaxInferredShapeTreeSize, " shapes in it (tuples counted with ",
                               "their repeats); write the shape before the opcode"));
    }
    i->set_shape(inferred);
  }
  if (!detail::check_shape_rules(*i, &message)) return error(at, message);
  return true;
}

}  // namespace hloroof::text
