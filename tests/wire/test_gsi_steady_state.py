"""Thousands of writes from concurrent clients to a table with GSIs all land in the indexes.

Each client overwrites keys that others write too (Put, Update moving an index key, Delete),
so the indexes see entries move and disappear. A write answers once its GSI change is
applied (read-your-writes, the default), so right after the last write every index must
agree exactly with the table: same keys, same index keys, same item counts. /metrics then
shows no backlog, no skipped record and no write that gave up waiting.
"""

import random
import threading
import urllib.request

import pytest

from conftest import make_client

KEYS = 300
THREADS = 8
WRITES_PER_THREAD = 400


def _metric(endpoint, name):
    with urllib.request.urlopen(endpoint + "/metrics", timeout=10) as r:
        for line in r.read().decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    raise AssertionError(f"{name} missing from /metrics")


def _query_all(ddb, table, index, key_name, value):
    items, kwargs = [], {}
    while True:
        page = ddb.query(TableName=table, IndexName=index,
                         KeyConditionExpression="#k = :v",
                         ExpressionAttributeNames={"#k": key_name},
                         ExpressionAttributeValues={":v": {"S": value}}, **kwargs)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return items
        kwargs = {"ExclusiveStartKey": page["LastEvaluatedKey"]}


@pytest.mark.ddb_only("ddb-server's /metrics")
def test_concurrent_gsi_writes_all_land(ddb, endpoint, table_factory):
    table = table_factory(
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"}
                              for n in ("pk", "g1", "g2")],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[
            {"IndexName": "by-g1", "KeySchema": [{"AttributeName": "g1", "KeyType": "HASH"}],
             "Projection": {"ProjectionType": "ALL"}},
            {"IndexName": "by-g2", "KeySchema": [{"AttributeName": "g2", "KeyType": "HASH"},
                                                 {"AttributeName": "pk", "KeyType": "RANGE"}],
             "Projection": {"ProjectionType": "KEYS_ONLY"}},
        ])
    errors = []

    def writer(seed):
        client = make_client(endpoint)
        rng = random.Random(seed)
        try:
            for _ in range(WRITES_PER_THREAD):
                pk = {"S": f"k{rng.randrange(KEYS)}"}
                op = rng.random()
                if op < 0.6:
                    client.put_item(TableName=table, Item={
                        "pk": pk, "g1": {"S": f"a{rng.randrange(10)}"},
                        "g2": {"S": f"b{rng.randrange(4)}"}, "pad": {"S": "x" * 200}})
                elif op < 0.9:
                    # Moves the item within by-g1, or drops it from by-g2 (sparse index).
                    if rng.random() < 0.5:
                        client.update_item(TableName=table, Key={"pk": pk},
                                           UpdateExpression="SET g1 = :g",
                                           ExpressionAttributeValues={
                                               ":g": {"S": f"a{rng.randrange(10)}"}})
                    else:
                        client.update_item(TableName=table, Key={"pk": pk},
                                           UpdateExpression="REMOVE g2")
                else:
                    client.delete_item(TableName=table, Key={"pk": pk})
        except Exception as e:  # noqa: BLE001 - reported by the main thread
            errors.append(repr(e))

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []

    base = {}
    kwargs = {}
    while True:
        page = ddb.scan(TableName=table, ConsistentRead=True, **kwargs)
        for item in page["Items"]:
            base[item["pk"]["S"]] = item
        if "LastEvaluatedKey" not in page:
            break
        kwargs = {"ExclusiveStartKey": page["LastEvaluatedKey"]}

    in_g1 = {}
    for v in (f"a{i}" for i in range(10)):
        for item in _query_all(ddb, table, "by-g1", "g1", v):
            assert item["pk"]["S"] not in in_g1, "an item listed twice in by-g1"
            in_g1[item["pk"]["S"]] = item
    expected_g1 = {pk: item for pk, item in base.items() if "g1" in item}
    assert in_g1 == expected_g1  # ALL projection: whole items, as in the table

    in_g2 = {}
    for v in (f"b{i}" for i in range(4)):
        for item in _query_all(ddb, table, "by-g2", "g2", v):
            in_g2[item["pk"]["S"]] = item["g2"]["S"]
    assert in_g2 == {pk: item["g2"]["S"] for pk, item in base.items() if "g2" in item}

    desc = ddb.describe_table(TableName=table)["Table"]
    counts = {g["IndexName"]: g["ItemCount"] for g in desc["GlobalSecondaryIndexes"]}
    assert counts == {"by-g1": len(in_g1), "by-g2": len(in_g2)}
    assert _metric(endpoint, "ddb_gsi_pending_changes") == 0
    assert _metric(endpoint, "ddb_gsi_unreadable_changes_total") == 0
    assert _metric(endpoint, "ddb_gsi_wait_timeouts_total") == 0
