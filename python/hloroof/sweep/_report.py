"""A sweep's rows shown: the Pareto front, the text table, the SVG plot, the progress line,
and text as a terminal takes it (`shown`, `cut`)."""

from __future__ import annotations

import html
import math
import sys
import time
from typing import Any, Dict, List, Optional, Sequence, TextIO

WIDTH = 100


def _ok(row: Dict[str, Any]) -> bool:
    return not row.get("error") and _number(row.get("step_time_s")) is not None


def _number(value: Any) -> Optional[float]:
    """`value` as a float, None when it is missing (None, NaN: a CSV's empty cell)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(value) else value


def _model_rate(row: Dict[str, Any]) -> Optional[float]:
    flops, step, chips = (_number(row.get(k)) for k in ("model_flops", "step_time_s", "chips"))
    return flops / step / chips if flops and step and chips else None


# The throughputs a sweep can be ranked by, first found first: (column, its heading, a row's
# value). Each is per chip, so that configurations on different slices compare.
RATES = (("tokens_per_s_per_chip", "tok/s/chip",
          lambda row: _number(row.get("tokens_per_s_per_chip"))),
         ("model_flops_per_s_per_chip", "FLOP/s/chip", _model_rate))


def rate(rows: Sequence[Dict[str, Any]]) -> Optional[tuple]:
    """What the rows that compiled are ranked by: the first of RATES that every one of them
    has (the builder gave `tokens`, or `model_flops`), as (column, heading, row -> value);
    None when they have none in common: then by step time. A configuration that does less
    work a step (a smaller batch) is faster but not better: throughput says which is."""
    ok = [row for row in rows if _ok(row)]
    for found in RATES:
        if ok and all(found[2](row) for row in ok):
            return found
    return None


def _speed(rows: Sequence[Dict[str, Any]]):
    """A row's key, lower first: minus its throughput when the rows have one, else its step
    time."""
    found = rate(rows)
    if found is None:
        return lambda row: _number(row["step_time_s"])
    return lambda row: -found[2](row)


def order(rows: Sequence[Dict[str, Any]]) -> List[int]:
    """The indices of the rows that compiled, fastest first: the highest throughput a chip
    where the rows have one (`rate`), else the shortest step."""
    speed = _speed(rows)
    return sorted((i for i, row in enumerate(rows) if _ok(row)), key=lambda i: speed(rows[i]))


def pareto(rows: Sequence[Dict[str, Any]]) -> List[bool]:
    """For each row, whether it is on the Pareto front of the configurations that compiled and
    fit: no other one is as fast (as much throughput a chip where the rows have one, `rate`;
    else as short a step), on as few chips and with as much memory headroom, and better in
    one of them."""
    speed = _speed(rows)

    def point(row):
        return (speed(row), _number(row["chips"]) or 0, -_number(row["headroom"]))

    candidates = [i for i, row in enumerate(rows)
                  if _ok(row) and row.get("fits") and _number(row.get("headroom")) is not None]
    front = [False] * len(rows)
    for i in _front_of(sorted((point(rows[i]), i) for i in candidates)):
        front[i] = True
    return front


def _front_of(points: Sequence[tuple]) -> List[int]:
    """The indices of the points that no other dominates (as low or lower in each of the three
    figures, and not the same point), of `points`: (point, index) pairs in lexicographic order.
    Only a point before it can dominate a point, and one before it does when it is as low in
    the second and third figures: a Fenwick tree over the second figure's ranks keeps the
    lowest third figure seen, so n points take O(n log n), not n^2 comparisons."""
    ranks = {y: k + 1 for k, y in enumerate(sorted({p[1] for p, _ in points}))}
    lowest = [math.inf] * (len(ranks) + 1)
    kept: List[int] = []
    start = 0
    while start < len(points):
        p = points[start][0]
        end = start
        while end < len(points) and points[end][0] == p:  # the same point: the same verdict
            end += 1
        k, seen = ranks[p[1]], math.inf
        while k > 0:
            seen = min(seen, lowest[k])
            k -= k & -k
        if seen > p[2]:
            kept.extend(i for _, i in points[start:end])
        k = ranks[p[1]]
        while k < len(lowest):
            lowest[k] = min(lowest[k], p[2])
            k += k & -k
        start = end
    return kept


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


def shown(text: str) -> str:
    """`text` with its control characters escaped (\\x1b, \\n): a name from a device file or a
    builder's message cannot move the terminal's cursor or split a table's line."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


def cut(text: str, width: int) -> str:
    """`text` as `shown` writes it, in `width` columns at most: a longer one ends in "~"."""
    text = shown(text)
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
        lines.append(cut("configuration: " + " ".join(varying), WIDTH))
    if same:
        lines.append(cut("in every one: " + " ".join(same), WIDTH))
    labels = [" ".join("-" if row.get(k) is None else str(row[k]) for k in varying)
              or ("(in every one)" if same else "(default)") for row in rows]
    return labels, lines


def _si(value: Optional[float]) -> str:
    """A rate in 3 significant digits with an SI prefix: 207k, 1.23M, 120T."""
    value = _number(value)
    if value is None:
        return "-"
    for prefix, size in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= size:
            return f"{value / size:.3g}{prefix}"
    return f"{value:.3g}"


def _headroom(row: Dict[str, Any]) -> str:
    headroom = _number(row.get("headroom"))
    if headroom is not None:  # +99.6%, not +100%, for a step that fills a sliver of the HBM
        return f"{headroom:+.1%}" if abs(headroom) < 10 else f"{headroom:+.0%}"
    return "no" if row.get("fits") is False else "-"


def _utilization(rows: Sequence[Dict[str, Any]]) -> str:
    """The heading of the `mfu` column: MFU where the rows' FLOPs are the model's, HFU where
    they are the program's (what ran, recomputation included), M/HFU where both."""
    kinds = {row.get("mfu_flops") for row in rows if _ok(row)}
    return "HFU" if kinds == {"program"} else "MFU" if kinds <= {"model"} else "M/HFU"


def table(rows: Sequence[Dict[str, Any]], front: Sequence[bool]) -> str:
    """The rows that compiled, fastest first (the most throughput a chip where the builder gave
    `tokens` or `model_flops`, else the shortest step; * on the Pareto front of that, chips and
    memory headroom), then those that failed with their reason; 100 columns at most. The
    configuration column holds the values of the keys that differ between rows, named above
    the table. Sizes in decimal units (1 GB = 10^9 B)."""
    labels, lines = _labels(rows)
    found = rate(rows)
    column, heading = (found or RATES[0])[:2]
    value = (found or RATES[0])[2]
    utilization = _utilization(rows)
    lines.append(f"  {'configuration':<19} {'target':<13} {'chip/dev':>8} {'step':>7} "
                 f"{heading:>11} {utilization:>5} {'footprint':>13} {'peak':>6} "
                 f"{'headroom':>8}")
    for i in order(rows):
        row = rows[i]
        mfu = _number(row.get("mfu"))
        chips = f"{row['chips']}/{row['devices']}"
        footprint = (f"{_bytes(row.get('footprint_bytes'))}/"
                     f"{_bytes(row.get('xla_footprint_bytes'))}")
        lines.append(
            f"{'*' if front[i] else ' '} {cut(labels[i], 19):<19} "
            f"{cut(row['target'], 13):<13} {chips:>8} {_time(row['step_time_s']):>7} "
            f"{_si(value(row)):>11} {'-' if mfu is None else f'{mfu:.1%}':>5} "
            f"{footprint:>13} {_bytes(row.get('peak_bytes')):>6} {_headroom(row):>8}")
    failed = [i for i, row in enumerate(rows) if not _ok(row)]
    if failed:
        lines.append(f"failed: {len(failed)}")
        for i in failed:
            lines.append(f"  {cut(labels[i], 60):<60} {cut(rows[i]['target'], 36)}")
            lines.append("      " + cut(rows[i].get("error") or "", WIDTH - 6))
    if order(rows):
        what = {"tokens_per_s_per_chip": "tokens a second a chip",
                "model_flops_per_s_per_chip": "model FLOPs a second a chip"}.get(
                    column if found else "", "step time")
        lines.append(f"fastest first, by {what}. footprint: device memory the step holds, "
                     f"ours/XLA's")
        lines.append("(arguments + outputs - aliased + temporaries); peak: our liveness "
                     "high-water mark; headroom:")
        lines.append("(capacity - footprint) / capacity, below 0 where it does not fit. "
                     "1 GB = 10^9 B.")
        if utilization == "M/HFU":
            lines.append("M/HFU: of the model's FLOPs where the builder gave them, else of the "
                         "program's.")
    if any(front):
        lines.append(f"* on the Pareto front: no other configuration that fits is as fast (by "
                     f"{what}),")
        lines.append("  on as few chips and with as much headroom, and better in one of them.")
    return "\n".join(lines)


# One colour a target, in the order the targets first appear (then again, darker).
_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
            "#17becf", "#7f7f7f", "#bcbd22")


def _ticks(low: float, high: float, count: int = 5) -> List[float]:
    """About `count` round values (1, 2 or 5 x 10^k apart) from `low` to `high`."""
    span = max(high - low, 1e-12)
    step = 10 ** math.floor(math.log10(span / count))
    step *= next(m for m in (1, 2, 5, 10) if span / (step * m) <= count)
    first = math.ceil(low / step - 1e-9)
    return [k * step for k in range(first, int(math.floor(high / step + 1e-9)) + 1)]


def svg(rows: Sequence[Dict[str, Any]], front: Sequence[bool], title: str = "sweep") -> str:
    """A scatter plot of the configurations that compiled: their speed across (the throughput
    a chip where the rows have one, `rate`, else the step time; log scale), chips up (whole
    chips), or the memory headroom up where every configuration runs on the same chips; one
    colour a target, named in the legend; the Pareto front ringed, joined and labelled, those
    that do not fit hollow."""
    found = rate(rows)
    if found is None:
        speed_of, speed_name, speed_text = (lambda r: _number(r["step_time_s"]),
                                            "step time (expected, log scale)", _time)
    else:
        speed_of = found[2]
        speed_name = {"tokens_per_s_per_chip": "tokens a second a chip (expected, log scale)",
                      "model_flops_per_s_per_chip":
                      "model FLOPs a second a chip (expected, log scale)"}[found[0]]
        speed_text = _si
    labels, named = _labels(rows)
    points = [(speed_of(row), row, front[i], labels[i]) for i, row in enumerate(rows)
              if _ok(row) and (speed_of(row) or 0) > 0]
    by_chips = len({p[1]["chips"] for p in points}) > 1
    targets = list(dict.fromkeys(p[1]["target"] for p in points))
    colour = {t: _COLOURS[k % len(_COLOURS)] for k, t in enumerate(targets)}
    legend_h = 16 * (len(targets) + 1)
    w, h, left, bottom, top, right = 720, 440 + legend_h, 70, 50 + legend_h, 60, 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'font-family="sans-serif" font-size="11">',
           f'<text x="{w / 2}" y="20" text-anchor="middle" font-size="14">'
           f'{html.escape(title)}</text>']
    for k, line in enumerate(named):  # the keys the labels' values are of, and the rest
        out.append(f'<text x="{w / 2}" y="{36 + 13 * k}" text-anchor="middle">'
                   f'{html.escape(line)}</text>')
    if not points:
        out.append(f'<text x="{w / 2}" y="{h / 2}" text-anchor="middle">no configuration '
                   f'compiled</text></svg>')
        return "\n".join(out)

    def up(row):
        if by_chips:
            return float(row["chips"])
        return _number(row.get("headroom")) or 0.0

    xs = [math.log10(p[0]) for p in points]
    ys = [up(p[1]) for p in points]
    x0, x1 = min(xs) - 0.05, max(xs) + 0.05
    if by_chips:
        y0, y1 = 0.0, max(ys) * 1.1
        y_ticks = sorted({int(y) for y in ys}) if len(set(ys)) <= 8 else [
            t for t in _ticks(0, max(ys)) if t == int(t)]
        y_text, y_name = (lambda v: f"{int(v)}"), "chips"
    else:
        pad = max(0.05, (max(ys) - min(ys)) * 0.1)
        y0, y1 = min(ys) - pad, max(ys) + pad
        y_ticks = _ticks(y0, y1)
        y_text = lambda v: f"{v:.0%}"  # noqa: E731
        y_name = f"memory headroom (all on {points[0][1]['chips']} chips)"

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
                   f'{speed_text(v)}</text>')
    for c in y_ticks:
        out.append(f'<text x="{left - 6}" y="{sy(c) + 4:.1f}" text-anchor="end">'
                   f'{y_text(c)}</text>')
    out.append(f'<text x="{(left + w - right) / 2}" y="{h - bottom + 34}" '
               f'text-anchor="middle">{speed_name}</text>')
    middle = (top + h - bottom) / 2
    out.append(f'<text x="16" y="{middle}" text-anchor="middle" '
               f'transform="rotate(-90 16 {middle})">{html.escape(y_name)}</text>')
    on_front = sorted((p for p in points if p[2]), key=lambda p: p[0])
    if len(on_front) > 1:
        path = " ".join(f"{sx(p[0]):.1f},{sy(up(p[1])):.1f}" for p in on_front)
        out.append(f'<polyline points="{path}" fill="none" stroke="black" '
                   f'stroke-dasharray="4 3"/>')
    for v, row, is_front, _ in points:
        c = colour[row["target"]]
        fill = c if row.get("fits") else "none"
        ring = ' stroke-width="2.5" r="6"' if is_front else ' r="4"'
        edge = "black" if is_front else c
        out.append(f'<circle cx="{sx(v):.1f}" cy="{sy(up(row)):.1f}"{ring} fill="{fill}" '
                   f'stroke="{edge}"><title>{html.escape(row["config"])} on '
                   f'{html.escape(row["target"])}: {speed_text(v)}, {row["chips"]} chips'
                   f'</title></circle>')
    # The front's labels (the configuration's values, its target), one line each: left of
    # the points in the plot's right half, moved up where they would overlap.
    placed: List[tuple] = []
    for v, row, _, label in on_front:
        x, y = sx(v), sy(up(row)) - 9
        anchor = "end" if x > (left + w - right) / 2 else "start"
        x += -8 if anchor == "end" else 8
        while any(abs(y - py) < 12 and abs(x - px) < 240 for px, py in placed):
            y -= 12
        placed.append((x, y))
        out.append(f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}">'
                   f'{html.escape(cut(label, 40) + " on " + row["target"])}</text>')
    for k, target in enumerate(targets):
        y = h - legend_h + 16 * k + 4
        out.append(f'<circle cx="{left + 6}" cy="{y - 4}" r="4" fill="{colour[target]}" '
                   f'stroke="{colour[target]}"/><text x="{left + 16}" y="{y}">'
                   f'{html.escape(target)}</text>')
    out.append(f'<text x="{left}" y="{h - legend_h + 16 * len(targets) + 4}">filled: fits; '
               f'hollow: does not; ringed, joined: the Pareto front</text>')
    out.append("</svg>")
    return "\n".join(out)


def what_if_table(rows: Sequence[Dict[str, Any]]) -> str:
    """`what_if`'s rows as the command prints them, 100 columns at most: MFU of the model's
    FLOPs where given, else HFU (the program's); the footprint (what the device holds for the
    step), the liveness peak and the headroom (of the footprint) in decimal units."""
    utilization = "HFU" if all(r.get("mfu_flops") != "model" for r in rows) else "MFU"
    lines = [f"{'device':<16} {'edits':<30} {'step':>8} {'roofline':>8} {utilization:>6} "
             f"{'footprint':>9} {'peak':>7} {'headroom':>8}"]
    for row in rows:
        head = f"{cut(row['device'], 16):<16} {cut(row['edits'] or '-', 30):<30} "
        if isinstance(row.get("error"), str):
            lines.append(head + cut(row["error"], WIDTH - len(head)))
            continue
        mfu = _number(row.get("mfu"))
        lines.append(head + f"{_time(row['step_time_s']):>8} "
                     f"{_time(row['roofline_step_time_s']):>8} "
                     f"{'-' if mfu is None else f'{mfu:.1%}':>6} "
                     f"{_bytes(row.get('footprint_bytes')):>9} "
                     f"{_bytes(row.get('peak_bytes')):>7} {_headroom(row):>8}")
    lines.append("footprint: device memory the step holds; peak: the liveness high-water mark; "
                 "headroom:")
    lines.append("(capacity - footprint) / capacity, below 0 where it does not fit. "
                 "1 GB = 10^9 B.")
    return "\n".join(lines)


def duration(seconds: float) -> str:
    """A wall-clock duration as a person reads it: 45s, 3m05s, 1h02m."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds // 60 % 60:02d}m"


class Progress:
    """The progress line on stderr: done, failed, cached, running, the time elapsed and, once
    a compile has finished, the time left; then the configuration compiling (the first of
    those running, in `compiling`)."""

    def __init__(self, total: int, to_compile: int, stream: Optional[TextIO] = None,
                 enabled: bool = True) -> None:
        self.total, self.to_compile = total, to_compile
        self.done = self.failed = self.cached = self.running = self.compiled = 0
        self.compiling: List[str] = []
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.start = time.monotonic()
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def line(self) -> str:
        elapsed = time.monotonic() - self.start
        text = (f"sweep: {self.done}/{self.total} done, {self.failed} failed, {self.cached} "
                f"cached, {self.running} running, {duration(elapsed)} elapsed")
        if self.compiled:
            left = self.to_compile - self.compiled
            text += f", ETA {duration(left * elapsed / self.compiled)}"
        if self.running and self.compiling:
            text += f"; compiling {self.compiling[0]}"
        return cut(text, WIDTH - 1)

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
