// Look-up tables for fixed sets of names (opcodes, attribute names, reserved words), built at
// compile time: a perfect hash sends each name of the set to its own slot, so that a look-up is
// one hash of two word-sized loads, one table read and one comparison, with no search. The parser
// looks up such a name for almost every token; most identifiers are in no set, and a first test
// of their first byte and length turns them away before the hash.
//
// A name is summed up by its length and two loads that together cover all of its bytes when it
// is at most 16 bytes long (the first and last 8 bytes, or 4 and 4, or three single bytes); a
// longer name compares its middle bytes too. The hash is two-level ("hash and displace"): the
// top bits of a first hash pick a bucket, and each bucket has its own seed, searched for at
// compile time, that sends its names to free slots; a set that cannot be separated (two names
// with the same length, head and tail) fails to compile.
#ifndef HLOROOF_IR_NAME_TABLE_H_
#define HLOROOF_IR_NAME_TABLE_H_

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace hloroof::detail {

// The `n` (4 or 8) bytes at `p` as a little-endian number.
constexpr uint64_t load_le(const char* p, size_t n) {
  if (std::is_constant_evaluated()) {
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(p[i]);
    return v;
  }
  if (n == 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
    return v;
  }
  uint32_t v;
  std::memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return v;
}

// Two numbers that, with the length, tell apart any two names of at most 16 bytes.
struct NameKey {
  uint64_t head = 0;
  uint64_t tail = 0;
  friend constexpr bool operator==(const NameKey&, const NameKey&) = default;
};

constexpr NameKey name_key(const char* p, size_t n) {
  if (n >= 8) return {load_le(p, 8), load_le(p + n - 8, 8)};
  if (n >= 4) return {load_le(p, 4), load_le(p + n - 4, 4)};
  if (n == 0) return {};
  return {static_cast<uint64_t>(static_cast<unsigned char>(p[0])) |
              static_cast<uint64_t>(static_cast<unsigned char>(p[n / 2])) << 8 |
              static_cast<uint64_t>(static_cast<unsigned char>(p[n - 1])) << 16,
          0};
}

constexpr uint64_t name_hash(const NameKey& key, size_t n) {
  return (key.head ^ (key.tail * 0x9e3779b97f4a7c15u) ^ n) * 0xff51afd7ed558ccdu;
}

template <typename Value>
struct NameEntry {
  std::string_view name;
  Value value;
};

constexpr int bits_for(size_t count) {
  int bits = 1;
  while ((size_t{1} << bits) < count) ++bits;
  return bits;
}

template <typename Value, size_t N>
class NameTable {
 public:
  static constexpr int kSlotBits = bits_for(2 * N);    // at least two slots per name
  static constexpr int kBucketBits = bits_for(N / 2);  // about two names per bucket
  static_assert(N < 65535, "slots hold 16-bit indices");

  constexpr explicit NameTable(const std::array<NameEntry<Value>, N>& entries) {
    std::array<size_t, N> bucket{};
    std::array<size_t, size_t{1} << kBucketBits> bucket_size{};
    size_t largest = 0;
    for (size_t i = 0; i < N; ++i) {
      const std::string_view name = entries[i].name;
      entries_[i] = {name, entries[i].value, name_key(name.data(), name.size())};
      if (name.empty()) throw "a name table holds no empty name";
      if (name.size() < 32) {
        lengths_[static_cast<unsigned char>(name[0])] |= uint32_t{1} << name.size();
      }
      bucket[i] = bucket_of(name_hash(entries_[i].key, name.size()));
      largest = std::max(largest, ++bucket_size[bucket[i]]);
    }
    // Largest buckets first, while most slots are free: the first seed that sends every name of
    // the bucket to its own free slot.
    for (size_t size = largest; size > 0; --size) {
      for (size_t b = 0; b < bucket_size.size(); ++b) {
        if (bucket_size[b] == size) place_bucket(b, bucket);
      }
    }
  }

  // Inlined: the callers are few and hot.
  [[gnu::always_inline]] const Value* find(std::string_view name) const {
    const size_t n = name.size();
    // Most names that are not in the set have a first byte and length that no name has.
    if (n == 0) return nullptr;
    if (n < 32 && !(lengths_[static_cast<unsigned char>(name[0])] >> n & 1)) return nullptr;
    const NameKey key = name_key(name.data(), n);
    const uint64_t h = name_hash(key, n);
    const uint16_t index = slots_[slot_of(h, seeds_[bucket_of(h)])];
    if (index == 0) return nullptr;
    const Entry& e = entries_[index - 1];
    if (e.name.size() != n || !(e.key == key)) return nullptr;
    // Head and tail cover the first and last 8 bytes; only longer names have bytes between.
    for (size_t i = 8; i + 8 < n; i += 8) {
      if (load_le(e.name.data() + i, 8) != load_le(name.data() + i, 8)) return nullptr;
    }
    return &e.value;
  }

  static constexpr size_t size() { return N; }

 private:
  struct Entry {
    std::string_view name;
    Value value{};
    NameKey key;
  };

  static constexpr size_t bucket_of(uint64_t h) {
    return static_cast<size_t>(h >> (64 - kBucketBits));
  }
  static constexpr size_t slot_of(uint64_t h, uint16_t seed) {
    return static_cast<size_t>(((h ^ seed) * 0xc4ceb9fe1a85ec53u) >> (64 - kSlotBits));
  }

  constexpr void place_bucket(size_t b, const std::array<size_t, N>& bucket) {
    for (uint32_t seed = 0; seed < 65536; ++seed) {
      bool fits = true;
      for (size_t i = 0; i < N && fits; ++i) {
        if (bucket[i] != b) continue;
        uint16_t& slot = slots_[slot_of(name_hash(entries_[i].key, entries_[i].name.size()),
                                        static_cast<uint16_t>(seed))];
        if (slot != 0) {
          fits = false;
        } else {
          slot = static_cast<uint16_t>(i + 1);
        }
      }
      if (fits) {
        seeds_[b] = static_cast<uint16_t>(seed);
        return;
      }
      // Take back this seed's slots.
      for (uint16_t& slot : slots_) {
        if (slot != 0 && bucket[slot - 1] == b) slot = 0;
      }
    }
    // Not a constant expression: a set that no seed separates does not compile.
    throw "no perfect hash for these names (two share length, first and last 8 bytes?)";
  }

  std::array<Entry, N> entries_{};
  std::array<uint16_t, size_t{1} << kSlotBits> slots_{};    // index + 1; 0 when empty
  std::array<uint16_t, size_t{1} << kBucketBits> seeds_{};  // per bucket
  // Bit n of lengths_[c]: some name of n < 32 bytes starts with byte c.
  std::array<uint32_t, 256> lengths_{};
};

template <typename Value, size_t N>
constexpr NameTable<Value, N> make_name_table(const NameEntry<Value> (&entries)[N]) {
  std::array<NameEntry<Value>, N> list{};
  for (size_t i = 0; i < N; ++i) list[i] = entries[i];
  return NameTable<Value, N>(list);
}

}  // namespace hloroof::detail

#endif  // HLOROOF_IR_NAME_TABLE_H_
