#include "hloroof/shape.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/numeric/int128.h"
#include "util/checked_math.h"

namespace hloroof {
namespace {

enum class TypeClass : uint8_t { Invalid, Pred, Signed, Unsigned, Float, Complex, Token, Opaque };

struct TypeInfo {
  std::string_view name;
  int bits;
  int bytes;
  TypeClass cls;
};

constexpr std::array kTypes = {
    TypeInfo{"invalid", 0, 0, TypeClass::Invalid},
#define HLOROOF_PRIMITIVE(e, text, bits, bytes, cls) TypeInfo{text, bits, bytes, TypeClass::cls},
#include "hloroof/primitive_types.def"
#undef HLOROOF_PRIMITIVE
};

const TypeInfo& info(PrimitiveType type) {
  auto i = static_cast<size_t>(type);
  return i < kTypes.size() ? kTypes[i] : kTypes[0];
}

}  // namespace

std::string_view primitive_type_name(PrimitiveType type) { return info(type).name; }

std::optional<PrimitiveType> primitive_type_from_name(std::string_view name) {
  static const auto* const kByName = [] {
    auto* m = new absl::flat_hash_map<std::string_view, PrimitiveType>();
    for (size_t i = 1; i < kTypes.size(); ++i) {
      m->emplace(kTypes[i].name, static_cast<PrimitiveType>(i));
    }
    return m;
  }();
  auto it = kByName->find(name);
  if (it == kByName->end()) return std::nullopt;
  return it->second;
}

int primitive_bit_width(PrimitiveType type) { return info(type).bits; }
int primitive_storage_bytes(PrimitiveType type) { return info(type).bytes; }
bool is_floating_point(PrimitiveType type) { return info(type).cls == TypeClass::Float; }
bool is_complex(PrimitiveType type) { return info(type).cls == TypeClass::Complex; }
bool is_signed_integral(PrimitiveType type) { return info(type).cls == TypeClass::Signed; }
bool is_unsigned_integral(PrimitiveType type) { return info(type).cls == TypeClass::Unsigned; }

bool Layout::has_only_minor_to_major() const {
  return !has_dim_levels && tiles.empty() && tail_padding_alignment == 1 &&
         index_type == PrimitiveType::kInvalid && pointer_type == PrimitiveType::kInvalid &&
         element_size_bits == 0 && memory_space == 0 && split_configs.empty() &&
         physical_shape.empty() && dynamic_shape_metadata_prefix_bytes == 0;
}

bool operator==(const Layout& a, const Layout& b) {
  return a.minor_to_major == b.minor_to_major && a.has_dim_levels == b.has_dim_levels &&
         a.dim_levels == b.dim_levels && a.tiles == b.tiles &&
         a.tail_padding_alignment == b.tail_padding_alignment && a.index_type == b.index_type &&
         a.pointer_type == b.pointer_type && a.element_size_bits == b.element_size_bits &&
         a.memory_space == b.memory_space && a.split_configs == b.split_configs &&
         a.physical_shape == b.physical_shape &&
         a.dynamic_shape_metadata_prefix_bytes == b.dynamic_shape_metadata_prefix_bytes;
}

namespace {

inline size_t mix(size_t h, uint64_t v) {
  // Combines by shifts and adds (the constant is 2^64 / golden ratio): cheap, but nearby
  // values give nearby results; spread() finishes the hash.
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

// Every bit of `h` into every bit of the result (the two halves of a 64x64 -> 128-bit
// product, xored): without it, shapes that differ in one small dimension (f32[1], f32[2],
// ...) hash to values that differ in their low bits only, which a hash table that places by
// the high bits puts in one run of slots, where interning each costs time linear in the run.
inline size_t spread(size_t h) {
  const absl::uint128 r = absl::uint128(h) * 0x9e3779b97f4a7c15ULL;
  return absl::Uint128Low64(r) ^ absl::Uint128High64(r);
}

size_t hash_layout(size_t h, const Layout& l) {
  for (int64_t d : l.minor_to_major) h = mix(h, static_cast<uint64_t>(d));
  for (const Tile& t : l.tiles) {
    h = mix(h, 0x7117);
    for (int64_t d : t.dims) h = mix(h, static_cast<uint64_t>(d));
  }
  h = mix(h, static_cast<uint64_t>(l.memory_space));
  h = mix(h, static_cast<uint64_t>(l.element_size_bits));
  h = mix(h, static_cast<uint64_t>(l.tail_padding_alignment));
  h = mix(h, l.split_configs.size());
  return h;
}

}  // namespace

OptionalLayout::OptionalLayout(Layout layout)
    : layout_(std::make_shared<Layout>(std::move(layout))) {}

Layout& OptionalLayout::emplace() {
  layout_ = std::make_shared<Layout>();
  return *layout_;
}

Layout& OptionalLayout::mutable_layout() {
  if (layout_ != nullptr && layout_.use_count() > 1) layout_ = std::make_shared<Layout>(*layout_);
  return *layout_;
}

bool operator==(const OptionalLayout& a, const OptionalLayout& b) {
  if (a.layout_ == b.layout_) return true;
  if (a.layout_ == nullptr || b.layout_ == nullptr) return false;
  return *a.layout_ == *b.layout_;
}

const std::vector<Shape>& TupleElements::distinct() const {
  static const auto* const kNone = new std::vector<Shape>();
  return rep_ ? rep_->distinct : *kNone;
}

int64_t TupleElements::array_leaf_count() const { return rep_ ? rep_->leaves : 0; }
int64_t TupleElements::tree_size() const { return rep_ ? rep_->tree_size : 0; }
int TupleElements::depth() const { return rep_ ? rep_->depth : 0; }

int64_t TupleElements::array_leaves_per_element() const {
  return rep_ ? rep_->leaves_per_element : -1;
}

bool operator==(const TupleElements& a, const TupleElements& b) {
  if (a.rep_ == b.rep_) return true;
  if (a.rep_ == nullptr || b.rep_ == nullptr) return false;  // one is empty, the other not
  const TupleElements::Rep& x = *a.rep_;
  const TupleElements::Rep& y = *b.rep_;
  // Both lists are canonical: equal lists have equal distinct elements and equal indices.
  return x.size == y.size && x.hash == y.hash && x.index_width == y.index_width &&
         x.index == y.index && x.distinct == y.distinct;
}

// Deduplicates by hash: `slots` holds indices into `distinct`, looked up by shape.
struct TupleBuilder::State {
  struct Hash {
    using is_transparent = void;
    const std::vector<Shape>* distinct;
    size_t operator()(uint32_t i) const { return (*distinct)[i].hash(); }
    size_t operator()(const Shape& s) const { return s.hash(); }
  };
  struct Eq {
    using is_transparent = void;
    const std::vector<Shape>* distinct;
    bool operator()(uint32_t a, uint32_t b) const { return a == b; }
    bool operator()(uint32_t a, const Shape& b) const { return (*distinct)[a] == b; }
    bool operator()(const Shape& a, uint32_t b) const { return a == (*distinct)[b]; }
  };
  // Below this many distinct elements, a linear search is cheaper than hashing.
  static constexpr size_t kLinearSearch = 8;

  TupleElements::Rep rep;
  bool all_same = true;      // every element so far is distinct[0]
  bool all_distinct = true;  // element i is distinct[i]
  absl::flat_hash_set<uint32_t, Hash, Eq> slots{0, Hash{&rep.distinct}, Eq{&rep.distinct}};

  // The entry of `element` in `distinct`; distinct.size() when it is new.
  size_t find(const Shape& element) const {
    if (rep.distinct.size() <= kLinearSearch) {
      for (size_t i = 0; i < rep.distinct.size(); ++i) {
        if (rep.distinct[i] == element) return i;
      }
      return rep.distinct.size();
    }
    auto it = slots.find(element);
    return it == slots.end() ? rep.distinct.size() : *it;
  }

  // Bytes per entry that hold entries of `count` distinct elements.
  static uint8_t width_for(size_t count) {
    return count <= 0x100 ? 1 : count <= 0x10000 ? 2 : 4;
  }
  static void store(uint8_t* at, uint8_t width, size_t entry) {
    if (width == 1) {
      *at = static_cast<uint8_t>(entry);
    } else if (width == 2) {
      const auto value = static_cast<uint16_t>(entry);
      std::memcpy(at, &value, 2);
    } else {
      const auto value = static_cast<uint32_t>(entry);
      std::memcpy(at, &value, 4);
    }
  }
  void append(size_t entry) {
    const size_t at = rep.index.size();
    rep.index.resize(at + rep.index_width);
    store(&rep.index[at], rep.index_width, entry);
  }
  // Re-encodes the entries written so far, in place from the last, when `count` distinct
  // elements need wider ones (at most twice per list: linear overall).
  void widen(size_t count) {
    const uint8_t width = width_for(count);
    if (width <= rep.index_width) return;
    const size_t n = rep.index.size() / rep.index_width;
    rep.index.resize(n * width);
    for (size_t k = n; k-- > 0;) store(&rep.index[k * width], width, rep.entry(k));
    rep.index_width = width;
  }

  template <typename S>
  void add(S&& element) {
    // Read before `element` may be moved into `distinct`.
    const int64_t leaves = element.array_leaf_count();
    const int64_t tree_size = element.tree_size();
    const int depth = element.depth();
    size_t d = find(element);
    if (d == rep.distinct.size()) {
      rep.distinct.push_back(std::forward<S>(element));
      if (rep.distinct.size() == kLinearSearch + 1) {
        for (uint32_t i = 0; i < rep.distinct.size(); ++i) slots.insert(i);
      } else if (rep.distinct.size() > kLinearSearch + 1) {
        slots.insert(static_cast<uint32_t>(d));
      }
    }
    const size_t i = rep.size;
    const bool same = d == 0;
    const bool identity = d == i;
    if (!rep.index.empty() || (!(all_same && same) && !(all_distinct && identity))) {
      if (rep.index.empty()) {
        // The first element that breaks both patterns: write out the entries so far.
        widen(rep.distinct.size());
        for (size_t k = 0; k < i; ++k) append(all_same ? 0 : k);
      } else {
        widen(rep.distinct.size());
      }
      append(d);
    } else if (rep.index.empty()) {
      rep.index_width = width_for(rep.distinct.size());
    }
    all_same = all_same && same;
    all_distinct = all_distinct && identity;
    if (i == 0) {
      rep.leaves_per_element = leaves;
    } else if (rep.leaves_per_element != leaves) {
      rep.leaves_per_element = -1;
    }
    rep.leaves = saturating_add(rep.leaves, leaves);
    rep.tree_size = saturating_add(rep.tree_size, tree_size);
    rep.depth = std::max(rep.depth, depth);
    ++rep.size;
  }
};

TupleBuilder::TupleBuilder() : state_(std::make_unique<State>()) {}
TupleBuilder::~TupleBuilder() = default;

void TupleBuilder::add(const Shape& element) { state_->add(element); }
void TupleBuilder::add(Shape&& element) { state_->add(std::move(element)); }
size_t TupleBuilder::size() const { return state_->rep.size; }

TupleElements TupleBuilder::build() {
  TupleElements out;
  if (state_->rep.size > 0) {
    auto rep = std::make_shared<TupleElements::Rep>(std::move(state_->rep));
    // The index keeps its growth capacity: copying it into a tight one would double the peak.
    rep->distinct.shrink_to_fit();
    size_t h = mix(0x7e1e, rep->size);
    for (const Shape& d : rep->distinct) h = mix(h, d.hash());
    h = mix(h, rep->index_width);
    for (uint8_t b : rep->index) h = mix(h, b);
    rep->hash = h;
    out.rep_ = std::move(rep);
  }
  state_ = std::make_unique<State>();
  return out;
}

size_t Shape::hash() const {
  size_t h = mix(static_cast<size_t>(kind), static_cast<uint64_t>(element_type));
  for (const Dimension& d : dims) {
    h = mix(h, static_cast<uint64_t>(d.size) * 4 + static_cast<uint64_t>(d.kind));
  }
  if (layout) h = hash_layout(mix(h, 1), *layout);
  if (!elements.empty()) h = mix(h, elements.rep_->hash);
  return spread(h);
}

int64_t Shape::array_leaf_count() const {
  switch (kind) {
    case Kind::kArray:
      return 1;
    case Kind::kToken:
      return 0;
    case Kind::kTuple:
    case Kind::kBuffer:
      return elements.array_leaf_count();
  }
  return 0;
}

int64_t Shape::tree_size() const { return saturating_add(1, elements.tree_size()); }

int Shape::depth() const {
  if (kind != Kind::kTuple && kind != Kind::kBuffer) return 0;
  return 1 + elements.depth();
}

bool operator==(const Shape& a, const Shape& b) {
  return a.kind == b.kind && a.element_type == b.element_type && a.dims == b.dims &&
         a.layout == b.layout && a.elements == b.elements;
}

Shape Shape::Array(PrimitiveType type, std::initializer_list<int64_t> dims) {
  Shape s;
  s.kind = Kind::kArray;
  s.element_type = type;
  for (int64_t d : dims) s.dims.push_back(Dimension{Dimension::Kind::kStatic, d});
  return s;
}

Shape Shape::Tuple(const std::vector<Shape>& elements) {
  TupleBuilder builder;
  for (const Shape& e : elements) builder.add(e);
  return Tuple(builder.build());
}

Shape Shape::Tuple(TupleElements elements) {
  Shape s;
  s.kind = Kind::kTuple;
  s.elements = std::move(elements);
  return s;
}

Shape Shape::Buffer(Shape array) {
  TupleBuilder builder;
  builder.add(std::move(array));
  Shape s;
  s.kind = Kind::kBuffer;
  s.elements = builder.build();
  return s;
}

Shape Shape::Token() {
  Shape s;
  s.kind = Kind::kToken;
  s.element_type = PrimitiveType::kToken;
  return s;
}

}  // namespace hloroof
