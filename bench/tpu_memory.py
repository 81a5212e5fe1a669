#!/usr/bin/env python3
"""TPU memory against XLA's own: small programs compiled offline for TPU slices.

Each program is compiled by libtpu without a TPU (hloroof.jax.compile_for) and hloroof's
`memory` figures are set beside XLA's `memory_analysis()`: argument, output and temp bytes. The
"rules" programs are those the TPU allocation rules were read from (their buffer-assignment
dumps or figures; docs/memory.md, "On TPU"); the "held out" ones were written after. The last
column is XLA's temp minus hloroof's in 16 KiB places (the heap's unit). Needs JAX and libtpu
(python/requirements-test.txt), about 4 minutes on 2 cores:

    PYTHONPATH=build/python $(tools/venv.sh) bench/tpu_memory.py [--hloroof build/tools/hloroof]
        [--keep DIR | --kept DIR] [--json OUT]

`--keep DIR` keeps each compiled program (NAME.hlo) and XLA's figures (NAME.xla.json); a later
`--kept DIR` run reads them instead of compiling, in seconds: another build's figures on the
same programs (`--hloroof OTHER_CLI`).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

import hloroof.jax as hj

S = jax.ShapeDtypeStruct
f32, bf16 = jnp.float32, jnp.bfloat16


def rnn(n, b, t):
    def f(w, xs):
        def body(h, x):
            h = jnp.tanh(h @ w + x); return h, h.sum()
        return jax.lax.scan(body, jnp.zeros((b, n), f32), xs)
    return f, (S((n, n), f32), S((t, b, n), f32)), {}

def mlp(width, batch, layers, dt=f32):
    def loss(ws, x):
        for w in ws: x = jax.nn.relu(x @ w)
        return jnp.mean(x * x)
    def f(ws, x):
        g = jax.grad(loss)(ws, x); return [w - 0.1 * gw for w, gw in zip(ws, g)]
    return f, ([S((width, width), dt)] * layers, S((batch, width), dt)), {}

def attention(b, s, h, d):
    def f(q, k, v):
        a = jax.nn.softmax(jnp.einsum("bqhd,bkhd->bhqk", q, k) / 8.0, axis=-1)
        return jnp.einsum("bhqk,bkhd->bqhd", a, v)
    x = S((b, s, h, d), bf16); return f, (x, x, x), {}

def conv(n, c, hw, k):
    def loss(w, x):
        y = jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return jnp.sum(jax.nn.relu(y) ** 2)
    def f(w, x): return jax.grad(loss)(w, x)
    return f, (S((k, k, c, c), f32), S((n, hw, hw, c), f32)), {}

def sort_topk(n, m):
    def f(x): return jnp.sort(x, axis=-1), jax.lax.top_k(x, 8)
    return f, (S((n, m), f32),), {}

def embed(v, d, b):
    def loss(t, ids): return jnp.sum(jnp.take(t, ids, axis=0) ** 2)
    def f(t, ids): return t - 0.1 * jax.grad(loss)(t, ids)
    return f, (S((v, d), f32), S((b,), jnp.int32)), {}

def layernorm(b, d):
    def f(x, g):
        m = x.mean(-1, keepdims=True); v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) * jax.lax.rsqrt(v + 1e-6) * g + x
    return f, (S((b, d), f32), S((d,), f32)), {}

def scan_layers(layers, d, b, remat):
    def layer(x, w):
        y = jax.nn.gelu(x @ w[0]) @ w[1]; return x + y, None
    if remat: layer = jax.checkpoint(layer)
    def loss(ws, x): return jnp.sum(jax.lax.scan(layer, x, ws)[0] ** 2)
    def f(ws, x):
        g = jax.grad(loss)(ws, x); return ws - 0.01 * g
    return f, (S((layers, 2, d, d), bf16), S((b, d), bf16)), {}

def mlp_step(d, b):
    """Two matmuls with gelu between, SGD, the batch split over the slice's devices: on tpu7x
    each gradient's all-reduce is a SparseCore offload with a stack of its own."""
    def loss(w1, w2, x): return jnp.mean((jax.nn.gelu(x @ w1) @ w2) ** 2)
    def f(w1, w2, x):
        g1, g2 = jax.grad(loss, argnums=(0, 1))(w1, w2, x)
        return w1 - 0.1 * g1, w2 - 0.1 * g2
    return f, (S((d, d), f32), S((d, d), f32), S((b, d), f32)), dict(
        in_specs=(None, None, P("data", None)))

def fsdp_mlp(d, b, chips):
    def loss(ws, x):
        for w in ws: x = jax.nn.relu(x @ w)
        return jnp.mean(x * x)
    def f(ws, x):
        g = jax.grad(loss)(ws, x); return [w - 0.1 * gw for w, gw in zip(ws, g)]
    return f, ([S((d, d), bf16)] * 3, S((b, d), bf16)), dict(
        mesh_axes={"fsdp": chips}, in_specs=([P("fsdp", None)] * 3, P("fsdp", None)))

def cumsum(n, m):
    def f(x): return jnp.cumsum(x, axis=0), jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (3, 3), (1, 1), "SAME")
    return f, (S((n, m), f32),), {}

def transpose_chain(a, b, c):
    def f(x): return (jnp.transpose(x, (2, 0, 1)) * 2).reshape(c, a * b).T + 1
    return f, (S((a, b, c), f32),), {}

def gpt(layers=4, d=1024, s=1024, b=8, h=8):
    def block(x, w):
        y = x - x.mean(-1, keepdims=True)
        q, k, v = jnp.split(y @ w[0][:, :3 * d], 3, axis=-1)
        q = q.reshape(b, s, h, d // h); k = k.reshape(b, s, h, d // h); v = v.reshape(b, s, h, d // h)
        a = jnp.einsum("bqhd,bkhd->bhqk", q, k) / 8.0
        a = jnp.where(jnp.tril(jnp.ones((s, s), bool)), a, -1e9)
        o = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(a, -1), v).reshape(b, s, d)
        x = x + o @ w[1][:, :d]
        return x + jax.nn.gelu(x @ w[0][:, 3 * d:]) @ w[1][:, d:2 * d].T, None
    def loss(ws, x): return jnp.mean(jax.lax.scan(jax.checkpoint(block), x, ws)[0] ** 2)
    def f(ws, x): return ws - 1e-3 * jax.grad(loss)(ws, x)
    return f, (S((layers, 2, d, 4 * d), bf16), S((b, s, d), bf16)), dict(
        mesh_axes={"fsdp": 4}, in_specs=(P(None, None, "fsdp", None), P("fsdp", None, None)))

def resnet(n=16, c=64, hw=56):
    def block(x, w):
        y = jax.lax.conv_general_dilated(x, w[0], (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        y = jax.nn.relu(y)
        y = jax.lax.conv_general_dilated(y, w[1], (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return jax.nn.relu(x + y)
    def loss(ws, x):
        for w in ws: x = block(x, w)
        return jnp.mean(x)
    def f(ws, x): return jax.tree.map(lambda a, g: a - 0.1 * g, ws, jax.grad(loss)(ws, x))
    return f, ([(S((3, 3, c, c), f32), S((3, 3, c, c), f32))] * 3, S((n, hw, hw, c), f32)), {}

def moe(t=4096, d=1024, e=8, ff=2048):
    def loss(p, x):
        logits = x @ p["gate"]
        top = jax.lax.top_k(logits, 2)[1]
        mask = jax.nn.one_hot(top, e).sum(1)
        h = jnp.einsum("td,edf->tef", x, p["w1"]) * mask[..., None]
        return jnp.mean(jnp.einsum("tef,efd->td", jax.nn.relu(h), p["w2"]) ** 2)
    def f(p, x): return jax.tree.map(lambda a, g: a - 0.1 * g, p, jax.grad(loss)(p, x))
    p = {"gate": S((d, e), bf16), "w1": S((e, d, ff), bf16), "w2": S((e, ff, d), bf16)}
    return f, (p, S((t, d), bf16)), {}

def xent(b=8192, d=1024, v=32768):
    def loss(w, x, y): return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(x @ w), y[:, None], 1))
    def f(w, x, y): return w - 0.1 * jax.grad(loss)(w, x, y)
    return f, (S((d, v), bf16), S((b, d), bf16), S((b,), jnp.int32)), {}

def power(n=2048, iters=50):
    def f(a, v):
        def body(c):
            i, v, _ = c; w = a @ v; return i + 1, w / jnp.linalg.norm(w), jnp.linalg.norm(w)
        return jax.lax.while_loop(lambda c: c[0] < iters, body, (0, v, 0.0))[1:]
    return f, (S((n, n), f32), S((n, 64), f32)), {}

def fft(n=64, m=4096):
    def f(x): return jnp.fft.ifft(jnp.fft.fft(x, axis=-1) * 2.0, axis=-1).real
    return f, (S((n, m), f32),), {}

def topk_gather(n=16384, k=64, d=512):
    def f(scores, table):
        _, idx = jax.lax.top_k(scores, k)
        return jnp.take(table, idx.reshape(-1), axis=0).reshape(scores.shape[0], k, d).sum(1)
    return f, (S((256, n), f32), S((n, d), f32)), {}

def adam(count=20, d=2048):
    def f(ps, gs, ms, vs):
        ms = [0.9 * m + 0.1 * g for m, g in zip(ms, gs)]
        vs = [0.999 * v + 0.001 * g * g for v, g in zip(vs, gs)]
        return [p - 1e-3 * m / (jnp.sqrt(v) + 1e-8) for p, m, v in zip(ps, ms, vs)], ms, vs
    a = [S((d, d), f32)] * count
    spec = [P("fsdp", None)] * count
    return f, (a, a, a, a), dict(mesh_axes={"fsdp": 8}, in_specs=(spec, spec, spec, spec))

def switch(n=2048, d=512):
    def f(x, i):
        branches = [lambda x, k=k: (jnp.sin(x) * k, x.sum()) for k in range(3)]
        y, s = jax.lax.switch(i, branches, x)
        return y + s
    return f, (S((n, d), bf16), S((), jnp.int32)), {}

def cond(n=1024):
    def f(x, w, flag):
        def a(x): return jnp.tanh(x @ w), (x * 2).sum()
        def b(x): return jax.nn.relu(x @ w.T), (x - 1).sum()
        y, s = jax.lax.cond(flag > 0, a, b, x)
        return y * s
    return f, (S((n, n), f32), S((n, n), f32), S((), jnp.int32)), {}

def nested_loops(layers=6, n=512, b=256):
    def f(ws, x):
        def outer(carry, w):
            h, acc = carry
            def inner(i, c):
                h, m = c
                h = jnp.tanh(h @ w)
                return h, (m[0] + h.sum(), m[1] * 0.9 + h.mean())
            h, m = jax.lax.fori_loop(0, 4, inner, (h, acc))
            return (h, m), h.sum()
        return jax.lax.scan(outer, (x, (0.0, 0.0)), ws)
    return f, (S((layers, n, n), f32), S((b, n), f32)), {}

def while_pytree(n=256):
    def f(x, y):
        def body(c):
            i, (a, b), d = c
            return i + 1, (a @ b, b + 1.0), {"u": d["u"] * 2, "v": d["v"] + a.sum()}
        return jax.lax.while_loop(lambda c: c[0] < 10, body,
                                  (0, (x, y), {"u": x[0], "v": jnp.zeros(())}))
    return f, (S((n, n), f32), S((n, n), f32)), {}


RULES = {
    "rnn128": (rnn, (128, 8, 16), "tpu_v5e:1x1"),
    "rnn512": (rnn, (512, 64, 32), "tpu_v6e:1x1"),
    "mlp_small": (mlp, (1024, 2048, 4), "tpu_v5e:1x1"),
    "mlp_big": (mlp, (4096, 8192, 3), "tpu_v5e:1x1"),
    "mlp_bf16": (mlp, (4096, 16384, 4, bf16), "tpu_v6e:1x1"),
    "attention": (attention, (4, 2048, 8, 128), "tpu_v6e:1x1"),
    "conv": (conv, (8, 128, 64, 3), "tpu_v5e:1x1"),
    "sort": (sort_topk, (1024, 4096), "tpu_v6e:1x1"),
    "embed": (embed, (32768, 512, 8192), "tpu_v5e:1x1"),
    "layernorm": (layernorm, (8192, 4096), "tpu_v6e:1x1"),
    "scan": (scan_layers, (8, 2048, 4096, False), "tpu_v6e:1x1"),
    "scan_remat": (scan_layers, (8, 2048, 4096, True), "tpu_v6e:1x1"),
    "fsdp": (fsdp_mlp, (4096, 8192, 4), "tpu_v5e:2x2"),
    "fsdp8": (fsdp_mlp, (8192, 16384, 8), "tpu_v6e:2x4"),
    "cumsum": (cumsum, (4096, 2048), "tpu_v5e:1x1"),
    "transpose": (transpose_chain, (64, 512, 256), "tpu_v6e:1x1"),
    "switch": (switch, (), "tpu7x:2x2x1"),
    "mlp_step": (mlp_step, (4096, 256), "tpu7x:2x2x1"),
}
HELD_OUT = {
    "gpt_fsdp": (gpt, (), "tpu_v6e:2x2"), "resnet": (resnet, (), "tpu_v5e:1x1"),
    "moe": (moe, (), "tpu_v5p:2x2x1"), "xent": (xent, (), "tpu_v6e:1x1"),
    "power": (power, (), "tpu_v5e:1x1"), "fft": (fft, (), "tpu_v6e:1x1"),
    "topk_gather": (topk_gather, (), "tpu_v5p:2x2x1"), "adam_fsdp": (adam, (), "tpu_v6e:2x4"),
    "cond": (cond, (), "tpu_v5e:1x1"), "nested_loops": (nested_loops, (), "tpu_v6e:1x1"),
    "while_pytree": (while_pytree, (), "tpu7x:2x2x1"),
}


def row(name, group, builder, args, target, hloroof, keep, kept):
    """One program's figures. Compiled, and kept in `keep` (NAME.hlo, NAME.xla.json: XLA's
    figures); or, where `kept`, read from there as an earlier run kept it."""
    path = os.path.join(keep, name + ".hlo")
    figures = os.path.join(keep, name + ".xla.json")
    if kept:
        with open(figures) as f:
            xla = json.load(f)["xla"]
    else:
        fn, ins, kw = builder(*args)
        compiled = hj.compile_for(fn, *ins, target=target, **kw)
        a = compiled.memory_analysis()
        xla = [a.argument_size_in_bytes, a.output_size_in_bytes, a.temp_size_in_bytes]
        with open(path, "w") as f:
            f.write(compiled._hloroof_hlo_text)
        with open(figures, "w") as f:
            json.dump({"target": target, "xla": xla}, f)
    ours = json.loads(subprocess.run([hloroof, "memory", path, "--device", target, "--json"],
                                     capture_output=True, text=True, check=True).stdout)
    return {"program": name, "group": group, "target": target, "xla": xla,
            "ours": [ours["argument_bytes"], ours["output_bytes"], ours["temp_bytes"]]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hloroof", default="build/tools/hloroof")
    parser.add_argument("--json", help="write the rows here too")
    parser.add_argument("--keep", metavar="DIR",
                        help="keep the compiled programs and XLA's figures in DIR")
    parser.add_argument("--kept", metavar="DIR",
                        help="compile nothing: read the programs and XLA's figures an earlier "
                        "--keep DIR run kept (another build's figures on the same programs)")
    options = parser.parse_args()
    rows = []
    print(f"{'program':<12} {'group':<8} {'target':<14} {'args':>5} {'outputs':>7} "
          f"{'temp XLA':>12} {'temp ours':>12} {'ours/XLA':>8} {'16 KiB short':>12}")
    with tempfile.TemporaryDirectory() as scratch:
        keep = options.kept or options.keep or scratch
        if options.keep:
            os.makedirs(keep, exist_ok=True)
        for group, programs in (("rules", RULES), ("held out", HELD_OUT)):
            for name, (builder, args, target) in programs.items():
                r = row(name, group, builder, args, target, options.hloroof, keep,
                        kept=bool(options.kept))
                rows.append(r)
                (xa, xo, xt), (oa, oo, ot) = r["xla"], r["ours"]
                ratio = f"{ot / xt:8.4f}" if xt else f"{'-':>8}"
                short = (xt - ot) / 16384
                print(f"{name:<12} {group:<8} {target:<14} {'=' if xa == oa else 'no':>5} "
                      f"{'=' if xo == oo else 'no':>7} {xt:>12} {ot:>12} {ratio} "
                      f"{short:>12g}", flush=True)
    if options.json:
        with open(options.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
