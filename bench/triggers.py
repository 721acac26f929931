#!/usr/bin/env python3
"""Stream triggers (docs/triggers.md): how soon an event source mapping invokes its function,
and whether every record gets there, in order, when the function fails at random.

Starts build/ddb-server (DDB_SERVER overrides) on a free loopback port (in memory) with
--lambda-endpoint pointing at a function served by this script (a ThreadingHTTPServer on
another free loopback port), creates a table with a stream and a mapping, and runs:

  latency   PutItem at RATE writes/s from 4 writers for SECONDS (default batching window);
            for each record, the time from the PutItem's answer to the function receiving
            it: p50, p99, max.
  delivery  WRITES PutItems on KEYS keys (each item carries its writer's counter) while the
            function fails a fraction FAIL of its invocations (an X-Amz-Function-Error
            answer); then, once the stream is drained: every write delivered at least once,
            each key's writes first delivered in the order they were made, none skipped.

Traffic goes to 127.0.0.1 only; each phase is bounded in count and time. Reports, never
asserts; exits 1 when the delivery phase finds a record missing or out of order.

    bench/triggers.py [--rate 1000] [--seconds 20] [--writes 100000] [--keys 1000]
                      [--fail 0.1] [--phases latency,delivery]
"""
import argparse
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.environ.get("DDB_SERVER", os.path.join(ROOT, "build", "ddb-server"))
REGION = "us-east-1"


class Function:
    """Records when each record (by its item's "id") first arrived, and every delivery."""

    def __init__(self):
        self.lock = threading.Lock()
        self.first_arrival = {}
        self.deliveries = []  # (pk, n) in arrival order
        self.fail = 0.0
        self.invocations = 0
        self.failures = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                now = time.monotonic()
                event = json.loads(body)
                with outer.lock:
                    outer.invocations += 1
                    failing = random.random() < outer.fail
                    if failing:
                        outer.failures += 1
                    else:
                        for r in event["Records"]:
                            img = r["dynamodb"]["NewImage"]
                            key = img["id"]["S"]
                            outer.first_arrival.setdefault(key, now)
                            outer.deliveries.append((img["pk"]["S"], int(img["n"]["N"])))
                answer = b'{"errorMessage":"chaos","errorType":"Error"}' if failing else b"null"
                self.send_response(200)
                if failing:
                    self.send_header("X-Amz-Function-Error", "Unhandled")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"


class Conn:
    def __init__(self, port, service="dynamodb"):
        self.c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.auth = ("AWS4-HMAC-SHA256 Credential=bench/20261205/" + REGION + "/" + service +
                     "/aws4_request, SignedHeaders=host, Signature=0")

    def call(self, op, body):
        self.c.request("POST", "/", json.dumps(body), {
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": "DynamoDB_20120810." + op, "Authorization": self.auth})
        r = self.c.getresponse()
        data = json.loads(r.read() or b"{}")
        if r.status != 200:
            raise RuntimeError(f"{op}: {r.status} {data}")
        return data

    def rest(self, method, path, body):
        self.c.request(method, path, json.dumps(body), {"Content-Type": "application/json",
                                                         "Authorization": self.auth})
        r = self.c.getresponse()
        data = json.loads(r.read() or b"{}")
        if r.status >= 300:
            raise RuntimeError(f"{method} {path}: {r.status} {data}")
        return data


def start_server(function):
    p = subprocess.Popen([SERVER, "--port", "0", "--in-memory", "--lambda-endpoint", function.url],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in p.stdout:
        if line.startswith("LISTENING"):
            return p, int(line.split()[1])
    raise RuntimeError("the server did not start")


def table_and_mapping(port, name):
    ddb = Conn(port)
    d = ddb.call("CreateTable", {
        "TableName": name, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}})
    stream = d["TableDescription"]["LatestStreamArn"]
    m = Conn(port, "lambda").rest("POST", "/2015-03-31/event-source-mappings/", {
        "FunctionName": "bench", "EventSourceArn": stream, "StartingPosition": "TRIM_HORIZON",
        "BatchSize": 100})
    return m["UUID"]


def phase_latency(port, function, rate, seconds):
    table_and_mapping(port, "latency")
    acks = {}
    lock = threading.Lock()
    writers = 4
    per_writer = rate / writers

    def writer(w):
        c = Conn(port)
        start = time.monotonic()
        n = 0
        while time.monotonic() - start < seconds:
            due = start + n / per_writer
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            key = f"w{w}-{n}"
            c.call("PutItem", {"TableName": "latency", "Item": {
                "pk": {"S": key}, "id": {"S": key}, "n": {"N": str(n)}}})
            with lock:
                acks[key] = time.monotonic()
            n += 1

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with function.lock:
            if all(k in function.first_arrival for k in acks):
                break
        time.sleep(0.1)
    with function.lock:
        lat = sorted(max(0.0, function.first_arrival[k] - t) * 1000 for k, t in acks.items()
                     if k in function.first_arrival)
    missing = len(acks) - len(lat)
    achieved = len(acks) / seconds
    print(f"latency: {len(acks)} writes at {achieved:.0f}/s for {seconds} s; write -> invocation "
          f"p50 {lat[len(lat) // 2]:.1f} ms, p99 {lat[int(len(lat) * 0.99)]:.1f} ms, "
          f"max {lat[-1]:.1f} ms; {missing} not delivered within 30 s")


def phase_delivery(port, function, writes, keys, fail):
    function.fail = fail
    function.deliveries.clear()
    table_and_mapping(port, "delivery")
    counters = [0] * keys
    lock = threading.Lock()
    written = [0]

    def writer(w, count):
        c = Conn(port)
        for i in range(count):
            k = random.randrange(keys)
            with lock:  # a key's counter grows in the order its writes are made
                n = counters[k]
                counters[k] += 1
                c.call("PutItem", {"TableName": "delivery", "Item": {
                    "pk": {"S": f"k{k}"}, "id": {"S": f"k{k}-{n}"}, "n": {"N": str(n)}}})
                written[0] += 1

    start = time.monotonic()
    writers = 4
    threads = [threading.Thread(target=writer, args=(w, writes // writers)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    total = written[0]
    wrote_s = time.monotonic() - start
    deadline = time.monotonic() + 600
    expected = {(f"k{k}", n) for k in range(keys) for n in range(counters[k])}
    while time.monotonic() < deadline:
        with function.lock:
            if expected <= set(function.deliveries):
                break
        time.sleep(0.2)
    drained_s = time.monotonic() - start
    with function.lock:
        delivered = set(function.deliveries)
        seen = {}
        out_of_order = 0
        for pk, n in function.deliveries:
            last = seen.get(pk, -1)
            if n > last + 1:
                out_of_order += 1  # a later write first delivered before an earlier one
            if n > last:
                seen[pk] = n
        invocations, failures = function.invocations, function.failures
        duplicates = len(function.deliveries) - len(delivered)
    missing = len(expected - delivered)
    print(f"delivery: {total} writes on {keys} keys in {wrote_s:.1f} s; function failing "
          f"{fail:.0%} of invocations ({failures} of {invocations}); all delivered after "
          f"{drained_s:.1f} s: {missing} missing, {out_of_order} out of order per key, "
          f"{duplicates} deliveries again after a failed batch's retry")
    return missing == 0 and out_of_order == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", type=int, default=1000)
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--writes", type=int, default=100000)
    ap.add_argument("--keys", type=int, default=1000)
    ap.add_argument("--fail", type=float, default=0.1)
    ap.add_argument("--phases", default="latency,delivery")
    args = ap.parse_args()
    function = Function()
    proc, port = start_server(function)
    ok = True
    try:
        phases = args.phases.split(",")
        if "latency" in phases:
            phase_latency(port, function, args.rate, args.seconds)
        if "delivery" in phases:
            ok = phase_delivery(port, function, args.writes, args.keys, args.fail)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        function.server.shutdown()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
