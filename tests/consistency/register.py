"""Linearizability of compare-and-set registers, one key at a time (Knossos' question,
answered by the Wing-Gong-Lowe search that porcupine uses).

Each register op touches one key: ["r", k, v], ["w", k, v], ["cas", k, [old, new]]. The
model is a single value, null (absent) at first: a read must return it, a write sets it, a
cas sets it to new if it holds old. A failed cas whose completion carries "cas_false": true
(the store said the condition was false) happened with the value != old; any other failed
op did not happen. An info op (indeterminate) may take effect at any point
after its invoke, or never. The search lays the ops out on a line of call and return events,
tries to linearize each pending call in turn, backtracks at a return whose op was not
linearized, and remembers (linearized set, value) pairs already explored. It is bounded by
a step budget per key; a key over budget is reported as unknown, never as a violation.

Not thread-safe; each call checks one history.
"""

INF = float("inf")


def register_ops(ops):
    """{key: [(op, micro-op)]} for ops made of one register micro-op; and ops with register
    micro-ops mixed with others (not checked here)."""
    per_key, mixed = {}, []
    reg_keys = {m[1] for op in ops for m in op.value if m[0] in ("w", "cas")}
    for op in ops:
        ms = [m for m in op.value if m[0] in ("w", "cas") or (m[0] == "r" and m[1] in reg_keys)]
        if not ms:
            continue
        if len(op.value) != 1:
            mixed.append(op)
            continue
        per_key.setdefault(ms[0][1], []).append((op, ms[0]))
    return per_key, mixed


def _step(state, op, m):
    """(legal, new state) of linearizing op (with micro-op m) when the register holds state."""
    f = m[0]
    if f == "r":
        return state == m[2], state
    if f == "w":
        return True, m[2]
    old, new = m[2]
    if op.type == "fail":
        return state != old, state
    return (True, new) if state == old else (False, state)


def check_key(entries, budget):
    """Linearizable? -> ("ok" | "violation" | "unknown", detail)."""
    ops = []
    for op, m in entries:
        if op.type == "fail" and not (m[0] == "cas" and op.extra.get("cas_false")):
            continue  # a failed op did not happen
        if op.type == "info" and m[0] == "r":
            continue  # an unanswered read constrains nothing
        ops.append((op, m))
    # Events: (time, 0 call / 1 return, index into ops). Info ops have no return.
    ev = []
    for i, (op, m) in enumerate(ops):
        ev.append((op.invoke, 0, i))
        if op.complete != INF:
            ev.append((op.complete, 1, i))
    ev.sort()
    n = len(ev)
    # Doubly linked list over event slots 1..n; slot 0 is the head.
    nxt = list(range(1, n + 2))
    prv = list(range(-1, n))
    kind = [None] + [e[1] for e in ev]
    opi = [None] + [e[2] for e in ev]
    ret_slot = {}
    for s in range(1, n + 1):
        if kind[s] == 1:
            ret_slot[opi[s]] = s
    END = n + 1
    returns_left = len(ret_slot)

    def unlink(s):
        nxt[prv[s]] = nxt[s]
        if nxt[s] <= n:
            prv[nxt[s]] = prv[s]

    def relink(s):
        nxt[prv[s]] = s
        if nxt[s] <= n:
            prv[nxt[s]] = s

    state, lin, cache, stack = None, 0, set(), []
    entry, steps, deepest = nxt[0], 0, (0, None)
    while returns_left:
        steps += 1
        if steps > budget:
            return "unknown", {"ops": len(ops), "steps": steps}
        if entry != END and kind[entry] == 0:
            i = opi[entry]
            op, m = ops[i]
            legal, new_state = _step(state, op, m)
            if legal:
                nlin = lin | (1 << i)
                if (nlin, new_state) not in cache:
                    cache.add((nlin, new_state))
                    stack.append((entry, state))
                    state, lin = new_state, nlin
                    unlink(entry)
                    r = ret_slot.get(i)
                    if r is not None:
                        unlink(r)
                        returns_left -= 1
                    entry = nxt[0]
                    continue
            entry = nxt[entry]
        else:
            if entry != END and len(stack) >= deepest[0]:
                deepest = (len(stack), ops[opi[entry]][0])  # the furthest the search got
            if not stack:
                stuck = deepest[1]
                return "violation", {"op": stuck.describe() if stuck else None,
                                     "linearized_at_most": deepest[0]}
            entry, state = stack.pop()
            i = opi[entry]
            lin &= ~(1 << i)
            r = ret_slot.get(i)
            if r is not None:
                relink(r)
                returns_left += 1
            relink(entry)
            entry = nxt[entry]
    return "ok", {"ops": len(ops), "steps": steps}


def analyze(ops, budget=2_000_000, limit=20):
    """Returns (anomalies {name: [reports]}, stats)."""
    per_key, mixed = register_ops(ops)
    found, stats = {}, {"register_keys": len(per_key), "register_ops": 0,
                        "register_unknown_keys": 0}
    for k, entries in per_key.items():
        stats["register_ops"] += len(entries)
        verdict, detail = check_key(entries, budget)
        if verdict == "violation":
            lst = found.setdefault("nonlinearizable-register", [])
            if len(lst) < limit:
                # The ops around the one that could not be placed, for the reader.
                t = detail["op"]
                at = next((o.invoke for o, _ in entries if t and o.id == t["op"]), None)
                near = [op.describe() for op, _ in entries
                        if at is not None and abs(op.invoke - at) < 40][:12]
                lst.append({"key": k, "cannot_linearize": t, "nearby": near})
        elif verdict == "unknown":
            stats["register_unknown_keys"] += 1
    if mixed:
        stats["register_ops_in_transactions_unchecked"] = len(mixed)
    return found, stats
