#!/usr/bin/env python3
"""Rewrites the sample outputs in Markdown docs from the command as it is now.

    tools/regen_doc_outputs.py [--check] [--cli build/tools/hloroof]
        [--program NAME=PATH ...] docs/reports.md ...

A fenced block whose first line is `$ hloroof ARGS` (or `$ build/tools/hloroof ARGS`, as the
README's quick start runs it) is run as `CLI ARGS` from the repository root and the lines after
the command are replaced by what it prints; one whose first line is `$ NAME ARGS`, for a NAME
given by --program (the example passes: `--program fuse_elementwise=build/tests/fuse_elementwise`),
is run as `PATH ARGS`. A block that ends in a line `...` keeps its length: the output is cut to
as many lines, then `...`. With --check nothing is written; the exit status is 1 when a block
differs (a test runs it that way).
"""
import argparse
import pathlib
import shlex
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from output_file import write_output  # noqa: E402


def render(program: str, args: list[str]) -> list[str]:
    run = subprocess.run([program, *args], cwd=ROOT, capture_output=True, text=True,
                         errors="replace", check=False)
    return run.stdout.rstrip("\n").split("\n") if run.stdout else []


PROMPTS = ("$ hloroof ", "$ build/tools/hloroof ")


def command_args(line: str, programs: dict[str, str]):
    """The program and arguments a block's first line runs (the command's prompts give
    programs[""]), else None."""
    for prompt in PROMPTS:
        if line.startswith(prompt):
            return [programs[""], *shlex.split(line[len(prompt):])]
    for name, path in programs.items():
        if name and line.startswith(f"$ {name} "):
            return [path, *shlex.split(line[len(name) + 3:])]
    return None


def rewrite(text: str, programs: dict[str, str]) -> str:
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if not (line.startswith("```") and i < len(lines) and
                command_args(lines[i], programs) is not None):
            continue
        command = lines[i]
        end = i + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        body = lines[i + 1:end]
        out.append(command)
        if body:  # a block showing the command alone stays so
            program, *args = command_args(command, programs)
            fresh = render(program, args)
            if body[-1] == "...":
                fresh = fresh[:len(body) - 1] + ["..."]
            out.extend(fresh)
        i = end
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=pathlib.Path)
    parser.add_argument("--cli", default=str(ROOT / "build/tools/hloroof"))
    parser.add_argument("--program", action="append", default=[], metavar="NAME=PATH",
                        help="run blocks whose first line is `$ NAME ARGS` as PATH ARGS")
    parser.add_argument("--check", action="store_true")
    options = parser.parse_args()
    programs = {"": options.cli}
    for given in options.program:
        name, sep, path = given.partition("=")
        if not sep or not name or not path:
            parser.error(f"--program {given!r}: expected NAME=PATH")
        programs[name] = path
    stale = []
    for path in options.files:
        old = path.read_text()
        new = rewrite(old, programs)
        if new == old:
            continue
        stale.append(str(path))
        if not options.check:
            write_output(path, new)
    if stale:
        print(("out of date: " if options.check else "rewrote: ") + ", ".join(stale))
    return 1 if stale and options.check else 0


if __name__ == "__main__":
    sys.exit(main())
