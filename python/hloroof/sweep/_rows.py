"""A sweep's rows: `Row`, what one configuration came to on one target, built one way for `run`
and for `what_if`: the figures of the prediction and the memory analysis, the chips a target
counts, and whether the step fits."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

from . import _compile, _precheck
from ._entry import Outcome
from ._jobs import TARGET_KEY, label

# The columns of a row, after the configuration's own.
COLUMNS = ("config", "target", "chips", "devices", "step_time_s", "roofline_step_time_s", "mfu",
           "mfu_flops", "model_flops", "tokens_per_s_per_chip", "footprint_bytes",
           "xla_footprint_bytes", "peak_bytes", "xla_peak_bytes", "temp_bytes", "xla_temp_bytes",
           "capacity_bytes", "fits", "headroom", "compile_s", "cached", "error", "entry")

# XLA's TPU compiler rejects a program whose buffers exceed the HBM with this error.
HBM_OOM = "CompileTimeHbmOom"


def chips(target: str, devices: int, devices_per_chip: int) -> int:
    """The chips of `target`: its slice's, every slice counted (`_compile.chips_of`, as the
    compiles count them), where it names one; else (a device alone, its slice inferred from
    the program) the program's `devices` over the devices a chip."""
    try:
        return _compile.chips_of(target)
    except ValueError:
        return max(1, devices // max(1, devices_per_chip))


def fit(checked: Optional[int], capacity: Optional[float]) -> Tuple[Optional[bool],
                                                                    Optional[float]]:
    """(fits, headroom) of `checked` bytes in `capacity` bytes of HBM, as `hloroof.memory`'s
    capacity check has them: checked <= capacity, and (capacity - checked) / capacity; None
    where either is unknown."""
    if checked is None or capacity is None:
        return None, None
    return checked <= capacity, (capacity - checked) / capacity if capacity else None


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


def _cell(value: Any) -> Any:
    """A configuration's value as a row's cell: a number, string, bool or None as it is, else
    its JSON."""
    if isinstance(value, (int, float, str, bool)) or value is None:
        return value
    return json.dumps(value, default=repr)


@dataclasses.dataclass
class Row:
    """One configuration on one target: `configuration` (its keys; its ``target`` key, where
    it has one, is `target`), `settings` (the device edits its figures are of), then the
    figures of COLUMNS (``config`` is the configuration's label). `Row.of` makes a compile's
    outcome one; `predict` sets the figures of a program. `as_dict()` is the row as `run`
    gives it (``Result.rows``, ``on_row``, the frame): the configuration's keys (one named as a
    column gets a "config." prefix; a value other than a number, string, bool or None is
    written as JSON), then COLUMNS."""
    target: str
    configuration: Dict[str, Any] = dataclasses.field(default_factory=dict)
    settings: Tuple[str, ...] = ()
    chips: Optional[int] = None
    devices: Optional[int] = None
    step_time_s: Optional[float] = None
    roofline_step_time_s: Optional[float] = None
    mfu: Optional[float] = None
    mfu_flops: Optional[str] = None
    model_flops: Optional[float] = None
    tokens_per_s_per_chip: Optional[float] = None
    footprint_bytes: Optional[int] = None
    xla_footprint_bytes: Optional[int] = None
    peak_bytes: Optional[int] = None
    xla_peak_bytes: Optional[int] = None
    temp_bytes: Optional[int] = None
    xla_temp_bytes: Optional[int] = None
    capacity_bytes: Optional[float] = None
    fits: Optional[bool] = None
    headroom: Optional[float] = None
    compile_s: Optional[float] = None
    cached: bool = False
    error: Optional[str] = None
    entry: Optional[str] = None

    @property
    def config(self) -> str:
        """The configuration in one line, "key=value" by key."""
        return label(self.configuration)

    def as_dict(self) -> Dict[str, Any]:
        row: Dict[str, Any] = {}
        for key, value in self.configuration.items():
            if key != TARGET_KEY:
                row[f"config.{key}" if key in COLUMNS else key] = _cell(value)
        for column in COLUMNS:
            row[column] = getattr(self, column)
        return row

    @classmethod
    def of(cls, target: str, outcome: Outcome, configuration: Optional[Mapping[str, Any]] = None,
           *, settings: Sequence[str] = (), cached: bool = False,
           entry: Optional[str] = None) -> "Row":
        """The row of a compile's `outcome` for `configuration` on `target`: its program
        predicted with `settings`, or its failure's reason in ``error`` (``fits`` False where
        the checks before compiling or XLA's HBM check say it cannot fit). hloroof rejecting
        the program is the row's error too."""
        row = cls(target, dict(configuration or {}), tuple(settings or ()), cached=cached,
                  entry=entry)
        try:
            row.chips = _compile.chips_of(target)
        except ValueError:
            pass
        if outcome.failure is not None:
            row.error = outcome.failure
            if row.error.startswith(_precheck.CANNOT_FIT) or HBM_OOM in row.error:
                row.fits = False  # refused before compiling, or by XLA's own HBM check
            return row
        facts = outcome.facts
        row.chips, row.devices, row.compile_s = facts["chips"], facts["devices"], facts["compile_s"]
        try:
            import hloroof
            return row.predict(hloroof.parse(outcome.text), facts.get("model_flops"),
                               facts.get("tokens"), facts.get("xla_memory") or {})
        except Exception as error:  # hloroof rejects the program: the row says so
            row.error = f"hloroof: {_compile.one_line(error)}"
            return row

    def predict(self, module: Any, model_flops: Optional[float] = None,
                tokens: Optional[float] = None, xla: Optional[Mapping[str, int]] = None,
                reports: Optional[Dict[str, Any]] = None) -> "Row":
        """Sets this row's figures of `module` (a `hloroof.Module`) on its target with its
        settings, and returns the row: the step predicted (MFU of `model_flops`, the model's
        FLOPs of one step, where given, else the program's own: the HFU), tokens a second a chip
        of `tokens` (over the row's chips, else those `chips` counts), the memory analysed
        (beside XLA's `xla`, its memory_analysis() byte counts), and whether it fits (`fit`).
        `reports`: memory reports by target, for several settings of one program (what_if):
        each target's is analysed once, and its capacity is that of the device as the row's
        settings edit it. Raises what hloroof raises for the program or the target, the row
        left as it was."""
        import hloroof
        settings = list(self.settings)
        options = {"model_flops": float(model_flops)} if model_flops else {}
        prediction = hloroof.predict(module, self.target, settings=settings, **options)
        spec = None
        if reports is None:
            report = hloroof.memory(module, self.target, top_buffers=1, settings=settings)
            check = report.capacity
            capacity = check.capacity_bytes if check else None
            checked = check.checked_bytes if check else None
        else:
            if self.target not in reports:
                reports[self.target] = hloroof.memory(module, self.target, top_buffers=1)
            report = reports[self.target]
            spec = hloroof.resolve_device(self.target, module, settings=settings).spec
            capacity = spec.hbm_capacity_bytes
            checked = report.capacity.checked_bytes if report.capacity else report.peak_bytes
        row_chips = self.chips
        if row_chips is None:
            if spec is None:
                spec = hloroof.resolve_device(self.target, module, settings=settings).spec
            row_chips = chips(self.target, prediction.devices, spec.devices_per_chip)
        step = prediction.step_time_s
        xla = xla or {}
        # Set together, once every figure is known: a row hloroof refuses keeps none.
        self.chips = row_chips
        self.step_time_s = step
        self.roofline_step_time_s = prediction.roofline_step_time_s
        self.mfu = prediction.mfu if model_flops else prediction.hfu
        self.mfu_flops = "model" if model_flops else "program"
        self.model_flops = float(model_flops) if model_flops else None
        self.tokens_per_s_per_chip = (tokens / step / row_chips
                                      if tokens and step > 0 and row_chips else None)
        self.footprint_bytes = report.footprint_bytes
        self.xla_footprint_bytes = _xla_footprint(xla)
        self.peak_bytes = report.peak_bytes
        self.xla_peak_bytes = _xla_peak(xla)
        self.temp_bytes = report.temp_bytes
        self.xla_temp_bytes = xla.get("temp_size_in_bytes")
        self.capacity_bytes = capacity
        self.fits, self.headroom = fit(checked, capacity)
        return self
