#!/usr/bin/env python3
"""Published TPU training recipes compiled offline for their slice, predicted, and compared.

    PYTHONPATH=build/python $(tools/venv.sh) bench/tpu_recipes.py [--hloroof build/tools/hloroof]
        [--json OUT] [--keep DIR] [--reuse] [--show JSON] [--recipes-json MORE] [RECIPE ...]

Each recipe (RECIPES below) is a train step whose measured step time is published: by
AI-Hypercomputer/tpu-recipes (the log line `completed step: N, seconds: S, TFLOP/s/device: F`)
or by MaxText's own guide to its logs. MaxText itself needs Python 3.12; here the recipe's model
is rebuilt in plain JAX with the recipe's shapes, batch, sequence, sharding, scan, remat and
attention kernel (bench/recipe_models.py). Every row says how its program differs from
MaxText's.

The step is compiled for the recipe's slice by libtpu without a TPU (hloroof.jax.compile_for,
with the recipe's XLA flags that this program takes), one recipe per process, its optimized
program predicted by `hloroof predict` on that slice, and its memory by `hloroof memory` beside
XLA's own `memory_analysis()`. Prints one row per recipe: chips, the published step and its
source's MFU (TFLOP/s per device over the chip's bf16 peak), the expected and roofline step and
their MFU for the same model FLOPs, XLA's temporaries beside ours, and the compile time. Never
shrinks a model: a recipe that does not compile here says why.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# The models, as the recipes' MaxText configs give them (src/maxtext/configs/models/*.yml).
LLAMA3_1_8B = dict(model="dense", layers=32, width=4096, ffn=14336, heads=32, kv_heads=8,
                   head_dim=128, vocab=128256)
LLAMA3_1_70B = dict(LLAMA3_1_8B, layers=80, width=8192, ffn=28672, heads=64)
MISTRAL_7B = dict(LLAMA3_1_8B, vocab=32000)
DEEPSEEK2_16B = dict(model="deepseek", layers=27, dense_layers=1, width=2048, ffn=10944,
                     heads=16, qk_nope_dim=128, qk_rope_dim=64, v_dim=128, kv_lora_rank=512,
                     experts=64, experts_per_token=6, shared_experts=2, moe_ffn=1408,
                     vocab=102400)
TRILLIUM = "AI-Hypercomputer/tpu-recipes training/trillium/"
MODELS = {"llama3.1-8b": LLAMA3_1_8B, "llama3.1-70b": LLAMA3_1_70B, "mistral-7b": MISTRAL_7B,
          "deepseek2-16b": DEEPSEEK2_16B}

# Two of the dense recipes' XLA flags (MaxText's xla_flags_library): DENSE_VMEM_LIMIT_FLAG (the
# splash kernel's backward needs more scoped VMEM than the default) and DISABLE_COLLECTIVE_MATMUL
# (no windowed einsums: without it XLA splits each sharded matmul into a loop over the slice,
# which reads the activations once per chip).
DENSE_FLAGS = ("--xla_tpu_scoped_vmem_limit_kib=98304 "
               "--xla_jf_spmd_threshold_for_windowed_einsum_mib=1000000")
DENSE_DIFFERS = ("SGD (MaxText AdamW), no rotary embedding, projections recomputed (MaxText "
                 "offloads them), kv heads repeated for splash, two of the recipe's XLA flags "
                 "(scoped VMEM, no collective matmul)")
DEEPSEEK_DIFFERS = ("no rotary embedding, v padded to q's head size for splash, routing by "
                    "argsort and scatter (MaxText: a custom sort gradient), AdamW without bias "
                    "correction, no load-balance loss")

# The recipes: the model, the slice, the batch, and what the recipe's source publishes.
RECIPES = {
    "llama3.1-8b-v6e-8": dict(
        LLAMA3_1_8B, source=TRILLIUM + "Llama3.1-8B-MaxText/v6e-8/README.md",
        target="tpu_v6e:2x4", batch_per_chip=3, seq=8192, step_s=3.443, tflops_per_chip=413.433),
    "llama3.1-8b-v6e-16": dict(
        LLAMA3_1_8B, source=TRILLIUM + "Llama3.1-8B-MaxText/v6e-16/README.md",
        target="tpu_v6e:4x4", batch_per_chip=3, seq=8192, step_s=3.393, tflops_per_chip=419.485),
    "llama3.1-8b-v6e-32": dict(
        LLAMA3_1_8B, source=TRILLIUM + "Llama3.1-8B-MaxText/v6e-32/README.md",
        target="tpu_v6e:4x8", batch_per_chip=3, seq=8192, step_s=3.495, tflops_per_chip=407.225),
    "mistral-7b-v6e-8": dict(
        MISTRAL_7B, source=TRILLIUM + "Mistral-7B-MaxText/README.md",
        target="tpu_v6e:2x4", batch_per_chip=6, seq=8192, step_s=6.320, tflops_per_chip=431.981),
    "llama3.1-70b-v6e-32": dict(
        LLAMA3_1_70B, source=TRILLIUM + "Llama3.1-70B-MaxText/v6e-32/README.md",
        target="tpu_v6e:4x8", batch_per_chip=2, seq=8192, step_s=17.790,
        tflops_per_chip=443.385),
    # MaxText's defaults otherwise: f32 weights, AdamW, full remat, no XLA flags.
    "deepseek2-16b-v5p-8": dict(
        DEEPSEEK2_16B, source="AI-Hypercomputer/maxtext docs/guides/understand_logs_and_metrics.md",
        target="tpu_v5p:2x2x1", batch_per_chip=24, seq=2048, step_s=5.667,
        tflops_per_chip=134.924),
}


def completed(r):
    """A recipe with its model's shapes (`model_name`: one of MODELS, or the shapes given), its
    flags and what its program does differently, as the table's entries have them."""
    r = dict(MODELS.get(r.get("model_name"), {}), **r)
    missing = [k for k in ("model", "target", "batch_per_chip", "seq", "step_s",
                           "tflops_per_chip") if k not in r]
    if missing:
        raise ValueError(f"a recipe needs {', '.join(missing)} (or a model_name of "
                         f"{', '.join(MODELS)})")
    r.setdefault("flags", DENSE_FLAGS if r["model"] == "dense" else "")
    r.setdefault("differs", DENSE_DIFFERS if r["model"] == "dense" else DEEPSEEK_DIFFERS)
    r.setdefault("source", "given")
    return r


RECIPES = {name: completed(r) for name, r in RECIPES.items()}

def chips_of(target):
    shape = target.split(":")[1]
    return math.prod(int(x) for x in shape.split("x"))


def cli_json(hloroof, args):
    out = subprocess.run([hloroof, *args, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr else "failed")
    return json.loads(out.stdout)


def compile_recipe(name, r, keep):
    """Compiles the recipe's step (in a process of its own: libtpu reads its flags once) and
    writes its optimized program and XLA's figures to `keep`."""
    os.environ["LIBTPU_INIT_ARGS"] = (os.environ.get("LIBTPU_INIT_ARGS", "") + " " +
                                      r["flags"]).strip()
    sys.path.insert(0, HERE)
    import hloroof.jax as hj
    from recipe_models import BUILDERS
    step, args, specs, donate = BUILDERS[r["model"]](dict(r, chips=chips_of(r["target"])))
    start = time.time()
    compiled = hj.compile_for(step, *args, target=r["target"], mesh_axes={"fsdp": chips_of(
        r["target"])}, in_specs=specs, donate_argnums=donate)
    compile_s = time.time() - start
    text = getattr(compiled, "_hloroof_hlo_text", None) or compiled.as_text()
    ma = compiled.memory_analysis()
    os.makedirs(keep, exist_ok=True)
    with open(os.path.join(keep, f"{name}.hlo"), "w") as f:
        f.write(text)
    with open(os.path.join(keep, f"{name}.xla.json"), "w") as f:
        json.dump({"compile_s": compile_s, "xla_memory": {
            k: int(getattr(ma, k)) for k in dir(ma) if k.endswith("_in_bytes")}}, f)


def run_recipe(name, r, hloroof, keep, reuse=False, timeout_s=None):
    os.makedirs(keep, exist_ok=True)
    compiled_files = [os.path.join(keep, f"{name}{ext}") for ext in (".hlo", ".xla.json")]
    if reuse and all(os.path.exists(f) for f in compiled_files):
        return predicted(name, r, hloroof, keep)
    with open(os.path.join(keep, f"{name}.recipe.json"), "w") as f:
        json.dump(dict(r, name=name), f)
    try:
        child = subprocess.run([sys.executable, os.path.abspath(__file__), "--compile-one",
                                os.path.join(keep, f"{name}.recipe.json"), "--keep", keep],
                               capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"the compile ran past --timeout {timeout_s:.0f} s") from None
    if child.returncode < 0:  # a signal: on these machines, mostly the kernel's OOM killer
        raise RuntimeError(f"the compile was killed by signal {-child.returncode} (out of this "
                           "machine's memory?)")
    if child.returncode != 0:  # the exception's own line, not the notes printed after it
        lines = [l for l in child.stderr.splitlines() if l.strip()]
        errors = [l for l in lines if re.match(r"[\w.]*(Error|Exception)\b.*:", l)]
        raise RuntimeError((errors or lines or [f"exit status {child.returncode}"])[-1])
    return predicted(name, r, hloroof, keep)


def predicted(name, r, hloroof, keep):
    """The row of a recipe compiled into `keep`: hloroof's prediction beside the published step."""
    with open(os.path.join(keep, f"{name}.xla.json")) as f:
        compiled = json.load(f)
    path = os.path.join(keep, f"{name}.hlo")
    p = cli_json(hloroof, ["predict", path, "--device", r["target"]])
    m = cli_json(hloroof, ["memory", path, "--device", r["target"]])
    peak = p["peak_flop_rate"]  # the chip's bf16 peak, as hloroof's device spec gives it
    model_flops = r["tflops_per_chip"] * 1e12 * r["step_s"]  # the recipe's own count, per chip
    return {
        "recipe": name, "source": r["source"], "target": r["target"],
        "chips": chips_of(r["target"]), "measured_step_s": r["step_s"],
        "expected_step_s": p["step_time_s"], "roofline_step_s": p["roofline_step_time_s"],
        "mfu_measured": r["tflops_per_chip"] * 1e12 / peak,
        "mfu_expected": model_flops / p["step_time_s"] / peak,
        "xla_memory": compiled["xla_memory"], "our_memory": {k: m.get(k) for k in (
            "argument_bytes", "output_bytes", "temp_bytes", "host_temp_bytes", "footprint_bytes",
            "peak_bytes")
            if k in m},
        "compile_s": compiled["compile_s"], "model": r["model"], "differs": r["differs"],
    }


HEADER = (f"{'recipe':<19} {'chips':>5} {'measured':>9} {'expected':>15} {'roofline':>9} "
          f"{'MFU meas/exp':>13} {'temp XLA,ours':>13} {'compile':>7}")


def row_text(row):
    """One recipe's line of the table (100 columns at most)."""
    x, o = row["xla_memory"], row["our_memory"]
    ratio = row["expected_step_s"] / row["measured_step_s"]
    temp_ratio = (o.get("temp_bytes") or 0) / max(x["temp_size_in_bytes"], 1)  # ours over XLA's
    return (f"{row['recipe']:<19} {row['chips']:>5} {row['measured_step_s']:>8.3f}s "
            f"{row['expected_step_s']:>7.3f}s x{ratio:<5.2f} {row['roofline_step_s']:>8.3f}s "
            f"{row['mfu_measured']:>6.1%}/{row['mfu_expected']:<6.1%} "
            f"{x['temp_size_in_bytes'] / 1e9:>5.2f}GB x{temp_ratio:<5.3f} "
            f"{row['compile_s']:>6.0f}s")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("recipes", nargs="*", help="recipes to run (default: every one of the "
                    "table, or of --recipes-json)")
    ap.add_argument("--recipes-json", help="more recipes, a JSON object of name -> recipe: "
                    "model_name (" + ", ".join(MODELS) + ") or the model's shapes, target "
                    "(DEVICE:SLICE), batch_per_chip, seq, step_s, tflops_per_chip; optional "
                    "flags (LIBTPU_INIT_ARGS), source, differs")
    ap.add_argument("--hloroof", default=os.path.join(ROOT, "build", "tools", "hloroof"))
    ap.add_argument("--json", help="write every row's figures here")
    ap.add_argument("--keep", default="/tmp/hloroof-recipes",
                    help="where the compiled programs are written")
    ap.add_argument("--reuse", action="store_true",
                    help="predict the programs already compiled into --keep, compiling the others")
    ap.add_argument("--show", help="print the table of an earlier run's --json, compiling nothing")
    ap.add_argument("--timeout", type=float, default=3600,
                    help="seconds one recipe's compile may take (default 3600)")
    ap.add_argument("--compile-one", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.compile_one:
        with open(a.compile_one) as f:
            r = json.load(f)
        return compile_recipe(r["name"], r, a.keep)
    recipes = dict(RECIPES)
    if a.recipes_json:  # recipes of the caller's: {name: {model_name or shapes, target, ...}}
        try:
            with open(a.recipes_json) as f:
                given = {name: completed(r) for name, r in json.load(f).items()}
        except (OSError, ValueError, AttributeError) as e:
            ap.error(f"--recipes-json {a.recipes_json}: {e}")
        recipes.update(given)
        if not a.recipes:
            a.recipes = list(given)
    a.recipes = a.recipes or list(RECIPES)
    rows = []
    print(HEADER)
    if a.show:
        with open(a.show) as f:
            rows = json.load(f)
        for row in rows:
            print(row_text(row))
    for name in [] if a.show else a.recipes:
        if name not in recipes:
            print(f"{name:<19} not a recipe; known: {', '.join(recipes)}")
            continue
        try:
            row = run_recipe(name, recipes[name], a.hloroof, a.keep, a.reuse, a.timeout)
        except Exception as e:  # a recipe that does not compile here says why
            print(f"{name:<19} not predicted: {str(e).splitlines()[0][:70]}")
            continue
        rows.append(row)
        print(row_text(row))
    for model in sorted({row.get("model", "dense") for row in rows}):
        differs = next(row["differs"] for row in rows if row.get("model", "dense") == model)
        print(textwrap.fill(f"{model} rows, plain JAX, not MaxText: {differs}", 100))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
