"""DynamoDB as it answers in 2026: the request-validation envelope ("1 validation error
detected: ...") on the answers that carry it and its absence where the service still
answers bare, messages in their expression's frame, and table ARNs in batches and
transactions.

Sources (the service's answers as captured against AWS in 2026): issue 14's examples;
Select rejections (nubo-db/dynamodb-conformance tier 3: Query and Scan alike); an empty set in
ExpressionAttributeValues (ministack issue #1038); a key condition's one-condition-per-key
rule (aws-amplify/amplify-category-api#3531).
"""
import pytest

from conftest import expect_error

VE = "ValidationException"
ENVELOPE = "1 validation error detected: "


@pytest.mark.parametrize("section,expression,values", [
    ("SET", "SET a = :v SET b = :v", {":v": {"N": "1"}}),
    ("REMOVE", "REMOVE a REMOVE b", None),
    ("ADD", "ADD x :v SET a = :v ADD y :v", {":v": {"N": "1"}}),
    ("DELETE", "DELETE a :s DELETE b :s", {":s": {"SS": ["x"]}}),
])
def test_repeated_update_section(ddb, table_s, section, expression, values):
    kwargs = {"ExpressionAttributeValues": values} if values else {}
    expect_error(lambda: ddb.update_item(TableName=table_s, Key={"pk": {"S": "k"}},
                                         UpdateExpression=expression, **kwargs),
                 VE, ENVELOPE + 'Invalid UpdateExpression: The "' + section +
                 '" section can only be used once in an update expression;')


def test_overlapping_update_paths(ddb, table_s):
    expect_error(lambda: ddb.update_item(
        TableName=table_s, Key={"pk": {"S": "k"}},
        UpdateExpression="ADD string_set :s DELETE string_set :s",
        ExpressionAttributeValues={":s": {"SS": ["x"]}}),
        VE, ENVELOPE + "Invalid UpdateExpression: Two document paths overlap with each other; "
        "must remove or rewrite one of these paths; path one: [string_set], "
        "path two: [string_set]")


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


def test_empty_set_in_an_item_and_in_a_value(ddb, table_s):
    message = (ENVELOPE + "One or more parameter values were invalid: "
               "An string set  may not be empty")
    expect_error(lambda: ddb.put_item(TableName=table_s,
                                      Item={"pk": {"S": "k"}, "s": {"SS": []}}), VE, message)
    expect_error(lambda: ddb.update_item(TableName=table_s, Key={"pk": {"S": "k"}},
                                         UpdateExpression="SET a = :v",
                                         ExpressionAttributeValues={":v": {"SS": []}}),
                 VE, message)


@pytest.mark.parametrize("select,extra,message", [
    ("COUNT", {"ProjectionExpression": "pk"},
     "Cannot specify the ProjectionExpression when choosing to get only the Count"),
    ("ALL_ATTRIBUTES", {"ProjectionExpression": "pk"},
     "Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES"),
    ("SPECIFIC_ATTRIBUTES", {},
     "Must specify the AttributesToGet or ProjectionExpression when choosing to get "
     "SPECIFIC_ATTRIBUTES"),
])
def test_select_rejections_carry_the_envelope(ddb, table_s, select, extra, message):
    expect_error(lambda: ddb.query(TableName=table_s, KeyConditionExpression="pk = :p",
                                   ExpressionAttributeValues={":p": {"S": "k"}},
                                   Select=select, **extra),
                 VE, ENVELOPE + message)
    expect_error(lambda: ddb.scan(TableName=table_s, Select=select, **extra), VE, ENVELOPE + message)


# --- Messages in the frame the service answers them in (2026) ---

def test_key_condition_rules_are_framed(ddb, table_factory):
    t = table_factory(("pk", "S"), ("sk", "S"))
    expect_error(lambda: ddb.query(TableName=t, KeyConditionExpression="pk = sk"),
                 VE, "Invalid KeyConditionExpression: Invalid condition in KeyConditionExpression: "
                 "Multiple attribute names used in one condition")


def test_partiql_unknown_index_names_no_index(ddb, table_s):
    expect_error(lambda: ddb.execute_statement(
        Statement=f'SELECT * FROM "{table_s}"."nope" WHERE pk = \'a\''),
        VE, "The table does not have the specified index")
    # Query's and Scan's answer names it.
    expect_error(lambda: ddb.scan(TableName=table_s, IndexName="nope"),
                 VE, "The table does not have the specified index: nope")


# --- Table ARNs wherever a table name goes ---

def test_table_arns_in_batches_and_transactions(ddb, table_s):
    arn = ddb.describe_table(TableName=table_s)["Table"]["TableArn"]
    ddb.batch_write_item(RequestItems={arn: [{"PutRequest": {"Item": {"pk": {"S": "a"}}}}]})
    got = ddb.batch_get_item(RequestItems={arn: {"Keys": [{"pk": {"S": "a"}}]}})
    assert got["Responses"] == {arn: [{"pk": {"S": "a"}}]}  # keyed as requested
    ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": arn, "Item": {"pk": {"S": "b"}}}}])
    got = ddb.transact_get_items(TransactItems=[
        {"Get": {"TableName": arn, "Key": {"pk": {"S": "b"}}}}])
    assert got["Responses"] == [{"Item": {"pk": {"S": "b"}}}]
    assert ddb.get_item(TableName=table_s, Key={"pk": {"S": "b"}})["Item"] == {"pk": {"S": "b"}}


# --- Order of checks: the request's expressions before its tables, keys and items ---

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


# --- HTTP: compressed responses and request bodies ---

def _big_scan(raw, table, accept):
    headers = {"Accept-Encoding": accept} if accept is not None else {}
    return raw("Scan", {"TableName": table}, extra_headers=headers)


@pytest.fixture
def big_table(ddb, table_s):
    for b in range(4):
        ddb.batch_write_item(RequestItems={table_s: [
            {"PutRequest": {"Item": {"pk": {"S": f"k{b}-{i}"}, "v": {"S": "x" * 200}}}}
            for i in range(25)]})
    return table_s


@pytest.mark.parametrize("accept,coding", [
    ("gzip", "gzip"), ("deflate", "deflate"), ("gzip;q=0.4, deflate;q=0.9", "deflate"),
    ("*", "gzip"), ("identity", None), ("gzip;q=0", None), (None, None), ("br", None),
    # Where the service departs from RFC 9110 (alternator's test_compressed_response records
    # its answers): identity and x-gzip are ignored, ties go to the first listed, weights
    # are clamped, a coding's best weight counts.
    ("x-gzip", None), ("br, identity, deflate, gzip", "deflate"), ("*, deflate", "deflate"),
    ("gzip;q=0.5,identity;q=0.8", "gzip"), ("gzip;q=31,deflate;q=51", "gzip"),
    ("gzip;q=0, gzip;q=1, gzip;q=0", "gzip"), ("deflate;q=0.5,gzip;q=0.x", "gzip"),
])
def test_large_responses_are_compressed_as_accepted(raw, big_table, accept, coding):
    import json
    import zlib
    r = _big_scan(raw, big_table, accept)
    assert r.status == 200
    assert r.headers.get("Content-Encoding") == coding
    body = r.body
    # x-amz-crc32 is of the bytes on the wire.
    assert int(r.headers["x-amz-crc32"]) == zlib.crc32(body)
    if coding == "gzip":
        body = zlib.decompress(body, 16 + zlib.MAX_WBITS)
    elif coding == "deflate":
        body = zlib.decompress(body)
    assert len(body) > 4096
    assert json.loads(body)["Count"] == 100


def test_small_responses_are_not_compressed(raw, table_s):
    r = raw("DescribeTable", {"TableName": table_s}, extra_headers={"Accept-Encoding": "gzip"})
    assert r.status == 200 and "Content-Encoding" not in r.headers


def test_deflate_request_bodies(ddb, raw, table_s):
    import json
    import zlib
    body = json.dumps({"TableName": table_s, "Item": {"pk": {"S": "d1"}}}).encode()
    r = raw("PutItem", zlib.compress(body), extra_headers={"Content-Encoding": "deflate"})
    assert r.status == 200
    raw_deflate = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    body2 = json.dumps({"TableName": table_s, "Item": {"pk": {"S": "d2"}}}).encode()
    r = raw("PutItem", raw_deflate.compress(body2) + raw_deflate.flush(),
            extra_headers={"Content-Encoding": "deflate"})
    assert r.status == 200
    for pk in ("d1", "d2"):
        assert ddb.get_item(TableName=table_s, Key={"pk": {"S": pk}})["Item"] == {"pk": {"S": pk}}


# --- Batches without RequestItems ---

@pytest.mark.parametrize("op,body,message", [
    ("BatchWriteItem", {}, "The requestItems parameter is required for BatchWriteItem"),
    ("BatchWriteItem", {"RequestItems": {}, "ReturnConsumedCapacity": "hi"},
     "The requestItems parameter is required for BatchWriteItem"),
    ("BatchGetItem", {}, "The requestItems parameter is required for BatchGetItem"),
    ("BatchGetItem", {"RequestItems": {}},
     ENVELOPE + "Value at 'RequestItems' failed to satisfy constraint: Member must have length "
     "greater than or equal to 1"),
])
def test_batches_without_request_items(raw, op, body, message):
    r = raw(op, body)
    assert r.status == 400
    assert r.json()["__type"].endswith("#ValidationException")
    assert r.json()["message"] == message


# --- Legacy KeyConditions on a multi-attribute GSI key ---

def test_key_conditions_on_a_multi_attribute_gsi_key(ddb, table_factory):
    t = table_factory(("pk", "S"), AttributeDefinitions=[
        {"AttributeName": n, "AttributeType": ty}
        for n, ty in (("pk", "S"), ("tenant", "S"), ("region", "S"), ("ts", "N"))],
        GlobalSecondaryIndexes=[{
            "IndexName": "by_tenant_region",
            "KeySchema": [{"AttributeName": "tenant", "KeyType": "HASH"},
                          {"AttributeName": "region", "KeyType": "HASH"},
                          {"AttributeName": "ts", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}}])
    for i in range(6):
        ddb.put_item(TableName=t, Item={"pk": {"S": f"p{i}"}, "tenant": {"S": "t1"},
                                        "region": {"S": "eu" if i % 2 else "us"},
                                        "ts": {"N": str(i)}})
    got = ddb.query(TableName=t, IndexName="by_tenant_region", KeyConditions={
        "tenant": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "t1"}]},
        "region": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "eu"}]},
        "ts": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "1"}]}})["Items"]
    assert [i["ts"]["N"] for i in got] == ["3", "5"]
    # A table's classic key still takes one or two.
    expect_error(lambda: ddb.query(TableName=t, KeyConditions={
        "pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p1"}]},
        "tenant": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "t1"}]},
        "ts": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "1"}]}}),
        VE, "Conditions can be of length 1 or 2 only")
