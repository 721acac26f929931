"""Kinesis Data Streams on ddb's port (Kinesis_20131202.*, boto3's `kinesis` client and the
AWS CLI) and DynamoDB's Kinesis streaming destinations (docs/kinesis.md).

Expected texts are the service's as recorded in public sources (docs/kinesis.md cites them):
the hash key ranges of the Kinesis API reference's DescribeStream sample, the state machine's
ValidationExceptions, the record format of real destination records.
"""

import base64
import json

import boto3
import pytest
from botocore.config import Config

from conftest import (ACCESS_KEY, ACCOUNT_ID, REGION, SECRET_KEY, ServerProcess, expect_error,
                      make_client, run_aws_cli, unique_name)

MAX_HASH = 2**128 - 1
NOT_VALID = "Table is not in a valid state to enable Kinesis Streaming Destination: "


def make_kinesis(endpoint_url):
    session = boto3.session.Session(aws_access_key_id=ACCESS_KEY,
                                    aws_secret_access_key=SECRET_KEY, region_name=REGION)
    return session.client(
        "kinesis", endpoint_url=endpoint_url, region_name=REGION,
        config=Config(retries={"max_attempts": 1, "total_max_attempts": 1},
                      parameter_validation=False, connect_timeout=5, read_timeout=30))


@pytest.fixture(scope="module")
def kinesis(endpoint):
    return make_kinesis(endpoint)


@pytest.fixture
def stream(kinesis):
    """make(shards=1) -> (name, arn); deleted afterwards."""
    made = []

    def make(shards=1):
        name = unique_name("ks")
        kinesis.create_stream(StreamName=name, ShardCount=shards)
        made.append(name)
        arn = kinesis.describe_stream_summary(
            StreamName=name)["StreamDescriptionSummary"]["StreamARN"]
        return name, arn
    yield make
    for name in made:
        try:
            kinesis.delete_stream(StreamName=name)
        except Exception:
            pass


def read_all(kinesis, name, shard="shardId-000000000000", kind="TRIM_HORIZON", **kw):
    it = kinesis.get_shard_iterator(StreamName=name, ShardId=shard, ShardIteratorType=kind,
                                    **kw)["ShardIterator"]
    out = []
    for _ in range(20):
        page = kinesis.get_records(ShardIterator=it)
        out += page["Records"]
        it = page["NextShardIterator"]
        if not page["Records"]:
            break
    return out


def test_stream_lifecycle_and_hash_ranges(kinesis, stream):
    name, arn = stream(3)
    assert arn == f"arn:aws:kinesis:{REGION}:{ACCOUNT_ID}:stream/{name}"
    d = kinesis.describe_stream(StreamName=name)["StreamDescription"]
    assert d["StreamStatus"] == "ACTIVE" and d["HasMoreShards"] is False
    assert d["RetentionPeriodHours"] == 24 and d["EncryptionType"] == "NONE"
    assert [s["ShardId"] for s in d["Shards"]] == [
        "shardId-000000000000", "shardId-000000000001", "shardId-000000000002"]
    # The Kinesis API reference's DescribeStream sample (3 shards).
    ranges = [(s["HashKeyRange"]["StartingHashKey"], s["HashKeyRange"]["EndingHashKey"])
              for s in d["Shards"]]
    assert ranges[0] == ("0", "113427455640312821154458202477256070484")
    assert ranges[1] == ("113427455640312821154458202477256070485",
                         "226854911280625642308916404954512140969")
    assert ranges[2] == ("226854911280625642308916404954512140970", str(MAX_HASH))
    summary = kinesis.describe_stream_summary(StreamName=name)["StreamDescriptionSummary"]
    assert summary["OpenShardCount"] == 3 and summary["StreamModeDetails"] == {
        "StreamMode": "PROVISIONED"}
    assert name in kinesis.list_streams(Limit=100)["StreamNames"]
    # ListShards pages with NextToken, which then stands alone.
    first = kinesis.list_shards(StreamName=name, MaxResults=2)
    assert len(first["Shards"]) == 2 and "NextToken" in first
    rest = kinesis.list_shards(NextToken=first["NextToken"])
    assert [s["ShardId"] for s in rest["Shards"]] == ["shardId-000000000002"]
    assert "NextToken" not in rest
    expect_error(lambda: kinesis.list_shards(StreamName=name, NextToken=first["NextToken"]),
                 "InvalidArgumentException",
                 "NextToken and StreamName cannot be provided together.")
    expect_error(lambda: kinesis.create_stream(StreamName=name, ShardCount=1),
                 "ResourceInUseException",
                 f"Stream {name} under account {ACCOUNT_ID} already exists.")
    kinesis.delete_stream(StreamName=name)
    expect_error(lambda: kinesis.describe_stream(StreamName=name), "ResourceNotFoundException",
                 f"Stream {name} under account {ACCOUNT_ID} not found.")


def test_put_and_read_in_order(kinesis, stream):
    name, arn = stream(2)
    puts = [kinesis.put_record(StreamName=name, Data=f"r{i}".encode(), PartitionKey="same")
            for i in range(5)]
    shard = puts[0]["ShardId"]
    assert all(p["ShardId"] == shard for p in puts)
    seqs = [int(p["SequenceNumber"]) for p in puts]
    assert seqs == sorted(seqs) and len(set(seqs)) == 5
    records = read_all(kinesis, name, shard)
    assert [r["Data"] for r in records] == [f"r{i}".encode() for i in range(5)]
    assert [r["SequenceNumber"] for r in records] == [p["SequenceNumber"] for p in puts]
    assert all(r["PartitionKey"] == "same" for r in records)
    at = read_all(kinesis, name, shard, "AT_SEQUENCE_NUMBER",
                  StartingSequenceNumber=puts[2]["SequenceNumber"])
    assert [r["Data"] for r in at] == [b"r2", b"r3", b"r4"]
    after = read_all(kinesis, name, shard, "AFTER_SEQUENCE_NUMBER",
                     StartingSequenceNumber=puts[2]["SequenceNumber"])
    assert [r["Data"] for r in after] == [b"r3", b"r4"]
    # LATEST: only what comes after the iterator was taken.
    latest = kinesis.get_shard_iterator(StreamName=name, ShardId=shard,
                                        ShardIteratorType="LATEST")["ShardIterator"]
    page = kinesis.get_records(ShardIterator=latest)
    assert page["Records"] == [] and page["MillisBehindLatest"] == 0
    kinesis.put_record(StreamName=name, Data=b"late", PartitionKey="same")
    assert [r["Data"] for r in kinesis.get_records(
        ShardIterator=page["NextShardIterator"])["Records"]] == [b"late"]
    # PutRecords, and an explicit hash key at the top of the range: the last shard.
    result = kinesis.put_records(StreamName=name, Records=[
        {"Data": b"x", "PartitionKey": f"k{i}"} for i in range(10)] + [
        {"Data": b"top", "PartitionKey": "p", "ExplicitHashKey": str(MAX_HASH)}])
    assert result["FailedRecordCount"] == 0 and len(result["Records"]) == 11
    assert result["Records"][-1]["ShardId"] == "shardId-000000000001"
    total = sum(len(read_all(kinesis, name, f"shardId-00000000000{i}")) for i in range(2))
    assert total == 5 + 1 + 11


def test_stream_named_by_arn(raw, kinesis, stream):
    """StreamARN (newer than Debian's boto3: raw JSON 1.1) names a stream as StreamName does."""
    name, arn = stream(1)

    def call(op, body):
        r = raw("Kinesis_20131202." + op, body, content_type="application/x-amz-json-1.1")
        assert r.header("Content-Type") == "application/x-amz-json-1.1"
        return r.status, r.json()
    status, body = call("DescribeStreamSummary", {"StreamARN": arn})
    assert status == 200 and body["StreamDescriptionSummary"]["StreamName"] == name
    status, body = call("DescribeStreamSummary", {"StreamARN": arn.replace(REGION, "eu-west-1")})
    assert status == 400 and body["__type"] == "ResourceNotFoundException"
    status, body = call("DescribeStreamSummary", {})
    assert status == 400 and body == {
        "__type": "InvalidArgumentException",
        "message": "Either StreamName or StreamARN should be provided."}
    status, body = call("PutRecord", {"StreamARN": arn, "Data": "AGhlbGxv", "PartitionKey": "p"})
    assert status == 200 and body["ShardId"] == "shardId-000000000000"
    assert [r["Data"] for r in read_all(kinesis, name)] == [b"\x00hello"]


def test_kinesis_errors(kinesis, stream):
    name, _ = stream(1)
    expect_error(lambda: kinesis.describe_stream(StreamName="bad/name"), "ValidationException",
                 "1 validation error detected: Value 'bad/name' at 'streamName' failed to "
                 "satisfy constraint: Member must satisfy regular expression pattern: "
                 "[a-zA-Z0-9_.-]+")
    expect_error(lambda: kinesis.get_records(ShardIterator="AAAAAAAAAAEgarbage="),
                 "InvalidArgumentException", "Invalid ShardIterator.")
    expect_error(lambda: kinesis.get_shard_iterator(
        StreamName=name, ShardId="shardId-000000000007", ShardIteratorType="TRIM_HORIZON"),
        "ResourceNotFoundException",
        f"Shard shardId-000000000007 in stream {name} under account {ACCOUNT_ID} does not exist")
    expect_error(lambda: kinesis.get_shard_iterator(
        StreamName=name, ShardId="shardId-000000000000", ShardIteratorType="AT_SEQUENCE_NUMBER"),
        "InvalidArgumentException",
        contains="Request specified AT_SEQUENCE_NUMBER and no StartingSequenceNumber.")
    expect_error(lambda: kinesis.put_record(StreamName=name, Data=b"x", PartitionKey="k",
                                            ExplicitHashKey=str(MAX_HASH + 1)),
                 "InvalidArgumentException", contains="Invalid ExplicitHashKey.")
    expect_error(lambda: kinesis.put_record(StreamName=name, Data=b"x" * (1024 * 1024 + 1),
                                            PartitionKey="k"),
                 "ValidationException", contains="Member must have length less than or equal "
                 "to 1048576")
    expect_error(lambda: kinesis.put_record(StreamName=unique_name("none"), Data=b"x",
                                            PartitionKey="k"),
                 "ResourceNotFoundException", contains="not found.")
    expect_error(lambda: kinesis.get_records(ShardIterator="x", Limit=10001),
                 "InvalidArgumentException", contains="Limit 10001")


def destination(raw, op, body):
    r = raw(op, body)
    return r.status, r.json()


def changes(kinesis, name):
    return [json.loads(r["Data"]) for r in read_all(kinesis, name)]


def test_table_changes_reach_the_stream(ddb, kinesis, stream, table_factory):
    name, arn = stream(1)
    table = table_factory(("pk", "S"), ("sk", "N"))
    out = ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=arn)
    assert out["DestinationStatus"] == "ENABLING" and out["StreamArn"] == arn
    described = ddb.describe_kinesis_streaming_destination(TableName=table)
    assert described["TableName"] == table
    assert described["KinesisDataStreamDestinations"] == [
        {"StreamArn": arn, "DestinationStatus": "ACTIVE"}]
    # No DynamoDB stream is created for it, and DescribeTable does not show it.
    assert "LatestStreamArn" not in ddb.describe_table(TableName=table)["Table"]
    key = {"pk": {"S": "a"}, "sk": {"N": "1"}}
    ddb.put_item(TableName=table, Item={**key, "v": {"S": "one"}})
    ddb.put_item(TableName=table, Item={**key, "v": {"S": "one"}})  # unchanged: no record
    ddb.update_item(TableName=table, Key=key, UpdateExpression="SET v = :v",
                    ExpressionAttributeValues={":v": {"S": "two"}})
    ddb.delete_item(TableName=table, Key=key)
    records = changes(kinesis, name)
    assert [r["eventName"] for r in records] == ["INSERT", "MODIFY", "REMOVE"]
    first = records[0]
    assert list(first) == ["awsRegion", "eventID", "eventName", "userIdentity", "recordFormat",
                           "tableName", "dynamodb", "eventSource"]
    assert first["awsRegion"] == REGION and first["userIdentity"] is None
    assert first["recordFormat"] == "application/json" and first["tableName"] == table
    assert first["eventSource"] == "aws:dynamodb"
    assert len(first["eventID"]) == 36 and first["eventID"].count("-") == 4
    d = first["dynamodb"]
    assert isinstance(d["ApproximateCreationDateTime"], int)
    assert len(str(d["ApproximateCreationDateTime"])) == 13  # milliseconds
    assert d["Keys"] == key and d["NewImage"] == {**key, "v": {"S": "one"}}
    assert "OldImage" not in d and "SequenceNumber" not in d and "StreamViewType" not in d
    # Keys: pk (2+1) + sk (2+2); NewImage adds v (1+3).
    assert d["SizeBytes"] == (3 + 4) + (3 + 4 + 4)
    assert records[1]["dynamodb"]["OldImage"]["v"] == {"S": "one"}
    assert records[1]["dynamodb"]["NewImage"]["v"] == {"S": "two"}
    assert "NewImage" not in records[2]["dynamodb"]
    # One item's records share a partition key (32 upper-case hex digits).
    keys = {r["PartitionKey"] for r in read_all(kinesis, name)}
    assert len(keys) == 1 and len(next(iter(keys))) == 32


def test_destination_state_machine(ddb, raw, kinesis, stream, table_factory):
    name, arn = stream(1)
    other_name, other = stream(1)
    table = table_factory(("pk", "S"))
    ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=arn)
    expect_error(lambda: ddb.enable_kinesis_streaming_destination(TableName=table,
                                                                  StreamArn=other),
                 "ValidationException", NOT_VALID + "EnableKinesisStreamingDestination must "
                 "be DISABLED or ENABLE_FAILED to perform ENABLE operation.")
    # Update (newer than Debian's boto3: raw JSON).
    status, body = destination(raw, "UpdateKinesisStreamingDestination", {
        "TableName": table, "StreamArn": arn})
    assert status == 400 and body["message"] == (
        "Streaming destination cannot be updated with given parameters: "
        "UpdateKinesisStreamingConfiguration cannot be null or contain only null values")
    status, body = destination(raw, "UpdateKinesisStreamingDestination", {
        "TableName": table, "StreamArn": arn, "UpdateKinesisStreamingConfiguration": {
            "ApproximateCreationDateTimePrecision": "MILLISECOND"}})
    assert status == 400 and body["message"].startswith(
        "Invalid Request: Precision is already set to the desired value of MILLISECOND")
    status, body = destination(raw, "UpdateKinesisStreamingDestination", {
        "TableName": table, "StreamArn": arn, "UpdateKinesisStreamingConfiguration": {
            "ApproximateCreationDateTimePrecision": "MICROSECOND"}})
    assert status == 200 and body["DestinationStatus"] == "UPDATING"
    assert body["UpdateKinesisStreamingConfiguration"] == {
        "ApproximateCreationDateTimePrecision": "MICROSECOND"}
    ddb.put_item(TableName=table, Item={"pk": {"S": "micro"}})
    (record,) = changes(kinesis, name)
    assert len(str(record["dynamodb"]["ApproximateCreationDateTime"])) == 16
    assert record["dynamodb"]["ApproximateCreationDateTimePrecision"] == "MICROSECOND"
    # Disable: DISABLING, then DISABLED; writes no longer reach the stream.
    out = ddb.disable_kinesis_streaming_destination(TableName=table, StreamArn=arn)
    assert out["DestinationStatus"] == "DISABLING"
    expect_error(lambda: ddb.disable_kinesis_streaming_destination(TableName=table,
                                                                   StreamArn=arn),
                 "ValidationException", NOT_VALID + "KinesisStreamingDestination must be ACTIVE "
                 "to perform DISABLE operation.")
    ddb.put_item(TableName=table, Item={"pk": {"S": "after-disable"}})
    assert len(changes(kinesis, name)) == 1
    # A stream that does not exist: accepted, then ENABLE_FAILED with the service's reason.
    missing = f"arn:aws:kinesis:{REGION}:{ACCOUNT_ID}:stream/{unique_name('gone')}"
    assert ddb.enable_kinesis_streaming_destination(
        TableName=table, StreamArn=missing)["DestinationStatus"] == "ENABLING"
    listed = ddb.describe_kinesis_streaming_destination(
        TableName=table)["KinesisDataStreamDestinations"]
    assert listed[0] == {"StreamArn": missing, "DestinationStatus": "ENABLE_FAILED",
                         "DestinationStatusDescription":
                             "User does not have a permission to use kinesis stream"}
    assert listed[1]["StreamArn"] == arn and listed[1]["DestinationStatus"] == "DISABLED"
    # Re-enabling the first stream resets its precision.
    ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=arn)
    listed = ddb.describe_kinesis_streaming_destination(
        TableName=table)["KinesisDataStreamDestinations"]
    assert listed[0] == {"StreamArn": arn, "DestinationStatus": "ACTIVE"}
    expect_error(lambda: ddb.describe_kinesis_streaming_destination(TableName=unique_name("no")),
                 "ResourceNotFoundException", contains="not found")
    status, body = destination(raw, "EnableKinesisStreamingDestination", {
        "TableName": table, "StreamArn": "arn:aws:kinesis:short"})
    assert status == 400 and "Member must have length greater than or equal to 37" in \
        body["message"]
    del other_name


def test_destination_and_records_survive_restart(tmp_path):
    data_dir = tmp_path / "data"
    srv = ServerProcess("--data-dir", str(data_dir), log_dir=str(tmp_path)).start()
    try:
        ddb, kin = make_client(srv.endpoint), make_kinesis(srv.endpoint)
        kin.create_stream(StreamName="s", ShardCount=2)
        arn = kin.describe_stream(StreamName="s")["StreamDescription"]["StreamARN"]
        ddb.create_table(TableName="tbl", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         BillingMode="PAY_PER_REQUEST")
        ddb.enable_kinesis_streaming_destination(TableName="tbl", StreamArn=arn)
        ddb.put_item(TableName="tbl", Item={"pk": {"S": "before"}})
        kin.put_record(StreamName="s", Data=b"raw", PartitionKey="p")
    finally:
        srv.stop_and_check()
    srv = ServerProcess("--data-dir", str(data_dir), log_dir=str(tmp_path)).start()
    try:
        ddb, kin = make_client(srv.endpoint), make_kinesis(srv.endpoint)
        assert ddb.describe_kinesis_streaming_destination(TableName="tbl")[
            "KinesisDataStreamDestinations"][0]["DestinationStatus"] == "ACTIVE"
        ddb.put_item(TableName="tbl", Item={"pk": {"S": "after"}})
        kin.put_record(StreamName="s", Data=b"raw2", PartitionKey="p")
        records = [r for i in range(2) for r in read_all(kin, "s", f"shardId-00000000000{i}")]
        data = sorted(r["Data"] for r in records)
        assert len(records) == 4 and b"raw" in data and b"raw2" in data
        seqs = [int(r["SequenceNumber"]) for r in records]
        assert len(set(seqs)) == 4  # no sequence reused after the restart
        images = sorted(json.loads(r["Data"])["dynamodb"]["Keys"]["pk"]["S"]
                        for r in records if r["Data"].startswith(b"{"))
        assert images == ["after", "before"]
    finally:
        srv.stop_and_check()


def test_aws_cli_kinesis_and_destination(endpoint, table_factory):
    name = unique_name("clis")
    run_aws_cli(endpoint, "create-stream", "--stream-name", name, "--shard-count", "1",
                service="kinesis")
    try:
        _, summary = run_aws_cli(endpoint, "describe-stream-summary", "--stream-name", name,
                                 service="kinesis")
        arn = summary["StreamDescriptionSummary"]["StreamARN"]
        table = table_factory(("pk", "S"))
        _, out = run_aws_cli(endpoint, "enable-kinesis-streaming-destination", "--table-name",
                             table, "--stream-arn", arn)
        assert out["DestinationStatus"] == "ENABLING"
        run_aws_cli(endpoint, "put-item", "--table-name", table, "--item",
                    '{"pk": {"S": "cli"}}')
        _, it = run_aws_cli(endpoint, "get-shard-iterator", "--stream-name", name, "--shard-id",
                            "shardId-000000000000", "--shard-iterator-type", "TRIM_HORIZON",
                            service="kinesis")
        _, page = run_aws_cli(endpoint, "get-records", "--shard-iterator", it["ShardIterator"],
                              service="kinesis")
        (record,) = page["Records"]
        change = json.loads(base64.b64decode(record["Data"]))
        assert change["eventName"] == "INSERT" and change["dynamodb"]["Keys"] == {
            "pk": {"S": "cli"}}
    finally:
        run_aws_cli(endpoint, "delete-stream", "--stream-name", name, service="kinesis")
