#!/usr/bin/env python3
"""Budgeted search against the full grid: compiles needed to find the grid's best.

    PYTHONPATH=build/python $(tools/venv.sh) bench/search_bench.py [--cache DIR] [--seeds N]

The grid: examples/sweep/llama.py at small sizes (2 layers, width 128: about ten seconds of XLA
a compile here) over tensor 1, 2, 3, 4, 6, 8 x batch_per_device 1, 2, 4, 8, 16, 32 x remat
full, dots, none x targets tpu_v5e:2x2, tpu_v6e:2x2: 216 configurations, of which the 108 with
tensor 3, 6 or 8 cannot shard over 4 devices (refused before compiling) and 108 compile. The
whole grid is compiled once into a store
(--cache keeps it between runs), its best tokens_per_s_per_chip among those that fit found;
then hs.search runs with each sampler and seed against the same store (its "compiles" are
configurations evaluated, each read from the store here: what a cold store would compile) and
stops once its best is within 5% of the grid's; the compiles it took, and those to reach the
grid's best itself, are printed.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(HERE), "examples", "sweep")
TINY = dict(layers=2, width=128, heads=4, kv_heads=2, ffn=256, vocab=1024, seq=128)
OBJECTIVE = "tokens_per_s_per_chip"


def space():
    import hloroof.sweep as hs
    grid = hs.grid(tensor=[1, 2, 3, 4, 6, 8], batch_per_device=[1, 2, 4, 8, 16, 32],
                   remat=["full", "dots", "none"])
    return [dict(TINY, **c) for c in grid]


TARGETS = ["tpu_v5e:2x2", "tpu_v6e:2x2"]


def needed(found, best, within):
    """Evaluations until the best so far reached `within` of `best` (None: never)."""
    for k, value in enumerate(found.history, 1):
        if value is not None and value >= best * (1 - within):
            return k
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", help="the store (default: a temporary one)")
    ap.add_argument("--seeds", type=int, default=5, help="searches a sampler")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    import hloroof.sweep as hs
    temporary = None
    cache = a.cache
    if cache is None:
        temporary = tempfile.TemporaryDirectory(prefix="hloroof-search-bench-")
        cache = temporary.name
    configs = space()
    start = time.perf_counter()
    engine = hs.Local(workers=a.workers)
    full = hs.run("llama:build", configs, TARGETS, engine=engine, progress=False,
                  compile=hs.Compile(cache=cache, path=[EXAMPLES], timeout_s=900))
    wall = time.perf_counter() - start
    rows = full.rows
    refused = sum(1 for r in rows if (r["error"] or "").startswith("refused before compiling"))
    fitting = [r for r in rows if not r["error"] and r["fits"]]
    best = max(r[OBJECTIVE] for r in fitting)
    top = max(fitting, key=lambda r: r[OBJECTIVE])
    print(f"full grid: {len(rows)} configurations, {refused} refused before compiling, "
          f"{len(rows) - refused} compiled ({full.compiled} now, {wall:.0f} s), "
          f"{len(fitting)} fit")
    chosen = " ".join(f"{k}={top[k]}" for k in ("tensor", "batch_per_device", "remat"))
    print(f"  best {OBJECTIVE} {best:,.0f}: {chosen} on {top['target']}")
    samplers = ["random"]
    try:
        import optuna  # noqa: F401
        samplers.insert(0, "optuna")
    except ImportError:
        print("optuna: not installed (pip install 'hloroof[search]'); random order only")
    for sampler in samplers:
        within5, exact = [], []
        for seed in range(a.seeds):
            found = hs.search("llama:build", configs, TARGETS, budget=len(rows), engine=engine,
                              compile=hs.Compile(cache=cache, path=[EXAMPLES]), sampler=sampler,
                              seed=seed, batch=a.workers, stop=lambda r: r[OBJECTIVE] >= best)
            within5.append(needed(found, best, 0.05))
            exact.append(needed(found, best, 0.0))
        print(f"{sampler:>6}: compiles to within 5% of the best, {a.seeds} seeds: "
              f"{' '.join(str(n) for n in within5)} (median {statistics.median(within5):g} of "
              f"{len(rows) - refused})")
        print(f"        to the best itself: {' '.join(str(n) for n in exact)} "
              f"(median {statistics.median(exact):g})")
    if temporary is not None:
        temporary.cleanup()


if __name__ == "__main__":
    sys.exit(main())
