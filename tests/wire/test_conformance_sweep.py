"""Behaviours found missing in a sweep against a DynamoDB behaviour checklist.

Attribute-name length limits (65535 bytes for any attribute name, 255 for key and
index key names), the legacy AttributeUpdates type-mismatch message, the nesting
limit's full message, the TTL attribute on disable, tag characters, one online index
operation per UpdateTable, the 4 KB expression limit, ExpressionAttributeNames entries,
and gzip-compressed request bodies.
"""

import gzip
import json

import pytest

from botocore.exceptions import ClientError

from conftest import expect_error, unique_name

NAME_TOO_LARGE = ("1 validation error detected: Attribute name is too large, must be less "
                  "than 65536 bytes")
TYPE_MISMATCH = ("One or more parameter values were invalid: Type mismatch for attribute "
                 "to update")
NESTING = ("Nesting Levels have exceeded supported limits: Attributes in the item have "
           "nested levels beyond supported limit")

LONGEST_NAME = "n" * 65535
TOO_LONG_NAME = "n" * 65536


# --------------------------------------------------------------------------
# Attribute names of up to 65535 bytes
# --------------------------------------------------------------------------

def test_longest_attribute_name_works_everywhere(ddb, table_s):
    key = {"pk": {"S": "long"}}
    ddb.put_item(TableName=table_s, Item={**key, LONGEST_NAME: {"N": "1"}})
    got = ddb.get_item(TableName=table_s, Key=key, ProjectionExpression="#n",
                       ExpressionAttributeNames={"#n": LONGEST_NAME})
    assert got["Item"] == {LONGEST_NAME: {"N": "1"}}
    got = ddb.get_item(TableName=table_s, Key=key, AttributesToGet=[LONGEST_NAME])
    assert got["Item"] == {LONGEST_NAME: {"N": "1"}}
    ddb.update_item(TableName=table_s, Key=key, UpdateExpression="SET #n = #n + :one",
                    ConditionExpression="#n = :one", ExpressionAttributeNames={"#n": LONGEST_NAME},
                    ExpressionAttributeValues={":one": {"N": "1"}})
    ddb.update_item(TableName=table_s, Key=key,
                    AttributeUpdates={LONGEST_NAME: {"Action": "ADD", "Value": {"N": "1"}}})
    got = ddb.get_item(TableName=table_s, Key=key, ConsistentRead=True)
    assert got["Item"][LONGEST_NAME] == {"N": "3"}


@pytest.mark.parametrize("where", ["top", "nested"])
def test_put_item_attribute_name_too_large(ddb, table_s, where):
    value = {"N": "1"}
    item = {"pk": {"S": "x"}}
    if where == "top":
        item[TOO_LONG_NAME] = value
    else:
        item["doc"] = {"M": {"inner": {"M": {TOO_LONG_NAME: value}}}}
    expect_error(lambda: ddb.put_item(TableName=table_s, Item=item), "ValidationException",
                 NAME_TOO_LARGE)
    assert "Item" not in ddb.get_item(TableName=table_s, Key={"pk": {"S": "x"}},
                                      ConsistentRead=True)


def test_expression_attribute_name_too_large(ddb, table_s):
    key = {"pk": {"S": "x"}}
    names = {"#n": TOO_LONG_NAME}
    one = {":v": {"N": "1"}}
    expect_error(lambda: ddb.get_item(TableName=table_s, Key=key, ProjectionExpression="#n",
                                      ExpressionAttributeNames=names),
                 "ValidationException", NAME_TOO_LARGE)
    expect_error(lambda: ddb.update_item(TableName=table_s, Key=key, UpdateExpression="SET #n = :v",
                                         ExpressionAttributeNames=names,
                                         ExpressionAttributeValues=one),
                 "ValidationException", NAME_TOO_LARGE)
    expect_error(lambda: ddb.update_item(TableName=table_s, Key=key, UpdateExpression="SET a = :v",
                                         ConditionExpression="#n = :v",
                                         ExpressionAttributeNames=names,
                                         ExpressionAttributeValues=one),
                 "ValidationException", NAME_TOO_LARGE)
    assert "Item" not in ddb.get_item(TableName=table_s, Key=key, ConsistentRead=True)


def test_value_with_too_large_map_key(ddb, table_s):
    key = {"pk": {"S": "x"}}
    expect_error(lambda: ddb.update_item(
        TableName=table_s, Key=key, UpdateExpression="SET doc = :v",
        ExpressionAttributeValues={":v": {"M": {TOO_LONG_NAME: {"S": "a"}}}}),
        "ValidationException", NAME_TOO_LARGE)


def test_legacy_parameters_attribute_name_too_large(ddb, table_s):
    key = {"pk": {"S": "x"}}
    expect_error(lambda: ddb.get_item(TableName=table_s, Key=key,
                                      AttributesToGet=[TOO_LONG_NAME]),
                 "ValidationException", NAME_TOO_LARGE)
    expect_error(lambda: ddb.update_item(
        TableName=table_s, Key=key,
        AttributeUpdates={TOO_LONG_NAME: {"Action": "PUT", "Value": {"N": "2"}}}),
        "ValidationException", NAME_TOO_LARGE)


# --------------------------------------------------------------------------
# Key attribute names of up to 255 bytes
# --------------------------------------------------------------------------

def _key_name_error(name, path):
    return (f"1 validation error detected: Value '{name}' at '{path}' failed to satisfy "
            "constraint: Member must have length less than or equal to 255")


def test_key_names_of_255_bytes(ddb, table_factory):
    h, r = "h" * 255, "r" * 255
    table = table_factory((h, "S"), (r, "S"))
    item = {h: {"S": "a"}, r: {"S": "b"}, "other": {"N": "2"}}
    ddb.put_item(TableName=table, Item=item)
    got = ddb.get_item(TableName=table, Key={h: {"S": "a"}, r: {"S": "b"}}, ConsistentRead=True)
    assert got["Item"] == item


def test_table_key_name_too_long(ddb):
    long = "k" * 256
    name = unique_name()
    expect_error(lambda: ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": long, "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "short", "AttributeType": "S"}]),
        "ValidationException", _key_name_error(long, "keySchema.1.member.attributeName"))
    expect_error(lambda: ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "short", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": long, "AttributeType": "S"}]),
        "ValidationException", _key_name_error(long, "attributeDefinitions.1.member.attributeName"))
    err = expect_error(lambda: ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "x", "KeyType": "HASH"},
                   {"AttributeName": long, "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "x", "AttributeType": "S"},
                              {"AttributeName": long, "AttributeType": "S"}]),
        "ValidationException", match="^2 validation errors detected: ")
    msg = err.response["Error"]["Message"]
    assert "'keySchema.2.member.attributeName'" in msg
    assert "'attributeDefinitions.2.member.attributeName'" in msg
    assert name not in ddb.list_tables()["TableNames"]


@pytest.mark.parametrize("kind", ["GlobalSecondaryIndexes", "LocalSecondaryIndexes"])
def test_index_key_name_too_long(ddb, kind):
    long = "k" * 256
    path = ("globalSecondaryIndexes" if kind.startswith("Global") else "localSecondaryIndexes")
    schema = ([{"AttributeName": long, "KeyType": "HASH"}] if kind.startswith("Global") else
              [{"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": long, "KeyType": "RANGE"}])
    position = 1 if kind.startswith("Global") else 2
    expect_error(lambda: ddb.create_table(
        TableName=unique_name(), BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "a", "KeyType": "HASH"},
                   {"AttributeName": "b", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "a", "AttributeType": "S"},
                              {"AttributeName": "b", "AttributeType": "S"},
                              {"AttributeName": "c", "AttributeType": "S"}],
        **{kind: [{"IndexName": "idx", "KeySchema": schema,
                   "Projection": {"ProjectionType": "ALL"}}]}),
        "ValidationException",
        _key_name_error(long, f"{path}.1.member.keySchema.{position}.member.attributeName"))


def test_index_keys_of_255_bytes(ddb, table_factory):
    g, l = "g" * 255, "l" * 255
    table = table_factory(
        ("a", "S"), ("b", "S"),
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("a", "b", g, l)],
        GlobalSecondaryIndexes=[{"IndexName": "gsi", "KeySchema": [
            {"AttributeName": g, "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}],
        LocalSecondaryIndexes=[{"IndexName": "lsi", "KeySchema": [
            {"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": l, "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}}])
    item = {"a": {"S": "1"}, "b": {"S": "2"}, g: {"S": "3"}, l: {"S": "4"}}
    ddb.put_item(TableName=table, Item=item)
    got = ddb.query(TableName=table, IndexName="lsi", ConsistentRead=True,
                    KeyConditionExpression="a = :a AND #l = :l",
                    ExpressionAttributeNames={"#l": l},
                    ExpressionAttributeValues={":a": {"S": "1"}, ":l": {"S": "4"}})
    assert got["Items"] == [item]


# --------------------------------------------------------------------------
# AttributeUpdates: a value whose type clashes with the stored attribute
# --------------------------------------------------------------------------

@pytest.mark.parametrize("stored,action,value", [
    ({"SS": ["dog"]}, "ADD", {"N": "2"}),
    ({"SS": ["dog"]}, "ADD", {"L": [{"S": "cat"}]}),
    ({"L": [{"S": "dog"}]}, "ADD", {"SS": ["cat"]}),
    ({"L": [{"S": "dog"}]}, "ADD", {"N": "3"}),
    ({"N": "2"}, "ADD", {"L": [{"S": "dog"}]}),
    ({"N": "2"}, "ADD", {"SS": ["dog"]}),
    ({"NS": ["1", "2"]}, "ADD", {"SS": ["a"]}),
    ({"S": "x"}, "DELETE", {"NS": ["1", "2"]}),
    ({"NS": ["1", "2"]}, "DELETE", {"SS": ["hi"]}),
])
def test_attribute_updates_type_mismatch(ddb, table_s, stored, action, value):
    key = {"pk": {"S": "mm"}}
    ddb.put_item(TableName=table_s, Item={**key, "a": stored})
    expect_error(lambda: ddb.update_item(TableName=table_s, Key=key,
                                         AttributeUpdates={"a": {"Action": action, "Value": value}}),
                 "ValidationException", TYPE_MISMATCH)
    got = ddb.get_item(TableName=table_s, Key=key, ConsistentRead=True)
    assert got["Item"]["a"] == stored


def test_update_expression_type_clash_keeps_its_message(ddb, table_s):
    key = {"pk": {"S": "mm"}}
    ddb.put_item(TableName=table_s, Item={**key, "a": {"SS": ["dog"]}})
    expect_error(lambda: ddb.update_item(TableName=table_s, Key=key, UpdateExpression="ADD a :v",
                                         ExpressionAttributeValues={":v": {"N": "2"}}),
                 "ValidationException",
                 "An operand in the update expression has an incorrect data type")


# --------------------------------------------------------------------------
# Nesting limit
# --------------------------------------------------------------------------

def _nested_map(levels):
    value = {"S": "leaf"}
    for _ in range(levels):
        value = {"M": {"a": value}}
    return value


def test_nesting_limit_message(ddb, table_s):
    ddb.put_item(TableName=table_s, Item={"pk": {"S": "deep"}, "doc": _nested_map(31)})
    expect_error(lambda: ddb.put_item(TableName=table_s,
                                      Item={"pk": {"S": "deep"}, "doc": _nested_map(32)}),
                 "ValidationException", NESTING)
    expect_error(lambda: ddb.put_item(TableName=table_s,
                                      Item={"pk": {"S": "deep"}, "doc": _nested_map(50)}),
                 "ValidationException", NESTING)


# --------------------------------------------------------------------------
# Time to Live: the attribute name must be the one TTL is on
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


# --------------------------------------------------------------------------
# UpdateTable: one online index operation per request, alone
# --------------------------------------------------------------------------

def _create(name, attr):
    return {"Create": {"IndexName": name, "KeySchema": [{"AttributeName": attr, "KeyType": "HASH"}],
                       "Projection": {"ProjectionType": "ALL"}}}


def _defs(*names):
    return [{"AttributeName": n, "AttributeType": "S"} for n in names]


def _index_names(ddb, table):
    return sorted(g["IndexName"] for g in
                  ddb.describe_table(TableName=table)["Table"].get("GlobalSecondaryIndexes", []))


def test_update_table_one_online_index_operation(ddb, table_s):
    limit = ("Subscriber limit exceeded: Only 1 online index can be created or deleted "
             "simultaneously per table")
    expect_error(lambda: ddb.update_table(
        TableName=table_s, AttributeDefinitions=_defs("x", "y"),
        GlobalSecondaryIndexUpdates=[_create("gsix", "x"), _create("gsiy", "y")]),
        "LimitExceededException", limit)
    assert _index_names(ddb, table_s) == []
    ddb.update_table(TableName=table_s, AttributeDefinitions=_defs("x"),
                     GlobalSecondaryIndexUpdates=[_create("gsix", "x")])
    expect_error(lambda: ddb.update_table(
        TableName=table_s, AttributeDefinitions=_defs("y"),
        GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "gsix"}}, _create("gsiy", "y")]),
        "LimitExceededException", limit)
    assert _index_names(ddb, table_s) == ["gsix"]


@pytest.mark.parametrize("extra,message", [
    ({"StreamSpecification": {"StreamEnabled": False}},
     "You cannot create or delete index while changing stream status"),
    ({"TableClass": "STANDARD_INFREQUENT_ACCESS"},
     "TableClass modification must be the only operation in the request"),
])
def test_update_table_index_creation_must_go_alone(ddb, table_s, extra, message):
    expect_error(lambda: ddb.update_table(
        TableName=table_s, AttributeDefinitions=_defs("x"),
        GlobalSecondaryIndexUpdates=[_create("gsix", "x")], **extra),
        "ValidationException", message)
    assert _index_names(ddb, table_s) == []


def test_update_table_index_creation_with_deletion_protection(ddb, raw, table_s):
    r = raw("UpdateTable", {"TableName": table_s, "AttributeDefinitions": _defs("x"),
                            "GlobalSecondaryIndexUpdates": [_create("gsix", "x")],
                            "DeletionProtectionEnabled": False})
    assert r.status == 400
    assert r.json() == {
        "__type": "com.amazon.coral.validate#ValidationException",
        "message": "DeletionProtection modification must be the only operation in the request"}
    assert _index_names(ddb, table_s) == []


def test_update_table_index_creation_with_table_throughput(ddb, table_factory):
    table = table_factory(ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    create = _create("gsix", "x")
    create["Create"]["ProvisionedThroughput"] = {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}
    expect_error(lambda: ddb.update_table(
        TableName=table, AttributeDefinitions=_defs("x"), GlobalSecondaryIndexUpdates=[create],
        ProvisionedThroughput={"ReadCapacityUnits": 2, "WriteCapacityUnits": 2}),
        "ValidationException", "You cannot create or delete index while updating table IOPS")
    assert _index_names(ddb, table) == []
    # With a billing-mode switch it is fine.
    ddb.update_table(TableName=table, AttributeDefinitions=_defs("x"),
                     GlobalSecondaryIndexUpdates=[_create("gsix", "x")],
                     BillingMode="PAY_PER_REQUEST")
    assert _index_names(ddb, table) == ["gsix"]


# --------------------------------------------------------------------------
# Expressions are at most 4096 bytes, counted as sent
# --------------------------------------------------------------------------

def _padded_projection(size):
    # "pk" followed by ", aNNNN..." terms, padded with spaces to exactly `size` bytes.
    text = "pk"
    i = 0
    while len(text) + 12 <= size:
        text += f", a{i:08d}"
        i += 1
    return text + " " * (size - len(text))


def _size_error(kind, size):
    return (f"Invalid {kind}: Expression size has exceeded the maximum allowed size; "
            f"expression size: {size}")


def test_expression_size_limit(ddb, table_s):
    key = {"pk": {"S": "e"}}
    ddb.put_item(TableName=table_s, Item=key)
    ok = _padded_projection(4096)
    assert len(ok) == 4096
    assert ddb.get_item(TableName=table_s, Key=key, ProjectionExpression=ok)["Item"] == key
    big = _padded_projection(4097)
    expect_error(lambda: ddb.get_item(TableName=table_s, Key=key, ProjectionExpression=big),
                 "ValidationException", _size_error("ProjectionExpression", 4097))
    one = {":v": {"N": "1"}}
    long_update = "SET a = :v" + " " * 4090
    expect_error(lambda: ddb.update_item(TableName=table_s, Key=key, UpdateExpression=long_update,
                                         ExpressionAttributeValues=one),
                 "ValidationException",
                 "1 validation error detected: " + _size_error("UpdateExpression", len(long_update)))
    long_condition = "attribute_exists(pk)" + " " * 4080
    expect_error(lambda: ddb.delete_item(TableName=table_s, Key=key,
                                         ConditionExpression=long_condition),
                 "ValidationException",
                 "1 validation error detected: "
                 + _size_error("ConditionExpression", len(long_condition)))
    long_filter = "a = :v" + " " * 4091
    expect_error(lambda: ddb.scan(TableName=table_s, FilterExpression=long_filter,
                                  ExpressionAttributeValues=one),
                 "ValidationException", _size_error("FilterExpression", len(long_filter)))
    long_key = "pk = :k" + " " * 4090
    expect_error(lambda: ddb.query(TableName=table_s, KeyConditionExpression=long_key,
                                   ExpressionAttributeValues={":k": {"S": "e"}}),
                 "ValidationException", _size_error("KeyConditionExpression", len(long_key)))
    expect_error(lambda: ddb.transact_write_items(TransactItems=[{"Update": {
        "TableName": table_s, "Key": key, "UpdateExpression": long_update,
        "ExpressionAttributeValues": one}}]),
        "ValidationException", _size_error("UpdateExpression", len(long_update)))
    # Placeholders are not substituted before counting.
    names = {"#n": "x" * 5000}
    ddb.update_item(TableName=table_s, Key=key, UpdateExpression="SET #n = :v",
                    ExpressionAttributeNames=names, ExpressionAttributeValues=one)
    assert ddb.get_item(TableName=table_s, Key=key, ConsistentRead=True)["Item"]["x" * 5000] == \
        {"N": "1"}


# --------------------------------------------------------------------------
# ExpressionAttributeNames entries
# --------------------------------------------------------------------------

def test_expression_attribute_name_empty_value(ddb, table_s):
    expect_error(lambda: ddb.get_item(TableName=table_s, Key={"pk": {"S": "e"}},
                                      ProjectionExpression="#a",
                                      ExpressionAttributeNames={"#a": ""}),
                 "ValidationException",
                 "ExpressionAttributeNames contains invalid value: Empty attribute name for key #a")


def test_expression_attribute_key_too_long(ddb, table_s):
    key = "#" + "k" * 255
    expect_error(lambda: ddb.get_item(TableName=table_s, Key={"pk": {"S": "e"}},
                                      ProjectionExpression=key,
                                      ExpressionAttributeNames={key: "a"}),
                 "ValidationException",
                 "ExpressionAttributeNames contains invalid key: The expression attribute map "
                 "contains a key that is too long; size of key: 256")
    ok = "#" + "k" * 254
    ddb.get_item(TableName=table_s, Key={"pk": {"S": "e"}}, ProjectionExpression=ok,
                 ExpressionAttributeNames={ok: "a"})


# --------------------------------------------------------------------------
# Compressed requests (Content-Encoding: gzip)
# --------------------------------------------------------------------------

def _put_body(table, pk, value="v"):
    return json.dumps({"TableName": table, "Item": {"pk": {"S": pk}, "v": {"S": value}}})


def _stored(ddb, table, pk):
    return ddb.get_item(TableName=table, Key={"pk": {"S": pk}}, ConsistentRead=True).get("Item")


def test_gzip_request(ddb, raw, table_s):
    r = raw("PutItem", gzip.compress(_put_body(table_s, "g1").encode()),
            extra_headers={"Content-Encoding": "gzip"})
    assert r.status == 200 and r.json() == {}
    assert _stored(ddb, table_s, "g1") == {"pk": {"S": "g1"}, "v": {"S": "v"}}
    # Several gzip members concatenated are one body.
    body = _put_body(table_s, "g2").encode()
    r = raw("PutItem", gzip.compress(body[:10]) + gzip.compress(body[10:]),
            extra_headers={"Content-Encoding": "gzip"})
    assert r.status == 200
    assert _stored(ddb, table_s, "g2") is not None
    # A long body that inflates over many buffers.
    long_value = "x" * 300000
    r = raw("PutItem", gzip.compress(_put_body(table_s, "g3", long_value).encode()),
            extra_headers={"Content-Encoding": "gzip"})
    assert r.status == 200
    assert _stored(ddb, table_s, "g3")["v"]["S"] == long_value
    # The response of a compressed request is an ordinary one.
    r = raw("GetItem", gzip.compress(json.dumps(
        {"TableName": table_s, "Key": {"pk": {"S": "g1"}}}).encode()),
        extra_headers={"Content-Encoding": "gzip"})
    assert r.json() == {"Item": {"pk": {"S": "g1"}, "v": {"S": "v"}}}


@pytest.mark.parametrize("encoding,mangle", [
    ("garbage", lambda body: body),
    ("gzip", lambda body: body),                               # not compressed at all
    ("gzip", lambda body: gzip.compress(body)[:-1]),           # truncated
    ("gzip", lambda body: b""),
])
def test_gzip_request_that_does_not_inflate(ddb, raw, table_s, encoding, mangle):
    body = _put_body(table_s, "bad").encode()
    r = raw("PutItem", mangle(body), extra_headers={"Content-Encoding": encoding})
    assert r.status == 500
    assert r.json()["__type"].endswith("#InternalServerError")
    assert _stored(ddb, table_s, "bad") is None


# --------------------------------------------------------------------------
# Response headers: Server and Date, on successes and errors
# --------------------------------------------------------------------------

def test_server_and_date_headers(ddb):
    import email.utils
    ok = ddb.list_tables()["ResponseMetadata"]["HTTPHeaders"]
    try:
        ddb.describe_table(TableName="no-such-table-headers")
        pytest.fail("DescribeTable of a missing table succeeded")
    except ClientError as e:
        failed = e.response["ResponseMetadata"]["HTTPHeaders"]
    for headers in (ok, failed):
        assert headers["server"] == "Server"
        assert headers["connection"] == "keep-alive"
        assert headers["date"].endswith(" GMT")
        assert email.utils.parsedate_to_datetime(headers["date"]) is not None


# --------------------------------------------------------------------------
# ReturnItemCollectionMetrics on BatchWriteItem and TransactWriteItems
# --------------------------------------------------------------------------

@pytest.fixture
def lsi_table(table_factory):
    return table_factory(
        ("pk", "S"), ("sk", "S"),
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"}
                              for n in ("pk", "sk", "alt")],
        LocalSecondaryIndexes=[{"IndexName": "by_alt", "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "alt", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}}])


def _metrics(pk):
    return {"ItemCollectionKey": {"pk": {"S": pk}}, "SizeEstimateRangeGB": [0.0, 1.0]}


def test_batch_write_item_collection_metrics(ddb, lsi_table, table_s):
    r = ddb.batch_write_item(RequestItems={
        lsi_table: [{"PutRequest": {"Item": {"pk": {"S": "a"}, "sk": {"S": "1"}}}},
                    {"DeleteRequest": {"Key": {"pk": {"S": "b"}, "sk": {"S": "1"}}}}],
        table_s: [{"PutRequest": {"Item": {"pk": {"S": "a"}}}}]},
        ReturnItemCollectionMetrics="SIZE")
    assert r["ItemCollectionMetrics"] == {lsi_table: [_metrics("a"), _metrics("b")]}
    r = ddb.batch_write_item(RequestItems={
        lsi_table: [{"PutRequest": {"Item": {"pk": {"S": "a"}, "sk": {"S": "2"}}}}]})
    assert "ItemCollectionMetrics" not in r
    r = ddb.batch_write_item(RequestItems={table_s: [{"PutRequest": {"Item": {"pk": {"S": "c"}}}}]},
                             ReturnItemCollectionMetrics="SIZE")
    assert "ItemCollectionMetrics" not in r
    expect_error(lambda: ddb.batch_write_item(
        RequestItems={table_s: [{"PutRequest": {"Item": {"pk": {"S": "c"}}}}]},
        ReturnItemCollectionMetrics="BAD"),
        "ValidationException",
        "1 validation error detected: Value 'BAD' at 'returnItemCollectionMetrics' failed to "
        "satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]")


def test_transact_write_item_collection_metrics(ddb, lsi_table, table_s):
    r = ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": lsi_table, "Item": {"pk": {"S": "a"}, "sk": {"S": "1"}}}},
        {"Update": {"TableName": lsi_table, "Key": {"pk": {"S": "b"}, "sk": {"S": "1"}},
                    "UpdateExpression": "SET x = :v",
                    "ExpressionAttributeValues": {":v": {"N": "1"}}}},
        {"ConditionCheck": {"TableName": lsi_table, "Key": {"pk": {"S": "c"}, "sk": {"S": "1"}},
                            "ConditionExpression": "attribute_not_exists(pk)"}},
        {"Put": {"TableName": table_s, "Item": {"pk": {"S": "a"}}}}],
        ReturnItemCollectionMetrics="SIZE")
    assert r["ItemCollectionMetrics"] == {lsi_table: [_metrics("a"), _metrics("b")]}
    r = ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": lsi_table, "Item": {"pk": {"S": "a"}, "sk": {"S": "2"}}}}])
    assert "ItemCollectionMetrics" not in r


# --------------------------------------------------------------------------
# WarmThroughput: configured by CreateTable/UpdateTable, reported by DescribeTable
# --------------------------------------------------------------------------

def _warm(raw, table):
    # Raw DescribeTable: the installed botocore predates WarmThroughput and drops it.
    return raw("DescribeTable", {"TableName": table}).json()["Table"]["WarmThroughput"]


def test_warm_throughput_round_trip(ddb, raw):
    name = unique_name()
    r = raw("CreateTable", {
        "TableName": name, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "WarmThroughput": {"ReadUnitsPerSecond": 12240, "WriteUnitsPerSecond": 4080}})
    try:
        assert r.status == 200
        assert r.json()["TableDescription"]["WarmThroughput"]["ReadUnitsPerSecond"] == 12240
        assert _warm(raw, name) == {"ReadUnitsPerSecond": 12240, "WriteUnitsPerSecond": 4080,
                                    "Status": "ACTIVE"}
        # An UpdateTable with nothing but WarmThroughput is a valid request; a unit left out
        # keeps its value.
        r = raw("UpdateTable", {"TableName": name,
                                "WarmThroughput": {"ReadUnitsPerSecond": 13000}})
        assert r.status == 200
        assert _warm(raw, name) == {"ReadUnitsPerSecond": 13000, "WriteUnitsPerSecond": 4080,
                                    "Status": "ACTIVE"}
        r = raw("UpdateTable", {"TableName": name,
                                "WarmThroughput": {"WriteUnitsPerSecond": 0}})
        assert r.status == 400
        assert r.json()["message"] == (
            "1 validation error detected: Value '0' at 'warmThroughput.writeUnitsPerSecond' "
            "failed to satisfy constraint: Member must have value greater than or equal to 1")
        r = raw("UpdateTable", {"TableName": name, "AttributeDefinitions": _defs("x"),
                                "GlobalSecondaryIndexUpdates": [_create("gsix", "x")],
                                "WarmThroughput": {"ReadUnitsPerSecond": 14000}})
        assert r.status == 400
        assert r.json()["message"] == ("Create global secondary index cannot be specified when "
                                       "updating WarmThroughput")
    finally:
        ddb.delete_table(TableName=name)


def test_warm_throughput_baseline(ddb, raw, table_s, table_factory):
    # An on-demand table or index that never configured one reports the baseline.
    assert _warm(raw, table_s) == {"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000,
                                   "Status": "ACTIVE"}
    ddb.update_table(TableName=table_s, AttributeDefinitions=_defs("x"),
                     GlobalSecondaryIndexUpdates=[_create("gsix", "x")])
    index = raw("DescribeTable", {"TableName": table_s}).json()["Table"][
        "GlobalSecondaryIndexes"][0]
    assert index["WarmThroughput"]["ReadUnitsPerSecond"] == 12000
    assert index["WarmThroughput"]["WriteUnitsPerSecond"] == 4000


def test_warm_throughput_follows_provisioned_capacity(ddb, raw, table_factory):
    # A provisioned table is warm to the highest capacity it was ever provisioned with.
    table = table_factory(ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    assert _warm(raw, table) == {"ReadUnitsPerSecond": 1, "WriteUnitsPerSecond": 1,
                                 "Status": "ACTIVE"}
    ddb.update_table(TableName=table, ProvisionedThroughput={"ReadCapacityUnits": 3,
                                                             "WriteCapacityUnits": 3})
    ddb.update_table(TableName=table, ProvisionedThroughput={"ReadCapacityUnits": 1,
                                                             "WriteCapacityUnits": 1})
    assert _warm(raw, table)["ReadUnitsPerSecond"] == 3
    assert _warm(raw, table)["WriteUnitsPerSecond"] == 3
    r = raw("UpdateTable", {"TableName": table,
                            "WarmThroughput": {"ReadUnitsPerSecond": 2}})
    assert r.status == 400
    assert r.json()["message"] == (
        "Requested ReadUnitsPerSecond for WarmThroughput for table is lower than current "
        "WarmThroughput, decreasing WarmThroughput is not supported")
    # Equal is accepted, higher raises it.
    assert raw("UpdateTable", {"TableName": table, "WarmThroughput": {
        "ReadUnitsPerSecond": 3, "WriteUnitsPerSecond": 50}}).status == 200
    assert _warm(raw, table)["WriteUnitsPerSecond"] == 50
    # Becoming on demand warms it to the baseline, which it keeps when provisioned again.
    ddb.update_table(TableName=table, BillingMode="PAY_PER_REQUEST")
    assert _warm(raw, table)["ReadUnitsPerSecond"] == 12000
    ddb.update_table(TableName=table, BillingMode="PROVISIONED",
                     ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    assert _warm(raw, table) == {"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000,
                                 "Status": "ACTIVE"}


def test_warm_throughput_survives_restart(tmp_path):
    import http.client

    from conftest import ServerProcess, make_client, raw_post
    data_dir = tmp_path / "data"
    data_dir.mkdir()

    def call(srv, op, body):
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
        try:
            return raw_post(conn, srv.endpoint, "DynamoDB_20120810." + op, body)
        finally:
            conn.close()

    srv = ServerProcess("--data-dir", str(data_dir), log_dir=str(tmp_path)).start()
    try:
        c = make_client(srv.endpoint)
        c.create_table(TableName="warm-restart", BillingMode="PAY_PER_REQUEST",
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
        warm = {"ReadUnitsPerSecond": 15000, "WriteUnitsPerSecond": 5000}
        r = call(srv, "UpdateTable", {"TableName": "warm-restart", "WarmThroughput": warm})
        assert r.status == 200
    finally:
        srv.stop_and_check()
    srv = ServerProcess("--data-dir", str(data_dir), log_dir=str(tmp_path)).start()
    try:
        got = _warm(lambda op, body: call(srv, op, body), "warm-restart")
        assert got == {"ReadUnitsPerSecond": 15000, "WriteUnitsPerSecond": 5000,
                       "Status": "ACTIVE"}
    finally:
        srv.stop_and_check()


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
# BillingModeSummary: LastUpdateToPayPerRequestDateTime is when the table became on-demand
# --------------------------------------------------------------------------

def test_last_update_to_pay_per_request(ddb, table_factory):
    import time
    table = table_factory(ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    created = ddb.describe_table(TableName=table)["Table"]
    assert "BillingModeSummary" not in created  # never on-demand: no summary
    time.sleep(0.05)
    ddb.update_table(TableName=table, BillingMode="PAY_PER_REQUEST")
    summary = ddb.describe_table(TableName=table)["Table"]["BillingModeSummary"]
    assert summary["BillingMode"] == "PAY_PER_REQUEST"
    assert summary["LastUpdateToPayPerRequestDateTime"] > created["CreationDateTime"]
    # A table created on-demand has it at its creation time.
    other = ddb.describe_table(TableName=table_factory())["Table"]
    assert other["BillingModeSummary"]["LastUpdateToPayPerRequestDateTime"] == \
        other["CreationDateTime"]


# --------------------------------------------------------------------------
# UpdateTable re-sending the current billing mode or throughput
# --------------------------------------------------------------------------

def test_update_table_unchanged_throughput(ddb, table_factory):
    table = table_factory(ProvisionedThroughput={"ReadCapacityUnits": 2, "WriteCapacityUnits": 3})
    same = ("The provisioned throughput for the table will not change. The requested value "
            "equals the current value. Current ReadCapacityUnits provisioned for the table: 2. "
            "Requested ReadCapacityUnits: 2. Current WriteCapacityUnits provisioned for the "
            "table: 3. Requested WriteCapacityUnits: 3. Refer to the Amazon DynamoDB Developer "
            "Guide for current limits and how to request higher limits.")
    pt = {"ReadCapacityUnits": 2, "WriteCapacityUnits": 3}
    expect_error(lambda: ddb.update_table(TableName=table, ProvisionedThroughput=pt),
                 "ValidationException", same)
    expect_error(lambda: ddb.update_table(TableName=table, BillingMode="PROVISIONED",
                                          ProvisionedThroughput=pt),
                 "ValidationException", same)
    expect_error(lambda: ddb.update_table(TableName=table, BillingMode="PROVISIONED"),
                 "ValidationException",
                 "One or more parameter values were invalid: ProvisionedThroughput must be "
                 "specified when BillingMode is PROVISIONED")
    # A change of one unit is a change.
    ddb.update_table(TableName=table, ProvisionedThroughput={"ReadCapacityUnits": 2,
                                                             "WriteCapacityUnits": 4})
    # Re-sending PAY_PER_REQUEST to an on-demand table is accepted.
    on_demand = table_factory()
    ddb.update_table(TableName=on_demand, BillingMode="PAY_PER_REQUEST")


# --------------------------------------------------------------------------
# OnDemandThroughput: members merge, -1 clears one, 0 and below -1 are refused
# --------------------------------------------------------------------------

def test_on_demand_throughput_members(raw, table_s):
    # Raw requests: the installed botocore predates OnDemandThroughput.
    def update(odt):
        return raw("UpdateTable", {"TableName": table_s, "OnDemandThroughput": odt})

    def described():
        return raw("DescribeTable", {"TableName": table_s}).json()["Table"].get(
            "OnDemandThroughput")

    assert update({"MaxReadRequestUnits": 1000, "MaxWriteRequestUnits": 500}).status == 200
    assert described() == {"MaxReadRequestUnits": 1000, "MaxWriteRequestUnits": 500}
    assert update({"MaxReadRequestUnits": 2000}).status == 200
    assert described() == {"MaxReadRequestUnits": 2000, "MaxWriteRequestUnits": 500}
    for member in ("MaxReadRequestUnits", "MaxWriteRequestUnits"):
        for bad in (0, -2):
            r = update({member: bad})
            assert r.status == 400
            assert r.json()["message"] == (
                f"One or more parameter values were invalid: Requested {member} for "
                "OnDemandThroughput for table is outside of valid range")
    assert described() == {"MaxReadRequestUnits": 2000, "MaxWriteRequestUnits": 500}
    assert update({"MaxWriteRequestUnits": -1}).status == 200
    assert described() == {"MaxReadRequestUnits": 2000}
    assert update({"MaxReadRequestUnits": -1}).status == 200
    assert described() is None


# --------------------------------------------------------------------------
# SSESpecification / SSEDescription
# --------------------------------------------------------------------------

KMS_PREFIX = "arn:aws:kms:us-east-1:000000000000:"


def _sse(ddb, table):
    return ddb.describe_table(TableName=table)["Table"].get("SSEDescription")


def test_sse_specification_at_creation(ddb, table_factory):
    default = table_factory(SSESpecification={"Enabled": False})
    assert _sse(ddb, default) is None
    kms = table_factory(SSESpecification={"Enabled": True})
    got = _sse(ddb, kms)
    assert got["Status"] == "ENABLED" and got["SSEType"] == "KMS"
    assert got["KMSMasterKeyArn"].startswith(KMS_PREFIX + "key/")
    own_key = KMS_PREFIX + "key/1234abcd-12ab-34cd-56ef-1234567890ab"
    named = table_factory(SSESpecification={"Enabled": True, "SSEType": "KMS",
                                            "KMSMasterKeyId": own_key})
    assert _sse(ddb, named)["KMSMasterKeyArn"] == own_key
    by_id = table_factory(SSESpecification={"SSEType": "KMS", "KMSMasterKeyId": "abcd"})
    assert _sse(ddb, by_id)["KMSMasterKeyArn"] == KMS_PREFIX + "key/abcd"
    expect_error(lambda: table_factory(SSESpecification={"Enabled": True, "SSEType": "XYZ"}),
                 "ValidationException",
                 "1 validation error detected: Value 'XYZ' at 'sSESpecification.sSEType' failed "
                 "to satisfy constraint: Member must satisfy enum value set: [AES256, KMS]")


def test_sse_specification_update(ddb, table_s):
    expect_error(lambda: ddb.update_table(TableName=table_s, SSESpecification={"Enabled": False}),
                 "ValidationException",
                 "One or more parameter values were invalid: Table is already encrypted by default")
    ddb.update_table(TableName=table_s, SSESpecification={"Enabled": True, "SSEType": "KMS"})
    assert _sse(ddb, table_s)["SSEType"] == "KMS"
    ddb.update_table(TableName=table_s, SSESpecification={"Enabled": False})
    assert _sse(ddb, table_s) is None
    expect_error(lambda: ddb.update_table(
        TableName=table_s, AttributeDefinitions=_defs("x"),
        GlobalSecondaryIndexUpdates=[_create("gsix", "x")], SSESpecification={"Enabled": True}),
        "ValidationException",
        "Server-Side Encryption modification must be the only operation in the request")


# --------------------------------------------------------------------------
# AttributeDefinitions: described sorted by name, only key attributes kept
# --------------------------------------------------------------------------

def test_attribute_definitions_sorted_and_pruned(ddb, table_factory):
    table = table_factory(
        ("zz", "S"), ("mm", "N"),
        AttributeDefinitions=[{"AttributeName": "zz", "AttributeType": "S"},
                              {"AttributeName": "mm", "AttributeType": "N"},
                              {"AttributeName": "aa", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_aa", "KeySchema": [
            {"AttributeName": "aa", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["q", "b", "k"]}}])

    def described():
        return ddb.describe_table(TableName=table)["Table"]

    desc = described()
    assert [a["AttributeName"] for a in desc["AttributeDefinitions"]] == ["aa", "mm", "zz"]
    assert desc["GlobalSecondaryIndexes"][0]["Projection"]["NonKeyAttributes"] == ["b", "k", "q"]
    # A new index's definition is added; an unused one and a conflicting redefinition of an
    # existing attribute are ignored.
    ddb.update_table(TableName=table,
                     AttributeDefinitions=[{"AttributeName": "bb", "AttributeType": "S"},
                                           {"AttributeName": "unused", "AttributeType": "S"},
                                           {"AttributeName": "zz", "AttributeType": "N"}],
                     GlobalSecondaryIndexUpdates=[_create("by_bb", "bb")])
    assert described()["AttributeDefinitions"] == [
        {"AttributeName": "aa", "AttributeType": "S"}, {"AttributeName": "bb", "AttributeType": "S"},
        {"AttributeName": "mm", "AttributeType": "N"}, {"AttributeName": "zz", "AttributeType": "S"}]
    # Deleting an index drops its key's definition.
    ddb.update_table(TableName=table, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "by_aa"}}])
    assert [a["AttributeName"] for a in described()["AttributeDefinitions"]] == ["bb", "mm", "zz"]


def test_gsi_update_unchanged_throughput(ddb, table_factory):
    pt = {"ReadCapacityUnits": 2, "WriteCapacityUnits": 2}
    table = table_factory(
        ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "x", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "gsi1", "KeySchema": [
            {"AttributeName": "x", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"},
            "ProvisionedThroughput": pt}])
    expect_error(lambda: ddb.update_table(TableName=table, GlobalSecondaryIndexUpdates=[
        {"Update": {"IndexName": "gsi1", "ProvisionedThroughput": pt}}]),
        "ValidationException",
        "The provisioned throughput for the index gsi1 will not change. The requested value "
        "equals the current value. Current ReadCapacityUnits provisioned for index gsi1: 2. "
        "Requested ReadCapacityUnits: 2. Current WriteCapacityUnits provisioned for index gsi1: "
        "2. Requested WriteCapacityUnits: 2. Refer to the Amazon DynamoDB Developer Guide for "
        "current limits and how to request higher limits.")
    ddb.update_table(TableName=table, GlobalSecondaryIndexUpdates=[
        {"Update": {"IndexName": "gsi1", "ProvisionedThroughput": {"ReadCapacityUnits": 2,
                                                                    "WriteCapacityUnits": 3}}}])


def test_create_table_empty_index_lists(ddb):
    for member in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        name = unique_name()
        expect_error(lambda: ddb.create_table(
            TableName=name, BillingMode="PAY_PER_REQUEST", **{member: []},
            KeySchema=[{"AttributeName": "p", "KeyType": "HASH"},
                       {"AttributeName": "c", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"},
                                  {"AttributeName": "c", "AttributeType": "S"}]),
            "ValidationException",
            f"One or more parameter values were invalid: List of {member} is empty")
        assert name not in ddb.list_tables()["TableNames"]


def test_twenty_first_gsi_by_update_table(ddb, table_factory):
    names = [f"a{i}" for i in range(21)]
    table = table_factory(
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"}
                              for n in ["pk"] + names[:20]],
        GlobalSecondaryIndexes=[{"IndexName": f"gsi{i:02d}", "KeySchema": [
            {"AttributeName": names[i], "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}} for i in range(20)])
    expect_error(lambda: ddb.update_table(
        TableName=table, AttributeDefinitions=_defs("a20"),
        GlobalSecondaryIndexUpdates=[_create("gsi20", "a20")]),
        "LimitExceededException",
        "Subscriber limit exceeded: Number of global secondary indexes exceeds per-table limit "
        "of 20")
    assert len(_index_names(ddb, table)) == 20


def test_index_definition_errors(ddb, table_s):
    base = dict(BillingMode="PAY_PER_REQUEST", KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"},
                                      {"AttributeName": "x", "AttributeType": "S"}])

    def create(projection):
        return ddb.create_table(TableName=unique_name(), **base, GlobalSecondaryIndexes=[{
            "IndexName": "gsix", "KeySchema": [{"AttributeName": "x", "KeyType": "HASH"}],
            "Projection": projection}])

    expect_error(lambda: create({}), "ValidationException", "Unknown ProjectionType: null")
    names = [f"n{i}" for i in range(21)]
    expect_error(lambda: create({"ProjectionType": "INCLUDE", "NonKeyAttributes": names}),
                 "ValidationException",
                 "1 validation error detected: Value '[" + ", ".join(names) + "]' at "
                 "'globalSecondaryIndexes.1.member.projection.nonKeyAttributes' failed to satisfy "
                 "constraint: Member must have length less than or equal to 20")
    expect_error(lambda: ddb.update_table(TableName=table_s,
                                          GlobalSecondaryIndexUpdates=[_create("gsix", "x")]),
                 "ValidationException", "AttributeDefinitions is not specified for index: gsix")
    expect_error(lambda: ddb.update_table(TableName=table_s, GlobalSecondaryIndexUpdates=[],
                                          BillingMode="PAY_PER_REQUEST"),
                 "ValidationException",
                 "One or more parameter values were invalid: List of GlobalSecondaryIndexUpdates "
                 "is empty")


def test_on_demand_throughput_on_provisioned_table_is_refused(raw):
    name = unique_name()
    body = {"TableName": name, "BillingMode": "PROVISIONED",
            "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
            "KeySchema": [{"AttributeName": "p", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "p", "AttributeType": "S"}]}
    for member in ("MaxReadRequestUnits", "MaxWriteRequestUnits"):
        r = raw("CreateTable", {**body, "OnDemandThroughput": {member: 10}})
        assert r.status == 400
        assert r.json()["message"] == (f"{member} for OnDemandThroughput cannot be specified "
                                       "when table BillingMode is PROVISIONED.")
    assert raw("DescribeTable", {"TableName": name}).status == 400
