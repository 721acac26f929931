"""DynamoDB Streams: StreamSpecification on CreateTable/UpdateTable/DeleteTable and the
DynamoDBStreams_20120810 API (ListStreams, DescribeStream, GetShardIterator, GetRecords)
through boto3's `dynamodbstreams` client.

Expectations follow the DynamoDB API reference and developer guide ("Change data capture
for DynamoDB Streams"); UpdateTable's stream messages are those the service returns
(Table already has an enabled stream / Table has no stream to disable / ...UpdateViewType).
"""

import re
import time
from datetime import datetime, timezone

import boto3
import pytest
from botocore.config import Config

from conftest import (ACCESS_KEY, REGION, SECRET_KEY, ServerProcess, expect_error,
                      key_schema_kwargs, make_client, unique_name)

LABEL_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$")
ARN_RE = re.compile(r"^arn:aws:dynamodb:us-east-1:\d{12}:table/(?P<table>[^/]+)/stream/"
                    r"(?P<label>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3})$")
VIEW_TYPES = ["KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES"]
INVALID = "One or more parameter values were invalid: "


def make_streams_client(endpoint_url):
    session = boto3.session.Session(aws_access_key_id=ACCESS_KEY,
                                    aws_secret_access_key=SECRET_KEY, region_name=REGION)
    return session.client(
        "dynamodbstreams", endpoint_url=endpoint_url, region_name=REGION,
        config=Config(retries={"max_attempts": 1, "total_max_attempts": 1},
                      parameter_validation=False, connect_timeout=5, read_timeout=30))


@pytest.fixture(scope="module")
def streams(endpoint):
    return make_streams_client(endpoint)


@pytest.fixture
def stream_table(ddb, table_factory):
    """make(view_type, range_key=None, **extra) -> (table name, stream arn)."""
    def make(view_type="NEW_AND_OLD_IMAGES", range_key=None, **extra):
        name = table_factory(("pk", "S"), range_key, StreamSpecification={
            "StreamEnabled": True, "StreamViewType": view_type}, **extra)
        return name, ddb.describe_table(TableName=name)["Table"]["LatestStreamArn"]
    return make


def shard_of(streams, arn):
    shards = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    assert len(shards) == 1
    return shards[0]


def iterator(streams, arn, kind="TRIM_HORIZON", seq=None):
    kwargs = {"StreamArn": arn, "ShardId": shard_of(streams, arn)["ShardId"],
              "ShardIteratorType": kind}
    if seq is not None:
        kwargs["SequenceNumber"] = seq
    return streams.get_shard_iterator(**kwargs)["ShardIterator"]


def read_all(streams, arn, kind="TRIM_HORIZON", seq=None, limit=None):
    """Every record from the iterator until a call returns none; (records, last iterator)."""
    it = iterator(streams, arn, kind, seq)
    records = []
    for _ in range(100):
        kwargs = {"ShardIterator": it}
        if limit:
            kwargs["Limit"] = limit
        page = streams.get_records(**kwargs)
        records += page["Records"]
        if not page["Records"] or "NextShardIterator" not in page:
            return records, page.get("NextShardIterator")
        it = page["NextShardIterator"]
    pytest.fail("GetRecords did not finish")


def S(v):
    return {"S": v}


# --------------------------------------------------------------------------
# StreamSpecification on tables
# --------------------------------------------------------------------------

def test_create_table_with_stream_reports_it(ddb, table_factory):
    name = unique_name()
    created = None
    for attempt in range(1):
        created = ddb.create_table(
            TableName=name, BillingMode="PAY_PER_REQUEST", **key_schema_kwargs(("pk", "S")),
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
        )["TableDescription"]
    try:
        assert created["StreamSpecification"] == {"StreamEnabled": True,
                                                  "StreamViewType": "NEW_IMAGE"}
        assert LABEL_RE.match(created["LatestStreamLabel"])
        m = ARN_RE.match(created["LatestStreamArn"])
        assert m and m["table"] == name and m["label"] == created["LatestStreamLabel"]
        label_time = datetime.strptime(created["LatestStreamLabel"], "%Y-%m-%dT%H:%M:%S.%f")
        now = datetime.now(timezone.utc).replace(tzinfo=None)
        assert abs((now - label_time).total_seconds()) < 60
        described = ddb.describe_table(TableName=name)["Table"]
        for k in ("StreamSpecification", "LatestStreamLabel", "LatestStreamArn"):
            assert described[k] == created[k]
    finally:
        deleted = ddb.delete_table(TableName=name)["TableDescription"]
    assert deleted["LatestStreamArn"] == created["LatestStreamArn"]


def test_table_without_stream_has_no_stream_members(ddb, table_factory):
    name = table_factory(("pk", "S"), StreamSpecification={"StreamEnabled": False})
    d = ddb.describe_table(TableName=name)["Table"]
    assert "StreamSpecification" not in d and "LatestStreamArn" not in d
    assert "LatestStreamLabel" not in d


def test_enable_without_view_type_is_refused(ddb, table_factory):
    msg = INVALID + "If stream is being enabled then UpdateViewType is required"
    expect_error(lambda: ddb.create_table(
        TableName=unique_name(), BillingMode="PAY_PER_REQUEST", **key_schema_kwargs(),
        StreamSpecification={"StreamEnabled": True}), "ValidationException", msg)
    name = table_factory()
    expect_error(lambda: ddb.update_table(TableName=name, StreamSpecification={
        "StreamEnabled": True}), "ValidationException", msg)


def test_bad_view_type_is_refused(ddb, table_factory):
    name = table_factory()
    expect_error(lambda: ddb.update_table(TableName=name, StreamSpecification={
        "StreamEnabled": True, "StreamViewType": "Fisk"}), "ValidationException",
        contains="streamSpecification.streamViewType")


def test_update_table_enable_disable_reenable(ddb, streams, table_factory):
    name = table_factory()
    out = ddb.update_table(TableName=name, StreamSpecification={
        "StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})["TableDescription"]
    first_arn = out["LatestStreamArn"]
    assert out["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
    assert ARN_RE.match(first_arn)
    already = f"Table already has an enabled stream: TableName: {name}"
    for view in ("KEYS_ONLY", "NEW_IMAGE"):  # neither a re-send nor a view-type change
        expect_error(lambda: ddb.update_table(TableName=name, StreamSpecification={
            "StreamEnabled": True, "StreamViewType": view}), "ValidationException", already)
    expect_error(lambda: ddb.update_table(TableName=name, StreamSpecification={
        "StreamEnabled": False, "StreamViewType": "KEYS_ONLY"}), "ValidationException",
        INVALID + "If stream is being disabled, then UpdateViewType must not be specified")

    ddb.put_item(TableName=name, Item={"pk": S("before-disable")})
    out = ddb.update_table(TableName=name,
                           StreamSpecification={"StreamEnabled": False})["TableDescription"]
    assert "StreamSpecification" not in out
    assert out["LatestStreamArn"] == first_arn  # lingers, as in the service
    d = ddb.describe_table(TableName=name)["Table"]
    assert "StreamSpecification" not in d and d["LatestStreamArn"] == first_arn
    expect_error(lambda: ddb.update_table(TableName=name, StreamSpecification={
        "StreamEnabled": False}), "ValidationException",
        f"Table has no stream to disable: TableName: {name}")
    ddb.put_item(TableName=name, Item={"pk": S("while-disabled")})

    old = streams.describe_stream(StreamArn=first_arn)["StreamDescription"]
    assert old["StreamStatus"] == "DISABLED"
    assert "EndingSequenceNumber" in old["Shards"][0]["SequenceNumberRange"]
    records, next_it = read_all(streams, first_arn)
    assert [r["dynamodb"]["Keys"] for r in records] == [{"pk": S("before-disable")}]
    assert next_it is None  # a closed shard read to its end

    out = ddb.update_table(TableName=name, StreamSpecification={
        "StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})["TableDescription"]
    second_arn = out["LatestStreamArn"]
    assert second_arn != first_arn and out["LatestStreamLabel"] > ARN_RE.match(first_arn)["label"]
    ddb.put_item(TableName=name, Item={"pk": S("after-reenable")})
    records, _ = read_all(streams, second_arn)
    assert [r["dynamodb"]["Keys"] for r in records] == [{"pk": S("after-reenable")}]
    assert records[0]["dynamodb"]["StreamViewType"] == "NEW_IMAGE"
    listed = streams.list_streams(TableName=name)["Streams"]
    assert sorted(s["StreamArn"] for s in listed) == sorted([first_arn, second_arn])


def test_delete_table_leaves_a_disabled_readable_stream(ddb, streams):
    name = unique_name()
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST", **key_schema_kwargs(),
                     StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    ddb.put_item(TableName=name, Item={"pk": S("a")})
    deleted = ddb.delete_table(TableName=name)["TableDescription"]
    arn = deleted["LatestStreamArn"]
    assert deleted["StreamSpecification"]["StreamEnabled"] is True
    d = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert d["StreamStatus"] == "DISABLED" and d["TableName"] == name
    records, _ = read_all(streams, arn)
    assert [r["eventName"] for r in records] == ["INSERT"]
    assert [s["StreamArn"] for s in streams.list_streams(TableName=name)["Streams"]] == [arn]


# --------------------------------------------------------------------------
# ListStreams and DescribeStream
# --------------------------------------------------------------------------

def test_list_streams_filter_and_paging(ddb, streams, stream_table, table_factory):
    names = [stream_table("KEYS_ONLY")[0] for _ in range(3)]
    plain = table_factory()
    assert streams.list_streams(TableName=plain)["Streams"] == []
    one = streams.list_streams(TableName=names[0])["Streams"]
    assert len(one) == 1 and one[0]["TableName"] == names[0]
    assert LABEL_RE.match(one[0]["StreamLabel"]) and ARN_RE.match(one[0]["StreamArn"])
    seen, start, pages = [], None, 0
    while True:
        kwargs = {"Limit": 1}
        if start:
            kwargs["ExclusiveStartStreamArn"] = start
        page = streams.list_streams(**kwargs)
        pages += 1
        assert len(page["Streams"]) <= 1
        seen += [s["TableName"] for s in page["Streams"]]
        start = page.get("LastEvaluatedStreamArn")
        if not start:
            break
        assert start == page["Streams"][-1]["StreamArn"]
    for n in names:
        assert seen.count(n) == 1
    assert pages >= 3


def test_list_streams_validation(streams):
    expect_error(lambda: streams.list_streams(Limit=0), "ValidationException",
                 "1 validation error detected: Value '0' at 'limit' failed to satisfy "
                 "constraint: Member must have value greater than or equal to 1")
    expect_error(lambda: streams.list_streams(Limit=101), "ValidationException",
                 contains="less than or equal to 100")
    expect_error(lambda: streams.list_streams(
        ExclusiveStartStreamArn="kossaapaaasdafsdaasdasdasdasasdasfadfadfasdasdas"),
        "ValidationException", "Invalid StreamArn")


def test_describe_stream(ddb, streams, stream_table):
    name, arn = stream_table("KEYS_ONLY", range_key=("sk", "N"))
    d = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert d["StreamArn"] == arn
    assert d["StreamLabel"] == ARN_RE.match(arn)["label"]
    assert d["StreamStatus"] == "ENABLED"
    assert d["StreamViewType"] == "KEYS_ONLY"
    assert d["TableName"] == name
    assert d["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"},
                              {"AttributeName": "sk", "KeyType": "RANGE"}]
    assert abs(d["CreationRequestDateTime"].timestamp() - time.time()) < 60
    (shard,) = d["Shards"]
    assert shard["ShardId"].startswith("shardId-") and 28 <= len(shard["ShardId"]) <= 65
    rng = shard["SequenceNumberRange"]
    assert rng["StartingSequenceNumber"].isdecimal()
    assert "EndingSequenceNumber" not in rng and "ParentShardId" not in shard
    assert "LastEvaluatedShardId" not in d
    after = streams.describe_stream(StreamArn=arn, ExclusiveStartShardId=shard["ShardId"],
                                    Limit=1)["StreamDescription"]
    assert after["Shards"] == []


def test_describe_stream_errors(streams, stream_table):
    name, arn = stream_table()
    expect_error(lambda: streams.describe_stream(
        StreamArn="sdfadfsdfnlfkajakfgjalksfgklasjklasdjfklasdfasdfgasf"),
        "ValidationException", "Invalid StreamArn")
    gone = arn.replace(name, name + "-nope")
    expect_error(lambda: streams.describe_stream(StreamArn=gone), "ResourceNotFoundException",
                 f"Requested resource not found: Stream: {gone} not found")
    expect_error(lambda: streams.describe_stream(StreamArn="arn:aws:dynamodb"),
                 "ValidationException",
                 "1 validation error detected: Value 'arn:aws:dynamodb' at 'streamArn' failed "
                 "to satisfy constraint: Member must have length greater than or equal to 37")
    expect_error(lambda: streams.describe_stream(StreamArn=arn, Limit=0), "ValidationException",
                 contains="at 'limit'")


# --------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------

@pytest.mark.parametrize("view", VIEW_TYPES)
def test_insert_modify_remove_records_per_view_type(ddb, streams, stream_table, view):
    name, arn = stream_table(view, range_key=("sk", "N"))
    key = {"pk": S("k"), "sk": {"N": "7"}}
    v1 = {**key, "a": S("one"), "n": {"N": "1"}}
    before = time.time()
    ddb.put_item(TableName=name, Item=v1)
    ddb.update_item(TableName=name, Key=key, UpdateExpression="SET a = :a",
                    ExpressionAttributeValues={":a": S("two")})
    v2 = {**v1, "a": S("two")}
    ddb.delete_item(TableName=name, Key=key)
    records, next_it = read_all(streams, arn)
    assert next_it is not None  # an open shard always has a next iterator
    assert [r["eventName"] for r in records] == ["INSERT", "MODIFY", "REMOVE"]
    images = [(None, v1), (v1, v2), (v2, None)]
    seqs = []
    for r, (old, new) in zip(records, images):
        assert r["eventSource"] == "aws:dynamodb" and r["eventVersion"] == "1.1"
        assert r["awsRegion"] == REGION
        assert re.fullmatch(r"[0-9a-f]{32}", r["eventID"])
        s = r["dynamodb"]
        assert s["Keys"] == key
        assert s["StreamViewType"] == view
        assert s["SizeBytes"] > 0
        assert abs(s["ApproximateCreationDateTime"].timestamp() - before) < 60
        assert s["SequenceNumber"].isdecimal() and len(s["SequenceNumber"]) >= 21
        seqs.append(int(s["SequenceNumber"]))
        want_new = new if view in ("NEW_IMAGE", "NEW_AND_OLD_IMAGES") else None
        want_old = old if view in ("OLD_IMAGE", "NEW_AND_OLD_IMAGES") else None
        assert s.get("NewImage") == want_new
        assert s.get("OldImage") == want_old
        assert "userIdentity" not in r
    assert seqs == sorted(seqs) and len(set(seqs)) == 3
    assert len({r["eventID"] for r in records}) == 3
    start = int(shard_of(streams, arn)["SequenceNumberRange"]["StartingSequenceNumber"])
    assert start <= seqs[0]
    # Reading again gives the same records (same ids).
    again, _ = read_all(streams, arn)
    assert [r["eventID"] for r in again] == [r["eventID"] for r in records]


def test_writes_that_change_nothing_produce_no_record(ddb, streams, stream_table):
    name, arn = stream_table("NEW_AND_OLD_IMAGES")
    item = {"pk": S("same"), "a": {"N": "1"}}
    ddb.put_item(TableName=name, Item=item)
    ddb.put_item(TableName=name, Item=item)  # identical: no record
    ddb.update_item(TableName=name, Key={"pk": S("same")}, UpdateExpression="SET a = :a",
                    ExpressionAttributeValues={":a": {"N": "1"}})  # no change: no record
    ddb.delete_item(TableName=name, Key={"pk": S("missing")})  # nothing deleted
    expect_error(lambda: ddb.update_item(
        TableName=name, Key={"pk": S("nope")}, UpdateExpression="SET a = :a",
        ConditionExpression="attribute_exists(pk)",
        ExpressionAttributeValues={":a": {"N": "2"}}), "ConditionalCheckFailedException")
    expect_error(lambda: ddb.delete_item(
        TableName=name, Key={"pk": S("same")}, ConditionExpression="a = :x",
        ExpressionAttributeValues={":x": {"N": "9"}}), "ConditionalCheckFailedException")
    records, _ = read_all(streams, arn)
    assert [r["eventName"] for r in records] == ["INSERT"]


def test_transactions_and_batches_produce_records(ddb, streams, stream_table):
    name, arn = stream_table("NEW_IMAGE")
    ddb.batch_write_item(RequestItems={name: [
        {"PutRequest": {"Item": {"pk": S(f"b{i}"), "v": {"N": str(i)}}}} for i in range(5)]})
    ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": name, "Item": {"pk": S("t1")}}},
        {"Update": {"TableName": name, "Key": {"pk": S("b0")}, "UpdateExpression": "SET v = :v",
                    "ExpressionAttributeValues": {":v": {"N": "100"}}}},
        {"Delete": {"TableName": name, "Key": {"pk": S("b1")}}},
        {"ConditionCheck": {"TableName": name, "Key": {"pk": S("b2")},
                            "ConditionExpression": "attribute_exists(pk)"}},
    ])
    # A cancelled transaction writes nothing.
    expect_error(lambda: ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": name, "Item": {"pk": S("never")}}},
        {"ConditionCheck": {"TableName": name, "Key": {"pk": S("absent")},
                            "ConditionExpression": "attribute_exists(pk)"}}]),
        "TransactionCanceledException")
    ddb.batch_write_item(RequestItems={name: [{"DeleteRequest": {"Key": {"pk": S("b4")}}}]})
    records, _ = read_all(streams, arn, limit=2)
    events = [(r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"]) for r in records]
    assert sorted(events[:5]) == [("INSERT", f"b{i}") for i in range(5)]
    assert sorted(events[5:8]) == [("INSERT", "t1"), ("MODIFY", "b0"), ("REMOVE", "b1")]
    assert events[8:] == [("REMOVE", "b4")]
    modify = next(r for r in records if r["eventName"] == "MODIFY")
    assert modify["dynamodb"]["NewImage"] == {"pk": S("b0"), "v": {"N": "100"}}
    assert "OldImage" not in modify["dynamodb"]


def test_records_of_tables_with_indexes(ddb, streams, table_factory):
    name = table_factory(
        ("pk", "S"), AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "g", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[{"IndexName": "byg", "KeySchema": [
            {"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    arn = ddb.describe_table(TableName=name)["Table"]["LatestStreamArn"]
    for i in range(3):
        ddb.put_item(TableName=name, Item={"pk": S(f"p{i}"), "g": S("x")})
    records, _ = read_all(streams, arn)
    assert [r["dynamodb"]["Keys"] for r in records] == [{"pk": S(f"p{i}")} for i in range(3)]
    assert all("NewImage" not in r["dynamodb"] and "OldImage" not in r["dynamodb"]
               for r in records)


# --------------------------------------------------------------------------
# Shard iterators
# --------------------------------------------------------------------------

def test_iterator_types(ddb, streams, stream_table):
    name, arn = stream_table("KEYS_ONLY")
    for i in range(4):
        ddb.put_item(TableName=name, Item={"pk": S(f"i{i}")})
    latest = iterator(streams, arn, "LATEST")
    all_records, _ = read_all(streams, arn)
    seqs = [r["dynamodb"]["SequenceNumber"] for r in all_records]
    assert len(seqs) == 4
    at, _ = read_all(streams, arn, "AT_SEQUENCE_NUMBER", seqs[1])
    assert [r["dynamodb"]["SequenceNumber"] for r in at] == seqs[1:]
    after, _ = read_all(streams, arn, "AFTER_SEQUENCE_NUMBER", seqs[1])
    assert [r["dynamodb"]["SequenceNumber"] for r in after] == seqs[2:]
    page = streams.get_records(ShardIterator=latest)
    assert page["Records"] == [] and "NextShardIterator" in page
    ddb.put_item(TableName=name, Item={"pk": S("later")})
    page = streams.get_records(ShardIterator=page["NextShardIterator"])
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in page["Records"]] == ["later"]
    # Limit pages through the records one at a time, in order.
    it = iterator(streams, arn)
    got = []
    for _ in range(5):
        page = streams.get_records(ShardIterator=it, Limit=1)
        assert len(page["Records"]) == 1
        got.append(page["Records"][0]["dynamodb"]["SequenceNumber"])
        it = page["NextShardIterator"]
    assert got[:4] == seqs
    assert streams.get_records(ShardIterator=it)["Records"] == []


def test_get_shard_iterator_errors(streams, stream_table):
    name, arn = stream_table()
    shard = shard_of(streams, arn)
    shard_id = shard["ShardId"]
    seq = shard["SequenceNumberRange"]["StartingSequenceNumber"]
    for kind in ("AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"):
        expect_error(lambda: streams.get_shard_iterator(
            StreamArn=arn, ShardId=shard_id, ShardIteratorType=kind), "ValidationException")
        assert streams.get_shard_iterator(StreamArn=arn, ShardId=shard_id,
                                          ShardIteratorType=kind, SequenceNumber=seq)
    for kind in ("TRIM_HORIZON", "LATEST"):
        expect_error(lambda: streams.get_shard_iterator(
            StreamArn=arn, ShardId=shard_id, ShardIteratorType=kind, SequenceNumber=seq),
            "ValidationException")
    expect_error(lambda: streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard_id, ShardIteratorType="bulle"), "ValidationException",
        "1 validation error detected: Value 'bulle' at 'shardIteratorType' failed to satisfy "
        "constraint: Member must satisfy enum value set: [TRIM_HORIZON, LATEST, "
        "AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER]")
    expect_error(lambda: streams.get_shard_iterator(
        StreamArn=arn, ShardId="semprinidfaasdasfsdvacsdcfsdsvsdvsdvsdvsdvsdv",
        ShardIteratorType="LATEST"), "ResourceNotFoundException")
    expect_error(lambda: streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard_id, ShardIteratorType="AT_SEQUENCE_NUMBER",
        SequenceNumber="sdfsafglldfngjdafnasdflgnaldklkafdsgklnasdlv"), "ValidationException")
    expect_error(lambda: streams.get_shard_iterator(
        StreamArn="sdfadfsddafgdafsgjnadflkgnalngalsdfnlkasnlkasdfasdfasf", ShardId=shard_id,
        ShardIteratorType="LATEST"), "ValidationException", "Invalid StreamArn")
    gone = arn.replace(name, name + "-x")
    expect_error(lambda: streams.get_shard_iterator(
        StreamArn=gone, ShardId=shard_id, ShardIteratorType="LATEST"),
        "ResourceNotFoundException")


def test_get_records_errors(streams, stream_table):
    name, arn = stream_table()
    it = iterator(streams, arn)
    expect_error(lambda: streams.get_records(
        ShardIterator="sdfsdfsgagaddafgagasgasgasdfasdfasdfasdfasdgasdasdgasdg"),
        "ValidationException", "Invalid ShardIterator")
    tampered = it[:-6] + ("AAAA==" if not it.endswith("AAAA==") else "BBBB==")
    expect_error(lambda: streams.get_records(ShardIterator=tampered), "ValidationException",
                 "Invalid ShardIterator")
    expect_error(lambda: streams.get_records(ShardIterator=it, Limit=0), "ValidationException",
                 "1 validation error detected: Value '0' at 'limit' failed to satisfy "
                 "constraint: Member must have value greater than or equal to 1")
    expect_error(lambda: streams.get_records(ShardIterator=it, Limit=1001),
                 "ValidationException",
                 "1 validation error detected: Value '1001' at 'limit' failed to satisfy "
                 "constraint: Member must have value less than or equal to 1000")
    assert streams.get_records(ShardIterator=it, Limit=1000)["Records"] == []


# --------------------------------------------------------------------------
# Time to Live and restarts
# --------------------------------------------------------------------------

def test_ttl_deletions_carry_the_service_identity(ddb, streams, stream_table):
    name, arn = stream_table("OLD_IMAGE")
    ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "exp"})
    ddb.put_item(TableName=name, Item={"pk": S("old"), "exp": {"N": str(int(time.time()) - 10)}})
    ddb.put_item(TableName=name, Item={"pk": S("user")})
    ddb.delete_item(TableName=name, Key={"pk": S("user")})
    deadline = time.monotonic() + 10
    while True:
        records, _ = read_all(streams, arn)
        ttl = [r for r in records if r["eventName"] == "REMOVE" and
               r["dynamodb"]["Keys"] == {"pk": S("old")}]
        if ttl or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert ttl, "the TTL sweeper did not delete the expired item"
    assert ttl[0]["userIdentity"] == {"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}
    assert ttl[0]["dynamodb"]["OldImage"]["pk"] == S("old")
    user_remove = [r for r in records if r["eventName"] == "REMOVE" and r is not ttl[0]]
    assert user_remove and all("userIdentity" not in r for r in user_remove)


def test_streams_survive_restart(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    srv = ServerProcess("--data-dir", str(data_dir), log_dir=str(tmp_path)).start()
    try:
        c = make_client(srv.endpoint)
        c.create_table(TableName="streamy", BillingMode="PAY_PER_REQUEST",
                       **key_schema_kwargs(), StreamSpecification={
                           "StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
        c.put_item(TableName="streamy", Item={"pk": S("a")})
        c.put_item(TableName="streamy", Item={"pk": S("b")})
        c.update_table(TableName="streamy", StreamSpecification={"StreamEnabled": False})
        c.update_table(TableName="streamy", StreamSpecification={
            "StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
        c.put_item(TableName="streamy", Item={"pk": S("c")})
        arns = [s["StreamArn"] for s in
                make_streams_client(srv.endpoint).list_streams(TableName="streamy")["Streams"]]
        latest = c.describe_table(TableName="streamy")["Table"]["LatestStreamArn"]
    finally:
        srv.stop_and_check()
    srv = ServerProcess("--data-dir", str(data_dir), log_dir=str(tmp_path)).start()
    try:
        c = make_client(srv.endpoint)
        s = make_streams_client(srv.endpoint)
        assert [x["StreamArn"] for x in s.list_streams(TableName="streamy")["Streams"]] == arns
        assert c.describe_table(TableName="streamy")["Table"]["LatestStreamArn"] == latest
        old_arn = next(a for a in arns if a != latest)
        assert s.describe_stream(StreamArn=old_arn)["StreamDescription"]["StreamStatus"] == \
            "DISABLED"
        old, _ = read_all(s, old_arn)
        assert [r["dynamodb"]["NewImage"]["pk"]["S"] for r in old] == ["a", "b"]
        c.put_item(TableName="streamy", Item={"pk": S("d")})
        new, _ = read_all(s, latest)
        assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in new] == ["c", "d"]
        seqs = [int(r["dynamodb"]["SequenceNumber"]) for r in old + new]
        assert seqs == sorted(seqs) and len(set(seqs)) == 4
    finally:
        srv.stop_and_check()


def test_recreated_table_gets_a_new_stream(ddb, streams):
    name = unique_name()
    spec = {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
    arns = []
    for value in ("first", "second"):
        ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST", **key_schema_kwargs(),
                         StreamSpecification=spec)
        ddb.put_item(TableName=name, Item={"pk": S(value)})
        arns.append(ddb.delete_table(TableName=name)["TableDescription"]["LatestStreamArn"])
    assert arns[0] != arns[1] and ARN_RE.match(arns[1])["label"] > ARN_RE.match(arns[0])["label"]
    listed = [s["StreamArn"] for s in streams.list_streams(TableName=name)["Streams"]]
    assert listed == arns
    for arn, value in zip(arns, ("first", "second")):
        records, _ = read_all(streams, arn)
        assert [r["dynamodb"]["NewImage"]["pk"]["S"] for r in records] == [value]


# --------------------------------------------------------------------------
# CreateTable with a disabled stream that names a view type
# (from the service's edges on record: scylla's alternator suite in AWS mode; was
# test_service_edges.py)
# --------------------------------------------------------------------------

VE = "ValidationException"


def test_create_table_refuses_a_disabled_stream_with_a_view_type(ddb, table_factory):
    # The service's answer (nubo-db/dynamodb-conformance, 2026); nothing is created.
    expect_error(lambda: table_factory(name="edge-stream-off", StreamSpecification={
                     "StreamEnabled": False, "StreamViewType": "NEW_IMAGE"}),
                 VE, "One or more parameter values were invalid: Table is being created with a "
                     "stream disabled, UpdateViewType should not be specified")
    assert "edge-stream-off" not in ddb.list_tables()["TableNames"]
