"""The program the Python benchmarks compile: an MLP's training step that JAX compiles on the
CPU (python_predict_bench.py predicts it; jax_mlp_protos.py writes its HloModuleProto)."""


def mlp_step(layers: int = 8):
    """A compiled training step (an MLP of `layers` layers with layer norms, SGD update) on the
    CPU."""
    import jax
    import jax.numpy as jnp

    def loss(params, x, y):
        for w1, w2 in params:
            h = jax.nn.gelu(x @ w1)
            x = x + h @ w2
            x = (x - x.mean(-1, keepdims=True)) / jnp.sqrt(x.var(-1, keepdims=True) + 1e-6)
        return jnp.mean((x - y) ** 2)

    def step(params, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        return value, jax.tree_util.tree_map(lambda p, g: p - 1e-3 * g, params, grads)

    d, f, b = 256, 1024, 64
    params = [(jax.ShapeDtypeStruct((d, f), jnp.float32),
               jax.ShapeDtypeStruct((f, d), jnp.float32)) for _ in range(layers)]
    x = jax.ShapeDtypeStruct((b, d), jnp.float32)
    return jax.jit(step).lower(params, x, x).compile()
