#!/usr/bin/env python3
"""How fast hloroof.sweep goes: compiles an hour, Ray's overhead a task, static what-ifs.

    PYTHONPATH=build/python $(tools/venv.sh) bench/sweep_bench.py [--configs N] [--no-ray]

Compiles N configurations of examples/sweep/llama.py at small sizes (2 layers, width 128:
about a second of XLA each) for tpu_v5e:2x2 with an empty store, with 1 and with 2 local
workers, then as Ray tasks on a local Ray cluster of 2 CPUs; each compile is a process of its
own, JAX's start-up included. Ray's overhead a task is the Ray sweep's wall time less the
2-worker local sweep's, over N. Then static what-ifs: one compiled program (llama.py at the small
sizes, 12 layers unrolled: over 8,000 lines) predicted on 4 TPU slices x 20 device edits in
process, counted per CPU-second; and design-space what-ifs (hs.explore) of the same program:
2,048 device variants (FLOP rate, HBM and ICI bandwidth) re-timed from one walk, each against
4 HBM capacities, with the variants' Pareto front. --what-ifs-only skips the timed sweeps.
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


def timed_sweep(n, engine):
    import hloroof.sweep as hs
    with tempfile.TemporaryDirectory() as store:
        start = time.perf_counter()
        result = hs.run("llama:build", configs(n), ["tpu_v5e:2x2"], engine=engine,
                        compile=hs.Compile(cache=store, path=[EXAMPLES]), progress=False)
        wall = time.perf_counter() - start
    failed = [r["error"] for r in result.rows if r["error"]]
    if failed:
        raise SystemExit(f"a configuration failed: {failed[0]}")
    return wall, result


def unrolled(config):
    """examples/sweep/llama.py's step with its layers unrolled (no loop): a program of over
    8,000 lines at 12 layers, for the what-ifs. The worker process that compiles it is its own:
    jax.lax.scan is unrolled there."""
    import functools
    import jax
    import llama
    if not getattr(jax.lax.scan, "keywords", {}).get("unroll"):
        jax.lax.scan = functools.partial(jax.lax.scan, unroll=True)
    return llama.build(config)


def what_ifs():
    import hloroof
    import hloroof.sweep as hs
    with tempfile.TemporaryDirectory() as store:
        result = hs.run("sweep_bench:unrolled",
                        [dict(TINY, tensor=2, batch_per_device=8, remat="dots", layers=12)],
                        ["tpu_v5e:2x2"], engine=hs.Local(workers=1), progress=False,
                        compile=hs.Compile(cache=store, path=[EXAMPLES, HERE], timeout_s=1800))
        if result.rows[0]["error"]:
            raise SystemExit(f"the what-ifs' program did not compile: {result.rows[0]['error']}")
        text = result.program(0)
        module = hloroof.parse(text)
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
    return len(frame), cpu, instructions, text


def design_space(text):
    """Design-space what-ifs (hs.explore): the program re-timed on 16 FLOP rates x 16 HBM
    bandwidths x 8 ICI bandwidths (2,048 device variants), each against 4 HBM capacities;
    counted per CPU-second, the module's parse, cost, walk and memory analysis included."""
    import hloroof
    import hloroof.sweep as hs
    spec = hloroof.resolve_device("tpu_v5e:2x2").spec
    flops = [0.5 + 0.1 * k for k in range(16)]
    hbm = [spec.hbm_bandwidth * (0.5 + 0.1 * k) for k in range(16)]
    links = [0.25 * (k + 1) for k in range(8)]
    capacity = [4e9, 8e9, 16e9, 32e9]
    cpu = time.process_time()
    frame = hs.explore(text, "tpu_v5e:2x2", flop_rate_scale=flops, hbm_bandwidth=hbm,
                       link_bandwidth_scale=links, hbm_capacity=capacity)
    cpu = time.process_time() - cpu
    return frame, cpu, len(flops) * len(hbm) * len(links)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", type=int, default=8, help="configurations a sweep (<= 24)")
    ap.add_argument("--no-ray", action="store_true", help="leave the Ray engine out")
    ap.add_argument("--what-ifs-only", action="store_true",
                    help="the what-ifs alone (no sweep timed)")
    a = ap.parse_args()
    import hloroof.sweep as hs
    n = a.configs
    walls = {}
    for workers in (1, 2) if not a.what_ifs_only else ():
        walls[workers], result = timed_sweep(n, hs.Local(workers=workers))
        compile_s = sum(r["compile_s"] for r in result.rows) / n
        print(f"local, {workers} worker{'s' if workers > 1 else ' '}: {n} compiles in "
              f"{walls[workers]:6.1f} s = {n / walls[workers] * 3600:6.0f} compiles/hour "
              f"(XLA alone {compile_s:.2f} s a compile)")
    if not a.no_ray and not a.what_ifs_only:
        try:
            import ray
        except ImportError:
            print("ray: not installed (pip install 'hloroof[ray]')")
        else:
            ray.init(num_cpus=2, log_to_driver=False, include_dashboard=False)
            wall, _ = timed_sweep(n, hs.Ray())
            ray.shutdown()
            print(f"ray, 2 CPUs:      {n} compiles in {wall:6.1f} s = "
                  f"{n / wall * 3600:6.0f} compiles/hour; overhead "
                  f"{(wall - walls[2]) / n:+.2f} s a task against 2 local workers")
    count, cpu, instructions, text = what_ifs()
    lines = len(text.splitlines())
    print(f"static what-ifs: {count} predictions of one program ({lines:,} lines, "
          f"{instructions:,} instructions) in {cpu:.2f} CPU-s = {count / cpu * 60:,.0f} a minute "
          f"a core")
    frame, cpu, retimed = design_space(text)
    print(f"design-space what-ifs: {retimed:,} device variants re-timed ({len(frame):,} rows "
          f"with 4 HBM capacities) of the same program in {cpu:.2f} CPU-s = "
          f"{retimed / cpu * 60:,.0f} variants a CPU-minute")
    front = frame[frame["pareto"]].sort_values("cost")
    print(f"Pareto front of the variants ({len(front)} of {len(frame):,}): step time against "
          f"cost (the four figures relative to tpu_v5e's, averaged)")
    print(f"  {'cost':>5} {'step ms':>8} {'FLOP rate x':>11} {'HBM TB/s':>9} {'ICI x':>6} "
          f"{'HBM GB':>7} {'headroom':>8}")
    for _, r in front.iterrows():
        print(f"  {r['cost']:5.3f} {r['step_time_s'] * 1e3:8.3f} {r['flop_rate_scale']:11.1f} "
              f"{r['hbm_bandwidth'] / 1e12:9.3f} {r['link_bandwidth_scale']:6.2f} "
              f"{r['hbm_capacity_bytes'] / 1e9:7.0f} {r['headroom']:8.2f}")


if __name__ == "__main__":
    sys.exit(main())
