#!/usr/bin/env python3
"""Time and peak memory of hloroof on hostile HloProtos of doubling size.

Each family doubles the one figure that once grew the reader's memory or time without bound;
every run must end as an error or a result within a constant factor of its file:

  operand names   a parameter with a 64 KiB name that one tuple takes N times
  buffer copies   one logical buffer with a 1 MiB name assigned N times in an allocation
  buffer lookups  N logical buffers of distinct names in one allocation
  tiny messages   N empty 2-byte FileLocation messages in the module's stack frame index

  python3 bench/hostile_scaling.py [--hloroof build/tools/hloroof] [--command memory]

Prints, per family and size: the file's bytes, the run's seconds and peak resident memory, and
how it ended (ok, or the first words of its error).
"""
import argparse
import os
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def field(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def varint_field(number, value):
    return varint(number << 3) + varint(value)


F32_4 = varint_field(2, 11) + varint_field(3, 4)


def instruction(name, opcode, iid, rest=b""):
    return field(2, field(1, name) + field(2, opcode) + field(3, F32_4) +
                 varint_field(35, iid) + rest)


def module(instructions, root):
    comp = field(1, b"main") + instructions + varint_field(5, 1) + varint_field(6, root)
    return field(1, b"m") + field(3, comp) + varint_field(6, 1)


ADD = module(instruction(b"x", b"parameter", 1) +
             instruction(b"n", b"negate", 2, varint_field(36, 1)), 2)


def operand_names(n):
    return module(instruction(b"p" * 65536, b"parameter", 1) +
                  instruction(b"t", b"tuple", 2, varint_field(36, 1) * n), 2)


def buffer_copies(n):
    buffer = field(1, varint_field(1, 1) + varint_field(2, 16) +
                   field(3, field(2, b"n" * (1 << 20))))
    allocation = field(3, varint_field(1, 0) + varint_field(2, 16) +
                       field(9, varint_field(1, 1) + varint_field(3, 16)) * n)
    return field(1, ADD) + field(3, buffer + allocation)


def buffer_lookups(n):
    buffers, assigned = [], []
    for i in range(n):
        buffers.append(field(1, varint_field(1, 10 + i) + varint_field(2, 4) +
                             field(3, field(2, b"b%d" % i))))
        assigned.append(field(9, varint_field(1, 10 + i) + varint_field(3, 4)))
    allocation = field(3, varint_field(1, 0) + varint_field(2, 4 * n) + b"".join(assigned))
    return field(1, ADD) + field(3, b"".join(buffers) + allocation)


def tiny_messages(n):
    return ADD + field(17, field(3, b"") * n)


FAMILIES = [
    ("operand names", operand_names, [1024, 2048, 4096, 8192, 16384, 32768]),
    ("buffer copies", buffer_copies, [512, 1024, 2048, 4096, 8192]),
    ("buffer lookups", buffer_lookups, [20000, 40000, 80000, 160000, 320000]),
    ("tiny messages", tiny_messages, [1 << 20, 1 << 21, 1 << 22, 1 << 23, 1 << 24]),
]


def run(hloroof, command, path):
    start = time.perf_counter()
    p = subprocess.Popen([hloroof, command, path], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    seconds = time.perf_counter() - start
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code == 0:
        ended = "ok"
    else:
        words = " ".join(err.split())
        at = words.find(": ", words.find("HloModuleProto"))
        ended = f"exit {code}: " + (words[at + 2:] if at >= 0 else words)[:44]
    return seconds, usage.ru_maxrss / 1024, ended


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hloroof", default=os.path.join(ROOT, "build", "tools", "hloroof"))
    ap.add_argument("--command", default="memory")
    args = ap.parse_args()
    print(f"hloroof {args.command} FILE: seconds and peak resident memory")
    print(f"{'family':15} {'N':>9} {'file MB':>8} {'s':>6} {'peak MB':>8}  ended")
    with tempfile.TemporaryDirectory() as scratch:
        for name, make, sizes in FAMILIES:
            for n in sizes:
                path = os.path.join(scratch, "case.hlo.pb")
                with open(path, "wb") as f:
                    f.write(make(n))
                size_mb = os.path.getsize(path) / 1e6
                seconds, peak, ended = run(args.hloroof, args.command, path)
                print(f"{name:15} {n:9d} {size_mb:8.2f} {seconds:6.2f} {peak:8.0f}  {ended}")


if __name__ == "__main__":
    main()
