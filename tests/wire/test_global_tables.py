"""Global tables, version 2019.11.21 (docs/global-tables.md): UpdateTable's ReplicaUpdates on a
server whose Regions are namespaces of their own (--isolation account), with replication
between them after --replication-delay-ms.

Sources for the service's answers: aws-controllers-k8s' records of its probes of the service
(docs/api-quirks/table-replicas.md: the refusals' texts, the stream turned on for a replica,
Replicas listing the other Regions) and the developer guide (last writer wins, TTL deletes
and transactions replicated as their writes).
"""

import http.client
import json
import os
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import boto3
import pytest
from botocore.config import Config

from conftest import (ACCESS_KEY, SECRET_KEY, SERVER_BIN, ServerProcess, expect_error, run_aws_cli,
                      unique_name)

pytestmark = pytest.mark.ddb_only("regions of one ddb-server replicating to each other")

US, EU, AP = "us-east-1", "eu-west-1", "ap-southeast-2"
DELAY_MS = 100


@pytest.fixture(scope="module")
def srv():
    s = ServerProcess("--in-memory", "--isolation", "account", "--replication-delay-ms",
                      str(DELAY_MS))
    s.start()
    yield s
    s.stop()


def client(srv, region):
    return boto3.session.Session().client(
        "dynamodb", endpoint_url=srv.endpoint, region_name=region,
        aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY,
        config=Config(retries={"max_attempts": 1, "total_max_attempts": 1}))


def streams_client(srv, region):
    return boto3.session.Session().client(
        "dynamodbstreams", endpoint_url=srv.endpoint, region_name=region,
        aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY)


def create_table(c, name, **extra):
    c.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}], **extra)


def wait_for(predicate, what, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    pytest.fail(f"timed out waiting for {what}")


def replicas_active(c, name):
    d = c.describe_table(TableName=name)["Table"]
    return bool(d.get("Replicas")) and all(r["ReplicaStatus"] == "ACTIVE" for r in d["Replicas"])


def add_replica(c, name, region):
    r = c.update_table(TableName=name, ReplicaUpdates=[{"Create": {"RegionName": region}}])
    wait_for(lambda: replicas_active(c, name), f"the replica of {name} in {region}")
    return r


def scan_all(c, name):
    items, kwargs = [], {"TableName": name, "ConsistentRead": True}
    while True:
        page = c.scan(**kwargs)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return sorted(items, key=lambda i: i["pk"]["S"])
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def raw(srv, region, op, body):
    """One request as raw JSON, for members Debian's boto3 (1.26) predates
    (MultiRegionConsistency, GlobalTableWitnessUpdates): (status, parsed body)."""
    c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
    c.request("POST", "/", json.dumps(body), {
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": "DynamoDB_20120810." + op,
        "Authorization": f"AWS4-HMAC-SHA256 Credential={ACCESS_KEY}/20261205/{region}/dynamodb/"
                         "aws4_request, SignedHeaders=host, Signature=0"})
    r = c.getresponse()
    return r.status, json.loads(r.read() or b"{}")


def raw_error(srv, region, op, body, message):
    status, out = raw(srv, region, op, body)
    assert status == 400, out
    assert out["__type"].endswith("#ValidationException"), out
    assert out["message"] == message


def test_a_replica_is_created_filled_and_made_active(srv):
    us, eu = client(srv, US), client(srv, EU)
    name = unique_name("gt")
    create_table(us, name)
    for i in range(60):
        us.put_item(TableName=name, Item={"pk": {"S": f"k{i}"}, "v": {"N": str(i)}})
    r = us.update_table(TableName=name, ReplicaUpdates=[{"Create": {"RegionName": EU}}])
    d = r["TableDescription"]
    assert d["TableStatus"] == "UPDATING"
    assert [x["RegionName"] for x in d["Replicas"]] == [EU]
    assert d["Replicas"][0]["ReplicaStatus"] == "CREATING"
    assert d["GlobalTableVersion"] == "2019.11.21"
    # The service turns the stream on for a global table.
    assert d["StreamSpecification"] == {"StreamEnabled": True,
                                        "StreamViewType": "NEW_AND_OLD_IMAGES"}
    wait_for(lambda: replicas_active(us, name), "the replica to be ACTIVE")
    there = eu.describe_table(TableName=name)["Table"]
    assert there["TableStatus"] == "ACTIVE"
    assert [x["RegionName"] for x in there["Replicas"]] == [US]
    assert there["GlobalTableVersion"] == "2019.11.21"
    assert there["TableArn"].startswith(f"arn:aws:dynamodb:{EU}:")
    assert there["StreamSpecification"]["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    assert there["LatestStreamArn"] != d["LatestStreamArn"]
    assert scan_all(eu, name) == scan_all(us, name)
    assert len(scan_all(eu, name)) == 60


def test_writes_reach_every_region_after_the_delay(srv):
    us, eu, ap = client(srv, US), client(srv, EU), client(srv, AP)
    name = unique_name("gt")
    create_table(us, name)
    add_replica(us, name, EU)
    add_replica(us, name, AP)
    assert sorted(x["RegionName"] for x in ap.describe_table(TableName=name)["Table"]
                  ["Replicas"]) == [EU, US]
    eu.put_item(TableName=name, Item={"pk": {"S": "from-eu"}, "v": {"N": "1"}})
    ap.update_item(TableName=name, Key={"pk": {"S": "from-ap"}},
                   UpdateExpression="SET v = :v", ExpressionAttributeValues={":v": {"N": "2"}})
    # A transaction is atomic in its own Region and replicated as its writes.
    us.transact_write_items(TransactItems=[
        {"Put": {"TableName": name, "Item": {"pk": {"S": "tx1"}}}},
        {"Put": {"TableName": name, "Item": {"pk": {"S": "tx2"}}}}])
    for c in (us, eu, ap):
        wait_for(lambda c=c: len(scan_all(c, name)) == 4, "every write in every Region")
    eu.delete_item(TableName=name, Key={"pk": {"S": "tx1"}})
    for c in (us, ap):
        wait_for(lambda c=c: len(scan_all(c, name)) == 3, "the delete in every Region")


def test_concurrent_writes_converge_on_one_value(srv):
    us, eu, ap = client(srv, US), client(srv, EU), client(srv, AP)
    name = unique_name("gt")
    create_table(us, name)
    add_replica(us, name, EU)
    add_replica(us, name, AP)
    errors = []

    def writer(c, region):
        try:
            for i in range(100):
                c.put_item(TableName=name, Item={"pk": {"S": f"k{i % 5}"}, "v": {"N": str(i)},
                                                 "region": {"S": region}})
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(client(srv, r), r)) for r in (US, EU, AP)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    wait_for(lambda: scan_all(us, name) == scan_all(eu, name) == scan_all(ap, name),
             "every Region to hold the same items")
    assert len(scan_all(us, name)) == 5


def test_a_replicas_stream_shows_the_replicated_writes(srv):
    us, eu = client(srv, US), client(srv, EU)
    name = unique_name("gt")
    create_table(us, name)
    add_replica(us, name, EU)
    us.put_item(TableName=name, Item={"pk": {"S": "a"}, "v": {"N": "1"}})
    wait_for(lambda: len(scan_all(eu, name)) == 1, "the write in the replica")
    streams = streams_client(srv, EU)
    arn = eu.describe_table(TableName=name)["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                    ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    records = streams.get_records(ShardIterator=it)["Records"]
    assert [r["eventName"] for r in records] == ["INSERT"]
    assert records[0]["dynamodb"]["NewImage"] == {"pk": {"S": "a"}, "v": {"N": "1"}}
    assert records[0]["awsRegion"] == EU


def test_refusals_in_the_services_words(srv):
    us, eu = client(srv, US), client(srv, EU)
    name = unique_name("gt")
    create_table(us, name)
    expect_error(lambda: us.update_table(TableName=name, ReplicaUpdates=[
        {"Create": {"RegionName": US}}]), "ValidationException",
        "Cannot add or delete the local region through ReplicaUpdates. Use CreateTable, "
        "DeleteTable, or UpdateTable as required.")
    expect_error(lambda: us.update_table(TableName=name, ReplicaUpdates=[
        {"Delete": {"RegionName": EU}}]), "ValidationException",
        "Update global table operation failed because one or more replicas were not part of "
        "the global table. Please retry the request without these replicas: [eu-west-1].")
    expect_error(lambda: us.update_table(TableName=name, ReplicaUpdates=[
        {"Create": {"RegionName": EU}}, {"Create": {"RegionName": AP}}]), "ValidationException",
        "Update table operation with more than one create or delete replica actions not "
        "allowed")
    expect_error(lambda: us.update_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        ReplicaUpdates=[{"Create": {"RegionName": EU}}]), "ValidationException",
        "One or more parameter values were invalid: Replica modification must be the only "
        "operation in the request")
    expect_error(lambda: us.update_table(TableName=name, ReplicaUpdates=[
        {"Create": {"RegionName": "us-fake-1"}}]), "ValidationException",
        "Region us-fake-1 is not supported.")
    # A table of that name in the other Region already.
    create_table(eu, name)
    expect_error(lambda: us.update_table(TableName=name, ReplicaUpdates=[
        {"Create": {"RegionName": EU}}]), "ValidationException",
        f"Failed to create a the new replica of table with name: '{name}' because one or more "
        "replicas already existed as tables.")
    other = unique_name("gt")
    create_table(us, other)
    add_replica(us, other, EU)
    expect_error(lambda: eu.update_table(TableName=other, StreamSpecification={
        "StreamEnabled": False}), "ValidationException",
        "Disabling Stream is not allowed for a Global Table replica.")
    provisioned = unique_name("gt")
    us.create_table(TableName=provisioned,
                    AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                    KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                    ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    expect_error(lambda: us.update_table(TableName=provisioned, ReplicaUpdates=[
        {"Create": {"RegionName": EU}}]), "ValidationException",
        "Table write capacity should either be Pay-Per-Request or AutoScaled.")


def test_a_deleted_replica_leaves_and_its_table_goes(srv):
    us, eu = client(srv, US), client(srv, EU)
    name = unique_name("gt")
    create_table(us, name)
    add_replica(us, name, EU)
    r = us.update_table(TableName=name, ReplicaUpdates=[{"Delete": {"RegionName": EU}}])
    assert [(x["RegionName"], x["ReplicaStatus"]) for x in r["TableDescription"]["Replicas"]] \
        == [(EU, "DELETING")]
    d = us.describe_table(TableName=name)["Table"]
    assert "Replicas" not in d and "GlobalTableVersion" not in d
    assert d["StreamSpecification"]["StreamEnabled"]  # the stream stays
    expect_error(lambda: eu.describe_table(TableName=name), "ResourceNotFoundException")
    us.put_item(TableName=name, Item={"pk": {"S": "after"}})


def test_the_aws_cli_adds_a_replica(srv):
    name = unique_name("gt")
    create_table(client(srv, US), name)
    _, out = run_aws_cli(srv.endpoint, "update-table", "--table-name", name, "--region", US,
                         "--replica-updates", f'[{{"Create": {{"RegionName": "{EU}"}}}}]')
    assert out["TableDescription"]["Replicas"][0]["RegionName"] == EU
    wait_for(lambda: replicas_active(client(srv, US), name), "the replica to be ACTIVE")
    _, out = run_aws_cli(srv.endpoint, "describe-table", "--table-name", name, "--region", EU)
    assert out["Table"]["Replicas"] == [{"RegionName": US, "ReplicaStatus": "ACTIVE",
                                         "GlobalTableSettingsReplicationMode":
                                         "ENABLED_WITH_OVERRIDES"}]
    _, out = run_aws_cli(srv.endpoint, "describe-table-replica-auto-scaling", "--table-name",
                         name, "--region", EU)
    assert [r["RegionName"] for r in out["TableAutoScalingDescription"]["Replicas"]] == [EU, US]


def test_a_replica_deleted_with_delete_table_leaves_the_others_lists(srv):
    us, eu, ap = client(srv, US), client(srv, EU), client(srv, AP)
    name = unique_name("gt")
    create_table(us, name)
    add_replica(us, name, EU)
    add_replica(us, name, AP)
    ap.delete_table(TableName=name)
    wait_for(lambda: [x["RegionName"] for x in us.describe_table(TableName=name)["Table"]
                      .get("Replicas", [])] == [EU], "the deleted replica to leave the list")
    assert [x["RegionName"] for x in eu.describe_table(TableName=name)["Table"]["Replicas"]] \
        == [US]
    us.put_item(TableName=name, Item={"pk": {"S": "still"}})
    wait_for(lambda: len(scan_all(eu, name)) == 1, "replication between the two left")


def test_replication_resumes_after_a_restart(tmp_path):
    data = tmp_path / "data"
    srv = ServerProcess("--data-dir", str(data), "--isolation", "account",
                        "--replication-delay-ms", str(DELAY_MS))
    srv.start()
    try:
        us, eu = client(srv, US), client(srv, EU)
        name = unique_name("gt")
        create_table(us, name)
        add_replica(us, name, EU)
        us.put_item(TableName=name, Item={"pk": {"S": "before"}})
        wait_for(lambda: len(scan_all(eu, name)) == 1, "the write before the restart")
    finally:
        srv.stop()
    srv = ServerProcess("--data-dir", str(data), "--isolation", "account",
                        "--replication-delay-ms", str(DELAY_MS))
    srv.start()
    try:
        us, eu = client(srv, US), client(srv, EU)
        assert replicas_active(eu, name)
        eu.put_item(TableName=name, Item={"pk": {"S": "after"}})
        us.put_item(TableName=name, Item={"pk": {"S": "after-us"}})
        wait_for(lambda: scan_all(us, name) == scan_all(eu, name) and
                 len(scan_all(us, name)) == 3, "both ways after the restart")
    finally:
        srv.stop()


def test_a_region_taken_offline_fails_its_requests_and_catches_up_when_back():
    cli = os.environ.get("DDB_CLI", str(Path(SERVER_BIN).parent / "ddb"))
    srv = ServerProcess("--in-memory", "--isolation", "account", "--replication-delay-ms",
                        str(DELAY_MS))
    srv.start()
    try:
        us, eu = client(srv, US), client(srv, EU)
        name = unique_name("gt")
        create_table(us, name)
        add_replica(us, name, EU)

        def region(*args):
            return subprocess.run([cli, "--endpoint", srv.endpoint, "region", *args],
                                  capture_output=True, text=True, timeout=30)

        out = region("offline", EU)
        assert out.returncode == 0, out.stderr
        assert json.loads(region("list").stdout) == {"OfflineRegions": [EU]}
        expect_error(lambda: eu.get_item(TableName=name, Key={"pk": {"S": "x"}}),
                     "ServiceUnavailable", status=503,
                     contains="The service is unavailable in eu-west-1")
        # The other Regions keep serving; their writes wait for the Region to come back.
        for i in range(200):
            us.put_item(TableName=name, Item={"pk": {"S": f"k{i}"}})
        time.sleep(3 * DELAY_MS / 1000)
        out = region("online", EU)
        assert out.returncode == 0, out.stderr
        assert json.loads(region("list").stdout) == {"OfflineRegions": []}
        wait_for(lambda: len(scan_all(eu, name)) == 200, "the Region to catch up")
        # The admin endpoint answers only what it knows.
        r = urllib.request.Request(srv.endpoint + "/admin/regions/eu-west-1/offline")
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(r, timeout=10)  # a GET: POST only
        assert e.value.code == 405
    finally:
        srv.stop()


def test_the_admin_endpoint_needs_regions_of_their_own():
    srv = ServerProcess("--in-memory")
    srv.start()
    try:
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(urllib.request.Request(
                srv.endpoint + "/admin/regions/eu-west-1/offline", method="POST"), timeout=10)
        assert e.value.code == 400
        assert b"--isolation account" in e.value.read()
    finally:
        srv.stop()


def test_indexes_and_time_to_live_are_kept_in_step(srv):
    us, eu = client(srv, US), client(srv, EU)
    name = unique_name("gt")
    create_table(us, name)
    add_replica(us, name, EU)
    us.update_table(TableName=name,
                    AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
                    GlobalSecondaryIndexUpdates=[{"Create": {
                        "IndexName": "by_g", "KeySchema": [{"AttributeName": "g",
                                                            "KeyType": "HASH"}],
                        "Projection": {"ProjectionType": "ALL"}}}])
    wait_for(lambda: [g["IndexName"] for g in eu.describe_table(TableName=name)["Table"]
                      .get("GlobalSecondaryIndexes", [])] == ["by_g"], "the GSI in eu-west-1")
    us.put_item(TableName=name, Item={"pk": {"S": "a"}, "g": {"S": "blue"}})
    wait_for(lambda: eu.query(TableName=name, IndexName="by_g",
                              KeyConditionExpression="g = :g",
                              ExpressionAttributeValues={":g": {"S": "blue"}})["Count"] == 1,
             "the replicated item in the replica's GSI")
    eu.update_time_to_live(TableName=name, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "expires"})
    assert us.describe_time_to_live(TableName=name)["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED", "AttributeName": "expires"}


def test_deleting_the_source_during_a_fill_leaves_no_stuck_replica(srv):
    us, eu = client(srv, US), client(srv, EU)
    name = unique_name("gt")
    create_table(us, name)
    for i in range(0, 5000, 25):
        us.batch_write_item(RequestItems={name: [
            {"PutRequest": {"Item": {"pk": {"S": f"k{j}"}}}} for j in range(i, i + 25)]})
    us.update_table(TableName=name, ReplicaUpdates=[{"Create": {"RegionName": EU}}])
    us.delete_table(TableName=name)

    def settled():
        # The fill failed (the partial replica is deleted) or it had finished (the replica
        # stays, a table of its own once its source's deletion is noticed).
        try:
            d = eu.describe_table(TableName=name)["Table"]
        except eu.exceptions.ResourceNotFoundException:
            return True
        return d["TableStatus"] == "ACTIVE" and "Replicas" not in d

    wait_for(settled, "the replica to be deleted or on its own")


def test_multi_region_strong_consistency(srv):
    """MultiRegionConsistency STRONG: three Regions of one set (us-east-1, us-east-2,
    us-west-2), a write in every Region once acknowledged, concurrent writers of one item
    refused with ReplicatedWriteConflictException rather than losing silently, and the
    restrictions, in the service's words (aws-controllers-k8s' records)."""
    us, east2, west2 = client(srv, US), client(srv, "us-east-2"), client(srv, "us-west-2")
    name = unique_name("gt")
    create_table(us, name)

    def replicas(*regions, action="Create"):
        return [{action: {"RegionName": r}} for r in regions]

    raw_error(srv, US, "UpdateTable", {"TableName": name, "MultiRegionConsistency": "STRONG",
                                       "ReplicaUpdates": replicas("us-east-2", EU)},
              "Unsupported Region(s) specified for global tables with MultiRegionConsistency "
              "set to STRONG: [eu-west-1].")
    raw_error(srv, US, "UpdateTable", {"TableName": name, "MultiRegionConsistency": "STRONG",
                                       "ReplicaUpdates": replicas("us-east-2")},
              "Unsupported replica count for global tables with MultiRegionConsistency set to "
              "STRONG.")
    status, out = raw(srv, US, "UpdateTable", {
        "TableName": name, "MultiRegionConsistency": "STRONG",
        "ReplicaUpdates": replicas("us-east-2", "us-west-2")})
    assert status == 200, out
    assert out["TableDescription"]["MultiRegionConsistency"] == "STRONG"
    wait_for(lambda: replicas_active(us, name), "the replicas to be ACTIVE")
    assert raw(srv, "us-west-2", "DescribeTable", {"TableName": name})[1]["Table"][
        "MultiRegionConsistency"] == "STRONG"
    for i in range(10):
        east2.put_item(TableName=name, Item={"pk": {"S": f"k{i}"}})
        # Acknowledged: in every Region, without waiting.
        assert "Item" in west2.get_item(TableName=name, Key={"pk": {"S": f"k{i}"}},
                                        ConsistentRead=True)
    outcomes = {"ok": 0, "conflict": 0}
    lock = threading.Lock()

    def writer(c):
        for i in range(100):
            try:
                c.put_item(TableName=name, Item={"pk": {"S": "hot"}, "v": {"N": str(i)}})
                key = "ok"
            except c.exceptions.ClientError as e:
                assert e.response["Error"]["Code"] == "ReplicatedWriteConflictException", e
                key = "conflict"
            with lock:
                outcomes[key] += 1

    threads = [threading.Thread(target=writer, args=(client(srv, r),))
               for r in (US, "us-east-2", "us-west-2")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes["ok"] + outcomes["conflict"] == 300 and outcomes["ok"] > 0
    assert scan_all(us, name) == scan_all(east2, name) == scan_all(west2, name)
    expect_error(lambda: us.transact_write_items(TransactItems=[
        {"Put": {"TableName": name, "Item": {"pk": {"S": "t"}}}}]), "ValidationException")
    expect_error(lambda: us.update_table(TableName=name, ReplicaUpdates=replicas(EU)),
                 "ValidationException",
                 "Cannot add replicas to a global table with strong MultiRegionConsistency")
    expect_error(lambda: us.update_table(TableName=name,
                                         ReplicaUpdates=replicas("us-west-2", action="Delete")),
                 "ValidationException",
                 "Deletion of only one table replica is not supported for global tables with "
                 "MultiRegionConsistency set to STRONG.")
    us.update_table(TableName=name, ReplicaUpdates=replicas("us-east-2", "us-west-2",
                                                            action="Delete"))
    d = raw(srv, US, "DescribeTable", {"TableName": name})[1]["Table"]
    assert "MultiRegionConsistency" not in d and "Replicas" not in d


def test_a_witness_stands_for_the_third_region(srv):
    us = client(srv, US)
    name = unique_name("gt")
    create_table(us, name)
    one = [{"Create": {"RegionName": "us-east-2"}}]
    witness = [{"Create": {"RegionName": "us-west-2"}}]
    raw_error(srv, US, "UpdateTable", {"TableName": name, "ReplicaUpdates": one,
                                       "GlobalTableWitnessUpdates": witness},
              "MultiRegionConsistency must be set as STRONG when GlobalTableWitnessUpdates "
              "parameter is present.")
    status, out = raw(srv, US, "UpdateTable", {
        "TableName": name, "MultiRegionConsistency": "STRONG", "ReplicaUpdates": one,
        "GlobalTableWitnessUpdates": witness})
    assert status == 200, out
    assert out["TableDescription"]["GlobalTableWitnesses"] == [
        {"RegionName": "us-west-2", "WitnessStatus": "ACTIVE"}]
    wait_for(lambda: replicas_active(us, name), "the replica to be ACTIVE")
    raw_error(srv, US, "UpdateTable", {"TableName": name, "MultiRegionConsistency": "STRONG",
                                       "ReplicaUpdates": [{"Create": {"RegionName": EU}}]},
              "MultiRegionConsistency parameter is unsupported on existing global table")
    raw_error(srv, US, "UpdateTable", {"TableName": name, "MultiRegionConsistency": "STRONG",
                                       "BillingMode": "PAY_PER_REQUEST"},
              "Requests that modify replicas or witnesses must not also modify other fields")


def test_replica_overrides_are_bounded(srv):
    us = client(srv, US)
    name = unique_name("gt")
    create_table(us, name)
    expect_error(lambda: us.update_table(TableName=name, ReplicaUpdates=[{"Create": {
        "RegionName": EU, "KMSMasterKeyId": "k" * 2049}}]), "ValidationException",
        contains="Member must have length less than or equal to 2048")
    expect_error(lambda: us.update_table(TableName=name, ReplicaUpdates=[{"Create": {
        "RegionName": EU, "GlobalSecondaryIndexes": [{"IndexName": f"idx{n}"} for n in range(21)]}}]),
        "ValidationException", contains="Member must have length less than or equal to 20")


def write_scaling(min_units, max_units, target, **policy):
    return {"MinimumUnits": min_units, "MaximumUnits": max_units, "ScalingPolicyUpdate": {
        **policy, "TargetTrackingScalingPolicyConfiguration": {"TargetValue": target}}}


def by_region(description):
    return {r["RegionName"]: r for r in description["TableAutoScalingDescription"]["Replicas"]}


def test_replica_auto_scaling_is_kept_described_and_lets_a_provisioned_table_go_global(srv):
    """The shapes of the AWS CLI's examples (describe-/update-table-replica-auto-scaling):
    settings without auto scaling read AutoScalingDisabled, write settings are every
    replica's, read settings the named replica's, the policy named after its capacity."""
    us, eu = client(srv, US), client(srv, EU)
    name = unique_name("gt")
    us.create_table(
        TableName=name, ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
            "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}])
    wait_for(lambda: us.describe_table(TableName=name)["Table"]["TableStatus"] == "ACTIVE",
             "the table")
    before = by_region(us.describe_table_replica_auto_scaling(TableName=name))
    assert list(before) == [US]
    assert before[US]["ReplicaProvisionedWriteCapacityAutoScalingSettings"] == {
        "AutoScalingDisabled": True, "ScalingPolicies": []}
    assert before[US]["GlobalSecondaryIndexes"][0]["IndexName"] == "byG"
    # Without write auto scaling on the index too, the table cannot take a replica.
    us.update_table_replica_auto_scaling(
        TableName=name, ProvisionedWriteCapacityAutoScalingUpdate=write_scaling(10, 100, 80))
    expect_error(lambda: us.update_table(TableName=name, ReplicaUpdates=[
        {"Create": {"RegionName": EU}}]), "ValidationException",
        contains="write capacity should either be Pay-Per-Request or AutoScaled")
    us.update_table_replica_auto_scaling(TableName=name, GlobalSecondaryIndexUpdates=[{
        "IndexName": "byG",
        "ProvisionedWriteCapacityAutoScalingUpdate": write_scaling(10, 100, 70)}])
    add_replica(us, name, EU)
    # The new replica scales as the table does.
    after = by_region(eu.describe_table_replica_auto_scaling(TableName=name))
    assert sorted(after) == [EU, US]
    for region in (US, EU):
        w = after[region]["ReplicaProvisionedWriteCapacityAutoScalingSettings"]
        assert (w["MinimumUnits"], w["MaximumUnits"]) == (10, 100)
        assert w["AutoScalingRoleArn"].endswith(
            ":role/aws-service-role/dynamodb.application-autoscaling.amazonaws.com/"
            "AWSServiceRoleForApplicationAutoScaling_DynamoDBTable")
        assert w["ScalingPolicies"] == [{
            "PolicyName": f"DynamoDBWriteCapacityUtilization:table/{name}",
            "TargetTrackingScalingPolicyConfiguration": {"TargetValue": 80.0}}]
        assert after[region]["ReplicaStatus"] == "ACTIVE"
    # Read settings are one replica's.
    r = us.update_table_replica_auto_scaling(TableName=name, ReplicaUpdates=[{
        "RegionName": EU,
        "ReplicaProvisionedReadCapacityAutoScalingUpdate": {
            "MinimumUnits": 5, "MaximumUnits": 40, "ScalingPolicyUpdate": {
                "PolicyName": "mine", "TargetTrackingScalingPolicyConfiguration": {
                    "TargetValue": 55.5, "ScaleInCooldown": 60, "DisableScaleIn": True}}}}])
    regions = by_region(r)
    assert regions[US]["ReplicaProvisionedReadCapacityAutoScalingSettings"][
        "AutoScalingDisabled"] is True
    read = regions[EU]["ReplicaProvisionedReadCapacityAutoScalingSettings"]
    assert read["ScalingPolicies"] == [{"PolicyName": "mine",
                                        "TargetTrackingScalingPolicyConfiguration": {
                                            "TargetValue": 55.5, "ScaleInCooldown": 60,
                                            "DisableScaleIn": True}}]
    # Disabling drops the settings; the refusals.
    us.update_table_replica_auto_scaling(TableName=name, ReplicaUpdates=[{
        "RegionName": EU, "ReplicaProvisionedReadCapacityAutoScalingUpdate": {
            "AutoScalingDisabled": True}}])
    assert by_region(eu.describe_table_replica_auto_scaling(TableName=name))[EU][
        "ReplicaProvisionedReadCapacityAutoScalingSettings"]["AutoScalingDisabled"] is True
    expect_error(lambda: us.update_table_replica_auto_scaling(
        TableName=name, ProvisionedWriteCapacityAutoScalingUpdate=write_scaling(50, 20, 70)),
        "ValidationException", "Minimum capacity cannot be greater than maximum capacity")
    unchecked = boto3.session.Session().client(
        "dynamodb", endpoint_url=srv.endpoint, region_name=US, aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY, config=Config(parameter_validation=False))
    expect_error(lambda: unchecked.update_table_replica_auto_scaling(
        TableName=name, ProvisionedWriteCapacityAutoScalingUpdate={"MinimumUnits": 0}),
        "ValidationException",
        "1 validation error detected: Value '0' at "
        "'provisionedWriteCapacityAutoScalingUpdate.minimumUnits' failed to satisfy "
        "constraint: Member must have value greater than or equal to 1")
    expect_error(lambda: us.update_table_replica_auto_scaling(TableName=name, ReplicaUpdates=[{
        "RegionName": AP, "ReplicaProvisionedReadCapacityAutoScalingUpdate": {
            "MinimumUnits": 1}}]), "ValidationException",
        contains="Please retry the request without these replicas: [ap-southeast-2].")
    expect_error(lambda: us.update_table_replica_auto_scaling(
        TableName=name, GlobalSecondaryIndexUpdates=[{
            "IndexName": "nope", "ProvisionedWriteCapacityAutoScalingUpdate": {
                "MinimumUnits": 1}}]), "ResourceNotFoundException",
        "Requested resource not found: Index: nope not found")
    expect_error(lambda: us.describe_table_replica_auto_scaling(TableName=unique_name("none")),
                 "ResourceNotFoundException", contains="not found")
    # Settings survive the replicas' stores being read again (the table record keeps them).
    assert by_region(us.describe_table_replica_auto_scaling(TableName=name))[US][
        "GlobalSecondaryIndexes"][0]["ProvisionedWriteCapacityAutoScalingSettings"][
        "MinimumUnits"] == 10


def test_an_on_demand_table_has_no_auto_scaling(srv):
    us = client(srv, US)
    name = unique_name("gt")
    create_table(us, name)
    d = us.describe_table_replica_auto_scaling(TableName=name)["TableAutoScalingDescription"]
    assert d["Replicas"] == [{"RegionName": US, "GlobalSecondaryIndexes": [],
                              "ReplicaStatus": "ACTIVE"}]
    expect_error(lambda: us.update_table_replica_auto_scaling(
        TableName=name, ProvisionedWriteCapacityAutoScalingUpdate=write_scaling(1, 2, 70)),
        "ValidationException", contains="PAY_PER_REQUEST")
