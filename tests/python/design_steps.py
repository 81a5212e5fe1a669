"""Steps for test_sweep_design.py: each compiles in about a second."""

import hloroof.sweep as hs


def params(config):
    """A step over one weight matrix of `rows` x `cols` (`dtype`, default bf16), split by
    `spec` ("rows", "cols", "none", or "model": an axis the mesh lacks) over a mesh of
    `mesh` devices (default: all), with an activation batch of `batch` rows. `double` keeps
    the old weights, the new ones and a product of the same size live at once (temporaries
    three times the weights: XLA's HBM check refuses what the arguments alone would not)."""
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P

    n = config["devices"]
    mesh = config.get("mesh", n)
    rows, cols = config.get("rows", 1024), config.get("cols", 1024)
    dtype = jnp.dtype(config.get("dtype", "bfloat16"))
    batch = config.get("batch", 8 * mesh)
    spec = {"rows": P("data", None), "cols": P(None, "data"), "none": P(),
            "model": P("model", None)}[config.get("spec", "rows")]

    def step(w, x):
        # `matmul` False: the weights only scaled (no product gathers them).
        y = (x @ w.astype(x.dtype)).sum() if config.get("matmul", True) else x.sum()
        new = w * 0.999 + y.astype(w.dtype)
        if config.get("double"):
            return new, jnp.sin(new) * w, y
        return new, y

    sd = jax.ShapeDtypeStruct
    return hs.Step(step, (sd((rows, cols), dtype), sd((batch, rows), jnp.bfloat16)),
                   in_specs=(spec, P("data", None)), mesh_axes={"data": mesh},
                   donate_argnums=(0,),
                   model_flops=2 * batch * rows * cols, tokens=batch)


def mlp(config):
    """A two-layer MLP's train step over a mesh ("data", "model"): `model` devices split the
    hidden axis, the rest the batch; `width`, `batch_per_device` and `remat` ("none", "full")
    set it. For GPU nodes and for the budgeted search."""
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P

    n = config["devices"]
    model = config.get("model", 1)
    width = config.get("width", 256)
    batch = config.get("batch_per_device", 8) * n // model
    remat = config.get("remat", "none")

    def layer(x, w):
        return jax.nn.relu(x @ w["a"]) @ w["b"]

    if remat == "full":
        layer = jax.checkpoint(layer)

    def step(w, x):
        def loss(w):
            return jnp.mean(layer(x, w))
        value, grads = jax.value_and_grad(loss)(w)
        return jax.tree.map(lambda p, g: p - 1e-3 * g, w, grads), value

    sd = jax.ShapeDtypeStruct
    w = {"a": sd((width, 4 * width), jnp.bfloat16), "b": sd((4 * width, width), jnp.bfloat16)}
    x = sd((batch, width), jnp.bfloat16)
    flops = 6 * batch * width * 4 * width * 2  # 6 x parameters x rows
    return hs.Step(step, (w, x), in_specs=({"a": P(None, "model"), "b": P("model", None)},
                                           P("data", None)),
                   mesh_axes={"data": n // model, "model": model}, donate_argnums=(0,),
                   model_flops=flops, tokens=batch)
