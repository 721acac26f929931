#!/usr/bin/env python3
"""Per-partition heat map of one table from a ddb-server's GET /metrics.

Samples /metrics every --interval-ms for --duration-s (or replays a recorded samples
file) and draws an SVG: x is time, y is the table's partition-key hash space (0 at the
top, 2^64-1 at the bottom; each partition is a band as tall as its share of the hash
range, so a split shows as a band dividing in two), and the colour is the capacity units
per second the partition consumed in that interval. Intervals in which a partition
throttled requests get a red outline and a red tick; a change of the partition set (a
split) gets a dashed vertical line with the new partition count.

Standard library only.

  # sample a running server for 30 s, keep the samples, draw the picture
  tools/heatmap.py --endpoint http://127.0.0.1:8000 --table orders \\
      --interval-ms 500 --duration-s 30 --record run.jsonl --out orders.svg
  # draw again from the recording (e.g. another table, only writes, a GSI)
  tools/heatmap.py --replay run.jsonl --table orders --kind write --out orders-w.svg

The metrics used (protocol/metrics.cc): ddb_partition_consumed_capacity_units_total,
ddb_partition_throttled_requests_total, ddb_partition_items, ddb_partition_size_bytes
(labels table, index, partition, range_start, range_end, kind), ddb_partition_splits_total
and ddb_hot_key_consumed_capacity_units (rank, key).

As a module: Sampler(endpoint).start() / .stop() -> samples, render_svg(samples, ...),
summarize(samples, ...).
"""

import argparse
import json
import math
import re
import sys
import threading
import time
import urllib.request
from xml.sax.saxutils import escape as xml_escape

MAX_TOKEN = 2 ** 64 - 1
SPACE = 2 ** 64

# --------------------------------------------------------------------------
# Prometheus text format (the subset /metrics uses, parsed strictly enough)
# --------------------------------------------------------------------------

_SAMPLE_RE = re.compile(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)(?:\s+-?\d+)?\s*$")
_LABEL_RE = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)')


def _unescape(v):
    out, i = [], 0
    while i < len(v):
        c = v[i]
        if c == "\\" and i + 1 < len(v):
            n = v[i + 1]
            out.append({"n": "\n", "\\": "\\", '"': '"'}.get(n, "\\" + n))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def parse_metrics(text):
    """Yields (name, labels dict, float value) for every sample line."""
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE_RE.match(line)
        if not m:
            continue
        name, label_text, value = m.groups()
        labels = {}
        if label_text:
            body = label_text[1:-1]
            pos = 0
            while pos < len(body):
                lm = _LABEL_RE.match(body, pos)
                if not lm:
                    break
                labels[lm.group(1)] = _unescape(lm.group(2))
                pos = lm.end()
        try:
            yield name, labels, float(value)
        except ValueError:
            continue


def resource_key(table, index=None):
    return f"{table}/{index}" if index else table


def extract(text):
    """One sample's figures: {resource key: {"splits", "partitions", "hot"}}.

    partitions: sorted [[start, end, read, write, read_throttles, write_throttles, items,
    bytes], ...] with start/end as ints.
    """
    res = {}

    def entry(labels):
        k = resource_key(labels.get("table", ""), labels.get("index"))
        return res.setdefault(k, {"splits": 0, "parts": {}, "hot": []})

    for name, labels, value in parse_metrics(text):
        if name.startswith("ddb_partition_") and "range_start" in labels:
            e = entry(labels)
            start = int(labels["range_start"], 16)
            p = e["parts"].setdefault(start, [start, int(labels["range_end"], 16),
                                              0.0, 0.0, 0, 0, 0, 0])
            kind = labels.get("kind")
            if name == "ddb_partition_consumed_capacity_units_total":
                p[2 if kind == "read" else 3] = value
            elif name == "ddb_partition_throttled_requests_total":
                p[4 if kind == "read" else 5] = int(value)
            elif name == "ddb_partition_items":
                p[6] = int(value)
            elif name == "ddb_partition_size_bytes":
                p[7] = int(value)
        elif name == "ddb_partition_splits_total":
            entry(labels)["splits"] = int(value)
        elif name == "ddb_hot_key_consumed_capacity_units":
            entry(labels)["hot"].append((int(labels.get("rank", "0")), labels.get("key", ""),
                                         value))
    out = {}
    for k, e in res.items():
        out[k] = {"splits": e["splits"],
                  "partitions": [e["parts"][s] for s in sorted(e["parts"])],
                  "hot": [[key, v] for _, key, v in sorted(e["hot"])]}
    return out


def fetch(endpoint, timeout=10):
    with urllib.request.urlopen(endpoint.rstrip("/") + "/metrics", timeout=timeout) as r:
        return r.read().decode("utf-8", "replace")


# --------------------------------------------------------------------------
# Sampling and recording
# --------------------------------------------------------------------------

def _to_json(sample):
    rs = {}
    for k, e in sample["resources"].items():
        rs[k] = {"splits": e["splits"], "hot": e["hot"],
                 "partitions": [[f"{p[0]:#018x}", f"{p[1]:#018x}", *p[2:]]
                                for p in e["partitions"]]}
    return {"t": round(sample["t"], 4), "resources": rs}


def _from_json(obj):
    rs = {}
    for k, e in obj["resources"].items():
        rs[k] = {"splits": e.get("splits", 0), "hot": e.get("hot", []),
                 "partitions": [[int(p[0], 16), int(p[1], 16), *p[2:]]
                                for p in e["partitions"]]}
    return {"t": obj["t"], "resources": rs}


def load_samples(path):
    with open(path, encoding="utf-8") as f:
        return [_from_json(json.loads(line)) for line in f if line.strip()]


def save_samples(samples, path):
    with open(path, "w", encoding="utf-8") as f:
        for s in samples:
            f.write(json.dumps(_to_json(s)) + "\n")


class Sampler:
    """Samples /metrics in a background thread: start(), then stop() -> samples."""

    def __init__(self, endpoint, interval_s=0.5, record=None):
        self.endpoint = endpoint
        self.interval_s = interval_s
        self.samples = []
        self.errors = 0
        self._record = open(record, "w", encoding="utf-8") if record else None
        self._stop = threading.Event()
        self._thread = None
        self._t0 = None

    def sample_once(self):
        if self._t0 is None:
            self._t0 = time.monotonic()
        t = time.monotonic() - self._t0
        try:
            text = fetch(self.endpoint)
        except OSError:
            self.errors += 1
            return None
        s = {"t": t, "resources": extract(text)}
        self.samples.append(s)
        if self._record:
            self._record.write(json.dumps(_to_json(s)) + "\n")
            self._record.flush()
        return s

    def _run(self):
        # A sample taken just before start() counts as this interval's.
        next_at = time.monotonic() + (self.interval_s if self.samples else 0)
        self._stop.wait(max(0.0, next_at - time.monotonic()))
        while not self._stop.is_set():
            self.sample_once()
            next_at += self.interval_s
            delay = next_at - time.monotonic()
            if delay < 0:  # fell behind (a slow scrape): do not try to catch up
                next_at = time.monotonic()
                delay = 0
            self._stop.wait(delay)

    def start(self):
        if self._t0 is None:
            self._t0 = time.monotonic()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=30)
        # The final state, unless the last sample is recent (a very short interval would
        # make a noisy rate).
        last = self.samples[-1]["t"] if self.samples else None
        if last is None or time.monotonic() - self._t0 - last >= self.interval_s / 2:
            self.sample_once()
        if self._record:
            self._record.close()
            self._record = None
        return self.samples


# --------------------------------------------------------------------------
# Rates per interval
# --------------------------------------------------------------------------

def _units(p, kind):
    if kind == "read":
        return p[2]
    if kind == "write":
        return p[3]
    return p[2] + p[3]


def _throttles(p, kind):
    if kind == "read":
        return p[4]
    if kind == "write":
        return p[5]
    return p[4] + p[5]


def intervals(samples, key, kind="both"):
    """[(t0, t1, [(start, end, units_per_s, throttles), ...], n_partitions, splits), ...]

    A partition is identified by its range start: a split keeps the left half's start
    (and counters) and adds a right half whose counters start at zero. A table or index
    that appears in the middle of the samples starts from zero at the sample before.
    """
    out = []
    prev_parts, prev_t = None, None
    for s in samples:
        e = s["resources"].get(key)
        if e is not None and prev_t is not None and s["t"] > prev_t:
            dt = s["t"] - prev_t
            before = {p[0]: p for p in (prev_parts or [])}
            rows = []
            for p in e["partitions"]:
                q = before.get(p[0])
                du = _units(p, kind) - (_units(q, kind) if q else 0.0)
                dthr = _throttles(p, kind) - (_throttles(q, kind) if q else 0)
                rows.append((p[0], p[1], max(0.0, du) / dt, max(0, dthr)))
            out.append((prev_t, s["t"], rows, len(e["partitions"]), e["splits"]))
        prev_parts = e["partitions"] if e is not None else None
        prev_t = s["t"]
    return out


def summarize(samples, table, index=None, kind="both"):
    """Figures of a run: totals, peak partition rate, throttles, partitions, hot keys."""
    key = resource_key(table, index)
    ivs = intervals(samples, key, kind)
    present = [s for s in samples if key in s["resources"]]
    if not present:
        return {"table": table, "index": index, "samples": 0}
    last = present[-1]["resources"][key]
    # From the first sample on; a resource created during sampling starts from zero.
    if key in samples[0]["resources"]:
        first = samples[0]["resources"][key]
    else:
        first = {"partitions": present[0]["resources"][key]["partitions"], "splits": 0,
                 "zero": True}

    def tot(e, f):
        return 0 if e.get("zero") else sum(f(p, kind) for p in e["partitions"])

    dur = present[-1]["t"] - samples[0]["t"]
    units = tot(last, _units) - tot(first, _units)
    thr = tot(last, _throttles) - tot(first, _throttles)
    peak = max((r[2] for iv in ivs for r in iv[2]), default=0.0)
    per_part = [(p[0], p[1], _units(p, kind), _throttles(p, kind), p[6], p[7])
                for p in last["partitions"]]
    return {"table": table, "index": index, "kind": kind, "samples": len(present),
            "seconds": dur, "units": units, "units_per_s": units / dur if dur > 0 else 0.0,
            "throttles": thr, "partitions_start": len(first["partitions"]),
            "partitions_end": len(last["partitions"]), "splits": last["splits"] - first["splits"],
            "peak_partition_units_per_s": peak, "per_partition": per_part,
            "hot_keys": last["hot"]}


# --------------------------------------------------------------------------
# SVG
# --------------------------------------------------------------------------

# A viridis-like sequential scale (dark blue -> green -> yellow); red is kept for throttles.
_STOPS = [(0.0, (68, 1, 84)), (0.25, (59, 82, 139)), (0.5, (33, 145, 140)),
          (0.75, (94, 201, 98)), (1.0, (253, 231, 37))]
_IDLE = (236, 236, 240)


def colour(x):
    """x in [0, 1] -> '#rrggbb'."""
    x = min(1.0, max(0.0, x))
    for (x0, c0), (x1, c1) in zip(_STOPS, _STOPS[1:]):
        if x <= x1:
            f = (x - x0) / (x1 - x0) if x1 > x0 else 0
            return "#%02x%02x%02x" % tuple(round(a + (b - a) * f) for a, b in zip(c0, c1))
    return "#%02x%02x%02x" % _STOPS[-1][1]


def _fmt(v):
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}".rstrip("0").rstrip(".") if v else "0"


def render_svg(samples, table, index=None, kind="both", title=None, max_rate=None,
               y_scale="hash", width=1000, height=520):
    """The heat map as an SVG document (a string)."""
    key = resource_key(table, index)
    ivs = intervals(samples, key, kind)
    left, right, top, bottom = 96, 150, 56, 64
    pw, ph = width - left - right, height - top - bottom
    parts = []
    a = parts.append
    a(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
      f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" '
      f'font-size="12">')
    a(f'<rect width="{width}" height="{height}" fill="white"/>')
    what = {"both": "read + write", "read": "read", "write": "write"}[kind]
    name = table + (f" / index {index}" if index else "")
    a(f'<text x="{left}" y="22" font-size="16" font-weight="bold">'
      f'{xml_escape(title or "Partition heat map: " + name)}</text>')
    if not ivs:
        a(f'<text x="{left}" y="{top + 20}">no samples of {xml_escape(name)}</text></svg>')
        return "\n".join(parts) + "\n"

    t_start, t_end = ivs[0][0], ivs[-1][1]
    span = max(t_end - t_start, 1e-9)
    peak = max((r[2] for iv in ivs for r in iv[2]), default=0.0)
    vmax = max_rate or peak or 1.0
    total_thr = sum(r[3] for iv in ivs for r in iv[2])
    s = summarize(samples, table, index, kind)
    a(f'<text x="{left}" y="40" fill="#444">{xml_escape(what)} capacity units/s per partition'
      f' &#183; {s["units"]:.0f} units in {s["seconds"]:.1f} s &#183; {total_thr} throttled'
      f' &#183; partitions {s["partitions_start"]} &#8594; {s["partitions_end"]}'
      f' ({s["splits"]} splits)</text>')

    def x_of(t):
        return left + (t - t_start) / span * pw

    def bands(rows):
        """[(y0, y1, row)] for one interval's partitions."""
        if y_scale == "rank":
            h = ph / len(rows)
            return [(top + i * h, top + (i + 1) * h, r) for i, r in enumerate(rows)]
        return [(top + r[0] / SPACE * ph, top + (r[1] + 1) / SPACE * ph, r) for r in rows]

    a('<g shape-rendering="crispEdges">')
    throttle_marks = []
    for t0, t1, rows, _n, _splits in ivs:
        x0, x1 = x_of(t0), x_of(t1)
        for y0, y1, (start, end, rate, thr) in bands(rows):
            h = max(y1 - y0, 1.0)
            fill = "#%02x%02x%02x" % _IDLE if rate <= 0 else colour(rate / vmax)
            tip = (f"{start:#018x}..{end:#018x}: {rate:.1f} units/s"
                   + (f", {thr} throttled" if thr else "") + f" ({t0:.1f}-{t1:.1f} s)")
            a(f'<rect x="{x0:.2f}" y="{y0:.2f}" width="{max(x1 - x0, 0.5):.2f}" '
              f'height="{h:.2f}" fill="{fill}"><title>{xml_escape(tip)}</title></rect>')
            if thr:
                throttle_marks.append((x0, y0, x1 - x0, h, thr))
    a("</g>")
    # Partition boundaries, per interval (they move when partitions split).
    a('<g stroke="white" stroke-width="0.6" opacity="0.8">')
    for t0, t1, rows, _n, _splits in ivs:
        x0, x1 = x_of(t0), x_of(t1)
        for y0, _y1, r in bands(rows)[1:]:
            a(f'<line x1="{x0:.2f}" y1="{y0:.2f}" x2="{x1:.2f}" y2="{y0:.2f}"/>')
    a("</g>")
    # Throttles: a red outline around the cell and a tick on the right edge of the plot.
    a('<g fill="none" stroke="#e00000" stroke-width="1.6">')
    for x0, y0, w, h, thr in throttle_marks:
        a(f'<rect x="{x0 + 0.8:.2f}" y="{y0 + 0.8:.2f}" width="{max(w - 1.6, 0.5):.2f}" '
          f'height="{max(h - 1.6, 0.5):.2f}"><title>{thr} throttled</title></rect>')
    a("</g>")
    a('<g fill="#e00000">')
    for x0, y0, w, h, thr in throttle_marks:
        a(f'<circle cx="{x0 + w / 2:.2f}" cy="{top + ph + 8:.2f}" r="2.2"/>')
    a("</g>")
    # Splits: a dashed line where the partition set changed, with the new count.
    prev_n, prev_starts = None, None
    for t0, t1, rows, n, _splits in ivs:
        starts = [r[0] for r in rows]
        if prev_starts is not None and starts != prev_starts:
            x = x_of(t0)
            a(f'<line x1="{x:.2f}" y1="{top - 4}" x2="{x:.2f}" y2="{top + ph}" stroke="#111" '
              f'stroke-width="1.2" stroke-dasharray="4,3"/>')
            a(f'<text x="{x + 3:.2f}" y="{top - 6}" font-size="10" fill="#111">split: '
              f'{prev_n}&#8594;{n}</text>')
        prev_n, prev_starts = n, starts
    # Axes.
    a(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>')
    step = _nice_step(span)
    t = math.ceil(t_start / step) * step
    while t <= t_end + 1e-9:
        x = x_of(t)
        a(f'<line x1="{x:.2f}" y1="{top + ph}" x2="{x:.2f}" y2="{top + ph + 4}" stroke="#333"/>')
        a(f'<text x="{x:.2f}" y="{top + ph + 26}" text-anchor="middle">{t:g}</text>')
        t += step
    a(f'<text x="{left + pw / 2}" y="{height - 14}" text-anchor="middle">time (s)'
      f'{" &#183; red: throttled" if total_thr else ""}</text>')
    if y_scale == "hash":
        for i in range(5):
            y = top + i / 4 * ph
            label = f"{min(i * SPACE // 4, MAX_TOKEN):#018x}"[:6] + "&#8230;"
            a(f'<line x1="{left - 4}" y1="{y:.2f}" x2="{left}" y2="{y:.2f}" stroke="#333"/>')
            a(f'<text x="{left - 6}" y="{y + 4:.2f}" text-anchor="end" font-size="10">'
              f'{label}</text>')
        ylabel = "partition-key hash"
    else:
        ylabel = "partitions (by hash range)"
    a(f'<text transform="translate(18,{top + ph / 2}) rotate(-90)" text-anchor="middle">'
      f'{ylabel}</text>')
    # Colour bar.
    bx, bw = left + pw + 24, 16
    a('<defs><linearGradient id="scale" x1="0" y1="1" x2="0" y2="0">')
    for x, c in _STOPS:
        a(f'<stop offset="{x}" stop-color="#%02x%02x%02x"/>' % c)
    a("</linearGradient></defs>")
    a(f'<rect x="{bx}" y="{top}" width="{bw}" height="{ph * 0.6:.1f}" fill="url(#scale)" '
      f'stroke="#333"/>')
    a(f'<text x="{bx + bw + 4}" y="{top + 10}">{_fmt(vmax)}</text>')
    a(f'<text x="{bx + bw + 4}" y="{top + ph * 0.6:.1f}">0</text>')
    a(f'<text x="{bx}" y="{top + ph * 0.6 + 18:.1f}" font-size="11">units/s</text>')
    # Hot keys (contributor insights, at the end of the run).
    hot = s.get("hot_keys", [])[:5]
    if hot:
        y = top + ph * 0.6 + 42
        a(f'<text x="{bx}" y="{y:.1f}" font-size="11" font-weight="bold">hottest keys</text>')
        for i, (k, v) in enumerate(hot):
            k = "".join(c if c.isprintable() else "?" for c in k)  # XML has no control chars
            shown = xml_escape(k) if len(k) <= 14 else xml_escape(k[:13]) + "&#8230;"
            a(f'<text x="{bx}" y="{y + 14 * (i + 1):.1f}" font-size="10">'
              f'{shown} {_fmt(v)}</text>')
    a("</svg>")
    return "\n".join(parts) + "\n"


def _nice_step(span):
    raw = span / 8
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def format_summary(s):
    """A few lines of text of summarize()'s figures."""
    if not s.get("samples"):
        return f"no samples of {s['table']}"
    name = s["table"] + (f"/{s['index']}" if s["index"] else "")
    lines = [f"{name}: {s['units']:.0f} {s['kind']} units in {s['seconds']:.1f} s "
             f"({s['units_per_s']:.0f}/s), {s['throttles']} throttled, partitions "
             f"{s['partitions_start']} -> {s['partitions_end']} ({s['splits']} splits), "
             f"hottest partition {s['peak_partition_units_per_s']:.0f} units/s"]
    for start, end, units, thr, items, nbytes in s["per_partition"]:
        lines.append(f"  {start:#018x}..{end:#018x}  {units:10.1f} units  {thr:6d} throttled  "
                     f"{items:7d} items")
    for k, v in s["hot_keys"][:5]:
        lines.append(f"  hot key {k!r}: {v:.1f} units")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--endpoint", default="http://127.0.0.1:8000",
                    help="server to sample (default %(default)s)")
    ap.add_argument("--table", required=True, help="table to draw")
    ap.add_argument("--index", help="draw this global secondary index of the table instead")
    ap.add_argument("--interval-ms", type=int, default=500,
                    help="sampling interval (default %(default)s)")
    ap.add_argument("--duration-s", type=float, default=30, help="sampling time (default 30)")
    ap.add_argument("--out", default="heatmap.svg", help="SVG file to write")
    ap.add_argument("--record", help="also write the samples to this JSON-lines file")
    ap.add_argument("--replay", help="draw from a recorded samples file instead of sampling")
    ap.add_argument("--kind", choices=["both", "read", "write"], default="both",
                    help="capacity drawn (default: read + write units)")
    ap.add_argument("--max-rate", type=float,
                    help="units/s at the top of the colour scale (default: the peak)")
    ap.add_argument("--y-scale", choices=["hash", "rank"], default="hash",
                    help="band height: share of the hash range, or equal per partition")
    ap.add_argument("--title", help="title of the picture")
    args = ap.parse_args(argv)

    if args.replay:
        samples = load_samples(args.replay)
    else:
        sampler = Sampler(args.endpoint, args.interval_ms / 1000.0, record=args.record)
        if sampler.sample_once() is None:
            print(f"cannot GET {args.endpoint}/metrics", file=sys.stderr)
            return 1
        sampler.start()
        try:
            time.sleep(args.duration_s)
        except KeyboardInterrupt:
            pass
        samples = sampler.stop()
    svg = render_svg(samples, args.table, args.index, args.kind, args.title, args.max_rate,
                     args.y_scale)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(svg)
    print(format_summary(summarize(samples, args.table, args.index, args.kind)))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
