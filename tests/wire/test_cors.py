"""CORS, as the service answers browsers (the JavaScript SDK in a web page): a request with an
Origin header gets Access-Control-Allow-Origin: * and the exposed headers on every response;
an OPTIONS preflight also gets Max-Age and, echoing its request, the allowed method and
headers. A request without Origin gets no CORS headers."""

import pytest

from conftest import TARGET_PREFIX, http_connection

CORS_HEADERS = [
    "Access-Control-Allow-Origin", "Access-Control-Allow-Credentials",
    "Access-Control-Expose-Headers", "Access-Control-Max-Age",
    "Access-Control-Allow-Methods", "Access-Control-Allow-Headers",
]


def _request(server, method, headers=None, body=None):
    conn = http_connection(server)
    try:
        conn.request(method, "/", body=body, headers=headers or {})
        resp = conn.getresponse()
        resp.read()
        return resp
    finally:
        conn.close()


def _post_headers(extra=None):
    headers = {
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": TARGET_PREFIX + "ListTables",
        "Authorization": "AWS4-HMAC-SHA256 Credential=k/20260101/us-east-1/dynamodb/aws4_request, "
                         "SignedHeaders=host, Signature=0",
    }
    headers.update(extra or {})
    return headers


@pytest.mark.parametrize("method", ["OPTIONS", "GET", "POST"])
def test_no_cors_headers_without_origin(server, method):
    resp = _request(server, method, _post_headers() if method == "POST" else {},
                    b"{}" if method == "POST" else None)
    # An OPTIONS without Origin is no preflight: the service answers it 404
    # (test_http_layer.py).
    assert resp.status == (404 if method == "OPTIONS" else 200)
    for h in CORS_HEADERS:
        assert resp.getheader(h) is None, h


@pytest.mark.parametrize("method", ["OPTIONS", "GET", "POST"])
def test_origin_is_allowed_on_every_method(server, method):
    origin = {"Origin": "http://example.com/"}
    headers = _post_headers(origin) if method == "POST" else origin
    resp = _request(server, method, headers, b"{}" if method == "POST" else None)
    assert resp.status == 200
    assert resp.getheader("Access-Control-Allow-Origin") == "*"
    exposed = resp.getheader("Access-Control-Expose-Headers")
    assert exposed and "x-amzn-RequestId" in exposed and "x-amzn-ErrorType" in exposed
    # Only the preflight says how long it may be cached.
    assert (resp.getheader("Access-Control-Max-Age") is not None) == (method == "OPTIONS")


@pytest.mark.parametrize("method", ["OPTIONS", "GET", "POST"])
def test_preflight_echoes_requested_method_and_headers(server, method):
    cors = {"Origin": "http://example.com/", "Access-Control-Request-Method": "dog",
            "Access-Control-Request-Headers": "cat, meerkat, mouse"}
    headers = _post_headers(cors) if method == "POST" else cors
    resp = _request(server, method, headers, b"{}" if method == "POST" else None)
    assert resp.getheader("Access-Control-Allow-Origin") == "*"
    if method == "OPTIONS":
        assert resp.getheader("Access-Control-Allow-Methods") == "dog"
        assert resp.getheader("Access-Control-Allow-Headers") == "cat, meerkat, mouse"
    else:
        assert resp.getheader("Access-Control-Allow-Methods") is None
        assert resp.getheader("Access-Control-Allow-Headers") is None


def test_error_responses_carry_cors_headers(server):
    headers = _post_headers({"Origin": "http://example.com/",
                             "X-Amz-Target": TARGET_PREFIX + "NoSuchOperation"})
    resp = _request(server, "POST", headers, b"{}")
    assert resp.status == 400
    assert resp.getheader("Access-Control-Allow-Origin") == "*"
