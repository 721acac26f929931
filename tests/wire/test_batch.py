"""BatchGetItem / BatchWriteItem: several tables, projections, limits, duplicates, errors.

Expected behaviour comes from the DynamoDB API reference (BatchGetItem,
BatchWriteItem) and error texts observed on the real service as pinned by
independent test suites (dynalite's validation tests, written against
DynamoDB). A comment marks any message whose exact wording is less certain;
those are asserted with a regex or a substring.
"""

import pytest

from conftest import expect_error, unique_name
from conftest import item_collection_metrics as _metrics

NOT_FOUND = "Requested resource not found"
DUPLICATES = "Provided list of item keys contains duplicates"
KEY_MISMATCH = "The provided key element does not match the schema"
TOO_MANY_GET = "Too many items requested for the BatchGetItem call"
TOO_MANY_WRITE = "Too many items requested for the BatchWriteItem call"
TOO_BIG = "Item size has exceeded the maximum allowed size"


def _get(ddb, table, key):
    return ddb.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")


def _sort_items(items, names=("pk", "sk")):
    def k(it):
        return tuple(str(it.get(n)) for n in names)
    return sorted(items, key=k)


@pytest.fixture
def two_tables(ddb, table_factory):
    """(hash-only table with pk S, hash+range table with pk S / sk N), pre-filled."""
    a = table_factory(("pk", "S"))
    b = table_factory(("pk", "S"), ("sk", "N"))
    for i in range(5):
        ddb.put_item(TableName=a, Item={"pk": {"S": f"a{i}"}, "v": {"N": str(i)},
                                        "m": {"M": {"x": {"S": f"x{i}"}, "y": {"L": [{"N": "1"}, {"N": "2"}]}}},
                                        "name": {"S": f"n{i}"}})
        ddb.put_item(TableName=b, Item={"pk": {"S": "p"}, "sk": {"N": str(i)}, "w": {"S": f"w{i}"}})
    return a, b


# ---------------------------------------------------------------------------
# BatchGetItem
# ---------------------------------------------------------------------------

def test_batch_get_several_tables(ddb, two_tables):
    a, b = two_tables
    resp = ddb.batch_get_item(RequestItems={
        a: {"Keys": [{"pk": {"S": "a1"}}, {"pk": {"S": "a3"}}, {"pk": {"S": "missing"}}]},
        b: {"Keys": [{"pk": {"S": "p"}, "sk": {"N": "0"}}, {"pk": {"S": "p"}, "sk": {"N": "4.0"}},
                     {"pk": {"S": "q"}, "sk": {"N": "0"}}]},
    })
    assert set(resp["Responses"]) == {a, b}
    got_a = sorted(resp["Responses"][a], key=lambda it: it["pk"]["S"])
    assert got_a == [_get(ddb, a, {"pk": {"S": "a1"}}), _get(ddb, a, {"pk": {"S": "a3"}})]
    got_b = sorted(resp["Responses"][b], key=lambda it: it["sk"]["N"])
    assert got_b == [{"pk": {"S": "p"}, "sk": {"N": "0"}, "w": {"S": "w0"}},
                     {"pk": {"S": "p"}, "sk": {"N": "4"}, "w": {"S": "w4"}}]
    assert resp["UnprocessedKeys"] == {}


def test_batch_get_nothing_found(ddb, two_tables):
    a, _ = two_tables
    resp = ddb.batch_get_item(RequestItems={a: {"Keys": [{"pk": {"S": "nope1"}},
                                                         {"pk": {"S": "nope2"}}]}})
    assert resp["Responses"].get(a, []) == []
    assert resp["UnprocessedKeys"] == {}


def test_batch_get_per_table_projection(ddb, two_tables):
    a, b = two_tables
    resp = ddb.batch_get_item(RequestItems={
        a: {"Keys": [{"pk": {"S": "a2"}}], "ProjectionExpression": "#n, m.y[1], v",
            "ExpressionAttributeNames": {"#n": "name"}, "ConsistentRead": True},
        b: {"Keys": [{"pk": {"S": "p"}, "sk": {"N": "2"}}], "ProjectionExpression": "w, nosuch",
            "ConsistentRead": False},
    })
    assert resp["Responses"][a] == [{"name": {"S": "n2"}, "m": {"M": {"y": {"L": [{"N": "2"}]}}},
                                     "v": {"N": "2"}}]
    assert resp["Responses"][b] == [{"w": {"S": "w2"}}]
    resp = ddb.batch_get_item(RequestItems={
        b: {"Keys": [{"pk": {"S": "p"}, "sk": {"N": "2"}}], "AttributesToGet": ["w", "nosuch"]}})
    assert resp["Responses"][b] == [{"w": {"S": "w2"}}]
    # A ProjectionExpression for one table and AttributesToGet for another mix expression and
    # legacy parameters in one request (nubo-db/dynamodb-conformance tier 3, 2026).
    expect_error(lambda: ddb.batch_get_item(RequestItems={
        a: {"Keys": [{"pk": {"S": "a2"}}], "ProjectionExpression": "v"},
        b: {"Keys": [{"pk": {"S": "p"}, "sk": {"N": "2"}}], "AttributesToGet": ["w"]}}),
        "ValidationException",
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {AttributesToGet} Expression parameters: "
        "{ProjectionExpression}")


def test_batch_get_projection_of_missing_attribute(ddb, two_tables):
    a, _ = two_tables
    resp = ddb.batch_get_item(RequestItems={
        a: {"Keys": [{"pk": {"S": "a0"}}], "ProjectionExpression": "nosuch"}})
    # The item exists, so it is returned, as an empty map.
    assert resp["Responses"][a] == [{}]


def test_batch_get_same_key_in_two_tables(ddb, table_factory):
    t1, t2 = table_factory(), table_factory()
    ddb.put_item(TableName=t1, Item={"pk": {"S": "k"}, "src": {"S": "t1"}})
    ddb.put_item(TableName=t2, Item={"pk": {"S": "k"}, "src": {"S": "t2"}})
    resp = ddb.batch_get_item(RequestItems={t1: {"Keys": [{"pk": {"S": "k"}}]},
                                            t2: {"Keys": [{"pk": {"S": "k"}}]}})
    assert resp["Responses"][t1] == [{"pk": {"S": "k"}, "src": {"S": "t1"}}]
    assert resp["Responses"][t2] == [{"pk": {"S": "k"}, "src": {"S": "t2"}}]


def test_batch_get_100_keys(ddb, table_s):
    for i in range(0, 100, 2):
        ddb.put_item(TableName=table_s, Item={"pk": {"S": f"k{i:03d}"}})
    keys = [{"pk": {"S": f"k{i:03d}"}} for i in range(100)]
    resp = ddb.batch_get_item(RequestItems={table_s: {"Keys": keys}})
    got = sorted(it["pk"]["S"] for it in resp["Responses"][table_s])
    assert got == [f"k{i:03d}" for i in range(0, 100, 2)]
    assert resp["UnprocessedKeys"] == {}


def test_batch_get_too_many_keys_over_several_tables(ddb, table_factory):
    t1, t2 = table_factory(), table_factory()
    req = {t1: {"Keys": [{"pk": {"S": f"k{i}"}} for i in range(60)]},
           t2: {"Keys": [{"pk": {"S": f"k{i}"}} for i in range(41)]}}
    # exact (real DynamoDB, pinned by dynalite; the API reference quotes it with a final '.')
    expect_error(lambda: ddb.batch_get_item(RequestItems=req), "ValidationException", TOO_MANY_GET)


def test_batch_get_too_many_keys_in_one_table(ddb, table_s):
    keys = [{"pk": {"S": f"k{i}"}} for i in range(101)]
    # The 2026 form names the member path (nubo-db/dynamodb-conformance tier 3).
    expect_error(lambda: ddb.batch_get_item(RequestItems={table_s: {"Keys": keys}}),
                 "ValidationException",
                 f"1 validation error detected: Value at 'RequestItems.{table_s}.member.Keys' "
                 "failed to satisfy constraint: Member must have length less than or equal to 100")
    expect_error(lambda: ddb.batch_get_item(RequestItems={table_s: {"Keys": []}}),
                 "ValidationException",
                 f"1 validation error detected: Value at 'RequestItems.{table_s}.member.Keys' "
                 "failed to satisfy constraint: Member must have length greater than or equal to 1")


BAD_NAMES = ("at 'requestItems' failed to satisfy constraint: Map keys must satisfy constraint: "
             "[Member must have length less than or equal to 255, Member must have length "
             "greater than or equal to 3, Member must satisfy regular expression pattern: "
             "[a-zA-Z0-9_.-]+]")
RCC_BOGUS = ("Value 'BOGUS' at 'returnConsumedCapacity' failed to satisfy constraint: Member "
             "must satisfy enum value set: [INDEXES, TOTAL, NONE]")


def test_batch_table_name_violations(raw, table_s):
    # BatchGetItem: one violation for the map, echoed as sent, beside the enums.
    items = {"bad!name": {"Keys": [{"pk": {"S": "a"}}]}}
    r = raw("BatchGetItem", {"RequestItems": items})
    assert r.json()["message"] == ("1 validation error detected: Value "
                                   "'{\"bad!name\":{\"Keys\":[{\"pk\":{\"S\":\"a\"}}]}}' " + BAD_NAMES)
    r = raw("BatchGetItem", {"RequestItems": items, "ReturnConsumedCapacity": "BOGUS"})
    assert r.json()["message"] == ("2 validation errors detected: Value "
                                   "'{\"bad!name\":{\"Keys\":[{\"pk\":{\"S\":\"a\"}}]}}' " + BAD_NAMES
                                   + "; " + RCC_BOGUS)
    # BatchWriteItem: its enums alone, before the table names.
    r = raw("BatchWriteItem", {"RequestItems": {"bad!name": [
        {"PutRequest": {"Item": {"pk": {"S": "a"}}}}]}, "ReturnConsumedCapacity": "BOGUS"})
    assert r.json()["message"] == "1 validation error detected: " + RCC_BOGUS


def test_batch_get_duplicate_keys(ddb, table_s, table_sn, table_n):
    # exact (real DynamoDB; dynalite)
    expect_error(lambda: ddb.batch_get_item(RequestItems={
        table_s: {"Keys": [{"pk": {"S": "a"}}, {"pk": {"S": "b"}}, {"pk": {"S": "a"}}]}}),
        "ValidationException", DUPLICATES)
    # Attribute order inside a key does not matter.
    expect_error(lambda: ddb.batch_get_item(RequestItems={
        table_sn: {"Keys": [{"pk": {"S": "a"}, "sk": {"N": "1"}},
                            {"sk": {"N": "1"}, "pk": {"S": "a"}}]}}),
        "ValidationException", DUPLICATES)
    # Numbers are compared by value (1 == 1.0); duplicate detection after
    # normalisation is inferred, not pinned.
    expect_error(lambda: ddb.batch_get_item(RequestItems={
        table_n: {"Keys": [{"pk": {"N": "1"}}, {"pk": {"N": "1.0"}}]}}),
        "ValidationException", DUPLICATES)
    # Same partition, different sort keys: fine.
    resp = ddb.batch_get_item(RequestItems={
        table_sn: {"Keys": [{"pk": {"S": "a"}, "sk": {"N": "1"}},
                            {"pk": {"S": "a"}, "sk": {"N": "2"}}]}})
    assert resp["UnprocessedKeys"] == {}


def test_batch_get_key_not_matching_schema(ddb, table_s, table_sn):
    # exact (real DynamoDB; dynalite)
    for key in ({"pk": {"N": "1"}}, {"other": {"S": "x"}}, {"pk": {"S": "x"}, "x": {"S": "y"}}):
        expect_error(lambda: ddb.batch_get_item(RequestItems={table_s: {"Keys": [key]}}),
                     "ValidationException", KEY_MISMATCH)
    expect_error(lambda: ddb.batch_get_item(RequestItems={table_sn: {"Keys": [{"pk": {"S": "x"}}]}}),
                 "ValidationException", KEY_MISMATCH)


def test_batch_get_missing_table(ddb, table_s):
    name = unique_name("nosuch")
    # exact (real DynamoDB)
    expect_error(lambda: ddb.batch_get_item(RequestItems={name: {"Keys": [{"pk": {"S": "x"}}]}}),
                 "ResourceNotFoundException", NOT_FOUND)
    expect_error(lambda: ddb.batch_get_item(RequestItems={
        table_s: {"Keys": [{"pk": {"S": "x"}}]}, name: {"Keys": [{"pk": {"S": "x"}}]}}),
        "ResourceNotFoundException", NOT_FOUND)


def test_batch_get_empty_requests_rejected(ddb, table_s):
    # Constraint messages (min length 1); wording not asserted.
    expect_error(lambda: ddb.batch_get_item(RequestItems={}), "ValidationException")
    expect_error(lambda: ddb.batch_get_item(RequestItems={table_s: {"Keys": []}}),
                 "ValidationException")


def test_batch_get_unused_placeholder(ddb, table_s):
    expect_error(lambda: ddb.batch_get_item(RequestItems={table_s: {
        "Keys": [{"pk": {"S": "x"}}], "ProjectionExpression": "pk",
        "ExpressionAttributeNames": {"#unused": "a"}}}),
        "ValidationException",
        "1 validation error detected: Value provided in ExpressionAttributeNames unused in expressions: keys: {#unused}")


def test_batch_get_16mb_response_limit(ddb, table_s):
    """100 items of ~390 KB = ~39 MB: more than one 16 MB response.

    "For example, if you ask to retrieve 100 items, but each individual item
    is 300 KB in size, the system returns 52 items (so as not to exceed the
    16 MB limit). It also returns an appropriate UnprocessedKeys value so you
    can get the next page of results." (BatchGetItem API reference)
    """
    size = 390_000
    for i in range(100):
        ddb.put_item(TableName=table_s, Item={"pk": {"S": f"big{i:03d}"},
                                              "data": {"S": chr(65 + i % 26) * size},
                                              "extra": {"N": str(i)}})
    request = {table_s: {"Keys": [{"pk": {"S": f"big{i:03d}"}} for i in range(100)],
                         "ProjectionExpression": "pk, #d",
                         "ExpressionAttributeNames": {"#d": "data"},
                         "ConsistentRead": True}}
    first = ddb.batch_get_item(RequestItems=request)
    got = list(first["Responses"].get(table_s, []))
    unprocessed = first["UnprocessedKeys"]
    assert unprocessed, "39 MB cannot fit in one 16 MB response"
    left = unprocessed[table_s]["Keys"]
    assert 1 <= len(got) <= (16 * 1024 * 1024) // size
    assert len(got) + len(left) == 100
    got_keys = {it["pk"]["S"] for it in got}
    assert got_keys.isdisjoint(it["pk"]["S"] for it in left)
    # UnprocessedKeys has RequestItems' form: it can be sent back as is, and
    # keeps the projection (and the names it uses).
    rounds = 1
    while unprocessed:
        rounds += 1
        assert rounds <= 10, "BatchGetItem retry loop does not make progress"
        resp = ddb.batch_get_item(RequestItems=unprocessed)
        got.extend(resp["Responses"].get(table_s, []))
        unprocessed = resp["UnprocessedKeys"]
    assert rounds >= 3
    assert sorted(it["pk"]["S"] for it in got) == [f"big{i:03d}" for i in range(100)]
    for it in got:
        assert set(it) == {"pk", "data"}
        i = int(it["pk"]["S"][3:])
        assert it["data"]["S"] == chr(65 + i % 26) * size


# ---------------------------------------------------------------------------
# BatchWriteItem
# ---------------------------------------------------------------------------

def test_batch_write_puts_and_deletes_over_several_tables(ddb, two_tables):
    a, b = two_tables
    resp = ddb.batch_write_item(RequestItems={
        a: [{"PutRequest": {"Item": {"pk": {"S": "new"}, "v": {"N": "1.50"}}}},
            {"DeleteRequest": {"Key": {"pk": {"S": "a0"}}}},
            {"PutRequest": {"Item": {"pk": {"S": "a1"}, "replaced": {"BOOL": True}}}},
            {"DeleteRequest": {"Key": {"pk": {"S": "never-existed"}}}}],
        b: [{"PutRequest": {"Item": {"pk": {"S": "p"}, "sk": {"N": "1e1"}, "w": {"S": "ten"}}}},
            {"DeleteRequest": {"Key": {"pk": {"S": "p"}, "sk": {"N": "4"}}}}],
    })
    assert resp["UnprocessedItems"] == {}
    assert _get(ddb, a, {"pk": {"S": "new"}}) == {"pk": {"S": "new"}, "v": {"N": "1.5"}}
    assert _get(ddb, a, {"pk": {"S": "a0"}}) is None
    # A put replaces the whole item.
    assert _get(ddb, a, {"pk": {"S": "a1"}}) == {"pk": {"S": "a1"}, "replaced": {"BOOL": True}}
    assert _get(ddb, a, {"pk": {"S": "never-existed"}}) is None
    assert _get(ddb, b, {"pk": {"S": "p"}, "sk": {"N": "10"}}) == \
        {"pk": {"S": "p"}, "sk": {"N": "10"}, "w": {"S": "ten"}}
    assert _get(ddb, b, {"pk": {"S": "p"}, "sk": {"N": "4"}}) is None
    assert _get(ddb, b, {"pk": {"S": "p"}, "sk": {"N": "3"}}) is not None


def test_batch_write_25_requests_then_read_back(ddb, table_factory):
    t1, t2 = table_factory(), table_factory(("pk", "S"), ("sk", "B"))
    reqs = {t1: [{"PutRequest": {"Item": {"pk": {"S": f"k{i}"}, "ss": {"SS": ["b", "a"]},
                                          "l": {"L": [{"NULL": True}, {"B": b"\xff"}]}}}}
                 for i in range(15)],
            t2: [{"PutRequest": {"Item": {"pk": {"S": "p"}, "sk": {"B": bytes([i])}}}}
                 for i in range(10)]}
    resp = ddb.batch_write_item(RequestItems=reqs)
    assert resp["UnprocessedItems"] == {}
    got = ddb.batch_get_item(RequestItems={
        t1: {"Keys": [{"pk": {"S": f"k{i}"}} for i in range(15)]},
        t2: {"Keys": [{"pk": {"S": "p"}, "sk": {"B": bytes([i])}} for i in range(10)]}})
    assert len(got["Responses"][t1]) == 15
    assert all(it["ss"]["SS"] == ["a", "b"] and it["l"]["L"] == [{"NULL": True}, {"B": b"\xff"}]
               for it in got["Responses"][t1])
    assert sorted(it["sk"]["B"] for it in got["Responses"][t2]) == [bytes([i]) for i in range(10)]


def test_batch_write_too_many_requests_in_one_table(ddb, table_s):
    reqs = [{"PutRequest": {"Item": {"pk": {"S": f"k{i}"}}}} for i in range(26)]
    # The 2026 form names the member path (nubo-db/dynamodb-conformance tier 3 accepts it
    # beside the older echo of the whole map).
    expect_error(lambda: ddb.batch_write_item(RequestItems={table_s: reqs}),
                 "ValidationException",
                 f"1 validation error detected: Value at 'RequestItems.{table_s}.member' failed to "
                 "satisfy constraint: Member must have length less than or equal to 25")
    assert _get(ddb, table_s, {"pk": {"S": "k0"}}) is None


def test_batch_write_too_many_requests_over_several_tables(ddb, table_factory):
    t1, t2 = table_factory(), table_factory()
    reqs = {t1: [{"PutRequest": {"Item": {"pk": {"S": f"k{i}"}}}} for i in range(13)],
            t2: [{"DeleteRequest": {"Key": {"pk": {"S": f"k{i}"}}}} for i in range(13)]}
    # exact wording observed on the service by several emulator authors (medium confidence)
    expect_error(lambda: ddb.batch_write_item(RequestItems=reqs), "ValidationException",
                 TOO_MANY_WRITE)
    assert _get(ddb, t1, {"pk": {"S": "k0"}}) is None


@pytest.mark.parametrize("pair", ["put-put", "put-delete", "delete-put", "delete-delete"])
def test_batch_write_duplicate_keys(ddb, table_sn, pair):
    key = {"pk": {"S": "dup"}, "sk": {"N": "1"}}
    ops = {"put": {"PutRequest": {"Item": {**key, "v": {"S": "x"}}}},
           "delete": {"DeleteRequest": {"Key": key}}}
    first, second = pair.split("-")
    # exact (real DynamoDB; dynalite)
    expect_error(lambda: ddb.batch_write_item(RequestItems={table_sn: [
        ops[first], {"PutRequest": {"Item": {"pk": {"S": "other"}, "sk": {"N": "1"}}}},
        ops[second]]}), "ValidationException", DUPLICATES)
    assert _get(ddb, table_sn, key) is None
    assert _get(ddb, table_sn, {"pk": {"S": "other"}, "sk": {"N": "1"}}) is None


def test_batch_write_duplicate_numeric_keys_by_value(ddb, table_n):
    # 1 and 1.00 are the same key (inferred from number normalisation).
    expect_error(lambda: ddb.batch_write_item(RequestItems={table_n: [
        {"PutRequest": {"Item": {"pk": {"N": "1"}}}},
        {"DeleteRequest": {"Key": {"pk": {"N": "1.00"}}}}]}), "ValidationException", DUPLICATES)


def test_batch_write_same_key_in_different_tables_is_fine(ddb, table_factory):
    t1, t2 = table_factory(), table_factory()
    resp = ddb.batch_write_item(RequestItems={
        t1: [{"PutRequest": {"Item": {"pk": {"S": "k"}}}}],
        t2: [{"PutRequest": {"Item": {"pk": {"S": "k"}}}}]})
    assert resp["UnprocessedItems"] == {}
    assert _get(ddb, t1, {"pk": {"S": "k"}}) and _get(ddb, t2, {"pk": {"S": "k"}})


@pytest.mark.parametrize("item,pattern", [
    # Missing key: dynalite pins KEY_MISMATCH for BatchWriteItem; PutItem's wording accepted too.
    ({"other": {"S": "x"}},
     r"^(The provided key element does not match the schema|"
     r"One or more parameter values were invalid: Missing the key pk in the item)$"),
    # A key value of the wrong type: the service's 2026 answer (nubo-db/dynamodb-conformance).
    ({"pk": {"N": "1"}}, r"^The provided key element does not match the schema$"),
    ({"pk": {"S": ""}}, r"empty"),
    ({"pk": {"S": "x"}, "s": {"SS": []}},
     r"^1 validation error detected: One or more parameter values were invalid: "
     r"An string set  may not be empty$"),
    ({"pk": {"S": "x"}, "n": {"N": "abc"}}, r"numeric value"),
    ({"pk": {"S": "x"}, "big": {"S": "b" * 409_600}}, "^" + TOO_BIG + "$"),
], ids=["missing-key", "key-type", "empty-key", "empty-set", "bad-number", "too-big"])
def test_batch_write_item_validation(ddb, table_s, item, pattern):
    # A single invalid request fails the whole batch: nothing is written.
    expect_error(lambda: ddb.batch_write_item(RequestItems={table_s: [
        {"PutRequest": {"Item": {"pk": {"S": "good"}}}},
        {"PutRequest": {"Item": item}}]}), "ValidationException", match=pattern)
    assert _get(ddb, table_s, {"pk": {"S": "good"}}) is None


def test_batch_write_delete_key_not_matching_schema(ddb, table_s, table_sn):
    # exact (real DynamoDB; dynalite)
    for key in ({"pk": {"S": "x"}, "extra": {"S": "y"}}, {"pk": {"B": b"x"}}):
        expect_error(lambda: ddb.batch_write_item(RequestItems={table_s: [
            {"DeleteRequest": {"Key": key}}]}), "ValidationException", KEY_MISMATCH)
    expect_error(lambda: ddb.batch_write_item(RequestItems={table_sn: [
        {"DeleteRequest": {"Key": {"pk": {"S": "x"}}}}]}), "ValidationException", KEY_MISMATCH)


def test_batch_write_missing_table(ddb, table_s):
    name = unique_name("nosuch")
    # exact (real DynamoDB); the valid table's write is not applied either
    expect_error(lambda: ddb.batch_write_item(RequestItems={
        table_s: [{"PutRequest": {"Item": {"pk": {"S": "w"}}}}],
        name: [{"PutRequest": {"Item": {"pk": {"S": "w"}}}}]}),
        "ResourceNotFoundException", NOT_FOUND)
    assert _get(ddb, table_s, {"pk": {"S": "w"}}) is None


def test_batch_write_malformed_requests(ddb, table_s):
    # Shape errors; wording not asserted.
    expect_error(lambda: ddb.batch_write_item(RequestItems={}), "ValidationException")
    expect_error(lambda: ddb.batch_write_item(RequestItems={table_s: []}), "ValidationException")
    expect_error(lambda: ddb.batch_write_item(RequestItems={table_s: [{}]}), "ValidationException")
    expect_error(lambda: ddb.batch_write_item(RequestItems={table_s: [
        {"PutRequest": {"Item": {"pk": {"S": "both"}}},
         "DeleteRequest": {"Key": {"pk": {"S": "both"}}}}]}), "ValidationException")
    assert _get(ddb, table_s, {"pk": {"S": "both"}}) is None


def test_batch_write_then_query_and_scan(ddb, table_sn):
    reqs = [{"PutRequest": {"Item": {"pk": {"S": "q"}, "sk": {"N": str(i)}}}} for i in range(20)]
    reqs += [{"PutRequest": {"Item": {"pk": {"S": "r"}, "sk": {"N": str(i)}}}} for i in range(5)]
    assert ddb.batch_write_item(RequestItems={table_sn: reqs})["UnprocessedItems"] == {}
    resp = ddb.query(TableName=table_sn, KeyConditionExpression="pk = :p",
                     ExpressionAttributeValues={":p": {"S": "q"}})
    assert [int(it["sk"]["N"]) for it in resp["Items"]] == list(range(20))
    assert ddb.scan(TableName=table_sn, Select="COUNT")["Count"] == 25
    dels = [{"DeleteRequest": {"Key": {"pk": {"S": "q"}, "sk": {"N": str(i)}}}} for i in range(20)]
    assert ddb.batch_write_item(RequestItems={table_sn: dels})["UnprocessedItems"] == {}
    assert ddb.scan(TableName=table_sn, Select="COUNT")["Count"] == 5


# --------------------------------------------------------------------------
# ReturnItemCollectionMetrics on BatchWriteItem
# (from the conformance sweep: behaviours found missing in a sweep against a DynamoDB
# behaviour checklist; was test_conformance_sweep.py. lsi_table and
# item_collection_metrics are in conftest.py)
# --------------------------------------------------------------------------

def test_batch_write_item_collection_metrics(ddb, lsi_table, table_s):
    r = ddb.batch_write_item(RequestItems={
        lsi_table: [{"PutRequest": {"Item": {"pk": {"S": "a"}, "sk": {"S": "1"}}}},
                    {"DeleteRequest": {"Key": {"pk": {"S": "b"}, "sk": {"S": "1"}}}}],
        table_s: [{"PutRequest": {"Item": {"pk": {"S": "a"}}}}]},
        ReturnItemCollectionMetrics="SIZE")
    assert r["ItemCollectionMetrics"] == {lsi_table: [_metrics("a"), _metrics("b")]}
    r = ddb.batch_write_item(RequestItems={
        lsi_table: [{"PutRequest": {"Item": {"pk": {"S": "a"}, "sk": {"S": "2"}}}}]})
    assert "ItemCollectionMetrics" not in r
    r = ddb.batch_write_item(RequestItems={table_s: [{"PutRequest": {"Item": {"pk": {"S": "c"}}}}]},
                             ReturnItemCollectionMetrics="SIZE")
    assert "ItemCollectionMetrics" not in r
    expect_error(lambda: ddb.batch_write_item(
        RequestItems={table_s: [{"PutRequest": {"Item": {"pk": {"S": "c"}}}}]},
        ReturnItemCollectionMetrics="BAD"),
        "ValidationException",
        "1 validation error detected: Value 'BAD' at 'returnItemCollectionMetrics' failed to "
        "satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]")


# --------------------------------------------------------------------------
# Table ARNs wherever a table name goes; batches without RequestItems
# (from DynamoDB as it answers in 2026: the service's answers as captured against AWS in
# 2026; was test_service_2026.py)
# --------------------------------------------------------------------------

ENVELOPE = "1 validation error detected: "


def test_table_arns_in_batches_and_transactions(ddb, table_s):
    arn = ddb.describe_table(TableName=table_s)["Table"]["TableArn"]
    ddb.batch_write_item(RequestItems={arn: [{"PutRequest": {"Item": {"pk": {"S": "a"}}}}]})
    got = ddb.batch_get_item(RequestItems={arn: {"Keys": [{"pk": {"S": "a"}}]}})
    assert got["Responses"] == {arn: [{"pk": {"S": "a"}}]}  # keyed as requested
    ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": arn, "Item": {"pk": {"S": "b"}}}}])
    got = ddb.transact_get_items(TransactItems=[
        {"Get": {"TableName": arn, "Key": {"pk": {"S": "b"}}}}])
    assert got["Responses"] == [{"Item": {"pk": {"S": "b"}}}]
    assert ddb.get_item(TableName=table_s, Key={"pk": {"S": "b"}})["Item"] == {"pk": {"S": "b"}}


@pytest.mark.parametrize("op,body,message", [
    ("BatchWriteItem", {}, "The requestItems parameter is required for BatchWriteItem"),
    ("BatchWriteItem", {"RequestItems": {}, "ReturnConsumedCapacity": "hi"},
     "The requestItems parameter is required for BatchWriteItem"),
    ("BatchGetItem", {}, "The requestItems parameter is required for BatchGetItem"),
    ("BatchGetItem", {"RequestItems": {}},
     ENVELOPE + "Value at 'RequestItems' failed to satisfy constraint: Member must have length "
     "greater than or equal to 1"),
])
def test_batches_without_request_items(raw, op, body, message):
    r = raw(op, body)
    assert r.status == 400
    assert r.json()["__type"].endswith("#ValidationException")
    assert r.json()["message"] == message
