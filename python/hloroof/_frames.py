"""pandas DataFrames of the records' rows (``to_pandas()`` of a `Prediction`, `ModuleCost` and
`MemoryReport`, bound in bindings_results.cc): pandas is imported only when one is asked for."""

from __future__ import annotations

from typing import Any, Dict, List


def _flat(record: Dict[str, Any]) -> Dict[str, Any]:
    """One row: a nested record's keys as ``outer.inner`` columns."""
    row: Dict[str, Any] = {}
    for key, value in record.items():
        if isinstance(value, dict):
            for inner, item in value.items():
                row[f"{key}.{inner}"] = item
        else:
            row[key] = value
    return row


def data_frame(rows: List[Dict[str, Any]]):
    try:
        import pandas
    except ImportError as error:
        raise ImportError("to_pandas() needs pandas (Debian: python3-pandas; "
                          "pip install pandas)") from error
    return pandas.DataFrame([_flat(row) for row in rows])
