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
of its own (libtpu reads its flags once a process) by an `Engine`: `Local` (the default, a pool
here sized by the cores and the memory a compile takes) or `Ray` (tasks on a cluster); then
predicted (`hloroof.predict`) and its memory analysed (`hloroof.memory`) here, each a `Row`.
`Compile` says how (flags, path, timeout, the store, the checks before compiling). Compiled
programs are kept in a content-addressed store, so a rerun compiles only what is new.
docs/sweep.md describes it all, with the spec file of ``python -m hloroof.sweep``.
"""

from __future__ import annotations

import shutil
import sys
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

from . import _cache, _engines, _jobs, _precheck, _report
from ._engines import Engine, Local, Ray
from ._entry import Outcome
from ._jobs import Step, check_targets, grid, per_device
from ._options import Compile
from ._result import Result
from ._rows import COLUMNS, Row  # noqa: F401 - COLUMNS: the rows' columns, hs.COLUMNS
from ._search import search
from ._whatif import explore, what_if

__all__ = ["Step", "grid", "per_device", "run", "Compile", "Engine", "Local", "Ray", "Outcome",
           "Row", "Result", "what_if", "explore", "search", "Store"]

Store = _cache.Store


def _say_bad_entries(store: _cache.Store) -> None:
    """One line on stderr for the entries of the store that could not be read (compiled
    again): how many, and the first with why."""
    if not store.problems:
        return
    entry, why = store.problems[0]
    count = len(store.problems)
    head = (f"sweep: {count} stored entr{'y' if count == 1 else 'ies'} unreadable, compiled "
            f"again; {entry[:12]}: ")
    print(head + _report.cut(why, max(10, _report.WIDTH - len(head))), file=sys.stderr)


def _open_store(cache: Any) -> _cache.Store:
    """The store `cache` names: its folder, None or True (the default), False (a temporary
    one, which `run` removes at its end)."""
    if cache is False:
        import tempfile
        return _cache.Store(tempfile.mkdtemp(prefix="hloroof-sweep-cache-"))
    import os
    return _cache.Store(None if cache in (None, True) else os.fspath(cache))


def run(builder: Union[str, Callable[..., Any]], configs: Sequence[Mapping[str, Any]],
        targets: Optional[Sequence[str]] = None, *, engine: Optional[Engine] = None,
        compile: Optional[Compile] = None, settings: Optional[List[str]] = None,
        on_row: Optional[Callable[[Dict[str, Any]], None]] = None,
        progress: bool = True) -> Result:
    """Compiles, predicts and tabulates each configuration on each target.

    `builder`: a module-level function (or "module:function") from a configuration (a dict,
    with ``target``, ``chips`` and ``devices`` of the target added) to a `Step`. `configs`: a
    list of dicts (`grid` makes one); a configuration's ``target`` key compiles it for that
    target alone, its ``flags`` key adds XLA flags to the `compile` options' (LIBTPU_INIT_ARGS).
    `targets`: "tpu_v5e:2x2", ... `engine`: where the compiles run, `Local()` (the default) or
    `Ray(...)`, or any class of the `Engine` protocol. `compile`: `Compile(...)`, how each
    configuration is compiled (flags, path, timeout_s, the store, the checks before
    compiling). `settings`: device figures set for the predictions (as `hloroof.predict`'s).
    `on_row` is called with each row (a dict, `Row.as_dict`) as it is made; `progress`: the
    progress line on stderr. Ctrl-C returns the rows finished, ``interrupted`` set. A
    configuration that fails never ends the sweep: its row says why in ``error``."""
    engine = Local() if engine is None else engine
    options = Compile() if compile is None else compile
    if not isinstance(options, Compile):
        raise ValueError(f"compile={options!r}: a hloroof.sweep.Compile")
    for method in ("start", "compile"):
        if not callable(getattr(engine, method, None)):
            raise ValueError(f"engine={engine!r}: an Engine (hs.Local(), hs.Ray(...)): it has "
                             f"no {method}()")
    configs = _jobs.check_configs(configs, targets)
    name, worker_path, jobs = _jobs.jobs(builder, configs, targets, options)
    check_targets((j["target"] for j in jobs), settings)
    store = _open_store(options.cache)
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

    def finish(i: int, outcome: Outcome, cached: bool) -> None:
        row = Row.of(jobs[i]["target"], outcome, jobs[i]["config"], settings=settings or (),
                     cached=cached, entry=entries[i]).as_dict()
        rows[i] = row
        show.done += 1
        show.failed += bool(row["error"])
        show.cached += cached
        if on_row is not None:
            on_row(row)

    def done(i: int, outcome: Outcome) -> None:
        if outcome.folder is not None and outcome.keep:
            store.put_folder(entries[i], outcome.folder)
        elif outcome.folder is not None:
            shutil.rmtree(outcome.folder, ignore_errors=True)
        elif outcome.keep:
            store.put(entries[i], outcome)
        show.compiled += 1
        if outcome.peak_bytes:
            peaks.append(outcome.peak_bytes)
        finish(i, outcome, False)
        show.show(finished=True)

    def running(count: int) -> None:
        show.running = count
        # Compiles start in the order of to_compile: those running are the first not done.
        show.compiling = [f"{_jobs.label(j['config'])} on {j['target']}" for i, j in to_compile
                          if rows[i] is None][:count]
        show.show()

    interrupted = False
    # SIGTERM, SIGHUP: the compiles ended, their scratch removed, then the signal's own end.
    signals = _engines.EndingSignals()
    try:
        for i, entry in enumerate(stored):
            if entry is not None:
                finish(i, entry, True)
        if to_compile:
            engine.start()  # an address that fails: said before the checks' minutes
        if options.precheck and to_compile:
            # Configurations that cannot shard or fit, refused from their abstract arguments in
            # one process of their own (docs/sweep.md, "Checks before compiling"); kept in the
            # store as the compiler's own rejections are.
            refused = _precheck.refuse(to_compile, _engines.worker_env(),
                                       _precheck.time_limit(options.timeout_s, len(to_compile)))
            for i, outcome in sorted(refused.items()):
                store.put(entries[i], outcome)
                finish(i, outcome, False)
            to_compile = [(i, j) for i, j in to_compile if i not in refused]
            show.to_compile = len(to_compile)
        if to_compile:
            show.show()
            engine.compile(to_compile, store, options.timeout_s, done, running)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if options.cache is False:
            shutil.rmtree(store.root, ignore_errors=True)
            store = None
        signals.restore()
    if show.tty or not show.compiled:
        show.show(final=True)
    return Result([r for r in rows if r is not None], show.compiled, interrupted, store,
                  max(peaks) if peaks else None)
