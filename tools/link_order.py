#!/usr/bin/env python3
"""Writes the link order of the command: the functions its common runs execute, to be laid out
side by side at the front of its code (lld's --symbol-ordering-file; see tools/CMakeLists.txt).

The kernel maps a program's code 64 KiB around each page it first runs. Left in the linker's
default order, the few hundred KiB a run executes lie scattered over the whole 4 MiB of code, so
every run maps most of it: page faults at start, and megabytes counted as resident. Packed
together, they fill a few windows.

usage: tools/link_order.py BINARY [CORPUS] > tools/link_order.txt
       tools/link_order.py --check BINARY    (a test: the file still names the code, and the
                                              binary was laid out by it)

BINARY is the statically linked command (build/tools/hloroof, from the default configuration).
Each run below goes through callgrind (valgrind must be installed); every instruction it executes
names the function holding it, by the binary's symbol table. Functions come out in groups, each
group in the binary's own address order: what `parse` runs first (start-up, reading, parsing,
exit), then what the main job adds (`predict`), then `cost`, `memory` and `advise`. A function
renamed since the file was written is simply not found by the linker: regenerate the file when
the parser or start-up code moves a lot (the README's "Speed and memory" says how to check).
"""

import bisect
import os
import re
import subprocess
import sys
import tempfile

CORPUS_MODULES = [
    "xla/xla.backends.cpu.benchmarks.hlo.gemma2_2b_keras_jax.hlo__0001.hlo",
    "xla/xla.backends.cpu.benchmarks.huge_hlo.gemma4_2b_bf16.hlo__0001.hlo",
]
EXAMPLES = ["examples/tpu_v5e_train_step.hlo", "examples/h100_gemm_step.hlo"]


GROUPS = ["parse", "predict", "others"]


def runs(root, corpus):
    """(group, argv) of the runs to profile; group 0 is laid out first."""
    modules = [os.path.join(corpus, m) for m in CORPUS_MODULES] if corpus else []
    examples = [os.path.join(root, e) for e in EXAMPLES]
    yield 0, ["parse", *modules, *examples]
    yield 1, ["predict", examples[0], "--device", "tpu_v5e:2x2", "--top", "10"]
    yield 1, ["predict", examples[1], "--device", "h100"]
    for command in ("cost", "memory", "advise"):
        for example in examples:
            yield 2, [command, example]


def executed_addresses(binary, argv):
    with tempfile.NamedTemporaryFile(suffix=".callgrind") as out:
        subprocess.run(["valgrind", "--tool=callgrind", "--dump-instr=yes", "--compress-pos=no",
                        f"--callgrind-out-file={out.name}", binary, *argv],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        position = re.compile(rb"^(0x[0-9a-f]+) ")
        with open(out.name, "rb") as f:
            return {int(m.group(1), 16) for line in f if (m := position.match(line))}


def function_symbols(binary):
    """Sorted (address, size, name) of the binary's functions."""
    listing = subprocess.run(["nm", "--defined-only", "-S", binary], capture_output=True,
                             text=True, check=True).stdout
    symbols = []
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in "tTwWi":
            symbols.append((int(fields[0], 16), int(fields[1], 16), fields[3]))
    symbols.sort()
    return symbols


# The C library picks one of several versions of memcpy, strlen... by the processor it starts on
# (GNU indirect functions); under valgrind it picks others than on the machine itself. Where a
# run executed one version, every version of that function is laid out with it.
CPU_VARIANT = re.compile(r"^(__\w+?)_(sse2|ssse3|sse4|avx|avx2|avx512|evex|erms|generic)")


def cpu_variants(symbols, names):
    families = {m.group(1) for name in names if (m := CPU_VARIANT.match(name))}
    return [s for s in symbols
            if (m := CPU_VARIANT.match(s[2])) and m.group(1) in families and s[2] not in names]


# What the C library runs at start on the machine but not under valgrind: the processor's cache
# figures (valgrind reports a processor of its own), the vDSO's symbols (valgrind gives the
# program no vDSO) and the resolvers of the indirect functions (some run before valgrind sees).
START_UP = re.compile(r"^(handle_(amd|intel|zhaoxin)|_dl_lookup_symbol_x|do_lookup_x|_dl_new_object"
                      r"|_dl_setup_hash|_dl_add_to_namespace_list|setup_vdso.*|dl_vdso_vsym"
                      r"|.*_ifunc)$")


def check(binary):
    """Fails when the file no longer names most of the code (functions renamed or moved since it
    was written), or when the binary's `parse` functions are not laid out together."""
    order_file = os.path.join(os.path.dirname(os.path.abspath(__file__)), "link_order.txt")
    groups = {}
    group = None
    for line in open(order_file):
        line = line.strip()
        if line.startswith("# group "):
            group = line.split()[2].rstrip(":")
        elif line and not line.startswith("#"):
            groups.setdefault(group, []).append(line)
    defined = {s[2]: s for s in function_symbols(binary)}
    names = [n for g in groups.values() for n in g]
    found = [n for n in names if n in defined]
    print(f"{len(found)} of the {len(names)} functions named are in {binary}")
    failed = False
    if len(found) < 0.9 * len(names):
        print("fewer than 90%: the code changed since the file was written; regenerate it: "
              "tools/link_order.py build/tools/hloroof ../shared/corpus > tools/link_order.txt")
        failed = True
    parse = sorted(defined[n] for n in groups.get("parse", []) if n in defined)
    # The shortest address range holding 95% of their bytes (a few cannot move: the C runtime's
    # start files, the C library's special sections).
    size = 0.95 * sum(s[1] for s in parse)
    span, held, first = float("inf"), 0, 0
    for last in range(len(parse)):
        held += parse[last][1]
        while held - parse[first][1] >= size:
            held -= parse[first][1]
            first += 1
        if held >= size:
            span = min(span, parse[last][0] + parse[last][1] - parse[first][0])
    print(f"`parse` functions: 95% of them, {size / 1024:.0f} KiB, within {span / 1024:.0f} KiB")
    # The span exceeds the size by what the linker must keep with them (sections holding several
    # functions, alignment); twice the size means the order was not applied.
    if span > 2 * size:
        print("the span is over twice their size: the binary was not laid out by the file")
        failed = True
    return 1 if failed else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2]))
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    binary = sys.argv[1]
    corpus = sys.argv[2] if len(sys.argv) == 3 else None
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    symbols = function_symbols(binary)
    starts = [s[0] for s in symbols]
    aliases = {}
    for s in symbols:
        aliases.setdefault(s[0], []).append(s)
    placed = set()
    groups = {0: [s for s in symbols if START_UP.match(s[2])]}
    placed.update(s[2] for s in groups[0])
    for group, argv in runs(root, corpus):
        for address in executed_addresses(binary, argv):
            i = bisect.bisect_right(starts, address) - 1
            if i < 0 or address >= symbols[i][0] + max(symbols[i][1], 1):
                continue
            for alias in aliases[symbols[i][0]]:
                if alias[2] not in placed:
                    placed.add(alias[2])
                    groups.setdefault(group, []).append(alias)
    print("# The command's functions in the order lld lays them out (--symbol-ordering-file).")
    print("# Written by tools/link_order.py; regenerate it rather than edit it.")
    for group in sorted(groups):
        added = cpu_variants(symbols, {s[2] for s in groups[group]})
        groups[group].extend(s for s in added if s[2] not in placed)
        placed.update(s[2] for s in added)
        size = sum(s[1] for s in groups[group])
        print(f"# group {GROUPS[group]}: {len(groups[group])} functions, {size / 1024:.0f} KiB")
        for address, size, name in sorted(groups[group]):
            print(name)


if __name__ == "__main__":
    main()
