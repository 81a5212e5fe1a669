#!/usr/bin/env python3
"""Runs two builds of the CLI over every corpus module and compares their JSON byte for byte.

    tools/diff_outputs.py OLD_CLI NEW_CLI [--corpus DIR] [--commands memory,predict,...] [-j N]
                          [--extra "--device h100"] [--text | --trace | --xspace]

For each `*.hlo` under DIR (default: ../shared/corpus beside the repository) and each command
(default: memory, predict, cost, advise), runs `CLI COMMAND MODULE --json` (and the --extra
arguments) with both binaries and compares standard output and exit status; with --text, the
text output (no --json); with --trace, `predict MODULE --trace T.json --roofline R.svg`: its
text output and both files; with --xspace, `predict MODULE --xspace DIR`: its text output and
the XSpace, decoded by `protoc --decode_raw` with the clock's times (integers of 10^17 and more:
nanoseconds since 1970) masked, as each run writes its own. Prints one line per
differing output (at most --show of them), then the number of outputs compared and of those
that differ; the exit status is 1 when any differs. A change meant to be faster only must
leave this count at 0.
"""
import argparse
import concurrent.futures
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent


# The files a run writes besides its standard output (--trace): their names, by option.
FILES = {"--trace": "trace.json", "--roofline": "roofline.svg"}


def decoded_xspace(folder: pathlib.Path) -> bytes | None:
    """The XSpace written under `folder`, decoded, its clock's times masked; None: none."""
    written = sorted(folder.rglob("*.xplane.pb"))
    if not written:
        return None
    with written[0].open("rb") as bytes_in:
        text = subprocess.run(["protoc", "--decode_raw"], stdin=bytes_in, capture_output=True,
                              check=False).stdout
    return re.sub(rb": [0-9]{18,}\n", b": TIME\n", text)


def run(cli: str, command: str, module: pathlib.Path, timeout: float,
        extra: list[str], files: str) -> tuple:
    with tempfile.TemporaryDirectory() as folder:
        written = [arg for option, name in FILES.items() if files == "trace"
                   for arg in (option, str(pathlib.Path(folder) / name))]
        if files == "xspace":
            written = ["--xspace", str(pathlib.Path(folder) / "logs")]
        try:
            done = subprocess.run([cli, command, str(module), *extra, *written],
                                  capture_output=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return -1, b"timed out"
        if files == "xspace":
            # The text names the folder, which differs from run to run.
            out = done.stdout.replace(folder.encode(), b"DIR")
            return done.returncode, out, decoded_xspace(pathlib.Path(folder))
        contents = []
        for name in FILES.values() if files == "trace" else []:
            path = pathlib.Path(folder) / name
            contents.append(path.read_bytes() if path.exists() else None)
        return done.returncode, done.stdout, *contents


def compare(old: str, new: str, command: str, module: pathlib.Path, timeout: float,
            extra: list[str], files: str) -> str | None:
    a = run(old, command, module, timeout, extra, files)
    b = run(new, command, module, timeout, extra, files)
    if a == b:
        return None
    if a[0] != b[0]:
        return f"{command} {module}: exit status {a[0]} -> {b[0]}"
    names = ["output", *(["xspace"] if files == "xspace" else FILES.values())]
    which = [f"{names[k - 1]} ({len(a[k] or b'')} -> {len(b[k] or b'')} bytes)"
             for k in range(1, len(a)) if a[k] != b[k]]
    return f"{command} {module}: {', '.join(which)} differ"


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
    parser.add_argument("--trace", action="store_true",
                        help="compare predict's text, --trace and --roofline files")
    parser.add_argument("--xspace", action="store_true",
                        help="compare predict's text and its --xspace file, decoded")
    args = parser.parse_args()
    if args.trace or args.xspace:
        args.commands, args.text = "predict", True
    files = "trace" if args.trace else "xspace" if args.xspace else ""
    extra = ([] if args.text else ["--json"]) + args.extra.split()

    modules = sorted(pathlib.Path(args.corpus).rglob("*.hlo"))
    commands = [c for c in args.commands.split(",") if c]
    jobs = [(c, m) for m in modules for c in commands]
    differing = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(compare, args.old, args.new, c, m, args.timeout, extra, files)
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
