"""What one compile gives (`Outcome`), and the files of its entry in the store.

A compile writes its entry's files into a folder (``python -m hloroof.sweep._compile``), the
store keeps that folder whole (_cache), and an engine hands the sweep an `Outcome`: the program
and its facts, or why there is none.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, Optional

# The files of an entry, named here alone: the optimized program, its facts (compile time, XLA's
# memory figures, the builder's model FLOPs and tokens, the program's SHA-256), or the reason it
# was rejected.
PROGRAM = "program.hlo"
FACTS = "compile.json"
FAILURE = "failure.json"
# What the compile process printed (the TPU compiler's log lines), kept beside its program.
LOG = "stderr.txt"
# The most of it a compile sent back as data keeps (its end: where the reason is).
LOG_BYTES = 1 << 20


@dataclasses.dataclass
class Outcome:
    """What one compile gave: its program (`text`, HLO; `facts`, compile.json's figures) or
    why there is none (`failure`, one line; `keep`: the same inputs fail the same way, so the
    store keeps it). An engine sets what it knows besides: `folder` (where the compile wrote
    its entry, stored by renaming it), `log` (the end of what the compile printed, stored
    beside its program) and `peak_bytes` (the compile process's peak resident memory)."""
    text: Optional[str] = None
    facts: Optional[Dict[str, Any]] = None
    failure: Optional[str] = None
    keep: bool = True
    folder: Optional[str] = None
    log: Optional[str] = None
    peak_bytes: Optional[int] = None

    def __post_init__(self) -> None:
        if (self.failure is None) == (self.text is None or self.facts is None):
            raise ValueError("an Outcome holds a program (text and facts) or a failure, one of "
                             "them")

    @classmethod
    def failed(cls, reason: str, keep: bool = False) -> "Outcome":
        """A compile that left no program: `reason`, one line; `keep`: store it."""
        return cls(failure=reason, keep=keep)
