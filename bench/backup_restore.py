#!/usr/bin/env python3
"""Backup and restore of a large table while the server serves another one.

Starts its own ddb-server on 127.0.0.1 (a data directory under /tmp, or --in-memory), loads
--items items (~150 bytes each) into table "big" (optionally with a GSI), enables
point-in-time recovery on it, and meanwhile keeps one client reading table "hot" with GetItem
in a loop. Measures:
  * CreateBackup of "big" (the call; the backup is usable when it returns);
  * RestoreTableFromBackup into a new table, from the call until it is ACTIVE;
  * RestoreTableToPointInTime after --changes further writes, likewise;
  * GetItem latency on "hot" (p50, p99, max) in each phase: idle, backup, restores.

  DDB_SERVER=build/ddb-server /usr/bin/python3 bench/backup_restore.py [--items 1000000]
      [--gsi] [--in-memory] [--changes 10000]
"""
import argparse
import http.client
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import threading
import time

AUTH = ("AWS4-HMAC-SHA256 Credential=AKIDBENCH/20260101/us-east-1/dynamodb/aws4_request, "
        "SignedHeaders=host;x-amz-date, Signature=0000")


class Client:
    def __init__(self, port):
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def call(self, op, body):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        headers = {"X-Amz-Target": "DynamoDB_20120810." + op,
                   "Content-Type": "application/x-amz-json-1.0",
                   "Authorization": AUTH, "X-Amz-Date": "20260101T000000Z"}
        try:
            self.conn.request("POST", "/", data, headers)
            r = self.conn.getresponse()
        except (http.client.HTTPException, OSError):
            # The server closes connections idle for 30 s: connect again.
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
            self.conn.request("POST", "/", data, headers)
            r = self.conn.getresponse()
        out = json.loads(r.read() or b"{}")
        if r.status != 200:
            raise RuntimeError(f"{op}: {r.status} {out}")
        return out


def load(port, table, count, threads, gsi):
    def worker(first):
        c = Client(port)
        for start in range(first * 25, count, 25 * threads):
            items = []
            for i in range(start, min(start + 25, count)):
                item = {"pk": {"S": f"item-{i:08d}"}, "n": {"N": str(i)},
                        "pad": {"S": "x" * 100}}
                if gsi:
                    item["g"] = {"S": f"g{i % 1000}"}
                items.append({"PutRequest": {"Item": item}})
            body = {"RequestItems": {table: items}}
            while True:
                left = c.call("BatchWriteItem", body).get("UnprocessedItems", {})
                if not left:
                    break
                body = {"RequestItems": left}

    ts = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


class Reader(threading.Thread):
    """GetItem on "hot" in a loop; latencies are recorded per phase."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.client = Client(port)
        self.phase = None
        self.samples = {}
        self.stop = False

    def run(self):
        i = 0
        while not self.stop:
            body = json.dumps({"TableName": "hot",
                               "Key": {"pk": {"S": f"h{i % 1000}"}}}).encode()
            t0 = time.perf_counter()
            self.client.call("GetItem", body)
            dt = (time.perf_counter() - t0) * 1000
            if self.phase:
                self.samples.setdefault(self.phase, []).append(dt)
            i += 1
            time.sleep(0.001)

    def report(self, phase):
        s = sorted(self.samples.get(phase, []))
        if not s:
            return f"{phase}: no samples"
        p = lambda q: s[min(len(s) - 1, int(q * len(s)))]
        return (f"{phase}: GetItem n={len(s)} p50={p(0.5):.2f} ms p99={p(0.99):.2f} ms "
                f"max={s[-1]:.2f} ms")


def wait_active(c, table):
    while c.call("DescribeTable", {"TableName": table})["Table"]["TableStatus"] != "ACTIVE":
        time.sleep(0.02)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--items", type=int, default=1_000_000)
    p.add_argument("--changes", type=int, default=10_000)
    p.add_argument("--threads", type=int, default=4)
    p.add_argument("--gsi", action="store_true")
    p.add_argument("--in-memory", action="store_true")
    args = p.parse_args()
    data = tempfile.mkdtemp(prefix="ddb-bench-backup-")
    where = ["--in-memory"] if args.in_memory else ["--data-dir", data]
    server = subprocess.Popen([os.environ.get("DDB_SERVER", "build/ddb-server"), *where,
                               "--port", "0", "--log-level", "error"],
                              stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline().split()[1])
        c = Client(port)
        defs = [{"AttributeName": "pk", "AttributeType": "S"}]
        big = {"TableName": "big", "BillingMode": "PAY_PER_REQUEST",
               "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}
        if args.gsi:
            defs.append({"AttributeName": "g", "AttributeType": "S"})
            big["GlobalSecondaryIndexes"] = [{
                "IndexName": "byg", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"}}]
        big["AttributeDefinitions"] = defs
        c.call("CreateTable", big)
        c.call("CreateTable", {"TableName": "hot", "BillingMode": "PAY_PER_REQUEST",
                               "AttributeDefinitions": [{"AttributeName": "pk",
                                                         "AttributeType": "S"}],
                               "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
        load(port, "hot", 1000, 1, False)
        c.call("UpdateContinuousBackups", {"TableName": "big",
                                           "PointInTimeRecoverySpecification": {
                                               "PointInTimeRecoveryEnabled": True}})
        t0 = time.time()
        load(port, "big", args.items, args.threads, args.gsi)
        load_s = time.time() - t0
        print(f"loaded {args.items} items in {load_s:.1f} s ({args.items / load_s:.0f}/s)")

        reader = Reader(port)
        reader.start()
        reader.phase = "idle"
        time.sleep(3)

        reader.phase = "backup"
        t0 = time.perf_counter()
        backup = c.call("CreateBackup", {"TableName": "big", "BackupName": "bench"})
        backup_s = time.perf_counter() - t0
        time.sleep(1)

        reader.phase = "restore"
        t0 = time.perf_counter()
        c.call("RestoreTableFromBackup", {"TargetTableName": "big_restored",
                                          "BackupArn": backup["BackupDetails"]["BackupArn"]})
        wait_active(c, "big_restored")
        restore_s = time.perf_counter() - t0
        reader.phase = None
        count = c.call("DescribeTable", {"TableName": "big_restored"})["Table"]["ItemCount"]
        assert count == args.items, count

        # Point in time: a moment, then --changes more writes, then restore to the moment.
        time.sleep(1.1)
        moment = time.time()
        time.sleep(0.05)
        load(port, "big", args.changes, args.threads, args.gsi)  # overwrites the first items
        time.sleep(1.1)
        reader.phase = "pitr restore"
        t0 = time.perf_counter()
        c.call("RestoreTableToPointInTime", {"SourceTableName": "big",
                                             "TargetTableName": "big_pitr",
                                             "RestoreDateTime": moment})
        wait_active(c, "big_pitr")
        pitr_s = time.perf_counter() - t0
        reader.phase = None
        reader.stop = True
        reader.join(timeout=5)
        count = c.call("DescribeTable", {"TableName": "big_pitr"})["Table"]["ItemCount"]
        assert count == args.items, count

        print(f"CreateBackup of {args.items} items: {backup_s * 1000:.1f} ms")
        print(f"RestoreTableFromBackup to ACTIVE: {restore_s:.2f} s "
              f"({args.items / restore_s:.0f} items/s)")
        print(f"RestoreTableToPointInTime ({args.changes} changes since) to ACTIVE: "
              f"{pitr_s:.2f} s")
        for phase in ("idle", "backup", "restore", "pitr restore"):
            print(reader.report(phase))
        if not args.in_memory:
            du = subprocess.run(["du", "-sm", data], capture_output=True, text=True).stdout
            print(f"data directory: {du.split()[0]} MB")
    finally:
        server.terminate()
        server.wait(timeout=60)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
