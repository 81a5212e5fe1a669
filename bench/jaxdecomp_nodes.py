#!/usr/bin/env python3
"""Expected over measured step time of the jaxdecomp FFT benchmarks, one node and across nodes.

    bench/jaxdecomp_nodes.py REPORT_OR_DIR... [--cli build/tools/hloroof] [--device a100]
                             [--set PATH=VALUE ...] [--gpus-per-node 8]

Reads the markdown reports of ASKabalan/jaxdecomp-benchmarks (out_prof/GPU/N/KIND/*.md: the
compiled HLO in a ```hlo block, the run's `Nodes`, its `Mean Time` and each iteration's time in
ms: the median of the iterations is the measured time, else the mean). The reports carry no
licence, so they are not part of this repository: give the files or folders of a checkout. For
each report, predicts the HLO on DEVICE:NODESxGPUS_PER_NODE (the run's nodes, so that groups
spanning nodes are placed across them) and prints the expected step time, the measured time and
their ratio; then, per node count, the median ratio and the median of |expected / measured - 1|;
then, for each run with a twin of a larger cube (the same grid, precision and transform), the
part of its time that does not grow with the data (its time less the twin's scaled by their
volumes), measured and expected.
Extra --set figures (a cluster's own network, e.g. interconnect.scale_out_bandwidth=6.25e9 for
nodes of 8 GPUs sharing 4 x 100 Gb/s) go to every prediction.

--fit fits interconnect.nic_efficiency, the share of the NICs' line rate the network reached, to
the reports across nodes (the value minimising the sum of squared log(expected / measured), by a
golden-section search on log efficiency), holding each cube size out in turn: every size is
predicted by the figure fitted to the others (k-fold by size, as a size not measured would be).
It prints the fitted and held-out errors, then the figure fitted to every report; --write
OUT.json writes DEVICE (a device JSON file) with that figure as interconnect.nic_efficiency.
"""
import argparse
import json
import math
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent


def field(text: str, name: str) -> str | None:
    m = re.search(r"^\|\s*" + re.escape(name) + r"\s*\|\s*([^|]+?)\s*\|", text, re.M)
    return m.group(1) if m else None


def report(path: pathlib.Path) -> dict | None:
    text = path.read_text(errors="replace")
    hlo = re.search(r"```hlo\n(.*?)```", text, re.S)
    nodes, mean = field(text, "Nodes"), field(text, "Mean Time")
    if not hlo or nodes is None or mean is None or "HloModule" not in hlo.group(1):
        return None
    # The median of the iteration runs when the report lists them: a forward transform's first
    # run can take 30x the others and pull the mean with it.
    runs = [float(t) for t in re.findall(r"^\|\s*Run \d+\s*\|\s*([0-9.]+)\s*\|", text, re.M)]
    measured_ms = statistics.median(runs) if runs else float(mean)
    return {"name": path.stem, "hlo": hlo.group(1), "nodes": int(nodes),
            "measured_s": measured_ms / 1e3}


def predict(cli: str, hlo: str, device: str, sets: list[str]) -> float:
    with tempfile.NamedTemporaryFile("w", suffix=".hlo") as f:
        f.write(hlo)
        f.flush()
        cmd = [cli, "predict", f.name, "--device", device, "--json"]
        for s in sets:
            cmd += ["--set", s]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads(out)["step_time_s"]


def cube(r: dict) -> str:
    m = re.search(r"jaxfft__(\d+)_", r["name"])
    return m.group(1) if m else r["name"]


def ratios(cli: str, rows: list[dict], sets: list[str], efficiency: float) -> list[float]:
    eff = [f"interconnect.nic_efficiency={efficiency:.6g}"]
    return [predict(cli, r["hlo"], r["device"], sets + eff) / r["measured_s"] for r in rows]


def fit_efficiency(cli: str, rows: list[dict], sets: list[str]) -> float:
    """The nic_efficiency minimising sum(log(expected / measured)^2) over `rows`."""
    def loss(log_e: float) -> float:
        return sum(math.log(x) ** 2 for x in ratios(cli, rows, sets, math.exp(log_e)))
    lo, hi = math.log(0.01), math.log(1.0)
    g = (math.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = loss(a), loss(b)
    while hi - lo > 1e-3:
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = loss(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = loss(b)
    return math.exp((lo + hi) / 2)


def summary(values: list[float]) -> str:
    errors = [abs(x - 1) for x in values]
    within = sum(e <= 0.25 for e in errors)
    return (f"x{min(values):.2f}-{max(values):.2f}, median |e/m - 1| "
            f"{statistics.median(errors) * 100:.1f}%, {within}/{len(values)} within 25%")


def fit(args, rows: list[dict]) -> int:
    across = [r for r in rows if r["nodes"] > 1]
    if not across:
        print("no report across nodes to fit", file=sys.stderr)
        return 1
    sizes = sorted({cube(r) for r in across}, key=int)
    print("nic_efficiency, each cube size held out in turn (k-fold by size):")
    held = []
    for size in sizes:
        train = [r for r in across if cube(r) != size]
        test = [r for r in across if cube(r) == size]
        if not train:
            continue
        e = fit_efficiency(args.cli, train, args.sets)
        fitted = ratios(args.cli, train, args.sets, e)
        out = ratios(args.cli, test, args.sets, e)
        held += out
        print(f"  fit on the other sizes: {e:.3f}; fitted {summary(fitted)}")
        print(f"    {size}^3 held out ({len(test)} reports): {summary(out)}")
    e = fit_efficiency(args.cli, across, args.sets)
    print(f"held out, every size: {summary(held)}" if held else "")
    print(f"fitted to all {len(across)} reports across nodes: nic_efficiency {e:.3f}; "
          f"{summary(ratios(args.cli, across, args.sets, e))}")
    if args.write:
        doc = json.loads(pathlib.Path(args.device).read_text())
        doc.setdefault("interconnect", {})["nic_efficiency"] = round(e, 3)
        pathlib.Path(args.write).write_text(json.dumps(doc, indent=2) + "\n")
        print(f"written to {args.write}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+", type=pathlib.Path)
    ap.add_argument("--cli", default=str(ROOT / "build" / "tools" / "hloroof"))
    ap.add_argument("--device", default="a100")
    ap.add_argument("--set", dest="sets", action="append", default=[])
    ap.add_argument("--gpus-per-node", type=int, default=8)
    ap.add_argument("--fit", action="store_true",
                    help="fit interconnect.nic_efficiency to the reports across nodes")
    ap.add_argument("--write", help="with --fit: the device file with the fitted figure")
    args = ap.parse_args()
    files = []
    for p in args.inputs:
        files += sorted(p.rglob("*.md")) if p.is_dir() else [p]
    rows = []
    for path in files:
        r = report(path)
        if r is None:
            continue
        m = re.search(r"num_partitions=(\d+)", r["hlo"])
        gpus = int(m.group(1)) if m else r["nodes"] * args.gpus_per_node
        per_node = gpus // r["nodes"] if r["nodes"] and gpus % r["nodes"] == 0 else gpus
        device = f"{args.device}:{r['nodes']}x{per_node}"
        r["device"] = device
        if args.fit:
            rows.append(r)
            continue
        r["expected_s"] = predict(args.cli, r["hlo"], device, args.sets)
        r["ratio"] = r["expected_s"] / r["measured_s"]
        rows.append(r)
    if not rows:
        print("no jaxdecomp report with an HLO block, Nodes and Mean Time", file=sys.stderr)
        return 1
    if args.fit:
        return fit(args, rows)
    width = max(len(r["name"]) for r in rows)
    print(f"{'report':<{width}}  nodes  expected ms  measured ms  expected/measured")
    for r in rows:
        print(f"{r['name']:<{width}}  {r['nodes']:>5}  {r['expected_s'] * 1e3:>11.3f}  "
              f"{r['measured_s'] * 1e3:>11.3f}  {r['ratio']:>17.3f}")
    for nodes in sorted({r["nodes"] for r in rows}):
        ratios = [r["ratio"] for r in rows if r["nodes"] == nodes]
        print(f"{nodes} node(s), {len(ratios)} reports: expected/measured "
              f"{min(ratios):.3f}-{max(ratios):.3f}, median {statistics.median(ratios):.3f}; "
              f"median |expected/measured - 1| "
              f"{statistics.median(abs(x - 1) for x in ratios) * 100:.1f}%")
    fixed_parts(rows)
    return 0


def fixed_parts(rows: list[dict]) -> None:
    """For each run with a twin of a larger cube (the same grid, precision and transform on as
    many nodes), the part of its time that does not grow with the data: its time less the
    twin's scaled by the ratio of their volumes, measured and expected."""
    twins: dict[tuple, list[dict]] = {}
    for r in rows:
        twins.setdefault((re.sub(r"jaxfft__\d+_", "jaxfft__N_", r["name"]), r["nodes"]),
                         []).append(r)
    pairs = []
    for group in twins.values():
        group.sort(key=lambda r: int(cube(r)) if cube(r).isdigit() else 0)
        small, large = group[0], group[-1]
        if small is large or not cube(small).isdigit() or not cube(large).isdigit():
            continue
        scale = (int(cube(small)) / int(cube(large))) ** 3
        pairs.append((small["name"],
                      small["measured_s"] - large["measured_s"] * scale,
                      small["expected_s"] - large["expected_s"] * scale))
    if not pairs:
        return
    print("\nwhat does not grow with the data: a run less its larger twin's time scaled by their "
          "volumes (ms)")
    width = max(len(p[0]) for p in pairs)
    print(f"{'report':<{width}}  measured  expected")
    for name, measured, expected in pairs:
        print(f"{name:<{width}}  {measured * 1e3:>8.3f}  {expected * 1e3:>8.3f}")
    print(f"{len(pairs)} pairs: measured {min(p[1] for p in pairs) * 1e3:.3f}-"
          f"{max(p[1] for p in pairs) * 1e3:.3f} ms, expected "
          f"{min(p[2] for p in pairs) * 1e3:.3f}-{max(p[2] for p in pairs) * 1e3:.3f} ms")


if __name__ == "__main__":
    sys.exit(main())
