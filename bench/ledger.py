#!/usr/bin/env python3
"""The accuracy ledger: every measured set hloroof is held to, in one table.

    python3 bench/ledger.py [--fast] [--json OUT] [--check BASELINE] [--write-baseline OUT]
        [--cli build/tools/hloroof] [--accuracy-bench build/bench/accuracy_bench]
        [--recipes-kept DIR] [--results JSON]

Runs, with this build, every measured set of the repository and of ../shared (or
$HLOROOF_SHARED): XLA's GEMM and collective tables and the TPU7x microbenchmarks
(`accuracy_bench --rows`, each half: single ops), the real GPU captures (tests/data/h100,
tests/data/h200), the op-family sweeps (../shared/measured, fitted, and bench/measured, held out
and L2 cache; on an H200, unaligned GEMMs, decode pieces, convolutions and repeated scatter
indices), the jaxdecomp FFTs on one and two A100 nodes (../shared/measured/a100_jaxdecomp),
the TPU training recipes and the GPU clusters' (bench/measured/tpu_recipes.json and
gpu_recipes.json; with --recipes-kept DIR, the programs kept by `bench/tpu_recipes.py --keep DIR`
predicted again) and the real profiles
(../shared/profiles: TPU v6e, MI300X). Whole programs (a step measured end to end) are kept
apart from single ops (one table row). Per set: n, how many are within 25% of measured, the
median |predicted / measured - 1| and the median predicted / measured (bias); a set whose bias
is outside 0.95-1.05 is flagged ("bias"). Where the measured steps come from profiles, "busy" is
the median ratio of the programs whose step is at most 10% idle (no kernel running): their
ratio is the device model's alone, the others' also holds the host's gaps between launches.
Whole programs judge: a single-op fit that moves a whole-program set the wrong way is a
regression.

--fast runs what fits in a few minutes on 2 cores (all but the op-family sweeps of L2 reuse and
the tables' fit half). --check BASELINE compares this run with a baseline written by
--write-baseline and exits 1 when a whole-program set's median error is more than one point
worse, its bias moved by more than 0.03, or a program within 25% in the baseline is not now
(sets the run left out are not compared). --results JSON checks or prints a run's --json again,
running nothing. A set whose inputs are absent (no ../shared) is skipped and said so; one the
build fails to predict is an error, and the command exits 1.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

BIAS_LOW, BIAS_HIGH = 0.95, 1.05
WITHIN = 0.25
# What a whole-program set may lose against the baseline before --check fails.
MAX_ERROR_WORSENING = 0.01  # one point of median |predicted / measured - 1|
MAX_BIAS_MOVE = 0.03  # of the median predicted / measured


def shared_dir():
    return os.environ.get("HLOROOF_SHARED", os.path.join(ROOT, "..", "shared"))


def run_json(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        last = (r.stderr.strip().splitlines() or ["failed"])[-1]
        raise RuntimeError(f"{' '.join(cmd[:3])}: {last}")
    return json.loads(r.stdout)


def parallel(fn, jobs):
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        return list(pool.map(lambda j: fn(*j), jobs))


# Each set's runner returns [(item, predicted / measured)] or raises Skip (inputs absent).
class Skip(Exception):
    pass


def table_rows(bench):
    """accuracy_bench --rows: CLASS<TAB>HALF<TAB>RATIO, grouped per device, kind and half."""
    if not os.access(bench, os.X_OK):
        raise Skip(f"{bench} not built (cmake --build build --target accuracy_bench)")
    out = subprocess.run([bench, "--rows"], capture_output=True, text=True, check=True).stdout
    sets = {}
    for line in out.splitlines():
        name, half, ratio = line.split("\t")
        words = name.split()
        device = words[0]
        kind = ("GEMM" if words[1] == "gemm" else "microbench" if device == "tpu7x"
                else "collective")
        key = f"XLA {kind} table {device}, {half} half" if device != "tpu7x" else \
            f"TPU7x microbenchmarks, {half} half"
        sets.setdefault((key, half), []).append((" ".join(words), float(ratio)))
    return sets


def device_of_capture(folder):
    try:
        with open(os.path.join(folder, "meta.json")) as f:
            kind = json.load(f).get("device_kind", "")
    except (OSError, ValueError):
        kind = ""
    for name, device in (("H200", "h200"), ("H100", "h100"), ("B200", "b200"),
                         ("A100", "a100")):
        if name in kind:
            return device
    return "h100"


def ratio_and_idle(report):
    """A profile report's (`hloroof profile --json`) predicted / measured step, and the share of
    its measured step no kernel ran (the host's gaps between launches, round trips)."""
    step = report["step"]
    idle = report.get("idle_s")
    share = (min(1.0, max(0.0, idle / step["measured_s"])) if idle is not None and
             step["measured_s"] > 0 else None)
    return step["expected_s"] / step["measured_s"], share


def captures(cli, root):
    if not os.path.isdir(root):
        raise Skip(f"{root}: absent")
    dirs = sorted(d for d in glob.glob(os.path.join(root, "*"))
                  if os.path.isfile(os.path.join(d, "module.hlo")))

    def one(d):
        device = device_of_capture(d)
        if run_json([cli, "predict", os.path.join(d, "module.hlo"), "--device", device,
                     "--json"]).get("lower_bound"):
            return None  # a trip count assumed: a floor, no estimate of the step
        p = run_json([cli, "profile", d, "--device", device, "--json"])
        return os.path.basename(d), ratio_and_idle(p)
    return [(name, *figures) for name, figures in
            (r for r in parallel(one, [(d,) for d in dirs]) if r)]


def opfamily_sweep(cli, sweep):
    import opfamilies
    if not os.path.isdir(sweep):
        raise Skip(f"{sweep}: absent")
    with tempfile.TemporaryDirectory() as scratch:
        profiles = opfamilies.unpacked_profiles(sweep, scratch)
        got = parallel(lambda c: opfamilies.run_case(cli, sweep, profiles, c),
                       [(c,) for c in opfamilies.cases_of(sweep)])
    rows = []
    for case, d, err in got:
        if d is None:
            raise RuntimeError(f"{sweep}/{case}: {err[0]}")
        rows.append((case, *ratio_and_idle(d)))
    return rows


def jaxdecomp(cli, folder, device, nodes):
    import jaxdecomp_nodes
    if not os.path.isdir(folder):
        raise Skip(f"{folder}: absent")
    reports = [jaxdecomp_nodes.report(__import__("pathlib").Path(p))
               for p in sorted(glob.glob(os.path.join(folder, "*.md")))]
    reports = [r for r in reports if r and (r["nodes"] > 1) == (nodes > 1)]

    def one(r):
        m = re.search(r"num_partitions=(\d+)", r["hlo"])
        gpus = int(m.group(1)) if m else r["nodes"] * 8
        target = f"{device}:{r['nodes']}x{gpus // r['nodes']}"
        return r["name"], jaxdecomp_nodes.predict(cli, r["hlo"], target, []) / r["measured_s"]
    return parallel(one, [(r,) for r in reports])


RECIPES_FITTED = ("llama3.1-8b-v6e-8", "llama3.1-70b-tpu7x-64")  # each generation's gemm_plateau
# The GPU clusters' sharded_compute_share (data/hardware/h100.json).
GPU_RECIPES_FITTED = ("llama3-70b-h100-256", "llama3-70b-fp8-h100-256")


def recipes(kept, fitted, gpu=False):
    """The TPU recipes' rows (`gpu`: the GPU clusters'): predicted again from the kept programs
    (--recipes-kept), else as bench/measured/tpu_recipes.json (gpu_recipes.json) holds them
    (predicted when it was written)."""
    if kept:
        import tpu_recipes
        table = tpu_recipes.kept_rows(
            dict(tpu_recipes.GPU_RECIPES if gpu else tpu_recipes.RECIPES), kept)
    else:
        name = "gpu_recipes.json" if gpu else "tpu_recipes.json"
        with open(os.path.join(HERE, "measured", name)) as f:
            table = json.load(f)
    chosen = GPU_RECIPES_FITTED if gpu else RECIPES_FITTED
    return [(r["recipe"], r["expected_step_s"] / r["measured_step_s"]) for r in table
            if not r.get("error") and (r["recipe"] in chosen) == fitted]


def profiles(cli, files):
    present = [f for f in files if os.path.isfile(f)]
    if not present:
        raise Skip("../shared/profiles: absent")

    def one(f):
        p = run_json([cli, "profile", f, "--json"])
        return (os.path.basename(f).replace(".xplane.pb", ""), *ratio_and_idle(p))
    return parallel(one, [(f,) for f in present])


# The MI300X's HBM share and small-kernel floor were fitted to this profile's kernels
# (lib/predict/gpu_expected_time.cc); the other profiles' programs are held out.
MI300X_FITTED = "jax08_elementwise"


def profile_programs(cli, files, fitted):
    """Every program the profiles carry that ran (`hloroof profile --modules`), each a whole
    program measured end to end: those of the fitted profile, or (not `fitted`) the others."""
    present = [f for f in files if os.path.isfile(f)]
    if not present:
        raise Skip("../shared/profiles: absent")
    jobs = []
    for f in present:
        name = os.path.basename(f).replace(".xplane.pb", "")
        if (name == MI300X_FITTED) != fitted:
            continue
        for m in run_json([cli, "profile", f, "--modules", "--json"])["modules"]:
            if m["time_s"] > 0:
                jobs.append((f, name, m["name"]))

    def one(f, name, module):
        r = subprocess.run([cli, "profile", f, "--module", module, "--json"],
                           capture_output=True, text=True)
        # A program sharing its name with one that ran (the host's events name no program id,
        # so --modules gives each the name's time) that never ran itself: none to compare.
        if r.returncode != 0 and "never runs" in r.stderr:
            return None
        if r.returncode != 0:
            raise RuntimeError(f"{cli} profile {f} --module {module}: {r.stderr.strip()}")
        return (f"{name} {module}", *ratio_and_idle(json.loads(r.stdout)))
    return [item for item in parallel(one, jobs) if item is not None]


def plan(args):
    """(name, kind, fast, runner) of every set, in the table's order."""
    shared = shared_dir()
    measured = os.path.join(shared, "measured")
    cli = args.cli
    out = []
    for dev, sub in (("h100", "default"), ("h100", "no_command_buffers"), ("h200", "default")):
        root = os.path.join(ROOT, "tests", "data", dev, sub)
        out.append((f"captures {dev} {sub.replace('_', ' ')}", "program", True,
                    lambda root=root: captures(cli, root)))
    for gpu in ("h200", "h100"):
        sweep = os.path.join(measured, f"gpu_{gpu}_opfamilies")
        out.append((f"op families {gpu}, fitted", "program", True,
                    lambda s=sweep: opfamily_sweep(cli, s)))
    for gpu in ("h200", "h100"):
        sweep = os.path.join(HERE, "measured", f"gpu_{gpu}_heldout")
        out.append((f"op families {gpu}, held out", "program", True,
                    lambda s=sweep: opfamily_sweep(cli, s)))
    for gpu in ("h200", "h100"):
        sweep = os.path.join(HERE, "measured", f"gpu_{gpu}_cache")
        out.append((f"L2 reuse and fills {gpu}", "program", False,
                    lambda s=sweep: opfamily_sweep(cli, s)))
    # Sets measured after the models they check, on one H200; the unaligned GEMMs' shares and
    # the H200's gemm_plateau were read off the first, the rule of row reductions through a
    # dynamic-slice off the decode steps and that of a loop's launches hidden behind the work
    # before it off their cache writes (docs/prediction-model.md).
    for sub, name in (("unaligned", "unaligned GEMMs h200, fitted"),
                      ("decode", "decode pieces h200, two rules from it"),
                      ("convs", "convolutions h200, held out"),
                      ("contention", "repeated scatter indices h200, held out")):
        sweep = os.path.join(HERE, "measured", f"gpu_h200_{sub}")
        out.append((name, "program", True, lambda s=sweep: opfamily_sweep(cli, s)))
    fft = os.path.join(measured, "a100_jaxdecomp")
    jean_zay = os.path.join(ROOT, "examples", "a100_jean_zay.json")
    out.append(("A100 FFTs, 1 node (a100)", "program", True,
                lambda: jaxdecomp(cli, fft, "a100", 1)))
    out.append(("A100 FFTs, 2 nodes (a100_jean_zay, fitted)", "program", True,
                lambda: jaxdecomp(cli, fft, jean_zay, 2)))
    out.append(("A100 FFTs, 2 nodes (built-in a100)", "program", True,
                lambda: jaxdecomp(cli, fft, "a100", 2)))
    src = "kept programs" if args.recipes_kept else "tpu_recipes.json"
    out.append((f"TPU recipes, held out ({src})", "program", True,
                lambda: recipes(args.recipes_kept, False)))
    out.append((f"TPU recipes, fitted ({src})", "program", True,
                lambda: recipes(args.recipes_kept, True)))
    src = "kept programs" if args.recipes_kept else "gpu_recipes.json"
    out.append((f"GPU clusters, held out ({src})", "program", True,
                lambda: recipes(args.recipes_kept, False, gpu=True)))
    out.append((f"GPU clusters, fitted ({src})", "program", True,
                lambda: recipes(args.recipes_kept, True, gpu=True)))
    prof = os.path.join(shared, "profiles")
    out.append(("real profile TPU v6e", "program", True,
                lambda: profiles(cli, [os.path.join(prof, "tpu_v6e",
                                                    "tpu_inference_2.xplane.pb")])))
    amd = sorted(glob.glob(os.path.join(prof, "mi300", "*.xplane.pb")))
    out.append(("MI300X programs, fitted (jax08_elementwise)", "program", True,
                lambda: profile_programs(cli, amd, True)))
    out.append(("MI300X programs, held out (MI355: h100)", "program", True,
                lambda: profile_programs(cli, amd, False)))
    return out


# A program whose measured step is at most this share idle is kernel-bound: its ratio judges the
# device model alone.
BUSY_IDLE = 0.10


def stats(name, kind, fast, items):
    """A set's figures from its items: (name, ratio) or (name, ratio, idle share of the measured
    step) each."""
    idle = {i[0]: i[2] for i in items if len(i) > 2 and i[2] is not None}
    items = [(i[0], i[1]) for i in items]
    ratios = [r for _, r in items]
    errors = [abs(r - 1) for r in ratios]
    s = {"set": name, "kind": kind, "fast": fast, "n": len(ratios),
         "within_25": sum(e <= WITHIN for e in errors),
         "median_error": statistics.median(errors) if errors else None,
         "median_ratio": statistics.median(ratios) if ratios else None}
    s["biased"] = s["median_ratio"] is not None and not (
        BIAS_LOW <= s["median_ratio"] <= BIAS_HIGH)
    if kind == "program":
        s["items"] = {i: r for i, r in items}
    if idle:
        busy = [r for i, r in items if i in idle and idle[i] <= BUSY_IDLE]
        s["idle"] = idle
        s["n_busy"] = len(busy)
        s["busy_ratio"] = statistics.median(busy) if busy else None
    return s


FAILED = (RuntimeError, subprocess.CalledProcessError, ValueError, KeyError)


def run(args):
    sets, skipped, errors = [], [], []
    for name, kind, fast, runner in plan(args):
        if args.fast and not fast:
            continue
        print(f"ledger: {name}", file=sys.stderr)
        try:
            sets.append(stats(name, kind, fast, runner()))
        except Skip as e:
            skipped.append(f"{name}: {e}")
        except FAILED as e:  # a program the build no longer predicts: a failure, not a skip
            errors.append(f"{name}: {e}")
    try:
        grouped = table_rows(args.accuracy_bench)
        for (name, half), items in sorted(grouped.items(), key=lambda kv: (kv[0][1] != "test",
                                                                           kv[0][0])):
            if args.fast and half != "test":
                continue
            sets.append(stats(name, "op", half == "test", items))
    except Skip as e:
        skipped.append(f"XLA tables: {e}")
    except FAILED as e:
        errors.append(f"XLA tables: {e}")
    return {"sets": sets, "skipped": skipped, "errors": errors}


def table(result):
    lines = [f"{'set':<44} {'kind':<7} {'n':>5} {'in 25%':>7} {'|err|':>6} {'ratio':>6} "
             f"{'flag':<4} {'busy':>9}"]
    for kind in ("program", "op"):
        for s in result["sets"]:
            if s["kind"] != kind or not s["n"]:
                continue
            busy = (f"{s['busy_ratio']:.2f} ({s['n_busy']})" if s.get("busy_ratio") is not None
                    else "")
            lines.append((f"{s['set']:<44} {kind:<7} {s['n']:>5} {s['within_25']:>7} "
                          f"{100 * s['median_error']:>5.1f}% {s['median_ratio']:>6.2f} "
                          f"{'bias' if s['biased'] else '':<4} {busy:>9}").rstrip())
    programs = [r for s in result["sets"] if s["kind"] == "program" for r in
                s["items"].values()]
    busy = [r for s in result["sets"] if s["kind"] == "program" for i, r in s["items"].items()
            if s.get("idle", {}).get(i, 1) <= BUSY_IDLE]
    if programs:
        errors = [abs(r - 1) for r in programs]
        median = statistics.median(programs)
        busy_text = f"{statistics.median(busy):.2f} ({len(busy)})" if busy else ""
        lines.append((f"{'every whole program':<44} {'program':<7} {len(programs):>5} "
                      f"{sum(e <= WITHIN for e in errors):>7} "
                      f"{100 * statistics.median(errors):>5.1f}% {median:>6.2f} "
                      f"{'' if BIAS_LOW <= median <= BIAS_HIGH else 'bias':<4} "
                      f"{busy_text:>9}").rstrip())
    lines.append("in 25%: predicted within 25% of measured; |err|: median |predicted/measured - "
                 "1|;")
    lines.append("ratio: median predicted/measured (bias); flag 'bias': ratio outside "
                 f"{BIAS_LOW}-{BIAS_HIGH};")
    lines.append(f"busy: the median ratio of the programs (how many) whose measured step is at "
                 f"most {100 * BUSY_IDLE:.0f}% idle")
    for s in result.get("skipped", []):
        lines.append(f"skipped: {s}"[:100])
    for e in result.get("errors", []):
        lines.append(textwrap.fill(f"error: {e}", 100, subsequent_indent="  "))
    return "\n".join(lines)


def baseline_of(result):
    """What a baseline keeps: every set's figures; the programs' own ratios (for crossings)."""
    return {"sets": [{k: (round(v, 4) if isinstance(v, float) else v) for k, v in s.items()
                      if k not in ("items", "idle")}
                     | {k: {i: round(r, 4) for i, r in s[k].items()}
                        for k in ("items", "idle") if k in s}
                     for s in result["sets"]]}


def check(result, baseline):
    """The regressions of `result` against `baseline`: one line each (empty: none)."""
    now = {s["set"]: s for s in result["sets"]}
    problems = []
    for b in baseline["sets"]:
        if b["kind"] != "program" or not b["n"]:
            continue
        s = now.get(b["set"])
        if s is None:
            continue  # not run this time (--fast, or inputs absent: said under "skipped")
        name = b["set"]
        if s["median_error"] > b["median_error"] + MAX_ERROR_WORSENING + 1e-9:
            problems.append(f"{name}: median error {100 * s['median_error']:.1f}%, baseline "
                            f"{100 * b['median_error']:.1f}% (more than 1 point worse)")
        if abs(s["median_ratio"] - b["median_ratio"]) > MAX_BIAS_MOVE + 1e-9:
            problems.append(f"{name}: bias {s['median_ratio']:.3f}, baseline "
                            f"{b['median_ratio']:.3f} (moved more than {MAX_BIAS_MOVE})")
        for item, r0 in sorted(b.get("items", {}).items()):
            r = s.get("items", {}).get(item)
            if r is None:
                problems.append(f"{name}: {item} no longer predicted")
            elif abs(r0 - 1) <= WITHIN and abs(r - 1) > WITHIN:
                problems.append(f"{name}: {item} crossed 25%: x{r:.2f} (baseline x{r0:.2f})")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "tools", "hloroof"))
    ap.add_argument("--accuracy-bench", default=os.path.join(ROOT, "build", "bench",
                                                             "accuracy_bench"))
    ap.add_argument("--fast", action="store_true", help="the part that CI runs")
    ap.add_argument("--json", help="write the ledger's figures here")
    ap.add_argument("--check", metavar="BASELINE", help="exit 1 on a regression against it")
    ap.add_argument("--write-baseline", metavar="OUT", help="write this run as a baseline")
    ap.add_argument("--recipes-kept", metavar="DIR",
                    help="predict the TPU recipes' kept programs again (bench/tpu_recipes.py)")
    ap.add_argument("--results", metavar="JSON", help="an earlier --json: run nothing")
    args = ap.parse_args()

    def read_json(flag, path):
        try:
            with open(path) as f:
                return json.load(f)
        except (OSError, ValueError) as e:
            ap.error(f"{flag} {path}: {e}")

    if args.results:
        result = read_json("--results", args.results)
    else:
        if not os.access(args.cli, os.X_OK):
            ap.error(f"{args.cli}: not built (cmake --build build --target hloroof_cli)")
        result = run(args)
    print(table(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    if args.write_baseline:
        with open(args.write_baseline, "w") as f:
            json.dump(baseline_of(result), f, indent=1)
            f.write("\n")
    failed = bool(result.get("errors"))
    if args.check:
        baseline = read_json("--check", args.check)
        problems = check(result, baseline)
        for p in problems:
            print(textwrap.fill(f"regression: {p}", 100, subsequent_indent="  "))
        if problems or failed:
            return 1
        print(f"no regression against {os.path.relpath(args.check, ROOT)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
