"""Writes the optimized HLO of a sharded LLM training step, for benchmarks on large real
programs: every layer unrolled, weights split over an FSDP axis and a tensor-parallel axis, so the
module holds thousands of collectives (all-gathers of weights, reduce-scatters of gradients,
all-reduces of activations), async pairs, fusions and many temporaries live at once, as XLA's own
LLM benchmark modules do. XLA compiles it for one of:
  tpu   a TPU slice that need not be here (libtpu compiles offline; --topology);
  gpu   GPUs that need not be here either (--topology h100:2x8, nodes x GPUs: JAX's CUDA
        plugin compiles without a GPU from hloroof.jax's target description; with nothing to
        autotune on, each GEMM keeps the Triton tiling or cuBLAS call XLA picks by default);
  cpu   --devices host devices (the CPU backend's program, for trying the script).

  $(tools/venv.sh) bench/jax_llm.py OUT.hlo [--layers 32] [--platform tpu]
      [--topology v5p:2x2x2] [--devices 8] [--tp 2] [--experts 0] [--scan] [--dump DIR]

--platform gpu imports hloroof (build/python of the build, if it is not installed).

--experts N gives every layer a mixture of N experts (top-2 routing by dense dispatch), the
experts split over the FSDP axis (all-to-alls). --scan runs the layers as one `lax.scan` over
weights stacked by layer, as MaxText does by default: the module then holds while loops (the
forward pass and the backward pass, each a body of one layer) in place of unrolled layers.
--dump keeps XLA's dump folder (the module as text and HloProto, its buffer assignment) and
writes there XLA's memory_analysis.json and cost_analysis.json. The first line printed gives
the module's size and instruction count.
"""

import argparse
import os
import pathlib
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
from gpu_devices import gpu_devices  # noqa: E402
from xla_analyses import write_analyses  # noqa: E402


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--platform", choices=("tpu", "gpu", "cpu"), default="tpu")
    parser.add_argument("--topology", help="TPU slice (v5p:2x2x2) or GPU node (h100:8)")
    parser.add_argument("--devices", type=int, default=8, help="CPU devices")
    parser.add_argument("--tp", type=int, default=2, help="tensor-parallel devices")
    parser.add_argument("--experts", type=int, default=0)
    parser.add_argument("--scan", action="store_true", help="the layers as one lax.scan")
    parser.add_argument("--d", type=int, default=2048, help="model width")
    parser.add_argument("--seq", type=int, default=1024)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--dump", type=pathlib.Path, help="keep XLA's dump folder here")
    args = parser.parse_args()
    args.topology = args.topology or {"tpu": "v5p:2x2x2", "gpu": "h100:8"}.get(args.platform)
    return args


ARGS = parse_args()
# Before jax is imported: the backend, and the devices it has.
if ARGS.platform == "cpu":
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               f" --xla_force_host_platform_device_count={ARGS.devices}").strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
else:  # compiled offline: the CPU backend alone starts (a CUDA plugin with no GPU would fail)
    os.environ.setdefault("TPU_SKIP_MDS_QUERY", "1")
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               " --xla_dump_hlo_as_proto --xla_dump_hlo_as_text").strip()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.experimental import topologies  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

jax.config.update("jax_hlo_source_file_canonicalization_regex", r".*/")


def rms(x):
    return x * jax.lax.rsqrt(jnp.mean(jnp.square(x.astype(jnp.float32)), -1, keepdims=True)
                             + 1e-6).astype(x.dtype)


def attention(x, layer, heads):
    b, s, d = x.shape
    q, k, v = jnp.split(rms(x) @ layer["qkv"], 3, axis=-1)
    q, k, v = (t.reshape(b, s, heads, d // heads) for t in (q, k, v))
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(jnp.float32) / np.sqrt(d // heads)
    scores = jnp.where(jnp.tril(jnp.ones((s, s), bool)), scores, -1e9)
    probs = jax.nn.softmax(scores, axis=-1).astype(x.dtype)
    return x + jnp.einsum("bhqk,bkhd->bqhd", probs, v).reshape(b, s, d) @ layer["out"]


def dense_ffn(x, layer):
    h = rms(x)
    return x + (jax.nn.silu(h @ layer["gate"]) * (h @ layer["up"])) @ layer["down"]


def moe_ffn(x, layer):
    h = rms(x)
    router = jax.nn.softmax((h @ layer["router"]).astype(jnp.float32), axis=-1)
    top, index = jax.lax.top_k(router, 2)
    experts = layer["router"].shape[-1]
    weights = (jax.nn.one_hot(index, experts) * top[..., None]).sum(-2).astype(x.dtype)
    up = jnp.einsum("bsd,edf->bsef", h, layer["up"])
    gate = jnp.einsum("bsd,edf->bsef", h, layer["gate"])
    out = jnp.einsum("bsef,efd->bsed", jax.nn.silu(gate) * up, layer["down"])
    return x + jnp.einsum("bsed,bse->bsd", out, weights)


def make_loss(heads, experts, scan):
    def block(x, layer):
        x = attention(x, layer, heads)
        return moe_ffn(x, layer) if experts else dense_ffn(x, layer)

    def loss(params, tokens):
        x = params["embed"][tokens]
        if scan:  # params["layers"]: one dict of weights stacked by layer
            x, _ = jax.lax.scan(lambda x, layer: (block(x, layer), None), x, params["layers"])
        else:
            for layer in params["layers"]:
                x = block(x, layer)
        logits = (rms(x) @ params["embed"].T).astype(jnp.float32)
        logp = jax.nn.log_softmax(logits, axis=-1)
        labels = jnp.roll(tokens, -1, axis=1)
        return -jnp.mean(jnp.take_along_axis(logp, labels[..., None], axis=-1))
    return loss


def target_devices(args):
    if args.platform == "tpu":
        return topologies.get_topology_desc(platform="tpu", topology_name=args.topology).devices
    if args.platform == "gpu":
        return gpu_devices(args.topology)
    devices = jax.devices()
    if len(devices) != args.devices:
        sys.exit(f"asked for {args.devices} {args.platform} devices, JAX has {len(devices)}")
    return devices


def main():
    args = ARGS
    devices = target_devices(args)
    if len(devices) % args.tp:
        sys.exit(f"--tp {args.tp} does not divide the {len(devices)} devices")
    mesh = Mesh(np.array(devices).reshape(-1, args.tp), ("fsdp", "tp"))
    d, ff, heads, vocab = args.d, 4 * args.d, max(args.d // 128, 1), 32768

    def shaped(shape, spec):
        if args.scan:  # stacked by layer, the layer axis not split
            shape, spec = (args.layers, *shape), P(None, *spec)
        return jax.ShapeDtypeStruct(shape, jnp.bfloat16, sharding=NamedSharding(mesh, spec))

    def layer():
        w = {"qkv": shaped((d, 3 * d), P("fsdp", "tp")), "out": shaped((d, d), P("tp", "fsdp"))}
        if args.experts:
            e = args.experts
            w |= {"router": shaped((d, e), P()),
                  "gate": shaped((e, d, ff // 2), P("fsdp", None, "tp")),
                  "up": shaped((e, d, ff // 2), P("fsdp", None, "tp")),
                  "down": shaped((e, ff // 2, d), P("fsdp", "tp", None))}
        else:
            w |= {"gate": shaped((d, ff), P("fsdp", "tp")), "up": shaped((d, ff), P("fsdp", "tp")),
                  "down": shaped((ff, d), P("tp", "fsdp"))}
        return w

    params = {"layers": layer() if args.scan else [layer() for _ in range(args.layers)]}
    params["embed"] = jax.ShapeDtypeStruct((vocab, d), jnp.bfloat16,
                                           sharding=NamedSharding(mesh, P("tp", "fsdp")))
    tokens = jax.ShapeDtypeStruct((args.batch, args.seq), jnp.int32,
                                  sharding=NamedSharding(mesh, P("fsdp", None)))
    loss = make_loss(heads, args.experts, args.scan)

    def step(params, tokens):
        value, grads = jax.value_and_grad(loss)(params, tokens)
        return jax.tree.map(lambda p, g: p - 1e-3 * g, params, grads), value

    shardings = (jax.tree.map(lambda s: s.sharding, params), NamedSharding(mesh, P()))
    # XLA's own dump of the optimized module: this jaxlib may not read back libtpu's.
    with tempfile.TemporaryDirectory() as temp:
        dump = args.dump or pathlib.Path(temp)
        start = time.perf_counter()
        compiled = jax.jit(step, out_shardings=shardings, donate_argnums=0).lower(
            params, tokens).compile(compiler_options={"xla_dump_to": str(dump)})
        seconds = time.perf_counter() - start
        found = sorted(dump.glob("*jit_step*after_optimizations.txt"))
        if len(found) != 1:
            sys.exit(f"expected one optimized module in XLA's dump, found {len(found)}")
        text = found[0].read_text()
        if args.dump:
            write_analyses(compiled, args.dump)
    args.out.write_text(text)
    ops = sum(1 for line in text.splitlines() if " = " in line and not line.startswith("HloModule"))
    where = args.topology if args.platform != "cpu" else devices[0].device_kind
    print(f"{args.out}: {len(text) / 1e6:.2f} MB, {ops:,} instructions, {args.layers} layers, "
          f"{len(devices)} devices ({args.platform}: {where}, tp {args.tp}), experts "
          f"{args.experts}{', scanned' if args.scan else ''}, compiled in {seconds:.1f} s by "
          f"jax {jax.__version__}")


if __name__ == "__main__":
    main()
