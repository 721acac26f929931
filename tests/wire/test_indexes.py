"""Secondary indexes on the wire: local (LSI) and global (GSI) secondary indexes.

Expected behaviour comes from the DynamoDB developer guide ("Improving data
access with secondary indexes", the GSI and LSI pages, "Attribute
projections", "Take advantage of sparse indexes", "Overloading global
secondary indexes") and the API reference (Query / Scan: IndexName, Select,
ConsistentRead, ExclusiveStartKey / LastEvaluatedKey). Error texts are those
observed on the real service as pinned by independent suites written against
it (ScyllaDB Alternator's test_gsi.py / test_lsi.py, dynalite's validation
tests, moto); a comment marks every message whose exact wording is less
certain, and those are asserted loosely.

GSIs are eventually consistent: the server feeds them asynchronously from its
change log, so every GSI read that follows a write polls (bounded by
GSI_TIMEOUT_S) instead of sleeping. LSIs are updated with the item, so LSI
reads are checked without any wait.

Also covered, at the end: UpdateTable creating a GSI with a
backfill, and multi-attribute GSI keys.
"""

import time

import pytest

from conftest import (
    TARGET_PREFIX, ServerProcess, assert_index_matches_table, http_connection, raw_post, canon_multiset, collect_pages,
    delete_table_quietly, eventually, eventually_items, expect_error, gsi_def,
    index_description, lsi_def, make_client, query_index, scan_index, unique_name,
)
from conftest import gsi_create_update as _create, gsi_names as _index_names
from conftest import string_attribute_definitions as _defs

# -------------------------------------------------------------------------
# Messages
# -------------------------------------------------------------------------

CONSISTENT_GSI = "Consistent reads are not supported on global secondary indexes"


def no_such_index(name):
    # Alternator (against DynamoDB): ValidationException naming the index.
    return f"The table does not have the specified index: {name}"


def select_all_not_supported(name):
    # dynalite pins this text verbatim for Query and Scan.
    return ("One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not "
            f"supported for global secondary index {name} because its projection type is not ALL")


def type_mismatch(attr, expected, actual, index):
    # dynalite (PutItem, UpdateItem, BatchWriteItem) and production logs of the
    # real service ("... Expected: S Actual: NULL IndexName: ...").
    return (f"One or more parameter values were invalid: Type mismatch for Index Key {attr} "
            f"Expected: {expected} Actual: {actual} IndexName: {index}")


def empty_index_key(attr, index):
    # moto, several emulators and production logs of the real service (PutItem).
    return ("One or more parameter values are not valid. A value specified for a secondary "
            "index key is not supported. The AttributeValue for a key attribute cannot contain "
            f"an empty string value. IndexName: {index}, IndexKey: {attr}")


# UpdateItem setting an index key of an existing item to "" (moto pins this
# text "AWS has a different message for empty index keys" in update expressions,
# other emulators captured it from the service): no IndexName/IndexKey suffix.
EMPTY_INDEX_KEY_UPDATE = (
    "One or more parameter values are not valid. The update expression attempted to update a "
    "secondary index key to a value that is not supported. The AttributeValue for a key "
    "attribute cannot contain an empty string value.")


def S(x):
    return {"S": x}


def N(x):
    return {"N": str(x)}


def _attr_defs(**types):
    return [{"AttributeName": k, "AttributeType": v} for k, v in types.items()]


def _keys(item, names):
    return {k: item[k] for k in names}


def _put_all(ddb, table, items):
    """BatchWriteItem in chunks of 25 (the server does not throttle: no leftovers expected)."""
    for i in range(0, len(items), 25):
        resp = ddb.batch_write_item(RequestItems={
            table: [{"PutRequest": {"Item": it}} for it in items[i:i + 25]]})
        assert not resp.get("UnprocessedItems"), resp


# =========================================================================
# A typical single-table layout
# =========================================================================
#
#   PK               SK                    other attributes
#   CUSTOMER#c1      CUSTOMER#c1           name, email
#   ORDER#0001       ORDER#STATUS#UNPAID   amount, customer, note
#   ORDER#0002       ORDER#STATUS#PAID     ...
#   PRODUCT#p01      PRODUCT#p01           category, price, title, stock
#
# InvertedIndex  (SK -> PK, KEYS_ONLY): "all unpaid orders", "who is CUSTOMER#c1"
# InvertedInclude(SK -> PK, INCLUDE amount, customer)
# ProductsByCategory (category -> price, ALL): sparse, only products have category.

SHOP_GSIS = [
    gsi_def("InvertedIndex", "SK", "PK", "KEYS_ONLY"),
    gsi_def("InvertedInclude", "SK", "PK", "INCLUDE", ["amount", "customer"]),
    gsi_def("ProductsByCategory", "category", "price", "ALL"),
]
SHOP_ATTRS = _attr_defs(PK="S", SK="S", category="S", price="N")

UNPAID = "ORDER#STATUS#UNPAID"
PAID = "ORDER#STATUS#PAID"
SHIPPED = "ORDER#STATUS#SHIPPED"


def _shop_items():
    items = [
        {"PK": S("CUSTOMER#c1"), "SK": S("CUSTOMER#c1"), "name": S("Ada"),
         "email": S("ada@example.com")},
        {"PK": S("CUSTOMER#c2"), "SK": S("CUSTOMER#c2"), "name": S("Bob")},
    ]
    statuses = [UNPAID, PAID, UNPAID, SHIPPED, UNPAID, PAID, UNPAID, SHIPPED]
    for i, status in enumerate(statuses, start=1):
        item = {"PK": S(f"ORDER#{i:04d}"), "SK": S(status), "amount": N(10 * i),
                "note": S(f"note {i}")}
        if i != 7:  # one order without a customer: INCLUDE projects what exists
            item["customer"] = S("CUSTOMER#c1" if i % 2 else "CUSTOMER#c2")
        items.append(item)
    products = [("p01", "books", 12), ("p02", "books", 5), ("p03", "books", 30),
                ("p04", "games", 60), ("p05", "books", 18), ("p06", "games", 25),
                ("p07", "books", 5)]
    for pid, cat, price in products:
        items.append({"PK": S(f"PRODUCT#{pid}"), "SK": S(f"PRODUCT#{pid}"),
                      "category": S(cat), "price": N(price), "title": S(f"title {pid}"),
                      "stock": N(price % 7), "tags": {"SS": ["new", cat]}})
    return items


def _create_shop(ddb, name):
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=SHOP_ATTRS,
                     KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                                {"AttributeName": "SK", "KeyType": "RANGE"}],
                     GlobalSecondaryIndexes=SHOP_GSIS)


@pytest.fixture(scope="module")
def shop(ddb):
    """The single-table layout, filled once and with every GSI caught up."""
    name = unique_name("wshop")
    _create_shop(ddb, name)
    items = _shop_items()
    _put_all(ddb, name, items)
    for idx in ("InvertedIndex", "InvertedInclude", "ProductsByCategory"):
        assert_index_matches_table(ddb, name, idx)
    yield name, items
    delete_table_quietly(ddb, name)


def _orders_with(items, status):
    return sorted((i for i in items if i["SK"]["S"] == status), key=lambda i: i["PK"]["S"])


def test_shop_unpaid_orders_keys_only(ddb, shop):
    table, items = shop
    resp = ddb.query(TableName=table, IndexName="InvertedIndex",
                     KeyConditionExpression="SK = :s", ExpressionAttributeValues={":s": S(UNPAID)})
    want = [_keys(i, ("PK", "SK")) for i in _orders_with(items, UNPAID)]
    # KEYS_ONLY: the index key and the table key, nothing else; sorted by the
    # index range key (PK) ascending.
    assert resp["Items"] == want
    assert resp["Count"] == resp["ScannedCount"] == 4
    assert "LastEvaluatedKey" not in resp


def test_shop_inverted_index_range_condition(ddb, shop):
    table, items = shop
    resp = ddb.query(TableName=table, IndexName="InvertedIndex",
                     KeyConditionExpression="SK = :s AND PK BETWEEN :a AND :b",
                     ExpressionAttributeValues={":s": S(UNPAID), ":a": S("ORDER#0002"),
                                                ":b": S("ORDER#0005")})
    assert [i["PK"]["S"] for i in resp["Items"]] == ["ORDER#0003", "ORDER#0005"]
    resp = ddb.query(TableName=table, IndexName="InvertedIndex",
                     KeyConditionExpression="SK = :s AND begins_with(PK, :p)",
                     ExpressionAttributeValues={":s": S(PAID), ":p": S("ORDER#")})
    assert [i["PK"]["S"] for i in resp["Items"]] == ["ORDER#0002", "ORDER#0006"]


def test_shop_inverted_index_finds_entity_by_its_id(ddb, shop):
    # The "inverted index" pattern: the entity whose SK is its own id.
    table, _ = shop
    resp = ddb.query(TableName=table, IndexName="InvertedIndex",
                     KeyConditionExpression="SK = :s",
                     ExpressionAttributeValues={":s": S("CUSTOMER#c1")})
    assert resp["Items"] == [{"PK": S("CUSTOMER#c1"), "SK": S("CUSTOMER#c1")}]


def test_shop_include_projection(ddb, shop):
    table, items = shop
    resp = ddb.query(TableName=table, IndexName="InvertedInclude",
                     KeyConditionExpression="SK = :s", ExpressionAttributeValues={":s": S(UNPAID)})
    want = [{k: v for k, v in i.items() if k in ("PK", "SK", "amount", "customer")}
            for i in _orders_with(items, UNPAID)]
    assert resp["Items"] == want
    # The order without a customer has just the attributes it has.
    assert {"PK": S("ORDER#0007"), "SK": S(UNPAID), "amount": N(70)} in resp["Items"]
    assert all("note" not in i for i in resp["Items"])


def test_shop_select_all_projected_attributes_is_the_default(ddb, shop):
    table, _ = shop
    kw = dict(TableName=table, KeyConditionExpression="SK = :s",
              ExpressionAttributeValues={":s": S(SHIPPED)})
    for idx in ("InvertedIndex", "InvertedInclude"):
        default = ddb.query(IndexName=idx, **kw)["Items"]
        projected = ddb.query(IndexName=idx, Select="ALL_PROJECTED_ATTRIBUTES", **kw)["Items"]
        assert default == projected
        assert len(default) == 2


def test_shop_select_count_on_index(ddb, shop):
    table, _ = shop
    resp = ddb.query(TableName=table, IndexName="InvertedIndex", Select="COUNT",
                     KeyConditionExpression="SK = :s", ExpressionAttributeValues={":s": S(UNPAID)})
    assert resp["Count"] == 4 and "Items" not in resp
    resp = ddb.scan(TableName=table, IndexName="ProductsByCategory", Select="COUNT")
    assert resp["Count"] == 7 and "Items" not in resp


def _products(items, category):
    return [i for i in items if i.get("category") == S(category)]


def test_shop_products_by_category_all_projection(ddb, shop):
    table, items = shop
    resp = ddb.query(TableName=table, IndexName="ProductsByCategory",
                     KeyConditionExpression="category = :c",
                     ExpressionAttributeValues={":c": S("books")})
    got = resp["Items"]
    # ALL: whole items, ordered by price (numeric order: 5 < 12 < 18 < 30).
    assert [i["price"]["N"] for i in got] == ["5", "5", "12", "18", "30"]
    assert canon_multiset(got) == canon_multiset(_products(items, "books"))
    # The two items with price 5 (equal index keys) both come back.
    assert {i["PK"]["S"] for i in got if i["price"] == N(5)} == {"PRODUCT#p02", "PRODUCT#p07"}


def test_shop_products_descending_and_range(ddb, shop):
    table, _ = shop
    kw = dict(TableName=table, IndexName="ProductsByCategory")
    resp = ddb.query(KeyConditionExpression="category = :c AND price >= :p",
                     ExpressionAttributeValues={":c": S("books"), ":p": N(12)},
                     ScanIndexForward=False, **kw)
    assert [i["price"]["N"] for i in resp["Items"]] == ["30", "18", "12"]
    resp = ddb.query(KeyConditionExpression="category = :c AND price BETWEEN :a AND :b",
                     ExpressionAttributeValues={":c": S("games"), ":a": N(20), ":b": N(100)},
                     **kw)
    assert [i["PK"]["S"] for i in resp["Items"]] == ["PRODUCT#p06", "PRODUCT#p04"]


def test_shop_select_all_attributes_on_all_projection(ddb, shop):
    table, items = shop
    resp = ddb.query(TableName=table, IndexName="ProductsByCategory", Select="ALL_ATTRIBUTES",
                     KeyConditionExpression="category = :c",
                     ExpressionAttributeValues={":c": S("games")})
    assert canon_multiset(resp["Items"]) == canon_multiset(_products(items, "games"))


def test_shop_products_index_is_sparse(ddb, shop):
    table, items = shop
    got = scan_index(ddb, table, "ProductsByCategory")
    assert canon_multiset(got) == canon_multiset([i for i in items if "category" in i])
    assert all(i["PK"]["S"].startswith("PRODUCT#") for i in got)


def test_shop_projection_expression_on_index(ddb, shop):
    table, _ = shop
    resp = ddb.query(TableName=table, IndexName="ProductsByCategory",
                     KeyConditionExpression="category = :c",
                     ExpressionAttributeValues={":c": S("games")},
                     ProjectionExpression="title, #p", ExpressionAttributeNames={"#p": "price"})
    assert resp["Items"] == [{"title": S("title p06"), "price": N(25)},
                             {"title": S("title p04"), "price": N(60)}]
    resp = ddb.query(TableName=table, IndexName="InvertedInclude",
                     KeyConditionExpression="SK = :s", ExpressionAttributeValues={":s": S(PAID)},
                     ProjectionExpression="amount")
    assert resp["Items"] == [{"amount": N(20)}, {"amount": N(60)}]
    resp = ddb.query(TableName=table, IndexName="InvertedIndex",
                     KeyConditionExpression="SK = :s", ExpressionAttributeValues={":s": S(PAID)},
                     Select="SPECIFIC_ATTRIBUTES", ProjectionExpression="PK")
    assert resp["Items"] == [{"PK": S("ORDER#0002")}, {"PK": S("ORDER#0006")}]


def test_shop_filter_on_projected_attribute(ddb, shop):
    table, _ = shop
    resp = ddb.query(TableName=table, IndexName="InvertedInclude",
                     KeyConditionExpression="SK = :s", FilterExpression="amount > :a",
                     ExpressionAttributeValues={":s": S(UNPAID), ":a": N(30)})
    assert [i["PK"]["S"] for i in resp["Items"]] == ["ORDER#0005", "ORDER#0007"]
    assert resp["Count"] == 2 and resp["ScannedCount"] == 4


def test_shop_scan_index(ddb, shop):
    table, items = shop
    got = scan_index(ddb, table, "InvertedIndex")
    assert canon_multiset(got) == canon_multiset([_keys(i, ("PK", "SK")) for i in items])


def test_shop_describe_index_counts(ddb, shop):
    table, items = shop
    desc = ddb.describe_table(TableName=table)["Table"]
    gsis = {g["IndexName"]: g for g in desc["GlobalSecondaryIndexes"]}
    assert set(gsis) == {"InvertedIndex", "InvertedInclude", "ProductsByCategory"}
    for g in gsis.values():
        assert g["IndexStatus"] == "ACTIVE"
        assert g["IndexArn"] == f"{desc['TableArn']}/index/{g['IndexName']}"
    # The applier caught up in the fixture; counts follow (sparse index: products only).
    assert gsis["InvertedIndex"]["ItemCount"] == len(items)
    assert gsis["InvertedInclude"]["ItemCount"] == len(items)
    assert gsis["ProductsByCategory"]["ItemCount"] == 7
    assert desc["ItemCount"] == len(items)
    for g in gsis.values():
        assert g["IndexSizeBytes"] > 0
    # Same entries, INCLUDE projects more than KEYS_ONLY.
    assert gsis["InvertedInclude"]["IndexSizeBytes"] > gsis["InvertedIndex"]["IndexSizeBytes"]


def test_shop_order_status_change_moves_the_order(ddb):
    # Changing the overloaded sort key (the status) is a delete + put of the
    # table item; the order leaves one index partition and joins another.
    name = unique_name("wshop")
    _create_shop(ddb, name)
    try:
        order = {"PK": S("ORDER#0042"), "SK": S(UNPAID), "amount": N(99),
                 "customer": S("CUSTOMER#c9")}
        ddb.put_item(TableName=name, Item=order)

        def by_status(status, idx="InvertedIndex"):
            return lambda: query_index(ddb, name, idx, KeyConditionExpression="SK = :s",
                                       ExpressionAttributeValues={":s": S(status)})

        eventually_items(by_status(UNPAID), [_keys(order, ("PK", "SK"))])
        paid = dict(order, SK=S(PAID))
        ddb.batch_write_item(RequestItems={name: [
            {"DeleteRequest": {"Key": _keys(order, ("PK", "SK"))}},
            {"PutRequest": {"Item": paid}}]})
        eventually_items(by_status(PAID), [_keys(paid, ("PK", "SK"))])
        eventually_items(by_status(UNPAID), [])
        eventually_items(by_status(PAID, "InvertedInclude"),
                         [{"PK": S("ORDER#0042"), "SK": S(PAID), "amount": N(99),
                           "customer": S("CUSTOMER#c9")}])
        # A product's price change moves it within the category partition.
        product = {"PK": S("PRODUCT#x"), "SK": S("PRODUCT#x"), "category": S("toys"),
                   "price": N(10)}
        ddb.put_item(TableName=name, Item=product)
        ddb.update_item(TableName=name, Key=_keys(product, ("PK", "SK")),
                        UpdateExpression="SET price = :p", ExpressionAttributeValues={":p": N(7)})
        eventually_items(lambda: query_index(ddb, name, "ProductsByCategory",
                                             KeyConditionExpression="category = :c",
                                             ExpressionAttributeValues={":c": S("toys")}),
                         [dict(product, price=N(7))])
    finally:
        delete_table_quietly(ddb, name)


# =========================================================================
# GSI / LSI maintenance on writes
# =========================================================================
#
# Table pk (S) / sk (S) with
#   by_g (GSI): g (S) HASH, r (N) RANGE, ALL
#   by_h (GSI): h (N) HASH only, KEYS_ONLY
#   by_l (LSI): pk HASH, l (S) RANGE, INCLUDE [a]

GENERIC_GSIS = [gsi_def("by_g", "g", "r", "ALL"), gsi_def("by_h", "h", None, "KEYS_ONLY")]
GENERIC_LSIS = [lsi_def("by_l", "pk", "l", "INCLUDE", ["a"])]


@pytest.fixture
def gtable(table_factory):
    return table_factory(("pk", "S"), ("sk", "S"),
                         AttributeDefinitions=_attr_defs(pk="S", sk="S", g="S", r="N", h="N",
                                                         l="S"),
                         GlobalSecondaryIndexes=GENERIC_GSIS,
                         LocalSecondaryIndexes=GENERIC_LSIS)


def _q_g(ddb, table, g, **kw):
    return lambda: query_index(ddb, table, "by_g", KeyConditionExpression="g = :g",
                               ExpressionAttributeValues={":g": S(g)}, **kw)


def _q_h(ddb, table, h):
    return lambda: query_index(ddb, table, "by_h", KeyConditionExpression="h = :h",
                               ExpressionAttributeValues={":h": N(h)})


def _q_l(ddb, table, pk, **kw):
    args = dict(KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": S(pk)})
    args.update(kw)
    return query_index(ddb, table, "by_l", **args)


def _assert_all_indexes_match(ddb, table):
    for idx in ("by_g", "by_h", "by_l"):
        assert_index_matches_table(ddb, table, idx)


def test_gsi_reflects_put(ddb, gtable):
    item = {"pk": S("a"), "sk": S("1"), "g": S("G1"), "r": N(1), "h": N(7), "x": S("payload"),
            "m": {"M": {"n": {"L": [N(1), S("two")]}}}}
    ddb.put_item(TableName=gtable, Item=item)
    eventually_items(_q_g(ddb, gtable, "G1"), [item])  # ALL: the whole item
    eventually_items(_q_h(ddb, gtable, 7), [{"pk": S("a"), "sk": S("1"), "h": N(7)}])


def test_gsi_reflects_update_of_non_key_attribute(ddb, gtable):
    item = {"pk": S("a"), "sk": S("1"), "g": S("G1"), "r": N(1), "h": N(7), "x": S("old")}
    ddb.put_item(TableName=gtable, Item=item)
    eventually_items(_q_g(ddb, gtable, "G1"), [item])
    ddb.update_item(TableName=gtable, Key={"pk": S("a"), "sk": S("1")},
                    UpdateExpression="SET x = :x, y = :y",
                    ExpressionAttributeValues={":x": S("new"), ":y": N(5)})
    eventually_items(_q_g(ddb, gtable, "G1"), [dict(item, x=S("new"), y=N(5))])
    # KEYS_ONLY is not affected by a non-key change.
    eventually_items(_q_h(ddb, gtable, 7), [{"pk": S("a"), "sk": S("1"), "h": N(7)}])


def test_gsi_update_changing_hash_key_moves_entry(ddb, gtable):
    item = {"pk": S("a"), "sk": S("1"), "g": S("old"), "r": N(1), "x": S("v")}
    ddb.put_item(TableName=gtable, Item=item)
    eventually_items(_q_g(ddb, gtable, "old"), [item])
    ddb.update_item(TableName=gtable, Key={"pk": S("a"), "sk": S("1")},
                    UpdateExpression="SET g = :g", ExpressionAttributeValues={":g": S("new")})
    eventually_items(_q_g(ddb, gtable, "new"), [dict(item, g=S("new"))])
    eventually_items(_q_g(ddb, gtable, "old"), [])
    _assert_all_indexes_match(ddb, gtable)


def test_gsi_update_changing_range_key_moves_entry(ddb, gtable):
    items = [{"pk": S(f"p{i}"), "sk": S("s"), "g": S("G"), "r": N(i)} for i in range(1, 4)]
    _put_all(ddb, gtable, items)
    eventually_items(_q_g(ddb, gtable, "G"), items)
    ddb.update_item(TableName=gtable, Key={"pk": S("p1"), "sk": S("s")},
                    UpdateExpression="SET r = :r", ExpressionAttributeValues={":r": N(10)})
    got = eventually(_q_g(ddb, gtable, "G"),
                     lambda its: [i["r"]["N"] for i in its] == ["2", "3", "10"],
                     describe="p1 moved to the end of partition G")
    assert [i["pk"]["S"] for i in got] == ["p2", "p3", "p1"]


def test_gsi_update_to_same_key_value_keeps_entry(ddb, gtable):
    item = {"pk": S("a"), "sk": S("1"), "g": S("G"), "r": N(1), "d": S("d0")}
    ddb.put_item(TableName=gtable, Item=item)
    eventually_items(_q_g(ddb, gtable, "G"), [item])
    ddb.update_item(TableName=gtable, Key={"pk": S("a"), "sk": S("1")},
                    UpdateExpression="SET g = :g, r = :r, d = :d",
                    ExpressionAttributeValues={":g": S("G"), ":r": N(1), ":d": S("d1")})
    eventually_items(_q_g(ddb, gtable, "G"), [dict(item, d=S("d1"))])
    # An identical overwrite also leaves exactly one entry.
    ddb.put_item(TableName=gtable, Item=dict(item, d=S("d1")))
    ddb.put_item(TableName=gtable, Item=dict(item, d=S("d1")))
    _assert_all_indexes_match(ddb, gtable)
    assert len(scan_index(ddb, gtable, "by_g")) == 1


def test_gsi_update_removing_key_attribute_removes_entry(ddb, gtable):
    item = {"pk": S("a"), "sk": S("1"), "g": S("G"), "r": N(1), "h": N(3)}
    ddb.put_item(TableName=gtable, Item=item)
    eventually_items(_q_g(ddb, gtable, "G"), [item])
    # Removing the range key attribute of by_g is enough to leave it ...
    ddb.update_item(TableName=gtable, Key={"pk": S("a"), "sk": S("1")}, UpdateExpression="REMOVE r")
    eventually_items(_q_g(ddb, gtable, "G"), [])
    # ... while by_h keeps the item.
    eventually_items(_q_h(ddb, gtable, 3), [{"pk": S("a"), "sk": S("1"), "h": N(3)}])
    ddb.update_item(TableName=gtable, Key={"pk": S("a"), "sk": S("1")}, UpdateExpression="REMOVE h")
    eventually_items(_q_h(ddb, gtable, 3), [])
    assert scan_index(ddb, gtable, "by_g") == []
    eventually_items(lambda: scan_index(ddb, gtable, "by_h"), [])


def test_gsi_update_adding_key_attribute_adds_entry(ddb, gtable):
    ddb.put_item(TableName=gtable, Item={"pk": S("a"), "sk": S("1"), "g": S("G")})
    # Only the hash key: not in by_g (both key attributes are required).
    ddb.put_item(TableName=gtable, Item={"pk": S("b"), "sk": S("1"), "r": N(1)})
    ddb.update_item(TableName=gtable, Key={"pk": S("a"), "sk": S("1")},
                    UpdateExpression="SET r = :r, h = :h",
                    ExpressionAttributeValues={":r": N(4), ":h": N(4)})
    eventually_items(_q_g(ddb, gtable, "G"),
                     [{"pk": S("a"), "sk": S("1"), "g": S("G"), "r": N(4), "h": N(4)}])
    eventually_items(_q_h(ddb, gtable, 4), [{"pk": S("a"), "sk": S("1"), "h": N(4)}])
    _assert_all_indexes_match(ddb, gtable)


def test_gsi_update_creating_item_is_indexed(ddb, gtable):
    # UpdateItem on a missing key creates the item (an upsert).
    ddb.update_item(TableName=gtable, Key={"pk": S("new"), "sk": S("1")},
                    UpdateExpression="SET g = :g, r = :r",
                    ExpressionAttributeValues={":g": S("G"), ":r": N(0)})
    eventually_items(_q_g(ddb, gtable, "G"),
                     [{"pk": S("new"), "sk": S("1"), "g": S("G"), "r": N(0)}])


def test_gsi_put_overwrite_moves_or_removes_entry(ddb, gtable):
    key = {"pk": S("a"), "sk": S("1")}
    ddb.put_item(TableName=gtable, Item=dict(key, g=S("G1"), r=N(1), h=N(1)))
    eventually_items(_q_g(ddb, gtable, "G1"), [dict(key, g=S("G1"), r=N(1), h=N(1))])
    # Overwrite with a different index key: moved.
    ddb.put_item(TableName=gtable, Item=dict(key, g=S("G2"), r=N(1), h=N(1)))
    eventually_items(_q_g(ddb, gtable, "G2"), [dict(key, g=S("G2"), r=N(1), h=N(1))])
    eventually_items(_q_g(ddb, gtable, "G1"), [])
    # Overwrite without the index key attributes: removed; h kept.
    ddb.put_item(TableName=gtable, Item=dict(key, h=N(1), z=S("z")))
    eventually_items(_q_g(ddb, gtable, "G2"), [])
    eventually_items(_q_h(ddb, gtable, 1), [dict(key, h=N(1))])
    _assert_all_indexes_match(ddb, gtable)


def test_gsi_delete_removes_entries(ddb, gtable):
    items = [{"pk": S(f"p{i}"), "sk": S("s"), "g": S("G"), "r": N(i), "h": N(1), "l": S("L")}
             for i in range(5)]
    _put_all(ddb, gtable, items)
    eventually_items(_q_g(ddb, gtable, "G"), items)
    ddb.delete_item(TableName=gtable, Key={"pk": S("p2"), "sk": S("s")})
    # Conditional delete, ReturnValues: the index follows the table either way.
    ddb.delete_item(TableName=gtable, Key={"pk": S("p4"), "sk": S("s")},
                    ConditionExpression="attribute_exists(g)", ReturnValues="ALL_OLD")
    left = [i for i in items if i["pk"]["S"] not in ("p2", "p4")]
    eventually_items(_q_g(ddb, gtable, "G"), left)
    eventually_items(_q_h(ddb, gtable, 1), [_keys(i, ("pk", "sk", "h")) for i in left])
    # The LSI entry went with the item, synchronously.
    assert _q_l(ddb, gtable, "p2") == []
    _assert_all_indexes_match(ddb, gtable)


def test_gsi_failed_conditional_write_changes_nothing(ddb, gtable):
    item = {"pk": S("a"), "sk": S("1"), "g": S("G"), "r": N(1)}
    ddb.put_item(TableName=gtable, Item=item)
    eventually_items(_q_g(ddb, gtable, "G"), [item])
    expect_error(lambda: ddb.update_item(
        TableName=gtable, Key={"pk": S("a"), "sk": S("1")}, UpdateExpression="SET g = :g",
        ConditionExpression="attribute_not_exists(pk)", ExpressionAttributeValues={":g": S("X")}),
        "ConditionalCheckFailedException", "The conditional request failed")
    expect_error(lambda: ddb.delete_item(
        TableName=gtable, Key={"pk": S("a"), "sk": S("1")},
        ConditionExpression="g = :x", ExpressionAttributeValues={":x": S("nope")}),
        "ConditionalCheckFailedException", "The conditional request failed")
    time.sleep(0.1)  # give a wrong change the chance to show up
    assert query_index(ddb, gtable, "by_g", KeyConditionExpression="g = :g",
                       ExpressionAttributeValues={":g": S("X")}) == []
    _assert_all_indexes_match(ddb, gtable)


def test_gsi_batch_write_maintains_indexes(ddb, gtable):
    items = [{"pk": S(f"p{i:02d}"), "sk": S("s"), "g": S(f"G{i % 3}"), "r": N(i), "h": N(i % 2),
              "l": S(f"L{i}"), "a": S("A"), "b": S("B")} for i in range(40)]
    _put_all(ddb, gtable, items)
    _assert_all_indexes_match(ddb, gtable)
    # One batch: delete some, overwrite some with new index keys, add one without keys.
    reqs = [{"DeleteRequest": {"Key": {"pk": S(f"p{i:02d}"), "sk": S("s")}}} for i in range(0, 40, 5)]
    reqs += [{"PutRequest": {"Item": {"pk": S(f"p{i:02d}"), "sk": S("s"), "g": S("moved"),
                                      "r": N(-i)}}} for i in range(1, 40, 5)]
    reqs.append({"PutRequest": {"Item": {"pk": S("plain"), "sk": S("s")}}})
    assert len(reqs) == 17
    resp = ddb.batch_write_item(RequestItems={gtable: reqs})
    assert not resp.get("UnprocessedItems")
    moved = eventually(_q_g(ddb, gtable, "moved"), lambda its: len(its) == 8,
                       describe="8 items moved to partition 'moved'")
    assert [i["r"]["N"] for i in moved] == [str(-i) for i in range(36, 0, -5)]
    _assert_all_indexes_match(ddb, gtable)
    desc = ddb.describe_table(TableName=gtable)["Table"]
    assert desc["ItemCount"] == 33


def test_gsi_many_writes_to_one_item_converge(ddb, gtable):
    # The applier applies changes in order: the last write wins in the index.
    key = {"pk": S("hot"), "sk": S("1")}
    for i in range(30):
        ddb.put_item(TableName=gtable, Item=dict(key, g=S(f"G{i % 4}"), r=N(i), h=N(i % 3)))
    final = dict(key, g=S("G1"), r=N(29), h=N(2))
    eventually_items(lambda: scan_index(ddb, gtable, "by_g"), [final])
    eventually_items(lambda: scan_index(ddb, gtable, "by_h"), [dict(key, h=N(2))])


# -------------------------------------------------------------------------
# Index key validation on writes
# -------------------------------------------------------------------------

def _absent(ddb, table, key):
    return "Item" not in ddb.get_item(TableName=table, Key=key, ConsistentRead=True)


def test_put_with_wrong_index_key_type_rejected(ddb, gtable):
    key = {"pk": S("a"), "sk": S("1")}
    expect_error(lambda: ddb.put_item(TableName=gtable, Item=dict(key, g=N(3))),
                 "ValidationException", type_mismatch("g", "S", "N", "by_g"))
    expect_error(lambda: ddb.put_item(TableName=gtable, Item=dict(key, g=S("G"), r=S("1"))),
                 "ValidationException", type_mismatch("r", "N", "S", "by_g"))
    expect_error(lambda: ddb.put_item(TableName=gtable, Item=dict(key, h=S("x"))),
                 "ValidationException", type_mismatch("h", "N", "S", "by_h"))
    expect_error(lambda: ddb.put_item(TableName=gtable, Item=dict(key, l=N(1))),
                 "ValidationException", type_mismatch("l", "S", "N", "by_l"))
    expect_error(lambda: ddb.put_item(TableName=gtable, Item=dict(key, g={"NULL": True})),
                 "ValidationException", type_mismatch("g", "S", "NULL", "by_g"))
    # Alternator notes DynamoDB reports a plain type mismatch for a map as well.
    expect_error(lambda: ddb.put_item(TableName=gtable, Item=dict(key, g={"M": {}})),
                 "ValidationException", type_mismatch("g", "S", "M", "by_g"))
    expect_error(lambda: ddb.put_item(TableName=gtable, Item=dict(key, g={"SS": ["x"]})),
                 "ValidationException", type_mismatch("g", "S", "SS", "by_g"))
    # Nothing was written, to the table or an index.
    assert _absent(ddb, gtable, key)
    assert _q_l(ddb, gtable, "a") == []


def test_update_with_wrong_index_key_type_rejected(ddb, gtable):
    key = {"pk": S("a"), "sk": S("1")}
    item = dict(key, g=S("G"), r=N(1), l=S("L"))
    ddb.put_item(TableName=gtable, Item=item)
    expect_error(lambda: ddb.update_item(TableName=gtable, Key=key, UpdateExpression="SET g = :v",
                                         ExpressionAttributeValues={":v": N(3)}),
                 "ValidationException", type_mismatch("g", "S", "N", "by_g"))
    expect_error(lambda: ddb.update_item(TableName=gtable, Key=key, UpdateExpression="SET l = :v",
                                         ExpressionAttributeValues={":v": {"BOOL": True}}),
                 "ValidationException", type_mismatch("l", "S", "BOOL", "by_l"))
    expect_error(lambda: ddb.update_item(TableName=gtable, Key=key,
                                         UpdateExpression="SET h = :v",
                                         ExpressionAttributeValues={":v": S("x")}),
                 "ValidationException", type_mismatch("h", "N", "S", "by_h"))
    # Also when the update creates the item.
    expect_error(lambda: ddb.update_item(TableName=gtable, Key={"pk": S("b"), "sk": S("1")},
                                         UpdateExpression="SET g = :v",
                                         ExpressionAttributeValues={":v": N(1)}),
                 "ValidationException", type_mismatch("g", "S", "N", "by_g"))
    assert _absent(ddb, gtable, {"pk": S("b"), "sk": S("1")})
    assert ddb.get_item(TableName=gtable, Key=key, ConsistentRead=True)["Item"] == item
    eventually_items(_q_g(ddb, gtable, "G"), [item])


def test_batch_write_with_wrong_index_key_type_rejects_whole_batch(ddb, gtable):
    reqs = [{"PutRequest": {"Item": {"pk": S("p1"), "sk": S("s"), "g": S("G"), "r": N(1)}}},
            {"PutRequest": {"Item": {"pk": S("p2"), "sk": S("s"), "g": N(2), "r": N(2)}}},
            {"PutRequest": {"Item": {"pk": S("p3"), "sk": S("s"), "g": S("G"), "r": N(3)}}}]
    expect_error(lambda: ddb.batch_write_item(RequestItems={gtable: reqs}),
                 "ValidationException", type_mismatch("g", "S", "N", "by_g"))
    for p in ("p1", "p2", "p3"):
        assert _absent(ddb, gtable, {"pk": S(p), "sk": S("s")})
    time.sleep(0.1)
    assert scan_index(ddb, gtable, "by_g") == []


def test_put_with_empty_index_key_rejected(ddb, gtable):
    key = {"pk": S("a"), "sk": S("1")}
    expect_error(lambda: ddb.put_item(TableName=gtable, Item=dict(key, g=S(""), r=N(1))),
                 "ValidationException", empty_index_key("g", "by_g"))
    expect_error(lambda: ddb.put_item(TableName=gtable, Item=dict(key, l=S(""))),
                 "ValidationException", empty_index_key("l", "by_l"))
    expect_error(lambda: ddb.batch_write_item(RequestItems={gtable: [
        {"PutRequest": {"Item": dict(key, g=S(""))}}]}),
        "ValidationException", empty_index_key("g", "by_g"))
    assert _absent(ddb, gtable, key)
    # An empty string in a non-key attribute is fine.
    ddb.put_item(TableName=gtable, Item=dict(key, g=S("G"), r=N(1), x=S("")))
    eventually_items(_q_g(ddb, gtable, "G"), [dict(key, g=S("G"), r=N(1), x=S(""))])


def test_update_setting_index_key_to_empty_rejected(ddb, gtable):
    key = {"pk": S("a"), "sk": S("1")}
    item = dict(key, g=S("G"), r=N(1))
    ddb.put_item(TableName=gtable, Item=item)
    expect_error(lambda: ddb.update_item(TableName=gtable, Key=key, UpdateExpression="SET g = :v",
                                         ExpressionAttributeValues={":v": S("")}),
                 "ValidationException", EMPTY_INDEX_KEY_UPDATE)
    assert ddb.get_item(TableName=gtable, Key=key, ConsistentRead=True)["Item"] == item


def test_empty_binary_index_key_rejected(ddb, table_factory):
    table = table_factory(("pk", "S"), AttributeDefinitions=_attr_defs(pk="S", bk="B"),
                          GlobalSecondaryIndexes=[gsi_def("by_b", "bk", None, "KEYS_ONLY")])
    # Less certain wording for B ("empty binary value" per some emulators,
    # "empty string value" for S): only the stable parts are asserted.
    expect_error(lambda: ddb.put_item(TableName=table, Item={"pk": S("a"), "bk": {"B": b""}}),
                 "ValidationException",
                 contains=["A value specified for a secondary index key is not supported",
                           "IndexName: by_b, IndexKey: bk"])
    assert _absent(ddb, table, {"pk": S("a")})
    ddb.put_item(TableName=table, Item={"pk": S("a"), "bk": {"B": b"\x00"}})
    eventually_items(lambda: scan_index(ddb, table, "by_b"),
                     [{"pk": S("a"), "bk": {"B": b"\x00"}}])


# -------------------------------------------------------------------------
# Read-side errors
# -------------------------------------------------------------------------

def test_consistent_read_on_gsi_rejected(ddb, gtable):
    expect_error(lambda: ddb.query(TableName=gtable, IndexName="by_g", ConsistentRead=True,
                                   KeyConditionExpression="g = :g",
                                   ExpressionAttributeValues={":g": S("G")}),
                 "ValidationException", CONSISTENT_GSI)
    expect_error(lambda: ddb.scan(TableName=gtable, IndexName="by_h", ConsistentRead=True),
                 "ValidationException", CONSISTENT_GSI)
    # ConsistentRead=False is fine.
    ddb.scan(TableName=gtable, IndexName="by_h", ConsistentRead=False)


def test_consistent_read_on_lsi_allowed(ddb, gtable):
    item = {"pk": S("a"), "sk": S("1"), "l": S("L"), "a": S("A")}
    ddb.put_item(TableName=gtable, Item=item)
    # No wait: the LSI entry is written with the item.
    assert _q_l(ddb, gtable, "a", ConsistentRead=True) == [item]
    assert scan_index(ddb, gtable, "by_l", ConsistentRead=True) == [item]


def test_select_all_attributes_on_gsi_without_all_projection_rejected(ddb, gtable, shop):
    expect_error(lambda: ddb.query(TableName=gtable, IndexName="by_h", Select="ALL_ATTRIBUTES",
                                   KeyConditionExpression="h = :h",
                                   ExpressionAttributeValues={":h": N(1)}),
                 "ValidationException", select_all_not_supported("by_h"))
    expect_error(lambda: ddb.scan(TableName=gtable, IndexName="by_h", Select="ALL_ATTRIBUTES"),
                 "ValidationException", select_all_not_supported("by_h"))
    table, _ = shop
    expect_error(lambda: ddb.query(TableName=table, IndexName="InvertedInclude",
                                   Select="ALL_ATTRIBUTES", KeyConditionExpression="SK = :s",
                                   ExpressionAttributeValues={":s": S(UNPAID)}),
                 "ValidationException", select_all_not_supported("InvertedInclude"))
    # On an ALL projection it is allowed.
    ddb.scan(TableName=gtable, IndexName="by_g", Select="ALL_ATTRIBUTES")


def test_unknown_index_rejected(ddb, gtable):
    expect_error(lambda: ddb.query(TableName=gtable, IndexName="wrong_name",
                                   KeyConditionExpression="g = :g",
                                   ExpressionAttributeValues={":g": S("G")}),
                 "ValidationException", no_such_index("wrong_name"))
    expect_error(lambda: ddb.scan(TableName=gtable, IndexName="wrong_name"),
                 "ValidationException", no_such_index("wrong_name"))
    # Index names are case-sensitive.
    expect_error(lambda: ddb.scan(TableName=gtable, IndexName="BY_G"),
                 "ValidationException", no_such_index("BY_G"))


def test_index_on_missing_table_is_resource_not_found(ddb):
    name = unique_name("wmissing")
    expect_error(lambda: ddb.scan(TableName=name, IndexName="any_name"),
                 "ResourceNotFoundException")
    expect_error(lambda: ddb.query(TableName=name, IndexName="any_name",
                                   KeyConditionExpression="x = :x",
                                   ExpressionAttributeValues={":x": S("x")}),
                 "ResourceNotFoundException")


def test_query_index_must_use_index_key_schema(ddb, gtable):
    # The key condition is checked against the index's key schema, not the table's.
    expect_error(lambda: ddb.query(TableName=gtable, IndexName="by_g",
                                   KeyConditionExpression="pk = :p",
                                   ExpressionAttributeValues={":p": S("a")}),
                 "ValidationException", "Query condition missed key schema element: g")
    expect_error(lambda: ddb.query(TableName=gtable, IndexName="by_g",
                                   KeyConditionExpression="g = :g AND sk = :s",
                                   ExpressionAttributeValues={":g": S("G"), ":s": S("1")}),
                 "ValidationException", "Query condition missed key schema element: r")


# -------------------------------------------------------------------------
# LSI reads: projections fetched from the table when needed
# -------------------------------------------------------------------------

@pytest.fixture
def lsi_items(ddb, gtable):
    items = [{"pk": S("P"), "sk": S(f"s{i}"), "l": S(f"L{9 - i}"), "a": S(f"a{i}"),
              "b": S(f"b{i}"), "n": N(i)} for i in range(6)]
    items.append({"pk": S("P"), "sk": S("nol"), "a": S("x")})  # not in the LSI (sparse)
    items.append({"pk": S("Q"), "sk": S("s0"), "l": S("L0"), "a": S("q")})
    _put_all(ddb, gtable, items)
    return gtable, items


def test_lsi_query_orders_by_index_range_key(ddb, lsi_items):
    table, items = lsi_items
    got = _q_l(ddb, table, "P")
    # INCLUDE a: table key, index key and a; ordered by l (L4 < ... < L9).
    assert [i["sk"]["S"] for i in got] == ["s5", "s4", "s3", "s2", "s1", "s0"]
    assert got[0] == {"pk": S("P"), "sk": S("s5"), "l": S("L4"), "a": S("a5")}
    desc = _q_l(ddb, table, "P", ScanIndexForward=False)
    assert desc == list(reversed(got))
    rng = _q_l(ddb, table, "P", KeyConditionExpression="pk = :p AND l < :l",
               ExpressionAttributeValues={":p": S("P"), ":l": S("L6")})
    assert [i["l"]["S"] for i in rng] == ["L4", "L5"]


def test_lsi_select_all_attributes_fetches_from_table(ddb, lsi_items):
    table, items = lsi_items
    got = _q_l(ddb, table, "P", Select="ALL_ATTRIBUTES")
    full = {i["sk"]["S"]: i for i in items if i["pk"] == S("P") and "l" in i}
    assert [i["sk"]["S"] for i in got] == ["s5", "s4", "s3", "s2", "s1", "s0"]
    assert got == [full[i["sk"]["S"]] for i in got]


def test_lsi_projection_of_non_projected_attribute_fetches_from_table(ddb, lsi_items):
    table, _ = lsi_items
    got = _q_l(ddb, table, "P", ProjectionExpression="b, a, n")
    assert got[:2] == [{"b": S("b5"), "a": S("a5"), "n": N(5)},
                       {"b": S("b4"), "a": S("a4"), "n": N(4)}]
    assert len(got) == 6


def test_lsi_filter_on_non_projected_attribute(ddb, lsi_items):
    # Refused, though the LSI could fetch it: the service filters before fetching (alternator's
    # AWS-mode tests and nubo-db/dynamodb-conformance both record this answer).
    table, _ = lsi_items
    expect_error(lambda: ddb.query(TableName=table, IndexName="by_l",
                                   KeyConditionExpression="pk = :p", FilterExpression="n >= :n",
                                   ExpressionAttributeValues={":p": S("P"), ":n": N(4)}),
                 "ValidationException",
                 "One or more parameter values were invalid: Secondary index by_l does not "
                 "project one or more filter attributes: [n]")


def test_lsi_sparse_and_key_changes(ddb, lsi_items):
    table, _ = lsi_items
    assert "nol" not in [i["sk"]["S"] for i in _q_l(ddb, table, "P")]
    key = {"pk": S("P"), "sk": S("s0")}
    ddb.update_item(TableName=table, Key=key, UpdateExpression="SET l = :l",
                    ExpressionAttributeValues={":l": S("L0")})
    assert _q_l(ddb, table, "P")[0] == {"pk": S("P"), "sk": S("s0"), "l": S("L0"), "a": S("a0")}
    ddb.update_item(TableName=table, Key=key, UpdateExpression="REMOVE l")
    assert "s0" not in [i["sk"]["S"] for i in _q_l(ddb, table, "P")]
    ddb.update_item(TableName=table, Key={"pk": S("P"), "sk": S("nol")},
                    UpdateExpression="SET l = :l", ExpressionAttributeValues={":l": S("A")})
    assert _q_l(ddb, table, "P")[0]["sk"] == S("nol")
    assert len(_q_l(ddb, table, "P")) == 6
    assert_index_matches_table(ddb, table, "by_l", timeout=0)


def test_lsi_describe_counts_are_immediate(ddb, lsi_items):
    table, items = lsi_items
    lsi = index_description(ddb, table, "by_l")
    assert lsi["ItemCount"] == sum(1 for i in items if "l" in i)
    assert lsi["IndexSizeBytes"] > 0
    assert "IndexStatus" not in lsi  # LSIs have no status of their own


# =========================================================================
# Ordering and paging
# =========================================================================

@pytest.fixture
def ties(ddb, gtable):
    """12 items sharing one by_g key (g=T, r=1) and one by_h key (h=5), plus others."""
    items = [{"pk": S(f"k{i:02d}"), "sk": S(f"{(i * 7) % 12}"), "g": S("T"), "r": N(1),
              "h": N(5), "v": N(i)} for i in range(12)]
    items += [{"pk": S(f"o{i}"), "sk": S("x"), "g": S("T"), "r": N(2 + i), "h": N(6)}
              for i in range(3)]
    _put_all(ddb, gtable, items)
    eventually(_q_g(ddb, gtable, "T"), lambda its: len(its) == 15, describe="15 items in T")
    eventually(_q_h(ddb, gtable, 5), lambda its: len(its) == 12, describe="12 items in h=5")
    return gtable, items


def _pkey(i):
    return (i["pk"]["S"], i["sk"]["S"])


def test_equal_index_keys_come_back_in_a_stable_order(ddb, ties):
    table, _ = ties
    kw = dict(KeyConditionExpression="g = :g AND r = :r",
              ExpressionAttributeValues={":g": S("T"), ":r": N(1)})
    first = [_pkey(i) for i in query_index(ddb, table, "by_g", **kw)]
    assert len(first) == 12 and len(set(first)) == 12
    for _ in range(3):
        assert [_pkey(i) for i in query_index(ddb, table, "by_g", **kw)] == first
    # Page by page, whatever the page size, the same sequence and no duplicates.
    for limit in (1, 2, 5, 7):
        items, pages = collect_pages(ddb.query, TableName=table, IndexName="by_g",
                                     Limit=limit, **kw)
        assert [_pkey(i) for i in items] == first
        assert all(len(p["Items"]) <= limit for p in pages)
    # Descending: the same set; paging backwards also loses nothing.
    items, _ = collect_pages(ddb.query, TableName=table, IndexName="by_g", Limit=5,
                             ScanIndexForward=False, **kw)
    assert sorted(_pkey(i) for i in items) == sorted(first)


def test_equal_keys_on_hash_only_gsi_page_through(ddb, ties):
    table, _ = ties
    kw = dict(KeyConditionExpression="h = :h", ExpressionAttributeValues={":h": N(5)})
    whole = [_pkey(i) for i in query_index(ddb, table, "by_h", **kw)]
    assert len(set(whole)) == 12
    items, pages = collect_pages(ddb.query, TableName=table, IndexName="by_h", Limit=3, **kw)
    assert [_pkey(i) for i in items] == whole
    for p in pages:
        if "LastEvaluatedKey" in p:
            # The index key (h) and the table key (pk, sk).
            assert set(p["LastEvaluatedKey"]) == {"h", "pk", "sk"}
            assert p["LastEvaluatedKey"] == _keys(p["Items"][-1], ("h", "pk", "sk"))


def test_descending_query_on_gsi(ddb, ties):
    table, _ = ties
    kw = dict(KeyConditionExpression="g = :g AND r >= :r",
              ExpressionAttributeValues={":g": S("T"), ":r": N(2)})
    fwd = query_index(ddb, table, "by_g", **kw)
    back = query_index(ddb, table, "by_g", ScanIndexForward=False, **kw)
    assert [i["r"]["N"] for i in fwd] == ["2", "3", "4"]
    assert [i["r"]["N"] for i in back] == ["4", "3", "2"]
    items, pages = collect_pages(ddb.query, TableName=table, IndexName="by_g", Limit=1,
                                 ScanIndexForward=False, **kw)
    assert [i["r"]["N"] for i in items] == ["4", "3", "2"]


def test_gsi_query_last_evaluated_key_and_exclusive_start_key(ddb, ties):
    table, _ = ties
    kw = dict(TableName=table, IndexName="by_g", KeyConditionExpression="g = :g",
              ExpressionAttributeValues={":g": S("T")})
    whole = ddb.query(**kw)["Items"]
    assert len(whole) == 15
    page1 = ddb.query(Limit=4, **kw)
    lek = page1["LastEvaluatedKey"]
    # LastEvaluatedKey of an index page: index key plus table key.
    assert set(lek) == {"g", "r", "pk", "sk"}
    assert lek == _keys(page1["Items"][-1], ("g", "r", "pk", "sk"))
    page2 = ddb.query(Limit=4, ExclusiveStartKey=lek, **kw)
    assert page1["Items"] + page2["Items"] == whole[:8]
    # Reading on from an item in the middle of a run of equal keys.
    mid = whole[5]
    rest = ddb.query(ExclusiveStartKey=_keys(mid, ("g", "r", "pk", "sk")), **kw)["Items"]
    assert rest == whole[6:]


def test_gsi_scan_paging(ddb, ties):
    table, items = ties
    whole = scan_index(ddb, table, "by_g")
    assert canon_multiset(whole) == canon_multiset(items)
    paged, pages = collect_pages(ddb.scan, TableName=table, IndexName="by_g", Limit=4)
    assert paged == whole
    assert len(pages) >= 4
    for p in pages:
        if "LastEvaluatedKey" in p:
            assert set(p["LastEvaluatedKey"]) == {"g", "r", "pk", "sk"}


def test_lsi_paging_last_evaluated_key(ddb, lsi_items):
    table, _ = lsi_items
    whole = _q_l(ddb, table, "P")
    items, pages = collect_pages(ddb.query, TableName=table, IndexName="by_l", Limit=2,
                                 KeyConditionExpression="pk = :p",
                                 ExpressionAttributeValues={":p": S("P")})
    assert items == whole
    lek = pages[0]["LastEvaluatedKey"]
    assert set(lek) == {"pk", "sk", "l"}
    assert lek == _keys(pages[0]["Items"][-1], ("pk", "sk", "l"))


def test_parallel_scan_over_gsi_is_complete_and_disjoint(ddb, gtable):
    items = [{"pk": S(f"p{i:03d}"), "sk": S(str(i % 4)), "g": S(f"G{i % 9}"), "r": N(i),
              "h": N(i % 2)} for i in range(90)]
    items += [{"pk": S(f"n{i}"), "sk": S("0")} for i in range(5)]  # not in by_g
    _put_all(ddb, gtable, items)
    whole = assert_index_matches_table(ddb, gtable, "by_g")
    assert len(whole) == 90
    for total in (1, 3, 4, 7):
        seen = []
        for seg in range(total):
            got, _ = collect_pages(ddb.scan, TableName=gtable, IndexName="by_g", Segment=seg,
                                   TotalSegments=total, Limit=8)
            seen.append({_pkey(i) for i in got})
            assert len(got) == len(seen[-1])
        union = set().union(*seen)
        assert union == {_pkey(i) for i in whole}, f"TotalSegments={total}"
        assert sum(len(s) for s in seen) == 90, f"segments overlap for TotalSegments={total}"
    # Same on a KEYS_ONLY, hash-only GSI.
    seen = []
    for seg in range(4):
        got, _ = collect_pages(ddb.scan, TableName=gtable, IndexName="by_h", Segment=seg,
                               TotalSegments=4)
        assert all(set(i) == {"pk", "sk", "h"} for i in got)
        seen.extend(_pkey(i) for i in got)
    assert sorted(seen) == sorted(_pkey(i) for i in whole)


def test_describe_gsi_counts_follow_writes(ddb, gtable):
    items = [{"pk": S(f"p{i}"), "sk": S("s"), "g": S("G"), "r": N(i), "x": S("y" * i)}
             for i in range(10)]
    items += [{"pk": S(f"q{i}"), "sk": S("s"), "h": N(i)} for i in range(4)]
    _put_all(ddb, gtable, items)
    eventually(lambda: (index_description(ddb, gtable, "by_g")["ItemCount"],
                        index_description(ddb, gtable, "by_h")["ItemCount"],
                        index_description(ddb, gtable, "by_l")["ItemCount"]),
               lambda c: c == (10, 4, 0), describe="ItemCount of by_g, by_h, by_l")
    size_before = index_description(ddb, gtable, "by_g")["IndexSizeBytes"]
    assert size_before > 0
    for i in range(5):
        ddb.delete_item(TableName=gtable, Key={"pk": S(f"p{i}"), "sk": S("s")})
    ddb.update_item(TableName=gtable, Key={"pk": S("q0"), "sk": S("s")},
                    UpdateExpression="SET g = :g, r = :r",
                    ExpressionAttributeValues={":g": S("G"), ":r": N(100)})
    eventually(lambda: index_description(ddb, gtable, "by_g")["ItemCount"],
               lambda c: c == 6, describe="by_g ItemCount 6")
    assert index_description(ddb, gtable, "by_g")["IndexSizeBytes"] < size_before
    for i in range(10):
        ddb.delete_item(TableName=gtable, Key={"pk": S(f"p{i}"), "sk": S("s")})
    ddb.delete_item(TableName=gtable, Key={"pk": S("q0"), "sk": S("s")})
    d = eventually(lambda: index_description(ddb, gtable, "by_g"),
                   lambda d: d["ItemCount"] == 0, describe="by_g emptied")
    assert d["IndexSizeBytes"] == 0


# =========================================================================
# --gsi-propagation-delay-ms
# =========================================================================

DELAY_MS = 1500


@pytest.fixture(scope="module")
def delayed_server():
    srv = ServerProcess("--in-memory", "--gsi-propagation-delay-ms", str(DELAY_MS)).start()
    yield srv
    srv.stop_and_check()


def test_propagation_delay_makes_gsi_lag_visible(delayed_server):
    c = make_client(delayed_server.endpoint)
    table = unique_name("wdelay")
    c.create_table(TableName=table, BillingMode="PAY_PER_REQUEST",
                   AttributeDefinitions=_attr_defs(pk="S", sk="S", g="S", l="S"),
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                              {"AttributeName": "sk", "KeyType": "RANGE"}],
                   GlobalSecondaryIndexes=[gsi_def("by_g", "g")],
                   LocalSecondaryIndexes=[lsi_def("by_l", "pk", "l")])
    item = {"pk": S("a"), "sk": S("1"), "g": S("G"), "l": S("L")}
    delay = DELAY_MS / 1000
    t0 = time.monotonic()
    c.put_item(TableName=table, Item=item)

    def q():
        return c.query(TableName=table, IndexName="by_g", KeyConditionExpression="g = :g",
                       ExpressionAttributeValues={":g": S("G")})["Items"]

    first = q()
    first_scan = c.scan(TableName=table, IndexName="by_g")["Items"]
    if time.monotonic() - t0 > 0.8 * delay:
        pytest.skip("machine too slow to observe a 1.5 s propagation delay")
    # Not visible right away ...
    assert first == [] and first_scan == []
    # ... while the table and the LSI (written with the item) are.
    assert c.get_item(TableName=table, Key={"pk": S("a"), "sk": S("1")},
                      ConsistentRead=True)["Item"] == item
    assert c.query(TableName=table, IndexName="by_l", KeyConditionExpression="pk = :p",
                   ExpressionAttributeValues={":p": S("a")}, ConsistentRead=True)["Items"] == [item]
    # Poll until it shows up: never before the delay has passed, and by ~2 s.
    got = eventually(q, lambda its: its != [], timeout=5.0, interval=0.05,
                     describe="item visible in the GSI")
    seen_after = time.monotonic() - t0
    assert got == [item]
    assert seen_after >= delay - 0.05, f"visible after {seen_after:.3f}s, before the delay"
    assert seen_after <= 3.0, f"visible only after {seen_after:.3f}s"
    # A delete is delayed the same way.
    t1 = time.monotonic()
    c.delete_item(TableName=table, Key={"pk": S("a"), "sk": S("1")})
    still = q()
    if time.monotonic() - t1 < 0.8 * delay:
        assert still == [item]
    eventually(q, lambda its: its == [], timeout=delay + 3.0,
               describe="deleted item gone from the GSI after the delay")
    assert time.monotonic() - t1 >= delay - 0.05
    c.delete_table(TableName=table)


# =========================================================================
# UpdateTable backfill and multi-attribute keys
# =========================================================================

def test_update_table_creates_gsi_with_backfill(ddb, table_factory):
    table = table_factory(("pk", "S"))
    items = [{"pk": S(f"p{i}"), "x": S(f"X{i % 3}")} for i in range(30)]
    items += [{"pk": S("nox")}, {"pk": S("numx"), "x": N(1)}]  # skipped by the backfill
    _put_all(ddb, table, items)
    ddb.update_table(TableName=table, AttributeDefinitions=_attr_defs(pk="S", x="S"),
                     GlobalSecondaryIndexUpdates=[{"Create": gsi_def("by_x", "x")}])
    eventually(lambda: index_description(ddb, table, "by_x").get("IndexStatus"),
               lambda s: s == "ACTIVE", timeout=30, describe="by_x ACTIVE")
    assert "Backfilling" not in index_description(ddb, table, "by_x")
    want = [i for i in items if i.get("x", {}).get("S")]
    eventually_items(lambda: scan_index(ddb, table, "by_x"), want)


def test_a_gsi_created_again_is_active_only_after_its_own_backfill(server, ddb, table_factory):
    # Issue 29: a GSI deleted during its backfill, then created again under its name, was
    # marked ACTIVE by the first walk's end (it found the index by name), and a Query on it
    # answered part of the items. Each round deletes the first index at another point of its
    # walk (10,000 items, ~0.1 s); the old code failed ~1 round in 6, so 30 rounds. One kept
    # connection and raw JSON: the race needs the calls close together.
    table = table_factory(("pk", "S"))
    for j in range(0, 10000, 25):
        ddb.batch_write_item(RequestItems={table: [
            {"PutRequest": {"Item": {"pk": S(f"k{i}"), "g": S(f"g{i % 10}")}}}
            for i in range(j, j + 25)]})
    conn = http_connection(server)

    def call(op, body):
        r = raw_post(conn, server.endpoint, TARGET_PREFIX + op, {"TableName": table, **body})
        assert r.status == 200, r.body[:300]
        return r.json()

    def status():
        gsis = call("DescribeTable", {})["Table"].get("GlobalSecondaryIndexes")
        return (gsis[0]["IndexStatus"], gsis[0].get("Backfilling")) if gsis else None

    def wait_for(want):
        deadline = time.monotonic() + 30
        while status() != want:  # no pause: a Query must follow ACTIVE at once
            assert time.monotonic() < deadline, f"gidx never {want}"

    create = {"AttributeDefinitions": _attr_defs(pk="S", g="S"),
              "GlobalSecondaryIndexUpdates": [{"Create": gsi_def("gidx", "g")}]}
    delete = {"GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "gidx"}}]}
    try:
        for round_ in range(30):
            call("UpdateTable", create)
            time.sleep((round_ % 10) * 0.01)
            call("UpdateTable", delete)
            wait_for(None)
            call("UpdateTable", create)
            wait_for(("ACTIVE", None))
            r = call("Query", {"IndexName": "gidx", "KeyConditionExpression": "g = :g",
                               "ExpressionAttributeValues": {":g": S("g3")}})
            assert r["Count"] == 1000 and "LastEvaluatedKey" not in r, f"round {round_}"
            call("UpdateTable", delete)
            wait_for(None)
    finally:
        conn.close()


def test_update_table_new_gsi_keys_must_be_defined_in_the_request(ddb, table_factory):
    # The table's own definitions do not count (nubo-db/dynamodb-conformance tier 2, 2026).
    table = table_factory(("pk", "S"))
    expect_error(lambda: ddb.update_table(
        TableName=table, AttributeDefinitions=_attr_defs(g3="S"),
        GlobalSecondaryIndexUpdates=[{"Create": gsi_def("by_pk_g3", "pk", "g3")}]),
        "ValidationException",
        "One or more parameter values were invalid: Some index key attributes are not defined "
        "in AttributeDefinitions. Keys: [pk, g3], AttributeDefinitions: [g3]")
    assert "GlobalSecondaryIndexes" not in ddb.describe_table(TableName=table)["Table"]


def test_index_keys_obey_the_key_length_limits(ddb, table_factory):
    """A GSI key attribute is a key: at most 2048 bytes as a partition key, 1024 as a sort
    key (alternator's test_gsi_limit_*_key_len, recorded against DynamoDB)."""
    table = table_factory(("pk", "S"), AttributeDefinitions=_attr_defs(pk="S", h="S", r="S"),
                          GlobalSecondaryIndexes=[gsi_def("by_h", "h"), gsi_def("by_pr", "pk", "r")])
    ddb.put_item(TableName=table, Item={"pk": S("ok"), "h": S("x" * 2048), "r": S("y" * 1024)})
    expect_error(lambda: ddb.put_item(TableName=table, Item={"pk": S("a"), "h": S("x" * 2049)}),
                 "ValidationException",
                 "One or more parameter values were invalid: Size of hashkey has exceeded the "
                 "maximum size limit of2048 bytes")
    expect_error(lambda: ddb.put_item(TableName=table, Item={"pk": S("b"), "r": S("y" * 1025)}),
                 "ValidationException",
                 "One or more parameter values were invalid: Aggregated size of all range keys has "
                 "exceeded the size limit of 1024 bytes")
    expect_error(lambda: ddb.update_item(TableName=table, Key={"pk": S("ok")},
                                         UpdateExpression="SET h = :h",
                                         ExpressionAttributeValues={":h": S("x" * 70000)}),
                 "ValidationException", match="2048")


def test_backfill_skips_items_whose_index_keys_cannot_be_keys(ddb, table_factory):
    """Items already in the table with an empty or over-long value for a new GSI's key are
    left out of it, as the service's backfill does (alternator's test_gsi_backfill_*)."""
    table = table_factory(("pk", "S"))
    sizes = [1024, 1025, 2048, 2049]
    items = [{"pk": S(f"p{n}"), "c": S("c"), "x": S("x" * n)} for n in sizes]
    items.append({"pk": S("empty"), "c": S("c"), "x": S("")})
    _put_all(ddb, table, items)
    for index, keys in (("by_x", ("x",)), ("by_cx", ("c", "x"))):  # one at a time
        ddb.update_table(TableName=table, AttributeDefinitions=_attr_defs(pk="S", x="S", c="S"),
                         GlobalSecondaryIndexUpdates=[{"Create": gsi_def(index, *keys)}])
        eventually(lambda: index_description(ddb, table, index).get("IndexStatus"),
                   lambda s: s == "ACTIVE", timeout=30, describe=f"{index} ACTIVE")
    assert sorted(i["pk"]["S"] for i in scan_index(ddb, table, "by_x")) == ["p1024", "p1025",
                                                                           "p2048"]
    assert [i["pk"]["S"] for i in scan_index(ddb, table, "by_cx")] == ["p1024"]


def test_new_gsi_may_not_redefine_a_key_attribute_type(ddb, table_factory):
    table = table_factory(("pk", "S"), AttributeDefinitions=_attr_defs(pk="S", xyz="S"),
                          GlobalSecondaryIndexes=[gsi_def("index1", "xyz")])
    expect_error(lambda: ddb.update_table(
        TableName=table, AttributeDefinitions=_attr_defs(pk="S", xyz="N"),
        GlobalSecondaryIndexUpdates=[{"Create": gsi_def("index2", "xyz")}]),
        "ValidationException",
        "One or more parameter values were invalid: Attributes cannot be redefined. Please check "
        "that your attribute has the same type as previously defined. Existing schema: "
        "Schema:[SchemaElement: key{xyz:S:HASH}] New schema: Schema:[SchemaElement: "
        "key{xyz:N:HASH}]")
    assert len(ddb.describe_table(TableName=table)["Table"]["GlobalSecondaryIndexes"]) == 1


@pytest.mark.parametrize("projection,non_key", [("KEYS_ONLY", None), ("INCLUDE", ["e"])])
def test_lsi_filter_may_use_only_projected_attributes(ddb, table_factory, projection, non_key):
    """The service filters an LSI before it fetches the table's items: a filter on what the
    index does not project is refused, with or without Select=ALL_ATTRIBUTES; a filter on
    what it projects returns the projected attributes (alternator's
    test_lsi_*_filter_on_non_projected_attribute; nubo-db/dynamodb-conformance)."""
    table = table_factory(("p", "S"), ("c", "S"), AttributeDefinitions=_attr_defs(p="S", c="S", b="S"),
                          LocalSecondaryIndexes=[lsi_def("hello", "p", "b", projection, non_key)])
    _put_all(ddb, table, [{"p": S("k"), "c": S(str(i)), "b": S(str(i)), "d": S(str(i)),
                           "e": S("e")} for i in range(3)])
    for extra in ({}, {"Select": "ALL_ATTRIBUTES"}):
        expect_error(lambda: ddb.query(TableName=table, IndexName="hello",
                                       KeyConditionExpression="p = :p", FilterExpression="d = :d",
                                       ExpressionAttributeValues={":p": S("k"), ":d": S("1")},
                                       **extra),
                     "ValidationException",
                     "One or more parameter values were invalid: Secondary index hello does not "
                     "project one or more filter attributes: [d]")
    got = ddb.scan(TableName=table, IndexName="hello", FilterExpression="b = :b",
                   ExpressionAttributeValues={":b": S("1")})["Items"]
    want = {"p": S("k"), "c": S("1"), "b": S("1")}
    if non_key:
        want["e"] = S("e")
    assert got == [want]


def test_multi_attribute_gsi_key(ddb, table_factory):
    table = table_factory(
        ("pk", "S"), AttributeDefinitions=_attr_defs(pk="S", tenant="S", region="S", ts="N"),
        GlobalSecondaryIndexes=[{
            "IndexName": "by_tenant_region",
            "KeySchema": [{"AttributeName": "tenant", "KeyType": "HASH"},
                          {"AttributeName": "region", "KeyType": "HASH"},
                          {"AttributeName": "ts", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}}])
    items = [{"pk": S(f"p{i}"), "tenant": S("t1"), "region": S("eu" if i % 2 else "us"),
              "ts": N(i)} for i in range(6)]
    _put_all(ddb, table, items)
    got = eventually(
        lambda: query_index(ddb, table, "by_tenant_region",
                            KeyConditionExpression="tenant = :t AND #r = :r AND ts > :ts",
                            ExpressionAttributeNames={"#r": "region"},
                            ExpressionAttributeValues={":t": S("t1"), ":r": S("eu"),
                                                       ":ts": N(1)}),
        lambda its: len(its) == 2, describe="two eu items with ts > 1")
    assert [i["ts"]["N"] for i in got] == ["3", "5"]


def test_gsi_reads_its_writes_by_default(ddb, table_factory):
    # Without simulated lag, a write answers once its GSI entries are applied, as DynamoDB
    # Local behaves: client libraries' own tests query an index right after writing.
    table = table_factory(("pk", "S"), AttributeDefinitions=_attr_defs(pk="S", g="S"),
                          GlobalSecondaryIndexes=[gsi_def("by_g", "g")])
    for i in range(200):
        ddb.put_item(TableName=table, Item={"pk": S(f"p{i}"), "g": S(f"g{i}")})
        got = ddb.query(TableName=table, IndexName="by_g", KeyConditionExpression="g = :g",
                        ExpressionAttributeValues={":g": S(f"g{i}")})["Items"]
        assert len(got) == 1, f"write {i} not yet in the GSI"
    # Batches and transactions too.
    ddb.batch_write_item(RequestItems={table: [
        {"PutRequest": {"Item": {"pk": S(f"b{i}"), "g": S("batch")}}} for i in range(25)]})
    got = ddb.query(TableName=table, IndexName="by_g", KeyConditionExpression="g = :g",
                    ExpressionAttributeValues={":g": S("batch")})["Items"]
    assert len(got) == 25
    ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": table, "Item": {"pk": S(f"t{i}"), "g": S("tx")}}} for i in range(5)])
    got = ddb.query(TableName=table, IndexName="by_g", KeyConditionExpression="g = :g",
                    ExpressionAttributeValues={":g": S("tx")})["Items"]
    assert len(got) == 5


def test_lsi_all_projection_may_list_non_key_attributes(ddb, table_factory):
    # The service accepts it for an LSI (Alternator's stream tests, run against it, create one);
    # a GSI refuses it.
    t = table_factory(("pk", "S"), ("sk", "S"), AttributeDefinitions=_attr_defs(pk="S", sk="S", a="S"),
                      LocalSecondaryIndexes=[lsi_def("by_a", "pk", "a", projection="ALL",
                                                     non_key=["x"])])
    ddb.put_item(TableName=t, Item={"pk": S("p"), "sk": S("1"), "a": S("A"), "y": S("Y")})
    got = ddb.query(TableName=t, IndexName="by_a", KeyConditionExpression="pk = :p",
                    ExpressionAttributeValues={":p": S("p")})["Items"]
    assert got == [{"pk": S("p"), "sk": S("1"), "a": S("A"), "y": S("Y")}]
    expect_error(lambda: table_factory(
        ("pk", "S"), AttributeDefinitions=_attr_defs(pk="S", g="S"),
        GlobalSecondaryIndexes=[gsi_def("by_g", "g", projection="ALL", non_key=["x"])]),
        "ValidationException",
        "One or more parameter values were invalid: ProjectionType is ALL, but NonKeyAttributes "
        "is specified")


# --------------------------------------------------------------------------
# UpdateTable: one online index operation per request, alone
# (from the conformance sweep: behaviours found missing in a sweep against a DynamoDB
# behaviour checklist; was test_conformance_sweep.py)
# --------------------------------------------------------------------------

def test_update_table_one_online_index_operation(ddb, table_s):
    limit = ("Subscriber limit exceeded: Only 1 online index can be created or deleted "
             "simultaneously per table")
    expect_error(lambda: ddb.update_table(
        TableName=table_s, AttributeDefinitions=_defs("x", "y"),
        GlobalSecondaryIndexUpdates=[_create("gsix", "x"), _create("gsiy", "y")]),
        "LimitExceededException", limit)
    assert _index_names(ddb, table_s) == []
    ddb.update_table(TableName=table_s, AttributeDefinitions=_defs("x"),
                     GlobalSecondaryIndexUpdates=[_create("gsix", "x")])
    expect_error(lambda: ddb.update_table(
        TableName=table_s, AttributeDefinitions=_defs("y"),
        GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "gsix"}}, _create("gsiy", "y")]),
        "LimitExceededException", limit)
    assert _index_names(ddb, table_s) == ["gsix"]


@pytest.mark.parametrize("extra,message", [
    ({"StreamSpecification": {"StreamEnabled": False}},
     "You cannot create or delete index while changing stream status"),
    ({"TableClass": "STANDARD_INFREQUENT_ACCESS"},
     "TableClass modification must be the only operation in the request"),
])
def test_update_table_index_creation_must_go_alone(ddb, table_s, extra, message):
    expect_error(lambda: ddb.update_table(
        TableName=table_s, AttributeDefinitions=_defs("x"),
        GlobalSecondaryIndexUpdates=[_create("gsix", "x")], **extra),
        "ValidationException", message)
    assert _index_names(ddb, table_s) == []


def test_update_table_index_creation_with_deletion_protection(ddb, raw, table_s):
    r = raw("UpdateTable", {"TableName": table_s, "AttributeDefinitions": _defs("x"),
                            "GlobalSecondaryIndexUpdates": [_create("gsix", "x")],
                            "DeletionProtectionEnabled": False})
    assert r.status == 400
    assert r.json() == {
        "__type": "com.amazon.coral.validate#ValidationException",
        "message": "DeletionProtection modification must be the only operation in the request"}
    assert _index_names(ddb, table_s) == []


def test_update_table_index_creation_with_table_throughput(ddb, table_factory):
    table = table_factory(ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    create = _create("gsix", "x")
    create["Create"]["ProvisionedThroughput"] = {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}
    expect_error(lambda: ddb.update_table(
        TableName=table, AttributeDefinitions=_defs("x"), GlobalSecondaryIndexUpdates=[create],
        ProvisionedThroughput={"ReadCapacityUnits": 2, "WriteCapacityUnits": 2}),
        "ValidationException", "You cannot create or delete index while updating table IOPS")
    assert _index_names(ddb, table) == []
    # With a billing-mode switch it is fine.
    ddb.update_table(TableName=table, AttributeDefinitions=_defs("x"),
                     GlobalSecondaryIndexUpdates=[_create("gsix", "x")],
                     BillingMode="PAY_PER_REQUEST")
    assert _index_names(ddb, table) == ["gsix"]


# --------------------------------------------------------------------------
# Index definitions and limits
# (from the conformance sweep: behaviours found missing in a sweep against a DynamoDB
# behaviour checklist; was test_conformance_sweep.py)
# --------------------------------------------------------------------------

def test_gsi_update_unchanged_throughput(ddb, table_factory):
    pt = {"ReadCapacityUnits": 2, "WriteCapacityUnits": 2}
    table = table_factory(
        ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "x", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "gsi1", "KeySchema": [
            {"AttributeName": "x", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"},
            "ProvisionedThroughput": pt}])
    expect_error(lambda: ddb.update_table(TableName=table, GlobalSecondaryIndexUpdates=[
        {"Update": {"IndexName": "gsi1", "ProvisionedThroughput": pt}}]),
        "ValidationException",
        "The provisioned throughput for the index gsi1 will not change. The requested value "
        "equals the current value. Current ReadCapacityUnits provisioned for index gsi1: 2. "
        "Requested ReadCapacityUnits: 2. Current WriteCapacityUnits provisioned for index gsi1: "
        "2. Requested WriteCapacityUnits: 2. Refer to the Amazon DynamoDB Developer Guide for "
        "current limits and how to request higher limits.")
    ddb.update_table(TableName=table, GlobalSecondaryIndexUpdates=[
        {"Update": {"IndexName": "gsi1", "ProvisionedThroughput": {"ReadCapacityUnits": 2,
                                                                    "WriteCapacityUnits": 3}}}])


def test_twenty_first_gsi_by_update_table(ddb, table_factory):
    names = [f"a{i}" for i in range(21)]
    table = table_factory(
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"}
                              for n in ["pk"] + names[:20]],
        GlobalSecondaryIndexes=[{"IndexName": f"gsi{i:02d}", "KeySchema": [
            {"AttributeName": names[i], "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}} for i in range(20)])
    expect_error(lambda: ddb.update_table(
        TableName=table, AttributeDefinitions=_defs("a20"),
        GlobalSecondaryIndexUpdates=[_create("gsi20", "a20")]),
        "LimitExceededException",
        "Subscriber limit exceeded: Number of global secondary indexes exceeds per-table limit "
        "of 20")
    assert len(_index_names(ddb, table)) == 20


def test_a_missing_projection_type_is_checked_after_the_index_keys(ddb, table_s):
    # dynalite's suite (recorded against the service) sends indexes without a ProjectionType
    # to reach the key-schema checks: they answer first (ddb answered "Unknown ProjectionType:
    # null" before anything else).
    expect_error(lambda: ddb.create_table(
        TableName=unique_name(), BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "a", "AttributeType": "S"},
                              {"AttributeName": "b", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "a", "KeyType": "HASH"},
                   {"AttributeName": "b", "KeyType": "RANGE"}],
        LocalSecondaryIndexes=[{"IndexName": "abc", "Projection": {},
                                "KeySchema": [{"AttributeName": "a", "KeyType": "RANGE"},
                                              {"AttributeName": "b", "KeyType": "RANGE"}]}]),
        "ValidationException", "Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
    expect_error(lambda: ddb.update_table(
        TableName=table_s, AttributeDefinitions=[{"AttributeName": "x", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[{"Create": {
            "IndexName": "gsiy", "Projection": {},
            "KeySchema": [{"AttributeName": "x", "KeyType": "HASH"}]}}]),
        "ValidationException",
        "One or more parameter values were invalid: Unknown ProjectionType: null")


def test_index_definition_errors(ddb, table_s):
    base = dict(BillingMode="PAY_PER_REQUEST", KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"},
                                      {"AttributeName": "x", "AttributeType": "S"}])

    def create(projection):
        return ddb.create_table(TableName=unique_name(), **base, GlobalSecondaryIndexes=[{
            "IndexName": "gsix", "KeySchema": [{"AttributeName": "x", "KeyType": "HASH"}],
            "Projection": projection}])

    expect_error(lambda: create({}), "ValidationException",
                 "One or more parameter values were invalid: Unknown ProjectionType: null")
    expect_error(lambda: create({"ProjectionType": "INCLUDE", "NonKeyAttributes": []}),
                 "ValidationException",
                 "1 validation error detected: Value '[]' at "
                 "'globalSecondaryIndexes.1.member.projection.nonKeyAttributes' failed to satisfy "
                 "constraint: Member must have length greater than or equal to 1")
    names = [f"n{i}" for i in range(21)]
    expect_error(lambda: create({"ProjectionType": "INCLUDE", "NonKeyAttributes": names}),
                 "ValidationException",
                 "1 validation error detected: Value '[" + ", ".join(names) + "]' at "
                 "'globalSecondaryIndexes.1.member.projection.nonKeyAttributes' failed to satisfy "
                 "constraint: Member must have length less than or equal to 20")
    expect_error(lambda: ddb.update_table(TableName=table_s,
                                          GlobalSecondaryIndexUpdates=[_create("gsix", "x")]),
                 "ValidationException", "AttributeDefinitions is not specified for index: gsix")
    expect_error(lambda: ddb.update_table(TableName=table_s, GlobalSecondaryIndexUpdates=[],
                                          BillingMode="PAY_PER_REQUEST"),
                 "ValidationException",
                 "One or more parameter values were invalid: List of GlobalSecondaryIndexUpdates "
                 "is empty")
