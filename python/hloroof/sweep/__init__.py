"""What-if sweeps: many configurations of a step compiled offline, predicted, one table back.

    import hloroof.sweep as hs

    def build(c):                       # one configuration (a dict) -> the step to compile
        ...
        return hs.Step(step, (params, batch), in_specs=(specs, P("data")),
                       mesh_axes={"data": c["devices"] // c["model"], "model": c["model"]},
                       model_flops=6 * n_params * tokens, tokens=tokens)

    result = hs.run(build, hs.grid(model=[1, 2, 4], batch=[8, 16]),
                    targets=["tpu_v5e:2x2", "tpu_v6e:2x2"])
    result.frame                        # one row per configuration and target (pandas)
    print(result.table())               # fastest first, the Pareto front marked

Each configuration is compiled for its target by `hloroof.jax.compile_for` in a worker process
of its own (libtpu reads its flags once a process), here (``engine="local"``, a pool sized by the
cores and the memory a compile takes) or as Ray tasks on a cluster (``engine="ray"``); then
predicted (`hloroof.predict`) and its memory analysed (`hloroof.memory`) here. Compiled programs
are kept in a content-addressed store, so a rerun compiles only what is new. docs/sweep.md
describes it all, with the spec file of ``python -m hloroof.sweep``.
"""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import json
import os
import shutil
import sys
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from . import _cache, _compile, _engines, _files, _precheck, _report, _search, _whatif

__all__ = ["Step", "grid", "run", "Result", "what_if", "explore", "search", "per_device",
           "Store"]

Store = _cache.Store
explore = _whatif.explore
search = _search.search

# Keys of a configuration that the sweep reads: the target it is compiled for (instead of the
# sweep's targets) and XLA flags added to the sweep's (LIBTPU_INIT_ARGS).
TARGET_KEY = "target"
FLAGS_KEY = "flags"


@dataclasses.dataclass
class Step:
    """What a builder returns for one configuration: the step `fn` and its arguments (shapes
    and dtypes: ``jax.ShapeDtypeStruct`` pytrees), as `hloroof.jax.compile_for` takes them
    (`in_specs`, `mesh_axes` over the target's devices, `out_specs`, `static_argnums`,
    `donate_argnums`), and the figures the row reports: `model_flops` (the model's FLOPs of one
    step over all devices: MFU) and `tokens` (tokens of one step: tokens per second per chip).
    A dict with these keys does as well."""
    fn: Callable[..., Any]
    args: Sequence[Any]
    in_specs: Any = None
    mesh_axes: Any = None
    out_specs: Any = None
    static_argnums: Sequence[int] = ()
    donate_argnums: Sequence[int] = ()
    model_flops: Optional[float] = None
    tokens: Optional[float] = None


# The most jobs (configurations times their targets) one sweep takes: at a second a compile
# at best, 100,000 is over a day of one core, far past any sweep run to the end.
MAX_CONFIGURATIONS = 100_000


def _check_count(count: int, what: str) -> None:
    if count > MAX_CONFIGURATIONS:
        raise ValueError(f"{what} is {count:,} configurations, over the limit of "
                         f"{MAX_CONFIGURATIONS:,} a sweep; split it, or give fewer values")


def grid(**axes: Iterable[Any]) -> List[Dict[str, Any]]:
    """Every combination of the named axes, the first axis slowest:
    ``grid(model=[1, 2], batch=[8, 16])`` is 4 configurations. Counted before it is made: more
    than MAX_CONFIGURATIONS is refused (ValueError)."""
    names = list(axes)
    values = [list(v) for v in axes.values()]
    count = 1
    for v in values:
        count *= len(v)
    _check_count(count, "the grid")
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


def per_device(config: Mapping[str, Any], devices: int, chips: int,
               per_chip_keys: Sequence[str] = ("batch_per_chip",)) -> Dict[str, Any]:
    """A configuration published per chip made per device: where one chip is several JAX
    devices (TPU7x: 2), each ``NAME_per_chip`` of `per_chip_keys` becomes ``NAME_per_device``
    (divided by the devices of a chip; ValueError when it does not divide) beside it, and
    ``devices_per_chip`` is set."""
    if devices % chips:
        raise ValueError(f"{devices} devices over {chips} chips: not a whole number a chip")
    per_chip = devices // chips
    out = dict(config, devices_per_chip=per_chip)
    for key in per_chip_keys:
        if key not in config:
            continue
        value = config[key]
        name = key[:-len("_per_chip")] + "_per_device" if key.endswith("_per_chip") else key
        if isinstance(value, int) and value % per_chip:
            raise ValueError(f"{key}={value} does not split over the {per_chip} devices of a "
                             f"chip: give a multiple of {per_chip}")
        out[name] = value // per_chip if isinstance(value, int) else value / per_chip
    return out


def _builder_name(builder: Union[str, Callable[..., Any]]) -> tuple:
    """("module:function", folders the worker needs on sys.path) for `builder`."""
    if isinstance(builder, str):
        return builder, []
    module = getattr(builder, "__module__", None)
    name = getattr(builder, "__qualname__", "")
    if not module or not name or "<" in name:
        raise ValueError("the builder must be a module-level function (a worker process "
                         "imports it by name), or a 'module:function' string")
    path = []
    if module == "__main__":
        source = inspect.getsourcefile(builder)
        if source is None:
            raise ValueError("a builder defined in __main__ must come from a file")
        module = os.path.splitext(os.path.basename(source))[0]
        path.append(os.path.dirname(os.path.abspath(source)))
    return f"{module}:{name}", path


def _label(config: Mapping[str, Any]) -> str:
    """The configuration in one line, "key=value" by key (its target is a column of its own)."""
    return " ".join(f"{k}={v}" for k, v in config.items() if k != TARGET_KEY) or "(default)"


def _xla_footprint(xla: Mapping[str, int]) -> Optional[int]:
    """XLA's footprint of the step, as `footprint_bytes` counts ours: its arguments, outputs
    and temporaries less what the outputs alias (memory_analysis())."""
    if not xla or "temp_size_in_bytes" not in xla:
        return None
    return (xla.get("argument_size_in_bytes", 0) + xla.get("output_size_in_bytes", 0) +
            xla["temp_size_in_bytes"] - xla.get("alias_size_in_bytes", 0))


def _xla_peak(xla: Mapping[str, int]) -> Optional[int]:
    """XLA's own peak (memory_analysis()'s peak_memory_in_bytes), None where it gives none. On
    TPU it counts more than the device memory live at once (arguments and outputs whole, the
    program's code, on-chip buffers): not our liveness peak's counterpart, kept as XLA says."""
    return xla.get("peak_memory_in_bytes") or None if xla else None


def predict_row(text: str, facts: Mapping[str, Any], target: str,
                settings: Optional[List[str]] = None) -> Dict[str, Any]:
    """hloroof's figures of one compiled program on `target`: the columns of a row that come
    from the prediction and the memory analysis."""
    import hloroof
    module = hloroof.parse(text)
    model_flops = facts.get("model_flops")
    options = {"model_flops": float(model_flops)} if model_flops else {}
    prediction = hloroof.predict(module, target, settings=settings, **options)
    report = hloroof.memory(module, target, top_buffers=1, settings=settings)
    step = prediction.step_time_s
    tokens = facts.get("tokens")
    capacity = report.capacity
    xla = facts.get("xla_memory") or {}
    return {
        "step_time_s": step, "roofline_step_time_s": prediction.roofline_step_time_s,
        "mfu": prediction.mfu if model_flops else prediction.hfu,
        "mfu_flops": "model" if model_flops else "program",
        "model_flops": float(model_flops) if model_flops else None,
        "tokens_per_s_per_chip": (tokens / step / facts["chips"]
                                  if tokens and step > 0 else None),
        "footprint_bytes": report.footprint_bytes, "xla_footprint_bytes": _xla_footprint(xla),
        "peak_bytes": report.peak_bytes, "xla_peak_bytes": _xla_peak(xla),
        "temp_bytes": report.temp_bytes, "xla_temp_bytes": xla.get("temp_size_in_bytes"),
        "capacity_bytes": capacity.capacity_bytes if capacity else None,
        "fits": capacity.fits if capacity else None,
        "headroom": capacity.headroom if capacity else None,
    }


# The columns of a row, after the configuration's own.
COLUMNS = ("config", "target", "chips", "devices", "step_time_s", "roofline_step_time_s", "mfu",
           "mfu_flops", "model_flops", "tokens_per_s_per_chip", "footprint_bytes",
           "xla_footprint_bytes", "peak_bytes", "xla_peak_bytes", "temp_bytes", "xla_temp_bytes",
           "capacity_bytes", "fits", "headroom", "compile_s", "cached", "error", "entry")


class Result:
    """A sweep's rows, one per configuration and target, in the order of the grid (those not
    finished when it was interrupted left out). ``frame``: the pandas DataFrame; ``table()``,
    ``svg()``, ``write(path)``; ``compiled``: how many were compiled by this run (the others
    came from the store); ``interrupted``: Ctrl-C ended the run; ``compile_peak_bytes``: the
    largest peak resident memory of one compile process (None when nothing was compiled), what
    ``compile_memory`` may be set to next time."""

    def __init__(self, rows: List[Dict[str, Any]], compiled: int, interrupted: bool,
                 store: Optional[_cache.Store], compile_peak_bytes: Optional[int] = None) -> None:
        self.rows = rows
        self.compiled = compiled
        self.compile_peak_bytes = compile_peak_bytes
        self.interrupted = interrupted
        self.store = store
        self.front = _report.pareto(rows)
        for row, on in zip(rows, self.front):
            row["pareto"] = on

    @property
    def frame(self):
        try:
            import pandas
        except ImportError as error:
            raise ImportError("Result.frame needs pandas (pip install pandas)") from error
        return pandas.DataFrame(self.rows)

    def table(self) -> str:
        return _report.table(self.rows, self.front)

    def svg(self, title: str = "hloroof sweep: the Pareto front") -> str:
        return _report.svg(self.rows, self.front, title)

    def program(self, index: int) -> str:
        """The compiled program (HLO text) of row `index`, from the store."""
        entry = self.store.get(self.rows[index]["entry"]) if self.store else None
        if not entry or "text" not in entry:
            raise ValueError(f"row {index} has no stored program")
        return entry["text"]

    def write(self, path: str) -> str:
        """The rows as CSV (``.csv``) or Parquet (``.parquet``, needs pyarrow); returns
        `path`."""
        frame = self.frame
        lower = os.fspath(path).lower()
        if lower.endswith(".parquet"):
            try:
                import pyarrow  # noqa: F401
            except ImportError:
                raise ValueError(f"{path}: Parquet needs pyarrow, which is not installed "
                                 f"(pip install pyarrow), or write .csv") from None
            _files.write_output(path, lambda p: frame.to_parquet(p, index=False), "rows")
        elif lower.endswith(".csv"):
            _files.write_csv(frame, path)
        else:
            raise ValueError(f"{path}: write .csv or .parquet")
        return path


def _jobs(builder: str, path: List[str], configs: Sequence[Mapping[str, Any]],
          targets: Optional[Sequence[str]], flags: str) -> List[Dict[str, Any]]:
    jobs = []
    for config in configs:
        if not isinstance(config, Mapping):
            raise ValueError(f"configuration {config!r}: a dict of named values, not "
                             f"{type(config).__name__}")
        config = dict(config)
        if TARGET_KEY in config and not isinstance(config[TARGET_KEY], str):
            raise ValueError(f"configuration {config}: its '{TARGET_KEY}' is not a string "
                             f"('tpu_v5e:2x2')")
        if not isinstance(config.get(FLAGS_KEY) or "", str):
            raise ValueError(f"configuration {config}: its '{FLAGS_KEY}' is not a string")
        names = [config[TARGET_KEY]] if TARGET_KEY in config else list(targets or [])
        if not names:
            raise ValueError(f"configuration {config}: no target (give targets=, or a "
                             f"'{TARGET_KEY}' key)")
        for target in names:
            job_flags = " ".join(f for f in (flags, str(config.get(FLAGS_KEY) or "")) if f)
            jobs.append({"builder": builder, "path": path, "config": config, "target": target,
                         "flags": job_flags})
    return jobs


def check_targets(targets: Iterable[str], settings: Optional[List[str]] = None,
                  shape: bool = True) -> None:
    """Each target, with the device edits `settings`, checked before anything compiles:
    ValueError with hloroof's whole message (its "did you mean" included) for the first
    device, slice or edit it does not know; `shape`: each must name its slice."""
    import hloroof
    for target in dict.fromkeys(targets):
        if not isinstance(target, str) or not target.strip():
            raise ValueError(f"a target is {target!r}: name a device and its slice, as "
                             "tpu_v5e:2x2")
        if shape:
            _compile.chips_of(target)
        try:
            hloroof.resolve_device(target, settings=list(settings or []))
        except ValueError as error:
            raise ValueError(f"target {target!r}: {error}") from None


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _positive(value: Any) -> bool:
    """A number above 0 and finite (not a bool, not NaN)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and
            0 < value < float("inf"))


def _check_options(configs: Any, targets: Any, flags: Any, engine: Any, address: Any,
                   workers: Any, compile_memory: Any, ray_cpus: Any, timeout_s: Any) -> None:
    """run()'s arguments of a type or value it cannot use: ValueError saying which and why."""
    if not isinstance(flags, str):
        raise ValueError(f"flags={flags!r}: one string of XLA flags")
    if engine not in ("local", "ray"):
        raise ValueError(f"engine {engine!r}: 'local' or 'ray'")
    if isinstance(configs, (str, bytes, Mapping)) or not isinstance(configs, Iterable):
        raise ValueError(f"configs: a list of configurations (dicts; hs.grid makes one), not "
                         f"{type(configs).__name__}")
    if targets is not None and (isinstance(targets, (str, bytes)) or
                                not isinstance(targets, Iterable) or
                                not all(isinstance(t, str) for t in targets)):
        raise ValueError(f"targets={targets!r}: a list of targets, e.g. ['tpu_v5e:2x2']")
    if address is not None and (not isinstance(address, str) or not address.strip()):
        raise ValueError(f"address={address!r}: a Ray address, HOST:PORT, ray://HOST:PORT or "
                         f"auto")
    if workers is not None and (not _whole(workers) or workers < 1):
        raise ValueError(f"workers={workers!r}: a whole number of compiles at once, 1 or more")
    if compile_memory is not None and not _positive(compile_memory):
        raise ValueError(f"compile_memory={compile_memory!r}: bytes, above 0")
    if not _positive(ray_cpus):
        raise ValueError(f"ray_cpus={ray_cpus!r}: CPUs a compile, above 0")
    if not _positive(timeout_s):
        raise ValueError(f"timeout_s={timeout_s!r}: seconds one compile may take, above 0")


def _say_bad_entries(store: _cache.Store) -> None:
    """One line on stderr for the entries of the store that could not be read (compiled
    again): how many, and the first with why."""
    if not store.problems:
        return
    entry, why = store.problems[0]
    count = len(store.problems)
    head = (f"sweep: {count} stored entr{'y' if count == 1 else 'ies'} unreadable, compiled "
            f"again; {entry[:12]}: ")
    print(head + _report._cut(why, max(10, _report.WIDTH - len(head))), file=sys.stderr)


def run(builder: Union[str, Callable[..., Any]], configs: Sequence[Mapping[str, Any]],
        targets: Optional[Sequence[str]] = None, *, flags: str = "", engine: str = "local",
        address: Optional[str] = None, workers: Optional[int] = None,
        compile_memory: Optional[int] = None, ray_cpus: float = 1, timeout_s: float = 3600,
        cache: Union[str, bool, None] = None, path: Sequence[str] = (),
        settings: Optional[List[str]] = None, progress: bool = True,
        on_row: Optional[Callable[[Dict[str, Any]], None]] = None,
        precheck: bool = True) -> Result:
    """Compiles, predicts and tabulates each configuration on each target.

    `builder`: a module-level function (or "module:function") from a configuration (a dict,
    with ``target``, ``chips`` and ``devices`` of the target added) to a `Step`. `configs`: a
    list of dicts (`grid` makes one); a configuration's ``target`` key compiles it for that
    target alone, its ``flags`` key adds XLA flags to `flags` (LIBTPU_INIT_ARGS). `targets`:
    "tpu_v5e:2x2", ... `engine`: "local" (`workers` processes at once; None: sized by the
    cores and by `compile_memory`, bytes, or by the peak of the first compile) or "ray" (Ray
    tasks of `ray_cpus` CPUs and `compile_memory` bytes on the cluster at `address`).
    `timeout_s`: seconds one compile may take. `cache`: the store's folder (None: the default,
    docs/sweep.md; False: a temporary one). `path`: folders the workers put first on sys.path.
    `settings`: device figures set for the predictions (as `hloroof.predict`'s). `on_row` is
    called with each row as it is made. Ctrl-C returns the rows finished, ``interrupted``
    set. A configuration that fails never ends the sweep: its row says why in ``error``."""
    _check_options(configs, targets, flags, engine, address, workers, compile_memory, ray_cpus,
                   timeout_s)
    configs = list(configs)
    _check_count(sum(1 if isinstance(c, Mapping) and TARGET_KEY in c else len(targets or [])
                     for c in configs), "the sweep")
    name, extra_path = _builder_name(builder)
    worker_path = list(dict.fromkeys(
        [os.path.abspath(p) for p in path] + extra_path +
        [os.path.abspath(p or ".") for p in sys.path]))
    jobs = _jobs(name, worker_path, configs, targets, flags)
    check_targets((j["target"] for j in jobs), settings)
    temporary = cache is False
    if temporary:
        import tempfile
        store = _cache.Store(tempfile.mkdtemp(prefix="hloroof-sweep-cache-"))
    else:
        store = _cache.Store(None if cache in (None, True) else os.fspath(cache))
    digest = _cache.builder_source_digest(name, worker_path)
    found = _cache.versions()
    entries = [_cache.key(j["config"], name, digest, j["target"], j["flags"], found) for j in jobs]
    rows: List[Optional[Dict[str, Any]]] = [None] * len(jobs)
    stored = [store.get(e) for e in entries]
    to_compile = [(i, j) for i, j in enumerate(jobs) if stored[i] is None]
    _say_bad_entries(store)
    if to_compile:
        store.check_writable()  # a read-only store or a full disk: one error, before compiling
    show = _report.Progress(len(jobs), len(to_compile), enabled=progress)
    peaks: List[int] = []

    def finish(i: int, outcome: Dict[str, Any], cached: bool) -> None:
        row = _row(jobs[i], entries[i], outcome, cached, settings)
        rows[i] = row
        show.done += 1
        show.failed += bool(row["error"])
        show.cached += cached
        if on_row is not None:
            on_row(row)

    def done(i: int, outcome: Dict[str, Any], peak: Optional[int]) -> None:
        folder = outcome.pop("folder", None)
        keep = outcome.pop("cache", True)
        if folder is not None and keep:
            store.put_folder(entries[i], folder)
        elif folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        elif keep:
            store.put(entries[i], outcome)
        outcome.pop("log", None)  # kept in the store only
        show.compiled += 1
        if peak:
            peaks.append(peak)
        finish(i, outcome, False)
        show.show(finished=True)

    def running(count: int) -> None:
        show.running = count
        # Compiles start in the order of to_compile: those running are the first not done.
        show.compiling = [f"{_label(j['config'])} on {j['target']}" for i, j in to_compile
                          if rows[i] is None][:count]
        show.show()

    interrupted = False
    # SIGTERM, SIGHUP: the compiles ended, their scratch removed, then the signal's own end.
    signals = _engines.EndingSignals()
    try:
        for i, entry in enumerate(stored):
            if entry is not None:
                finish(i, entry, True)
        if engine == "ray" and to_compile:
            _engines.join_ray(address)  # an address that fails: said before the checks' minutes
        if precheck and to_compile:
            # Configurations that cannot shard or fit, refused from their abstract arguments in
            # one process of their own (docs/sweep.md, "Checks before compiling"); kept in the
            # store as the compiler's own rejections are.
            refused = _precheck.refuse(to_compile, _engines._worker_env(),
                                       _precheck.time_limit(timeout_s, len(to_compile)))
            for i, outcome in sorted(refused.items()):
                store.put(entries[i], outcome)
                finish(i, outcome, False)
            to_compile = [(i, j) for i, j in to_compile if i not in refused]
            show.to_compile = len(to_compile)
        if to_compile:
            show.show()
        if not to_compile:
            pass  # nothing to compile: no engine started (no Ray cluster joined)
        elif engine == "local":
            _engines.run_local(to_compile, store, workers, compile_memory, timeout_s, done,
                               running)
        else:
            _engines.run_ray(to_compile, address, ray_cpus, compile_memory, timeout_s, done,
                             running)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if temporary:
            shutil.rmtree(store.root, ignore_errors=True)
            store = None
        signals.restore()
    if show.tty or not show.compiled:
        show.show(final=True)
    return Result([r for r in rows if r is not None], show.compiled, interrupted, store,
                  max(peaks) if peaks else None)


# XLA's TPU compiler rejects a program whose buffers exceed the HBM with this error.
_HBM_OOM = "CompileTimeHbmOom"


def _row(job: Mapping[str, Any], entry: str, outcome: Mapping[str, Any], cached: bool,
         settings: Optional[List[str]]) -> Dict[str, Any]:
    config = job["config"]
    target = job["target"]
    row: Dict[str, Any] = {}
    for key, value in config.items():
        if key == TARGET_KEY:
            continue
        row[f"config.{key}" if key in COLUMNS else key] = (
            value if isinstance(value, (int, float, str, bool)) or value is None
            else json.dumps(value, default=repr))
    row.update({c: None for c in COLUMNS})
    row.update(config=_label(config), target=target, cached=cached, entry=entry)
    try:
        row["chips"] = _compile.chips_of(target)
    except ValueError:
        pass
    if "failure" in outcome:
        row["error"] = outcome["failure"]
        if row["error"].startswith(_precheck.CANNOT_FIT):  # refused before compiling
            row["fits"] = False
        if _HBM_OOM in row["error"]:  # XLA's own check: the program does not fit the HBM
            row["fits"] = False
        return row
    facts = outcome["facts"]
    row.update(chips=facts["chips"], devices=facts["devices"], compile_s=facts["compile_s"])
    try:
        row.update(predict_row(outcome["text"], facts, target, settings))
    except Exception as error:  # hloroof rejects the program: the row says so
        row["error"] = f"hloroof: {_compile.one_line(error)}"
    return row


def what_if(program: Any, devices: Sequence[str], edits: Sequence[Sequence[str]] = ((),),
            model_flops: Optional[float] = None, tokens: Optional[float] = None):
    """Predictions of one compiled program (HLO text, a path, a `hloroof.Module`, a JAX
    ``Compiled``) over `devices` ("tpu_v5e:2x2", ...) and device edits (each a list of
    ``--set``-style "PATH=VALUE" strings; ``()`` the device as it is), without compiling: a
    pandas DataFrame with one row per device and edit (``device``, ``edits``, ``step_time_s``,
    ``roofline_step_time_s``, ``mfu`` and ``mfu_flops`` as in `run`'s rows: of `model_flops`
    where given, else of the program's own (the HFU), ``tokens_per_s_per_chip``,
    ``footprint_bytes`` (what the device holds for the step), ``peak_bytes`` (the liveness
    peak), ``capacity_bytes``, ``fits`` and ``headroom`` (of the footprint), ``error``). The
    module is parsed once and its memory analysed once a device."""
    import hloroof
    import pandas
    module = hloroof.parse(program)
    options = {"model_flops": float(model_flops)} if model_flops else {}
    rows = []
    reports: Dict[str, Any] = {}
    for device in devices:
        for edit in edits:
            edit = list(edit)
            row = {"device": device, "edits": " ".join(edit)}
            try:
                prediction = hloroof.predict(module, device, settings=edit, **options)
                if device not in reports:
                    reports[device] = hloroof.memory(module, device, top_buffers=1)
                report = reports[device]
                target = hloroof.resolve_device(device, module, settings=edit)
                capacity = target.spec.hbm_capacity_bytes
                checked = report.capacity.checked_bytes if report.capacity else report.peak_bytes
                step = prediction.step_time_s
                chips = max(1, prediction.devices // max(1, target.spec.devices_per_chip))
                row.update(step_time_s=step,
                           roofline_step_time_s=prediction.roofline_step_time_s,
                           mfu=prediction.mfu if model_flops else prediction.hfu,
                           mfu_flops="model" if model_flops else "program",
                           tokens_per_s_per_chip=tokens / step / chips if tokens else None,
                           footprint_bytes=report.footprint_bytes,
                           peak_bytes=report.peak_bytes, capacity_bytes=capacity,
                           fits=checked <= capacity,
                           headroom=(capacity - checked) / capacity if capacity else None,
                           error=None)
            except ValueError as error:
                row["error"] = str(error).splitlines()[0]
            rows.append(row)
    return pandas.DataFrame(rows)
