#!/usr/bin/env python3
"""bench/ledger.py's check: the committed baseline passes against itself, and a deliberate
regression of a whole-program set (its median error, its bias, one program across 25%) fails
it, through the command as CI runs it (--results on a perturbed copy of the baseline)."""
import copy
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
LEDGER = os.path.join(ROOT, "bench", "ledger.py")
BASELINE = os.path.join(ROOT, "bench", "ledger_baseline.json")
sys.path.insert(0, os.path.join(ROOT, "bench"))
import ledger  # noqa: E402


def program_set(name, ratios):
    items = [(f"case{i}", r) for i, r in enumerate(ratios)]
    return ledger.stats(name, "program", True, items)


def test_figures_of_a_set():
    # Ratios 0.7, 0.9, 1.0, 1.1, 1.3: errors 0.3, 0.1, 0, 0.1, 0.3 -> median 0.1, 3 within 25%;
    # median ratio 1.0, not biased.
    s = program_set("s", [0.7, 0.9, 1.0, 1.1, 1.3])
    assert (s["n"], s["within_25"], s["biased"]) == (5, 3, False)
    assert abs(s["median_error"] - 0.1) < 1e-12 and s["median_ratio"] == 1.0
    # Every ratio 0.9: median 0.9, outside 0.95-1.05: biased.
    assert program_set("t", [0.9] * 3)["biased"]


def test_busy_programs_apart():
    # Idle shares 0, 0.05, 0.10, 0.5 and none: the first three (at most 10% idle) are busy,
    # ratios 0.9, 1.0, 1.2 -> median 1.0; the one half idle (0.6) and the one with no profile
    # (0.7) are not. The set's own median stays that of all five, 0.9.
    s = ledger.stats("u", "program", True, [("a", 0.9, 0.0), ("b", 1.0, 0.05), ("c", 1.2, 0.10),
                                            ("d", 0.6, 0.5), ("e", 0.7, None)])
    assert (s["n"], s["n_busy"], s["busy_ratio"], s["median_ratio"]) == (5, 3, 1.0, 0.9)
    assert s["idle"] == {"a": 0.0, "b": 0.05, "c": 0.10, "d": 0.5}
    assert s["items"] == {"a": 0.9, "b": 1.0, "c": 1.2, "d": 0.6, "e": 0.7}
    # A set without idle figures has no busy figure, and the table leaves the column empty.
    plain = program_set("v", [1.0])
    assert "busy_ratio" not in plain
    lines = ledger.table({"sets": [s, plain]}).splitlines()
    assert lines[1].endswith("1.00 (3)") and lines[2].endswith("1.00")


def test_each_kind_of_regression_is_found():
    base = {"sets": [program_set("s", [0.9, 0.95, 1.0, 1.02, 1.2])]}
    assert ledger.check(copy.deepcopy(base), base) == []
    # Every program predicted 4% longer: the bias moves from 1.00 to 1.04, by more than 0.03
    # (and the median error from 5.0% to 6.1%: errors 0.064, 0.012, 0.04, 0.061, 0.248); case4
    # at 1.2 x 1.04 = 1.248 stays within 25%.
    slower = {"sets": [program_set("s", [r * 1.04 for r in (0.9, 0.95, 1.0, 1.02, 1.2)])]}
    assert ledger.check(slower, base) == [
        "s: median error 6.1%, baseline 5.0% (more than 1 point worse)",
        "s: bias 1.040, baseline 1.000 (moved more than 0.03)"]
    # The median error from 5% to 8% (two programs moved out, bias unchanged).
    wider = {"sets": [program_set("s", [0.9, 0.92, 1.0, 1.08, 1.2])]}
    problems = ledger.check(wider, base)
    assert len(problems) == 1 and "median error 8.0%, baseline 5.0%" in problems[0]
    # One program across 25%: case4 1.2 -> 1.3.
    crossed = {"sets": [program_set("s", [0.9, 0.95, 1.0, 1.02, 1.3])]}
    problems = ledger.check(crossed, base)
    assert problems == ["s: case4 crossed 25%: x1.30 (baseline x1.20)"]
    # Single ops and sets not run are not judged.
    ops = {"sets": [ledger.stats("o", "op", True, [("a", 1.0)])]}
    assert ledger.check({"sets": [ledger.stats("o", "op", True, [("a", 2.0)])]}, ops) == []
    assert ledger.check({"sets": []}, base) == []


def run_check(result):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(result, f)
    try:
        return subprocess.run([sys.executable, LEDGER, "--results", f.name, "--check", BASELINE],
                              capture_output=True, text=True)
    finally:
        os.unlink(f.name)


def test_the_committed_baseline_and_a_perturbed_copy():
    with open(BASELINE) as f:
        baseline = json.load(f)
    programs = [s for s in baseline["sets"] if s["kind"] == "program" and s["n"]]
    assert programs, "the baseline holds whole-program sets"
    ok = run_check(baseline)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "no regression" in ok.stdout
    assert all(len(line) <= 100 for line in ok.stdout.splitlines())
    # Every whole program predicted at half its time: each set's bias moves by half its median
    # (the lowest, 0.10 of the built-in a100 across nodes, by 0.05 > 0.03), and the run fails
    # naming every set.
    perturbed = copy.deepcopy(baseline)
    for s in perturbed["sets"]:
        if s["kind"] == "program" and s["n"]:
            items = [(i, r * 0.5) for i, r in s["items"].items()]
            s.update(ledger.stats(s["set"], s["kind"], s["fast"], items))
    bad = run_check(perturbed)
    assert bad.returncode == 1, bad.stdout
    assert sum("bias" in line for line in bad.stdout.splitlines()
               if line.startswith("regression:")) == len(programs)


def test_the_docs_show_the_baseline():
    # docs/accuracy.md quotes the ledger's table of the committed baseline, as the command
    # prints it (`bench/ledger.py --results bench/ledger_baseline.json`).
    with open(BASELINE) as f:
        baseline = json.load(f)
    with open(os.path.join(ROOT, "docs", "accuracy.md")) as f:
        doc = f.read()
    assert "```\n" + ledger.table(baseline) + "\n```" in doc


if __name__ == "__main__":
    failed = 0
    for name, fn in sorted(globals().items()):
        if name.startswith("test_") and callable(fn):
            try:
                fn()
                print(f"ok   {name}")
            except AssertionError as e:
                failed += 1
                print(f"FAIL {name}: {e}")
    sys.exit(1 if failed else 0)
