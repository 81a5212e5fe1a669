#include "memory/tuple_tables.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/types/span.h"
#include "hloroof/computation.h"
#include "hloroof/instruction.h"
#include "hloroof/opcode.h"
#include "memory/buffer_aliasing.h"

namespace hloroof::detail {
namespace {

// More tuple shapes than this in one module are not walked.
constexpr int64_t kMaxNodes = int64_t{1} << 22;

// The tuple shapes of every result, numbered in depth-first order per instruction (a tuple
// before its elements), merged where they are one buffer.
class TupleNodes {
 public:
  // Numbers `i`'s tuple shapes; false when the module has too many.
  bool add(const Instruction* i) {
    const int64_t n = count(i->shape());
    if (n == 0) return true;
    if (n > kMaxNodes - static_cast<int64_t>(parent_.size())) return false;
    first_[i] = static_cast<int32_t>(parent_.size());
    number(i->shape());
    return true;
  }

  // Makes the tuple shapes under a's subshape at `a_index` and b's at `b_index` one buffer
  // each, when both are tuples of the same structure.
  void unite(const Instruction* a, absl::Span<const int64_t> a_index, const Instruction* b,
             absl::Span<const int64_t> b_index) {
    const Shape* as = nullptr;
    const Shape* bs = nullptr;
    const int32_t x = find(a, a_index, as);
    const int32_t y = find(b, b_index, bs);
    if (x < 0 || y < 0) return;
    const int64_t n = count(*as);
    if (n != count(*bs)) return;
    for (int32_t k = 0; k < n; ++k) merge(x + k, y + k);
  }

  // Marks every tuple shape of `i`'s result as held elsewhere (not a temporary).
  void exclude(const Instruction* i) {
    const Shape* s = nullptr;
    const int32_t x = find(i, {}, s);
    if (x < 0) return;
    for (int64_t k = 0; k < count(*s); ++k) excluded_[x + k] = true;
  }

  TupleTables tables(int64_t granule, int64_t slot) {
    absl::flat_hash_map<int32_t, std::pair<int64_t, bool>> by_root;  // elements, excluded
    for (size_t k = 0; k < parent_.size(); ++k) {
      auto& [elements, excluded] = by_root[root(static_cast<int32_t>(k))];
      elements = std::max(elements, elements_[k]);
      excluded = excluded || excluded_[k];
    }
    TupleTables t;
    for (const auto& [r, info] : by_root) {
      if (info.second || info.first == 0) continue;
      const int64_t table = (4 * info.first + granule - 1) / granule * granule;
      ++t.count;
      t.bytes += (table + slot - 1) / slot * slot;
    }
    return t;
  }

 private:
  // Tuple shapes under `s`, itself included (saturating at kMaxNodes).
  int64_t count(const Shape& s) {
    if (!s.is_tuple()) return 0;
    if (s.depth() <= 1) return 1;
    auto [it, fresh] = counts_.try_emplace(&s, 0);
    if (!fresh) return it->second;
    int64_t n = 1;
    for (size_t e = 0; e < s.elements.size() && n < kMaxNodes; ++e) {
      n = std::min(kMaxNodes, n + count(s.elements[e]));
    }
    counts_[&s] = n;
    return n;
  }

  void number(const Shape& s) {
    if (!s.is_tuple()) return;
    parent_.push_back(static_cast<int32_t>(parent_.size()));
    elements_.push_back(static_cast<int64_t>(s.elements.size()));
    excluded_.push_back(false);
    if (s.depth() <= 1) return;
    for (const Shape& e : s.elements) number(e);
  }

  // The number of the tuple shape at `index` of `i`'s result, and that shape; -1 when it is
  // not a tuple shape.
  int32_t find(const Instruction* i, absl::Span<const int64_t> index, const Shape*& shape) {
    auto it = first_.find(i);
    if (it == first_.end()) return -1;
    int64_t id = it->second;
    const Shape* s = &i->shape();
    for (int64_t k : index) {
      if (!s->is_tuple() || k < 0 || k >= static_cast<int64_t>(s->elements.size())) return -1;
      id += 1 + before(*s, k);
      s = &s->elements[static_cast<size_t>(k)];
    }
    if (!s->is_tuple()) return -1;
    shape = s;
    return static_cast<int32_t>(id);
  }

  // Tuple shapes under elements [0, k) of tuple `s`.
  int64_t before(const Shape& s, int64_t k) {
    if (s.depth() <= 1) return 0;
    auto [it, fresh] = before_.try_emplace(&s);
    std::vector<int64_t>& prefix = it->second;
    if (fresh) {
      prefix.reserve(s.elements.size() + 1);
      prefix.push_back(0);
      for (const Shape& e : s.elements) prefix.push_back(prefix.back() + count(e));
    }
    return prefix[static_cast<size_t>(k)];
  }

  int32_t root(int32_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void merge(int32_t x, int32_t y) { parent_[root(x)] = root(y); }

  absl::flat_hash_map<const Instruction*, int32_t> first_;
  absl::flat_hash_map<const Shape*, int64_t> counts_;
  absl::flat_hash_map<const Shape*, std::vector<int64_t>> before_;
  std::vector<int32_t> parent_;
  std::vector<int64_t> elements_;
  std::vector<bool> excluded_;
};

// The computations that keep their buffers in the program's heap: the entry and the loops,
// calls and branches it runs (not fusions, scalar computations or asynchronous ones).
std::vector<const Computation*> heap_computations(const Module& module) {
  std::vector<const Computation*> out = {module.entry()};
  absl::flat_hash_set<const Computation*> seen = {module.entry()};
  for (size_t k = 0; k < out.size(); ++k) {
    for (const Instruction* i : out[k]->instructions()) {
      const Opcode op = i->opcode();
      if (op != Opcode::kWhile && op != Opcode::kConditional && op != Opcode::kCall) continue;
      for (const Computation* c : i->called_computations()) {
        if (seen.insert(c).second) out.push_back(c);
      }
    }
  }
  return out;
}

// Makes `i`'s result one buffer with the parameters and roots of the bodies it runs: a loop's
// condition and body take its state; branch b takes operand b + 1; a call all its operands.
void unite_with_bodies(const Instruction* i, TupleNodes& nodes) {
  const Opcode op = i->opcode();
  std::vector<const Computation*> called;
  if (op == Opcode::kConditional) {
    called = conditional_branches(*i);
  } else {
    called.assign(i->called_computations().begin(), i->called_computations().end());
  }
  for (size_t b = 0; b < called.size(); ++b) {
    const Computation* c = called[b];
    if (c->root() != nullptr) nodes.unite(i, {}, c->root(), {});
    absl::Span<Instruction* const> params = c->parameters();
    for (size_t k = 0; k < params.size(); ++k) {
      const size_t operand = op == Opcode::kWhile ? 0 : op == Opcode::kConditional ? b + 1 : k;
      if (operand < i->operand_count() && (op == Opcode::kCall || k == 0)) {
        nodes.unite(params[k], {}, i->operand(operand), {});
      }
    }
  }
}

// Makes the tuple shapes `i` passes on one buffer with those they come from
// (for_each_forwarded), and a loop's, call's or conditional's with its bodies'.
void unite_forwarded(const Instruction* i, TupleNodes& nodes) {
  const auto operands = static_cast<int64_t>(i->operand_count());
  for_each_forwarded(*i, [&](absl::Span<const int64_t> output_index, int64_t operand,
                             absl::Span<const int64_t> operand_index) {
    if (operand != kAllOperands) {
      if (operand < operands) {
        nodes.unite(i, output_index, i->operand(static_cast<size_t>(operand)), operand_index);
      }
      return;
    }
    ShapeIndex element(output_index.begin(), output_index.end());
    element.push_back(0);
    for (int64_t k = 0; k < operands; ++k) {
      element.back() = k;
      nodes.unite(i, element, i->operand(static_cast<size_t>(k)), {});
    }
  });
  const Opcode op = i->opcode();
  if (op == Opcode::kWhile || op == Opcode::kCall || op == Opcode::kConditional) {
    unite_with_bodies(i, nodes);
  }
}

}  // namespace

std::optional<TupleTables> temporary_tuple_tables(const Module& module, int64_t granule,
                                                  int64_t slot) {
  if (module.entry() == nullptr) return TupleTables{};
  granule = std::max<int64_t>(granule, 1);
  slot = std::max<int64_t>(slot, 1);
  const std::vector<const Computation*> computations = heap_computations(module);
  TupleNodes nodes;
  for (const Computation* c : computations) {
    for (const Instruction* i : c->instructions()) {
      if (!nodes.add(i)) return std::nullopt;
    }
  }
  for (const Computation* c : computations) {
    for (const Instruction* i : c->instructions()) {
      if (i->operand_count() > 0 || !i->called_computations().empty()) unite_forwarded(i, nodes);
      if (i->opcode() == Opcode::kConstant ||
          (c->is_entry() && i->opcode() == Opcode::kParameter)) {
        nodes.exclude(i);
      }
    }
  }
  if (module.entry()->root() != nullptr) nodes.exclude(module.entry()->root());
  return nodes.tables(granule, slot);
}

}  // namespace hloroof::detail
