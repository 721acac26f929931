"""Protocol-level tests (raw HTTP): framing, headers, error envelope, keep-alive."""

import email.utils
import gzip
import json
import re
import time
import zlib

import pytest
from botocore.exceptions import ClientError

from conftest import (ERROR_TYPE_PREFIX, TARGET_PREFIX, http_connection, raw_post, unique_name)


def _conn(server):
    return http_connection(server)


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
        assert body == f"healthy: {server.host}:{server.port}".encode(), body[:100]
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


# --------------------------------------------------------------------------
# Compressed requests (Content-Encoding: gzip)
# (from the conformance sweep: behaviours found missing in a sweep against a DynamoDB
# behaviour checklist; was test_conformance_sweep.py)
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
# (from the conformance sweep: behaviours found missing in a sweep against a DynamoDB
# behaviour checklist; was test_conformance_sweep.py)
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
# HTTP: compressed responses and request bodies
# (from DynamoDB as it answers in 2026: the service's answers as captured against AWS in
# 2026; was test_service_2026.py. Issue 14, part 6)
# --------------------------------------------------------------------------

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


# A member of the wrong JSON type is the service's SerializationException whatever else is
# wrong (it deserializes the whole request first), in its deserializer's words: dynalite's
# suite sends each member alone, wrong-typed, and records these answers (test/helpers
# assertType). ddb answered the missing TableName first (found by a black-box probe).
@pytest.mark.parametrize("op,body,message", [
    ("PutItem", {"Item": "23"}, "Unexpected field type"),
    ("PutItem", {"Item": {"a": {"S": 23}}}, "NUMBER_VALUE cannot be converted to String"),
    ("DeleteItem", {"Key": []}, "Unrecognized collection type java.util.Map<java.lang.String, "
                                "com.amazonaws.dynamodb.v20120810.AttributeValue>"),
    ("GetItem", {"ConsistentRead": "23"}, "Unexpected token received from parser"),
    ("Scan", {"ConditionalOperator": 12}, "NUMBER_VALUE cannot be converted to String"),
    ("Query", {"KeyConditions": {"a": 23}}, "Unexpected value type in payload"),
    ("CreateTable", {"ProvisionedThroughput": []}, "Unrecognized collection type class "
                   "com.amazonaws.dynamodb.v20120810.ProvisionedThroughput"),
    ("CreateTable", {"ProvisionedThroughput": {"ReadCapacityUnits": True}},
     "TRUE_VALUE cannot be converted to Long"),
    ("BatchGetItem", {"RequestItems": {"t": {"Keys": {}}}},
     "Start of structure or map found where not expected"),
    ("UpdateTable", {"TableName": "no-such-table", "GlobalSecondaryIndexUpdates": 12},
     "Unexpected field type"),
])
def test_a_wrong_typed_member_is_a_serialization_exception_first(raw, op, body, message):
    resp = raw(op, body)
    assert resp.status == 400
    assert json.loads(resp.body) == {
        "__type": "com.amazon.coral.service#SerializationException", "Message": message}
    _check_crc32(resp)


def test_a_boolean_given_text_is_read_as_java_reads_it(raw):
    # dynalite's suite records {"NULL": "no"} as a NULL of false (a ValidationException), and
    # "23" for a Boolean as "Unexpected token received from parser".
    resp = raw("PutItem", {"TableName": "abc", "Item": {"a": {"NULL": "no"}}})
    assert json.loads(resp.body)["message"] == (
        "One or more parameter values were invalid: Null attribute value types must have the "
        "value of true")
    resp = raw("PutItem", {"TableName": "abc", "Item": {"a": {"NULL": "23"}}})
    assert json.loads(resp.body) == {"__type": "com.amazon.coral.service#SerializationException",
                                     "Message": "Unexpected token received from parser"}


@pytest.mark.parametrize("value,message", [
    ({"S": "", "N": ""}, "The parameter cannot be converted to a numeric value"),
    ({"S": "a", "N": "b"}, "The parameter cannot be converted to a numeric value: b"),
    ({"S": "a", "NS": ["1", "x"]}, "The parameter cannot be converted to a numeric value: x"),
    ({"S": "a", "N": "1"}, "Supplied AttributeValue has more than one datatypes set, must "
                           "contain exactly one of the supported datatypes"),
])
def test_a_bad_number_answers_before_more_than_one_type(raw, value, message):
    # The service converts numbers while it reads a value (dynalite's suite, recorded against
    # it).
    resp = raw("PutItem", {"TableName": "abc", "Item": {"a": value}})
    assert json.loads(resp.body)["message"].endswith(message)
