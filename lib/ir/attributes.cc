#include "hloroof/attributes.h"

#include <algorithm>
#include <array>

#include "ir/name_table.h"

namespace hloroof {
namespace {

struct AttrInfo {
  std::string_view name;
  AttrKind kind;
  int group;
};

constexpr AttrInfo kAttributes[] = {
#define HLOROOF_ATTRIBUTE(e, text, kind, group) {text, AttrKind::kind, group},
#include "hloroof/attributes.def"
#undef HLOROOF_ATTRIBUTE
};

const AttrInfo& info(AttrId id) { return kAttributes[static_cast<size_t>(id)]; }

constexpr size_t kAttributeCount = std::size(kAttributes);
constexpr auto kByName = [] {
  std::array<detail::NameEntry<AttrId>, kAttributeCount> list{};
  for (size_t i = 0; i < kAttributeCount; ++i) {
    list[i] = {kAttributes[i].name, static_cast<AttrId>(i)};
  }
  return detail::NameTable<AttrId, kAttributeCount>(list);
}();

}  // namespace

std::string_view attribute_name(AttrId id) { return info(id).name; }
AttrKind attribute_kind(AttrId id) { return info(id).kind; }
int attribute_print_group(AttrId id) { return info(id).group; }

std::optional<AttrId> attribute_from_name(std::string_view name) {
  const AttrId* id = kByName.find(name);
  if (id == nullptr) return std::nullopt;
  return *id;
}

std::optional<std::string_view> FrontendAttributes::find(std::string_view key) const {
  for (const FrontendAttribute& e : entries) {
    if (e.key == key) return e.value;
  }
  return std::nullopt;
}

}  // namespace hloroof
