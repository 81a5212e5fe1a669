"""A sweep's rows shown: the Pareto front, the text table, the SVG plot, the progress line."""

from __future__ import annotations

import html
import math
import sys
import time
from typing import Any, Dict, List, Optional, Sequence, TextIO

WIDTH = 100


def _ok(row: Dict[str, Any]) -> bool:
    return not row.get("error") and row.get("step_time_s") is not None


def pareto(rows: Sequence[Dict[str, Any]]) -> List[bool]:
    """For each row, whether it is on the Pareto front of the configurations that compiled and
    fit: no other one is as fast, on as few chips and with as much memory headroom, and better
    in one of them."""
    def point(row):
        return (row["step_time_s"], row["chips"], -row["headroom"])

    candidates = [i for i, row in enumerate(rows)
                  if _ok(row) and row.get("fits") and row.get("headroom") is not None]
    front = [False] * len(rows)
    for i in candidates:
        a = point(rows[i])
        dominated = any(all(x <= y for x, y in zip(point(rows[j]), a)) and point(rows[j]) != a
                        for j in candidates if j != i)
        front[i] = not dominated
    return front


def _time(seconds: Optional[float]) -> str:
    if seconds is None or (isinstance(seconds, float) and math.isnan(seconds)):
        return "-"
    if seconds >= 1:
        return f"{seconds:.3g}s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g}ms"
    return f"{seconds * 1e6:.3g}us"


def _bytes(count: Optional[float]) -> str:
    if count is None or (isinstance(count, float) and math.isnan(count)):
        return "-"
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(count) >= size:
            return f"{count / size:.3g}{unit}"
    return f"{int(count)}B"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "~"


def _config_keys(rows: Sequence[Dict[str, Any]]) -> List[str]:
    """The configurations' keys, in order: a row's keys before its "config" column."""
    keys: Dict[str, None] = {}
    for row in rows:
        for key in row:
            if key == "config":
                break
            keys[key] = None
    return list(keys)


def _labels(rows: Sequence[Dict[str, Any]]) -> tuple:
    """Each row's configuration as the values of the keys that differ between rows, and the
    lines that name those keys and the values all rows share."""
    keys = _config_keys(rows)
    varying = [k for k in keys if len({repr(row.get(k)) for row in rows}) > 1]
    same = [f"{k}={rows[0][k]}" for k in keys if k not in varying]
    lines = []
    if varying:
        lines.append(_cut("configuration: " + " ".join(varying), WIDTH))
    if same:
        lines.append(_cut("in every one: " + " ".join(same), WIDTH))
    labels = [" ".join("-" if row.get(k) is None else str(row[k]) for k in varying)
              or ("(in every one)" if same else "(default)") for row in rows]
    return labels, lines


def table(rows: Sequence[Dict[str, Any]], front: Sequence[bool]) -> str:
    """The rows that compiled, fastest first (* on the Pareto front of step time, chips and
    memory headroom), then those that failed with their reason; 100 columns at most. The
    configuration column holds the values of the keys that differ between rows, named above
    the table."""
    labels, lines = _labels(rows)
    lines.append(f"  {'configuration':<26} {'target':<14} {'chips/dev':>9} {'step':>8} "
                 f"{'roofline':>8} {'MFU':>6} {'peak ours/XLA':>15} {'fits':>5}")
    order = sorted((i for i, row in enumerate(rows) if _ok(row)),
                   key=lambda i: rows[i]["step_time_s"])
    for i in order:
        row = rows[i]
        mfu = row.get("mfu")
        fits = ("-" if row.get("fits") is None else
                f"{row['headroom']:+.0%}" if row["fits"] else "no")
        chips = f"{row['chips']}/{row['devices']}"
        peaks = f"{_bytes(row.get('peak_bytes'))}/{_bytes(row.get('xla_peak_bytes'))}"
        lines.append(
            f"{'*' if front[i] else ' '} {_cut(labels[i], 26):<26} "
            f"{_cut(row['target'], 14):<14} {chips:>9} {_time(row['step_time_s']):>8} "
            f"{_time(row.get('roofline_step_time_s')):>8} "
            f"{'-' if mfu is None or mfu != mfu else f'{mfu:.1%}':>6} {peaks:>15} {fits:>5}")
    failed = [i for i, row in enumerate(rows) if not _ok(row)]
    if failed:
        lines.append(f"failed: {len(failed)}")
        for i in failed:
            lines.append(f"  {_cut(labels[i], 60):<60} {_cut(rows[i]['target'], 36)}")
            lines.append("      " + _cut(rows[i].get("error") or "", WIDTH - 6))
    if any(front):
        lines.append("* on the Pareto front: no configuration that fits is as fast, on as few "
                     "chips and with as")
        lines.append("  much memory headroom, and better in one of them. fits: the headroom, "
                     "(capacity - peak) / capacity")
    return "\n".join(lines)


def svg(rows: Sequence[Dict[str, Any]], front: Sequence[bool], title: str = "sweep") -> str:
    """A scatter plot of the configurations that compiled: step time (s, log scale) across,
    chips up; the Pareto front joined and labelled, those that do not fit hollow."""
    points = [(row["step_time_s"], row["chips"], front[i], bool(row.get("fits")), row["config"])
              for i, row in enumerate(rows) if _ok(row) and row["step_time_s"] > 0]
    w, h, left, bottom, top, right = 720, 440, 70, 50, 40, 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'font-family="sans-serif" font-size="11">',
           f'<text x="{w / 2}" y="20" text-anchor="middle" font-size="14">'
           f'{html.escape(title)}</text>']
    if not points:
        out.append(f'<text x="{w / 2}" y="{h / 2}" text-anchor="middle">no configuration '
                   f'compiled</text></svg>')
        return "\n".join(out)
    xs = [math.log10(p[0]) for p in points]
    ys = [p[1] for p in points]
    x0, x1 = min(xs) - 0.05, max(xs) + 0.05
    y0, y1 = 0, max(ys) * 1.1

    def sx(v):
        return left + (math.log10(v) - x0) / (x1 - x0) * (w - left - right)

    def sy(v):
        return h - bottom - (v - y0) / (y1 - y0) * (h - bottom - top)

    out.append(f'<line x1="{left}" y1="{h - bottom}" x2="{w - right}" y2="{h - bottom}" '
               f'stroke="black"/><line x1="{left}" y1="{top}" x2="{left}" y2="{h - bottom}" '
               f'stroke="black"/>')
    for k in range(5):
        v = 10 ** (x0 + (x1 - x0) * k / 4)
        out.append(f'<text x="{sx(v):.1f}" y="{h - bottom + 16}" text-anchor="middle">'
                   f'{_time(v)}</text>')
        c = y1 * k / 4
        out.append(f'<text x="{left - 6}" y="{sy(c) + 4:.1f}" text-anchor="end">{c:.3g}</text>')
    out.append(f'<text x="{(left + w - right) / 2}" y="{h - 12}" text-anchor="middle">'
               f'step time (expected, log scale)</text>')
    out.append(f'<text x="16" y="{(top + h - bottom) / 2}" text-anchor="middle" '
               f'transform="rotate(-90 16 {(top + h - bottom) / 2})">chips</text>')
    on_front = sorted((p for p in points if p[2]), key=lambda p: p[0])
    if len(on_front) > 1:
        path = " ".join(f"{sx(p[0]):.1f},{sy(p[1]):.1f}" for p in on_front)
        out.append(f'<polyline points="{path}" fill="none" stroke="#c0392b"/>')
    for t, chips, is_front, fits, label in points:
        color = "#c0392b" if is_front else "#7f8c8d"
        fill = color if fits else "none"
        out.append(f'<circle cx="{sx(t):.1f}" cy="{sy(chips):.1f}" r="4" fill="{fill}" '
                   f'stroke="{color}"><title>{html.escape(label)}: {_time(t)}, {chips} chips'
                   f'</title></circle>')
        if is_front:
            out.append(f'<text x="{sx(t) + 6:.1f}" y="{sy(chips) - 6:.1f}">'
                       f'{html.escape(_cut(label, 40))}</text>')
    out.append(f'<text x="{w - right}" y="{top}" text-anchor="end">filled: fits; hollow: does '
               f'not; red: Pareto front (step, chips, headroom)</text>')
    out.append("</svg>")
    return "\n".join(out)


class Progress:
    """The progress line on stderr: done, failed, cached, running, and the time left."""

    def __init__(self, total: int, to_compile: int, stream: Optional[TextIO] = None,
                 enabled: bool = True) -> None:
        self.total, self.to_compile = total, to_compile
        self.done = self.failed = self.cached = self.running = self.compiled = 0
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.start = time.monotonic()
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def line(self) -> str:
        eta = "-"
        if self.compiled:
            left = self.to_compile - self.compiled
            rate = self.compiled / max(time.monotonic() - self.start, 1e-9)
            eta = f"{left / rate:.0f}s" if left else "0s"
        return (f"sweep: {self.done}/{self.total} done, {self.failed} failed, {self.cached} "
                f"cached, {self.running} running, ETA {eta}")

    def show(self, final: bool = False, finished: bool = False) -> None:
        """Rewrites the line on a terminal; elsewhere, writes one line a finished compile."""
        if not self.enabled or (not self.tty and not finished and not final):
            return
        if self.tty:
            self.stream.write("\r" + self.line().ljust(WIDTH - 1)[:WIDTH - 1] +
                              ("\n" if final else ""))
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()
