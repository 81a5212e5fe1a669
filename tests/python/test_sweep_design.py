"""hloroof.sweep at design-space scale: what-ifs on device variants, checks before compiling,
GPU nodes, budgeted search, a two-node Ray cluster (docs/sweep.md)."""

import itertools
import os
import sys
import time

import pytest

pytest.importorskip("jax")
pytest.importorskip("libtpu")
pandas = pytest.importorskip("pandas")

import hloroof  # noqa: E402
import hloroof.sweep as hs  # noqa: E402
from hloroof.sweep import _precheck, _whatif  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("HLOROOF_SOURCE_DIR", os.path.dirname(os.path.dirname(HERE)))
PATH = [HERE, os.path.join(SOURCE, "examples", "sweep")]
sys.path[:0] = [p for p in PATH if p not in sys.path]

import design_steps  # noqa: E402


@pytest.fixture(scope="module")
def llama_program(tmp_path_factory):
    """examples/sweep/llama.py's step at small sizes, compiled for tpu_v5e:2x2 (its all-gathers
    and reduce-scatters async pairs): the program the what-ifs re-time."""
    result = hs.run("sweep_steps:llama_tiny", [dict(tensor=2, batch_per_device=4,
                                                    remat="dots")],
                    ["tpu_v5e:2x2"], engine=hs.Local(workers=1), progress=False,
                    compile=hs.Compile(cache=str(tmp_path_factory.mktemp("cache")), path=PATH,
                                       precheck=False))
    assert not result.rows[0]["error"], result.rows[0]["error"]
    return result.program(0)


def _table(text, device, settings=None):
    from hloroof import _hloroof
    from hloroof._inputs import _input, _target
    source = _input(text)
    target, options, _, _ = _target("test", device, source, {}, settings)
    options.explain = False
    options.timeline = False
    return source.module, _hloroof._VariantTable(source.module, target, options)


def test_variant_table_as_the_device_is_predicts_exactly(llama_program):
    module, table = _table(llama_program, "tpu_v5e:2x2")
    steps, rooflines = table.times([1.0], [1.0], [1.0])
    p = hloroof.predict(module, "tpu_v5e:2x2")
    # The same walk, the same clock: the same doubles.
    assert steps[0] == p.step_time_s and rooflines[0] == p.roofline_step_time_s
    assert table.op_count > 100


def test_variant_table_scales_each_op_by_its_roofline(tmp_path):
    # One elementwise op on 2^24 f32 values: 2 reads and 1 write of 64 MiB = 201,326,592 B of
    # HBM traffic, 2^24 FLOPs. On tpu_v5e (hbm.bandwidth 8.19e11 B/s; 197e12 bf16 FLOP/s,
    # data/hardware/tpu_v5e.json) it is HBM-bound: 201326592 / 8.19e11 = 245.8 us. Twice the
    # bandwidth: (122.9 us + o) / (245.8 us + o) of the step, o the per-op overhead; faster
    # FLOPs change nothing; ten times slower HBM, ten times the term.
    text = """HloModule add, entry_computation_layout={(f32[16777216]{0}, f32[16777216]{0})->f32[16777216]{0}}

ENTRY main {
  a = f32[16777216]{0} parameter(0)
  b = f32[16777216]{0} parameter(1)
  ROOT c = f32[16777216]{0} add(a, b)
}
"""
    module, table = _table(text, "tpu_v5e:1x1")
    spec = hloroof.resolve_device("tpu_v5e:1x1").spec
    hbm_s = 201326592 / spec.hbm_bandwidth
    overhead = spec.per_op_overhead_s
    (base, double, flops, slow), _ = table.times([1, 1, 8, 1], [1, 2, 1, 0.1], [1, 1, 1, 1])
    assert double == pytest.approx(base * (hbm_s / 2 + overhead) / (hbm_s + overhead), rel=1e-12)
    assert flops == base
    assert slow == pytest.approx(base * (hbm_s * 10 + overhead) / (hbm_s + overhead), rel=1e-12)
    with pytest.raises(ValueError, match="hbm_bandwidth_scale wants a finite number above 0"):
        table.times([1], [0], [1])
    with pytest.raises(ValueError, match="one length"):
        table.times([1, 2], [1], [1])


_BRANCHES = """
mem {
  t = (f32[4096,2048], bf16[2048,2048]) parameter(0)
  x = f32[4096,2048] get-tuple-element(t), index=0
  y = f32[4096,2048] add(x, x)
  ROOT s = f32[2048,2048] slice(y), slice={[0:2048], [0:2048]}
}

mm {
  t = (f32[4096,2048], bf16[2048,2048]) parameter(0)
  w = bf16[2048,2048] get-tuple-element(t), index=1
  ROOT d = f32[2048,2048] dot(w, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
"""


def _beside_a_copy(run):
    # `run` beside an async copy of 288 MiB (604 MB read and written: 0.74 ms at tpu_v5e's
    # 8.19e11 B/s, its traffic's time), which shares the memory with it.
    return f"""HloModule m, is_scheduled=true
{_BRANCHES}
ENTRY e {{
  x = f32[4096,2048] parameter(0)
  w = bf16[2048,2048] parameter(1)
  p = pred[] parameter(2)
  h = f32[75497472] parameter(3)
  t = (f32[4096,2048], bf16[2048,2048]) tuple(x, w)
  cs = (f32[75497472], f32[75497472], u32[]) copy-start(h)
  c = f32[2048,2048] {run}
  cd = f32[75497472] copy-done(cs)
  ROOT r = (f32[2048,2048], f32[75497472]) tuple(c, cd)
}}
"""


def test_variant_table_runs_a_conditional_as_its_slowest_branch_on_each_variant():
    # `mem` moves 100 MB and 33.6 MB (about 0.19 ms of memory), `mm` 33.6 MB beside a 2048^3
    # bf16 product (1.7e10 FLOP: 87 us at 1.97e14 FLOP/s). As the device is, `mem` is the
    # slower branch; at a tenth of the FLOP rate `mm` is (0.87 ms at its roofline). The copy
    # beside the conditional waits for what its traffic needs beyond the memory the branch
    # leaves free: the conditional must leave what its slowest branch on that variant leaves,
    # as the same branch called alone does, not what the device's slowest branch held.
    steps = {}
    for name, run in (("conditional", "conditional(p, t, t), true_computation=mem, "
                                      "false_computation=mm"),
                      ("mem", "call(t), to_apply=mem"), ("mm", "call(t), to_apply=mm")):
        _, table = _table(_beside_a_copy(run), "tpu_v5e:1x1")
        steps[name], _ = table.times([1.0, 0.1], [1.0, 1.0], [1.0, 1.0])
    assert steps["conditional"][0] == steps["mem"][0]
    assert steps["conditional"][1] == steps["mm"][1]
    # The two branches' memory differs enough to show: `mem` beside the copy waits longer.
    assert steps["mem"][1] > steps["mm"][1] * 1.05


def test_variant_table_follows_the_full_prediction(llama_program):
    # A variant re-times each op by its roofline, keeping the efficiency its model gives on the
    # device; the full prediction on the edited device runs every model again. On this program
    # the expected steps agree within 0.4% over HBM bandwidth x0.25 .. x4 and FLOP rates
    # x0.5 .. x2 (measured: 0.31% at most); within 2% here.
    module, table = _table(llama_program, "tpu_v5e:2x2")
    spec = hloroof.resolve_device("tpu_v5e:2x2").spec
    for hbm in (0.25, 0.5, 2, 4):
        (step,), _ = table.times([1.0], [hbm], [1.0])
        full = hloroof.predict(module, "tpu_v5e:2x2",
                               settings=[f"hbm.bandwidth={spec.hbm_bandwidth * hbm:.17g}"])
        assert step == pytest.approx(full.step_time_s, rel=0.02), hbm
    for flops in (0.5, 2):
        (step,), _ = table.times([flops], [1.0], [1.0])
        settings = [f"matrix_flops_per_s.{k}={v * flops:.17g}"
                    for k, v in spec.matrix_flops_per_s.items()]
        settings.append(f"vector_flops_per_s={spec.vector_flops_per_s * flops:.17g}")
        settings.append(f"transcendentals_per_s={spec.transcendentals_per_s * flops:.17g}")
        full = hloroof.predict(module, "tpu_v5e:2x2", settings=settings)
        assert step == pytest.approx(full.step_time_s, rel=0.02), flops
    # ICI: each collective's time from two walks (the links as they are and twice as fast);
    # measured: the expected steps equal to 1e-15 over x0.25 .. x4, the roofline within 2.4%.
    link = next(f.value for f in spec.figures if f.path == "interconnect.link_bandwidth")
    for scale in (0.25, 0.5, 2, 4):
        (step,), _ = table.times([1.0], [1.0], [scale])
        full = hloroof.predict(module, "tpu_v5e:2x2",
                               settings=[f"interconnect.link_bandwidth={link * scale:.17g}"])
        assert step == pytest.approx(full.step_time_s, rel=0.02), scale


def test_explore_pareto_and_columns(llama_program):
    frame = hs.explore(llama_program, "tpu_v5e:2x2", flop_rate_scale=[1, 2],
                       hbm_bandwidth=[4e11, 8.19e11, 1.6e12], link_bandwidth_scale=[1, 4],
                       hbm_capacity=[1e6, 16e9])
    assert list(frame.columns) == list(_whatif.COLUMNS)
    assert len(frame) == 2 * 3 * 2 * 2
    # A faster device is never slower.
    for axis in ("flop_rate_scale", "hbm_bandwidth", "link_bandwidth_scale"):
        others = [a for a in ("flop_rate_scale", "hbm_bandwidth", "link_bandwidth_scale",
                              "hbm_capacity_bytes") if a != axis]
        for _, group in frame.groupby(others):
            times = list(group.sort_values(axis)["step_time_s"])
            assert times == sorted(times, reverse=True)
    assert not frame.loc[frame["hbm_capacity_bytes"] == 1e6, "fits"].any()
    # The default cost: the four figures relative to the device's (8.19e11 B/s, 16e9 B),
    # averaged: the device itself costs 1.
    device = frame[(frame["flop_rate_scale"] == 1) & (frame["hbm_bandwidth"] == 8.19e11) &
                   (frame["link_bandwidth_scale"] == 1) & (frame["hbm_capacity_bytes"] == 16e9)]
    assert list(device["cost"]) == [pytest.approx(1.0)]
    # The front by brute force: fits, and no fitting variant as fast at no more cost.
    rows = frame.to_dict("records")
    for r in rows:
        dominated = any(
            o["fits"] and o["cost"] <= r["cost"] and o["step_time_s"] <= r["step_time_s"] and
            (o["cost"] < r["cost"] or o["step_time_s"] < r["step_time_s"]) for o in rows)
        assert r["pareto"] == (r["fits"] and not dominated), r
    assert 0 < frame["pareto"].sum() < len(frame)
    # A cost of one's own: the HBM bandwidth alone.
    priced = hs.explore(llama_program, "tpu_v5e:2x2", hbm_bandwidth=[4e11, 8.19e11, 1.6e12],
                        cost=lambda row: row["hbm_bandwidth"])
    assert list(priced["cost"]) == [4e11, 8.19e11, 1.6e12] and priced["pareto"].all()
    with pytest.raises(ValueError, match="hbm_bandwidth wants finite numbers above 0"):
        hs.explore(llama_program, "tpu_v5e:2x2", hbm_bandwidth=[0])


# Checks before compiling: a grid holding both directions. Each configuration is compiled
# without the checks too, so that every refusal is matched against XLA's own outcome.
PRECHECK_GRID = [
    {"name": "fits"},                                     # 1024 x 1024 bf16 over 4: 0.5 MB
    {"name": "mesh of 3", "mesh": 3},                     # 3 devices of 4
    {"name": "ragged batch", "batch": 30},                # 30 rows over 4
    {"name": "no such axis", "spec": "model"},            # P("model") on a mesh of "data"
    # 65536 x 81920 f32 replicated: 21.5 GB a device, over a v5e's 16 GB and the 10% margin.
    {"name": "params too big", "rows": 65536, "cols": 81920, "dtype": "float32",
     "spec": "none", "matmul": False},
    # The same split over 4: 5.4 GB a device, and XLA fits it.
    {"name": "big, split", "rows": 65536, "cols": 81920, "dtype": "float32", "matmul": False},
    # 10 GB a device of arguments fit; with the outputs (twice that) they do not: XLA's check.
    {"name": "temporaries too big", "rows": 50000, "cols": 50000, "dtype": "float32",
     "spec": "none", "double": True, "matmul": False},
]


def test_precheck_refuses_what_cannot_shard_or_fit_and_nothing_xla_fits(tmp_path):
    target = "tpu_v5e:2x2"
    checked = hs.run(design_steps.params, PRECHECK_GRID, [target], engine=hs.Local(workers=2),
                     compile=hs.Compile(cache=str(tmp_path / "a"), timeout_s=600),
                     progress=False)
    compiled = hs.run(design_steps.params, PRECHECK_GRID, [target], engine=hs.Local(workers=2),
                      compile=hs.Compile(cache=str(tmp_path / "b"), timeout_s=600,
                                         precheck=False), progress=False)
    refused = {r["name"]: r["error"] for r in checked.rows
               if r["error"] and r["error"].startswith(_precheck.PREFIX)}
    assert set(refused) == {"mesh of 3", "ragged batch", "no such axis", "params too big"}
    assert checked.compiled == len(PRECHECK_GRID) - 4 and compiled.compiled == len(PRECHECK_GRID)
    assert refused["mesh of 3"] == (_precheck.PREFIX + "cannot shard: mesh_axes {'data': 3} "
                                    "hold 3 devices; tpu_v5e:2x2 has 4")
    assert refused["ragged batch"] == (_precheck.PREFIX + "cannot shard: dimension 0 of "
                                       "argument 1 (30) is not divisible by data (4 devices)")
    assert "mesh axis 'model'" in refused["no such axis"]
    # 65536 x 81920 x 4 B = 21,474,836,480 B against tpu_v5e's 16e9 (17.6e9 with 10%).
    assert refused["params too big"] == (
        _precheck.PREFIX + "cannot fit: the arguments alone (parameters, gradients, optimizer "
        "state) hold 21.5 GB a device; its HBM holds 16 GB")
    by_name = {r["name"]: r for r in compiled.rows}
    for name, row in by_name.items():
        xla_fits = not row["error"] and row["fits"]
        # Never refused where XLA compiles and fits; every refusal is one XLA refuses too.
        assert (name in refused) == (bool(row["error"]) and not (
            name == "temporaries too big")), (name, row["error"])
        if name in refused:
            assert not xla_fits
    assert "CompileTimeHbmOom" in by_name["params too big"]["error"]
    assert "CompileTimeHbmOom" in by_name["temporaries too big"]["error"]
    assert by_name["big, split"]["fits"] and not by_name["big, split"]["error"]
    checked_rows = {r["name"]: r for r in checked.rows}
    assert checked_rows["params too big"]["fits"] is False
    assert checked_rows["mesh of 3"]["fits"] is None
    # Refusals are kept in the store: a rerun compiles and checks nothing.
    again = hs.run(design_steps.params, PRECHECK_GRID, [target], engine=hs.Local(workers=2),
                   compile=hs.Compile(cache=str(tmp_path / "a")), progress=False)
    assert again.compiled == 0 and all(r["cached"] for r in again.rows)


def test_precheck_takes_milliseconds():
    # Each check, the builder's call included, well under a second (JAX imported once).
    for config in PRECHECK_GRID:
        start = time.perf_counter()
        step = design_steps.params(dict(config, devices=4, target="tpu_v5e:2x2", chips=4))
        found = _precheck.refusal(hs._compile.step_fields(step), "tpu_v5e:2x2", 4, 16e9)
        assert time.perf_counter() - start < 1.0, config
        assert (found is None) == (config["name"] in ("fits", "big, split",
                                                      "temporaries too big"))


def test_gpu_sweep_one_node_and_several(tmp_path):
    configs = hs.grid(model=[1, 2], batch_per_device=[8])
    result = hs.run(design_steps.mlp, configs, ["h100:8", "h100:2x8"], engine=hs.Local(workers=2),
                    compile=hs.Compile(cache=str(tmp_path), timeout_s=600), progress=False)
    assert len(result.rows) == 4
    for row in result.rows:
        assert row["error"] is None, row["error"]
        assert row["device" + "s"] == row["chips"] == (8 if row["target"] == "h100:8" else 16)
        assert 0 < row["roofline_step_time_s"] <= row["step_time_s"]
        assert row["fits"] and 0 < row["mfu"] < 1
    # Two nodes: the same per-device work, gradients reduced across nodes as well.
    by = {(r["target"], r["model"]): r for r in result.rows}
    assert by[("h100:2x8", 1)]["step_time_s"] >= by[("h100:8", 1)]["step_time_s"] * 0.9


def test_two_slice_sweep_times_its_gradients_over_dcn(tmp_path):
    """A target of two v5e slices joined by the data-centre network: 8 chips, the data axis over
    both slices, each slice's gradient shares all-reduced across them (DCN send and recv)."""
    configs = [dict(model=1, width=512, batch_per_device=8)]
    result = hs.run(design_steps.mlp, configs, ["tpu_v5e:2x2", "tpu_v5e:2x2,slices=2"],
                    engine=hs.Local(workers=2), progress=False,
                    compile=hs.Compile(cache=str(tmp_path), timeout_s=600))
    one, two = result.rows
    assert one["error"] is None and two["error"] is None, (one["error"], two["error"])
    assert (one["chips"], one["devices"]) == (4, 4) and (two["chips"], two["devices"]) == (8, 8)
    assert 0 < two["roofline_step_time_s"] <= two["step_time_s"] and two["fits"]
    p = hloroof.predict(result.program(1), "tpu_v5e:2x2,slices=2")
    dcn = [op for op in p.ops
           if op.collective is not None and "DCN" in op.collective.formula and op.collective.time_s]
    assert dcn, [op.opcode for op in p.ops if op.collective is not None]
    # The same work a device, plus the gradients' pass over DCN: a slower step.
    assert two["step_time_s"] > one["step_time_s"]


def test_search_spends_its_budget_on_configurations_that_can_compile(tmp_path):
    space = hs.grid(model=[1, 2, 3, 4], width=[128, 256], batch_per_device=[2, 8])
    cache = str(tmp_path / "cache")
    full = hs.run(design_steps.mlp, space, ["tpu_v5e:2x2"], engine=hs.Local(workers=2),
                  compile=hs.Compile(cache=cache, timeout_s=600), progress=False)
    fitting = [r for r in full.rows if not r["error"] and r["fits"]]
    best = max(r["tokens_per_s_per_chip"] for r in fitting)
    assert len(fitting) == 12  # model=3 leaves a mesh of 2 x 3 on 4 devices: refused
    for sampler in ("random", "optuna"):
        if sampler == "optuna":
            pytest.importorskip("optuna")
        # Every configuration that can compile, from the store: the grid's best is found.
        found = hs.search(design_steps.mlp, space, ["tpu_v5e:2x2"], budget=12,
                          engine=hs.Local(workers=2), compile=hs.Compile(cache=cache),
                          sampler=sampler, seed=1)
        assert found.sampler == sampler and found.refused == 4 and found.evaluated == 12
        assert found.compiled == 0 and found.best["tokens_per_s_per_chip"] == best
        assert found.history[-1] == best and len(found.history) == 12
        assert all(r["error"].startswith(_precheck.PREFIX) for r in found.rows[:4])
        # A budget of 5: 5 evaluated, the refusals free.
        few = hs.search(design_steps.mlp, space, ["tpu_v5e:2x2"], budget=5,
                        engine=hs.Local(workers=2), compile=hs.Compile(cache=cache),
                        sampler=sampler, seed=2, batch=2)
        assert few.evaluated == 5 and few.refused == 4 and len(few.rows) == 9
        assert few.best["tokens_per_s_per_chip"] <= best
    with pytest.raises(ValueError, match="budget wants a whole number of compiles"):
        hs.search(design_steps.mlp, space, ["tpu_v5e:2x2"], budget=0)
