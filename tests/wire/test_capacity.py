"""Consumed capacity, throttling simulation and /metrics over the wire.

Expectations come from the developer guide ("DynamoDB read and write operations",
"Burst and adaptive capacity", "Throttling" and the ThrottlingReason API shape):

  * reads: item size rounded up to 4 KB; strongly consistent 1 unit per 4 KB, eventually
    consistent half of that, transactional double; Query/Scan sum the bytes of the items
    read in a page and round once; BatchGetItem rounds every item on its own; a read of a
    missing item still costs the minimum;
  * writes: the larger of the old and new item, rounded up to 1 KB; a delete of a missing
    item costs 1; transactional writes double; every secondary index whose entry changes
    costs a write of the entry's size, an index-key change a delete plus a put;
  * ReturnConsumedCapacity TOTAL -> {TableName, CapacityUnits}; INDEXES adds Table and
    LocalSecondaryIndexes / GlobalSecondaryIndexes, each {CapacityUnits};
  * with --simulate-capacity, a partition serves its share of the provisioned throughput
    (capped at 1,000 WCU / 3,000 RCU per second); over-limit requests fail with
    ProvisionedThroughputExceededException carrying ThrottlingReasons, and batch requests
    return the throttled part as UnprocessedItems / UnprocessedKeys.

Item sizes: the sum of attribute-name and value lengths; these tests use only S values so
sizes are exact (`item_of_size`).
"""

import http.client
import json
import math
import re
import threading
import time
import uuid

import pytest
from botocore.exceptions import ClientError

from conftest import (
    ERROR_TYPE_PREFIX,
    TARGET_PREFIX,
    ServerProcess,
    collect_pages,
    delete_table_quietly,
    expect_error,
    gsi_def,
    key_schema_kwargs,
    lsi_def,
    make_client,
    raw_post,
    table_arn,
    unique_name,
    wait_until,
)

PTE = "ProvisionedThroughputExceededException"
PTE_TABLE_MSG = ("The level of configured provisioned throughput for the table was exceeded. "
                 "Consider increasing your provisioning level with the UpdateTable API.")
MAX_TOKEN = 2 ** 64 - 1


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

def item_of_size(size, pk="k", **extra):
    """A wire item of exactly `size` bytes: pk (S) + extra S attributes + padding in "p"."""
    item = {"pk": {"S": pk}}
    used = 2 + len(pk.encode())
    for name, value in extra.items():
        item[name] = {"S": value}
        used += len(name.encode()) + len(value.encode())
    pad = size - used - 1  # the padding attribute's name "p"
    assert pad >= 0, f"item of {size} bytes cannot hold its keys ({used} bytes)"
    item["p"] = {"S": "x" * pad}
    return item


def item_sk_of_size(size, pk, sk, **extra):
    """Like item_of_size, for a table with range key sk (S)."""
    item = {"pk": {"S": pk}, "sk": {"S": sk}}
    used = 2 + len(pk) + 2 + len(sk)
    for name, value in extra.items():
        item[name] = {"S": value}
        used += len(name) + len(value)
    pad = size - used - 1
    assert pad >= 0
    item["p"] = {"S": "x" * pad}
    return item


def total(resp):
    """CapacityUnits of a single-table ConsumedCapacity (dict) or list of one entry."""
    cc = resp["ConsumedCapacity"]
    if isinstance(cc, list):
        assert len(cc) == 1, cc
        cc = cc[0]
    return cc["CapacityUnits"]


def by_table(resp):
    """{table: ConsumedCapacity entry} of a batch / transaction response."""
    return {cc["TableName"]: cc for cc in resp["ConsumedCapacity"]}


def read_units(nbytes, consistent):
    units = max(1, math.ceil(nbytes / 4096))
    return float(units) if consistent else units / 2


def write_units(nbytes):
    return float(max(1, math.ceil(nbytes / 1024)))


# --------------------------------------------------------------------------
# Shape: NONE / TOTAL / INDEXES
# --------------------------------------------------------------------------

def test_consumed_capacity_absent_by_default_and_with_none(ddb, table_s):
    r = ddb.put_item(TableName=table_s, Item=item_of_size(100))
    assert "ConsumedCapacity" not in r
    r = ddb.put_item(TableName=table_s, Item=item_of_size(100), ReturnConsumedCapacity="NONE")
    assert "ConsumedCapacity" not in r
    r = ddb.get_item(TableName=table_s, Key={"pk": {"S": "k"}}, ReturnConsumedCapacity="NONE")
    assert "ConsumedCapacity" not in r


def test_total_shape(ddb, table_s):
    r = ddb.put_item(TableName=table_s, Item=item_of_size(100), ReturnConsumedCapacity="TOTAL")
    assert r["ConsumedCapacity"] == {"TableName": table_s, "CapacityUnits": 1.0}
    r = ddb.get_item(TableName=table_s, Key={"pk": {"S": "k"}}, ReturnConsumedCapacity="TOTAL")
    assert r["ConsumedCapacity"] == {"TableName": table_s, "CapacityUnits": 0.5}


def test_indexes_shape_without_indexes(ddb, table_s):
    r = ddb.put_item(TableName=table_s, Item=item_of_size(100), ReturnConsumedCapacity="INDEXES")
    cc = r["ConsumedCapacity"]
    assert cc["TableName"] == table_s
    assert cc["CapacityUnits"] == 1.0
    assert cc["Table"] == {"CapacityUnits": 1.0}
    assert "GlobalSecondaryIndexes" not in cc and "LocalSecondaryIndexes" not in cc


def test_invalid_return_consumed_capacity(ddb, table_s):
    expect_error(lambda: ddb.put_item(TableName=table_s, Item=item_of_size(100),
                                      ReturnConsumedCapacity="ALL"),
                 "ValidationException", contains="returnConsumedCapacity")


# --------------------------------------------------------------------------
# Writes: 1 KB units
# --------------------------------------------------------------------------

@pytest.mark.parametrize("size,units", [
    (5, 1), (1023, 1), (1024, 1), (1025, 2), (2048, 2), (2049, 3), (3500, 4), (10240, 10),
    (10241, 11), (100 * 1024, 100),
])
def test_put_item_units_at_1kb_boundaries(ddb, table_s, size, units):
    r = ddb.put_item(TableName=table_s, Item=item_of_size(size, pk=f"k{size}"),
                     ReturnConsumedCapacity="TOTAL")
    assert total(r) == units


def test_put_overwrite_costs_the_larger_item(ddb, table_s):
    ddb.put_item(TableName=table_s, Item=item_of_size(3000))
    r = ddb.put_item(TableName=table_s, Item=item_of_size(500), ReturnConsumedCapacity="TOTAL")
    assert total(r) == 3  # the replaced 3,000-byte item
    r = ddb.put_item(TableName=table_s, Item=item_of_size(2100), ReturnConsumedCapacity="TOTAL")
    assert total(r) == 3  # the new 2,100-byte item


def test_update_item_costs_the_larger_of_before_and_after(ddb, table_s):
    key = {"pk": {"S": "k"}}
    ddb.put_item(TableName=table_s, Item=item_of_size(1500))
    r = ddb.update_item(TableName=table_s, Key=key, UpdateExpression="SET a = :v",
                        ExpressionAttributeValues={":v": {"S": "x"}}, ReturnConsumedCapacity="TOTAL")
    assert total(r) == 2  # 1,502 bytes after
    r = ddb.update_item(TableName=table_s, Key=key, UpdateExpression="SET b = :v",
                        ExpressionAttributeValues={":v": {"S": "y" * 700}},
                        ReturnConsumedCapacity="TOTAL")
    assert total(r) == 3  # 2,203 bytes after
    r = ddb.update_item(TableName=table_s, Key=key, UpdateExpression="REMOVE b, p",
                        ReturnConsumedCapacity="TOTAL")
    assert total(r) == 3  # shrinks to 5 bytes, but the item before was 2,203
    # An upsert of a new small item.
    r = ddb.update_item(TableName=table_s, Key={"pk": {"S": "new"}}, UpdateExpression="SET a = :v",
                        ExpressionAttributeValues={":v": {"S": "x"}}, ReturnConsumedCapacity="TOTAL")
    assert total(r) == 1


def test_delete_item_costs_the_deleted_item_and_1_when_missing(ddb, table_s):
    ddb.put_item(TableName=table_s, Item=item_of_size(2500))
    r = ddb.delete_item(TableName=table_s, Key={"pk": {"S": "k"}}, ReturnConsumedCapacity="TOTAL")
    assert total(r) == 3
    r = ddb.delete_item(TableName=table_s, Key={"pk": {"S": "k"}}, ReturnConsumedCapacity="TOTAL")
    assert total(r) == 1
    r = ddb.delete_item(TableName=table_s, Key={"pk": {"S": "never"}},
                        ReturnConsumedCapacity="INDEXES")
    assert r["ConsumedCapacity"]["CapacityUnits"] == 1
    assert r["ConsumedCapacity"]["Table"] == {"CapacityUnits": 1.0}


# --------------------------------------------------------------------------
# Reads: 4 KB units, eventually consistent half
# --------------------------------------------------------------------------

@pytest.mark.parametrize("size,strong,eventual", [
    (100, 1, 0.5), (4096, 1, 0.5), (4097, 2, 1), (8192, 2, 1), (10240, 3, 1.5),
    (3500, 1, 0.5), (12289, 4, 2),
])
def test_get_item_units_at_4kb_boundaries(ddb, table_s, size, strong, eventual):
    ddb.put_item(TableName=table_s, Item=item_of_size(size))
    key = {"pk": {"S": "k"}}
    r = ddb.get_item(TableName=table_s, Key=key, ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
    assert total(r) == strong
    r = ddb.get_item(TableName=table_s, Key=key, ConsistentRead=False,
                     ReturnConsumedCapacity="TOTAL")
    assert total(r) == eventual
    r = ddb.get_item(TableName=table_s, Key=key, ReturnConsumedCapacity="TOTAL")
    assert total(r) == eventual  # eventually consistent is the default


def test_get_item_projection_does_not_reduce_units(ddb, table_s):
    ddb.put_item(TableName=table_s, Item=item_of_size(9000))
    r = ddb.get_item(TableName=table_s, Key={"pk": {"S": "k"}}, ProjectionExpression="pk",
                     ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
    assert r["Item"] == {"pk": {"S": "k"}}
    assert total(r) == 3


def test_get_missing_item_still_costs(ddb, table_s):
    key = {"pk": {"S": "missing"}}
    r = ddb.get_item(TableName=table_s, Key=key, ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
    assert "Item" not in r
    assert total(r) == 1
    r = ddb.get_item(TableName=table_s, Key=key, ReturnConsumedCapacity="TOTAL")
    assert total(r) == 0.5


@pytest.fixture
def query_table(table_factory):
    """pk S / sk S, partition "q" with five items of 2,000 bytes, "r" with one of 100."""
    name = table_factory(("pk", "S"), ("sk", "S"))
    return name


def _fill_query_table(ddb, name):
    for i in range(5):
        ddb.put_item(TableName=name, Item=item_sk_of_size(2000, "q", f"s{i}", n=str(i)))
    ddb.put_item(TableName=name, Item=item_sk_of_size(100, "r", "s0"))


def test_query_rounds_the_sum_of_item_sizes(ddb, query_table):
    _fill_query_table(ddb, query_table)
    kw = dict(TableName=query_table, KeyConditionExpression="pk = :p",
              ExpressionAttributeValues={":p": {"S": "q"}}, ReturnConsumedCapacity="TOTAL")
    # 5 x 2,000 = 10,000 bytes -> 3 units (not 5 x 1 unit).
    r = ddb.query(ConsistentRead=True, **kw)
    assert r["Count"] == 5
    assert total(r) == 3
    r = ddb.query(**kw)
    assert total(r) == 1.5
    # The items read count, not the items returned: a filter or COUNT changes nothing.
    r = ddb.query(ConsistentRead=True, FilterExpression="n = :n",
                  **{**kw, "ExpressionAttributeValues": {":p": {"S": "q"}, ":n": {"S": "0"}}})
    assert r["Count"] == 1 and r["ScannedCount"] == 5
    assert total(r) == 3
    r = ddb.query(ConsistentRead=True, Select="COUNT", **kw)
    assert total(r) == 3
    # Nor does a projection.
    r = ddb.query(ConsistentRead=True, ProjectionExpression="sk", **kw)
    assert total(r) == 3


def test_query_pages_are_rounded_one_by_one(ddb, query_table):
    _fill_query_table(ddb, query_table)
    kw = dict(TableName=query_table, KeyConditionExpression="pk = :p",
              ExpressionAttributeValues={":p": {"S": "q"}}, ReturnConsumedCapacity="TOTAL",
              ConsistentRead=True)
    # Limit=1: five pages of 2,000 bytes, each rounded up to one unit.
    items, pages = collect_pages(ddb.query, Limit=1, **kw)
    assert len(items) == 5
    assert sum(total(p) for p in pages if p["Count"]) == 5
    # Limit=2: 4,000 + 4,000 + 2,000 bytes -> 1 + 1 + 1.
    items, pages = collect_pages(ddb.query, Limit=2, **kw)
    assert [total(p) for p in pages if p["Count"]] == [1, 1, 1]


def test_query_of_nothing_costs_the_minimum(ddb, query_table):
    _fill_query_table(ddb, query_table)
    kw = dict(TableName=query_table, KeyConditionExpression="pk = :p",
              ExpressionAttributeValues={":p": {"S": "nothing"}}, ReturnConsumedCapacity="TOTAL")
    r = ddb.query(ConsistentRead=True, **kw)
    assert r["Count"] == 0
    assert total(r) == 1
    r = ddb.query(**kw)
    assert total(r) == 0.5


def test_scan_rounds_the_sum_of_item_sizes(ddb, query_table):
    _fill_query_table(ddb, query_table)
    # 10,000 + 100 bytes -> 3 units strongly consistent, 1.5 eventually.
    r = ddb.scan(TableName=query_table, ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
    assert r["Count"] == 6
    assert total(r) == 3
    r = ddb.scan(TableName=query_table, ReturnConsumedCapacity="TOTAL")
    assert total(r) == 1.5
    r = ddb.scan(TableName=query_table, ReturnConsumedCapacity="TOTAL", ConsistentRead=True,
                 FilterExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "r"}})
    assert r["Count"] == 1 and r["ScannedCount"] == 6
    assert total(r) == 3
    # Pages of two items: 4,000 + 4,000 + 2,100 bytes (order by hash) -> at least 3 units.
    items, pages = collect_pages(ddb.scan, TableName=query_table, Limit=1, ConsistentRead=True,
                                 ReturnConsumedCapacity="TOTAL")
    assert len(items) == 6
    assert sum(total(p) for p in pages if p["Count"]) == 6


def test_batch_get_rounds_every_item(ddb, table_factory):
    t1 = table_factory()
    t2 = table_factory()
    ddb.put_item(TableName=t1, Item=item_of_size(1536, pk="a"))   # 1.5 KB -> 4 KB
    ddb.put_item(TableName=t1, Item=item_of_size(6656, pk="b"))   # 6.5 KB -> 8 KB
    ddb.put_item(TableName=t2, Item=item_of_size(100, pk="c"))
    keys = [{"pk": {"S": "a"}}, {"pk": {"S": "b"}}]
    r = ddb.batch_get_item(RequestItems={t1: {"Keys": keys, "ConsistentRead": True},
                                         t2: {"Keys": [{"pk": {"S": "c"}}]}},
                           ReturnConsumedCapacity="TOTAL")
    cc = by_table(r)
    assert set(cc) == {t1, t2}
    # 4 KB + 8 KB = 12 KB: 3 units (the sum 8 KB would be 2).
    assert cc[t1] == {"TableName": t1, "CapacityUnits": 3.0}
    assert cc[t2] == {"TableName": t2, "CapacityUnits": 0.5}
    r = ddb.batch_get_item(RequestItems={t1: {"Keys": keys}}, ReturnConsumedCapacity="TOTAL")
    assert by_table(r)[t1]["CapacityUnits"] == 1.5
    r = ddb.batch_get_item(RequestItems={t1: {"Keys": keys}}, ReturnConsumedCapacity="INDEXES")
    assert by_table(r)[t1]["Table"] == {"CapacityUnits": 1.5}


def test_batch_write_counts_every_item(ddb, table_factory):
    t1 = table_factory()
    t2 = table_factory()
    ddb.put_item(TableName=t1, Item=item_of_size(2500, pk="old"))
    r = ddb.batch_write_item(RequestItems={
        t1: [{"PutRequest": {"Item": item_of_size(1500, pk="a")}},    # 2
             {"PutRequest": {"Item": item_of_size(500, pk="b")}},     # 1
             {"DeleteRequest": {"Key": {"pk": {"S": "old"}}}},        # 3
             {"DeleteRequest": {"Key": {"pk": {"S": "missing"}}}}],   # 1
        t2: [{"PutRequest": {"Item": item_of_size(1024, pk="c")}}],   # 1
    }, ReturnConsumedCapacity="TOTAL")
    assert r["UnprocessedItems"] == {}
    cc = by_table(r)
    assert cc[t1] == {"TableName": t1, "CapacityUnits": 7.0}
    assert cc[t2] == {"TableName": t2, "CapacityUnits": 1.0}


def test_transactions_cost_double(ddb, table_factory):
    t = table_factory()
    ddb.put_item(TableName=t, Item=item_of_size(1500, pk="upd"))
    ddb.put_item(TableName=t, Item=item_of_size(3000, pk="del"))
    r = ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": t, "Item": item_of_size(1025, pk="new")}},           # 2 x 2
        {"Update": {"TableName": t, "Key": {"pk": {"S": "upd"}},                   # 2 x 2
                    "UpdateExpression": "SET a = :v",
                    "ExpressionAttributeValues": {":v": {"S": "x"}}}},
        {"Delete": {"TableName": t, "Key": {"pk": {"S": "del"}}}},                 # 2 x 3
        {"Delete": {"TableName": t, "Key": {"pk": {"S": "missing"}}}},             # 2 x 1
    ], ReturnConsumedCapacity="TOTAL")
    # Transactional responses (only they) also split the units by kind, as observed on the
    # service: write units for TransactWriteItems, read units for TransactGetItems.
    assert r["ConsumedCapacity"] == [{"TableName": t, "CapacityUnits": 16.0,
                                      "WriteCapacityUnits": 16.0}]

    ddb.put_item(TableName=t, Item=item_of_size(4097, pk="big"))
    r = ddb.transact_get_items(TransactItems=[
        {"Get": {"TableName": t, "Key": {"pk": {"S": "big"}}}},    # 2 x 2
        {"Get": {"TableName": t, "Key": {"pk": {"S": "upd"}}}},    # 2 x 1
    ], ReturnConsumedCapacity="TOTAL")
    assert r["ConsumedCapacity"] == [{"TableName": t, "CapacityUnits": 6.0,
                                      "ReadCapacityUnits": 6.0}]


def test_transactions_report_each_table(ddb, table_factory):
    t1 = table_factory()
    t2 = table_factory()
    r = ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": t1, "Item": item_of_size(100, pk="a")}},
        {"Put": {"TableName": t2, "Item": item_of_size(2000, pk="b")}},
    ], ReturnConsumedCapacity="INDEXES")
    cc = by_table(r)
    assert cc[t1]["CapacityUnits"] == 2
    assert cc[t1]["WriteCapacityUnits"] == 2
    assert cc[t1]["Table"] == {"CapacityUnits": 2.0, "WriteCapacityUnits": 2.0}
    assert cc[t2]["CapacityUnits"] == 4
    assert cc[t2]["Table"] == {"CapacityUnits": 4.0, "WriteCapacityUnits": 4.0}


def test_transaction_capacity_split_and_replay(ddb, table_factory):
    # Observed on the service: a ConditionCheck on its own reports 2 write units; a
    # TransactGetItems reports read units in the Table breakdown too; a repeat of a
    # successful TransactWriteItems with the same ClientRequestToken applies nothing and
    # reports a transactional read of the items (2 x ceil(size / 4 KB)), not the first
    # call's write units, under its own ReturnConsumedCapacity.
    t = table_factory()
    ddb.put_item(TableName=t, Item=item_of_size(100, pk="c"))
    r = ddb.transact_write_items(TransactItems=[
        {"ConditionCheck": {"TableName": t, "Key": {"pk": {"S": "c"}},
                            "ConditionExpression": "attribute_exists(pk)"}}],
        ReturnConsumedCapacity="INDEXES")
    assert r["ConsumedCapacity"] == [{"TableName": t, "CapacityUnits": 2.0,
                                      "WriteCapacityUnits": 2.0,
                                      "Table": {"CapacityUnits": 2.0,
                                                "WriteCapacityUnits": 2.0}}]
    r = ddb.transact_get_items(TransactItems=[
        {"Get": {"TableName": t, "Key": {"pk": {"S": "c"}}}}], ReturnConsumedCapacity="INDEXES")
    assert r["ConsumedCapacity"] == [{"TableName": t, "CapacityUnits": 2.0,
                                      "ReadCapacityUnits": 2.0,
                                      "Table": {"CapacityUnits": 2.0,
                                                "ReadCapacityUnits": 2.0}}]
    items = [{"Put": {"TableName": t, "Item": item_of_size(1500, pk="tok")}}]
    # Tokens unique to the run: a token is remembered for 10 minutes, and --endpoint may
    # point several runs at one server.
    token1, token2 = (f"cap-replay-{i}-{uuid.uuid4().hex[:16]}" for i in (1, 2))
    first = ddb.transact_write_items(TransactItems=items, ClientRequestToken=token1)
    assert "ConsumedCapacity" not in first
    again = ddb.transact_write_items(TransactItems=items, ClientRequestToken=token1,
                                     ReturnConsumedCapacity="TOTAL")
    assert again["ConsumedCapacity"] == [{"TableName": t, "CapacityUnits": 2.0,
                                          "ReadCapacityUnits": 2.0}]
    first = ddb.transact_write_items(TransactItems=items, ClientRequestToken=token2,
                                     ReturnConsumedCapacity="TOTAL")
    assert first["ConsumedCapacity"] == [{"TableName": t, "CapacityUnits": 4.0,
                                          "WriteCapacityUnits": 4.0}]
    quiet = ddb.transact_write_items(TransactItems=items, ClientRequestToken=token1)
    assert "ConsumedCapacity" not in quiet


# --------------------------------------------------------------------------
# Secondary indexes
# --------------------------------------------------------------------------

@pytest.fixture
def gsi_table(table_factory):
    """pk S; GSI "byg" on g (ALL), GSI "byh" on h (KEYS_ONLY)."""
    return table_factory(
        ("pk", "S"),
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"},
                              {"AttributeName": "h", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
        GlobalSecondaryIndexes=[gsi_def("byg", "g"), gsi_def("byh", "h", projection="KEYS_ONLY")])


def test_gsi_writes_are_counted_per_index(ddb, gsi_table):
    # In both indexes: table 2 (1,500 bytes), byg 2 (ALL), byh 1 (keys only).
    r = ddb.put_item(TableName=gsi_table, Item=item_of_size(1500, g="g1", h="h1"),
                     ReturnConsumedCapacity="INDEXES")
    cc = r["ConsumedCapacity"]
    assert cc["TableName"] == gsi_table
    assert cc["Table"] == {"CapacityUnits": 2.0}
    assert cc["GlobalSecondaryIndexes"] == {"byg": {"CapacityUnits": 2.0},
                                            "byh": {"CapacityUnits": 1.0}}
    assert "LocalSecondaryIndexes" not in cc
    assert cc["CapacityUnits"] == 5
    # TOTAL folds the indexes in.
    r = ddb.put_item(TableName=gsi_table, Item=item_of_size(1500, pk="k2", g="g1", h="h1"),
                     ReturnConsumedCapacity="TOTAL")
    assert r["ConsumedCapacity"] == {"TableName": gsi_table, "CapacityUnits": 5.0}


def test_gsi_write_of_an_unindexed_item_costs_nothing_there(ddb, gsi_table):
    r = ddb.put_item(TableName=gsi_table, Item=item_of_size(100), ReturnConsumedCapacity="INDEXES")
    cc = r["ConsumedCapacity"]
    assert cc["CapacityUnits"] == 1
    assert cc["Table"] == {"CapacityUnits": 1.0}
    assert not cc.get("GlobalSecondaryIndexes")


def test_gsi_key_change_is_a_delete_and_a_put(ddb, gsi_table):
    ddb.put_item(TableName=gsi_table, Item=item_of_size(500, g="g1", h="h1"))
    key = {"pk": {"S": "k"}}
    # g changes: byg deletes the old entry and puts the new one (1 + 1); byh is unchanged
    # (keys only, and its key h did not change).
    r = ddb.update_item(TableName=gsi_table, Key=key, UpdateExpression="SET g = :g",
                        ExpressionAttributeValues={":g": {"S": "g2"}},
                        ReturnConsumedCapacity="INDEXES")
    cc = r["ConsumedCapacity"]
    assert cc["Table"] == {"CapacityUnits": 1.0}
    assert cc["GlobalSecondaryIndexes"] == {"byg": {"CapacityUnits": 2.0}}
    assert cc["CapacityUnits"] == 3
    # A non-key attribute: byg (ALL) rewrites its entry once; byh does not project it.
    r = ddb.update_item(TableName=gsi_table, Key=key, UpdateExpression="SET extra1 = :v",
                        ExpressionAttributeValues={":v": {"S": "v"}},
                        ReturnConsumedCapacity="INDEXES")
    cc = r["ConsumedCapacity"]
    assert cc["GlobalSecondaryIndexes"] == {"byg": {"CapacityUnits": 1.0}}
    assert cc["CapacityUnits"] == 2
    # Removing h takes the item out of byh: a delete there.
    r = ddb.update_item(TableName=gsi_table, Key=key, UpdateExpression="REMOVE h",
                        ReturnConsumedCapacity="INDEXES")
    cc = r["ConsumedCapacity"]
    assert cc["GlobalSecondaryIndexes"] == {"byg": {"CapacityUnits": 1.0},
                                            "byh": {"CapacityUnits": 1.0}}
    # Deleting the item deletes its byg entry.
    r = ddb.delete_item(TableName=gsi_table, Key=key, ReturnConsumedCapacity="INDEXES")
    cc = r["ConsumedCapacity"]
    assert cc["GlobalSecondaryIndexes"] == {"byg": {"CapacityUnits": 1.0}}
    assert cc["CapacityUnits"] == 2


def test_gsi_large_entry_key_change(ddb, gsi_table):
    ddb.put_item(TableName=gsi_table, Item=item_of_size(1500, g="g1"))
    r = ddb.update_item(TableName=gsi_table, Key={"pk": {"S": "k"}}, UpdateExpression="SET g = :g",
                        ExpressionAttributeValues={":g": {"S": "g2"}},
                        ReturnConsumedCapacity="INDEXES")
    cc = r["ConsumedCapacity"]
    # Table: 1,500 bytes -> 2; byg: delete 2 + put 2.
    assert cc["Table"] == {"CapacityUnits": 2.0}
    assert cc["GlobalSecondaryIndexes"] == {"byg": {"CapacityUnits": 4.0}}
    assert cc["CapacityUnits"] == 6


def test_gsi_transactional_index_writes_are_not_doubled(ddb, gsi_table):
    # Only the table's share of a transactional write doubles; each index's costs what the
    # same write costs outside a transaction, and carries WriteCapacityUnits too (captures of
    # the service's answers, nubo-db/dynoxide tests/transactional_index_consumed_capacity.rs).
    r = ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": gsi_table, "Item": item_of_size(500, g="g1", h="h1")}}],
        ReturnConsumedCapacity="INDEXES")
    cc = r["ConsumedCapacity"][0]
    assert cc["Table"] == {"CapacityUnits": 2.0, "WriteCapacityUnits": 2.0}
    assert cc["GlobalSecondaryIndexes"] == {
        "byg": {"CapacityUnits": 1.0, "WriteCapacityUnits": 1.0},
        "byh": {"CapacityUnits": 1.0, "WriteCapacityUnits": 1.0}}
    assert cc["CapacityUnits"] == 4
    # A key move on a 1,500-byte item: the table 2 x 2, the index 2 + 2 undoubled.
    ddb.put_item(TableName=gsi_table, Item=item_of_size(1500, pk="mv", g="g1"))
    r = ddb.transact_write_items(TransactItems=[{"Update": {
        "TableName": gsi_table, "Key": {"pk": {"S": "mv"}}, "UpdateExpression": "SET g = :g",
        "ExpressionAttributeValues": {":g": {"S": "g2"}}}}], ReturnConsumedCapacity="INDEXES")
    cc = r["ConsumedCapacity"][0]
    assert cc["Table"]["CapacityUnits"] == 4
    assert cc["GlobalSecondaryIndexes"]["byg"]["CapacityUnits"] == 4
    assert cc["CapacityUnits"] == 8


def test_transactional_condition_check_is_a_write_of_the_item_it_read(ddb, gsi_table):
    # 2 x ceil(3,000 / 1 KB) = 6, not 2 x ceil(3,000 / 4 KB) (the same captures).
    ddb.put_item(TableName=gsi_table, Item=item_of_size(3000, pk="cc", g="g1"))
    r = ddb.transact_write_items(TransactItems=[{"ConditionCheck": {
        "TableName": gsi_table, "Key": {"pk": {"S": "cc"}},
        "ConditionExpression": "attribute_exists(pk)"}}], ReturnConsumedCapacity="INDEXES")
    cc = r["ConsumedCapacity"][0]
    assert cc["CapacityUnits"] == 6
    assert cc["Table"]["CapacityUnits"] == 6
    assert "GlobalSecondaryIndexes" not in cc


@pytest.mark.parametrize("action", ["delete", "shrinking-put", "check"])
def test_transaction_replay_reads_the_larger_image(ddb, gsi_table, action):
    # A repeat with the same token is a transactional read of the larger of each item's two
    # images: a 9,000-byte item is 2 x ceil(9,000 / 4 KB) = 6 whether the call deleted it,
    # shrank it or only checked it (the same captures).
    pk = "replay-" + action
    ddb.put_item(TableName=gsi_table, Item=item_of_size(9000, pk=pk))
    key = {"pk": {"S": pk}}
    act = {"delete": {"Delete": {"TableName": gsi_table, "Key": key}},
           "shrinking-put": {"Put": {"TableName": gsi_table, "Item": key}},
           "check": {"ConditionCheck": {"TableName": gsi_table, "Key": key,
                                        "ConditionExpression": "attribute_exists(pk)"}}}[action]
    kw = dict(TransactItems=[act], ReturnConsumedCapacity="TOTAL", ClientRequestToken=pk)
    first = ddb.transact_write_items(**kw)["ConsumedCapacity"][0]["CapacityUnits"]
    replay = ddb.transact_write_items(**kw)["ConsumedCapacity"][0]["CapacityUnits"]
    assert (first, replay) == (18, 6)


def test_gsi_query_reports_the_index(ddb, gsi_table):
    for i in range(3):
        ddb.put_item(TableName=gsi_table, Item=item_of_size(2000, pk=f"k{i}", g="same"))
    kw = dict(TableName=gsi_table, IndexName="byg", KeyConditionExpression="g = :g",
              ExpressionAttributeValues={":g": {"S": "same"}})
    r = wait_until(lambda: ddb.query(**kw)["Count"] == 3)
    assert r
    r = ddb.query(ReturnConsumedCapacity="INDEXES", **kw)
    cc = r["ConsumedCapacity"]
    # 6,000 bytes eventually consistent -> 1 unit, all of it in the index.
    assert cc["CapacityUnits"] == 1
    assert cc["GlobalSecondaryIndexes"] == {"byg": {"CapacityUnits": 1.0}}
    assert cc.get("Table", {"CapacityUnits": 0.0}) == {"CapacityUnits": 0.0}
    r = ddb.query(ReturnConsumedCapacity="TOTAL", **kw)
    assert r["ConsumedCapacity"] == {"TableName": gsi_table, "CapacityUnits": 1.0}


def test_lsi_writes_are_reported(ddb, table_factory):
    t = table_factory(
        ("pk", "S"),
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "S"},
                              {"AttributeName": "l", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        BillingMode="PAY_PER_REQUEST",
        LocalSecondaryIndexes=[lsi_def("byl", "pk", "l")])
    r = ddb.put_item(TableName=t, Item=item_sk_of_size(1500, "a", "s", l="x"),
                     ReturnConsumedCapacity="INDEXES")
    cc = r["ConsumedCapacity"]
    assert cc["Table"] == {"CapacityUnits": 2.0}
    assert cc["LocalSecondaryIndexes"] == {"byl": {"CapacityUnits": 2.0}}
    assert "GlobalSecondaryIndexes" not in cc
    assert cc["CapacityUnits"] == 4
    # An LSI key change: delete + put.
    r = ddb.update_item(TableName=t, Key={"pk": {"S": "a"}, "sk": {"S": "s"}},
                        UpdateExpression="SET l = :l", ExpressionAttributeValues={":l": {"S": "y"}},
                        ReturnConsumedCapacity="INDEXES")
    assert r["ConsumedCapacity"]["LocalSecondaryIndexes"] == {"byl": {"CapacityUnits": 4.0}}


# --------------------------------------------------------------------------
# A Prometheus text-format parser (exposition format 0.0.4)
# --------------------------------------------------------------------------

_METRIC_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_LABEL_NAME = r"[a-zA-Z_][a-zA-Z0-9_]*"
_METRIC_NAME_RE = re.compile(_METRIC_NAME + r"\Z")
_LABEL_NAME_RE = re.compile(_LABEL_NAME)
_FLOAT_RE = re.compile(r"[+-]?(?:Inf|inf|NaN|nan|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\Z")
_TYPES = {"counter", "gauge", "histogram", "summary", "untyped"}


class PromParseError(AssertionError):
    pass


def _parse_labels(text, pos, lineno):
    """Parses `{name="value",...}` starting at text[pos] == '{'. Returns (dict, new pos)."""
    assert text[pos] == "{"
    pos += 1
    labels = {}
    while True:
        if pos < len(text) and text[pos] == "}":
            return labels, pos + 1
        m = _LABEL_NAME_RE.match(text, pos)
        if not m:
            raise PromParseError(f"line {lineno}: bad label name at {text[pos:pos + 20]!r}")
        name = m.group(0)
        pos = m.end()
        if text[pos:pos + 2] != '="':
            raise PromParseError(f"line {lineno}: expected '=\"' after label {name!r}")
        pos += 2
        value = []
        while True:
            if pos >= len(text):
                raise PromParseError(f"line {lineno}: unterminated value of label {name!r}")
            c = text[pos]
            if c == "\\":
                nxt = text[pos + 1:pos + 2]
                if nxt == "\\":
                    value.append("\\")
                elif nxt == '"':
                    value.append('"')
                elif nxt == "n":
                    value.append("\n")
                else:
                    raise PromParseError(f"line {lineno}: bad escape \\{nxt} in label {name!r}")
                pos += 2
            elif c == '"':
                pos += 1
                break
            elif c == "\n":
                raise PromParseError(f"line {lineno}: raw newline in label {name!r}")
            else:
                value.append(c)
                pos += 1
        if name in labels:
            raise PromParseError(f"line {lineno}: duplicate label {name!r}")
        labels[name] = "".join(value)
        if text[pos:pos + 1] == ",":
            pos += 1
        elif text[pos:pos + 1] != "}":
            raise PromParseError(f"line {lineno}: expected ',' or '}}' after label {name!r}")


def _family_of(sample_name, types):
    """The metric family a sample belongs to (histogram/summary suffixes)."""
    if sample_name in types:
        return sample_name
    for suffix in ("_bucket", "_sum", "_count"):
        if sample_name.endswith(suffix):
            base = sample_name[: -len(suffix)]
            if types.get(base) in ("histogram", "summary"):
                return base
    return None


def parse_prometheus(text):
    """Validates every line; returns (samples, types, helps).

    samples: list of (name, {labels}, float value).
    """
    if not text.endswith("\n"):
        raise PromParseError("the exposition must end with a newline")
    samples, types, helps = [], {}, {}
    seen_samples_of = set()
    for lineno, line in enumerate(text.split("\n")[:-1], start=1):
        if line == "":
            continue
        if line.startswith("#"):
            parts = line.split(" ", 3)
            if len(parts) >= 2 and parts[1] in ("HELP", "TYPE"):
                if len(parts) < 3 or not _METRIC_NAME_RE.match(parts[2]):
                    raise PromParseError(f"line {lineno}: bad metric name in {line!r}")
                name = parts[2]
                if parts[1] == "HELP":
                    doc = parts[3] if len(parts) > 3 else ""
                    if re.search(r"\\[^\\n]", doc.replace("\\\\", "")):
                        raise PromParseError(f"line {lineno}: bad escape in HELP {doc!r}")
                    if name in helps:
                        raise PromParseError(f"line {lineno}: second HELP for {name}")
                    helps[name] = doc.replace("\\n", "\n").replace("\\\\", "\\")
                else:
                    if len(parts) != 4 or parts[3] not in _TYPES:
                        raise PromParseError(f"line {lineno}: bad TYPE line {line!r}")
                    if name in types:
                        raise PromParseError(f"line {lineno}: second TYPE for {name}")
                    if name in seen_samples_of:
                        raise PromParseError(f"line {lineno}: TYPE of {name} after its samples")
                    types[name] = parts[3]
            continue  # other comments are allowed
        m = re.match(_METRIC_NAME, line)
        if not m:
            raise PromParseError(f"line {lineno}: bad metric name in {line!r}")
        name = m.group(0)
        pos = m.end()
        labels = {}
        if pos < len(line) and line[pos] == "{":
            labels, pos = _parse_labels(line, pos, lineno)
        rest = line[pos:]
        if not rest.startswith(" "):
            raise PromParseError(f"line {lineno}: expected a space before the value: {line!r}")
        fields = rest.split()
        if len(fields) not in (1, 2):
            raise PromParseError(f"line {lineno}: expected 'value [timestamp]': {rest!r}")
        if not _FLOAT_RE.match(fields[0]):
            raise PromParseError(f"line {lineno}: bad value {fields[0]!r}")
        if len(fields) == 2 and not re.match(r"-?\d+\Z", fields[1]):
            raise PromParseError(f"line {lineno}: bad timestamp {fields[1]!r}")
        value = float(fields[0])
        family = _family_of(name, types) or name
        seen_samples_of.add(family)
        if types.get(family) == "histogram" and name == family + "_bucket" and "le" not in labels:
            raise PromParseError(f"line {lineno}: histogram bucket without le: {line!r}")
        samples.append((name, labels, value))
    # Every series is unique.
    keys = [(n, tuple(sorted(l.items()))) for n, l, _ in samples]
    dups = {k for k in keys if keys.count(k) > 1} if len(keys) < 5000 else set()
    if dups:
        raise PromParseError(f"duplicate series: {sorted(dups)[:3]}")
    return samples, types, helps


def check_histograms(samples, types):
    """Cumulative buckets, ascending le, +Inf bucket == _count."""
    for family, t in types.items():
        if t != "histogram":
            continue
        series = {}
        for name, labels, value in samples:
            if name == family + "_bucket":
                rest = tuple(sorted((k, v) for k, v in labels.items() if k != "le"))
                series.setdefault(rest, []).append((float(labels["le"]), value))
        counts = {tuple(sorted(l.items())): v for n, l, v in samples if n == family + "_count"}
        for rest, buckets in series.items():
            les = [le for le, _ in buckets]
            assert les == sorted(les), f"{family}{rest}: le not ascending"
            assert les[-1] == math.inf, f"{family}{rest}: no +Inf bucket"
            vals = [v for _, v in buckets]
            assert vals == sorted(vals), f"{family}{rest}: buckets not cumulative"
            assert counts.get(rest) == vals[-1], f"{family}{rest}: +Inf bucket != _count"


def test_prometheus_parser_rejects_bad_lines():
    good = ('# HELP m A \\\\ help\\nline.\n# TYPE m counter\n'
            'm{a="x\\"y\\\\z\\n",b=""} 1.5e3\nm 2 1700000000000\n')
    samples, types, helps = parse_prometheus(good)
    assert samples[0] == ("m", {"a": 'x"y\\z\n', "b": ""}, 1500.0)
    assert helps["m"] == "A \\ help\nline."
    assert types == {"m": "counter"}
    for bad in ['m{a="x} 1\n', 'm{a="\\q"} 1\n', "m 1x\n", "9m 1\n", "m{a=x} 1\n",
                "# TYPE m countr\n", "m 1\n# TYPE m counter\n", 'm{a="1",a="2"} 1\n',
                "m 1", "m 1\nm 2\n", "m{} 1 2 3\n"]:
        with pytest.raises(PromParseError):
            parse_prometheus(bad)


def get_metrics(port):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/metrics")
        resp = conn.getresponse()
        body = resp.read()
        assert resp.status == 200
        ctype = resp.getheader("Content-Type", "")
        assert ctype.startswith("text/plain"), ctype
        assert "version=0.0.4" in ctype
        return body.decode("utf-8")  # must be valid UTF-8
    finally:
        conn.close()


def partitions_of(samples, table, index=None, metric="ddb_partition_items"):
    """[(start, end, labels, value)] of a table's (or index's) partitions, by range."""
    rows = []
    for name, labels, value in samples:
        if name != metric or labels.get("table") != table or labels.get("index") != index:
            continue
        rows.append((int(labels["range_start"], 16), int(labels["range_end"], 16), labels, value))
    return sorted(rows, key=lambda r: r[0])


def assert_ranges_cover(rows):
    assert rows, "no partitions"
    assert rows[0][0] == 0
    assert rows[-1][1] == MAX_TOKEN
    for (s1, e1, *_), (s2, _e2, *_) in zip(rows, rows[1:]):
        assert s2 == e1 + 1, f"gap or overlap between {e1:#x} and {s2:#x}"
    assert [int(r[2]["partition"]) for r in rows] == list(range(len(rows)))


@pytest.mark.ddb_only("ddb-server's /metrics")
def test_a_deleted_gsi_leaves_metrics_with_its_name(ddb, server, table_factory):
    # Issue 29: a deleted GSI's partitions stayed in /metrics, so a new GSI of its name made a
    # second series with the same labels (and the text no longer parsed).
    t = table_factory(("pk", "S"), AttributeDefinitions=[
        {"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[gsi_def("byg", "g")])
    ddb.put_item(TableName=t, Item={"pk": {"S": "a"}, "g": {"S": "x"}})
    ddb.update_table(TableName=t, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "byg"}}])
    wait_until(lambda: "GlobalSecondaryIndexes" not in ddb.describe_table(TableName=t)["Table"])
    ddb.update_table(TableName=t, AttributeDefinitions=[
        {"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[{"Create": gsi_def("byg", "g")}])
    wait_until(lambda: ddb.describe_table(TableName=t)["Table"]["GlobalSecondaryIndexes"][0]
               ["IndexStatus"] == "ACTIVE")
    ddb.put_item(TableName=t, Item={"pk": {"S": "b"}, "g": {"S": "y"}})
    samples, _, _ = parse_prometheus(get_metrics(server.port))  # raises on duplicate series
    writes = [v for name, labels, v in samples
              if name == "ddb_consumed_capacity_units_total" and labels.get("table") == t
              and labels.get("index") == "byg" and labels.get("kind") == "write"]
    assert len(writes) == 1


def test_metrics_parse_and_hold_per_partition_series(ddb, server, table_factory):
    t = table_factory(
        ("pk", "S"),
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
        GlobalSecondaryIndexes=[gsi_def("byg", "g")])
    n = 40
    for i in range(n):
        ddb.put_item(TableName=t, Item=item_of_size(200, pk=f"user-{i}", g=f"g{i % 2}"))
    hot = 'quote"back\\slash\nnewline-ü'
    for _ in range(30):
        ddb.put_item(TableName=t, Item=item_of_size(200, pk=hot))
    for i in range(5):
        ddb.get_item(TableName=t, Key={"pk": {"S": f"user-{i}"}}, ConsistentRead=True)
    ddb.scan(TableName=t)
    try:
        ddb.get_item(TableName=t, Key={"nope": {"S": "x"}})
    except ClientError:
        pass

    text = get_metrics(server.port)
    samples, types, helps = parse_prometheus(text)
    check_histograms(samples, types)
    for family in ["ddb_request_duration_seconds", "ddb_request_errors_total", "ddb_table_items",
                   "ddb_table_size_bytes", "ddb_gsi_pending_changes",
                   "ddb_consumed_capacity_units_total", "ddb_throttled_requests_total",
                   "ddb_partition_splits_total", "ddb_partition_consumed_capacity_units_total",
                   "ddb_partition_throttled_requests_total", "ddb_partition_items",
                   "ddb_partition_size_bytes", "ddb_hot_key_consumed_capacity_units"]:
        assert family in types, f"no TYPE for {family}"
        assert family in helps, f"no HELP for {family}"
    assert types["ddb_request_duration_seconds"] == "histogram"
    assert types["ddb_partition_consumed_capacity_units_total"] == "counter"
    assert types["ddb_partition_items"] == "gauge"

    def one(name, **labels):
        got = [v for n_, l, v in samples if n_ == name and l == labels]
        assert len(got) == 1, f"{name}{labels}: {len(got)} samples"
        return got[0]

    # Table figures.
    assert one("ddb_table_items", table=t) == n + 1
    assert one("ddb_table_items", table=t, index="byg") == n
    writes = one("ddb_consumed_capacity_units_total", table=t, kind="write")
    assert writes == n + 30  # 200-byte items: 1 unit each, table only (the GSI separately)
    assert one("ddb_consumed_capacity_units_total", table=t, index="byg", kind="write") == n
    assert one("ddb_consumed_capacity_units_total", table=t, kind="read") >= 5
    assert one("ddb_throttled_requests_total", table=t, kind="write") == 0
    errors = [v for n_, l, v in samples if n_ == "ddb_request_errors_total"
              and l.get("operation") == "GetItem" and l.get("type") == "ValidationException"]
    assert errors and errors[0] >= 1
    assert one("ddb_request_duration_seconds_count", operation="PutItem") >= n + 30

    # Per-partition series: an on-demand table starts with 8 partitions covering the hash
    # space; their figures add up to the table's.
    items = partitions_of(samples, t)
    assert len(items) >= 8
    assert_ranges_cover(items)
    assert sum(r[3] for r in items) == n + 1
    assert sum(1 for r in items if r[3] > 0) >= 4, "40 keys should land in most partitions"
    sizes = partitions_of(samples, t, metric="ddb_partition_size_bytes")
    assert sum(r[3] for r in sizes) == one("ddb_table_size_bytes", table=t)
    cons = [(s, l, v) for s, e, l, v in
            partitions_of(samples, t, metric="ddb_partition_consumed_capacity_units_total")]
    assert {l["kind"] for _, l, _ in cons} == {"read", "write"}
    assert sum(v for _, l, v in cons if l["kind"] == "write") == writes
    thr = partitions_of(samples, t, metric="ddb_partition_throttled_requests_total")
    assert len(thr) == 2 * len(items) and all(r[3] == 0 for r in thr)
    gsi_parts = partitions_of(samples, t, index="byg")
    assert_ranges_cover(gsi_parts)
    assert sum(r[3] for r in gsi_parts) == n
    assert one("ddb_partition_splits_total", table=t) == 0

    # Contributor insights: the hot key first, its label escaped and read back intact.
    hot_keys = sorted(((int(l["rank"]), l["key"], v) for n_, l, v in samples
                       if n_ == "ddb_hot_key_consumed_capacity_units" and l.get("table") == t
                       and "index" not in l))
    assert hot_keys[0] == (1, hot, 30.0)
    assert [r for r, _, _ in hot_keys] == list(range(1, len(hot_keys) + 1))
    assert all(a[2] >= b[2] for a, b in zip(hot_keys, hot_keys[1:]))
    gsi_hot = [l["key"] for n_, l, v in samples
               if n_ == "ddb_hot_key_consumed_capacity_units" and l.get("index") == "byg"]
    assert set(gsi_hot) == {"g0", "g1"}


@pytest.mark.ddb_only("ddb-server's /metrics")
def test_metrics_stay_valid_utf8_with_binary_keys(ddb, server, table_b):
    # A binary partition key is not text; the hot-key label must still be valid UTF-8 (the
    # exposition format is UTF-8) and parse.
    ddb.put_item(TableName=table_b, Item={"pk": {"B": b"\xff\xfe\x00\x01"}})
    text = get_metrics(server.port)
    parse_prometheus(text)


# --------------------------------------------------------------------------
# Throttling simulation (a dedicated server with --simulate-capacity)
# --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sim_server(tmp_path_factory):
    srv = ServerProcess("--in-memory", "--simulate-capacity",
                        log_dir=str(tmp_path_factory.mktemp("sim"))).start()
    yield srv
    srv.stop_and_check()


@pytest.fixture(scope="module")
def sim(sim_server):
    return make_client(sim_server.endpoint)


@pytest.fixture
def sim_table(sim):
    created = []

    def make(rcu, wcu, name=None, **extra):
        name = name or unique_name("sim")
        kwargs = key_schema_kwargs(("pk", "S"))
        kwargs.update(extra)
        sim.create_table(TableName=name, BillingMode="PROVISIONED",
                         ProvisionedThroughput={"ReadCapacityUnits": rcu,
                                                "WriteCapacityUnits": wcu}, **kwargs)
        created.append(name)
        return name

    yield make
    for n in created:
        delete_table_quietly(sim, n)


def hammer(endpoint, table, seconds, threads, item_fn, rate=None):
    """PutItem from `threads` clients for `seconds`; returns (ok, throttled, elapsed, errors).

    item_fn(thread, i) -> item. rate: total requests per second offered (open loop, each
    thread on its own schedule), or None for as fast as the clients go. Errors other than
    throttling are collected and fail the caller.
    """
    ok = [0] * threads
    throttled = [0] * threads
    other = []
    start = time.monotonic()
    deadline = start + seconds

    def run(t):
        c = make_client(endpoint)
        i = 0
        while True:
            now = time.monotonic()
            if rate:
                due = start + (i * threads + t) / rate
                if due > now:
                    time.sleep(due - now)
                    now = time.monotonic()
            if now >= deadline:
                break
            try:
                c.put_item(TableName=table, Item=item_fn(t, i))
                ok[t] += 1
            except ClientError as e:
                if e.response["Error"]["Code"] == PTE:
                    throttled[t] += 1
                else:
                    other.append(e.response["Error"])
            i += 1

    ts = [threading.Thread(target=run, args=(t,)) for t in range(threads)]
    for th in ts:
        th.start()
    for th in ts:
        th.join(timeout=seconds + 30)
    return sum(ok), sum(throttled), time.monotonic() - start, other


def test_no_throttling_without_the_flag(ddb, table_factory):
    t = table_factory(ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    for i in range(30):
        ddb.put_item(TableName=t, Item=item_of_size(100, pk="same"))


def test_single_key_writer_is_throttled_at_the_provisioned_rate(sim_server, sim, sim_table):
    t = sim_table(5, 100)  # one partition of 100 WCU
    ok, throttled, elapsed, other = hammer(
        sim_server.endpoint, t, 3.0, 3, lambda th, i: item_of_size(100, pk="hot", n=str(i)))
    assert not other, other[:3]
    # One second of capacity to start with, then 100 writes per second.
    expected = 100 + 100 * elapsed
    assert throttled > 0, f"{ok} writes in {elapsed:.1f}s were never throttled"
    assert 0.7 * expected <= ok <= 1.3 * expected, \
        f"{ok} writes admitted in {elapsed:.2f}s; expected about {expected:.0f}"
    m, _, _ = parse_prometheus(get_metrics(sim_server.port))
    thr = [v for n, l, v in m if n == "ddb_throttled_requests_total" and l.get("table") == t
           and l.get("kind") == "write" and "index" not in l]
    assert thr == [throttled]
    part_thr = partitions_of(m, t, metric="ddb_partition_throttled_requests_total")
    assert sum(r[3] for r in part_thr if r[2]["kind"] == "write") == throttled


def test_spread_writer_is_not_throttled_where_a_hot_key_is(sim_server, sim, sim_table):
    # 4,000 WCU over 4 partitions of 1,000 WCU. 8 KB items cost 8 units; both writers offer
    # 250 writes/s = 2,000 WCU/s, half the table's capacity. One key lives in one partition
    # and tops out at its 1,000 WCU/s (~125 writes/s); keys spread by hashing put ~500 WCU/s
    # on each partition, within its share.
    big = 8 * 1024
    rate, seconds = 250, 3.0
    hot_t = sim_table(1, 4000)
    spread_t = sim_table(1, 4000)
    ok_hot, thr_hot, el_hot, other = hammer(
        sim_server.endpoint, hot_t, seconds, 4, lambda th, i: item_of_size(big, pk="hot"), rate)
    assert not other, other[:3]
    ok_spread, thr_spread, el_spread, other = hammer(
        sim_server.endpoint, spread_t, seconds, 4,
        lambda th, i: item_of_size(big, pk=f"user-{th}-{i}"), rate)
    assert not other, other[:3]
    msg = (f"hot: {ok_hot} ok / {thr_hot} throttled in {el_hot:.1f}s; "
           f"spread: {ok_spread} ok / {thr_spread} throttled in {el_spread:.1f}s")
    offered_hot = (ok_hot + thr_hot) / el_hot
    if offered_hot < 0.8 * rate or (ok_spread + thr_spread) / el_spread < 0.8 * rate:
        pytest.skip(f"the clients could not offer {rate} writes/s on this machine ({msg})")
    ceiling = (1000 / 8) * (1 + el_hot)  # a first second of tokens, then 1,000 WCU/s
    assert thr_hot > 0, msg
    assert 0.7 * ceiling <= ok_hot <= 1.3 * ceiling, msg
    frac_hot = thr_hot / (ok_hot + thr_hot)
    frac_spread = thr_spread / (ok_spread + thr_spread)
    assert frac_spread < frac_hot, msg
    assert frac_spread <= 0.02, msg
    assert ok_spread > 1.3 * ok_hot, msg


def _raw_put(port, table, item):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        return raw_post(conn, f"http://127.0.0.1:{port}", TARGET_PREFIX + "PutItem",
                        {"TableName": table, "Item": item})
    finally:
        conn.close()


def test_throttle_error_body(sim_server, sim, sim_table):
    t = sim_table(5, 5)
    # A 50 KB item is admitted on the first second's 5 units and leaves the partition (and
    # the table) ~45 units in debt: the next writes are throttled for seconds.
    sim.put_item(TableName=t, Item=item_of_size(50 * 1024, pk="big"))
    resp = _raw_put(sim_server.port, t, item_of_size(100, pk="x"))
    assert resp.status == 400
    body = resp.json()
    assert body["__type"] == ERROR_TYPE_PREFIX + PTE
    assert body["message"] == PTE_TABLE_MSG
    reasons = body["ThrottlingReasons"]
    assert isinstance(reasons, list) and len(reasons) == 1
    assert set(reasons[0]) == {"reason", "resource"}
    assert reasons[0]["reason"] in ("TableWriteProvisionedThroughputExceeded",
                                     "TableWriteKeyRangeThroughputExceeded")
    assert reasons[0]["resource"] == table_arn(t)
    # The SDK sees the modeled exception.
    expect_error(lambda: sim.put_item(TableName=t, Item=item_of_size(100, pk="y")), PTE,
                 PTE_TABLE_MSG)
    # Reads have their own capacity.
    sim.get_item(TableName=t, Key={"pk": {"S": "big"}})


def test_on_demand_maximum_throttles_the_table(sim_server, sim):
    # OnDemandThroughput's MaxWriteRequestUnits caps an on-demand table's writes whatever the
    # keys (issue 29: a maximum of 1 never throttled). Raw JSON: boto3 1.26 predates it.
    name = unique_name("odmax")
    conn = http.client.HTTPConnection("127.0.0.1", sim_server.port, timeout=30)
    try:
        resp = raw_post(conn, sim_server.endpoint, TARGET_PREFIX + "CreateTable", {
            "TableName": name, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "OnDemandThroughput": {"MaxWriteRequestUnits": 5}})
        assert resp.status == 200, resp.body
    finally:
        conn.close()
    try:
        bodies = [_raw_put(sim_server.port, name, {"pk": {"S": f"k{i}"}}) for i in range(40)]
        throttled = [b for b in bodies if b.status != 200]
        assert throttled, "40 writes of distinct keys at once under a maximum of 5 per second"
        body = throttled[0].json()
        assert body["__type"] == ERROR_TYPE_PREFIX + PTE
        assert body["ThrottlingReasons"] == [{"reason": "TableWriteMaxOnDemandThroughputExceeded",
                                              "resource": table_arn(name)}]
        # Reads have no maximum here.
        sim.get_item(TableName=name, Key={"pk": {"S": "k0"}})
    finally:
        delete_table_quietly(sim, name)


def test_gsi_throttle_names_the_index(sim_server, sim, sim_table):
    t = sim_table(5, 1000, AttributeDefinitions=[
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{**gsi_def("byg", "g"),
                                 "ProvisionedThroughput": {"ReadCapacityUnits": 1,
                                                           "WriteCapacityUnits": 1}}])
    # The index's one unit is overdrawn by a 20 KB entry; the table has plenty.
    sim.put_item(TableName=t, Item=item_of_size(20 * 1024, pk="a", g="x"))
    resp = _raw_put(sim_server.port, t, item_of_size(100, pk="b", g="x"))
    assert resp.status == 400, resp.body
    body = resp.json()
    assert body["__type"] == ERROR_TYPE_PREFIX + PTE
    assert "global secondary indexes" in body["message"]
    reason = body["ThrottlingReasons"][0]
    assert reason["reason"].startswith("IndexWrite")
    assert reason["resource"] == table_arn(t) + "/index/byg"
    # A write the index does not see is not held back by it.
    sim.put_item(TableName=t, Item=item_of_size(100, pk="c"))


def test_batch_write_returns_throttled_items_as_unprocessed(sim_server, sim, sim_table):
    t = sim_table(5, 10)  # one partition; 10 units to start with
    items = [item_of_size(100, pk=f"u{i}") for i in range(25)]
    r = sim.batch_write_item(RequestItems={t: [{"PutRequest": {"Item": it}} for it in items]},
                             ReturnConsumedCapacity="TOTAL")
    unprocessed = r["UnprocessedItems"].get(t, [])
    n_done = 25 - len(unprocessed)
    assert 8 <= n_done <= 14, f"{n_done} of 25 written on 10 WCU"
    assert unprocessed, "nothing was throttled"
    assert all(set(u) == {"PutRequest"} for u in unprocessed)
    sent = {json.dumps(it, sort_keys=True) for it in items}
    back = [json.dumps(u["PutRequest"]["Item"], sort_keys=True) for u in unprocessed]
    assert set(back) <= sent and len(set(back)) == len(back)
    # Only the processed part is charged.
    assert total(r) == n_done
    # What was not processed was not written; retrying it eventually writes everything.
    scan = sim.scan(TableName=t, ConsistentRead=True)["Items"]
    assert len(scan) == n_done
    deadline = time.monotonic() + 20
    pending = {t: unprocessed}
    while pending and time.monotonic() < deadline:
        time.sleep(0.5)
        try:
            pending = sim.batch_write_item(RequestItems=pending)["UnprocessedItems"]
        except ClientError as e:
            assert e.response["Error"]["Code"] == PTE
    assert not pending
    assert len(collect_pages(sim.scan, TableName=t, ConsistentRead=True)[0]) == 25


def test_batch_write_fails_when_everything_is_throttled(sim_server, sim, sim_table):
    t = sim_table(5, 5)
    sim.put_item(TableName=t, Item=item_of_size(100 * 1024, pk="big"))  # ~95 units of debt
    expect_error(lambda: sim.batch_write_item(RequestItems={t: [
        {"PutRequest": {"Item": item_of_size(100, pk=f"v{i}")}} for i in range(5)]}),
        PTE, PTE_TABLE_MSG)


def test_batch_get_returns_throttled_keys_as_unprocessed(sim_server, sim, sim_table):
    # One partition with 25 read units per second; its bucket starts with one second's
    # worth when the table is first used, so a BatchGetItem of 100 strongly consistent
    # reads right after loading gets ~25-30 of them (even a stall of a few seconds leaves
    # it well short of 100).
    t = sim_table(25, 500)
    n = 100
    for chunk in range(n // 25):
        sim.batch_write_item(RequestItems={t: [
            {"PutRequest": {"Item": item_of_size(100, pk=f"r{chunk * 25 + i}")}}
            for i in range(25)]})
    keys = [{"pk": {"S": f"r{i}"}} for i in range(n)]
    r = sim.batch_get_item(RequestItems={t: {"Keys": keys, "ConsistentRead": True}},
                           ReturnConsumedCapacity="TOTAL")
    got = r["Responses"].get(t, [])
    unprocessed = r["UnprocessedKeys"].get(t, {}).get("Keys", [])
    assert unprocessed, f"all {len(got)} keys read on 25 RCU"
    assert len(got) + len(unprocessed) == n
    assert 15 <= len(got) <= 95, f"{len(got)} keys read"
    assert r["UnprocessedKeys"][t].get("ConsistentRead") is True
    got_keys = {g["pk"]["S"] for g in got}
    left_keys = {k["pk"]["S"] for k in unprocessed}
    assert not got_keys & left_keys
    assert got_keys | left_keys == {f"r{i}" for i in range(n)}
    assert total(r) == len(got)  # strongly consistent 100-byte items: 1 unit each
    # Retrying the unprocessed keys eventually reads them all.
    pending = r["UnprocessedKeys"]
    deadline = time.monotonic() + 30
    while pending and time.monotonic() < deadline:
        time.sleep(0.5)
        try:
            rr = sim.batch_get_item(RequestItems=pending)
        except ClientError as e:
            assert e.response["Error"]["Code"] == PTE
            continue
        got_keys |= {g["pk"]["S"] for g in rr["Responses"].get(t, [])}
        pending = rr["UnprocessedKeys"]
    assert not pending
    assert got_keys == {f"r{i}" for i in range(n)}


def test_reads_throttle_with_read_reasons(sim_server, sim, sim_table):
    t = sim_table(1, 100)
    sim.put_item(TableName=t, Item=item_of_size(100 * 1024, pk="big"))
    # 100 KB strongly consistent = 25 units on a 1 RCU table.
    sim.get_item(TableName=t, Key={"pk": {"S": "big"}}, ConsistentRead=True)
    conn = http.client.HTTPConnection("127.0.0.1", sim_server.port, timeout=30)
    try:
        resp = raw_post(conn, sim_server.endpoint, TARGET_PREFIX + "GetItem",
                        {"TableName": t, "Key": {"pk": {"S": "big"}}})
    finally:
        conn.close()
    assert resp.status == 400
    body = resp.json()
    assert body["__type"] == ERROR_TYPE_PREFIX + PTE
    assert body["ThrottlingReasons"][0]["reason"] in ("TableReadProvisionedThroughputExceeded",
                                                      "TableReadKeyRangeThroughputExceeded")
    # Writes are unaffected.
    sim.put_item(TableName=t, Item=item_of_size(100, pk="w"))


def test_update_table_throughput_takes_effect(sim_server, sim, sim_table):
    t = sim_table(5, 5)
    sim.put_item(TableName=t, Item=item_of_size(10 * 1024, pk="a"))  # ~5 units of debt
    expect_error(lambda: sim.put_item(TableName=t, Item=item_of_size(100, pk="b")), PTE)
    sim.update_table(TableName=t, ProvisionedThroughput={"ReadCapacityUnits": 5,
                                                         "WriteCapacityUnits": 1000})
    # 1,000 units per second repay the debt within milliseconds.
    assert wait_until(lambda: _raw_put(sim_server.port, t, item_of_size(100, pk="b")).status == 200,
                      timeout=3.0)
    # 200 writes/s: forty times the old rate, a fifth of the new one.
    ok, throttled, elapsed, other = hammer(
        sim_server.endpoint, t, 1.5, 2, lambda th, i: item_of_size(100, pk=f"k{th}-{i}"), 200)
    assert not other
    assert throttled == 0, (ok, throttled)
    assert ok >= 100, (ok, elapsed)


def test_sim_metrics_show_splits_and_throttles(sim_server, sim, sim_table):
    t = sim_table(5, 50)
    hammer(sim_server.endpoint, t, 2.0, 2, lambda th, i: item_of_size(100, pk="hot"))
    samples, types, _ = parse_prometheus(get_metrics(sim_server.port))
    check_histograms(samples, types)
    parts = partitions_of(samples, t, metric="ddb_partition_throttled_requests_total")
    writes = [r for r in parts if r[2]["kind"] == "write"]
    assert_ranges_cover(writes)
    hot_parts = [r for r in writes if r[3] > 0]
    assert len(hot_parts) == 1, "one key throttles in one partition only"
    # Sustained throttling splits the partition right after the hot key.
    splits = [v for n, l, v in samples if n == "ddb_partition_splits_total"
              and l.get("table") == t and "index" not in l]
    assert splits and splits[0] >= 1
    assert len(writes) == splits[0] + 1
    hot_keys = [(l["rank"], l["key"]) for n, l, v in samples
                if n == "ddb_hot_key_consumed_capacity_units" and l.get("table") == t]
    assert hot_keys == [("1", "hot")]


# ---------------------------------------------------------------------------
# ReturnItemCollectionMetrics (tables with local secondary indexes)
# ---------------------------------------------------------------------------

def test_item_collection_metrics_for_tables_with_lsis(ddb, table_factory):
    name = table_factory(
        ("pk", "S"), ("sk", "S"),
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"}
                              for a in ("pk", "sk", "lsk")],
        LocalSecondaryIndexes=[{"IndexName": "by_lsk",
                                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                              {"AttributeName": "lsk", "KeyType": "RANGE"}],
                                "Projection": {"ProjectionType": "ALL"}}])
    r = ddb.put_item(TableName=name, Item={"pk": {"S": "p"}, "sk": {"S": "1"}, "lsk": {"S": "x"}},
                     ReturnItemCollectionMetrics="SIZE")
    assert r["ItemCollectionMetrics"] == {"ItemCollectionKey": {"pk": {"S": "p"}},
                                          "SizeEstimateRangeGB": [0.0, 1.0]}
    r = ddb.update_item(TableName=name, Key={"pk": {"S": "p"}, "sk": {"S": "1"}},
                        UpdateExpression="SET v = :v", ExpressionAttributeValues={":v": {"N": "1"}},
                        ReturnItemCollectionMetrics="SIZE")
    assert r["ItemCollectionMetrics"]["ItemCollectionKey"] == {"pk": {"S": "p"}}
    r = ddb.delete_item(TableName=name, Key={"pk": {"S": "p"}, "sk": {"S": "1"}},
                        ReturnItemCollectionMetrics="SIZE")
    assert r["ItemCollectionMetrics"]["SizeEstimateRangeGB"] == [0.0, 1.0]
    # Not asked for: not reported.
    r = ddb.put_item(TableName=name, Item={"pk": {"S": "p"}, "sk": {"S": "2"}})
    assert "ItemCollectionMetrics" not in r


def test_no_item_collection_metrics_without_lsis(ddb, table_s):
    r = ddb.put_item(TableName=table_s, Item={"pk": {"S": "p"}},
                     ReturnItemCollectionMetrics="SIZE")
    assert "ItemCollectionMetrics" not in r
