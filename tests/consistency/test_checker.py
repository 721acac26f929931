"""The checker finds each anomaly planted in a small history, and passes valid ones (no
server). Run: python3 -m pytest -q tests/consistency"""

import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from checker import check  # noqa: E402


class H:
    """A history under construction: invoke/complete per process, in event order."""

    def __init__(self):
        self.events = []

    def invoke(self, p, value, f="txn-write"):
        self.events.append({"process": p, "type": "invoke", "f": f, "value": value})

    def complete(self, p, type_="ok", value=None, f="txn-write", **extra):
        e = {"process": p, "type": type_, "f": f, "value": value}
        e.update(extra)
        self.events.append(e)

    def op(self, p, value, type_="ok", f="txn-write", **extra):
        """An op that runs alone: invoke, then its completion (value = what it read)."""
        self.invoke(p, [[m[0], m[1], None] if m[0] == "r" else m for m in value], f)
        self.complete(p, type_, value, f, **extra)


def anomalies(h):
    return check(h.events)["anomalies"]


def assert_only(h, *names):
    got = {n for n in anomalies(h) if not n.endswith(":more")}
    assert got == set(names), anomalies(h)


# --- valid histories -------------------------------------------------------------------

def test_serial_history_is_valid():
    h = H()
    h.op(0, [["append", "x", 1], ["append", "y", 1]])
    h.op(1, [["r", "x", [1]], ["r", "y", [1]]], f="txn-read")
    h.op(0, [["append", "x", 2]])
    h.op(1, [["r", "x", [1, 2]]], f="get")
    h.op(2, [["cas", "c", [None, 10]]], f="cas")
    h.op(2, [["cas", "c", [10, 11]]], f="cas")
    h.op(3, [["cas", "c", [10, 12]]], type_="fail", f="cas", cas_false=True)
    h.op(3, [["cas", "c", [11, 13]]], type_="fail", f="cas")  # not sent: did not happen
    h.op(3, [["r", "c", 11]], f="get")
    h.op(4, [["append", "z", 5]], type_="fail")
    r = check(h.events)
    assert r["valid"], r["anomalies"]
    assert r["stats"]["transactions"] == 4


def test_concurrent_ops_may_take_effect_in_either_order():
    h = H()
    h.invoke(0, [["append", "x", 1]])
    h.invoke(1, [["r", "x", None]], f="get")
    h.complete(1, "ok", [["r", "x", [1]]], f="get")   # saw the append before its answer
    h.complete(0, "ok", [["append", "x", 1]])
    h.invoke(2, [["cas", "c", [None, 1]]], f="cas")
    h.invoke(3, [["r", "c", None]], f="get")
    h.complete(3, "ok", [["r", "c", 1]], f="get")
    h.complete(2, "ok", [["cas", "c", [None, 1]]], f="cas")
    assert_only(h)


def test_indeterminate_ops_may_or_may_not_have_happened():
    h = H()
    h.invoke(0, [["append", "x", 1]])
    h.complete(0, "info", None, error="connection reset")
    h.invoke(1, [["append", "y", 1]])
    h.complete(1, "info", None)
    h.op(2, [["r", "x", [1]], ["r", "y", []]], f="txn-read")
    h.invoke(3, [["cas", "c", [None, 7]]], f="cas")
    h.complete(3, "info", None, f="cas")
    h.op(4, [["r", "c", None]], f="get")
    h.op(4, [["r", "c", 7]], f="get")     # took effect late
    h.invoke(5, [["cas", "d", [None, 8]]], f="cas")  # never answered at all
    h.op(6, [["r", "d", None]], f="get")
    assert_only(h)


def _simulated(n_ops, seed, procs=8, info_rate=0.03):
    """A valid history: each op applies atomically at a random point between its invoke and
    completion, against a model store; some ops end info (applied or not)."""
    rng = random.Random(seed)
    lists, regs = {}, {}
    h, busy, nxt = H(), {}, [1]
    rkeys = [f"r{i}" for i in range(3)]
    done, used = 0, set()
    while done < n_ops or busy:
        base = done // 150  # keys retire, as the workload's do, so lists stay short
        keys = [f"k{base + i}" for i in range(6)]
        used.update(keys)
        p = rng.randrange(procs)
        if p not in busy:
            if done >= n_ops:
                continue
            done += 1
            c = rng.random()
            if c < 0.4:
                ks = rng.sample(keys, rng.randint(1, 3))
                value = []
                for k in ks:
                    for _ in range(rng.choice([1, 1, 1, 2])):
                        value.append(["append", k, nxt[0]])
                        nxt[0] += 1
                f = "txn-write"
            elif c < 0.7:
                value = [["r", k, None] for k in rng.sample(keys, rng.randint(1, 3))]
                f = "txn-read"
            else:
                k = rng.choice(rkeys)
                if rng.random() < 0.4:
                    value, f = [["r", k, None]], "get"
                else:
                    old = regs.get(k) if rng.random() < 0.8 else rng.randrange(nxt[0])
                    value, f = [["cas", k, [old, nxt[0]]]], "cas"
                    nxt[0] += 1
            h.invoke(p, value, f)
            busy[p] = [value, f, False, "ok"]
            continue
        value, f, applied, outcome = busy[p]
        if not applied:
            out = []
            for m in value:
                if m[0] == "append":
                    lists.setdefault(m[1], []).append(m[2])
                    out.append(m)
                elif m[0] == "r" and m[1] in rkeys:
                    out.append(["r", m[1], regs.get(m[1])])
                elif m[0] == "r":
                    out.append(["r", m[1], list(lists.get(m[1], []))])
                else:
                    old, new = m[2]
                    if regs.get(m[1]) == old:
                        regs[m[1]] = new
                    else:
                        outcome = "fail"
                    out.append(m)
            if rng.random() < info_rate:
                outcome = "info"
            elif rng.random() < info_rate and f == "txn-write":
                # never applied, answered info (the connection dropped first)
                for m in value:
                    lists[m[1]].remove(m[2])
                outcome = "info"
            busy[p] = [out, f, True, outcome]
            continue
        extra = {"cas_false": True} if outcome == "fail" else {}
        h.complete(p, outcome, value if outcome == "ok" else None, f, **extra)
        del busy[p]
    for k in sorted(used):
        h.op(99, [["r", k, list(lists.get(k, []))]], f="get")
    for k in rkeys:
        h.op(99, [["r", k, regs.get(k)]], f="get")
    return h


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_simulated_concurrent_histories_are_valid(seed):
    h = _simulated(3000, seed)
    r = check(h.events)
    assert r["valid"], r["anomalies"]
    assert r["stats"]["graph_edges"] > 1000


def test_a_big_history_is_checked():
    h = _simulated(30000, 7, procs=16)
    r = check(h.events)
    assert r["valid"], r["anomalies"]
    assert r["stats"]["ops"] > 30000


# --- planted anomalies -----------------------------------------------------------------

def test_g0_write_cycle():
    h = H()
    h.invoke(0, [["append", "x", 1], ["append", "y", 1]])
    h.invoke(1, [["append", "x", 2], ["append", "y", 2]])
    h.complete(0)
    h.complete(1)
    h.op(2, [["r", "x", [1, 2]], ["r", "y", [2, 1]]], f="txn-read")
    assert "G0" in anomalies(h)


def test_g1a_aborted_read():
    h = H()
    h.op(0, [["append", "x", 1]], type_="fail")
    h.op(1, [["r", "x", [1]]], f="get")
    assert_only(h, "G1a")


def test_g1b_intermediate_read():
    h = H()
    h.invoke(0, [["append", "x", 1], ["append", "x", 2]])
    h.op(1, [["r", "x", [1]]], f="get")
    h.complete(0)
    h.op(1, [["r", "x", [1, 2]]], f="get")
    assert_only(h, "G1b")


def test_g1c_circular_information_flow():
    h = H()
    h.invoke(0, [["append", "x", 1], ["r", "y", None]])
    h.invoke(1, [["append", "y", 1], ["r", "x", None]])
    h.complete(0, "ok", [["append", "x", 1], ["r", "y", [1]]])
    h.complete(1, "ok", [["append", "y", 1], ["r", "x", [1]]])
    assert_only(h, "G1c")


def test_g_single_read_skew():
    h = H()
    h.invoke(1, [["r", "x", None], ["r", "y", None]], f="txn-read")
    h.op(0, [["append", "x", 1], ["append", "y", 1]])
    h.complete(1, "ok", [["r", "x", []], ["r", "y", [1]]], f="txn-read")
    h.op(2, [["r", "x", [1]], ["r", "y", [1]]], f="txn-read")
    assert_only(h, "G-single")


def test_g2_write_skew():
    h = H()
    h.invoke(0, [["r", "x", None], ["append", "y", 1]])
    h.invoke(1, [["r", "y", None], ["append", "x", 1]])
    h.complete(0, "ok", [["r", "x", []], ["append", "y", 1]])
    h.complete(1, "ok", [["r", "y", []], ["append", "x", 1]])
    h.op(2, [["r", "x", [1]], ["r", "y", [1]]], f="txn-read")
    assert_only(h, "G2")


def test_lost_acknowledged_append():
    h = H()
    h.op(0, [["append", "x", 1]])
    h.op(0, [["append", "x", 2]])
    h.op(1, [["r", "x", [1]]], f="get")
    assert_only(h, "lost-write")


def test_stale_read_after_acknowledged_append():
    h = H()
    h.op(0, [["append", "x", 1]])
    h.op(0, [["append", "x", 2]])
    h.op(1, [["r", "x", [1]]], f="get")
    h.op(1, [["r", "x", [1, 2]]], f="get")
    assert_only(h, "stale-read")


def test_append_applied_twice():
    h = H()
    h.invoke(0, [["append", "x", 1]])
    h.complete(0, "info", None)
    h.op(0, [["append", "x", 1]], attempts=2)  # an op must not claim a used value...
    h.op(1, [["r", "x", [1, 1]]], f="get")
    a = anomalies(h)
    assert "duplicate-append" in a and "nonunique-append" in a


def test_resent_transaction_applied_twice():
    h = H()
    h.invoke(0, [["append", "x", 1], ["append", "y", 2]])
    h.complete(0, "ok", [["append", "x", 1], ["append", "y", 2]], attempts=2, token="t1")
    h.op(1, [["r", "x", [1, 1]], ["r", "y", [2, 2]]], f="txn-read")
    a = anomalies(h)
    assert set(a) == {"duplicate-append"}
    assert a["duplicate-append"][0]["writer"]["attempts"] == 2


def test_garbage_read():
    h = H()
    h.op(0, [["append", "x", 1]])
    h.op(1, [["r", "x", [1, 77]]], f="get")
    assert_only(h, "garbage-read")


def test_incompatible_orders():
    h = H()
    h.invoke(0, [["append", "x", 1]])
    h.invoke(1, [["append", "x", 2]])
    h.complete(0)
    h.complete(1)
    h.op(2, [["r", "x", [1, 2]]], f="get")
    h.op(2, [["r", "x", [2, 1]]], f="get")
    assert "incompatible-order" in anomalies(h)


def test_cas_from_the_same_value_twice_is_not_linearizable():
    h = H()
    h.op(0, [["cas", "c", [None, 1]]], f="cas")
    h.op(0, [["cas", "c", [1, 2]]], f="cas")
    h.op(1, [["cas", "c", [1, 3]]], f="cas")
    assert_only(h, "nonlinearizable-register")


def test_stale_register_read_is_not_linearizable():
    h = H()
    h.op(0, [["w", "c", 1]], f="put")
    h.op(0, [["w", "c", 2]], f="put")
    h.op(1, [["r", "c", 1]], f="get")
    assert_only(h, "nonlinearizable-register")


def test_failed_cas_that_should_have_succeeded_is_not_linearizable():
    h = H()
    h.op(0, [["cas", "c", [None, 1]]], f="cas")
    h.op(1, [["cas", "c", [1, 2]]], type_="fail", f="cas", cas_false=True)
    assert_only(h, "nonlinearizable-register")


def test_register_read_of_a_value_never_written():
    h = H()
    h.op(0, [["cas", "c", [None, 1]]], f="cas")
    h.op(1, [["r", "c", 5]], f="get")
    assert_only(h, "nonlinearizable-register")


def test_mutating_a_valid_history_is_caught():
    h = _simulated(2000, 11, info_rate=0)
    last = next(e for e in reversed(h.events) if e["type"] == "ok" and e["value"][0][0] == "r"
                and isinstance(e["value"][0][2], list) and len(e["value"][0][2]) > 3)
    last["value"][0][2].pop(1)
    a = anomalies(h)
    assert "incompatible-order" in a or "lost-write" in a, a


def test_malformed_history_is_reported():
    h = H()
    h.complete(0, "ok", [])
    assert "malformed-history" in anomalies(h)
