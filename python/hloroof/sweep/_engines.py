"""Where the compiles run: a pool of worker processes here, or Ray tasks on a cluster.

Both run each configuration's compile in a process of its own (``python -m
hloroof.sweep._compile``) and hand back an outcome: {"text", "facts"} (the program and XLA's
figures) or {"failure": one line, "cache": whether the same inputs fail the same way}. Ray is
imported here only, and only by the Ray engine.
"""

from __future__ import annotations

import collections
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from . import _cache

Outcome = Dict[str, Any]
# Called with (job index, outcome, the compile's peak resident memory in bytes or None).
Done = Callable[[int, Outcome, Optional[int]], None]
# Called with the number of compiles running, after each change.
Running = Callable[[int], None]

_GIB = 1 << 30


def _worker_env() -> Dict[str, str]:
    """The environment of a compile: this process's, with the folder of the hloroof package
    this process runs first on PYTHONPATH (the worker imports the same hloroof)."""
    import hloroof
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(hloroof.__file__)))
    env = dict(os.environ)
    paths = [package_parent] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    # The offline compilers need no accelerator here: without this, JAX starts its CUDA
    # plugin in every worker (half a second, and a traceback on stderr without a GPU).
    env.setdefault("JAX_PLATFORMS", "cpu")
    return env


def _command(job_file: str, folder: str) -> List[str]:
    return [sys.executable, "-m", "hloroof.sweep._compile", job_file, folder]


def _error_line(stderr_path: str) -> str:
    """The last line of a compile's stderr that reads as an error (an exception's line, a
    fatal log line), else its last line."""
    try:
        with open(stderr_path, errors="replace") as f:
            lines = [line.strip() for line in f if line.strip()]
    except OSError:
        return ""
    errors = [line for line in lines
              if line.startswith(("F", "E")) and " " in line and line[1:5].isdigit()
              or "Error" in line.split(":")[0]]
    picked = (errors or lines or [""])[-1]
    return picked[:300]


def outcome_of(returncode: int, folder: str, stderr_path: str, timed_out: bool,
               timeout_s: float) -> Outcome:
    """What a finished compile process left: its program, its rejection, or why it died."""
    if timed_out:
        return {"failure": f"timeout: the compile ran past {timeout_s:g} s", "cache": False}
    if returncode < 0:
        number = -returncode
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        if number == signal.SIGKILL:
            return {"failure": f"killed for memory: {name}, most likely from the kernel's "
                               f"out-of-memory killer", "cache": False}
        last = _error_line(stderr_path)
        return {"failure": f"the compile died of {name}" + (f": {last}" if last else ""),
                "cache": False}
    if returncode != 0:
        last = _error_line(stderr_path) or f"exit status {returncode}"
        return {"failure": f"the compile process failed: {last}", "cache": False}
    failure = os.path.join(folder, _cache.FAILURE)
    try:
        if os.path.exists(failure):
            with open(failure) as f:
                return {"failure": json.load(f)["reason"], "cache": True}
        with open(os.path.join(folder, _cache.FACTS)) as f:
            facts = json.load(f)
        with open(os.path.join(folder, _cache.PROGRAM)) as f:
            return {"text": f.read(), "facts": facts}
    except (OSError, ValueError, KeyError) as error:
        return {"failure": f"the compile left no program: {error}", "cache": False}


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def available_memory() -> int:
    """Bytes of memory available for new processes (MemAvailable), else the total."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def pool_size(compile_memory: Optional[int], limit: Optional[int] = None) -> int:
    """Workers that fit here: at most one a core and, when one compile's memory is known, as
    many as the available memory holds with a quarter to spare."""
    size = cores()
    if compile_memory:
        size = min(size, max(1, int(available_memory() / (compile_memory * 1.25))))
    return max(1, min(size, limit or size))


class _Running:
    def __init__(self, index: int, popen: subprocess.Popen, folder: str, stderr: Any) -> None:
        self.index, self.popen, self.folder, self.stderr = index, popen, folder, stderr
        self.start = time.monotonic()
        self.timed_out = False


def run_local(jobs: List[Tuple[int, Mapping[str, Any]]], store: _cache.Store,
              workers: Optional[int], compile_memory: Optional[int], timeout_s: float,
              done: Done, running_changed: Running) -> None:
    """Compiles `jobs` (index, job) in worker processes here, `workers` at once (None: sized
    by the cores and by `compile_memory`, bytes, or by the peak of the first compile). Each
    compile writes into a scratch folder of the store; `done` gets its outcome. Ctrl-C
    (KeyboardInterrupt) kills the running compiles and is raised again."""
    pending = collections.deque(jobs)
    running: Dict[int, _Running] = {}
    measured = compile_memory
    limit = workers or (pool_size(measured) if measured else 1)
    env = _worker_env()
    scratch_jobs = tempfile.mkdtemp(prefix="hloroof-sweep-")
    try:
        while pending or running:
            while pending and len(running) < limit:
                index, job = pending.popleft()
                folder = store.scratch()
                job_file = os.path.join(scratch_jobs, f"{index}.json")
                with open(job_file, "w") as f:
                    json.dump(job, f)
                stderr = open(os.path.join(folder, "stderr.txt"), "w")
                # A session of its own: Ctrl-C reaches the sweep, which ends the compiles.
                popen = subprocess.Popen(_command(job_file, folder), env=env,
                                         stdout=subprocess.DEVNULL, stderr=stderr,
                                         start_new_session=True)
                running[popen.pid] = _Running(index, popen, folder, stderr)
                running_changed(len(running))
            time.sleep(0.05)
            for pid, run in list(running.items()):
                reaped, status, usage = os.wait4(pid, os.WNOHANG)
                if reaped == 0:
                    if time.monotonic() - run.start > timeout_s and not run.timed_out:
                        run.timed_out = True
                        os.kill(pid, signal.SIGKILL)
                    continue
                run.popen.returncode = os.waitstatus_to_exitcode(status)
                run.stderr.close()
                del running[pid]
                peak = usage.ru_maxrss * 1024  # kilobytes on Linux
                if workers is None and measured is None:
                    measured = peak
                    limit = pool_size(measured)
                outcome = outcome_of(run.popen.returncode, run.folder,
                                     os.path.join(run.folder, "stderr.txt"), run.timed_out,
                                     timeout_s)
                outcome["folder"] = run.folder
                running_changed(len(running))
                done(run.index, outcome, peak)
    except BaseException:
        for pid, run in running.items():
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            run.popen.returncode = -signal.SIGKILL
            run.stderr.close()
            shutil.rmtree(run.folder, ignore_errors=True)
        running_changed(0)
        raise
    finally:
        shutil.rmtree(scratch_jobs, ignore_errors=True)


def compile_here(job: Mapping[str, Any], timeout_s: float) -> Outcome:
    """One compile in a process of its own, waited for (a Ray task's body): its outcome with
    the program's text, and its peak resident memory in bytes as "peak"."""
    folder = tempfile.mkdtemp(prefix="hloroof-sweep-")
    try:
        job_file = os.path.join(folder, "job.json")
        with open(job_file, "w") as f:
            json.dump(job, f)
        out = os.path.join(folder, "out")
        os.mkdir(out)
        stderr_path = os.path.join(folder, "stderr.txt")
        with open(stderr_path, "w") as stderr:
            popen = subprocess.Popen(_command(job_file, out), env=_worker_env(),
                                     stdout=subprocess.DEVNULL, stderr=stderr,
                                     start_new_session=True)
            timed_out = False
            deadline = time.monotonic() + timeout_s
            while True:
                reaped, status, usage = os.wait4(popen.pid, os.WNOHANG)
                if reaped:
                    break
                if time.monotonic() > deadline and not timed_out:
                    timed_out = True
                    os.kill(popen.pid, signal.SIGKILL)
                time.sleep(0.05)
            popen.returncode = os.waitstatus_to_exitcode(status)
        outcome = outcome_of(popen.returncode, out, stderr_path, timed_out, timeout_s)
        outcome["peak"] = usage.ru_maxrss * 1024
        return outcome
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_ray(jobs: List[Tuple[int, Mapping[str, Any]]], address: Optional[str],
            cpus: float, compile_memory: Optional[int], timeout_s: float, done: Done,
            running_changed: Running) -> None:
    """Compiles `jobs` as Ray tasks (each `cpus` CPUs and, when given, `compile_memory` bytes
    of Ray's memory resource) on the cluster at `address` (None: the one this process is
    connected to, else Ray's own choice: RAY_ADDRESS, or a new local one); outcomes reach
    `done` as they finish. Ctrl-C cancels the tasks not finished and is raised again."""
    try:
        import ray
    except ImportError as error:
        raise ImportError("engine='ray' needs Ray: pip install 'hloroof[ray]' (or ray)") from error
    if not ray.is_initialized():
        ray.init(address=address, log_to_driver=False)
    options: Dict[str, Any] = {"num_cpus": cpus, "max_retries": 0}
    if compile_memory:
        options["memory"] = int(compile_memory)
    task = ray.remote(compile_here).options(**options)
    refs = {task.remote(dict(job), timeout_s): index for index, job in jobs}
    pending = list(refs)
    running_changed(min(len(pending), max(1, int(ray.available_resources().get("CPU", 1)))))
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1, timeout=1.0)
            for ref in ready:
                try:
                    outcome = ray.get(ref)
                except Exception as error:  # the task itself failed: Ray's own reason
                    outcome = {"failure": f"the Ray task failed: {type(error).__name__}: "
                                          f"{str(error).strip().splitlines()[0][:200]}",
                               "cache": False}
                running_changed(min(len(pending), max(1, int(ray.cluster_resources().get(
                    "CPU", 1) // max(cpus, 1e-9)))))
                done(refs[ref], outcome, outcome.pop("peak", None))
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        running_changed(0)
        raise
