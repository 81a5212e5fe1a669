#!/usr/bin/env python3
"""Time and peak memory of hloroof on hostile HloProtos of doubling size.

Each family doubles the one figure that once grew the reader's memory or time without bound;
every run must end as an error or a result within a constant factor of its file:

  operand names   a parameter with a 64 KiB name that one tuple takes N times
  buffer copies   one logical buffer with a 1 MiB name assigned N times in an allocation
  buffer lookups  N logical buffers of distinct names in one allocation
  tiny messages   N empty 2-byte FileLocation messages in the module's stack frame index
  tuple leaves    a parameter of a tuple of N f32[] leaves (a proto of 4 bytes a leaf)
  tiny instrs     N instructions of 4 bytes each (only a parameter number): refused
  iota shardings  N parameters of HLO text sharded over 2^20 devices in iota form
  mesh groups     N all-reduces of HLO text over a mesh of 2^20 devices, run through `cost`
  ragged dots     N dots named ragged_dot, each of one concatenation of N parameters, through
                  `advise` (its ragged-dot rule walks up each dot's operands for group sizes)

  python3 bench/hostile_scaling.py [--hloroof build/tools/hloroof] [--command memory]
                                   [--family NAME]

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


F32_SCALAR = varint_field(2, 11)


def tuple_leaves(n):
    # ShapeProto of a tuple (element_type 13) holding n f32[] shapes (4 bytes each on the wire).
    shape = varint_field(2, 13) + field(4, F32_SCALAR) * n
    param = field(2, field(1, b"p") + field(2, b"parameter") + field(3, shape) +
                  varint_field(35, 1))
    comp = field(1, b"main") + param + varint_field(5, 1) + varint_field(6, 1)
    return field(1, b"m") + field(3, comp) + varint_field(6, 1)


def tiny_instructions(n):
    return module(instruction(b"x", b"parameter", 1) + field(2, varint_field(9, 1)) * n, 1)


def iota_shardings(n):
    lines = [b"HloModule iota_shardings\n\nENTRY main {"]
    for k in range(n):
        lines.append(b"  p%d = f32[1024,1024]{1,0} parameter(%d), "
                     b"sharding={devices=[1024,1024]<=[1048576]}" % (k, k))
    lines.append(b"  ROOT t = () tuple()\n}\n")
    return b"\n".join(lines)


def mesh_groups(n):
    lines = [b"HloModule mesh_groups\n\nsum {\n  a = f32[] parameter(0)\n  b = f32[] "
             b"parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\nENTRY main {",
             b"  r0 = f32[1024]{0} parameter(0)"]
    for k in range(1, n + 1):
        lines.append(b"  r%d = f32[1024]{0} all-reduce(r%d), "
                     b"replica_groups=mesh['x'=1024,'y'=1024] {'y'}, to_apply=sum" % (k, k - 1))
    lines.append(b"  ROOT out = f32[1024]{0} copy(r%d)\n}\n" % n)
    return b"\n".join(lines)


def ragged_dots(n):
    lines = [b"HloModule ragged_dots\n\nENTRY main {",
             b"  w = f32[64,64]{1,0} parameter(0)"]
    for k in range(n):
        lines.append(b"  p%d = f32[1,64]{1,0} parameter(%d)" % (k, k + 1))
    lines.append(b"  c = f32[%d,64]{1,0} concatenate(%s), dimensions={0}"
                 % (n, b", ".join(b"p%d" % k for k in range(n))))
    for k in range(n):
        lines.append(b"  d%d = f32[%d,64]{1,0} dot(c, w), lhs_contracting_dims={1}, "
                     b"rhs_contracting_dims={0}, metadata={op_name=\"jit(f)/ragged_dot\"}"
                     % (k, n))
    lines.append(b"  ROOT t = (%s) tuple(%s)\n}\n"
                 % (b", ".join([b"f32[%d,64]" % n] * n), b", ".join(b"d%d" % k for k in range(n))))
    return b"\n".join(lines)


# (name, generator, sizes, file suffix, command: None for --command)
FAMILIES = [
    ("operand names", operand_names, [1024, 2048, 4096, 8192, 16384, 32768], ".hlo.pb", None),
    ("buffer copies", buffer_copies, [512, 1024, 2048, 4096, 8192], ".hlo.pb", None),
    ("buffer lookups", buffer_lookups, [20000, 40000, 80000, 160000, 320000], ".hlo.pb", None),
    ("tiny messages", tiny_messages, [1 << 20, 1 << 21, 1 << 22, 1 << 23, 1 << 24], ".hlo.pb",
     None),
    ("tuple leaves", tuple_leaves, [1 << 20, 1 << 21, 1 << 22, 1 << 23, 1 << 24], ".hlo.pb",
     None),
    ("tiny instrs", tiny_instructions, [1 << 20, 1 << 21, 1 << 22, 1 << 23, 1 << 24], ".hlo.pb",
     None),
    ("iota shardings", iota_shardings, [100, 200, 400, 800, 1600], ".hlo", None),
    ("mesh groups", mesh_groups, [25, 50, 100, 200, 400], ".hlo", "cost"),
    ("ragged dots", ragged_dots, [1000, 2000, 4000, 8000], ".hlo", "advise"),
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
    ap.add_argument("--family", help="one family only (its name, as printed)")
    args = ap.parse_args()
    print(f"hloroof {args.command} FILE (mesh groups: cost; ragged dots: advise): seconds and peak resident memory")
    print(f"{'family':15} {'N':>9} {'file MB':>8} {'s':>6} {'peak MB':>8}  ended")
    with tempfile.TemporaryDirectory() as scratch:
        for name, make, sizes, suffix, command in FAMILIES:
            if args.family and name != args.family:
                continue
            for n in sizes:
                path = os.path.join(scratch, "case" + suffix)
                with open(path, "wb") as f:
                    f.write(make(n))
                size_mb = os.path.getsize(path) / 1e6
                seconds, peak, ended = run(args.hloroof, command or args.command, path)
                print(f"{name:15} {n:9d} {size_mb:8.2f} {seconds:6.2f} {peak:8.0f}  {ended}")


if __name__ == "__main__":
    main()
