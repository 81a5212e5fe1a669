// Notes about single ops ("all-gather.12: its group does not fill whole axes ..."), grouped
// when many ops get the same one, so that a module of thousands of collectives prints one line
// where it would print thousands.
#ifndef HLOROOF_LIB_IR_OP_NOTES_H_
#define HLOROOF_LIB_IR_OP_NOTES_H_

#include <cstddef>
#include <string>
#include <vector>

#include "hloroof/module.h"

namespace hloroof {

// Ops named in a grouped note, as examples.
inline constexpr size_t kNoteExamples = 3;

// Lines of the form "NAME: TEXT", NAME an instruction of `module` (no space in it), that say
// the same TEXT about two or more instructions become one line, where the first of them
// stood: "312 collectives: TEXT; e.g. all-gather.12, all-gather.40, all-gather.41". The noun
// is the instructions' kind when they share one (collectives, custom calls, loops, fusions),
// else "ops". Other lines, and names the module does not hold, are kept as they are.
std::vector<std::string> group_op_notes(const std::vector<std::string>& lines,
                                        const Module* module);

}  // namespace hloroof

#endif  // HLOROOF_LIB_IR_OP_NOTES_H_
