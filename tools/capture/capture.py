#!/usr/bin/env python3
"""Capture a jitted JAX function for `hloroof profile` and `hloroof calibrate`.

Compiles the function once and writes, into one folder:
  module.hlo            the optimized HLO text of the executable that ran
  cost_analysis.json    XLA's compiled.cost_analysis()
  memory_analysis.json  XLA's compiled.memory_analysis() (its integer fields, bytes)
  timings.json          wall-clock time of each timed step, and their median
  meta.json             JAX version, device kind, the module's name, the step count
  profile/              a jax.profiler trace of the steps (plugins/profile/RUN/HOST.xplane.pb,
                        and perfetto_trace.json.gz)
`hloroof profile FOLDER --device D` and `hloroof calibrate FOLDER... --device D -o OUT.json`
read the folder as it is.

From Python:
    from capture import capture
    capture(train_step, params, batch, out="runs/train_step", steps=5)

From the shell, on one of the bundled examples:
    python3 tools/capture/capture.py runs/gemm --example gemm
    python3 tools/capture/capture.py runs/mlp --example mlp --steps 10
    python3 tools/capture/capture.py runs --example all     # runs/gemm, runs/mlp, ...
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tools/
from output_file import write_output  # noqa: E402
from xla_analyses import write_analyses  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np


def _block(x):
    return jax.block_until_ready(x)


def _module_name(hlo_text):
    first = hlo_text.split("\n", 1)[0]
    if first.startswith("HloModule "):
        return first[len("HloModule "):].split(",", 1)[0].strip()
    return ""


def capture(fn, *args, out, steps=5, warmup=2, jit_kwargs=None):
    """Compiles fn(*args), runs it warmup + steps times, writes the capture folder `out`."""
    os.makedirs(out, exist_ok=True)
    compiled = jax.jit(fn, **(jit_kwargs or {})).lower(*args).compile()
    hlo = compiled.as_text()
    write_output(os.path.join(out, "module.hlo"), hlo)

    write_analyses(compiled, out)

    for _ in range(warmup):
        _block(compiled(*args))
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        _block(compiled(*args))
        times.append(time.perf_counter() - start)
    write_output(os.path.join(out, "timings.json"),
                 json.dumps({"unit": "s", "steps_s": times, "median_s": statistics.median(times),
                             "note": "wall clock per step on the host, dispatch included"},
                            indent=1))

    # The profiled steps run the same executable; each one is an "XLA Modules" event.
    with jax.profiler.trace(os.path.join(out, "profile"), create_perfetto_trace=True):
        for _ in range(steps):
            _block(compiled(*args))

    device = jax.devices()[0]
    meta = {"jax": jax.__version__, "platform": device.platform,
            "device_kind": device.device_kind, "module": _module_name(hlo), "steps": steps,
            "xla_flags": os.environ.get("XLA_FLAGS", ""),
            "captured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    write_output(os.path.join(out, "meta.json"), json.dumps(meta, indent=1))
    return meta


def _examples():
    """GEMMs, memory-bound kernels, a convolution, attention, an MLP, by name."""
    # Inputs come from numpy, not jax.random: no other module runs in the process, so the
    # profile's metadata holds the captured module alone.
    rng = np.random.default_rng(0)

    def rnd(shape, dtype=jnp.bfloat16, scale=1.0):
        x = rng.standard_normal(shape, dtype=np.float32) * np.float32(scale)
        return jax.device_put(x.astype(dtype))

    def gemm(a, b):
        return a @ b

    def mlp_loss(p, x):
        def layer(h, w):
            return h + jax.nn.gelu(h @ w[0]) @ w[1], None
        h, _ = jax.lax.scan(layer, x, (p["w1"], p["w2"]))
        return (h.astype(jnp.float32) ** 2).mean()

    def mlp_train_step(params, x):
        value, grads = jax.value_and_grad(mlp_loss)(params, x)
        return value, jax.tree.map(lambda p, g: p - 1e-3 * g, params, grads)

    def attention(q, k, v):
        s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(q.shape[-1]).astype(q.dtype)
        return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, axis=-1), v)

    def attention_fused(q, k, v):  # cuDNN's fused attention where the backend has it
        t = (0, 2, 1, 3)
        return jax.nn.dot_product_attention(q.transpose(t), k.transpose(t), v.transpose(t))

    def layernorm(x, g):
        mean = x.mean(-1, keepdims=True)
        return (x - mean) * jax.lax.rsqrt(x.var(-1, keepdims=True) + 1e-6) * g

    def conv3x3(x, f):
        return jax.lax.conv_general_dilated(x, f, (1, 1), "SAME",
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))

    layers, d, f = 4, 1024, 4096
    f32 = jnp.float32

    # A small decoder-only transformer's training step (GPT-like, pre-norm, causal attention
    # through jax.nn.dot_product_attention, Adam on f32 parameters, bf16 compute), its layers
    # unrolled as many production programs have them.
    gpt_layers, gpt_d, gpt_heads, gpt_vocab, gpt_batch, gpt_seq = 4, 1024, 16, 32768, 8, 1024

    def gpt_params():
        def w(*shape):
            return rnd(shape, f32, scale=0.02)
        p = {"embed": w(gpt_vocab, gpt_d), "out": w(gpt_d, gpt_vocab), "layers": []}
        for _ in range(gpt_layers):
            p["layers"].append({"qkv": w(gpt_d, 3 * gpt_d), "proj": w(gpt_d, gpt_d),
                                "up": w(gpt_d, 4 * gpt_d), "down": w(4 * gpt_d, gpt_d),
                                "ln1": jax.device_put(np.ones(gpt_d, np.float32)),
                                "ln2": jax.device_put(np.ones(gpt_d, np.float32))})
        return p

    def rms_norm(x, g):
        x32 = x.astype(f32)
        return (x32 * jax.lax.rsqrt((x32 * x32).mean(-1, keepdims=True) + 1e-6) * g).astype(x.dtype)

    def gpt_loss(p, tokens):
        bf = jnp.bfloat16
        h = p["embed"].astype(bf)[tokens[:, :-1]]
        for layer in p["layers"]:
            x = rms_norm(h, layer["ln1"])
            q, k, v = jnp.split(x @ layer["qkv"].astype(bf), 3, axis=-1)
            shape = (gpt_batch, gpt_seq - 1, gpt_heads, gpt_d // gpt_heads)
            a = jax.nn.dot_product_attention(q.reshape(shape), k.reshape(shape),
                                             v.reshape(shape), is_causal=True)
            h = h + a.reshape(h.shape) @ layer["proj"].astype(bf)
            x = rms_norm(h, layer["ln2"])
            h = h + jax.nn.gelu(x @ layer["up"].astype(bf)) @ layer["down"].astype(bf)
        logits = (h @ p["out"].astype(bf)).astype(f32)
        labels = tokens[:, 1:]
        logp = jax.nn.log_softmax(logits, axis=-1)
        return -jnp.take_along_axis(logp, labels[..., None], axis=-1).mean()

    def gpt_train_step(state, tokens):
        p, m, v = state
        loss, g = jax.value_and_grad(gpt_loss)(p, tokens)
        m = jax.tree.map(lambda m_, g_: 0.9 * m_ + 0.1 * g_, m, g)
        v = jax.tree.map(lambda v_, g_: 0.999 * v_ + 0.001 * g_ * g_, v, g)
        p = jax.tree.map(lambda p_, m_, v_: p_ - 1e-4 * m_ / (jnp.sqrt(v_) + 1e-8), p, m, v)
        return loss, (p, m, v)

    def gpt_inputs():
        p = gpt_params()

        def zeros():
            return jax.tree.map(lambda x: jax.device_put(np.zeros(x.shape, np.float32)), p)
        tokens = jax.device_put(rng.integers(0, gpt_vocab, (gpt_batch, gpt_seq), dtype=np.int32))
        return ((p, zeros(), zeros()), tokens)

    def qkv():
        return tuple(rnd((4, 16, 2048, 128)) for _ in range(3))

    def mlp_inputs():
        return ({"w1": rnd((layers, d, f), scale=0.02), "w2": rnd((layers, f, d), scale=0.02)},
                rnd((4096, d)))

    # A sweep of GEMM shapes in one step: each dot a kernel of its own, so one profile gives
    # the measured time of every shape (XLA runs independent dots one after another).
    sweep = [(m, n, k, jnp.bfloat16) for m in (256, 1024, 4096) for n in (256, 1024, 4096)
             for k in (256, 1024, 4096)]
    sweep += [(16, 8192, 8192, jnp.bfloat16), (128, 8192, 8192, jnp.bfloat16),
              (8192, 128, 8192, jnp.bfloat16), (8192, 8192, 128, jnp.bfloat16),
              (2048, 2048, 2048, jnp.bfloat16), (8192, 8192, 8192, jnp.bfloat16),
              (1024, 1024, 1024, f32), (4096, 4096, 4096, f32)]

    def gemm_sweep_inputs():
        return tuple((rnd((m, k), t), rnd((k, n), t)) for m, n, k, t in sweep)

    def gemm_sweep(pairs):
        return tuple(a @ b for a, b in pairs)

    # A loop whose trip count only the data tells (XLA knows none): XLA's GPU runtime runs
    # its condition on the device each iteration and reads the result back on the host.
    def while_dynamic(x, n):
        def cond(c):
            return c[0] < n
        def body(c):
            return c[0] + 1, jnp.tanh(c[1] @ c[1])
        return jax.lax.while_loop(cond, body, (jnp.int32(0), x))[1]

    # Each entry makes its inputs only when asked: name -> () -> (function, arguments).
    return {
        "gemm": lambda: (gemm, (rnd((4096, 4096)), rnd((4096, 4096)))),
        "gemm_1024": lambda: (gemm, (rnd((1024, 1024)), rnd((1024, 1024)))),
        "gemm_8192": lambda: (gemm, (rnd((8192, 8192)), rnd((8192, 8192)))),
        "gemm_skinny": lambda: (gemm, (rnd((16, 8192)), rnd((8192, 8192)))),
        "gemm_f32": lambda: (gemm, (rnd((4096, 4096), f32), rnd((4096, 4096), f32))),
        "axpy": lambda: (lambda x, y: 2.0 * x + y, (rnd((1 << 26,), f32), rnd((1 << 26,), f32))),
        "add_small": lambda: (lambda x, y: x + y, (rnd((65536,), f32), rnd((65536,), f32))),
        "reduce_rows": lambda: (lambda x: x.sum(axis=1), (rnd((16384, 16384), f32),)),
        "softmax": lambda: (lambda x: jax.nn.softmax(x, axis=-1), (rnd((8192, 8192)),)),
        "layernorm": lambda: (layernorm, (rnd((32768, 4096)), rnd((4096,)))),
        "transpose": lambda: (lambda x: x.T.copy(), (rnd((16384, 16384), f32),)),
        "conv3x3": lambda: (conv3x3, (rnd((64, 56, 56, 256)), rnd((3, 3, 256, 256)))),
        "attention": lambda: (attention, qkv()),
        "attention_fused": lambda: (attention_fused, qkv()),
        "mlp_fwd": lambda: (mlp_loss, mlp_inputs()),
        "mlp": lambda: (mlp_train_step, mlp_inputs()),
        "gpt": lambda: (gpt_train_step, gpt_inputs()),
        "gemm_sweep": lambda: (gemm_sweep, (gemm_sweep_inputs(),)),
        "while_dynamic": lambda: (while_dynamic, (rnd((1024, 1024)),
                                                  jax.device_put(np.int32(16)))),
    }


def main(argv=None):
    examples = _examples()
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("out", help="the capture folder to write (with several examples, the "
                        "folder that holds one capture folder per example)")
    parser.add_argument("--example", required=True,
                        help="one of %s, several separated by commas, or all" % ", ".join(examples))
    parser.add_argument("--steps", type=int, default=5, help="steps timed and profiled")
    parser.add_argument("--warmup", type=int, default=2)
    a = parser.parse_args(argv)
    names = list(examples) if a.example == "all" else a.example.split(",")
    unknown = [n for n in names if n not in examples]
    if unknown:
        parser.error("unknown example %s (known: %s)" % (", ".join(unknown), ", ".join(examples)))
    failed = 0
    for name in names:
        out = a.out if len(names) == 1 else os.path.join(a.out, name)
        fn, args = examples[name]()
        try:
            meta = capture(fn, *args, out=out, steps=a.steps, warmup=a.warmup)
        except Exception as e:  # one example's failure must not lose the others
            failed += 1
            print(f"{name}: failed: {type(e).__name__}: {e}", file=sys.stderr)
            continue
        with open(os.path.join(out, "timings.json")) as f:
            median_ms = json.load(f)["median_s"] * 1e3
        print(f"captured {meta['module']} on {meta['device_kind']} into {out}: "
              f"median step {median_ms:.3f} ms")
    print("next: hloroof profile FOLDER --device DEVICE")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
