#include "ir/op_notes.h"

#include <bitset>
#include <optional>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hloroof/computation.h"
#include "hloroof/instruction.h"
#include "hloroof/absl_compat.h"
#include "util/string_view_hash.h"

namespace hloroof {
namespace {

struct Split {
  std::string_view name;
  std::string_view text;
};

// "NAME: TEXT" with NAME one word; nullopt otherwise.
std::optional<Split> split_note(std::string_view line) {
  const size_t colon = line.find(": ");
  if (colon == 0 || colon == std::string_view::npos) return std::nullopt;
  const std::string_view name = line.substr(0, colon);
  if (name.find_first_of(" \t\n") != std::string_view::npos) return std::nullopt;
  return Split{name, line.substr(colon + 2)};
}

std::string_view plural_noun(const Instruction& i) {
  const Opcode op = i.opcode();
  if (opcode_category(op) == OpCategory::kCollective && op != Opcode::kReplicaId &&
      op != Opcode::kPartitionId) {
    return "collectives";
  }
  if (std::optional<Opcode> wrapped = i.async_wrapped_opcode();
      wrapped && opcode_category(*wrapped) == OpCategory::kCollective) {
    return "collectives";
  }
  switch (op) {
    case Opcode::kCustomCall:
      return "custom calls";
    case Opcode::kWhile:
      return "loops";
    case Opcode::kFusion:
      return "fusions";
    case Opcode::kConditional:
      return "conditionals";
    default:
      return "ops";
  }
}

// Whether some text is said of two names or more: only then is anything grouped. Without the
// module's names (a name it does not have only takes a line out of the grouping), so that the
// name index is made only when it can matter.
bool any_text_said_twice(const std::vector<std::string>& lines) {
  absl::flat_hash_map<std::string_view, std::string_view> first_name_of;
  for (const std::string& line : lines) {
    std::optional<Split> s = split_note(line);
    if (!s) continue;
    auto [it, added] = first_name_of.emplace(s->text, s->name);
    if (!added && it->second != s->name) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> group_op_notes(const std::vector<std::string>& lines,
                                        const Module* module) {
  if (!any_text_said_twice(lines)) return lines;
  // The module's instruction of each name the notes give: the first of that name in the
  // module's order. Only those names are looked for (a module has far more instructions than
  // notes), and the walk stops once each is found.
  detail::StringViewMap<const Instruction*> by_name;
  if (module != nullptr) {
    for (const std::string& line : lines) {
      if (std::optional<Split> s = split_note(line)) by_name.emplace(s->name, nullptr);
    }
    // Most instructions are none of them: a name whose length and last two characters are no
    // looked-for name's is passed over without hashing it (a module has tens of thousands).
    std::bitset<4096> maybe;
    auto mark = [](std::string_view name) {
      const auto at = [&name](size_t back) {
        return name.size() > back ? static_cast<unsigned char>(name[name.size() - 1 - back]) : 0u;
      };
      return (name.size() * 131 + at(0) * 31 + at(1)) % 4096;
    };
    for (const auto& [name, instruction] : by_name) maybe.set(mark(name));
    size_t left = by_name.size();
    for (const Computation* c : module->computations()) {
      if (left == 0) break;
      for (const Instruction* i : c->instructions()) {
        if (!maybe.test(mark(i->name()))) continue;
        auto it = by_name.find(i->name());
        if (it == by_name.end() || it->second != nullptr) continue;
        it->second = i;
        if (--left == 0) break;
      }
    }
    absl::erase_if(by_name, [](const auto& entry) { return entry.second == nullptr; });
  }
  // A note about something the module does not name ("DCN: ...") is not an op's.
  auto op_note = [&](std::string_view line) -> std::optional<Split> {
    std::optional<Split> s = split_note(line);
    if (s && module != nullptr && !by_name.contains(s->name)) return std::nullopt;
    return s;
  };
  // The names each text is said of, in order of first appearance, each once.
  absl::flat_hash_map<std::string_view, std::vector<std::string_view>> names_of;
  absl::flat_hash_set<std::pair<std::string_view, std::string_view>> said;
  bool any = false;
  for (const std::string& line : lines) {
    std::optional<Split> s = op_note(line);
    if (!s || !said.insert({s->text, s->name}).second) continue;
    std::vector<std::string_view>& names = names_of[s->text];
    names.push_back(s->name);
    any = any || names.size() > 1;
  }
  if (!any) return lines;

  std::vector<std::string> out;
  for (const std::string& line : lines) {
    std::optional<Split> s = op_note(line);
    if (!s) {
      out.push_back(line);
      continue;
    }
    auto it = names_of.find(s->text);
    const std::vector<std::string_view>& names = it->second;
    if (names.size() < 2) {
      out.push_back(line);
      continue;
    }
    if (names.front().data() != s->name.data()) continue;  // said where the first one was
    std::string_view noun;
    for (std::string_view name : names) {
      auto found = by_name.find(name);
      const std::string_view n = found == by_name.end() ? "ops" : plural_noun(*found->second);
      noun = noun.empty() || noun == n ? n : "ops";
    }
    std::vector<std::string> examples;
    for (size_t k = 0; k < names.size() && k < kNoteExamples; ++k) {
      examples.emplace_back(names[k]);
    }
    out.push_back(absl::StrCat(names.size(), " ", sv(noun), ": ", sv(s->text), "; e.g. ",
                               absl::StrJoin(examples, ", ")));
  }
  return out;
}

}  // namespace hloroof
