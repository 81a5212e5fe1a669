#!/usr/bin/env python3
"""Rewrites the tests' `REQUIRE(x.ok());` lines as `REQUIRE_OK(x);` (tests/require_ok.h).

    tools/require_ok.py [--check] [PATH ...]      (default: tests/)

A line whose whole statement is `REQUIRE(EXPR.ok());` (a trailing // comment kept) becomes
`REQUIRE_OK(EXPR);`; REQUIRE(!EXPR.ok()), conditions of several terms and statements over
several lines stay as they are. A file it changes gains `#include "require_ok.h"` after its
last include. Folders named by --skip are left alone (without --skip: tests/predict and
tests/python, which are being edited elsewhere; --all: none). With --check nothing is written;
the exit status is 1 when a line would change.
"""
import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LINE = re.compile(r"^(\s*)REQUIRE\((.+)\.ok\(\)\);(\s*//.*)?$")
INCLUDE = re.compile(r'^#include [<"]')


def balanced(expr: str) -> bool:
    """EXPR's parentheses close where they open, so that `.ok()` ends the whole of it."""
    depth = 0
    for c in expr:
        depth += c == "("
        depth -= c == ")"
        if depth < 0:
            return False
    return depth == 0


def convert(text: str) -> tuple[str, int]:
    lines = text.split("\n")
    changed = 0
    for k, line in enumerate(lines):
        m = LINE.match(line)
        if not m:
            continue
        indent, expr, comment = m.group(1), m.group(2), m.group(3) or ""
        if expr.lstrip().startswith("!") or "&&" in expr or "||" in expr or not balanced(expr):
            continue
        lines[k] = f"{indent}REQUIRE_OK({expr});{comment}"
        changed += 1
    if changed and '#include "require_ok.h"' not in text:
        last = max(k for k, line in enumerate(lines) if INCLUDE.match(line))
        lines.insert(last + 1, '#include "require_ok.h"')
    return "\n".join(lines), changed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="*", type=pathlib.Path, default=[ROOT / "tests"])
    parser.add_argument("--skip", action="append", metavar="FOLDER")
    parser.add_argument("--all", action="store_true", help="skip no folder")
    parser.add_argument("--check", action="store_true")
    options = parser.parse_args()
    if options.skip is None:
        options.skip = [] if options.all else ["tests/predict", "tests/python"]
    skip = [(ROOT / s).resolve() for s in options.skip]
    files = []
    for path in options.paths:
        files += sorted(path.rglob("*.cc")) + sorted(path.rglob("*.h")) if path.is_dir() else [path]
    total = 0
    for path in files:
        if any(path.resolve().is_relative_to(s) for s in skip) or path.name == "require_ok.h":
            continue
        old = path.read_text()
        new, changed = convert(old)
        if not changed:
            continue
        total += changed
        print(f"{path}: {changed}")
        if not options.check:
            path.write_text(new)
    print(f"{total} lines", "to convert" if options.check else "converted")
    return 1 if total and options.check else 0


if __name__ == "__main__":
    sys.exit(main())
