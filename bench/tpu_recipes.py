#!/usr/bin/env python3
"""Published TPU training recipes compiled offline for their slice, predicted, and compared.

    PYTHONPATH=build/python $(tools/venv.sh) bench/tpu_recipes.py [--hloroof build/tools/hloroof]
        [--json OUT] [--keep DIR] [--show JSON] [RECIPE ...]

Each recipe (RECIPES below) is a train step that AI-Hypercomputer/tpu-recipes publishes with its
measured step time (the log line `completed step: N, seconds: S, TFLOP/s/device: F`). MaxText
itself needs Python 3.12; here the recipe's model is rebuilt in plain JAX with the recipe's
shapes: a decoder of its layers, width, heads and vocabulary, its per-device batch and sequence,
fully sharded over the slice (FSDP: weights and the batch over every chip), the layers in a
scan, each layer's input offloaded to host memory and the rest rematerialized, and attention by
the same Pallas splash kernel with the recipe's 2048 blocks. It differs from MaxText's program,
and every row says so: plain SGD (MaxText: AdamW, f32 weights), no rotary embedding, the
projections recomputed (MaxText offloads them too), the key and value heads repeated for the
kernel, and only two of the recipe's XLA flags (scoped VMEM, collective matmul off).

The step is compiled for the recipe's slice by libtpu without a TPU (hloroof.jax.compile_for,
with those two flags), its optimized program predicted by `hloroof predict` on
that slice, and its memory by `hloroof memory` beside XLA's own `memory_analysis()`. Prints one
row per recipe: chips, the published step and its source's MFU (TFLOP/s per device over the
chip's bf16 peak), the expected and roofline step and their MFU for the same model FLOPs, XLA's
temporaries beside ours, and the compile time. Never shrinks a model: a recipe that does not
compile here says why.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# The models, as the recipes' MaxText configs give them.
LLAMA3_1_8B = dict(layers=32, width=4096, ffn=14336, heads=32, kv_heads=8, head_dim=128,
                   vocab=128256)
MISTRAL_7B = dict(LLAMA3_1_8B, vocab=32000)
TRILLIUM = "AI-Hypercomputer/tpu-recipes training/trillium/"

# The recipes: the model, the slice, the batch, and what the recipe's README publishes.
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
}

# Two of the recipes' XLA flags (MaxText's xla_flags_library): DENSE_VMEM_LIMIT_FLAG (the splash
# kernel's backward needs more scoped VMEM than the default) and DISABLE_COLLECTIVE_MATMUL (no
# windowed einsums: without it XLA splits each sharded matmul into a loop over the slice, which
# reads the activations once per chip).
LIBTPU_FLAGS = ("--xla_tpu_scoped_vmem_limit_kib=98304 "
                "--xla_jf_spmd_threshold_for_windowed_einsum_mib=1000000")

# bf16 peak per chip (the same figures as hloroof's device specs), for the published MFU.
PEAK_BF16 = {"tpu_v6e": 918e12, "tpu_v5p": 459e12}

DIFFERENCES = ("plain JAX, not MaxText: SGD (MaxText AdamW, f32 weights), no rotary embedding, "
               "projections recomputed (MaxText offloads them), kv heads repeated for splash, "
               "two of the recipe's XLA flags (scoped VMEM, no collective matmul), not all")


def chips_of(target):
    shape = target.split(":")[1]
    return math.prod(int(x) for x in shape.split("x"))


def train_step(r, mesh_axis="fsdp"):
    """The recipe's train step and its abstract arguments, with their PartitionSpecs."""
    import jax
    import jax.numpy as jnp
    from jax.ad_checkpoint import checkpoint_name
    from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_kernel as sk
    from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_mask as sm
    from jax.experimental.shard_map import shard_map
    from jax.sharding import PartitionSpec as P

    bf = jnp.bfloat16
    D, F, H, KV, HD, V = (r["width"], r["ffn"], r["heads"], r["kv_heads"], r["head_dim"],
                          r["vocab"])
    blocks = sk.BlockSizes(block_q=2048, block_kv=2048, block_kv_compute=2048,
                           block_q_dkv=2048, block_kv_dkv=2048, block_kv_dkv_compute=2048,
                           use_fused_bwd_kernel=True)

    def act(x):  # activations: the batch over the slice, as MaxText constrains them
        return jax.lax.with_sharding_constraint(x, P(mesh_axis, *([None] * (x.ndim - 1))))

    def rms(x, w):
        x32 = x.astype(jnp.float32)
        return (x32 * jax.lax.rsqrt(jnp.mean(x32 * x32, -1, keepdims=True) + 1e-5)).astype(bf) * w

    def splash(q, k, v):  # one chip's batch: [b, s, heads, d]
        kernel = sk.make_splash_mha(
            sm.MultiHeadMask([sm.CausalMask((q.shape[1], q.shape[1]))] * H),
            block_sizes=blocks, head_shards=1, q_seq_shards=1)
        heads_major = lambda x: x.transpose(0, 2, 1, 3)
        o = jax.vmap(kernel)(heads_major(q) / math.sqrt(HD),
                             heads_major(jnp.repeat(k, H // KV, axis=2)),
                             heads_major(jnp.repeat(v, H // KV, axis=2)))
        return heads_major(o)

    def attention(q, k, v):
        spec = P(mesh_axis, None, None, None)
        return shard_map(splash, mesh=jax.sharding.get_abstract_mesh(), in_specs=(spec,) * 3,
                         out_specs=spec, check_rep=False)(q, k, v)

    def layer(x, w):
        x = act(checkpoint_name(x, "decoder_layer_input"))
        h = act(rms(x, w["ln1"]))
        b, s = h.shape[:2]
        q = act((h @ w["wq"]).reshape(b, s, H, HD))
        k = act((h @ w["wk"]).reshape(b, s, KV, HD))
        v = act((h @ w["wv"]).reshape(b, s, KV, HD))
        x = act(x + act(act(attention(q, k, v)).reshape(b, s, H * HD) @ w["wo"]))
        h = act(rms(x, w["ln2"]))
        g = act(jax.nn.silu(act(h @ w["w1"])) * act(h @ w["w3"]))
        return act(x + act(g @ w["w2"]))

    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["decoder_layer_input"],
        offload_src="device", offload_dst="pinned_host")

    def loss(params, tokens):
        x = act(params["embed"][tokens])
        body = jax.checkpoint(lambda c, w: (layer(c, w), None), policy=policy)
        x, _ = jax.lax.scan(body, x, params["layers"])
        logits = act(rms(x, params["lnf"]) @ params["head"])
        lse = jax.nn.logsumexp(logits.astype(jnp.float32), axis=-1)
        return jnp.mean(lse - logits[..., 0].astype(jnp.float32))

    def step(params, tokens):
        value, grads = jax.value_and_grad(loss)(params, tokens)
        return jax.tree.map(lambda p, g: (p - 1e-4 * g).astype(p.dtype), params, grads), value

    L = r["layers"]
    sd = jax.ShapeDtypeStruct
    layers = {"ln1": sd((L, D), bf), "ln2": sd((L, D), bf), "wq": sd((L, D, H * HD), bf),
              "wk": sd((L, D, KV * HD), bf), "wv": sd((L, D, KV * HD), bf),
              "wo": sd((L, H * HD, D), bf), "w1": sd((L, D, F), bf), "w3": sd((L, D, F), bf),
              "w2": sd((L, F, D), bf)}
    params = {"embed": sd((V, D), bf), "layers": layers, "lnf": sd((D,), bf),
              "head": sd((D, V), bf)}
    specs = {"embed": P(mesh_axis, None), "lnf": P(None), "head": P(mesh_axis, None),
             "layers": {k: P(None, mesh_axis, *([None] * (len(v.shape) - 2)))
                        for k, v in layers.items()}}
    tokens = sd((r["batch_per_chip"] * chips_of(r["target"]), r["seq"]), jnp.int32)
    return step, (params, tokens), (specs, P(mesh_axis, None))


def cli_json(hloroof, args):
    out = subprocess.run([hloroof, *args, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr else "failed")
    return json.loads(out.stdout)


def run_recipe(name, r, hloroof, keep):
    os.environ["LIBTPU_INIT_ARGS"] = (os.environ.get("LIBTPU_INIT_ARGS", "") + " " +
                                      LIBTPU_FLAGS).strip()
    import hloroof.jax as hj
    step, args, specs = train_step(r)
    start = time.time()
    compiled = hj.compile_for(step, *args, target=r["target"], mesh_axes={"fsdp": chips_of(
        r["target"])}, in_specs=specs)
    compile_s = time.time() - start
    text = getattr(compiled, "_hloroof_hlo_text", None) or compiled.as_text()
    ma = compiled.memory_analysis()
    xla = {k: int(getattr(ma, k)) for k in dir(ma) if k.endswith("_in_bytes")}
    os.makedirs(keep, exist_ok=True)
    path = os.path.join(keep, f"{name}.hlo")
    with open(path, "w") as f:
        f.write(text)
    p = cli_json(hloroof, ["predict", path, "--device", r["target"]])
    m = cli_json(hloroof, ["memory", path, "--device", r["target"]])
    chip = r["target"].split(":")[0]
    model_flops = r["tflops_per_chip"] * 1e12 * r["step_s"]  # the recipe's own count, per chip
    return {
        "recipe": name, "source": r["source"], "target": r["target"],
        "chips": chips_of(r["target"]), "measured_step_s": r["step_s"],
        "expected_step_s": p["step_time_s"], "roofline_step_s": p["roofline_step_time_s"],
        "mfu_measured": r["tflops_per_chip"] * 1e12 / PEAK_BF16[chip],
        "mfu_expected": model_flops / p["step_time_s"] / PEAK_BF16[chip],
        "xla_memory": xla, "our_memory": {k: m.get(k) for k in (
            "argument_bytes", "output_bytes", "temp_bytes", "footprint_bytes", "peak_bytes")
            if k in m},
        "compile_s": compile_s, "differs": DIFFERENCES,
    }


HEADER = (f"{'recipe':<19} {'chips':>5} {'measured':>9} {'expected':>15} {'roofline':>9} "
          f"{'MFU meas/exp':>13} {'temp XLA/ours':>13} {'compile':>7}")


def row_text(row):
    """One recipe's line of the table (100 columns at most)."""
    x, o = row["xla_memory"], row["our_memory"]
    ratio = row["expected_step_s"] / row["measured_step_s"]
    return (f"{row['recipe']:<19} {row['chips']:>5} {row['measured_step_s']:>8.3f}s "
            f"{row['expected_step_s']:>7.3f}s x{ratio:<5.2f} {row['roofline_step_s']:>8.3f}s "
            f"{row['mfu_measured']:>6.1%}/{row['mfu_expected']:<6.1%} "
            f"{x['temp_size_in_bytes'] / 1e9:>5.1f}/{(o.get('temp_bytes') or 0) / 1e9:<5.1f}GB "
            f"{row['compile_s']:>6.0f}s")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("recipes", nargs="*", default=list(RECIPES))
    ap.add_argument("--hloroof", default=os.path.join(ROOT, "build", "tools", "hloroof"))
    ap.add_argument("--json", help="write every row's figures here")
    ap.add_argument("--keep", default="/tmp/hloroof-recipes",
                    help="where the compiled programs are written")
    ap.add_argument("--show", help="print the table of an earlier run's --json, compiling nothing")
    a = ap.parse_args()
    rows = []
    print(HEADER)
    if a.show:
        with open(a.show) as f:
            rows = json.load(f)
        for row in rows:
            print(row_text(row))
    for name in [] if a.show else a.recipes:
        try:
            row = run_recipe(name, RECIPES[name], a.hloroof, a.keep)
        except Exception as e:  # a recipe that does not compile here says why
            print(f"{name:<19} not predicted: {str(e).splitlines()[0][:70]}")
            continue
        rows.append(row)
        print(row_text(row))
    print(textwrap.fill(f"every row: {DIFFERENCES}", 100))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
