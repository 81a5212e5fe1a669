"""The train steps of bench/tpu_recipes.py: a recipe's model rebuilt in plain JAX.

Each builder takes a recipe (its model's shapes, batch and sequence) and returns the step, its
abstract arguments, their PartitionSpecs and the arguments it donates. Every model is fully
sharded over the slice (FSDP: weights and the batch over every chip, one mesh axis "fsdp"), its
layers in a scan, attention by the Pallas splash kernel.

- `dense_step`: a Llama-style decoder (grouped-query attention, SwiGLU), bf16 weights and plain
  SGD. What the backward pass keeps is the recipe's `remat` (MaxText's custom remat policy: a
  name of DENSE_SAVE_NAMES -> "device" or "offload"; default: each layer's input offloaded to
  host memory), the rest recomputed; the splash kernel's blocks are the recipe's
  `splash_blocks` (MaxText's sa_block_* fields; default 2048 each).
- `deepseek_step`: DeepSeek-V2's decoder (multi-head latent attention; a first dense layer, then
  mixture-of-experts layers with shared experts, top-k softmax routing and the experts' matrix
  products by the Pallas megablox grouped matmul), f32 weights and AdamW state, every layer
  recomputed in the backward pass (MaxText's defaults: `weight_dtype: float32`, `opt_type:
  adamw`, `remat_policy: full`).
"""
import math

MESH_AXIS = "fsdp"


def global_batch(r):
    """Sequences of one step over the slice: ``batch_per_device`` x ``devices`` where the recipe
    has been made per device (hloroof.sweep.per_device), else ``batch_per_chip`` x ``chips``."""
    if "batch_per_device" in r:
        return r["batch_per_device"] * r["devices"]
    return r["batch_per_chip"] * r["chips"]


def recipe_step(r):
    """The sweep's builder (bench/tpu_recipes.py): the recipe's step on its target, every JAX
    device one member of the "fsdp" axis. A recipe is published per chip; where one chip is
    several devices (TPU7x: 2), its batch is split over them, and its model FLOPs (the
    published TFLOP/s per chip times the published step, times the chips) stay the slice's."""
    import hloroof.sweep as hs

    r = hs.per_device(r, r["devices"], r["chips"])
    step, args, specs, donate = BUILDERS[r["model"]](r)
    return hs.Step(step, args, in_specs=specs, mesh_axes={MESH_AXIS: r["devices"]},
                   donate_argnums=donate,
                   model_flops=r["tflops_per_chip"] * 1e12 * r["step_s"] * r["chips"],
                   tokens=global_batch(r) * r["seq"])


def _common():
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P

    def act(x):  # activations: the batch over the slice, as MaxText constrains them
        return jax.lax.with_sharding_constraint(x, P(MESH_AXIS, *([None] * (x.ndim - 1))))

    def rms(x, w, eps=1e-5):
        x32 = x.astype(jnp.float32)
        y = x32 * jax.lax.rsqrt(jnp.mean(x32 * x32, -1, keepdims=True) + eps)
        return y.astype(jnp.bfloat16) * w.astype(jnp.bfloat16)

    return act, rms


SPLASH_BLOCKS = ("block_q", "block_kv", "block_kv_compute", "block_q_dkv", "block_kv_dkv",
                 "block_kv_dkv_compute")


def _splash(heads, block, scale_dim, kv_repeat=1):
    """Causal splash attention over one chip's batch, q, k, v as [batch, seq, heads, dim], q
    scaled by 1/sqrt(scale_dim), each key and value head repeated `kv_repeat` times. `block`:
    one size for every block, or a dict of SPLASH_BLOCKS' sizes (those not given: 2048)."""
    import jax
    import jax.numpy as jnp
    from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_kernel as sk
    from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_mask as sm
    from jax.experimental.shard_map import shard_map
    from jax.sharding import PartitionSpec as P

    def local(q, k, v):
        # The recipe's blocks, or the largest power-of-two part of each that divides the
        # sequence.
        given = block if isinstance(block, dict) else dict.fromkeys(SPLASH_BLOCKS, block)
        blocks = sk.BlockSizes(use_fused_bwd_kernel=True, **{
            k: math.gcd(given.get(k, 2048), q.shape[1]) for k in SPLASH_BLOCKS})
        kernel = sk.make_splash_mha(
            sm.MultiHeadMask([sm.CausalMask((q.shape[1], q.shape[1]))] * heads),
            block_sizes=blocks, head_shards=1, q_seq_shards=1)
        heads_major = lambda x: x.transpose(0, 2, 1, 3)
        return heads_major(jax.vmap(kernel)(
            heads_major(q) / math.sqrt(scale_dim),
            heads_major(jnp.repeat(k, kv_repeat, axis=2) if kv_repeat > 1 else k),
            heads_major(jnp.repeat(v, kv_repeat, axis=2) if kv_repeat > 1 else v)))

    def attention(q, k, v):
        spec = P(MESH_AXIS, None, None, None)
        return shard_map(local, mesh=jax.sharding.get_abstract_mesh(), in_specs=(spec,) * 3,
                         out_specs=spec, check_rep=False)(q, k, v)

    return attention


def _cross_entropy(logits):
    import jax
    import jax.numpy as jnp
    lse = jax.nn.logsumexp(logits.astype(jnp.float32), axis=-1)
    return jnp.mean(lse - logits[..., 0].astype(jnp.float32))


def _layer_specs(layers):
    """Stacked layer weights: the layer axis whole, the next one over the slice."""
    from jax.sharding import PartitionSpec as P
    return {k: P(None, MESH_AXIS, *([None] * (len(v.shape) - 2))) for k, v in layers.items()}


# The activations a dense recipe's remat policy may keep (MaxText's names): each layer's input,
# the q, k and v projections, the attention's output before the output projection and after it
# (out_proj), and the MLP's output projection.
DENSE_SAVE_NAMES = ("decoder_layer_input", "query_proj", "key_proj", "value_proj", "context",
                    "out_proj", "mlpwo")


def fp8_matmul():
    """MaxText's quantization=fp8_full as a matrix product a @ w (a: [..., K], w: [K, N]): the
    forward product of a and w cast to float8_e4m3fn, the backward products of the incoming
    gradient cast to float8_e5m2 with the same fp8 a and w, each tensor scaled by its absolute
    maximum onto its format's largest finite value (one scale a tensor), bf16 results."""
    import jax
    import jax.numpy as jnp

    def quantize(x, dtype):
        top = float(jnp.finfo(dtype).max)
        amax = jnp.maximum(jnp.max(jnp.abs(x)).astype(jnp.float32), 1e-12)
        scale = top / amax
        return jnp.clip(x.astype(jnp.float32) * scale, -top, top).astype(dtype), 1 / scale

    def dot(a, b, contract, out_scale):
        y = jax.lax.dot_general(a, b, (contract, ((), ())),
                                preferred_element_type=jnp.float32)
        return (y * out_scale).astype(jnp.bfloat16)

    @jax.custom_vjp
    def mm(a, w):
        return forward(a, w)[0]

    def forward(a, w):
        aq, sa = quantize(a, jnp.float8_e4m3fn)
        wq, sw = quantize(w, jnp.float8_e4m3fn)
        return dot(aq, wq, ((a.ndim - 1,), (0,)), sa * sw), (aq, sa, wq, sw)

    def backward(saved, g):
        aq, sa, wq, sw = saved
        gq, sg = quantize(g, jnp.float8_e5m2)
        da = dot(gq, wq, ((g.ndim - 1,), (1,)), sg * sw)
        lead = tuple(range(g.ndim - 1))
        dw = dot(aq, gq, (lead, lead), sa * sg)
        return da, dw

    mm.defvjp(forward, backward)
    return mm


def dense_step(r):
    import jax
    import jax.numpy as jnp
    from jax.ad_checkpoint import checkpoint_name
    from jax.sharding import PartitionSpec as P

    bf = jnp.bfloat16
    D, F, H, KV, HD, V = (r["width"], r["ffn"], r["heads"], r["kv_heads"], r["head_dim"],
                          r["vocab"])
    act, rms = _common()
    splash = _splash(H, r.get("splash_blocks", 2048), HD, H // KV)
    remat = r.get("remat", {"decoder_layer_input": "offload"})
    unknown = sorted(set(remat) - set(DENSE_SAVE_NAMES)) + sorted(
        k for k, v in remat.items() if v not in ("device", "offload"))
    if unknown:
        raise ValueError(f"remat {remat}: names of {', '.join(DENSE_SAVE_NAMES)}, each "
                         f"'device' or 'offload' ({', '.join(unknown)} is not)")
    quantization = r.get("quantization")
    if quantization not in (None, "fp8_full"):
        raise ValueError(f"quantization {quantization!r}: None (bf16) or 'fp8_full'")
    mm = fp8_matmul() if quantization == "fp8_full" else (lambda a, b: a @ b)

    def layer(x, w):
        x = act(checkpoint_name(x, "decoder_layer_input"))
        h = act(rms(x, w["ln1"]))
        b, s = h.shape[:2]
        q = act(checkpoint_name(mm(h, w["wq"]).reshape(b, s, H, HD), "query_proj"))
        k = act(checkpoint_name(mm(h, w["wk"]).reshape(b, s, KV, HD), "key_proj"))
        v = act(checkpoint_name(mm(h, w["wv"]).reshape(b, s, KV, HD), "value_proj"))
        o = act(checkpoint_name(act(splash(q, k, v)).reshape(b, s, H * HD), "context"))
        x = act(x + act(checkpoint_name(act(mm(o, w["wo"])), "out_proj")))
        h = act(rms(x, w["ln2"]))
        g = act(jax.nn.silu(act(mm(h, w["w1"]))) * act(mm(h, w["w3"])))
        return act(x + act(checkpoint_name(act(mm(g, w["w2"])), "mlpwo")))

    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[n for n, where in remat.items() if where == "device"],
        names_which_can_be_offloaded=[n for n, where in remat.items() if where == "offload"],
        offload_src="device", offload_dst="pinned_host")

    def loss(params, tokens):
        x = act(params["embed"][tokens])
        body = jax.checkpoint(lambda c, w: (layer(c, w), None), policy=policy)
        x, _ = jax.lax.scan(body, x, params["layers"])
        return _cross_entropy(act(rms(x, params["lnf"]) @ params["head"]))

    def step(params, tokens):
        value, grads = jax.value_and_grad(loss)(params, tokens)
        return jax.tree.map(lambda p, g: (p - 1e-4 * g).astype(p.dtype), params, grads), value

    L = r["layers"]
    sd = jax.ShapeDtypeStruct
    layers = {"ln1": sd((L, D), bf), "ln2": sd((L, D), bf), "wq": sd((L, D, H * HD), bf),
              "wk": sd((L, D, KV * HD), bf), "wv": sd((L, D, KV * HD), bf),
              "wo": sd((L, H * HD, D), bf), "w1": sd((L, D, F), bf), "w3": sd((L, D, F), bf),
              "w2": sd((L, F, D), bf)}
    params = {"embed": sd((V, D), bf), "layers": layers, "lnf": sd((D,), bf),
              "head": sd((D, V), bf)}
    # The embedding's vocabulary over the slice where it divides; else its width, as MaxText's
    # sharding rules place it (128256 rows over 512 devices do not divide).
    embed = P(MESH_AXIS, None) if V % r["devices"] == 0 else P(None, MESH_AXIS)
    specs = {"embed": embed, "lnf": P(None), "head": P(MESH_AXIS, None),
             "layers": _layer_specs(layers)}
    tokens = sd((global_batch(r), r["seq"]), jnp.int32)
    return step, (params, tokens), (specs, P(MESH_AXIS, None)), ()


def deepseek_step(r):
    import jax
    import jax.numpy as jnp
    from jax.experimental.pallas.ops.tpu.megablox import ops as megablox
    from jax.experimental.shard_map import shard_map
    from jax.sharding import PartitionSpec as P

    bf, f32 = jnp.bfloat16, jnp.float32
    D, H, V = r["width"], r["heads"], r["vocab"]
    NOPE, ROPE, VD, KVR = r["qk_nope_dim"], r["qk_rope_dim"], r["v_dim"], r["kv_lora_rank"]
    QK = NOPE + ROPE
    E, K, FE, FD = r["experts"], r["experts_per_token"], r["moe_ffn"], r["ffn"]
    FS = r["shared_experts"] * FE
    act, rms = _common()
    # The splash kernel takes one head size for q, k and v: v is padded to q's.
    splash = _splash(H, 512, QK)
    c = lambda w: w.astype(bf)  # f32 weights, bf16 matrix products

    def mla(h, w):
        b, s = h.shape[:2]
        q = act((h @ c(w["wq"])).reshape(b, s, H, QK))
        kv_a = act(h @ c(w["wkv_a"]))
        latent, k_rope = kv_a[..., :KVR], kv_a[..., KVR:]
        kv = act((rms(latent, w["kv_norm"], 1e-6) @ c(w["wkv_b"])).reshape(b, s, H, NOPE + VD))
        k = jnp.concatenate([kv[..., :NOPE], jnp.broadcast_to(k_rope[:, :, None, :],
                                                              (b, s, H, ROPE))], -1)
        v = jnp.pad(kv[..., NOPE:], ((0, 0), (0, 0), (0, 0), (0, QK - VD)))
        o = act(splash(q, k, v))[..., :VD]
        return act(o.reshape(b, s, H * VD) @ c(w["wo"]))

    def mlp(h, w0, w1, wo):
        return act(act(jax.nn.silu(h @ c(w0)) * (h @ c(w1))) @ c(wo))

    def routed(x, gate, w0, w1, wo):  # one chip's tokens, every expert's weights
        t = x.reshape(-1, D)
        probs = jax.nn.softmax((t @ gate).astype(f32), axis=-1)
        weights, experts = jax.lax.top_k(probs, K)
        order = jnp.argsort(experts.reshape(-1))
        sizes = jnp.bincount(experts.reshape(-1), length=E).astype(jnp.int32)
        xs = t[order // K]
        tiling = (512, 1024, 1024)
        gmm = lambda a, b: megablox.gmm(a, b, sizes, preferred_element_type=bf,
                                        tiling=tuple(min(t_, d) for t_, d in zip(
                                            tiling, (a.shape[0], a.shape[1], b.shape[2]))))
        ys = gmm(jax.nn.silu(gmm(xs, w0)) * gmm(xs, w1), wo)
        back = jnp.zeros_like(ys).at[order].set(ys).reshape(-1, K, D)
        out = jnp.sum(back.astype(f32) * weights[..., None], axis=1).astype(bf)
        return out.reshape(x.shape)

    def moe(h, w):
        whole = P()
        tokens = P(MESH_AXIS, None, None)
        out = shard_map(routed, mesh=jax.sharding.get_abstract_mesh(),
                        in_specs=(tokens, whole, whole, whole, whole), out_specs=tokens,
                        check_rep=False)(h, c(w["gate"]), c(w["e0"]), c(w["e1"]), c(w["eo"]))
        return act(out + mlp(h, w["s0"], w["s1"], w["so"]))

    def block(x, w, ffn):
        x = act(x + mla(act(rms(x, w["ln1"], 1e-6)), w))
        return act(x + ffn(act(rms(x, w["ln2"], 1e-6)), w))

    dense_ffn = lambda h, w: mlp(h, w["w0"], w["w1"], w["wo_mlp"])
    everything = jax.checkpoint_policies.nothing_saveable

    def loss(params, tokens):
        x = act(c(params["embed"])[tokens])
        x = jax.checkpoint(lambda x, w: block(x, w, dense_ffn), policy=everything)(
            x, params["dense"])
        body = jax.checkpoint(lambda x, w: (block(x, w, moe), None), policy=everything)
        x, _ = jax.lax.scan(body, x, params["moe"])
        return _cross_entropy(act(rms(x, params["lnf"], 1e-6) @ c(params["head"])))

    b1, b2, lr, eps, decay = 0.9, 0.95, 3e-5, 1e-8, 0.1  # MaxText's AdamW defaults

    def step(params, mu, nu, tokens):
        value, g = jax.value_and_grad(loss)(params, tokens)
        mu = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, mu, g)
        nu = jax.tree.map(lambda n, g: b2 * n + (1 - b2) * g * g, nu, g)
        params = jax.tree.map(lambda p, m, n: p - lr * (m / (jnp.sqrt(n) + eps) + decay * p),
                              params, mu, nu)
        return params, mu, nu, value

    sd = jax.ShapeDtypeStruct
    L = r["layers"] - r["dense_layers"]

    def attention_weights(lead):
        return {"ln1": sd(lead + (D,), f32), "ln2": sd(lead + (D,), f32),
                "wq": sd(lead + (D, H * QK), f32), "wkv_a": sd(lead + (D, KVR + ROPE), f32),
                "kv_norm": sd(lead + (KVR,), f32), "wkv_b": sd(lead + (KVR, H * (NOPE + VD)), f32),
                "wo": sd(lead + (H * VD, D), f32)}

    dense = dict(attention_weights(()), w0=sd((D, FD), f32), w1=sd((D, FD), f32),
                 wo_mlp=sd((FD, D), f32))
    moe_layers = dict(attention_weights((L,)), gate=sd((L, D, E), f32),
                      e0=sd((L, E, D, FE), f32), e1=sd((L, E, D, FE), f32),
                      eo=sd((L, E, FE, D), f32), s0=sd((L, D, FS), f32),
                      s1=sd((L, D, FS), f32), so=sd((L, FS, D), f32))
    params = {"embed": sd((V, D), f32), "dense": dense, "moe": moe_layers,
              "lnf": sd((D,), f32), "head": sd((D, V), f32)}
    first = lambda v: P(MESH_AXIS, *([None] * (len(v.shape) - 1)))
    moe_specs = _layer_specs(moe_layers)
    for k in ("e0", "e1", "eo"):  # experts: the expert axis whole, the next one over the slice
        moe_specs[k] = P(None, None, MESH_AXIS, None)
    specs = {"embed": P(MESH_AXIS, None), "dense": {k: first(v) for k, v in dense.items()},
             "moe": moe_specs, "lnf": P(None), "head": P(MESH_AXIS, None)}
    tokens = sd((global_batch(r), r["seq"]), jnp.int32)
    return (step, (params, params, params, tokens), (specs, specs, specs, P(MESH_AXIS, None)),
            (0, 1, 2))


BUILDERS = {"dense": dense_step, "deepseek": deepseek_step}
