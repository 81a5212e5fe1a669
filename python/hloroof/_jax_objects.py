"""What a JAX ``Lowered`` or ``Compiled`` object says about its program and its devices.

Nothing here imports JAX until it is handed a JAX object: hloroof works without JAX.
"""

from __future__ import annotations

import math
import os
import sys
import weakref
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from . import _hloroof

class Facts(NamedTuple):
    """What the object told: its HLO text, the device and slice, and notes saying so."""
    text: str
    device: Optional[str]  # a built-in device name, None when the kind has none
    options: Dict[str, Any]  # predict options read: topology, device_coordinates
    notes: List[str]  # how the device and slice were read, and what was assumed
    platform: str = ""  # the devices' platform: "tpu", "gpu" ("cuda", "rocm"), "cpu"; "" unknown


def is_lowered(obj: Any) -> bool:
    return type(obj).__name__ == "Lowered" and callable(getattr(obj, "compile", None))


def is_compiled(obj: Any) -> bool:
    return (callable(getattr(obj, "as_text", None)) and hasattr(obj, "input_shardings")
            and hasattr(obj, "output_shardings"))


def device_for_kind(kind: str) -> Tuple[Optional[str], Optional[str]]:
    """The built-in device for a JAX device kind, and a note when that is an assumption (another
    model of a built-in GPU). The library's table (device_for_kind, hloroof/device_target.h),
    the one the command reads profiles' device kinds with."""
    name, _, exact = _hloroof._device_for_kind(kind)
    if not name:
        return None, None
    if exact:
        return name, None
    spec = _hloroof._device(name)
    return name, (f"device kind {kind!r} has no spec of its own: predicted as {name} "
                  f"({spec.display_name}), the built-in spec of the same GPU")


def _devices(compiled: Any) -> List[Any]:
    """The devices of the executable, in the order of its device assignment (the ids that the
    HLO's replica groups name)."""
    import jax

    shardings = jax.tree_util.tree_leaves(
        (compiled.input_shardings, compiled.output_shardings),
        is_leaf=lambda x: hasattr(x, "device_set"))
    shardings = [s for s in shardings if hasattr(s, "device_set")]
    for sharding in shardings:
        assignment = getattr(sharding, "_device_assignment", None)
        if assignment:
            return list(assignment)
    found = {d for s in shardings for d in s.device_set}
    return sorted(found, key=lambda d: d.id)


def tpu_slice(devices: List[Any], name: str) -> Tuple[Dict[str, Any], Optional[str]]:
    """The topology and device coordinates of TPU `devices` (each with ``coords`` and
    ``core_on_chip``), or no options and a note saying why not. Devices of several slices
    (libtpu's ``slice_index``) are one topology ``SHAPE,slices=N`` when every slice is a whole
    slice of the same shape: each device's coordinates end with its slice's rank."""
    slice_of = [getattr(d, "slice_index", None) for d in devices]
    if len(set(slice_of) - {None}) > 1:
        if None in slice_of:
            return {}, "some devices carry no slice index: the slice is inferred"
        order = sorted(set(slice_of))
        parts = [tpu_slice([d for d, s in zip(devices, slice_of) if s == index], name)
                 for index in order]
        shapes = {options.get("topology") for options, _ in parts}
        if any(note for _, note in parts) or len(shapes) != 1:
            return {}, (f"the devices of {len(order)} slices are not whole {name} slices of "
                        f"one shape: the slice is inferred from the module's device count")
        # Each slice's coordinates, in the devices' order, with the slice's rank appended.
        per_slice = {index: iter(options["device_coordinates"])
                     for index, (options, _) in zip(order, parts)}
        coordinates = [next(per_slice[s]) + [order.index(s)] for s in slice_of]
        return {"topology": f"{shapes.pop()},slices={len(order)}",
                "device_coordinates": coordinates}, None
    spec = _hloroof._device(name)
    rank, per_chip = spec.torus_rank, spec.devices_per_chip
    try:
        coords = [tuple(int(c) for c in d.coords) for d in devices]
        cores = [int(getattr(d, "core_on_chip", 0)) for d in devices]
    except (AttributeError, TypeError, ValueError):
        return {}, "the devices carry no chip coordinates: the slice is inferred"
    if per_chip < max(cores) + 1 <= spec.cores_per_chip:
        # A megacore chip (v4, v5p) as one device per TensorCore, as libtpu compiles offline:
        # the topology counts chips, and the prediction divides each chip among its cores.
        per_chip = spec.cores_per_chip
    axes = len(coords[0])
    low = [min(c[i] for c in coords) for i in range(axes)]
    high = [max(c[i] for c in coords) for i in range(axes)]
    bounds = [high[i] - low[i] + 1 for i in range(min(rank, axes))]
    positions = {(core,) + tuple(c[i] - low[i] for i in range(len(bounds)))
                 for core, c in zip(cores, coords)}
    whole = (len(bounds) == rank and all(high[i] == low[i] for i in range(rank, axes))
             and len(positions) == len(devices) and max(cores) < per_chip
             and math.prod(bounds) * per_chip == len(devices))
    if not whole:
        return {}, (f"the {len(devices)} devices' chip coordinates (bounds "
                    f"{'x'.join(str(h - l + 1) for l, h in zip(low, high))}, cores per chip "
                    f"{max(cores) + 1}) are not a whole {name} slice of {per_chip} device(s) per "
                    f"chip: the slice is inferred from the module's device count")
    coordinates = [([core] if per_chip > 1 else []) + [c[i] - low[i] for i in range(rank)]
                   for core, c in zip(cores, coords)]
    return {"topology": "x".join(map(str, bounds)), "device_coordinates": coordinates}, None


# What each JAX object told, read once: a Compiled's program and devices do not change, and
# printing the program (as_text()) costs more than parsing and predicting it. Kept as long as
# the object lives; objects that cannot be weakly referenced are read on each call.
_facts: "weakref.WeakKeyDictionary[Any, Facts]" = weakref.WeakKeyDictionary()
def _cached(cache: "weakref.WeakKeyDictionary[Any, Any]", obj: Any) -> Any:
    try:
        return cache.get(obj)
    except TypeError:  # not hashable, or not weakly referenceable
        return None


def _keep(cache: "weakref.WeakKeyDictionary[Any, Any]", obj: Any, value: Any) -> None:
    try:
        cache[obj] = value
    except TypeError:
        pass


def read(obj: Any) -> Optional[Facts]:
    """Facts of a JAX Lowered (compiled here) or Compiled object; None for anything else.
    Read once per object (its program printed once); each call gets its own lists."""
    facts = _cached(_facts, obj)
    if facts is None:
        facts = _read(obj)
        if facts is not None:
            _keep(_facts, obj, facts)
    if facts is None:
        return None
    options = dict(facts.options)
    if "device_coordinates" in options:
        options["device_coordinates"] = [list(c) for c in options["device_coordinates"]]
    return Facts(facts.text, facts.device, options, list(facts.notes), facts.platform)


def forget(obj: Any) -> None:
    """Drops what was read of `obj`: the next call reads it again (for the benchmark)."""
    try:
        _facts.pop(obj, None)
    except TypeError:
        pass


def xla_memory(obj: Any) -> Optional[Dict[str, int]]:
    """XLA's own memory figures of a JAX ``Compiled`` (``memory_analysis()``) by hloroof's
    names (``argument_bytes``, ``output_bytes``, ``alias_bytes``, ``temp_bytes``); None for
    anything else, or where the backend has none."""
    if not is_compiled(obj) or not callable(getattr(obj, "memory_analysis", None)):
        return None
    try:
        analysis = obj.memory_analysis()
        return {f"{term}_bytes": int(getattr(analysis, f"{term}_size_in_bytes"))
                for term in ("argument", "output", "alias", "temp")}
    except Exception:  # no analysis on this backend, or a field missing: nothing to show
        return None


def _quietly(call: Any) -> Any:
    """call(), with what it writes to file descriptor 2 (jaxlib's C++ logging) held back:
    written out when it returns, dropped when it raises (its exception says what failed)."""
    import tempfile
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no descriptor 2 to hold back
        return call()
    try:
        with tempfile.TemporaryFile() as held:
            os.dup2(held.fileno(), 2)
            try:
                result = call()
            finally:
                os.dup2(saved, 2)
            held.seek(0)
            logged = held.read()
    finally:
        os.close(saved)
    if logged:
        os.write(2, logged)
    return result


def _read(obj: Any) -> Optional[Facts]:
    notes = []
    if is_lowered(obj):
        obj = obj.compile()
        notes.append("the Lowered object was compiled for its backend to read its HLO")
    if not is_compiled(obj):
        return None
    # jaxlib logs a long stack to stderr before as_text() raises (what libtpu compiles for
    # v5p, v6e and tpu7x): held back, the exception's first line says it in the notes.
    try:
        text = _quietly(obj.as_text)
    except Exception as error:  # jax.errors.JaxRuntimeError; jax is not imported here
        text = getattr(obj, "_hloroof_hlo_text", None)
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        if text is None:
            raise ValueError(
                f"XLA compiled the program but cannot print it (as_text(): {first}); compile "
                f"it with hloroof.jax.compile_for, which keeps XLA's own dump of it, or give "
                f"the *after_optimizations.txt that XLA_FLAGS=--xla_dump_to=DIR writes"
            ) from error
        notes.append(f"the program is XLA's dump of it (as_text() failed: {first})")
    devices = _devices(obj)
    if not devices:
        notes.append("the compiled object names no devices")
        return Facts(text, None, {}, notes)
    kind = str(devices[0].device_kind)
    platform = str(getattr(devices[0], "platform", ""))
    name, assumed = device_for_kind(kind)
    if name is None:
        what = "the CPU" if platform == "cpu" else f"device kind {kind!r}"
        notes.append(f"compiled for {what}, which no built-in device spec describes")
        return Facts(text, None, {}, notes, platform)
    if assumed:
        notes.append(assumed)
    options: Dict[str, Any] = {}
    where = f"{len(devices)} device(s) of kind {kind!r}"
    if _hloroof._device(name).kind == "tpu":
        options, why_not = tpu_slice(devices, name)
        if why_not:
            notes.append(why_not)
        else:
            where += f", chips {options['topology']}"
    notes.append(f"device {name} read from the compiled object ({where})")
    return Facts(text, name, options, notes, platform)
