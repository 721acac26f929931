"""Vector indexes and SearchVectors, over raw JSON (Debian's boto3 predates the API).

Verified against the service's documentation: member names (API reference: SearchVectors,
VectorIndex, VectorIndexDescription, CreateVectorIndexAction), score order per distance
function, TopK 1..100, and the troubleshooting page's messages. Messages the documentation
does not give are checked by substring only (engine/vector/vector_search.cc says which are guessed).
"""

import http.client
import math
import random
import time

import pytest

from conftest import TARGET_PREFIX, ServerProcess, raw_post, unique_name

ERR = "com.amazonaws.dynamodb.v20120810#"


def ok(resp):
    assert resp.status == 200, resp.body
    return resp.json()


def err(resp, code, message=None, contains=None):
    assert resp.status == 400, resp.body
    body = resp.json()
    namespace = "com.amazon.coral.validate#" if code == "ValidationException" else ERR
    assert body["__type"] == namespace + code, body
    if message is not None:
        assert body["message"] == message, body
    if contains is not None:
        assert contains in body["message"], body
    return body


def vec(values):
    return {"L": [{"N": repr(float(v))} for v in values]}


def vector_index(name="vix", attr="emb", dims=3, fn="COSINE", schema=None, projection=None):
    idx = {
        "IndexName": name,
        "VectorAttribute": {"AttributeName": attr},
        "Dimensions": dims,
        "DistanceFunction": fn,
        "Projection": projection or {"ProjectionType": "ALL"},
    }
    if schema is not None:
        idx["SearchSchema"] = schema
    return idx


def create(raw, name, indexes, defs=None, billing="PAY_PER_REQUEST"):
    body = {
        "TableName": name,
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}] + (defs or []),
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "VectorIndexes": indexes,
    }
    if billing == "PAY_PER_REQUEST":
        body["BillingMode"] = billing
    else:
        body["ProvisionedThroughput"] = {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}
    return raw("CreateTable", body)


def put(raw, table, pk, emb=None, **attrs):
    item = {"pk": {"S": pk}}
    if emb is not None:
        item["emb"] = vec(emb)
    for k, v in attrs.items():
        item[k] = v
    return raw("PutItem", {"TableName": table, "Item": item})


def search(raw, table, q, k=3, index="vix", **extra):
    body = {"TableName": table, "IndexName": index, "SearchVector": [{"N": str(x)} for x in q],
            "TopK": k}
    body.update(extra)
    return raw("SearchVectors", body)


@pytest.fixture
def vtable(raw):
    name = unique_name("vec")
    ok(create(raw, name, [vector_index()]))
    yield name
    raw("DeleteTable", {"TableName": name})


def test_create_table_describes_vector_index(raw, vtable):
    d = ok(raw("DescribeTable", {"TableName": vtable}))["Table"]
    [vi] = d["VectorIndexes"]
    assert vi["IndexName"] == "vix"
    assert vi["VectorAttribute"] == {"AttributeName": "emb"}
    assert vi["Dimensions"] == 3
    assert vi["DistanceFunction"] == "COSINE"
    assert vi["IndexStatus"] == "ACTIVE"
    assert "Backfilling" not in vi  # absent for an index created with the table
    assert vi["ItemCount"] == 0 and vi["IndexSizeBytes"] == 0
    assert vi["IndexArn"] == d["TableArn"] + "/index/vix"
    assert vi["Projection"] == {"ProjectionType": "ALL"}


def test_search_orders_by_cosine_and_projects(raw, vtable):
    ok(put(raw, vtable, "a", [1, 0, 0], title={"S": "A"}))
    ok(put(raw, vtable, "b", [0, 1, 0], title={"S": "B"}))
    ok(put(raw, vtable, "c", [1, 1, 0], title={"S": "C"}))
    ok(put(raw, vtable, "none", None, title={"S": "no vector"}))  # skipped, not refused
    r = ok(search(raw, vtable, [1, 0.1, 0], k=3))
    keys = [x["Item"]["pk"]["S"] for x in r["SearchResults"]]
    assert keys == ["a", "c", "b"]
    scores = [x["Score"] for x in r["SearchResults"]]
    assert scores == sorted(scores)
    assert 0 <= scores[0] < 0.01 and abs(scores[2] - (1 - 0.1 / math.sqrt(1.01))) < 1e-4
    assert r["SearchResults"][0]["Item"]["title"] == {"S": "A"}
    # The vector attribute is left out unless a ProjectionExpression names it, even under
    # ProjectionType ALL (AWS's DynamoDB skill for coding assistants,
    # references/vector-search.md: "The vector attribute is excluded by default").
    assert r["SearchResults"][0]["Item"] == {"pk": {"S": "a"}, "title": {"S": "A"}}
    r2 = ok(search(raw, vtable, [1, 0.1, 0], k=1, ProjectionExpression="pk, emb"))
    assert r2["SearchResults"][0]["Item"]["emb"] == {"L": [{"N": "1"}, {"N": "0"}, {"N": "0"}]}
    d = ok(raw("DescribeTable", {"TableName": vtable}))["Table"]
    assert d["VectorIndexes"][0]["ItemCount"] == 3
    assert d["VectorIndexes"][0]["IndexSizeBytes"] == 3 * 3 * 4
    # ProjectionExpression with names; ConsumedCapacity's VectorSearchRequestBytes.
    r = ok(search(raw, vtable, [0, 1, 0], k=1, ProjectionExpression="#t",
                  ExpressionAttributeNames={"#t": "title"}, ReturnConsumedCapacity="TOTAL"))
    assert r["SearchResults"] == [{"Item": {"title": {"S": "B"}}, "Score": r["SearchResults"][0]["Score"]}]
    assert r["ConsumedCapacity"]["VectorSearchRequestBytes"] > 0
    assert "ConsumedCapacity" not in ok(search(raw, vtable, [0, 1, 0], k=1))


def test_updates_and_deletes_move_entries(raw, vtable):
    ok(put(raw, vtable, "a", [1, 0, 0]))
    ok(put(raw, vtable, "b", [0, 1, 0]))
    ok(raw("UpdateItem", {"TableName": vtable, "Key": {"pk": {"S": "a"}},
                          "UpdateExpression": "SET emb = :v", "ExpressionAttributeValues": {":v": vec([0, 0, 1])}}))
    r = ok(search(raw, vtable, [0, 0, 1], k=1))
    assert r["SearchResults"][0]["Item"]["pk"]["S"] == "a"
    ok(raw("DeleteItem", {"TableName": vtable, "Key": {"pk": {"S": "a"}}}))
    r = ok(search(raw, vtable, [0, 0, 1], k=5))
    assert [x["Item"]["pk"]["S"] for x in r["SearchResults"]] == ["b"]
    # REMOVE of the vector takes the item out; a transaction puts one back.
    ok(raw("UpdateItem", {"TableName": vtable, "Key": {"pk": {"S": "b"}}, "UpdateExpression": "REMOVE emb"}))
    assert ok(search(raw, vtable, [0, 1, 0], k=5))["SearchResults"] == []
    ok(raw("TransactWriteItems", {"TransactItems": [
        {"Put": {"TableName": vtable, "Item": {"pk": {"S": "t"}, "emb": vec([0, 1, 1])}}}]}))
    ok(raw("BatchWriteItem", {"RequestItems": {vtable: [
        {"PutRequest": {"Item": {"pk": {"S": "w"}, "emb": vec([1, 1, 1])}}}]}}))
    keys = [x["Item"]["pk"]["S"] for x in ok(search(raw, vtable, [0, 1, 1], k=5))["SearchResults"]]
    assert keys == ["t", "w"]


def test_writes_with_bad_vectors_are_refused(raw, vtable):
    err(put(raw, vtable, "x", [1, 2]), "ValidationException", contains="dimension")
    bad = {"pk": {"S": "x"}, "emb": {"L": [{"N": "1"}, {"S": "two"}, {"N": "3"}]}}
    err(raw("PutItem", {"TableName": vtable, "Item": bad}), "ValidationException",
        contains="Invalid type for parameter emb[1]")
    for wrong in ({"S": "1,2,3"}, {"N": "1"}, {"NS": ["1", "2", "3"]}):
        err(raw("PutItem", {"TableName": vtable, "Item": {"pk": {"S": "x"}, "emb": wrong}}),
            "ValidationException", contains="Invalid type for parameter")
    err(put(raw, vtable, "x", [1e39, 0, 0]), "ValidationException", contains="emb[0]")
    err(raw("UpdateItem", {"TableName": vtable, "Key": {"pk": {"S": "x"}},
                           "UpdateExpression": "SET emb = :v", "ExpressionAttributeValues": {":v": vec([1])}}),
        "ValidationException", contains="dimension")
    assert ok(raw("GetItem", {"TableName": vtable, "Key": {"pk": {"S": "x"}}})) == {}


def test_search_errors(raw, vtable):
    # The service's words as references/vector-search.md (above) quotes them.
    for k in (0, 101):
        err(search(raw, vtable, [1, 0, 0], k=k), "ValidationException",
            f"Provided TopK value '{k}' is out of valid range. The value must be between 1 "
            "and 100 inclusive")
    err(search(raw, unique_name("nope"), [1, 0, 0]), "ResourceNotFoundException")
    err(search(raw, vtable, [1, 0, 0], index="missing"), "ResourceNotFoundException")
    err(search(raw, vtable, [1, 0]), "ValidationException", contains="dimension")
    err(search(raw, vtable, [1, 0, 0], SearchConditionExpression="a = :v",
               ExpressionAttributeValues={":v": {"S": "x"}}), "ValidationException",
        contains="SearchSchema")
    # The table's ARN works as its name.
    arn = ok(raw("DescribeTable", {"TableName": vtable}))["Table"]["TableArn"]
    assert ok(search(raw, arn, [1, 0, 0]))["SearchResults"] == []


def test_search_schema_partition_and_filters(raw):
    name = unique_name("vecp")
    schema = [{"AttributeName": "cat", "SearchSchemaElementType": "HASH"},
              {"AttributeName": "color", "SearchSchemaElementType": "INLINE_FILTER"}]
    defs = [{"AttributeName": "cat", "AttributeType": "S"},
            {"AttributeName": "color", "AttributeType": "S"}]
    ok(create(raw, name, [vector_index(dims=2, fn="EUCLIDEAN", schema=schema,
                                       projection={"ProjectionType": "KEYS_ONLY"})], defs))
    try:
        d = ok(raw("DescribeTable", {"TableName": name}))["Table"]
        assert d["VectorIndexes"][0]["SearchSchema"] == schema
        rows = [("a", "x", "red", [0, 0]), ("b", "x", "blue", [1, 0]), ("c", "y", "red", [0, 0.5]),
                ("d", "x", "red", [3, 4])]
        for pk, cat, color, e in rows:
            ok(put(raw, name, pk, e, cat={"S": cat}, color={"S": color}, extra={"S": "e"}))
        ok(put(raw, name, "nocat", [0, 0]))  # no partition key: not in the index
        err(put(raw, name, "badcat", [0, 0], cat={"N": "1"}), "ValidationException",
            contains="Type mismatch")
        err(search(raw, name, [0, 0]), "ValidationException",
            "SearchConditionExpression must be provided when SearchSchema has a HASH key")
        r = ok(search(raw, name, [0, 0], k=10, SearchConditionExpression="cat = :c",
                      ExpressionAttributeValues={":c": {"S": "x"}}))
        assert [x["Item"]["pk"]["S"] for x in r["SearchResults"]] == ["a", "b", "d"]
        assert [x["Score"] for x in r["SearchResults"]] == [0.0, 1.0, 5.0]
        # KEYS_ONLY: table key and SearchSchema attributes only.
        assert set(r["SearchResults"][0]["Item"]) == {"pk", "cat", "color"}
        r = ok(search(raw, name, [0, 0], k=10, SearchConditionExpression="cat = :c AND #k = :r",
                      ExpressionAttributeNames={"#k": "color"},
                      ExpressionAttributeValues={":c": {"S": "x"}, ":r": {"S": "red"}}))
        assert [x["Item"]["pk"]["S"] for x in r["SearchResults"]] == ["a", "d"]
        for expr in ("cat > :c", "cat <> :c", "cat BETWEEN :c AND :c", "cat IN (:c)"):
            err(search(raw, name, [0, 0], SearchConditionExpression=expr,
                       ExpressionAttributeValues={":c": {"S": "x"}}), "ValidationException",
                "Invalid comparator used in SearchConditionExpression")
        err(search(raw, name, [0, 0], SearchConditionExpression="cat = :c OR cat = :c",
                   ExpressionAttributeValues={":c": {"S": "x"}}), "ValidationException",
            contains="OR")
        err(search(raw, name, [0, 0], SearchConditionExpression="cat = :c",
                   ExpressionAttributeValues={":c": {"S": "x"}, ":u": {"S": "y"}}),
            "ValidationException", contains="unused")
    finally:
        raw("DeleteTable", {"TableName": name})


def test_dot_product_is_higher_first(raw):
    name = unique_name("vecd")
    ok(create(raw, name, [vector_index(dims=2, fn="DOT_PRODUCT")]))
    try:
        ok(put(raw, name, "small", [1, 0]))
        ok(put(raw, name, "big", [3, 0]))
        ok(put(raw, name, "neg", [-1, 0]))
        r = ok(search(raw, name, [1, 0], k=3))
        assert [x["Item"]["pk"]["S"] for x in r["SearchResults"]] == ["big", "small", "neg"]
        assert [x["Score"] for x in r["SearchResults"]] == [3.0, 1.0, -1.0]
    finally:
        raw("DeleteTable", {"TableName": name})


def test_control_plane_validation(raw):
    name = unique_name("vecv")
    err(create(raw, name, [vector_index()], billing="PROVISIONED"), "ValidationException",
        contains="on-demand")
    err(create(raw, name, [vector_index(schema=[{"AttributeName": "cat", "SearchSchemaElementType": "HASH"}])]),
        "ValidationException", "One element in SearchSchema is not defined in attribute definitions")
    err(create(raw, name, [vector_index(dims=0)]), "ValidationException",
        contains="failed to satisfy constraint: Member must have value greater than or equal to 1")
    err(create(raw, name, [vector_index(fn="MANHATTAN")]), "ValidationException",
        contains="Member must satisfy enum value set: [COSINE, DOT_PRODUCT, EUCLIDEAN]")
    err(create(raw, name, [vector_index(name="x")]), "ValidationException",
        contains="Member must have length greater than or equal to 3")
    err(create(raw, name, [vector_index(), vector_index()]), "ValidationException",
        contains="Duplicate index name: vix")
    err(create(raw, name, [vector_index(name="vi1", dims=3), vector_index(name="vi2", dims=4)]),
        "ValidationException", contains="same Dimensions")
    err(create(raw, name, [vector_index(name=f"v{i}x") for i in range(6)]), "ValidationException",
        contains="per-table limit")
    err(create(raw, name, []), "ValidationException", contains="List of VectorIndexes is empty")
    # An unused AttributeDefinition still fails; a SearchSchema attribute counts as used.
    err(create(raw, name, [vector_index()], [{"AttributeName": "zz", "AttributeType": "S"}]),
        "ValidationException", contains="Some AttributeDefinitions are not used")


def test_update_table_adds_with_backfill_and_deletes(raw):
    name = unique_name("vecu")
    ok(raw("CreateTable", {"TableName": name, "BillingMode": "PAY_PER_REQUEST",
                           "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                           "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}))
    try:
        random.seed(7)
        for i in range(300):
            ok(put(raw, name, f"k{i}", [random.random() for _ in range(3)]))
        r = ok(raw("UpdateTable", {"TableName": name, "VectorIndexUpdates": [
            {"Create": vector_index(name="later")}]}))
        [vi] = r["TableDescription"]["VectorIndexes"]
        assert vi["IndexStatus"] == "CREATING" and vi["Backfilling"] is True
        deadline = time.time() + 20
        while True:
            d = ok(raw("DescribeTable", {"TableName": name}))["Table"]["VectorIndexes"][0]
            if d["IndexStatus"] == "ACTIVE":
                break
            during = search(raw, name, [1, 0, 0], index="later")
            if during.status == 200:
                # The backfill ended between the DescribeTable and the search.
                d = ok(raw("DescribeTable", {"TableName": name}))["Table"]["VectorIndexes"][0]
                assert d["IndexStatus"] == "ACTIVE", d
                break
            err(during, "ValidationException", "Cannot search backfilling vector index: later")
            assert time.time() < deadline
            time.sleep(0.05)
        assert d["Backfilling"] is False and d["ItemCount"] == 300
        assert len(ok(search(raw, name, [1, 0, 0], k=10, index="later"))["SearchResults"]) == 10
        err(raw("UpdateTable", {"TableName": name, "VectorIndexUpdates": [
            {"Create": vector_index(name="later")}]}), "ValidationException", contains="already exists")
        err(raw("UpdateTable", {"TableName": name, "VectorIndexUpdates": [
            {"Delete": {"IndexName": "nope"}}]}), "ResourceNotFoundException")
        # One online index operation per UpdateTable, vector indexes and GSIs together
        # (references/vector-search.md, above, quotes the answer).
        two = {"TableName": name, "VectorIndexUpdates": [
            {"Create": vector_index(name="vix2")}, {"Create": vector_index(name="vix3")}]}
        err(raw("UpdateTable", two), "LimitExceededException",
            "Subscriber limit exceeded: Only 1 online index can be created or deleted "
            "simultaneously per table")
        time.sleep(0.01)
        r = ok(raw("UpdateTable", {"TableName": name, "VectorIndexUpdates": [
            {"Delete": {"IndexName": "later"}}]}))
        assert r["TableDescription"]["VectorIndexes"][0]["IndexStatus"] == "DELETING"
        assert "VectorIndexes" not in ok(raw("DescribeTable", {"TableName": name}))["Table"]
        err(search(raw, name, [1, 0, 0], index="later"), "ResourceNotFoundException")
    finally:
        raw("DeleteTable", {"TableName": name})


def test_update_table_provisioned_refused(raw):
    name = unique_name("vecq")
    ok(raw("CreateTable", {"TableName": name,
                           "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
                           "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                           "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}))
    try:
        err(raw("UpdateTable", {"TableName": name, "VectorIndexUpdates": [
            {"Create": vector_index()}]}), "ValidationException", contains="on-demand")
    finally:
        raw("DeleteTable", {"TableName": name})


@pytest.mark.ddb_only("ddb-server's /metrics")
def test_metrics_report_vector_memory(raw, server, vtable):
    import urllib.request
    ok(put(raw, vtable, "a", [1, 0, 0]))
    text = urllib.request.urlopen(server.endpoint + "/metrics", timeout=10).read().decode()
    lines = [l for l in text.splitlines() if l.startswith("ddb_vector_index_memory_bytes") and vtable in l]
    assert lines and float(lines[0].split()[-1]) > 0


def caller(srv):
    """call(op, body) -> RawResponse against `srv`, one connection per call."""
    def call(op, body):
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
        try:
            return raw_post(conn, srv.endpoint, TARGET_PREFIX + op, body)
        finally:
            conn.close()
    return call


def test_rebuilt_on_restart(tmp_path):
    srv = ServerProcess("--data-dir", str(tmp_path))
    srv.start()
    try:
        call = caller(srv)
        ok(create(call, "restart", [vector_index()]))
        ok(put(call, "restart", "a", [1, 0, 0]))
        ok(put(call, "restart", "b", [0, 1, 0]))
    finally:
        srv.stop()
    srv = ServerProcess("--data-dir", str(tmp_path))
    srv.start()
    try:
        r = ok(search(caller(srv), "restart", [0, 1, 0], k=2))
        assert [x["Item"]["pk"]["S"] for x in r["SearchResults"]] == ["b", "a"]
    finally:
        srv.stop()


def graph_built(server, table):
    import urllib.request
    text = urllib.request.urlopen(server.endpoint + "/metrics", timeout=10).read().decode()
    return any(l.startswith("ddb_vector_index_graph{") and table in l and l.endswith(" 1")
               for l in text.splitlines())


@pytest.mark.ddb_only("ddb-server's /metrics (the HNSW graph gauge)")
def test_recall_against_exact_above_graph_threshold(raw, server):
    """25,000 random vectors: past kVectorGraphThreshold (20,000) the HNSW graph answers;
    its top 10 must agree with exact search (computed here) at recall >= 0.95."""
    name = unique_name("vecr")
    dims = 16
    ok(create(raw, name, [vector_index(dims=dims, fn="EUCLIDEAN")]))
    try:
        rng = random.Random(11)
        data = [[rng.random() for _ in range(dims)] for _ in range(25000)]
        for start in range(0, len(data), 25):
            ok(raw("BatchWriteItem", {"RequestItems": {name: [
                {"PutRequest": {"Item": {"pk": {"S": str(i)}, "emb": vec(data[i])}}}
                for i in range(start, min(start + 25, len(data)))]}}))
        deadline = time.time() + 120
        while not graph_built(server, name):  # built in the background
            assert time.time() < deadline, "the graph was not built"
            time.sleep(0.2)
        hits = 0
        queries = [[rng.random() for _ in range(dims)] for _ in range(30)]
        for q in queries:
            exact = sorted(range(len(data)),
                           key=lambda i: sum((a - b) ** 2 for a, b in zip(data[i], q)))[:10]
            r = ok(search(raw, name, q, k=10))
            got = {int(x["Item"]["pk"]["S"]) for x in r["SearchResults"]}
            hits += len(got & set(exact))
        assert hits / (10 * len(queries)) >= 0.95
    finally:
        raw("DeleteTable", {"TableName": name})


LAG_MS = 1500


def test_propagation_delay_lags_vector_index_like_gsis():
    """Under --gsi-propagation-delay-ms the vector index follows the change log, as GSIs do:
    a new vector and a removed one show in searches only after the delay. (Hits are read from
    the table, so a deleted item drops out of results at once; its entry goes after the delay.)"""
    srv = ServerProcess("--in-memory", "--gsi-propagation-delay-ms", str(LAG_MS)).start()
    try:
        call = caller(srv)
        name = unique_name("veclag")
        ok(create(call, name, [vector_index()]))

        def found():
            return [(r["Item"]["pk"]["S"]) for r in
                    ok(search(call, name, [1, 0, 0], k=5))["SearchResults"]]

        def after_lag(t0, expected):
            # Not visible before the delay (unless this machine stalled past it), visible after.
            seen = found()
            if time.monotonic() - t0 < 0.8 * LAG_MS / 1000:
                assert seen != expected, seen
            deadline = time.monotonic() + 10
            while found() != expected:
                assert time.monotonic() < deadline, found()
                time.sleep(0.1)
            assert time.monotonic() - t0 >= LAG_MS / 1000 * 0.9

        t0 = time.monotonic()
        ok(put(call, name, "a", [1, 0, 0]))
        after_lag(t0, ["a"])
        t0 = time.monotonic()
        ok(put(call, name, "a"))  # the vector removed from the item
        after_lag(t0, [])
        t0 = time.monotonic()
        ok(put(call, name, "b", [0, 1, 0]))
        after_lag(t0, ["b"])
        ok(call("DeleteItem", {"TableName": name, "Key": {"pk": {"S": "b"}}}))
        assert found() == []
        ok(call("DeleteTable", {"TableName": name}))
    finally:
        srv.stop_and_check()
