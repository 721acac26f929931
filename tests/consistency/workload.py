#!/usr/bin/env python3
"""The consistency workload (issue 29): concurrent clients against a real ddb-server, a
nemesis that kill -9s and restarts it, and a history for checker.py.

    python3 tests/consistency/workload.py --history H.jsonl [--seconds 60] [--clients 8]
        [--kill-every 10] [--durability fsync] [--in-memory] [--server build/ddb-server]

Each client (a thread with its own raw HTTP connection; no client-side retries, so every
outcome is seen) loops over:
  TransactWriteItems  list_append of a unique value (sometimes two) to 1-4 list keys, with a
                      ClientRequestToken; when the outcome is indeterminate the same request,
                      same token, is resent once the server answers again (as the SDKs do,
                      well within the token's 10 minutes) and recorded as one logical op;
  TransactGetItems    reads of 1-4 list keys;
  UpdateItem          list_append outside a transaction (no token: indeterminate stays info);
  GetItem             ConsistentRead of a list key or of a register;
  PutItem/UpdateItem  compare-and-set of a register with a ConditionExpression.
Outcomes: 200 ok; a DynamoDB 4xx error fail; connection refused before sending fail; any
other connection error, a timeout or a 5xx info. TransactionInProgressException for a resent
token means the first attempt may still run: the op stays open and is resent later.
List keys and registers retire after a fixed number of ops, so lists stay short and the
checker's searches small. At the end every key is read once more (ConsistentRead).

The nemesis kills the server with SIGKILL (its own PID, never by name) every --kill-every
seconds and restarts it on the same data directory and port. Only 127.0.0.1 is contacted;
the run ends by itself after --seconds or --max-ops, whichever comes first.

Thread-safety: the Recorder and the key pools take their locks; everything else is owned by
one thread.
"""

import argparse
import http.client
import itertools
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

TABLE = "jepsen"
TARGET = "DynamoDB_20120810."
AUTH = ("AWS4-HMAC-SHA256 Credential=AKIDJEPSENTEST/20260101/us-east-1/dynamodb/aws4_request, "
        "SignedHeaders=host, Signature=0")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESEND_WINDOW_S = 120.0  # how long an indeterminate transaction is resent (tokens: 10 min)


# ------------------------------------------------------------------------------------------
# The server and the nemesis
# ------------------------------------------------------------------------------------------

class Server:
    """One ddb-server; the first start picks a free port, restarts reuse it."""

    def __init__(self, binary, data_dir, durability, log_path, in_memory=False):
        self.binary, self.data_dir, self.durability = binary, data_dir, durability
        self.in_memory, self.log_path = in_memory, log_path
        self.proc, self.port = None, 0
        self.generation = 0  # bumped by each start: connections older than it are dead

    def start(self, timeout=60.0):
        args = [self.binary, "--port", str(self.port), "--log-level", "warn"]
        args += ["--in-memory"] if self.in_memory else ["--data-dir", self.data_dir,
                                                        "--durability", self.durability]
        deadline = time.monotonic() + timeout
        while True:
            with open(self.log_path, "ab") as log:
                self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                             stdout=subprocess.PIPE, stderr=log)
            line = self.proc.stdout.readline().decode()
            if line.startswith("LISTENING "):
                self.port = int(line.split()[1])
                self.generation += 1
                # Keep draining stdout so the server never blocks on a full pipe.
                threading.Thread(target=self.proc.stdout.read, daemon=True).start()
                return self
            self.proc.wait(timeout=30)
            if time.monotonic() > deadline:  # e.g. the port is still held
                raise RuntimeError(f"ddb-server did not start (log: {self.log_path})")
            time.sleep(0.5)

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

    def alive(self):
        return self.proc is not None and self.proc.poll() is None


def nemesis(server, recorder, every_s, stop, figures):
    """kill -9 and restart the server every every_s seconds until stop is set."""
    while not stop.wait(every_s):
        recorder.event("nemesis", "invoke", "kill", [])
        server.kill()
        figures["kills"] += 1
        time.sleep(0.2)
        server.start()
        recorder.event("nemesis", "info", "kill", [], port=server.port)


# ------------------------------------------------------------------------------------------
# The history and the keys
# ------------------------------------------------------------------------------------------

class Recorder:
    """The history in the order events happen (a lock orders them), written as JSON lines."""

    def __init__(self, path):
        self.f = open(path, "w", encoding="utf-8")
        self.lock = threading.Lock()

    def event(self, process, type_, f, value, **extra):
        e = {"process": process, "type": type_, "f": f, "value": value}
        e.update(extra)
        line = json.dumps(e, separators=(",", ":")) + "\n"
        with self.lock:
            self.f.write(line)

    def close(self):
        with self.lock:
            self.f.close()


class KeyPool:
    """A window of live keys; each retires after `budget` uses and a new one takes its place."""

    def __init__(self, prefix, window, budget):
        self.prefix, self.budget = prefix, budget
        self.lock = threading.Lock()
        self.next = window
        self.live = {f"{prefix}{i}": 0 for i in range(window)}
        self.all = list(self.live)

    def take(self, rng, n):
        with self.lock:
            ks = rng.sample(sorted(self.live), n)
            for k in ks:
                self.live[k] += 1
                if self.live[k] >= self.budget:
                    del self.live[k]
                    new = f"{self.prefix}{self.next}"
                    self.next += 1
                    self.live[new] = 0
                    self.all.append(new)
            return ks


# ------------------------------------------------------------------------------------------
# Requests
# ------------------------------------------------------------------------------------------

class Outcome(Exception):
    pass


class Conn:
    """A raw HTTP connection to the server; call() classifies the outcome."""

    def __init__(self, server, timeout):
        self.server, self.timeout, self.c, self.gen = server, timeout, None, 0

    def call(self, op, body):
        """("ok", body) | ("fail", error type) | ("info", why)."""
        data = json.dumps(body)
        sent = False
        if self.c is not None and self.gen != self.server.generation:
            self.close()  # the server was restarted since: this connection is dead
        try:
            if self.c is None:
                self.gen = self.server.generation
                self.c = http.client.HTTPConnection("127.0.0.1", self.server.port,
                                                    timeout=self.timeout)
                self.c.connect()
            sent = True
            self.c.request("POST", "/", body=data, headers={
                "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": TARGET + op,
                "Authorization": AUTH})
            resp = self.c.getresponse()
            raw = resp.read()
        except (OSError, http.client.HTTPException) as e:
            self.close()
            if not sent and isinstance(e, ConnectionRefusedError):
                return "fail", "ConnectionRefused"
            return "info", type(e).__name__
        if resp.status == 200:
            return "ok", json.loads(raw or b"{}")
        try:
            err = json.loads(raw).get("__type", "").split("#")[-1]
        except ValueError:
            err = ""
        if 400 <= resp.status < 500 and err:
            return "fail", err
        self.close()
        return "info", f"HTTP {resp.status} {err}"

    def close(self):
        if self.c is not None:
            self.c.close()
            self.c = None


def n_list(vals):
    return {"L": [{"N": str(v)} for v in vals]}


def read_list(item):
    if not item or "l" not in item:
        return None
    return [int(x["N"]) for x in item["l"]["L"]]


def read_reg(item):
    if not item or "v" not in item:
        return None
    return int(item["v"]["N"])


APPEND = "SET l = list_append(if_not_exists(l, :e), :v)"


class Client:
    def __init__(self, cid, server, rec, lists, regs, counter, rng, figures, timeout):
        self.cid, self.server, self.rec = cid, server, rec
        self.lists, self.regs, self.counter, self.rng = lists, regs, counter, rng
        self.figures, self.conn = figures, Conn(server, timeout)
        self.known = {}  # register -> last value this client saw
        self.new_token_on_resend = False

    def appends(self, ks):
        """Micro-ops appending one value (sometimes two, in one action) to each key."""
        ms = []
        for k in ks:
            for _ in range(2 if self.rng.random() < 0.15 else 1):
                ms.append(["append", k, next(self.counter)])
        return ms

    def update_of(self, k, ms):
        return {"TableName": TABLE, "Key": {"pk": {"S": k}}, "UpdateExpression": APPEND,
                "ExpressionAttributeValues": {":e": {"L": []},
                                              ":v": n_list(m[2] for m in ms if m[1] == k)}}

    def finish(self, f, value, outcome, detail, **extra):
        with self.figures["lock"]:
            self.figures[outcome] += 1
            if outcome == "fail":
                self.figures["errors"][detail] = self.figures["errors"].get(detail, 0) + 1
        if outcome == "fail":
            self.rec.event(self.cid, "fail", f, None, error=detail, **extra)
        elif outcome == "info":
            self.rec.event(self.cid, "info", f, None, error=detail, **extra)
        else:
            self.rec.event(self.cid, "ok", f, value, **extra)
        if outcome != "ok" and detail not in ("ConditionalCheckFailedException",):
            time.sleep(0.02)  # the server may be down: do not spin

    def txn_write(self, stop_at):
        ks = self.lists.take(self.rng, self.rng.randint(1, 4))
        ms = self.appends(ks)
        token = uuid.uuid4().hex
        body = {"TransactItems": [{"Update": self.update_of(k, ms)} for k in ks],
                "ClientRequestToken": token}
        self.rec.event(self.cid, "invoke", "txn-write", ms, token=token)
        attempts, outcome, detail = 1, *self.conn.call("TransactWriteItems", body)
        give_up = max(stop_at, time.monotonic()) + RESEND_WINDOW_S
        while (outcome == "info" or detail == "TransactionInProgressException") and \
                time.monotonic() < give_up:
            time.sleep(0.1)  # until the server answers again (the nemesis restarts it)
            attempts += 1
            if self.new_token_on_resend:  # a broken client, to show the checker catches it
                body["ClientRequestToken"] = token = uuid.uuid4().hex
            outcome, detail = self.conn.call("TransactWriteItems", body)
            if outcome == "fail" and detail == "ConnectionRefused":
                outcome = "info"  # the resend did not reach it; the first may have
        if detail == "TransactionInProgressException":
            outcome = "info"
        if attempts > 1:
            with self.figures["lock"]:
                self.figures["resent"] += 1
                self.figures["resent_" + outcome] += 1
        self.finish("txn-write", ms, outcome, detail, attempts=attempts, token=token)

    def txn_read(self):
        ks = self.lists.take(self.rng, self.rng.randint(1, 4))
        self.rec.event(self.cid, "invoke", "txn-read", [["r", k, None] for k in ks])
        outcome, out = self.conn.call("TransactGetItems", {"TransactItems": [
            {"Get": {"TableName": TABLE, "Key": {"pk": {"S": k}}}} for k in ks]})
        value = None
        if outcome == "ok":
            value = [["r", k, read_list(r.get("Item"))] for k, r in zip(ks, out["Responses"])]
        self.finish("txn-read", value, outcome, out)

    def append(self):
        k, = self.lists.take(self.rng, 1)
        ms = self.appends([k])
        self.rec.event(self.cid, "invoke", "append", ms)
        outcome, out = self.conn.call("UpdateItem", self.update_of(k, ms))
        self.finish("append", ms, outcome, out)

    def get(self, pool, reader):
        k, = pool.take(self.rng, 1)
        self.rec.event(self.cid, "invoke", "get", [["r", k, None]])
        outcome, out = self.conn.call("GetItem", {"TableName": TABLE, "Key": {"pk": {"S": k}},
                                                  "ConsistentRead": True})
        value = None
        if outcome == "ok":
            value = [["r", k, reader(out.get("Item"))]]
            if reader is read_reg:
                self.known[k] = value[0][2]
        self.finish("get", value, outcome, out)

    def cas(self):
        """Compare-and-set from the last value this client saw (a stale one just fails)."""
        k, = self.regs.take(self.rng, 1)
        old, new = self.known.get(k), next(self.counter)
        if self.rng.random() < 0.5:
            op, body = "UpdateItem", {"TableName": TABLE, "Key": {"pk": {"S": k}},
                                      "UpdateExpression": "SET v = :new",
                                      "ExpressionAttributeValues": {":new": {"N": str(new)}}}
        else:
            op, body = "PutItem", {"TableName": TABLE,
                                   "Item": {"pk": {"S": k}, "v": {"N": str(new)}}}
        if old is None:
            body["ConditionExpression"] = "attribute_not_exists(v)"
        else:
            body["ConditionExpression"] = "v = :old"
            body.setdefault("ExpressionAttributeValues", {})[":old"] = {"N": str(old)}
        ms = [["cas", k, [old, new]]]
        self.rec.event(self.cid, "invoke", "cas", ms)
        outcome, out = self.conn.call(op, body)
        if outcome == "ok":
            self.known[k] = new
        extra = {"cas_false": True} if out == "ConditionalCheckFailedException" else {}
        self.finish("cas", ms, outcome, out, **extra)

    def run(self, stop_at, max_ops, ops_left):
        while time.monotonic() < stop_at:
            with ops_left[1]:
                if ops_left[0] <= 0:
                    break
                ops_left[0] -= 1
            r = self.rng.random()
            if r < 0.40:
                self.txn_write(stop_at)
            elif r < 0.60:
                self.txn_read()
            elif r < 0.70:
                self.append()
            elif r < 0.78:
                self.get(self.lists, read_list)
            elif r < 0.88:
                self.get(self.regs, read_reg)
            else:
                self.cas()
        self.conn.close()


def wait_ready(server, timeout=60.0):
    deadline = time.monotonic() + timeout
    c = Conn(server, 10)
    while time.monotonic() < deadline:
        outcome, out = c.call("ListTables", {})
        if outcome == "ok":
            c.close()
            return
        time.sleep(0.1)
    raise RuntimeError("server does not answer")


def final_reads(server, rec, lists, regs, figures):
    """Every key once more, ConsistentRead, after everything else has finished."""
    wait_ready(server)
    c = Conn(server, 30)
    for pool, reader in ((lists, read_list), (regs, read_reg)):
        for k in pool.all:
            for _ in range(20):
                rec.event("final", "invoke", "get", [["r", k, None]])
                outcome, out = c.call("GetItem", {"TableName": TABLE,
                                                  "Key": {"pk": {"S": k}},
                                                  "ConsistentRead": True})
                if outcome == "ok":
                    rec.event("final", "ok", "get", [["r", k, reader(out.get("Item"))]])
                    break
                rec.event("final", outcome, "get", None, error=out)
                time.sleep(0.2)
            else:
                raise RuntimeError(f"final read of {k} failed: {out}")
            figures["final_reads"] += 1
    c.close()


def run(history, server_bin, seconds=60.0, clients=8, kill_every=0.0, durability="process",
        in_memory=False, data_dir=None, max_ops=10 ** 7, seed=None, timeout=10.0,
        list_window=8, list_budget=48, reg_window=4, reg_budget=120, log_path=None,
        new_token_on_resend=False):
    """Runs the workload; writes the history; returns its figures (a dict)."""
    if in_memory and kill_every:
        raise ValueError("the nemesis needs a data directory (no --in-memory)")
    seed = random.randrange(1 << 30) if seed is None else seed
    own_tmp = None  # made here for what the caller did not place; removed at the end
    if (data_dir is None and not in_memory) or log_path is None:
        own_tmp = tempfile.mkdtemp(prefix="ddb-jepsen-")
    if data_dir is None and not in_memory:
        data_dir = os.path.join(own_tmp, "data")
    log_path = log_path or os.path.join(own_tmp, "server.log")
    server = Server(server_bin, data_dir, durability, log_path, in_memory).start()
    rec = Recorder(history)
    figures = {"ok": 0, "fail": 0, "info": 0, "kills": 0, "resent": 0, "resent_ok": 0,
               "resent_fail": 0, "resent_info": 0, "final_reads": 0, "errors": {},
               "lock": threading.Lock(),
               "seed": seed, "clients": clients, "port": server.port,
               "durability": None if in_memory else durability, "kill_every": kill_every}
    t0 = time.monotonic()
    try:
        c = Conn(server, 30)
        outcome, out = c.call("CreateTable", {
            "TableName": TABLE, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
        c.close()
        if outcome != "ok":
            raise RuntimeError(f"CreateTable: {out}")
        lists = KeyPool("L", list_window, list_budget)
        regs = KeyPool("R", reg_window, reg_budget)
        counter = itertools.count(1)
        stop_at = time.monotonic() + seconds
        ops_left = [max_ops, threading.Lock()]
        rng = random.Random(seed)
        workers = [Client(i, server, rec, lists, regs, counter,
                          random.Random(rng.randrange(1 << 30)), figures, timeout)
                   for i in range(clients)]
        for w in workers:
            w.new_token_on_resend = new_token_on_resend
        threads = [threading.Thread(target=w.run, args=(stop_at, max_ops, ops_left))
                   for w in workers]
        stop = threading.Event()
        nem = None
        if kill_every:
            nem = threading.Thread(target=nemesis, args=(server, rec, kill_every, stop, figures))
            nem.start()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        stop.set()
        if nem:
            nem.join()
        figures["load_seconds"] = round(time.monotonic() - t0, 1)
        final_reads(server, rec, lists, regs, figures)
    finally:
        rec.close()
        server.stop()
        if own_tmp:
            shutil.rmtree(own_tmp, ignore_errors=True)
    figures["seconds"] = round(time.monotonic() - t0, 1)
    del figures["lock"]
    return figures


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--history", required=True, help="where the JSON-lines history goes")
    ap.add_argument("--server", default=os.environ.get("DDB_SERVER",
                                                       os.path.join(REPO, "build", "ddb-server")))
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--kill-every", type=float, default=0, help="0: no nemesis")
    ap.add_argument("--durability", default="process", choices=["process", "fsync"])
    ap.add_argument("--in-memory", action="store_true")
    ap.add_argument("--data-dir", help="default: a temporary directory, removed at the end")
    ap.add_argument("--server-log", help="default: a temporary file, removed at the end")
    ap.add_argument("--max-ops", type=int, default=10 ** 7)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--new-token-on-resend", action="store_true",
                    help="resend indeterminate transactions with a new token (a broken "
                    "client: the checker should then find appends applied twice)")
    args = ap.parse_args(argv)
    figures = run(args.history, args.server, args.seconds, args.clients, args.kill_every,
                  args.durability, args.in_memory, args.data_dir, args.max_ops, args.seed,
                  log_path=args.server_log, new_token_on_resend=args.new_token_on_resend)
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
