"""tools/gpu_opfamilies.py, checked without a GPU: the sets measured last (contention, decode,
convs, unaligned) and those waiting for a GPU (reductions, depthwise, hbm, hostlead, grouped,
launches) build at
their full sizes, and a dry run (--dry-run) compiles a tiny case of each on the CPU and writes
what a measurement writes but the timings and the profile."""

import json
import os
import pathlib
import re
import sys
import tarfile

import pytest

# No GPU is needed, nor tried: the CPU alone, chosen before JAX is imported.
os.environ.setdefault("JAX_PLATFORMS", "cpu")
jax = pytest.importorskip("jax")

TOOLS = pathlib.Path(os.environ.get("HLOROOF_SOURCE_DIR",
                                    pathlib.Path(__file__).resolve().parents[2])) / "tools"
sys.path.insert(0, str(TOOLS))
import gpu_opfamilies  # noqa: E402

# Cases a set holds, the dispatch floor included:
# contention: (2 shapes x 2 dtypes x 6 index distributions) + 2 dtypes x (sorted, unique) = 28;
# decode: 4 batches x 3 weights (GEMV) + 2 layer loops + 3 cache writes + 3 long attentions
#   + 3 whole steps = 23;
# convs: 24 convolutions x (forward, forward with both gradients) = 48;
# unaligned: 2 dtypes x (2 vocabularies x 3 LM-head products + 5 sizes x 3 dimensions + 4096^3)
#   = 2 x 22 = 44;
# reductions: 2 D x 2 R x 5 K x 2 dtypes column sums + 3 maxima with a side output + 3
#   convolutions and 2 sorts for the host's gaps = 48;
# depthwise: 10 filter gradients;
# hbm: 8 sizes x (scale, add, transpose, softmax) = 32;
# hostlead: 5 sizes of the add before the loop x 2 trip counts = 10;
# grouped: 9 widths of a group x (forward, forward with both gradients) = 18;
# launches: 7 chain lengths x 2 sizes = 14.
CASES = {"contention": 28 + 1, "decode": 23 + 1, "convs": 48 + 1, "unaligned": 44 + 1,
         "reductions": 48 + 1, "depthwise": 10 + 1, "hbm": 32 + 1, "hostlead": 10 + 1,
         "grouped": 18 + 1, "launches": 14 + 1}


@pytest.mark.parametrize("which", sorted(CASES))
def test_every_full_size_case_builds(which):
    # Shapes only: the arguments traced, each program traced on them, nothing computed.
    made = list(gpu_opfamilies.cases(which, small=False, dry_run=True))
    names = [name for name, _, _ in made]
    assert len(names) == CASES[which]
    assert len(set(names)) == len(names)  # a folder and a module name each
    for name, fn, args in made:
        assert re.fullmatch(r"[A-Za-z0-9_.]+", name), name
        out = jax.eval_shape(fn, *args)
        assert jax.tree_util.tree_leaves(out), name


# One tiny case of each set, and its arguments' bytes:
# bf16 updates 64 x 32 x 2 B = 4096 B + s32 ids 64 x 4 B = 256 B: 4352 B;
# a whole decode step of 2 layers (hidden 64, 4 heads of 16, MLP 128, batch 2, 32 positions):
#   x 2 x 64 x 2 B = 256, pos 4, wqkv 2 x 64 x 192 x 2 = 49152, wo 2 x 64 x 64 x 2 = 16384,
#   wup 2 x 64 x 256 x 2 = 65536, wdown 2 x 128 x 64 x 2 = 32768, two caches 2 x (2 x 2 x 32 x 4
#   x 16 x 2 = 16384) = 32768: 196868 B;
# a grouped 3x3 convolution with both gradients: x 2 x 8 x 8 x 32 x 2 B = 8192 B, w 3 x 3 x 8 x
#   32 x 2 B = 4608 B: 12800 B;
# an fp8 LM-head product with a vocabulary of 67 (prime): x 64 x 32 x 1 B = 2048 B, W 32 x 67 x
#   1 B = 2144 B: 4192 B;
# a bf16 column sum of [1, 64, 8]: 1 x 64 x 8 x 2 B = 1024 B;
# a depthwise 3x3 filter gradient: w 3 x 3 x 1 x 16 x 2 B = 288 B, x 2 x 4 x 4 x 16 x 2 B =
#   1024 B: 1312 B;
# an add of two f32 arrays of 1 MiB: 2 x 1048576 B = 2097152 B;
# an add over 1 MiB of f32, then 4 trips writing rows of 4096 bf16 into a cache of 4 rows:
#   1048576 B + 4 x 4096 x 2 B + 4096 x 2 B = 1089536 B;
# the grouped convolution above, forward alone: 12800 B;
# two kernels over 1 KiB of f32: 1024 B.
TINY = {
    "contention": ("scatter_add_embed_bf16_zipf1.1_r1000_u64_w32", "scatter(", 4352),
    "decode": ("decode_step_l2_b2_s32_h64", "dynamic-update-slice(", 196868),
    "convs": ("conv3x3_s1_g4_b2_8x8_32to32_fwdbwd", "convolution(", 12800),
    "unaligned": ("gemm_fp8_m64_k32_n67", "f8e4m3fn[32,67]", 4192),
    "reductions": ("colsum_bf16_d1_r64_k8", "reduce(", 1024),
    "depthwise": ("dwgrad_k3_g16_b2_4x4", "convolution(", 1312),
    "hbm": ("hbm_add_f32_1mib", "add(", 2097152),
    "hostlead": ("hostlead_add1mib_x4", "dynamic-update-slice(", 1089536),
    "grouped": ("conv3x3_s1_g4_b2_8x8_32to32_fwd", "convolution(", 12800),
    "launches": ("launches_k2_1kib", "multiply(", 1024),
}


@pytest.mark.parametrize("which", sorted(TINY))
def test_a_dry_run_compiles_and_writes_the_files(which, tmp_path):
    case, op, argument_bytes = TINY[which]
    out = tmp_path / f"dry-{which}"
    assert gpu_opfamilies.main([str(out), "--set", which, "--small", "--dry-run",
                                "--cases", "^" + re.escape(case) + "$"]) == 0
    folder = out / case
    assert sorted(p.name for p in folder.iterdir()) == ["cost.json", "memory.json", "module.hlo"]
    hlo = (folder / "module.hlo").read_text()
    # The module is named jit_CASE: a profile's kernels are joined to their case by that name.
    assert hlo.startswith(f"HloModule jit_{case},")
    assert op in hlo
    memory = json.loads((folder / "memory.json").read_text())
    assert memory["argument_size_in_bytes"] == argument_bytes
    assert json.loads((folder / "cost.json").read_text())["flops"] > 0
    summary = json.loads((out / "summary.json").read_text())
    assert list(summary) == [case] and summary[case]["dry_run"] is True
    provenance = json.loads((out / "provenance.json").read_text())
    assert (provenance["set"], provenance["dry_run"], provenance["backend"]) == (which, True, "cpu")
    assert provenance["jax"] == jax.__version__ and provenance["jaxlib"]
    assert not (out / "sweep.xplane.pb.gz").exists()
    # The archive beside the folder, named after it.
    with tarfile.open(tmp_path / f"dry-{which}.tar.gz") as archive:
        assert f"dry-{which}/{case}/module.hlo" in archive.getnames()


def test_a_case_that_fails_is_reported_and_fails_the_run(tmp_path, monkeypatch):
    # A case whose program does not build: its error in summary.json, no folder, exit 1.
    def broken(s):
        yield "broken_reshape", lambda x: x.reshape(3, 5), (gpu_opfamilies.normal((4, 4)),)
    monkeypatch.setitem(gpu_opfamilies.SETS, "convs", [broken])
    out = tmp_path / "dry-broken"
    assert gpu_opfamilies.main([str(out), "--set", "convs", "--dry-run", "--cases", "broken"]) == 1
    summary = json.loads((out / "summary.json").read_text())
    assert "reshape" in summary["broken_reshape"]["error"]
    assert not (out / "broken_reshape").exists()
