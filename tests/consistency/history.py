"""A history of client operations, as Jepsen records it, and its pairing into operations.

A history is JSON lines, one event each, in the order the events happened:

    {"process": 3, "type": "invoke", "f": "txn", "value": [["append", "k1", 17], ["r", "k2", null]]}
    {"process": 3, "type": "ok",     "f": "txn", "value": [["append", "k1", 17], ["r", "k2", [4, 9]]]}

type is invoke, then one of ok (it happened, the completion holds what was read), fail (it
certainly did not happen: a 4xx answer) or info (indeterminate: it may or may not have
happened, now or at any later time). Micro-ops: ["append", k, v] (append v to the list at k),
["r", k, [..]] (read the list at k; null = absent), ["w", k, v] (write register k),
["cas", k, [old, new]] (set register k to new if it holds old; old null = absent),
["r", k, v] (read register k). A failed cas whose completion says "cas_false": true was
refused because the register did not hold old (other failed ops did not happen). Optional
fields kept for reports: "attempts" (how many times
the request was sent, e.g. a TransactWriteItems resent with its ClientRequestToken), "token",
"error". An invoke with no completion by the end of the history counts as info.

The position of an event in the history is its time: op A precedes op B in real time when
A's completion comes before B's invoke.

Not thread-safe: build a History in one thread (the workload serialises its writes to it).
"""

import json

INF = float("inf")


class Op:
    """One operation: its invoke and its completion, paired."""

    __slots__ = ("id", "process", "type", "f", "value", "invoke", "complete", "extra")

    def __init__(self, id_, process, type_, f, value, invoke, complete, extra):
        self.id = id_              # dense index among the history's operations
        self.process = process
        self.type = type_          # "ok", "fail" or "info"
        self.f = f
        self.value = value         # micro-ops: the completion's for ok, else the invoke's
        self.invoke = invoke       # event index of the invoke
        self.complete = complete   # event index of the completion; INF for info
        self.extra = extra         # attempts, token, error... (for reports)

    def describe(self):
        d = {"op": self.id, "process": self.process, "type": self.type, "f": self.f,
             "value": self.value}
        d.update(self.extra)
        return d


def read_events(path):
    """The events of a JSON-lines history file."""
    events = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{n}: not JSON: {e}") from None
    return events


def pair(events):
    """Ops from events: each invoke with the next completion of its process.

    Returns (ops, problems); problems lists malformed events (a completion with no invoke, an
    invoke while the process has one open), which make the history itself suspect.
    """
    ops, problems, open_ = [], [], {}
    for i, e in enumerate(events):
        p, t = e.get("process"), e.get("type")
        if p == "nemesis":
            continue  # kills and restarts: context for readers, no client op
        if t == "invoke":
            if p in open_:
                problems.append(f"event {i}: process {p} invokes with op at event "
                                f"{open_[p][0]} still open")
            open_[p] = (i, e)
        elif t in ("ok", "fail", "info"):
            if p not in open_:
                problems.append(f"event {i}: completion for process {p} with no invoke")
                continue
            j, inv = open_.pop(p)
            value = e.get("value") if t == "ok" and e.get("value") is not None else inv.get("value")
            extra = {k: v for k, v in e.items()
                     if k not in ("process", "type", "f", "value", "time")}
            ops.append(Op(len(ops), p, t, inv.get("f"), value or [], j,
                          INF if t == "info" else i, extra))
        else:
            problems.append(f"event {i}: unknown type {t!r}")
    for p, (j, inv) in open_.items():
        ops.append(Op(len(ops), p, "info", inv.get("f"), inv.get("value") or [], j, INF,
                      {"unfinished": True}))
    return ops, problems
