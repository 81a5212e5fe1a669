"""hloroof.sweep against input that once hurt it: specs of the wrong type or size, a store with
corrupt entries or that cannot be written, compiles that must end with their sweep (real
signals, real processes), Ray addresses that answer nothing, outputs written whole. The toy
steps of sweep_steps.py compile in about a second; every wait is generous (a loaded 2-core
machine), bounded only so that a hang fails instead of hanging the suite."""

import csv
import json
import os
import resource
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip("jax")
pytest.importorskip("libtpu")
pandas = pytest.importorskip("pandas")

import hloroof.sweep as hs  # noqa: E402
from hloroof.sweep import _cache, _files  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("HLOROOF_SOURCE_DIR", os.path.dirname(os.path.dirname(HERE)))
PATH = [HERE, os.path.join(SOURCE, "examples", "sweep")]
# Bounds that only a hang reaches.
HANG_S = 600


def _spec(folder, configs=None, extra="", grid=None, cache=None, workers=True):
    lines = ['builder = "sweep_steps:mlp"', f"path = {json.dumps(PATH)}",
             'targets = ["tpu_v5e:2x2"]', f'cache = "{cache or folder / "cache"}"']
    if workers:
        lines.append("workers = 1")
    lines.append(extra)
    if grid is not None:
        lines.append("[grid]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in grid.items()]
    for c in configs or []:
        lines.append("[[configs]]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in c.items()]
    spec = folder / "sweep.toml"
    spec.write_text("\n".join(lines) + "\n")
    return spec


def _sweep(*args, timeout=HANG_S, env=(), **kwargs):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **dict(env))
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("stderr", subprocess.PIPE)
    return subprocess.run([sys.executable, "-m", "hloroof.sweep", *map(str, args)], text=True,
                          timeout=timeout, env=env, **kwargs)


def _one_error_line(run):
    """The command refused its input with exit status 2 and one line, no traceback."""
    assert run.returncode == 2, (run.returncode, run.stderr)
    assert "Traceback" not in run.stderr, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), run.stderr
    return lines[0]


# --- specs and options ---------------------------------------------------------------------

def test_workers_below_one_refused(tmp_path):
    """workers = -1 once hung the sweep (a pool limit of -1 starts nothing)."""
    spec = _spec(tmp_path, [{"width": 128}], workers=False, extra="workers = -1")
    assert "workers = -1: expected a whole number" in _one_error_line(_sweep(spec))
    spec = _spec(tmp_path, [{"width": 128}], workers=False)
    for given in ("-1", "0"):
        line = _one_error_line(_sweep(spec, "--workers", given))
        assert f"workers={given}: a whole number of compiles at once" in line
    with pytest.raises(ValueError, match="workers=-1"):
        hs.run("sweep_steps:mlp", [{"width": 128}], ["tpu_v5e:2x2"], engine=hs.Local(workers=-1),
               compile=hs.Compile(path=PATH, cache=str(tmp_path / "cache")), progress=False)


@pytest.mark.parametrize("make, says", [
    (lambda: hs.Local(workers=0), "workers=0: a whole number of compiles at once, 1 or more"),
    (lambda: hs.Local(workers=True), "workers=True: a whole number"),
    (lambda: hs.Local(workers=2.0), "workers=2.0: a whole number"),
    (lambda: hs.Local(compile_memory=float("nan")), "compile_memory=nan: bytes, above 0"),
    (lambda: hs.Ray(compile_memory=0), "compile_memory=0: bytes, above 0"),
    (lambda: hs.Ray(address=" "), "address=' ': a Ray address"),
    (lambda: hs.Ray(cpus=0), "cpus=0: CPUs a compile, above 0"),
    (lambda: hs.Ray(cpus=float("inf")), "cpus=inf: CPUs a compile"),
    (lambda: hs.Compile(timeout_s=-1), "timeout_s=-1: seconds one compile may take"),
    (lambda: hs.Compile(flags=["--a"]), "flags=['--a']: one string of XLA flags"),
    (lambda: hs.Compile(path="."), "path='.': a list of folders"),
    (lambda: hs.Compile(path=[5]), "path=[5]: a list of folders"),
    (lambda: hs.Compile(cache=5), "cache=5: the store's folder"),
])
def test_engines_and_options_refuse_values_naming_them(make, says):
    with pytest.raises(ValueError) as raised:
        make()
    assert str(raised.value).startswith(says), str(raised.value)


def test_run_takes_engines_and_options_only(tmp_path):
    assert hs.Compile(path=iter(["a", "b"])).path == ("a", "b")
    args = ("sweep_steps:mlp", [{"width": 128}], ["tpu_v5e:2x2"])
    with pytest.raises(ValueError, match=r"engine='ray': an Engine \(hs.Local\(\), hs.Ray"):
        hs.run(*args, engine="ray", progress=False)
    with pytest.raises(ValueError, match="compile={'timeout_s': 5}: a hloroof.sweep.Compile"):
        hs.run(*args, compile={"timeout_s": 5}, progress=False)
    with pytest.raises(TypeError, match="workers"):
        hs.run(*args, workers=2, progress=False)
    assert not os.listdir(tmp_path)


def test_a_row_is_built_one_way():
    """Row.of: a failure's row (fits False where it cannot fit), a program's figures; what_if's
    rows are the same builder's (the same step, chips, fits and headroom)."""
    from hloroof.sweep import _rows
    refused = hs.Row.of("tpu_v5e:2x2", hs.Outcome.failed("refused before compiling: cannot "
                                                         "fit: the arguments alone", keep=True),
                        {"width": 1, "chips": [2], "target": "tpu_v5e:2x2"})
    assert (refused.fits, refused.chips, refused.devices) == (False, 4, None)
    shown = refused.as_dict()
    assert list(shown) == ["width", "config.chips", *hs.COLUMNS]
    assert (shown["config.chips"], shown["config"]) == ("[2]", "width=1 chips=[2]")
    oom = hs.Row.of("tpu_v5e:2x2", hs.Outcome.failed("JaxRuntimeError: RESOURCE_EXHAUSTED: "
                                                     "E1000: CompileTimeHbmOom: Ran out"))
    broken = hs.Row.of("tpu_v5e:2x2,slices=2", hs.Outcome.failed("KeyError: 'x'"))
    assert oom.fits is False and broken.fits is None and broken.chips == 8
    with pytest.raises(ValueError, match="a program .text and facts. or a failure"):
        hs.Outcome(text="HloModule m")
    with pytest.raises(ValueError, match="one of them"):
        hs.Outcome(text="HloModule m", facts={}, failure="no")
    text = """HloModule add

ENTRY main {
  a = f32[1048576]{0} parameter(0)
  b = f32[1048576]{0} parameter(1)
  ROOT c = f32[1048576]{0} add(a, b)
}
"""
    facts = {"chips": 4, "devices": 4, "compile_s": 0.5, "xla_memory": {}, "tokens": 4096,
             "model_flops": 1e6}
    row = hs.Row.of("tpu_v5e:2x2", hs.Outcome(text=text, facts=facts), {"batch": 8})
    assert row.error is None and row.step_time_s > 0 and row.mfu_flops == "model"
    assert row.tokens_per_s_per_chip == pytest.approx(4096 / row.step_time_s / 4)
    assert row.fits is True and 0 < row.headroom < 1 and row.compile_s == 0.5
    import hloroof
    check = hloroof.memory(hloroof.parse(text), "tpu_v5e:2x2", top_buffers=1).capacity
    assert (row.capacity_bytes, row.fits, row.headroom) == (check.capacity_bytes, check.fits,
                                                             check.headroom)
    frame = hs.what_if(text, ["tpu_v5e:2x2"], [[], ["hbm.bandwidth=1e12"]], model_flops=1e6,
                       tokens=4096)
    assert frame["step_time_s"][1] != row.step_time_s  # the edit is the figures' own
    frame = frame[:1]
    for _, what in frame.iterrows():
        for column in ("step_time_s", "mfu", "tokens_per_s_per_chip", "capacity_bytes", "fits",
                       "headroom", "footprint_bytes", "peak_bytes"):
            assert what[column] == getattr(row, column), (what["device"], column)
    # A target's chips: its slice's, every slice counted; a device alone, its devices'.
    assert _rows.chips("tpu7x:2x2x1", 8, 2) == 4 and _rows.chips("tpu7x", 8, 2) == 4
    assert _rows.chips("tpu_v5e:2x2,slices=2", 8, 1) == 8 and _rows.chips("h100", 8, 1) == 8


@pytest.mark.parametrize("line, says", [
    ('targets = "tpu_v5e:2x2"', 'targets = \'tpu_v5e:2x2\': expected a list of targets'),
    ("targets = []", "targets = []: expected a list of targets"),
    ("targets = [5]", "targets = [5]: expected a list of targets"),
    ('workers = "2"', "workers = '2': expected a whole number"),
    ("workers = true", "workers = True: expected a whole number"),
    ("workers = 1.5", "workers = 1.5: expected a whole number"),
    ("timeout_s = 0", "timeout_s = 0: expected seconds one compile may take"),
    ("timeout_s = -5", "timeout_s = -5: expected seconds"),
    ('timeout_s = "60"', "timeout_s = '60': expected seconds"),
    ("timeout_s = nan", "timeout_s = nan: expected seconds"),
    ('engine = "bogus"', "engine = 'bogus': expected \"local\" or \"ray\""),
    ('address = ""', "address = '': expected a Ray address"),
    ("compile_memory_gb = -1", "compile_memory_gb = -1: expected GB"),
    ('compile_memory_gb = "8"', "compile_memory_gb = '8': expected GB"),
    ("ray_cpus = 0", "ray_cpus = 0: expected CPUs"),
    ("flags = ['--a']", "flags = ['--a']: expected a string of XLA flags"),
    ('path = "."', "path = '.': expected a list of folders"),
    ('settings = "hbm.bandwidth=1e12"', "settings = 'hbm.bandwidth=1e12': expected a list"),
    ("cache = 5", "cache = 5: expected a folder"),
    ("out = 5", "out = 5: expected a file, .csv or .parquet"),
    ("svg = true", "svg = True: expected a file, .svg"),
    # NUL, which no file name holds, once gave "error: embedded null byte", naming no key.
    ('cache = "a\\u0000b"', "cache = 'a\\x00b': expected a folder"),
    ('path = ["\\u0000"]', "path = ['\\x00']: expected a list of folders"),
    # 1e300 GB is no number of bytes (inf), once said as "compile_memory=inf".
    ("compile_memory_gb = 1e300", "compile_memory_gb = 1e+300: expected GB"),
])
def test_spec_values_of_the_wrong_type(tmp_path, line, says):
    """docs/sweep.md: exit status 2 and a message for a spec the sweep cannot use; a string for
    `targets` once compiled eleven one-letter targets and exited 0."""
    key = line.split()[0]
    lines = [ln for ln in _spec(tmp_path, [{"width": 128}]).read_text().splitlines()
             if not ln.startswith(key + " ")]
    spec = tmp_path / "typed.toml"
    spec.write_text(line + "\n" + "\n".join(lines) + "\n")
    assert says in _one_error_line(_sweep(spec))


def test_spec_tables_of_the_wrong_shape(tmp_path):
    for body, says in (('builder = 5\n[grid]\nwidth = [128]\n', "builder = 5: expected"),
                       ('builder = "sweep_steps:mlp"\nconfigs = [1, 2]\n',
                        "configs = [1, 2]: expected a list of tables"),
                       ('builder = "sweep_steps:mlp"\n[grid]\nwidth = []\n',
                        "grid = {'width': []}: expected a table of named axes")):
        spec = tmp_path / "shape.toml"
        spec.write_text(body)
        assert says in _one_error_line(_sweep(spec))
    with pytest.raises(ValueError, match="targets='tpu_v5e:2x2': a list of targets"):
        hs.run("sweep_steps:mlp", [{"width": 128}], "tpu_v5e:2x2",
               compile=hs.Compile(path=PATH), progress=False)
    with pytest.raises(ValueError, match="its 'target' is not a string"):
        hs.run("sweep_steps:mlp", [{"target": 5}], compile=hs.Compile(path=PATH),
               progress=False)


def test_options_refused_before_compiling(tmp_path):
    spec = _spec(tmp_path, [{"width": 128}])
    assert "--ray '': give HOST:PORT" in _one_error_line(_sweep(spec, "--ray", ""))
    # Empty names were taken as no option: no rows written, the default store.
    for option, says in (("--out", "a file, .csv or .parquet"), ("--svg", "a file, .svg"),
                         ("--cache", "a folder")):
        line = _one_error_line(_sweep(spec, option, ""))
        assert line == f"error: {option} '': give {says}", line
    line = _one_error_line(_sweep("what-if", spec, "--device", "tpu_v5e:2x2", "--out", " "))
    assert line == "error: --out ' ': give a file, .csv", line
    # A model FLOP count that is no count gave an error in every row and exit 0.
    for flops in ("nan", "-1", "inf"):
        line = _one_error_line(_sweep("what-if", spec, "--device", "tpu_v5e:2x2",
                                      "--model-flops", flops))
        assert line.startswith(f"error: --model-flops {flops}: give the model's FLOPs"), line
    # A terminal's escapes in a name reach the error line escaped (hloroof's message quotes
    # the device's name as it came).
    line = _one_error_line(_sweep("what-if", spec, "--device", "\x1b[2Jtpu:2x2"))
    assert "\x1b" not in line and "\\x1b[2Jtpu" in line, line
    assert "timeout_s=0.0: seconds" in _one_error_line(_sweep(spec, "--timeout", "0"))
    assert "compile_memory=" in _one_error_line(_sweep(spec, "--compile-memory", "-2"))
    assert not (tmp_path / "cache").exists()  # nothing compiled, no store made


def test_grid_counted_before_it_is_made(tmp_path):
    """A 3.4 KB spec of 27 million configurations once ended in MemoryError: the grid is
    counted first. Here 8 axes of 10 values: 10^8 configurations."""
    axes = {f"a{k}": list(range(10)) for k in range(8)}
    spec = _spec(tmp_path, grid=axes)
    line = _one_error_line(_sweep(spec))
    assert "the grid is 100,000,000 configurations, over the limit of 100,000" in line
    with pytest.raises(ValueError, match="over the limit of 100,000"):
        hs.grid(**axes)
    # Configurations times targets count too: 60,000 configurations on 2 targets.
    with pytest.raises(ValueError, match="the sweep is 120,000 configurations"):
        hs.run("sweep_steps:mlp", [{"width": w} for w in range(60_000)],
               ["tpu_v5e:2x2", "tpu_v6e:2x2"], compile=hs.Compile(path=PATH), progress=False)
    assert len(hs.grid(a=list(range(1000)), b=list(range(100)))) == 100_000


def test_builder_package_failing_on_import(tmp_path):
    package = tmp_path / "brokenpkg"
    package.mkdir()
    (package / "__init__.py").write_text("raise RuntimeError('boom: no such setting')\n")
    (package / "steps.py").write_text("def build(config):\n    return None\n")
    spec = tmp_path / "broken.toml"
    spec.write_text(f'builder = "brokenpkg.steps:build"\npath = ["{tmp_path}"]\n'
                    f'targets = ["tpu_v5e:2x2"]\ncache = "{tmp_path / "cache"}"\n'
                    f'[grid]\nwidth = [128]\n')
    line = _one_error_line(_sweep(spec))
    assert "importing the package of 'brokenpkg.steps' failed: RuntimeError: boom" in line


# --- the store -----------------------------------------------------------------------------

def _corrupt(store, entry, how):
    folder = store.path(entry)
    if how == "failure []":
        (open(os.path.join(folder, "failure.json"), "w")).write("[]")
    elif how == "failure reason 5":
        (open(os.path.join(folder, "failure.json"), "w")).write('{"reason": 5}')
    elif how == "failure null":
        (open(os.path.join(folder, "failure.json"), "w")).write("null")
    elif how == "compile.json {}":
        (open(os.path.join(folder, "compile.json"), "w")).write("{}")
    elif how == "program.hlo a FIFO":
        os.unlink(os.path.join(folder, "program.hlo"))
        os.mkfifo(os.path.join(folder, "program.hlo"))
    elif how == "program.hlo cut short":
        program = os.path.join(folder, "program.hlo")
        with open(program, "r+b") as f:
            f.truncate(os.path.getsize(program) // 2)
    else:
        raise AssertionError(how)


CORRUPTIONS = ("failure []", "failure reason 5", "failure null", "compile.json {}",
               "program.hlo a FIFO", "program.hlo cut short")


def test_corrupt_store_entries_are_compiled_again(tmp_path):
    """Each corrupt entry is a cache miss: compiled again and replaced, said in one line; a
    FIFO at program.hlo once hung the sweep, the others gave tracebacks or a parse error on
    every rerun."""
    configs = [{"width": 128 + 8 * k} for k in range(len(CORRUPTIONS))]
    # A cell a spreadsheet would run as a formula, written neutralized.
    configs[0]["note"] = '=HYPERLINK("http://example.com")'
    spec = _spec(tmp_path, configs, extra="", workers=False)
    first = _sweep(spec, "--quiet", "--workers", "2")
    assert first.returncode == 0, first.stderr
    store = hs.Store(str(tmp_path / "cache"))
    result = hs.run("sweep_steps:mlp", configs, ["tpu_v5e:2x2"],
                    compile=hs.Compile(cache=store.root, path=PATH), progress=False)
    assert result.compiled == 0 and not any(r["error"] for r in result.rows)
    entries = [r["entry"] for r in result.rows]
    for entry, how in zip(entries, CORRUPTIONS):
        _corrupt(store, entry, how)
        assert store.get(entry) is None, how
    out = tmp_path / "rows.csv"
    again = _sweep(spec, "--quiet", "--workers", "2", "--out", out)
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr
    said = [line for line in again.stderr.splitlines() if "unreadable" in line]
    assert len(said) == 1 and said[0].startswith(
        "sweep: 6 stored entries unreadable, compiled again; "), again.stderr
    assert len(said[0]) <= 100
    rows = list(csv.DictReader(open(out)))
    assert [r["error"] for r in rows] == [""] * 6 and [r["cached"] for r in rows] == ["False"] * 6
    assert rows[0]["note"] == "'" + configs[0]["note"]
    # Replaced: read whole, nothing compiled the third time.
    third = hs.run("sweep_steps:mlp", configs, ["tpu_v5e:2x2"],
                   compile=hs.Compile(cache=store.root, path=PATH), progress=False)
    assert third.compiled == 0 and not any(r["error"] for r in third.rows)
    assert all(store.get(e) and store.get(e).text is not None for e in entries)
    assert not [name for name in os.listdir(store.root) if name.startswith("tmp-")]


def test_store_that_cannot_be_written(tmp_path):
    """One line, exit status 2, before anything compiles; a traceback once."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    spec = _spec(tmp_path, [{"width": 128}], cache=blocker / "store")
    line = _one_error_line(_sweep(spec))
    assert line.startswith(f"error: cannot write the store '{blocker / 'store'}': ")
    # A full disk, as a file-size limit of 0 bytes makes every write fail (EFBIG).
    spec = _spec(tmp_path, [{"width": 128}])

    def no_file_may_grow():
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    line = _one_error_line(_sweep(spec, preexec_fn=no_file_may_grow))
    assert line.startswith("error: cannot write the store") and "File too large" in line
    if os.geteuid() != 0:  # root writes into read-only folders
        readonly = tmp_path / "readonly"
        readonly.mkdir(mode=0o555)
        spec = _spec(tmp_path, [{"width": 128}], cache=readonly)
        assert "Permission denied" in _one_error_line(_sweep(spec))


def test_memory_error_is_not_stored(tmp_path):
    """A MemoryError says nothing about the configuration: the row says it, the store keeps
    nothing, and the next run tries again."""
    result = hs.run("sweep_steps:mlp", [{"memory_error": True}], ["tpu_v5e:2x2"],
                    compile=hs.Compile(cache=str(tmp_path), path=PATH, timeout_s=HANG_S),
                    progress=False)
    error = result.rows[0]["error"]
    assert error == ("the compile process failed: MemoryError: no memory for the compile's "
                     "buffers"), error
    assert hs.Store(str(tmp_path)).get(result.rows[0]["entry"]) is None
    again = hs.run("sweep_steps:mlp", [{"memory_error": True}], ["tpu_v5e:2x2"],
                   compile=hs.Compile(cache=str(tmp_path), path=PATH, timeout_s=HANG_S),
                   progress=False)
    assert again.compiled == 1


# --- compiles end with their sweep ---------------------------------------------------------

def _gone(pid):
    """Whether process `pid` has ended (a zombie waiting for its parent counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def _wait_for(check, seconds, what):
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def test_timeout_ends_the_compiles_children(tmp_path):
    """The compile's process group is killed at its timeout, not its leader alone."""
    pids = tmp_path / "pids"
    result = hs.run("sweep_steps:mlp", [{"pids": str(pids)}], ["tpu_v5e:2x2"],
                    compile=hs.Compile(cache=str(tmp_path / "cache"), path=PATH, timeout_s=40),
                    progress=False)
    assert result.rows[0]["error"] == "timeout: the compile ran past 40 s"
    assert pids.exists(), "the builder did not start within the 40 s timeout"
    worker, child = map(int, pids.read_text().split())
    _wait_for(lambda: _gone(worker) and _gone(child), 60, "the compile's child outlived it")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_compiles_end_with_their_sweep(tmp_path, signum):
    """SIGTERM and SIGHUP end the compiles (process groups) and remove their scratch folders,
    then the sweep ends by the signal; after SIGKILL the compiles see their pipe close and do
    the same. SIGINT keeps the rows (test_sweep.py)."""
    pids = tmp_path / "pids"
    spec = _spec(tmp_path, [{"pids": str(pids)}], extra="timeout_s = 3600")
    sweep = subprocess.Popen([sys.executable, "-m", "hloroof.sweep", str(spec), "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(lambda: pids.exists() or sweep.poll() is not None, HANG_S,
                  "the builder never started")
        assert sweep.poll() is None, sweep.communicate()
        worker, child = map(int, pids.read_text().split())
        store = tmp_path / "cache"
        assert [n for n in os.listdir(store) if n.startswith("tmp-")]  # the compile's scratch
        (store / "kept").write_text("the store itself stays\n")
        sweep.send_signal(signum)
        stdout, stderr = sweep.communicate(timeout=120)
        assert sweep.returncode == -signum, stderr
        assert "Traceback" not in stderr
        _wait_for(lambda: _gone(worker) and _gone(child), 120, "a compile outlived its sweep")
        _wait_for(lambda: not [n for n in os.listdir(store) if n.startswith("tmp-")], 60,
                  "the compile's scratch folder stayed")
        assert (store / "kept").exists()
    finally:
        if sweep.poll() is None:
            sweep.kill()
            sweep.wait()


# A builder that, in the checks before compiling (their own process), starts a child, writes
# "PID CHILD_PID" to its configuration's "checks" path and sleeps: the checks are then running.
CHECKS_HANG = """
import os, signal, subprocess, sys, time

def build(config):
    if os.path.basename(sys.argv[0]) == "_precheck.py":
        signal.signal(signal.SIGALRM, signal.SIG_IGN)  # past the checks' 30 s for a builder
        child = subprocess.Popen(["sleep", "600"])
        with open(config["checks"] + ".part", "w") as f:
            f.write(f"{os.getpid()} {child.pid}\\n")
        os.rename(config["checks"] + ".part", config["checks"])
        time.sleep(600)
    raise ValueError("the test ends the sweep before this compiles")
"""


def _checks_hang_spec(tmp_path, extra=""):
    """A spec of CHECKS_HANG's builder, and the path it writes its pids to."""
    (tmp_path / "checks_hang.py").write_text(CHECKS_HANG)
    pids = tmp_path / "pids"
    spec = tmp_path / "sweep.toml"
    spec.write_text(f'builder = "checks_hang:build"\npath = ["{tmp_path}"]\n'
                    f'targets = ["tpu_v5e:2x2"]\ncache = "{tmp_path / "cache"}"\n{extra}\n'
                    f'[[configs]]\nchecks = "{pids}"\n')
    return spec, pids


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_checks_before_compiling_end_with_their_sweep(tmp_path, signum):
    """The checks before compiling run builders (user code) in a process of their own: it
    once ran on, up to 10 minutes, with what it started and its folder, after SIGTERM or
    SIGKILL of the sweep, and Ctrl-C there gave a traceback. They end as a compile does."""
    spec, pids = _checks_hang_spec(tmp_path)
    # SIGINT as at a terminal: a shell without job control starts its background jobs with it
    # ignored, and the sweep would inherit that.
    sweep = subprocess.Popen([sys.executable, "-m", "hloroof.sweep", str(spec), "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        _wait_for(lambda: pids.exists() or sweep.poll() is not None, HANG_S,
                  "the checks never started the builder")
        assert sweep.poll() is None, sweep.communicate()
        checks, child = map(int, pids.read_text().split())
        with open(f"/proc/{checks}/cmdline") as f:
            jobs_file = f.read().split("\0")[-3]  # ... --watch FD JOBS.json OUT
        assert os.path.isfile(jobs_file), jobs_file
        sweep.send_signal(signum)
        stdout, stderr = sweep.communicate(timeout=120)
        assert sweep.returncode == (130 if signum == signal.SIGINT else -signum), stderr
        assert "Traceback" not in stderr
        _wait_for(lambda: _gone(checks) and _gone(child), 120, "the checks outlived the sweep")
        _wait_for(lambda: not os.path.exists(os.path.dirname(jobs_file)), 60,
                  "the checks' folder stayed")
    finally:
        if sweep.poll() is None:
            sweep.kill()
            sweep.wait()


# --- Ray addresses -------------------------------------------------------------------------

@pytest.mark.parametrize("address, says", [
    ("127.0.0.1:1", "error: Ray at 127.0.0.1:1: cannot connect to 127.0.0.1:1: "
                    "Connection refused"),
    ("no-such-host.invalid:6379", "error: Ray at no-such-host.invalid:6379: cannot connect"),
    ("ray://127.0.0.1:1", "error: Ray at ray://127.0.0.1:1: cannot connect to 127.0.0.1:1"),
    ("127.0.0.1", "error: Ray address '127.0.0.1': give HOST:PORT"),
    # Unroutable: no answer in 10 s, or, behind a proxy that accepts any connection, Ray's own
    # 20 tries a second apart, its log lines held back.
    ("10.255.255.1:6379", "error: Ray at 10.255.255.1:6379: "),
])
def test_ray_address_that_answers_nothing(tmp_path, address, says):
    """127.0.0.1:1 once waited 824 s in ray.init, then printed a traceback."""
    pytest.importorskip("ray")
    spec = _spec(tmp_path, [{"width": 128}])
    line = _one_error_line(_sweep(spec, "--ray", address))
    assert line.startswith(says), line


def test_ray_address_from_the_environment(tmp_path):
    """Without an address Ray joins RAY_ADDRESS: it is checked as a given one is (it once
    waited in ray.init as 127.0.0.1:1 did), and before the checks before compiling, which
    may take minutes (here they would hang)."""
    pytest.importorskip("ray")
    spec, pids = _checks_hang_spec(tmp_path, extra='engine = "ray"')
    line = _one_error_line(_sweep(spec, env={"RAY_ADDRESS": "127.0.0.1:1"}, timeout=300))
    assert line.startswith("error: Ray at 127.0.0.1:1 (RAY_ADDRESS): cannot connect to "
                           "127.0.0.1:1: "), line
    assert not pids.exists()


# --- outputs -------------------------------------------------------------------------------

def test_outputs_written_whole_and_never_over_an_input(tmp_path):
    spec = _spec(tmp_path, [{"width": 128}])
    out = tmp_path / "rows.csv"
    first = _sweep(spec, "--quiet", "--out", out)
    assert first.returncode == 0, first.stderr
    before = out.read_bytes()
    assert len(before) > 300
    # Under a file-size limit of 300 bytes the rows (more than that) cannot be written: the old
    # file stays whole, no temporary file is left, and the error is one line.

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (300, 300))
    cut = _sweep(spec, "--quiet", "--out", out, "--svg", tmp_path / "front.svg",
                 preexec_fn=small_files)
    line = _one_error_line(cut)
    assert line == f"error: cannot write the rows to '{out}': File too large"
    assert out.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["cache", "rows.csv", "sweep.toml"]
    # A table that standard output cannot take (a full disk) is one line, exit status 2, and
    # the rows are written even so; a traceback once.
    out.unlink()
    with open("/dev/full", "w") as full:
        line = _one_error_line(_sweep(spec, "--quiet", "--out", out, stdout=full))
    assert line == "error: cannot write the table to standard output: No space left on device"
    assert [r["config"] for r in csv.DictReader(open(out))] == ["width=128"]
    # An output that is an input (the spec, here named .csv) is refused before anything runs.
    named_csv = tmp_path / "spec.csv"
    named_csv.write_text(spec.read_text())
    line = _one_error_line(_sweep(named_csv, "--out", tmp_path / "." / "spec.csv"))
    assert "it is an input of this command" in line
    assert named_csv.read_text() == spec.read_text()
    # what-if PROGRAM --out PROGRAM once overwrote its program with CSV, exit status 0 (HLO
    # text is read whatever its file's name: here .csv, as --out wants).
    result = hs.run("sweep_steps:mlp", [{"width": 128}], ["tpu_v5e:2x2"],
                    compile=hs.Compile(cache=str(tmp_path / "cache"), path=PATH), progress=False)
    program = tmp_path / "step.csv"
    program.write_text(result.program(0))
    line = _one_error_line(_sweep("what-if", program, "--device", "tpu_v5e:2x2", "--out",
                                  program))
    assert line == (f"error: cannot write the rows to '{program}': it is an input of this "
                    f"command ('{program}'), which would be overwritten; write to another file")
    assert program.read_text() == result.program(0)
    with open("/dev/full", "w") as full:
        line = _one_error_line(_sweep("what-if", program, "--device", "tpu_v5e:2x2",
                                      stdout=full))
    assert line == "error: cannot write the table to standard output: No space left on device"


def test_csv_cells_that_spreadsheets_would_run(tmp_path):
    frame = pandas.DataFrame({"config": ["=1+1", "+cmd", "-2+3", "@SUM(A1)", "plain", None,
                                         "-8", "+1.5e3"],
                              "step_time_s": [-1.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]})
    path = tmp_path / "cells.csv"
    _files.write_csv(frame, path)
    rows = list(csv.reader(open(path)))
    assert [r[0] for r in rows[1:]] == ["'=1+1", "'+cmd", "'-2+3", "'@SUM(A1)", "plain", "",
                                        "-8", "+1.5e3"]
    assert rows[1][1] == "-1.5"  # numbers are numbers, negative ones too, as text too


def test_store_entry_checks():
    """read_entry's verdicts, on folders written by hand."""
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        with pytest.raises(_cache.BadEntry, match="compile.json is missing"):
            _cache.read_entry(folder)
        with open(os.path.join(folder, "compile.json"), "w") as f:
            f.write('{"chips": 4, "devices": 4, "compile_s": 1.0, "xla_memory": {}, '
                    '"program_sha256": "00"}')
        open(os.path.join(folder, "program.hlo"), "w").write("HloModule m\n")
        with pytest.raises(_cache.BadEntry, match="cut short or changed"):
            _cache.read_entry(folder)
        with open(os.path.join(folder, "failure.json"), "w") as f:
            f.write('{"reason": "IndivisibleError: 3 does not divide 4"}')
        assert _cache.read_entry(folder) == hs.Outcome(
            failure="IndivisibleError: 3 does not divide 4", keep=True)


def test_pareto_front_is_not_quadratic():
    """4,000 rows once took 32 s (every row against every other). 100,000 rows all on the
    front are 5e9 pairs, hours that way; sorted, a second or two. The bound is only a hang's."""
    from hloroof.sweep import _report

    def row(step, headroom):
        return {"step_time_s": step, "chips": 4, "headroom": headroom, "fits": True,
                "error": None}
    # Each slower row has more headroom: none dominates another.
    rows = [row(1.0 + i, i / 200_000) for i in range(100_000)]
    start = time.monotonic()
    assert all(_report.pareto(rows))
    assert time.monotonic() - start < 120


def test_pareto_front_matches_every_pair():
    """The sorted front against the definition, pair by pair, on small sets with ties."""
    import random
    from hloroof.sweep import _report
    rng = random.Random(7)
    for _ in range(500):
        points = [(rng.randint(0, 3), rng.randint(1, 3), rng.randint(0, 3))
                  for _ in range(rng.randint(1, 10))]
        rows = [{"step_time_s": 1.0 + s, "chips": c, "headroom": h / 4, "fits": True,
                 "error": None} for s, c, h in points]
        by_pairs = [not any(b != a and b[0] <= a[0] and b[1] <= a[1] and b[2] >= a[2]
                            for b in points) for a in points]
        assert _report.pareto(rows) == by_pairs, points
