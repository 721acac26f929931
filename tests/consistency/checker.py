#!/usr/bin/env python3
"""The consistency checker: a history in (history.py's JSON lines), anomalies out, by name.

    python3 tests/consistency/checker.py HISTORY.jsonl [--json]

Checks (Elle's list-append analysis for the transactions, Knossos' question for the
registers):
  list_append.py  duplicate-append, garbage-read, G1a, G1b, incompatible-order, lost-write,
                  stale-read, nonunique-append, and the dependency graph;
  graph.py        G0, G1c, G-single, G2 cycles in that graph;
  register.py     nonlinearizable-register (compare-and-set registers, per key).
Exits 0 when the history shows no anomaly, 1 when it does, 2 on a malformed history.
Stdlib only; about 10^5 ops take seconds.

Not thread-safe; check() is a pure function of its history.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import graph  # noqa: E402
import list_append  # noqa: E402
import register  # noqa: E402
from history import pair, read_events  # noqa: E402


def check(events, register_budget=2_000_000):
    """{"valid": bool, "anomalies": {name: reports}, "stats": {...}} of a list of events."""
    t0 = time.monotonic()
    ops, problems = pair(events)
    by_id = {op.id: op for op in ops}
    anomalies = {}
    if problems:
        anomalies["malformed-history"] = problems[:20]
    keys = list_append.list_keys(ops)
    found, g, stats = list_append.analyze(ops, keys)
    anomalies.update(found)
    cycles = graph.classify(g, lambda v: by_id[v].describe())
    for name, c in cycles.items():
        anomalies[name] = c["examples"]
        stats[name + "_components"] = c["count"]
    found, rstats = register.analyze(ops, budget=register_budget)
    anomalies.update(found)
    stats.update(rstats)
    stats.update({
        "events": len(events), "ops": len(ops),
        "ok": sum(op.type == "ok" for op in ops),
        "fail": sum(op.type == "fail" for op in ops),
        "info": sum(op.type == "info" for op in ops),
        "transactions": sum(1 for op in ops if op.f in ("txn-write", "txn-read")),
        "transactions_ok": sum(1 for op in ops
                               if op.f in ("txn-write", "txn-read") and op.type == "ok"),
        "resent": sum(1 for op in ops if op.extra.get("attempts", 1) > 1),
        "check_seconds": round(time.monotonic() - t0, 2),
    })
    return {"valid": not anomalies, "anomalies": anomalies, "stats": stats}


def summary(result):
    """A few human lines: figures, then each anomaly kind with a count and one example."""
    s = result["stats"]
    lines = [f"ops {s['ops']} (ok {s['ok']}, fail {s['fail']}, info {s['info']}); "
             f"transactions {s['transactions']} (ok {s['transactions_ok']}); "
             f"resent with their token {s['resent']}; list keys {s['list_keys']}, "
             f"register keys {s['register_keys']} ({s['register_ops']} ops, "
             f"{s['register_unknown_keys']} over budget); graph {s['graph_nodes']} nodes "
             f"{s['graph_edges']} edges; checked in {s['check_seconds']} s"]
    if s.get("ops_applied_twice"):
        lines.append(f"ops with appends applied twice: {s['ops_applied_twice']} "
                     f"({s['resent_ops_applied_twice']} of them resent with their token)")
    if result["valid"]:
        lines.append("no anomalies")
    for name, reports in sorted(result["anomalies"].items()):
        if name.endswith(":more"):
            continue
        more = result["anomalies"].get(name + ":more", [0])[0]
        lines.append(f"ANOMALY {name}: {len(reports) + more}")
        lines.append("  e.g. " + json.dumps(reports[0], default=str)[:1500])
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("history")
    ap.add_argument("--json", action="store_true", help="print the whole result as JSON")
    ap.add_argument("--register-budget", type=int, default=2_000_000,
                    help="search steps per register key before it counts as unknown")
    args = ap.parse_args(argv)
    try:
        events = read_events(args.history)
    except (OSError, ValueError) as e:
        print(f"checker: {e}", file=sys.stderr)
        return 2
    result = check(events, args.register_budget)
    print(json.dumps(result, default=str, indent=1) if args.json else summary(result))
    return 0 if result["valid"] else 1


if __name__ == "__main__":
    sys.exit(main())
