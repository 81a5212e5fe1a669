#!/usr/bin/env python3
"""What the Python module adds to a prediction: `python_predict_bench.py [--runs N] [FILE...]`
(`--no-jax`, `--no-corpus`: one half only).

Run from the repository root after a build, with the package on the path and JAX installed:

    PYTHONPATH=build/python JAX_PLATFORMS=cpu /work/venv/bin/python bench/python_predict_bench.py

Predicts each FILE (default: the three largest modules of the shared corpus, ../shared/corpus
or $HLOROOF_CORPUS) on tpu_v5e with `hloroof.predict(text, "tpu_v5e")` and with the C++ call
(`predict_step_time(text, "tpu_v5e")`, timed inside the extension), alternately, and prints the
median thread CPU milliseconds of each and their ratio. Then the same for one program that JAX
compiles here on the CPU (`jax.jit(step).lower(...).compile()`, a training step of a small MLP):
`hloroof.predict(compiled)` (device picked by the module: the CPU has no spec of its own), which
includes JAX's `compiled.as_text()` (timed alone too; and again with the text printed once
and handed back by as_text(): hloroof's own work on a Compiled), beside the C++ call on that
text and device. Every call includes freeing its prediction. CPU time of the thread: on a
machine shared with other work, wall time also counts the waits for a core. Target: Python
within 10% of C++.
"""

import argparse
import os
import pathlib
import statistics
import sys
import time
from typing import Callable, List, Tuple

import hloroof
from hloroof import _hloroof

DEVICE = "tpu_v5e"


def corpus_dir() -> pathlib.Path:
    env = os.environ.get("HLOROOF_CORPUS")
    if env:
        return pathlib.Path(env)
    return pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


def largest_modules(count: int) -> List[pathlib.Path]:
    files = sorted(corpus_dir().rglob("*.hlo"), key=lambda p: p.stat().st_size, reverse=True)
    return files[:count]


def python_ms(call: Callable[[], object]) -> float:
    start = time.thread_time()
    result = call()
    del result
    return (time.thread_time() - start) * 1e3


def alternate(runs: int, text: str, device: str,
              call: Callable[[], object]) -> Tuple[float, float]:
    """Median thread CPU ms of the C++ call on (text, device) and of `call`, run in turn."""
    cpp, python = [], []
    for _ in range(runs):
        ms, ok = _hloroof._predict_cpu_ms(text, device)
        if not ok:
            sys.exit(f"error: predict_step_time(text, {device!r}) failed")
        cpp.append(ms)
        python.append(python_ms(call))
    return statistics.median(cpp), statistics.median(python)


def row(what: str, cpp: float, python: float) -> None:
    print(f"  {what:<34} C++ {cpp:8.2f} ms  Python {python:8.2f} ms  "
          f"x {python / cpp:5.3f} ({100 * (python / cpp - 1):+5.1f} %)")


def jax_compiled():
    """A compiled training step (an 8-layer MLP with layer norms, SGD update) on the CPU."""
    import jax
    import jax.numpy as jnp

    def loss(params, x, y):
        for w1, w2 in params:
            h = jax.nn.gelu(x @ w1)
            x = x + h @ w2
            x = (x - x.mean(-1, keepdims=True)) / jnp.sqrt(x.var(-1, keepdims=True) + 1e-6)
        return jnp.mean((x - y) ** 2)

    def step(params, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        return value, jax.tree_util.tree_map(lambda p, g: p - 1e-3 * g, params, grads)

    d, f, b = 256, 1024, 64
    params = [(jax.ShapeDtypeStruct((d, f), jnp.float32), jax.ShapeDtypeStruct((f, d),
                                                                               jnp.float32))
              for _ in range(8)]
    x = jax.ShapeDtypeStruct((b, d), jnp.float32)
    return jax.jit(step).lower(params, x, x).compile()


class PrintedOnce:
    """A JAX Compiled whose as_text() answers the text printed once: hloroof's own work on it."""

    def __init__(self, compiled, text: str):
        self._compiled, self._text = compiled, text

    def as_text(self) -> str:
        return self._text

    def __getattr__(self, name: str):
        return getattr(self._compiled, name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="calls of each, in turn")
    parser.add_argument("--no-jax", action="store_true", help="skip the JAX-compiled program")
    parser.add_argument("--no-corpus", action="store_true", help="only the JAX-compiled program")
    parser.add_argument("files", nargs="*", type=pathlib.Path)
    args = parser.parse_args()
    files = [] if args.no_corpus else args.files or largest_modules(3)
    print(f"median thread CPU time of {args.runs} calls each, in turn; target: Python x <= 1.10")
    for path in files:
        text = path.read_text(errors="replace")
        ops = len(hloroof.predict(text, DEVICE).ops)
        print(path.name)
        print(f"  {len(text.encode()) / 1e6:.2f} MB, {ops:,} ops, on {DEVICE}")
        cpp, python = alternate(args.runs, text, DEVICE, lambda: hloroof.predict(text, DEVICE))
        row(f'hloroof.predict(text, "{DEVICE}")', cpp, python)
    if args.no_jax:
        return 0
    compiled = jax_compiled()
    first = hloroof.predict(compiled)
    device = first.device
    text = compiled.as_text()
    print(f"jax.jit(mlp_step) on the CPU ({len(text.encode()) / 1e6:.2f} MB, "
          f"{len(first.ops):,} ops), predicted on {device}")
    as_text = statistics.median(python_ms(compiled.as_text) for _ in range(args.runs))
    cpp, python = alternate(args.runs, text, device, lambda: hloroof.predict(compiled))
    row("hloroof.predict(compiled)", cpp, python)
    print(f"  of which compiled.as_text() (JAX)  {as_text:8.2f} ms")
    printed = PrintedOnce(compiled, text)
    cpp, python = alternate(args.runs, text, device, lambda: hloroof.predict(printed))
    row("the same, as_text() printed once", cpp, python)
    cpp, python = alternate(args.runs, text, device, lambda: hloroof.predict(text, device))
    row(f'hloroof.predict(text, "{device}")', cpp, python)
    return 0


if __name__ == "__main__":
    sys.exit(main())
