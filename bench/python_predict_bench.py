#!/usr/bin/env python3
"""What the Python module adds to a prediction: `python_predict_bench.py [--runs N] [FILE...]`
(`--no-jax`, `--no-corpus`: one half only; `--layers 2,8,...`: the JAX programs' sizes).

Run from the repository root after a build, with the package on the path and JAX installed:

    PYTHONPATH=build/python JAX_PLATFORMS=cpu $(tools/venv.sh) bench/python_predict_bench.py

Predicts each FILE (default: the three largest modules of the shared corpus, ../shared/corpus
or $HLOROOF_CORPUS) on tpu_v5e with `hloroof.predict(text, "tpu_v5e")` and with the C++ calls
(the text parsed, the device resolved and `predict_step_time`, timed inside the extension),
alternately, and prints the median thread CPU milliseconds of each and their ratio.

Then programs that JAX compiles here on the CPU (`jax.jit(step).lower(...).compile()`, training
steps of MLPs of 2, 8, 32 and 128 layers), predicted with `hloroof.predict(compiled)` (device
picked by the module: the CPU has no spec of its own) against what a C++ user holding the same
XLA executable calls:
  - a Compiled predicted again (the module reads its program once per object): against the
    C++ calls on its text and device (parse, resolve_device, predict_step_time);
  - a Compiled predicted the first time (the module's memory of it cleared before each call):
    against JAX's `compiled.as_text()` and then the C++ call, timed together, since the C++
    user prints the executable's module too (XLA's HloModule::ToString, which as_text() calls);
    `as_text()` alone is JAX's share, which no binding avoids;
  - `hloroof.predict(text, device)` on the program's text, against the C++ call;
  - for the record, the proto route: JAX serializing the module
    (`hlo_modules()[0].as_serialized_hlo_module_proto()`) and hloroof reading those bytes.
Every call includes freeing its prediction. CPU time of the thread: on a machine shared with
other work, wall time also counts the waits for a core. Target: Python within 10% of C++.
"""

import argparse
import os
import pathlib
import statistics
import sys
import time
from typing import Callable, List, Tuple

from jax_mlp import mlp_step

import hloroof
from hloroof import _hloroof, _jax_objects

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
            sys.exit(f"error: predicting text on {device!r} failed")
        cpp.append(ms)
        python.append(python_ms(call))
    return statistics.median(cpp), statistics.median(python)


def row(what: str, cpp: float, python: float) -> None:
    print(f"  {what:<34} C++ {cpp:8.2f} ms  Python {python:8.2f} ms  "
          f"x {python / cpp:5.3f} ({100 * (python / cpp - 1):+5.1f} %)")


def first_call(compiled) -> object:
    """hloroof.predict(compiled) as on a Compiled never seen before."""
    _jax_objects.forget(compiled)
    return hloroof.predict(compiled)


def printed_then_cpp(compiled, device: str) -> float:
    """Thread CPU ms of JAX printing the program and the C++ call predicting its text."""
    start = time.thread_time()
    text = compiled.as_text()
    _, ok = _hloroof._predict_cpu_ms(text, device)
    if not ok:
        sys.exit(f"error: predicting text on {device!r} failed")
    return (time.thread_time() - start) * 1e3


def jax_program(runs: int, layers: int) -> None:
    compiled = mlp_step(layers)
    first = hloroof.predict(compiled)
    device = first.device
    text = compiled.as_text()
    same = hloroof.predict(text, device)
    if (same.step_time_s, len(same.ops)) != (first.step_time_s, len(first.ops)):
        sys.exit("error: predict(compiled) and predict(text) differ")
    print(f"jax.jit(mlp_step), {layers} layers, on the CPU ({len(text.encode()) / 1e6:.2f} MB, "
          f"{len(first.ops):,} ops), predicted on {device}")
    cpp, python = alternate(runs, text, device, lambda: hloroof.predict(compiled))
    row("hloroof.predict(compiled), again", cpp, python)
    cpp, python = [], []
    for _ in range(runs):
        cpp.append(printed_then_cpp(compiled, device))
        python.append(python_ms(lambda: first_call(compiled)))
    row("the same, first call; C++: printed", statistics.median(cpp), statistics.median(python))
    as_text = statistics.median(python_ms(compiled.as_text) for _ in range(runs))
    print(f"  of which compiled.as_text() (JAX)      {as_text:8.2f} ms")
    cpp, python = alternate(runs, text, device, lambda: hloroof.predict(text, device))
    row(f'hloroof.predict(text, "{device}")', cpp, python)
    module = compiled.runtime_executable().hlo_modules()[0]
    proto = module.as_serialized_hlo_module_proto()
    serialize = statistics.median(
        python_ms(module.as_serialized_hlo_module_proto) for _ in range(runs))
    read = statistics.median(python_ms(lambda: hloroof.parse(proto)) for _ in range(runs))
    parse = statistics.median(python_ms(lambda: hloroof.parse(text)) for _ in range(runs))
    print(f"  proto route: serialized (JAX) {serialize:.2f} ms, {len(proto) / 1e6:.2f} MB, read "
          f"{read:.2f} ms (text parsed: {parse:.2f} ms)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="calls of each, in turn")
    parser.add_argument("--no-jax", action="store_true", help="skip the JAX-compiled program")
    parser.add_argument("--no-corpus", action="store_true", help="only the JAX-compiled program")
    parser.add_argument("--layers", type=lambda v: [int(n) for n in v.split(",")],
                        default=[2, 8, 32, 128], help="the JAX programs' layers, e.g. 2,8")
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
    for layers in args.layers:
        jax_program(args.runs, layers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
