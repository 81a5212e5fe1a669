"""What if: one transformer train step, two shardings, several slices you do not have.

Compiles a small decoder-only transformer's training step offline (hloroof.jax.compile_for:
libtpu for the TPU slices, JAX's CUDA plugin for the H100 node, no accelerator needed) with
FSDP and with FSDP + tensor parallelism, predicts each compiled step with hloroof, and prints
one table: predicted step time, HFU (every FLOP the step runs) and MFU (the model's 6ND FLOPs,
as MaxText counts them), HBM peak against the device's capacity, the costliest ops.

    python examples/python/whatif.py                  # every target (about a minute)
    python examples/python/whatif.py --targets tpu_v5e:2x2 --markdown

A target the compiler refuses gets a row saying what it said. Needs jax and libtpu
(python/requirements-test.txt pins the versions checked) and hloroof importable.
"""

import argparse
import os
import sys
import time

# The CPU is the only backend started: JAX's CUDA plugin then compiles for the H100 node
# without a GPU (it fails to start, and registers nothing, when JAX tries to use CUDA).
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

import hloroof  # noqa: E402
import hloroof.jax  # noqa: E402

# The model: 2 layers, d_model 1024, 8 heads, MLP 4096, vocabulary 8192, 512 tokens per
# sequence, 4 sequences per device; bf16 weights and activations. --small: 1 layer, smaller
# dimensions (the test's quick run).
LAYERS, D, HEADS, FF, VOCAB, SEQ, PER_DEVICE = 2, 1024, 8, 4096, 8192, 512, 4
SMALL = dict(LAYERS=1, D=256, HEADS=2, FF=1024, VOCAB=2048, SEQ=256, PER_DEVICE=2)
TARGETS = ["tpu_v5e:2x2", "tpu_v5p:2x2x1", "tpu_v6e:2x2", "tpu7x:2x2x1", "h100:8"]


def param_shapes():
    bf16 = jnp.bfloat16
    layer = {name: jax.ShapeDtypeStruct(shape, bf16) for name, shape in
             [("wq", (D, D)), ("wk", (D, D)), ("wv", (D, D)), ("wo", (D, D)),
              ("w1", (D, FF)), ("w2", (FF, D))]}
    return {"embed": jax.ShapeDtypeStruct((VOCAB, D), bf16), "layers": [layer] * LAYERS}


def param_specs(tensor_parallel):
    """FSDP: every weight split over "fsdp" on its first axis. With tensor parallelism the
    attention heads and the MLP's hidden units are split over "tp" too (Megatron style)."""
    tp = "tp" if tensor_parallel else None
    layer = {"wq": P("fsdp", tp), "wk": P("fsdp", tp), "wv": P("fsdp", tp),
             "wo": P(tp, "fsdp"), "w1": P("fsdp", tp), "w2": P(tp, "fsdp")}
    return {"embed": P(None, "fsdp"), "layers": [layer] * LAYERS}


def rms_norm(x):
    return x * jax.lax.rsqrt(jnp.mean(jnp.square(x.astype(jnp.float32)), -1, keepdims=True)
                             + 1e-6).astype(x.dtype)


def loss_fn(params, tokens):
    x = params["embed"][tokens]
    batch, seq, _ = x.shape
    mask = jnp.tril(jnp.ones((seq, seq), bool))
    for w in params["layers"]:
        h = rms_norm(x)
        q, k, v = (jnp.reshape(h @ w[n], (batch, seq, HEADS, D // HEADS))
                   for n in ("wq", "wk", "wv"))
        scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(D // HEADS).astype(x.dtype)
        scores = jnp.where(mask, scores, jnp.finfo(x.dtype).min)
        attention = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, -1), v)
        x = x + jnp.reshape(attention, (batch, seq, D)) @ w["wo"]
        x = x + jax.nn.gelu(rms_norm(x) @ w["w1"]) @ w["w2"]
    logits = (rms_norm(x) @ params["embed"].T).astype(jnp.float32)
    labels = jnp.roll(tokens, -1, axis=1)
    log_probs = jax.nn.log_softmax(logits, -1)
    return -jnp.mean(jnp.take_along_axis(log_probs, labels[..., None], -1))


def train_step(params, tokens):
    loss, grads = jax.value_and_grad(loss_fn)(params, tokens)
    return jax.tree.map(lambda p, g: p - 1e-3 * g, params, grads), loss


def compile_step(target, tensor_parallel):
    devices = len(hloroof.jax.topology_devices(target))
    mesh_axes = {"fsdp": devices // 2, "tp": 2} if tensor_parallel else {"fsdp": devices}
    tokens = jax.ShapeDtypeStruct((PER_DEVICE * devices, SEQ), jnp.int32)
    specs = param_specs(tensor_parallel)
    return hloroof.jax.compile_for(train_step, param_shapes(), tokens, target=target,
                                   mesh_axes=mesh_axes, in_specs=(specs, P("fsdp")),
                                   out_specs=(specs, P()), donate_argnums=(0,))


def model_flops(target):
    """6 x parameters x tokens of one step over every device (the scaling book's and MaxText's
    count of a dense model's training FLOPs, attention left out)."""
    parameters = VOCAB * D + LAYERS * (4 * D * D + 2 * D * FF)
    tokens = PER_DEVICE * len(hloroof.jax.topology_devices(target)) * SEQ
    return 6 * parameters * tokens


def row(target, sharding, compiled):
    p = hloroof.predict(compiled, model_flops=model_flops(target))
    m = hloroof.memory(compiled)
    top = ", ".join(f"{op.category} {op.total_time_s / p.step_time_s:.0%}" for op in p.ops[:2])
    return [target, sharding, f"{p.step_time_s * 1e3:.2f}", f"{p.hfu:.0%}", f"{p.mfu:.0%}",
            f"{m.peak_bytes / 2**30:.2f} / {m.capacity.capacity_bytes / 2**30:.0f}",
            "yes" if m.capacity.fits else "no", top]


HEADER = ["target", "sharding", "step (ms)", "HFU", "MFU", "HBM peak / capacity (GiB)", "fits",
          "top ops (share of step)"]


def table(rows, markdown):
    if markdown:
        lines = ["| " + " | ".join(HEADER) + " |", "|" + "|".join("---" for _ in HEADER) + "|"]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])
    widths = [max(len(str(r[i])) for r in [HEADER] + rows) for i in range(len(HEADER))]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()
                     for r in [HEADER, ["-" * w for w in widths]] + rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--targets", nargs="+", default=TARGETS)
    parser.add_argument("--markdown", action="store_true", help="a Markdown table")
    parser.add_argument("--small", action="store_true", help="the small model (for tests)")
    args = parser.parse_args(argv)
    if args.small:
        globals().update(SMALL)
    rows, refused = [], []
    start = time.perf_counter()
    for target in args.targets:
        for sharding, tensor_parallel in [("FSDP", False), ("FSDP+TP", True)]:
            try:
                compiled = compile_step(target, tensor_parallel)
            except ValueError as error:
                refused.append(f"{target}: {error}")
                break
            try:
                rows.append(row(target, sharding, compiled))
            except jax.errors.JaxRuntimeError as error:
                # XLA compiled it but cannot give its program back (as_text()).
                first = str(error).splitlines()[0]
                refused.append(f"{target} {sharding}: compiled, but XLA's as_text() failed: "
                               f"{first}")
    print(table(rows, args.markdown))
    for line in refused:
        print(f"\nnot compiled: {line}")
    print(f"\n{len(rows)} steps compiled and predicted in {time.perf_counter() - start:.0f} s; "
          f"jax {jax.__version__}, hloroof {hloroof.__version__}", file=sys.stderr)
    return rows


if __name__ == "__main__":
    main()
