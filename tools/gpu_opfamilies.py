"""Measured GPU op families (measured/gpu_h200_opfamilies, measured/gpu_h100_opfamilies).

Run on a machine with a GPU and JAX with CUDA:
    python3 tools/gpu_opfamilies.py OUTDIR
        [--set sweep|heldout|cache|contention|decode|convs|unaligned|reductions|depthwise|hbm|
               hostlead|grouped|launches]
        [--small] [--budget 300] [--cases REGEX] [--dry-run]
Sweeps the op families whose time a roofline does not give: sort, top-k, FFT, gather/scatter,
convolutions (forward and both backward passes), depthwise convolution, pooling, cumulative
sums, transposes, small-body loops, decode attention. `--set heldout` measures the same
families at sizes, dtypes and index distributions that the first sweep does not hold
(duplicate-heavy scatters among them), so that a model fitted to one set is checked on the
other. `--set cache` measures reads of data a kernel may find in L2 (a buffer reduced again
and again, a buffer reduced right after it is written) and fills, at sizes on both sides of L2.
`--set contention` measures scatter-adds whose indices repeat (f32 and bf16; uniform, Zipf with
exponents 0.8, 1.1 and 1.4, 8 rows, one row; sorted and unique variants), the range that
docs/prediction-model.md gives a scatter whose indices the program does not declare unique.
`--set decode` measures the pieces of an LLM decode step with a KV cache: matrix-vector
products at batch 1-8 over weights of 34 MB to 470 MB (one, and a loop over layers that each
read their own weights, as a step does), writes of one position into a large cache in a loop
(XLA's in-place dynamic-update-slice), attention over long caches at batch 1-8, and whole decode
steps of a few layers (norm, projections, cache writes, attention, MLP).
`--set convs` measures the convolutions the cuDNN models extrapolate to: pointwise (1x1) ones
over a range of GEMM shapes, strided ones (1x1 and 3x3 downsampling), grouped ones that are
not depthwise (ResNeXt's 32 groups and others, 4-24 features a group), ConvNeXt's 7x7
depthwise stages (56x56x96 to 7x7x768, three batches) and MobileNet's 3x3 depthwise ones,
stride 1 and 2.
`--set unaligned` measures GEMMs whose dimensions are odd or prime (GPT-2's LM head with its
vocabulary of 50,257, forward and both backward products; a 4096^3 product with one dimension
made 4093, 4095, 4100, 4104 or 4112) beside aligned twins, in bf16 and fp8.
`--set reductions` measures column reductions across XLA's two column emitters ([D, R, K]
summed over R, D of 1 and 64, R of 512 and 4096, K of 8 to 4096, f32 and bf16; the decode
step's scaled maximum with its side output) and the host's gaps before a tiny convolution's
cuDNN call and a small sort, on the host at hand.
`--set depthwise` measures the filter gradient alone of depthwise convolutions: on a map no
wider than its 7x7 window XLA writes it as a forward convolution with an output batch of 1
(ConvNeXt's last stage, 384 to 1536 channels, batch 16 to 256), and beside those five the
backward-filter calls of 14x14 and 28x28 maps and 3x3 filters.
`--set hbm` measures memory-bound kernels by their mix of reads and writes (a scale, an add, a
transpose, a bf16 row softmax) from 4 to 512 MiB.
`--set hostlead` measures a small loop after a kernel that keeps the device busy (how much of
the loop's launches hides behind it); `--set grouped` grouped 3x3 convolutions of 4 to 96
features a group (which widths cuDNN runs one group at a time); `--set launches` chains of 1 to
8 unfusable elementwise kernels (the host's launch of each when there is no command buffer).

Each case, in OUTDIR/CASE/: the optimized HLO (module.hlo), XLA's cost and memory analyses
(cost.json, memory.json) and the host wall time per call (timings.json: median of many calls,
dispatch included). In OUTDIR: summary.json (every case's timing, or its error), one profile of
the whole sweep (sweep.xplane.pb.gz, each case's module named jit_CASE) with every kernel's device
time, and provenance.json: the command, the UTC start, the script's SHA-256, jax and jaxlib,
the backend, its platform version and device kind and count, XLA_FLAGS, and each GPU's name,
driver, memory, maximum SM clock and power limit as nvidia-smi gives them. Beside OUTDIR,
OUTDIR.tar.gz holds the folder. Cases run interleaved by family, so a budget stop still covers
all; `--cases REGEX` keeps those whose name the expression finds. The command exits 1 when a
case fails (summary.json holds its error).

`--dry-run` checks a set on any machine, without a GPU: every case's arguments are built as
shapes only (traced, never computed, so full sizes cost no memory), and each program is
lowered and compiled on the CPU backend; it writes the same files but timings.json and the
profile (module.hlo is then the CPU's optimized HLO, summary.json gives compile times). With
`--small`, the same at tiny sizes.
"""
import argparse, datetime, glob, gzip, hashlib, itertools, json, math, os, re, shutil, statistics
import subprocess, sys, tarfile, time

import jax
import jaxlib
import numpy as np
import jax.numpy as jnp
from jax import lax

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # tools/
from output_file import write_output  # noqa: E402

BF16, F32 = jnp.bfloat16, jnp.float32


def normal(shape, dtype=F32, seed=0):
    return jax.random.normal(jax.random.key(seed), shape, F32).astype(dtype)


def family_sort(s):
    for logn in ([10, 12] if s else [16, 20, 22, 24, 26]):
        n = 1 << logn
        yield f"sort_f32_1d_2e{logn}", jnp.sort, (normal((n,)),)
        yield f"argsort_f32_1d_2e{logn}", jnp.argsort, (normal((n,)),)
    for rows, cols in ([(4, 256)] if s else [(4096, 1024), (1024, 32768), (64, 131072)]):
        yield f"sort_f32_rows_{rows}x{cols}", lambda x: jnp.sort(x, axis=-1), (normal((rows, cols)),)
    for logn in ([10] if s else [20, 24]):
        yield f"sort_bf16_1d_2e{logn}", jnp.sort, (normal((1 << logn,), BF16),)
        yield f"sort_i32_1d_2e{logn}", jnp.sort, (jax.random.randint(jax.random.key(1), (1 << logn,), 0, 1 << 30),)


def family_topk(s):
    for rows, vocab, k in ([(4, 1000, 8)] if s else
                           [(1, 32000, 50), (64, 32000, 50), (1024, 32000, 50), (4096, 32000, 1),
                            (4096, 32000, 8), (4096, 32000, 50), (256, 128256, 50), (2048, 128256, 8),
                            (16384, 8, 2), (16384, 64, 8)]):
        yield f"topk_{rows}x{vocab}_k{k}", (lambda k: lambda x: lax.top_k(x, k))(k), (normal((rows, vocab)),)


def family_fft(s):
    for logn, batch in ([(8, 4)] if s else [(10, 1 << 16), (14, 1 << 12), (18, 1 << 8), (22, 16), (24, 4)]):
        x = normal((batch, 1 << logn)).astype(jnp.complex64)
        yield f"fft_c64_1d_2e{logn}_b{batch}", jnp.fft.fft, (x,)
    for n in ([16] if s else [1024, 4096, 8192]):
        yield f"fft2_c64_{n}x{n}", jnp.fft.fft2, (normal((n, n)).astype(jnp.complex64),)
    for n in ([8] if s else [128, 256, 512]):
        yield f"fftn_c64_{n}^3", jnp.fft.fftn, (normal((n, n, n)).astype(jnp.complex64),)
        yield f"ifftn_c64_{n}^3", jnp.fft.ifftn, (normal((n, n, n)).astype(jnp.complex64),)
    for n in ([8] if s else [256, 512]):
        yield f"rfftn_f32_{n}^3", jnp.fft.rfftn, (normal((n, n, n)),)
    if not s:
        yield "fft_c128_1d_2e20_b16", jnp.fft.fft, (normal((16, 1 << 20)).astype(jnp.complex128),) if jax.config.jax_enable_x64 else (normal((16, 1 << 20)).astype(jnp.complex64),)


def family_gather_scatter(s):
    for nodes, edges, feat in ([(1000, 4000, 8)] if s else
                               [(1 << 20, 1 << 23, 1), (1 << 20, 1 << 23, 16), (1 << 20, 1 << 23, 64),
                                (1 << 18, 1 << 22, 256), (1 << 16, 1 << 24, 16)]):
        idx = jax.random.randint(jax.random.key(2), (edges,), 0, nodes)
        src = normal((edges, feat))
        yield f"segment_sum_random_n{nodes}_e{edges}_f{feat}", (lambda n: lambda v, i: jax.ops.segment_sum(v, i, num_segments=n))(nodes), (src, idx)
        yield f"segment_sum_sorted_n{nodes}_e{edges}_f{feat}", (lambda n: lambda v, i: jax.ops.segment_sum(v, i, num_segments=n, indices_are_sorted=True))(nodes), (src, jnp.sort(idx))
        table = normal((nodes, feat))
        yield f"gather_rows_n{nodes}_e{edges}_f{feat}", lambda t, i: t[i], (table, idx)
    for vocab, tokens, d in ([(1000, 64, 32)] if s else [(32000, 16384, 4096), (128256, 8192, 4096), (1 << 20, 65536, 128)]):
        ids = jax.random.randint(jax.random.key(3), (tokens,), 0, vocab)
        yield f"embed_lookup_v{vocab}_t{tokens}_d{d}", lambda t, i: t[i], (normal((vocab, d), BF16), ids)
        yield f"embed_grad_scatter_v{vocab}_t{tokens}_d{d}", (lambda v: lambda g, i: jnp.zeros((v, g.shape[1]), g.dtype).at[i].add(g))(vocab), (normal((tokens, d), BF16), ids)


def conv(x, w, stride=1, groups=1):
    return lax.conv_general_dilated(x, w, (stride, stride), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                    feature_group_count=groups)


def conv_cases(cases):
    """Each (batch, height, width, in, out, filter, stride, groups): forward, and forward with both gradients."""
    for b, h, w_, cin, cout, k, st, g in cases:
        x = normal((b, h, w_, cin), BF16); w = normal((k, k, cin // g, cout), BF16, 4) * 0.05
        tag = f"conv{k}x{k}_s{st}_g{g}_b{b}_{h}x{w_}_{cin}to{cout}"
        yield f"{tag}_fwd", (lambda st, g: lambda x, w: conv(x, w, st, g))(st, g), (x, w)
        yield f"{tag}_fwdbwd", (lambda st, g: jax.grad(lambda x, w: jnp.sum(conv(x, w, st, g).astype(F32) ** 2), argnums=(0, 1)))(st, g), (x, w)


def family_conv(s):
    cases = [(2, 8, 8, 16, 16, 3, 1, 1)] if s else [
        (64, 56, 56, 64, 64, 3, 1, 1), (64, 28, 28, 128, 128, 3, 1, 1), (64, 14, 14, 256, 256, 3, 1, 1),
        (64, 7, 7, 512, 512, 3, 1, 1), (64, 56, 56, 256, 64, 1, 1, 1), (64, 14, 14, 1024, 256, 1, 1, 1),
        (64, 56, 56, 128, 128, 3, 2, 1), (64, 224, 224, 3, 64, 7, 2, 1), (64, 56, 56, 128, 128, 7, 1, 128),
        (64, 28, 28, 384, 384, 3, 1, 384), (16, 128, 128, 256, 256, 3, 1, 1)]
    yield from conv_cases(cases)


def family_misc(s):
    n = 256 if s else 8192
    yield f"maxpool3x3s2_b64_112x112x64", lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME"), (normal((2 if s else 64, 16 if s else 112, 16 if s else 112, 64), BF16),)
    yield f"cumsum_f32_rows_{n}x{n}", lambda x: jnp.cumsum(x, axis=-1), (normal((n, n)),)
    yield f"cumsum_f32_1d_2e{10 if s else 26}", jnp.cumsum, (normal((1 << (10 if s else 26),)),)
    for shape, perm in ([((8, 16, 32), (2, 0, 1))] if s else
                        [((8192, 8192), (1, 0)), ((64, 2048, 16, 128), (0, 2, 1, 3)), ((512, 512, 512), (2, 1, 0)),
                         ((512, 512, 512), (1, 0, 2)), ((4096, 4096, 4), (2, 1, 0))]):
        yield f"transpose_{'x'.join(map(str, shape))}_{''.join(map(str, perm))}", (lambda p: lambda x: jnp.transpose(x, p) + 1)(perm), (normal(shape, BF16),)
    for layernorm_rows, d in ([(64, 128)] if s else [(32768, 4096), (8192, 16384), (1 << 20, 64)]):
        def bn(x):
            xf = x.astype(F32); return ((xf - xf.mean(0)) * lax.rsqrt(xf.var(0) + 1e-5)).astype(BF16)
        yield f"batchnorm_reduce_axis0_{layernorm_rows}x{d}", bn, (normal((layernorm_rows, d), BF16),)


def family_loops(s):
    for trips in ([10] if s else [100, 1000, 10000]):
        yield f"fori_tiny_body_{trips}", (lambda t: lambda x: lax.fori_loop(0, t, lambda i, c: c * 1.0001 + 1.0, x))(trips), (normal((128,)),)
    for trips, b, h in ([(4, 2, 32)] if s else [(256, 64, 1024), (1024, 8, 512), (128, 256, 4096)]):
        w = normal((h, h), BF16) * 0.02
        yield f"scan_matmul_{trips}x_b{b}_h{h}", (lambda t: lambda w, x: lax.scan(lambda c, _: (jnp.tanh(c @ w), None), x, None, length=t)[0])(trips), (w, normal((b, h), BF16))


def family_decode(s):
    for batch, kvlen, heads, hd in ([(2, 64, 4, 16)] if s else
                                    [(1, 8192, 32, 128), (32, 8192, 32, 128), (128, 2048, 32, 128), (8, 32768, 8, 128)]):
        q = normal((batch, heads, hd), BF16); k = normal((batch, kvlen, heads, hd), BF16); v = normal((batch, kvlen, heads, hd), BF16)

        def f(q, k, v):
            sc = jnp.einsum("bhd,bkhd->bhk", q, k).astype(F32) / math.sqrt(q.shape[-1])
            return jnp.einsum("bhk,bkhd->bhd", jax.nn.softmax(sc, -1).astype(BF16), v)
        yield f"decode_attn_b{batch}_kv{kvlen}_h{heads}_d{hd}", f, (q, k, v)
        kt = normal((batch, heads, kvlen, hd), BF16); vt = normal((batch, heads, kvlen, hd), BF16)

        def g(q, k, v):
            sc = jnp.einsum("bhd,bhkd->bhk", q, k).astype(F32) / math.sqrt(q.shape[-1])
            return jnp.einsum("bhk,bhkd->bhd", jax.nn.softmax(sc, -1).astype(BF16), v)
        yield f"decode_attn_headmajor_b{batch}_kv{kvlen}_h{heads}_d{hd}", g, (q, kt, vt)



# The held-out set: the same families at other sizes, dtypes and index distributions.

def heldout_sort(s):
    for logn in ([11] if s else [18, 21, 23]):
        yield f"sort_f32_1d_2e{logn}", jnp.sort, (normal((1 << logn,)),)
    for logn in ([11] if s else [18, 23]):
        yield f"argsort_f32_1d_2e{logn}", jnp.argsort, (normal((1 << logn,)),)
    for rows, cols in ([(8, 128)] if s else [(2048, 4096), (256, 65536), (16384, 256)]):
        yield f"sort_f32_rows_{rows}x{cols}", lambda x: jnp.sort(x, axis=-1), (normal((rows, cols)),)
    for logn in ([11] if s else [16, 22]):
        yield f"sort_bf16_1d_2e{logn}", jnp.sort, (normal((1 << logn,), BF16),)
    for logn in ([11] if s else [22]):
        yield f"sort_i32_1d_2e{logn}", jnp.sort, (jax.random.randint(jax.random.key(1), (1 << logn,), 0, 1 << 30),)
        yield f"argsort_bf16_1d_2e{logn - 2}", jnp.argsort, (normal((1 << (logn - 2),), BF16),)


def heldout_topk(s):
    for rows, vocab, k in ([(2, 500, 4)] if s else
                           [(8, 50257, 40), (512, 50257, 10), (2048, 32000, 4), (8192, 1024, 16),
                            (32768, 256, 4), (128, 128256, 1), (1024, 4096, 64), (16, 262144, 100)]):
        yield f"topk_{rows}x{vocab}_k{k}", (lambda k: lambda x: lax.top_k(x, k))(k), (normal((rows, vocab)),)


def heldout_fft(s):
    for logn, batch in ([(6, 4)] if s else [(8, 1 << 18), (12, 1 << 14), (16, 1 << 10), (20, 32)]):
        x = normal((batch, 1 << logn)).astype(jnp.complex64)
        yield f"fft_c64_1d_2e{logn}_b{batch}", jnp.fft.fft, (x,)
    for a, b in ([(8, 16)] if s else [(2048, 2048), (512, 8192)]):
        yield f"fft2_c64_{a}x{b}", jnp.fft.fft2, (normal((a, b)).astype(jnp.complex64),)
    for n in ([8] if s else [192, 384]):
        yield f"fftn_c64_{n}^3", jnp.fft.fftn, (normal((n, n, n)).astype(jnp.complex64),)
        yield f"rfftn_f32_{n}^3", jnp.fft.rfftn, (normal((n, n, n)),)
    for n in ([8] if s else [256]):
        yield f"irfftn_c64_{n}^3", (lambda n: lambda x: jnp.fft.irfftn(x, s=(n, n, n)))(n), (normal((n, n, n // 2 + 1)).astype(jnp.complex64),)
    for b, n in ([(2, 8)] if s else [(8, 128)]):
        yield f"fftn_c64_b{b}_{n}^3", lambda x: jnp.fft.fftn(x, axes=(1, 2, 3)), (normal((b, n, n, n)).astype(jnp.complex64),)


def heldout_gather_scatter(s):
    for nodes, edges, feat in ([(500, 3000, 4)] if s else
                               [(1 << 19, 1 << 22, 32), (1 << 21, 1 << 23, 4), (1 << 17, 1 << 22, 128)]):
        idx = jax.random.randint(jax.random.key(2), (edges,), 0, nodes)
        src = normal((edges, feat))
        yield f"segment_sum_random_n{nodes}_e{edges}_f{feat}", (lambda n: lambda v, i: jax.ops.segment_sum(v, i, num_segments=n))(nodes), (src, idx)
        yield f"segment_sum_sorted_n{nodes}_e{edges}_f{feat}", (lambda n: lambda v, i: jax.ops.segment_sum(v, i, num_segments=n, indices_are_sorted=True))(nodes), (src, jnp.sort(idx))
        yield f"gather_rows_n{nodes}_e{edges}_f{feat}", lambda t, i: t[i], (normal((nodes, feat)), idx)
    # Duplicate-heavy: few segments for many rows, and bf16 atomics.
    for nodes, edges, feat in ([(16, 3000, 4)] if s else [(1024, 1 << 23, 16), (64, 1 << 22, 64)]):
        idx = jax.random.randint(jax.random.key(5), (edges,), 0, nodes)
        yield f"segment_sum_dupes_n{nodes}_e{edges}_f{feat}", (lambda n: lambda v, i: jax.ops.segment_sum(v, i, num_segments=n))(nodes), (normal((edges, feat)), idx)
    for nodes, edges, feat in ([(500, 3000, 4)] if s else [(1 << 20, 1 << 23, 16)]):
        idx = jax.random.randint(jax.random.key(6), (edges,), 0, nodes)
        yield f"segment_sum_bf16_random_n{nodes}_e{edges}_f{feat}", (lambda n: lambda v, i: jax.ops.segment_sum(v, i, num_segments=n))(nodes), (normal((edges, feat), BF16), idx)
    for vocab, tokens, d in ([(1000, 64, 32)] if s else [(50257, 8192, 768), (256000, 4096, 2048)]):
        ids = jax.random.randint(jax.random.key(3), (tokens,), 0, vocab)
        yield f"embed_lookup_v{vocab}_t{tokens}_d{d}", lambda t, i: t[i], (normal((vocab, d), BF16), ids)
        yield f"embed_grad_scatter_v{vocab}_t{tokens}_d{d}", (lambda v: lambda g, i: jnp.zeros((v, g.shape[1]), g.dtype).at[i].add(g))(vocab), (normal((tokens, d), BF16), ids)
    # Token ids as text has them: a few ids hold most tokens (Zipf, exponent 1.1).
    for vocab, tokens, d in ([(1000, 64, 32)] if s else [(32000, 16384, 4096)]):
        ranks = jnp.arange(1, vocab + 1, dtype=F32)
        ids = jax.random.categorical(jax.random.key(7), -1.1 * jnp.log(ranks), shape=(tokens,)).astype(jnp.int32)
        yield f"embed_grad_scatter_zipf_v{vocab}_t{tokens}_d{d}", (lambda v: lambda g, i: jnp.zeros((v, g.shape[1]), g.dtype).at[i].add(g))(vocab), (normal((tokens, d), BF16), ids)


def heldout_conv(s):
    cases = [(2, 8, 8, 8, 16, 3, 1, 1)] if s else [
        (32, 56, 56, 64, 128, 3, 1, 1), (128, 28, 28, 256, 256, 1, 1, 1), (32, 112, 112, 64, 64, 3, 2, 1),
        (32, 28, 28, 256, 256, 5, 1, 256), (8, 64, 64, 512, 512, 3, 1, 1), (64, 7, 7, 512, 2048, 1, 1, 1),
        (16, 56, 56, 96, 96, 3, 1, 1)]
    yield from conv_cases(cases)


def heldout_misc(s):
    yield "maxpool2x2s2_b32_56x56x256", lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"), (normal((2 if s else 32, 8 if s else 56, 8 if s else 56, 256), BF16),)
    r, c = (16, 64) if s else (4096, 16384)
    yield f"cumsum_f32_rows_{r}x{c}", lambda x: jnp.cumsum(x, axis=-1), (normal((r, c)),)
    yield f"cumsum_f32_1d_2e{11 if s else 24}", jnp.cumsum, (normal((1 << (11 if s else 24),)),)
    for shape, perm in ([((4, 8, 16), (1, 0, 2))] if s else
                        [((4096, 8192), (1, 0)), ((32, 4096, 32, 128), (0, 2, 1, 3)), ((256, 1024, 1024), (2, 1, 0))]):
        yield f"transpose_{'x'.join(map(str, shape))}_{''.join(map(str, perm))}", (lambda p: lambda x: jnp.transpose(x, p) + 1)(perm), (normal(shape, BF16),)
    for rows, d in ([(32, 64)] if s else [(65536, 1024), (262144, 256)]):
        def bn(x):
            xf = x.astype(F32); return ((xf - xf.mean(0)) * lax.rsqrt(xf.var(0) + 1e-5)).astype(BF16)
        yield f"batchnorm_reduce_axis0_{rows}x{d}", bn, (normal((rows, d), BF16),)


def heldout_loops(s):
    for trips in ([20] if s else [300, 3000]):
        yield f"fori_tiny_body_{trips}", (lambda t: lambda x: lax.fori_loop(0, t, lambda i, c: c * 1.0001 + 1.0, x))(trips), (normal((128,)),)
    for trips, b, h in ([(3, 2, 16)] if s else [(512, 32, 2048), (64, 128, 8192)]):
        w = normal((h, h), BF16) * 0.02
        yield f"scan_matmul_{trips}x_b{b}_h{h}", (lambda t: lambda w, x: lax.scan(lambda c, _: (jnp.tanh(c @ w), None), x, None, length=t)[0])(trips), (w, normal((b, h), BF16))


def heldout_decode(s):
    for batch, kvlen, heads, hd in ([(2, 32, 2, 16)] if s else [(16, 16384, 32, 128), (64, 4096, 8, 128)]):
        for name, kshape, eq1, eq2 in (
                ("decode_attn", (batch, kvlen, heads, hd), "bhd,bkhd->bhk", "bhk,bkhd->bhd"),
                ("decode_attn_headmajor", (batch, heads, kvlen, hd), "bhd,bhkd->bhk", "bhk,bhkd->bhd")):
            def f(q, k, v, eq1=eq1, eq2=eq2):
                sc = jnp.einsum(eq1, q, k).astype(F32) / math.sqrt(q.shape[-1])
                return jnp.einsum(eq2, jax.nn.softmax(sc, -1).astype(BF16), v)
            yield (f"{name}_b{batch}_kv{kvlen}_h{heads}_d{hd}", f,
                   (normal((batch, heads, hd), BF16), normal(kshape, BF16, 1), normal(kshape, BF16, 2)))


HELDOUT = [heldout_sort, heldout_topk, heldout_fft, heldout_gather_scatter, heldout_conv, heldout_misc,
           heldout_loops, heldout_decode]

def cache_reuse(s):
    """Reads of data a kernel may find in L2: the same buffer reduced again and again, a buffer
    reduced right after the kernel that wrote it, and fills, at sizes on both sides of L2."""
    for mb in ([1, 4] if s else [1, 2, 4, 8, 16, 24, 32, 40, 48, 64, 128, 512]):
        n = mb << 18  # f32 elements in mb MiB
        rows = n // 1024
        x = normal((rows, 1024))
        yield f"l2_colsum_f32_{mb}mib", lambda x: x.sum(axis=0), (x,)
        yield f"l2_rowsum_f32_{mb}mib", lambda x: x.sum(axis=1), (x,)
        yield f"l2_write_then_colsum_f32_{mb}mib", lambda x: (x * 2 + 1).sum(axis=0) + jnp.max(x * 2 + 1, axis=1).sum(), (x,)
        yield f"l2_fill_f32_{mb}mib", lambda a, rows=rows: jnp.broadcast_to(a, (rows, 1024)) * 1.5, (normal(()),)


CACHE = [cache_reuse]


def scatter_ids(dist, updates, rows, seed):
    """Row ids for `updates` scatter updates into `rows` rows: "uniform" (every row alike),
    "zipfS" (a Zipf law of exponent S over the rows, as text's token ids: rank k drawn with
    weight k^-S, the ranks dealt to rows by a fixed permutation, so hot rows are not
    neighbours), "fewN" (N rows alike), "one" (every update on one row)."""
    key = jax.random.key(seed)
    if dist == "uniform":
        return jax.random.randint(key, (updates,), 0, rows)
    if dist.startswith("few"):
        return jax.random.randint(key, (updates,), 0, int(dist[3:])) * (rows // int(dist[3:]))
    if dist == "one":
        return jnp.full((updates,), rows // 2, jnp.int32)
    # Zipf by inverse transform: a uniform draw looked up in the cumulative weights (rows long).
    # jax.random.categorical would draw updates x rows Gumbel variates at once: 69 GB of f32 for
    # the segment sum's 262144 updates into 65536 rows.
    weights = np.arange(1, rows + 1, dtype=np.float64) ** -float(dist[4:])
    cumulative = np.cumsum(weights) / weights.sum()
    draws = np.random.default_rng(seed).random(updates)
    ranks = np.minimum(np.searchsorted(cumulative, draws, side="right"), rows - 1)
    return jax.random.permutation(jax.random.key(seed + 1), rows)[ranks].astype(jnp.int32)


def scatter_contention(s):
    """Scatter-add with repeated indices: f32 and bf16, wide rows (an embedding gradient) and
    narrow ones (a segment sum), indices uniform, Zipf-distributed (exponents 0.8, 1.1, 1.4),
    on 8 rows, on one row; and the Zipf 1.1 ids sorted (indices_are_sorted) and a permutation
    declared unique (unique_indices), the two cases whose attributes change the kernel."""
    shapes = ([("embed", 1000, 64, 32), ("segment", 500, 3000, 4)] if s else
              [("embed", 32000, 16384, 2048), ("segment", 65536, 1 << 18, 16)])
    dists = ["uniform", "zipf0.8", "zipf1.1", "zipf1.4", "few8", "one"]
    for (kind, rows, updates, width), dtype, dist in itertools.product(shapes, (F32, BF16), dists):
        tag = "bf16" if dtype == BF16 else "f32"
        ids = scatter_ids(dist, updates, rows, 11)
        yield (f"scatter_add_{kind}_{tag}_{dist}_r{rows}_u{updates}_w{width}",
               (lambda r: lambda g, i: jnp.zeros((r, g.shape[1]), g.dtype).at[i].add(g))(rows),
               (normal((updates, width), dtype), ids))
    for (kind, rows, updates, width), dtype in itertools.product(shapes[:1], (F32, BF16)):
        tag = "bf16" if dtype == BF16 else "f32"
        ids = jnp.sort(scatter_ids("zipf1.1", updates, rows, 11))
        yield (f"scatter_add_{kind}_{tag}_zipf1.1sorted_r{rows}_u{updates}_w{width}",
               (lambda r: lambda g, i: jnp.zeros((r, g.shape[1]), g.dtype).at[i].add(
                   g, indices_are_sorted=True))(rows),
               (normal((updates, width), dtype), ids))
        ids = jax.random.permutation(jax.random.key(12), rows)[:updates].astype(jnp.int32)
        yield (f"scatter_add_{kind}_{tag}_unique_r{rows}_u{updates}_w{width}",
               (lambda r: lambda g, i: jnp.zeros((r, g.shape[1]), g.dtype).at[i].add(
                   g, unique_indices=True))(rows),
               (normal((updates, width), dtype), ids))


CONTENTION = [scatter_contention]


def decode_gemv(s):
    """Matrix-vector products as a decode step runs them: batch 1-8 rows against bf16 weights
    (4096x4096, 4096x14336, 8192x28672), alone and in a loop over 8 layers whose weights are
    each read once (as a step reads them: none left in L2 by the call before)."""
    shapes = [(64, 128)] if s else [(4096, 4096), (4096, 14336), (8192, 28672)]
    for b, (k, n) in itertools.product((1, 2, 4, 8), shapes):
        yield f"gemv_b{b}_{k}x{n}_bf16", lambda x, w: x @ w, (normal((b, k), BF16), normal((k, n), BF16, 1) * 0.02)
    layers, k, n = (2, 64, 128) if s else (8, 4096, 14336)
    for b in (1, 8):
        yield (f"gemv_layers{layers}_b{b}_{k}x{n}_bf16",
               lambda x, w: lax.fori_loop(0, w.shape[0], lambda l, c: (c @ w[l])[:, :c.shape[1]], x),
               (normal((b, k), BF16), normal((layers, k, n), BF16, 1) * 0.02))


def decode_cache_write(s):
    """Writes of one position into a KV cache [batch, seq, heads, dim], one a trip of a loop of
    16 trips: the loop carries the cache, so XLA writes it in place (the update's bytes, not the
    cache's); the call's copy of the cache into the loop is a kernel of its own in the profile."""
    trips = 16
    for b, seq, h, d in ([(2, 64, 2, 16)] if s else [(1, 4096, 32, 128), (8, 4096, 32, 128), (8, 32768, 8, 128)]):
        yield (f"cache_write_b{b}_s{seq}_h{h}_d{d}_x{trips}",
               lambda c, u: lax.fori_loop(0, trips, lambda i, c: lax.dynamic_update_slice(
                   c, (u * i.astype(u.dtype))[:, None], (0, i, 0, 0)), c),
               (normal((b, seq, h, d), BF16), normal((b, h, d), BF16, 1)))


def decode_long_attention(s):
    """Attention of one new token over a long cache: the whole K and V are read."""
    for b, kv, h, d in ([(1, 64, 2, 16)] if s else [(1, 32768, 8, 128), (4, 32768, 8, 128), (1, 131072, 8, 128)]):
        def f(q, k, v):
            sc = jnp.einsum("bhd,bkhd->bhk", q, k).astype(F32) / math.sqrt(q.shape[-1])
            return jnp.einsum("bhk,bkhd->bhd", jax.nn.softmax(sc, -1).astype(BF16), v)
        yield (f"decode_attn_long_b{b}_kv{kv}_h{h}_d{d}", f,
               (normal((b, h, d), BF16), normal((b, kv, h, d), BF16, 1), normal((b, kv, h, d), BF16, 2)))


def decode_step(s):
    """Whole decode steps: `layers` layers (RMS norm, QKV projection, the new K and V written
    into the caches [layers, batch, seq, heads, dim] at the step's position, attention over the
    cache, output projection, a gated MLP), weights stacked by layer and read once each."""
    layers, hidden, heads, dim, ffn = (2, 64, 4, 16, 128) if s else (4, 4096, 32, 128, 14336)
    for b, seq in ([(2, 32)] if s else [(1, 4096), (8, 4096), (8, 16384)]):
        def step(x, pos, wqkv, wo, wup, wdown, kc, vc):
            def norm(x):
                xf = x.astype(F32)
                return (xf * lax.rsqrt(jnp.mean(xf * xf, -1, keepdims=True) + 1e-6)).astype(BF16)

            def layer(l, c):
                x, kc, vc = c
                batch = x.shape[0]
                q, k, v = jnp.split((norm(x) @ wqkv[l]).reshape(batch, 3, heads, dim), 3, axis=1)
                kc = lax.dynamic_update_slice(kc, k[None, :, None, 0], (l, 0, pos, 0, 0))
                vc = lax.dynamic_update_slice(vc, v[None, :, None, 0], (l, 0, pos, 0, 0))
                sc = jnp.einsum("bhd,bkhd->bhk", q[:, 0], kc[l]).astype(F32) / math.sqrt(dim)
                o = jnp.einsum("bhk,bkhd->bhd", jax.nn.softmax(sc, -1).astype(BF16), vc[l])
                x = x + o.reshape(batch, heads * dim) @ wo[l]
                g, u = jnp.split(norm(x) @ wup[l], 2, axis=-1)
                return x + (jax.nn.silu(g) * u) @ wdown[l], kc, vc
            return lax.fori_loop(0, layers, layer, (x, kc, vc))
        cache = (layers, b, seq, heads, dim)
        yield (f"decode_step_l{layers}_b{b}_s{seq}_h{hidden}", step,
               (normal((b, hidden), BF16), jnp.int32(seq // 2),
                normal((layers, hidden, 3 * heads * dim), BF16, 1) * 0.02,
                normal((layers, heads * dim, hidden), BF16, 2) * 0.02,
                normal((layers, hidden, 2 * ffn), BF16, 3) * 0.02,
                normal((layers, ffn, hidden), BF16, 4) * 0.02,
                normal(cache, BF16, 5), normal(cache, BF16, 6)))


DECODE = [decode_gemv, decode_cache_write, decode_long_attention, decode_step]


def convs_sweep(s):
    """Convolutions beyond the sweep's: each (batch, height, width, in, out, filter, stride,
    groups), forward and forward with both gradients, as conv_cases builds them."""
    cases = [(2, 8, 8, 16, 32, 1, 1, 1), (2, 8, 8, 16, 16, 3, 2, 1), (2, 8, 8, 32, 32, 3, 1, 4),
             (2, 8, 8, 16, 16, 7, 1, 16)] if s else [
        # Pointwise, unit stride: the GEMM's m (batch x positions), k (in) and n (out) varied.
        (64, 56, 56, 64, 256, 1, 1, 1), (64, 28, 28, 512, 128, 1, 1, 1), (64, 14, 14, 256, 1024, 1, 1, 1),
        (16, 7, 7, 2048, 512, 1, 1, 1), (256, 28, 28, 128, 512, 1, 1, 1), (8, 14, 14, 384, 1536, 1, 1, 1),
        # Strided: ResNet's 1x1 downsampling projections and 3x3 stride-2 convolutions.
        (64, 56, 56, 256, 512, 1, 2, 1), (64, 28, 28, 512, 1024, 1, 2, 1), (64, 28, 28, 256, 256, 3, 2, 1),
        (64, 14, 14, 512, 512, 3, 2, 1),
        # Grouped, not depthwise: ResNeXt 32x4d and 32x8d, 16 and 24 features a group.
        (64, 56, 56, 128, 128, 3, 1, 32), (64, 28, 28, 256, 256, 3, 1, 32), (64, 14, 14, 512, 512, 3, 1, 32),
        (64, 28, 28, 256, 256, 3, 1, 16), (32, 56, 56, 96, 96, 3, 1, 4),
        # ConvNeXt's 7x7 depthwise stages, and two other batches.
        (64, 56, 56, 96, 96, 7, 1, 96), (64, 28, 28, 192, 192, 7, 1, 192), (64, 14, 14, 384, 384, 7, 1, 384),
        (64, 7, 7, 768, 768, 7, 1, 768), (16, 56, 56, 96, 96, 7, 1, 96), (256, 14, 14, 384, 384, 7, 1, 384),
        # MobileNet's 3x3 depthwise convolutions, stride 1 and 2.
        (64, 112, 112, 32, 32, 3, 1, 32), (64, 56, 56, 144, 144, 3, 2, 144), (64, 14, 14, 576, 576, 3, 1, 576)]
    yield from conv_cases(cases)


CONVS = [convs_sweep]

F8 = jnp.float8_e4m3fn
GPT2_VOCAB = 50257  # a prime: odd, and a multiple of no power of two


def unaligned_gemms(s):
    """GEMMs with dimensions that are not multiples of 8, 16 or 64, each beside an aligned twin,
    in bf16 and fp8 (e4m3 inputs, bf16 out): GPT-2's LM head (vocabulary 50,257, a prime) as the
    forward and both backward products run it, against 50,304 (a multiple of 64); and a 4096^3
    product with one dimension at a time made 4093 (prime), 4095 (odd), 4100 (a multiple of 4),
    4104 (of 8), 4112 (of 16), beside 4096 (of 64 and more). What a dimension's alignment
    costs (the kernels and vector loads it allows, the padding XLA adds) is read off the pairs."""
    tokens, width = (64, 32) if s else (8192, 1024)
    vocabs = (67, 128) if s else (GPT2_VOCAB, 50304)
    shapes = []  # (m, k, n)
    for v in vocabs:  # logits = x @ W; dx = dlogits @ W^T; dW = x^T @ dlogits
        shapes += [(tokens, width, v), (tokens, v, width), (width, tokens, v)]
    base = 64 if s else 4096
    for d in ((61, 63, 72, 80) if s else (4093, 4095, 4100, 4104, 4112)):
        shapes += [(d, base, base), (base, d, base), (base, base, d)]
    shapes.append((base, base, base))
    for dtype, name in ((BF16, "bf16"), (F8, "fp8")):
        for m, k, n in shapes:
            yield (f"gemm_{name}_m{m}_k{k}_n{n}",
                   lambda a, b: lax.dot(a, b, preferred_element_type=BF16),
                   (normal((m, k), dtype), normal((k, n), dtype, 1)))


UNALIGNED = [unaligned_gemms]

FAMILIES = [family_sort, family_topk, family_fft, family_gather_scatter, family_conv, family_misc, family_loops, family_decode]


def family_floor(s):
    yield "dispatch_floor_add_scalar", lambda x: x + 1, (normal(()),)


def named(fn, name):
    """jit names the module after the function: the profile's module is jit_<case>."""
    def case(*args):
        return fn(*args)
    case.__name__ = case.__qualname__ = name
    return case


def interleaved(small, families):
    gens = [f(small) for f in [family_floor] + families]
    for group in itertools.zip_longest(*gens):
        for case in group:
            if case is not None:
                name = case[0].replace("^3", "cube")
                yield name, named(case[1], name), case[2]


def column_reductions(s):
    """Sums over the middle axis of [D, R, K]: XLA's column reductions, whose launch gives few
    blocks when D is small (one block of 128 threads for each D when K divides 32, one of 1024
    for every 32 x vector columns otherwise, each thread looping over the rows). R up to 4096, as
    XLA splits longer ones; K across both emitters; D of 1 and 64; f32, and bf16 summed in f32;
    and the decode step's scaled maximum with its side output."""
    shapes = [(1, 64, 8), (1, 64, 1024)] if s else [
        (d, r, k) for d in (1, 64) for r in (512, 4096) for k in (8, 32, 128, 1024, 4096)]
    for d, r, k in shapes:
        for dtype, name in ((F32, "f32"), (BF16, "bf16")):
            yield (f"colsum_{name}_d{d}_r{r}_k{k}", lambda x: x.astype(F32).sum(axis=1),
                   (normal((d, r, k), dtype),))
    for d, r, k in ([(1, 64, 8)] if s else [(1, 4096, 32), (8, 4096, 32), (64, 4096, 8)]):
        yield (f"colmax_side_f32_d{d}_r{r}_k{k}",
               lambda x: (lambda y: (y.max(axis=1), y))(x * 0.088),
               (normal((d, r, k)),))


def host_gaps(s):
    """The host's gap before a computation's first cuDNN call (and a CUB sort's), on the host
    at hand: convolutions and sorts so small that the gap is most of their step."""
    for b, c in ([(1, 8)] if s else [(1, 8), (4, 32), (16, 64)]):
        yield (f"hostgap_conv3x3_b{b}_8x8x{c}", lambda x, w: conv(x, w, 1, 1),
               (normal((b, 8, 8, c), BF16), normal((3, 3, c, c), BF16, 4) * 0.05))
    for n in ([256] if s else [1024, 4096]):
        yield f"hostgap_sort_f32_{n}", jnp.sort, (normal((n,)),)


REDUCTIONS = [column_reductions, host_gaps]


def depthwise_filter_gradients(s):
    """The filter gradient alone of depthwise convolutions, each (batch, side, channels, filter):
    on a map no wider than its window XLA writes it as a forward convolution whose output batch
    is 1 (the filter), which cuDNN ran as one kernel of algorithm 0 in 1.03 ms on an H200 for
    ConvNeXt's last stage (64 x 7 x 7 x 768, 7x7), 55 times its expected time; on 14 x 14 maps
    it is a backward-filter call near its expected time. Channels, batch, side and filter are
    varied around that case."""
    shapes = [(2, 4, 16, 3)] if s else [
        (64, 7, 768, 7), (64, 7, 384, 7), (64, 7, 1536, 7), (16, 7, 768, 7), (256, 7, 768, 7),
        (64, 14, 384, 7), (64, 14, 768, 7), (64, 28, 192, 7), (64, 7, 768, 3), (64, 14, 576, 3)]
    for b, h, c, k in shapes:
        x = normal((b, h, h, c), BF16)
        w = normal((k, k, 1, c), BF16, 4) * 0.05
        yield (f"dwgrad_k{k}_g{c}_b{b}_{h}x{h}",
               (lambda c: jax.grad(lambda w, x: jnp.sum(conv(x, w, 1, c).astype(F32) ** 2)))(c),
               (w, x))


DEPTHWISE = [depthwise_filter_gradients]


def hbm_mixes(s):
    """Memory-bound kernels by their mix of reads and writes and by size: a scale (one read,
    one write), an add of two arrays (two reads, one write), a transpose and a row softmax in
    bf16 (one read, one write each), from 4 to 512 MiB written. The H200's kernels of 4-64 MB
    ran 1.23-1.25x their expected time where the H100's ran 0.94-0.97x and the H200's above
    256 MB 1.00x; the cache set's reads and fills hold the pure reads and writes."""
    for mb in ([1] if s else [4, 8, 16, 32, 64, 128, 256, 512]):
        n = mb << 18  # f32 elements in mb MiB
        side = 1 << (n.bit_length() - 1) // 2  # n = side x (n // side), both powers of two
        yield f"hbm_scale_f32_{mb}mib", lambda x: x * 1.5, (normal((n // 1024, 1024)),)
        yield (f"hbm_add_f32_{mb}mib", lambda x, y: x + y,
               (normal((n // 1024, 1024)), normal((n // 1024, 1024), F32, 1)))
        yield f"hbm_transpose_f32_{mb}mib", lambda x: x.T * 1.5, (normal((side, n // side)),)
        yield (f"hbm_softmax_bf16_{mb}mib", lambda x: jax.nn.softmax(x, axis=-1),
               (normal((2 * n // 8192, 8192), BF16),))


HBM = [hbm_mixes]


def host_lead(s):
    """A small loop of known trip count (two kernels a trip: the host launches them one by one)
    after a kernel that keeps the device busy: an add over 0 to 512 MiB, then 16 or 64 trips of
    a row write into a cache the loop carries. The decode set's cache writes, whose loops follow
    the copy of the cache into the loop, ran 1.10-1.72x their expected time, the longer the copy
    the more: the host may launch the loop's kernels while the device still runs the kernel
    before it. The set measures how much of the launches that hides."""
    for mb in ([1] if s else [0, 8, 32, 128, 512]):
        for trips in ([4] if s else [16, 64]):
            n = max(mb << 18, 1024)  # f32 elements in mb MiB
            def f(x, c, u, trips=trips):
                y = x * 1.5 + 1.0
                c = lax.fori_loop(0, trips, lambda i, c: lax.dynamic_update_slice(
                    c, (u * i.astype(u.dtype))[None], (i, 0)), c)
                return y, c
            yield (f"hostlead_add{mb}mib_x{trips}", f,
                   (normal((n // 1024, 1024)), normal((trips, 4096), BF16, 1),
                    normal((4096,), BF16, 2)))


HOSTLEAD = [host_lead]


def grouped_convs(s):
    """Grouped 3x3 convolutions of 192 features, forward and with both gradients, 4 to 96
    features a group. cuDNN ran the convolution set's 4 groups of 24 features (32 x 56 x 56 x
    96) one group at a time, each group's input sliced out and its output written back on four
    streams (12 kernels a call, 7x its expected time), and 4, 8 and 16 features a group as one
    grouped kernel: the set finds which widths it splits."""
    shapes = [(2, 8, 8, 32, 8)] if s else [(32, 28, 28, 192, w)
                                           for w in (4, 8, 12, 16, 24, 32, 48, 64, 96)]
    yield from conv_cases([(b, h, w_, c, c, 3, 1, c // width)
                           for b, h, w_, c, width in shapes])


GROUPED = [grouped_convs]


def launch_chains(s):
    """Chains of k elementwise kernels that XLA cannot fuse (an optimization barrier after
    each), k of 1 to 8, over 256 KiB (kernels of about a microsecond) and 64 MiB of f32 (tens of
    microseconds): fewer than 5 kernels get no command buffer, and the host launches each after
    the one before (the cache set's four-kernel programs began their kernels 8-17 us apart);
    the set measures the launch interval and where the command buffer begins."""
    for kib in ([1] if s else [256, 65536]):
        for k in ([2] if s else [1, 2, 3, 4, 5, 6, 8]):
            def f(x, k=k):
                for _ in range(k):
                    x = lax.optimization_barrier(x * 1.5 + 1.0)
                return x
            yield f"launches_k{k}_{kib}kib", f, (normal((kib * 256,)),)


LAUNCHES = [launch_chains]

SETS = {"sweep": FAMILIES, "heldout": HELDOUT, "cache": CACHE, "contention": CONTENTION,
        "decode": DECODE, "convs": CONVS, "unaligned": UNALIGNED, "reductions": REDUCTIONS,
        "depthwise": DEPTHWISE, "hbm": HBM, "hostlead": HOSTLEAD, "grouped": GROUPED,
        "launches": LAUNCHES}


def cases(which, small, dry_run=False, only=None):
    """The cases of set `which` as (name, function, arguments), interleaved by family; those whose
    name `only` (a regular expression) finds, if given. With `dry_run`, the arguments are their
    shapes (jax.ShapeDtypeStruct): all are traced in one pass and none computed, so a case at its
    full size costs no memory."""
    if dry_run:
        built = []

        def build():
            built.extend(interleaved(small, SETS[which]))
            return [case[2] for case in built]
        shapes = jax.eval_shape(build)
        made = [(name, fn, args) for (name, fn, _), args in zip(built, shapes)]
    else:
        made = interleaved(small, SETS[which])
    for name, fn, args in made:
        if only is None or re.search(only, name):
            yield name, fn, args


def write_json(path, value):
    write_output(path, json.dumps(value, indent=1) + "\n")


def compile_case(fn, args, folder):
    """Lowers and compiles one case; writes its optimized HLO (module.hlo) and XLA's analyses
    (memory.json, cost.json). Returns the executable and its compile time in seconds."""
    t0 = time.perf_counter()
    compiled = jax.jit(fn).lower(*args).compile()
    compile_s = time.perf_counter() - t0
    write_output(os.path.join(folder, "module.hlo"), compiled.as_text())
    ma = compiled.memory_analysis()
    write_json(os.path.join(folder, "memory.json"),
               {k: getattr(ma, k) for k in dir(ma) if k.endswith("_in_bytes")} if ma else {})
    ca = compiled.cost_analysis()
    ca = ca[0] if isinstance(ca, list) else ca
    write_json(os.path.join(folder, "cost.json"), {k: float(v) for k, v in (ca or {}).items()})
    return compiled, compile_s


def gpu_details():
    """nvidia-smi's name, driver, memory, maximum SM clock and power limit of each GPU, units
    included; an empty list where nvidia-smi is missing or fails."""
    fields = ("name", "driver_version", "memory.total", "clocks.max.sm", "power.limit")
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=" + ",".join(fields),
                              "--format=csv,noheader"], capture_output=True, text=True,
                             timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [dict(zip([f.replace(".", "_") for f in fields], (v.strip() for v in line.split(","))))
            for line in out.splitlines() if line.strip()]


def provenance(a, device, command):
    """What made the results: the command, the software, the device and its settings."""
    now = datetime.datetime.now(datetime.timezone.utc)
    with open(__file__, "rb") as source:
        script = hashlib.sha256(source.read())
    return {"set": a.set, "small": a.small, "dry_run": a.dry_run, "cases": a.cases,
            "budget_s": a.budget, "target_s": a.target_s, "command": command,
            "started_utc": now.isoformat(timespec="seconds"), "script_sha256": script.hexdigest(),
            "jax": jax.__version__, "jaxlib": jaxlib.__version__, "backend": device.platform,
            "platform_version": getattr(getattr(device, "client", None), "platform_version", ""),
            "device": device.device_kind,
            "device_count": len(jax.devices(device.platform)),
            "xla_flags": os.environ.get("XLA_FLAGS", ""), "gpus": gpu_details()}


def call_s(compiled, args):
    """Host wall time of one call, until its results are ready, in seconds."""
    t = time.perf_counter()
    jax.block_until_ready(compiled(*args))
    return time.perf_counter() - t


def main(argv=None):
    ap = argparse.ArgumentParser(description="Measures op families on a GPU (see the docstring).")
    ap.add_argument("outdir"); ap.add_argument("--small", action="store_true")
    ap.add_argument("--set", choices=tuple(SETS), default="sweep")
    ap.add_argument("--budget", type=float, default=300, help="seconds; later cases are skipped")
    ap.add_argument("--target_s", type=float, default=0.25, help="seconds of timed calls a case")
    ap.add_argument("--cases", metavar="REGEX", help="only the cases whose name this finds")
    ap.add_argument("--dry-run", action="store_true",
                    help="build, lower and compile every case on the CPU; run and time none")
    a = ap.parse_args(argv)
    try:
        re.compile(a.cases or "")
    except re.error as e:
        ap.error(f"--cases {a.cases!r} is not a regular expression: {e}")
    if a.dry_run:
        jax.config.update("jax_platforms", "cpu")
    device = jax.devices("cpu" if a.dry_run else None)[0]
    os.makedirs(a.outdir, exist_ok=True)
    start = time.time(); done = []; summary = {}
    print("devices:", jax.devices(device.platform), "jax", jax.__version__, flush=True)
    command = sys.argv if argv is None else [__file__, *argv]
    write_json(os.path.join(a.outdir, "provenance.json"), provenance(a, device, command))
    with jax.default_device(device):
        for name, fn, args in cases(a.set, a.small, a.dry_run, a.cases):
            if time.time() - start > a.budget:
                summary[name] = {"skipped": "budget"}; continue
            d = os.path.join(a.outdir, name)
            try:
                os.makedirs(d, exist_ok=True)
                if a.dry_run:
                    compiled, cs = compile_case(fn, args, d)
                    summary[name] = {"dry_run": True, "compile_s": cs,
                                     "device": device.device_kind}
                    done.append((name, compiled, args))
                    print(f"{name}: compiled in {cs:.1f} s", flush=True)
                    continue
                args = jax.device_put(args)
                compiled, cs = compile_case(fn, args, d)
                jax.block_until_ready(compiled(*args))
                one = call_s(compiled, args)
                reps = max(5, min(200, int(a.target_s / max(one, 1e-6))))
                ts = [call_s(compiled, args) for _ in range(reps)]
                timing = {"median_s": statistics.median(ts), "min_s": min(ts), "max_s": max(ts),
                          "reps": reps, "compile_s": cs, "device": device.device_kind,
                          "jax": jax.__version__, "jaxlib": jaxlib.__version__}
                write_json(os.path.join(d, "timings.json"), timing)
                summary[name] = timing; done.append((name, compiled, args))
                print(f"{name}: {timing['median_s'] * 1e6:.1f} us (reps {reps}, "
                      f"compile {cs:.1f} s)", flush=True)
            except Exception as e:
                summary[name] = {"error": repr(e)[:400]}; shutil.rmtree(d, ignore_errors=True)
                print(f"{name}: FAILED {e!r}"[:300], flush=True)
    if not a.dry_run:
        profile_sweep(a.outdir, done)
    write_json(os.path.join(a.outdir, "summary.json"), summary)
    # The folder in one archive beside it, named after it: OUTDIR.tar.gz.
    folder = os.path.normpath(a.outdir)
    with tarfile.open(folder + ".tar.gz", "w:gz") as t:
        t.add(folder, arcname=os.path.basename(folder))
    print("cases", "compiled" if a.dry_run else "measured", len(done), "of", len(summary), "in",
          round(time.time() - start), "s")
    return 1 if any("error" in v for v in summary.values()) else 0


def profile_sweep(outdir, done):
    """One profile of the whole sweep, each case run three times: sweep.xplane.pb.gz."""
    pdir = os.path.join(outdir, "_trace")
    try:
        with jax.profiler.trace(pdir):
            for name, compiled, args in done:
                for _ in range(3):
                    jax.block_until_ready(compiled(*args))
        for p in glob.glob(os.path.join(pdir, "**", "*.xplane.pb"), recursive=True):
            with open(p, "rb") as profile:
                write_output(os.path.join(outdir, "sweep.xplane.pb.gz"),
                             gzip.compress(profile.read()))
    except Exception as e:
        print("profile failed:", repr(e)[:300])
    shutil.rmtree(pdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
