"""How a sweep compiles its configurations (`Compile`), and the checks of the options' values
that the engines share."""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Iterable, Sequence, Union


def whole(value: Any) -> bool:
    """A whole number (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)


def positive(value: Any) -> bool:
    """A number above 0 and finite (not a bool, not NaN)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and
            0 < value < float("inf"))


@dataclasses.dataclass(frozen=True)
class Compile:
    """How each configuration is compiled, whatever the engine: `flags` (XLA flags,
    LIBTPU_INIT_ARGS, for every configuration; a configuration's ``flags`` key adds its own),
    `path` (folders the compiles put first on sys.path, where the builder's module is),
    `timeout_s` (seconds one compile may take), `cache` (the store of compiled programs: its
    folder; None: the default, docs/sweep.md; False: a temporary one, removed at the end) and
    `precheck` (the checks before compiling: a configuration that cannot shard or fit is
    refused without a compile). A value of a type or range it cannot use: ValueError, naming
    it."""
    flags: str = ""
    path: Sequence[str] = ()
    timeout_s: float = 3600
    cache: Union[str, os.PathLike, bool, None] = None
    precheck: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.flags, str):
            raise ValueError(f"flags={self.flags!r}: one string of XLA flags")
        path = self.path
        if not isinstance(path, (str, bytes)) and isinstance(path, Iterable):
            path = tuple(path)
        if not isinstance(path, tuple) or not all(isinstance(p, (str, os.PathLike))
                                                  for p in path):
            raise ValueError(f"path={self.path!r}: a list of folders, ['.']")
        if not positive(self.timeout_s):
            raise ValueError(f"timeout_s={self.timeout_s!r}: seconds one compile may take, "
                             f"above 0")
        if not isinstance(self.cache, (str, os.PathLike, bool, type(None))):
            raise ValueError(f"cache={self.cache!r}: the store's folder, None (the default) or "
                             f"False (a temporary one)")
        object.__setattr__(self, "path", path)
