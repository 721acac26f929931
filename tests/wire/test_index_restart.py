"""GSIs across restarts: the change log and the applier's watermark are durable.

A GSI is fed asynchronously from a change log. With --data-dir, a backlog of
changes not yet applied when the server stops (SIGTERM) or crashes (SIGKILL)
must be applied after the restart -- nothing lost, nothing applied twice.
--gsi-propagation-delay-ms 60000 keeps every change in the backlog while the
first server runs. The index is compared with what a consistent Scan of the
table projects to (DynamoDB's projection rules), and DescribeTable's
per-index ItemCount with the number of entries.
"""

import time

from conftest import (
    ServerProcess, assert_index_matches_table, canon_multiset, collect_pages, eventually,
    expected_index_items, gsi_def, index_description, kill_server, lsi_def, make_client,
    scan_index,
)

TABLE = "restart-idx"
GSIS = ("by_g", "inverted", "by_h")


def S(x):
    return {"S": x}


def N(x):
    return {"N": str(x)}


def _create(c):
    c.create_table(
        TableName=TABLE, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": t} for a, t in
                              (("pk", "S"), ("sk", "S"), ("g", "S"), ("r", "N"), ("h", "N"),
                               ("l", "S"))],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[gsi_def("by_g", "g", "r", "ALL"),
                                gsi_def("inverted", "sk", "pk", "KEYS_ONLY"),
                                gsi_def("by_h", "h", None, "INCLUDE", ["x"])],
        LocalSecondaryIndexes=[lsi_def("by_l", "pk", "l", "KEYS_ONLY")])


def _write_mix(c, tag, n=60):
    """Puts (batch and single), key-changing updates, key removals, overwrites, deletes."""
    items = [{"pk": S(f"{tag}{i:03d}"), "sk": S(f"S{i % 5}"), "g": S(f"G{i % 4}"), "r": N(i),
              "h": N(i % 3), "l": S(f"L{i}"), "x": S("x" * (i % 7)), "y": N(i)}
             for i in range(n)]
    for i in range(0, n, 25):
        resp = c.batch_write_item(RequestItems={TABLE: [{"PutRequest": {"Item": it}}
                                                        for it in items[i:i + 25]]})
        assert not resp.get("UnprocessedItems")

    def key(i):
        return {"pk": items[i]["pk"], "sk": items[i]["sk"]}

    for i in range(0, n, 6):      # move within/between GSI partitions
        c.update_item(TableName=TABLE, Key=key(i), UpdateExpression="SET g = :g, r = :r",
                      ExpressionAttributeValues={":g": S("moved"), ":r": N(1000 + i)})
    for i in range(1, n, 7):      # leave by_g (sparse) and by_h
        c.update_item(TableName=TABLE, Key=key(i), UpdateExpression="REMOVE r, h")
    for i in range(2, n, 8):      # deleted items leave every index
        c.delete_item(TableName=TABLE, Key=key(i))
    for i in range(3, n, 9):      # overwrite: new index keys, no l
        c.put_item(TableName=TABLE, Item={**key(i), "g": S("over"), "r": N(-i), "h": N(9)})
    for i in range(4, n, 10):     # non-key change seen through ALL / INCLUDE projections
        c.update_item(TableName=TABLE, Key=key(i), UpdateExpression="SET x = :x, y = :y",
                      ExpressionAttributeValues={":x": S("changed"), ":y": N(-1)})
    # The same item rewritten many times: only the last version may remain.
    for v in range(15):
        c.put_item(TableName=TABLE, Item={"pk": S(f"{tag}hot"), "sk": S("S0"),
                                          "g": S(f"G{v % 3}"), "r": N(v), "h": N(v)})
    # A batch mixing deletes and puts.
    c.batch_write_item(RequestItems={TABLE: [
        {"DeleteRequest": {"Key": key(5)}},
        {"PutRequest": {"Item": {"pk": S(f"{tag}new"), "sk": S("S1"), "g": S("G0"), "r": N(7)}}},
    ]})


def _expected_counts(c):
    return {idx: len(expected_index_items(c, TABLE, idx)) for idx in GSIS}


def _assert_gsis_exact(c, timeout=10.0):
    """Every GSI eventually equals its projection of the table, and stays so; counts agree."""
    for idx in GSIS:
        assert_index_matches_table(c, TABLE, idx, timeout=timeout)
    want = _expected_counts(c)
    eventually(lambda: {idx: index_description(c, TABLE, idx)["ItemCount"] for idx in GSIS},
               lambda got: got == want, timeout=timeout, describe="GSI ItemCounts")
    # Nothing more arrives afterwards (no duplicate re-apply trickling in).
    time.sleep(0.3)
    for idx in GSIS:
        got = scan_index(c, TABLE, idx)
        assert canon_multiset(got) == canon_multiset(expected_index_items(c, TABLE, idx)), idx
    return want


def _table_items(c):
    items, _ = collect_pages(c.scan, TableName=TABLE, ConsistentRead=True)
    return canon_multiset(items)


def _start(data_dir, tmp_path, *extra):
    return ServerProcess("--data-dir", str(data_dir), *extra, log_dir=str(tmp_path)).start()


def test_gsi_backlog_applied_after_restart(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()

    # 1) Write with a 60 s propagation delay: the whole change log is a backlog.
    srv = _start(data_dir, tmp_path, "--gsi-propagation-delay-ms", "60000")
    try:
        c = make_client(srv.endpoint)
        _create(c)
        _write_mix(c, "a")
        table_before = _table_items(c)
        assert len(table_before) > 50
        # Nothing reached the GSIs yet ...
        for idx in GSIS:
            assert scan_index(c, TABLE, idx) == [], idx
            assert index_description(c, TABLE, idx)["ItemCount"] == 0
        # ... while the LSI is already complete (written with the items).
        assert_index_matches_table(c, TABLE, "by_l", timeout=0)
    finally:
        srv.stop_and_check()

    # 2) Restart without the delay: the backlog is applied, exactly once.
    srv = _start(data_dir, tmp_path)
    try:
        c = make_client(srv.endpoint)
        assert _table_items(c) == table_before
        counts = _assert_gsis_exact(c)
        assert counts["inverted"] == len(table_before)
        assert_index_matches_table(c, TABLE, "by_l", timeout=0)
        # Writes keep flowing into the GSIs after the catch-up.
        c.put_item(TableName=TABLE, Item={"pk": S("late"), "sk": S("S9"), "g": S("G9"),
                                          "r": N(1)})
        c.delete_item(TableName=TABLE, Key={"pk": S("a011"), "sk": S("S1")})
        _assert_gsis_exact(c)
        snapshot = {idx: canon_multiset(scan_index(c, TABLE, idx)) for idx in GSIS}
    finally:
        srv.stop_and_check()

    # 3) Another restart applies nothing twice.
    srv = _start(data_dir, tmp_path)
    try:
        c = make_client(srv.endpoint)
        time.sleep(0.3)
        for idx in GSIS:
            assert canon_multiset(scan_index(c, TABLE, idx)) == snapshot[idx], idx
        counts = _assert_gsis_exact(c)
        assert counts == {idx: len(snapshot[idx]) for idx in GSIS}
    finally:
        srv.stop_and_check()


def test_gsi_backlog_survives_two_delayed_restarts(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    srv = _start(data_dir, tmp_path, "--gsi-propagation-delay-ms", "60000")
    try:
        c = make_client(srv.endpoint)
        _create(c)
        _write_mix(c, "a", n=30)
    finally:
        srv.stop_and_check()

    # Still delayed after the restart: the first backlog stays pending, more joins it.
    srv = _start(data_dir, tmp_path, "--gsi-propagation-delay-ms", "60000")
    try:
        c = make_client(srv.endpoint)
        _write_mix(c, "b", n=30)
        for idx in GSIS:
            assert scan_index(c, TABLE, idx) == [], idx
    finally:
        srv.stop_and_check()

    srv = _start(data_dir, tmp_path)
    try:
        c = make_client(srv.endpoint)
        counts = _assert_gsis_exact(c)
        assert counts["inverted"] == len(_table_items(c))
    finally:
        srv.stop_and_check()


def test_gsi_consistent_after_crash(tmp_path):
    # SIGKILL right after the last acknowledged write, applier possibly mid-way.
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    srv = _start(data_dir, tmp_path)
    try:
        c = make_client(srv.endpoint)
        _create(c)
        _write_mix(c, "a", n=100)
        table_before = _table_items(c)
    finally:
        kill_server(srv)

    srv = _start(data_dir, tmp_path)
    try:
        c = make_client(srv.endpoint)
        assert _table_items(c) == table_before
        _assert_gsis_exact(c)
        assert_index_matches_table(c, TABLE, "by_l", timeout=0)
        assert index_description(c, TABLE, "by_l")["ItemCount"] == \
            len(expected_index_items(c, TABLE, "by_l"))
    finally:
        srv.stop_and_check()
