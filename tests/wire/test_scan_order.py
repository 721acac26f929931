"""Scan order and parallel-scan segments follow the service's hashing of partition keys.

The expected orders and segments are dynalite's test/scan.js ("should return items in
string hash order", "should return items in number hash order", "should return items from
correct string hash segments", "... number hash segments"): a suite whose assertions hold
against the live service as well as against dynalite. docs/exactness.md (item 6) explains
the hash (MD5 of "Outliers" and the key's bytes; numbers in the service's internal form).
"""

import pytest

from conftest import collect_pages

STRINGS = ["2", "8", "9", "1", "6", "hello", "0", "5", "4", "äáöü", "aardman", "7", "3", "zapf"]
NUMBERS = ["7", "999.9", "8", "3", "2", "-999.9", "9", "4", "-0.09", "6", "1", "0",
           "0.012345", "5"]


def put_all(ddb, table, type_, values):
    # Written in another order than the expected one, so that the order cannot come from
    # the writes.
    for v in sorted(values):
        ddb.put_item(TableName=table, Item={"pk": {type_: v}, "b": {"S": "x"}})


def scanned_keys(ddb, table, type_, **kwargs):
    items, _ = collect_pages(ddb.scan, TableName=table, **kwargs)
    return [item["pk"][type_] for item in items]


def test_string_keys_scan_in_the_services_order(ddb, table_s):
    put_all(ddb, table_s, "S", STRINGS)
    assert scanned_keys(ddb, table_s, "S") == STRINGS


def test_number_keys_scan_in_the_services_order(ddb, table_n):
    put_all(ddb, table_n, "N", NUMBERS)
    assert scanned_keys(ddb, table_n, "N") == NUMBERS


def test_pages_keep_the_order(ddb, table_s):
    put_all(ddb, table_s, "S", STRINGS)
    assert scanned_keys(ddb, table_s, "S", Limit=3) == STRINGS


@pytest.mark.parametrize("type_,segments", [
    ("S", {"3635": 0, "228": 0, "1668": 1, "3435": 4}),
    ("N", {"251": 1, "2388": 4095}),
])
def test_items_are_in_the_services_segments(ddb, table_factory, type_, segments):
    table = table_factory(("pk", type_))
    put_all(ddb, table, type_, list(segments))
    for key, segment in segments.items():
        found = scanned_keys(ddb, table, type_, Segment=segment, TotalSegments=4096)
        assert key in found, (key, segment, found)


def test_segments_partition_the_table_in_scan_order(ddb, table_s):
    put_all(ddb, table_s, "S", STRINGS)
    for total in (2, 3, 7):
        seen = []
        for segment in range(total):
            seen += scanned_keys(ddb, table_s, "S", Segment=segment, TotalSegments=total)
        assert seen == STRINGS, total
