#!/usr/bin/env python3
"""Draws throughput and p99 latency per operation for ddb, floor and dynalite as an SVG.

    bench/plot_results.py [bench/results.csv] [-o bench/results.svg] [--title TEXT]

Reads the CSV that `bench/compare.sh --csv FILE` writes (one row per server/op, medians of the
runs: server,op,runs,rps,p50_ms,p90_ms,p99_ms,...) and writes two grouped bar charts side by
side: req/s (higher is better) and p99 in ms (lower is better), one group per operation, one
bar per server. Standard library only (the SVG is written by hand).
"""
import argparse
import csv
import math
import os
import sys
from xml.sax.saxutils import escape

BENCH = os.path.dirname(os.path.abspath(__file__))
COLORS = {"ddb": "#1f77b4", "floor": "#999999", "dynalite": "#ff7f0e"}
EXTRA = ["#2ca02c", "#d62728", "#9467bd", "#8c564b"]


def nice_max(v):
    """A round axis maximum >= v (1, 2, 2.5, 5 x 10^k)."""
    if v <= 0:
        return 1.0
    e = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if m * e >= v:
            return m * e
    return 10 * e


def fmt(v):
    if v == 0:
        return "0"
    if v >= 10000:
        return f"{v / 1000:.0f}k"
    if v >= 1000:
        return f"{v / 1000:.1f}k"
    if v >= 10:
        return f"{v:.0f}"
    if v >= 1:
        return f"{v:.1f}"
    return f"{v:.2f}"


def chart(x0, y0, w, h, title, ops, servers, values, colors):
    """One grouped bar chart; values[(server, op)] -> number or None. Returns SVG lines."""
    out = []
    left, bottom, top = 56, 40, 28
    pw, ph = w - left - 10, h - bottom - top
    vmax = nice_max(max([v for v in values.values() if v is not None] or [1]))
    out.append(f'<text x="{x0 + w / 2}" y="{y0 + 18}" text-anchor="middle" '
               f'font-size="14" font-weight="bold">{escape(title)}</text>')
    ox, oy = x0 + left, y0 + top + ph  # origin
    for i in range(6):  # grid and y labels
        v = vmax * i / 5
        y = oy - ph * i / 5
        out.append(f'<line x1="{ox}" y1="{y:.1f}" x2="{ox + pw}" y2="{y:.1f}" '
                   f'stroke="#ddd" stroke-width="1"/>')
        out.append(f'<text x="{ox - 6}" y="{y + 4:.1f}" text-anchor="end" '
                   f'font-size="11">{fmt(v)}</text>')
    out.append(f'<line x1="{ox}" y1="{oy}" x2="{ox + pw}" y2="{oy}" stroke="#333"/>')
    gw = pw / max(1, len(ops))
    bw = gw * 0.8 / max(1, len(servers))
    for gi, op in enumerate(ops):
        gx = ox + gi * gw + gw * 0.1
        for si, s in enumerate(servers):
            v = values.get((s, op))
            bx = gx + si * bw
            if v is None:
                out.append(f'<text x="{bx + bw / 2:.1f}" y="{oy - 4}" text-anchor="middle" '
                           f'font-size="10" fill="#999">n/a</text>')
                continue
            bh = ph * v / vmax
            out.append(f'<rect x="{bx:.1f}" y="{oy - bh:.1f}" width="{bw * 0.92:.1f}" '
                       f'height="{bh:.1f}" fill="{colors[s]}"><title>{escape(s)} {escape(op)}: '
                       f'{v:g}</title></rect>')
            out.append(f'<text x="{bx + bw * 0.46:.1f}" y="{oy - bh - 3:.1f}" '
                       f'text-anchor="middle" font-size="10">{fmt(v)}</text>')
        out.append(f'<text x="{gx + gw * 0.4:.1f}" y="{oy + 16}" text-anchor="middle" '
                   f'font-size="12">{escape(op)}</text>')
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="?", default=os.path.join(BENCH, "results.csv"))
    ap.add_argument("-o", "--output", default=os.path.join(BENCH, "results.svg"))
    ap.add_argument("--title", default="ddb-server vs floor (HTTP only) vs dynalite")
    o = ap.parse_args()

    with open(o.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        print(f"plot_results.py: no rows in {o.csv}", file=sys.stderr)
        return 1
    ops, servers = [], []
    for r in rows:
        if r["op"] not in ops:
            ops.append(r["op"])
        if r["server"] not in servers:
            servers.append(r["server"])
    known = [s for s in ("ddb", "floor", "dynalite") if s in servers]
    servers = known + [s for s in servers if s not in known]
    colors = dict(COLORS)
    for i, s in enumerate(s for s in servers if s not in colors):
        colors[s] = EXTRA[i % len(EXTRA)]

    rps, p99 = {}, {}
    runs = set()
    for r in rows:
        ok = float(r["rps"] or 0) > 0
        rps[(r["server"], r["op"])] = float(r["rps"]) if ok else None
        p99[(r["server"], r["op"])] = float(r["p99_ms"]) if ok else None
        runs.add(r.get("runs", "?"))

    cw, ch = max(420, 110 * len(ops) + 80), 340
    width, height = 2 * cw + 30, ch + 80
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="16" '
           f'font-weight="bold">{escape(o.title)}</text>']
    svg += chart(10, 30, cw, ch, "throughput (req/s, higher is better)", ops, servers, rps, colors)
    svg += chart(cw + 20, 30, cw, ch, "p99 latency (ms, lower is better)", ops, servers, p99,
                 colors)
    lx = 20
    ly = ch + 50
    for s in servers:  # legend
        svg.append(f'<rect x="{lx}" y="{ly}" width="12" height="12" fill="{colors[s]}"/>')
        svg.append(f'<text x="{lx + 16}" y="{ly + 11}" font-size="12">{escape(s)}</text>')
        lx += 30 + 8 * len(s)
    note = (f"medians of {'/'.join(sorted(runs))} runs per case; source: "
            f"{os.path.basename(o.csv)} (bench/compare.sh --csv)")
    svg.append(f'<text x="{width - 10}" y="{ly + 11}" text-anchor="end" font-size="11" '
               f'fill="#555">{escape(note)}</text>')
    svg.append("</svg>")
    with open(o.output, "w") as f:
        f.write("\n".join(svg) + "\n")
    print(f"plot_results.py: wrote {o.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
