"""XLA's own figures of a compiled executable, as every tool here stores them beside its module:
`memory_analysis.json`, each integer field of `compiled.memory_analysis()` (bytes), and
`cost_analysis.json`, `compiled.cost_analysis()` (FLOPs, transcendentals, bytes accessed, ...).

It reads only the objects it is given (importing it starts no JAX backend). Scripts import it
after putting tools/ on their path:

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # tools/
    from xla_analyses import write_analyses
"""

import json
import os
from typing import Any, Dict, Union

from output_file import write_output


def memory_fields(stats: Any) -> Dict[str, int]:
    """Every integer field of memory_analysis()'s result (none where XLA gives none)."""
    if stats is None:
        return {}
    fields = {}
    for name in sorted(dir(stats)):
        value = getattr(stats, name) if not name.startswith("_") else None
        if isinstance(value, int) and not isinstance(value, bool):
            fields[name] = value
    return fields


def cost_fields(cost: Any) -> Dict[str, float]:
    """cost_analysis()'s figures by name (older JAX gives a list, one dict per computation: the
    first, the entry's)."""
    if isinstance(cost, (list, tuple)):
        cost = cost[0] if cost else {}
    return {name: float(value) for name, value in sorted((cost or {}).items())}


def write_json(path: Union[str, "os.PathLike[str]"], value: Any) -> None:
    write_output(path, json.dumps(value, indent=1, sort_keys=True) + "\n")


def write_analyses(compiled: Any, folder: Union[str, "os.PathLike[str]"]) -> None:
    """memory_analysis.json and cost_analysis.json of `compiled` in `folder`."""
    write_json(os.path.join(folder, "memory_analysis.json"),
               memory_fields(compiled.memory_analysis()))
    write_json(os.path.join(folder, "cost_analysis.json"), cost_fields(compiled.cost_analysis()))
