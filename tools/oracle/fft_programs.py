#!/usr/bin/env python3
"""Compiles distributed 3-D FFTs (forward and inverse, slab and pencil meshes) with XLA itself
and writes what XLA says of them: the optimized HLO, memory_analysis() and the buffer assignment.

    HLOROOF_VENV=... tools/venv.sh   # jax, jaxlib and JAX's CUDA plugin, pinned
    .venv/bin/python tools/oracle/fft_programs.py tests/data/xla_fft

The programs are those of distributed FFT libraries written with shard_map: a 1-D FFT along the
local axis, an all-to-all that brings the next axis home, and so on. The inverse undoes the
forward in reverse order, so it starts with an FFT straight on its complex parameter. Each is
compiled for the CPU (as many host devices as the mesh has) and, with no GPU present, for a node of
A100s (a deviceless compile from XLA's published A100 target description). Output per program:
DIR/<target>/<name>/{module.hlo, memory_analysis.json, buffer-assignment.txt, meta.json}.
"""

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # tools/
from output_file import write_output  # noqa: E402

# XLA's A100-SXM4-80GB target description (openxla/xla,
# xla/backends/gpu/target_config/specs/a100_sxm_80.txtpb): the hardware facts a deviceless
# compile needs.
A100_TARGET = """gpu_device_info {
  threads_per_block_limit: 1024 threads_per_warp: 32 shared_memory_per_block: 49152
  shared_memory_per_core: 167936 threads_per_core_limit: 2048 core_count: 108 fpus_per_core: 64
  block_dim_limit_x: 2147483647 block_dim_limit_y: 65535 block_dim_limit_z: 65535
  memory_bandwidth: 2039040000000 l2_cache_size: 41943040 clock_rate_ghz: 1.41
  device_memory_size: 85100068864 shared_memory_per_block_optin: 166912
  cuda_compute_capability { major: 8 } registers_per_core_limit: 65536
  registers_per_block_limit: 65536 dnn_version: "8.9.4"
}
platform_name: "CUDA"
dnn_version_info { major: 8 minor: 9 patch: 4 }
device_description_str: "NVIDIA A100-SXM4-80GB"
"""

# (edge of the cube, mesh rows, mesh columns): rows split axis 1, columns axis 0.
MESHES = [(64, 1, 8), (64, 8, 1), (64, 2, 4), (64, 4, 2), (64, 1, 16), (64, 4, 4)]
TARGETS = ["cpu", "a100"]

CHILD = r'''
import json, os, sys
n, rows, cols, direction, target, dump = sys.argv[1:7]
n, rows, cols = int(n), int(rows), int(cols)
flags = f"--xla_dump_to={dump} --xla_dump_hlo_as_text"
if target == "cpu":
    flags += f" --xla_force_host_platform_device_count={rows * cols}"
os.environ["XLA_FLAGS"] = flags
os.environ["JAX_PLATFORMS"] = "cpu"  # the CUDA plugin compiles without a GPU all the same
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
if target == "cpu":
    devices = jax.devices()[: rows * cols]
else:
    from jax.experimental import topologies
    devices = topologies.get_topology_desc(
        platform="cuda", target_config=sys.stdin.read(), topology=f"1x1x{rows * cols}").devices
mesh = Mesh(np.array(devices).reshape(rows, cols), ("y", "z"))
spec = P("z", "y", None)

def forward(x):
    x = jnp.fft.fft(x.astype(jnp.complex64), axis=2)
    if rows > 1:
        x = jax.lax.all_to_all(x, "y", 2, 1, tiled=True)
    x = jnp.fft.fft(x, axis=1)
    if cols > 1:
        x = jax.lax.all_to_all(x, "z", 1, 0, tiled=True)
    return jnp.fft.fft(x, axis=0)

def inverse(x):
    x = jnp.fft.ifft(x, axis=2)
    if rows > 1:
        x = jax.lax.all_to_all(x, "y", 2, 1, tiled=True)
    x = jnp.fft.ifft(x, axis=1)
    if cols > 1:
        x = jax.lax.all_to_all(x, "z", 1, 0, tiled=True)
    return jnp.fft.ifft(x, axis=0)

f = jax.shard_map(forward if direction == "fft" else inverse, mesh=mesh, in_specs=spec,
                  out_specs=spec)
dtype = jnp.float32 if direction == "fft" else jnp.complex64
arg = jax.ShapeDtypeStruct((n, n, n), dtype, sharding=NamedSharding(mesh, spec))
compiled = jax.jit(f).lower(arg).compile()
stats = compiled.memory_analysis()
print(json.dumps({k: getattr(stats, k) for k in sorted(dir(stats)) if k.endswith("_in_bytes")}))
'''


def main(out_dir: str) -> int:
    out = pathlib.Path(out_dir)
    import jax, jaxlib  # noqa: E401  (versions for meta.json)
    for target in TARGETS:
        for n, rows, cols in MESHES:
            for direction in ("fft", "ifft"):
                name = f"{direction}_{n}_{rows}x{cols}"
                with tempfile.TemporaryDirectory() as dump:
                    run = subprocess.run(
                        [sys.executable, "-c", CHILD, str(n), str(rows), str(cols), direction,
                         target, dump],
                        input=A100_TARGET, capture_output=True, text=True, check=False)
                    if run.returncode != 0:
                        print(f"{target}/{name}: {run.stderr.strip().splitlines()[-1]}",
                              file=sys.stderr)
                        continue
                    where = out / target / name
                    where.mkdir(parents=True, exist_ok=True)
                    platform = "cpu" if target == "cpu" else "sm_8.0_gpu"
                    stem = next(pathlib.Path(dump).glob(
                        f"*.jit_*.{platform}_after_optimizations.txt"))
                    shutil.copy(stem, where / "module.hlo")
                    shutil.copy(str(stem).replace(".txt", "-buffer-assignment.txt"),
                                where / "buffer-assignment.txt")
                    stats = json.loads(run.stdout.strip().splitlines()[-1])
                    write_output(where / "memory_analysis.json",
                                 json.dumps(stats, indent=1, sort_keys=True) + "\n")
                    meta = {"program": name, "target": target, "mesh": [rows, cols],
                            "jax": jax.__version__, "jaxlib": jaxlib.__version__,
                            "command": "tools/oracle/fft_programs.py"}
                    write_output(where / "meta.json", json.dumps(meta, indent=1) + "\n")
                    print(f"{target}/{name}: temp {stats['temp_size_in_bytes']} B")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/xla_fft"))
