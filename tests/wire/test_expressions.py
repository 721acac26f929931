"""Rules every expression follows, whatever its kind: the 4 KB size limit, the 300-operator
limit, ExpressionAttributeNames entries, and the order of checks (the request's
expressions before its tables, keys and items).

The tests come from the conformance sweep (behaviours found missing in a sweep against a
DynamoDB behaviour checklist), the service's edges on record (scylla's alternator suite in
AWS mode) and DynamoDB as it answers in 2026 (the service's answers as captured against AWS
in 2026); each section says which.
"""

import pytest

from conftest import expect_error


VE = "ValidationException"

ENVELOPE = "1 validation error detected: "


def S(x):
    return {"S": x}


# --------------------------------------------------------------------------
# Expressions are at most 4096 bytes, counted as sent
# (from the conformance sweep: behaviours found missing in a sweep against a DynamoDB
# behaviour checklist; was test_conformance_sweep.py)
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
# (from the conformance sweep: behaviours found missing in a sweep against a DynamoDB
# behaviour checklist; was test_conformance_sweep.py)
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
# Unused placeholders in the validation envelope
# (from DynamoDB as it answers in 2026: the service's answers as captured against AWS in
# 2026; was test_service_2026.py. Issue 14's examples)
# --------------------------------------------------------------------------

def test_unused_placeholders(ddb, table_s):
    expect_error(lambda: ddb.put_item(
        TableName=table_s, Item={"pk": {"S": "k"}}, ConditionExpression="attribute_exists(pk)",
        ExpressionAttributeNames={"#x": "x"}),
        VE, ENVELOPE + "Value provided in ExpressionAttributeNames unused in expressions: "
        "keys: {#x}")
    expect_error(lambda: ddb.get_item(
        TableName=table_s, Key={"pk": {"S": "k"}}, ProjectionExpression="pk",
        ExpressionAttributeNames={"#x": "x", "#y": "y"}),
        VE, ENVELOPE + "Value provided in ExpressionAttributeNames unused in expressions: "
        "keys: {#x, #y}")


# --------------------------------------------------------------------------
# The operator limit of expressions
# (from the service's edges on record: scylla's alternator suite in AWS mode; was
# test_service_edges.py)
# --------------------------------------------------------------------------

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


# --------------------------------------------------------------------------
# Order of checks: the request's expressions before its tables, keys and items
# (from DynamoDB as it answers in 2026: the service's answers as captured against AWS in
# 2026; was test_service_2026.py)
# --------------------------------------------------------------------------

BARE_UNUSED_NAME = "Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}"
# Enveloped everywhere but on Query and TransactWriteItems (nubo-db/dynamodb-conformance's
# tier-3 record of the service, 2026).
UNUSED_NAME = ENVELOPE + BARE_UNUSED_NAME


def test_transaction_update_on_a_wrong_key_reports_the_unused_name(ddb, table_s):
    expect_error(lambda: ddb.transact_write_items(TransactItems=[{"Update": {
        "TableName": table_s, "Key": {"nope": {"S": "a"}}, "UpdateExpression": "SET a = :v",
        "ExpressionAttributeValues": {":v": {"S": "x"}},
        "ExpressionAttributeNames": {"#x": "x"}}}]), VE, BARE_UNUSED_NAME)


def test_missing_table_with_an_unused_name_is_a_validation_error(ddb):
    expect_error(lambda: ddb.batch_get_item(RequestItems={"no_such_table_2026": {
        "Keys": [{"pk": {"S": "a"}}], "ProjectionExpression": "pk",
        "ExpressionAttributeNames": {"#x": "x"}}}), VE, UNUSED_NAME)
    for call in (
        lambda: ddb.get_item(TableName="no_such_table_2026", Key={"pk": {"S": "a"}},
                             ProjectionExpression="pk", ExpressionAttributeNames={"#x": "x"}),
        lambda: ddb.put_item(TableName="no_such_table_2026", Item={"pk": {"S": "a"}},
                             ConditionExpression="attribute_exists(pk)",
                             ExpressionAttributeNames={"#x": "x"}),
        lambda: ddb.delete_item(TableName="no_such_table_2026", Key={"pk": {"S": "a"}},
                                ConditionExpression="attribute_exists(pk)",
                                ExpressionAttributeNames={"#x": "x"}),
    ):
        expect_error(call, VE, UNUSED_NAME)


def test_wrong_key_with_a_syntax_error_reports_the_syntax_error(ddb, table_s):
    expect_error(lambda: ddb.update_item(TableName=table_s, Key={"nope": {"S": "a"}},
                                         UpdateExpression="SET = :v",
                                         ExpressionAttributeValues={":v": {"S": "x"}}),
                 VE, match=r"^1 validation error detected: Invalid UpdateExpression: Syntax error")
