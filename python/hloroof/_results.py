"""The results that the commands give as JSON and hloroof keeps as plain data with attributes:
`Calibration` (``hloroof calibrate``) and `ProfileComparison` (``hloroof profile``), and
`Comparison`, the predictions of one module on several devices (``hloroof compare``)."""

from __future__ import annotations

import os as _os
from typing import Any, Dict, List, Optional

from . import _hloroof


class Record(dict):
    """Plain data with its keys as attributes too (``r.step.measured_s`` or
    ``r["step"]["measured_s"]``); ``to_dict()`` gives the plain dict, ``str()`` the command's
    text report."""

    def __init__(self, data: Dict[str, Any], text: str = "") -> None:
        super().__init__({key: _record_of(value) for key, value in data.items()})
        self._text = text

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.keys()))

    def to_dict(self) -> Dict[str, Any]:
        return {key: _plain_record(value) for key, value in self.items()}

    def __str__(self) -> str:
        return self._text or super().__repr__()


def _record_of(value: Any) -> Any:
    if isinstance(value, dict):
        return Record(value)
    if isinstance(value, list):
        return [_record_of(item) for item in value]
    return value


def _plain_record(value: Any) -> Any:
    if isinstance(value, Record):
        return value.to_dict()
    if isinstance(value, list):
        return [_plain_record(item) for item in value]
    return value


class Calibration(Record):
    """A device fitted to profiles (`calibrate`): ``accepted`` (False: the fit predicts the
    held-out steps worse than the given device, and ``rejected_why`` says how), ``device_json``
    (the fitted device file, empty when not accepted), ``figures`` (``field``, ``before``,
    ``after``, ``fitted``, ``why``, ``given_model``), ``errors`` per op class, ``steps`` per
    profile (``measured_s``, ``given_s``, ``fitted_s``), ``held_out`` (leave one out),
    ``ops_used``, ``ops_left_out``, ``notes``; ``str()`` is ``hloroof calibrate``'s report."""

    def save(self, path: str) -> str:
        """Writes the fitted device JSON to `path` (which `predict` then takes as its device);
        raises ValueError when the fit was not accepted. Returns the path."""
        if not self["accepted"]:
            raise ValueError(f"calibrate: the fit was not kept, nothing to save: "
                             f"{self['rejected_why']}")
        target = _os.fspath(path)
        # Whole or not at all, and never over a profile it was fitted from.
        _hloroof._write_file(target, self["device_json"], "the fitted device",
                             list(getattr(self, "_inputs", [])))
        return target


class ProfileComparison(Record):
    """The prediction beside a measured run (`compare_profile`): ``step``, ``ops``,
    ``unmatched``, ``gaps``, ``notes``, ... as ``hloroof profile --json`` names them;
    ``str()`` is the command's report."""


class Comparison(list):
    """Predictions of one module on several devices (`compare`), in the order given;
    ``str()`` is the report of ``hloroof compare``."""

    def __init__(self, predictions: List[Any], top: int = 5,
                 memory: Optional[List[Any]] = None) -> None:
        super().__init__(predictions)
        self.top = top
        # Whether the module fits each device (`CapacityCheck`), for the report's memory row.
        self.memory = memory or []

    def __str__(self) -> str:
        return _hloroof._render_comparison(list(self), self.top, self.memory)
