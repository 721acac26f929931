#!/usr/bin/env python3
"""Global tables (docs/global-tables.md): what replication costs and whether it converges.

Starts build/ddb-server (DDB_SERVER overrides) on a free loopback port with --isolation
account (each Region its own namespace), on a scratch data directory, and runs:

  throughput  PutItem throughput (build/loadgen, closed loop, 16 connections) of a table
              without replicas and of one with two replicas (eu-west-1, ap-southeast-2),
              alternated ROUNDS times; the ratio of the medians.
  lag         PutItem at RATE writes/s (loadgen's open loop) to the global table's Region for
              SECONDS; /metrics sampled every 0.5 s: the worst 99th-percentile lag of any link
              (each sample is the p99 over the link's last 4096 changes) and the worst lag.
  outage      eu-west-1 taken offline (/admin/regions) while RATE puts/s go to us-east-1 for
              OUTAGE_SECONDS; then online: how fast the replica catches up.
  conflicts   N PutItems on KEYS keys from 12 writers, 4 per Region of a three-Region table,
              as fast as they go; then, once every link's backlog is empty, every Region must
              hold the same items, and each key's survivor must be a write that no other
              write to it followed in real time (one that started after it was acknowledged
              would have the later stamp and win: last writer wins).

Traffic goes to 127.0.0.1 only; every phase is bounded in count and time. Reports, never
asserts; exits 1 when the conflicts phase finds a difference.

    bench/global_tables.py [--delay-ms 1000] [--rounds 3] [--seconds 15] [--rate 5000]
                           [--writes 100000] [--keys 1000] [--outage-seconds 60]
                           [--phases throughput,lag,outage,conflicts]
"""
import argparse
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.environ.get("DDB_SERVER", os.path.join(ROOT, "build", "ddb-server"))
LOADGEN = os.environ.get("DDB_LOADGEN", os.path.join(ROOT, "build", "loadgen"))
US, EU, AP = "us-east-1", "eu-west-1", "ap-southeast-2"


class Conn:
    """One keep-alive connection sending unsigned requests in one Region (--auth off reads
    the Region from the credential scope)."""

    def __init__(self, port, region):
        self.c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.region = region

    def call(self, op, body):
        try:
            return self._call(op, body)
        except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
            # The server closes a connection idle past its --read-timeout: open another.
            self.c.close()
            self.c = http.client.HTTPConnection("127.0.0.1", self.c.port, timeout=30)
            return self._call(op, body)

    def _call(self, op, body):
        self.c.request("POST", "/", json.dumps(body), {
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": "DynamoDB_20120810." + op,
            "Authorization": "AWS4-HMAC-SHA256 Credential=bench/20261205/" + self.region +
                             "/dynamodb/aws4_request, SignedHeaders=host, Signature=0"})
        r = self.c.getresponse()
        data = json.loads(r.read() or b"{}")
        if r.status != 200:
            raise RuntimeError(f"{op}: {r.status} {data}")
        return data


def start_server(data_dir, delay_ms):
    p = subprocess.Popen([SERVER, "--port", "0", "--data-dir", data_dir, "--isolation",
                          "account", "--replication-delay-ms", str(delay_ms)],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in p.stdout:
        if line.startswith("LISTENING"):
            return p, int(line.split()[1])
    raise RuntimeError("the server did not start")


def metrics(port):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", "/metrics")
    text = c.getresponse().read().decode()
    out = {}
    for m in re.finditer(r'^(ddb_replication_\w+)\{owner="[^"]*",table="([^"]*)",from="([^"]*)",'
                         r'to="([^"]*)"\} (\d+)$', text, re.M):
        out[(m.group(1), m.group(2), m.group(3), m.group(4))] = int(m.group(5))
    return out


def backlog_empty(port, table):
    m = metrics(port)
    return all(v == 0 for (name, t, _, _), v in m.items()
               if name == "ddb_replication_backlog" and t == table)


def create(conn, name):
    conn.call("CreateTable", {"TableName": name, "BillingMode": "PAY_PER_REQUEST",
                              "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                                       {"AttributeName": "sk", "AttributeType": "S"}],
                              "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                            {"AttributeName": "sk", "KeyType": "RANGE"}]})


def add_replicas(conn, name, regions):
    for region in regions:
        conn.call("UpdateTable", {"TableName": name,
                                  "ReplicaUpdates": [{"Create": {"RegionName": region}}]})
        deadline = time.time() + 300
        while time.time() < deadline:
            d = conn.call("DescribeTable", {"TableName": name})["Table"]
            if all(r["ReplicaStatus"] == "ACTIVE" for r in d.get("Replicas", [])):
                break
            time.sleep(0.1)


def loadgen(port, table, seconds, rate=0, label="-"):
    args = [LOADGEN, "--port", str(port), "--table", table, "--no-create", "--workload", "put",
            "--duration", str(seconds), "--warmup", "1", "--connections", "16", "--label", label,
            "--no-progress"]
    if rate:
        args += ["--rate", str(rate)]
    out = subprocess.run(args, capture_output=True, text=True, timeout=seconds + 120).stdout
    for line in out.splitlines():
        if line.startswith("RESULT") and " op=PutItem " in line:
            fields = dict(kv.split("=", 1) for kv in line.split()[1:])
            return float(fields["rps"]), float(fields["p99_us"]), int(fields["errors"])
    raise RuntimeError("no RESULT line from loadgen:\n" + out)


def phase_throughput(port, rounds, seconds):
    us = Conn(port, US)
    create(us, "plain")
    create(us, "global")
    add_replicas(us, "global", [EU, AP])
    plain, glob = [], []
    for r in range(rounds):
        for table, into in (("plain", plain), ("global", glob)) if r % 2 == 0 else \
                (("global", glob), ("plain", plain)):
            rps, p99, errors = loadgen(port, table, seconds, label=table)
            into.append(rps)
            print(f"  round {r + 1} {table:6}: {rps:8.0f} puts/s  p99 {p99 / 1000:.2f} ms"
                  f"  errors {errors}", flush=True)
        # Let the replicas catch up so the next round starts level.
        deadline = time.time() + 120
        while time.time() < deadline and not backlog_empty(port, "global"):
            time.sleep(0.2)
    ratio = statistics.median(glob) / statistics.median(plain)
    print(f"throughput: plain median {statistics.median(plain):.0f}/s, with two replicas "
          f"{statistics.median(glob):.0f}/s: {ratio:.0%}")


def phase_lag(port, rate, seconds, delay_ms):
    us = Conn(port, US)
    create(us, "laggy")
    add_replicas(us, "laggy", [EU, AP])
    worst_p99, worst_max, samples = 0, 0, 0
    done = threading.Event()
    result = {}

    def run():
        result["load"] = loadgen(port, "laggy", seconds, rate=rate, label="lag")
        done.set()

    t = threading.Thread(target=run)
    t.start()
    time.sleep(2.5)  # past loadgen's warmup and the first delay
    while not done.is_set():
        m = metrics(port)
        for (name, table, _, _), v in m.items():
            if table != "laggy":
                continue
            if name == "ddb_replication_lag_p99_milliseconds":
                worst_p99 = max(worst_p99, v)
            if name == "ddb_replication_lag_max_milliseconds":
                worst_max = max(worst_max, v)
        samples += 1
        time.sleep(0.5)
    t.join()
    rps, p99, errors = result["load"]
    print(f"lag: {rps:.0f} puts/s sent (asked {rate}, errors {errors}, put p99 "
          f"{p99 / 1000:.2f} ms); replication lag over {samples} samples: worst p99 "
          f"{worst_p99} ms, worst {worst_max} ms (delay {delay_ms} ms: p99 - delay = "
          f"{worst_p99 - delay_ms} ms)")


def admin(port, method, path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request(method, path)
    r = c.getresponse()
    r.read()
    if r.status != 200:
        raise RuntimeError(f"{method} {path}: {r.status}")


def phase_outage(port, rate, seconds):
    us = Conn(port, US)
    create(us, "outage")
    add_replicas(us, "outage", [EU])
    admin(port, "POST", f"/admin/regions/{EU}/offline")
    rps, _, errors = loadgen(port, "outage", seconds, rate=rate, label="outage")
    written = int(rps * seconds)
    began = time.monotonic()
    admin(port, "POST", f"/admin/regions/{EU}/online")
    # The backlog only counts what a link has read ahead: done when it is empty and the
    # replica holds every item.
    eu = Conn(port, EU)
    deadline = time.time() + 600
    while time.time() < deadline:
        if backlog_empty(port, "outage"):
            d = eu.call("DescribeTable", {"TableName": "outage"})["Table"]
            src = us.call("DescribeTable", {"TableName": "outage"})["Table"]
            if d["ItemCount"] == src["ItemCount"]:
                break
        time.sleep(0.05)
    took = time.monotonic() - began
    print(f"outage: {seconds} s offline under {rps:.0f} puts/s ({errors} errors), about "
          f"{written} changes behind; caught up in {took:.2f} s: {written / took:.0f} items/s")


def scan_all(conn, table):
    items, body = {}, {"TableName": table, "ConsistentRead": True}
    while True:
        page = conn.call("Scan", body)
        for item in page["Items"]:
            items[item["pk"]["S"]] = item["w"]["S"]
        if "LastEvaluatedKey" not in page:
            return items
        body["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def phase_conflicts(port, writes, keys):
    us = Conn(port, US)
    us.call("CreateTable", {"TableName": "conflicts", "BillingMode": "PAY_PER_REQUEST",
                            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
    add_replicas(us, "conflicts", [EU, AP])
    writers = [(region, i) for region in (US, EU, AP) for i in range(4)]
    per_writer = writes // len(writers)
    log = {}  # write id -> (key, start, end)
    lock = threading.Lock()
    errors = []

    def writer(region, n):
        conn = Conn(port, region)
        mine = {}
        try:
            for j in range(per_writer):
                key = f"k{(j * 7919 + n * 104729 + hash(region)) % keys}"
                wid = f"{region}/{n}/{j}"
                start = time.monotonic()
                conn.call("PutItem", {"TableName": "conflicts",
                                      "Item": {"pk": {"S": key}, "w": {"S": wid}}})
                mine[wid] = (key, start, time.monotonic())
        except Exception as e:  # noqa: BLE001 - reported
            errors.append(e)
        with lock:
            log.update(mine)

    began = time.monotonic()
    threads = [threading.Thread(target=writer, args=w) for w in writers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - began
    deadline = time.time() + 300
    while time.time() < deadline and not backlog_empty(port, "conflicts"):
        time.sleep(0.2)
    time.sleep(2)  # a last change in flight past its delay
    regions = {r: scan_all(Conn(port, r), "conflicts") for r in (US, EU, AP)}
    same = regions[US] == regions[EU] == regions[AP]
    # The survivor of each key: no write to it may have started after it was acknowledged.
    last_start = {}
    for key, start, _ in log.values():
        last_start[key] = max(last_start.get(key, 0), start)
    wrong = [k for k, wid in regions[US].items() if log[wid][2] < last_start[k]]
    print(f"conflicts: {len(log)} writes ({len(errors)} errors) on {keys} keys from 12 writers "
          f"in 3 Regions in {took:.1f} s ({len(log) / took:.0f}/s); Regions identical: {same}; "
          f"{len(regions[US])} items; survivors that a later write should have replaced: "
          f"{len(wrong)}")
    return same and not wrong and not errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--delay-ms", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=15)
    ap.add_argument("--rate", type=int, default=5000)
    ap.add_argument("--writes", type=int, default=100000)
    ap.add_argument("--keys", type=int, default=1000)
    ap.add_argument("--outage-seconds", type=int, default=60)
    ap.add_argument("--phases", default="throughput,lag,outage,conflicts")
    o = ap.parse_args()
    scratch = tempfile.mkdtemp(prefix="ddb-global-bench-")
    proc, port = start_server(os.path.join(scratch, "data"), o.delay_ms)
    ok = True
    try:
        phases = o.phases.split(",")
        if "throughput" in phases:
            phase_throughput(port, o.rounds, o.seconds)
        if "lag" in phases:
            phase_lag(port, o.rate, o.seconds * 2, o.delay_ms)
        if "outage" in phases:
            phase_outage(port, o.rate, o.outage_seconds)
        if "conflicts" in phases:
            ok = phase_conflicts(port, o.writes, o.keys)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        shutil.rmtree(scratch, ignore_errors=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
