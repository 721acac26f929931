"""Every data directory in tests/fixtures (one per on-disk format, made by
tests/fixtures/make_fixture.py with the build of its day) opens with today's build and reads
back exactly what its writes made: tables and settings, items of every type, both index
kinds, the TTL record (its expired item is swept), the stream, and new writes.

The server's clock starts at fixture_data.CLOCK_START_MS (--clock-start-ms), so that nothing
read here ages with the calendar: the stream records stay within their 24 hours and the
expired item stays sweepable on any date."""
import shutil
import sys
import time
from pathlib import Path

import boto3
import pytest

from conftest import REGION, ServerProcess

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
sys.path.insert(0, str(FIXTURES))
import fixture_data  # noqa: E402

STORES = sorted(p.name for p in FIXTURES.glob("store-*") if p.is_dir())


def _client(srv):
    return boto3.client("dynamodb", endpoint_url=srv.endpoint, region_name=REGION,
                        aws_access_key_id="fixture", aws_secret_access_key="fixture")


def _scan(c, table, **kwargs):
    items, start = [], None
    while True:
        page = c.scan(TableName=table, ConsistentRead=True,
                      **({"ExclusiveStartKey": start} if start else {}), **kwargs)
        items += page["Items"]
        start = page.get("LastEvaluatedKey")
        if not start:
            return items


def _canonical(value):
    """Sets compared as sets (their order is the server's choice)."""
    if isinstance(value, dict):
        return {k: sorted(map(str, v)) if k in ("SS", "NS", "BS") else _canonical(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


def _orders_by_key(items):
    return {(i["pk"]["S"], int(i["sk"]["N"])): _canonical(i) for i in items}


def _project(item, attributes):
    return {k: v for k, v in item.items() if k in attributes}


def test_there_is_a_fixture():
    assert "store-unversioned" in STORES


@pytest.mark.parametrize("store", STORES)
def test_fixture_store_reads_back(store, tmp_path):
    data = tmp_path / store
    shutil.copytree(FIXTURES / store, data)  # the server writes to its store
    srv = ServerProcess("--data-dir", str(data),
                        "--clock-start-ms", str(fixture_data.CLOCK_START_MS)).start()
    try:
        c = _client(srv)
        assert c.list_tables()["TableNames"] == ["Orders", "Plain"]

        # The TTL record came along: the expired item goes within a sweep or two.
        expired = {"pk": {"S": "customer#expired"}, "sk": {"N": "0"}}
        deadline = time.monotonic() + 15
        while "Item" in c.get_item(TableName="Orders", Key=expired, ConsistentRead=True):
            assert time.monotonic() < deadline, "the expired item was not swept"
            time.sleep(0.2)

        want = fixture_data.expected_orders()
        assert _orders_by_key(_scan(c, "Orders")) == _orders_by_key(want.values())
        orders = c.describe_table(TableName="Orders")["Table"]
        assert orders["ItemCount"] == len(want)
        assert orders["KeySchema"] == fixture_data.ORDERS["KeySchema"]
        assert orders["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
        assert orders["StreamSpecification"] == fixture_data.ORDERS["StreamSpecification"]
        assert [i["IndexName"] for i in orders["LocalSecondaryIndexes"]] == ["ByStatus"]
        gsi = orders["GlobalSecondaryIndexes"][0]
        assert (gsi["IndexName"], gsi["IndexStatus"], gsi["Projection"]) == (
            "ByCustomer", "ACTIVE", {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["note"]})
        ttl = c.describe_time_to_live(TableName="Orders")["TimeToLiveDescription"]
        assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expires"}

        # The GSI: per customer, by total, with the projected attributes only.
        for customer in range(5):
            got = c.query(TableName="Orders", IndexName="ByCustomer",
                          KeyConditionExpression="customer = :c",
                          ExpressionAttributeValues={":c": {"S": f"c{customer}"}})["Items"]
            mine = [i for i in want.values() if i["customer"]["S"] == f"c{customer}"]
            mine.sort(key=lambda i: float(i["total"]["N"]))
            keys = {"pk", "sk", "customer", "total", "note"}
            assert _canonical(got) == _canonical([_project(i, keys) for i in mine])
        # The LSI: per partition, by status.
        for pk in {k for k, _ in want}:
            got = c.query(TableName="Orders", IndexName="ByStatus", ConsistentRead=True,
                          KeyConditionExpression="pk = :p",
                          ExpressionAttributeValues={":p": {"S": pk}})["Items"]
            mine = sorted((i for (p, _), i in want.items() if p == pk),
                          key=lambda i: (i["status"]["S"], int(i["sk"]["N"])))
            assert _canonical(got) == _canonical(mine)

        plain = c.describe_table(TableName="Plain")["Table"]
        assert (plain["ProvisionedThroughput"]["ReadCapacityUnits"],
                plain["ProvisionedThroughput"]["WriteCapacityUnits"]) == (5, 7)
        assert c.list_tags_of_resource(ResourceArn=plain["TableArn"])["Tags"] == [
            {"Key": "team", "Value": "storage"}]
        assert {i["id"]["B"]: i for i in _scan(c, "Plain")} == fixture_data.expected_plain()

        # The stream: every write of the fixture in order, then the TTL removal.
        streams = boto3.client("dynamodbstreams", endpoint_url=srv.endpoint, region_name=REGION,
                               aws_access_key_id="fixture", aws_secret_access_key="fixture")
        stream = streams.describe_stream(StreamArn=orders["LatestStreamArn"])["StreamDescription"]
        events = []
        for shard in stream["Shards"]:
            iterator = streams.get_shard_iterator(
                StreamArn=orders["LatestStreamArn"], ShardId=shard["ShardId"],
                ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
            while iterator:
                page = streams.get_records(ShardIterator=iterator)
                events += [r["eventName"] for r in page["Records"]]
                if not page["Records"]:
                    break
                iterator = page.get("NextShardIterator")
        assert events == fixture_data.EXPECTED_STREAM_EVENTS + ["REMOVE"]

        # And the store takes new writes, indexes included.
        c.put_item(TableName="Orders", Item={"pk": {"S": "new"}, "sk": {"N": "1"},
                                             "customer": {"S": "c9"}, "total": {"N": "1"}})
        got = c.query(TableName="Orders", IndexName="ByCustomer",
                      KeyConditionExpression="customer = :c",
                      ExpressionAttributeValues={":c": {"S": "c9"}})["Items"]
        assert [i["pk"]["S"] for i in got] == ["new"]

        # Its tables keep their key format (XXH3 order), and a restore of one takes it too
        # (the items are copied key by key): the restored table scans in the same order.
        # A table created now, beside them, scans in the service's order (test_scan_order.py).
        backup = c.create_backup(TableName="Plain", BackupName="fixture")["BackupDetails"]["BackupArn"]
        c.restore_table_from_backup(TargetTableName="PlainRestored", BackupArn=backup)
        deadline = time.monotonic() + 15
        while c.describe_table(TableName="PlainRestored")["Table"]["TableStatus"] != "ACTIVE":
            assert time.monotonic() < deadline, "the restore did not finish"
            time.sleep(0.1)
        plain_order = [i["id"]["B"] for i in _scan(c, "Plain")]
        assert [i["id"]["B"] for i in _scan(c, "PlainRestored")] == plain_order
        for pk in plain_order:  # found by key: its keys hash as its table's format says
            got = c.get_item(TableName="PlainRestored", Key={"id": {"B": pk}}, ConsistentRead=True)
            assert got["Item"]["id"]["B"] == pk
        c.create_table(TableName="Fresh", BillingMode="PAY_PER_REQUEST",
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        service_order = ["2", "8", "9", "1", "6", "hello", "0", "5"]
        for pk in sorted(service_order):
            c.put_item(TableName="Fresh", Item={"pk": {"S": pk}})
        assert [i["pk"]["S"] for i in _scan(c, "Fresh")] == service_order
    finally:
        srv.stop_and_check()
