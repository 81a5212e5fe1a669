#!/usr/bin/env python3
"""Memory-bound GPU kernels: measured device time beside hloroof's expected time, per GPU.

  PYTHONPATH=build/python python3 bench/kernel_rates.py [--cli build/tools/hloroof]
      [--sets NAME ...] [--csv OUT.csv] [--min-us 3]

Reads the measured sets of H200 and H100 kernels: the op-family sweeps (../shared/measured;
bench/measured: held out, L2 cache, and H200 decode pieces, unaligned GEMMs, convolutions) and
the captures (tests/data/h{200,100}/default). --sets takes their names (h200_heldout,
h100_captures, ...) or folders: a sweep as tools/gpu_opfamilies.py writes one (CASE/module.hlo,
sweep*.xplane.pb.gz), or captures. A row per op joined to a kernel, memory- or overhead-bound,
of --min-us or more a run, and no library call, matmul, convolution, FFT or sort: its bytes
(`hloroof cost`), measured and expected time (`hloroof profile`), and the model that set the
expected one (`hloroof predict`). Prints per GPU the median measured / expected and share of
the HBM bandwidth by size, result element width x share of bytes written, kind and model; then
H200 / H100 times of the ops measured on both: the evidence behind `stores_per_s`
(docs/prediction-model.md, "Stores").
"""
import argparse
import csv
import glob
import json
import os
import re
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import hloroof  # noqa: E402  (the Python module: PYTHONPATH=build/python)
import ledger  # noqa: E402
import opfamilies  # noqa: E402

MIB = 1 << 20
SKIP_CATEGORIES = {"convolution fusion", "custom-call", "fft", "dot", "convolution"}
SKIP_OPCODES = {"sort", "fft", "dot", "convolution", "custom-call"}
# What a fused root is named by (root_kind): these opcodes, else "elementwise".
ROOT_KINDS = {"reduce", "scatter", "gather", "dynamic-update-slice", "dynamic-slice", "slice",
              "concatenate", "pad", "transpose", "copy", "broadcast", "reduce-window",
              "select-and-scatter", "iota", "reverse"} | SKIP_OPCODES
SIZE_BINS = ["<16 MiB", "16-64", "64-256", ">256"]
WIDTH_BINS = ["1 B", "2 B", "4 B", "8+ B"]
WRITE_BINS = ["reads only", "<0.4", "0.4-0.6", ">0.6", "writes only"]
PAIR = ("h200", "h100")
COLUMNS = ["gpu", "set", "case", "op", "category", "kind", "model", "bytes_read",
           "bytes_written", "elem_bytes", "measured_s", "expected_s", "hbm_share"]


def chosen_sets(names):
    """(name, folder) of the sets named (default: every measured H200 and H100 set)."""
    shared, mine = os.path.join(ledger.shared_dir(), "measured"), os.path.join(HERE, "measured")
    known = dict([(f"{g}_opfamilies", os.path.join(shared, f"gpu_{g}_opfamilies")) for g in PAIR] +
                 [(f"{g}_{s}", os.path.join(mine, f"gpu_{g}_{s}"))
                  for s in ("heldout", "cache") for g in PAIR] +
                 [(f"h200_{s}", os.path.join(mine, f"gpu_h200_{s}"))
                  for s in ("decode", "unaligned", "convs")] +
                 [(f"{g}_captures", os.path.join(ROOT, "tests", "data", g, "default"))
                  for g in PAIR])
    out = []
    for n in names or known:
        if n in known:
            out.append((n, known[n]))
        elif os.path.isdir(n):
            out.append((re.sub(r"^gpu_", "", os.path.basename(os.path.normpath(n))), n))
        else:
            sys.exit(f"kernel_rates: {n}: neither a set ({', '.join(known)}) nor a folder")
    return out


def cases(cli, folder, scratch):
    """(case, its module.hlo, a function of the case giving its `hloroof profile --json`
    report) of every case of a sweep (against its profiles) or of a folder of captures."""
    if glob.glob(os.path.join(folder, "sweep*.xplane.pb.gz")):
        profiles = opfamilies.unpacked_profiles(folder, scratch)

        def profile(case):
            report, err = opfamilies.run_case(cli, folder, profiles, case)[1:]
            if report is None:
                raise RuntimeError(err[0])
            return report
        return [(c, os.path.join(folder, c, "module.hlo"), profile)
                for c in opfamilies.cases_of(folder)]
    dirs = sorted(os.path.dirname(p) for p in glob.glob(os.path.join(folder, "*", "module.hlo")))
    return [(os.path.basename(d), os.path.join(d, "module.hlo"), lambda case, d=d: ledger.run_json(
        [cli, "profile", d, "--device", ledger.device_of_capture(d), "--json"])) for d in dirs]


def result_width(shape):
    """Bytes per element of a result shape (a tuple's: its bytes over its elements)."""
    s = json.loads(hloroof.shape_to_json(shape))
    return s["logical_bytes"] / s["elements"] if s["elements"] else 0


def root_kind(inst):
    """What a fused root does: its opcode where that names the work, else the ops of ROOT_KINDS
    that it computes from, looked for through elementwise ops, bitcasts and broadcasts
    ("elementwise" if none); a tuple's, its operands'."""
    if inst.opcode == "tuple":
        return "+".join(sorted({root_kind(o) for o in inst.operands}))
    if inst.opcode in ROOT_KINDS:
        return inst.opcode
    found, todo, seen = set(), list(inst.operands), set()
    while todo:
        i = todo.pop()
        if i.name in seen:
            continue
        seen.add(i.name)
        if i.opcode in ROOT_KINDS - {"broadcast", "iota"}:
            found.add(i.opcode)
        elif i.opcode != "parameter":
            todo += i.operands
    return "+".join(sorted(found)) or "elementwise"


def instructions(hlo):
    """{name: (result shape, kind)} of every instruction of an HLO module: a fusion's kind is
    its fused root's (root_kind), another's its opcode."""
    with open(hlo) as f:
        module = hloroof.parse(f.read())
    out = {}
    for comp in module.computations:
        for i in comp.instructions:
            called = i.called_computations if i.opcode == "fusion" else []
            out[i.name] = (i.shape, root_kind(called[0].root) if called else i.opcode)
    return out


def case_rows(cli, gpu, name, case, hlo, report, min_us):
    """The rows of one case's memory-bound kernels."""
    cost = {i["name"]: i for i in ledger.run_json([cli, "cost", hlo, "--json", "--all"])
            ["instructions"] if i["role"] == "scheduled"}
    model = {o["name"]: o.get("model") for o in ledger.run_json(
        [cli, "predict", hlo, "--device", report["device"], "--json"])["ops"]}
    insts = instructions(hlo)
    bw, rows = bandwidth(gpu), []
    for op in report["ops"]:
        occurrences = op.get("occurrences") or 0
        if (not op.get("measured_s") or occurrences <= 0 or op["bound"] not in
                ("memory", "overhead") or op["category"] in SKIP_CATEGORIES or
                op["opcode"] in SKIP_OPCODES or op["name"] not in cost or
                op["name"] not in insts):
            continue
        measured = op["measured_s"] / occurrences
        shape, kind = insts[op["name"]]
        c = cost[op["name"]]
        if measured < min_us * 1e-6 or kind in SKIP_OPCODES or op["expected_s"] <= 0 or \
                moved(c) <= 0:
            continue
        rows.append({"gpu": gpu, "set": name, "case": case, "op": op["name"],
                     "category": op["category"], "kind": f"{op['category']}: {kind}",
                     "model": model.get(op["name"]) or "", "bytes_read": c["bytes_read"],
                     "bytes_written": c["bytes_written"], "elem_bytes": result_width(shape),
                     "measured_s": measured, "expected_s": op["expected_s"] / (
                         op.get("predicted_occurrences") or occurrences),
                     "hbm_share": moved(c) / measured / bw if bw else None})
    return rows


def bandwidth(gpu):
    """hbm.bandwidth of data/hardware/GPU.json, in B/s (None where absent)."""
    try:
        with open(os.path.join(ROOT, "data", "hardware", f"{gpu}.json")) as f:
            return json.load(f)["hbm"]["bandwidth"]["value"]
    except (OSError, KeyError, ValueError):
        return None


def moved(r):
    return r["bytes_read"] + r["bytes_written"]


def size_bin(r):
    mib = moved(r) / MIB
    return SIZE_BINS[(mib >= 16) + (mib >= 64) + (mib >= 256)]


def width_bin(r):
    w = r["elem_bytes"]
    return WIDTH_BINS[(w >= 2) + (w >= 4) + (w >= 8)]


def write_bin(r):
    share = r["bytes_written"] / moved(r)
    return WRITE_BINS[0 if share < 0.001 else 4 if share > 0.999 else
                      1 if share < 0.4 else 2 if share <= 0.6 else 3]


def medians(rows):
    """n, median measured / expected, median HBM share of rows ('-' where none)."""
    if not rows:
        return 0, "-", "-"
    shares = [r["hbm_share"] for r in rows if r["hbm_share"] is not None]
    return (len(rows), f"{statistics.median(r['measured_s'] / r['expected_s'] for r in rows):.2f}",
            f"{statistics.median(shares):.2f}" if shares else "-")


def group_table(title, rows, key, order=None):
    """One line per value of key(r): in order, else the most kernels first."""
    groups = {}
    for r in rows:
        groups.setdefault(key(r), []).append(r)
    order = order or sorted(groups, key=lambda k: -len(groups[k]))
    lines = [f"  {title:<62} {'n':>5} {'meas/exp':>9} {'HBM share':>10}"]
    for k in order:
        n, ratio, share = medians(groups.get(k, []))
        lines.append(f"    {k[:60]:<60} {n:>5} {ratio:>9} {share:>10}")
    return lines


def width_write_table(title, rows):
    """Result element width (lines) x write share (columns)."""
    lines = [f"  {title}: meas/exp, HBM share, n",
             "  " + f"{'':<6}" + "".join(f"{w:>16}" for w in WRITE_BINS)]
    for w in WIDTH_BINS:
        cells = [medians([r for r in rows if width_bin(r) == w and write_bin(r) == b])
                 for b in WRITE_BINS]
        lines.append(f"    {w:<6}" + "".join(
            f"{(f'{m} {s} {n}' if n else '-'):>16}" for n, m, s in cells))
    return lines


def pair_table(rows):
    """Ops measured on both GPUs of PAIR (same set, case and op, bytes within 1%)."""
    seen = {(r["gpu"], re.sub(rf"^{r['gpu']}_", "", r["set"]), r["case"], r["op"]): r
            for r in rows}
    pairs = []
    for (gpu, s, case, op), a in seen.items():
        b = seen.get((PAIR[1], s, case, op))
        if gpu == PAIR[0] and b and abs(moved(a) - moved(b)) <= 0.01 * moved(b):
            pairs.append((width_bin(a), a["measured_s"] / b["measured_s"]))
    bw = [bandwidth(g) for g in PAIR]
    hbm = f"{bw[1] / bw[0]:.2f}" if all(bw) else "-"
    lines = [f"{PAIR[0]} / {PAIR[1]}: ops measured on both, median time ratio "
             f"(pure HBM scaling: {hbm})", f"  {'result elem':<12} {'n':>5} {'time ratio':>11}"]
    for w in WIDTH_BINS + ["all"]:
        xs = [x for b, x in pairs if w in (b, "all")]
        lines.append(f"    {w:<10} {len(xs):>5} "
                     f"{f'{statistics.median(xs):.2f}' if xs else '-':>11}")
    return lines


def gpu_tables(rows, gpu, min_us):
    """The tables of one GPU's rows."""
    bw = bandwidth(gpu)
    out = [f"{gpu}: {len(rows)} memory-bound kernels of {min_us:g} us or more, "
           f"{len({r['set'] for r in rows})} sets; HBM "
           f"{f'{bw / 1e12:.2f} TB/s' if bw else 'bandwidth unknown'}"]
    out += group_table("bytes moved", rows, size_bin, SIZE_BINS)
    out += width_write_table("result elem x write share", rows)
    out += width_write_table("the same, 64 MiB or more",
                             [r for r in rows if size_bin(r) in SIZE_BINS[2:]])
    out += group_table("kind (category: fused root)", rows, lambda r: r["kind"])
    return out + group_table("model of the expected time", rows, lambda r: r["model"] or "?") + [""]


FOOTER = """\
n: kernels (ops joined to a kernel, a run each). meas/exp: median measured device time over
hloroof's expected time, per run (1.00: exact; above 1: slower than expected). HBM share:
median (bytes read + bytes written, `hloroof cost`) / measured time / the GPU's hbm.bandwidth
(data/hardware/GPU.json). Result elem: bytes per element of the op's result (a tuple's: its
bytes over its elements). Write share: bytes written / bytes moved. Time ratio: median
measured time on the first GPU over the second for the same op."""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "tools", "hloroof"))
    ap.add_argument("--sets", nargs="+", metavar="NAME", help="set names or folders")
    ap.add_argument("--csv", help="write every kernel's row here")
    ap.add_argument("--min-us", type=float, default=3.0, help="shortest kernel kept (us)")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for name, folder in chosen_sets(args.sets):
            if not os.path.isdir(folder):
                print(f"kernel_rates: {name}: {folder} absent, skipped", file=sys.stderr)
                continue
            print(f"kernel_rates: {name}", file=sys.stderr)
            for case, hlo, profile in cases(args.cli, folder, scratch):
                try:
                    report = profile(case)
                    rows += case_rows(args.cli, report["device"].split(":")[0], name, case,
                                      hlo, report, args.min_us)
                except (RuntimeError, ValueError, KeyError, TypeError, OSError) as e:
                    print(f"kernel_rates: {name}/{case}: {e}", file=sys.stderr)
    for gpu in sorted({r["gpu"] for r in rows}):
        print("\n".join(gpu_tables([r for r in rows if r["gpu"] == gpu], gpu, args.min_us)))
    if all(any(r["gpu"] == g for r in rows) for g in PAIR):
        print("\n".join(pair_table(rows)) + "\n")
    print(FOOTER)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS)
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
