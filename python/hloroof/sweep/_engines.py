"""Where the compiles run: an `Engine`. `Local`, a pool of worker processes here, and `Ray`,
Ray tasks on a cluster, are the two the sweep has; any class with the protocol's two methods is
another.

Both run each configuration's compile in a process of its own (``python -m
hloroof.sweep._compile``) and hand back an `Outcome`: the program and XLA's figures, or why
there is none. Ray is imported here only, and only by the Ray engine.

A compile is the leader of a process group of its own; the group is killed at the compile's
timeout and when the sweep ends early (Ctrl-C, SIGTERM, SIGHUP, an error). Each compile also
watches a pipe whose write end only the sweep holds: when the sweep dies, even by SIGKILL, the
compile removes its scratch folder and kills its group. The checks before compiling
(_precheck) run the same way (`watched`).
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
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
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Protocol, Tuple

from . import _cache, _compile
from ._entry import LOG, LOG_BYTES, Outcome
from ._options import positive, whole

# What an engine compiles: (the job's index, the job: "builder", "path", "config", "target",
# "flags", as the compile process reads them from its JSON file).
Jobs = List[Tuple[int, Mapping[str, Any]]]
# Called with (job index, its outcome) as each compile finishes.
Done = Callable[[int, Outcome], None]
# Called with the number of compiles running, after each change.
Running = Callable[[int], None]


class Engine(Protocol):
    """Where a sweep's compiles run. `run` calls `start` once, when anything is to compile,
    before the checks before compiling (an engine that joins a cluster joins it there: an
    address that fails is said at once, not after the checks' minutes); then `compile` once
    with the jobs the checks left."""

    def start(self) -> None:
        """Readies the engine (a cluster joined); an error here ends the sweep before
        anything compiles."""
        ...

    def compile(self, jobs: Jobs, store: _cache.Store, timeout_s: float, done: Done,
                running: Running) -> None:
        """Compiles each of `jobs` (each in a process of its own: libtpu reads its flags once a
        process), for at most `timeout_s` seconds each; `done` gets each one's outcome as it
        finishes (its program, or a failure that says why in one line, `keep` where the same
        inputs would fail the same way; `peak_bytes`, where known, for
        ``Result.compile_peak_bytes``), `running` the number running after each change.
        Returns when every job is done; an exception (Ctrl-C's KeyboardInterrupt, SIGTERM's
        Ended) ends the compiles running and is raised again. `store`: where a compile may
        write its entry (`store.scratch()`, handed back as the outcome's `folder`)."""
        ...


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


def worker_env() -> Dict[str, str]:
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
# The job's file in a compile's scratch folder (removed once the compile is done).
JOB = "job.json"


def _job_file(job: Mapping[str, Any], folder: str) -> str:
    """`job` written to FOLDER/job.json: the compile's scratch folder, which it removes when its
    watched pipe closes."""
    path = os.path.join(folder, JOB)
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
        return Outcome.failed(f"timeout: the compile ran past {timeout_s:g} s")
    if returncode < 0:
        number = -returncode
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        if number == signal.SIGKILL:
            return Outcome.failed(f"killed for memory: {name}, most likely from the kernel's "
                                  f"out-of-memory killer")
        last = _error_line(stderr_path)
        return Outcome.failed(f"the compile died of {name}" + (f": {last}" if last else ""))
    if returncode == _compile.EXIT_TRANSIENT:
        said = _marked_line(stderr_path, _compile.TRANSIENT_MARK)
        if said:
            return Outcome.failed(f"the compile process failed: {said}")
    if returncode != 0:
        last = _error_line(stderr_path) or f"exit status {returncode}"
        return Outcome.failed(f"the compile process failed: {last}")
    try:
        return _cache.read_entry(folder)
    except _cache.BadEntry as error:
        return Outcome.failed(f"the compile left no program: {error}")


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


@dataclasses.dataclass(frozen=True)
class Local:
    """The compiles in worker processes here, `workers` at once (None: one compile runs first,
    its peak resident memory is measured, and the pool grows to as many as the cores and the
    available memory hold, a quarter spare); `compile_memory`, bytes one compile takes, sizes
    the pool instead of that measure. Each compile writes into a scratch folder of the store,
    renamed into its entry. A value it cannot use: ValueError, naming it."""
    workers: Optional[int] = None
    compile_memory: Optional[float] = None

    def __post_init__(self) -> None:
        if self.workers is not None and (not whole(self.workers) or self.workers < 1):
            raise ValueError(f"workers={self.workers!r}: a whole number of compiles at once, 1 "
                             f"or more")
        if self.compile_memory is not None and not positive(self.compile_memory):
            raise ValueError(f"compile_memory={self.compile_memory!r}: bytes, above 0")

    def start(self) -> None:
        """Nothing to ready: the pool starts with the compiles."""

    def compile(self, jobs: Jobs, store: _cache.Store, timeout_s: float, done: Done,
                running_changed: Running) -> None:
        """Engine.compile, here. A store that cannot be written raises _cache.StoreError."""
        workers = self.workers
        pending = collections.deque(jobs)
        running: Dict[int, _Running] = {}
        measured = self.compile_memory
        limit = workers or (pool_size(measured) if measured else 1)
        env = worker_env()
        watch_read, watch_write = os.pipe()  # the compiles' lifeline: closed when this ends
        try:
            while pending or running:
                while pending and len(running) < limit:
                    index, job = pending[0]
                    folder = store.scratch()
                    try:
                        stderr = open(os.path.join(folder, LOG), "w")
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
                        os.unlink(os.path.join(run.folder, JOB))
                    except OSError:
                        pass
                    peak = usage.ru_maxrss * 1024  # kilobytes on Linux
                    if workers is None and measured is None:
                        measured = peak
                        limit = pool_size(measured)
                    outcome = outcome_of(run.popen.returncode, run.folder,
                                         os.path.join(run.folder, LOG), run.timed_out,
                                         timeout_s)
                    outcome.folder = run.folder
                    outcome.peak_bytes = peak
                    running_changed(len(running))
                    done(run.index, outcome)
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
    """The end of the compile's log (its last LOG_BYTES bytes), or "" where none."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - LOG_BYTES))
            return f.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


def compile_here(job: Mapping[str, Any], timeout_s: float) -> Outcome:
    """One compile in a process of its own, waited for (a Ray task's body): its outcome with
    the program's text, its peak resident memory and the end of what it printed (kept in the
    store: the driver's terminal never sees it)."""
    folder = tempfile.mkdtemp(prefix="hloroof-sweep-")
    try:
        out = os.path.join(folder, "out")
        os.mkdir(out)
        stderr_path = os.path.join(folder, LOG)
        with open(stderr_path, "w") as stderr, \
                watched(COMPILE, [_job_file(job, folder), out], worker_env(),
                        stderr) as popen:
            returncode, peak, timed_out = wait_group(popen, timeout_s)
        outcome = outcome_of(returncode, out, stderr_path, timed_out, timeout_s)
        outcome.peak_bytes = peak
        outcome.log = _log_tail(stderr_path) or None
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
        raise ImportError("the Ray engine needs Ray: pip install 'hloroof[ray]' (or "
                          "ray)") from error
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


@dataclasses.dataclass(frozen=True)
class Ray:
    """The compiles as Ray tasks on the cluster at `address` (HOST:PORT, ray://HOST:PORT,
    "auto": the cluster of this machine, "local": a new Ray of this sweep's own; None: the Ray
    session this process has started, else Ray's own choice: RAY_ADDRESS, else a new local
    one), each task `cpus` CPUs and, where `compile_memory` (bytes) is given, that much of
    Ray's memory resource, so that Ray places no more compiles on a node than it holds.
    Outcomes stream back as tasks finish. A value it cannot use: ValueError, naming it."""
    address: Optional[str] = None
    cpus: float = 1
    compile_memory: Optional[float] = None

    def __post_init__(self) -> None:
        if self.address is not None and (not isinstance(self.address, str) or
                                         not self.address.strip()):
            raise ValueError(f"address={self.address!r}: a Ray address, HOST:PORT, "
                             f"ray://HOST:PORT or auto")
        if not positive(self.cpus):
            raise ValueError(f"cpus={self.cpus!r}: CPUs a compile, above 0")
        if self.compile_memory is not None and not positive(self.compile_memory):
            raise ValueError(f"compile_memory={self.compile_memory!r}: bytes, above 0")

    def start(self) -> None:
        """Joins the cluster (join_ray): an address that fails is ConnectionError, one line;
        no Ray, ImportError."""
        join_ray(self.address)

    def compile(self, jobs: Jobs, store: _cache.Store, timeout_s: float, done: Done,
                running_changed: Running) -> None:
        """Engine.compile as Ray tasks (compile_here on a node); the store is written here,
        from the outcomes sent back. Ctrl-C cancels the tasks not finished."""
        ray = join_ray(self.address)
        cpus = self.cpus
        options: Dict[str, Any] = {"num_cpus": cpus, "max_retries": 0}
        if self.compile_memory:
            options["memory"] = int(self.compile_memory)
        task = ray.remote(compile_here).options(**options)
        refs = {task.remote(dict(job), timeout_s): index for index, job in jobs}
        pending = list(refs)
        running_changed(min(len(pending), max(1, int(ray.available_resources().get("CPU",
                                                                                   1)))))
        try:
            while pending:
                ready, pending = ray.wait(pending, num_returns=1, timeout=1.0)
                for ref in ready:
                    try:
                        outcome = ray.get(ref)
                    except Exception as error:  # the task itself failed: Ray's own reason
                        outcome = Outcome.failed(
                            f"the Ray task failed: {type(error).__name__}: "
                            f"{str(error).strip().splitlines()[0][:200]}")
                    running_changed(min(len(pending), max(1, int(ray.cluster_resources().get(
                        "CPU", 1) // max(cpus, 1e-9)))))
                    done(refs[ref], outcome)
        except BaseException:
            for ref in pending:
                ray.cancel(ref, force=True)
            running_changed(0)
            raise
