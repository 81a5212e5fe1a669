"""hloroof: static step-time prediction from XLA HLO text, without running anything.

Right after JAX compiles a function::

    import hloroof
    compiled = jax.jit(step).lower(*args).compile()
    p = hloroof.predict(compiled)   # on the device it was compiled for; or compiled.as_text()
    p.step_time_s, p.breakdown.memory_s, p.hfu
    hloroof.predict(compiled, model_flops=6 * n_params * tokens).mfu   # model FLOP utilization
    p.ops[0].explanation                          # the most expensive op, and why
    p.to_pandas()                                 # one row per op (needs pandas)

Wherever HLO text goes, a parsed `Module` or anything with an ``as_text()`` method that
returns HLO text (a JAX ``Compiled``) goes too; ``bytes`` are read as UTF-8, and the bytes
(or the file) of an ``xla.HloProto`` or ``HloModuleProto`` (``--xla_dump_hlo_as_proto``) or of
an XSpace profile are the module they hold (a profile's: the one that ran longest). A JAX
``Lowered``
is compiled for its backend first. From a ``Compiled``, `predict`, `advise` and `memory` read
the device kind and the TPU slice too (`hloroof.jax.compile_for` compiles for a TPU slice you
do not have). Figures are in base units:
seconds, bytes, FLOPs, per second. Every estimate says how it was made (``explanation``,
``assumptions``, ``notes``, ``DeviceSpec.figures`` with their sources).

Errors raise `ParseError` (a `ValueError`) for text that does not parse, with the located
message of the command-line tool, and `ValueError` for anything else the library rejects
(an unknown device, a topology too small for the module, ...).
"""

from __future__ import annotations

import json as _json
import os as _os
import re as _re
from typing import Any, Dict, List, Optional, Tuple, Union

from . import _hloroof, _jax_objects
from ._hloroof import (  # noqa: F401  (re-exported)
    AsyncPrediction,
    Breakdown,
    CapacityCheck,
    CollectiveCost,
    CollectivePrediction,
    Computation,
    ComputationCost,
    CostOptions,
    DeviceFigure,
    DeviceSpec,
    DeviceTarget,
    Instruction,
    InstructionCost,
    LiveBytesPoint,
    MemoryBreakdown,
    MemoryAllocation,
    MemoryBuffer,
    MemoryReport,
    Module,
    ModuleCost,
    OpCost,
    OpMetadata,
    OpPrediction,
    ParseError,
    PeakFrame,
    Prediction,
    PredictionDiff,
    OpDelta,
    DiffSide,
    PredictOptions,
    SpaceBytes,
    TimelineEvent,
    TripCount,
    device_summaries_to_json,
    devices,
    parse_summary_to_json,
    shape_to_json,
)

__all__ = [
    "parse", "cost", "predict", "memory", "advise", "calibrate", "compare", "compare_profile",
    "diff", "devices", "device", "resolve_device", "DeviceTarget", "Advice", "Calibration", "Comparison", "ProfileComparison",
    "Record", "Analysis",
    "ParseError", "__version__",
    "Module", "Computation", "Instruction", "OpMetadata", "ModuleCost", "InstructionCost",
    "ComputationCost", "OpCost", "MemoryReport", "MemoryBuffer", "MemoryAllocation", "DeviceSpec",
    "Prediction", "OpPrediction", "Breakdown", "PredictOptions", "CostOptions", "PredictionDiff",
    "OpDelta", "DiffSide", "device_summaries_to_json", "parse_summary_to_json", "shape_to_json",
]

__version__: str = _hloroof.__version__

_Text = Union[str, bytes, Module, Any]  # Any: an object with as_text()

# A str longer than this, or with a line break, is HLO text, never a path.
_MAX_PATH = 4096


def _names_file(source: Any) -> bool:
    """`source` is a path to read: an os.PathLike, or a str naming a file or a directory (an
    XLA dump) that exists."""
    if isinstance(source, _os.PathLike):
        return True
    return (isinstance(source, str) and 0 < len(source) < _MAX_PATH and "\n" not in source
            and (_os.path.isfile(source) or _os.path.isdir(source)))


# A str of one line without a computation's braces that holds a folder separator or ends in
# a file extension ("runs/step.hlo", "step.hlo.txt") is a path, never HLO text.
_PATH_LIKE = _re.compile(r"[^\n{]*([/\\][^\n{]*|\.[A-Za-z0-9]{1,8})")


def _read_source(source: Any) -> Any:
    """The `Module` of a path (an os.PathLike, or a str naming an existing file or dump
    directory), the text of an open file (anything with read()); anything else as it is. A str
    that can only be a path (one line, no braces, a folder or an extension) but names no file
    raises FileNotFoundError."""
    if _names_file(source):
        # Read as the commands read: /dev/zero or a FIFO is refused, not read forever.
        return _hloroof._load_path(_os.fspath(source))
    if isinstance(source, str) and len(source) < _MAX_PATH and _PATH_LIKE.fullmatch(source):
        raise FileNotFoundError(f"cannot read '{source}': no such file; check the path (a "
                                f"string of HLO text holds a computation in braces)")
    read = getattr(source, "read", None)
    if callable(read) and not isinstance(source, (str, bytes, Module)):
        text = read()
        if not isinstance(text, (str, bytes)):
            raise TypeError(f"{type(source).__name__}.read() returned {type(text).__name__}, "
                            f"not HLO text")
        return text
    return bytes(source) if isinstance(source, bytearray) else source


def _text_of(source: Any) -> Union[str, bytes]:
    """The HLO text of `source`: str or bytes as they are (a str naming an existing file, an
    os.PathLike or an open file: what it holds), a JAX Lowered compiled, else
    `source.as_text()` (a JAX Lowered or Compiled: its text printed once)."""
    source = _read_source(source)
    facts = None if isinstance(source, (str, bytes)) else _jax_objects.read(source)
    if isinstance(source, (str, bytes)):
        text = source
        if isinstance(text, str) and not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as e:
                raise ValueError(f"the text holds {e.object[e.start]!r} at character {e.start}, "
                                 "a lone surrogate, which UTF-8 cannot hold: not text a "
                                 "program wrote") from None
    elif facts is not None:  # a JAX Lowered or Compiled: its text printed once
        text = facts.text
    else:
        as_text = getattr(source, "as_text", None)
        if not callable(as_text):
            raise TypeError(f"expected HLO text, a path, an open file, a hloroof.Module or an "
                            f"object with as_text(), got {type(source).__name__}")
        text = as_text()
        if not isinstance(text, (str, bytes)):
            raise TypeError(f"{type(source).__name__}.as_text() returned "
                            f"{type(text).__name__}, not HLO text")
    return text


def _module_of(source: _Text) -> Module:
    return source if isinstance(source, Module) else parse(source)


def _set_options(options_type: type, what: str, values: Dict[str, Any]):
    options = options_type()
    known = options_type._fields
    for name, value in values.items():
        if name not in known:
            raise TypeError(f"{what}() got an unknown option {name!r}; "
                            f"options: {', '.join(known)}")
        setattr(options, name, value)
    return options


def parse(text: _Text, file_name: str = "") -> Module:
    """Parses HLO text (any of XLA's printed forms) into a `Module`; a path reads its file (HLO
    text, an HloProto or HloModuleProto, an XSpace profile) or XLA dump directory (its largest
    ``jit_*`` module after optimization). Input that holds no HLO (StableHLO, JSON, other
    binary files) raises ValueError saying what to give instead.

    `file_name`, when given, starts error messages as the command-line tool's do
    (``model.hlo:3:5: error: ...``). Raises `ParseError` with the location.
    """
    if isinstance(text, Module):
        return text
    if not file_name and _names_file(text):
        file_name = _os.fspath(text)
    source = _read_source(text)  # the bytes of a proto are its module
    if isinstance(source, Module):
        return source
    return _hloroof._parse(_text_of(source), file_name)


def _entry_warnings(module: Module) -> List[str]:
    """The warning for a module that marks no computation ENTRY (as the command's banner)."""
    if module.entry_marked:
        return []
    return [f"warning: {_hloroof._no_entry_warning(module)}"]


def cost(module_or_text: _Text, **options: Any) -> ModuleCost:
    """FLOPs, transcendentals and bytes of every instruction and of one step (`ModuleCost`).

    Options (`CostOptions`): ``use_padded_sizes`` (True), ``default_trip_count`` (1),
    ``fused_records`` (True; False keeps the records of fused and applied instructions only
    where they perform a collective, their costs still summed). A module that marks no
    computation ENTRY is costed from its last computation, said first in ``notes``;
    ``Module.set_entry`` names another.
    """
    module = _module_of(module_or_text)
    result = _hloroof._cost(module, _set_options(CostOptions, "cost", options))
    _hloroof._add_cost_notes(result, _entry_warnings(module))
    return result


def _count(function: str, name: str, value: Any) -> int:
    # A count argument as the public function names it: not pybind11's "incompatible function
    # arguments" naming a private one.
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{function}: {name} wants a whole number, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{function}: {name} wants a count, 0 or more; got {value}")
    return value


def _device_argument(device: Any) -> None:
    if device is not None and not isinstance(device, (str, _os.PathLike, DeviceSpec)):
        raise TypeError(f"device wants a name ('h100', 'tpu_v5e:2x2'), a device JSON path or "
                        f"a DeviceSpec, got {type(device).__name__}")


def _resolve_device(source: Any, device: Union[str, DeviceSpec, None],
                    options: Dict[str, Any]):
    """What to predict on: (module or text, device, options, notes for the assumptions,
    warnings: the device is a guess).

    Without `device`: the device and slice a JAX object was compiled for, else the default of
    the module's platform (as the command's --device)."""
    _device_argument(device)
    facts = None
    if _names_file(source):
        source = parse(source)
    jax_object = None
    if not isinstance(source, (str, bytes, Module)):
        facts = _jax_objects.read(source)
    notes: List[str] = []
    warnings: List[str] = []
    if facts is not None:
        jax_object, source = source, facts.text
    if device is not None:
        if facts is not None and facts.platform == "cpu":
            source = _module_of(source)
            warnings += _cpu_mismatch(source, device)
        return source, device, options, notes, warnings
    if facts is not None:
        notes += facts.notes
        if facts.device is not None:
            read = {} if "topology" in options else facts.options
            return source, facts.device, {**read, **options}, notes, warnings
    module = _module_of(source)
    if jax_object is not None:
        device, decided, note = _jax_objects.default_device(jax_object, module)
    else:
        device, decided, note = _hloroof._default_device(module)
    # A guessed device is a warning (Prediction.warnings), which reports show first.
    (notes if decided else warnings).append(note)
    return module, device, options, notes, warnings


def _cpu_mismatch(module: Module, device: Union[str, DeviceSpec]) -> List[str]:
    """The warning for a module a JAX object compiled for the CPU, predicted on `device`, when
    its text does not tell (resolving the device warns where it does)."""
    if _hloroof._infer_platform(module):
        return []
    spec = device if isinstance(device, DeviceSpec) else _target(device, None, "").spec
    warning = _hloroof._platform_mismatch("cpu", "the JAX object's devices", spec)
    return [warning] if warning else []


def _add_notes(prediction: Prediction, notes: List[str], warnings: List[str]) -> None:
    _hloroof._add_diagnostics(prediction, notes, warnings)


def predict(module_or_text: _Text, device: Union[str, DeviceSpec, None] = None,
            settings: Optional[List[str]] = None, **options: Any) -> Prediction:
    """Predicts one step of the module on `device` (`Prediction`).

    `device` is a built-in name (``devices()`` lists them) with an optional topology
    (``"tpu_v5e:4x4"``, ``"h100:2x8"``), a device JSON file, or a `DeviceSpec`. Without it, a
    JAX ``Compiled`` (or ``Lowered``, compiled here) gives its own: the device kind and, on TPU,
    the slice from its devices' coordinates; anything else is predicted on the default device
    of the module's platform (h100 for GPU modules, tpu_v5e otherwise). ``assumptions`` say
    which, first.
    Options (`PredictOptions`): ``topology``, ``collective_formula`` ("network",
    "xla-gpu-nccl", "xla-gpu-sol"), ``collective_large_n``, ``default_trip_count``,
    ``use_padded_sizes``, ``include_overhead``, ``max_expanded_iterations``,
    ``device_coordinates``. `settings` change the device's figures as the command's ``--set
    PATH=VALUE`` does (``["hbm.bandwidth=1e12"]``; the assumptions name them), whichever way
    the device was chosen; not with a `DeviceSpec` (`device(name, settings)` makes one).

    Predicted from a `Module`, each op's ``instruction`` is the module's instruction; from text,
    it is None (the text's module is not kept).
    """
    source, device, options, notes, warnings = _resolve_device(module_or_text, device, options)
    settings = _settings_list("predict", settings)
    if settings:
        # As the command's --set: the device resolved with its figures set, and what the
        # resolution says before the prediction's own assumptions.
        module = _module_of(source)
        target = _set_figures("predict", device, module, options.get("topology", ""), settings)
        opts = _set_options(PredictOptions, "predict", options)
        # The slice as resolving the device parsed it (opts.topology is not read again).
        prediction = _hloroof._predict_module_target(module, target, opts)
        _add_notes(prediction, notes + target.notes, target.warnings + warnings)
        prediction._source = module
        prediction._device = target.spec
        return prediction
    opts = _set_options(PredictOptions, "predict", options)
    if isinstance(device, DeviceSpec):
        # A spec with a topology: the slice rule of a named device (resolve_device) holds too.
        _hloroof._check_slice(device, opts.topology)
        prediction = _hloroof._predict_module_spec(_module_of(source), device, opts)
    elif isinstance(source, Module):
        prediction = _hloroof._predict_module(source, device, opts)
    else:
        prediction = _hloroof._predict_text(_text_of(source), device, opts)
    _add_notes(prediction, notes, warnings)
    # What write_xspace needs: the module predicted (its text parsed when given as text; ops
    # are found by name) and the device spec.
    prediction._source = source
    prediction._device = device
    return prediction


def _log_dir_path(function: str, log_dir: Any) -> str:
    # A path, never the text of another object (`None` would make a folder named None); an
    # empty one is refused by the writer.
    if not isinstance(log_dir, (str, bytes, _os.PathLike)):
        raise TypeError(f"{function}: the log folder wants a path (str or os.PathLike), got "
                        f"{type(log_dir).__name__}")
    path = _os.fsdecode(_os.fspath(log_dir))
    if not path:
        raise ValueError(f"{function}: cannot write the XSpace: the log folder's path is empty; "
                         "name a folder (made if missing)")
    return path


def _write_xspace(self: Prediction, log_dir: str, steps: int = 1, run: str = "",
                  host: str = "hloroof-predicted") -> Dict[str, Any]:
    """Writes the predicted step as the profile XProf and TensorBoard open:
    ``log_dir/plugins/profile/RUN/HOST.xplane.pb`` (RUN: ``predicted_DEVICE`` by default),
    `steps` steps end to end; open it with ``xprof --logdir log_dir``. Returns a dict:
    ``path``, ``events``, ``program_id``, ``unfilled`` (what XProf shows of a measured run that
    the file leaves empty). docs/xspace.md says what it holds."""
    source = getattr(self, "_source", None)
    if source is None:
        raise ValueError("write_xspace: this prediction was not made by hloroof.predict, which "
                         "keeps the module it predicted")
    device = self._device
    spec = device if isinstance(device, DeviceSpec) else _device_spec(device)
    return _hloroof._write_xspace(_module_of(source), self, spec,
                                  _log_dir_path("write_xspace", log_dir), steps, run, host)


Prediction.write_xspace = _write_xspace


def advise(module_or_text: _Text, device: Union[str, DeviceSpec, None] = None, top: int = 0,
           evidence_rows: int = 5, settings: Optional[List[str]] = None,
           **options: Any) -> "Advice":
    """What to fix before running the step, as ``hloroof advise --json`` gives it: an `Advice`
    (keys or attributes) with ``findings`` ranked by the predicted seconds per step each puts
    at stake (``id``, ``title``, ``what``, ``fix``, ``time_at_stake_s``, ``evidence``, ...),
    ``step_time_s`` and ``notes`` (docs/advise.md); ``str()`` is the command's report.
    `device`, `settings` and `options` as for `predict`; `top` findings kept (0: all),
    `evidence_rows` per finding (0: all).
    """
    _count("advise", "top", top)
    _count("advise", "evidence_rows", evidence_rows)
    source, device, options, notes, warnings = _resolve_device(module_or_text, device, options)
    module = _module_of(source)
    spec = device
    settings = _settings_list("advise", settings)
    if not isinstance(device, DeviceSpec) or settings:
        target = _set_figures("advise", device, module, options.get("topology", ""), settings)
        spec = target.spec
        options["topology"] = target.topology
        notes = notes + target.notes
        warnings = warnings + target.warnings
    prediction = predict(module, spec, **options)
    json_text, text = _hloroof._advise(module, prediction, spec, top, evidence_rows)
    advice = _json.loads(json_text)
    advice["notes"] = notes + advice["notes"]
    advice["warnings"] = warnings + advice["warnings"]
    return Advice(advice, text)


def memory(module_or_text: _Text, device: Union[str, DeviceSpec, None] = None,
           top_buffers: int = 20, first_tile_padding: bool = True,
           settings: Optional[List[str]] = None) -> MemoryReport:
    """Peak device memory from buffer liveness (`MemoryReport`).

    ``capacity`` checks the peak against the HBM of `device` (a name or `DeviceSpec`); without
    it, of the device `predict` would pick: the one a JAX ``Compiled`` (or ``Lowered``) was
    compiled for, else the default of the module's platform, said in ``notes`` (a guess, when
    nothing in the module tells its platform, starts with "warning:"). `top_buffers` bounds
    ``largest_buffers`` and ``peak_buffers`` (0 keeps all). `settings` as for `predict`
    (``["hbm.capacity=32e9"]``: the check against 32 GB).
    """
    _count("memory", "top_buffers", top_buffers)
    source, device, options, notes, warnings = _resolve_device(module_or_text, device, {})
    module = _module_of(source)
    spec = device
    settings = _settings_list("memory", settings)
    if not isinstance(device, DeviceSpec) or settings:
        # The slice a JAX object was compiled for: its chips' devices are the module's.
        target = _set_figures("memory", device, module, options.get("topology", ""), settings)
        spec = target.spec
        notes = notes + target.notes
        warnings = warnings + target.warnings
    report = _hloroof._memory(module, spec, top_buffers, first_tile_padding)
    xla = _xla_memory(module_or_text, report)
    _hloroof._add_memory_notes(report, warnings, _entry_warnings(module),
                               notes + ([xla[1]] if xla else []))
    report.xla_memory_analysis = xla[0] if xla else None
    return report


_XLA_MEMORY_TERMS = (("argument", "argument_size_in_bytes", "argument_bytes"),
                     ("output", "output_size_in_bytes", "output_bytes"),
                     ("alias", "alias_size_in_bytes", "alias_bytes"),
                     ("temp", "temp_size_in_bytes", "temp_bytes"))


def _xla_memory(obj: Any, report: MemoryReport) -> Optional[Tuple[Dict[str, int], str]]:
    """XLA's own figures of a JAX ``Compiled`` (``memory_analysis()``), by hloroof's names,
    and a note setting them beside the report's; None for anything else."""
    if not _jax_objects.is_compiled(obj) or not callable(getattr(obj, "memory_analysis", None)):
        return None
    try:
        analysis = obj.memory_analysis()
        xla = {ours: int(getattr(analysis, theirs)) for _, theirs, ours in _XLA_MEMORY_TERMS}
    except Exception:  # no analysis on this backend, or a field missing: nothing to show
        return None
    said = ", ".join(
        f"{name} {xla[ours]:,} B" + ("" if xla[ours] == getattr(report, ours)
                                     else f" (hloroof {getattr(report, ours):,} B)")
        for name, _, ours in _XLA_MEMORY_TERMS)
    return xla, f"XLA's memory_analysis() of the compiled object: {said}"


class Analysis:
    """One module analysed on one device at once, as ``hloroof predict`` makes it
    (hloroof/analysis.h): the prediction beside the memory analysis, then the advice and the
    XSpace, each made where it depends on nothing still running. `device`, `settings` and
    `options` as for `predict`; `top_buffers` and `first_tile_padding` as for `memory`;
    `advise`: make the advice too, `top` and `evidence_rows` as for `advise`; `xspace_dir`: write
    the predicted step as an XSpace into that log folder, `steps`, `run` and `host` as for
    ``Prediction.write_xspace``; `threads` that run at once (1: one after the other).

    ``run()`` makes them, once (the prediction's error, else the XSpace's, is raised); each of
    ``prediction()``, ``memory()``, ``advice()`` and ``write_xspace()`` runs it first where it
    has not run, and gives what `predict`, `memory`, `advise` and ``Prediction.write_xspace``
    give for the same module and device. The advice's warnings are the prediction's.
    """

    def __init__(self, module_or_text: _Text, device: Union[str, DeviceSpec, None] = None,
                 settings: Optional[List[str]] = None, *, top_buffers: int = 20,
                 first_tile_padding: bool = True, advise: bool = False, top: int = 0,
                 evidence_rows: int = 5, xspace_dir: Optional[str] = None, steps: int = 1,
                 run: str = "", host: str = "hloroof-predicted", threads: int = 2,
                 **options: Any) -> None:
        for name, value in (("top_buffers", top_buffers), ("top", top),
                            ("evidence_rows", evidence_rows), ("threads", threads)):
            _count("Analysis", name, value)
        source, device, options, notes, warnings = _resolve_device(module_or_text, device,
                                                                   options)
        module = _module_of(source)
        settings = _settings_list("Analysis", settings)
        opts = _set_options(PredictOptions, "Analysis", options)
        if isinstance(device, DeviceSpec) and not settings:
            target = _hloroof._spec_target(device, opts.topology)
        else:
            target = _set_figures("Analysis", device, module, opts.topology, settings)
        self._module = module
        self._notes = notes
        self._warnings = warnings
        # Said as predict() says it: the caller's and the target's notes lead the assumptions,
        # the target's and the caller's warnings follow the prediction's own.
        self._analysis = _hloroof._Analysis(
            module, target, opts, top_buffers, first_tile_padding, advise, top, evidence_rows,
            _log_dir_path("Analysis", xspace_dir) if xspace_dir is not None else "", steps, run, host, threads,
            notes + target.notes, target.warnings + warnings)
        self._prediction: Optional[Prediction] = None
        self._memory: Optional[MemoryReport] = None
        self._advice: Optional[Advice] = None

    @property
    def target(self) -> DeviceTarget:
        """The device and slice analysed on."""
        return self._analysis.target

    def run(self) -> None:
        """Makes what was asked for, once."""
        self._analysis.run()

    def prediction(self) -> Prediction:
        """The prediction (`predict`'s for the same module and device)."""
        if self._prediction is None:
            prediction = self._analysis.prediction()
            prediction._source = self._module
            prediction._device = self.target.spec
            self._prediction = prediction
        return self._prediction

    def memory(self) -> MemoryReport:
        """The memory analysis (`memory`'s for the same module and device)."""
        if self._memory is None:
            report = self._analysis.memory()
            target = self.target
            _hloroof._add_memory_notes(report, self._warnings + target.warnings,
                                       _entry_warnings(self._module), self._notes + target.notes)
            self._memory = report
        return self._memory

    def advice(self) -> "Advice":
        """The advice (`advise`'s for the same module and device); ValueError where `advise`
        was not asked for."""
        if self._advice is None:
            json_text, text = self._analysis.advice()
            advice = _json.loads(json_text)
            advice["notes"] = self._notes + self.target.notes + advice["notes"]
            self._advice = Advice(advice, text)
        return self._advice

    def write_xspace(self) -> Dict[str, Any]:
        """The XSpace written (``path``, ``events``, ``program_id``, ``unfilled``, as
        ``Prediction.write_xspace`` gives them); ValueError where no `xspace_dir` was given."""
        return self._analysis.write_xspace()


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


class Advice(Record):
    """What to fix (`advise`): ``findings``, ``step_time_s``, ``notes``, ``warnings``, ... as
    ``hloroof advise --json`` names them; ``str()`` is the command's report."""


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


def calibrate(profiles: List[str], device: Union[str, DeviceSpec, None] = None,
              modules: Any = None, name: str = "", device_index: int = 0,
              settings: Optional[List[str]] = None, module_name: str = "") -> Calibration:
    """Fits the device's efficiency figures to measured profiles, as ``hloroof calibrate``
    does (docs: README, "Calibration"): a `Calibration`. `profiles` are what
    ``jax.profiler.trace`` wrote (a folder, a run folder, an ``.xplane.pb``) or capture folders;
    `modules` the module of each (a list as long as `profiles`), one module for all, or None:
    each capture folder's ``module.hlo``, else the module each profile carries (`module_name`
    picks one, as the command's ``--module``). `device` a built-in name or device JSON path;
    None: the device the profiles name, as the command infers it (``device`` of the result
    says which). `settings` figures of it set before the fit, as the command's
    ``--set PATH=VALUE`` (``["hbm.bandwidth=3e12"]``; the fitted device keeps them and its
    notes say so)::

        fit = hloroof.calibrate(["runs/gemm", "runs/mlp"], "h100")
        if fit.accepted:
            hloroof.predict(compiled, fit.save("my_h100.json"))
    """
    if isinstance(profiles, (str, _os.PathLike)):
        profiles = [profiles]
    paths = [_path_argument("calibrate", "profiles", p) for p in profiles]
    if not paths:
        raise ValueError("calibrate: no profiles given")
    if modules is None:
        parsed = []
    elif isinstance(modules, (list, tuple)):
        if len(modules) != len(paths):
            raise ValueError(f"calibrate: {len(paths)} profiles and {len(modules)} modules; "
                             f"give one module for each, or one for all")
        parsed = [_module_of(m) for m in modules]
    else:
        parsed = [_module_of(modules)]
    if isinstance(device, DeviceSpec):
        raise TypeError("calibrate: give the device by name or JSON path (as the command "
                        "takes it), not a DeviceSpec")
    data, text = _hloroof._calibrate(parsed, paths, "" if device is None else _os.fspath(device),
                                     name, device_index, _settings_list("calibrate", settings),
                                     module_name)
    result = Calibration(data, text)
    given = modules if isinstance(modules, (list, tuple)) else [modules]
    result._inputs = list(paths) + [_os.fspath(s) for s in given if _names_file(s)]
    return result


class ProfileComparison(Record):
    """The prediction beside a measured run (`compare_profile`): ``step``, ``ops``,
    ``unmatched``, ``gaps``, ``notes``, ... as ``hloroof profile --json`` names them;
    ``str()`` is the command's report."""


def compare_profile(module_or_text: Optional[_Text], profile: str,
                    device: Union[str, DeviceSpec, None] = None, module_name: str = "",
                    device_index: int = 0, **options: Any) -> ProfileComparison:
    """The prediction beside a measured run, op by op, as ``hloroof profile`` gives it.

    `profile` is what ``jax.profiler.trace(DIR)`` wrote: DIR, a run folder, an ``.xplane.pb``
    or a ``perfetto_trace.json.gz``, or a ``tools/capture`` folder. Returns a dict: ``step``
    (``measured_s``, ``expected_s``, ``roofline_s``), ``ops`` ranked by time lost, ``unmatched``,
    ``gaps``, ``notes`` (a `ProfileComparison`: attributes or keys; ``to_dict()``; ``str()``
    the command's report). As the command: `module_or_text` None reads the module the profile
    carries (`module_name` picks one, "NAME" or "NAME(ID)"); `device` None takes the device the
    profile ran on where it names one; several programs of the module's name are told apart by
    their entry. `module_name` names the module in the profile when it differs from the text's;
    `device` and `options` are `predict`'s. Raises ValueError when the profile cannot be read or
    never runs the module::

        with jax.profiler.trace("/tmp/trace"):
            jax.block_until_ready(compiled(*args))
        hloroof.compare_profile(compiled, "/tmp/trace", "h100").step.measured_s
    """
    profile_path = _path_argument("compare_profile", "profile", profile)
    read = _hloroof._read_profile(profile_path)
    profile_notes: List[str] = []
    if module_or_text is None:
        proto, picked, note = _hloroof._profile_module(read, module_name)
        module_or_text = _hloroof._parse(proto, f"{profile_path}:{picked}")
        module_name = picked
        profile_notes.append(note)
    if device is None:
        kind, named, platform = _hloroof._profile_device(read)
        if named or platform:
            device = named or ("h100" if platform == "gpu" else "tpu_v5e")
            profile_notes.append(
                f"device {device} from the profile, which ran on '{kind}'"
                + ("" if named else f" (no built-in device is one: {device} stands in)"))
    source, device, options, notes, warnings = _resolve_device(module_or_text, device, options)
    module = _module_of(source)
    prediction = predict(module, device, **options)
    _add_notes(prediction, profile_notes + notes, warnings)
    json_text, text = _hloroof._compare_profile(module, prediction, read, module_name,
                                                device_index)
    return ProfileComparison(_json.loads(json_text), text)


class Comparison(list):
    """Predictions of one module on several devices (`compare`), in the order given;
    ``str()`` is the report of ``hloroof compare``."""

    def __init__(self, predictions: List[Prediction], top: int = 5,
                 memory: Optional[List[Any]] = None) -> None:
        super().__init__(predictions)
        self.top = top
        # Each device's capacity check (`MemoryReport.capacity`), for the report's memory row.
        self.memory = memory or []

    def __str__(self) -> str:
        return _hloroof._render_comparison(list(self), self.top, self.memory)


def compare(module_or_text: _Text, devices: List[Union[str, DeviceSpec]], top: int = 5,
            **options: Any) -> Comparison:
    """One module predicted on each of `devices` (as `predict` takes them), with `options`:
    a list of `Prediction` whose ``str()`` is ``hloroof compare``'s side-by-side report
    (`top` ops per device)::

        print(hloroof.compare(compiled, ["tpu_v5e:2x2", "tpu_v6e:2x2", "h100:1x4"]))
    """
    if isinstance(devices, (str, DeviceSpec)):
        raise TypeError("compare() wants a list of devices; predict() takes one")
    source, _, _, notes, _ = _resolve_device(module_or_text, "", {})
    module = _module_of(source)
    predictions = []
    fits = []
    for d in devices:
        p = predict(module, d, **options)
        _add_notes(p, notes, [])
        predictions.append(p)
        spec = d if isinstance(d, DeviceSpec) else resolve_device(d, module).spec
        fits.append(_hloroof._memory(module, spec, 0, True).capacity)
    return Comparison(predictions, top, fits)


def diff(before: _Text, after: _Text, device: Union[str, DeviceSpec, None] = None,
         trace: Optional[str] = None, **options: Any) -> PredictionDiff:
    """Two versions of a program on one device: what changed per op and per step, as
    ``hloroof diff`` reports it (`PredictionDiff`; ``str()`` is the command's report).

    Both are predicted on `device` (as `predict` takes it; without it, the device `before`
    gives or implies) with `options`; the memory peak of each comes from `memory`. Ops are
    matched by name, then by opcode and metadata op_name (a pass that renames them). `trace`,
    a file name: both timelines in one Perfetto trace, as ``hloroof diff --trace`` writes::

        d = hloroof.diff(before_pass, after_pass, "h100:1x8")
        d.after.step_time_s - d.before.step_time_s   # what the change bought
        d.ops[0].name, d.ops[0].delta_time_s         # the op that changed most
    """
    source, device, options, notes, warnings = _resolve_device(before, device, options)
    before_module = _module_of(source)
    after_source = after
    if not isinstance(after, (str, bytes, Module)):
        facts = _jax_objects.read(after)
        if facts is not None:
            after_source = facts.text
    after_module = _module_of(after_source)
    before_prediction = predict(before_module, device, **options)
    after_prediction = predict(after_module, device, **options)
    for prediction in (before_prediction, after_prediction):
        _add_notes(prediction, notes, warnings)
    peaks = [_hloroof._memory(m, None, 1, True).peak_bytes
             for m in (before_module, after_module)]
    result = _hloroof._diff(before_prediction, after_prediction, peaks[0], peaks[1])
    if trace is not None:
        # Whole or not at all, and never over a module it read.
        inputs = [_os.fspath(s) for s in (before, after) if _names_file(s)]
        _hloroof._write_file(_os.fspath(trace),
                             _hloroof._diff_trace(result, before_prediction, after_prediction),
                             "the trace", inputs)
    return result


def _path_argument(function: str, name: str, value: Any) -> str:
    """`value` as a path (a str or an os.PathLike); TypeError naming the argument otherwise,
    rather than a file named "None"."""
    if isinstance(value, (str, _os.PathLike)):
        path = _os.fspath(value)
        if isinstance(path, str):
            return path
    raise TypeError(f"{function}() wants {name} as a path (str or os.PathLike), got "
                    f"{type(value).__name__} {value!r}")


def _settings_list(function: str, settings: Any) -> List[str]:
    """`settings` as the command's --set values: 'PATH=VALUE' strings."""
    if isinstance(settings, str):
        settings = [settings]
    settings = list(settings or [])
    for setting in settings:
        if not isinstance(setting, str):
            raise TypeError(f"{function}: settings wants 'PATH=VALUE' strings, got "
                            f"{type(setting).__name__} {setting!r}")
    return settings


def _target(name: Any, module: Optional[Module], topology: str,
            settings: Optional[List[str]] = None) -> DeviceTarget:
    """`name` resolved by the command's --device rule (`resolve_device`)."""
    if not isinstance(name, (str, _os.PathLike)):
        raise TypeError(f"device wants a device name (as `hloroof devices` lists them) or a "
                        f"device JSON path, got {type(name).__name__} {name!r}")
    return _hloroof._resolve_device(_os.fspath(name), module, topology or "", settings or [])


def _set_figures(function: str, device: Any, module: Optional[Module], topology: str,
                 settings: List[str]) -> DeviceTarget:
    """`device` resolved for `module` with `settings` (the command's --set) applied."""
    if isinstance(device, DeviceSpec):
        raise TypeError(f"{function}: settings apply to a device given by name or JSON path; a "
                        f"DeviceSpec has its figures: make it with hloroof.device(name, "
                        f"settings)")
    return _target(device, module, topology, settings)


def _device_spec(name: str, settings: Optional[List[str]] = None) -> DeviceSpec:
    if isinstance(name, str) and not name.strip():
        raise ValueError("device: no name given (hloroof.devices() lists the built-in ones)")
    return _target(name, None, "", settings).spec


def device(name: str, settings: Optional[List[str]] = None) -> DeviceSpec:
    """The spec of a device, named as `resolve_device` takes it: a built-in name or alias
    ("tpu_v5e", "v5e", "h100"), a JAX device kind ("TPU v5 lite"), a Cloud TPU accelerator type
    ("v5litepod-16"), or a device JSON file; a topology after ':' is checked, not kept.
    `settings` change its figures as the command's ``--set PATH=VALUE`` does
    (``["interconnect.scale_out_bandwidth=12.5e9"]``; ``hloroof devices NAME`` lists the
    paths, values in base units): the spec every function here takes as its device::

        slow_nics = hloroof.device("h100", ["interconnect.scale_out_bandwidth=12.5e9"])
        hloroof.predict(compiled, slow_nics)

    Raises ValueError for an unknown name (with the closest known one), a slice the device
    cannot have, or a figure it does not have."""
    return _device_spec(name, _settings_list("device", settings))


def resolve_device(device: Union[str, _os.PathLike, None] = None,
                   module_or_text: Optional[_Text] = None, topology: str = "",
                   settings: Optional[List[str]] = None) -> DeviceTarget:
    """The device and slice `device` names, by the rule of the command's ``--device`` and of
    every function here that takes a device (`DeviceTarget`: ``spec``, ``topology`` ('' when
    inferred from the module), ``source`` ('named', 'platform', 'guess'), ``notes``,
    ``warnings``).

    `device`: a built-in name or alias, optionally with a topology (``"tpu_v5e:4x4"``), a JAX
    device kind (``"TPU v5 lite"``, ``"NVIDIA H100 80GB HBM3"``), a Cloud TPU accelerator type
    (``"v5litepod-16"`` is tpu_v5e 4x4; ``"v5p-8"`` is 4 chips, its number counting
    TensorCores), or a device JSON file. None or '': the default of the module's platform.
    With a module, a slice larger than it says how many devices sit idle. `topology`, given
    with one in `device`, must be the same. `settings` as `device`'s (``notes`` name them).
    Raises ValueError for an unknown name (with the closest known one), a slice the device
    cannot have, or a figure it does not have."""
    module = None if module_or_text is None else _module_of(module_or_text)
    return _target("" if device is None else device, module, topology,
                   _settings_list("resolve_device", settings))


# ---- Plain data.

def _plain(value: Any) -> Any:
    if isinstance(value, (Instruction, Computation)):
        return value.name
    if isinstance(value, (str, bytes, int, float, bool)) or value is None:
        return value
    fields = getattr(type(value), "_fields", None)
    if fields is not None:
        # A field named like a Python keyword ends in "_" (``async_``); its key does not.
        return {name.rstrip("_"): _plain(getattr(value, name)) for name in fields}
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return [_plain(item) for item in value]


def _to_dict(self) -> Dict[str, Any]:
    """Every field as plain Python data (dicts, lists, numbers, strings); instructions and
    computations by name."""
    return _plain(self)


def _prediction_to_dict(self: Prediction) -> Dict[str, Any]:
    """The object of `hloroof predict --json`, as Python data: the same keys (``async`` for
    ``async_``, ``lower_bound`` for ``is_lower_bound``); the timeline is left out."""
    return _json.loads(self.to_json())


def _cost_to_dict(self: ModuleCost) -> Dict[str, Any]:
    """The object of `hloroof cost --json`, as Python data: ``totals``, ``notes`` and every
    instruction (per execution), keyed as the command keys them."""
    return _json.loads(self.to_json())


def _memory_to_dict(self: MemoryReport) -> Dict[str, Any]:
    """The object of `hloroof memory --json`, as Python data (``buffers`` are the report's
    ``largest_buffers``)."""
    return _json.loads(self.to_json())


def _flat_rows(records: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    rows = []
    for record in records:
        row: Dict[str, Any] = {}
        for key, value in record.items():
            if isinstance(value, dict):
                for inner, item in value.items():
                    row[f"{key}.{inner}"] = item
            else:
                row[key] = value
        rows.append(row)
    return rows


def _data_frame(rows: List[Dict[str, Any]]):
    try:
        import pandas
    except ImportError as error:
        raise ImportError("to_pandas() needs pandas (Debian: python3-pandas; "
                          "pip install pandas)") from error
    return pandas.DataFrame(_flat_rows(rows))


def _prediction_to_pandas(self: Prediction):
    """A pandas DataFrame with one row per op, in the order of ``ops`` (largest total time
    first); columns are the keys of ``to_dict()["ops"]``, nested records flattened as
    ``collective.time_s``, ``async.stream``, ..."""
    return _data_frame(self.to_dict()["ops"])


def _cost_to_pandas(self: ModuleCost):
    """A pandas DataFrame with one row per instruction (as ``instructions``): its name,
    computation, role, multiplier and costs (``cost.flops``, ``cost.hbm_bytes``, ...)."""
    rows = []
    for record in self.instructions:
        row = _plain(record)
        row["cost"].pop("matrix_flops_by_type")
        rows.append(row)
    return _data_frame(rows)


def _memory_to_pandas(self: MemoryReport):
    """A pandas DataFrame with one row per buffer of ``largest_buffers``."""
    return _data_frame([_plain(b) for b in self.largest_buffers])


def _record_repr(self) -> str:
    """The record's name and its number and short text fields."""
    parts = []
    for name in type(self)._fields:
        value = getattr(self, name)
        if isinstance(value, (int, float)) or (isinstance(value, str) and len(value) <= 60):
            parts.append(f"{name}={value!r}")
    return f"<hloroof.{type(self).__name__} {' '.join(parts)}>"


for _type in vars(_hloroof).values():
    if isinstance(_type, type) and hasattr(_type, "_fields"):
        _type.to_dict = _to_dict
        if _type.__repr__ is object.__repr__:
            _type.__repr__ = _record_repr
def _prediction_str(self: Prediction) -> str:
    """The report of ``hloroof predict`` (overview, op stats, collectives), 100 columns wide;
    the summary when the device is not a built-in one."""
    try:
        spec = _device_spec(self.device)
    except ValueError:
        return self.summary()
    return _hloroof._text_report(self, spec, 20)


Prediction.__str__ = _prediction_str
Prediction.to_dict = _prediction_to_dict
# The object of `hloroof diff --json`, as Python data.
PredictionDiff.to_dict = _prediction_to_dict
Prediction.to_pandas = _prediction_to_pandas
ModuleCost.to_pandas = _cost_to_pandas
ModuleCost.to_dict = _cost_to_dict
MemoryReport.to_dict = _memory_to_dict
MemoryReport.to_pandas = _memory_to_pandas
del _type

# The typing names are for the annotations above, not part of the package.
del Any, Dict, List, Optional, Union
del annotations  # the __future__ import's name; the import itself stays in force
