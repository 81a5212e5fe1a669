"""What `run` gives back: its rows (dicts, as `Row.as_dict` makes them), the Pareto front, and
the table, plot and files of them."""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional

from . import _cache, _files, _report


class Result:
    """A sweep's rows, one per configuration and target, in the order of the grid (those not
    finished when it was interrupted left out). ``frame``: the pandas DataFrame; ``table()``,
    ``svg()``, ``write(path)``; ``compiled``: how many were compiled by this run (the others
    came from the store); ``interrupted``: Ctrl-C ended the run; ``compile_peak_bytes``: the
    largest peak resident memory of one compile process (None when nothing was compiled), what
    an engine's ``compile_memory`` may be set to next time."""

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
        if entry is None or entry.text is None:
            raise ValueError(f"row {index} has no stored program")
        return entry.text

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
