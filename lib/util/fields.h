// The members of an aggregate, in the order they are declared, without naming them: so that
// what is made from every member of a struct (a memo's key, FigureKey::add_fields) takes a
// member added later without anyone remembering to add it there.
#ifndef HLOROOF_UTIL_FIELDS_H_
#define HLOROOF_UTIL_FIELDS_H_

#include <cstddef>
#include <type_traits>
#include <utility>

namespace hloroof::util {

namespace fields_internal {

// Converts to any type: T{Any{}, ...} compiles with as many of them as T has members.
struct Any {
  template <typename U>
  operator U() const;  // never defined: used only where nothing is evaluated
};

template <typename T, typename... A>
constexpr size_t count() {
  if constexpr (sizeof...(A) <= 32 && requires { T{std::declval<A>()...}; }) {
    return count<T, A..., Any>();
  } else {
    return sizeof...(A) - 1;
  }
}

}  // namespace fields_internal

// The number of members of the aggregate T (no base classes; at most 32).
template <typename T>
  requires std::is_aggregate_v<T>
inline constexpr size_t kFieldCount = fields_internal::count<T>();

// visit(member, member, ...) over the members of `value`, an aggregate of at most 32.
template <typename T, typename F>
  requires std::is_aggregate_v<T>
decltype(auto) apply_fields(const T& value, F&& visit) {
  constexpr size_t n = kFieldCount<T>;
  static_assert(n >= 1 && n <= 32, "apply_fields: an aggregate of 1 to 32 members");
  if constexpr (n == 1) {
    const auto& [m0] = value;
    return visit(m0);
  } else if constexpr (n == 2) {
    const auto& [m0, m1] = value;
    return visit(m0, m1);
  } else if constexpr (n == 3) {
    const auto& [m0, m1, m2] = value;
    return visit(m0, m1, m2);
  } else if constexpr (n == 4) {
    const auto& [m0, m1, m2, m3] = value;
    return visit(m0, m1, m2, m3);
  } else if constexpr (n == 5) {
    const auto& [m0, m1, m2, m3, m4] = value;
    return visit(m0, m1, m2, m3, m4);
  } else if constexpr (n == 6) {
    const auto& [m0, m1, m2, m3, m4, m5] = value;
    return visit(m0, m1, m2, m3, m4, m5);
  } else if constexpr (n == 7) {
    const auto& [m0, m1, m2, m3, m4, m5, m6] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6);
  } else if constexpr (n == 8) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7);
  } else if constexpr (n == 9) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8);
  } else if constexpr (n == 10) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9);
  } else if constexpr (n == 11) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10);
  } else if constexpr (n == 12) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11);
  } else if constexpr (n == 13) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12);
  } else if constexpr (n == 14) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13);
  } else if constexpr (n == 15) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14);
  } else if constexpr (n == 16) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15);
  } else if constexpr (n == 17) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16);
  } else if constexpr (n == 18) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16,
                 m17] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17);
  } else if constexpr (n == 19) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18);
  } else if constexpr (n == 20) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19);
  } else if constexpr (n == 21) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20);
  } else if constexpr (n == 22) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21);
  } else if constexpr (n == 23) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21, m22] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21, m22);
  } else if constexpr (n == 24) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21, m22, m23] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21, m22, m23);
  } else if constexpr (n == 25) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21, m22, m23, m24] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21, m22, m23, m24);
  } else if constexpr (n == 26) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21, m22, m23, m24, m25] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21, m22, m23, m24, m25);
  } else if constexpr (n == 27) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21, m22, m23, m24, m25, m26] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21, m22, m23, m24, m25, m26);
  } else if constexpr (n == 28) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21, m22, m23, m24, m25, m26, m27] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21, m22, m23, m24, m25, m26, m27);
  } else if constexpr (n == 29) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21, m22, m23, m24, m25, m26, m27, m28] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21, m22, m23, m24, m25, m26, m27, m28);
  } else if constexpr (n == 30) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21, m22, m23, m24, m25, m26, m27, m28, m29] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21, m22, m23, m24, m25, m26, m27, m28, m29);
  } else if constexpr (n == 31) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21, m22, m23, m24, m25, m26, m27, m28, m29, m30] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21, m22, m23, m24, m25, m26, m27, m28, m29, m30);
  } else if constexpr (n == 32) {
    const auto& [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21, m22, m23, m24, m25, m26, m27, m28, m29, m30, m31] = value;
    return visit(m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17,
                 m18, m19, m20, m21, m22, m23, m24, m25, m26, m27, m28, m29, m30, m31);
  }
}

// visit(member) for each member of `value`, in order.
template <typename T, typename F>
void for_each_field(const T& value, F&& visit) {
  apply_fields(value, [&visit](const auto&... member) { (visit(member), ...); });
}

}  // namespace hloroof::util

#endif  // HLOROOF_UTIL_FIELDS_H_
