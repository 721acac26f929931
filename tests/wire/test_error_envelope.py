"""The error envelope as the service writes it: the `__type` namespace of each error type and
its message member (issue 31, item 1; protocol/handler.cc, EnvelopeOf).

Sources:
- dynalite's test/connection.js pins the service's exact bodies by their CRC32 (recorded from
  DynamoDB): UnknownOperationException 1368724161, MissingAuthenticationTokenException
  2088342776 ("Request is missing Authentication Token"); SerializationException and the
  others in com.amazon.coral.service.
- Captures of DynamoDB's AccessDeniedException: {"__type":
  "com.amazon.coral.service#AccessDeniedException","Message":"User: arn:aws:iam::...:user/...
  is not authorized to perform: dynamodb:GetItem on resource: ..."} (capital M).
- ValidationException: "com.amazon.coral.validate#ValidationException" with "message";
  ThrottlingException is com.amazon.coral.availability (ddb does not answer it);
  DynamoDB's own errors (ResourceNotFoundException, ConditionalCheckFailedException, ...)
  keep "com.amazonaws.dynamodb.v20120810#" (client libraries retry on
  "com.amazonaws.dynamodb.v20120810#LimitExceededException" by that full name).
"""

import zlib

from conftest import ERROR_TYPE_PREFIX, TARGET_PREFIX, unique_name


def _body(resp):
    return resp.json()


def test_unknown_operation_is_the_services_exact_body(raw):
    resp = raw(TARGET_PREFIX + "NoSuchOperation", {})
    assert resp.status == 400
    assert resp.body == b'{"__type":"com.amazon.coral.service#UnknownOperationException"}'
    assert zlib.crc32(resp.body) == 1368724161


def test_missing_authentication_token_is_the_services_exact_body(raw):
    resp = raw("ListTables", {}, sign=False)
    assert resp.status == 400
    assert zlib.crc32(resp.body) == 2088342776, resp.body


def test_validation_exception_namespace(raw):
    resp = raw("ListTables", {"Limit": 0})
    assert resp.status == 400
    body = _body(resp)
    assert body["__type"] == "com.amazon.coral.validate#ValidationException"
    assert body["message"]
    assert "Message" not in body


def test_serialization_exception_namespace_and_capital_message(raw):
    resp = raw("DescribeTable", {"TableName": 5})
    assert resp.status == 400
    body = _body(resp)
    assert body["__type"] == "com.amazon.coral.service#SerializationException"
    assert body["Message"]
    assert "message" not in body


def test_serialization_exception_for_a_body_that_is_not_json(raw):
    resp = raw("DescribeTable", b"this is not json")
    assert resp.status == 400
    body = _body(resp)
    assert body["__type"] == "com.amazon.coral.service#SerializationException"
    assert "message" not in body


def test_dynamodb_errors_keep_the_dynamodb_namespace(raw, table_s):
    name = unique_name("nosuch")
    resp = raw("DescribeTable", {"TableName": name})
    assert _body(resp)["__type"] == ERROR_TYPE_PREFIX + "ResourceNotFoundException"
    assert _body(resp)["message"] == f"Requested resource not found: Table: {name} not found"

    resp = raw("PutItem", {"TableName": table_s, "Item": {"pk": {"S": "a"}},
                           "ConditionExpression": "attribute_exists(pk)"})
    assert _body(resp)["__type"] == ERROR_TYPE_PREFIX + "ConditionalCheckFailedException"
    assert _body(resp)["message"] == "The conditional request failed"
