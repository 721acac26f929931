"""CreateTable's, DescribeTable's and DeleteTable's answers member by member, as the service
writes them (issue 31, item 2; protocol/table_operations.cc, WriteTableDescription).

Source: answers recorded from Amazon DynamoDB (2026) in the client suites of issue 31:
- a table that was never on-demand has no BillingModeSummary (CreateTable, DescribeTable,
  DeleteTable);
- an on-demand table's CreateTable answer has BillingModeSummary {BillingMode} without
  LastUpdateToPayPerRequestDateTime (DescribeTable has it);
- CreateTable's answer has no WarmThroughput, on the table or its GSIs, unless the request set
  one, which the answer then shows UPDATING; DescribeTable reports it.
"""

from conftest import unique_name

PK = {"AttributeName": "pk", "AttributeType": "S"}
G = {"AttributeName": "g", "AttributeType": "S"}
GSI = [{"IndexName": "byg", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"}}]


def _create(raw, **extra):
    name = unique_name("answers")
    definitions = [PK, G] if "GlobalSecondaryIndexes" in extra else [PK]
    r = raw("CreateTable", {"TableName": name, "AttributeDefinitions": definitions,
                            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], **extra})
    assert r.status == 200, r.body
    return name, r.json()["TableDescription"]


def test_provisioned_table_has_no_billing_summary(raw):
    units = {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}
    gsi = [dict(GSI[0], ProvisionedThroughput=units)]
    name, created = _create(raw, ProvisionedThroughput=units, GlobalSecondaryIndexes=gsi)
    assert "BillingModeSummary" not in created
    described = raw("DescribeTable", {"TableName": name}).json()["Table"]
    assert "BillingModeSummary" not in described
    deleted = raw("DeleteTable", {"TableName": name}).json()["TableDescription"]
    assert "BillingModeSummary" not in deleted


def test_on_demand_create_answer_has_no_last_update_time(raw):
    name, created = _create(raw, BillingMode="PAY_PER_REQUEST", GlobalSecondaryIndexes=GSI)
    assert created["BillingModeSummary"] == {"BillingMode": "PAY_PER_REQUEST"}
    described = raw("DescribeTable", {"TableName": name}).json()["Table"]
    assert described["BillingModeSummary"]["LastUpdateToPayPerRequestDateTime"] == \
        described["CreationDateTime"]
    raw("DeleteTable", {"TableName": name})


def test_create_answer_has_no_warm_throughput(raw):
    name, created = _create(raw, BillingMode="PAY_PER_REQUEST", GlobalSecondaryIndexes=GSI)
    assert "WarmThroughput" not in created
    assert all("WarmThroughput" not in g for g in created["GlobalSecondaryIndexes"])
    described = raw("DescribeTable", {"TableName": name}).json()["Table"]
    assert described["WarmThroughput"]["Status"] == "ACTIVE"
    raw("DeleteTable", {"TableName": name})


def test_create_answer_with_requested_warm_throughput_says_updating(raw):
    warm = {"ReadUnitsPerSecond": 12240, "WriteUnitsPerSecond": 4080}
    name, created = _create(raw, BillingMode="PAY_PER_REQUEST", WarmThroughput=warm)
    assert created["WarmThroughput"] == dict(warm, Status="UPDATING")
    raw("DeleteTable", {"TableName": name})


def test_table_that_was_on_demand_keeps_its_summary(raw):
    name, _ = _create(raw, BillingMode="PAY_PER_REQUEST")
    r = raw("UpdateTable", {"TableName": name, "BillingMode": "PROVISIONED",
                            "ProvisionedThroughput": {"ReadCapacityUnits": 1,
                                                      "WriteCapacityUnits": 1}})
    assert r.status == 200, r.body
    summary = r.json()["TableDescription"]["BillingModeSummary"]
    assert summary["BillingMode"] == "PROVISIONED"
    raw("DeleteTable", {"TableName": name})
