"""Engine calls do not hold up the HTTP side (--threads, --engine-threads).

The server lets at most --engine-threads DynamoDB operations run at once; the others wait
their turn, parked, reading nothing more from their connections. Health checks (GET /),
/metrics and CORS preflights need no engine slot, and spare threads take over the I/O when
the I/O threads are held up in long engine calls, so these answer while every slot is busy.

No engine option makes a call block for a fixed time (GSI waits last as long as the applier
takes, usually milliseconds), so the busy engine here is a flood of full-page Scans (about
1 MB read and filtered each, milliseconds of CPU, a tiny answer) from many connections against
one engine slot: each Scan then waits behind the others. The checks compare latencies measured under the same
load rather than absolute times, with wide margins, so that a loaded 2-core machine does not
make them flaky: a health check must take a fraction of what a Scan takes, where running
engine calls on the I/O thread (--engine-threads 0) makes both wait in the same line.
"""

import http.client
import json
import statistics
import threading
import time

from conftest import TARGET_PREFIX, ServerProcess, sigv4_headers

FLOOD_CONNECTIONS = 16
ITEMS = 3000
ATTRIBUTES = 80  # ~500 bytes an item, 1.5 MB in all: a Scan reads a full 1 MB page, and
                 # decoding and filtering that many attributes takes milliseconds
PROBES = 20


def _post(conn, endpoint, headers, body):
    conn.request("POST", "/", body=body, headers=headers)
    resp = conn.getresponse()
    return resp.status, resp.read()


def _op_headers(endpoint, op, body):
    # Signatures are parsed, not verified: one signed header set serves every request, so
    # the flood costs the client little CPU.
    return sigv4_headers(endpoint, TARGET_PREFIX + op, body)


def _start_loaded_server(*extra):
    srv = ServerProcess("--in-memory", "--threads", "1", *extra).start()
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=60)
    create = json.dumps({
        "TableName": "flood",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST",
    }).encode()
    status, body = _post(conn, srv.endpoint, _op_headers(srv.endpoint, "CreateTable", create),
                         create)
    assert status == 200, body
    attributes = {f"a{j}": {"N": str(j * 1.5)} for j in range(ATTRIBUTES)}
    for start in range(0, ITEMS, 25):
        batch = json.dumps({"RequestItems": {"flood": [
            {"PutRequest": {"Item": {"pk": {"S": f"item-{i}"}, **attributes}}}
            for i in range(start, min(start + 25, ITEMS))]}}).encode()
        status, body = _post(conn, srv.endpoint,
                             _op_headers(srv.endpoint, "BatchWriteItem", batch), batch)
        assert status == 200, body
        assert json.loads(body)["UnprocessedItems"] == {}
    conn.close()
    return srv


class _Flood:
    """FLOOD_CONNECTIONS threads, each sending Scans back to back on its own connection."""

    def __init__(self, srv):
        self.srv = srv
        # A filter that matches nothing: the server reads and evaluates a full page, the
        # client reads a few bytes (a Python client reading 1 MB pages is the bottleneck).
        self.body = json.dumps({
            "TableName": "flood", "FilterExpression": "a79 = :none",
            "ExpressionAttributeValues": {":none": {"N": "-1"}}}).encode()
        self.headers = _op_headers(srv.endpoint, "Scan", self.body)
        self.stop = threading.Event()
        self.latencies = []
        self.statuses = []
        self.errors = []
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._run, daemon=True)
                        for _ in range(FLOOD_CONNECTIONS)]

    def _run(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.srv.port, timeout=60)
        try:
            while not self.stop.is_set():
                started = time.monotonic()
                status, body = _post(conn, self.srv.endpoint, self.headers, self.body)
                elapsed = time.monotonic() - started
                with self.lock:
                    self.statuses.append(status)
                    self.latencies.append(elapsed)
                if status != 200:
                    self.errors.append(body[:200])
        except (OSError, http.client.HTTPException) as e:
            if not self.stop.is_set():
                self.errors.append(repr(e))
        finally:
            conn.close()

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=60)

    def wait_for_scans(self, n, timeout=60):
        until = time.monotonic() + timeout
        while time.monotonic() < until:
            with self.lock:
                if len(self.latencies) >= n:
                    return
            time.sleep(0.01)
        raise AssertionError(f"fewer than {n} Scans answered in {timeout}s: {self.errors[:3]}")


def _timed_get(port, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        started = time.monotonic()
        conn.request("GET", path)
        resp = conn.getresponse()
        body = resp.read()
        return time.monotonic() - started, resp.status, body
    finally:
        conn.close()


def _probe_while_flooded(srv, path):
    with _Flood(srv) as flood:
        flood.wait_for_scans(2 * FLOOD_CONNECTIONS)  # every connection is in line by now
        probes = []
        for _ in range(PROBES):
            elapsed, status, body = _timed_get(srv.port, path)
            assert status == 200, body
            probes.append(elapsed)
            time.sleep(0.02)
        # Scans that ran alongside the probes (each connection's next one at least).
        flood.wait_for_scans(3 * FLOOD_CONNECTIONS)
        with flood.lock:
            scans = list(flood.latencies[2 * FLOOD_CONNECTIONS:])
    assert not flood.errors, flood.errors[:3]
    assert all(s == 200 for s in flood.statuses)
    return probes, scans


def test_health_check_answers_while_every_engine_slot_is_busy():
    srv = _start_loaded_server("--engine-threads", "1")
    try:
        probes, scans = _probe_while_flooded(srv, "/")
        # Each Scan waits behind the others for the one slot; the health check waits for none.
        assert statistics.median(probes) < statistics.median(scans) / 4, (probes, scans)
        assert max(probes) < 2.0, probes
    finally:
        srv.stop_and_check()


def test_metrics_answer_while_every_engine_slot_is_busy():
    srv = _start_loaded_server("--engine-threads", "1")
    try:
        probes, scans = _probe_while_flooded(srv, "/metrics")
        assert statistics.median(probes) < statistics.median(scans) / 4, (probes, scans)
    finally:
        srv.stop_and_check()


def test_sigterm_while_requests_wait_for_a_slot_answers_them_and_exits_cleanly():
    srv = _start_loaded_server("--engine-threads", "1")
    with _Flood(srv) as flood:
        flood.wait_for_scans(2 * FLOOD_CONNECTIONS)
        # Now one Scan runs and the others are parked; SIGTERM lets them all finish (the
        # grace period is 10 s) and closes each connection after its response.
        with flood.lock:
            before = len(flood.statuses)
        srv.proc.send_signal(15)
        srv.proc.wait(timeout=30)
        flood.stop.set()
    with flood.lock:
        after = len(flood.statuses)
    assert all(s == 200 for s in flood.statuses), flood.statuses
    # The requests waiting at SIGTERM were answered, not dropped (connections closed only
    # between requests). Clients whose next request met a closing connection see an error,
    # which is how HTTP/1.1 ends a keep-alive connection.
    assert after > before
    srv.stop_and_check()
