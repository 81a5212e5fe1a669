#!/usr/bin/env python3
"""Runs two builds of the CLI over every corpus module and compares their JSON byte for byte.

    tools/diff_outputs.py OLD_CLI NEW_CLI [--corpus DIR] [--commands memory,predict,...] [-j N]
                          [--extra "--device h100"] [--text]

For each `*.hlo` under DIR (default: ../shared/corpus beside the repository) and each command
(default: memory, predict, cost, advise), runs `CLI COMMAND MODULE --json` (and the --extra
arguments) with both binaries and compares standard output and exit status; with --text, the
text output (no --json). Prints one line per
differing output (at most --show of them), then the number of outputs compared and of those
that differ; the exit status is 1 when any differs. A change meant to be faster only must
leave this count at 0.
"""
import argparse
import concurrent.futures
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def run(cli: str, command: str, module: pathlib.Path, timeout: float,
        extra: list[str]) -> tuple[int, bytes]:
    try:
        done = subprocess.run([cli, command, str(module), *extra], capture_output=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return -1, b"timed out"
    return done.returncode, done.stdout


def compare(old: str, new: str, command: str, module: pathlib.Path, timeout: float,
            extra: list[str]) -> str | None:
    a = run(old, command, module, timeout, extra)
    b = run(new, command, module, timeout, extra)
    if a == b:
        return None
    if a[0] != b[0]:
        return f"{command} {module}: exit status {a[0]} -> {b[0]}"
    return f"{command} {module}: output differs ({len(a[1])} -> {len(b[1])} bytes)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--commands", default="memory,predict,cost,advise")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--show", type=int, default=50, help="differences listed at most")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per run")
    parser.add_argument("--extra", default="", help="more arguments for every run")
    parser.add_argument("--text", action="store_true", help="compare text, not --json")
    args = parser.parse_args()
    extra = ([] if args.text else ["--json"]) + args.extra.split()

    modules = sorted(pathlib.Path(args.corpus).rglob("*.hlo"))
    commands = [c for c in args.commands.split(",") if c]
    jobs = [(c, m) for m in modules for c in commands]
    differing = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(compare, args.old, args.new, c, m, args.timeout, extra)
                   for c, m in jobs]
        for future in futures:
            line = future.result()
            if line is None:
                continue
            differing += 1
            if differing <= args.show:
                print(line)
    print(f"{len(jobs)} outputs compared ({len(modules)} modules x {len(commands)} commands), "
          f"{differing} differ")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
