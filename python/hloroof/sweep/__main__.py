"""python -m hloroof.sweep SPEC.toml [--out rows.csv|rows.parquet] [--svg front.svg] ...
python -m hloroof.sweep what-if PROGRAM --device D [--device D ...] [--edit "PATH=V ..." ...]

Runs the sweep a spec file describes (docs/sweep.md) and prints its table, fastest first with
the Pareto front marked; the progress line goes to stderr. Ctrl-C keeps the rows finished:
they are printed and written, and the exit status is 130. `what-if` predicts one compiled
program (HLO text, a dump folder, a store entry's program.hlo) on each device with each edit,
compiling nothing.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Any, Dict, List

from . import _files

try:
    import tomllib
except ImportError:  # Python before 3.11
    tomllib = None

SPEC_KEYS = {"builder", "path", "targets", "flags", "grid", "configs", "engine", "address",
             "workers", "compile_memory_gb", "ray_cpus", "timeout_s", "cache", "out", "svg",
             "settings"}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _file_name(value: Any) -> bool:
    """A name the file system can take: a string, not blank, without NUL (TOML's "\u0000")."""
    return isinstance(value, str) and value.strip() != "" and "\0" not in value


# Each key's check and what it wants, as the message says it.
_SPEC_TYPES = {
    "builder": (lambda v: isinstance(v, str) and ":" in v, 'a string, "module:function"'),
    "path": (lambda v: _strings(v) and not any("\0" in p for p in v),
             'a list of folders, ["."]'),
    "targets": (lambda v: _strings(v) and len(v) > 0, 'a list of targets, ["tpu_v5e:2x2"]'),
    "flags": (lambda v: isinstance(v, str), "a string of XLA flags"),
    "grid": (lambda v: isinstance(v, dict) and len(v) > 0 and
             all(isinstance(x, list) and x for x in v.values()),
             "a table of named axes, each a list of one value or more"),
    "configs": (lambda v: isinstance(v, list) and len(v) > 0 and
                all(isinstance(c, dict) for c in v), "a list of tables ([[configs]])"),
    "engine": (lambda v: v in ("local", "ray"), '"local" or "ray"'),
    "address": (lambda v: isinstance(v, str) and v.strip() != "",
                'a Ray address, "HOST:PORT", "ray://HOST:PORT" or "auto"'),
    "workers": (lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 1,
                "a whole number of compiles at once, 1 or more"),
    "compile_memory_gb": (lambda v: _is_number(v) and 0 < v * 1e9 < float("inf"),  # bytes
                          "GB one compile needs, a number above 0"),
    "ray_cpus": (lambda v: _is_number(v) and 0 < v < float("inf"),
                 "CPUs a compile, a number above 0"),
    "timeout_s": (lambda v: _is_number(v) and 0 < v < float("inf"),
                  "seconds one compile may take, a number above 0"),
    "cache": (_file_name, "a folder"),
    "out": (_file_name, "a file, .csv or .parquet"),
    "svg": (_file_name, "a file, .svg"),
    "settings": (_strings, 'a list of "PATH=VALUE" strings'),
}


def check_spec_types(path: str, spec: Dict[str, Any]) -> None:
    """ValueError naming the first key whose value is of a type or value the sweep cannot use
    (``targets = "tpu_v5e:2x2"``: a string, not a list), and what it wants."""
    for key, (ok, wanted) in _SPEC_TYPES.items():
        if key in spec and not ok(spec[key]):
            shown = repr(spec[key])
            shown = shown if len(shown) <= 40 else shown[:39] + "~"
            raise ValueError(f"{path}: {key} = {shown}: expected {wanted}")


def read_spec(path: str) -> Dict[str, Any]:
    """The spec file's table, checked: a builder, and a grid or configurations."""
    if tomllib is None:
        raise ValueError("spec files need Python 3.11 or later (tomllib)")
    try:
        with open(path, "rb") as f:
            spec = tomllib.load(f)
    except OSError as error:
        raise ValueError(f"{path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{path}: not TOML: {error}") from None
    unknown = sorted(set(spec) - SPEC_KEYS)
    if unknown:
        raise ValueError(f"{path}: unknown keys {unknown}; keys: {', '.join(sorted(SPEC_KEYS))}")
    if "builder" not in spec:
        raise ValueError(f"{path}: no builder (builder = \"module:function\")")
    if ("grid" in spec) == ("configs" in spec):
        raise ValueError(f"{path}: give either [grid] (named axes, each a list) or configs "
                         f"(a list of tables)")
    check_spec_types(path, spec)
    return spec


def check_output(path: str, suffixes: tuple, what: str) -> None:
    """ValueError, before anything compiles, unless `path` can be written as `what`: its
    suffix one of `suffixes`, its folder there, and Parquet's pyarrow importable."""
    lower = path.lower()
    if not lower.endswith(suffixes):
        raise ValueError(f"{what} {path}: write {' or '.join(suffixes)}")
    if lower.endswith(".parquet"):
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise ValueError(f"{what} {path}: Parquet needs pyarrow, which is not installed "
                             f"(pip install pyarrow), or write .csv") from None
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"{what} {path}: no folder {folder}")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"{what} {path}: the folder {folder} cannot be written")


def configs_of(spec: Dict[str, Any]) -> List[Dict[str, Any]]:
    from . import grid
    if "configs" in spec:
        return [dict(c) for c in spec["configs"]]
    axes = spec["grid"]
    for name, values in axes.items():
        if not isinstance(values, list):
            raise ValueError(f"grid axis {name!r}: expected a list of values")
    return grid(**axes)


def check_named(options: argparse.Namespace, wanted: Dict[str, str]) -> None:
    """ValueError for an option of `wanted` (its name: what it wants) given empty or blank:
    a mistake (an unset variable, `--out "$OUT"`), not the option left out."""
    for name, what in wanted.items():
        given = getattr(options, name)
        if given is not None and not given.strip():
            raise ValueError(f"--{name} {given!r}: give {what}")


def fail(error: Any) -> int:
    """Says `error` in one line on stderr, its control characters escaped (a device's or a
    file's name may hold a terminal's escapes); the exit status of input that cannot be used."""
    from ._report import shown
    print(f"error: {shown(error)}", file=sys.stderr)
    return 2


def print_table(table: str) -> bool:
    """Prints `table` on stdout; False, said in one line on stderr, where stdout cannot take it
    (a full disk, a closed pipe)."""
    try:
        print(table, flush=True)
        return True
    except OSError as error:
        # Python flushes stdout again as it exits: what is left goes nowhere, the error is
        # said once.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        fail(f"cannot write the table to standard output: {error.strerror or error}")
        return False


def what_if_main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m hloroof.sweep what-if",
                                 description="One compiled program predicted on several devices "
                                 "and device edits, compiling nothing.")
    ap.add_argument("program", help="HLO text, a dump folder, a proto (as hloroof predict)")
    ap.add_argument("--device", action="append", required=True,
                    help="a device with its slice (tpu_v5e:2x2); repeat for more")
    ap.add_argument("--edit", action="append", default=None, metavar="'PATH=VALUE ...'",
                    help="device figures set together (as --set); repeat for more; the "
                    "devices as they are come first")
    ap.add_argument("--model-flops", type=float, help="the model's FLOPs of one step (MFU)")
    ap.add_argument("--out", help="write the rows as CSV")
    a = ap.parse_args(argv)
    from . import _report, check_targets, what_if
    edits = [[]] + [e.split() for e in a.edit or []]
    try:
        check_named(a, {"out": "a file, .csv"})
        if a.model_flops is not None and not (math.isfinite(a.model_flops) and
                                              a.model_flops > 0):
            raise ValueError(f"--model-flops {a.model_flops:g}: give the model's FLOPs of one "
                             "step, a positive number")
        if a.out:
            check_output(a.out, (".csv",), "--out")
            _files.check_output(a.out, "rows", [a.program])
        for edit in edits:  # each device and edit known before any prediction
            check_targets(a.device, edit, shape=False)
        frame = what_if(a.program, a.device, edits, model_flops=a.model_flops)
    except (ValueError, OSError) as error:
        return fail(error)
    shown = print_table(_report.what_if_table(frame.to_dict("records")))
    if a.out:
        try:
            _files.write_csv(frame, a.out, inputs=[a.program])
        except (ValueError, OSError) as error:
            return fail(error)
    return 0 if shown else 2


def main(argv: Any = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["what-if"]:
        return what_if_main(argv[1:])
    ap = argparse.ArgumentParser(prog="python -m hloroof.sweep",
                                 description=__doc__.splitlines()[0],
                                 epilog="python -m hloroof.sweep what-if --help: one compiled "
                                 "program on several devices and device edits, compiling "
                                 "nothing")
    ap.add_argument("spec", help="the sweep's spec file (TOML; docs/sweep.md)")
    ap.add_argument("--out", help="write the rows: .csv, or .parquet (needs pyarrow)")
    ap.add_argument("--svg", help="write the plot of the Pareto front (SVG)")
    ap.add_argument("--ray", metavar="ADDRESS", help="compile as Ray tasks on this cluster "
                    "('auto': the one this machine runs; 'local': a new one here)")
    ap.add_argument("--workers", type=int, help="compiles at once here (default: by cores "
                    "and memory)")
    ap.add_argument("--compile-memory", type=float, metavar="GB",
                    help="memory one compile needs, GB (default: measured)")
    ap.add_argument("--timeout", type=float, metavar="S", help="seconds one compile may take")
    ap.add_argument("--cache", help="the store of compiled programs (a folder)")
    ap.add_argument("--set", action="append", default=None, metavar="PATH=VALUE",
                    help="a device figure set for the predictions, as hloroof predict --set")
    ap.add_argument("--quiet", action="store_true", help="no progress line")
    a = ap.parse_args(argv)
    try:
        check_named(a, {"out": "a file, .csv or .parquet", "svg": "a file, .svg",
                        "cache": "a folder", "ray": "HOST:PORT, ray://HOST:PORT or auto"})
        spec = read_spec(a.spec)
        configs = configs_of(spec)
        if a.out or spec.get("out"):
            check_output(a.out or spec["out"], (".csv", ".parquet"), "--out")
        if a.svg or spec.get("svg"):
            check_output(a.svg or spec["svg"], (".svg",), "--svg")
        for given, what in ((a.out or spec.get("out"), "rows"),
                            (a.svg or spec.get("svg"), "plot")):
            if given is not None:
                _files.check_output(given, what, [a.spec])
    except ValueError as error:
        return fail(error)
    from . import Compile, Engine, Local, Ray, run
    base = os.path.dirname(os.path.abspath(a.spec))
    path = [os.path.join(base, p) for p in spec.get("path", ["."])]
    gb = a.compile_memory if a.compile_memory is not None else spec.get("compile_memory_gb")
    compile_memory = gb * 1e9 if gb is not None else None
    cache = a.cache or spec.get("cache")
    if cache:
        cache = os.path.join(base, cache) if not a.cache else cache
    try:
        if a.ray is not None or spec.get("engine") == "ray":
            engine: Engine = Ray(a.ray if a.ray is not None else spec.get("address"),
                                 spec.get("ray_cpus", 1), compile_memory)
        else:
            engine = Local(a.workers if a.workers is not None else spec.get("workers"),
                           compile_memory)
        options = Compile(flags=spec.get("flags", ""), path=path, cache=cache,
                          timeout_s=(a.timeout if a.timeout is not None
                                     else spec.get("timeout_s", 3600)))
        result = run(spec["builder"], configs, spec.get("targets"), engine=engine,
                     compile=options, settings=a.set or spec.get("settings"),
                     progress=not a.quiet)
    except (ValueError, ImportError, OSError) as error:  # OSError: the store, Ray's address
        if "Could not find any running Ray instance" in str(error):  # Ray's advice names
            # flags of `ray start`, not of this command
            error = ("Ray at auto: no Ray cluster runs on this machine; start one (ray start "
                     "--head), or give 'local' for a Ray of this sweep's own")
        return fail(error)
    shown = print_table(result.table())  # the rows are written even so
    out = a.out or spec.get("out")
    svg = a.svg or spec.get("svg")
    try:
        if out:
            result.write(out)
        if svg:
            _files.write_text(svg, result.svg(), "plot")
    except (ValueError, OSError) as error:
        return fail(error)
    if result.interrupted:
        print(f"interrupted: {len(result.rows)} rows kept", file=sys.stderr)
        return 130
    return 0 if shown else 2


if __name__ == "__main__":
    sys.exit(main())
