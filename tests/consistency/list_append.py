"""Elle's list-append analysis: what the reads of append-only lists say about the history.

Every value is appended once (the workload makes them unique), so a read of a list names
the operation behind each element, and the longest read of a key gives the order of its
versions (every other read must be a prefix of it). From that:
  * per read: duplicate elements (an append applied twice), elements no one appended
    (garbage), elements of a failed op (G1a, aborted read), a last element that was not its
    transaction's last append to the key (G1b, intermediate read), a read that is no
    prefix of the longest (incompatible-order);
  * real time: a read invoked after an append was acknowledged must hold it; if the value is
    in no read at all the write is lost (lost-write), otherwise the read is stale
    (stale-read);
  * dependency edges for graph.py: ww between successive appenders of a key, wr from the
    appender of a read's last element to the reader, rw from a reader to the appender of
    the next version after what it read.
Ops that failed are left out of the graph (reading them is G1a already); info ops are in it
when a read shows their effect.

Not thread-safe; one call analyses one history.
"""

from graph import RW, WR, WW, Graph

INF = float("inf")


def _is_list_read(m):
    return m[0] == "r" and (m[2] is None or isinstance(m[2], list))


def list_keys(ops):
    """Keys that are lists: appended to, or read as lists and never written as registers."""
    keys, reg = set(), set()
    for op in ops:
        for m in op.value:
            if m[0] == "append":
                keys.add(m[1])
            elif m[0] in ("w", "cas"):
                reg.add(m[1])
    for op in ops:
        if op.type == "ok":
            for m in op.value:
                if _is_list_read(m) and m[2] is not None and m[1] not in reg:
                    keys.add(m[1])
    return keys


def analyze(ops, keys, limit=20):
    """Returns (anomalies {name: [reports]}, graph, stats)."""
    found = {}

    def report(name, **kw):
        lst = found.setdefault(name, [])
        if len(lst) < limit:
            lst.append(kw)
        else:
            found.setdefault(name + ":more", [0])[0] += 1

    appender = {}   # (k, v) -> op
    op_appends = {}  # (op id, k) -> [v, ...] in order
    for op in ops:
        for m in op.value:
            if m[0] != "append" or m[1] not in keys:
                continue
            k, v = m[1], m[2]
            if (k, v) in appender and appender[(k, v)] is not op:
                report("nonunique-append", key=k, value=v,
                       ops=[appender[(k, v)].describe(), op.describe()])
                continue
            appender[(k, v)] = op
            op_appends.setdefault((op.id, k), []).append(v)

    reads = {}  # k -> [(op, list)]
    for op in ops:
        if op.type != "ok":
            continue
        for m in op.value:
            if _is_list_read(m) and m[1] in keys:
                reads.setdefault(m[1], []).append((op, m[2] or []))

    # Per-read checks. Reads that are prefixes of their key's longest read hold nothing the
    # longest does not, so the elements are checked once there (and in any read that is no
    # prefix); the version order of a key is its longest read.
    def check_elements(k, op, lst):
        seen = {}
        for v in lst:
            seen[v] = seen.get(v, 0) + 1
        for v, n in seen.items():
            w = appender.get((k, v))
            if n > 1:
                if w is not None:
                    twice.add(w.id)
                report("duplicate-append", key=k, value=v, times=n, read=op.describe(),
                       writer=w.describe() if w else None)
            if w is None:
                report("garbage-read", key=k, value=v, read=op.describe())
            elif w.type == "fail":
                report("G1a", key=k, value=v, read=op.describe(), writer=w.describe())

    twice = set()  # ops with an append applied more than once
    order = {}
    for k, rs in reads.items():
        lop, longest = max(rs, key=lambda t: len(t[1]))
        check_elements(k, lop, longest)
        lt = tuple(longest)
        for op, lst in rs:
            if tuple(lst) != lt[:len(lst)]:
                report("incompatible-order", key=k, read=op.describe(), longest=longest)
                check_elements(k, op, lst)
            if lst:
                w = appender.get((k, lst[-1]))
                if w is not None and w is not op and op_appends[(w.id, k)][-1] != lst[-1]:
                    report("G1b", key=k, value=lst[-1], read=op.describe(),
                           writer=w.describe())
        order[k] = list(dict.fromkeys(longest))

    # Real time: reads invoked after an acknowledged append must show it.
    stats = {"list_keys": len(keys), "list_reads": sum(len(r) for r in reads.values()),
             "ops_applied_twice": len(twice),
             "resent_ops_applied_twice": sum(1 for op in ops if op.id in twice
                                             and op.extra.get("attempts", 1) > 1)}
    lost_reported = set()
    acks_by_key = {}
    for (k, v), w in appender.items():
        if w.type == "ok":
            acks_by_key.setdefault(k, []).append((w.complete, v, w))
    for k in keys:
        pos = {v: i for i, v in enumerate(order.get(k, []))}
        acks = sorted(acks_by_key.get(k, []), key=lambda t: t[0])
        rs = sorted(reads.get(k, []), key=lambda t: t[0].invoke)
        best, best_v, best_w, j = -1, None, None, 0
        for op, lst in rs:
            while j < len(acks) and acks[j][0] < op.invoke:
                p = pos.get(acks[j][1], INF)
                if p > best:
                    best, best_v, best_w = p, acks[j][1], acks[j][2]
                j += 1
            if best >= 0 and best >= len(lst) and best >= len(set(lst)):
                if best == INF:
                    if (k, best_v) not in lost_reported:
                        lost_reported.add((k, best_v))
                        report("lost-write", key=k, value=best_v, writer=best_w.describe(),
                               read=op.describe())
                else:
                    report("stale-read", key=k, value=best_v, writer=best_w.describe(),
                           read=op.describe())
    # Acknowledged appends that no read shows, although a read followed them, are lost
    # writes above; those that no read followed cannot be judged: count them.
    in_order = {k: set(vs) for k, vs in order.items()}
    stats["acked_appends"] = sum(len(a) for a in acks_by_key.values())
    stats["acked_appends_unread"] = sum(1 for k, a in acks_by_key.items() for _, v, _ in a
                                        if v not in in_order.get(k, ()))

    # Dependency graph.
    g = Graph()
    for op in ops:
        if op.type == "ok":
            g.succ.setdefault(op.id, {})
    for k, vs in order.items():
        writers = [appender.get((k, v)) for v in vs]
        prev = None
        for w in writers:
            if w is None or w.type == "fail":
                prev = None
                continue
            if prev is not None and prev is not w:
                g.add(prev.id, w.id, WW, k)
            prev = w
        for op, lst in reads.get(k, []):
            n = len(dict.fromkeys(lst))
            last = appender.get((k, lst[-1])) if lst else None
            if last is not None and last.type != "fail":
                g.add(last.id, op.id, WR, k)
            # rw to the next transaction's version: an intermediate read (G1b, reported
            # above) is read from its writer, whose later appends make no new version.
            for i in range(n, len(writers)):
                w = writers[i]
                if w is None or w.type == "fail":
                    break
                if w is not op and w is not last:
                    g.add(op.id, w.id, RW, k)
                    break
    stats["graph_nodes"] = len(g.succ)
    stats["graph_edges"] = g.edge_count()
    return found, g, stats
