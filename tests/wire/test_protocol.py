"""Protocol-level tests (raw HTTP): framing, headers, error envelope, keep-alive."""

import email.utils
import http.client
import json
import re
import time
import zlib

import pytest

from conftest import (ERROR_TYPE_PREFIX, TARGET_PREFIX, raw_post, unique_name)


def _conn(server):
    return http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)


def _error_type(resp):
    body = resp.json()
    assert "__type" in body, f"error body has no __type: {body!r}"
    return body["__type"], body


def _error_message(body):
    # DynamoDB uses "message" for most errors ("Message" for a few); botocore accepts both.
    return body.get("message", body.get("Message"))


def _check_crc32(resp):
    crc = resp.header("x-amz-crc32")
    assert crc is not None, "response lacks x-amz-crc32"
    assert crc == str(zlib.crc32(resp.body) & 0xFFFFFFFF), \
        f"x-amz-crc32 {crc} != crc32(body) {zlib.crc32(resp.body)}"


def _check_request_id(resp):
    rid = resp.header("x-amzn-RequestId")
    assert rid, "response lacks a non-empty x-amzn-RequestId"
    return rid


# ---------------------------------------------------------------------------
# Health check
# ---------------------------------------------------------------------------

def test_get_root_is_health_check(server):
    conn = _conn(server)
    try:
        conn.request("GET", "/")
        resp = conn.getresponse()
        body = resp.read()
        assert resp.status == 200
        # The Host as sent, port included (the service's is dynamodb.<region>.amazonaws.com).
        assert body == f"healthy: 127.0.0.1:{server.port}".encode(), body[:100]
    finally:
        conn.close()


# ---------------------------------------------------------------------------
# Error envelope of protocol errors
# ---------------------------------------------------------------------------

def test_unknown_operation(raw):
    resp = raw(TARGET_PREFIX + "Foo", {})
    assert resp.status == 400
    typ, _ = _error_type(resp)
    assert typ.endswith("#UnknownOperationException"), typ
    _check_crc32(resp)
    _check_request_id(resp)


def test_unknown_operation_wrong_service_prefix(raw):
    # A target that is not DynamoDB_20120810.<op> names no operation either.
    resp = raw("DynamoDB_20111205.ListTables", {})
    assert resp.status == 400
    typ, _ = _error_type(resp)
    assert typ.endswith("#UnknownOperationException"), typ


@pytest.mark.parametrize("body", [
    b"this is not json",
    b'{"TableName": ',
    b"[1, 2",
    b'{"TableName": "abc"',
], ids=["text", "truncated-object", "truncated-array", "unterminated"])
def test_malformed_json_is_serialization_exception(raw, body):
    resp = raw("DescribeTable", body)
    assert resp.status == 400
    typ, _ = _error_type(resp)
    assert typ.endswith("#SerializationException"), typ
    _check_crc32(resp)


def test_empty_body_is_serialization_exception(raw):
    # Real DynamoDB answers an empty body with SerializationException (dynalite
    # pins this for ListTables). Medium confidence for this server.
    resp = raw("ListTables", b"")
    assert resp.status == 400
    typ, _ = _error_type(resp)
    assert typ.endswith("#SerializationException"), typ


def test_missing_authorization_header(raw):
    resp = raw("ListTables", {}, sign=False)
    assert resp.status == 400
    typ, body = _error_type(resp)
    assert typ.endswith("#MissingAuthenticationTokenException"), typ
    # Text as observed on real DynamoDB (dynalite test/connection.js); fairly confident.
    assert _error_message(body) == "Request is missing Authentication Token"
    _check_crc32(resp)
    _check_request_id(resp)


# ---------------------------------------------------------------------------
# Response headers
# ---------------------------------------------------------------------------

def test_success_response_headers(raw):
    resp = raw("ListTables", {})
    assert resp.status == 200
    _check_request_id(resp)
    _check_crc32(resp)
    ctype = resp.header("Content-Type") or ""
    assert ctype.startswith("application/x-amz-json-1."), ctype
    clen = resp.header("Content-Length")
    if clen is not None:
        assert int(clen) == len(resp.body)
    body = resp.json()
    assert isinstance(body.get("TableNames"), list)


def test_error_response_headers(raw):
    resp = raw("DescribeTable", {"TableName": unique_name("nosuch")})
    assert resp.status == 400
    _check_request_id(resp)
    _check_crc32(resp)
    clen = resp.header("Content-Length")
    if clen is not None:
        assert int(clen) == len(resp.body)


def test_responses_carry_a_date_header(raw):
    # The service sends an IMF-fixdate Date header on every response (RFC 9110 requires it
    # of an origin server with a clock); the JS SDKs read it to correct clock skew.
    for resp in (raw("ListTables", {}),
                 raw("DescribeTable", {"TableName": unique_name("nosuch")})):
        date = resp.header("Date")
        assert date is not None, "response lacks Date"
        assert re.fullmatch(r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d "
                            r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} "
                            r"\d\d:\d\d:\d\d GMT", date), date
        sent = email.utils.parsedate_to_datetime(date)
        assert abs(sent.timestamp() - time.time()) < 120


def test_crc32_of_non_ascii_body(raw, table_s):
    # The checksum covers the exact response bytes, including multi-byte UTF-8.
    item = {"pk": {"S": "crc-\u00e9\u65e5\u672c-\U0001F600"}, "v": {"S": "\u00fc" * 300}}
    put = raw("PutItem", {"TableName": table_s, "Item": item})
    assert put.status == 200, put.body
    _check_crc32(put)
    get = raw("GetItem", {"TableName": table_s, "Key": {"pk": item["pk"]}, "ConsistentRead": True})
    assert get.status == 200, get.body
    _check_crc32(get)
    assert get.json()["Item"] == item


def test_request_ids_are_distinct(raw):
    ids = {_check_request_id(raw("ListTables", {})) for _ in range(5)}
    assert len(ids) == 5


# ---------------------------------------------------------------------------
# __type prefix of service errors
# ---------------------------------------------------------------------------

def test_error_type_prefix_resource_not_found(raw):
    name = unique_name("nosuch")
    resp = raw("DescribeTable", {"TableName": name})
    assert resp.status == 400
    typ, body = _error_type(resp)
    assert typ == ERROR_TYPE_PREFIX + "ResourceNotFoundException"
    assert _error_message(body) == f"Requested resource not found: Table: {name} not found"


def test_error_type_prefix_validation(raw):
    # The service writes ValidationException in its request framework's namespace
    # (test_error_envelope.py has the sources).
    resp = raw("ListTables", {"Limit": 0})
    assert resp.status == 400
    typ, body = _error_type(resp)
    assert typ == "com.amazon.coral.validate#ValidationException"
    assert _error_message(body)


def test_error_type_prefix_resource_in_use(raw, table_s):
    resp = raw("CreateTable", {
        "TableName": table_s,
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST",
    })
    assert resp.status == 400
    typ, _ = _error_type(resp)
    assert typ == ERROR_TYPE_PREFIX + "ResourceInUseException"


# ---------------------------------------------------------------------------
# Content types and connection handling
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("content_type", ["application/x-amz-json-1.0",
                                          "application/x-amz-json-1.1"])
def test_content_types_accepted(raw, content_type):
    resp = raw("ListTables", {"Limit": 5}, content_type=content_type)
    assert resp.status == 200, resp.body
    body = resp.json()
    assert isinstance(body["TableNames"], list)
    assert len(body["TableNames"]) <= 5
    _check_crc32(resp)


def test_keep_alive_many_requests_one_connection(server, table_s):
    conn = _conn(server)
    try:
        r1 = raw_post(conn, server.endpoint, TARGET_PREFIX + "ListTables", {})
        assert r1.status == 200
        sock = conn.sock
        assert sock is not None, "server closed the connection after the first request"
        ops = [
            ("PutItem", {"TableName": table_s, "Item": {"pk": {"S": "ka"}, "n": {"N": "1"}}}),
            ("GetItem", {"TableName": table_s, "Key": {"pk": {"S": "ka"}}}),
            ("DescribeTable", {"TableName": unique_name("nosuch")}),  # an error keeps it open too
            ("GetItem", {"TableName": table_s, "Key": {"pk": {"S": "ka"}}}),
            ("ListTables", {"Limit": 1}),
            ("DeleteItem", {"TableName": table_s, "Key": {"pk": {"S": "ka"}}}),
        ]
        statuses = []
        for op, body in ops:
            r = raw_post(conn, server.endpoint, TARGET_PREFIX + op, body)
            statuses.append(r.status)
            _check_crc32(r)
            assert conn.sock is sock, f"connection was not kept alive across {op}"
            if op == "GetItem":
                assert json.loads(r.body)["Item"] == {"pk": {"S": "ka"}, "n": {"N": "1"}}
        assert statuses == [200, 200, 400, 200, 200, 200]
    finally:
        conn.close()


def test_response_is_http11(server):
    conn = _conn(server)
    try:
        conn.request("GET", "/")
        resp = conn.getresponse()
        resp.read()
        assert resp.version == 11
    finally:
        conn.close()
