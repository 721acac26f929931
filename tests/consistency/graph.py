"""The dependency graph between transactions, its cycles, and their names (Adya, as Elle
names them).

Edges carry a bit mask of their kinds: WW (b overwrote, here appended after, a's write),
WR (b read a's write), RW (b overwrote what a read: an anti-dependency). A cycle is
  G0        only WW edges (dirty write);
  G1c       WW and WR edges, at least one WR (circular information flow);
  G-single  exactly one RW edge (read skew; Adya's G-single, a kind of G2);
  G2        two or more RW edges (G2-item: anti-dependency cycle, e.g. write skew).
Strongly connected components come from an iterative Tarjan (no recursion limit), so the
search is linear in the graph; each component is named by its worst cycle kinds, with one
example cycle of each.

Not thread-safe; a Graph is built and searched by one thread.
"""

from collections import deque

WW, WR, RW = 1, 2, 4
KIND_NAMES = {WW: "ww", WR: "wr", RW: "rw"}


class Graph:
    def __init__(self):
        self.succ = {}   # node -> {dst: mask}
        self.why = {}    # (src, dst, kind) -> key that made the edge (first seen)

    def add(self, a, b, kind, key):
        if a == b:
            return
        s = self.succ.setdefault(a, {})
        s[b] = s.get(b, 0) | kind
        self.succ.setdefault(b, {})
        self.why.setdefault((a, b, kind), key)

    def edge_count(self):
        return sum(len(s) for s in self.succ.values())


def tarjan(nodes, succ, mask=WW | WR | RW):
    """Strongly connected components of size > 1 among nodes, following edges whose mask
    shares a bit with mask. Iterative; returns a list of lists of nodes."""
    index, low, on_stack = {}, {}, set()
    stack, comps, counter = [], [], 0
    node_set = nodes if isinstance(nodes, (set, frozenset, dict)) else set(nodes)
    for root in node_set:
        if root in index:
            continue
        work = [(root, iter(succ.get(root, {}).items()))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w, m in it:
                if not (m & mask) or w not in node_set:
                    continue
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(succ.get(w, {}).items())))
                    advanced = True
                    break
                if w in on_stack and index[w] < low[v]:
                    low[v] = index[w]
            if advanced:
                continue
            work.pop()
            if work:
                u = work[-1][0]
                if low[v] < low[u]:
                    low[u] = low[v]
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(comp)
    return comps


def path(succ, src, dst, allowed, mask):
    """Shortest path src -> dst inside allowed along edges sharing a bit with mask, as a
    list of (node, kind-bit of the edge leaving it) ending with (dst, None); or None."""
    prev = {src: None}
    q = deque([src])
    while q:
        v = q.popleft()
        if v == dst:
            break
        for w, m in succ.get(v, {}).items():
            if (m & mask) and w in allowed and w not in prev:
                prev[w] = (v, m & mask)
                q.append(w)
    if dst not in prev:
        return None
    out, v, kind = [], dst, None
    while v is not None:
        out.append((v, kind))
        p = prev[v]
        if p is None:
            break
        v, m = p
        kind = _lowest(m, prefer=(WW, WR, RW))
    out.reverse()
    return out


def _lowest(m, prefer):
    for k in prefer:
        if m & k:
            return k
    return None


def _cycle_from(g, a, b, kind, allowed, mask):
    """The cycle a -kind-> b ... -> a, with b->a inside allowed along mask, or None."""
    p = path(g.succ, b, a, allowed, mask)
    if p is None:
        return None
    return [(a, kind)] + p[:-1] + [(a, None)]


def _render(g, cycle, describe):
    steps = []
    for (v, kind), (w, _) in zip(cycle, cycle[1:]):
        steps.append({"from": describe(v), "edge": KIND_NAMES[kind],
                      "key": g.why.get((v, w, kind)), "to_op": w})
    return steps


def classify(g, describe, examples_per_kind=3, max_single_tries=64):
    """Cycles of g by name: {name: {"count": components, "examples": [cycle steps]}}."""
    found = {}

    def note(name, cycle):
        e = found.setdefault(name, {"count": 0, "examples": []})
        e["count"] += 1
        if len(e["examples"]) < examples_per_kind:
            e["examples"].append(_render(g, cycle, describe))

    for comp in tarjan(g.succ, g.succ):
        cset = set(comp)
        sub = {v: g.succ[v] for v in comp}
        # G0: a cycle of ww edges alone.
        for c in tarjan(cset, sub, WW):
            cs = set(c)
            a = c[0]
            b = next(w for w, m in sub[a].items() if (m & WW) and w in cs)
            note("G0", _cycle_from(g, a, b, WW, cs, WW))
        # G1c: a cycle of ww and wr edges with a wr edge in it.
        comp_of = {}
        for n, c in enumerate(tarjan(cset, sub, WW | WR)):
            cs = set(c)
            for v in c:
                comp_of[v] = n
            wr = next(((v, w) for v in c for w, m in sub[v].items() if (m & WR) and w in cs),
                      None)
            if wr is not None:
                note("G1c", _cycle_from(g, wr[0], wr[1], WR, cs, WW | WR))
        # G-single: an rw edge whose ends lie in one ww/wr component (one rw, rest ww/wr).
        rw_edges = [(v, w) for v in comp for w, m in sub[v].items() if (m & RW) and w in cset]
        single = next(((v, w) for v, w in rw_edges
                       if v in comp_of and comp_of[v] == comp_of.get(w)), None)
        if single is not None:
            v, w = single
            members = {x for x, n in comp_of.items() if n == comp_of[v]}
            note("G-single", _cycle_from(g, v, w, RW, members, WW | WR))
            continue
        # Otherwise an rw edge v -> w is G-single when w reaches v along ww/wr edges: try a
        # bounded number of them (each search is linear), else name the component G2.
        for v, w in rw_edges[:max_single_tries]:
            c = _cycle_from(g, v, w, RW, cset, WW | WR)
            if c is not None:
                note("G-single", c)
                break
        else:
            if rw_edges:
                v, w = rw_edges[0]
                note("G2", _cycle_from(g, v, w, RW, cset, WW | WR | RW))
    return found
