#!/usr/bin/env python3
"""How fast hloroof.sweep goes: compiles an hour, Ray's overhead a task, static what-ifs.

    PYTHONPATH=build/python $(tools/venv.sh) bench/sweep_bench.py [--configs N] [--no-ray]

Compiles N configurations of examples/sweep/llama.py at small sizes (2 layers, width 128:
about a second of XLA each) for tpu_v5e:2x2 with an empty store, with 1 and with 2 local
workers, then as Ray tasks on a local Ray cluster of 2 CPUs; each compile is a process of its
own, JAX's start-up included. Ray's overhead a task is the Ray sweep's wall time less the
2-worker local sweep's, over N. Then static what-ifs: one compiled program (llama.py at its own
sizes) predicted on 4 TPU slices x 20 device edits in process, counted per CPU-second.
"""

import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(HERE), "examples", "sweep")
TINY = dict(layers=2, width=128, heads=4, kv_heads=2, ffn=256, vocab=1024, seq=128)


def configs(n):
    import hloroof.sweep as hs
    grid = hs.grid(tensor=[1, 2, 4], batch_per_device=[1, 2, 4, 8], remat=["full", "dots"])
    return [dict(TINY, **c) for c in grid[:n]]


def timed_sweep(n, **engine):
    import hloroof.sweep as hs
    with tempfile.TemporaryDirectory() as store:
        start = time.perf_counter()
        result = hs.run("llama:build", configs(n), ["tpu_v5e:2x2"], cache=store,
                        path=[EXAMPLES], progress=False, **engine)
        wall = time.perf_counter() - start
    failed = [r["error"] for r in result.rows if r["error"]]
    if failed:
        raise SystemExit(f"a configuration failed: {failed[0]}")
    return wall, result


def what_ifs():
    import hloroof
    import hloroof.sweep as hs
    with tempfile.TemporaryDirectory() as store:
        result = hs.run("llama:build", [dict(tensor=2, batch_per_device=8, remat="dots")],
                        ["tpu_v5e:2x2"], cache=store, path=[EXAMPLES], progress=False)
        module = hloroof.parse(result.program(0))
    devices = ["tpu_v5e:2x2", "tpu_v6e:2x2", "tpu_v5p:2x2x1", "tpu_v4:2x2x1"]
    edits = [[f"hbm.bandwidth={b:g}"] for b in (4e11, 8e11, 1.6e12, 3.2e12)]
    edits += [[f"hbm.capacity={c:g}"] for c in (8e9, 16e9, 32e9, 64e9)]
    edits += [[f"interconnect.link_bandwidth={b:g}"] for b in (2.5e10, 5e10, 1e11, 2e11)]
    edits += [[f"hbm.bandwidth={b:g}", f"interconnect.link_bandwidth={i:g}"]
              for b in (8e11, 1.6e12) for i in (5e10, 1e11)]
    edits += [[]] * 4
    cpu = time.process_time()
    frame = hs.what_if(module, devices, edits)
    cpu = time.process_time() - cpu
    if frame["error"].notna().any():
        raise SystemExit(f"a what-if failed: {frame['error'].dropna().iloc[0]}")
    instructions = sum(len(c.instructions) for c in module.computations)
    return len(frame), cpu, instructions


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", type=int, default=8, help="configurations a sweep (<= 24)")
    ap.add_argument("--no-ray", action="store_true", help="leave the Ray engine out")
    a = ap.parse_args()
    n = a.configs
    walls = {}
    for workers in (1, 2):
        walls[workers], result = timed_sweep(n, workers=workers)
        compile_s = sum(r["compile_s"] for r in result.rows) / n
        print(f"local, {workers} worker{'s' if workers > 1 else ' '}: {n} compiles in "
              f"{walls[workers]:6.1f} s = {n / walls[workers] * 3600:6.0f} compiles/hour "
              f"(XLA alone {compile_s:.2f} s a compile)")
    if not a.no_ray:
        try:
            import ray
        except ImportError:
            print("ray: not installed (pip install 'hloroof[ray]')")
        else:
            ray.init(num_cpus=2, log_to_driver=False, include_dashboard=False)
            wall, _ = timed_sweep(n, engine="ray")
            ray.shutdown()
            print(f"ray, 2 CPUs:      {n} compiles in {wall:6.1f} s = "
                  f"{n / wall * 3600:6.0f} compiles/hour; overhead "
                  f"{(wall - walls[2]) / n:+.2f} s a task against 2 local workers")
    count, cpu, instructions = what_ifs()
    print(f"static what-ifs: {count} predictions of one program ({instructions} "
          f"instructions) in {cpu:.2f} CPU-s = {count / cpu * 60:,.0f} a minute a core")


if __name__ == "__main__":
    sys.exit(main())
