#!/usr/bin/env python3
"""Compiles small real JAX programs with XLA and keeps what XLA says about them.

For every program and target this writes tests/data/xla/<target>/<program>/:
  module.hlo             compiled.as_text(): the optimized, scheduled HLO module
  memory_analysis.json   every field of compiled.memory_analysis() (bytes)
  cost_analysis.json     compiled.cost_analysis()
  buffer_assignment.txt  XLA's *after_optimizations-buffer-assignment.txt (xla_dump_to)
  meta.json              versions, target, program, the command that made it
and tests/data/xla/refusals.json: the programs a target refused, with XLA's message verbatim.

Targets: the CPU with 8 devices, a node of 8 H100s compiled by JAX's CUDA plugin without a GPU,
and TPU slices compiled offline by libtpu (no TPU needed).
Run with the tests' Python environment (tools/venv.sh):
  $(tools/venv.sh) tools/oracle/generate.py [--out DIR] [--targets cpu,tpu_v5e_2x2]
      [--programs matmul_f32,mlp]
"""

import argparse
import functools
import importlib.metadata
import json
import os
import pathlib
import shutil
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # tools/
from gpu_devices import gpu_devices  # noqa: E402
from output_file import write_output  # noqa: E402
from xla_analyses import cost_fields, memory_fields, write_json  # noqa: E402

# Before jax is imported: 8 CPU devices, no cloud metadata queries by libtpu, the CPU backend
# only (TPU compiles use the offline topology, not a local TPU).
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_force_host_platform_device_count=8").strip()
os.environ.setdefault("TPU_SKIP_MDS_QUERY", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
# Other processes on the machine may have libtpu loaded too (it compiles, it runs nothing).
os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

# Source locations in the HLO name files only, so the text does not depend on the checkout.
jax.config.update("jax_hlo_source_file_canonicalization_regex", r".*/")

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEFAULT_OUT = ROOT / "tests" / "data" / "xla"

# target name -> (hloroof device, topology: a TPU slice, "gpu:" and a GPU node, None: the CPU)
TARGETS = {
    "cpu": ("cpu", None),
    "gpu_h100_8": ("h100", "gpu:h100:8"),
    "tpu_v5e_2x2": ("tpu_v5e", "v5e:2x2"),
    "tpu_v6e_2x2": ("tpu_v6e", "v6e:2x2"),
    "tpu_v5p_2x2x1": ("tpu_v5p", "v5p:2x2x1"),
    "tpu7x_2x2x1": ("tpu7x", "tpu7x:2x2x1"),
}


class Refused(Exception):
    """A program that does not apply to a target (not an XLA error)."""


@functools.cache
def devices_of(topology):
    if topology is None:
        return jax.devices("cpu")
    if topology.startswith("gpu:"):
        return gpu_devices(topology.removeprefix("gpu:"))
    from jax.experimental import topologies
    return topologies.get_topology_desc(platform="tpu", topology_name=topology).devices


def sds(shape, dtype, mesh, spec, memory_kind=None):
    sharding = NamedSharding(mesh, spec, memory_kind=memory_kind)
    return jax.ShapeDtypeStruct(shape, dtype, sharding=sharding)


# ---------------------------------------------------------------------------------------------
# Programs. Each takes the target's devices and their platform ("cpu", "gpu", "tpu") and returns
# (jitted function, abstract arguments).


def one_device(devices):
    return Mesh(np.array(devices[:1]), ("x",))


def all_devices(devices):
    return Mesh(np.array(devices), ("x",))


def matmul(m, k, n, dtype, out_dtype=None):
    def build(devices, platform):
        mesh = one_device(devices)
        a = sds((m, k), dtype, mesh, P())
        b = sds((k, n), dtype, mesh, P())
        fn = jax.jit(lambda a, b: jnp.matmul(a, b, preferred_element_type=out_dtype))
        return fn, (a, b)
    return build


def batched_matmul(devices, platform):
    mesh = one_device(devices)
    a = sds((4, 64, 128), jnp.bfloat16, mesh, P())
    b = sds((4, 128, 64), jnp.bfloat16, mesh, P())
    return jax.jit(lambda a, b: jnp.einsum("bij,bjk->bik", a, b)), (a, b)


def mlp(devices, platform):
    mesh = all_devices(devices)

    def f(x, w1, w2):
        return jax.nn.gelu(x @ w1) @ w2

    x = sds((64, 128), jnp.float32, mesh, P("x"))
    w1 = sds((128, 512), jnp.float32, mesh, P())
    w2 = sds((512, 128), jnp.float32, mesh, P())
    return jax.jit(f), (x, w1, w2)


def mlp_train(devices, platform):
    """An SGD step of a wide bf16 MLP on one device: activations too large for on-chip memory,
    so a TPU's buffer assignment places them in device memory (docs/memory.md, "On TPU")."""
    mesh = one_device(devices)

    def loss(ws, x):
        for w in ws:
            x = jax.nn.relu(x @ w)
        return jnp.mean(x * x)

    def step(ws, x):
        grads = jax.grad(loss)(ws, x)
        return [w - 0.1 * g for w, g in zip(ws, grads)]

    ws = [sds((4096, 4096), jnp.bfloat16, mesh, P()) for _ in range(4)]
    return jax.jit(step), (ws, sds((16384, 4096), jnp.bfloat16, mesh, P()))


def mlp_tp(devices, platform):
    """A two-layer bf16 MLP's SGD step, tensor-parallel over a mesh ("data", "model") with
    model = 2: the first weight split by columns, the second (the middle of the step) by rows,
    P("model", None), donated. Its two weight gradients are all-reduced by one all-reduce of two
    operands, each result written over its operand's bytes where that operand is in device
    memory."""
    model = 2
    if len(devices) % model:
        raise Refused(f"{len(devices)} devices do not split into a model axis of {model}")
    mesh = Mesh(np.array(devices).reshape(len(devices) // model, model), ("data", "model"))
    width = 3072

    def step(w, x):
        def loss(w):
            return jnp.mean(jax.nn.relu(x @ w["a"]) @ w["b"])
        value, grads = jax.value_and_grad(loss)(w)
        return jax.tree.map(lambda p, g: p - 1e-3 * g, w, grads), value

    w = {"a": sds((width, 4 * width), jnp.bfloat16, mesh, P(None, "model")),
         "b": sds((4 * width, width), jnp.bfloat16, mesh, P("model", None))}
    x = sds((8 * len(devices) // model, width), jnp.bfloat16, mesh, P("data", None))
    return jax.jit(step, donate_argnums=(0,)), (w, x)


def attention(devices, platform):
    mesh = one_device(devices)

    def f(q, k, v):
        s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(q.shape[-1]).astype(np.float32)
        p = jax.nn.softmax(s, axis=-1)
        return jnp.einsum("bhqk,bhkd->bhqd", p, v)

    shape = (2, 4, 64, 32)
    args = tuple(sds(shape, jnp.float32, mesh, P()) for _ in range(3))
    return jax.jit(f), args


# A one-layer transformer, one SGD step. Params: embedding, per layer qkv, out, ff1, ff2.
VOCAB, D, HEADS, FF, SEQ, BATCH, LAYERS = 256, 64, 4, 256, 32, 8, 1


def transformer_loss(params, tokens):
    x = params["embed"][tokens]
    for layer in params["layers"]:
        h = x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6)
        q, k, v = jnp.split(h @ layer["qkv"], 3, axis=-1)
        split = lambda t: t.reshape(t.shape[0], t.shape[1], HEADS, D // HEADS)  # noqa: E731
        q, k, v = split(q), split(k), split(v)
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.float32(np.sqrt(D // HEADS))
        mask = jnp.tril(jnp.ones((SEQ, SEQ), bool))
        s = jnp.where(mask, s, -1e9)
        a = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, axis=-1), v)
        x = x + a.reshape(x.shape) @ layer["out"]
        h = x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6)
        x = x + jax.nn.gelu(h @ layer["ff1"]) @ layer["ff2"]
    logits = x @ params["embed"].T
    labels = jnp.roll(tokens, -1, axis=1)
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.mean(jnp.take_along_axis(logp, labels[..., None], axis=-1))


def train_step(params, tokens):
    loss, grads = jax.value_and_grad(transformer_loss)(params, tokens)
    params = jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)
    return params, loss


def transformer(specs, mesh, batch_spec):
    def shaped(name, shape):
        return sds(shape, jnp.float32, mesh, specs[name])

    params = {
        "embed": shaped("embed", (VOCAB, D)),
        "layers": [{
            "qkv": shaped("qkv", (D, 3 * D)),
            "out": shaped("out", (D, D)),
            "ff1": shaped("ff1", (D, FF)),
            "ff2": shaped("ff2", (FF, D)),
        } for _ in range(LAYERS)],
    }
    tokens = sds((BATCH, SEQ), jnp.int32, mesh, batch_spec)
    out_shardings = (jax.tree.map(lambda s: s.sharding, params), NamedSharding(mesh, P()))
    fn = jax.jit(train_step, out_shardings=out_shardings, donate_argnums=0)
    return fn, (params, tokens)


def transformer_fsdp(devices, platform):
    # Every weight split along its first dim over all devices; the batch too.
    mesh = Mesh(np.array(devices), ("fsdp",))
    specs = {name: P("fsdp", None) for name in ("embed", "qkv", "out", "ff1", "ff2")}
    return transformer(specs, mesh, P("fsdp", None))


def transformer_tp(devices, platform):
    # Megatron tensor parallelism over "model" (2 devices), data parallelism over the rest.
    mesh = Mesh(np.array(devices).reshape(len(devices) // 2, 2), ("data", "model"))
    specs = {"embed": P(), "qkv": P(None, "model"), "out": P("model", None),
             "ff1": P(None, "model"), "ff2": P("model", None)}
    return transformer(specs, mesh, P("data", None))


def scan_layers(devices, platform):
    mesh = one_device(devices)

    def f(x, ws):
        y, _ = jax.lax.scan(lambda h, w: (jnp.tanh(h @ w), None), x, ws)
        return y

    return jax.jit(f), (sds((32, 128), jnp.float32, mesh, P()),
                        sds((4, 128, 128), jnp.float32, mesh, P()))


def fori_loop(devices, platform):
    mesh = one_device(devices)

    def f(x, w):
        return jax.lax.fori_loop(0, 6, lambda i, h: jnp.sin(h @ w) + i, x)

    return jax.jit(f), (sds((32, 128), jnp.float32, mesh, P()),
                        sds((128, 128), jnp.float32, mesh, P()))


def while_dynamic(devices, platform):
    # A loop whose trip count depends on the data: XLA cannot know it.
    mesh = one_device(devices)

    def f(x, limit):
        def cond(c):
            return c[0] < limit

        def body(c):
            return c[0] + 1, jnp.cos(c[1]) * 2.0

        return jax.lax.while_loop(cond, body, (jnp.int32(0), x))[1]

    return jax.jit(f), (sds((64, 128), jnp.float32, mesh, P()), sds((), jnp.int32, mesh, P()))


def remat(devices, platform):
    mesh = one_device(devices)

    @jax.checkpoint
    def block(x, w1, w2):
        return x + jnp.tanh(x @ w1) @ w2

    def loss(ws, x):
        for w1, w2 in ws:
            x = block(x, w1, w2)
        return jnp.sum(x * x)

    ws = [(sds((128, 256), jnp.float32, mesh, P()), sds((256, 128), jnp.float32, mesh, P()))
          for _ in range(3)]
    return jax.jit(jax.grad(loss)), (ws, sds((32, 128), jnp.float32, mesh, P()))


def collective(kind):
    def build(devices, platform):
        mesh = all_devices(devices)
        n = len(devices)
        if kind == "psum":
            body, out = (lambda x: jax.lax.psum(x, "x")), P()
        elif kind == "all_gather":
            body, out = (lambda x: jax.lax.all_gather(x, "x", tiled=True)), P()
        elif kind == "psum_scatter":
            body, out = (lambda x: jax.lax.psum_scatter(x, "x", tiled=True)), P("x")
        elif kind == "all_to_all":
            body, out = (lambda x: jax.lax.all_to_all(x, "x", 0, 1, tiled=True)), P("x")
        else:
            perm = [(i, (i + 1) % n) for i in range(n)]
            body, out = (lambda x: jax.lax.ppermute(x, "x", perm)), P("x")
        # check_vma=False: shard_map cannot infer that a tiled all_gather is replicated.
        fn = jax.shard_map(lambda x: body(x * 2.0), mesh=mesh, in_specs=P("x"), out_specs=out,
                           check_vma=False)
        return jax.jit(fn), (sds((64 * n, 128), jnp.float32, mesh, P("x")),)
    return build


def pallas_add(devices, platform):
    if platform == "cpu":
        raise Refused("Pallas on the CPU runs in interpret mode: plain HLO, no kernel")
    from jax.experimental import pallas as pl
    mesh = one_device(devices)

    def kernel(x_ref, y_ref, o_ref):
        o_ref[...] = x_ref[...] * y_ref[...] + 1.0

    def f(x, y):
        return pl.pallas_call(
            kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
            cost_estimate=pl.CostEstimate(flops=2 * x.size, transcendentals=0,
                                          bytes_accessed=3 * x.size * 4))(x, y)

    args = tuple(sds((256, 128), jnp.float32, mesh, P()) for _ in range(2))
    return jax.jit(f), args


def host_offload(devices, platform):
    if platform == "cpu":
        raise Refused("the CPU backend has no separate host memory space to offload to")
    mesh = one_device(devices)
    host = NamedSharding(mesh, P(), memory_kind="pinned_host")
    device = NamedSharding(mesh, P(), memory_kind="device")

    def f(x, w):
        h = jax.device_put(x, device)
        y = jnp.tanh(h @ w)
        return jax.device_put(y, host)

    x = sds((64, 128), jnp.float32, mesh, P(), memory_kind="pinned_host")
    w = sds((128, 128), jnp.float32, mesh, P())
    return jax.jit(f, out_shardings=host), (x, w)


PROGRAMS = {
    "matmul_f32": matmul(128, 256, 128, jnp.float32),
    "matmul_bf16": matmul(256, 512, 256, jnp.bfloat16),
    "matmul_int8": matmul(128, 256, 128, jnp.int8, jnp.int32),
    "matmul_batched_bf16": batched_matmul,
    "mlp": mlp,
    "mlp_train": mlp_train,
    "mlp_tp": mlp_tp,
    "attention": attention,
    "transformer_fsdp": transformer_fsdp,
    "transformer_tp": transformer_tp,
    "scan": scan_layers,
    "fori_loop": fori_loop,
    "while_dynamic": while_dynamic,
    "remat": remat,
    "psum": collective("psum"),
    "all_gather": collective("all_gather"),
    "psum_scatter": collective("psum_scatter"),
    "all_to_all": collective("all_to_all"),
    "ppermute": collective("ppermute"),
    "pallas_add": pallas_add,
    "host_offload": host_offload,
}

# ---------------------------------------------------------------------------------------------


def versions():
    out = {"jax": jax.__version__}
    for package in ("jaxlib", "libtpu", "jax-cuda12-plugin", "jax-cuda12-pjrt"):
        try:
            out[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            out[package] = None
    return out


def compile_one(target, program, out_dir, command):
    """Compiles one program for one target; returns None or the refusal's message."""
    device_name, topology = TARGETS[target]
    devices = devices_of(topology)
    try:
        fn, args = PROGRAMS[program](devices, devices[0].platform)
    except Refused as refusal:
        return f"not applicable: {refusal}"
    with tempfile.TemporaryDirectory() as dump:
        try:
            compiled = fn.lower(*args).compile(compiler_options={"xla_dump_to": dump})
        except Exception as error:  # XLA's refusal, kept verbatim
            return f"{type(error).__name__}: {error}"
        found = sorted(pathlib.Path(dump).glob("*after_optimizations-buffer-assignment.txt"))
        if len(found) != 1:
            return f"expected one buffer-assignment dump, found {[p.name for p in found]}"
        try:
            text = compiled.as_text()
            memory = memory_fields(compiled.memory_analysis())
            cost = cost_fields(compiled.cost_analysis())
        except Exception as error:  # e.g. jaxlib cannot read back libtpu's module
            return f"compiled, but: {type(error).__name__}: {error}"
        out_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(found[0], out_dir / "buffer_assignment.txt")
    write_output(out_dir / "module.hlo", text)
    write_json(out_dir / "memory_analysis.json", memory)
    write_json(out_dir / "cost_analysis.json", cost)
    write_json(out_dir / "meta.json", {
        "target": target,
        "hloroof_device": device_name,
        "topology": topology,
        "device_kind": devices[0].device_kind,
        "device_count": len(devices),
        "program": program,
        "versions": versions(),
        "command": command,
    })
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, default=DEFAULT_OUT)
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument("--programs", default=",".join(PROGRAMS))
    options = parser.parse_args()
    targets = options.targets.split(",")
    programs = options.programs.split(",")
    for name in targets + programs:
        if name not in TARGETS and name not in PROGRAMS:
            parser.error(f"unknown target or program {name!r}")
    command = "tools/oracle/generate.py"
    refusals_path = options.out / "refusals.json"
    refusals = json.loads(refusals_path.read_text()) if refusals_path.exists() else {}
    for target in targets:
        for program in programs:
            out_dir = options.out / target / program
            if out_dir.exists():
                shutil.rmtree(out_dir)
            refusal = compile_one(target, program, out_dir, command)
            key = f"{target}/{program}"
            refusals.pop(key, None)
            if refusal is not None:
                refusals[key] = refusal
            print(f"{key}: {'refused: ' + refusal.splitlines()[0] if refusal else 'ok'}",
                  file=sys.stderr)
    options.out.mkdir(parents=True, exist_ok=True)
    write_json(refusals_path, dict(sorted(refusals.items())))


if __name__ == "__main__":
    main()
