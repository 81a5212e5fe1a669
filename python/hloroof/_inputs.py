"""How the arguments of the API's calls become what the library takes: the module of whatever
was given (a Module, a path or HLO text, which the library tells apart, a JAX object, an open
file), the device it names (the library's rule; a JAX object's own where none is given), and
keyword options."""

from __future__ import annotations

import os as _os
from typing import Any, Dict, List, NamedTuple, Optional, Tuple, Union

from . import _hloroof, _jax_objects
from ._hloroof import DeviceTarget, Module, PredictOptions

_Text = Union[str, bytes, Module, Any]  # Any: an open file, a JAX object, an object with as_text()


class _Input(NamedTuple):
    module: Module
    keep: bool  # read from a Module or a file: predictions' ops point into it
    text: Any  # else the text, which write_xspace reads again
    facts: Optional[_jax_objects.Facts]  # what a JAX object told


def _input(source: _Text, file_name: str = "") -> _Input:
    """The module of `source`: a Module; a str, bytes or os.PathLike (the library tells a path
    from HLO text: _hloroof._load); a JAX Lowered or Compiled; an open file (read()); an
    object with as_text()."""
    if isinstance(source, Module):
        return _Input(source, True, source, None)
    if isinstance(source, (str, bytes, bytearray, _os.PathLike)):
        module, from_file = _hloroof._load(source, file_name)
        return _Input(module, from_file, source, None)
    facts = _jax_objects.read(source)
    if facts is not None:
        return _Input(_hloroof._load(facts.text)[0], False, facts.text, facts)
    for method in ("read", "as_text"):
        call = getattr(source, method, None)
        if callable(call):
            text = call()
            if not isinstance(text, (str, bytes)):
                raise TypeError(f"{type(source).__name__}.{method}() returned "
                                f"{type(text).__name__}, not HLO text")
            return _Input(_hloroof._load(text, file_name)[0], False, text, None)
    raise TypeError(f"expected HLO text, a path, an open file, a hloroof.Module or an object "
                    f"with as_text(), got {type(source).__name__}")


def _options(options_type: type, what: str, values: Dict[str, Any],
             also: Tuple[str, ...] = ()):
    # `also`: the keywords taken apart from the options (topology=), for the message.
    options = options_type()
    known = options_type._fields
    for name, value in values.items():
        if name not in known:
            raise TypeError(f"{what}() got an unknown option {name!r}; "
                            f"options: {', '.join(also + tuple(known))}")
        try:
            setattr(options, name, value)
        except TypeError:
            # pybind11's own message lists C++ signatures: say what the option takes instead.
            default = getattr(options, name)
            wanted = {bool: "True or False", int: "a whole number", float: "a number",
                      str: "a str"}.get(type(default), type(default).__name__)
            if type(default) is int and isinstance(value, int) and not isinstance(value, bool):
                raise ValueError(f"{what}() option {name} wants a whole number within 64 bits, "
                                 f"got {value}") from None
            raise TypeError(f"{what}() option {name} wants {wanted}, got "
                            f"{type(value).__name__} {value!r:.80}") from None
    return options


def _predict_options(function: str, options: Dict[str, Any]) -> Tuple[str, PredictOptions]:
    """(topology, options): the slice given apart from the device (``topology=``, which goes
    where the device is resolved) and the `PredictOptions` of the other keywords."""
    rest = dict(options)
    topology = rest.pop("topology", "")
    if not isinstance(topology, str):
        raise TypeError(f"{function}() wants topology as a str ('4x4', '2x8'), got "
                        f"{type(topology).__name__} {topology!r}")
    return topology, _options(PredictOptions, function, rest, ("topology",))


def _target(function: str, device: Any, source: _Input, options: Dict[str, Any],
            settings: Any = None) -> Tuple[DeviceTarget, PredictOptions, List[str],
                                           Tuple[Any, str]]:
    """(target, options, notes, (device, topology)): what `device` and ``topology=`` name for
    the module (the library's rule, _hloroof._target); without a device, the device and slice a
    JAX object was compiled for (said in the notes), else the default of the module's
    platform."""
    facts, notes, compiled_for = source.facts, [], ""
    if facts is not None and device is None:
        notes = facts.notes
        device = facts.device
        if device is not None and "topology" not in options:
            options = {**facts.options, **options}
    elif facts is not None and facts.platform == "cpu":
        compiled_for = "cpu"  # a CPU program on a named device, its text may not tell
    topology, opts = _predict_options(function, options)
    target = _hloroof._target(device, source.module, topology, settings, function, "any",
                              compiled_for)
    return target, opts, notes, (device, topology)


def _count(function: str, name: str, value: Any) -> int:
    # A count argument as the public function names it.
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{function}: {name} wants a whole number, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{function}: {name} wants a count, 0 or more; got {value}")
    return value


def _path_argument(function: str, name: str, value: Any) -> str:
    """`value` as a path (a str or an os.PathLike); TypeError naming the argument otherwise,
    rather than a file named "None"."""
    if isinstance(value, (str, _os.PathLike)):
        path = _os.fspath(value)
        if isinstance(path, str):
            return path
    raise TypeError(f"{function}() wants {name} as a path (str or os.PathLike), got "
                    f"{type(value).__name__} {value!r}")


def _files(read: List[Tuple[Any, _Input]]) -> List[str]:
    """The paths among the sources read that name files (what an output must not replace)."""
    return [_os.fspath(s) for s, i in read if isinstance(s, (str, _os.PathLike)) and i.keep]
