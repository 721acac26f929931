"""Time to Live (UpdateTimeToLive, DescribeTimeToLive, expiry) and table tags
(TagResource, UntagResource, ListTagsOfResource), and table ARNs as TableName."""

import time

import pytest
from botocore.exceptions import ClientError

from conftest import expect_error, table_arn, unique_name


def _ttl(ddb, table):
    return ddb.describe_time_to_live(TableName=table)["TimeToLiveDescription"]


def test_time_to_live_lifecycle(ddb, table_s):
    assert _ttl(ddb, table_s) == {"TimeToLiveStatus": "DISABLED"}
    r = ddb.update_time_to_live(TableName=table_s, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "expires"})
    assert r["TimeToLiveSpecification"] == {"Enabled": True, "AttributeName": "expires"}
    assert _ttl(ddb, table_s) == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expires"}
    with pytest.raises(ClientError) as e:
        ddb.update_time_to_live(TableName=table_s, TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "expires"})
    assert e.value.response["Error"]["Code"] == "ValidationException"
    assert e.value.response["Error"]["Message"] == "TimeToLive is already enabled"
    ddb.update_time_to_live(TableName=table_s, TimeToLiveSpecification={
        "Enabled": False, "AttributeName": "expires"})
    assert _ttl(ddb, table_s) == {"TimeToLiveStatus": "DISABLED"}


def test_time_to_live_on_missing_table(ddb):
    with pytest.raises(ClientError) as e:
        ddb.describe_time_to_live(TableName="no-such-table-ttl")
    assert e.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_expired_items_are_deleted(ddb, table_s):
    ddb.update_time_to_live(TableName=table_s, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "expires"})
    past, future = int(time.time()) - 10, int(time.time()) + 3600
    ddb.put_item(TableName=table_s, Item={"pk": {"S": "old"}, "expires": {"N": str(past)}})
    ddb.put_item(TableName=table_s, Item={"pk": {"S": "new"}, "expires": {"N": str(future)}})
    ddb.put_item(TableName=table_s, Item={"pk": {"S": "text"}, "expires": {"S": str(past)}})
    deadline = time.time() + 10
    while time.time() < deadline:
        if "Item" not in ddb.get_item(TableName=table_s, Key={"pk": {"S": "old"}}):
            break
        time.sleep(0.2)
    assert "Item" not in ddb.get_item(TableName=table_s, Key={"pk": {"S": "old"}})
    assert "Item" in ddb.get_item(TableName=table_s, Key={"pk": {"S": "new"}})
    # Only numbers are expiry times.
    assert "Item" in ddb.get_item(TableName=table_s, Key={"pk": {"S": "text"}})


def test_tags_round_trip(ddb, table_s):
    arn = table_arn(table_s)
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == []
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "team", "Value": "a"},
                                            {"Key": "env", "Value": "dev"}])
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "team", "Value": "b"}])
    tags = {t["Key"]: t["Value"] for t in ddb.list_tags_of_resource(ResourceArn=arn)["Tags"]}
    assert tags == {"team": "b", "env": "dev"}
    ddb.untag_resource(ResourceArn=arn, TagKeys=["env"])
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "team", "Value": "b"}]


def test_tag_and_untag_answer_with_an_empty_body(raw, table_s):
    # The API reference: "If the action is successful, the service sends back an HTTP 200
    # response with an empty HTTP body."
    arn = table_arn(table_s)
    r = raw("TagResource", {"ResourceArn": arn, "Tags": [{"Key": "k", "Value": "v"}]})
    assert r.status == 200 and r.body == b""
    r = raw("UntagResource", {"ResourceArn": arn, "TagKeys": ["k"]})
    assert r.status == 200 and r.body == b""


# Many tags in one call (issue 29: 300,000 took the server minutes, a search of the merged set
# for each): the limit is reached at the 51st new key, and what the table had stays.
def test_tag_resource_with_many_tags(raw, ddb, table_factory):
    name = table_factory(("pk", "S"), Tags=[{"Key": "keep", "Value": "v"}])
    arn = table_arn(name)
    r = raw("TagResource", {"ResourceArn": arn,
                            "Tags": [{"Key": f"k{i}", "Value": "v"} for i in range(300000)]})
    assert r.status == 400, r.body[:300]
    assert r.json()["message"] == (
        "Number of Tags exceed the current limit for the provided ResourceArn")
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "keep", "Value": "v"}]
    r = raw("UntagResource", {"ResourceArn": arn,
                              "TagKeys": [f"k{i}" for i in range(300000)] + ["keep"]})
    assert r.status == 200, r.body[:300]
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == []


def test_create_table_tags(ddb, table_factory):
    name = table_factory(("pk", "S"), Tags=[{"Key": "k", "Value": "v"}])
    assert ddb.list_tags_of_resource(ResourceArn=table_arn(name))["Tags"] == [
        {"Key": "k", "Value": "v"}]


def test_tag_errors(ddb, table_s):
    with pytest.raises(ClientError) as e:
        ddb.list_tags_of_resource(ResourceArn=table_arn("no-such-table-tags"))
    assert e.value.response["Error"]["Code"] == "ResourceNotFoundException"
    # The service's text, typo included (as SDK users quote it).
    assert e.value.response["Error"]["Message"] == (
        "Requested resource not found: ResourcArn: " + table_arn("no-such-table-tags") +
        " not found")
    with pytest.raises(ClientError) as e:
        ddb.list_tags_of_resource(ResourceArn="not-an-arn")
    assert e.value.response["Error"]["Code"] == "ValidationException"
    assert "ARNs must start with 'arn:'" in e.value.response["Error"]["Message"]


def test_table_arn_as_table_name(ddb, table_s):
    arn = table_arn(table_s)
    ddb.put_item(TableName=arn, Item={"pk": {"S": "via-arn"}})
    assert ddb.get_item(TableName=table_s, Key={"pk": {"S": "via-arn"}})["Item"] == {
        "pk": {"S": "via-arn"}}
    assert ddb.describe_table(TableName=arn)["Table"]["TableName"] == table_s


def test_continuous_backups(ddb, table_s):
    d = ddb.describe_continuous_backups(TableName=table_s)["ContinuousBackupsDescription"]
    assert d["ContinuousBackupsStatus"] == "ENABLED"
    assert d["PointInTimeRecoveryDescription"] == {"PointInTimeRecoveryStatus": "DISABLED"}
    d = ddb.update_continuous_backups(
        TableName=table_s, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True}
    )["ContinuousBackupsDescription"]
    pitr = d["PointInTimeRecoveryDescription"]
    assert pitr["PointInTimeRecoveryStatus"] == "ENABLED"
    assert pitr["EarliestRestorableDateTime"] <= pitr["LatestRestorableDateTime"]
    d = ddb.describe_continuous_backups(TableName=table_s)["ContinuousBackupsDescription"]
    assert d["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "ENABLED"
    ddb.update_continuous_backups(
        TableName=table_s, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": False})
    d = ddb.describe_continuous_backups(TableName=table_s)["ContinuousBackupsDescription"]
    assert d["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "DISABLED"


def test_continuous_backups_of_a_missing_table(ddb):
    for call in (lambda: ddb.describe_continuous_backups(TableName="no_such_table_x"),
                 lambda: ddb.update_continuous_backups(
                     TableName="no_such_table_x",
                     PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})):
        with pytest.raises(ClientError) as e:
            call()
        assert e.value.response["Error"]["Code"] == "TableNotFoundException"
        assert e.value.response["Error"]["Message"] == "Table not found: no_such_table_x"


# --------------------------------------------------------------------------
# Time to Live: the attribute name must be the one TTL is on
# (from the conformance sweep: behaviours found missing in a sweep against a DynamoDB
# behaviour checklist; was test_conformance_sweep.py)
# --------------------------------------------------------------------------

def test_time_to_live_on_a_different_attribute(ddb, table_s):
    ddb.update_time_to_live(TableName=table_s,
                            TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"})
    different = ("TimeToLive is active on a different AttributeName: current AttributeName "
                 "is exp")
    expect_error(lambda: ddb.update_time_to_live(
        TableName=table_s, TimeToLiveSpecification={"Enabled": False, "AttributeName": "dog"}),
        "ValidationException", different)
    expect_error(lambda: ddb.update_time_to_live(
        TableName=table_s, TimeToLiveSpecification={"Enabled": True, "AttributeName": "dog"}),
        "ValidationException", different)
    got = ddb.describe_time_to_live(TableName=table_s)["TimeToLiveDescription"]
    assert got == {"TimeToLiveStatus": "ENABLED", "AttributeName": "exp"}
    ddb.update_time_to_live(TableName=table_s,
                            TimeToLiveSpecification={"Enabled": False, "AttributeName": "exp"})
    got = ddb.describe_time_to_live(TableName=table_s)["TimeToLiveDescription"]
    assert got == {"TimeToLiveStatus": "DISABLED"}


# --------------------------------------------------------------------------
# Tags: keys and values are letters, digits, spaces and _ . : / = + - @
# (from the conformance sweep: behaviours found missing in a sweep against a DynamoDB
# behaviour checklist; was test_conformance_sweep.py)
# --------------------------------------------------------------------------

def _arn(ddb, table):
    return ddb.describe_table(TableName=table)["Table"]["TableArn"]


@pytest.mark.parametrize("key,value,message", [
    ("ok", "#!%%^$$&", "The Tag Value provided is invalid, Value: #!%%^$$&"),
    ("->>;-)])", "ok", "The Tag Key provided is invalid, Key: ->>;-)])"),
    ("!!!\\|", "<><", "The Tag Key provided is invalid, Key: !!!\\|"),
])
def test_tag_characters_rejected(ddb, table_s, key, value, message):
    arn = _arn(ddb, table_s)
    expect_error(lambda: ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": key, "Value": value}]),
                 "ValidationException", message)
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == []


def test_tag_characters_accepted(ddb, table_s):
    arn = _arn(ddb, table_s)
    tags = [{"Key": "a:b/c=d+e-f@g_h.i j", "Value": " "}, {"Key": "7", "Value": ""},
            {"Key": "ключ", "Value": "значение"}]
    ddb.tag_resource(ResourceArn=arn, Tags=tags)
    got = ddb.list_tags_of_resource(ResourceArn=arn)["Tags"]
    assert sorted(got, key=lambda t: t["Key"]) == sorted(tags, key=lambda t: t["Key"])


def test_create_table_with_bad_tag_creates_nothing(ddb):
    name = unique_name()
    expect_error(lambda: ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"}],
        Tags=[{"Key": "bad#key", "Value": "v"}]),
        "ValidationException", "The Tag Key provided is invalid, Key: bad#key")
    assert name not in ddb.list_tables()["TableNames"]


def test_create_table_with_too_many_tags_creates_nothing(ddb):
    name = unique_name()
    expect_error(lambda: ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"}],
        Tags=[{"Key": str(i), "Value": str(i)} for i in range(51)]),
        "ValidationException", "Number of Tags exceed the current limit for the provided ResourceArn")
    expect_error(lambda: ddb.describe_table(TableName=name), "ResourceNotFoundException")


# --------------------------------------------------------------------------
# Tag lengths
# (from the service's edges on record: scylla's alternator suite in AWS mode; was
# test_service_edges.py)
# --------------------------------------------------------------------------

VE = "ValidationException"


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
