#!/usr/bin/env python3
"""Derives hloroof's TPU measured table from the published TPU7x (Ironwood) microbenchmarks.

Usage:
  tools/tpu_tables.py ../shared/measured/tpu/ironwood.md > data/measured/tpu7x.tsv

The input copies three tables of AI-Hypercomputer/accelerator-microbenchmarks (Apache-2.0):
square bf16 GEMMs, HBM copies and ICI all-gathers, each under a `# source: FILE @ COMMIT` line.
This script keeps the figures, converts them to base units and writes one whitespace-separated
table headed by its provenance:

  table slice group size rate

  gemm        size = m = n = k        rate = 2 m^3 / time, FLOP/s per TensorCore (one JAX device)
  hbm         size = the copied array's bytes
                                      rate = 2 x size / time (read + write), B/s per TensorCore
  all-gather  size = one device's input shard, bytes (f32 elements x 4)
              group = devices in one replica group (output rows / input rows)
                                      rate = 2 (group - 1) size / time, B/s per chip: the
                                      benchmark counts both TensorCores of a chip, each in a
                                      group of its own, gathering at once

What the benchmark code counts (Ironwood/src/benchmark_hbm.py, benchmark_gemm.py,
benchmark_collectives.py): times are the median device time of the marked op from a profile
trace; the GEMM rate is 2 m n k over it; the HBM rate counts the array twice; the all-gather
"achieved bandwidth" is input bytes x (ranks - 1) x 2 over it for a group of even device ids.
Nothing is fitted here (the library fits at load time). Python 3 standard library only.
"""

import re
import sys

TABLES = {  # heading prefix -> table name
    "## GEMM": "gemm",
    "## HBM": "hbm",
    "## ICI all-gather": "all-gather",
}
REPO = "https://github.com/AI-Hypercomputer/accelerator-microbenchmarks/blob"


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def rows_of(text):
    """Yields (table, source, cells) for every data row of the three tables."""
    table = source = None
    for line in text.splitlines():
        for prefix, name in TABLES.items():
            if line.startswith(prefix):
                table, source = name, None
        m = re.match(r"# source: (\S+) @ ([0-9a-f]{40})", line)
        if m:
            source = (m.group(1), m.group(2))
        if table and line.startswith("|") and re.match(r"\|\s*[0-9]", line):
            yield table, source, cells(line)


def first_dim(shape):
    m = re.match(r"f32\[(\d+),", shape)
    if not m:
        raise ValueError(f"unexpected shape {shape!r}")
    return int(m.group(1))


def convert(table, c):
    if table == "gemm":
        m = int(c[0])
        return "2x2x1", 1, m, float(c[1]) * 1e12
    if table == "hbm":
        return "2x2x1", 1, int(c[0]), float(c[1]) * 1e9  # the per-TensorCore column
    slice_, elements, rate = c[0], int(c[1]), float(c[2]) * 1e9
    group = first_dim(c[5]) // first_dim(c[4])
    # Check the benchmark's own count: transferred GB = 4 elements (group - 1) 2 / 1e9.
    transferred = float(c[3]) * 1e9
    if abs(transferred - 4 * elements * (group - 1) * 2) > 1:
        raise ValueError(f"transferred bytes {transferred} do not match row {c}")
    return slice_, group, 4 * elements, rate


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    with open(argv[1], encoding="utf-8") as f:
        text = f.read()
    out = [
        "# hloroof measured table: TPU7x (Ironwood) microbenchmarks, per TensorCore unless said",
        "# Derived by tools/tpu_tables.py from AI-Hypercomputer/accelerator-microbenchmarks",
    ]
    sources = []
    body = []
    for table, source, c in rows_of(text):
        if source and source not in sources:
            sources.append(source)
        slice_, group, size, rate = convert(table, c)
        body.append(f"{table} {slice_} {group} {size} {rate:.10g}")
    for path, commit in sources:
        out.append(f"# ({REPO}/{commit}/{path})")
    out += [
        "# Copyright the accelerator-microbenchmarks authors, licensed under the Apache License,",
        "# Version 2.0 (LICENSE in this folder). Figures only; no upstream code or prose.",
        "# columns: table slice group size rate (tools/tpu_tables.py says what each counts)",
    ]
    sys.stdout.write("\n".join(out + body) + "\n")


if __name__ == "__main__":
    main(sys.argv)
