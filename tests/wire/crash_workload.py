"""Crash workload: concurrent writers with a record of what was acknowledged, and the checks
run on the store after a crash (kill -9, or a power cut through tests/crash/lossy_fs).

Used by test_kill9.py and test_power_cut.py (short runs), and run as a script for longer
rounds before a release (tools/crash-check.sh):

    python3 tests/wire/crash_workload.py --server build/ddb-server --rounds 5 \
        --durability fsync [--lossy-fs build/lossy_fs]

The table has a hash and range key, a GSI (g, v) and an LSI (lsk). Each writer owns its
keys and writes them one request at a time (PutItem, UpdateItem, DeleteItem, and
BatchWriteItem of several of its keys), so every key has a total order of writes. Per key
the record holds every write issued: its version (unique per key, also in the item), when
it was sent and when (if ever) it was acknowledged. After the crash and a restart on the
same data directory:

  * no lost acknowledged write (kill -9 in any mode; a power cut in fsync mode): each key
    holds the value of its last acknowledged write or of a later, unacknowledged one;
  * a prefix (a power cut in process mode): each key holds some version it was given, and
    any write acknowledged before a surviving write was sent survives too; everything
    acknowledged before the last writeback survives;
  * no torn state: the store opens, every item decodes to a version that was written,
    DescribeTable's ItemCount of the table and of each index equals what a Scan counts,
    and every GSI/LSI entry matches its item and every item its entries, both ways.

A disk-full round (test_disk_full.py, `--disk-full`) puts the data directory on lossy_fs
with a byte budget: writers of new items fill it, writes must then fail with the disk-full
error while reads go on, and once the budget is raised (space freed) writes must succeed
again by themselves, without a restart; after a kill -9 and a restart, no acknowledged write
may be missing (disk_full_round).

Only 127.0.0.1 is contacted; each run is bounded in time and count.
"""

import argparse
import http.client
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

TABLE = "crash"
GSI = "by_g"
LSI = "by_lsk"
TARGET = "DynamoDB_20120810."
AUTH = ("AWS4-HMAC-SHA256 Credential=AKIDCRASHTEST/20260101/us-east-1/dynamodb/aws4_request, "
        "SignedHeaders=host, Signature=0")


class Server:
    """One ddb-server on a data directory; stop() with SIGTERM, kill() with SIGKILL."""

    def __init__(self, binary, data_dir, durability, log_path):
        self.binary, self.data_dir, self.durability = binary, data_dir, durability
        self.log_path = log_path
        self.proc = None
        self.port = None

    def start(self, timeout=60.0):
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [self.binary, "--port", "0", "--data-dir", self.data_dir, "--durability",
             self.durability, "--engine-threads", "32"],
            stdout=subprocess.PIPE, stderr=log)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline().decode()
            if line.startswith("LISTENING "):
                self.port = int(line.split()[1])
                return self
            if not line and self.proc.poll() is not None:
                break
        self.kill()
        raise RuntimeError(f"ddb-server did not start (log: {self.log_path})")

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=30)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


class Client:
    def __init__(self, port, timeout=30):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)

    def call(self, op, body):
        """Returns (status, parsed body); raises OSError/HTTPException when the server goes."""
        self.conn.request("POST", "/", body=json.dumps(body), headers={
            "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": TARGET + op,
            "Authorization": AUTH})
        resp = self.conn.getresponse()
        return resp.status, json.loads(resp.read() or b"{}")

    def ok(self, op, body):
        status, out = self.call(op, body)
        if status != 200:
            raise RuntimeError(f"{op}: {status} {out}")
        return out

    def close(self):
        self.conn.close()


def create_table(client):
    client.ok("CreateTable", {
        "TableName": TABLE,
        "AttributeDefinitions": [{"AttributeName": n, "AttributeType": t} for n, t in
                                 [("pk", "S"), ("sk", "N"), ("g", "S"), ("v", "N"), ("lsk", "N")]],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                      {"AttributeName": "sk", "KeyType": "RANGE"}],
        "GlobalSecondaryIndexes": [{
            "IndexName": GSI, "Projection": {"ProjectionType": "ALL"},
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                          {"AttributeName": "v", "KeyType": "RANGE"}]}],
        "LocalSecondaryIndexes": [{
            "IndexName": LSI, "Projection": {"ProjectionType": "KEYS_ONLY"},
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "lsk", "KeyType": "RANGE"}]}],
        "BillingMode": "PAY_PER_REQUEST"})


def item_of(key, version):
    """The item of a key's write number `version` (a pure function: checks recompute it)."""
    return {"pk": {"S": key}, "sk": {"N": "0"}, "v": {"N": str(version)},
            "g": {"S": f"g{version % 7}"}, "lsk": {"N": str(version * 3)},
            "filler": {"S": f"{key}/{version}/" + "x" * (version % 50)}}


class Op:
    __slots__ = ("version", "deleted", "sent", "acked")

    def __init__(self, version, deleted, sent):
        self.version, self.deleted, self.sent, self.acked = version, deleted, sent, None


class Record:
    """Every write issued, per key, in order (one writer per key)."""

    def __init__(self):
        self.ops = {}  # key -> [Op]
        self.lock = threading.Lock()

    def issue(self, key, deleted):
        ops = self.ops.setdefault(key, [])
        op = Op(len(ops) + 1, deleted, time.monotonic())
        ops.append(op)
        return op


def writer(port, wid, keys_per_writer, record, stop, counts, seed):
    rng = random.Random(seed)
    keys = [f"w{wid:02d}-{i:03d}" for i in range(keys_per_writer)]
    client = Client(port, timeout=30)
    try:
        while not stop.is_set():
            r = rng.random()
            if r < 0.12:  # BatchWriteItem of several keys: one request, one sync
                batch = rng.sample(keys, min(len(keys), rng.randint(2, 8)))
                with record.lock:
                    ops = [(k, record.issue(k, False)) for k in batch]
                body = {"RequestItems": {TABLE: [
                    {"PutRequest": {"Item": item_of(k, op.version)}} for k, op in ops]}}
                status, out = client.call("BatchWriteItem", body)
                if status == 200 and not out.get("UnprocessedItems"):
                    now = time.monotonic()
                    for _, op in ops:
                        op.acked = now
                    counts["items"] += len(ops)
                    counts["requests"] += 1
                elif status < 500:
                    counts["rejected"] += 1
                continue
            key = rng.choice(keys)
            deleted = r < 0.18
            with record.lock:
                op = record.issue(key, deleted)
            if deleted:
                status, _ = client.call("DeleteItem", {
                    "TableName": TABLE, "Key": {"pk": {"S": key}, "sk": {"N": "0"}}})
            elif r < 0.35:
                it = item_of(key, op.version)
                status, _ = client.call("UpdateItem", {
                    "TableName": TABLE, "Key": {"pk": {"S": key}, "sk": {"N": "0"}},
                    "UpdateExpression": "SET v = :v, g = :g, lsk = :l, filler = :p",
                    "ExpressionAttributeValues": {":v": it["v"], ":g": it["g"],
                                                  ":l": it["lsk"], ":p": it["filler"]}})
            else:
                status, _ = client.call("PutItem", {"TableName": TABLE,
                                                    "Item": item_of(key, op.version)})
            if status == 200:
                op.acked = time.monotonic()
                counts["items"] += 1
                counts["requests"] += 1
            elif status < 500:
                counts["rejected"] += 1  # a bug of the workload or the server
    except (OSError, http.client.HTTPException, ValueError):
        pass  # the server is gone: this writer's last write stays unacknowledged
    finally:
        client.close()


def run_load(port, writers, keys_per_writer, duration_s, record, on_running=None, seed=0):
    """Writers for up to duration_s; on_running(elapsed) is called about every 50 ms and
    may end the load (kill the server) by returning True."""
    stop = threading.Event()
    per_writer = [{"items": 0, "requests": 0, "rejected": 0} for _ in range(writers)]
    threads = [threading.Thread(target=writer, daemon=True,
                                args=(port, w, keys_per_writer, record, stop, per_writer[w],
                                      seed * 1000 + w)) for w in range(writers)]
    start = time.monotonic()
    for t in threads:
        t.start()
    while time.monotonic() - start < duration_s:
        time.sleep(0.05)
        if on_running and on_running(time.monotonic() - start):
            break
    stop.set()
    for t in threads:
        t.join(timeout=60)
    return {"acked_items": sum(c["items"] for c in per_writer),
            "acked_requests": sum(c["requests"] for c in per_writer),
            "rejected": sum(c["rejected"] for c in per_writer),
            "load_s": round(time.monotonic() - start, 2)}


def scan_all(client, index=None):
    items, start = [], None
    while True:
        body = {"TableName": TABLE}
        if index:
            body["IndexName"] = index
        else:
            body["ConsistentRead"] = True
        if start:
            body["ExclusiveStartKey"] = start
        out = client.ok("Scan", body)
        items.extend(out["Items"])
        start = out.get("LastEvaluatedKey")
        if not start:
            return items


def check_store(port, record, mode, writeback_at=None):
    """The checks of the module docstring; returns a dict of figures, raises AssertionError.
    mode: "no-loss" or "prefix"."""
    client = Client(port)
    errors = []
    try:
        tables = client.ok("ListTables", {}).get("TableNames", [])
        if TABLE not in tables:
            # Only a power cut in process mode may lose the table (never synced).
            acked = sum(1 for ops in record.ops.values() for op in ops if op.acked)
            if mode == "prefix" and (writeback_at is None or acked == 0):
                return {"table": "lost", "acked_lost": acked}
            raise AssertionError("the table is gone")
        base = scan_all(client)
        gsi = scan_all(client, GSI)
        lsi = scan_all(client, LSI)
        desc = client.ok("DescribeTable", {"TableName": TABLE})["Table"]
    finally:
        client.close()

    recovered = {}
    for it in base:
        key, version = it["pk"]["S"], int(it["v"]["N"])
        if it != item_of(key, version):
            errors.append(f"{key}: item is not version {version} as written: {it}")
        recovered[key] = version

    # Per key: which of its writes the recovered state can be (index into its ops; -1 the
    # state before any write).
    lowest, highest = {}, {}
    lost_acked = 0
    for key, ops in record.ops.items():
        if key in recovered:
            v = recovered[key]
            matches = [v - 1] if 1 <= v <= len(ops) and not ops[v - 1].deleted else []
        else:
            matches = [-1] + [i for i, op in enumerate(ops) if op.deleted]
        if not matches:
            errors.append(f"{key}: holds version {recovered.get(key)}, never written")
            continue
        lowest[key], highest[key] = min(matches), max(matches)
        last_acked = max((i for i, op in enumerate(ops) if op.acked), default=-1)
        if highest[key] < last_acked:
            lost_acked += sum(1 for op in ops[highest[key] + 1:] if op.acked)
            if mode == "no-loss":
                errors.append(f"{key}: acknowledged write {last_acked + 1} lost "
                              f"(holds {highest[key] + 1})")
    for key in recovered:
        if key not in record.ops:
            errors.append(f"{key}: an item nobody wrote")

    if mode == "prefix":
        # Every write acknowledged before a surviving write was sent survives.
        newest_sent = max((record.ops[k][i].sent for k, i in lowest.items() if i >= 0),
                          default=float("-inf"))
        for key, ops in record.ops.items():
            if key not in highest:
                continue
            for i, op in enumerate(ops):
                if op.acked and op.acked < newest_sent and i > highest[key]:
                    errors.append(f"{key}: write {i + 1} acknowledged before a surviving "
                                  f"write was sent, but lost (not a prefix)")
                if op.acked and writeback_at and op.acked < writeback_at and i > highest[key]:
                    errors.append(f"{key}: write {i + 1} acknowledged before the writeback, "
                                  f"but lost")

    # Indexes against the table, both ways.
    want_gsi = {(it["g"]["S"], it["v"]["N"], it["pk"]["S"]): it for it in base}
    got_gsi = {}
    for e in gsi:
        k = (e["g"]["S"], e["v"]["N"], e["pk"]["S"])
        if k in got_gsi:
            errors.append(f"GSI entry twice: {k}")
        got_gsi[k] = e
    for k in want_gsi.keys() - got_gsi.keys():
        errors.append(f"item without its GSI entry: {k}")
    for k in got_gsi.keys() - want_gsi.keys():
        errors.append(f"GSI entry without its item: {k}")
    for k in want_gsi.keys() & got_gsi.keys():
        if want_gsi[k] != got_gsi[k]:
            errors.append(f"GSI entry differs from its item: {k}")
    want_lsi = {(it["pk"]["S"], it["lsk"]["N"]) for it in base}
    got_lsi = [(e["pk"]["S"], e["lsk"]["N"]) for e in lsi]
    if len(got_lsi) != len(set(got_lsi)):
        errors.append("LSI entry twice")
    for k in want_lsi - set(got_lsi):
        errors.append(f"item without its LSI entry: {k}")
    for k in set(got_lsi) - want_lsi:
        errors.append(f"LSI entry without its item: {k}")

    # Counters: exact.
    counts = {"table": desc["ItemCount"]}
    for gi in desc.get("GlobalSecondaryIndexes", []):
        counts[gi["IndexName"]] = gi["ItemCount"]
    for li in desc.get("LocalSecondaryIndexes", []):
        counts[li["IndexName"]] = li["ItemCount"]
    for name, got, want in [("table", counts["table"], len(base)),
                            (GSI, counts.get(GSI), len(gsi)), (LSI, counts.get(LSI), len(lsi))]:
        if got != want:
            errors.append(f"ItemCount of {name} is {got}, a Scan counts {want}")

    if errors:
        raise AssertionError(f"{len(errors)} problem(s) after the crash:\n  " +
                             "\n  ".join(errors[:30]))
    acked = sum(1 for ops in record.ops.values() for op in ops if op.acked)
    unacked = sum(1 for ops in record.ops.values() for op in ops if not op.acked)
    return {"items": len(base), "acked_writes": acked, "unacked_writes": unacked,
            "acked_lost": lost_acked}


def kill9_round(binary, data_dir, durability, log_path, writers=16, keys_per_writer=20,
                kill_after_s=None, seed=0):
    """One round: load, kill -9 mid-load, restart, check. Returns the figures."""
    rng = random.Random(seed)
    server = Server(binary, data_dir, durability, log_path).start()
    try:
        c = Client(server.port)
        if TABLE not in c.ok("ListTables", {}).get("TableNames", []):
            create_table(c)
        c.close()
        record = Record()
        kill_at = kill_after_s if kill_after_s is not None else rng.uniform(1.0, 2.5)
        counts = run_load(server.port, writers, keys_per_writer, kill_at + 30, record,
                          on_running=lambda t: t >= kill_at and (server.kill() or True),
                          seed=seed)
    finally:
        server.kill()
    server = Server(binary, data_dir, durability, log_path).start()
    try:
        figures = check_store(server.port, record, "no-loss")
    finally:
        server.stop()
    figures.update(counts)
    return figures


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.05)


def power_cut_round(binary, lossy_fs, tmp, durability, writers=16, keys_per_writer=20, seed=0,
                    torn_tails=True):
    """One round on a lossy_fs mount: load; in process mode a writeback (the OS writing its
    cache back) at a random moment; kill -9 mid-load and at once the cut (nothing writes in
    between, so it is a power cut at the kill); restart on what was synced; check (no loss in
    fsync mode, a prefix in process mode). Returns the figures, with the cut's report."""
    rng = random.Random(seed)
    mnt = os.path.join(tmp, "mnt")
    os.makedirs(mnt, exist_ok=True)
    fs_log_path = os.path.join(tmp, "lossy_fs.log")
    server_log = os.path.join(tmp, "server.log")
    fs_args = [lossy_fs] + ([f"--torn-tails={seed + 1}"] if torn_tails else []) + [mnt]
    with open(fs_log_path, "ab") as fs_log:
        fs = subprocess.Popen(fs_args, stderr=fs_log)
    server = None
    try:
        wait_for(lambda: os.path.ismount(mnt) or fs.poll() is not None, 10, "the mount")
        if fs.poll() is not None:
            raise RuntimeError(f"lossy_fs exited {fs.returncode} (log: {fs_log_path})")
        data_dir = os.path.join(mnt, "data")
        server = Server(binary, data_dir, durability, server_log).start()
        c = Client(server.port)
        create_table(c)
        c.close()
        record = Record()
        kill_at = rng.uniform(1.5, 3.0)
        writeback = {"at": None, "when": rng.uniform(0.3, kill_at - 0.5)}

        def on_running(t):
            if durability == "process" and writeback["at"] is None and t >= writeback["when"]:
                writeback["at"] = time.monotonic()  # writes acknowledged before: durable
                os.setxattr(mnt, "user.lossyfs.writeback", b"")
            if t >= kill_at:
                server.kill()
                os.setxattr(mnt, "user.lossyfs.cut", b"")
                return True
            return False

        counts = run_load(server.port, writers, keys_per_writer, kill_at + 30, record,
                          on_running=on_running, seed=seed)
        server = Server(binary, data_dir, durability, server_log).start()
        figures = check_store(server.port, record,
                              "no-loss" if durability == "fsync" else "prefix", writeback["at"])
        figures.update(counts)
        with open(fs_log_path) as f:
            cuts = [line.strip() for line in f if line.startswith("cut:")]
        figures["cut"] = cuts[-1] if cuts else None
        return figures
    finally:
        if server:
            server.kill()
        if fs.poll() is None:
            fs.send_signal(signal.SIGTERM)  # lossy_fs unmounts on SIGTERM
            try:
                fs.wait(timeout=10)
            except subprocess.TimeoutExpired:
                fs.kill()
                fs.wait()
        if os.path.ismount(mnt):
            subprocess.run(["umount", "-l", mnt], check=False)


DISK_FULL_MESSAGE = "disk is full"


def metric(port, name):
    """One unlabelled sample of /metrics, or None."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        for line in r.read().decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    return None


class Outcomes:
    """Every answer to a write: when it was sent and answered, and how."""

    def __init__(self):
        self.lock = threading.Lock()
        self.acks = []      # (sent, answered)
        self.errors = []    # (sent, answered, status, type, message)

    def first_ack_sent_after(self, t):
        with self.lock:
            return min((a for s, a in self.acks if s >= t), default=None)


def new_items_writer(port, wid, record, stop, outcomes, seed):
    """Writes new items only (a key is never written twice): PutItem, and BatchWriteItem of
    4 new keys. A refused write is retried by no one; its key stays unacknowledged."""
    rng = random.Random(seed)
    client = Client(port, timeout=30)
    n = 0
    try:
        while not stop.is_set():
            count = 4 if rng.random() < 0.2 else 1
            keys = [f"w{wid:02d}-{n + i:06d}" for i in range(count)]
            n += count
            with record.lock:
                ops = [record.issue(k, False) for k in keys]
            sent = time.monotonic()
            if count == 1:
                status, out = client.call("PutItem", {"TableName": TABLE,
                                                      "Item": item_of(keys[0], 1)})
            else:
                status, out = client.call("BatchWriteItem", {"RequestItems": {TABLE: [
                    {"PutRequest": {"Item": item_of(k, 1)}} for k in keys]}})
                if status == 200 and out.get("UnprocessedItems"):
                    status, out = 0, {"__type": "UnprocessedItems", "message": ""}
            answered = time.monotonic()
            if status == 200:
                for op in ops:
                    op.acked = answered
                with outcomes.lock:
                    outcomes.acks.append((sent, answered))
            else:
                with outcomes.lock:
                    outcomes.errors.append((sent, answered, status,
                                            out.get("__type", ""), out.get("message", "")))
                time.sleep(0.02)  # as a client backing off
    except (OSError, http.client.HTTPException, ValueError):
        pass  # the server is gone: checked by the caller
    finally:
        client.close()


def disk_full_round(binary, lossy_fs, tmp, durability, writers=16, room=256 << 10,
                    outage_s=1.5, seed=0):
    """One round (see the module docstring). Returns the figures; raises AssertionError."""
    mnt = os.path.join(tmp, "mnt")
    os.makedirs(mnt, exist_ok=True)
    fs_log_path = os.path.join(tmp, "lossy_fs.log")
    server_log = os.path.join(tmp, "server.log")
    with open(fs_log_path, "ab") as fs_log:
        fs = subprocess.Popen([lossy_fs, mnt], stderr=fs_log)
    server = None
    stop = threading.Event()
    threads = []
    try:
        wait_for(lambda: os.path.ismount(mnt) or fs.poll() is not None, 10, "the mount")
        if fs.poll() is not None:
            raise RuntimeError(f"lossy_fs exited {fs.returncode} (log: {fs_log_path})")
        data_dir = os.path.join(mnt, "data")
        server = Server(binary, data_dir, durability, server_log).start()
        c = Client(server.port)
        create_table(c)
        record, outcomes = Record(), Outcomes()
        threads = [threading.Thread(target=new_items_writer, daemon=True,
                                    args=(server.port, w, record, stop, outcomes,
                                          seed * 1000 + w)) for w in range(writers)]
        start = time.monotonic()
        for t in threads:
            t.start()
        wait_for(lambda: len(outcomes.acks) >= 200, 30, "200 acknowledged writes")

        # The disk fills: `room` bytes are left.
        used = int(os.getxattr(mnt, "user.lossyfs.used"))
        t_full = time.monotonic()
        os.setxattr(mnt, "user.lossyfs.budget", str(used + room).encode())
        wait_for(lambda: len(outcomes.errors) > 0, 30, "a write refused for want of space")
        t_refused = time.monotonic()
        time.sleep(outage_s)
        # Reads go on; the server is alive and says why it refuses writes.
        assert server.proc.poll() is None, "the server exited on a full disk"
        with record.lock:
            acked = [k for k, ops in record.ops.items() if ops[0].acked]
        key = acked[len(acked) // 2]
        got = c.ok("GetItem", {"TableName": TABLE, "ConsistentRead": True,
                               "Key": {"pk": {"S": key}, "sk": {"N": "0"}}})
        assert got.get("Item") == item_of(key, 1), got
        q = c.ok("Query", {"TableName": TABLE, "KeyConditionExpression": "pk = :k",
                           "ExpressionAttributeValues": {":k": {"S": key}}})
        assert q["Count"] == 1, q
        assert c.ok("Scan", {"TableName": TABLE, "Limit": 5})["Count"] == 5
        c.ok("DescribeTable", {"TableName": TABLE})
        full_gauge = metric(server.port, "ddb_storage_disk_full")
        with outcomes.lock:
            acks_in_outage = sum(1 for s, a in outcomes.acks if s >= t_refused)
            refused_in_outage = sum(1 for e in outcomes.errors if e[0] >= t_refused)

        # Space is freed: writes resume by themselves.
        t_free = time.monotonic()
        os.setxattr(mnt, "user.lossyfs.budget", b"")
        wait_for(lambda: outcomes.first_ack_sent_after(t_free) is not None, 30,
                 "a write acknowledged after space was freed")
        resumed_s = outcomes.first_ack_sent_after(t_free) - t_free
        time.sleep(1.0)
        stop.set()
        for t in threads:
            t.join(timeout=60)
        assert server.proc.poll() is None, "the server exited"
        after_gauge = metric(server.port, "ddb_storage_disk_full")
        stops = metric(server.port, "ddb_storage_write_stops_total")
        resumes = metric(server.port, "ddb_storage_write_resumes_total")
        c.close()
        load_s = time.monotonic() - start

        # A crash after the outage, and a restart on the same data: nothing acknowledged lost.
        server.kill()
        with open(server_log, errors="replace") as f:
            log = f.read()
        server = Server(binary, data_dir, durability, server_log).start()
        figures = check_store(server.port, record, "no-loss")
        errors = outcomes.errors
        kinds = {}
        for e in errors:
            kinds[(e[2], e[3].rsplit("#", 1)[-1], e[4])] = kinds.get(
                (e[2], e[3].rsplit("#", 1)[-1], e[4]), 0) + 1
        figures.update({
            "writers": writers, "durability": durability, "load_s": round(load_s, 2),
            "acked_requests": len(outcomes.acks), "refused_requests": len(errors),
            "refused_in_outage": refused_in_outage, "acked_in_outage": acks_in_outage,
            "first_refusal_s": round(min(e[1] for e in errors) - t_full, 3),
            "resumed_s": round(resumed_s, 3), "error_kinds": kinds,
            "disk_full_gauge": (full_gauge, after_gauge), "stops": stops, "resumes": resumes,
            "log_disk_full_lines": log.count("the disk is full"),
            "log_resumed_lines": log.count("writes resumed"),
        })
        return figures
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=60)
        if server:
            server.kill()
        if fs.poll() is None:
            fs.send_signal(signal.SIGTERM)  # lossy_fs unmounts on SIGTERM
            try:
                fs.wait(timeout=10)
            except subprocess.TimeoutExpired:
                fs.kill()
                fs.wait()
        if os.path.ismount(mnt):
            subprocess.run(["umount", "-l", mnt], check=False)


def check_disk_full_figures(figures, data_path_hint):
    """The disk-full round's checks on its figures (shared by the test and the script)."""
    assert figures["acked_lost"] == 0, figures
    assert figures["acked_requests"] > 200, figures
    assert figures["refused_in_outage"] > 0, figures
    for (status, kind, message), n in figures["error_kinds"].items():
        assert status == 500 and kind == "InternalServerError", figures
        assert DISK_FULL_MESSAGE in message and data_path_hint not in message, figures
    assert figures["disk_full_gauge"] == (1, 0), figures
    assert figures["resumes"] >= 1 and figures["stops"] >= 1, figures
    # Logged once per stop and resume, not per refused write.
    assert figures["log_disk_full_lines"] == figures["stops"], figures
    assert figures["log_resumed_lines"] == figures["resumes"], figures
    assert figures["resumed_s"] < 5.0, figures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--server", default="build/ddb-server")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--durability", choices=["process", "fsync"], default="fsync")
    ap.add_argument("--writers", type=int, default=16)
    ap.add_argument("--lossy-fs", help="lossy_fs binary: power cuts instead of kill -9")
    ap.add_argument("--disk-full", action="store_true",
                    help="disk-full rounds on --lossy-fs instead (disk_full_round)")
    args = ap.parse_args()
    if args.disk_full and not args.lossy_fs:
        ap.error("--disk-full needs --lossy-fs")
    failures = 0
    for r in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="ddb-crash-") as tmp:
            log = os.path.join(tmp, "server.log")
            try:
                if args.disk_full:
                    figures = disk_full_round(args.server, args.lossy_fs, tmp, args.durability,
                                              writers=args.writers, seed=r)
                    check_disk_full_figures(figures, tmp)
                elif args.lossy_fs:
                    figures = power_cut_round(args.server, args.lossy_fs, tmp, args.durability,
                                              writers=args.writers, seed=r)
                else:
                    figures = kill9_round(args.server, os.path.join(tmp, "data"),
                                          args.durability, log, writers=args.writers, seed=r)
                print(f"round {r + 1}: ok {figures}", flush=True)
            except AssertionError as e:
                failures += 1
                print(f"round {r + 1}: FAILED {e}", flush=True)
    print(f"{args.rounds - failures}/{args.rounds} rounds passed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
