"""Budgeted search: the best configuration of a large space for `budget` compiles.

Every configuration is first checked before compiling (_precheck: those that cannot shard or
fit are refused, no compile spent); then Optuna's TPE sampler (the optional extra
``pip install 'hloroof[search]'``) proposes configurations over the space's axes, each
proposal compiled, predicted and told back; a proposal outside the space, refused, or already
seen costs nothing. Without Optuna the configurations left are tried in a seeded random order.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

# The objective's direction when not given: the columns a larger value of which is better.
_MAXIMIZE = ("tokens_per_s_per_chip", "mfu", "headroom")


class SearchResult:
    """What `search` found. ``rows``: one per configuration tried or refused, in the order
    tried (refusals first); ``best``: the row with the best objective among those that compiled
    and fit (None when none did); ``evaluated``: configurations compiled or read from the store
    (the budget spent); ``compiled``: of those, compiled by this call; ``refused``: refused
    before compiling; ``history``: the best objective after each evaluation; ``sampler``:
    "optuna" or "random"."""

    def __init__(self, rows: List[Dict[str, Any]], best: Optional[Dict[str, Any]],
                 evaluated: int, compiled: int, refused: int, history: List[Optional[float]],
                 sampler: str, objective: str) -> None:
        self.rows, self.best, self.evaluated, self.compiled = rows, best, evaluated, compiled
        self.refused, self.history, self.sampler, self.objective = (refused, history, sampler,
                                                                    objective)

    def __repr__(self) -> str:
        best = self.best[self.objective] if self.best else None
        return (f"<hloroof.sweep.SearchResult {self.evaluated} evaluated ({self.compiled} "
                f"compiled), {self.refused} refused, best {self.objective}={best}>")


def _key(config: Mapping[str, Any]) -> Tuple[Tuple[str, str], ...]:
    return tuple(sorted((k, repr(v)) for k, v in config.items()))


def _value(row: Mapping[str, Any], objective: str) -> Optional[float]:
    if row.get("error") or row.get("fits") is False:
        return None
    value = row.get(objective)
    return float(value) if isinstance(value, (int, float)) and value == value else None


def search(builder: Union[str, Callable[..., Any]], configs: Sequence[Mapping[str, Any]],
           targets: Optional[Sequence[str]] = None, *, budget: int,
           objective: str = "tokens_per_s_per_chip", maximize: Optional[bool] = None,
           sampler: str = "auto", seed: int = 0, batch: int = 1,
           stop: Optional[Callable[[Dict[str, Any]], bool]] = None,
           **run_options: Any) -> SearchResult:
    """Compiles at most `budget` configurations of `configs` x `targets` (each a configuration
    of its own, its ``target`` key set), chosen to find the best `objective` (a row's column:
    "tokens_per_s_per_chip" and "mfu" are maximized, "step_time_s" minimized; `maximize`
    says otherwise). `sampler`: "optuna" (TPE over the configurations' keys; ImportError
    without Optuna), "random" (seeded order), "auto" (Optuna where installed). `batch`
    configurations are proposed and compiled at once (workers of the local engine, tasks on
    Ray). `run_options` go to `run` (engine, compile, settings, on_row, progress). Refusals of
    the checks before compiling (the `compile` options' precheck) cost nothing and are kept in
    the rows. `stop`, called with the best row after each batch, ends the search when it
    returns True."""
    import dataclasses
    from . import _engines, _jobs, _precheck, run
    from ._options import Compile
    from ._rows import Row
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ValueError(f"search: budget wants a whole number of compiles, 1 or more; got "
                         f"{budget!r}")
    if batch < 1:
        raise ValueError(f"search: batch wants 1 or more, got {batch!r}")
    if sampler not in ("auto", "optuna", "random"):
        raise ValueError(f"search: sampler {sampler!r}: 'auto', 'optuna' or 'random'")
    maximize = objective in _MAXIMIZE if maximize is None else bool(maximize)
    optuna = None
    if sampler in ("auto", "optuna"):
        try:
            import optuna
        except ImportError:
            if sampler == "optuna":
                raise ImportError("sampler='optuna' needs Optuna: pip install "
                                  "'hloroof[search]' (or optuna)") from None
    run_options = dict(run_options)
    run_options.setdefault("progress", False)
    options = run_options.get("compile") or Compile()
    if not isinstance(options, Compile):
        raise ValueError(f"compile={options!r}: a hloroof.sweep.Compile")
    # The search checks every configuration before compiling; `run` compiles what it picks.
    run_options["compile"] = dataclasses.replace(options, precheck=False)
    # Every configuration once per target, its target a key of its own.
    candidates: List[Dict[str, Any]] = []
    added = set()  # the configurations whose target key is the search's, not their own
    for config in configs:
        names = [config["target"]] if "target" in config else list(targets or [])
        if not names:
            raise ValueError(f"configuration {dict(config)}: no target (give targets=, or a "
                             f"'target' key)")
        for target in names:
            candidates.append(dict(config, target=target))
            if "target" not in config:
                added.add(_key(candidates[-1]))
    seen = {}
    for c in candidates:
        seen.setdefault(_key(c), c)
    candidates = list(seen.values())

    rows: List[Dict[str, Any]] = []
    refused_keys = set()
    if options.precheck:
        jobs = _jobs.jobs(builder, candidates, None, options)[2]
        refusals = _precheck.refuse(list(enumerate(jobs)), _engines.worker_env(),
                                    _precheck.time_limit(options.timeout_s, len(jobs)))
        for index, outcome in sorted(refusals.items()):
            c = candidates[index]
            refused_keys.add(_key(c))
            row = Row.of(c["target"], outcome, c)
            rows.append({**{k: v for k, v in c.items() if k != "target"}, "config": row.config,
                         "target": row.target, "error": row.error, "fits": row.fits})
    left = {(_key(c)): c for c in candidates if _key(c) not in refused_keys}
    evaluated: Dict[Any, Dict[str, Any]] = {}
    history: List[Optional[float]] = []
    best: Optional[Dict[str, Any]] = None
    compiled = 0
    better = (lambda a, b: a > b) if maximize else (lambda a, b: a < b)

    def stopped() -> bool:
        return stop is not None and best is not None and bool(stop(best))

    def evaluate(chosen: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
        """The rows of `chosen`, compiled as `run` compiles them for their targets (the same
        entries in the store)."""
        nonlocal best, compiled
        by_target: Dict[str, List[int]] = {}
        for index, config in enumerate(chosen):
            by_target.setdefault(config["target"], []).append(index)
        out: List[Dict[str, Any]] = [{} for _ in chosen]
        for target, indices in by_target.items():
            given = [{k: v for k, v in chosen[i].items() if k != "target"}
                     if _key(chosen[i]) in added else chosen[i] for i in indices]
            result = run(builder, given, [target], **run_options)
            compiled += result.compiled
            for i, row in zip(indices, result.rows):
                out[i] = row
        for row in out:
            value = _value(row, objective)
            if value is not None and (best is None or better(value, best[objective])):
                best = row
            history.append(best[objective] if best else None)
            rows.append(row)
        return out

    used = "random"
    if optuna is not None:
        used = "optuna"
        axes: Dict[str, List[Any]] = {}
        for c in left.values():
            for k, v in c.items():
                values = axes.setdefault(k, [])
                if v not in values:
                    values.append(v)
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        study = optuna.create_study(
            direction="maximize" if maximize else "minimize",
            sampler=optuna.samplers.TPESampler(seed=seed, n_startup_trials=max(4, batch)))
        choices = {k: optuna.distributions.CategoricalDistribution(list(range(len(v))))
                   for k, v in axes.items()}
        asks = 0
        while (len(evaluated) < min(budget, len(left)) and asks < 50 * budget + 1000 and
               not stopped()):
            proposals: List[Tuple[Any, Dict[str, Any]]] = []
            while (len(proposals) < batch and len(evaluated) + len(proposals) <
                   min(budget, len(left)) and asks < 50 * budget + 1000):
                asks += 1
                trial = study.ask(choices)
                config = {k: axes[k][trial.params[k]] for k in axes}
                key = _key(config)
                if key in evaluated:  # seen: its value again, no compile
                    value = _value(evaluated[key], objective)
                    study.tell(trial, value) if value is not None else study.tell(
                        trial, state=optuna.trial.TrialState.FAIL)
                elif key not in left or any(key == _key(c) for _, c in proposals):
                    study.tell(trial, state=optuna.trial.TrialState.FAIL)
                else:
                    proposals.append((trial, left[key]))
            if not proposals:
                break
            for (trial, config), row in zip(proposals, evaluate([c for _, c in proposals])):
                evaluated[_key(config)] = row
                value = _value(row, objective)
                if value is None:
                    study.tell(trial, state=optuna.trial.TrialState.FAIL)
                else:
                    study.tell(trial, value)
    # Random order: the whole budget without Optuna, or what TPE left of it.
    order = [c for k, c in left.items() if k not in evaluated]
    random.Random(seed).shuffle(order)
    while order and len(evaluated) < min(budget, len(left)) and not stopped():
        chosen = order[:min(batch, budget - len(evaluated))]
        order = order[len(chosen):]
        for config, row in zip(chosen, evaluate(chosen)):
            evaluated[_key(config)] = row
    return SearchResult(rows, best, len(evaluated), compiled, len(refused_keys), history, used,
                        objective)
