"""What a sweep compiles: its configurations (`grid`, `per_device`), what the builder returns
for one (`Step`), and the jobs (a configuration on a target) that the engines compile."""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import os
import sys
from typing import (Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple,
                    Union)

from . import _compile
from ._options import Compile

# Keys of a configuration that the sweep reads: the target it is compiled for (instead of the
# sweep's targets) and XLA flags added to the sweep's (LIBTPU_INIT_ARGS).
TARGET_KEY = "target"
FLAGS_KEY = "flags"


@dataclasses.dataclass
class Step:
    """What a builder returns for one configuration: the step `fn` and its arguments (shapes
    and dtypes: ``jax.ShapeDtypeStruct`` pytrees), as `hloroof.jax.compile_for` takes them
    (`in_specs`, `mesh_axes` over the target's devices, `out_specs`, `static_argnums`,
    `donate_argnums`), and the figures the row reports: `model_flops` (the model's FLOPs of one
    step over all devices: MFU) and `tokens` (tokens of one step: tokens per second per chip).
    A dict with these keys does as well."""
    fn: Callable[..., Any]
    args: Sequence[Any]
    in_specs: Any = None
    mesh_axes: Any = None
    out_specs: Any = None
    static_argnums: Sequence[int] = ()
    donate_argnums: Sequence[int] = ()
    model_flops: Optional[float] = None
    tokens: Optional[float] = None


# The most jobs (configurations times their targets) one sweep takes: at a second a compile
# at best, 100,000 is over a day of one core, far past any sweep run to the end.
MAX_CONFIGURATIONS = 100_000


def check_count(count: int, what: str) -> None:
    if count > MAX_CONFIGURATIONS:
        raise ValueError(f"{what} is {count:,} configurations, over the limit of "
                         f"{MAX_CONFIGURATIONS:,} a sweep; split it, or give fewer values")


def grid(**axes: Iterable[Any]) -> List[Dict[str, Any]]:
    """Every combination of the named axes, the first axis slowest:
    ``grid(model=[1, 2], batch=[8, 16])`` is 4 configurations. Counted before it is made: more
    than MAX_CONFIGURATIONS is refused (ValueError)."""
    names = list(axes)
    values = [list(v) for v in axes.values()]
    count = 1
    for v in values:
        count *= len(v)
    check_count(count, "the grid")
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


def per_device(config: Mapping[str, Any], devices: int, chips: int,
               per_chip_keys: Sequence[str] = ("batch_per_chip",)) -> Dict[str, Any]:
    """A configuration published per chip made per device: where one chip is several JAX
    devices (TPU7x: 2), each ``NAME_per_chip`` of `per_chip_keys` becomes ``NAME_per_device``
    (divided by the devices of a chip; ValueError when it does not divide) beside it, and
    ``devices_per_chip`` is set."""
    if devices % chips:
        raise ValueError(f"{devices} devices over {chips} chips: not a whole number a chip")
    per_chip = devices // chips
    out = dict(config, devices_per_chip=per_chip)
    for key in per_chip_keys:
        if key not in config:
            continue
        value = config[key]
        name = key[:-len("_per_chip")] + "_per_device" if key.endswith("_per_chip") else key
        if isinstance(value, int) and value % per_chip:
            raise ValueError(f"{key}={value} does not split over the {per_chip} devices of a "
                             f"chip: give a multiple of {per_chip}")
        out[name] = value // per_chip if isinstance(value, int) else value / per_chip
    return out


def builder_name(builder: Union[str, Callable[..., Any]]) -> tuple:
    """("module:function", folders the worker needs on sys.path) for `builder`."""
    if isinstance(builder, str):
        return builder, []
    module = getattr(builder, "__module__", None)
    name = getattr(builder, "__qualname__", "")
    if not module or not name or "<" in name:
        raise ValueError("the builder must be a module-level function (a worker process "
                         "imports it by name), or a 'module:function' string")
    path = []
    if module == "__main__":
        source = inspect.getsourcefile(builder)
        if source is None:
            raise ValueError("a builder defined in __main__ must come from a file")
        module = os.path.splitext(os.path.basename(source))[0]
        path.append(os.path.dirname(os.path.abspath(source)))
    return f"{module}:{name}", path


def label(config: Mapping[str, Any]) -> str:
    """The configuration in one line, "key=value" by key (its target is a column of its own)."""
    return " ".join(f"{k}={v}" for k, v in config.items() if k != TARGET_KEY) or "(default)"


def check_configs(configs: Any, targets: Any) -> List[Any]:
    """`configs` as a list, refused (ValueError, saying why) where it or `targets` is of a type
    a sweep cannot use, or where they make more than MAX_CONFIGURATIONS jobs."""
    if isinstance(configs, (str, bytes, Mapping)) or not isinstance(configs, Iterable):
        raise ValueError(f"configs: a list of configurations (dicts; hs.grid makes one), not "
                         f"{type(configs).__name__}")
    if targets is not None and (isinstance(targets, (str, bytes)) or
                                not isinstance(targets, Iterable) or
                                not all(isinstance(t, str) for t in targets)):
        raise ValueError(f"targets={targets!r}: a list of targets, e.g. ['tpu_v5e:2x2']")
    configs = list(configs)
    check_count(sum(1 if isinstance(c, Mapping) and TARGET_KEY in c else len(targets or [])
                    for c in configs), "the sweep")
    return configs


def jobs(builder: Union[str, Callable[..., Any]], configs: Sequence[Mapping[str, Any]],
         targets: Optional[Sequence[str]],
         options: Compile) -> Tuple[str, List[str], List[Dict[str, Any]]]:
    """The builder's "module:function" name, the compiles' path (`options.path`, the builder's
    folder where it is a function of __main__, then this process's sys.path) and the jobs of
    `configs`: one a configuration and target (its own ``target``, else each of `targets`),
    each a dict as the compile process reads it: "builder", "path", "config", "target" and
    "flags" (`options`' then the configuration's own)."""
    name, extra = builder_name(builder)
    path = list(dict.fromkeys([os.path.abspath(p) for p in options.path] + extra +
                              [os.path.abspath(p or ".") for p in sys.path]))
    out = []
    for config in configs:
        if not isinstance(config, Mapping):
            raise ValueError(f"configuration {config!r}: a dict of named values, not "
                             f"{type(config).__name__}")
        config = dict(config)
        if TARGET_KEY in config and not isinstance(config[TARGET_KEY], str):
            raise ValueError(f"configuration {config}: its '{TARGET_KEY}' is not a string "
                             f"('tpu_v5e:2x2')")
        if not isinstance(config.get(FLAGS_KEY) or "", str):
            raise ValueError(f"configuration {config}: its '{FLAGS_KEY}' is not a string")
        names = [config[TARGET_KEY]] if TARGET_KEY in config else list(targets or [])
        if not names:
            raise ValueError(f"configuration {config}: no target (give targets=, or a "
                             f"'{TARGET_KEY}' key)")
        for target in names:
            flags = " ".join(f for f in (options.flags, str(config.get(FLAGS_KEY) or "")) if f)
            out.append({"builder": name, "path": path, "config": config, "target": target,
                        "flags": flags})
    return name, path, out


def check_targets(targets: Iterable[str], settings: Optional[List[str]] = None,
                  shape: bool = True) -> None:
    """Each target, with the device edits `settings`, checked before anything compiles:
    ValueError with hloroof's whole message (its "did you mean" included) for the first
    device, slice or edit it does not know; `shape`: each must name its slice."""
    import hloroof
    for target in dict.fromkeys(targets):
        if not isinstance(target, str) or not target.strip():
            raise ValueError(f"a target is {target!r}: name a device and its slice, as "
                             "tpu_v5e:2x2")
        if shape:
            _compile.chips_of(target)
        try:
            hloroof.resolve_device(target, settings=list(settings or []))
        except ValueError as error:
            raise ValueError(f"target {target!r}: {error}") from None
