#!/usr/bin/env python3
"""Per-family accuracy of hloroof's GPU predictions on the measured op-family sweeps.

Each case of a sweep (../shared/measured/gpu_*_opfamilies) is one small JAX program; its
device time is read from the sweep's one profile by `hloroof profile CASE/module.hlo
sweep.xplane.pb --module jit_CASE --json`, beside hloroof's expected and roofline step.

  python3 bench/opfamilies.py [--hloroof build/tools/hloroof] [--json OUT] [--folds K] [SWEEP ...]

By default: the two shared sweeps, on which the models
were fitted, and the held-out sweeps in bench/measured (the same families at other sizes, dtypes
and index distributions, measured on the same two GPUs; its README says how), which the models
never saw while they were fitted; and the cache sweeps (reads of data L2 may hold, and fills, on
both sides of L2's size), which the GPU's L2 rate in the roofline's floor was read from. Prints,
per sweep, one row per family: cases, how many are within x0.8-1.25 of the measured device time,
the median and range of expected/measured, and the roofline's floor violations: steps, and ops
whose roofline is above their measured device time. A case's family is its name's first word(s), as the sweep names it.
Then, with --folds K (default 5), sizes held out: each GPU's fitted and held-out cases pooled and
dealt into K folds by size (`size_folds`), a per-family size correction fitted on the other
folds and scored on each (`kfold_report`).
"""
import argparse
import collections
import concurrent.futures
import glob
import gzip
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_SWEEPS = ([os.path.join(ROOT, "..", "shared", "measured", f"gpu_{g}_opfamilies")
                   for g in ("h200", "h100")] +
                  [os.path.join(HERE, "measured", f"gpu_{g}_{s}")
                   for s in ("heldout", "cache") for g in ("h200", "h100")])

# Family by the case name's prefix, longest first.
FAMILIES = [
    ("argsort", "sort"), ("sort", "sort"), ("topk", "top_k"),
    ("fftn", "fft 3-D"), ("ifftn", "fft 3-D"), ("rfftn", "fft 3-D"), ("irfftn", "fft 3-D"),
    ("fft2", "fft 1-D/2-D"), ("fft", "fft 1-D/2-D"),
    ("segment_sum", "scatter"), ("embed_grad_scatter", "scatter"), ("scatter_add", "scatter"),
    ("gather_rows", "gather"), ("embed_lookup", "gather"),
    ("conv", "convolution"), ("fori", "while loop"), ("scan", "scan"),
    ("cumsum", "cumsum, pooling"), ("maxpool", "cumsum, pooling"),
    ("batchnorm_reduce", "reduce leading axis"),
    ("transpose", "transpose, attention"), ("decode_attn", "transpose, attention"),
    ("dispatch_floor", "dispatch floor"), ("l2_", "L2 reuse, fills"),
    ("gemv", "decode: GEMV"), ("cache_write", "decode: cache write"),
    ("decode_step", "decode: whole step"), ("gemm_", "GEMM, unaligned"),
]


def family(case):
    for prefix, name in FAMILIES:
        if case.startswith(prefix):
            return name
    return "other"


def unpacked_profiles(sweep, scratch):
    """The sweep's profiles, unpacked, each with the cases its run measured: sweep.xplane.pb.gz
    (every case), and sweep_N.xplane.pb.gz where a set was measured again in later runs (the
    cases pattern of provenance_N.json beside it)."""
    out = []
    for packed in sorted(glob.glob(os.path.join(sweep, "sweep*.xplane.pb.gz"))):
        name = os.path.basename(packed)[:-len(".xplane.pb.gz")]
        plain = os.path.join(scratch, os.path.basename(os.path.normpath(sweep)) + "-" +
                             name + ".xplane.pb")
        if not os.path.exists(plain):
            with gzip.open(packed, "rb") as src, open(plain, "wb") as dst:
                shutil.copyfileobj(src, dst)
        provenance = os.path.join(sweep, name.replace("sweep", "provenance") + ".json")
        cases = None
        if os.path.exists(provenance):
            with open(provenance) as f:
                cases = json.load(f).get("cases")
        out.append((plain, cases))
    return out


def profile_of(profiles, case):
    """The profile of the last run that measured the case (later runs replace its files)."""
    held = [plain for plain, cases in profiles if cases is None or re.search(cases, case)]
    return held[-1] if held else None


def run_case(hloroof, sweep, profiles, case):
    """hloroof's profile of one case against the profile of the run that measured it."""
    profile = profile_of(profiles, case)
    if profile is None:
        return case, None, ["no profile holds it"]
    cmd = [hloroof, "profile", os.path.join(sweep, case, "module.hlo"), profile,
           "--module", "jit_" + case, "--json"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return case, None, r.stderr.strip().splitlines()[-1:] or ["failed"]
    return case, json.loads(r.stdout), None


def cases_of(sweep):
    return sorted(c for c in os.listdir(sweep)
                  if os.path.isfile(os.path.join(sweep, c, "module.hlo")))


def ratio_text(x):
    return f"x{x:.2f}"


def table(rows):
    fams = {}
    for r in rows:
        fams.setdefault(r["family"], []).append(r)
    out = []
    out.append(f"{'family':<22} {'cases':>5} {'in 25%':>6} {'median':>7} "
               f"{'range':>12} {'floor!':>6} {'op floor!':>9}")
    total = within = viol = op_viol = 0
    errs = []
    for fam in sorted(fams):
        rs = fams[fam]
        ratios = [r["expected_s"] / r["measured_s"] for r in rs]
        ok = sum(0.8 <= x <= 1.25 for x in ratios)
        v = sum(r["roofline_s"] > r["measured_s"] for r in rs)
        ov = sum(bool(o["measured_s"]) and o["roofline_s"] > o["measured_s"]
                 for r in rs for o in r["ops"])
        total += len(rs)
        within += ok
        viol += v
        op_viol += ov
        errs += [abs(x - 1) for x in ratios]
        out.append(f"{fam:<22} {len(rs):>5} {ok:>6} {ratio_text(statistics.median(ratios)):>7} "
                   f"{ratio_text(min(ratios)) + '-' + ratio_text(max(ratios))[1:]:>12} {v:>6} "
                   f"{ov:>9}")
    out.append(f"{'all':<22} {total:>5} {within:>6} "
               f"{'':>7} {'':>12} {viol:>6} {op_viol:>9}")
    out.append(f"median |expected/measured - 1|: {100 * statistics.median(errs):.0f}%")
    return "\n".join(out)


def step_bytes(row):
    """A case's size: the bytes its ops move per step, as hloroof counts them."""
    return sum((o["bytes_accessed"] or 0) * (o["predicted_occurrences"] or 1)
               for o in row["ops"]) or 1.0


def size_folds(rows, k):
    """Fold of each case, by size within its family: a family's cases are ranked by their
    bytes, binned per power of two, and the bins dealt round-robin, so that every case of one
    size (whatever its dtype or index distribution) lands in the same fold."""
    bins = collections.defaultdict(set)
    for r in rows:
        bins[r["family"]].add(int(math.log2(step_bytes(r))))
    order = {f: sorted(b) for f, b in bins.items()}
    return [order[r["family"]].index(int(math.log2(step_bytes(r)))) % k for r in rows]


def fit_correction(rows):
    """Per family, log(measured / expected) as a line in log2(bytes) (a constant with fewer
    than three sizes): the size-dependent factor the models miss."""
    by = collections.defaultdict(list)
    for r in rows:
        by[r["family"]].append((math.log2(step_bytes(r)),
                                math.log(r["measured_s"] / r["expected_s"])))
    fit = {}
    for fam, pts in by.items():
        xs = [x for x, _ in pts]
        ys = [y for _, y in pts]
        if len(set(round(x) for x in xs)) >= 3:
            slope, icept = statistics.linear_regression(xs, ys)
            fit[fam] = (icept, slope)
        else:
            fit[fam] = (statistics.mean(ys), 0.0)
    return fit


def corrected(row, fit):
    a, b = fit.get(row["family"], (0.0, 0.0))
    return row["expected_s"] * math.exp(a + b * math.log2(step_bytes(row)))


def summary(ratios):
    ok = sum(0.8 <= x <= 1.25 for x in ratios)
    med = 100 * statistics.median(abs(x - 1) for x in ratios)
    return f"{ok:>3}/{len(ratios):<3} ({100 * ok / len(ratios):3.0f}%) {med:3.0f}%"


def kfold_report(everything, k):
    """Holds sizes out: per GPU, the fitted and held-out sweeps pooled, k folds by size; the
    models as they stand, and the models times a per-family size correction: fitted to every
    case (fitted), and fitted to the other folds for each fold's cases (held out)."""
    gpus = collections.defaultdict(list)
    for name, rows in everything.items():
        if not name.endswith("_cache"):
            gpus[name.split("_")[1]] += rows
    lines = [f"k-fold over sizes ({k} folds, no size on both sides): within x0.8-1.25, "
             "median |expected/measured - 1|",
             f"  {'gpu':<6} {'models as they stand':>21} {'+ correction, fitted':>21} "
             f"{'+ correction, held out':>23}"]
    for gpu, rows in sorted(gpus.items()):
        folds = size_folds(rows, k)
        raw = [r["expected_s"] / r["measured_s"] for r in rows]
        fit = fit_correction(rows)
        fitted = [corrected(r, fit) / r["measured_s"] for r in rows]
        held = []
        for f in range(k):
            train = [r for r, g in zip(rows, folds) if g != f]
            test = [r for r, g in zip(rows, folds) if g == f]
            if not train or not test:
                continue
            fit = fit_correction(train)
            held += [corrected(r, fit) / r["measured_s"] for r in test]
        lines.append(f"  {gpu:<6} {summary(raw):>21} {summary(fitted):>21} {summary(held):>23}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sweeps", nargs="*", default=DEFAULT_SWEEPS)
    ap.add_argument("--hloroof", default=os.path.join(ROOT, "build", "tools", "hloroof"))
    ap.add_argument("--json", help="write every case's figures here")
    ap.add_argument("--cases", action="store_true", help="print every case's row too")
    ap.add_argument("--folds", type=int, default=5, help="folds over sizes (0: none)")
    args = ap.parse_args()
    everything = {}
    with tempfile.TemporaryDirectory() as scratch:
        for sweep in args.sweeps:
            profiles = unpacked_profiles(sweep, scratch)
            name = os.path.basename(os.path.normpath(sweep))
            rows = []
            with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
                jobs = [pool.submit(run_case, args.hloroof, sweep, profiles, c)
                        for c in cases_of(sweep)]
                for job in jobs:
                    case, d, err = job.result()
                    if d is None:
                        print(f"{name}/{case}: {err[0]}", file=sys.stderr)
                        continue
                    step = d["step"]
                    rows.append({"case": case, "family": family(case),
                                 "measured_s": step["measured_s"],
                                 "expected_s": step["expected_s"],
                                 "roofline_s": step["roofline_s"],
                                 "ops": [{k: o.get(k) for k in
                                          ("name", "opcode", "category", "measured_s",
                                           "expected_s", "roofline_s", "occurrences",
                                           "predicted_occurrences", "kernels", "flops",
                                           "bytes_accessed")} for o in d["ops"]]})
            everything[name] = rows
            print(f"{name}: expected / measured device time per step")
            print(table(rows))
            if args.cases:
                for r in rows:
                    print(f"  {r['case']:<48} meas {r['measured_s']*1e6:10.1f} us  exp/meas "
                          f"{r['expected_s']/r['measured_s']:6.2f}  roof/meas "
                          f"{r['roofline_s']/r['measured_s']:6.2f}")
            print()
    held = {n: r for n, r in everything.items() if n.endswith("_heldout")}
    if held:
        print("fitted sweeps beside held-out ones: within x0.8-1.25, median |expected/measured - 1|")
        for name, rows in everything.items():
            if name.endswith("_cache"):
                continue
            ratios = [r["expected_s"] / r["measured_s"] for r in rows]
            ok = sum(0.8 <= x <= 1.25 for x in ratios)
            kind = "held out" if name in held else "fitted"
            print(f"  {name:<24} {kind:<9} {ok:>3}/{len(rows):<3} ({100 * ok / len(rows):3.0f}%)  "
                  f"{100 * statistics.median(abs(x - 1) for x in ratios):3.0f}%")
    if args.folds > 1 and held:
        print()
        print(kfold_report(everything, args.folds))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(everything, f, indent=1)


if __name__ == "__main__":
    main()
