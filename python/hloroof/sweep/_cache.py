"""The content-addressed store of compiled programs.

An entry is a folder named by the SHA-256 of everything that decides the compiled program: the
configuration, the builder's name and its module's source, the target, the XLA flags, the
versions of jax, jaxlib and libtpu, and the source of the code that compiles it. It holds
``program.hlo`` and ``compile.json``, or ``failure.json`` (a configuration the builder or the
compiler rejects: the same inputs are rejected again). Entries are written whole (into a
temporary folder, then renamed) so that an interrupted compile leaves none behind.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import tempfile
from typing import Any, Dict, Mapping, Optional

from . import _compile

PROGRAM = "program.hlo"
FACTS = "compile.json"
FAILURE = "failure.json"


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


class Store:
    """The entries under `root`."""

    def __init__(self, root: Optional[str] = None) -> None:
        self.root = os.path.abspath(root or default_dir())

    def path(self, entry: str) -> str:
        return os.path.join(self.root, entry[:2], entry)

    def get(self, entry: str) -> Optional[Dict[str, Any]]:
        """The entry: {"text", "facts"} or {"failure"}; None when not stored."""
        folder = self.path(entry)
        try:
            if os.path.exists(os.path.join(folder, FAILURE)):
                with open(os.path.join(folder, FAILURE)) as f:
                    return {"failure": json.load(f)["reason"]}
            with open(os.path.join(folder, FACTS)) as f:
                facts = json.load(f)
            with open(os.path.join(folder, PROGRAM)) as f:
                return {"text": f.read(), "facts": facts}
        except (OSError, ValueError, KeyError):
            return None

    def scratch(self) -> str:
        """A new folder on the store's file system for one compile to write into."""
        os.makedirs(self.root, exist_ok=True)
        return tempfile.mkdtemp(prefix="tmp-", dir=self.root)

    def put_folder(self, entry: str, folder: str) -> None:
        """Stores what a compile wrote into `folder` (from scratch()) as `entry`, whole."""
        final = self.path(entry)
        os.makedirs(os.path.dirname(final), exist_ok=True)
        if os.path.exists(final):
            shutil.rmtree(final, ignore_errors=True)
        try:
            os.rename(folder, final)
        except OSError:  # another sweep stored it first: theirs is the same program
            shutil.rmtree(folder, ignore_errors=True)

    def put(self, entry: str, outcome: Mapping[str, Any]) -> None:
        """Stores a compile's outcome sent back as data ({"text", "facts"} or {"failure"})."""
        folder = self.scratch()
        if "failure" in outcome:
            with open(os.path.join(folder, FAILURE), "w") as f:
                json.dump({"reason": outcome["failure"]}, f)
        else:
            with open(os.path.join(folder, PROGRAM), "w") as f:
                f.write(outcome["text"])
            with open(os.path.join(folder, FACTS), "w") as f:
                json.dump(outcome["facts"], f)
        self.put_folder(entry, folder)
