"""Where the compiles run: a pool of worker processes here, or Ray tasks on a cluster.

Both run each configuration's compile in a process of its own (``python -m
hloroof.sweep._compile``) and hand back an outcome: {"text", "facts"} (the program and XLA's
figures) or {"failure": one line, "cache": whether the same inputs fail the same way}. Ray is
imported here only, and only by the Ray engine.

A compile is the leader of a process group of its own; the group is killed at the compile's
timeout and when the sweep ends early (Ctrl-C, SIGTERM, SIGHUP, an error). Each compile also
watches a pipe whose write end only the sweep holds: when the sweep dies, even by SIGKILL, the
compile removes its scratch folder and kills its group. The checks before compiling
(_precheck) run the same way (`watched`).
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Tuple

from . import _cache, _compile

Outcome = Dict[str, Any]
# Called with (job index, outcome, the compile's peak resident memory in bytes or None).
Done = Callable[[int, Outcome, Optional[int]], None]
# Called with the number of compiles running, after each change.
Running = Callable[[int], None]

_GIB = 1 << 30


class Ended(BaseException):
    """SIGTERM or SIGHUP reached the sweep (raised by EndingSignals' handler)."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"ended by {signal.Signals(signum).name}")
        self.signum = signum


class EndingSignals:
    """While a sweep runs: SIGTERM and SIGHUP, where they would end the process (their default
    disposition, in the main thread), raise Ended instead, so that the engine ends its compiles'
    process groups and removes their scratch folders; restore() then puts the signals back and,
    when one came, sends it again: the process ends by it, as it would have."""

    SIGNALS = (signal.SIGTERM, signal.SIGHUP)

    def __init__(self) -> None:
        self.previous: Dict[int, Any] = {}
        self.received: Optional[int] = None
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in self.SIGNALS:
            if signal.getsignal(signum) == signal.SIG_DFL:
                self.previous[signum] = signal.signal(signum, self._handler)

    def _handler(self, signum: int, frame: Any) -> None:
        if self.received is None:
            self.received = signum
            for other in self.previous:  # the cleanup runs to its end
                signal.signal(other, signal.SIG_IGN)
            raise Ended(signum)

    def restore(self) -> None:
        for signum, handler in self.previous.items():
            current = signal.getsignal(signum)
            if current == self._handler or current == signal.SIG_IGN:  # not another's since
                signal.signal(signum, handler)
        self.previous.clear()
        if self.received is not None:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError):
                    pass
            os.kill(os.getpid(), self.received)


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


def _spawn(module: str, args: List[str], watch_fd: int, env: Mapping[str, str],
           stderr: Any) -> subprocess.Popen:
    """``python -m MODULE --watch FD ARGS...`` started as the leader of a new session and process
    group (Ctrl-C reaches the sweep alone, which ends the group), watching `watch_fd`."""
    return subprocess.Popen([sys.executable, "-m", module, "--watch", str(watch_fd), *args],
                            env=dict(env), stdout=subprocess.DEVNULL, stderr=stderr,
                            start_new_session=True, pass_fds=(watch_fd,))


def _kill_group(pgid: int) -> None:
    """SIGKILL to the process group `pgid` (a compile and whatever it started), if any is left."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# The module a compile runs: ``python -m COMPILE --watch FD JOB.json OUT_DIR``.
COMPILE = "hloroof.sweep._compile"


def _job_file(job: Mapping[str, Any], folder: str) -> str:
    """`job` written to FOLDER/job.json: the compile's scratch folder, which it removes when its
    watched pipe closes."""
    path = os.path.join(folder, "job.json")
    with open(path, "w") as f:
        json.dump(job, f)
    return path


def _start(job: Mapping[str, Any], folder: str, out: str, watch_fd: int, env: Mapping[str, str],
           stderr: Any) -> subprocess.Popen:
    """One compile started (_spawn), its job in `folder`, its program written to `out`."""
    return _spawn(COMPILE, [_job_file(job, folder), out], watch_fd, env, stderr)


@contextlib.contextmanager
def watched(module: str, args: List[str], env: Mapping[str, str],
            stderr: Any = subprocess.DEVNULL) -> Iterator[subprocess.Popen]:
    """One process of ours (_spawn) with a pipe of its own to watch. However the block is left
    (its end, an error, Ctrl-C, SIGTERM's Ended), the process group is killed (what it started
    and left behind too) and the process reaped; when this process dies, the pipe closes."""
    watch_read, watch_write = os.pipe()
    popen = None
    try:
        popen = _spawn(module, args, watch_read, env, stderr)
        yield popen
    finally:
        if popen is not None:
            _kill_group(popen.pid)
            if popen.returncode is None:
                popen.wait()
        os.close(watch_write)
        os.close(watch_read)


def wait_group(popen: subprocess.Popen, timeout_s: float) -> Tuple[int, int, bool]:
    """Waits for `popen`'s process, its group killed once it runs past `timeout_s`: (its exit
    code, negative for a signal; its peak resident memory in bytes; whether it timed out)."""
    deadline = time.monotonic() + timeout_s
    timed_out = False
    while True:
        reaped, status, usage = os.wait4(popen.pid, os.WNOHANG)
        if reaped:
            popen.returncode = os.waitstatus_to_exitcode(status)
            return popen.returncode, usage.ru_maxrss * 1024, timed_out  # ru_maxrss: KiB
        if time.monotonic() > deadline and not timed_out:
            timed_out = True
            _kill_group(popen.pid)
        time.sleep(0.05)


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


def _marked_line(stderr_path: str, mark: str) -> str:
    """What follows `mark` on the last line of a compile's stderr that starts with it."""
    try:
        with open(stderr_path, errors="replace") as f:
            lines = [line.strip() for line in f if line.startswith(mark)]
    except OSError:
        return ""
    return lines[-1][len(mark):][:300] if lines else ""


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
    if returncode == _compile.EXIT_TRANSIENT:
        said = _marked_line(stderr_path, _compile.TRANSIENT_MARK)
        if said:
            return {"failure": f"the compile process failed: {said}", "cache": False}
    if returncode != 0:
        last = _error_line(stderr_path) or f"exit status {returncode}"
        return {"failure": f"the compile process failed: {last}", "cache": False}
    try:
        return _cache.read_entry(folder)
    except _cache.BadEntry as error:
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
    compile writes into a scratch folder of the store; `done` gets its outcome. Any exception
    (Ctrl-C's KeyboardInterrupt, a signal's) kills the running compiles' process groups,
    removes their scratch folders and is raised again; a store that cannot be written raises
    _cache.StoreError."""
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or
                                workers < 1):
        raise ValueError(f"workers={workers!r}: give a whole number of compiles at once, 1 or "
                         f"more")
    pending = collections.deque(jobs)
    running: Dict[int, _Running] = {}
    measured = compile_memory
    limit = workers or (pool_size(measured) if measured else 1)
    env = _worker_env()
    watch_read, watch_write = os.pipe()  # the compiles' lifeline: closed when this process ends
    try:
        while pending or running:
            while pending and len(running) < limit:
                index, job = pending[0]
                folder = store.scratch()
                try:
                    stderr = open(os.path.join(folder, _cache.LOG), "w")
                    try:
                        popen = _start(job, folder, folder, watch_read, env, stderr)
                    except BaseException:
                        stderr.close()
                        raise
                except OSError as error:
                    shutil.rmtree(folder, ignore_errors=True)
                    raise store._error(error) from None
                pending.popleft()
                running[popen.pid] = _Running(index, popen, folder, stderr)
                running_changed(len(running))
            time.sleep(0.05)
            for pid, run in list(running.items()):
                reaped, status, usage = os.wait4(pid, os.WNOHANG)
                if reaped == 0:
                    if time.monotonic() - run.start > timeout_s and not run.timed_out:
                        run.timed_out = True
                        _kill_group(pid)
                    continue
                _kill_group(pid)  # what the compile started and left behind
                run.popen.returncode = os.waitstatus_to_exitcode(status)
                run.stderr.close()
                del running[pid]
                try:
                    os.unlink(os.path.join(run.folder, "job.json"))
                except OSError:
                    pass
                peak = usage.ru_maxrss * 1024  # kilobytes on Linux
                if workers is None and measured is None:
                    measured = peak
                    limit = pool_size(measured)
                outcome = outcome_of(run.popen.returncode, run.folder,
                                     os.path.join(run.folder, _cache.LOG), run.timed_out,
                                     timeout_s)
                outcome["folder"] = run.folder
                running_changed(len(running))
                done(run.index, outcome, peak)
    except BaseException:
        for pid, run in running.items():
            _kill_group(pid)
            os.waitpid(pid, 0)
            run.popen.returncode = -signal.SIGKILL
            run.stderr.close()
            shutil.rmtree(run.folder, ignore_errors=True)
        running_changed(0)
        raise
    finally:
        os.close(watch_write)
        os.close(watch_read)


def _log_tail(path: str) -> str:
    """The end of the compile's log (its last _cache.LOG_BYTES bytes), or "" where none."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - _cache.LOG_BYTES))
            return f.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


def compile_here(job: Mapping[str, Any], timeout_s: float) -> Outcome:
    """One compile in a process of its own, waited for (a Ray task's body): its outcome with
    the program's text, its peak resident memory in bytes as "peak" and the end of what it
    printed as "log" (kept in the store: the driver's terminal never sees it)."""
    folder = tempfile.mkdtemp(prefix="hloroof-sweep-")
    try:
        out = os.path.join(folder, "out")
        os.mkdir(out)
        stderr_path = os.path.join(folder, _cache.LOG)
        with open(stderr_path, "w") as stderr, \
                watched(COMPILE, [_job_file(job, folder), out], _worker_env(),
                        stderr) as popen:
            returncode, peak, timed_out = wait_group(popen, timeout_s)
        outcome = outcome_of(returncode, out, stderr_path, timed_out, timeout_s)
        outcome["peak"] = peak
        log = _log_tail(stderr_path)
        if log:
            outcome["log"] = log
        return outcome
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# Seconds to wait for a Ray address to answer before giving up on it.
CONNECT_TIMEOUT_S = 10.0


def check_address(address: Optional[str], timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """Refuses a Ray address that is malformed (ValueError) or does not accept a connection
    within `timeout_s` (ConnectionError, one line): HOST:PORT (the head's GCS), ray://HOST:PORT
    (Ray Client), "auto" (Ray finds the cluster of this machine) or "local" (a new Ray on this
    machine, for this process). None and "auto" are checked as Ray reads them: RAY_ADDRESS
    where it is set."""
    source = ""
    if address in (None, "auto") and os.environ.get("RAY_ADDRESS"):
        address, source = os.environ["RAY_ADDRESS"], " (RAY_ADDRESS)"  # what ray.init joins
    if address is None or address in ("auto", "local"):
        return
    malformed = f"Ray address {address!r}{source}: give HOST:PORT, ray://HOST:PORT or auto"
    if not isinstance(address, str) or not address.strip():
        raise ValueError(malformed)
    rest = address[len("ray://"):] if address.startswith("ray://") else address
    host, sep, port = rest.rpartition(":")
    host = host.strip("[]")
    if "://" in rest or not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(malformed)
    try:
        with socket.create_connection((host, int(port)), timeout=timeout_s):
            pass
    except socket.timeout:
        raise ConnectionError(f"Ray at {address}{source}: no answer from {host}:{port} in "
                              f"{timeout_s:g} s") from None
    except OSError as error:
        reason = error.strerror or str(error) or type(error).__name__
        raise ConnectionError(f"Ray at {address}{source}: cannot connect to {host}:{port}: "
                              f"{reason}") from None


class _HeldStderr:
    """File descriptor 2 sent to a temporary file while Ray joins a cluster: Ray's core logs
    each failed try there (a line a second); on failure they are dropped for one line of ours,
    on success written out as they came."""

    def __enter__(self) -> "_HeldStderr":
        sys.stderr.flush()
        self.saved = os.dup(2)
        self.file = tempfile.TemporaryFile()
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        if kind is None:
            self.file.seek(0)
            held = self.file.read()
            if held:
                sys.stderr.write(held.decode("utf-8", "replace"))
                sys.stderr.flush()
        self.file.close()


def _first_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return (lines[0] if lines else type(error).__name__)[:300]


def join_ray(address: Optional[str]) -> Any:
    """The ray module, this process joined to the cluster at `address` (None: the one it is
    connected to, else Ray's own choice: RAY_ADDRESS, or a new local one) unless it already is.
    An address that cannot be joined: ConnectionError, one line; no Ray: ImportError."""
    try:
        import ray
    except ImportError as error:
        raise ImportError("engine='ray' needs Ray: pip install 'hloroof[ray]' (or ray)") from error
    if not ray.is_initialized():
        check_address(address)
        try:
            with _HeldStderr():
                ray.init(address=address, log_to_driver=False)
        except Exception as error:  # Ray's own reason, first line (its advice names flags
            # of `ray start`, not of this command)
            where = f"Ray at {address}" if address else "Ray"
            raise ConnectionError(f"{where}: {type(error).__name__}: "
                                  f"{_first_line(error)}") from None
    return ray


def run_ray(jobs: List[Tuple[int, Mapping[str, Any]]], address: Optional[str],
            cpus: float, compile_memory: Optional[int], timeout_s: float, done: Done,
            running_changed: Running) -> None:
    """Compiles `jobs` as Ray tasks (each `cpus` CPUs and, when given, `compile_memory` bytes
    of Ray's memory resource) on the cluster at `address` (join_ray); outcomes reach `done` as
    they finish. Ctrl-C cancels the tasks not finished and is raised again."""
    ray = join_ray(address)
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
