"""One configuration compiled, in a process of its own (libtpu reads its flags once a process).

    python -m hloroof.sweep._compile [--watch FD] JOB.json OUT_DIR

JOB.json: ``builder`` ("module:function"), ``path`` (folders put first on sys.path so that the
builder's module imports), ``config`` (the configuration), ``target`` ("tpu_v5e:2x2"),
``flags`` (added to LIBTPU_INIT_ARGS; to XLA_FLAGS for a GPU target). Writes
OUT_DIR/program.hlo (XLA's optimized module) and OUT_DIR/compile.json (compile time, XLA's
memory_analysis(), the builder's model FLOPs and tokens, the program's SHA-256), or
OUT_DIR/failure.json (the reason in one line) when the builder or the compiler rejects the
configuration; exit status 0 either way. What says nothing
about the configuration (MemoryError, an OSError such as a full disk) is written to stderr in one
line, with exit status 3, so that it is not stored as a rejection. Anything else (a signal, an
exit status other than 0) is the parent's to explain.

--watch FD: the read end of a pipe whose write end only the parent holds. When it reads end of
file (the parent died, even by SIGKILL), the process removes the folder holding JOB.json and
kills its process group (it is the group's leader: the parent starts it in a session of its
own), so that no compile outlives its sweep.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
import os
import shutil
import signal
import sys
import threading
import time
import traceback
from typing import Any, Dict, List, Mapping

from ._entry import FACTS, FAILURE, PROGRAM

# The fields of a builder's step: what compile_for takes, and the figures the row reports.
STEP_FIELDS = ("fn", "args", "in_specs", "mesh_axes", "out_specs", "static_argnums",
               "donate_argnums", "model_flops", "tokens")


def chips_of(target: str) -> int:
    """The chips of a target's slice or node shape ("tpu_v5p:2x2x2": 8, "h100:2x8": 16), every
    slice counted ("tpu_v6e:16x16,slices=2": 512)."""
    shape, _, option = target.partition(":")[2].partition(",slices=")
    try:
        return math.prod(int(x) for x in shape.split("x")) * (int(option) if option else 1)
    except ValueError:
        raise ValueError(f"target {target!r}: expected DEVICE:SHAPE, e.g. 'tpu_v5e:2x2'") from None


def load_builder(spec: str) -> Any:
    """The function a "module:function" string names (a dotted attribute path after ':')."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"builder {spec!r}: expected 'module:function'")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def step_fields(step: Any) -> Dict[str, Any]:
    """A builder's result as a dict of STEP_FIELDS: a Mapping, or an object with them as
    attributes (hloroof.sweep.Step)."""
    if step is None:
        raise ValueError("the builder returned None: return a hloroof.sweep.Step (or a dict of "
                         "its fields)")
    if isinstance(step, Mapping):
        fields = dict(step)
    else:
        fields = {k: getattr(step, k) for k in STEP_FIELDS if hasattr(step, k)}
    unknown = sorted(set(fields) - set(STEP_FIELDS))
    if unknown:
        raise ValueError(f"the builder's step has unknown fields {unknown}; fields: "
                         f"{', '.join(STEP_FIELDS)}")
    for needed in ("fn", "args"):
        if fields.get(needed) is None:
            raise ValueError(f"the builder's step has no {needed!r}")
    return fields


def one_line(error: BaseException) -> str:
    """An exception as one line: its type and its message's first non-empty line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[0] if lines else '(no message)'}"


def xla_memory(compiled: Any) -> Dict[str, int]:
    """The byte counts of XLA's memory_analysis() (its ``*_in_bytes`` fields)."""
    analysis = compiled.memory_analysis()
    if analysis is None:
        return {}
    return {k: int(getattr(analysis, k)) for k in dir(analysis)
            if k.endswith("_in_bytes") and isinstance(getattr(analysis, k), int)}


def compile_one(job: Mapping[str, Any], out_dir: str) -> None:
    """Builds and compiles `job`'s configuration; writes program.hlo and compile.json."""
    import hloroof.jax as hj

    target = job["target"]
    builder = load_builder(job["builder"])
    devices = len(hj.topology_devices(target))
    config = dict(job["config"])
    config.setdefault("target", target)
    config.setdefault("chips", chips_of(target))
    config.setdefault("devices", devices)
    step = step_fields(builder(config))
    start = time.perf_counter()
    compiled = hj.compile_for(
        step["fn"], *step["args"], target=target, mesh_axes=step.get("mesh_axes"),
        in_specs=step.get("in_specs"), out_specs=step.get("out_specs"),
        static_argnums=tuple(step.get("static_argnums") or ()),
        donate_argnums=tuple(step.get("donate_argnums") or ()))
    compile_s = time.perf_counter() - start
    text = getattr(compiled, "_hloroof_hlo_text", None) or compiled.as_text()
    data = text.encode("utf-8")
    facts = {"compile_s": compile_s, "xla_memory": xla_memory(compiled),
             "chips": chips_of(target), "devices": devices,
             "model_flops": step.get("model_flops"), "tokens": step.get("tokens"),
             "program_sha256": hashlib.sha256(data).hexdigest()}
    with open(os.path.join(out_dir, PROGRAM), "wb") as f:
        f.write(data)
    with open(os.path.join(out_dir, FACTS), "w") as f:
        json.dump(facts, f)


def watch_parent(fd: int, scratch: str) -> None:
    """Ends this process's group, after removing `scratch`, once `fd` reads end of file."""
    def watch() -> None:
        try:
            while os.read(fd, 4096):
                pass
        except OSError:
            pass
        shutil.rmtree(scratch, ignore_errors=True)
        if os.getpgrp() == os.getpid():
            os.killpg(os.getpid(), signal.SIGKILL)
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="hloroof-sweep-watch", daemon=True).start()


def watch_from(args: List[str]) -> List[str]:
    """`args` less a leading ``--watch FD``, whose watch is started: its scratch is the folder
    holding the first argument left (the job's file). The sweep's checks before compiling take
    the option too."""
    if args[:1] != ["--watch"]:
        return args
    fd, args = int(args[1]), args[2:]
    watch_parent(fd, os.path.dirname(os.path.abspath(args[0])))
    return args


# Errors that say nothing about the configuration: the same inputs may compile next time.
TRANSIENT = (MemoryError, OSError)
EXIT_TRANSIENT = 3
# The start of the stderr line that says why, with EXIT_TRANSIENT.
TRANSIENT_MARK = "hloroof.sweep: not kept: "


def flags_variable(target: str) -> str:
    """Where a job's compiler flags go: XLA_FLAGS for a GPU target (XLA's GPU compiler reads
    them), LIBTPU_INIT_ARGS for any other (libtpu's)."""
    try:
        from hloroof import _hloroof
        name = target.partition(":")[0]
        return "XLA_FLAGS" if name and _hloroof._device(name).kind == "gpu" else "LIBTPU_INIT_ARGS"
    except Exception:  # a target hloroof does not know: the compile says so itself
        return "LIBTPU_INIT_ARGS"


def main(argv: Any = None) -> int:
    job_path, out_dir = watch_from(list(sys.argv[1:] if argv is None else argv))[:2]
    with open(job_path) as f:
        job = json.load(f)
    flags = (job.get("flags") or "").strip()
    if flags:
        variable = flags_variable(job.get("target", ""))
        os.environ[variable] = (os.environ.get(variable, "") + " " + flags).strip()
    sys.path[:0] = [p for p in job.get("path", []) if p not in sys.path]
    try:
        try:
            compile_one(job, out_dir)
        except TRANSIENT:
            raise
        except Exception as error:  # the builder's or the compiler's rejection: the row's reason
            # The row keeps one line; the store's entry keeps the traceback too (file:line).
            with open(os.path.join(out_dir, FAILURE), "w") as f:
                json.dump({"reason": one_line(error), "traceback": traceback.format_exc()}, f)
    except TRANSIENT as error:  # this machine's trouble, not the configuration's: not stored
        for name in (PROGRAM, FACTS, FAILURE):
            try:
                os.unlink(os.path.join(out_dir, name))
            except OSError:
                pass
        print(TRANSIENT_MARK + one_line(error), file=sys.stderr, flush=True)
        return EXIT_TRANSIENT
    return 0


if __name__ == "__main__":
    sys.exit(main())
