"""A Llama-style decoder's train step for `python -m hloroof.sweep` (examples/sweep/llama.toml).

`build(config)` takes the sweep's configuration: ``fsdp`` and ``tensor`` (the mesh: the batch
and the weights' first axis over ``fsdp``, the heads and the MLP's hidden axis over
``tensor``; ``fsdp`` 0 means every device the tensor axis leaves), ``batch_per_device``
(sequences a step per device: the global batch is ``batch_per_device`` x ``devices`` whatever
the mesh, so that every mesh of a grid does the same work and tensor parallelism never
shrinks it; each data-parallel group of ``tensor`` devices shares its members' sequences),
``remat`` ("full": every layer recomputed in the backward pass, "dots": the matrix products
saved, "none") and optional model sizes (``layers``, ``width``, ``heads``, ``kv_heads``,
``ffn``, ``vocab``, ``seq``); the sweep adds ``devices``. Grouped-query attention, SwiGLU, RMS
norm, layers in a scan, bf16 weights and plain SGD; the model FLOPs are 6 x parameters x
tokens plus the attention's 12 x layers x width x seq x tokens (MaxText's count).
"""

import hloroof.sweep as hs

SIZES = dict(layers=4, width=512, heads=8, kv_heads=4, ffn=1536, vocab=8192, seq=512)


def build(config):
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P

    c = dict(SIZES, **config)
    L, D, H, KV, F, V, S = (c["layers"], c["width"], c["heads"], c["kv_heads"], c["ffn"],
                            c["vocab"], c["seq"])
    HD = D // H
    tensor = c.get("tensor", 1)
    fsdp = c.get("fsdp") or c["devices"] // tensor
    batch = c["batch_per_device"] * c["devices"]
    bf = jnp.bfloat16

    def rms(x, w):
        x32 = x.astype(jnp.float32)
        return (x32 * jax.lax.rsqrt(jnp.mean(x32 * x32, -1, keepdims=True) + 1e-5)).astype(bf) * w

    def layer(x, w):
        b, s = x.shape[:2]
        h = rms(x, w["ln1"])
        q = (h @ w["wq"]).reshape(b, s, H, HD)
        k = jnp.repeat((h @ w["wk"]).reshape(b, s, KV, HD), H // KV, axis=2)
        v = jnp.repeat((h @ w["wv"]).reshape(b, s, KV, HD), H // KV, axis=2)
        logits = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(jnp.float32) / HD ** 0.5
        mask = jnp.tril(jnp.ones((s, s), bool))
        p = jax.nn.softmax(jnp.where(mask, logits, -1e9), -1).astype(bf)
        o = jnp.einsum("bhqk,bkhd->bqhd", p, v).reshape(b, s, D)
        x = x + o @ w["wo"]
        h = rms(x, w["ln2"])
        return x + (jax.nn.silu(h @ w["w1"]) * (h @ w["w3"])) @ w["w2"]

    policy = {"full": jax.checkpoint_policies.nothing_saveable,
              "dots": jax.checkpoint_policies.dots_with_no_batch_dims_saveable,
              "none": None}[c["remat"]]

    def loss(params, tokens):
        x = params["embed"][tokens]
        body = lambda x, w: (layer(x, w), None)
        if policy is not None:
            body = jax.checkpoint(body, policy=policy)
        x, _ = jax.lax.scan(body, x, params["layers"])
        logits = (rms(x, params["lnf"]) @ params["head"]).astype(jnp.float32)
        return jnp.mean(jax.nn.logsumexp(logits, -1) - logits[..., 0])

    def step(params, tokens):
        value, grads = jax.value_and_grad(loss)(params, tokens)
        return jax.tree.map(lambda p, g: (p - 1e-4 * g).astype(p.dtype), params, grads), value

    sd = jax.ShapeDtypeStruct
    layers = {"ln1": sd((L, D), bf), "ln2": sd((L, D), bf), "wq": sd((L, D, D), bf),
              "wk": sd((L, D, KV * HD), bf), "wv": sd((L, D, KV * HD), bf),
              "wo": sd((L, D, D), bf), "w1": sd((L, D, F), bf), "w3": sd((L, D, F), bf),
              "w2": sd((L, F, D), bf)}
    params = {"embed": sd((V, D), bf), "layers": layers, "lnf": sd((D,), bf),
              "head": sd((D, V), bf)}
    col, row = P(None, "fsdp", "tensor"), P(None, "tensor", "fsdp")
    specs = {"embed": P("fsdp", None), "lnf": P(None), "head": P("fsdp", "tensor"),
             "layers": {"ln1": P(None, None), "ln2": P(None, None), "wq": col, "wk": col,
                        "wv": col, "wo": row, "w1": col, "w3": col, "w2": row}}
    n_params = V * D * 2 + L * (2 * D * D + 2 * D * KV * HD + 3 * D * F)
    tokens = batch * S
    model_flops = 6 * n_params * tokens + 12 * L * D * S * tokens
    return hs.Step(step, (params, sd((batch, S), jnp.int32)),
                   in_specs=(specs, P("fsdp", None)),
                   mesh_axes={"fsdp": fsdp, "tensor": tensor}, donate_argnums=(0,),
                   model_flops=model_flops, tokens=tokens)
