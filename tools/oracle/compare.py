#!/usr/bin/env python3
"""hloroof's memory and cost figures beside XLA's own, on the corpus of tests/data/xla.

For every <target>/<program> that generate.py wrote, runs `hloroof memory --json --top 0` and
`hloroof cost --json` on module.hlo and sets their figures beside memory_analysis.json,
cost_analysis.json and buffer_assignment.txt. Prints the agreement table of the README
("Against XLA's own compiler"), or with --check FILE says whether FILE holds the current one.
Only the standard library: the tests (tests/oracle) import it without JAX.
  tools/oracle/compare.py --cli build/tools/hloroof [--data tests/data/xla] [--check README.md]
"""

import argparse
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "xla"

# The figures compared, in table order: (name, XLA's source, how they must agree). Every
# difference allowed here is explained in tests/data/xla/README.md.
MEMORY_FIGURES = [
    ("argument bytes", "argument_size_in_bytes", "argument_bytes"),
    ("output bytes", "output_size_in_bytes", "output_bytes"),
    ("alias bytes", "alias_size_in_bytes", "alias_bytes"),
    ("temp bytes", "temp_size_in_bytes", "temp_bytes"),
]
COST_FIGURES = [
    ("FLOPs", "flops", "xla_flops"),
    ("transcendentals", "transcendentals", "xla_transcendentals"),
    ("bytes accessed", "bytes accessed", "xla_bytes_accessed"),
]
BEGIN = "<!-- oracle table: tools/oracle/compare.py -->"
END = "<!-- end of oracle table -->"


def cases(data=DATA):
    """Every (target, program, directory) of the corpus, in a fixed order."""
    found = []
    for module in sorted(data.glob("*/*/module.hlo")):
        found.append((module.parent.parent.name, module.parent.name, module.parent))
    return found


def run_json(cli, *args):
    done = subprocess.run([str(cli), *map(str, args), "--json"], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"hloroof {' '.join(map(str, args))}: {done.stderr.strip()}")
    return json.loads(done.stdout)


# allocation 3: size 4, color 2, page 0, parameter 1, shape |f32[4]| at ShapeIndex {}:
ALLOCATION = re.compile(r"^allocation (\d+): size (\d+),(.*):$")
#  value: <38 fusion.7 @0> (size=8192,offset=0): f32[16,128]{1,0:T(8,128)}
VALUE = re.compile(r"^ value: <\d+ (\S+)( \(phi\))? @\d+> \(size=(\d+),offset=(\d+)\): (.*)$")


def buffer_assignment(text):
    """XLA's allocations: [{index, bytes, color, parameter, output, temp, constant, values}],
    each value {name, bytes, offset, phi}. Only the allocation list is read."""
    allocations = []
    for line in text.splitlines():
        if line.startswith("allocation "):
            match = ALLOCATION.match(line)
            if not match:
                raise ValueError(f"unexpected allocation line: {line}")
            rest = match.group(3)
            color = re.search(r"\bcolor (\d+)", rest)
            parameter = re.search(r"\bparameter (\d+)", rest)
            allocations.append({
                "index": int(match.group(1)),
                "bytes": int(match.group(2)),
                "color": int(color.group(1)) if color else 0,
                "parameter": int(parameter.group(1)) if parameter else None,
                "output": "maybe-live-out" in rest,
                "temp": "preallocated-temp" in rest,
                "thread_local": "thread-local" in rest,
                "constant": "constant" in rest,
                "values": [],
            })
        elif line.startswith(" value: ") and allocations:
            match = VALUE.match(line)
            if not match:
                raise ValueError(f"unexpected value line: {line}")
            allocations[-1]["values"].append({
                "name": match.group(1), "phi": bool(match.group(2)),
                "bytes": int(match.group(3)), "offset": int(match.group(4)),
                "shape": match.group(5)})
        elif line and not line.startswith((" ", "BufferAssignment")):
            break  # the allocation list ends where the per-value summaries begin
    return allocations


def compare(cli, directory):
    """One case: {figure: (XLA's, hloroof's)} plus per-buffer and parameter details."""
    meta = json.loads((directory / "meta.json").read_text())
    module = directory / "module.hlo"
    device = meta["hloroof_device"]
    memory_args = [module, "--top", "0"] + ([] if device == "cpu" else ["--device", device])
    memory = run_json(cli, "memory", *memory_args)
    cost = run_json(cli, "cost", module)["totals"]
    xla_memory = json.loads((directory / "memory_analysis.json").read_text())
    xla_cost = json.loads((directory / "cost_analysis.json").read_text())
    figures = {}
    for name, xla_key, ours in MEMORY_FIGURES:
        figures[name] = (xla_memory[xla_key], memory[ours])
    # A GPU compiled without one gets no cost analysis from XLA: nothing to hold its figures
    # against (None).
    for name, xla_key, ours in COST_FIGURES:
        figures[name] = (xla_cost.get(xla_key, 0.0) if xla_cost else None, cost[ours])

    # Per buffer: every array value XLA assigned (not a loop's phi, not a tuple's pointer
    # table) beside the hloroof buffer of the same name and leaf.
    allocations = buffer_assignment((directory / "buffer_assignment.txt").read_text())
    ours = {b["name"]: b for b in memory["buffers"]}
    buffers = []
    for allocation in allocations:
        for value in allocation["values"]:
            if value["phi"] or value["shape"].startswith("("):
                continue
            mine = ours.get(value["name"]) or ours.get(value["name"].removesuffix("{}"))
            buffers.append((value["name"], value["bytes"], mine["padded_bytes"] if mine else None))
    # Parameter allocations by parameter number.
    parameters = {}
    for allocation in allocations:
        if allocation["parameter"] is not None and allocation["color"] == 0:
            parameters.setdefault(allocation["parameter"], [0, 0])[0] += allocation["bytes"]
    for allocation in memory["allocations"]:
        if allocation["kind"] == "parameter" and allocation["memory_space"] == 0:
            parameters.setdefault(allocation["parameter_number"], [0, 0])[1] += allocation["bytes"]
    # Values XLA placed in its temp allocations (each at an aligned offset of its own).
    temp_values = sum(len(a["values"]) for a in allocations if a["temp"])
    return {"meta": meta, "figures": figures, "buffers": buffers,
            "parameters": {k: tuple(v) for k, v in sorted(parameters.items())},
            "temp values": temp_values}


def agreement(results):
    """Rows of the README table: per target, how many programs agree exactly per figure."""
    targets = {}
    for (target, _program), result in results.items():
        row = targets.setdefault(target, {"programs": 0})
        row["programs"] += 1
        for name, (xla, ours) in result["figures"].items():
            if xla is not None:
                row[name] = row.get(name, 0) + (xla == ours)
                row[name + " compared"] = row.get(name + " compared", 0) + 1
        matched = [b for b in result["buffers"] if b[2] is not None]
        row["buffers"] = row.get("buffers", 0) + len(result["buffers"])
        row["buffers named"] = row.get("buffers named", 0) + len(matched)
        row["buffers exact"] = row.get("buffers exact", 0) + sum(b[1] == b[2] for b in matched)
    return targets


def table(results):
    names = [f[0] for f in MEMORY_FIGURES + COST_FIGURES]
    short = ["args", "outputs", "alias", "temp", "FLOPs", "transc.", "bytes acc."]
    lines = [BEGIN,
             "| target | programs | " + " | ".join(short) + " | buffer sizes |",
             "|---" * (len(names) + 3) + "|"]
    for target, row in sorted(agreement(results).items()):
        n = row["programs"]
        cells = [f"{row[name]}/{n}" if row.get(name + " compared") else "-" for name in names]
        buffers = f"{row['buffers exact']}/{row['buffers named']} of {row['buffers']}"
        lines.append(f"| {target} | {n} | " + " | ".join(cells) + f" | {buffers} |")
    lines.append(END)
    return "\n".join(lines) + "\n"


def run_all(cli, data=DATA):
    return {(t, p): compare(cli, d) for t, p, d in cases(data)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", type=pathlib.Path, default=ROOT / "build" / "tools" / "hloroof")
    parser.add_argument("--data", type=pathlib.Path, default=DATA)
    parser.add_argument("--check", type=pathlib.Path,
                        help="exit 1 unless this file holds the current table")
    parser.add_argument("--details", action="store_true", help="every differing figure")
    options = parser.parse_args()
    results = run_all(options.cli, options.data)
    if options.details:
        for (target, program), result in results.items():
            for name, (xla, ours) in result["figures"].items():
                if xla is not None and xla != ours:
                    print(f"{target}/{program}: {name}: XLA {xla:g}, hloroof {ours:g}")
            for name, xla, ours in result["buffers"]:
                if xla != ours:
                    print(f"{target}/{program}: buffer {name}: XLA {xla} B, hloroof {ours} B")
        return 0
    current = table(results)
    if options.check:
        if current not in options.check.read_text():
            print(f"{options.check} does not hold the current table; it is:\n{current}")
            return 1
        return 0
    sys.stdout.write(current)
    return 0


if __name__ == "__main__":
    sys.exit(main())
