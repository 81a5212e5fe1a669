#!/usr/bin/env python3
"""bench/opfamilies.py's k-fold over sizes: a size is never on both sides of a fold, and the
size correction it fits recovers a known trend."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import opfamilies  # noqa: E402


def row(family, nbytes, measured_s, expected_s):
    return {"family": family, "measured_s": measured_s, "expected_s": expected_s,
            "ops": [{"bytes_accessed": nbytes, "predicted_occurrences": 1}]}


def test_a_size_stays_in_one_fold():
    # Two dtypes of each size (2^20 and 2^20 + 1 bytes share a power-of-two bin), six sizes.
    rows = [row("sort", 2 ** p + extra, 1e-4, 1e-4) for p in range(20, 26) for extra in (0, 1)]
    rows.append(row("fft 3-D", 2 ** 20, 1e-4, 1e-4))
    folds = opfamilies.size_folds(rows, 5)
    by_bin = {}
    for r, f in zip(rows, folds):
        by_bin.setdefault((r["family"], int(math.log2(opfamilies.step_bytes(r)))), set()).add(f)
    assert all(len(f) == 1 for f in by_bin.values())
    # Six sizes dealt round-robin over five folds: the sixth shares fold 0 with the first.
    assert sorted(set(folds[:12])) == [0, 1, 2, 3, 4]
    assert folds[0] == folds[10] == 0


def test_the_correction_recovers_a_trend():
    # measured = expected x 2^(0.5 + 0.1 log2 B): ln(measured/expected) = ln2 (0.5 + 0.1 x).
    rows = [row("scatter", 2 ** x, 1e-6 * 2 ** (0.5 + 0.1 * x), 1e-6) for x in range(10, 20)]
    a, b = opfamilies.fit_correction(rows)["scatter"]
    assert abs(a - 0.5 * math.log(2)) < 1e-9 and abs(b - 0.1 * math.log(2)) < 1e-9
    assert all(abs(opfamilies.corrected(r, {"scatter": (a, b)}) / r["measured_s"] - 1) < 1e-9
               for r in rows)


if __name__ == "__main__":
    test_a_size_stays_in_one_fold()
    test_the_correction_recovers_a_trend()
    print("ok")
