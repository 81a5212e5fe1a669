// Prefetching the slots of a hash table's key before it is looked up.
#ifndef HLOROOF_LIB_UTIL_PREFETCH_H_
#define HLOROOF_LIB_UTIL_PREFETCH_H_

namespace hloroof::detail {

// Starts loading the slots where `key` is looked for in an absl hash container, for a look-up
// made a little later: one that outgrows the caches (a million keys) misses on every look-up
// otherwise. Out of line, flattened and hidden from interprocedural analysis: GCC 12 deletes a
// call of absl's prefetch() that it has not inlined, or of a function it sees only prefetching,
// as a call without effects (and where asserts are compiled in, it does not). Clang keeps the
// prefetches and has no `noipa`: out of line is enough there.
#if defined(__clang__)
#define HLOROOF_OUT_OF_ANALYSIS gnu::noinline
#else
#define HLOROOF_OUT_OF_ANALYSIS gnu::noipa
#endif
template <typename Container, typename Key>
[[HLOROOF_OUT_OF_ANALYSIS, gnu::flatten]] void prefetch_slots(const Container& container,
                                                              const Key& key) {
  container.prefetch(key);
}
#undef HLOROOF_OUT_OF_ANALYSIS

}  // namespace hloroof::detail

#endif  // HLOROOF_LIB_UTIL_PREFETCH_H_
