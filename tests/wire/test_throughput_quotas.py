"""Throughput quotas: CreateTable and UpdateTable refuse what the service refuses, so that
no throughput a client sends makes the next request's work unbounded (issue 29: UpdateTable
to 10^12 units, then Scan, crashed the server or spun a core in the partition model).

Messages recorded from the service (LimitExceededException on CreateTable/UpdateTable):
"The requested ReadCapacityUnits, N, is above the per table maximum for the account in
REGION. Per table maximum: 40000. ..." and "This request would have caused the
ReadCapacityUnits limit to be exceeded for the account in REGION. Current ReadCapacityUnits
reserved by the account: N. Limit: 80000. Requested: M. ..."; the out-of-bounds
ValidationException as dynalite's suite recorded it."""
import http.client

import pytest

from conftest import (REGION, TARGET_PREFIX, ServerProcess, expect_error, key_schema_kwargs,
                      make_client, raw_post, unique_name)

HOW_TO_RAISE = (" Refer to the Amazon DynamoDB Developer Guide for current limits and how to "
                "request higher limits.")


@pytest.fixture(params=[(), ("--simulate-capacity",)], ids=["plain", "simulated"])
def fresh(request):
    """A server of its own: the account quota counts every table it has."""
    srv = ServerProcess("--in-memory", *request.param).start()
    try:
        client = make_client(srv.endpoint)
        client.server = srv
        yield client
    finally:
        srv.stop_and_check()


def provisioned(c, rcu, wcu, **extra):
    name = unique_name("quota")
    c.create_table(TableName=name, **key_schema_kwargs(),
                   ProvisionedThroughput={"ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu},
                   **extra)
    return name


def test_huge_update_then_scan_answers(fresh):
    """The sequence that took the server down: refused, and the table keeps serving."""
    c = fresh
    name = provisioned(c, 5, 5)
    c.put_item(TableName=name, Item={"pk": {"S": "a"}})
    expect_error(lambda: c.update_table(TableName=name, ProvisionedThroughput={
        "ReadCapacityUnits": 10**12, "WriteCapacityUnits": 10**12}),
        "LimitExceededException",
        f"The requested ReadCapacityUnits, {10**12}, is above the per table maximum for the "
        f"account in {REGION}. Per table maximum: 40000." + HOW_TO_RAISE)
    expect_error(lambda: c.update_table(TableName=name, ProvisionedThroughput={
        "ReadCapacityUnits": 10**12 + 1, "WriteCapacityUnits": 5}),
        "ValidationException", f"Given value {10**12 + 1} for ReadCapacityUnits is out of bounds")
    expect_error(lambda: c.update_table(TableName=name, ProvisionedThroughput={
        "ReadCapacityUnits": 5, "WriteCapacityUnits": 40001}),
        "LimitExceededException",
        f"The requested WriteCapacityUnits, 40001, is above the per table maximum for the "
        f"account in {REGION}. Per table maximum: 40000." + HOW_TO_RAISE)
    assert c.scan(TableName=name)["Count"] == 1
    t = c.describe_table(TableName=name)["Table"]["ProvisionedThroughput"]
    assert (t["ReadCapacityUnits"], t["WriteCapacityUnits"]) == (5, 5)
    # The quota itself is allowed, and the next requests still answer.
    c.update_table(TableName=name, ProvisionedThroughput={"ReadCapacityUnits": 40000,
                                                          "WriteCapacityUnits": 40000})
    assert c.scan(TableName=name)["Count"] == 1
    c.put_item(TableName=name, Item={"pk": {"S": "b"}})
    assert c.get_item(TableName=name, Key={"pk": {"S": "b"}}, ConsistentRead=True)["Item"]


def test_create_table_quotas(fresh):
    c = fresh
    expect_error(lambda: provisioned(c, 40001, 1), "LimitExceededException",
                 f"The requested ReadCapacityUnits, 40001, is above the per table maximum for "
                 f"the account in {REGION}. Per table maximum: 40000." + HOW_TO_RAISE)
    gsi = {"IndexName": "gsi1", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
           "Projection": {"ProjectionType": "KEYS_ONLY"},
           "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 50000}}
    expect_error(lambda: provisioned(c, 1, 1, GlobalSecondaryIndexes=[gsi]),
                 "LimitExceededException",
                 f"The requested WriteCapacityUnits for index gsi1, 50000, is above the per index "
                 f"maximum for the account in {REGION}. Per index maximum: 40000." + HOW_TO_RAISE)
    # The account's 80,000 read units over its tables and their GSIs.
    provisioned(c, 40000, 10)
    provisioned(c, 30000, 10)
    expect_error(lambda: provisioned(c, 10001, 10), "LimitExceededException",
                 f"This request would have caused the ReadCapacityUnits limit to be exceeded for "
                 f"the account in {REGION}. Current ReadCapacityUnits reserved by the account: "
                 f"70000. Limit: 80000. Requested: 10001." + HOW_TO_RAISE)
    provisioned(c, 10000, 10)
    # On-demand tables reserve nothing.
    c.create_table(TableName=unique_name("quota"), **key_schema_kwargs(),
                   BillingMode="PAY_PER_REQUEST")


def test_on_demand_maximums_and_warm_throughput(fresh):
    c = fresh
    name = unique_name("quota")
    c.create_table(TableName=name, **key_schema_kwargs(), BillingMode="PAY_PER_REQUEST")
    # Newer than Debian's boto3: raw JSON.
    conn = http.client.HTTPConnection("127.0.0.1", c.server.port, timeout=30)
    for member, value, message in [
        ("OnDemandThroughput", {"MaxReadRequestUnits": 40001},
         "Requested MaxReadRequestUnits for OnDemandThroughput for table exceeds "
         "TableMaxReadCapacityUnits"),
        ("WarmThroughput", {"WriteUnitsPerSecond": 10**9},
         "Requested WriteUnitsPerSecond for WarmThroughput for table exceeds "
         "TableMaxWriteCapacityUnits")]:
        r = raw_post(conn, c.server.endpoint, TARGET_PREFIX + "UpdateTable",
                     {"TableName": name, member: value})
        assert r.status == 400
        assert r.json()["__type"].endswith("#LimitExceededException")
        assert r.json()["message"] == (f"Subscriber limit exceeded: {message} of the account "
                                       f"in region {REGION}")
    conn.close()
    assert c.scan(TableName=name)["Count"] == 0
