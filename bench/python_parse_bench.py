#!/usr/bin/env python3
"""What the Python module adds to a parse: `python_parse_bench.py [FILE]`.

Run from the repository root after a build, with the package on the path:

    PYTHONPATH=build/python /usr/bin/python3 bench/python_parse_bench.py

Parses FILE (default: the largest module of the shared corpus, ../shared/corpus or
$HLOROOF_CORPUS, that parses) with `hloroof.parse(text)` and with the C++ call
(`parse_module(text)`, timed inside the extension), alternately, and prints the median thread CPU
milliseconds of each and the overhead of the Python call over the C++ one. Both include freeing
the module. CPU time of the thread: on a machine shared with other work, wall time also counts
the waits for a core. Target: <= 10% overhead.
"""

import os
import pathlib
import statistics
import sys
import time

import hloroof
from hloroof import _hloroof


def corpus_dir() -> pathlib.Path:
    env = os.environ.get("HLOROOF_CORPUS")
    if env:
        return pathlib.Path(env)
    return pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


def largest_module() -> pathlib.Path:
    files = sorted(corpus_dir().rglob("*.hlo"), key=lambda p: p.stat().st_size, reverse=True)
    for path in files:
        try:
            hloroof.parse(path.read_text(errors="replace"))
            return path
        except ValueError:
            continue
    sys.exit(f"error: no module parses in the corpus at {corpus_dir()}")


def python_parse_ms(text: str) -> float:
    start = time.thread_time()
    module = hloroof.parse(text)
    del module
    return (time.thread_time() - start) * 1e3


def main() -> int:
    path = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else largest_module()
    text = path.read_text(errors="replace")
    module = hloroof.parse(text)
    ops = module.instruction_count
    del module
    cpp, python = [], []
    begin = time.monotonic()
    while len(cpp) < 10 or (time.monotonic() - begin < 4 and len(cpp) < 200):
        ms, ok = _hloroof._parse_cpu_ms(text)
        assert ok
        cpp.append(ms)
        python.append(python_parse_ms(text))
    c, p = statistics.median(cpp), statistics.median(python)
    print(f"{path.name} ({len(text.encode()) / 1e6:.2f} MB, {ops:,} instructions), "
          f"{len(cpp)} runs each")
    print(f"  C++ parse_module(text)   {c:8.2f} ms (median thread CPU time)")
    print(f"  Python hloroof.parse()   {p:8.2f} ms")
    print(f"  overhead                 {100 * (p / c - 1):+8.1f} % (target <= 10 %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
