#include "hloroof/module.h"

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
