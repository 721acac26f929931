"""Overload (issue 17): --max-connections, --max-body-memory and clients that never read.

Each case is answered as the service would (HTTP 503 ServiceUnavailable, which the SDKs
retry) or its connection is closed, the server's memory stays within what the flags allow,
and other clients are served meanwhile."""

import json
import resource
import socket
import time

import pytest

from conftest import (ServerProcess, http_connection, make_client, proc_status_bytes, raw_post,
                      unique_name, wait_until)

BIG = 16 * 1024 * 1024


def rss_bytes(pid):
    return proc_status_bytes(pid, "VmRSS")


def raise_open_file_limit(wanted):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def request_head(target, length, extra=""):
    return (f"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/x-amz-json-1.0\r\n"
            f"X-Amz-Target: DynamoDB_20120810.{target}\r\n"
            f"Authorization: AWS4-HMAC-SHA256 Credential=k/20260101/us-east-1/dynamodb/aws4_request, "
            f"SignedHeaders=host, Signature=0\r\n{extra}"
            f"Content-Length: {length}\r\n\r\n").encode()


def request(target, body):
    data = json.dumps(body).encode()
    return request_head(target, len(data)) + data


def read_response(sock, timeout=5.0):
    """One HTTP response (status, headers, body) read from `sock`."""
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError(f"connection closed before a response: {data!r}")
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.decode().split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:])}
    length = int(headers["content-length"])
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return status, headers, rest[:length]


def closed_by_peer(sock, timeout=5.0):
    sock.settimeout(timeout)
    try:
        while True:
            if not sock.recv(65536):
                return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def connect(port):
    return socket.create_connection(("127.0.0.1", port), timeout=5)


@pytest.fixture
def overload_server(request, tmp_path):
    srv = ServerProcess("--in-memory", *request.param, log_dir=str(tmp_path)).start()
    yield srv
    srv.stop_and_check()


@pytest.mark.parametrize("overload_server", [("--max-connections", "8")], indirect=True)
def test_connections_over_the_limit_get_503_and_the_rest_are_served(overload_server):
    port = overload_server.port
    held = [connect(port) for _ in range(8)]
    try:
        # Every held connection is served (the server admits them at accept).
        for s in held:
            s.sendall(request("ListTables", {}))
            status, _, _ = read_response(s)
            assert status == 200

        extra = connect(port)
        extra.sendall(request("ListTables", {}))
        status, headers, body = read_response(extra)
        assert status == 503
        assert headers["connection"] == "close"
        error = json.loads(body)
        assert error["__type"].endswith("#ServiceUnavailable")
        assert "--max-connections (8)" in error["message"]
        assert closed_by_peer(extra)
        extra.close()

        # The SDK's retries get through once a connection is given back.
        held.pop().close()
        client = make_client(overload_server.endpoint)
        assert wait_until(lambda: _lists_tables(client), timeout=5)
        # The held ones still work.
        held[0].sendall(request("ListTables", {}))
        assert read_response(held[0])[0] == 200
    finally:
        for s in held:
            s.close()


def _lists_tables(client):
    try:
        client.list_tables()
        return True
    except Exception:
        return False


@pytest.mark.parametrize("overload_server", [("--max-body-memory", str(64 * 1024 * 1024))],
                         indirect=True)
def test_a_thousand_slow_16mb_bodies_stay_within_the_body_budget(overload_server):
    port = overload_server.port
    n = 1000
    if raise_open_file_limit(n + 200) < n + 100:
        pytest.skip("cannot open 1000 sockets here")
    pid = overload_server.proc.pid
    client = make_client(overload_server.endpoint)
    table = unique_name("overload")
    client.create_table(TableName=table, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                        BillingMode="PAY_PER_REQUEST")
    before = rss_bytes(pid)

    socks = []
    try:
        for _ in range(n):
            s = connect(port)
            s.sendall(request_head("PutItem", BIG) + b"{" + b" " * 1023)
            socks.append(s)
        # 64 MiB holds four 16 MiB bodies: the rest are refused at once with a 503.
        refused, admitted = 0, []
        for s in socks:
            s.settimeout(0.5 if refused + len(admitted) < 8 else 0.05)
            try:
                status, _, body = read_response(s, timeout=s.gettimeout())
                assert status == 503, body
                assert json.loads(body)["__type"].endswith("#ServiceUnavailable")
                refused += 1
            except socket.timeout:
                admitted.append(s)
        assert len(admitted) == 4, (len(admitted), refused)
        assert refused == n - 4

        # The admitted ones trickle their whole body, while another client is served.
        chunk = b" " * (256 * 1024)
        peak = 0
        for i in range(BIG // len(chunk) - 1):
            for s in admitted:
                s.sendall(chunk)
            if i % 16 == 0:
                client.put_item(TableName=table, Item={"pk": {"S": f"k{i}"}})
                assert client.get_item(TableName=table, Key={"pk": {"S": f"k{i}"}})["Item"]
                peak = max(peak, rss_bytes(pid))
        peak = max(peak, rss_bytes(pid))
        # 4 bodies of 16 MiB, plus a read buffer per connection and allocator slack.
        assert peak - before < 64 * 1024 * 1024 + n * 128 * 1024 + 48 * 1024 * 1024, (before, peak)
    finally:
        for s in socks:
            s.close()
    client.delete_table(TableName=table)


@pytest.mark.parametrize("overload_server", [("--read-timeout", "2")], indirect=True)
def test_clients_that_never_read_do_not_grow_memory(overload_server):
    pid = overload_server.proc.pid
    client = make_client(overload_server.endpoint)
    table = unique_name("noread")
    client.create_table(TableName=table, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                        BillingMode="PAY_PER_REQUEST")
    client.put_item(TableName=table, Item={"pk": {"S": "big"}, "v": {"S": "x" * 350_000}})
    get = request("GetItem", {"TableName": table, "Key": {"pk": {"S": "big"}}})
    before = rss_bytes(pid)
    socks = []
    try:
        # 50 clients each pipeline 400 GetItems of a 350 KB item (140 MB of answers each) and
        # read nothing: the server answers one at a time and stops reading until it is taken.
        for _ in range(50):
            s = connect(overload_server.port)
            s.setblocking(False)
            socks.append(s)
        pending = {s: get * 400 for s in socks}
        deadline = time.monotonic() + 1.5
        while pending and time.monotonic() < deadline:
            for s in list(pending):
                try:
                    sent = s.send(pending[s])
                    pending[s] = pending[s][sent:]
                    if not pending[s]:
                        del pending[s]
                except BlockingIOError:
                    pass  # the server stopped reading: what this test wants
                except OSError:
                    del pending[s]
            time.sleep(0.01)
        grown = rss_bytes(pid) - before
        # Others are served meanwhile.
        assert client.get_item(TableName=table, Key={"pk": {"S": "big"}})["Item"]
        assert grown < 100 * 1024 * 1024, grown
        # --read-timeout 2: the server gives up on them and closes.
        time.sleep(3)
        assert rss_bytes(pid) - before < 100 * 1024 * 1024
        for s in socks:
            s.setblocking(True)
        assert all(closed_by_peer(s, timeout=5) for s in socks[:5])
    finally:
        for s in socks:
            s.close()
    client.delete_table(TableName=table)


@pytest.mark.parametrize("overload_server", [("--max-response-memory", str(1024 * 1024))],
                         indirect=True)
def test_unread_responses_over_the_response_budget_hold_off_new_requests(overload_server):
    # Issue 29: each client that sent a BatchGetItem and read nothing held its ~16 MB answer
    # until --read-timeout, with nothing bounding how many did. Past --max-response-memory a
    # new request is answered 503 (retryable) without being run, until the answers go.
    client = make_client(overload_server.endpoint)
    table = unique_name("unread")
    client.create_table(TableName=table, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                        BillingMode="PAY_PER_REQUEST")
    keys = [{"pk": {"S": f"k{i}"}} for i in range(8)]
    for k in keys:
        client.put_item(TableName=table, Item={**k, "v": {"S": "x" * 380_000}})
    reader = socket.socket()
    reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # the kernel takes little
    reader.connect(("127.0.0.1", overload_server.port))
    other = connect(overload_server.port)
    try:
        reader.sendall(request("BatchGetItem", {"RequestItems": {table: {"Keys": keys}}}))

        def refused():
            other.sendall(request("ListTables", {}))
            status, headers, body = read_response(other)
            if status == 200:
                return False
            assert status == 503, body
            assert headers["connection"] == "keep-alive"
            error = json.loads(body)
            assert error["__type"].endswith("#ServiceUnavailable")
            assert "--max-response-memory" in error["message"]
            return True

        assert wait_until(refused, timeout=5)
        # Once the reader takes its 3 MB, the others are served again.
        status, _, body = read_response(reader, timeout=10)
        assert status == 200 and len(json.loads(body)["Responses"][table]) == 8
        other.sendall(request("ListTables", {}))
        assert read_response(other)[0] == 200
    finally:
        reader.close()
        other.close()
    client.delete_table(TableName=table)


# Issue 29 (a black-box probe): every reference to a :placeholder copied its value into the
# expression, so 200 references to a 0.3 MB value took ~1 GB, and a 14 MB one 13 GB, before
# the table was even looked up. Each value is now held once however often it is used, and a
# SET's values stop being evaluated once together they pass the item size limit.
@pytest.mark.parametrize("overload_server", [()], indirect=True)
def test_a_placeholder_used_many_times_is_held_once(overload_server):
    conn = http_connection(overload_server)
    call = lambda op, body: raw_post(conn, overload_server.endpoint, "DynamoDB_20120810." + op, body)
    table = unique_name("refs")
    r = call("CreateTable", {"TableName": table, "BillingMode": "PAY_PER_REQUEST",
                             "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                             "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
    assert r.status == 200, r.body[:300]
    call("PutItem", {"TableName": table, "Item": {"pk": {"S": "a"}}})
    # ~0.3 MB of JSON, several MB once parsed into values.
    hay = {"L": [{"L": [{"N": str(i)} for i in range(1000)]}] * 20}
    values = {":h": hay, ":t": {"N": "5"}}
    in_list = ":t IN (" + ", ".join([":h"] * 100) + ")"
    pid = overload_server.proc.pid
    before = proc_status_bytes(pid, "VmHWM")
    # 200 references in a condition, on a table that does not exist and on one that does.
    for name in ("no-such-table", table):
        r = call("UpdateItem", {"TableName": name, "Key": {"pk": {"S": "a"}},
                                "UpdateExpression": "SET x = :t",
                                "ConditionExpression": in_list + " OR " + in_list,
                                "ExpressionAttributeValues": values})
        assert r.status == 400, r.body[:300]
    # 100 references in a filter.
    r = call("Scan", {"TableName": table,
                      "FilterExpression": " OR ".join(["contains(:h, :t)"] * 100),
                      "ExpressionAttributeValues": values})
    assert r.status == 200 and json.loads(r.body)["Count"] == 0, r.body[:300]
    # 300 SETs of it: the item would be far over 400 KB.
    r = call("UpdateItem", {"TableName": table, "Key": {"pk": {"S": "a"}},
                            "UpdateExpression": "SET " + ", ".join(f"a{i} = :h" for i in range(300)),
                            "ExpressionAttributeValues": {":h": hay}})
    assert r.status == 400 and b"Item size to update has exceeded" in r.body, r.body[:300]
    grew = proc_status_bytes(pid, "VmHWM") - before
    assert grew < 300 * 1024 * 1024, f"peak RSS grew by {grew >> 20} MB"
    conn.close()
