// A lookup table for fixed sets of names (opcodes, attributes, reserved words), grouped by first
// letter: a lookup compares a few lengths and rarely a few bytes, which is cheaper than hashing
// the name. The parser looks up such a name for almost every token.
#ifndef HLOROOF_IR_NAME_TABLE_H_
#define HLOROOF_IR_NAME_TABLE_H_

#include <array>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace hloroof::detail {

template <typename Value>
class NameTable {
 public:
  void add(std::string_view name, Value value) { bucket(name).push_back({name, value}); }

  const Value* find(std::string_view name) const {
    if (name.empty()) return nullptr;
    for (const auto& [key, value] : by_first_[static_cast<unsigned char>(name[0])]) {
      if (key.size() == name.size() && std::memcmp(key.data(), name.data(), name.size()) == 0) {
        return &value;
      }
    }
    return nullptr;
  }

 private:
  std::vector<std::pair<std::string_view, Value>>& bucket(std::string_view name) {
    return by_first_[static_cast<unsigned char>(name[0])];
  }
  std::array<std::vector<std::pair<std::string_view, Value>>, 256> by_first_;
};

}  // namespace hloroof::detail

#endif  // HLOROOF_IR_NAME_TABLE_H_
