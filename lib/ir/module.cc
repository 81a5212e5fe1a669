#include "hloroof/module.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/module_state.h"

namespace hloroof {

Module::Module() : state_(std::make_unique<detail::ModuleState>()) {}
Module::~Module() = default;
Module::Module(Module&&) noexcept = default;
Module& Module::operator=(Module&&) noexcept = default;

std::string_view Module::name() const { return state_->name; }
const ModuleAttributes& Module::attributes() const { return state_->attributes; }
ModuleAttributes& Module::mutable_attributes() { return state_->attributes; }
const StackFrameTables& Module::stack_frames() const { return state_->stack_frames; }
absl::Span<Computation* const> Module::computations() const { return state_->computations; }
Computation* Module::entry() const { return state_->entry; }
bool Module::entry_marked() const { return state_->entry_marked; }
std::string_view Module::source() const { return state_->source; }

Computation* Module::find_computation(std::string_view name) const {
  auto it = state_->computations_by_name.find(name);
  return it == state_->computations_by_name.end() ? nullptr : it->second;
}

absl::Status Module::set_entry(std::string_view computation) {
  Computation* chosen = find_computation(computation);
  if (chosen == nullptr) {
    constexpr size_t kNamesListed = 5;
    std::vector<std::string> names;
    // The last computations first: those of a dump cut off, the nearest to its ENTRY.
    for (auto it = state_->computations.rbegin();
         it != state_->computations.rend() && names.size() < kNamesListed; ++it) {
      names.emplace_back((*it)->name());
    }
    const size_t more = state_->computations.size() - names.size();
    return absl::NotFoundError(absl::StrCat(
        "no computation is named '", std::string(computation), "';\nthe module's ",
        state_->computations.size(), " computations include ", absl::StrJoin(names, ", "),
        more > 0 ? absl::StrCat(" and ", more, " more") : ""));
  }
  if (state_->entry != nullptr) detail::IrAccess::set_entry(state_->entry, false);
  detail::IrAccess::set_entry(chosen, true);
  state_->entry = chosen;
  state_->entry_marked = true;
  return absl::OkStatus();
}

int64_t Module::instruction_count() const {
  int64_t n = 0;
  for (const Computation* c : state_->computations) {
    n += static_cast<int64_t>(c->instruction_count());
  }
  return n;
}

size_t Module::memory_bytes() const {
  return state_->arena.reserved_bytes() + state_->owned_source.capacity() +
         state_->input.text().size();
}

size_t release_unused_module_memory() {
  const size_t bytes = detail::Arena::pooled_bytes();
  detail::Arena::release_pooled();
  return bytes;
}

}  // namespace hloroof
