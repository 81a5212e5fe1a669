#!/usr/bin/env python3
"""Writes bench/RESULTS.md: the speed benchmarks' current output, each under its command.

    python3 bench/results.py [--build build] [--out bench/RESULTS.md] [--runs 3]

Runs, in turn: `parse_command_bench` (hloroof parse as a whole command and in process, on the
three largest modules of the shared corpus), `predict_bench` (predict the largest, parse
included), `bench/command_speed.py` (every command as a user waits for it, beside parse) and,
where the tests' environment (tools/venv.sh) and the Python module are built,
`bench/python_predict_bench.py` (what the Python module adds to a prediction).
Each benchmark's output goes into the file verbatim, under the command that printed it, with
the date and the machine; nothing is written by hand. Timings on a virtual machine vary by
20-40% from one run to the next: docs/speed.md says how to read them, and the targets.
"""
import argparse
import datetime
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def machine():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f
                          if line.startswith("model name")), "")
    except OSError:
        pass
    return f"{os.cpu_count()} cores{', ' + model if model else ''}, {platform.system()} " \
           f"{platform.release()}"


def run(command):
    r = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({r.returncode}):\n{r.stderr[-2000:]}")
    return r.stdout.rstrip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS.md"))
    ap.add_argument("--runs", type=int, default=3, help="command_speed.py's runs per command")
    args = ap.parse_args()
    benches = [
        ("`hloroof parse` as a whole command and in process",
         [os.path.join(args.build, "bench", "parse_command_bench")]),
        ("predict the largest corpus module, parse included",
         [os.path.join(args.build, "bench", "predict_bench")]),
        ("every command as a user waits for it, beside `parse`",
         [sys.executable, "bench/command_speed.py", "--cli",
          os.path.join(args.build, "tools", "hloroof"), "--runs", str(args.runs)]),
    ]
    venv_python = os.path.join(ROOT, ".venv", "bin", "python")
    module = os.path.join(ROOT, args.build, "python", "hloroof")
    if os.path.exists(venv_python) and os.path.isdir(module):
        benches.append(("what the Python module adds to a prediction",
                        ["env", f"PYTHONPATH={args.build}/python", "JAX_PLATFORMS=cpu",
                         ".venv/bin/python", "bench/python_predict_bench.py"]))
    parts = [
        "# Speed: the benchmarks' current output",
        "",
        f"Written by `python3 bench/results.py` on {datetime.date.today().isoformat()}, on "
        f"{machine()}. Each section is one benchmark's output, verbatim, under its command; "
        "docs/speed.md gives the targets and how to read the figures.",
    ]
    for title, command in benches:
        print(f"running {' '.join(command)}", file=sys.stderr)
        shown = " ".join("python3" if c == sys.executable else c for c in command)
        parts += ["", f"## {title}", "", "```sh", shown, "```", "", "```", run(command), "```"]
    with open(args.out, "w") as f:
        f.write("\n".join(parts) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
