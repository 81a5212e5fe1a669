#!/usr/bin/env python3
"""Derives hloroof's compact measured tables from openxla/xla's published GPU tables.

Usage:
  tools/measured_tables.py --commit SHA --out data/measured \
      default_matmul_perf_table.txtpb default_collective_perf_table.txtpb \
      hlo_op_profiles_data.h

The upstream files live in openxla/xla under xla/service/gpu/model/ (Apache-2.0). This script
reads them as text (no protobuf library: the text format is regular enough), keeps the figures
hloroof uses and writes three whitespace-separated tables, each headed by its provenance:

  gemm.tsv         device dtypes b m n k flop_per_s
  collectives.tsv  device op groups group_size bytes bytes_per_s
  op_profiles.tsv  device opcode element_type clock_cycles

Figures are copied as measured; nothing is fitted here (the library fits at load time).
Python 3 standard library only.
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # tools/
from output_file import write_output  # noqa: E402

# Upstream device keys -> hloroof device names. Keys not listed (e.g. AMD gfx950) are skipped.
GEMM_DEVICES = {"sm_90": "h100", "sm_100_B200": "b200"}
COLLECTIVE_DEVICES = {"sm_90": "h100", "sm_100_B200": "b200", "sm_100_GB200": "gb200",
                      "sm_103": "gb300"}
PROFILE_DEVICES = {"sm_90": "h100", "sm_100": "b200", "sm_103": "gb300"}

ELEMENT_BYTES = {"F32": 4, "BF16": 2, "F16": 2, "F64": 8, "S32": 4, "S8": 1, "U8": 1}


def header(kind, source_file, commit, columns):
    return "\n".join([
        f"# hloroof measured table: {kind}",
        f"# Derived by tools/measured_tables.py from openxla/xla {source_file}",
        f"# (https://github.com/openxla/xla/blob/{commit}/xla/service/gpu/model/{source_file}),",
        f"# commit {commit}. Copyright The OpenXLA Authors, licensed under the Apache License,",
        "# Version 2.0 (LICENSE in this folder). Figures only; no upstream code or prose.",
        f"# columns: {columns}",
    ]) + "\n"


def top_level_blocks(text):
    """Yields (device key, body) for each `entries { key: "..." value { ... } }` at depth 0."""
    depth = 0
    key = None
    start = None
    for m in re.finditer(r'[{}]|key:\s*"([^"]*)"', text):
        tok = m.group(0)
        if tok == "{":
            depth += 1
            if depth == 2 and key is not None and start is None:
                start = m.end()
        elif tok == "}":
            depth -= 1
            if depth == 1 and start is not None:
                yield key, text[start:m.start()]
                key, start = None, None
        elif depth == 1:
            key = m.group(1)


def entry_blocks(body):
    """Yields the text of each depth-1 `entries { ... }` inside a device block body."""
    depth = 0
    start = None
    for m in re.finditer(r"entries\s*\{|[{}]", body):
        tok = m.group(0)
        if tok.startswith("entries"):
            if depth == 0:
                start = m.end()
            depth += 1
        elif tok == "{":
            depth += 1
        else:
            depth -= 1
            if depth == 0 and start is not None:
                yield body[start:m.start()]
                start = None


def strip_comments(text):
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def gemm_rows(text):
    rows = []
    for key, body in top_level_blocks(strip_comments(text)):
        device = GEMM_DEVICES.get(key)
        if device is None:
            continue
        for e in entry_blocks(body):
            dims = {d: int(re.search(rf"\b{d}:\s*(\d+)", e).group(1)) for d in "bmnk"}
            for dtypes, rate in re.findall(r'flops\s*\{\s*key:\s*"([^"]+)"\s*value:\s*(\d+)', e):
                rows.append((device, dtypes, dims["b"], dims["m"], dims["n"], dims["k"],
                             int(rate)))
    return sorted(rows)


def collective_rows(text):
    rows = []
    for key, body in top_level_blocks(strip_comments(text)):
        device = COLLECTIVE_DEVICES.get(key)
        if device is None:
            continue
        for e in entry_blocks(body):
            op = re.search(r'opcode:\s*"([^"]+)"', e).group(1)
            element = re.search(r"element_type:\s*(\w+)", e).group(1)
            elements = 1
            for d in re.findall(r"^\s*dimensions:\s*(\d+)", e.split("layout")[0], re.M):
                elements *= int(d)
            size = elements * ELEMENT_BYTES[element]
            rate = re.search(r"network_throughput_bytes_per_sec:\s*(\d+)", e)
            if rate is None:  # an entry that was never measured
                continue
            rate = int(rate.group(1))
            if op == "collective-permute":
                pairs = re.findall(r"source_target_pairs\s*\{([^}]*)\}", e)
                groups, group_size = 1, len(pairs)
            else:
                groups = int(re.search(r"num_replica_groups:\s*(\d+)", e).group(1))
                group_size = int(re.search(r"num_devices_per_group:\s*(\d+)", e).group(1))
            rows.append((device, op, groups, group_size, size, rate))
    return sorted(rows)


def profile_rows(text):
    m = re.search(r'R"pb\((.*)\)pb"', text, re.S)
    if m is None:
        sys.exit("op profiles: no R\"pb(...)pb\" literal found")
    rows = []
    for key, body in top_level_blocks(strip_comments(m.group(1))):
        device = PROFILE_DEVICES.get(key)
        if device is None:
            continue
        for e in entry_blocks(body):
            op = re.search(r'opcode:\s*"([^"]+)"', e).group(1)
            element = re.search(r"element_type:\s*(\w+)", e).group(1)
            cycles = int(re.search(r"clock_cycles:\s*(\d+)", e).group(1))
            rows.append((device, op, element.lower(), cycles))
    return sorted(rows)


def write(path, head, rows):
    write_output(path, head + "".join(" ".join(str(x) for x in r) + "\n" for r in rows))
    print(f"{path}: {len(rows)} rows")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--commit", required=True, help="openxla/xla commit the files come from")
    p.add_argument("--out", required=True, help="output folder, e.g. data/measured")
    p.add_argument("matmul", help="default_matmul_perf_table.txtpb")
    p.add_argument("collectives", help="default_collective_perf_table.txtpb")
    p.add_argument("profiles", help="hlo_op_profiles_data.h")
    a = p.parse_args()
    if not re.fullmatch(r"[0-9a-f]{40}", a.commit):
        sys.exit("--commit: expected 40 hex digits")
    os.makedirs(a.out, exist_ok=True)

    def read(path):
        with open(path, encoding="utf-8") as f:
            return f.read()

    write(os.path.join(a.out, "gemm.tsv"),
          header("GEMM throughput, one dot(lhs[b,m,k], rhs[b,k,n]) per row",
                 "default_matmul_perf_table.txtpb", a.commit,
                 "device dtypes b m n k flop_per_s (2 b m n k / median kernel time)"),
          gemm_rows(read(a.matmul)))
    write(os.path.join(a.out, "collectives.tsv"),
          header("collective throughput inside one 8-GPU NVLink node",
                 "default_collective_perf_table.txtpb", a.commit,
                 "device op groups group_size bytes bytes_per_s (bytes / median time; "
                 "collective-permute: group_size = source-target pairs)"),
          collective_rows(read(a.collectives)))
    write(os.path.join(a.out, "op_profiles.tsv"),
          header("elementwise op latency, clock cycles of one op in a dependent chain",
                 "hlo_op_profiles_data.h", a.commit, "device opcode element_type clock_cycles"),
          profile_rows(read(a.profiles)))


if __name__ == "__main__":
    main()
