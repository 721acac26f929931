#!/usr/bin/env python3
"""Kinesis streaming destinations (docs/kinesis.md): the write rate a table sustains with a
destination, beside the same table without one, and how far a consumer reading the stream
lags behind the writes.

Starts build/ddb-server (DDB_SERVER overrides) on a free loopback port (in memory; --data-dir
DIR for a store on disk), creates a Kinesis stream of SHARDS shards and two tables, one with
the stream as its destination, and runs for each table in turn:

  writers  W threads of BatchWriteItem (25 items of ~200 B) at RATE items/s in all, for
           SECONDS; reports the items/s achieved and the calls' p50/p99.
  consumer (destination table only) one thread per shard reading GetRecords in a loop from
           TRIM_HORIZON; for each record, the time from its ApproximateCreationDateTime to
           its reading: p50, p99, max; the largest MillisBehindLatest answered; and whether
           every write arrived once.

Traffic goes to 127.0.0.1 only; each phase is bounded in time. Reports, never asserts; exits
1 when the consumer misses a record or reads one twice.

    bench/kinesis.py [--rate 10000] [--seconds 20] [--writers 4] [--shards 4] [--data-dir DIR]
"""
import argparse
import base64
import http.client
import json
import os
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.environ.get("DDB_SERVER", os.path.join(ROOT, "build", "ddb-server"))
REGION = "us-east-1"
PAD = "x" * 160


class Conn:
    def __init__(self, port, service="dynamodb"):
        self.c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.service = service
        self.auth = ("AWS4-HMAC-SHA256 Credential=bench/20261205/" + REGION + "/" + service +
                     "/aws4_request, SignedHeaders=host, Signature=0")

    def call(self, op, body):
        kinesis = self.service == "kinesis"
        self.c.request("POST", "/", json.dumps(body), {
            "Content-Type": "application/x-amz-json-1." + ("1" if kinesis else "0"),
            "X-Amz-Target": ("Kinesis_20131202." if kinesis else "DynamoDB_20120810.") + op,
            "Authorization": self.auth})
        r = self.c.getresponse()
        raw = r.read()
        data = json.loads(raw) if raw else {}
        if r.status != 200:
            raise RuntimeError(f"{op}: {r.status} {data}")
        return data


def start_server(data_dir):
    store = ["--data-dir", data_dir] if data_dir else ["--in-memory"]
    p = subprocess.Popen([SERVER, "--port", "0", *store], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    for line in p.stdout:
        if line.startswith("LISTENING"):
            return p, int(line.split()[1])
    raise RuntimeError("the server did not start")


def pct(values, q):
    return values[min(len(values) - 1, int(len(values) * q))] if values else float("nan")


def write_phase(port, table, rate, seconds, writers):
    per_writer = rate / writers / 25  # calls per second per writer
    latencies = []
    written = [0]
    lock = threading.Lock()

    def writer(w):
        c = Conn(port)
        start = time.monotonic()
        n = 0
        mine = []
        while time.monotonic() - start < seconds:
            due = start + n / per_writer
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            items = [{"PutRequest": {"Item": {"pk": {"S": f"w{w}-{n}-{i}"}, "pad": {"S": PAD}}}}
                     for i in range(25)]
            t0 = time.monotonic()
            out = c.call("BatchWriteItem", {"RequestItems": {table: items}})
            mine.append((time.monotonic() - t0) * 1000)
            if out.get("UnprocessedItems"):
                raise RuntimeError("unprocessed items")
            n += 1
        with lock:
            latencies.extend(mine)
            written[0] += n * 25

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - t0
    latencies.sort()
    return written[0], written[0] / elapsed, pct(latencies, 0.5), pct(latencies, 0.99)


class Consumer:
    def __init__(self, port, stream, shards):
        self.lags = []
        self.seen = {}
        self.behind = 0
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self.read, args=(port, stream, s))
                        for s in range(shards)]
        for t in self.threads:
            t.start()

    def read(self, port, stream, shard):
        c = Conn(port, "kinesis")
        it = c.call("GetShardIterator", {"StreamName": stream,
                                         "ShardId": f"shardId-{shard:012d}",
                                         "ShardIteratorType": "TRIM_HORIZON"})["ShardIterator"]
        idle_after_stop = 0
        while idle_after_stop < 2:
            page = c.call("GetRecords", {"ShardIterator": it, "Limit": 10000})
            now_ms = time.time() * 1000
            it = page["NextShardIterator"]
            with self.lock:
                self.behind = max(self.behind, page.get("MillisBehindLatest", 0))
                for r in page["Records"]:
                    change = json.loads(base64.b64decode(r["Data"]))
                    key = change["dynamodb"]["Keys"]["pk"]["S"]
                    self.seen[key] = self.seen.get(key, 0) + 1
                    self.lags.append(now_ms - change["dynamodb"]["ApproximateCreationDateTime"])
            if not page["Records"]:
                if self.stop.is_set():
                    idle_after_stop += 1
                time.sleep(0.05)

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", type=int, default=10000)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--data-dir")
    args = ap.parse_args()
    proc, port = start_server(args.data_dir)
    try:
        ddb = Conn(port)
        kin = Conn(port, "kinesis")
        kin.call("CreateStream", {"StreamName": "changes", "ShardCount": args.shards})
        arn = kin.call("DescribeStreamSummary", {"StreamName": "changes"})[
            "StreamDescriptionSummary"]["StreamARN"]
        for table in ("plain", "withkds"):
            ddb.call("CreateTable", {
                "TableName": table, "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
        ddb.call("EnableKinesisStreamingDestination", {"TableName": "withkds", "StreamArn": arn})
        store = f"data dir {args.data_dir}" if args.data_dir else "in memory"
        print(f"# {store}; {args.writers} writers of BatchWriteItem (25 x ~200 B), target "
              f"{args.rate} items/s, {args.seconds:.0f} s per table; {args.shards} shards")
        n, rate, p50, p99 = write_phase(port, "plain", args.rate, args.seconds, args.writers)
        print(f"no destination:   {n} items, {rate:.0f} items/s; BatchWriteItem p50 {p50:.1f} ms, "
              f"p99 {p99:.1f} ms")
        consumer = Consumer(port, "changes", args.shards)
        n2, rate2, p50b, p99b = write_phase(port, "withkds", args.rate, args.seconds,
                                            args.writers)
        consumer.finish()
        print(f"with destination: {n2} items, {rate2:.0f} items/s ({rate2 / rate:.2f} of the "
              f"plain table); BatchWriteItem p50 {p50b:.1f} ms, p99 {p99b:.1f} ms")
        lags = sorted(consumer.lags)
        twice = sum(1 for v in consumer.seen.values() if v > 1)
        missing = n2 - len(consumer.seen)
        print(f"consumer: {len(lags)} records on {args.shards} shards; change -> read p50 "
              f"{pct(lags, 0.5):.0f} ms, p99 {pct(lags, 0.99):.0f} ms, max {lags[-1]:.0f} ms; "
              f"largest MillisBehindLatest {consumer.behind} ms; {missing} missing, "
              f"{twice} read twice")
        return 1 if missing or twice else 0
    finally:
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
