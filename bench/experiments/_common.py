"""Shared plumbing of the partition experiments (standard library only).

Each experiment script imports this module and:
  * starts a fresh `build/ddb-server --in-memory --simulate-capacity --port 0` on 127.0.0.1
    (Server; stopped with SIGTERM at the end, whatever happens);
  * drives a bounded, open-loop workload from a few threads over keep-alive HTTP
    connections, SigV4-signed with dummy credentials (Client, run_load);
  * samples GET /metrics while it runs and draws the heat map with tools/heatmap.py;
  * prints its figures (client-side throughput and throttles per second, the server's
    per-partition figures and hot keys).
"""

import argparse
import collections
import datetime
import hashlib
import hmac
import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tools"))
import heatmap  # noqa: E402  (tools/heatmap.py)

ACCESS_KEY = "AKIDEXPERIMENT"
SECRET_KEY = "experiment-secret-key"
REGION = "us-east-1"
PTE = "ProvisionedThroughputExceededException"


def parse_args(description, **defaults):
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--server", default=os.environ.get("DDB_SERVER",
                                                       str(REPO / "build" / "ddb-server")),
                    help="ddb-server binary (default build/ddb-server)")
    ap.add_argument("--out-dir", default=str(HERE), help="where the heat maps go")
    ap.add_argument("--record", action="store_true",
                    help="also keep the /metrics samples (<name>.jsonl) for tools/heatmap.py "
                         "--replay")
    ap.add_argument("--threads", type=int, default=defaults.get("threads", 4),
                    help="client threads")
    ap.add_argument("--interval-ms", type=int, default=defaults.get("interval_ms", 500),
                    help="/metrics sampling interval")
    return ap.parse_args()


# --------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------

class Server:
    def __init__(self, binary, *extra):
        self.binary = binary
        self.extra = list(extra)
        self.proc = None
        self.port = None

    def __enter__(self):
        if not os.access(self.binary, os.X_OK):
            sys.exit(f"no server binary at {self.binary}: build it first "
                     "(cmake --build build) or pass --server")
        self.proc = subprocess.Popen(
            [self.binary, "--in-memory", "--simulate-capacity", "--host", "127.0.0.1",
             "--port", "0", "--log-level", "error", *self.extra],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        line = self.proc.stdout.readline().decode().strip()
        if not line.startswith("LISTENING "):
            self.proc.kill()
            sys.exit(f"server did not start: {line!r}")
        self.port = int(line.split()[1])
        return self

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    def __exit__(self, *exc):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return False


# --------------------------------------------------------------------------
# A small DynamoDB JSON client (SigV4 with dummy credentials)
# --------------------------------------------------------------------------

def _hmac(key, msg):
    return hmac.new(key, msg.encode(), hashlib.sha256).digest()


class Client:
    """One keep-alive connection; call(op, body) -> (status, parsed JSON)."""

    def __init__(self, port):
        self.port = port
        self.host = f"127.0.0.1:{port}"
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def _headers(self, target, payload):
        now = datetime.datetime.now(datetime.timezone.utc)
        amz_date = now.strftime("%Y%m%dT%H%M%SZ")
        day = amz_date[:8]
        payload_hash = hashlib.sha256(payload).hexdigest()
        canonical_headers = (f"content-type:application/x-amz-json-1.0\nhost:{self.host}\n"
                             f"x-amz-date:{amz_date}\nx-amz-target:{target}\n")
        signed = "content-type;host;x-amz-date;x-amz-target"
        canonical = f"POST\n/\n\n{canonical_headers}\n{signed}\n{payload_hash}"
        scope = f"{day}/{REGION}/dynamodb/aws4_request"
        to_sign = (f"AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n"
                   f"{hashlib.sha256(canonical.encode()).hexdigest()}")
        key = _hmac(_hmac(_hmac(_hmac(("AWS4" + SECRET_KEY).encode(), day), REGION),
                          "dynamodb"), "aws4_request")
        signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
        return {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": target,
                "X-Amz-Date": amz_date, "Host": self.host,
                "Authorization": f"AWS4-HMAC-SHA256 Credential={ACCESS_KEY}/{scope}, "
                                 f"SignedHeaders={signed}, Signature={signature}"}

    def call(self, op, body):
        payload = json.dumps(body).encode()
        headers = self._headers("DynamoDB_20120810." + op, payload)
        for attempt in range(2):
            try:
                self.conn.request("POST", "/", body=payload, headers=headers)
                resp = self.conn.getresponse()
                data = resp.read()
                return resp.status, json.loads(data) if data else {}
            except (http.client.HTTPException, ConnectionError):
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def ok(self, op, body):
        status, out = self.call(op, body)
        if status != 200:
            raise RuntimeError(f"{op} failed: {status} {out}")
        return out


def create_table(client, name, hash_key=("pk", "S"), range_key=None, rcu=None, wcu=None,
                 gsis=(), extra_attrs=()):
    """Creates a table (on demand unless rcu/wcu are given); gsis: [(name, hash attr,
    projection, (rcu, wcu) or None)], extra_attrs: [(name, type)] for index keys."""
    attrs = [hash_key] + ([range_key] if range_key else []) + list(extra_attrs)
    body = {"TableName": name,
            "AttributeDefinitions": [{"AttributeName": a, "AttributeType": t}
                                     for a, t in dict(attrs).items()],
            "KeySchema": [{"AttributeName": hash_key[0], "KeyType": "HASH"}]
            + ([{"AttributeName": range_key[0], "KeyType": "RANGE"}] if range_key else [])}
    if rcu is None:
        body["BillingMode"] = "PAY_PER_REQUEST"
    else:
        body["ProvisionedThroughput"] = {"ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu}
    if gsis:
        body["GlobalSecondaryIndexes"] = []
        for gname, attr, projection, tput in gsis:
            g = {"IndexName": gname,
                 "KeySchema": [{"AttributeName": attr, "KeyType": "HASH"}],
                 "Projection": {"ProjectionType": projection}}
            if tput:
                g["ProvisionedThroughput"] = {"ReadCapacityUnits": tput[0],
                                              "WriteCapacityUnits": tput[1]}
            body["GlobalSecondaryIndexes"].append(g)
    client.ok("CreateTable", body)


def pad(nbytes):
    return "x" * max(0, nbytes)


# --------------------------------------------------------------------------
# Open-loop load
# --------------------------------------------------------------------------

class Stats:
    """Per-second client-side figures of a run."""

    def __init__(self):
        self.lock = threading.Lock()
        self.ok = collections.Counter()         # second -> requests answered 200
        self.throttled = collections.Counter()  # second -> ProvisionedThroughputExceeded
        self.other = collections.Counter()      # second -> any other error
        self.reasons = collections.Counter()    # ThrottlingReasons[0].reason
        self.other_errors = collections.Counter()
        self.unprocessed = collections.Counter()  # second -> batch items sent back
        self.units = collections.Counter()      # second -> ConsumedCapacity units (if asked)
        self.offset = 0.0

    def record(self, second, status, out):
        with self.lock:
            if status == 200:
                self.ok[second] += 1
                cc = out.get("ConsumedCapacity")
                if isinstance(cc, dict):
                    self.units[second] += cc.get("CapacityUnits", 0)
                elif isinstance(cc, list):
                    self.units[second] += sum(c.get("CapacityUnits", 0) for c in cc)
                un = out.get("UnprocessedItems") or {}
                self.unprocessed[second] += sum(len(v) for v in un.values())
            elif out.get("__type", "").endswith(PTE):
                self.throttled[second] += 1
                for r in out.get("ThrottlingReasons", [])[:1]:
                    self.reasons[r.get("reason")] += 1
            else:
                self.other[second] += 1
                self.other_errors[out.get("__type", str(status)).split("#")[-1]] += 1

    def totals(self):
        return sum(self.ok.values()), sum(self.throttled.values()), sum(self.other.values())


def run_load(port, seconds, rate, threads, make_request, stats=None, t_offset=0.0):
    """Offers `rate` requests/s (open loop) for `seconds` from `threads` connections.

    make_request(thread, i) -> (operation, body). Returns Stats (seconds counted from
    t_offset, so phases can share one timeline). A thread that falls behind its schedule
    sends at once (no sleeping) until it has caught up.
    """
    stats = stats or Stats()
    start = time.monotonic()
    deadline = start + seconds

    def run(t):
        c = Client(port)
        i = 0
        while True:
            due = start + (i * threads + t) / rate
            now = time.monotonic()
            if due > now:
                time.sleep(due - now)
            if time.monotonic() >= deadline:
                break
            op, body = make_request(t, i)
            status, out = c.call(op, body)
            stats.record(int(t_offset + time.monotonic() - start), status, out)
            i += 1

    ts = [threading.Thread(target=run, args=(t,), daemon=True) for t in range(threads)]
    for th in ts:
        th.start()
    for th in ts:
        th.join(timeout=seconds + 60)
    return stats


def print_timeline(stats, unit_cost=None, title="per second (client side)"):
    """One line per second: ok, throttled, (units admitted)."""
    secs = sorted(set(stats.ok) | set(stats.throttled) | set(stats.other))
    print(f"  {title}:")
    print("    second      ok  throttled" + ("   units/s" if unit_cost else ""))
    for s in secs:
        line = f"    {s:6d}  {stats.ok[s]:6d}  {stats.throttled[s]:9d}"
        if unit_cost:
            line += f"  {stats.ok[s] * unit_cost:8.0f}"
        print(line)


def print_client_summary(label, stats, seconds, unit_cost=None):
    ok, thr, other = stats.totals()
    sent = ok + thr + other
    line = (f"{label}: {sent} requests in {seconds:.0f} s ({sent / seconds:.0f}/s offered), "
            f"{ok} ok ({ok / seconds:.0f}/s), {thr} throttled "
            f"({100.0 * thr / sent if sent else 0:.1f} %)")
    if unit_cost:
        line += f", {ok * unit_cost / seconds:.0f} WCU/s admitted"
    if other:
        line += f", {other} other errors {dict(stats.other_errors)}"
    print(line)
    if stats.reasons:
        print(f"  throttling reasons: {dict(stats.reasons)}")


def heat_map(samples, name, table, index=None, title=None, out_dir=HERE, kind="both",
             y_scale="hash"):
    """Writes <out_dir>/<name>.svg and prints the server-side figures of the run."""
    path = Path(out_dir) / f"{name}.svg"
    path.write_text(heatmap.render_svg(samples, table, index, kind=kind, title=title,
                                       y_scale=y_scale), encoding="utf-8")
    print(heatmap.format_summary(heatmap.summarize(samples, table, index, kind)))
    print(f"  heat map: {os.path.relpath(path, REPO)}")
    return path


def start_sampler(server, args, name):
    record = str(Path(args.out_dir) / f"{name}.jsonl") if args.record else None
    sampler = heatmap.Sampler(server.endpoint, args.interval_ms / 1000.0, record=record)
    sampler.sample_once()  # the state before the workload: the baseline of the figures
    return sampler.start()
