#!/usr/bin/env python3
"""Writes the HloModuleProtos that bench/proto_read_bench reads: `jax_mlp_protos.py OUTDIR
[--layers 2,8,32,128]`.

Each is the compiled training step of an MLP (python_predict_bench.py's program: layers of
GELU feed-forward blocks with layer norms, SGD update) that JAX compiles here on the CPU,
serialized as XLA holds it (`as_serialized_hlo_module_proto()`), written as
OUTDIR/mlp_LAYERS.pb. Run with JAX installed and JAX_PLATFORMS=cpu:

    JAX_PLATFORMS=cpu $(tools/venv.sh) bench/jax_mlp_protos.py /tmp/protos
    build/bench/proto_read_bench /tmp/protos/mlp_*.pb
"""

import argparse
import pathlib
import sys

from jax_mlp import mlp_step


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=pathlib.Path)
    parser.add_argument("--layers", type=lambda v: [int(n) for n in v.split(",")],
                        default=[2, 8, 32, 128], help="the programs' layers, e.g. 2,8")
    args = parser.parse_args()
    args.outdir.mkdir(parents=True, exist_ok=True)
    for layers in args.layers:
        module = mlp_step(layers).runtime_executable().hlo_modules()[0]
        path = args.outdir / f"mlp_{layers}.pb"
        path.write_bytes(module.as_serialized_hlo_module_proto())
        print(f"{path}: {path.stat().st_size / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
