"""The train steps of bench/tpu_recipes.py: a recipe's model rebuilt in plain JAX.

Each builder takes a recipe (its model's shapes, batch and sequence) and returns the step, its
abstract arguments, their PartitionSpecs and the arguments it donates. Every model is fully
sharded over the slice (FSDP: weights and the batch over every chip, one mesh axis "fsdp"), its
layers in a scan, attention by the Pallas splash kernel.

- `dense_step`: a Llama-style decoder (grouped-query attention, SwiGLU), bf16 weights and plain
  SGD. What the backward pass keeps is the recipe's `remat` (MaxText's custom remat policy: a
  name of DENSE_SAVE_NAMES -> "device" or "offload"; default: each layer's input offloaded to
  host memory), the rest recomputed; the splash kernel's blocks are the recipe's
  `splash_blocks` (MaxText's sa_block_* fields; default 2048 each). On GPUs (`attention`
  "cudnn") attention is cuDNN's fused flash attention, as MaxText's cudnn_flash_te.
- `deepseek_step`: DeepSeek-V2's decoder (multi-head latent attention; a first dense layer, then
  mixture-of-experts layers with shared experts, top-k softmax routing and the experts' matrix
  products by the Pallas megablox grouped matmul), f32 weights and AdamW state, every layer
  recomputed in the backward pass (MaxText's defaults: `weight_dtype: float32`, `opt_type:
  adamw`, `remat_policy: full`); with DeepSeek-V3's fields (`q_lora_rank`, sigmoid routing with
  a bias, several dense layers, `routing` "random", `remat`, `mu_dtype`) its recipes' model.
- `moe_step`: grouped-query attention and routed experts by megablox (GPT-OSS, Qwen3-MoE,
  Gemma 4's 26B) or a dense GLU (Gemma 4's 31B), sliding-window layers by splash's local mask,
  f32 weights and AdamW state, the recipe's remat policy.
- `gemma4_small_step`: Gemma 4's E2B and E4B, layers unrolled, kv shared by the last layers,
  per-layer inputs.
"""
import math

MESH_AXIS = "fsdp"


def global_batch(r):
    """Sequences of one step over the slice: ``batch_per_device`` x ``devices`` where the recipe
    has been made per device (hloroof.sweep.per_device), else ``batch_per_chip`` x ``chips``."""
    n = (r["batch_per_device"] * r["devices"] if "batch_per_device" in r else
         r["batch_per_chip"] * r["chips"])
    if n != int(n):
        raise ValueError(f"a global batch of {n} sequences: not a whole number")
    return int(n)


def recipe_step(r):
    """The sweep's builder (bench/tpu_recipes.py): the recipe's step on its target, every JAX
    device one member of the "fsdp" axis. A recipe is published per chip; where one chip is
    several devices (TPU7x: 2), its batch is split over them, and its model FLOPs (the
    published TFLOP/s per chip times the published step, times the chips) stay the slice's."""
    import hloroof.sweep as hs

    r = hs.per_device(r, r["devices"], r["chips"])
    step, args, specs, donate = BUILDERS[r["model"]](r)
    # A recipe's data-parallel degree (MaxText's ici_data_parallelism, over devices) is a mesh
    # axis "data" outside "fsdp": the weights sharded over "fsdp", the batch over both.
    # Context parallelism (ici_context_parallelism) is an axis "context" inside "fsdp", tensor
    # parallelism (ici_tensor_parallelism) an axis "tensor" innermost.
    data, context = r.get("data_parallel", 1), r.get("context_parallel", 1)
    tensor = r.get("tensor_parallel", 1)
    mesh = dict({"data": data} if data > 1 else {},
                **{MESH_AXIS: r["devices"] // data // context // tensor},
                **({"context": context} if context > 1 else {}),
                **({"tensor": tensor} if tensor > 1 else {}))
    return hs.Step(step, args, in_specs=specs, mesh_axes=mesh,
                   donate_argnums=donate,
                   model_flops=r["tflops_per_chip"] * 1e12 * r["step_s"] * r["chips"],
                   tokens=global_batch(r) * r["seq"])


def _common(batch=MESH_AXIS, length=None):
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P

    def act(x, *inner):  # activations: the batch over the slice (the sequence over `length`),
        # as MaxText constrains them; `inner`: the axes of the dimensions after those two
        # (default: whole)
        rest = list(inner) + [None] * (x.ndim - 2 - len(inner))
        return jax.lax.with_sharding_constraint(
            x, P(batch, length, *rest) if x.ndim > 1 else P(batch))

    def rms(x, w, eps=1e-5):
        x32 = x.astype(jnp.float32)
        y = x32 * jax.lax.rsqrt(jnp.mean(x32 * x32, -1, keepdims=True) + eps)
        return y.astype(jnp.bfloat16) * w.astype(jnp.bfloat16)

    return act, rms


SPLASH_BLOCKS = ("block_q", "block_kv", "block_kv_compute", "block_q_dkv", "block_kv_dkv",
                 "block_kv_dkv_compute")


def load_balanced_positions(seq, context):
    """MaxText's load-balanced order of a sequence over `context` devices (its dual chunk
    swap): 2 x context chunks, device i holding chunks i and 2 x context - 1 - i, so that each
    sees as much of the causal past as the others. The positions, device by device."""
    import numpy as np
    chunks = np.arange(seq, dtype=np.int32).reshape(2 * context, -1)
    return np.concatenate([chunks[j] for i in range(context) for j in (i, 2 * context - 1 - i)])


def _splash(heads, block, scale_dim, kv_repeat=1, window=None, batch=MESH_AXIS, context=1,
            heads_axis=None, layout="head_dim_minor"):
    """Causal splash attention over one chip's batch, q, k, v as [batch, seq, heads, dim], q
    scaled by 1/sqrt(scale_dim), each key and value head repeated `kv_repeat` times. `block`:
    one size for every block, or a dict of SPLASH_BLOCKS' sizes (those not given: 2048).
    `window`: a sliding window of that many positions (MaxText's mask for it: causal and a
    local mask of window - 1 positions back), else the whole causal past. `context` > 1:
    the sequence over the mesh axis "context" (MaxText's context parallelism, all-gather
    strategy): each device's queries against the keys and values gathered whole, the
    sequence in MaxText's load-balanced order (device i holds chunks i and 2 context - 1 - i
    of 2 context) and the mask's query positions with it. `heads_axis`: the mesh axis the
    heads are sharded over (tensor parallelism; `heads` then counts one device's). `layout`:
    how the kernel lays q, k and v out in memory (MaxText's sa_*_layout): "head_dim_minor",
    [..., seq, head_dim], or "seq_minor", [..., head_dim, seq]; its outputs are head-minor."""
    import jax
    import jax.numpy as jnp
    from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_kernel as sk
    from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_mask as sm
    from jax.experimental.shard_map import shard_map
    from jax.sharding import PartitionSpec as P

    def kernel_for(seq):
        # The recipe's blocks, or the largest power-of-two part of each that divides the
        # sequence.
        given = block if isinstance(block, dict) else dict.fromkeys(SPLASH_BLOCKS, block)
        order = sk.QKVLayout[layout.upper()]
        blocks = sk.BlockSizes(use_fused_bwd_kernel=True, q_layout=order, k_layout=order,
                               v_layout=order, **{
                                   k: math.gcd(given.get(k, 2048), seq // context)
                                   for k in SPLASH_BLOCKS})
        shape = (seq, seq)
        mask = sm.CausalMask(shape)
        if context > 1:
            mask.q_sequence = load_balanced_positions(seq, context)
        if window:
            mask = mask & sm.LocalMask(shape, (window - 1, window), 0)
        # Its output and residuals named "context", as MaxText names them: a remat policy that
        # keeps "context" keeps what the backward kernel reads, and runs no forward again.
        return sk.make_splash_mha(sm.MultiHeadMask([mask] * heads), block_sizes=blocks,
                                  head_shards=1, q_seq_shards=context,
                                  residual_checkpoint_name="context")

    def local(q, k, v, kernel):
        heads_major = lambda x: x.transpose(0, 2, 1, 3)
        return heads_major(jax.vmap(kernel)(
            heads_major(q) / math.sqrt(scale_dim),
            heads_major(jnp.repeat(k, kv_repeat, axis=2) if kv_repeat > 1 else k),
            heads_major(jnp.repeat(v, kv_repeat, axis=2) if kv_repeat > 1 else v)))

    def attention(q, k, v):
        mesh = jax.sharding.get_abstract_mesh()
        kv_spec = P(batch, None, heads_axis, None)
        if context == 1:  # the kernel made for one device's batch, its mask info constants
            return shard_map(lambda q, k, v: local(q, k, v, kernel_for(q.shape[1])),
                             mesh=mesh, in_specs=(kv_spec,) * 3, out_specs=kv_spec,
                             check_rep=False)(q, k, v)
        # The kernel's mask info sharded with the queries.
        kernel = kernel_for(q.shape[1])
        q_spec = P(batch, "context", None, None)
        kernel_spec = kernel.manual_sharding_spec(
            jax.sharding.NamedSharding(mesh, P(None, "context")))
        return shard_map(local, mesh=mesh, in_specs=(q_spec, kv_spec, kv_spec, kernel_spec),
                         out_specs=q_spec, check_rep=False)(q, k, v, kernel)

    return attention


def _tiled_gmm(lhs, rhs, sizes, tiles):
    """megablox's grouped matmul lhs [m, k] x rhs [groups, k, n] whose forward, input-gradient
    and weight-gradient kernels take tiles of their own, as MaxText's wi_tile_*/wo_tile_* give
    them: `tiles` maps "fwd", "dlhs" and "drhs" to (m, k, n) tiles of that pass's product,
    each cut to its dimensions."""
    import importlib
    import jax
    # The kernels' module (the package's `gmm` is ops.gmm, one tiling for every pass).
    backend = importlib.import_module("jax.experimental.pallas.ops.tpu.megablox.gmm")

    def cut(name):
        return lambda *dims: tuple(min(t, d) for t, d in zip(tiles[name], dims))

    @jax.custom_vjp
    def product(lhs, rhs, sizes):
        return backend.gmm(lhs, rhs, sizes, lhs.dtype, cut("fwd"))

    def forward(lhs, rhs, sizes):
        return product(lhs, rhs, sizes), (lhs, rhs, sizes)

    def backward(saved, grad):
        lhs, rhs, sizes = saved
        d_lhs = backend.gmm(grad, rhs, sizes, lhs.dtype, cut("dlhs"), transpose_rhs=True)
        d_rhs = backend.tgmm(lhs.swapaxes(0, 1), grad, sizes, rhs.dtype, cut("drhs"),
                             num_actual_groups=rhs.shape[0])
        return d_lhs, d_rhs, None

    product.defvjp(forward, backward)
    return product(lhs, rhs, sizes)


def fp8_gmm(fixed_range, tiles):
    """MaxText's quantization=fp8_full of a grouped matmul lhs [m, k] x rhs [groups, k, n]
    (rows in groups of `sizes`: the returned product(lhs, rhs, sizes)) by
    tokamax's ragged dot (MaxText's use_tokamax_gmm) on qwix's fp8 arrays, as `fp8_matmul` for
    a dense product: lhs and rhs float8_e4m3fn forward (scaled to [-r, r] with a
    `fixed_range` r, else by their absolute maximum), the incoming gradient float8_e5m2 by its
    own, bf16 results. `tiles` maps "fwd", "dlhs" and "drhs" to that pass's (m, k, n) tiles,
    each cut to its dimensions. Needs bench/requirements-fp8-moe.txt."""
    import jax
    import jax.numpy as jnp
    try:
        import qwix
        import tokamax
        from tokamax._src.ops.ragged_dot import base as ragged
        from tokamax._src.ops.ragged_dot import pallas_mosaic_tpu as mosaic
    except ImportError as e:
        raise ImportError("fp8 grouped matmuls need tokamax and qwix: pip install -r "
                          "bench/requirements-fp8-moe.txt") from e
    from absl import flags
    # The kernel asks the default device whether it runs there; compiling offline for a TPU
    # slice, that is the host's CPU. The program is the slice's, so it runs there.
    mosaic.PallasMosaicTpuRaggedDot.supported_on = lambda self, device: True
    # tokamax reads its options from absl flags, parsing the process's command line (not its
    # own) the first time unless something parsed it already.
    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()

    def quantize(x, dtype, fixed=None):
        how = f"fixed,-{fixed},{fixed}" if fixed else "absmax"
        return qwix.quantize(x, dtype, calibration_method=how)

    def dot(a, b, sizes, dims, name, out):
        m, k, n = (min(t, d) for t, d in zip(tiles[name], out))
        kernel = mosaic.PallasMosaicTpuRaggedDot(
            config=mosaic.Config(tile_m=m, tile_k=k, tile_n=n))
        return tokamax.ragged_dot_general(a, b, sizes, dims, preferred_element_type=jnp.bfloat16,
                                          implementation=kernel)

    @jax.custom_vjp
    def product(lhs, rhs, sizes):
        return forward(lhs, rhs, sizes)[0]

    def forward(lhs, rhs, sizes):
        lq = quantize(lhs, jnp.float8_e4m3fn, fixed_range)
        rq = quantize(rhs, jnp.float8_e4m3fn, fixed_range)
        (m, k), n = lhs.shape, rhs.shape[2]
        out = dot(lq, rq, sizes, ragged.DEFAULT_RAGGED_DOT_DIM_NUMS, "fwd", (m, k, n))
        return out, (lq, rq, sizes)

    def backward(saved, grad):
        lq, rq, sizes = saved
        gq = quantize(grad, jnp.float8_e5m2)
        (m, k), n = lq.shape, rq.shape[2]
        d_lhs = dot(gq, rq, sizes, ragged.TRANS_RHS_RAGGED_DOT_DIM_NUMS, "dlhs", (m, n, k))
        d_rhs = dot(lq, gq, sizes, ragged.RAGGED_CONTRACTING_DOT_DIM_NUMS, "drhs", (m, k, n))
        return d_lhs, d_rhs, None

    product.defvjp(forward, backward)
    return product


def _cudnn(scale_dim):
    """Causal attention by cuDNN's fused flash attention (MaxText's GPU recipes:
    cudnn_flash_te), q, k, v as [batch, seq, heads, dim], q scaled by 1/sqrt(scale_dim); key and
    value heads shared by groups of query heads as they are."""
    import jax

    def attention(q, k, v):
        return jax.nn.dot_product_attention(q, k, v, scale=1 / math.sqrt(scale_dim),
                                            is_causal=True, implementation="cudnn")
    return attention


def _cross_entropy(logits):
    import jax
    import jax.numpy as jnp
    lse = jax.nn.logsumexp(logits.astype(jnp.float32), axis=-1)
    return jnp.mean(lse - logits[..., 0].astype(jnp.float32))


def _tiled_loss(x, head, tiles, logits_of, strided=False, gathered=None):
    """The cross entropy of `logits_of(x @ head)` over x [batch, seq, width] in `tiles` pieces
    of the sequence, one piece's logits alive at once and recomputed in the backward pass
    (MaxText's num_vocab_tiling: the logits of a large vocabulary never whole). `strided`:
    piece t holds positions t, t + tiles, ..., so that a sequence sharded in runs (context
    parallelism) keeps each piece sharded alike. The head is gathered over FSDP once, before
    the pieces, as MaxText's vocab_tiling_linen_loss does (all_gather_over_fsdp): left sharded,
    XLA gathers it again in every piece, forward and backward. `gathered`: the head's
    PartitionSpec once gathered (default: whole on every device)."""
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P
    head = jax.lax.with_sharding_constraint(head, gathered if gathered is not None else P())
    b, s, d = x.shape
    pieces = (x.reshape(b, s // tiles, tiles, d).transpose(2, 0, 1, 3) if strided else
              x.reshape(b, tiles, s // tiles, d).swapaxes(0, 1))

    def piece(total, xp):
        logits = logits_of(xp @ head).astype(jnp.float32)
        lse = jax.nn.logsumexp(logits, axis=-1)
        return total + jnp.sum(lse - logits[..., 0]), None

    total, _ = jax.lax.scan(jax.checkpoint(piece), jnp.zeros((), jnp.float32), pieces)
    return total / (b * s)


def _layer_specs(layers, axis=MESH_AXIS):
    """Stacked layer weights: the layer axis whole, the next one over the slice (`axis`)."""
    from jax.sharding import PartitionSpec as P
    return {k: P(None, axis, *([None] * (len(v.shape) - 2))) for k, v in layers.items()}


# The activations a dense recipe's remat policy may keep (MaxText's names): each layer's input,
# the q, k and v projections, the attention's output before the output projection and after it
# (out_proj), and the MLP's output projection.
DENSE_SAVE_NAMES = ("decoder_layer_input", "query_proj", "key_proj", "value_proj", "context",
                    "out_proj", "mlpwo")


def fp8_matmul(fixed_range=None):
    """MaxText's quantization=fp8_full as a matrix product a @ w (a: [..., K], w: [K, N]): the
    forward product of a and w cast to float8_e4m3fn, the backward products of the incoming
    gradient cast to float8_e5m2 with the same fp8 a and w, each tensor scaled by its absolute
    maximum onto its format's largest finite value (one scale a tensor), bf16 results. With a
    `fixed_range` r (qwix's calibration 'fixed,-r,r'), a and w take the constant scale of
    [-r, r] instead of their absolute maximum; gradients keep theirs."""
    import jax
    import jax.numpy as jnp

    def quantize(x, dtype, fixed=None):
        top = float(jnp.finfo(dtype).max)
        if fixed is None:
            amax = jnp.maximum(jnp.max(jnp.abs(x)).astype(jnp.float32), 1e-12)
        else:
            amax = jnp.float32(fixed)
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
        aq, sa = quantize(a, jnp.float8_e4m3fn, fixed_range)
        wq, sw = quantize(w, jnp.float8_e4m3fn, fixed_range)
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


def _products(r):
    """(fp8, mm): whether the recipe's decoder products are fp8 (quantization "fp8_full"; None:
    bf16) and its dense product a @ w (`fp8_matmul` with the recipe's fp8_range, or @)."""
    quantization = r.get("quantization")
    if quantization not in (None, "fp8_full"):
        raise ValueError(f"quantization {quantization!r}: None (bf16) or 'fp8_full'")
    fp8 = quantization == "fp8_full"
    return fp8, (fp8_matmul(r.get("fp8_range")) if fp8 else (lambda a, b: a @ b))


def _adamw_step(loss, grad_dtype=None):
    """A train step of `loss(params, tokens)` under AdamW with MaxText's defaults and no bias
    correction: step(params, mu, nu, tokens) -> (params, mu, nu, loss). The first moment keeps
    its own dtype (bf16 where a recipe sets mu_dtype; a no-op cast otherwise); with a
    `grad_dtype`, the f32 gradients are cast to it before the update, as MaxText's grad_dtype
    casts them."""
    import jax
    import jax.numpy as jnp
    b1, b2, lr, eps, decay = 0.9, 0.95, 3e-5, 1e-8, 0.1  # MaxText's AdamW defaults

    def step(params, mu, nu, tokens):
        value, g = jax.value_and_grad(loss)(params, tokens)
        if grad_dtype is not None:
            g = jax.tree.map(lambda x: x.astype(grad_dtype) if x.dtype == jnp.float32 else x,
                             g)
        mu = jax.tree.map(lambda m, g: (b1 * m + (1 - b1) * g).astype(m.dtype), mu, g)
        nu = jax.tree.map(lambda n, g: b2 * n + (1 - b2) * g * g, nu, g)
        params = jax.tree.map(lambda p, m, n: p - lr * (m / (jnp.sqrt(n) + eps) + decay * p),
                              params, mu, nu)
        return params, mu, nu, value
    return step


def dense_step(r):
    import jax
    import jax.numpy as jnp
    from jax.ad_checkpoint import checkpoint_name
    from jax.sharding import PartitionSpec as P

    bf = jnp.bfloat16
    D, F, H, KV, HD, V = (r["width"], r["ffn"], r["heads"], r["kv_heads"], r["head_dim"],
                          r["vocab"])
    data, context = r.get("data_parallel", 1), r.get("context_parallel", 1)
    # Tensor parallelism (MaxText's rules for its "tensor" axis): the heads and the MLP's
    # hidden units over it, and the activations' embedding dimension between them.
    tensor = r.get("tensor_parallel", 1)
    if tensor > 1 and (context > 1 or H % tensor or KV % tensor or F % tensor):
        raise ValueError(f"tensor_parallel {tensor}: no context parallelism beside it, and "
                         f"it must divide the heads ({H}), kv heads ({KV}) and ffn ({F})")
    tp = "tensor" if tensor > 1 else None
    batch = ("data", MESH_AXIS) if data > 1 else MESH_AXIS
    # Context parallelism: the sequence over the "context" axis, the weights over it and FSDP
    # (MaxText's rules put "context" in the weights' embedding axes).
    length, weights = ("context", (MESH_AXIS, "context")) if context > 1 else (None, MESH_AXIS)
    act, rms = _common(batch, length)
    attention = r.get("attention", "splash")
    if attention not in ("splash", "cudnn") or (context > 1 and attention != "splash"):
        raise ValueError(f"attention {attention!r}: 'splash' (TPU) or 'cudnn' (GPU; no "
                         "context parallelism)")
    splash = (_cudnn(HD) if attention == "cudnn" else
              _splash(H // tensor, r.get("splash_blocks", 2048), HD, H // KV, batch=batch,
                      context=context, heads_axis=tp))
    remat = r.get("remat", {"decoder_layer_input": "offload"})
    unknown = sorted(set(remat) - set(DENSE_SAVE_NAMES)) + sorted(
        k for k, v in remat.items() if v not in ("device", "offload"))
    if unknown:
        raise ValueError(f"remat {remat}: names of {', '.join(DENSE_SAVE_NAMES)}, each "
                         f"'device' or 'offload' ({', '.join(unknown)} is not)")
    _, mm = _products(r)

    def layer(x, w):
        x = act(checkpoint_name(x, "decoder_layer_input"), tp)
        h = act(rms(x, w["ln1"]), tp)
        b, s = h.shape[:2]
        q = act(checkpoint_name(mm(h, w["wq"]).reshape(b, s, H, HD), "query_proj"), tp)
        k = act(checkpoint_name(mm(h, w["wk"]).reshape(b, s, KV, HD), "key_proj"), tp)
        v = act(checkpoint_name(mm(h, w["wv"]).reshape(b, s, KV, HD), "value_proj"), tp)
        o = act(splash(q, k, v), tp).reshape(b, s, H * HD)
        if attention == "cudnn":  # splash names its own output and residuals "context"
            o = checkpoint_name(o, "context")
        o = act(o, tp)
        x = act(x + act(checkpoint_name(act(mm(o, w["wo"]), tp), "out_proj"), tp), tp)
        h = act(rms(x, w["ln2"]), tp)
        g = act(jax.nn.silu(act(mm(h, w["w1"]), tp)) * act(mm(h, w["w3"]), tp), tp)
        return act(x + act(checkpoint_name(act(mm(g, w["w2"]), tp), "mlpwo"), tp), tp)

    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[n for n, where in remat.items() if where == "device"],
        names_which_can_be_offloaded=[n for n, where in remat.items() if where == "offload"],
        offload_src="device", offload_dst="pinned_host")

    def loss(params, tokens):
        x = act(params["embed"][tokens])
        body = jax.checkpoint(lambda c, w: (layer(c, w), None), policy=policy)
        x, _ = jax.lax.scan(body, x, params["layers"])
        if r.get("vocab_tiles", 1) > 1:
            return _tiled_loss(act(rms(x, params["lnf"])), params["head"], r["vocab_tiles"],
                               lambda logits: logits, strided=context > 1,
                               gathered=P(None, tp))
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
    embed = P(weights, None) if V % r["devices"] == 0 else P(None, weights)
    specs = {"embed": embed, "lnf": P(None), "head": P(weights, None),
             "layers": _layer_specs(layers, weights)}
    if tp:  # the vocabulary, the heads and the hidden units over "tensor", the width over FSDP
        specs["embed"], specs["head"] = P(tp, weights), P(weights, tp)
        specs["layers"].update({k: P(None, weights, tp) for k in ("wq", "wk", "wv", "w1", "w3")})
        specs["layers"].update({k: P(None, tp, weights) for k in ("wo", "w2")})
    tokens = sd((global_batch(r), r["seq"]), jnp.int32)
    return step, (params, tokens), (specs, P(batch, length)), ()


def deepseek_step(r):
    import jax
    import jax.numpy as jnp
    from jax.ad_checkpoint import checkpoint_name
    from jax.experimental.pallas.ops.tpu.megablox import ops as megablox
    from jax.experimental.shard_map import shard_map
    from jax.sharding import PartitionSpec as P

    bf, f32 = jnp.bfloat16, jnp.float32
    D, H, V = r["width"], r["heads"], r["vocab"]
    NOPE, ROPE, VD, KVR = r["qk_nope_dim"], r["qk_rope_dim"], r["v_dim"], r["kv_lora_rank"]
    QK = NOPE + ROPE
    E, K, FE, FD = r["experts"], r["experts_per_token"], r["moe_ffn"], r["ffn"]
    FS = r["shared_experts"] * FE
    # DeepSeek-V3's: queries through a low-rank projection (q_lora_rank), sigmoid routing
    # scores with a bias that only chooses (routed_bias), the chosen scores normalized and
    # scaled (routed_scaling_factor), several dense layers first (in a scan of their own).
    QLR, DL = r.get("q_lora_rank"), r["dense_layers"]
    w_names = ("gate_b",) if r.get("router_bias") else ()
    routing, scoring = r.get("routing", "top_k"), r.get("routed_score_func", "softmax")
    remat = r.get("remat")  # MaxText's custom remat policy; none: every layer recomputed
    act, rms = _common()
    # The splash kernel takes one head size for q, k and v: v is padded to q's.
    splash = _splash(H, r.get("splash_blocks", 512), QK)
    c = lambda w: w.astype(bf)  # f32 weights, bf16 matrix products

    fp8, mm = _products(r)

    def mla(h, w):
        b, s = h.shape[:2]
        if QLR:
            q = act(mm(rms(act(mm(h, c(w["wq_a"]))), w["q_norm"], 1e-6), c(w["wq_b"])).reshape(
                b, s, H, QK))
        else:
            q = act(mm(h, c(w["wq"])).reshape(b, s, H, QK))
        kv_a = act(mm(h, c(w["wkv_a"])))
        latent, k_rope = kv_a[..., :KVR], kv_a[..., KVR:]
        kv = act(mm(rms(latent, w["kv_norm"], 1e-6), c(w["wkv_b"])).reshape(b, s, H, NOPE + VD))
        k = jnp.concatenate([kv[..., :NOPE], jnp.broadcast_to(k_rope[:, :, None, :],
                                                              (b, s, H, ROPE))], -1)
        v = jnp.pad(kv[..., NOPE:], ((0, 0), (0, 0), (0, 0), (0, QK - VD)))
        o = act(splash(q, k, v))[..., :VD]
        return act(mm(o.reshape(b, s, H * VD), c(w["wo"])))

    def mlp(h, w0, w1, wo):
        return act(mm(act(jax.nn.silu(mm(h, c(w0))) * mm(h, c(w1))), c(wo)))

    def routed(x, gate, w0, w1, wo, *bias):  # one chip's tokens, every expert's weights
        t = x.reshape(-1, D)
        if scoring == "sigmoid":
            scores = jax.nn.sigmoid((t @ gate).astype(f32))
            chosen = scores + bias[0].astype(f32) if "gate_b" in w_names else scores
            if routing == "random":  # each layer its own draw (bias[-1]: the layer)
                key = jax.random.fold_in(jax.random.key(0), bias[-1])
                experts = jax.random.randint(key, (t.shape[0], K), 0, E, dtype=jnp.int32)
            else:
                _, experts = jax.lax.top_k(chosen, K)
            weights = jnp.take_along_axis(scores, experts, axis=-1)
            weights = weights / (jnp.sum(weights, -1, keepdims=True) + 1e-20) * r.get(
                "routed_scaling", 1.0)
        else:
            probs = jax.nn.softmax((t @ gate).astype(f32), axis=-1)
            weights, experts = jax.lax.top_k(probs, K)
        order = jnp.argsort(experts.reshape(-1))
        sizes = jnp.bincount(experts.reshape(-1), length=E).astype(jnp.int32)
        xs = t[order // K]
        tiling = (512, 1024, 1024)

        def gmm(a, b):
            if fp8:  # the weight's own (m, k, n) tiles of each pass (wi: its input is D)
                tiles = (r.get("gmm_weight_tiles") or {}).get("wi" if b.shape[1] == D else "wo")
                return fp8_gmm(r.get("fp8_range"), tiles or {p: tiling for p in
                                                            ("fwd", "dlhs", "drhs")})(a, b, sizes)
            return megablox.gmm(a, b, sizes, preferred_element_type=bf,
                                tiling=tuple(min(t_, d) for t_, d in zip(
                                    tiling, (a.shape[0], a.shape[1], b.shape[2]))))
        ys = gmm(jax.nn.silu(gmm(xs, w0)) * gmm(xs, w1), wo)
        back = jnp.zeros_like(ys).at[order].set(ys).reshape(-1, K, D)
        out = jnp.sum(back.astype(f32) * weights[..., None], axis=1).astype(bf)
        return out.reshape(x.shape)

    def moe(h, w):
        whole = P()
        tokens = P(MESH_AXIS, None, None)
        bias = ((w["gate_b"],) if "gate_b" in w else ()) + (
            (w["layer"],) if routing == "random" else ())
        out = shard_map(routed, mesh=jax.sharding.get_abstract_mesh(),
                        in_specs=(tokens, whole, whole, whole, whole) + (whole,) * len(bias),
                        out_specs=tokens, check_rep=False)(
                            h, c(w["gate"]), c(w["e0"]), c(w["e1"]), c(w["eo"]), *bias)
        return act(out + mlp(h, w["s0"], w["s1"], w["so"]))

    def block(x, w, ffn):
        if remat:
            x = act(checkpoint_name(x, "decoder_layer_input"))
        x = act(x + mla(act(rms(x, w["ln1"], 1e-6)), w))
        return act(x + ffn(act(rms(x, w["ln2"], 1e-6)), w))

    dense_ffn = lambda h, w: mlp(h, w["w0"], w["w1"], w["wo_mlp"])
    everything = jax.checkpoint_policies.nothing_saveable
    if remat:
        everything = jax.checkpoint_policies.save_and_offload_only_these_names(
            names_which_can_be_saved=[n for n, where in remat.items() if where == "device"],
            names_which_can_be_offloaded=[n for n, where in remat.items()
                                          if where == "offload"],
            offload_src="device", offload_dst="pinned_host")

    def loss(params, tokens):
        if r.get("iota_embed"):  # MaxText's use_iota_embed: a one-hot matrix product
            x = act((tokens[..., None] == jnp.arange(V, dtype=tokens.dtype)).astype(bf) @ c(
                params["embed"]))
        else:
            x = act(c(params["embed"])[tokens])
        if DL > 1:
            x, _ = jax.lax.scan(jax.checkpoint(
                lambda x, w: (block(x, w, dense_ffn), None), policy=everything), x,
                params["dense"])
        else:
            x = jax.checkpoint(lambda x, w: block(x, w, dense_ffn), policy=everything)(
                x, params["dense"])
        body = jax.checkpoint(lambda x, w: (block(x, w, moe), None), policy=everything)
        layers = params["moe"]
        if routing == "random":  # the layer's index beside its weights, for its draw
            layers = dict(layers, layer=jnp.arange(L, dtype=jnp.int32))
        x, _ = jax.lax.scan(body, x, layers)
        return _cross_entropy(act(rms(x, params["lnf"], 1e-6) @ c(params["head"])))

    mu_dtype = r.get("mu_dtype")
    step = _adamw_step(loss, r.get("grad_dtype"))

    sd = jax.ShapeDtypeStruct
    L = r["layers"] - r["dense_layers"]

    def attention_weights(lead):
        w = {"ln1": sd(lead + (D,), f32), "ln2": sd(lead + (D,), f32),
             "wq": sd(lead + (D, H * QK), f32), "wkv_a": sd(lead + (D, KVR + ROPE), f32),
             "kv_norm": sd(lead + (KVR,), f32), "wkv_b": sd(lead + (KVR, H * (NOPE + VD)), f32),
             "wo": sd(lead + (H * VD, D), f32)}
        if QLR:
            del w["wq"]
            w.update(wq_a=sd(lead + (D, QLR), f32), q_norm=sd(lead + (QLR,), f32),
                     wq_b=sd(lead + (QLR, H * QK), f32))
        return w

    dense_lead = (DL,) if DL > 1 else ()
    dense = dict(attention_weights(dense_lead), w0=sd(dense_lead + (D, FD), f32),
                 w1=sd(dense_lead + (D, FD), f32), wo_mlp=sd(dense_lead + (FD, D), f32))
    moe_layers = dict(attention_weights((L,)), gate=sd((L, D, E), f32),
                      e0=sd((L, E, D, FE), f32), e1=sd((L, E, D, FE), f32),
                      eo=sd((L, E, FE, D), f32), s0=sd((L, D, FS), f32),
                      s1=sd((L, D, FS), f32), so=sd((L, FS, D), f32))
    if r.get("router_bias"):
        moe_layers["gate_b"] = sd((L, E), f32)
    params = {"embed": sd((V, D), f32), "dense": dense, "moe": moe_layers,
              "lnf": sd((D,), f32), "head": sd((D, V), f32)}
    first = lambda v: P(MESH_AXIS, *([None] * (len(v.shape) - 1)))
    moe_specs = _layer_specs(moe_layers)
    if "gate_b" in moe_specs:
        moe_specs["gate_b"] = P(None, None)
    for k in ("e0", "e1", "eo"):  # experts: the expert axis whole, the next one over the slice
        moe_specs[k] = P(None, None, MESH_AXIS, None)
        if r.get("shard_experts"):  # or the expert axis over it (fsdp_shard_on_exp)
            moe_specs[k] = P(None, MESH_AXIS, None, None)
    dense_specs = ({k: first(v) for k, v in dense.items()} if DL == 1 else
                   _layer_specs(dense))
    specs = {"embed": _sharded((V, D), r["devices"], (0, 1)), "dense": dense_specs,
             "moe": moe_specs, "lnf": P(None), "head": P(MESH_AXIS, None)}
    tokens = sd((global_batch(r), r["seq"]), jnp.int32)
    mu = (jax.tree.map(lambda v: sd(v.shape, jnp.dtype(mu_dtype)), params) if mu_dtype else
          params)
    return (step, (params, mu, params, tokens), (specs, specs, specs, P(MESH_AXIS, None)),
            (0, 1, 2))


# The activations an MoE recipe's remat policy may keep (MaxText's names; "mlpwo" is the experts'
# output projection, as the sorted rows leave it).
MOE_SAVE_NAMES = ("decoder_layer_input", "query_proj", "key_proj", "value_proj", "context",
                  "out_proj", "mlpwo")


def _sharded(shape, devices, prefer):
    """A weight's PartitionSpec over the "fsdp" axis of `devices`: the first axis of `prefer`
    (axis indices, MaxText's choice first) whose size it divides; replicated if none does."""
    from jax.sharding import PartitionSpec as P
    for axis in prefer:
        if -len(shape) <= axis < len(shape) and shape[axis] % devices == 0:
            spec = [None] * len(shape)
            spec[axis] = MESH_AXIS
            return P(*spec)
    return P(*([None] * len(shape)))


def moe_step(r):
    """A decoder of grouped-query attention and routed experts (GPT-OSS, Qwen3-MoE, Gemma 4),
    as MaxText builds it for a recipe: every layer a mixture of `experts` (top
    `experts_per_token`, dropless: MaxText's sparse_matmul with capacity_factor -1) whose three
    matrix products are the Pallas megablox grouped matmul over one device's tokens sorted by
    expert, the experts' weights gathered whole (FSDP, no expert parallelism), or with
    `experts` 0 a dense GLU of `ffn`; f32 weights and AdamW state (MaxText's weight_dtype
    float32, opt_type adamw; `mu_dtype` if the recipe sets it), bf16 products.

    Recipe fields beyond the shapes: `attention_pattern` (each layer's attention in one cycle of
    layers, "global" or "local": a sliding `window`; the layers scan over cycles),
    `attention_bias`, `qk_norm`, `router_bias`, `mlp_bias`, `activation` ("silu": SwiGLU;
    "gelu": GeGLU; "gpt_oss": GPT-OSS's clamped GLU, (w0 clamped) * sigmoid(1.702 w0) * (w1
    clamped + 1)), `routing` ("top_k": softmax over the top k logits; "random": MaxText's
    use_random_routing, a uniform draw per token; "softmax_top_k": Gemma 4's, the top k of a
    softmax over every expert, renormalized), `shard_experts` (the experts' axis over FSDP,
    MaxText's fsdp_shard_on_exp; else their embedding axis), `remat` (MOE_SAVE_NAMES ->
    "device" or "offload"), `splash_blocks` (`local_splash_blocks` for the sliding layers if
    given), `splash_layout` (q, k and v's layout in the kernel, MaxText's sa_*_layout:
    "head_dim_minor" or "seq_minor"), `gmm_tiling` ({batch_seq, embed, mlp}: MaxText's
    wi_tile_* and wo_tile_*), `gmm_pass_tiles` (megablox's (m, k, n) tiles of each pass,
    "fwd", "dlhs" and "drhs", by role: rows, the contracted dimension, the output's; in place
    of `gmm_tiling`), `data_parallel` (a "data" mesh axis: the batch over it too, the weights replicated over
    it), `quantization` ("fp8_full": every decoder product in fp8 as `fp8_matmul` makes the
    dense ones and `fp8_gmm` the experts', the router and the output layer in bf16; with
    `fp8_range` as there), `gmm_weight_tiles` (the fp8 grouped matmuls' (m, k, n) tiles of
    each pass for each weight, MaxText's wi_tile_* and wo_tile_*: "wi" and "wo" each map
    "fwd", "dlhs" and "drhs" to a tile; else `gmm_pass_tiles` or `gmm_tiling`), `norm_eps`;
    and Gemma 4's: `gemma4` (q, k and v normalized, no query scaling, the
    attention's and the MLP's outputs normalized, a scalar a layer, the router's input
    normalized apart and a shared expert of `ffn` beside the routed ones), `global_head_dim`,
    `global_kv_heads` and `share_kv` (the global layers' head size, kv heads, and keys that are
    their values' projection), `tied_embedding` (the output layer is the embedding's
    transpose), `logit_soft_cap`, `iota_embed` (the embedding looked up as a one-hot matrix
    product, MaxText's use_iota_embed)."""
    import jax
    import jax.numpy as jnp
    from jax.ad_checkpoint import checkpoint_name
    from jax.experimental.pallas.ops.tpu.megablox import ops as megablox
    from jax.experimental.shard_map import shard_map
    from jax.sharding import PartitionSpec as P

    bf, f32 = jnp.bfloat16, jnp.float32
    D, H, KV, HD, V = r["width"], r["heads"], r["kv_heads"], r["head_dim"], r["vocab"]
    E, K, FE = r["experts"], r.get("experts_per_token", 0), r.get("moe_ffn", 0)
    pattern = tuple(r.get("attention_pattern", ("global",)))
    if r["layers"] % len(pattern) or set(pattern) - {"global", "local"}:
        raise ValueError(f"attention_pattern {pattern}: 'global' or 'local' each, a cycle that "
                         f"divides the {r['layers']} layers")
    cycles = r["layers"] // len(pattern)
    data = r.get("data_parallel", 1)
    batch = ("data", MESH_AXIS) if data > 1 else MESH_AXIS
    fsdp = r["devices"] // data
    eps = r.get("norm_eps", 1e-5)
    attention_bias, mlp_bias = r.get("attention_bias", False), r.get("mlp_bias", False)
    router_bias, qk_norm = r.get("router_bias", False), r.get("qk_norm", False)
    activation, routing = r.get("activation", "silu"), r.get("routing", "top_k")
    gemma4 = r.get("gemma4", False)
    if (activation not in ("silu", "gelu", "gpt_oss")
            or routing not in ("top_k", "random", "softmax_top_k")):
        raise ValueError(f"activation {activation!r} ('silu', 'gelu' or 'gpt_oss'), routing "
                         f"{routing!r} ('top_k', 'random' or 'softmax_top_k')")
    if r.get("splash_layout", "head_dim_minor") not in ("head_dim_minor", "seq_minor"):
        raise ValueError(f"splash_layout {r['splash_layout']!r}: 'head_dim_minor' or "
                         "'seq_minor'")
    remat = r.get("remat", {"decoder_layer_input": "offload"})
    unknown = sorted(set(remat) - set(MOE_SAVE_NAMES)) + sorted(
        k for k, v in remat.items() if v not in ("device", "offload"))
    if unknown:
        raise ValueError(f"remat {remat}: names of {', '.join(MOE_SAVE_NAMES)}, each "
                         f"'device' or 'offload' ({', '.join(unknown)} is not)")
    act, rms = _common(batch)
    # Each kind of layer's attention: (query heads, kv heads, head size, keys are values).
    shape = {"local": (H, KV, HD, False),
             "global": (H, r.get("global_kv_heads", KV), r.get("global_head_dim", HD),
                        r.get("share_kv", False))}
    blocks = r.get("splash_blocks", 2048)
    splash = {kind: _splash(H, r.get("local_splash_blocks", blocks) if kind == "local" else
                            blocks, 1 if gemma4 else shape[kind][2],
                            H // shape[kind][1], r.get("window") if kind == "local" else None,
                            batch=batch, layout=r.get("splash_layout", "head_dim_minor"))
              for kind in ("global", "local")}
    c = lambda w: w.astype(bf)  # f32 weights, bf16 matrix products
    fp8, mm = _products(r)
    tiles = dict(dict(batch_seq=512, embed=1024, mlp=1024), **r.get("gmm_tiling", {}))
    pass_tiles = r.get("gmm_pass_tiles")
    if pass_tiles is not None and sorted(pass_tiles) != ["dlhs", "drhs", "fwd"]:
        raise ValueError(f"gmm_pass_tiles {pass_tiles}: (m, k, n) tiles of 'fwd', 'dlhs' and "
                         "'drhs'")
    plain = lambda x, eps=eps: rms(x, jnp.ones((), bf), eps)  # no scale

    def attention(h, w, kind):
        b, s = h.shape[:2]
        heads, kv_heads, hd, shared_kv = shape[kind]

        def proj(name, n):
            y = mm(h, c(w[name]))
            if attention_bias:
                y = y + c(w[name + "_b"])
            y = y.reshape(b, s, n, hd)
            return rms(y, w[name + "_norm"], eps) if qk_norm and name != "wv" else y

        q = act(checkpoint_name(proj("wq", heads), "query_proj"))
        k = act(checkpoint_name(proj("wk", kv_heads), "key_proj"))
        if shared_kv:  # the keys' projection before its norm is the values'
            v = mm(h, c(w["wk"])).reshape(b, s, kv_heads, hd)
        else:
            v = proj("wv", kv_heads)
        if gemma4:
            v = plain(v, eps)
        v = act(checkpoint_name(v, "value_proj"))
        # splash names its own output and residuals "context"
        o = act(act(splash[kind](q, k, v)).reshape(b, s, heads * hd))
        o = mm(o, c(w["wo"]))
        if attention_bias:
            o = o + c(w["wo_b"])
        return act(checkpoint_name(act(o), "out_proj"))

    def glu(h0, h1):
        if activation == "gpt_oss":
            h0 = jnp.minimum(h0, 7.0)
            h1 = jnp.clip(h1, -7.0, 7.0)
            return (h0 * jax.nn.sigmoid(1.702 * h0) * (h1 + 1)).astype(bf)
        if activation == "gelu":
            return jax.nn.gelu(h0) * h1
        return jax.nn.silu(h0) * h1

    def routed(x, g, layer, gate, gate_b, w0, w1, wo, b0, b1, bo):
        t = x.reshape(-1, D)  # one device's tokens, every expert's weights
        logits = ((t if g is x else g.reshape(-1, D)) @ gate).astype(f32)
        if router_bias:
            logits = logits + gate_b.astype(f32)
        if routing == "random":
            key = jax.random.fold_in(jax.random.key(0), layer)
            experts = jax.random.randint(key, (t.shape[0], K), 0, E, dtype=jnp.int32)
            weights = jax.nn.softmax(jnp.take_along_axis(logits, experts, axis=-1), axis=-1)
        elif routing == "softmax_top_k":
            probs = jax.nn.softmax(logits, axis=-1)
            _, experts = jax.lax.top_k(logits, K)
            weights = jnp.take_along_axis(probs, experts, axis=-1)
            weights = weights / jnp.sum(weights, axis=-1, keepdims=True)
        else:
            weights, experts = jax.lax.top_k(logits, K)
            weights = jax.nn.softmax(weights, axis=-1)
        flat = experts.reshape(-1)
        order = jnp.argsort(flat)
        sizes = jnp.bincount(flat, length=E).astype(jnp.int32)
        xs = t[order // K]
        chosen = flat[order]

        def tiling(*dims):
            # Each dimension takes its own tile, whichever role it plays: the backward
            # products reuse the tiling with the dimensions in other places.
            tile = {D: tiles["embed"], FE: tiles["mlp"]}
            return tuple(min(tile.get(d, tiles["batch_seq"]), d) for d in dims)

        def gmm(a, b):
            if fp8:
                # The weight's own (m, k, n) tiles of each pass (wi: its input is the width),
                # else the passes' or the per-dimension tiling's.
                weight = "wi" if b.shape[1] == D else "wo"
                own = (r.get("gmm_weight_tiles") or {}).get(weight) or pass_tiles
                if own is None:
                    own = {p: tiling(*dims) for p, dims in (
                        ("fwd", (a.shape[0], b.shape[1], b.shape[2])),
                        ("dlhs", (a.shape[0], b.shape[2], b.shape[1])),
                        ("drhs", (a.shape[0], b.shape[1], b.shape[2])))}
                return fp8_gmm(r.get("fp8_range"), own)(a, b, sizes)
            if pass_tiles:
                return _tiled_gmm(a, b, sizes, pass_tiles)
            return megablox.gmm(a, b, sizes, preferred_element_type=bf, tiling=tiling)

        h0, h1 = gmm(xs, w0), gmm(xs, w1)
        if mlp_bias:
            h0, h1 = h0 + b0[chosen], h1 + b1[chosen]
        ys = gmm(glu(h0, h1), wo)
        if mlp_bias:
            ys = ys + bo[chosen]
        ys = checkpoint_name(ys, "mlpwo")
        back = jnp.zeros_like(ys).at[order].set(ys).reshape(-1, K, D)
        out = jnp.sum(back.astype(f32) * weights[..., None], axis=1).astype(bf)
        return out.reshape(x.shape)

    def moe(h, gate_in, w, layer):
        whole = P()
        tokens = P(batch, None, None)
        bias = lambda name: c(w[name]) if name in w else jnp.zeros((), bf)
        # The router reads the experts' input unless given its own.
        fn, inputs = ((lambda x, *rest: routed(x, x, *rest)), (h,)) if gate_in is None else (
            routed, (h, gate_in))
        return act(shard_map(
            fn, mesh=jax.sharding.get_abstract_mesh(),
            in_specs=(tokens,) * len(inputs) + (whole,) * 9, out_specs=tokens,
            check_rep=False)(*inputs, layer, c(w["gate"]), bias("gate_b"), c(w["e0"]),
                             c(w["e1"]), c(w["eo"]), bias("e0_b"), bias("e1_b"), bias("eo_b")))

    def dense_mlp(h, w):
        g = act(glu(act(mm(h, c(w["w0"]))), act(mm(h, c(w["w1"])))))
        return act(checkpoint_name(act(mm(g, c(w["wo_mlp"]))), "mlpwo"))

    def ffn(x, w, layer):
        h = act(rms(x, w["ln2"], eps))
        if not E:
            return dense_mlp(h, w)
        if not gemma4:
            return moe(h, None, w, layer)
        # Gemma 4: the shared expert on the normalized input, the routed ones on their own
        # norm of the residual, the router on its unscaled norm times a learned scale.
        shared = rms(dense_mlp(h, w), w["ln_shared"], eps)
        gate_in = act(plain(x, eps) * (D ** -0.5) * c(w["gate_scale"]))
        out = moe(act(rms(x, w["ln_routed"], eps)), gate_in, w, layer)
        return act(rms(out, w["ln_moe"], eps) + shared)

    def block(x, w, kind, layer):
        x = act(checkpoint_name(x, "decoder_layer_input"))
        a = attention(act(rms(x, w["ln1"], eps)), w, kind)
        if gemma4:
            a = rms(a, w["ln_post_attn"], eps)
        x = act(x + a)
        f = ffn(x, w, layer)
        if gemma4:
            return act((x + rms(f, w["ln_post_ffn"], eps)) * c(w["scalar"]))
        return act(x + f)

    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[n for n, where in remat.items() if where == "device"],
        names_which_can_be_offloaded=[n for n, where in remat.items() if where == "offload"],
        offload_src="device", offload_dst="pinned_host")

    # Gemma 4's cycle rematerializes each of its layers apart (MaxText's Gemma4ScannableBlock:
    # a checkpoint a layer, none over the block), so the backward pass holds one layer's
    # activations at a time; the other models' cycle is one checkpoint.
    def layer(kind):
        run = lambda x, w, i: block(x, w, kind, i)
        return jax.checkpoint(run, policy=policy) if gemma4 else run

    def cycle(x, xs):
        w, i = xs
        for j, kind in enumerate(pattern):
            x = layer(kind)(x, w[j], i * len(pattern) + j)
        return x, None

    cap = r.get("logit_soft_cap")

    def loss(params, tokens):
        embed = c(params["embed"])
        if r.get("iota_embed"):
            one_hot = (tokens[..., None] == jnp.arange(V, dtype=tokens.dtype)).astype(bf)
            x = act(one_hot @ embed)
        else:
            x = act(embed[tokens])
        x, _ = jax.lax.scan(cycle if gemma4 else jax.checkpoint(cycle, policy=policy), x,
                            (params["layers"], jnp.arange(cycles, dtype=jnp.int32)))
        head = embed.T if r.get("tied_embedding") else c(params["head"])
        capped = (lambda y: jnp.tanh(y / cap) * cap) if cap else (lambda y: y)
        if r.get("vocab_tiles", 1) > 1:
            return _tiled_loss(act(rms(x, params["lnf"], eps)), head, r["vocab_tiles"],
                               lambda y: capped(act(y)))
        return _cross_entropy(capped(act(rms(x, params["lnf"], eps) @ head)))

    mu_dtype = jnp.dtype(r.get("mu_dtype", "float32"))
    step = _adamw_step(loss)

    sd = jax.ShapeDtypeStruct
    lead = (cycles,)

    def layer_weights(kind):
        heads, kv_heads, hd, shared_kv = shape[kind]
        w = {"ln1": (D,), "ln2": (D,), "wq": (D, heads * hd), "wk": (D, kv_heads * hd),
             "wv": (D, kv_heads * hd), "wo": (heads * hd, D)}
        if shared_kv:
            del w["wv"]
        if E:
            w.update(gate=(D, E), e0=(E, D, FE), e1=(E, D, FE), eo=(E, FE, D))
        if not E or gemma4:
            w.update(w0=(D, r["ffn"]), w1=(D, r["ffn"]), wo_mlp=(r["ffn"], D))
        if attention_bias:
            w.update(wq_b=(heads * hd,), wk_b=(kv_heads * hd,), wv_b=(kv_heads * hd,),
                     wo_b=(D,))
        if qk_norm:
            w.update(wq_norm=(hd,), wk_norm=(hd,))
        if router_bias:
            w.update(gate_b=(E,))
        if mlp_bias:
            w.update(e0_b=(E, FE), e1_b=(E, FE), eo_b=(E, D))
        if gemma4:
            w.update(ln_post_attn=(D,), ln_post_ffn=(D,), scalar=(1,))
            if E:
                w.update(ln_shared=(D,), ln_routed=(D,), ln_moe=(D,), gate_scale=(D,))
        return {k: sd(lead + v, f32) for k, v in w.items()}

    layers = [layer_weights(kind) for kind in pattern]
    params = {"embed": sd((V, D), f32), "layers": layers, "lnf": sd((D,), f32)}
    if not r.get("tied_embedding"):
        params["head"] = sd((D, V), f32)
    # Where FSDP shards each weight (axes after the scan's): MaxText's embedding axis first.
    experts_first = r.get("shard_experts", False)
    embed_axis = {"wq": 0, "wk": 0, "wv": 0, "wo": 1, "gate": 0, "e0": 1, "e1": 1, "eo": 2,
                  "w0": 0, "w1": 0, "wo_mlp": 1}

    def spec(name, shape):
        inner = shape[1:]
        prefer = [embed_axis[name]] if name in embed_axis else []
        if name in ("e0", "e1", "eo") and experts_first:
            prefer = [0] + prefer
        prefer += [a for a in range(len(inner)) if a not in prefer]
        return P(None, *_sharded(inner, fsdp, prefer))

    layer_specs = [{k: spec(k, v.shape) for k, v in w.items()} for w in layers]
    mu_tree = jax.tree.map(lambda v: sd(v.shape, mu_dtype), params)
    specs = {"embed": _sharded((V, D), fsdp, (0, 1)), "layers": layer_specs, "lnf": P(None)}
    if "head" in params:
        specs["head"] = _sharded((D, V), fsdp, (0, 1))
    tokens = sd((global_batch(r), r["seq"]), jnp.int32)
    return (step, (params, mu_tree, params, tokens), (specs, specs, specs, P(batch, None)),
            (0, 1, 2))


def gemma4_small_step(r):
    """Gemma 4's small decoders (E2B, E4B) as MaxText builds them for a recipe, each layer
    unrolled (scan_layers=False) and recomputed in the backward pass (remat full): cycles of
    sliding-window and global attention (`attention_pattern`, `window`; the global layers'
    heads `global_head_dim` wide), q, k and v normalized, no query scaling, the attention's and
    the MLP's outputs normalized, a GeGLU of `ffn` (twice as wide in the layers that share kv
    if `double_wide_mlp`); the last `kv_shared_layers` layers project no keys or values and
    attend over those of the last earlier layer of their kind; a per-layer input (a second
    embedding of `ple_dim` a layer, plus a projection of the first) gated into each layer; a
    scalar a layer; the embedding looked up as a one-hot matrix product (use_iota_embed), tied
    to the output layer, logits soft-capped. f32 weights and AdamW state, bf16 products; FSDP
    over "fsdp", the batch over `data_parallel` x "fsdp"."""
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P

    bf, f32 = jnp.bfloat16, jnp.float32
    D, H, KV, HD, V = r["width"], r["heads"], r["kv_heads"], r["head_dim"], r["vocab"]
    L, PLE, GHD = r["layers"], r["ple_dim"], r["global_head_dim"]
    pattern = tuple(r["attention_pattern"])
    kinds = [pattern[i % len(pattern)] for i in range(L)]
    first_shared = L - r.get("kv_shared_layers", 0)
    # The layer whose keys and values a shared layer reads: the last before the shared ones of
    # the same kind.
    donor = {i: max(j for j in range(first_shared) if kinds[j] == kinds[i])
             for i in range(first_shared, L)}
    data = r.get("data_parallel", 1)
    batch = ("data", MESH_AXIS) if data > 1 else MESH_AXIS
    fsdp = r["devices"] // data
    eps = r.get("norm_eps", 1e-6)
    act, rms = _common(batch)
    blocks = r.get("splash_blocks", 2048)
    splash = {"local": _splash(H, blocks, 1, H // KV, r["window"], batch=batch),
              "global": _splash(H, blocks, 1, H // KV, batch=batch)}
    c = lambda w: w.astype(bf)
    plain = lambda x: rms(x, jnp.ones((), bf), eps)
    everything = jax.checkpoint_policies.nothing_saveable

    def layer(x, ple, w, i, kv):
        kind = kinds[i]
        hd = GHD if kind == "global" else HD
        b, s = x.shape[:2]
        h = act(rms(x, w["ln1"], eps))
        q = act(rms((h @ c(w["wq"])).reshape(b, s, H, hd), w["q_norm"], eps))
        if kv is None:
            k = act(rms((h @ c(w["wk"])).reshape(b, s, KV, hd), w["k_norm"], eps))
            v = act(plain((h @ c(w["wv"])).reshape(b, s, KV, hd)))
        else:
            k, v = kv
        o = act(splash[kind](q, k, v)).reshape(b, s, H * hd)
        x = act(x + rms(act(o @ c(w["wo"])), w["ln_post_attn"], eps))
        h = act(rms(x, w["ln2"], eps))
        g = act(jax.nn.gelu(act(h @ c(w["w0"]))) * act(h @ c(w["w1"])))
        x = act(x + rms(act(g @ c(w["wo_mlp"])), w["ln_post_ffn"], eps))
        gate = jax.nn.gelu((x @ c(w["ple_gate"])).astype(f32)).astype(bf) * ple
        x = act(x + rms(act(gate @ c(w["ple_proj"])), w["ln_ple"], eps))
        return act(x * c(w["scalar"])), (k, v)

    def loss(params, tokens):
        embed = c(params["embed"])
        x = act((tokens[..., None] == jnp.arange(V, dtype=tokens.dtype)).astype(bf) @ embed)
        b, s = tokens.shape
        identity = c(params["ple_embed"])[tokens] * (PLE ** 0.5)
        context = act(x @ c(params["ple_proj"])) * (D ** -0.5)
        ple = (identity.reshape(b, s, L, PLE) + rms(context.reshape(b, s, L, PLE),
                                                    params["ple_norm"], eps)) * (2 ** -0.5)
        ple = jax.lax.with_sharding_constraint(ple, P(batch, None, None, None))
        kept = {}
        for i in range(L):
            kv = kept.get(donor[i]) if i in donor else None
            x, kv_out = jax.checkpoint(
                lambda x, p, w, kv, i=i: layer(x, p, w, i, kv), policy=everything)(
                    x, ple[:, :, i], params["layers"][i], kv)
            if i in donor.values():
                kept[i] = kv_out
        cap = r["logit_soft_cap"]
        capped = lambda y: jnp.tanh(act(y) / cap) * cap
        if r.get("vocab_tiles", 1) > 1:
            return _tiled_loss(act(rms(x, params["lnf"], eps)), embed.T, r["vocab_tiles"],
                               capped)
        return _cross_entropy(capped(rms(x, params["lnf"], eps) @ embed.T))

    step = _adamw_step(loss)

    sd = jax.ShapeDtypeStruct
    embed_axis = {"wq": 0, "wk": 0, "wv": 0, "wo": 1, "w0": 0, "w1": 0, "wo_mlp": 1,
                  "ple_gate": 0, "ple_proj": 1}

    def layer_weights(i):
        hd = GHD if kinds[i] == "global" else HD
        ffn = r["ffn"] * (2 if i >= first_shared and r.get("double_wide_mlp") else 1)
        w = {"ln1": (D,), "ln2": (D,), "ln_post_attn": (D,), "ln_post_ffn": (D,),
             "ln_ple": (D,), "scalar": (1,), "wq": (D, H * hd), "q_norm": (hd,),
             "wo": (H * hd, D), "w0": (D, ffn), "w1": (D, ffn), "wo_mlp": (ffn, D),
             "ple_gate": (D, PLE), "ple_proj": (PLE, D)}
        if i < first_shared:
            w.update(wk=(D, KV * hd), wv=(D, KV * hd), k_norm=(hd,))
        return {k: sd(v, f32) for k, v in w.items()}

    layers = [layer_weights(i) for i in range(L)]
    params = {"embed": sd((V, D), f32), "ple_embed": sd((V, L * PLE), f32),
              "ple_proj": sd((D, L * PLE), f32), "ple_norm": sd((PLE,), f32),
              "layers": layers, "lnf": sd((D,), f32)}

    def spec(name, shape):
        prefer = ([embed_axis[name]] if name in embed_axis else [])
        return _sharded(shape, fsdp, prefer + [a for a in range(len(shape)) if a not in prefer])

    specs = {k: spec(k, v.shape) for k, v in params.items() if k != "layers"}
    specs["layers"] = [{k: spec(k, v.shape) for k, v in w.items()} for w in layers]
    tokens = sd((global_batch(r), r["seq"]), jnp.int32)
    return (step, (params, params, params, tokens), (specs, specs, specs, P(batch, None)),
            (0, 1, 2))


BUILDERS = {"dense": dense_step, "deepseek": deepseek_step, "moe": moe_step,
            "gemma4_small": gemma4_small_step}
