// XLA's dot algorithms (xla_data.proto's PrecisionConfig.Algorithm): their text spelling by
// number, one table for the HLO proto reader and writer.
#ifndef HLOROOF_PROTO_DOT_ALGORITHMS_H_
#define HLOROOF_PROTO_DOT_ALGORITHMS_H_

#include <cstddef>
#include <iterator>
#include <string_view>

namespace hloroof::proto_internal {

// The spellings at their numbers; 0 (ALG_UNSET) has none.
inline constexpr std::string_view kDotAlgorithms[] = {
    "",
    "dot_any_f8_any_f8_f32",
    "dot_any_f8_any_f8_f32_fast_accum",
    "dot_f16_f16_f16",
    "dot_f16_f16_f32",
    "dot_bf16_bf16_bf16",
    "dot_bf16_bf16_f32",
    "dot_bf16_bf16_f32_x3",
    "dot_bf16_bf16_f32_x6",
    "dot_tf32_tf32_f32",
    "dot_tf32_tf32_f32_x3",
    "dot_f32_f32_f32",
    "dot_f64_f64_f64",
    "dot_bf16_bf16_f32_x9",
};

// The spelling of an algorithm number; "" for 0 and unknown numbers.
inline std::string_view dot_algorithm_word(int number) {
  if (number < 0 || number >= static_cast<int>(std::size(kDotAlgorithms))) return "";
  return kDotAlgorithms[number];
}

// The number of an algorithm's spelling; 0 for one that names none.
inline int dot_algorithm_number(std::string_view word) {
  for (size_t k = 1; k < std::size(kDotAlgorithms); ++k) {
    if (kDotAlgorithms[k] == word) return static_cast<int>(k);
  }
  return 0;
}

}  // namespace hloroof::proto_internal

#endif  // HLOROOF_PROTO_DOT_ALGORITHMS_H_
