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
from typing import Any, Dict, List, Optional, Union

from . import _hloroof, _jax_objects
from ._hloroof import (  # noqa: F401  (re-exported)
    Advice,
    AdviceEvidence,
    AdviceFinding,
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
    Diagnostics,
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
from ._analysis import Analysis
from ._inputs import (_count, _files, _input, _options, _path_argument, _predict_options, _target,
                      _Text)
from ._results import Calibration, Comparison, ProfileComparison, Record  # noqa: F401

__all__ = [
    "parse", "cost", "predict", "predict_step_time", "memory", "advise", "calibrate", "compare", "compare_profile",
    "profile_modules",
    "diff", "devices", "device", "resolve_device", "DeviceTarget", "Advice", "AdviceFinding",
    "AdviceEvidence", "Calibration", "Comparison", "ProfileComparison", "Record", "Analysis",
    "Diagnostics", "ParseError", "__version__",
    "Module", "Computation", "Instruction", "OpMetadata", "ModuleCost", "InstructionCost",
    "ComputationCost", "OpCost", "MemoryReport", "MemoryBuffer", "MemoryAllocation", "DeviceSpec",
    "Prediction", "OpPrediction", "Breakdown", "PredictOptions", "CostOptions", "PredictionDiff",
    "OpDelta", "DiffSide", "device_summaries_to_json", "parse_summary_to_json", "shape_to_json",
]

__version__: str = _hloroof.__version__


def parse(text: _Text, file_name: str = "") -> Module:
    """Parses HLO text (any of XLA's printed forms) into a `Module`; a path reads its file (HLO
    text, an HloProto or HloModuleProto, an XSpace profile) or XLA dump directory (its largest
    ``jit_*`` module after optimization). Input that holds no HLO (StableHLO, JSON, other
    binary files) raises ValueError saying what to give instead. ``Module.diagnostics`` says
    what reading it said (which module of a dump; HLO before optimization).

    `file_name`, when given, starts error messages as the command-line tool's do
    (``model.hlo:3:5: error: ...``). Raises `ParseError` with the location.
    """
    return _input(text, file_name).module


def cost(module_or_text: _Text, **options: Any) -> ModuleCost:
    """FLOPs, transcendentals and bytes of every instruction and of one step (`ModuleCost`).

    Options (`CostOptions`): ``use_padded_sizes`` (True), ``default_trip_count`` (1),
    ``fused_records`` (True; False keeps the records of fused and applied instructions only
    where they perform a collective, their costs still summed). A module that marks no
    computation ENTRY is costed from its last computation, said first in ``notes``;
    ``Module.set_entry`` names another.
    """
    module = _input(module_or_text).module
    return _hloroof._cost(module, _options(CostOptions, "cost", options))


def predict(module_or_text: _Text, device: Union[str, DeviceSpec, None] = None,
            settings: Optional[List[str]] = None, **options: Any) -> Prediction:
    """Predicts one step of the module on `device` (`Prediction`).

    `device` is a built-in name (``devices()`` lists them) with an optional topology
    (``"tpu_v5e:4x4"``, ``"h100:2x8"``), a device JSON file, or a `DeviceSpec`. Without it, a
    JAX ``Compiled`` (or ``Lowered``, compiled here) gives its own: the device kind and, on TPU,
    the slice from its devices' coordinates; anything else is predicted on the default device
    of the module's platform (h100 for GPU modules, tpu_v5e otherwise). ``assumptions`` say
    which, first, after what reading the module said (``Module.diagnostics``). ``topology``
    gives the slice apart from `device` (``"4x4"``; with one in `device`, the same).
    Options (`PredictOptions`): ``collective_formula`` ("network",
    "xla-gpu-nccl", "xla-gpu-sol"), ``collective_large_n``, ``default_trip_count``,
    ``use_padded_sizes``, ``include_overhead``, ``max_expanded_iterations``,
    ``device_coordinates``. `settings` change the device's figures as the command's ``--set
    PATH=VALUE`` does (``["hbm.bandwidth=1e12"]``; the assumptions name them), whichever way
    the device was chosen; not with a `DeviceSpec` (`device(name, settings)` makes one).

    Predicted from a `Module` or a file, each op's ``instruction`` is the module's
    instruction; from text, it is None (the text's module is not kept).
    """
    source = _input(module_or_text)
    target, opts, notes, _ = _target("predict", device, source, options, settings)
    prediction = _hloroof._predict(source.module, target, opts, notes, source.keep)
    prediction._source = source.module if source.keep else source.text  # for write_xspace
    return prediction


# The C++ library's name for the same call (`hloroof::predict_step_time(hlo_text, "tpu_v5e")`),
# so that code moves between the two languages unchanged.
predict_step_time = predict


def advise(module_or_text: _Text, device: Union[str, DeviceSpec, None] = None, top: int = 0,
           evidence_rows: int = 5, settings: Optional[List[str]] = None,
           **options: Any) -> Advice:
    """What to fix before running the step, as ``hloroof advise --json`` gives it: an `Advice`
    (attributes or keys) with ``findings`` (`AdviceFinding`) ranked by the predicted seconds
    per step each puts at stake (``id``, ``title``, ``what``, ``fix``, ``time_at_stake_s``,
    ``evidence``, ...), ``step_time_s`` and ``notes`` (docs/advise.md); ``str()`` is the
    command's report. `device`, `settings` and `options` as for `predict`; `top` findings kept
    (0: all), `evidence_rows` per finding (0: all).
    """
    _count("advise", "top", top)
    _count("advise", "evidence_rows", evidence_rows)
    source = _input(module_or_text)
    target, opts, notes, _ = _target("advise", device, source, options, settings)
    return _hloroof._advise(source.module, target, opts, notes, top, evidence_rows)


def memory(module_or_text: _Text, device: Union[str, DeviceSpec, None] = None,
           top_buffers: int = 20, first_tile_padding: bool = True,
           settings: Optional[List[str]] = None) -> MemoryReport:
    """Peak device memory from buffer liveness (`MemoryReport`).

    ``capacity`` checks the peak against the HBM of `device` (a name or `DeviceSpec`); without
    it, of the device `predict` would pick: the one a JAX ``Compiled`` (or ``Lowered``) was
    compiled for, else the default of the module's platform, said in ``notes`` (a guess, when
    nothing in the module tells its platform, is in ``warnings``). `top_buffers` bounds
    ``largest_buffers`` and ``peak_buffers`` (0 keeps all). `settings` as for `predict`
    (``["hbm.capacity=32e9"]``: the check against 32 GB). From a JAX ``Compiled``,
    ``xla_memory_analysis`` holds XLA's own figures and the last note sets them beside these.
    """
    _count("memory", "top_buffers", top_buffers)
    source = _input(module_or_text)
    target, _, notes, _ = _target("memory", device, source, {}, settings)
    xla = _jax_objects.xla_memory(module_or_text)
    report = _hloroof._memory(source.module, target, top_buffers, first_tile_padding, notes, xla)
    report.xla_memory_analysis = xla
    return report


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
    given = [] if modules is None else list(modules) if isinstance(modules, (list, tuple)) \
        else [modules]
    if isinstance(modules, (list, tuple)) and len(given) != len(paths):
        raise ValueError(f"calibrate: {len(paths)} profiles and {len(given)} modules; "
                         f"give one module for each, or one for all")
    read = [(m, _input(m)) for m in given]
    if isinstance(device, DeviceSpec):
        raise TypeError("calibrate: give the device by name or JSON path (as the command "
                        "takes it), not a DeviceSpec")
    data, text = _hloroof._calibrate([i.module for _, i in read], paths,
                                     "" if device is None else _os.fspath(device), name,
                                     device_index, _hloroof._settings(settings, "calibrate"),
                                     module_name)
    result = Calibration(data, text)
    result._inputs = paths + _files(read)
    return result


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
    profile ran on (the platform's default standing in for one with no built-in spec; a profile
    that names no device needs one); several programs of the module's name are told apart by
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
        module_or_text = _hloroof._load(proto, f"{profile_path}:{picked}")[0]
        module_name = picked
        profile_notes.append(note)
    source = _input(module_or_text)
    topology, opts = _predict_options("compare_profile", options)
    # The command's rule (resolve_profile_device): the device given, else the profile's.
    target, stand_in = _hloroof._profile_target(device, read, profile_path, source.module,
                                                topology)
    prediction = _hloroof._predict(source.module, target, opts, profile_notes, True)
    json_text, text = _hloroof._compare_profile(source.module, prediction, read, module_name,
                                                device_index, stand_in)
    return ProfileComparison(_json.loads(json_text), text)


def profile_modules(profile: str) -> List[Dict[str, Any]]:
    """The modules a profile carries and the time each ran (seconds, over all its devices), the
    longest run first, as ``hloroof profile PROFILE --modules --json`` lists them:
    ``[{"name": "jit_step(12)", "time_s": ...}, ...]``; each name is a `module_name` that
    `compare_profile` takes. Where the host's events carry no program id, every program of a
    name is listed with the name's time. Raises ValueError when the profile cannot be read."""
    read = _hloroof._read_profile(_path_argument("profile_modules", "profile", profile))
    return [{"name": name, "time_s": time_s}
            for name, time_s in _hloroof._profile_module_times(read)]


def compare(module_or_text: _Text, devices: List[Union[str, DeviceSpec]], top: int = 5,
            **options: Any) -> Comparison:
    """One module predicted on each of `devices` (as `predict` takes them), with `options`:
    a list of `Prediction` whose ``str()`` is ``hloroof compare``'s side-by-side report
    (`top` ops per device)::

        print(hloroof.compare(compiled, ["tpu_v5e:2x2", "tpu_v6e:2x2", "h100:1x4"]))
    """
    if isinstance(devices, (str, DeviceSpec)):
        raise TypeError("compare() wants a list of devices; predict() takes one")
    source = _input(module_or_text)
    topology, opts = _predict_options("compare", options)
    targets = [_hloroof._target(d, source.module, topology, None, "compare") for d in devices]
    predictions, fits = _hloroof._compare(source.module, targets, opts)
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
    read = [(before, _input(before)), (after, _input(after))]
    target, opts, notes, (device, topology) = _target("diff", device, read[0][1], options)
    # Each side on the device named for both, resolved for its own module (as the command).
    targets = [target, _hloroof._target(device, read[1][1].module, topology, None, "diff")]
    sides = [_hloroof._predict(i.module, t, opts, notes, True) for (_, i), t in zip(read, targets)]
    peaks = [_hloroof._peak_bytes(i.module) for _, i in read]
    result = _hloroof._diff(sides[0], sides[1], peaks[0], peaks[1])
    if trace is not None:
        # Whole or not at all, and never over a module it read.
        _hloroof._write_file(_os.fspath(trace), _hloroof._diff_trace(result, *sides),
                             "the trace", _files(read))
    return result


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
    return _hloroof._target(name, None, "", settings, "device", "name").spec


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
    module = None if module_or_text is None else _input(module_or_text).module
    return _hloroof._target(device, module, topology or "", settings, "resolve_device", "names")


# The typing names are for the annotations above, not part of the package.
del Any, Dict, List, Optional, Union
del annotations  # the __future__ import's name; the import itself stays in force
