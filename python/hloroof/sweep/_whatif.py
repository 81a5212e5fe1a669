"""Static what-ifs (`what_if`: one compiled program predicted on several devices and device
edits) and design-space ones (`explore`: re-timed on thousands of device variants).

For `explore`, the module is parsed, costed, walked and its memory analysed once
(`hloroof._VariantTable`, hloroof/variant_table.h); each variant then re-times every op from the
roofline terms kept and schedules the step again, about 0.1 ms a variant on an 8,000-line
program.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from ._rows import Row, chips, fit

# The columns of what_if()'s rows, after "device" and "edits" (a row hloroof refuses: "error"
# alone).
WHAT_IF_COLUMNS = ("step_time_s", "roofline_step_time_s", "mfu", "mfu_flops",
                   "tokens_per_s_per_chip", "footprint_bytes", "peak_bytes", "capacity_bytes",
                   "fits", "headroom", "error")

# The columns of explore()'s rows, in order.
COLUMNS = ("device", "flop_rate_scale", "hbm_bandwidth", "link_bandwidth_scale",
           "hbm_capacity_bytes", "step_time_s", "roofline_step_time_s", "mfu", "mfu_flops",
           "tokens_per_s_per_chip", "fits", "headroom", "cost", "pareto")


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
    rows = []
    reports: Dict[str, Any] = {}
    for device in devices:
        for edit in edits:
            row = Row(device, settings=tuple(edit))
            shown: Dict[str, Any] = {"device": device, "edits": " ".join(row.settings)}
            try:
                row.predict(module, model_flops, tokens, reports=reports)
                shown.update((column, getattr(row, column)) for column in WHAT_IF_COLUMNS)
            except ValueError as error:
                shown["error"] = str(error).splitlines()[0]
            rows.append(shown)
    return pandas.DataFrame(rows)


def _axis(name: str, values: Optional[Sequence[float]], default: float) -> List[float]:
    if values is None:
        return [float(default)]
    out = sorted({float(v) for v in values})
    if not out:
        raise ValueError(f"explore: {name} wants at least one value")
    if any(not v > 0 or v == float("inf") for v in out):
        raise ValueError(f"explore: {name} wants finite numbers above 0, got {list(values)}")
    return out


def pareto_cost(times: Sequence[float], costs: Sequence[float],
                fits: Sequence[bool]) -> List[bool]:
    """Which variants are on the front of step time against cost: they fit, and no other that
    fits is as fast at no more cost and better in one of them."""
    order = sorted((c, t, i) for i, (t, c, f) in enumerate(zip(times, costs, fits)) if f)
    front = [False] * len(times)
    best = float("inf")  # the fastest step at a lower cost than the group at hand
    k = 0
    while k < len(order):
        j = k
        while j < len(order) and order[j][0] == order[k][0]:
            j += 1
        fastest = order[k][1]  # of this cost
        for c, t, i in order[k:j]:
            front[i] = t == fastest and t < best
        best = min(best, fastest)
        k = j
    return front


def relative_cost(row: Mapping[str, Any], spec: Any) -> float:
    """The default cost of a variant: its four figures relative to the device as it is,
    averaged (1 for the device itself; a uniform price per unit of each figure)."""
    return (row["flop_rate_scale"] + row["hbm_bandwidth"] / spec.hbm_bandwidth +
            row["link_bandwidth_scale"] + row["hbm_capacity_bytes"] / spec.hbm_capacity_bytes) / 4


def explore(program: Any, device: str, *, flop_rate_scale: Optional[Sequence[float]] = None,
            hbm_bandwidth: Optional[Sequence[float]] = None,
            link_bandwidth_scale: Optional[Sequence[float]] = None,
            hbm_capacity: Optional[Sequence[float]] = None, settings: Optional[List[str]] = None,
            model_flops: Optional[float] = None, tokens: Optional[float] = None,
            cost: Optional[Callable[[Mapping[str, Any]], float]] = None,
            frame: bool = True) -> Any:
    """The step of one compiled program on every variant of `device` the axes make (their
    product; an axis not given keeps the device's figure): `flop_rate_scale` (every FLOP peak
    times it), `hbm_bandwidth` (B/s), `link_bandwidth_scale` (each collective's bandwidth term
    divided by it), `hbm_capacity` (bytes). `settings` edit the device first (``--set``-style).
    One row a variant (a pandas DataFrame; ``frame=False``: a list of dicts): the axes,
    ``step_time_s``, ``roofline_step_time_s``, ``mfu`` (of `model_flops` where given, else the
    program's own FLOPs: ``mfu_flops``), ``tokens_per_s_per_chip``, ``fits`` and ``headroom``
    (the program's memory, analysed once, against ``hbm_capacity_bytes``), ``cost`` (`cost`
    of the row; default: the four figures relative to the device's, averaged) and ``pareto``:
    fits, and no other variant that fits is as fast at no more cost and better in one."""
    import hloroof
    from hloroof import _hloroof
    from hloroof._inputs import _target, _input
    source = _input(program)
    module = source.module
    target, options, _, _ = _target("explore", device, source, {}, settings)
    options.explain = False
    options.timeline = False
    table = _hloroof._VariantTable(module, target, options)
    spec = target.spec
    prediction = hloroof.predict(module, device, settings=settings, explain=False,
                                 timeline=False, max_ops=1,
                                 **({"model_flops": float(model_flops)} if model_flops else {}))
    report = hloroof.memory(module, device, top_buffers=1, settings=settings)
    checked = report.capacity.checked_bytes if report.capacity else report.peak_bytes
    flops = _axis("flop_rate_scale", flop_rate_scale, 1.0)
    hbm = _axis("hbm_bandwidth", hbm_bandwidth, spec.hbm_bandwidth)
    links = _axis("link_bandwidth_scale", link_bandwidth_scale, 1.0)
    capacity = _axis("hbm_capacity", hbm_capacity, spec.hbm_capacity_bytes)
    rates = list(itertools.product(flops, hbm, links))
    steps, rooflines = table.times([r[0] for r in rates],
                                   [r[1] / spec.hbm_bandwidth for r in rates],
                                   [r[2] for r in rates])
    chip_count = chips(device, prediction.devices, spec.devices_per_chip)
    # MFU and HFU scale with the peak: FLOPs over (step x peak x scale).
    peak_work = (float(model_flops) / max(1, prediction.devices) if model_flops
                 else prediction.flops)
    rows: List[Dict[str, Any]] = []
    times, fits, costs = [], [], []
    for (f, h, link), step, roofline in zip(rates, steps, rooflines):
        for cap in capacity:
            fits_cap, headroom = fit(checked, cap)
            rows.append({
                "device": device, "flop_rate_scale": f, "hbm_bandwidth": h,
                "link_bandwidth_scale": link, "hbm_capacity_bytes": cap, "step_time_s": step,
                "roofline_step_time_s": roofline,
                "mfu": (peak_work / (step * prediction.peak_flop_rate * f)
                        if step > 0 and prediction.peak_flop_rate > 0 else None),
                "mfu_flops": "model" if model_flops else "program",
                "tokens_per_s_per_chip": (tokens / step / chip_count if tokens and step > 0
                                          else None),
                "fits": fits_cap, "headroom": headroom, "cost": None,
                "pareto": False})
            row = rows[-1]
            row["cost"] = float(cost(row)) if cost is not None else relative_cost(row, spec)
            times.append(step)
            fits.append(fits_cap)
            costs.append(row["cost"])
    for row, on in zip(rows, pareto_cost(times, costs, fits)):
        row["pareto"] = on
    if not frame:
        return rows
    import pandas
    return pandas.DataFrame(rows, columns=list(COLUMNS))
