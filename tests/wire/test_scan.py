"""Scan: completeness, order stability, Limit, 1 MB pages, filters, parallel scan, errors.

Expected behaviour comes from the DynamoDB API reference (Scan), the
developer guide (working with scans, parallel scan, paginating scan results)
and error texts observed on the real service as pinned by independent test
suites (dynalite's validation tests; ScyllaDB Alternator's tests). A comment
marks any message whose exact wording is less certain.

Not covered (not supported by the server yet): IndexName, ScanFilter,
ConditionalOperator.
"""

import pytest

from conftest import collect_pages, expect_error, unique_name

NOT_FOUND = "Requested resource not found"
# The 2026 form: the member as the API spells it, no value echoed (nubo-db tier 3).
LIMIT_0 = ("1 validation error detected: Value at 'Limit' failed to satisfy constraint: "
           "Member must have value greater than or equal to 1")
# The 2026 answer (nubo-db/dynamodb-conformance); it used to add ": The provided key element
# does not match the schema".
BAD_START_KEY = "The provided starting key is invalid"
N_ITEMS = 300


def _key(item, names=("pk",)):
    return tuple((n, tuple(item[n].items())) for n in names)


def _scan_all(ddb, table, **kw):
    return collect_pages(ddb.scan, TableName=table, **kw)


@pytest.fixture(scope="module")
def hash_table(ddb, module_table_factory):
    """Hash key pk (S); N_ITEMS items, attribute n = index, grp = n % 3."""
    t = module_table_factory(("pk", "S"))
    for i in range(N_ITEMS):
        ddb.put_item(TableName=t, Item={"pk": {"S": f"item-{i:04d}"}, "n": {"N": str(i)},
                                        "grp": {"N": str(i % 3)}, "pad": {"S": "p" * 20}})
    return t


@pytest.fixture(scope="module")
def range_table(ddb, module_table_factory):
    """Hash key pk (N), range key sk (S); 20 partitions x 15 items."""
    t = module_table_factory(("pk", "N"), ("sk", "S"))
    for p in range(20):
        for s in range(15):
            ddb.put_item(TableName=t, Item={"pk": {"N": str(p * 7 - 30)},
                                            "sk": {"S": f"s{(s * 11) % 15:02d}"}})
    return t


ALL_HASH_KEYS = {f"item-{i:04d}" for i in range(N_ITEMS)}


# ---------------------------------------------------------------------------
# Completeness and order
# ---------------------------------------------------------------------------

def test_scan_returns_every_item_once(ddb, hash_table):
    items, pages = _scan_all(ddb, hash_table)
    keys = [it["pk"]["S"] for it in items]
    assert len(keys) == len(set(keys)) == N_ITEMS
    assert set(keys) == ALL_HASH_KEYS
    assert sum(p["Count"] for p in pages) == N_ITEMS
    assert all(p["Count"] == p["ScannedCount"] for p in pages)
    # Whole items come back.
    assert all(set(it) == {"pk", "n", "grp", "pad"} for it in items)


def test_scan_empty_table(ddb, table_s):
    resp = ddb.scan(TableName=table_s)
    assert resp["Items"] == []
    assert resp["Count"] == 0 and resp["ScannedCount"] == 0
    assert "LastEvaluatedKey" not in resp


def test_scan_order_is_stable_across_page_sizes(ddb, hash_table):
    full, _ = _scan_all(ddb, hash_table)
    again, _ = _scan_all(ddb, hash_table)
    assert again == full
    for limit in (1, 7, 64, 299, 300, 301):
        paged, pages = _scan_all(ddb, hash_table, Limit=limit)
        assert paged == full, limit
        for page in pages[:-1]:
            assert page["Count"] == limit
            last = page["Items"][-1]
            assert page["LastEvaluatedKey"] == {"pk": last["pk"]}
        assert "LastEvaluatedKey" not in pages[-1]


def test_scan_order_is_not_insertion_order(ddb, hash_table):
    # Scan walks the table in hash order, not in key or insertion order.
    full, _ = _scan_all(ddb, hash_table)
    keys = [it["pk"]["S"] for it in full]
    assert keys != sorted(keys)


def test_scan_keeps_item_collections_together_and_sorted(ddb, range_table):
    items, _ = _scan_all(ddb, range_table, Limit=17)
    assert len(items) == 300
    seen_partitions = []
    for it in items:
        pk = it["pk"]["N"]
        if not seen_partitions or seen_partitions[-1] != pk:
            assert pk not in seen_partitions, f"partition {pk} is not contiguous"
            seen_partitions.append(pk)
    assert len(seen_partitions) == 20
    for pk in seen_partitions:
        sks = [it["sk"]["S"] for it in items if it["pk"]["N"] == pk]
        assert sks == [f"s{s:02d}" for s in range(15)]


def test_scan_last_evaluated_key_is_the_full_primary_key(ddb, range_table):
    resp = ddb.scan(TableName=range_table, Limit=3, ProjectionExpression="sk")
    assert len(resp["Items"]) == 3
    lek = resp["LastEvaluatedKey"]
    assert set(lek) == {"pk", "sk"}
    assert lek["sk"] == resp["Items"][-1]["sk"]


def test_scan_limit_reached_exactly(ddb, hash_table):
    resp = ddb.scan(TableName=hash_table, Limit=N_ITEMS)
    assert resp["Count"] == N_ITEMS
    # The page stopped because of Limit: LastEvaluatedKey even though nothing follows.
    assert "LastEvaluatedKey" in resp
    nxt = ddb.scan(TableName=hash_table, Limit=N_ITEMS, ExclusiveStartKey=resp["LastEvaluatedKey"])
    assert nxt["Items"] == [] and nxt["Count"] == 0
    assert "LastEvaluatedKey" not in nxt


def test_scan_resumes_after_a_deleted_start_key(ddb, table_s):
    for i in range(12):
        ddb.put_item(TableName=table_s, Item={"pk": {"S": f"k{i}"}})
    full = [it["pk"]["S"] for it in _scan_all(ddb, table_s)[0]]
    first = ddb.scan(TableName=table_s, Limit=5)
    assert [it["pk"]["S"] for it in first["Items"]] == full[:5]
    ddb.delete_item(TableName=table_s, Key=first["LastEvaluatedKey"])
    rest, _ = _scan_all(ddb, table_s, Limit=5, ExclusiveStartKey=first["LastEvaluatedKey"])
    assert [it["pk"]["S"] for it in rest] == full[5:]


def test_scan_consistent_read_accepted(ddb, hash_table):
    resp = ddb.scan(TableName=hash_table, ConsistentRead=True, Limit=10)
    assert resp["Count"] == 10


# ---------------------------------------------------------------------------
# FilterExpression, Limit, Select, projections
# ---------------------------------------------------------------------------

def test_scan_filter_counts(ddb, hash_table):
    items, pages = _scan_all(ddb, hash_table, FilterExpression="grp = :g",
                             ExpressionAttributeValues={":g": {"N": "1"}})
    assert sorted(int(it["n"]["N"]) for it in items) == list(range(1, N_ITEMS, 3))
    assert sum(p["ScannedCount"] for p in pages) == N_ITEMS
    assert sum(p["Count"] for p in pages) == N_ITEMS // 3


def test_scan_filter_on_key_attributes_allowed(ddb, hash_table, range_table):
    # Unlike Query, Scan filters may reference key attributes.
    items, _ = _scan_all(ddb, hash_table, FilterExpression="begins_with(pk, :p)",
                         ExpressionAttributeValues={":p": {"S": "item-001"}})
    assert sorted(it["pk"]["S"] for it in items) == [f"item-{i:04d}" for i in range(10, 20)]
    items, _ = _scan_all(ddb, range_table, FilterExpression="pk = :p AND sk >= :s",
                         ExpressionAttributeValues={":p": {"N": "-30"}, ":s": {"S": "s13"}})
    assert [(it["pk"]["N"], it["sk"]["S"]) for it in items] == [("-30", "s13"), ("-30", "s14")]


def test_scan_limit_bounds_items_read_before_the_filter(ddb, hash_table):
    vals = {":g": {"N": "0"}}
    full, _ = _scan_all(ddb, hash_table)
    resp = ddb.scan(TableName=hash_table, Limit=10, FilterExpression="grp = :g",
                    ExpressionAttributeValues=vals)
    assert resp["ScannedCount"] == 10
    expected = [it for it in full[:10] if it["grp"]["N"] == "0"]
    assert resp["Items"] == expected
    assert resp["Count"] == len(expected) < 10
    assert resp["LastEvaluatedKey"] == {"pk": full[9]["pk"]}
    items, pages = _scan_all(ddb, hash_table, Limit=10, FilterExpression="grp = :g",
                             ExpressionAttributeValues=vals)
    assert items == [it for it in full if it["grp"]["N"] == "0"]
    assert all(p["ScannedCount"] == 10 for p in pages[:-1])


def test_scan_filter_matching_nothing(ddb, hash_table):
    resp = ddb.scan(TableName=hash_table, Limit=25, FilterExpression="attribute_exists(nosuch)")
    assert resp["Items"] == [] and resp["Count"] == 0
    assert resp["ScannedCount"] == 25 and "LastEvaluatedKey" in resp
    resp = ddb.scan(TableName=hash_table, FilterExpression="attribute_exists(nosuch)")
    assert resp["Count"] == 0 and resp["ScannedCount"] == N_ITEMS


def test_scan_select_count(ddb, hash_table):
    resp = ddb.scan(TableName=hash_table, Select="COUNT")
    assert "Items" not in resp
    assert resp["Count"] == N_ITEMS == resp["ScannedCount"]
    resp = ddb.scan(TableName=hash_table, Select="COUNT", FilterExpression="grp = :g",
                    ExpressionAttributeValues={":g": {"N": "2"}})
    assert resp["Count"] == N_ITEMS // 3 and resp["ScannedCount"] == N_ITEMS


def test_scan_projection_and_attributes_to_get(ddb, hash_table):
    items, _ = _scan_all(ddb, hash_table, ProjectionExpression="#n", Limit=100,
                         ExpressionAttributeNames={"#n": "n"})
    assert sorted(int(it["n"]["N"]) for it in items) == list(range(N_ITEMS))
    assert all(set(it) == {"n"} for it in items)
    resp = ddb.scan(TableName=hash_table, AttributesToGet=["grp", "nosuch"], Limit=5)
    assert all(set(it) == {"grp"} for it in resp["Items"])


# ---------------------------------------------------------------------------
# 1 MB pages
# ---------------------------------------------------------------------------

def test_scan_one_megabyte_pages(ddb, table_s):
    for i in range(30):
        ddb.put_item(TableName=table_s, Item={"pk": {"S": f"big{i:02d}"},
                                              "data": {"S": "d" * 100_000}})
    first = ddb.scan(TableName=table_s)
    assert 9 <= first["Count"] <= 11, first["Count"]
    assert first["LastEvaluatedKey"] == {"pk": first["Items"][-1]["pk"]}
    items, pages = _scan_all(ddb, table_s)
    assert sorted(it["pk"]["S"] for it in items) == [f"big{i:02d}" for i in range(30)]
    assert 3 <= len(pages) <= 4
    assert all(9 <= p["Count"] <= 11 for p in pages[:-1])
    # The 1 MB is measured on the data read, before filter and projection.
    resp = ddb.scan(TableName=table_s, ProjectionExpression="pk")
    assert 9 <= resp["Count"] <= 11 and "LastEvaluatedKey" in resp
    resp = ddb.scan(TableName=table_s, FilterExpression="attribute_not_exists(#d)",
                    ExpressionAttributeNames={"#d": "data"})
    assert resp["Count"] == 0 and 9 <= resp["ScannedCount"] <= 11
    assert "LastEvaluatedKey" in resp


# ---------------------------------------------------------------------------
# Parallel scan
# ---------------------------------------------------------------------------

def _scan_segments(ddb, table, total, key_names, **kw):
    per_segment = []
    for seg in range(total):
        items, pages = _scan_all(ddb, table, Segment=seg, TotalSegments=total, **kw)
        assert all(p["Count"] == len(p.get("Items", [])) for p in pages)
        per_segment.append([_key(it, key_names) for it in items])
    return per_segment


@pytest.mark.parametrize("total", [1, 2, 7, 64])
def test_parallel_scan_disjoint_and_complete(ddb, hash_table, total):
    segs = _scan_segments(ddb, hash_table, total, ("pk",))
    flat = [k for seg in segs for k in seg]
    assert len(flat) == len(set(flat)) == N_ITEMS, "segments overlap or miss items"
    assert {dict(k)["pk"][0][1] for k in flat} == ALL_HASH_KEYS
    if total == 1:
        full, _ = _scan_all(ddb, hash_table)
        assert segs[0] == [_key(it) for it in full]
    if total in (2, 7):
        # 300 items hash well enough that no segment of 2 or 7 is empty.
        assert all(segs), [len(s) for s in segs]


@pytest.mark.parametrize("total,limit", [(2, 1), (7, 13), (64, 2)])
def test_parallel_scan_paging_within_segments(ddb, hash_table, total, limit):
    unpaged = _scan_segments(ddb, hash_table, total, ("pk",))
    paged = _scan_segments(ddb, hash_table, total, ("pk",), Limit=limit)
    assert paged == unpaged


@pytest.mark.parametrize("total", [2, 7, 64])
def test_parallel_scan_range_table(ddb, range_table, total):
    segs = _scan_segments(ddb, range_table, total, ("pk", "sk"), Limit=11)
    flat = [k for seg in segs for k in seg]
    assert len(flat) == len(set(flat)) == 300
    # An item collection (one partition key) lives in a single segment.
    owner = {}
    for i, seg in enumerate(segs):
        for k in seg:
            pk = dict(k)["pk"]
            assert owner.setdefault(pk, i) == i, f"partition {pk} split across segments"
    assert len(owner) == 20


def test_parallel_scan_with_filter_and_count(ddb, hash_table):
    total_count, total_scanned = 0, 0
    for seg in range(5):
        _, pages = _scan_all(ddb, hash_table, Segment=seg, TotalSegments=5, Select="COUNT",
                             FilterExpression="grp = :g",
                             ExpressionAttributeValues={":g": {"N": "0"}})
        total_count += sum(p["Count"] for p in pages)
        total_scanned += sum(p["ScannedCount"] for p in pages)
    assert total_count == N_ITEMS // 3
    assert total_scanned == N_ITEMS


def test_parallel_scan_segment_bounds_accepted(ddb, hash_table):
    # The largest allowed TotalSegments and Segment values are accepted.
    for seg in (0, 999_999):
        items, _ = _scan_all(ddb, hash_table, Segment=seg, TotalSegments=1_000_000)
        assert len(items) < N_ITEMS
    # Segment 0 of a 1-segment scan is the whole table.
    resp = ddb.scan(TableName=hash_table, Segment=0, TotalSegments=1, Select="COUNT")
    assert resp["Count"] == N_ITEMS


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("seg,total", [(5, 5), (1, 1), (9, 3), (1_000, 999)])
def test_segment_not_less_than_total_segments(ddb, hash_table, seg, total):
    # exact: the service's 2026 answer (nubo-db/dynamodb-conformance); it used to append
    # "Segment: S is not less than TotalSegments: T", as dynalite still does
    expect_error(lambda: ddb.scan(TableName=hash_table, Segment=seg, TotalSegments=total),
                 "ValidationException",
                 "The Segment parameter is zero-based and must be less than parameter "
                 "TotalSegments")


def test_segment_without_total_segments(ddb, hash_table):
    # exact (real DynamoDB; dynalite)
    expect_error(lambda: ddb.scan(TableName=hash_table, Segment=0), "ValidationException",
                 "The TotalSegments parameter is required but was not present in the request "
                 "when Segment parameter is present")
    expect_error(lambda: ddb.scan(TableName=hash_table, TotalSegments=4), "ValidationException",
                 "The Segment parameter is required but was not present in the request when "
                 "parameter TotalSegments is present")


@pytest.mark.parametrize("kw,message", [
    ({"Segment": 0, "TotalSegments": 0},
     "1 validation error detected: Value '0' at 'totalSegments' failed to satisfy constraint: "
     "Member must have value greater than or equal to 1"),
    ({"Segment": 0, "TotalSegments": 1_000_001},
     "1 validation error detected: Value '1000001' at 'totalSegments' failed to satisfy "
     "constraint: Member must have value less than or equal to 1000000"),
    ({"Segment": -1, "TotalSegments": 4},
     "1 validation error detected: Value at 'Segment' failed to satisfy constraint: "
     "Member must have value greater than or equal to 0"),
    # Segment's model maximum is 999999 (checked before the Segment < TotalSegments rule).
    ({"Segment": 1_000_000, "TotalSegments": 1_000_000},
     "1 validation error detected: Value at 'Segment' failed to satisfy constraint: "
     "Member must have value less than or equal to 999999"),
])
def test_segment_constraints(ddb, hash_table, kw, message):
    # Constraint wording as for every other numeric bound; the 999999 case is
    # from the API model (less certain than the others).
    expect_error(lambda: ddb.scan(TableName=hash_table, **kw), "ValidationException", message)


def test_scan_bad_limit(ddb, hash_table):
    # exact (real DynamoDB constraint wording)
    expect_error(lambda: ddb.scan(TableName=hash_table, Limit=0), "ValidationException", LIMIT_0)


@pytest.mark.parametrize("start", [
    {"pk": {"N": "1"}},
    {"pk": {"B": b"x"}},
    {"other": {"S": "x"}},
    {"pk": {"S": "x"}, "extra": {"S": "y"}},
    {},
])
def test_scan_exclusive_start_key_not_matching_schema(ddb, hash_table, start):
    # exact (dynalite, for base-table scans)
    expect_error(lambda: ddb.scan(TableName=hash_table, ExclusiveStartKey=start),
                 "ValidationException", BAD_START_KEY)


@pytest.mark.parametrize("start", [
    {"pk": {"N": "1"}},                                    # sort key missing
    {"pk": {"N": "1"}, "sk": {"N": "1"}},                  # wrong sort-key type
    {"pk": {"S": "1"}, "sk": {"S": "1"}},                  # wrong partition-key type
    {"pk": {"N": "1"}, "sk": {"S": "1"}, "x": {"S": "1"}},  # extra attribute
])
def test_scan_exclusive_start_key_not_matching_range_schema(ddb, range_table, start):
    # exact (dynalite, for base-table scans)
    expect_error(lambda: ddb.scan(TableName=range_table, ExclusiveStartKey=start),
                 "ValidationException", BAD_START_KEY)


def test_scan_missing_table(ddb):
    # exact (real DynamoDB)
    expect_error(lambda: ddb.scan(TableName=unique_name("nosuch")), "ResourceNotFoundException",
                 NOT_FOUND)


def test_scan_expression_placeholder_errors(ddb, hash_table):
    # exact (real DynamoDB wording)
    expect_error(lambda: ddb.scan(TableName=hash_table, FilterExpression="grp = :g",
                                  ExpressionAttributeValues={":g": {"N": "1"},
                                                             ":unused": {"N": "2"}}),
                 "ValidationException",
                 "1 validation error detected: Value provided in ExpressionAttributeValues unused in expressions: "
                 "keys: {:unused}")
    expect_error(lambda: ddb.scan(TableName=hash_table, FilterExpression="grp = :nope"),
                 "ValidationException",
                 "Invalid FilterExpression: An expression attribute value used in expression "
                 "is not defined; attribute value: :nope")


def test_scan_select_all_projected_attributes_needs_an_index(ddb, hash_table):
    # Wording not pinned.
    expect_error(lambda: ddb.scan(TableName=hash_table, Select="ALL_PROJECTED_ATTRIBUTES"),
                 "ValidationException", match="ALL_PROJECTED_ATTRIBUTES")
