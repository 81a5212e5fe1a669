"""Toy steps for the sweep's tests: each compiles in about a second (test_sweep.py)."""

import os
import signal
import subprocess
import sys
import time

import hloroof.sweep as hs


def mlp(config):
    """A two-layer MLP's train step, its weights' inner axis over the mesh; `width` and
    `batch_per_device` set its size. `hang` sleeps past any timeout, `die` kills the process
    as the kernel's out-of-memory killer does, `broken` raises KeyError, `none` returns None
    (no step), `oversize` makes XLA's temporaries larger than a v5e's HBM, `memory_error`
    raises MemoryError, `pids` (a path), in the compile's process (not in the checks before
    compiling), starts a child process, writes "WORKER_PID CHILD_PID" there and sleeps past
    any timeout."""
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P

    if config.get("pids") and os.path.basename(sys.argv[0]) == "_compile.py":
        child = subprocess.Popen(["sleep", "600"])
        with open(config["pids"] + ".part", "w") as f:
            f.write(f"{os.getpid()} {child.pid}\n")
        os.rename(config["pids"] + ".part", config["pids"])
        time.sleep(600)
    if config.get("memory_error"):
        raise MemoryError("no memory for the compile's buffers")
    if config.get("hang"):
        time.sleep(600)
    if config.get("broken"):
        config["no_such_key"]
    if config.get("die"):
        os.kill(os.getpid(), signal.SIGKILL)
    if config.get("none"):
        return None
    width = config.get("width", 256)
    n = config["devices"]
    batch = config.get("batch_per_device", 8) * n
    dtype = jnp.float32 if config.get("oversize") else jnp.bfloat16

    def step(w, x):
        def loss(w):
            return jnp.mean(jax.nn.relu(x.astype(dtype) @ w["a"]) @ w["b"])
        value, grads = jax.value_and_grad(loss)(w)
        return jax.tree.map(lambda p, g: p - 1e-3 * g, w, grads), value

    sd = jax.ShapeDtypeStruct
    w = {"a": sd((width, 4 * width), dtype), "b": sd((4 * width, width), dtype)}
    x = sd((batch, width), jnp.bfloat16)
    if config.get("oversize"):  # 16384 x 65536 f32 replicated: 4.3 GB, temporaries beyond 16 GB
        w = {"a": sd((16384, 65536), dtype), "b": sd((65536, 16384), dtype)}
        x = sd((16384 * n, 16384), jnp.bfloat16)
        return hs.Step(step, (w, x), in_specs=({"a": P(), "b": P()}, P("data")),
                       mesh_axes={"data": n})
    flops = 3 * 2 * batch * width * 4 * width * 2  # forward and backward: 6 x params x rows
    return hs.Step(step, (w, x), in_specs=({"a": P(None, "data"), "b": P("data", None)},
                                           P("data")),
                   mesh_axes={"data": n}, model_flops=flops, tokens=batch)


# examples/sweep/llama.py at sizes that compile in about a second.
TINY_LLAMA = dict(layers=2, width=128, heads=4, kv_heads=2, ffn=256, vocab=1024, seq=128)


def llama_tiny(config):
    """examples/sweep/llama.py's step at TINY_LLAMA's sizes (any of them given in `config`
    wins); `oversize`: at llama.py's own sizes with a sequence of 4096."""
    import llama

    sizes = dict(llama.SIZES, seq=4096) if config.get("oversize") else TINY_LLAMA
    config = {k: v for k, v in config.items() if k != "oversize"}
    return llama.build(dict(sizes, **config))
