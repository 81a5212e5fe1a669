"""hloroof.sweep: configurations compiled offline by libtpu in worker processes, here and as Ray
tasks, predicted, stored and tabulated. Each toy step compiles in about a second."""

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import pytest

pytest.importorskip("jax")
pytest.importorskip("libtpu")
pandas = pytest.importorskip("pandas")

import hloroof  # noqa: E402
import hloroof.sweep as hs  # noqa: E402
from hloroof.sweep import _report  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("HLOROOF_SOURCE_DIR", os.path.dirname(os.path.dirname(HERE)))
EXAMPLES = os.path.join(SOURCE, "examples", "sweep")
PATH = [HERE, EXAMPLES]
# What differs between two runs of the same sweep: how long the compile took, and where the
# program came from.
RUN_FIELDS = ("compile_s", "cached")


def _same(rows):
    return [{k: v for k, v in row.items() if k not in RUN_FIELDS} for row in rows]


@pytest.fixture(scope="module")
def llama_configs():
    """26 configurations of a Llama-style train step: 3 meshes x 2 batches x 2 remat policies
    on two TPU generations, one whose activations do not fit a v5e (4 layers, a sequence of
    4096, no remat: 16 sequences x 8 heads x 4096^2 f32 logits are 8.6 GB a layer) and one
    whose vocabulary (1021) the mesh's tensor axis (2) does not divide."""
    grid = hs.grid(tensor=[1, 2, 4], batch_per_device=[2, 4], remat=["full", "dots"])
    configs = [dict(c, target=t) for t in ("tpu_v5e:2x2", "tpu_v6e:2x2") for c in grid]
    configs.append(dict(tensor=1, batch_per_device=16, remat="none", oversize=True,
                        target="tpu_v5e:2x2"))
    configs.append(dict(tensor=2, batch_per_device=2, remat="full", vocab=1021,
                        target="tpu_v6e:2x2"))
    return configs


@pytest.fixture
def ray_cluster():
    """A Ray cluster of two nodes on this machine (Ray's own test utility: a head and a second
    raylet, 1 CPU each), for one test; its processes end with it."""
    ray = pytest.importorskip("ray")
    from ray.cluster_utils import Cluster
    cluster = Cluster(initialize_head=True,
                      head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()


@pytest.fixture(scope="module")
def llama_local(llama_configs, tmp_path_factory):
    cache = str(tmp_path_factory.mktemp("cache-local"))
    result = hs.run("sweep_steps:llama_tiny", llama_configs, engine=hs.Local(workers=2),
                    compile=hs.Compile(cache=cache, path=PATH, timeout_s=300), progress=False)
    return result, cache


def test_llama_sweep_local(llama_local, llama_configs):
    result, _ = llama_local
    # The vocabulary the tensor axis does not divide is refused before compiling: 25 compiled.
    assert len(result.rows) == len(llama_configs) == 26 and result.compiled == 25
    rows = result.rows
    ok = [r for r in rows if not r["error"]]
    assert len(ok) == 24
    assert {r["target"] for r in ok} == {"tpu_v5e:2x2", "tpu_v6e:2x2"}
    for r in ok:
        assert r["chips"] == 4 and r["devices"] == 4
        assert 0 < r["roofline_step_time_s"] <= r["step_time_s"]
        assert 0 < r["mfu"] < 1 and r["mfu_flops"] == "model"
        assert r["fits"] and 0 < r["headroom"] < 1
        assert r["peak_bytes"] > 0 and r["xla_peak_bytes"] > 0 and r["compile_s"] > 0
        # tokens a step: batch_per_device x 4 devices x 128 tokens a sequence, whatever the
        # tensor axis (tensor parallelism does not shrink the work).
        tokens = r["batch_per_device"] * 4 * 128
        assert r["tokens_per_s_per_chip"] == pytest.approx(tokens / r["step_time_s"] / 4)
        # Like with like: our footprint against XLA's arguments + outputs + temporaries -
        # aliased (memory_analysis()), within 2% (measured: 1.2% at most on this grid, 1.12 MB
        # against 1.10 MB); fits and headroom rest on the footprint.
        assert r["footprint_bytes"] == pytest.approx(r["xla_footprint_bytes"], rel=0.02)
        # Temporaries against XLA's temp_size_in_bytes: equal on every row of this grid (a
        # loop condition's predicate in a 16 KiB place of its own; without it 16 rows were one
        # place, 16,384 B, short).
        assert r["temp_bytes"] == r["xla_temp_bytes"]
        assert r["headroom"] == pytest.approx(
            (r["capacity_bytes"] - r["footprint_bytes"]) / r["capacity_bytes"])
    oversize = next(r for r in rows if r.get("oversize"))
    assert oversize["fits"] is False and "CompileTimeHbmOom" in oversize["error"]
    ragged = next(r for r in rows if r.get("vocab") == 1021)
    assert "divisible" in ragged["error"] and "\n" not in ragged["error"]
    assert ragged["error"].startswith("refused before compiling: cannot shard: ")
    # Remat "full" recomputes the forward pass in the backward one: more FLOPs run than with
    # the matrix products saved ("dots"), the model's FLOPs the same.
    flops = {}
    for i, r in enumerate(rows):
        if not r["error"]:
            key = (r["target"], r["tensor"], r["batch_per_device"], r["remat"])
            flops[key] = hloroof.cost(result.program(i)).totals.flops
    for (target, tensor, batch, remat), value in flops.items():
        if remat == "full":
            assert value > flops[(target, tensor, batch, "dots")]
    assert any(result.front)
    for line in result.table().splitlines():
        assert len(line) <= 100, line


def test_llama_sweep_ray_gives_the_same_rows(llama_local, llama_configs, ray_cluster,
                                             tmp_path):
    local, _ = llama_local
    # One configuration on each generation, and the one refused before compiling: the engine,
    # not the grid, is what this test is about.
    picked = [0, len(llama_configs) // 2, len(llama_configs) - 1]
    assert llama_configs[picked[0]]["target"] != llama_configs[picked[1]]["target"]
    streamed = []
    result = hs.run("sweep_steps:llama_tiny", [llama_configs[i] for i in picked],
                    engine=hs.Ray(address=ray_cluster.address),
                    compile=hs.Compile(cache=str(tmp_path), path=PATH, timeout_s=300),
                    progress=False, on_row=streamed.append)
    assert result.compiled == 2 and len(streamed) == 3  # one refused before compiling
    # Row for row, but for the front, which is the whole sweep's (here 3 rows, there 26).
    def rows(of):
        return [{k: v for k, v in r.items() if k != "pareto"} for r in _same(of)]
    assert rows(result.rows) == rows([local.rows[i] for i in picked])
    import ray
    assert sum(node["Alive"] for node in ray.nodes()) == 2


def test_ray_keeps_the_compilers_log_in_the_store(ray_cluster, tmp_path, capfd):
    """The TPU compiler's log lines of a compile on a Ray node go to the store entry beside
    its program, none to the driver's terminal; the builder's module reaches the nodes in the
    runtime environment (working_dir)."""
    import ray
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    shutil.copy(os.path.join(HERE, "sweep_steps.py"), shipped / "shipped_steps.py")
    ray.init(address=ray_cluster.address, log_to_driver=False,
             runtime_env={"working_dir": str(shipped)})
    cache = tmp_path / "cache"
    result = hs.run("shipped_steps:mlp", [{"width": 128}, {"width": 256}], ["tpu_v5e:2x2"],
                    engine=hs.Ray(), progress=False,
                    compile=hs.Compile(cache=str(cache), path=[str(shipped)], timeout_s=300))
    assert [r["error"] for r in result.rows] == [None, None] and result.compiled == 2
    store = hs.Store(str(cache))
    for row in result.rows:
        with open(os.path.join(store.path(row["entry"]), "stderr.txt")) as f:
            log = f.read()
        # libtpu's own lines (glog's "I1129 ..." or absl's "I0000 ..." prefix).
        assert any(line[:1] in "IWE" and line[1:5].isdigit() for line in log.splitlines()), log
    _, err = capfd.readouterr()
    assert not any(line[:1] in "IWE" and line[1:5].isdigit() for line in err.splitlines()), err


def test_second_run_compiles_nothing(llama_local, llama_configs):
    local, cache = llama_local
    start = time.monotonic()
    again = hs.run("sweep_steps:llama_tiny", llama_configs, engine=hs.Local(workers=2),
                   compile=hs.Compile(cache=cache, path=PATH), progress=False)
    assert again.compiled == 0 and all(r["cached"] for r in again.rows)
    assert _same(again.rows) == _same(local.rows)
    # Re-predicting 26 programs from the store: seconds, not compiles.
    assert time.monotonic() - start < 30
    assert local.compile_peak_bytes > 100e6 and again.compile_peak_bytes is None
    # Another device model: every program predicted again, none compiled. An HBM of 4e11 B/s,
    # under v5e's 8.19e11 and v6e's 1.64e12 (data/hardware/): every step slower.
    slower = hs.run("sweep_steps:llama_tiny", llama_configs, engine=hs.Local(workers=2),
                    compile=hs.Compile(cache=cache, path=PATH), progress=False,
                    settings=["hbm.bandwidth=4e11"])
    assert slower.compiled == 0
    for before, after in zip(local.rows, slower.rows):
        if not before["error"]:
            assert after["step_time_s"] > before["step_time_s"]


def test_pool_size(monkeypatch):
    """A pool of one worker a core, fewer where the memory of a compile says so."""
    from hloroof.sweep import _engines
    monkeypatch.setattr(_engines, "cores", lambda: 16)
    monkeypatch.setattr(_engines, "available_memory", lambda: 20 << 30)
    assert _engines.pool_size(None) == 16
    assert _engines.pool_size(None, limit=2) == 2
    # 20 GiB over 4 GiB a compile with a quarter to spare: 20 / 5 = 4 workers.
    assert _engines.pool_size(4 << 30) == 4
    assert _engines.pool_size(64 << 30) == 1


class InlineEngine:
    """An engine of this test's own, one class of the hs.Engine protocol: each job compiled in
    turn, in a process of its own, by the body of the Ray engine's task; a configuration
    with "skip" is not compiled, its outcome a failure the store does not keep."""

    def __init__(self):
        self.started = 0
        self.compiled = []

    def start(self):
        self.started += 1

    def compile(self, jobs, store, timeout_s, done, running):
        from hloroof.sweep import _engines
        for index, job in jobs:
            running(1)
            if job["config"].get("skip"):
                outcome = hs.Outcome.failed("inline: skipped")
            else:
                outcome = _engines.compile_here(job, timeout_s)
                self.compiled.append(job["config"])
            running(0)
            done(index, outcome)


def test_an_engine_is_one_class(tmp_path):
    """A class with start() and compile() runs a sweep: its rows are the local engine's; its
    failures are rows; what it compiled is stored, and a rerun starts it no more."""
    engine = InlineEngine()
    configs = [{"width": 128}, {"width": 256, "skip": True}]
    options = hs.Compile(cache=str(tmp_path / "inline"), path=PATH, timeout_s=300)
    result = hs.run("sweep_steps:mlp", configs, ["tpu_v5e:2x2"], engine=engine, compile=options,
                    progress=False)
    assert engine.started == 1 and engine.compiled == [{"width": 128}]
    assert result.compiled == 2 and result.compile_peak_bytes > 0
    made, skipped = result.rows
    assert made["error"] is None and made["step_time_s"] > 0 and made["fits"] is True
    assert skipped["error"] == "inline: skipped" and skipped["fits"] is None
    local = hs.run("sweep_steps:mlp", configs[:1], ["tpu_v5e:2x2"], engine=hs.Local(workers=1),
                   compile=hs.Compile(cache=str(tmp_path / "local"), path=PATH),
                   progress=False)
    assert _same([made]) == _same(local.rows)
    store = hs.Store(str(tmp_path / "inline"))
    assert store.get(made["entry"]).text == result.program(0)
    assert store.get(skipped["entry"]) is None  # not kept: compiled again next time
    again = hs.run("sweep_steps:mlp", configs[:1], ["tpu_v5e:2x2"], engine=engine,
                   compile=options, progress=False)
    assert again.compiled == 0 and again.rows[0]["cached"] and engine.started == 1


def test_cache_invalidation(tmp_path):
    """A changed builder source, flags or configuration compiles again; nothing else does."""
    folder = tmp_path / "mod"
    folder.mkdir()
    shutil.copy(os.path.join(HERE, "sweep_steps.py"), folder / "steps_copy.py")
    cache = str(tmp_path / "cache")

    def sweep(configs, flags=""):
        return hs.run("steps_copy:mlp", configs, ["tpu_v5e:2x2"], engine=hs.Local(workers=2),
                      compile=hs.Compile(flags=flags, cache=cache, path=[str(folder)]),
                      progress=False)

    assert sweep([{"width": 128}]).compiled == 1
    assert sweep([{"width": 128}]).compiled == 0
    assert sweep([{"width": 128}, {"width": 256}]).compiled == 1  # only the new one
    with open(folder / "steps_copy.py", "a") as f:
        f.write("\n# changed\n")
    assert sweep([{"width": 128}]).compiled == 1
    flagged = sweep([{"width": 128}], flags="--xla_tpu_enable_latency_hiding_scheduler=false")
    assert flagged.compiled == 1 and not flagged.rows[0]["error"]
    assert sweep([{"width": 128}]).compiled == 0


def test_failures_say_why_and_do_not_end_the_sweep(tmp_path):
    import sweep_steps  # the builder given as a function: its module is imported by name
    configs = [{"width": 128}, {"die": True}, {"hang": True}, {"broken": True},
               {"none": True}]
    # A timeout the small compiles here stay well under on a loaded machine too (a few seconds
    # each, measured): the hanging builder alone reaches it.
    result = hs.run(sweep_steps.mlp, configs, ["tpu_v5e:2x2"], engine=hs.Local(workers=2),
                    compile=hs.Compile(timeout_s=45, cache=str(tmp_path)), progress=False)
    errors = {r["config"]: r["error"] for r in result.rows}
    assert errors["width=128"] is None
    assert errors["die=True"].startswith("killed for memory: SIGKILL")
    assert errors["hang=True"] == "timeout: the compile ran past 45 s"
    # The builder's own exception, in one line; the store's entry keeps its traceback.
    assert errors["broken=True"] == "KeyError: 'no_such_key'"
    assert errors["none=True"] == ("ValueError: the builder returned None: return a "
                                   "hloroof.sweep.Step (or a dict of its fields)")
    store = hs.Store(str(tmp_path))
    broken = next(r for r in result.rows if r["config"] == "broken=True")
    with open(os.path.join(store.path(broken["entry"]), "failure.json")) as f:
        kept = json.load(f)
    assert kept["reason"] == "KeyError: 'no_such_key'"
    assert "sweep_steps.py\", line " in kept["traceback"] and "no_such_key" in kept["traceback"]
    # Only the deterministic failure is stored: a rerun tries the others again.
    store = hs.Store(str(tmp_path))
    stored = [store.get(r["entry"]) for r in result.rows]
    assert [s is not None for s in stored] == [True, False, False, True, True]


def _spec(tmp_path, configs, extra=""):
    lines = ['builder = "sweep_steps:mlp"', f"path = {json.dumps(PATH)}",
             'targets = ["tpu_v5e:2x2"]', f'cache = "{tmp_path / "cache"}"', "workers = 1", extra]
    for c in configs:
        lines.append("[[configs]]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in c.items()]
    spec = tmp_path / "sweep.toml"
    spec.write_text("\n".join(lines) + "\n")
    return spec


def test_ctrl_c_keeps_finished_rows(tmp_path):
    spec = _spec(tmp_path, [{"width": 128}, {"hang": True}, {"width": 256}])
    out = tmp_path / "rows.csv"
    child = subprocess.Popen([sys.executable, "-m", "hloroof.sweep", str(spec), "--out",
                              str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    # The progress line (one a finished compile off a terminal) says when the first is done.
    line = child.stderr.readline()
    assert line.startswith("sweep: 1/3 done"), line
    child.send_signal(signal.SIGINT)
    stdout, stderr = child.communicate(timeout=60)
    assert child.returncode == 130, stderr
    assert "interrupted: 1 rows kept" in stderr
    with open(out) as f:
        rows = list(csv.DictReader(f))
    assert [r["config"] for r in rows] == ["width=128"]
    assert "width=128" in stdout


def test_outputs(tmp_path):
    spec = _spec(tmp_path, [{"width": 128}, {"width": 256}, {"broken": True}])
    out, svg = tmp_path / "rows.csv", tmp_path / "front.svg"
    run = subprocess.run([sys.executable, "-m", "hloroof.sweep", str(spec), "--out", str(out),
                          "--svg", str(svg), "--quiet"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    lines = run.stdout.splitlines()
    assert all(len(line) <= 100 for line in lines)
    # Fastest first; the faster of two configurations on the same chips with more headroom is
    # the front.
    frame = pandas.read_csv(out)
    assert list(frame["config"]) == ["width=128", "width=256", "broken=True"]
    # The configuration column: the values of the keys that differ between rows, named above.
    assert lines[0] == "configuration: width broken"
    assert lines[2].startswith("* 128 -") and lines[3].startswith("  256 -")
    assert lines[4:6] == ["failed: 1", "  - True" + " " * 55 + "tpu_v5e:2x2"]
    assert frame["pareto"].tolist() == [True, False, False]
    root = ET.parse(svg).getroot()
    circles = root.findall("{http://www.w3.org/2000/svg}circle")
    # One point a configuration that compiled (a title each), one legend mark a target.
    points = [c for c in circles if c.find("{http://www.w3.org/2000/svg}title") is not None]
    assert len(points) == 2 and len(circles) == 3
    parquet = subprocess.run([sys.executable, "-m", "hloroof.sweep", str(spec), "--out",
                              str(tmp_path / "rows.parquet"), "--quiet"],
                             capture_output=True, text=True)
    try:
        import pyarrow  # noqa: F401
        assert parquet.returncode == 0
    except ImportError:
        assert parquet.returncode == 2 and "needs pyarrow" in parquet.stderr


def test_spec_errors(tmp_path):
    spec = tmp_path / "bad.toml"
    spec.write_text('builder = "sweep_steps:mlp"\ntarget = ["tpu_v5e:2x2"]\n[grid]\nwidth = [1]\n')
    run = subprocess.run([sys.executable, "-m", "hloroof.sweep", str(spec)],
                         capture_output=True, text=True)
    assert run.returncode == 2 and "unknown keys ['target']" in run.stderr


def test_pareto_front_by_hand():
    """Step time, chips and headroom: a row is on the front unless another is no worse in all
    three and better in one."""
    def row(step, chips, headroom, fits=True):
        return {"step_time_s": step, "chips": chips, "headroom": headroom, "fits": fits,
                "error": None}
    rows = [row(1.0, 4, 0.5),   # front: fastest on 4 chips
            row(2.0, 4, 0.4),   # dominated by the first
            row(3.0, 2, 0.4),   # front: fewest chips
            row(4.0, 4, 0.9),   # front: most headroom
            row(0.5, 2, -0.1, fits=False)]  # does not fit: never on the front
    assert _report.pareto(rows) == [True, False, True, True, False]


def test_per_device():
    # A TPU7x chip is 2 devices: 6 sequences a chip are 3 a device.
    assert hs.per_device({"batch_per_chip": 6}, devices=8, chips=4) == {
        "batch_per_chip": 6, "batch_per_device": 3, "devices_per_chip": 2}
    with pytest.raises(ValueError, match="multiple of 2"):
        hs.per_device({"batch_per_chip": 3}, devices=8, chips=4)


def test_what_if_without_compiling(llama_local):
    local, _ = llama_local
    index = next(i for i, r in enumerate(local.rows) if not r["error"])
    module = hloroof.parse(local.program(index))
    edits = [[], ["hbm.bandwidth=1.6e12"], ["hbm.capacity=1e5"]]
    frame = hs.what_if(module, ["tpu_v5e:2x2", "tpu_v6e:2x2"], edits)
    assert len(frame) == 6 and frame["error"].isna().all()
    for _, r in frame.iterrows():
        expected = hloroof.predict(module, r["device"], settings=r["edits"].split() or None)
        assert r["step_time_s"] == expected.step_time_s
    v5e = frame[frame["device"] == "tpu_v5e:2x2"].set_index("edits")
    # About twice v5e's 8.19e11 B/s HBM (data/hardware/tpu_v5e.json): no op slower.
    assert v5e.loc["hbm.bandwidth=1.6e12", "step_time_s"] <= v5e.loc["", "step_time_s"]
    # 100 kB of HBM: the step's footprint (what hloroof memory checks; 1.1-1.4 MB a device at
    # these sizes, measured) does not fit.
    assert not v5e.loc["hbm.capacity=1e5", "fits"] and v5e.loc["", "fits"]


def test_recipe_runner_on_tpu7x(tmp_path):
    """bench/tpu_recipes.py's recipes are a sweep; a recipe published per chip runs on TPU7x,
    whose chip is two JAX devices: a 2x2x1 slice is 4 chips, 8 devices, each with half a chip's
    batch (here 2 of 4 sequences)."""
    sys.path.insert(0, os.path.join(SOURCE, "bench"))
    try:
        import tpu_recipes
    finally:
        sys.path.pop(0)
    tiny = tpu_recipes.completed(dict(
        model="dense", layers=2, width=128, ffn=256, heads=2, kv_heads=1, head_dim=64,
        vocab=512, target="tpu7x:2x2x1", batch_per_chip=4, seq=256, step_s=0.01,
        tflops_per_chip=100.0, flags=""))
    odd = dict(tiny, batch_per_chip=3)
    rows = tpu_recipes.rows({"tiny-7x": tiny, "odd-7x": odd}, str(tmp_path),
                            hs.Local(workers=2), timeout_s=300, progress=False)
    row = rows[0]
    assert "error" not in row, row
    assert (row["chips"], row["devices"]) == (4, 8)
    # Model FLOPs: 100 TFLOP/s a chip x 0.01 s x 4 chips = 4e12 over 8 devices of 1.1535e15
    # FLOP/s (data/hardware/tpu7x.json, a TensorCore): mfu x step = 4e12 / (8 x 1.1535e15).
    assert row["mfu_expected"] * row["expected_step_s"] == pytest.approx(4e12 / 8 / 1.1535e15)
    assert row["mfu_measured"] == pytest.approx(4e12 / 8 / 1.1535e15 / 0.01)
    assert row["xla_temp_bytes"] > 0
    assert rows[1]["error"] == ("ValueError: batch_per_chip=3 does not split over the 2 "
                                "devices of a chip: give a multiple of 2")
    text = tpu_recipes.row_text(row)
    assert text.startswith("tiny-7x") and len(text) <= 100
    # A name longer than its column (25) takes a line of its own; the figures stay in 100.
    long = tpu_recipes.row_text(dict(row, recipe="llama3.1-70b-128k-fp8-tpu7x-256"))
    name, figures = long.split("\n")
    assert name == "llama3.1-70b-128k-fp8-tpu7x-256" and len(figures) <= 100
    assert figures[26:].split()[0] == "4"  # the chips, in their column


def test_what_if_command(llama_local, tmp_path):
    local, _ = llama_local
    index = next(i for i, r in enumerate(local.rows) if not r["error"])
    program = tmp_path / "step.hlo"
    program.write_text(local.program(index))
    out = tmp_path / "what-if.csv"
    run = subprocess.run([sys.executable, "-m", "hloroof.sweep", "what-if", str(program),
                          "--device", "tpu_v5e:2x2", "--device", "tpu_v6e:2x2",
                          "--edit", "hbm.capacity=1e5", "--out", str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 7 and all(len(line) <= 100 for line in lines)
    # The program's own FLOPs (no --model-flops): HFU, not MFU; the headroom of the footprint.
    assert lines[0].split()[4:] == ["HFU", "footprint", "peak", "headroom"]
    # 100 kB of HBM holds neither (the footprint: 1.07-1.4 MB a device, measured): the headroom
    # (1e5 - footprint) / 1e5 is -970% to -1300%, below -500%.
    assert all(float(line.split()[-1].rstrip("%")) < -500 for line in lines[1:5][1::2])
    frame = pandas.read_csv(out)
    module = hloroof.parse(str(program))
    assert frame["step_time_s"][0] == pytest.approx(
        hloroof.predict(module, "tpu_v5e:2x2").step_time_s)
    missing = subprocess.run([sys.executable, "-m", "hloroof.sweep", "what-if",
                              str(tmp_path / "none.hlo"), "--device", "tpu_v5e:2x2"],
                             capture_output=True, text=True)
    assert missing.returncode == 2 and "none.hlo" in missing.stderr


def _hand_row(step, chips=4, headroom=0.5, target="tpu_v5e:2x2", **extra):
    """A row as `run` makes it, by hand: `extra` goes before its "config" column (the
    configuration's own keys) unless it is a column of the sweep's."""
    own = {k: v for k, v in extra.items() if k not in hs.COLUMNS}
    row = dict(own, config=" ".join(f"{k}={v}" for k, v in own.items()), target=target,
               chips=chips, devices=chips, step_time_s=step, roofline_step_time_s=step / 2,
               mfu=0.5, mfu_flops="model", headroom=headroom, fits=headroom >= 0, error=None)
    row.update({k: v for k, v in extra.items() if k in hs.COLUMNS})
    return row


def test_control_characters_never_reach_the_terminal():
    """A target named after a device file, a configuration's value or an error may hold
    escapes: the table shows them escaped, one row a line."""
    rows = [_hand_row(0.5, target="my\x1b[2J.json", name="a\rb"),
            dict(_hand_row(0.5, name="c"), error="Error: \x1b]8;;http://x\x07 bad\nline")]
    text = _report.table(rows, _report.pareto(rows))
    assert not any(not c.isprintable() for c in text.replace("\n", ""))
    assert "my\\x1b[2J" in text and "\\x1b]8;;" in text
    # Each row is one line: the error's newline is escaped, not written.
    assert sum("bad\\nline" in line for line in text.splitlines()) == 1
    what_if = _report.what_if_table([dict(rows[0], device="h\x1bx", edits="")])
    assert "h\\x1bx" in what_if and "\x1b" not in what_if


def test_what_if_refuses_an_empty_device(tmp_path):
    program = tmp_path / "p.hlo"
    program.write_text("HloModule m\nENTRY e { ROOT p = f32[8] parameter(0) }\n")
    for device in ("", "  "):
        run = subprocess.run([sys.executable, "-m", "hloroof.sweep", "what-if", str(program),
                              "--device", device], capture_output=True, text=True)
        assert run.returncode == 2, run.stderr
        assert "name a device and its slice" in run.stderr and "Traceback" not in run.stderr


def test_front_and_order_by_throughput():
    """A configuration that does less work a step is faster, not better: where the builder
    gives tokens, the rows rank and the front is built on tokens a second a chip."""
    # batch 4 runs half the tokens of batch 8 in 0.6 of the time: 4096 / 0.6 / 4 = 1707
    # tokens a second a chip against 8192 / 1.0 / 4 = 2048.
    rows = [_hand_row(0.6, batch=4, tokens_per_s_per_chip=4096 / 0.6 / 4),
            _hand_row(1.0, batch=8, tokens_per_s_per_chip=8192 / 1.0 / 4)]
    front = _report.pareto(rows)
    assert front == [False, True] and _report.order(rows) == [1, 0]
    lines = _report.table(rows, front).splitlines()
    assert lines[1].split()[4] == "tok/s/chip"
    assert lines[2].split()[:2] == ["*", "8"] and "2.05k" in lines[2].split()
    assert lines[3].split()[0] == "4" and "1.71k" in lines[3].split()
    assert "fastest first, by tokens a second a chip" in lines[4]
    assert all(len(line) <= 100 for line in lines)
    # Model FLOPs alone: by model FLOPs a second a chip, 4e12 / 0.6 / 4 = 1.67e12 against
    # 1e13 / 1.0 / 4 = 2.5e12.
    rows = [_hand_row(0.6, batch=4, model_flops=4e12), _hand_row(1.0, batch=8, model_flops=1e13)]
    assert _report.pareto(rows) == [False, True] and _report.order(rows) == [1, 0]
    assert "2.5T" in _report.table(rows, _report.pareto(rows)).splitlines()[2].split()
    # Neither: by step time, as before.
    rows = [_hand_row(0.6, batch=4), _hand_row(1.0, batch=8)]
    assert _report.pareto(rows) == [True, False] and _report.order(rows) == [0, 1]


def test_pareto_front_against_every_pair():
    """The front, kept as it grows, is the one every pair of rows gives."""
    import random
    generator = random.Random(7)
    rows = [_hand_row(generator.choice([0.5, 1.0, 1.5, 2.0]), chips=generator.choice([1, 2, 4]),
                      headroom=generator.choice([-0.1, 0.2, 0.4, 0.6])) for _ in range(300)]

    def point(row):
        return (row["step_time_s"], row["chips"], -row["headroom"])

    fit = [i for i, r in enumerate(rows) if r["fits"]]
    expected = [i in fit and not any(point(rows[j]) != point(rows[i]) and all(
        x <= y for x, y in zip(point(rows[j]), point(rows[i]))) for j in fit)
        for i in range(len(rows))]
    assert _report.pareto(rows) == expected and any(expected)


def test_the_svg_names_targets_and_counts_whole_chips():
    svg_ns = "{http://www.w3.org/2000/svg}"
    rows = [_hand_row(1.0, chips=1, target="tpu_v5e:1x1", tokens_per_s_per_chip=1000),
            _hand_row(0.9, chips=2, target="tpu_v5e:2x1", tokens_per_s_per_chip=1100),
            _hand_row(0.8, chips=3, target="tpu_v6e:3x1", tokens_per_s_per_chip=1200)]
    root = ET.fromstring(_report.svg(rows, _report.pareto(rows)))
    texts = [t.text or "" for t in root.iter(svg_ns + "text")]
    # A legend line a target, each front label naming its target.
    for target in ("tpu_v5e:1x1", "tpu_v5e:2x1", "tpu_v6e:3x1"):
        assert target in texts and any(t.endswith(" on " + target) for t in texts)
    # The chips axis: whole chips only (never 1.1, 2.2, 3.3).
    ticks = [t.text for t in root.iter(svg_ns + "text") if t.get("text-anchor") == "end"
             and t.get("x") == "64"]
    assert ticks == ["1", "2", "3"]
    # Every configuration on the same chips: the headroom goes up instead, each point apart.
    rows = [_hand_row(1.0, headroom=h, tokens_per_s_per_chip=1000 * h, batch=b)
            for b, h in ((2, 0.2), (4, 0.4), (8, 0.6))]
    root = ET.fromstring(_report.svg(rows, _report.pareto(rows)))
    heights = {c.get("cy") for c in root.iter(svg_ns + "circle")
               if c.find(svg_ns + "title") is not None}
    assert len(heights) == 3
    assert any("headroom" in (t.text or "") for t in root.iter(svg_ns + "text"))


def test_progress_line():
    show = _report.Progress(total=4, to_compile=3, stream=open(os.devnull, "w"))
    show.running, show.compiling = 1, ["width=128 on tpu_v5e:2x2"]
    # The first compile running: no time left to say yet, and no "ETA -" for it.
    line = show.line()
    assert line.startswith("sweep: 0/4 done, 0 failed, 0 cached, 1 running, 0s elapsed")
    assert "ETA" not in line and line.endswith("; compiling width=128 on tpu_v5e:2x2")
    show.compiled = show.done = 1
    assert ", ETA " in show.line()
    assert [_report.duration(s) for s in (45, 185, 3725)] == ["45s", "3m05s", "1h02m"]


HLO = """HloModule m
ENTRY e {
  p = f32[1024,1024] parameter(0)
  ROOT a = f32[1024,1024] add(p, p)
}
"""


def test_names_and_outputs_are_checked_before_compiling(tmp_path):
    """A bad output, device, edit or target is refused before anything compiles (the one
    configuration here would sleep 600 s), with the whole message and exit status 2."""
    def sweep(args, config):
        spec = _spec(tmp_path, [config])
        return subprocess.run([sys.executable, "-m", "hloroof.sweep", str(spec), "--quiet",
                               *args], capture_output=True, text=True, timeout=120)

    hang = {"hang": True}
    cases = [(["--out", str(tmp_path / "rows.txt")], hang, "write .csv or .parquet"),
             (["--out", str(tmp_path / "none" / "rows.csv")], hang, "no folder"),
             (["--svg", str(tmp_path / "front.png")], hang, "write .svg"),
             (["--set", "hbm.bandwidht=1e12"], hang, "has no such figure; its figures: "),
             ([], dict(hang, target="tpu_v5ee:2x2"), "did you mean")]
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        cases.append((["--out", str(tmp_path / "rows.parquet")], hang, "needs pyarrow"))
    for args, config, why in cases:
        run = sweep(args, config)
        assert run.returncode == 2 and why in run.stderr, (args, run.stderr)
        assert run.stderr.startswith("error: ") and run.stdout == ""
    assert not os.path.exists(tmp_path / "cache") or not any(
        os.scandir(tmp_path / "cache")), "something compiled"
    program = tmp_path / "m.hlo"
    program.write_text(HLO)
    for args, why in ((["--device", "tpu_v5e:2x2", "--edit", "hbm.bandwidht=1e12"],
                       "has no such figure; its figures: "),
                      (["--device", "tpu_v5ee:2x2"], "did you mean")):
        run = subprocess.run([sys.executable, "-m", "hloroof.sweep", "what-if", str(program),
                              *args], capture_output=True, text=True, timeout=120)
        assert run.returncode == 2 and why in run.stderr, run.stderr
        assert run.stdout == ""


def test_ray_auto_without_a_cluster_is_one_line(tmp_path):
    pytest.importorskip("ray")
    from ray._private import services
    if services.find_gcs_addresses():
        pytest.skip("a Ray cluster runs on this machine")
    spec = _spec(tmp_path, [{"width": 128}])
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    run = subprocess.run([sys.executable, "-m", "hloroof.sweep", str(spec), "--quiet", "--ray",
                          "auto"], capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        "error: Ray at auto: no Ray cluster runs on this machine; start one (ray start "
        "--head), or give 'local' for a Ray of this sweep's own"]



def test_a_jobs_flags_go_to_the_compiler_of_its_target():
    # libtpu reads LIBTPU_INIT_ARGS; XLA's GPU compiler, XLA_FLAGS (a device file is its base's
    # kind); a target hloroof does not know leaves the compile to say so, the flags to libtpu.
    from hloroof.sweep import _compile
    assert _compile.flags_variable("tpu_v5e:2x2") == "LIBTPU_INIT_ARGS"
    assert _compile.flags_variable("tpu_v6e:16x16,slices=2") == "LIBTPU_INIT_ARGS"
    assert _compile.flags_variable("h200:32x8") == "XLA_FLAGS"
    jean_zay = os.path.join(SOURCE, "examples", "a100_jean_zay.json")
    assert _compile.flags_variable(jean_zay + ":2x8") == "XLA_FLAGS"
    assert _compile.flags_variable("no_such_chip:8") == "LIBTPU_INIT_ARGS"
