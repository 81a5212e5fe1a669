"""Checks before compiling: a configuration that cannot shard or cannot fit, told in
milliseconds from its abstract arguments and shardings, without XLA.

A configuration is refused only where its compile could not succeed or its program could not
fit:

* cannot shard: the mesh does not hold the target's devices (its axes' sizes multiply to
  another count), the first axis of a several-slice target does not span its slices, a
  PartitionSpec names an axis the mesh does not have, names one twice, or has more entries than
  its array has dimensions, or a dimension is not a multiple of the mesh axes it is split over
  (``jax.jit`` refuses each of these before XLA sees the program);
* cannot fit: the arguments alone (parameters, gradients and optimizer state that the step takes
  in), each device's share at its element size, exceed the device's HBM by more than
  CAPACITY_MARGIN. XLA keeps every argument in HBM for the whole step, padded by the layout's
  tiles, so a program whose unpadded arguments do not fit never fits.

Anything else (a builder that raises, a pytree of specs that does not match its arguments)
is left to the compile, whose own error the row reports.
"""

from __future__ import annotations

import json
import math
import os
import signal
import sys
import time
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from . import _compile, _engines
from ._entry import Outcome

# The row's error starts so.
PREFIX = "refused before compiling: "
# A refusal for memory starts so (the row's `fits` is then False).
CANNOT_FIT = PREFIX + "cannot fit"
# Arguments are refused for memory only past the device's published HBM by this share: XLA's
# own limit may lie above the figure (tpu_v5e: 16 GB published, XLA's 15.75 GiB = 16.9 GB).
CAPACITY_MARGIN = 0.1
# Seconds one builder may take in the checks' process before it is left to the compile.
BUILDER_S = 30


def time_limit(timeout_s: float, jobs: int) -> float:
    """Seconds the checks' process may run for `jobs` jobs: JAX's start and each builder,
    generously (a loaded machine), never past one compile's `timeout_s`."""
    return min(timeout_s, 600 + 6 * jobs)


def _gb(n: float) -> str:
    return f"{n / 1e9:.3g} GB"


def _bits(dtype: Any) -> int:
    """Bits of one element (sub-byte types packed, as XLA stores them)."""
    import numpy as np
    try:
        import ml_dtypes
        for info in (ml_dtypes.finfo, ml_dtypes.iinfo):
            try:
                return int(info(dtype).bits)
            except (ValueError, TypeError):
                pass
    except ImportError:
        pass
    return 8 * np.dtype(dtype).itemsize


def _axes(mesh_axes: Any, devices: int) -> List[Tuple[str, int]]:
    if mesh_axes is None:
        return [("data", devices)]
    items = mesh_axes.items() if isinstance(mesh_axes, Mapping) else mesh_axes
    return [(str(name), int(size)) for name, size in items]


def _names(entry: Any) -> Tuple[str, ...]:
    """The mesh axes one PartitionSpec entry splits a dimension over."""
    if entry is None:
        return ()
    if isinstance(entry, (tuple, list)):
        return tuple(n for e in entry for n in _names(e))
    return (str(entry),)


class _Refusal(Exception):
    pass


def _leaf_bytes(shape: Sequence[int], bits: int, spec: Any, sizes: Mapping[str, int],
                where: str) -> float:
    """One device's bytes of an array of `shape` split by `spec`; _Refusal when it cannot be."""
    entries = tuple(spec) if spec is not None else ()
    if len(entries) > len(shape):
        raise _Refusal(f"cannot shard: {where} has {len(shape)} dimension"
                       f"{'s' if len(shape) != 1 else ''} but its PartitionSpec {spec} names "
                       f"{len(entries)}")
    used: List[str] = []
    per_device = 1
    for dim, (size, entry) in enumerate(itertools_zip_longest(shape, entries)):
        names = _names(entry)
        for name in names:
            if name not in sizes:
                raise _Refusal(f"cannot shard: {where} is split over mesh axis {name!r}, which "
                               f"the mesh ({', '.join(sizes) or 'none'}) does not have")
            if name in used:
                raise _Refusal(f"cannot shard: {where} is split over mesh axis {name!r} twice")
            used.append(name)
        ways = math.prod(sizes[n] for n in names)
        if size % ways:
            raise _Refusal(f"cannot shard: dimension {dim} of {where} ({size}) is not "
                           f"divisible by {'x'.join(names)} ({ways} devices)")
        per_device *= size // ways
    return per_device * bits / 8


def itertools_zip_longest(shape: Sequence[int], entries: Sequence[Any]):
    return ((size, entries[k] if k < len(entries) else None) for k, size in enumerate(shape))


def _path_text(path: Any) -> str:
    try:
        import jax
        return jax.tree_util.keystr(tuple(path))
    except Exception:  # an older JAX: no keystr
        return str(path)


def argument_bytes(step: Mapping[str, Any], sizes: Mapping[str, int]) -> float:
    """One device's bytes of the step's dynamic arguments as `in_specs` split them over the
    mesh axes `sizes`; _Refusal when one cannot be split so."""
    import jax
    from jax.sharding import PartitionSpec
    args = list(step["args"])
    static = set(step.get("static_argnums") or ())
    specs = step.get("in_specs")
    if specs is None:
        specs = (None,) * len(args)
    specs = tuple(specs)
    if len(specs) == len(args) and static:
        specs = tuple(s for i, s in enumerate(specs) if i not in static)
    dynamic = [a for i, a in enumerate(args) if i not in static]
    if len(specs) != len(dynamic):
        raise ValueError("in_specs and args differ in length")  # the compile says so
    total = 0.0

    def is_spec(x: Any) -> bool:
        return x is None or isinstance(x, PartitionSpec)

    for index, (spec_tree, arg) in enumerate(zip(specs, dynamic)):
        spec_leaves = jax.tree_util.tree_flatten_with_path(spec_tree, is_leaf=is_spec)[0]
        for spec_path, spec in spec_leaves:
            subtree = _subtree(arg, spec_path)
            for path, leaf in jax.tree_util.tree_flatten_with_path(subtree)[0]:
                shape = tuple(int(d) for d in getattr(leaf, "shape", ()))
                where = f"argument {index}{_path_text(tuple(spec_path) + tuple(path))}"
                total += _leaf_bytes(shape, _bits(leaf.dtype), spec, sizes, where)
    return total


def _subtree(tree: Any, path: Sequence[Any]) -> Any:
    for key in path:
        if hasattr(key, "key"):
            tree = tree[key.key]
        elif hasattr(key, "idx"):
            tree = tree[key.idx]
        elif hasattr(key, "name"):
            tree = getattr(tree, key.name)
        else:
            raise ValueError(f"no subtree at {path}")
    return tree


def _slices(target: str) -> int:
    _, *options = target.split(",")
    for option in options:
        key, _, value = option.partition("=")
        if key == "slices" and value.isdigit():
            return int(value)
    return 1


def refusal(step: Mapping[str, Any], target: str, devices: int,
            capacity_bytes: Optional[float]) -> Optional[Tuple[str, str]]:
    """(kind, reason) when the step cannot compile or fit on `target` (`devices` devices,
    `capacity_bytes` of HBM a device; None: not checked), kind "shard" or "fit"; None when the
    checks find nothing."""
    axes = _axes(step.get("mesh_axes"), devices)
    sizes = dict(axes)
    held = math.prod(size for _, size in axes)
    if held != devices:
        return "shard", (f"cannot shard: mesh_axes {sizes} hold {held} devices; {target} has "
                         f"{devices}")
    slices = _slices(target)
    if slices > 1 and axes and axes[0][1] % slices:
        return "shard", (f"cannot shard: the first mesh axis ({axes[0][0]}={axes[0][1]}) spans "
                         f"the {slices} slices of {target}, so it must be a multiple of "
                         f"{slices}")
    try:
        arguments = argument_bytes(step, sizes)
    except _Refusal as refused:
        return "shard", str(refused)
    except Exception:  # a pytree the checks cannot read: the compile tells
        return None
    if capacity_bytes and arguments > capacity_bytes * (1 + CAPACITY_MARGIN):
        return "fit", (f"cannot fit: the arguments alone (parameters, gradients, optimizer "
                       f"state) hold {_gb(arguments)} a device; its HBM holds "
                       f"{_gb(capacity_bytes)}")
    return None


def check_job(job: Mapping[str, Any]) -> Optional[Dict[str, Any]]:
    """The outcome of refusing `job` ({"failure": the reason, "precheck_s": seconds the
    checks took, the builder's call included}), or None when it should be compiled. Builds
    its step here (the builder imported from the job's path); a builder that raises, or a
    target JAX does not know, is left to the compile."""
    start = time.perf_counter()
    try:
        import hloroof
        import hloroof.jax as hj
        target = job["target"]
        devices = len(hj.topology_devices(target))
        spec = hloroof.resolve_device(target).spec
        for p in reversed(job.get("path") or []):
            if p not in sys.path:
                sys.path.insert(0, p)
        builder = _compile.load_builder(job["builder"])
        config = dict(job["config"])
        config.setdefault("target", target)
        try:
            config.setdefault("chips", _compile.chips_of(target))
        except ValueError:
            config.setdefault("chips", _compile.chips_of(target.split(",")[0]) * _slices(target))
        config.setdefault("devices", devices)
        # A device's HBM: the spec's, where libtpu counts devices as it does; where it counts
        # more a chip (v4, v5p compiled offline: a device a TensorCore), the chip's whole HBM,
        # which no device exceeds.
        capacity = spec.hbm_capacity_bytes
        if devices > config["chips"] * spec.devices_per_chip:
            capacity = spec.hbm_capacity_bytes * spec.devices_per_chip
        signal.alarm(BUILDER_S)  # a builder that hangs is the compile's to time out
        try:
            step = _compile.step_fields(builder(config))
        finally:
            signal.alarm(0)
    except BaseException as error:  # noqa: B036 - anything the builder does: the compile's
        if isinstance(error, KeyboardInterrupt):
            raise
        return None
    found = refusal(step, target, devices, capacity)
    if found is None:
        return None
    kind, reason = found
    return {"failure": PREFIX + reason, "precheck_s": time.perf_counter() - start}


class _Alarm(Exception):
    pass


def _on_alarm(signum: int, frame: Any) -> None:
    raise _Alarm()


def main(argv: Any = None) -> int:
    """python -m hloroof.sweep._precheck [--watch FD] JOBS.json OUT: one JSON line a job in OUT,
    written as each is checked ({"index", "outcome"}: the refusal, or null). --watch: as a
    compile's (hloroof.sweep._compile), so that the checks end with their sweep."""
    jobs_path, out_path = _compile.watch_from(list(argv or sys.argv[1:]))[:2]
    with open(jobs_path) as f:
        jobs = json.load(f)
    signal.signal(signal.SIGALRM, _on_alarm)
    with open(out_path, "w") as out:
        for index, job in jobs:
            outcome = check_job(job)
            out.write(json.dumps({"index": index, "outcome": outcome}) + "\n")
            out.flush()
    return 0


def refuse(jobs: List[Tuple[int, Mapping[str, Any]]], env: Mapping[str, str],
           timeout_s: float) -> Dict[int, Outcome]:
    """The refusals among `jobs` (index, job), by index, each a failure the store keeps (the
    same inputs are refused again): the checks run in one process of their own (the builders
    are the user's code: one that hangs or dies takes only that process), for at most
    `timeout_s`; a job it did not reach is compiled. The process and what it
    started end with the checks, with the sweep, and at `timeout_s` (its process group)."""
    import tempfile
    refused: Dict[int, Outcome] = {}
    if not jobs:
        return refused
    with tempfile.TemporaryDirectory(prefix="hloroof-precheck-") as folder:
        jobs_path = os.path.join(folder, "jobs.json")
        out_path = os.path.join(folder, "out.jsonl")
        with open(jobs_path, "w") as f:
            json.dump([[i, dict(j)] for i, j in jobs], f)
        with _engines.watched("hloroof.sweep._precheck", [jobs_path, out_path], env) as popen:
            _engines.wait_group(popen, timeout_s)  # timed out: what it wrote stands
        try:
            with open(out_path) as f:
                for line in f:
                    try:
                        record = json.loads(line)
                    except ValueError:
                        break  # a line cut short by a death
                    if record.get("outcome"):
                        refused[int(record["index"])] = Outcome.failed(
                            record["outcome"]["failure"], keep=True)
        except OSError:
            pass
    return refused


if __name__ == "__main__":
    sys.exit(main())
