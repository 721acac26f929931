"""The web console's HTTP side (docs/CONSOLE.md): /console and its embedded files (Content-Type,
ETag and 304, the Content-Security-Policy), the JSON endpoints under /console/api/ (the same
figures as /metrics), and --console: on by default only when listening on loopback."""

import http.client
import json

import pytest

from conftest import ServerProcess, make_client, unique_name

pytestmark = pytest.mark.ddb_only("ddb-server's web console and its flags")


def get(server, path, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        conn.request("GET", path, headers=headers or {})
        resp = conn.getresponse()
        body = resp.read()
        return resp, body
    finally:
        conn.close()


@pytest.fixture(scope="module")
def console_server():
    srv = ServerProcess("--in-memory", "--host", "127.0.0.1", "--simulate-capacity").start()
    yield srv
    srv.stop_and_check()


@pytest.fixture(scope="module")
def console_table(console_server):
    ddb = make_client(console_server.endpoint)
    name = unique_name("console")
    ddb.create_table(
        TableName=name,
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[{"IndexName": "by-g",
                                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "KEYS_ONLY"},
                                 "ProvisionedThroughput": {"ReadCapacityUnits": 5,
                                                           "WriteCapacityUnits": 50}}],
        ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 50},
    )
    ddb.update_time_to_live(TableName=name,
                            TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"})
    for i in range(4):
        ddb.put_item(TableName=name, Item={"pk": {"S": f"k{i}"}, "g": {"S": "x"}})
    for _ in range(30):
        try:
            ddb.get_item(TableName=name, Key={"pk": {"S": "hot"}})
        except ddb.exceptions.ProvisionedThroughputExceededException:
            pass
    return name


def test_console_redirects_and_serves_index(console_server):
    resp, _ = get(console_server, "/console")
    assert resp.status == 308
    assert resp.getheader("Location") == "/console/"
    resp, body = get(console_server, "/console/")
    assert resp.status == 200
    assert resp.getheader("Content-Type") == "text/html; charset=utf-8"
    assert b'<script type="module" src="app.js">' in body
    csp = resp.getheader("Content-Security-Policy")
    assert "default-src 'none'" in csp and "script-src 'self'" in csp
    assert "connect-src 'self'" in csp
    assert resp.getheader("Cache-Control") == "no-cache"


def test_assets_have_types_and_etags(console_server):
    for path, content_type in [("/console/app.js", "text/javascript; charset=utf-8"),
                               ("/console/style.css", "text/css; charset=utf-8"),
                               ("/console/partitions.js", "text/javascript; charset=utf-8")]:
        resp, body = get(console_server, path)
        assert resp.status == 200, path
        assert resp.getheader("Content-Type") == content_type
        etag = resp.getheader("ETag")
        assert etag and etag.startswith('"') and len(body) > 0
        again, again_body = get(console_server, path, {"If-None-Match": etag})
        assert again.status == 304 and again_body == b""
    resp, _ = get(console_server, "/console/nope.js")
    assert resp.status == 404


def test_no_cors_for_the_console(console_server):
    # Same-origin only: another site's page may not read the console's endpoints.
    resp, _ = get(console_server, "/console/api/tables", {"Origin": "http://example.com"})
    assert resp.status == 200
    assert resp.getheader("Access-Control-Allow-Origin") is None


def test_tables_endpoint(console_server, console_table):
    resp, body = get(console_server, "/console/api/tables")
    assert resp.status == 200
    assert resp.getheader("Content-Type") == "application/json"
    assert resp.getheader("Cache-Control") == "no-store"
    doc = json.loads(body)
    table = next(t for t in doc["tables"] if t["name"] == console_table)
    assert table["item_count"] == 4
    assert table["size_bytes"] > 0
    assert table["ttl_attribute"] == "exp"
    assert [i["name"] for i in table["indexes"]] == ["by-g"]
    assert table["indexes"][0]["item_count"] == 4
    d = table["description"]["Table"]
    assert d["TableName"] == console_table
    assert d["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}]
    assert d["GlobalSecondaryIndexes"][0]["IndexName"] == "by-g"


def test_partitions_endpoint(console_server, console_table):
    resp, body = get(console_server, f"/console/api/partitions?table={console_table}")
    assert resp.status == 200
    doc = json.loads(body)
    assert doc["table"] == console_table and doc["time_ms"] > 0
    assert {"gsi_pending_changes", "gsi_lag_ms"} <= doc.keys()
    by_index = {r["index"]: r for r in doc["resources"]}
    assert set(by_index) == {"", "by-g"}
    table = by_index[""]
    assert table["simulated"] is True and table["on_demand"] is False
    assert table["read_limit"] == 5 and table["write_limit"] == 50
    assert table["consumed_read_units"] > 0 and table["consumed_write_units"] == 4
    # 30 reads at 5 RCU: some were throttled, by the table's capacity (not the key range).
    assert table["read_throttles"] > 0
    parts = table["partitions"]
    assert parts[0]["start"] == "0000000000000000" and parts[-1]["end"] == "ffffffffffffffff"
    assert sum(p["read_throttles"] for p in parts) == table["read_throttles"]
    assert sum(p["read_key_range_throttles"] for p in parts) == 0
    p = parts[0]
    for field in ["items", "bytes", "consumed_read_units", "consumed_write_units", "read_limit",
                  "write_limit", "read_tokens", "write_tokens", "hot_keys", "start_fraction",
                  "end_fraction"]:
        assert field in p, field
    assert sum(q["items"] for q in parts) == 4
    assert table["hot_keys"][0]["key"] == "hot"
    assert any(k["key"] == "hot" for q in parts for k in q["hot_keys"])


def test_partitions_endpoint_errors(console_server):
    resp, body = get(console_server, "/console/api/partitions")
    assert resp.status == 400 and "table=" in json.loads(body)["error"]
    resp, body = get(console_server, "/console/api/partitions?table=no-such-table")
    assert resp.status == 404 and "no-such-table" in json.loads(body)["error"]
    # Bytes that are not UTF-8 are not echoed into the JSON (issue 29).
    resp, body = get(console_server, "/console/api/partitions?table=%ff%fe")
    assert resp.status == 404 and json.loads(body.decode("utf-8"))["error"]
    resp, _ = get(console_server, "/console/api/nothing")
    assert resp.status == 404


def test_console_methods(console_server):
    conn = http.client.HTTPConnection("127.0.0.1", console_server.port, timeout=30)
    try:
        conn.request("POST", "/console/api/tables", body=b"{}")
        resp = conn.getresponse()
        resp.read()
        assert resp.status == 405
        assert resp.getheader("Allow") == "GET"
    finally:
        conn.close()


def test_console_off():
    srv = ServerProcess("--in-memory", "--host", "127.0.0.1", "--console", "off").start()
    try:
        assert get(srv, "/console/")[0].status == 404
        assert get(srv, "/console/api/tables")[0].status == 404
    finally:
        srv.stop_and_check()


def test_console_off_by_default_off_loopback():
    srv = ServerProcess("--in-memory", "--host", "0.0.0.0").start()
    try:
        assert get(srv, "/console/")[0].status == 404
    finally:
        srv.stop_and_check()
    srv = ServerProcess("--in-memory", "--host", "0.0.0.0", "--console", "on").start()
    try:
        assert get(srv, "/console/")[0].status == 200
    finally:
        srv.stop_and_check()
