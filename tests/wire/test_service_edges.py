"""Edges of the core API where the service's answers are on record (scylla's alternator
suite in AWS mode): DeleteTable's description, table classes, tag lengths, the operator
limit of expressions."""

import pytest

from conftest import expect_error, gsi_def, lsi_def, unique_name

VE = "ValidationException"


def S(x):
    return {"S": x}


def test_delete_table_describes_the_table_without_its_schema(ddb):
    name = unique_name()
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "p", "KeyType": "HASH"},
                   {"AttributeName": "c", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in "pcx"],
        GlobalSecondaryIndexes=[gsi_def("hello", "x")],
        LocalSecondaryIndexes=[lsi_def("hithere", "p", "x")])
    described = ddb.describe_table(TableName=name)["Table"]
    got = ddb.delete_table(TableName=name)["TableDescription"]
    assert got["TableName"] == name and got["TableStatus"] == "DELETING"
    assert got["TableId"] == described["TableId"] and got["TableArn"] == described["TableArn"]
    for member in ("KeySchema", "AttributeDefinitions", "CreationDateTime",
                   "GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        assert member in described and member not in got, member
    assert got["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert got["BillingModeSummary"]["LastUpdateToPayPerRequestDateTime"]
    assert got["ProvisionedThroughput"] == {"NumberOfDecreasesToday": 0, "ReadCapacityUnits": 0,
                                            "WriteCapacityUnits": 0}
    assert got["ItemCount"] == 0 and got["TableSizeBytes"] == 0


BAD_CLASS = ("Invalid table-class parameter provided. Please try again with a valid table-class "
             "value: [STANDARD, STANDARD_INFREQUENT_ACCESS].")


@pytest.mark.parametrize("table_class", ["invalid_tableclass_name", "standard"])
def test_unknown_table_class_on_create(ddb, table_factory, table_class):
    expect_error(lambda: table_factory(TableClass=table_class), VE, BAD_CLASS)


def test_table_class_update_records_its_time(ddb, table_factory):
    table = table_factory()
    expect_error(lambda: ddb.update_table(TableName=table, TableClass="junk"), VE, BAD_CLASS)
    assert "LastUpdateDateTime" not in ddb.describe_table(TableName=table)["Table"].get(
        "TableClassSummary", {})
    ddb.update_table(TableName=table, TableClass="STANDARD_INFREQUENT_ACCESS")
    summary = ddb.describe_table(TableName=table)["Table"]["TableClassSummary"]
    assert summary["TableClass"] == "STANDARD_INFREQUENT_ACCESS"
    assert summary["LastUpdateDateTime"]


def test_tag_lengths_count_characters_not_bytes(ddb, table_factory):
    table = table_factory()
    arn = ddb.describe_table(TableName=table)["Table"]["TableArn"]
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "א" * 128, "Value": "ב" * 256}])
    tags = ddb.list_tags_of_resource(ResourceArn=arn)["Tags"]
    assert tags == [{"Key": "א" * 128, "Value": "ב" * 256}]
    expect_error(lambda: ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "א" * 129, "Value": ""}]),
                 VE, match="The Tag Key provided is invalid")
    expect_error(lambda: ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "k", "Value": "ב" * 257}]),
                 VE, match="The Tag Value provided is invalid")


@pytest.mark.parametrize("expression", [
    "a < b or (" * 150 + "a < b" + ")" * 150,  # 301 comparisons and ORs, under 4 KB
    "not " * 300 + "a < b",
    " or ".join(["attribute_exists(a)"] * 151),
])
def test_at_most_300_operators_in_an_expression(ddb, table_s, expression):
    expect_error(lambda: ddb.update_item(TableName=table_s, Key={"pk": S("k")},
                                         UpdateExpression="SET z = :z", ConditionExpression=expression,
                                         ExpressionAttributeValues={":z": S("v")}),
                 VE, "1 validation error detected: Invalid ConditionExpression: The expression "
                     "contains too many operators; operator count: 301")
    assert "Item" not in ddb.get_item(TableName=table_s, Key={"pk": S("k")})


def test_300_operators_are_allowed(ddb, table_s):
    expression = " or ".join(["attribute_not_exists(a)"] * 150)  # 150 calls + 149 ORs
    ddb.update_item(TableName=table_s, Key={"pk": S("k")}, UpdateExpression="SET z = :z",
                    ConditionExpression=expression, ExpressionAttributeValues={":z": S("v")})


def test_create_table_refuses_a_disabled_stream_with_a_view_type(ddb, table_factory):
    # The service's answer (nubo-db/dynamodb-conformance, 2026); nothing is created.
    expect_error(lambda: table_factory(name="edge-stream-off", StreamSpecification={
                     "StreamEnabled": False, "StreamViewType": "NEW_IMAGE"}),
                 VE, "One or more parameter values were invalid: Table is being created with a "
                     "stream disabled, UpdateViewType should not be specified")
    assert "edge-stream-off" not in ddb.list_tables()["TableNames"]


# --- CreateTable's request shape (nubo-db/dynamodb-conformance tier 3, 2026) ---

def test_create_table_shape_answers(ddb):
    pt = {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}
    defs = [{"AttributeName": "pk", "AttributeType": "S"}]
    expect_error(lambda: ddb.create_table(
        TableName="dup_key_2026", AttributeDefinitions=defs, ProvisionedThroughput=pt,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "pk", "KeyType": "RANGE"}]),
        VE, "Invalid KeySchema: Some index key attribute have no definition")
    expect_error(lambda: ddb.create_table(
        TableName="three_keys_2026", ProvisionedThroughput=pt,
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"}
                              for n in ("pk", "sk", "extra")],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"},
                   {"AttributeName": "extra", "KeyType": "RANGE"}]),
        VE, "1 validation error detected: Value '[KeySchemaElement(attributeName=pk, "
        "keyType=HASH), KeySchemaElement(attributeName=sk, keyType=RANGE), "
        "KeySchemaElement(attributeName=extra, keyType=RANGE)]' at 'keySchema' failed to "
        "satisfy constraint: Member must have length less than or equal to 2")
    # An LSI's repeated key attribute keeps the older text (Alternator's test_lsi).
    expect_error(lambda: ddb.create_table(
        TableName="lsi_dup_2026", BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=defs + [{"AttributeName": "c", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "c", "KeyType": "RANGE"}],
        LocalSecondaryIndexes=[{"IndexName": "hello", "Projection": {"ProjectionType": "ALL"},
                                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                              {"AttributeName": "pk", "KeyType": "RANGE"}]}]),
        VE, "Both the Hash Key and the Range Key element in the KeySchema have the same name")
    # Global indexes' violations come before local ones', whatever the request's order.
    index = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
             "Projection": {"ProjectionType": "ALL"}}
    expect_error(lambda: ddb.create_table(
        TableName="index_names_2026", AttributeDefinitions=defs, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        LocalSecondaryIndexes=[{**index, "IndexName": "aa"}],
        GlobalSecondaryIndexes=[{**index, "IndexName": "zz"}]),
        VE, "2 validation errors detected: Value 'zz' at 'globalSecondaryIndexes.1.member."
        "indexName' failed to satisfy constraint: Member must have length greater than or equal "
        "to 3; Value 'aa' at 'localSecondaryIndexes.1.member.indexName' failed to satisfy "
        "constraint: Member must have length greater than or equal to 3")


def test_create_table_without_a_name(raw):
    r = raw("CreateTable", {"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                            "BillingMode": "PAY_PER_REQUEST"})
    assert r.json()["message"] == (
        "The parameter 'TableName' is required but was not present in the request")


def test_binary_set_duplicates(ddb, table_s):
    expect_error(lambda: ddb.put_item(TableName=table_s, Item={
        "pk": S("k"), "b": {"BS": [b"b", b"b"]}}), VE,
        "One or more parameter values were invalid: Input collection [Yg==, Yg==]of type BS "
        "contains duplicates.")
