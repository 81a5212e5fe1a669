"""The content-addressed store of compiled programs.

An entry is a folder named by the SHA-256 of everything that decides the compiled program: the
configuration, the builder's name and its module's source, the target, the XLA flags, the
versions of jax, jaxlib and libtpu, and the source of the code that compiles it. It holds
``program.hlo`` and ``compile.json``, or ``failure.json`` (a configuration the builder or the
compiler rejects: the same inputs are rejected again). Entries are written whole (into a
temporary folder, then renamed) so that an interrupted compile leaves none behind. An entry that
cannot be read as written (a file cut short, JSON of another shape, anything but a regular file)
is no entry: the sweep compiles it again and replaces it.
"""

from __future__ import annotations

import errno
import hashlib
import importlib.metadata
import importlib.util
import json
import numbers
import os
import secrets
import shutil
import stat
import tempfile
from typing import Any, Dict, List, Mapping, Optional, Tuple

from . import _compile
from ._entry import FACTS, FAILURE, LOG, PROGRAM, Outcome


def default_dir() -> str:
    """$HLOROOF_SWEEP_CACHE, else $XDG_CACHE_HOME/hloroof/sweep (~/.cache/hloroof/sweep)."""
    given = os.environ.get("HLOROOF_SWEEP_CACHE")
    if given:
        return given
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "hloroof", "sweep")


def versions() -> Dict[str, str]:
    """The installed versions of what compiles the programs ("none" where not installed)."""
    found = {}
    for name in ("jax", "jaxlib", "libtpu"):
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = "none"
    return found


def _file_digest(path: Optional[str]) -> str:
    if not path or not os.path.isfile(path):
        return "none"
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def builder_source_digest(builder: str, path: Any = ()) -> str:
    """The SHA-256 of the source of the builder's module, found without importing it (`path`:
    folders searched first, as the worker puts them on sys.path)."""
    import sys
    module_name = builder.partition(":")[0]
    added = [p for p in path if p not in sys.path]
    sys.path[:0] = added
    try:
        spec = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):
        spec = None
    except Exception as error:  # a package of the module's that fails on import
        raise ValueError(f"builder {builder!r}: importing the package of {module_name!r} "
                         f"failed: {_compile.one_line(error)}") from None
    finally:
        for p in added:
            sys.path.remove(p)
    if spec is None or not spec.origin:
        raise ValueError(f"builder {builder!r}: module {module_name!r} not found (give its "
                         f"folder in path=)")
    return _file_digest(spec.origin)


def _compiler_digest() -> str:
    """The source of the code that compiles a configuration (hloroof.jax and the worker)."""
    here = os.path.dirname(os.path.abspath(__file__))
    parts = [_file_digest(os.path.join(os.path.dirname(here), "jax.py")),
             _file_digest(_compile.__file__)]
    return hashlib.sha256("".join(parts).encode()).hexdigest()


def key(config: Mapping[str, Any], builder: str, source_digest: str, target: str, flags: str,
        found_versions: Mapping[str, str]) -> str:
    """The entry's name: SHA-256 over the canonical JSON of what decides the program."""
    what = {"config": config, "builder": builder, "builder_source": source_digest,
            "target": target, "flags": " ".join(flags.split()), "versions": dict(found_versions),
            "compiler": _compiler_digest()}
    text = json.dumps(what, sort_keys=True, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


class BadEntry(ValueError):
    """An entry (or a compile's output folder) that cannot be read as written: why, one line."""


class StoreError(OSError):
    """The store cannot be written (read-only, a full disk, not a folder): one line."""


def _read_regular(path: str) -> bytes:
    """The bytes of `path`, refused (BadEntry) unless it is a regular file: opened without
    blocking, so that a named pipe in its place cannot hang the sweep."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise BadEntry(f"{os.path.basename(path)} is missing") from None
    except OSError as error:
        raise BadEntry(f"{os.path.basename(path)}: {error.strerror or error}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise BadEntry(f"{os.path.basename(path)} is not a regular file")
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as error:
        raise BadEntry(f"{os.path.basename(path)}: {error.strerror or error}") from None
    finally:
        os.close(fd)


def _read_json(path: str) -> Any:
    data = _read_regular(path)
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        raise BadEntry(f"{os.path.basename(path)} is not JSON") from None


def _number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _check_facts(facts: Any) -> Dict[str, Any]:
    """compile.json as the worker writes it, else BadEntry."""
    if not isinstance(facts, dict):
        raise BadEntry(f"{FACTS} is not a JSON object")
    for name in ("chips", "devices"):
        if not isinstance(facts.get(name), int) or isinstance(facts.get(name), bool) or \
                facts[name] < 1:
            raise BadEntry(f"{FACTS}: {name!r} is not a whole number of 1 or more")
    if not _number(facts.get("compile_s")) or not facts["compile_s"] >= 0:
        raise BadEntry(f"{FACTS}: 'compile_s' is not a number of seconds")
    xla = facts.get("xla_memory")
    if not isinstance(xla, dict) or not all(isinstance(k, str) and isinstance(v, int)
                                            for k, v in xla.items()):
        raise BadEntry(f"{FACTS}: 'xla_memory' is not an object of byte counts")
    for name in ("model_flops", "tokens"):
        if facts.get(name) is not None and not _number(facts[name]):
            raise BadEntry(f"{FACTS}: {name!r} is not a number")
    if not isinstance(facts.get("program_sha256"), str):
        raise BadEntry(f"{FACTS}: no 'program_sha256'")
    return facts


def read_entry(folder: str) -> Outcome:
    """What a compile wrote into `folder`, checked: its program and facts (the program whole, as
    its SHA-256 in compile.json says) or its failure, kept (failure.json's reason, a string);
    BadEntry, saying why, for anything else."""
    failure = os.path.join(folder, FAILURE)
    if os.path.lexists(failure):
        data = _read_json(failure)
        if not isinstance(data, dict) or not isinstance(data.get("reason"), str) or \
                not data["reason"]:
            raise BadEntry(f"{FAILURE} holds no reason (a string)")
        return Outcome(failure=data["reason"], keep=True)
    facts = _check_facts(_read_json(os.path.join(folder, FACTS)))
    data = _read_regular(os.path.join(folder, PROGRAM))
    if hashlib.sha256(data).hexdigest() != facts["program_sha256"]:
        raise BadEntry(f"{PROGRAM} is not the program compiled ({len(data)} bytes, cut short "
                       f"or changed)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise BadEntry(f"{PROGRAM} is not UTF-8 text") from None
    return Outcome(text=text, facts=facts)


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            os.unlink(path)
        except OSError:
            pass


class Store:
    """The entries under `root`. ``problems``: (entry, why) of each entry that get() found
    unreadable (a cache miss: the sweep compiles it again and put_folder replaces it)."""

    def __init__(self, root: Optional[str] = None) -> None:
        self.root = os.path.abspath(root or default_dir())
        self.problems: List[Tuple[str, str]] = []

    def path(self, entry: str) -> str:
        return os.path.join(self.root, entry[:2], entry)

    def get(self, entry: str) -> Optional[Outcome]:
        """The entry: its program or its failure; None when not stored, or when it cannot be
        read as written (then noted in ``problems``)."""
        folder = self.path(entry)
        if not os.path.lexists(folder):
            return None
        try:
            return read_entry(folder)
        except BadEntry as error:
            self.problems.append((entry, str(error)))
            return None

    def _error(self, error: OSError) -> StoreError:
        full = error.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT)
        return StoreError(f"cannot write the store {self.root!r}: {error.strerror or error}; "
                          f"{'free space there, or ' if full else ''}give another store "
                          f"(cache=, --cache)")

    def scratch(self) -> str:
        """A new folder on the store's file system for one compile to write into."""
        try:
            os.makedirs(self.root, exist_ok=True)
            return tempfile.mkdtemp(prefix="tmp-", dir=self.root)
        except OSError as error:
            raise self._error(error) from None

    def check_writable(self) -> None:
        """StoreError, in one line, unless a folder and a file can be written in the store."""
        folder = self.scratch()
        try:
            with open(os.path.join(folder, "probe"), "wb") as f:
                f.write(b"hloroof sweep store\n" * 16)
        except OSError as error:
            raise self._error(error) from None
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def put_folder(self, entry: str, folder: str) -> None:
        """Stores what a compile wrote into `folder` (from scratch()) as `entry`, whole,
        replacing an entry there (one that could not be read)."""
        final = self.path(entry)
        try:
            os.makedirs(os.path.dirname(final), exist_ok=True)
            if os.path.lexists(final):
                aside = os.path.join(self.root, f"tmp-old-{os.getpid()}-{secrets.token_hex(4)}")
                try:
                    os.rename(final, aside)
                except FileNotFoundError:  # another sweep moved it first
                    pass
                else:
                    _remove(aside)
            os.rename(folder, final)
        except OSError as error:
            shutil.rmtree(folder, ignore_errors=True)
            if os.path.isdir(final):  # another sweep stored it first: the same program
                return
            raise self._error(error) from None

    def put(self, entry: str, outcome: Outcome) -> None:
        """Stores a compile's outcome sent back as data (its program or its failure, with the
        compile's log where it has one)."""
        folder = self.scratch()
        try:
            if outcome.log:
                with open(os.path.join(folder, LOG), "w") as f:
                    f.write(outcome.log)
            if outcome.failure is not None:
                with open(os.path.join(folder, FAILURE), "w") as f:
                    json.dump({"reason": outcome.failure}, f)
            else:
                data = outcome.text.encode("utf-8")
                facts = dict(outcome.facts)
                facts.setdefault("program_sha256", hashlib.sha256(data).hexdigest())
                with open(os.path.join(folder, PROGRAM), "wb") as f:
                    f.write(data)
                with open(os.path.join(folder, FACTS), "w") as f:
                    json.dump(facts, f)
        except OSError as error:
            shutil.rmtree(folder, ignore_errors=True)
            raise self._error(error) from None
        self.put_folder(entry, folder)
