#!/usr/bin/env python3
"""A notebook in a script: predict a JAX step with hloroof, cell by cell.

Run from the repository root after `tools/setup.sh`:

    PYTHONPATH=build/python /usr/bin/python3 examples/python/predict_step.py

With JAX installed, cell 1 compiles a real step instead of reading the bundled example; every
later cell is the same. In a notebook, paste each cell into its own cell.
"""

# %% 1. HLO text of a compiled step: from JAX when it is here, else the bundled example.
import pathlib
import textwrap

import hloroof

try:
    import jax
    import jax.numpy as jnp

    def step(w, x):
        return jnp.tanh(x @ w).sum()

    w = jnp.ones((4096, 4096), jnp.bfloat16)
    x = jnp.ones((8192, 4096), jnp.bfloat16)
    compiled = jax.jit(step).lower(w, x).compile()  # hloroof takes it as is (it has as_text())
    device = "tpu_v5e"  # the slice is inferred from the module (and said in assumptions)
except ImportError:
    example = pathlib.Path(__file__).resolve().parents[1] / "tpu_v5e_train_step.hlo"
    compiled = example.read_text()
    device = "tpu_v5e:2x2"

# %% 2. The predicted step and what it is made of (seconds, as every time in hloroof).
p = hloroof.predict(compiled, device)
b = p.breakdown
print(f"{p.device}:{p.topology}: step {p.step_time_s * 1e3:.1f} ms, HFU {p.hfu:.1%}")
print(f"  compute {b.compute_s * 1e3:.1f} ms, memory {b.memory_s * 1e3:.1f} ms, "
      f"exposed collectives {b.collective_exposed_s * 1e3:.2f} ms, "
      f"hidden collectives {b.collective_hidden_s * 1e3:.2f} ms")
for line in p.assumptions:
    print(textwrap.fill(line, 98, initial_indent="  assumed: ", subsequent_indent="    "))

# %% 3. The costliest op, and why it takes what it takes.
top = p.ops[0]
print(f"\n{top.name} ({top.category}, {top.bound}-bound, x{top.multiplier:g} per step): "
      f"{top.total_time_s * 1e3:.2f} ms per step")
print(top.explanation)

# %% 4. Op stats as a table (pandas is optional: to_dict() gives the same as plain data).
try:
    df = p.to_pandas()
    by_category = df.groupby("category")["total_time_s"].sum().sort_values(ascending=False)
    print("\nstep time by category (ms):")
    print((by_category * 1e3).round(2).head(8).to_string())
except ImportError:
    ops = p.to_dict()["ops"]
    print(f"\n{len(ops)} ops; install pandas for to_pandas()")

# %% 5. The same step on another device, and whether it fits in memory.
module = hloroof.parse(compiled)  # parse once, ask several questions
for other in ("tpu_v5e", "h100"):
    try:
        q = hloroof.predict(module, other)
    except ValueError as error:  # e.g. a topology the device cannot make
        print(f"{other}: {error}")
        continue
    m = hloroof.memory(module, other)
    fits = "fits" if m.capacity.fits else "does not fit"
    print(f"{q.device}:{q.topology}: step {q.step_time_s * 1e3:.1f} ms; "
          f"peak memory {m.peak_bytes / 2**30:.2f} GiB of "
          f"{m.capacity.capacity_bytes / 2**30:.0f} GiB ({fits})")
