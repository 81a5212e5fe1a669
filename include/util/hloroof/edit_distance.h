// "Did you mean": the known name closest to a mistyped one.
#ifndef HLOROOF_EDIT_DISTANCE_H_
#define HLOROOF_EDIT_DISTANCE_H_

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

namespace hloroof {

// Edits (insert, delete, substitute one character) from `a` to `b`.
inline size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The name of `known` closest to `name`: one it is a prefix of, or one at most `max_edits`
// edits away. Fewer edits win, and a prefix wins over another name as many edits away ("tpu_v6"
// means "tpu_v6e", not "tpu_v2"). Empty when none is that close, or two are equally close. The
// comparison is exact: callers fold letter case first where it does not count.
inline std::string_view closest_name(std::string_view name,
                                     const std::vector<std::string_view>& known,
                                     size_t max_edits = 2) {
  std::string_view best;
  size_t best_score = 0;
  bool tie = false;
  for (std::string_view k : known) {
    if (k == name) return k;
    const bool prefix = k.substr(0, name.size()) == name;
    const size_t edits = edit_distance(name, k);
    if (!prefix && edits > max_edits) continue;
    const size_t score = 2 * edits - (prefix ? 1 : 0);
    if (best.empty() || score < best_score) {
      best = k;
      best_score = score;
      tie = false;
    } else if (score == best_score && k != best) {
      tie = true;
    }
  }
  return tie ? std::string_view() : best;
}

}  // namespace hloroof

#endif  // HLOROOF_EDIT_DISTANCE_H_
