#!/usr/bin/env python3
"""Published TPU training recipes compiled offline for their slice, predicted, and compared.

    PYTHONPATH=build/python $(tools/venv.sh) bench/tpu_recipes.py [--json OUT]
        [--keep DIR [--export DIR] | --kept DIR] [--show JSON] [--recipes-json MORE]
        [--workers N] [--ray ADDRESS] [RECIPE ...]

Each recipe (RECIPES below) is a train step whose measured step time is published: by
AI-Hypercomputer/tpu-recipes (the log line `completed step: N, seconds: S, TFLOP/s/device: F`)
or by MaxText's own guide to its logs. MaxText itself needs Python 3.12; here the recipe's model
is rebuilt in plain JAX with the recipe's shapes, batch, sequence, sharding, scan, remat and
attention kernel (bench/recipe_models.py). Every row says how its program differs from
MaxText's.

The recipes are one sweep (hloroof.sweep): each step is compiled for the recipe's slice by
libtpu without a TPU (hloroof.jax.compile_for, with the recipe's XLA flags that this program
takes), one recipe per process, its optimized program predicted on that slice and its memory
analysed beside XLA's own `memory_analysis()`. A recipe is published per chip; where a chip is
two JAX devices (TPU7x), the mesh spans the devices and each takes half a chip's batch. Prints
one row per recipe: chips, the published step and its source's MFU (TFLOP/s per device over a
device's bf16 peak), the expected and roofline step and their MFU for the same model FLOPs, XLA's
temporaries beside ours, and the compile time. Never shrinks a model: a recipe that does not
compile here says why. The store (--keep) names each recipe's latest program in
DIR/by-recipe/NAME; `--kept DIR` predicts those programs again, compiling nothing, whatever
the code or the recipe's fields now are (another build's figures on the same programs).
`--export DIR` copies the programs kept by --keep into DIR/by-recipe/NAME gzipped, with their
provenance: the repository keeps them in bench/measured/tpu_programs, which `--kept` reads."""
import argparse
import gzip
import json
import os
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# The models, as the recipes' MaxText configs give them (src/maxtext/configs/models/*.yml).
LLAMA3_1_8B = dict(model="dense", layers=32, width=4096, ffn=14336, heads=32, kv_heads=8,
                   head_dim=128, vocab=128256)
LLAMA3_1_70B = dict(LLAMA3_1_8B, layers=80, width=8192, ffn=28672, heads=64)
LLAMA3_1_405B = dict(LLAMA3_1_8B, layers=126, width=16384, ffn=53248, heads=128)
MISTRAL_7B = dict(LLAMA3_1_8B, vocab=32000)
DEEPSEEK2_16B = dict(model="deepseek", layers=27, dense_layers=1, width=2048, ffn=10944,
                     heads=16, qk_nope_dim=128, qk_rope_dim=64, v_dim=128, kv_lora_rank=512,
                     experts=64, experts_per_token=6, shared_experts=2, moe_ffn=1408,
                     vocab=102400)
# GPT-OSS-120B (gpt-oss-120b.yml): 36 layers alternating a sliding window of 128 and global
# attention, biased projections, 128 experts of which 4 a token, each a GLU of 2880, GPT-OSS's
# clamped activation, biased router and experts.
GPT_OSS_120B = dict(model="moe", layers=36, width=2880, heads=64, kv_heads=8, head_dim=64,
                    vocab=201088, experts=128, experts_per_token=4, moe_ffn=2880,
                    attention_pattern=("local", "global"), window=128, attention_bias=True,
                    router_bias=True, mlp_bias=True, activation="gpt_oss", norm_eps=1e-5)
# Qwen3-235B-A22B (qwen3-235b-a22b.yml): 94 layers, q and k normalized per head, 128 experts of
# which 8 a token, each a SwiGLU of 1536.
QWEN3_235B = dict(model="moe", layers=94, width=4096, heads=64, kv_heads=4, head_dim=128,
                  vocab=151936, experts=128, experts_per_token=8, moe_ffn=1536, qk_norm=True,
                  activation="silu", norm_eps=1e-6)
# Gemma 4's (gemma4-31b.yml, gemma4-26b.yml): cycles of five sliding-window layers (1024) and
# one global layer whose heads are 512 wide, fewer kv heads, keys that are its values'
# projection; GeGLU; q, k and v normalized; tied embedding, final logits soft-capped at 30.
GEMMA4 = dict(model="moe", head_dim=256, global_head_dim=512, share_kv=True, vocab=262144,
              attention_pattern=("local",) * 5 + ("global",), window=1024, qk_norm=True,
              gemma4=True, activation="gelu", tied_embedding=True, logit_soft_cap=30.0,
              norm_eps=1e-6)
GEMMA4_31B = dict(GEMMA4, layers=60, width=5376, heads=32, kv_heads=16, global_kv_heads=4,
                  ffn=21504, experts=0)
# The 26B: 128 experts of 704, 8 a token (softmax over all, the top 8 renormalized), beside a
# shared expert of 2112.
GEMMA4_26B = dict(GEMMA4, layers=30, width=2816, heads=16, kv_heads=8, global_kv_heads=2,
                  ffn=2112, experts=128, experts_per_token=8, moe_ffn=704,
                  routing="softmax_top_k")
# DeepSeek-V3 (deepseek3-671b.yml): DeepSeek-V2's decoder with queries through a rank-1536
# projection, 3 dense layers then 58 of 256 experts (8 a token by sigmoid scores, a bias that
# only chooses, the chosen scores normalized and scaled by 2.5) beside one shared expert.
DEEPSEEK3_671B = dict(DEEPSEEK2_16B, layers=61, dense_layers=3, width=7168, ffn=18432,
                      heads=128, q_lora_rank=1536, experts=256, experts_per_token=8,
                      shared_experts=1, moe_ffn=2048, vocab=129280,
                      routed_score_func="sigmoid", router_bias=True, routed_scaling=2.5)
# Gemma 4's small decoders (gemma4-e2b.yml, gemma4-e4b.yml): sliding windows of 512 between
# global layers, the last layers sharing the keys and values of earlier ones, a per-layer
# input of 256 a layer.
GEMMA4_E2B = dict(model="gemma4_small", layers=35, width=1536, heads=8, kv_heads=1,
                  head_dim=256, global_head_dim=512, ffn=6144, vocab=262144, window=512,
                  attention_pattern=("local",) * 4 + ("global",), ple_dim=256,
                  kv_shared_layers=20, double_wide_mlp=True, norm_eps=1e-6,
                  logit_soft_cap=30.0)
GEMMA4_E4B = dict(GEMMA4_E2B, layers=42, width=2560, kv_heads=2, ffn=10240,
                  attention_pattern=("local",) * 5 + ("global",), kv_shared_layers=18,
                  double_wide_mlp=False)
TRILLIUM = "AI-Hypercomputer/tpu-recipes training/trillium/"
IRONWOOD = "AI-Hypercomputer/tpu-recipes training/ironwood/"
MODELS = {"llama3.1-8b": LLAMA3_1_8B, "llama3.1-70b": LLAMA3_1_70B,
          "llama3.1-405b": LLAMA3_1_405B, "mistral-7b": MISTRAL_7B,
          "deepseek2-16b": DEEPSEEK2_16B, "gpt-oss-120b": GPT_OSS_120B,
          "qwen3-235b-a22b": QWEN3_235B, "gemma4-31b": GEMMA4_31B, "gemma4-26b": GEMMA4_26B,
          "deepseek3-671b": DEEPSEEK3_671B, "gemma4-e2b": GEMMA4_E2B,
          "gemma4-e4b": GEMMA4_E4B}

# Two of the dense recipes' XLA flags (MaxText's xla_flags_library): DENSE_VMEM_LIMIT_FLAG (the
# splash kernel's backward needs more scoped VMEM than the default) and DISABLE_COLLECTIVE_MATMUL
# (no windowed einsums: without it XLA splits each sharded matmul into a loop over the slice,
# which reads the activations once per chip).
DENSE_FLAGS = ("--xla_tpu_scoped_vmem_limit_kib=98304 "
               "--xla_jf_spmd_threshold_for_windowed_einsum_mib=1000000")
DENSE_DIFFERS = ("SGD (MaxText AdamW), no rotary embedding, projections recomputed (MaxText "
                 "offloads them), kv heads repeated for splash, two of the recipe's XLA flags "
                 "(scoped VMEM, no collective matmul)")
# The rest of the Llama3.1-70B v6e recipes' flag groups, as the libtpu here takes them:
# LAYOUT_FOR_ALL_REDUCE_SCATTER, DATA_PARALLEL_OVERLAP, CF_FOR_ALL_GATHER less its all-gather
# continuation fusion (this libtpu refuses it on v6e: "not supported/recommended on platforms
# other than TPU v5e") and HOST_OFFLOAD_FLAGS (the latency-hiding scheduler's settings).
OVERLAP_FLAGS = ("--xla_tpu_use_minor_sharding_for_major_trivial_input=true "
                 "--xla_tpu_relayout_group_size_threshold_for_reduce_scatter=1 "
                 "--xla_tpu_assign_all_reduce_scatter_layout=true "
                 "--xla_tpu_enable_data_parallel_all_reduce_opt=true "
                 "--xla_tpu_data_parallel_opt_different_sized_ops=true "
                 "--xla_tpu_enable_async_collective_fusion=true "
                 "--xla_tpu_enable_async_collective_fusion_multiple_steps=true "
                 "--xla_tpu_overlap_compute_collective_tc=true "
                 "--xla_enable_async_all_gather=true "
                 "--xla_tpu_enable_all_experimental_scheduler_features=true "
                 "--xla_tpu_enable_scheduler_memory_pressure_tracking=true "
                 "--xla_tpu_host_transfer_overlap_limit=24 "
                 "--xla_tpu_aggressive_opt_barrier_removal=ENABLED "
                 "--xla_lhs_prioritize_async_depth_over_stall=ENABLED "
                 "--xla_tpu_enable_ag_backward_pipelining=true "
                 "--xla_should_allow_loop_variant_parameter_in_chain=ENABLED "
                 "--xla_should_add_loop_invariant_op_in_chain=ENABLED "
                 "--xla_max_concurrent_host_send_recv=100 "
                 "--xla_tpu_scheduler_percent_shared_memory_limit=100 "
                 "--xla_latency_hiding_scheduler_rerun=2")
OVERLAP_DIFFERS = ("SGD (MaxText AdamW), no rotary embedding, projections recomputed (MaxText "
                   "offloads them), kv heads repeated for splash, the recipe's XLA flags but "
                   "the all-gather continuation fusion (refused on v6e by this libtpu)")
# The TPU7x dense recipes' MaxText overrides, as Llama3.1-70B's gives them (the 405B's remat and
# splash blocks differ: its row below): remat_policy=custom keeping each layer's input, the q, k
# and v projections and the attention's output on the device; the splash blocks (sa_block_*);
# the scoped VMEM of their XLA flags.
IRONWOOD_DENSE = dict(
    remat=dict.fromkeys(("decoder_layer_input", "query_proj", "key_proj", "value_proj",
                         "context"), "device"),
    splash_blocks=dict(block_q=2048, block_kv=1024, block_kv_compute=512, block_q_dkv=2048,
                       block_kv_dkv=2048, block_kv_dkv_compute=256),
    flags=("--xla_tpu_scoped_vmem_limit_kib=65536 "
           "--xla_jf_spmd_threshold_for_windowed_einsum_mib=1000000"),
    differs=("SGD (MaxText AdamW, bf16 moments), no rotary embedding, kv heads repeated for "
             "splash, one of the recipe's XLA flags (scoped VMEM; not its SparseCore "
             "collective offload), no collective matmul"))
# Llama3.1-405B's (llama3.1-405b/8k-bf16-tpu7x-4x8x8/run_recipe.sh): each layer's input and the
# MLP's output offloaded to the host, k and v kept on the device, the rest recomputed; splash
# blocks of its own; MaxText's loss in 4 vocabulary tiles (num_vocab_tiling), here in one.
IRONWOOD_405B = dict(
    IRONWOOD_DENSE,
    remat=dict(decoder_layer_input="offload", mlpwo="offload", key_proj="device",
               value_proj="device"),
    splash_blocks=dict(block_q=2048, block_kv=2048, block_kv_compute=1024, block_q_dkv=2048,
                       block_kv_dkv=2048, block_kv_dkv_compute=512),
    differs=IRONWOOD_DENSE["differs"] + ", the loss over the whole vocabulary at once "
    "(MaxText: 4 tiles)")
# The Llama3.1 fp8_full recipes: quantization=fp8_full by qwix with the fixed calibration
# 'fixed,-224,224' of activations and weights.
QWIX_FP8_DIFFERS = (", fp8 matrix products of the decoder layers, activations and weights "
                    "scaled by the fixed range [-224, 224], gradients by their absolute maximum "
                    "(qwix: its own gradient calibration), the output layer in bf16")
# Llama3.1-70B's (llama3.1-70b/8k-fp8-tpu7x-*/run_recipe.sh): the bf16 recipe's remat, splash
# blocks of its own, scoped VMEM 61440 KiB.
IRONWOOD_70B_FP8 = dict(
    IRONWOOD_DENSE, quantization="fp8_full", fp8_range=224,
    splash_blocks=dict(block_q=1024, block_kv=1024, block_kv_compute=512, block_q_dkv=2048,
                       block_kv_dkv=2048, block_kv_dkv_compute=256),
    flags=("--xla_tpu_scoped_vmem_limit_kib=61440 "
           "--xla_jf_spmd_threshold_for_windowed_einsum_mib=1000000"),
    differs=IRONWOOD_DENSE["differs"] + QWIX_FP8_DIFFERS)
# Llama3.1-405B's (llama3.1-405b/8k-fp8-tpu7x-4x8x8/run_recipe.sh): each layer's input
# offloaded, the rest recomputed; splash blocks of its own.
IRONWOOD_405B_FP8 = dict(
    IRONWOOD_405B, quantization="fp8_full", fp8_range=224,
    remat=dict(decoder_layer_input="offload"),
    splash_blocks=dict(block_q=1024, block_kv=2048, block_kv_compute=256, block_q_dkv=2048,
                       block_kv_dkv=2048, block_kv_dkv_compute=1024),
    differs=IRONWOOD_405B["differs"] + QWIX_FP8_DIFFERS)
# Llama3.1-70B at 131072 tokens (llama3.1-70b/128k-{bf16,fp8}-tpu7x-4x8x8/run_recipe.sh):
# context parallelism 8 (ici_context_parallelism; MaxText's all-gather strategy, its
# load-balanced order) inside FSDP 64, one sequence to 8 devices; the MLP's output kept too;
# the loss in 4 vocabulary tiles (num_vocab_tiling).
IRONWOOD_128K = dict(
    IRONWOOD_DENSE, context_parallel=8, vocab_tiles=4,
    remat=dict.fromkeys(("decoder_layer_input", "context", "query_proj", "key_proj",
                         "value_proj", "mlpwo"), "device"),
    splash_blocks=dict(block_q=2048, block_kv=2048, block_kv_compute=512, block_q_dkv=1024,
                       block_kv_dkv=4096, block_kv_dkv_compute=256),
    differs=("SGD (MaxText: adam_pax), no rotary embedding, kv heads repeated for splash, "
             "jax's splash kernel (MaxText: tokamax's, its max-logit estimate), the loss's 4 "
             "vocabulary tiles over strided positions, one of the recipe's XLA flags (scoped "
             "VMEM; not its SparseCore collective offload), no collective matmul"))
# Llama3.1-405B on two v6e-256 slices joined by DCN (training/trillium/Llama3-405B-MaxText:
# MaxText's benchmark config llama3_1_405b_8192_fsdp_dcn): each layer's input and the q, k, v
# and output projections offloaded to the host, the rest recomputed; splash blocks q 1024,
# q_dkv 2048 and MaxText's 512 for the others; the FSDP axis spans both slices
# (dcn_fsdp_parallelism 2), so every weight all-gather and gradient reduce-scatter crosses DCN;
# in a slice FSDP 64 x tensor parallelism 4 (ici_fsdp_parallelism, ici_tensor_parallelism).
MULTISLICE_405B = dict(
    remat=dict.fromkeys(("decoder_layer_input", "query_proj", "key_proj", "value_proj",
                         "out_proj"), "offload"),
    splash_blocks=dict(block_q=1024, block_kv=512, block_kv_compute=512, block_q_dkv=2048,
                       block_kv_dkv=512, block_kv_dkv_compute=512),
    tensor_parallel=4,
    flags=DENSE_FLAGS,
    differs=("SGD (MaxText AdamW), no rotary embedding, kv heads repeated for splash, the "
             "tensor axis on 4 devices in device order (MaxText: its hybrid_ring_64x4 mesh), "
             "norm weights over FSDP (MaxText: over the tensor axis), the fused splash "
             "backward (MaxText: a separate dq kernel), two of the recipe's XLA flags (scoped "
             "VMEM; no collective matmul; not its host-offload scheduler flags)"))
# GPT-OSS-120B's recipes (gpt-oss-120b/8k-bf16-tpu7x-*/cluster_toolkit/run_recipe.sh): the
# experts' axis over FSDP (shard_exp_on_fsdp), each layer's input and the experts' output
# projection offloaded to the host, the rest recomputed, splash blocks of their own with q, k
# and v laid out sequence-minor (sa_*_layout=SEQ_MINOR), the grouped matmuls' tiles of each
# pass, FSDP 64 x data parallelism over the rest; every XLA flag of the recipe (this libtpu
# takes them all: the SparseCore collective offloads, the schedulers') and, as the dense TPU7x
# rows, no collective matmul. Routing: the 64-chip recipe routes by the router
# (use_random_routing=False), the 256-chip one at random.
GPT_OSS_RECIPE = dict(
    shard_experts=True,
    remat=dict(decoder_layer_input="offload", mlpwo="offload"),
    splash_blocks=dict(block_q=1024, block_kv=1024, block_kv_compute=1024, block_q_dkv=2048,
                       block_kv_dkv=2048, block_kv_dkv_compute=2048),
    # jax's splash holds a sliding window's partial-mask blocks as int32 in VMEM, 16 MiB a
    # 2048 x 2048 block double-buffered: with the recipe's blocks the backward kernel of the
    # sliding layers needs 71.8 MiB of TPU7x's 64 (XLA refused it). Their key blocks are halved.
    local_splash_blocks=dict(block_q=1024, block_kv=1024, block_kv_compute=1024,
                             block_q_dkv=2048, block_kv_dkv=1024, block_kv_dkv_compute=1024),
    # The grouped matmuls' tiles of each pass (wi_tile_* and wo_tile_*: by role the same for
    # both), (rows, contracted, output): 256 x 2880 x 2944 forward and for the input
    # gradient, 512 x 2880 x 1536 for the weights' gradient.
    splash_layout="seq_minor",
    gmm_pass_tiles=dict(fwd=(256, 2880, 2944), dlhs=(256, 2880, 2944), drhs=(512, 2880, 1536)),
    flags=" ".join((
        "--xla_tpu_scoped_vmem_limit_kib=65536",
        "--xla_tpu_bf16_emission_mode=NATIVE_EMISSION",
        "--xla_tpu_enable_sparse_core_reduce_scatter_v2=true",
        "--xla_tpu_enable_sparse_core_collective_offload_all_gather=true",
        "--xla_tpu_enable_sparse_core_collective_offload_2d_all_gather=true",
        "--xla_tpu_enable_all_gather_offload_tracing=true",
        "--xla_tpu_use_tc_device_shape_on_sc=True",
        "--xla_sc_disable_megacore_partitioning=True",
        "--xla_tpu_enable_async_collective_fusion_fuse_all_gather=false",
        "--xla_enable_async_all_gather=true",
        "--xla_tpu_prefer_async_allgather_to_allreduce=true",
        "--xla_tpu_enable_sparse_core_collective_offload_all_reduce=true",
        "--xla_tpu_enable_sparse_core_collective_offload_reduce_scatter=true",
        "--xla_tpu_enable_sparse_core_collective_offload_3d_all_gather=true",
        "--xla_tpu_use_single_sparse_core_for_all_gather_offload=true",
        "--xla_tpu_enable_concurrent_sparse_core_offloading=true",
        "--xla_max_concurrent_async_all_gathers=2",
        "--xla_max_concurrent_async_reduce_scatters=2",
        "--xla_tpu_aggressive_opt_barrier_removal=true",
        "--xla_tpu_enable_offloading_gather_to_sparsecore=true",
        "--xla_tpu_sparse_core_all_gather_latency_multiplier=1",
        "--xla_tpu_sparse_core_reduce_scatter_latency_multiplier=3",
        "--xla_tpu_enable_sparse_core_collective_aggregator=true",
        "--xla_tpu_enable_latency_hiding_layer_scheduler=false",
        "--xla_tpu_rerun_latency_hiding_scheduler_post_sc_assignment=true",
        "--xla_tpu_enable_offloading_copy_to_sparsecore=false",
        "--xla_tpu_scheduler_percent_shared_memory_limit=150",
        "--xla_tpu_enable_layer_scheduler_for_dependent_collectives=true",
        "--xla_tpu_enable_sparse_core_collective_offload_nd_reduce_scatter=true",
        "--xla_tpu_pcie_bandwidth_multiplier=0.03",
        "--xla_tpu_enable_multi_compute_overlap_in_layer_scheduler=true",
        "--xla_jf_spmd_threshold_for_windowed_einsum_mib=1000000")),
    differs=("AdamW without bias correction, no rotary embedding (YaRN), no attention sinks, "
             "kv heads repeated for splash, jax's megablox and splash kernels (MaxText: "
             "tokamax's), the sliding layers' backward key blocks 1024 (MaxText: 2048; jax's "
             "splash runs out of VMEM with them), routing by argsort and scatter (MaxText: a "
             "custom sort gradient), the recipe's XLA flags and no collective matmul"))
# Qwen3-235B-A22B's (qwen3-235b-a22b/4k-bf16-tpu7x-4x8x8/xpk/run_recipe.sh): random routing,
# the experts' embedding axis over FSDP (shard_exp_on_fsdp=False), FSDP over every device, each
# layer's input offloaded, the rest recomputed; splash blocks of its own; every XLA flag of the
# recipe and no collective matmul.
QWEN3_RECIPE = dict(
    routing="random",
    remat=dict(decoder_layer_input="offload"),
    splash_blocks=dict(block_q=1024, block_kv=1024, block_kv_compute=512, block_q_dkv=2048,
                       block_kv_dkv=2048, block_kv_dkv_compute=1024),
    flags=" ".join((
        "--xla_tpu_scoped_vmem_limit_kib=61440",
        "--xla_tpu_enable_sparse_core_collective_offload_all_gather=true",
        "--xla_tpu_enable_sparse_core_collective_offload_all_reduce=true",
        "--xla_tpu_use_single_sparse_core_for_all_gather_offload=true",
        "--xla_tpu_enable_all_experimental_scheduler_features=true",
        "--xla_tpu_enable_scheduler_memory_pressure_tracking=true",
        "--xla_tpu_host_transfer_overlap_limit=24",
        "--xla_tpu_aggressive_opt_barrier_removal=ENABLED",
        "--xla_lhs_prioritize_async_depth_over_stall=ENABLED",
        "--xla_tpu_enable_ag_backward_pipelining=true",
        "--xla_should_allow_loop_variant_parameter_in_chain=ENABLED",
        "--xla_should_add_loop_invariant_op_in_chain=ENABLED",
        "--xla_max_concurrent_host_send_recv=100",
        "--xla_tpu_scheduler_percent_shared_memory_limit=100",
        "--xla_latency_hiding_scheduler_rerun=2",
        "--xla_jf_spmd_threshold_for_windowed_einsum_mib=1000000")),
    differs=("AdamW without bias correction, no rotary embedding, no load-balance loss, kv "
             "heads repeated for splash, jax's megablox and splash kernels (MaxText: tokamax's "
             "grouped matmul and splash), routing by argsort and scatter (MaxText: a custom "
             "sort gradient), the recipe's XLA flags and no collective matmul"))
# Its fp8_full recipe (qwen3-235b-a22b/4k-fp8-tpu7x-4x8x8/cluster_toolkit/run_recipe.sh): the
# bf16 recipe's flags, remat and splash blocks, qwix's fp8 with the fixed range [-224, 224] for
# weights and activations, tokamax's grouped matmul with the tiles of each weight and pass.
# The recipe's wi_tile_* and wo_tile_* are read in their order, (batch_seq, embed_dim,
# mlp_dim) as (m, k, n), as MaxText's moe.py hands them to the kernel: so read, every tile
# divides its dimension (the width 4096, the experts' 1536); MaxText's later reading by role
# would cut the width in tiles of 1536.
QWEN3_FP8_RECIPE = dict(
    QWEN3_RECIPE, quantization="fp8_full", fp8_range=224,
    gmm_weight_tiles=dict(
        wi=dict(fwd=(512, 4096, 1536), dlhs=(512, 1536, 4096), drhs=(1024, 1024, 1536)),
        wo=dict(fwd=(512, 1536, 4096), dlhs=(512, 4096, 1536), drhs=(512, 768, 4096))),
    differs=("AdamW without bias correction, no rotary embedding, no load-balance loss, kv "
             "heads repeated for splash, jax's splash kernel (MaxText: tokamax's), tokamax's "
             "grouped matmul on qwix's fp8 arrays in our own gradient (MaxText: qwix's "
             "quantized training), routing by argsort and scatter (MaxText: a custom sort "
             "gradient), fp8 products of the decoder layers, gradients by their absolute "
             "maximum, the router and the output layer in bf16, the recipe's XLA flags and no "
             "collective matmul"))
# The Gemma 4 recipes' XLA flags (gemma4-*/xpk/run_recipe.sh: the same 19 in each).
GEMMA4_FLAGS = " ".join((
    "--xla_tpu_scoped_vmem_limit_kib=65536",
    "--xla_tpu_bf16_emission_mode=NATIVE_EMISSION",
    "--xla_tpu_enable_sparse_core_reduce_scatter_v2=true",
    "--xla_tpu_enable_sparse_core_collective_offload_all_gather=true",
    "--xla_tpu_enable_sparse_core_collective_offload_2d_all_gather=true",
    "--xla_tpu_enable_sparse_core_collective_offload_3d_all_gather=true",
    "--xla_tpu_enable_sparse_core_collective_offload_nd_reduce_scatter=true",
    "--xla_tpu_enable_sparse_core_collective_offload_all_reduce=true",
    "--xla_tpu_enable_sparse_core_collective_offload_reduce_scatter=true",
    "--xla_tpu_use_single_sparse_core_for_all_gather_offload=true",
    "--xla_tpu_use_tc_device_shape_on_sc=true",
    "--xla_sc_disable_megacore_partitioning=true",
    "--xla_enable_async_all_gather=true",
    "--xla_tpu_prefer_async_allgather_to_allreduce=true",
    "--xla_tpu_enable_latency_hiding_layer_scheduler=true",
    "--xla_tpu_enable_layer_scheduler_for_dependent_collectives=true",
    "--xla_tpu_scheduler_percent_shared_memory_limit=150",
    "--xla_tpu_enable_sparse_core_collective_aggregator=true",
    "--xla_tpu_enable_all_gather_offload_tracing=true",
    "--xla_jf_spmd_threshold_for_windowed_einsum_mib=1000000"))
GEMMA4_DIFFERS = ("AdamW without bias correction, no rotary embedding, kv heads repeated for "
                  "splash, jax's splash kernel (MaxText: tokamax's), the recipe's XLA flags "
                  "and no collective matmul")
# Gemma4-31B's (gemma4-31b/8k-bf16-tpu7x-4x4x4): the attention's and the MLP's output
# projections kept on the device, the rest recomputed; splash blocks of its own for the
# global and the sliding layers; the embedding looked up as a one-hot product
# (use_iota_embed).
GEMMA4_31B_RECIPE = dict(
    remat=dict(out_proj="device", mlpwo="device"), iota_embed=True, vocab_tiles=8,
    splash_blocks=dict(block_q=2048, block_kv=2048, block_kv_compute=512, block_q_dkv=1024,
                       block_kv_dkv=2048, block_kv_dkv_compute=1024),
    local_splash_blocks=dict(block_q=1024, block_kv=1024, block_kv_compute=512,
                             block_q_dkv=1024, block_kv_dkv=2048, block_kv_dkv_compute=1024),
    flags=GEMMA4_FLAGS,
    differs=GEMMA4_DIFFERS + ", FSDP over all 128 devices in one axis (MaxText: FSDP 16 x "
    "FSDP-transpose 8, two-stage all-gathers)")
# Gemma4-26B's (gemma4-26b/4k-bf16-tpu7x-*): every layer recomputed (remat full, or custom
# with nothing named), the grouped matmuls' tiles 2816 x 704, splash blocks of its own.
GEMMA4_26B_RECIPE = dict(
    remat={}, iota_embed=True, gmm_tiling=dict(embed=2816, mlp=704),
    splash_blocks=dict(block_q=1024, block_kv=1024, block_kv_compute=512, block_q_dkv=1024,
                       block_kv_dkv=1024, block_kv_dkv_compute=256),
    flags=GEMMA4_FLAGS,
    differs=GEMMA4_DIFFERS + ", jax's megablox (MaxText's too), routing by argsort and "
    "scatter (MaxText: a custom sort gradient), no load-balance loss")


def changed_flags(flags, drop=(), add=()):
    """Another recipe's XLA flags (one string) less `drop`, then `add`: one string."""
    missing = sorted(set(drop) - set(flags.split()))
    if missing:
        raise ValueError(f"flags to drop that are not there: {missing}")
    return " ".join([f for f in flags.split() if f not in drop] + list(add))


# DeepSeek-V3's (deepseek3-671b/4k-bf16-tpu7x-*/xpk/run_recipe.sh): random routing, AdamW's
# first moment and the gradients in bf16, each layer's input offloaded, the rest recomputed,
# every splash block 2048 but kv_compute (MaxText's 512), the embedding as a one-hot product;
# every XLA flag of the recipe and no collective matmul.
DEEPSEEK3_RECIPE = dict(
    routing="random", mu_dtype="bfloat16", grad_dtype="bfloat16", iota_embed=True,
    remat=dict(decoder_layer_input="offload"),
    splash_blocks=dict(block_q=2048, block_kv=2048, block_kv_compute=512, block_q_dkv=2048,
                       block_kv_dkv=2048, block_kv_dkv_compute=2048),
    flags=" ".join((
        "--xla_tpu_scoped_vmem_limit_kib=65536",
        "--xla_tpu_bf16_emission_mode=NATIVE_EMISSION",
        "--xla_tpu_enable_sparse_core_reduce_scatter_v2=true",
        "--xla_tpu_enable_sparse_core_collective_offload_all_gather=true",
        "--xla_tpu_enable_sparse_core_collective_offload_2d_all_gather=true",
        "--xla_tpu_enable_all_gather_offload_tracing=true",
        "--xla_tpu_use_tc_device_shape_on_sc=True",
        "--xla_sc_disable_megacore_partitioning=True",
        "--xla_tpu_enable_async_collective_fusion_fuse_all_gather=false",
        "--xla_enable_async_all_gather=true",
        "--xla_tpu_prefer_async_allgather_to_allreduce=true",
        "--xla_tpu_enable_sparse_core_collective_offload_all_reduce=true",
        "--xla_tpu_enable_sparse_core_collective_offload_reduce_scatter=true",
        "--xla_tpu_enable_sparse_core_collective_offload_3d_all_gather=true",
        "--xla_tpu_use_single_sparse_core_for_all_gather_offload=true",
        "--xla_tpu_enable_concurrent_sparse_core_offloading=true",
        "--xla_tpu_aggressive_opt_barrier_removal=true",
        "--xla_tpu_enable_offloading_gather_to_sparsecore=true",
        "--xla_tpu_sparse_core_all_gather_latency_multiplier=1",
        "--xla_tpu_sparse_core_reduce_scatter_latency_multiplier=3",
        "--xla_tpu_enable_sparse_core_collective_aggregator=true",
        "--xla_tpu_enable_latency_hiding_layer_scheduler=true",
        "--xla_tpu_scheduler_percent_shared_memory_limit=150",
        "--xla_tpu_enable_layer_scheduler_for_dependent_collectives=true",
        "--xla_tpu_enable_sparse_core_collective_offload_nd_reduce_scatter=true",
        "--xla_tpu_pcie_bandwidth_multiplier=0.03",
        "--xla_tpu_enable_sparse_core_offload_queuing_in_lhs=true",
        "--xla_tpu_enable_multi_compute_overlap_in_layer_scheduler=false",
        "--xla_tpu_enable_3d_reduce_scatter_decomposer=false",
        "--xla_jf_spmd_threshold_for_windowed_einsum_mib=1000000")),
    differs=("AdamW without bias correction, no rotary embedding, v padded to q's head size "
             "for splash, jax's megablox and splash kernels (MaxText: tokamax's), routing by "
             "argsort and scatter (MaxText: a custom sort gradient), the recipe's XLA flags "
             "and no collective matmul"))
# Its fp8_full recipe on 128 chips (deepseek3-671b/4k-fp8-tpu7x-4x4x8/xpk/run_recipe.sh): the
# bf16 recipe's shapes, remat, splash blocks and dtypes, routing by the router (no random
# routing), qwix's fp8 with the fixed range [-224, 224], tokamax's grouped matmul with the
# recipe's tiles read in their order as (m, k, n) (as for Qwen3's: so read, each divides its
# dimension, the width 7168 and the experts' 2048), and its own XLA flags: the bf16 recipe's
# less three, and nine more.
DEEPSEEK3_FP8_RECIPE = dict(
    DEEPSEEK3_RECIPE, routing="top_k", quantization="fp8_full", fp8_range=224,
    gmm_weight_tiles=dict(
        wi=dict(fwd=(128, 7168, 2048), dlhs=(256, 2048, 3584), drhs=(256, 1792, 2048)),
        wo=dict(fwd=(256, 2048, 3584), dlhs=(256, 7168, 1024), drhs=(256, 2048, 1792))),
    flags=changed_flags(DEEPSEEK3_RECIPE["flags"], drop=(
        "--xla_tpu_sparse_core_all_gather_latency_multiplier=1",
        "--xla_tpu_sparse_core_reduce_scatter_latency_multiplier=3",
        "--xla_tpu_scheduler_percent_shared_memory_limit=150"), add=(
        "--xla_tpu_accumulate_into_mrb=true",
        "--xla_tpu_mosaic_fusion=false",
        "--xla_tpu_sparse_core_all_reduce_offload_min_size_in_bytes=204800",
        "--xla_max_concurrent_async_all_gathers=1",
        "--xla_tpu_scheduler_percent_shared_memory_limit=140",
        "--xla_tpu_enable_collective_pipeliner=true",
        "--xla_tpu_enable_tree_use_collective_pipeliner=true",
        "--xla_latency_hiding_scheduler_rerun=0",
        "--xla_tpu_host_transfer_overlap_limit=1")),
    differs=("AdamW without bias correction, no rotary embedding, v padded to q's head size "
             "for splash, jax's splash kernel (MaxText: tokamax's), tokamax's grouped matmul "
             "on qwix's fp8 arrays in our own gradient (MaxText: qwix's quantized training), "
             "routing by argsort and scatter (MaxText: a custom sort gradient), fp8 products "
             "of the decoder layers, gradients by their absolute maximum, the router, the "
             "embedding and the output layer in bf16, the recipe's XLA flags and no "
             "collective matmul"))
# Its fp8_full recipe on 256 chips (deepseek3-671b/4k-fp8-tpu7x-4x8x8/xpk/run_recipe.sh): as on
# 128 chips but AdamW's moments and the gradients in f32 (no mu_dtype, no grad_dtype), its own
# tiles (in order, as (m, k, n)) and its own XLA flags: the 128-chip recipe's but one, and 9
# more.
DEEPSEEK3_FP8_256_RECIPE = dict(
    DEEPSEEK3_FP8_RECIPE, mu_dtype="float32", grad_dtype=None,
    gmm_weight_tiles=dict(
        wi=dict(fwd=(256, 7168, 2048), dlhs=(256, 2048, 7168), drhs=(512, 1024, 2048)),
        wo=dict(fwd=(256, 2048, 7168), dlhs=(256, 7168, 2048), drhs=(512, 512, 7168))),
    flags=changed_flags(DEEPSEEK3_FP8_RECIPE["flags"], drop=(
        "--xla_tpu_enable_3d_reduce_scatter_decomposer=false",), add=(
        "--xla_tpu_data_parallel_opt_different_sized_ops=true",
        "--xla_tpu_enable_ici_rs_pipelining=false",
        "--xla_tpu_ici_rs_pipelining_threshold_kib=1048576",
        "--xla_tpu_impure_use_lmr_on_gxc=true",
        "--xla_tpu_dot_dot_fusion_duplicated=true",
        "--xla_tpu_rwb_fusion=false",
        "--xla_tpu_order_dot_after_layout=true",
        "--xla_tpu_prefetch_interval_picker_size_override=0",
        "--xla_tpu_async_copy_bandwidth_scaling_factor=0.5")),
    differs=DEEPSEEK3_FP8_RECIPE["differs"] + (
        ", FSDP over all 512 devices in one axis (MaxText: FSDP 256 x FSDP-transpose 2, "
        "two-stage expert gathers), so the experts' embedding axis over it (MaxText: the "
        "experts' axis, shard_exp_on_fsdp; 256 experts do not divide 512 devices), no "
        "attention logit soft cap (MaxText: 15)"))
# The Gemma 4 small recipes' (gemma4-2b, gemma4-4b/8k-bf16-tpu7x-4x4x4): 2 sequences a
# device, FSDP 32 x data 4, every layer unrolled and recomputed; splash blocks of their own.
GEMMA4_SMALL_RECIPE = dict(
    data_parallel=4, vocab_tiles=8,
    splash_blocks=dict(block_q=1024, block_kv=1024, block_kv_compute=512, block_q_dkv=1024,
                       block_kv_dkv=1024, block_kv_dkv_compute=256),
    flags=GEMMA4_FLAGS, differs=GEMMA4_DIFFERS)
DEEPSEEK_DIFFERS = ("no rotary embedding, v padded to q's head size for splash, routing by "
                    "argsort and scatter (MaxText: a custom sort gradient), AdamW without bias "
                    "correction, no load-balance loss")

# The recipes: the model, the slice, the batch, and what the recipe's source publishes.
RECIPES = {
    "llama3.1-8b-v6e-8": dict(
        LLAMA3_1_8B, source=TRILLIUM + "Llama3.1-8B-MaxText/v6e-8/README.md",
        target="tpu_v6e:2x4", batch_per_chip=3, seq=8192, step_s=3.443, tflops_per_chip=413.433),
    "llama3.1-8b-v6e-16": dict(
        LLAMA3_1_8B, source=TRILLIUM + "Llama3.1-8B-MaxText/v6e-16/README.md",
        target="tpu_v6e:4x4", batch_per_chip=3, seq=8192, step_s=3.393, tflops_per_chip=419.485),
    "llama3.1-8b-v6e-32": dict(
        LLAMA3_1_8B, source=TRILLIUM + "Llama3.1-8B-MaxText/v6e-32/README.md",
        target="tpu_v6e:4x8", batch_per_chip=3, seq=8192, step_s=3.495, tflops_per_chip=407.225),
    "mistral-7b-v6e-8": dict(
        MISTRAL_7B, source=TRILLIUM + "Mistral-7B-MaxText/README.md",
        target="tpu_v6e:2x4", batch_per_chip=6, seq=8192, step_s=6.320, tflops_per_chip=431.981),
    "llama3.1-70b-v6e-32": dict(
        LLAMA3_1_70B, source=TRILLIUM + "Llama3.1-70B-MaxText/v6e-32/README.md",
        target="tpu_v6e:4x8", batch_per_chip=2, seq=8192, step_s=17.790,
        tflops_per_chip=443.385, flags=DENSE_FLAGS + " " + OVERLAP_FLAGS,
        differs=OVERLAP_DIFFERS),
    # The summary table of training/ironwood/README.md: 64 chips, global batch 256, 8192 tokens.
    "llama3.1-70b-tpu7x-64": dict(
        LLAMA3_1_70B, **IRONWOOD_DENSE,
        source=IRONWOOD + "README.md (recipe: llama3.1-70b/8k-bf16-tpu7x-4x4x4)",
        target="tpu7x:4x4x4", batch_per_chip=4, seq=8192, step_s=12.20,
        tflops_per_chip=1207.05),
    # The same table: 256 chips, global batch 1536 (3 sequences a device), 8192 tokens.
    "llama3.1-405b-tpu7x-256": dict(
        LLAMA3_1_405B, **IRONWOOD_405B,
        source=IRONWOOD + "README.md (recipe: llama3.1-405b/8k-bf16-tpu7x-4x8x8)",
        target="tpu7x:4x8x8", batch_per_chip=6, seq=8192, step_s=98.34,
        tflops_per_chip=1261.40),
    # The Ironwood table's Llama3.1-70B on 256 chips (llama3.1-70b/8k-bf16-tpu7x-4x8x8: the
    # 64-chip recipe's overrides and splash blocks), global batch 1024.
    "llama3.1-70b-tpu7x-256": dict(
        LLAMA3_1_70B, **IRONWOOD_DENSE,
        source=IRONWOOD + "README.md (recipe: llama3.1-70b/8k-bf16-tpu7x-4x8x8)",
        target="tpu7x:4x8x8", batch_per_chip=4, seq=8192, step_s=12.27,
        tflops_per_chip=1199.67),
    # Its fp8_full rows (llama3.1-70b/8k-fp8-tpu7x-4x4x4 and -4x8x8, alike but the slice):
    # IRONWOOD_70B_FP8.
    "llama3.1-70b-fp8-tpu7x-64": dict(
        LLAMA3_1_70B, **IRONWOOD_70B_FP8,
        source=IRONWOOD + "README.md (recipe: llama3.1-70b/8k-fp8-tpu7x-4x4x4)",
        target="tpu7x:4x4x4", batch_per_chip=4, seq=8192, step_s=7.93,
        tflops_per_chip=1854.19),
    "llama3.1-70b-fp8-tpu7x-256": dict(
        LLAMA3_1_70B, **IRONWOOD_70B_FP8,
        source=IRONWOOD + "README.md (recipe: llama3.1-70b/8k-fp8-tpu7x-4x8x8)",
        target="tpu7x:4x8x8", batch_per_chip=4, seq=8192, step_s=7.95,
        tflops_per_chip=1851.25),
    # Its 128k-token rows on 256 chips: global batch 64 (a sequence to 8 devices).
    "llama3.1-70b-128k-tpu7x-256": dict(
        LLAMA3_1_70B, **IRONWOOD_128K,
        source=IRONWOOD + "README.md (recipe: llama3.1-70b/128k-bf16-tpu7x-4x8x8)",
        target="tpu7x:4x8x8", batch_per_chip=0.25, seq=131072, step_s=34.02,
        tflops_per_chip=897.94),
    # Its fp8_full one: qwix's default calibration (no fixed range in the recipe).
    "llama3.1-70b-128k-fp8-tpu7x-256": dict(
        LLAMA3_1_70B, **dict(
            IRONWOOD_128K, quantization="fp8_full",
            differs=IRONWOOD_128K["differs"] + ", fp8 matrix products of the decoder layers "
            "with one absolute-max scale a tensor (qwix: its own calibration), the output "
            "layer in bf16"),
        source=IRONWOOD + "README.md (recipe: llama3.1-70b/128k-fp8-tpu7x-4x8x8)",
        target="tpu7x:4x8x8", batch_per_chip=0.25, seq=131072, step_s=30.11,
        tflops_per_chip=1014.45),
    # The 405B's fp8_full row (llama3.1-405b/8k-fp8-tpu7x-4x8x8): IRONWOOD_405B_FP8.
    "llama3.1-405b-fp8-tpu7x-256": dict(
        LLAMA3_1_405B, **IRONWOOD_405B_FP8,
        source=IRONWOOD + "README.md (recipe: llama3.1-405b/8k-fp8-tpu7x-4x8x8)",
        target="tpu7x:4x8x8", batch_per_chip=6, seq=8192, step_s=64.37,
        tflops_per_chip=1927.15),
    # Two slices of v6e-256 over DCN: 512 chips, one sequence each (total_weights 4194304 =
    # 512 x 8192 tokens), the step of its README's log line.
    "llama3.1-405b-2xv6e-256": dict(
        LLAMA3_1_405B, **MULTISLICE_405B,
        source=TRILLIUM + "Llama3-405B-MaxText/README.md (2 slices)",
        target="tpu_v6e:16x16,slices=2", batch_per_chip=1, seq=8192, step_s=58.805,
        tflops_per_chip=365.740),
    # The Ironwood table's GPT-OSS-120B on 64 chips (gpt-oss-120b/8k-bf16-tpu7x-4x4x4):
    # global batch 1280 (10 sequences a device), 8192 tokens, FSDP 64 x data 2.
    "gpt-oss-120b-tpu7x-64": dict(
        GPT_OSS_120B, **GPT_OSS_RECIPE, data_parallel=2, routing="top_k",
        source=IRONWOOD + "README.md (recipe: gpt-oss-120b/8k-bf16-tpu7x-4x4x4)",
        target="tpu7x:4x4x4", batch_per_chip=20, seq=8192, step_s=17.10,
        tflops_per_chip=330.25),
    # Its Qwen3-235B-A22B on 256 chips (qwen3-235b-a22b/4k-bf16-tpu7x-4x8x8): global batch
    # 8192 (16 sequences a device), 4096 tokens.
    "qwen3-235b-tpu7x-256": dict(
        QWEN3_235B, **QWEN3_RECIPE,
        source=IRONWOOD + "README.md (recipe: qwen3-235b-a22b/4k-bf16-tpu7x-4x8x8)",
        target="tpu7x:4x8x8", batch_per_chip=32, seq=4096, step_s=30.87,
        tflops_per_chip=629.79),
    # Its fp8_full row (qwen3-235b-a22b/4k-fp8-tpu7x-4x8x8): the same batch and slice.
    "qwen3-235b-fp8-tpu7x-256": dict(
        QWEN3_235B, **QWEN3_FP8_RECIPE,
        source=IRONWOOD + "README.md (recipe: qwen3-235b-a22b/4k-fp8-tpu7x-4x8x8)",
        target="tpu7x:4x8x8", batch_per_chip=32, seq=4096, step_s=27.67,
        tflops_per_chip=702.60),
    # Its Gemma4-2B and -4B (MaxText's gemma4-e2b, -e4b) on 64 chips: global batch 256, 8192
    # tokens.
    "gemma4-2b-tpu7x-64": dict(
        GEMMA4_E2B, **GEMMA4_SMALL_RECIPE,
        source=IRONWOOD + "README.md (recipe: gemma4-2b/8k-bf16-tpu7x-4x4x4)",
        target="tpu7x:4x4x4", batch_per_chip=4, seq=8192, step_s=0.57,
        tflops_per_chip=892.84),
    "gemma4-4b-tpu7x-64": dict(
        GEMMA4_E4B, **GEMMA4_SMALL_RECIPE,
        source=IRONWOOD + "README.md (recipe: gemma4-4b/8k-bf16-tpu7x-4x4x4)",
        target="tpu7x:4x4x4", batch_per_chip=4, seq=8192, step_s=0.97,
        tflops_per_chip=1002.50),
    # Its Gemma4-31B on 64 chips (gemma4-31b/8k-bf16-tpu7x-4x4x4): global batch 512, 8192
    # tokens.
    "gemma4-31b-tpu7x-64": dict(
        GEMMA4_31B, **GEMMA4_31B_RECIPE,
        source=IRONWOOD + "README.md (recipe: gemma4-31b/8k-bf16-tpu7x-4x4x4)",
        target="tpu7x:4x4x4", batch_per_chip=8, seq=8192, step_s=12.20,
        tflops_per_chip=1057.76),
    # Its Gemma4-26B on 64 chips (gemma4-26b/4k-bf16-tpu7x-4x4x4): global batch 2048, 4096
    # tokens, FSDP over every device.
    "gemma4-26b-tpu7x-64": dict(
        GEMMA4_26B, **GEMMA4_26B_RECIPE,
        source=IRONWOOD + "README.md (recipe: gemma4-26b/4k-bf16-tpu7x-4x4x4)",
        target="tpu7x:4x4x4", batch_per_chip=32, seq=4096, step_s=5.54,
        tflops_per_chip=592.31),
    # And on 256 chips (gemma4-26b/4k-bf16-tpu7x-4x8x8): global batch 8192, FSDP 256 x data 2.
    "gemma4-26b-tpu7x-256": dict(
        GEMMA4_26B, **GEMMA4_26B_RECIPE, data_parallel=2,
        source=IRONWOOD + "README.md (recipe: gemma4-26b/4k-bf16-tpu7x-4x8x8)",
        target="tpu7x:4x8x8", batch_per_chip=32, seq=4096, step_s=5.54,
        tflops_per_chip=592.41),
    # And on 256 chips (gpt-oss-120b/8k-bf16-tpu7x-4x8x8): global batch 5120, FSDP 64 x
    # data 8.
    "gpt-oss-120b-tpu7x-256": dict(
        GPT_OSS_120B, **GPT_OSS_RECIPE, data_parallel=8, routing="random",
        source=IRONWOOD + "README.md (recipe: gpt-oss-120b/8k-bf16-tpu7x-4x8x8)",
        target="tpu7x:4x8x8", batch_per_chip=20, seq=8192, step_s=17.12,
        tflops_per_chip=329.90),
    # Its DeepSeek-V3 on 128 chips (deepseek3-671b/4k-bf16-tpu7x-4x4x8): global batch 2048
    # (8 sequences a device), 4096 tokens, FSDP over every device, the experts' axis over it
    # (fsdp_shard_on_exp).
    "deepseek3-671b-tpu7x-128": dict(
        DEEPSEEK3_671B, **DEEPSEEK3_RECIPE, shard_experts=True,
        source=IRONWOOD + "README.md (recipe: deepseek3-671b/4k-bf16-tpu7x-4x4x8)",
        target="tpu7x:4x4x8", batch_per_chip=16, seq=4096, step_s=27.02,
        tflops_per_chip=607.53),
    # Its bf16 row on 256 chips (deepseek3-671b/4k-bf16-tpu7x-4x8x8): global batch 4096, the
    # 128-chip recipe's flags and fields but the experts' embedding axis over FSDP
    # (shard_exp_on_fsdp=False) and MaxText's 2-D FSDP (FSDP 256 x FSDP-transpose 2), here
    # FSDP over all 512 devices in one axis.
    "deepseek3-671b-tpu7x-256": dict(
        DEEPSEEK3_671B, **dict(DEEPSEEK3_RECIPE, differs=DEEPSEEK3_RECIPE["differs"] + (
            ", FSDP over all 512 devices in one axis (MaxText: FSDP 256 x FSDP-transpose 2, "
            "use_2d_fsdp_sharding)")),
        source=IRONWOOD + "README.md (recipe: deepseek3-671b/4k-bf16-tpu7x-4x8x8)",
        target="tpu7x:4x8x8", batch_per_chip=16, seq=4096, step_s=26.79,
        tflops_per_chip=612.66),
    # Its fp8_full row on 256 chips (deepseek3-671b/4k-fp8-tpu7x-4x8x8): global batch 4096.
    "deepseek3-671b-fp8-tpu7x-256": dict(
        DEEPSEEK3_671B, **DEEPSEEK3_FP8_256_RECIPE,
        source=IRONWOOD + "README.md (recipe: deepseek3-671b/4k-fp8-tpu7x-4x8x8)",
        target="tpu7x:4x8x8", batch_per_chip=16, seq=4096, step_s=22.08,
        tflops_per_chip=743.46),
    # Its fp8_full row on 128 chips (deepseek3-671b/4k-fp8-tpu7x-4x4x8): the same batch.
    "deepseek3-671b-fp8-tpu7x-128": dict(
        DEEPSEEK3_671B, **DEEPSEEK3_FP8_RECIPE, shard_experts=True,
        source=IRONWOOD + "README.md (recipe: deepseek3-671b/4k-fp8-tpu7x-4x4x8)",
        target="tpu7x:4x4x8", batch_per_chip=16, seq=4096, step_s=22.47,
        tflops_per_chip=730.60),
    # MaxText's defaults otherwise: f32 weights, AdamW, full remat, no XLA flags.
    "deepseek2-16b-v5p-8": dict(
        DEEPSEEK2_16B, source="AI-Hypercomputer/maxtext docs/guides/understand_logs_and_metrics.md",
        target="tpu_v5p:2x2x1", batch_per_chip=24, seq=2048, step_s=5.667,
        tflops_per_chip=134.924),
}


def completed(r):
    """A recipe with its model's shapes (`model_name`: one of MODELS, or the shapes given), its
    flags and what its program does differently, as the table's entries have them."""
    r = dict(MODELS.get(r.get("model_name"), {}), **r)
    missing = [k for k in ("model", "target", "batch_per_chip", "seq", "step_s",
                           "tflops_per_chip") if k not in r]
    if missing:
        raise ValueError(f"a recipe needs {', '.join(missing)} (or a model_name of "
                         f"{', '.join(MODELS)})")
    r.setdefault("flags", DENSE_FLAGS if r["model"] == "dense" else "")
    r.setdefault("differs", DENSE_DIFFERS if r["model"] == "dense" else DEEPSEEK_DIFFERS)
    r.setdefault("source", "given")
    return r


RECIPES = {name: completed(r) for name, r in RECIPES.items()}

# GPU clusters: AI-Hypercomputer/gpu-recipes' MaxText Llama3.1 recipes on A3 Ultra (8 H200s a
# node) and A4 (8 B200s a node) nodes, each node 8 ConnectX-7 NICs of 400 Gb/s, one a GPU
# (Google Cloud, "Networking and GPU machines"; the built-in h200 and b200 files' scale-out
# figure). Compiled by JAX's CUDA plugin for the cluster (no GPU), attention by cuDNN's flash
# attention (MaxText: cudnn_flash_te), FSDP within and across nodes, data parallelism across.
# A step is published only as one example log line of a README; the rows here are those lines.
GPU_RECIPES_SOURCE = "AI-Hypercomputer/gpu-recipes training/"
GPU_COMMON_FLAGS = (
    "--xla_gpu_enable_latency_hiding_scheduler=true --xla_gpu_enable_triton_gemm=false "
    "--xla_gpu_enable_pipelined_all_gather=true --xla_gpu_enable_pipelined_reduce_scatter=true "
    "--xla_gpu_enable_pipelined_all_reduce=true --xla_gpu_enable_while_loop_double_buffering=true "
    "--xla_gpu_enable_all_gather_combine_by_dim=false "
    "--xla_gpu_enable_reduce_scatter_combine_by_dim=false "
    "--xla_disable_hlo_passes=rematerialization")


def gpu_flags(all_reduce, all_gather, reduce_scatter, command_buffer="", more=""):
    """A recipe's XLA_FLAGS: the common set, its three combine thresholds (bytes), the kinds
    of op its command buffers (CUDA graphs) take ("": none; a recipe's older
    --xla_gpu_graph_level=0, which this XLA no longer knows, meant that) and any more."""
    return (GPU_COMMON_FLAGS + f" --xla_gpu_all_reduce_combine_threshold_bytes={all_reduce}"
            f" --xla_gpu_all_gather_combine_threshold_bytes={all_gather}"
            f" --xla_gpu_reduce_scatter_combine_threshold_bytes={reduce_scatter}"
            f" --xla_gpu_enable_command_buffer={command_buffer} {more}").strip()


GPU_DIFFERS = ("SGD (MaxText AdamW, f32 weights), no rotary embedding, jax's cuDNN attention "
               "(MaxText: Transformer Engine's), the recipe's XLA flags")
FP8_DIFFERS = (", fp8 products with one scale a tensor, computed each step (MaxText: fp8 with "
               "delayed scaling)")
GPU_RECIPES = {
    # a3ultra/llama3-1-70b README: "completed step: 12, seconds: 15.516, TFLOP/s/device:
    # 508.371" (2 sequences of 8192 a GPU, 256 GPUs: the 256-GPU bf16 config, whose remat
    # policy was then save_dot_except_mlp), DCN data 2 x DCN FSDP 16 x ICI FSDP 8.
    "llama3.1-70b-a3u-256": dict(
        LLAMA3_1_70B, attention="cudnn", data_parallel=2,
        remat=dict.fromkeys(("query_proj", "key_proj", "value_proj", "out_proj"), "device"),
        flags=gpu_flags(2147483648, 2147483648, 16777216), differs=GPU_DIFFERS,
        source=GPU_RECIPES_SOURCE + "a3ultra/llama3-1-70b/maxtext-pretraining-gke/README.md",
        target="h200:32x8", batch_per_chip=2, seq=8192, step_s=15.516,
        tflops_per_chip=508.371),
    # a4/llama3-1-70b README: "seconds: 20.935, TFLOP/s/device: 1507.142" (8 sequences a GPU,
    # 256 GPUs, remat full, FSDP 32 x 8). The line does not name its precision; the README's
    # default job, listed first, is fp8: taken as fp8.
    "llama3.1-70b-fp8-a4-256": dict(
        LLAMA3_1_70B, attention="cudnn", remat={}, quantization="fp8_full",
        flags=gpu_flags(2147483648, 2147483648, 16777216, "FUSION,CUSTOM_CALL"),
        differs=GPU_DIFFERS + FP8_DIFFERS + ", the precision taken as fp8 (the log line does "
        "not say)",
        source=GPU_RECIPES_SOURCE + "a4/llama3-1-70b/maxtext-pretraining-gke/README.md",
        target="b200:32x8", batch_per_chip=8, seq=8192, step_s=20.935,
        tflops_per_chip=1507.142),
    # a4/llama3-1-405b README: "seconds: 28.294, TFLOP/s/device: 1520.276" (2 sequences a GPU,
    # 256 GPUs; first published with the recipe's only config, fp8), remat full, DCN data 2 x
    # DCN FSDP 16 x ICI FSDP 8, combine thresholds of 16 GiB.
    "llama3.1-405b-fp8-a4-256": dict(
        LLAMA3_1_405B, attention="cudnn", remat={}, quantization="fp8_full", data_parallel=2,
        flags=gpu_flags(17179869184, 17179869184, 17179869184, "FUSION,CUSTOM_CALL"),
        differs=GPU_DIFFERS + FP8_DIFFERS,
        source=GPU_RECIPES_SOURCE + "a4/llama3-1-405b/maxtext-pretraining-gke/README.md",
        target="b200:32x8", batch_per_chip=2, seq=8192, step_s=28.294,
        tflops_per_chip=1520.276),
}
# An older recipe of the same repository (training/a3mega/llama-2-7b, since removed; at
# 2db62ee): Llama2-7B on 32 A3 Mega nodes (8 H100s, 8 x 200 Gb/s GPUDirect-TCPXO:
# examples/h100_a3_mega.json), 4 sequences of 4096 a GPU, DCN data 32 x ICI FSDP 8, remat
# minimal_flash (every weight product's output and the attention's kept): "completed step: 12,
# seconds: 1.500, TFLOP/s/device: 503.384".
LLAMA2_7B = dict(LLAMA3_1_8B, ffn=11008, kv_heads=32, vocab=32000)
GPU_RECIPES["llama2-7b-a3mega-256"] = dict(
    LLAMA2_7B, attention="cudnn", data_parallel=32,
    remat=dict.fromkeys(("query_proj", "key_proj", "value_proj", "context", "out_proj",
                         "mlpwo"), "device"),
    flags=gpu_flags(536870912, 134217728, 67108864,
                    more="--xla_gpu_enable_highest_priority_async_stream=true"),
    differs=GPU_DIFFERS + " but Triton's softmax fusion off (this XLA no longer has the flag), "
    "layers in a scan (MaxText: unrolled), the MLP's input products recomputed (MaxText keeps "
    "them)",
    source=GPU_RECIPES_SOURCE + "a3mega/llama-2-7b/maxtext-pretraining-gke/README.md (at "
    "2db62ee)",
    target="examples/h100_a3_mega.json:32x8", batch_per_chip=4, seq=4096, step_s=1.500,
    tflops_per_chip=503.384)
# NVIDIA's DGX Cloud benchmarks (NVIDIA/dgxc-benchmarking, maxtext/README_70b.md): MaxText
# Llama3-70B (at 8f5cbb3, container jax 25.01-maxtext) and Llama2-70B (at 143b90d, maxtext
# 2024-12-09) on DGX H100 nodes (8 ConnectX-7 NICs of 400 Gb/s, one a GPU: the built-in h100's
# scale-out figure), a table of seconds a step by GPU count and precision (its MFU: model FLOPs
# over 989 TFLOP/s bf16, 1979 fp8). Its configure.sh: 2 sequences a GPU, FSDP 8 within a node
# and over every node up to 32 nodes, from 64 nodes DCN FSDP 16 x data parallelism over the
# rest; attention cudnn_flash_te, layers in a scan; combine thresholds of 8 GiB over 4 (all-
# reduce, all-gather) and over 256 (bf16; 512 from 64 nodes) or 128 (fp8; 256) for the
# reduce-scatters (Llama2 fp8: 8, 16 and 1024; 2048); its runs' latency-hiding scheduler read
# a profile of an earlier run (PGLE), which a compile here has not.
DGXC_SOURCE = "NVIDIA/dgxc-benchmarking maxtext/README_70b.md"
DGXC_DIFFERS = GPU_DIFFERS + (" but Triton's softmax fusion off (this XLA no longer has the flag), "
                              "no profile-guided latency estimates (the runs' PGLE)")
LLAMA2_70B = dict(LLAMA3_1_70B, vocab=32000)


def dgxc_row(model, fp8, nodes, step_s, mfu, seq, remat, thresholds, commit):
    """One row of the DGXC table: `thresholds` the combine thresholds (all-reduce, all-gather,
    reduce-scatter below 64 nodes, from 64) in bytes."""
    ar, ag, rs_small, rs_large = thresholds
    return dict(
        model, attention="cudnn", data_parallel=max(1, nodes // 16) if nodes >= 64 else 1,
        remat=dict.fromkeys(remat, "device"), **({"quantization": "fp8_full"} if fp8 else {}),
        flags=gpu_flags(ar, ag, rs_large if nodes >= 64 else rs_small,
                        more="--xla_gpu_enable_highest_priority_async_stream=true"),
        differs=DGXC_DIFFERS + (FP8_DIFFERS if fp8 else ""),
        source=f"{DGXC_SOURCE} (at {commit}, {nodes * 8} GPUs, {'fp8' if fp8 else 'bf16'})",
        target=f"h100:{nodes}x8", batch_per_chip=2, seq=seq, step_s=step_s,
        tflops_per_chip=round(mfu * (1979 if fp8 else 989), 1))


GIB = 1 << 30
QKV = ("query_proj", "key_proj", "value_proj")
for nodes, bf16, fp8 in ((32, (15.444, 0.5159), (9.488, 0.4197)),
                         (64, (15.519, 0.5134), (9.244, 0.4307)),
                         (128, (15.603, 0.5106), (9.483, 0.4199))):
    for is_fp8, (step, mfu) in ((False, bf16), (True, fp8)):
        GPU_RECIPES[f"llama3-70b{'-fp8' if is_fp8 else ''}-h100-{nodes * 8}"] = dgxc_row(
            LLAMA3_1_70B, is_fp8, nodes, step, mfu, 8192, QKV,
            (2 * GIB, 2 * GIB, (64 if is_fp8 else 32) << 20, (32 if is_fp8 else 16) << 20),
            "8f5cbb3")
for nodes, bf16, fp8 in ((32, (7.153, 0.5145), (4.959, 0.3709)),
                         (128, (7.084, 0.5195), (5.062, 0.3634))):
    GPU_RECIPES[f"llama2-70b-h100-{nodes * 8}"] = dgxc_row(
        LLAMA2_70B, False, nodes, *bf16, 4096, QKV + ("out_proj", "mlpwo"),
        (2 * GIB, 2 * GIB, 32 << 20, 16 << 20), "143b90d")
    GPU_RECIPES[f"llama2-70b-fp8-h100-{nodes * 8}"] = dgxc_row(
        LLAMA2_70B, True, nodes, *fp8, 4096, QKV + ("out_proj",),
        (GIB, GIB // 2, 8 << 20, 4 << 20), "143b90d")
GPU_RECIPES = {name: completed(r) for name, r in GPU_RECIPES.items()}


def resolved(target):
    """A recipe's target with a device file named relative to the repository (examples/...)
    made absolute, so that it compiles and predicts from any folder."""
    device, sep, shape = target.partition(":")
    if device.endswith(".json") and not os.path.isabs(device):
        return os.path.join(ROOT, device) + sep + shape
    return target


# Every recipe the runner knows, TPU and GPU.
ALL_RECIPES = dict(RECIPES, **GPU_RECIPES)

def rows(recipes, keep, engine=None, timeout_s=3600, progress=True):
    """The recipes as one sweep (hloroof.sweep): each compiled for its slice in a process of
    its own (bench/recipe_models.py's recipe_step) by `engine` (default: one local worker),
    predicted on that slice, its memory beside XLA's; the programs kept in the store `keep`,
    so that a rerun compiles nothing. One dict per recipe, in order: its row, or
    {"recipe", "error"} when it did not compile here."""
    import hloroof.sweep as hs
    configs = [dict(r, name=name, target=resolved(r["target"])) for name, r in recipes.items()]
    result = hs.run("recipe_models:recipe_step", configs,
                    engine=engine or hs.Local(workers=1), progress=progress,
                    compile=hs.Compile(cache=keep, path=[HERE], timeout_s=timeout_s))
    named = os.path.join(keep, BY_RECIPE)
    os.makedirs(named, exist_ok=True)
    for row in result.rows:  # DIR/by-recipe/NAME: the entry this recipe's program is in
        if row.get("entry") and result.store and not row["error"]:
            link = os.path.join(named, row["name"])
            if os.path.islink(link):
                os.remove(link)
            os.symlink(os.path.relpath(result.store.path(row["entry"]), named), link)
    return [recipe_row(row, recipes[row["name"]]) for row in result.rows]


BY_RECIPE = "by-recipe"


def kept_rows(recipes, kept):
    """The recipes' programs kept in `kept` (DIR/by-recipe/NAME of an earlier --keep DIR run)
    predicted again, compiling nothing: one dict per recipe, as rows() gives them."""
    import hloroof.sweep as hs
    out = []
    for name, r in recipes.items():
        folder = os.path.join(kept, BY_RECIPE, name)
        try:
            with open(os.path.join(folder, "compile.json")) as f:
                facts = json.load(f)
            text = read_program(folder)
        except (OSError, ValueError) as e:
            out.append({"recipe": name, "error": f"not kept in {kept}: {e}"})
            continue
        row = hs.Row.of(resolved(r["target"]), hs.Outcome(text=text, facts=facts),
                        {"name": name})
        out.append(recipe_row(row.as_dict(), r))
    return out


def read_program(folder):
    """The optimized program kept in `folder`: program.hlo, or program.hlo.gz as
    bench/measured/tpu_programs keeps it (OSError when neither is there)."""
    plain = os.path.join(folder, "program.hlo")
    if os.path.exists(plain) or not os.path.exists(plain + ".gz"):
        with open(plain) as f:
            return f.read()
    with gzip.open(plain + ".gz", "rt") as f:
        return f.read()


# The programs kept in the repository (--export): DIR/by-recipe/NAME/program.hlo.gz and
# compile.json, so that `--kept bench/measured/tpu_programs` predicts them without libtpu.
KEPT_IN_REPOSITORY = os.path.join(HERE, "measured", "tpu_programs")


def export_kept(recipes, keep, out):
    """Copies each recipe's program kept in `keep` (DIR/by-recipe/NAME) to
    `out`/by-recipe/NAME: the program gzipped, and compile.json with its provenance (the
    recipe's fields, the versions of jax, jaxlib, libtpu and of the CUDA plugin, its compiler
    and cuDNN, the program's SHA-256, the date).
    Returns the names exported."""
    import datetime
    import hashlib
    import importlib.metadata as md
    versions = {}
    for package in ("jax", "jaxlib", "libtpu", "jax-cuda12-plugin", "nvidia-cuda-nvcc-cu12",
                    "nvidia-cudnn-cu12"):
        try:
            versions[package] = md.version(package)
        except md.PackageNotFoundError:
            versions[package] = None
    done = []
    for name, r in recipes.items():
        folder = os.path.join(keep, BY_RECIPE, name)
        try:
            with open(os.path.join(folder, "compile.json")) as f:
                facts = json.load(f)
            text = read_program(folder)
        except (OSError, ValueError):
            continue
        target = os.path.join(out, BY_RECIPE, name)
        os.makedirs(target, exist_ok=True)
        data = text.encode("utf-8")
        with open(os.path.join(target, "program.hlo.gz"), "wb") as f:
            # mtime 0: the same program gives the same bytes.
            with gzip.GzipFile(fileobj=f, mode="wb", compresslevel=9, mtime=0) as z:
                z.write(data)
        facts = dict(facts, program_sha256=hashlib.sha256(data).hexdigest(), provenance=dict(
            recipe={k: v for k, v in r.items() if k not in ("differs",)},
            compiled_by="bench/tpu_recipes.py (bench/recipe_models.py's recipe_step, "
                        "hloroof.jax.compile_for)",
            versions=versions, exported=datetime.date.today().isoformat()))
        with open(os.path.join(target, "compile.json"), "w") as f:
            json.dump(facts, f, indent=1, sort_keys=True)
        done.append(name)
    return done


def recipe_row(row, r):
    """A sweep row beside the recipe's published step. The published MFU and ours count the
    same model FLOPs (TFLOP/s per chip x the published step x the chips) over the same peak,
    so they stand in the ratio of the steps."""
    if row["error"]:
        return {"recipe": row["name"], "error": row["error"]}
    measured_mfu = row["mfu"] * row["step_time_s"] / r["step_s"]
    return {
        "recipe": row["name"], "source": r["source"], "target": r["target"],
        "chips": row["chips"], "devices": row["devices"], "measured_step_s": r["step_s"],
        "expected_step_s": row["step_time_s"], "roofline_step_s": row["roofline_step_time_s"],
        "mfu_measured": measured_mfu, "mfu_expected": row["mfu"],
        "xla_temp_bytes": row["xla_temp_bytes"], "temp_bytes": row["temp_bytes"],
        "compile_s": row["compile_s"], "model": r["model"], "differs": r["differs"],
    }


NAME_WIDTH = 25
HEADER = (f"{'recipe':<{NAME_WIDTH}} {'chips':>5} {'measured':>8} {'expected':>14} "
          f"{'roofline':>8} {'MFU meas/exp':>12} {'temp XLA,ours':>14} {'compile':>7}")


def row_text(row):
    """One recipe's line of the table (100 columns at most); a name longer than the name
    column takes a line of its own above its figures."""
    name = row["recipe"]
    head = f"{name}\n{'':<{NAME_WIDTH}}" if len(name) > NAME_WIDTH else f"{name:<{NAME_WIDTH}}"
    if row.get("error"):
        return f"{head} not predicted: {row['error'][:100 - NAME_WIDTH - 16]}"
    xla_temp = row["xla_temp_bytes"] or 0
    ratio = row["expected_step_s"] / row["measured_step_s"]
    temp_ratio = (row["temp_bytes"] or 0) / max(xla_temp, 1)  # ours over XLA's
    return (f"{head} {row['chips']:>5} {row['measured_step_s']:>7.3f}s "
            f"{row['expected_step_s']:>7.3f}s x{ratio:.2f} {row['roofline_step_s']:>7.3f}s "
            f"{row['mfu_measured']:>5.1%}/{row['mfu_expected']:<6.1%} "
            f"{xla_temp / 1e9:>5.1f}GB x{temp_ratio:<5.3f} "
            f"{row['compile_s']:>6.0f}s")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("recipes", nargs="*", help="recipes to run (default: every one of the "
                    "table, or of --recipes-json)")
    ap.add_argument("--recipes-json", help="more recipes, a JSON object of name -> recipe: "
                    "model_name (" + ", ".join(MODELS) + ") or the model's shapes, target "
                    "(DEVICE:SLICE, or DEVICE:SLICE,slices=N over DCN), batch_per_chip, seq, "
                    "step_s, tflops_per_chip; optional flags (LIBTPU_INIT_ARGS), source, "
                    "differs, and for a dense model remat ({NAME: 'device' or 'offload'}, "
                    "MaxText's names), splash_blocks ({block_q: N, ...}) and quantization "
                    "('fp8_full')")
    ap.add_argument("--json", help="write every row's figures here")
    ap.add_argument("--keep", default="/tmp/hloroof-recipes",
                    help="the store of compiled programs: a recipe compiled before (same "
                    "recipe, code, flags and versions) is predicted without compiling")
    ap.add_argument("--kept", metavar="DIR", help="predict the programs an earlier --keep DIR "
                    "run kept for these recipes (DIR/by-recipe/NAME), compiling nothing")
    ap.add_argument("--export", metavar="DIR", help="copy the programs of these recipes kept "
                    "by --keep into DIR/by-recipe/NAME, gzipped, with their provenance (the "
                    "repository's: " + os.path.relpath(KEPT_IN_REPOSITORY, ROOT) + ")")
    ap.add_argument("--show", help="print the table of an earlier run's --json, compiling nothing")
    ap.add_argument("--timeout", type=float, default=3600,
                    help="seconds one recipe's compile may take (default 3600)")
    ap.add_argument("--workers", type=int, default=1,
                    help="recipes compiled at once (default 1: several GB each)")
    ap.add_argument("--ray", metavar="ADDRESS", help="compile as Ray tasks on this cluster")
    a = ap.parse_args()
    recipes = dict(ALL_RECIPES)
    if a.recipes_json:  # recipes of the caller's: {name: {model_name or shapes, target, ...}}
        try:
            with open(a.recipes_json) as f:
                given = {name: completed(r) for name, r in json.load(f).items()}
        except (OSError, ValueError, AttributeError) as e:
            ap.error(f"--recipes-json {a.recipes_json}: {e}")
        recipes.update(given)
        if not a.recipes:
            a.recipes = list(given)
    a.recipes = a.recipes or list(ALL_RECIPES)
    if a.show:
        with open(a.show) as f:
            table = json.load(f)
    else:
        unknown = [name for name in a.recipes if name not in recipes]
        for name in unknown:
            print(f"{name:<21} not a recipe; known: {', '.join(recipes)}")
        chosen = {name: recipes[name] for name in a.recipes if name in recipes}
        import hloroof.sweep as hs
        engine = hs.Ray(a.ray) if a.ray else hs.Local(a.workers)
        table = kept_rows(chosen, a.kept) if a.kept else rows(chosen, a.keep, engine, a.timeout)
    if a.export and not a.show and not a.kept:
        exported = export_kept(chosen, a.keep, a.export)
        print(f"kept in {a.export}: {', '.join(exported) or 'nothing'}")
    print(HEADER)
    for row in table:
        print(row_text(row))
    table = [row for row in table if not row.get("error")]
    notes = {}  # what each group of rows does differently, in the table's order
    for row in table:
        notes.setdefault((row.get("model", "dense"), row["differs"]), []).append(row["recipe"])
    for (model, differs), names in notes.items():
        which = f"{model} rows" if len(notes) == len({m for m, _ in notes}) else ", ".join(names)
        print(textwrap.fill(f"{which}, plain JAX, not MaxText: {differs}", 100))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(table, f, indent=1)


if __name__ == "__main__":
    main()
