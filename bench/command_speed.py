#!/usr/bin/env python3
"""Every command as a user waits for it, beside `parse` of the same module.

    bench/command_speed.py [--cli build/tools/hloroof] [--baseline OLD_CLI] [--runs 3]
                           [--measure wall|cpu|user|instructions] [FILE...]
    bench/command_speed.py --scaling [--smallest N] [--largest N] [--shapes chain,live,...]
                           [--measure ...] [--cli ...]

Without --scaling: for each FILE (default: the three largest modules of the shared corpus),
runs each command as a whole process (start, read, parse, analyse, write, exit) --runs times
and prints the median wall time in ms, that time over `parse`'s (x parse), and the peak
resident memory over the input's size (B/B, from wait4, of the command alone when
bench/run_measured is built: see RUN_MEASURED); --baseline runs another build in turn and
prints its figures first. Targets: every command within 5x of parse, `predict --trace
--roofline` within 10x, at most 10 B/B. `diff (itself)` diffs the module with itself: two
modules read, predicted and held, so twice the work of one module's command and its 10x parse
is one module's 5x.

--measure picks what is timed: `wall` (the default), `cpu` (user and system CPU seconds, from
wait4: what the command ran, not what it waited for a core; --cpu says the same), `user` (user
CPU seconds alone: without the kernel's work for the command, most of it zeroing the pages it
hands out, which on a virtual machine moves by a second from one run of a 1M-instruction module
to the next), or `instructions` (millions of instructions executed, every thread's, counted by
`valgrind --tool=cachegrind --cache-sim=no`: the work itself, the same on any x86-64 machine
and from one run to the next, so one run is enough; about 50 times slower; no peak memory).

With --scaling: generated modules whose size doubles, each shape stressing one thing (many
small outputs; a long chain of temporaries with a few live at a time; temporaries of growing
lifetimes, so that the number live at the peak doubles too; one parameter of many scalar
leaves; gen_hlo's transformer layers, with collectives); for each size prints instructions,
the figure of each command and the ratio to the previous size's (at most 2.0 per doubling is
linear). Sizes double from --smallest (default 16384) up to --largest instructions (default
1048576). Then, in a module of 131072 instructions, the temporaries live at the peak double,
and the all-reduces of a chain. The machine's other load moves wall times: compare runs made
in the same minutes (a machine shared with builds makes wall ratios of 1.3-8x of one doubling).
"""
import argparse
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEVICES = "tpu_v5e:2x2,tpu_v5p:2x2x1,h100:1x4"
# For a module of more than the 4 devices above: each device's smallest slice that holds it.
DEVICES_ANY_COUNT = "tpu_v5e,tpu_v5p,h100"


def device_count(module: pathlib.Path) -> int:
    """Devices the module's header names (num_partitions x replica_count; 1 if unsaid)."""
    with open(module, "rb") as f:
        head = f.readline().decode(errors="replace")
    count = 1
    for key in ("num_partitions=", "replica_count="):
        if key in head:
            digits = head.split(key, 1)[1].split(",")[0].split()[0]
            count *= int(digits) if digits.isdigit() else 1
    return count


def commands(out: pathlib.Path,
             module: pathlib.Path | None = None) -> list[tuple[str, list[str]]]:
    devices = DEVICES if module is None or device_count(module) <= 4 else DEVICES_ANY_COUNT
    return [
        ("parse", ["parse"]),
        ("cost", ["cost"]),
        ("cost --json", ["cost", "--json"]),
        ("memory", ["memory"]),
        ("memory --json", ["memory", "--json"]),
        ("predict", ["predict"]),
        ("predict --json", ["predict", "--json"]),
        ("predict --csv", ["predict", "--csv"]),
        ("predict --trace --roofline",
         ["predict", "--trace", str(out / "t.json"), "--roofline", str(out / "r.svg")]),
        ("predict --xspace", ["predict", "--xspace", str(out / "xspace")]),
        ("advise", ["advise"]),
        ("advise --json", ["advise", "--json"]),
        ("compare (3 devices)", ["compare", "--devices", devices]),
        ("compare --json", ["compare", "--devices", devices, "--json"]),
        ("compare --csv", ["compare", "--devices", devices, "--csv"]),
        ("diff (itself)", ["diff", str(module)] if module else ["diff"]),
        ("diff --json", ["diff", str(module), "--json"] if module else ["diff"]),
    ]


def find_built(cli: str, name: str) -> pathlib.Path:
    """A program of bench/: from the CLI's build tree, else from this checkout's build/."""
    built = pathlib.Path(cli).resolve().parent.parent / "bench" / name
    return built if built.exists() else ROOT / "build" / "bench" / name


# bench/run_measured.cc, when built: it runs each command, so that the peak resident memory
# is the command's own (a child forked from Python starts as large as the interpreter, and
# wait4 counts that memory too: tens of MB, more than `parse` holds).
RUN_MEASURED: pathlib.Path | None = None


MEASURES = ("wall", "cpu", "user", "instructions")
# Each measure's unit in the tables, which print seconds (instructions: billions) x 1000.
UNITS = {"wall": "ms", "cpu": "CPU ms", "user": "user ms", "instructions": "M instr"}


def count_instructions(command: list[str]) -> tuple[float, int]:
    """Billions of instructions the command executes (cachegrind's `I refs`, every thread's)
    and its exit status."""
    done = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                           "--cachegrind-out-file=/dev/null", *command],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    refs = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if refs is None:
        sys.exit(f"no instruction count from valgrind for {' '.join(command)}:\n"
                 f"{done.stderr[-2000:]}")
    return int(refs.group(1).replace(",", "")) / 1e9, done.returncode


def run_once(cli: str, args: list[str], module: pathlib.Path,
             what: str = "wall") -> tuple[float, int, int]:
    """The measure (wall, CPU or user seconds; billions of instructions), peak resident bytes
    (0 for instructions) and exit status of one whole command."""
    command = [cli, args[0], str(module), *args[1:]]
    if what == "instructions":
        count, status = count_instructions(command)
        return count, 0, status
    if RUN_MEASURED is not None:
        done = subprocess.run([str(RUN_MEASURED), *command], capture_output=True, text=True,
                              check=True)
        wall, cpu_s, rss, status, user_s = done.stdout.split()
        seconds = {"wall": wall, "cpu": cpu_s, "user": user_s}[what]
        return float(seconds), int(rss), int(status)
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    seconds = {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
               "user": usage.ru_utime}[what]
    return seconds, usage.ru_maxrss * 1024, child.returncode


def measure(cli: str, args: list[str], module: pathlib.Path, runs: int,
            what: str = "wall") -> tuple[float, int, int]:
    results = [run_once(cli, args, module, what) for _ in range(runs)]
    return (statistics.median(r[0] for r in results), max(r[1] for r in results),
            max(r[2] for r in results))


def largest_corpus_modules(count: int) -> list[pathlib.Path]:
    corpus = pathlib.Path(os.environ.get("HLOROOF_CORPUS", ROOT.parent / "shared" / "corpus"))
    modules = sorted(corpus.rglob("*.hlo"), key=lambda p: p.stat().st_size, reverse=True)
    return modules[:count]


def table(cli: str, modules: list[pathlib.Path], runs: int, what: str = "wall",
          baseline: str | None = None) -> None:
    """With `baseline`, each command runs with both builds in turn (a machine's load moves
    both alike) and the baseline's figures are printed before this build's."""
    unit = UNITS[what]
    with tempfile.TemporaryDirectory() as tmp:
        for module in modules:
            size = module.stat().st_size
            print(f"{module.name} ({size / 1e6:.1f} MB)")
            if baseline:
                print(f"  {'command':<28} {'before ' + unit:>13} {unit:>8} {'x parse':>8} "
                      f"{'B/B before':>11} {'B/B':>6}")
            else:
                print(f"  {'command':<28} {unit:>8} {'x parse':>8} {'B/B':>6}")
            parse_s = None
            for name, args in commands(pathlib.Path(tmp), module):
                if baseline:
                    runs_of = [(run_once(baseline, args, module, what),
                                run_once(cli, args, module, what)) for _ in range(runs)]
                    old = (statistics.median(r[0][0] for r in runs_of),
                           max(r[0][1] for r in runs_of), max(r[0][2] for r in runs_of))
                    new = (statistics.median(r[1][0] for r in runs_of),
                           max(r[1][1] for r in runs_of), max(r[1][2] for r in runs_of))
                else:
                    old, new = None, measure(cli, args, module, runs, what)
                seconds, rss, status = new
                parse_s = parse_s or seconds
                note = "" if status == 0 else f"  (exit status {status})"
                before = "" if old is None else f" {old[0] * 1e3:13.1f}"
                rss_before = "" if old is None else f" {per_input_byte(old[1], size):>11}"
                print(f"  {name:<28}{before} {seconds * 1e3:8.1f} {seconds / parse_s:8.1f}"
                      f"{rss_before} {per_input_byte(rss, size):>6}{note}")


def per_input_byte(rss: int, size: int) -> str:
    """Peak bytes per input byte; `-` where none was measured (instructions)."""
    return f"{rss / size:.1f}" if rss else "-"


# Generators for --scaling: each writes a module of about n instructions.
def many_outputs(n: int) -> str:
    lines = ["HloModule outputs, is_scheduled=true", "ENTRY e {",
             "  p = f32[4]{0} parameter(0)"]
    lines += [f"  a{i} = f32[4]{{0}} add(p, p)" for i in range(n)]
    lines.append("  ROOT t = (" + ", ".join(["f32[4]{0}"] * n) + ") tuple(" +
                 ", ".join(f"a{i}" for i in range(n)) + ")")
    return "\n".join(lines) + "\n}\n"


def chain(n: int) -> str:
    lines = ["HloModule chain, is_scheduled=true", "ENTRY e {",
             "  x0 = f32[64]{0} parameter(0)"]
    for i in range(1, n // 2 + 1):
        lines.append(f"  cat{i} = f32[128]{{0}} concatenate(x{i - 1}, x{i - 1}), "
                     "dimensions={0}")
        lines.append(f"  x{i} = f32[64]{{0}} slice(cat{i}), slice={{[0:64]}}")
    lines[-1] = lines[-1].replace(f"  x{n // 2} =", f"  ROOT x{n // 2} =")
    return "\n".join(lines) + "\n}\n"


def live_temporaries(n: int, span: int) -> str:
    """n instructions: temporaries t_i each read again `span` temporaries later."""
    lines = ["HloModule lives, is_scheduled=true", "ENTRY e {",
             "  p = f32[64]{0} parameter(0)"]
    count = n // 2
    for i in range(count):
        copies = 1 + i % 7
        lines.append(f"  t{i} = f32[{64 * copies}]{{0}} concatenate(" +
                     ", ".join(["p"] * copies) + "), dimensions={0}")
        if i >= span:
            j = i - span
            lines.append(f"  u{i} = f32[1]{{0}} slice(t{j}), slice={{[0:1]}}")
    last = [f"u{i}" for i in range(span, count)][-64:]
    lines.append("  ROOT r = (" + ", ".join(["f32[1]{0}"] * len(last)) + ") tuple(" +
                 ", ".join(last) + ")")
    return "\n".join(lines) + "\n}\n"


def collectives(n: int, count: int) -> str:
    """n instructions in a chain, `count` of them all-reduces over 4 devices, spread evenly."""
    lines = ["HloModule collectives, is_scheduled=true", "", "sum {",
             "  a = f32[] parameter(0)", "  b = f32[] parameter(1)",
             "  ROOT s = f32[] add(a, b)", "}", "", "ENTRY e {",
             "  x0 = f32[1024]{0} parameter(0)"]
    every = max(1, n // count)
    for i in range(1, n):
        if i % every == 0:
            op = (f"all-reduce(x{i - 1}), channel_id={i}, replica_groups={{{{0,1,2,3}}}}, "
                  "use_global_device_ids=true, to_apply=sum")
        else:
            op = f"add(x{i - 1}, x{i - 1})"
        lines.append(f"  {'ROOT ' if i == n - 1 else ''}x{i} = f32[1024]{{0}} {op}")
    return "\n".join(lines) + "\n}\n"


def wide_parameter(n: int) -> str:
    return ("HloModule wide, is_scheduled=true\nENTRY e {\n  p = (" +
            ", ".join(["f32[]"] * n) + ") parameter(0)\n"
            "  g = f32[] get-tuple-element(p), index=0\n  ROOT r = f32[] add(g, g)\n}\n")


def scaling(cli: str, smallest: int, largest: int, runs: int, what: str,
            only: list[str] | None = None) -> None:
    gen_hlo = find_built(cli, "gen_hlo")
    # (name, what doubles, [(size, generator)]); gen_hlo's are made by the program.
    sizes = []
    n = smallest
    while n <= largest:
        sizes.append(n)
        n *= 2
    shapes = [(name, "instructions", [(n, lambda n=n, make=make: make(n)) for n in sizes])
              for name, make in (("many outputs", many_outputs),
                                 ("chain of temporaries", chain),
                                 ("256 live temporaries", lambda n: live_temporaries(n, 256)),
                                 ("wide parameter", wide_parameter),
                                 ("gen_hlo layers", None))]
    # The number live at the peak doubles in a module of 131072 instructions.
    shapes.append(("live temporaries", "live at the peak",
                   [(span, lambda span=span: live_temporaries(131072, span))
                    for span in (256, 512, 1024, 2048, 4096)]))
    # The number of all-reduces doubles in a chain of 131072 instructions.
    shapes.append(("collectives", "all-reduces",
                   [(count, lambda count=count: collectives(131072, count))
                    for count in (4096, 8192, 16384, 32768, 65536)]))
    if only:
        shapes = [s for s in shapes if any(word in s[0] for word in only)]
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp)
        chosen = [c for c in commands(out) if c[0] in (
            "parse", "cost", "memory", "predict", "predict --json", "advise")]
        print(f"{'module':<22} {'size':>8} " + " ".join(f"{name:>16}" for name, _ in chosen))
        for shape, doubling, series in shapes:
            print(f"{shape} (size: {doubling}; {UNITS[what]}, and the ratio to the size before)")
            previous = None
            for size, make in series:
                module = out / "m.hlo"
                if shape != "gen_hlo layers":
                    module.write_text(make())
                elif gen_hlo.exists():
                    # about 5300 instructions per MiB of gen_hlo's text
                    subprocess.run([str(gen_hlo), str(module), "--mb", f"{size / 5300:.3f}"],
                                   check=True, stdout=subprocess.DEVNULL)
                else:
                    print(f"{'':<22} skipped: no {gen_hlo} (build the benchmarks first)")
                    break
                # Untimed: the first process to read a file just written pays for its pages
                # (up to 0.1 s of system time at 7 MB here), which would land on `parse`.
                subprocess.run([cli, "parse", str(module)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, check=False)
                times = [measure(cli, args, module, runs, what)[0] for _, args in chosen]
                cells = []
                for k, t in enumerate(times):
                    # (A tiny module's user time can read 0: the kernel counts it in ticks.)
                    ratio = "" if not previous else (
                        f"({t / previous[k]:.2f}x)" if previous[k] > 0 else "(-)")
                    cells.append(f"{t * 1e3:>8.0f}{ratio:>8}")
                print(f"{'':<22} {size:>8} " + " ".join(cells), flush=True)
                previous = times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", type=pathlib.Path)
    parser.add_argument("--cli", default=str(ROOT / "build" / "tools" / "hloroof"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scaling", action="store_true")
    parser.add_argument("--measure", choices=MEASURES, default="wall",
                        help="what is timed (see above)")
    parser.add_argument("--cpu", action="store_true", help="the same as --measure cpu")
    parser.add_argument("--baseline", help="another build's CLI, run in turn with --cli "
                        "(not with --scaling); its figures are printed first")
    parser.add_argument("--smallest", type=int, default=1 << 14)
    parser.add_argument("--shapes", help="with --scaling: only the shapes whose names hold one "
                        "of these comma-separated words (chain,outputs,live,wide,gen_hlo,"
                        "collectives)")
    parser.add_argument("--largest", type=int, default=1 << 20)
    args = parser.parse_args()
    what = "cpu" if args.cpu else args.measure
    runs = 1 if what == "instructions" else args.runs  # the same count every run
    if what == "instructions" and shutil.which("valgrind") is None:
        parser.error("--measure instructions needs valgrind (apt-get install valgrind)")
    global RUN_MEASURED
    if find_built(args.cli, "run_measured").exists():
        RUN_MEASURED = find_built(args.cli, "run_measured")
    else:
        print("note: bench/run_measured is not built: peak memory (B/B) counts the Python "
              "interpreter each command is forked from")
    if args.scaling:
        scaling(args.cli, args.smallest, args.largest, runs, what,
                args.shapes.split(",") if args.shapes else None)
    else:
        table(args.cli, args.files or largest_corpus_modules(3), runs, what, args.baseline)
    return 0


if __name__ == "__main__":
    sys.exit(main())
