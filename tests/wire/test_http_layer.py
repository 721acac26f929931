"""The HTTP layer as the service answers it (issue 31, item 5; server/http_server.cc).

Sources: dynalite's test/connection.js, which pins the service's answers by status, body
and CRC32 (recorded from DynamoDB): PUT and DELETE, and a POST with no or another content
type, are 404 with "<UnknownOperationException/>\\n" (29 bytes, x-amz-crc32 3552371480); an
unsigned request with no or an unknown target is UnknownOperationException and one whose body
is not JSON SerializationException, before any authentication check; "Authorization: AWS4"
is MissingAuthenticationTokenException and "AWS4-" IncompleteSignatureException naming every
missing part (CRC32 1828866742); the answer's content type is the request's. The service
accepts SigV4 in the query string (presigned requests); a chunked body is held to the same
16 MB as one with a Content-Length.
"""

import http.client
import json
import urllib.parse
import zlib

import pytest

from conftest import TARGET_PREFIX

XML_404 = b"<UnknownOperationException/>\n"


def _send(server, method, headers=None, body=None, target="/"):
    host = getattr(server, "host", "127.0.0.1")  # --endpoint's host, or the local server
    conn = http.client.HTTPConnection(host, server.port, timeout=60)
    try:
        conn.request(method, target, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, dict((k.lower(), v) for k, v in resp.getheaders()), resp.read()
    finally:
        conn.close()


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH"])
def test_other_methods_are_404_unknown_operation(server, method):
    status, headers, body = _send(server, method)
    assert (status, body) == (404, XML_404)
    assert headers["x-amz-crc32"] == "3552371480"


def test_options_without_origin_is_404(server):
    assert _send(server, "OPTIONS")[:3:2] == (404, XML_404)


@pytest.mark.parametrize("content_type", [None, "whatever", "text/plain"])
def test_post_in_another_content_type_is_404(server, content_type):
    headers = {"X-Amz-Target": TARGET_PREFIX + "ListTables"}
    if content_type:
        headers["Content-Type"] = content_type
    status, _, body = _send(server, "POST", headers, b"hi")
    assert (status, body) == (404, XML_404)


@pytest.mark.parametrize("content_type", ["application/json", "application/x-amz-json-1.0",
                                          "application/x-amz-json-1.1"])
def test_answered_in_the_requests_content_type(server, content_type):
    status, headers, body = _send(server, "POST", {
        "Content-Type": content_type, "X-Amz-Target": TARGET_PREFIX + "ListTables"}, b"hi")
    assert status == 400
    assert headers["content-type"] == content_type
    assert json.loads(body)["__type"] == "com.amazon.coral.service#SerializationException"


def test_request_level_errors_come_before_authentication(server):
    json10 = {"Content-Type": "application/x-amz-json-1.0"}
    status, _, body = _send(server, "POST", json10, b"{}")  # no target, unsigned
    assert (status, body) == (400, b'{"__type":"com.amazon.coral.service#UnknownOperationException"}')
    assert zlib.crc32(body) == 1368724161
    status, _, body = _send(server, "POST", dict(json10, **{"X-Amz-Target": "whatever"}), b"{}")
    assert json.loads(body)["__type"].endswith("#UnknownOperationException")
    status, _, body = _send(server, "POST", dict(json10, **{
        "X-Amz-Target": TARGET_PREFIX + "ListTables"}), b"hi")
    assert json.loads(body)["__type"] == "com.amazon.coral.service#SerializationException"
    status, _, body = _send(server, "POST", dict(json10, **{
        "X-Amz-Target": TARGET_PREFIX + "ListTables"}), b"{}")
    assert json.loads(body)["__type"].endswith("#MissingAuthenticationTokenException")


def test_malformed_authorization_headers(server):
    base = {"Content-Type": "application/json", "X-Amz-Target": TARGET_PREFIX + "ListTables"}
    status, _, body = _send(server, "POST", dict(base, Authorization="AWS4"), b"{}")
    assert json.loads(body)["__type"].endswith("#MissingAuthenticationTokenException")
    status, _, body = _send(server, "POST", dict(base, Authorization="AWS4-"), b"{}")
    assert status == 400
    assert json.loads(body) == {
        "__type": "com.amazon.coral.service#IncompleteSignatureException",
        "message": "Authorization header requires 'Credential' parameter. "
                   "Authorization header requires 'Signature' parameter. "
                   "Authorization header requires 'SignedHeaders' parameter. "
                   "Authorization header requires existence of either a 'X-Amz-Date' or a "
                   "'Date' header. Authorization=AWS4-"}
    assert zlib.crc32(body) == 1828866742


def test_presigned_request_is_served_without_verification(server):
    credential = "AKIDPRESIGNED/20260101/eu-west-1/dynamodb/aws4_request"
    query = urllib.parse.urlencode({
        "X-Amz-Algorithm": "AWS4-HMAC-SHA256", "X-Amz-Credential": credential,
        "X-Amz-Date": "20260101T000000Z", "X-Amz-Expires": "300",
        "X-Amz-SignedHeaders": "host", "X-Amz-Signature": "0" * 64})
    headers = {"Content-Type": "application/x-amz-json-1.0",
               "X-Amz-Target": TARGET_PREFIX + "ListTables"}
    status, _, body = _send(server, "POST", headers, b"{}", target="/?" + query)
    assert status == 200, body
    assert "TableNames" in json.loads(body)


def _chunked(server, size):
    conn = http.client.HTTPConnection(getattr(server, "host", "127.0.0.1"), server.port,
                                      timeout=120)
    try:
        conn.putrequest("POST", "/")
        conn.putheader("Content-Type", "application/x-amz-json-1.0")
        conn.putheader("X-Amz-Target", TARGET_PREFIX + "ListTables")
        conn.putheader("Transfer-Encoding", "chunked")
        conn.endheaders()
        chunk = b"x" * (1024 * 1024)
        sent = 0
        try:
            while sent < size:
                piece = chunk[:min(len(chunk), size - sent)]
                conn.send(b"%x\r\n%s\r\n" % (len(piece), piece))
                sent += len(piece)
            conn.send(b"0\r\n\r\n")
        except OSError:
            pass  # the server answered 413 and closed while the body was still coming
        return conn.getresponse().status
    finally:
        conn.close()


def test_chunked_body_over_16_mb_is_413(server):
    assert _chunked(server, 16 * 1024 * 1024 + 1) == 413


def test_chunked_body_under_the_limit_is_read(server):
    # Read whole and answered (not JSON: SerializationException), not 413.
    assert _chunked(server, 1024 * 1024) == 400
