#!/usr/bin/python3
"""Stateful wire fuzzing (issue 29): the idea of tests/fuzz/stateful_fuzz.cc against a real
ddb-server. Starts build/ddb-server (or $DDB_SERVER) in memory on a free loopback port, then
runs random sequences of operations (seeded), each checked against a model (per table, a dict
from key to item): CreateTable/UpdateTable (capacities up to 10^12 and 2^63-1, streams)/
DeleteTable, PutItem/UpdateItem/DeleteItem with conditions, GetItem, Query, Scan (all pages,
segments), BatchWriteItem, TransactWriteItems, PartiQL INSERT/DELETE, numbers sent in
non-canonical text ("01.50", "15E-1"). After every step the touched table is read back whole
(Scan == model, DescribeTable ItemCount, GSI == its definition on the model).

    tools/stateful-wire.py --seed S --seconds T [--steps N] [--verbose]

Bounded by --seconds and --steps (default 100000); stops the server it started. Exit 0: no
disagreement; 1: a disagreement (printed with the seed and the step); 2: the server died."""
import argparse
import base64
import decimal
import http.client
import json
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "wire"))
from conftest import ServerProcess, raw_post  # noqa: E402

decimal.getcontext().prec = 50
TABLES = ["sw0", "sw1"]
ATTRS = ["a", "b", "c", "g"]


class Disagreement(Exception):
    pass


def norm_number(text):
    d = decimal.Decimal(text).normalize()
    return "0" if d == 0 else format(d, "f")


def canon(v):
    """A canonical, hashable form of a wire AttributeValue."""
    (t, x), = v.items()
    if t == "N":
        return ("N", norm_number(x))
    if t == "NS":
        return ("NS", tuple(sorted(norm_number(n) for n in x)))
    if t in ("SS", "BS"):
        return (t, tuple(sorted(x)))
    if t == "L":
        return ("L", tuple(canon(e) for e in x))
    if t == "M":
        return ("M", tuple(sorted((k, canon(e)) for k, e in x.items())))
    return (t, x)


def canon_item(item):
    return tuple(sorted((k, canon(v)) for k, v in item.items()))


class Client:
    def __init__(self, endpoint):
        self.endpoint = endpoint
        host, port = endpoint.rsplit("/", 1)[1].split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=30)

    def call(self, op, body):
        r = raw_post(self.conn, self.endpoint, "DynamoDB_20120810." + op, body)
        data = r.json() if r.body else {}
        if r.status == 200:
            return None, data
        if r.status >= 500:
            raise Disagreement(f"{op}: HTTP {r.status} {data}")
        return data.get("__type", "").split("#")[-1], data


class Fuzz:
    def __init__(self, rng, client, verbose):
        self.rng, self.c, self.verbose = rng, client, verbose
        self.tables = {}  # name -> {"range": bool, "gsi": bool, "items": {key: item}}
        self.trace = []

    # --- values ---
    def number_text(self, hundredths):
        d = decimal.Decimal(hundredths) / 100
        form = self.rng.randrange(4)
        if form == 0:
            return norm_number(str(d))
        if form == 1:  # a leading or trailing zero
            text = format(d, "f")
            return "0" + text if d >= 0 else text + ("0" if "." in text else ".0")
        if form == 2:
            return f"{hundredths}E-2"
        return format(d, "f") + ("00" if "." in format(d, "f") else ".00")

    def value(self, attr, depth=0):
        r = self.rng
        if attr == "g" and r.random() < 0.8:
            return {"S": r.choice(["g1", "g2"])}
        if attr == "c" and r.random() < 0.8:
            return {"N": self.number_text(r.randrange(-500, 500))}
        k = r.randrange(9 if depth < 2 else 7)
        if k == 0:
            return {"S": r.choice(["", "x", "xy", "\u00e9"])}
        if k == 1:
            return {"N": self.number_text(r.choice([0, 1, -1, 150, 10**12, -7]))}
        if k == 2:
            return {"B": base64.b64encode(r.choice([b"", b"\x00", b"ab"])).decode()}
        if k == 3:
            return {"BOOL": r.random() < 0.5}
        if k == 4:
            return {"NULL": True}
        if k == 5:
            return {"SS": r.sample(["x", "y", "z"], r.randrange(1, 4))}
        if k == 6:
            return {"NS": [self.number_text(n) for n in r.sample([1, -1, 150, 0], r.randrange(1, 4))]}
        if k == 7:
            return {"L": [self.value("a", depth + 1) for _ in range(r.randrange(3))]}
        return {"M": {n: self.value("a", depth + 1) for n in r.sample(["p", "q"], r.randrange(3))}}

    def key(self, t):
        k = {"pk": {"S": self.rng.choice(["a", "b", "c"])}}
        if self.tables[t]["range"]:
            k["sk"] = {"N": self.number_text(self.rng.choice([1, -250, 10000]))}
        return k

    def key_of(self, t, item):
        return canon_item({n: item[n] for n in (["pk", "sk"] if self.tables[t]["range"] else ["pk"])})

    # --- model rules ---
    def good_gsi(self, t, item):
        g = item.get("g")
        return not self.tables[t]["gsi"] or g is None or ("S" in g and g["S"] != "")

    def holds(self, cond, old):
        if cond is None:
            return True
        kind, attr, val = cond
        have = None if old is None else old.get(attr)
        if kind == "exists":
            return have is not None
        if kind == "not_exists":
            return have is None
        if kind == "eq":
            return have is not None and canon(have) == canon(val)
        return have is None or canon(have) != canon(val)  # ne

    def condition(self, body):
        if self.rng.random() < 0.6:
            return None
        kind = self.rng.choice(["exists", "not_exists", "eq", "ne"])
        attr = self.rng.choice(ATTRS + ["pk"])
        names = {"#x": attr}
        body["ExpressionAttributeNames"] = {**body.get("ExpressionAttributeNames", {}), **names}
        if kind in ("exists", "not_exists"):
            body["ConditionExpression"] = f"attribute_{kind}(#x)"
            return kind, attr, None
        val = self.value(attr)
        body["ConditionExpression"] = "#x = :cv" if kind == "eq" else "#x <> :cv"
        body["ExpressionAttributeValues"] = {**body.get("ExpressionAttributeValues", {}), ":cv": val}
        return kind, attr, val

    def expect(self, op, err, want):
        if (err or "ok") != want:
            raise Disagreement(f"{op}: model says {want}, server says {err or 'ok'}")

    # --- operations ---
    def create(self, t):
        rng = self.rng
        spec = {"range": rng.random() < 0.6, "gsi": rng.random() < 0.5, "items": {}}
        body = {"TableName": t, "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "BillingMode": "PAY_PER_REQUEST"}
        if spec["range"]:
            body["AttributeDefinitions"].append({"AttributeName": "sk", "AttributeType": "N"})
            body["KeySchema"].append({"AttributeName": "sk", "KeyType": "RANGE"})
        if spec["gsi"]:
            body["AttributeDefinitions"].append({"AttributeName": "g", "AttributeType": "S"})
            body["GlobalSecondaryIndexes"] = [{"IndexName": "gsi", "KeySchema": [
                {"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}]
        err, _ = self.c.call("CreateTable", body)
        self.expect("CreateTable", err, "ResourceInUseException" if t in self.tables else "ok")
        if t not in self.tables:
            self.tables[t] = spec

    def delete_table(self, t):
        err, _ = self.c.call("DeleteTable", {"TableName": t})
        self.expect("DeleteTable", err, "ok" if t in self.tables else "ResourceNotFoundException")
        self.tables.pop(t, None)

    def capacity(self, t):
        units = self.rng.choice([1, 5, 40000, 40001, 10**12, 2**63 - 1, 0])
        body = {"TableName": t, "BillingMode": "PROVISIONED",
                "ProvisionedThroughput": {"ReadCapacityUnits": units, "WriteCapacityUnits": units}}
        if t in self.tables and self.tables[t]["gsi"]:
            body["GlobalSecondaryIndexUpdates"] = [{"Update": {"IndexName": "gsi",
                "ProvisionedThroughput": {"ReadCapacityUnits": units, "WriteCapacityUnits": units}}}]
        if self.rng.random() < 0.3:
            body = {"TableName": t, "BillingMode": "PAY_PER_REQUEST"}
        err, _ = self.c.call("UpdateTable", body)
        if t not in self.tables:  # a bad request may be refused before the table is looked up
            if err not in ("ResourceNotFoundException", "ValidationException", "LimitExceededException"):
                raise Disagreement(f"UpdateTable of a missing table: {err or 'ok'}")
            return
        if err not in (None, "ValidationException", "LimitExceededException"):
            raise Disagreement(f"UpdateTable: {err}")

    def put(self, t):
        item = self.key(t)
        for a in ATTRS:
            if self.rng.random() < 0.5:
                item[a] = self.value(a)
        body = {"TableName": t, "Item": item}
        cond = self.condition(body)
        k = self.key_of(t, item)
        old = self.tables[t]["items"].get(k)
        want = ("ValidationException" if not self.good_gsi(t, item)
                else "ok" if self.holds(cond, old) else "ConditionalCheckFailedException")
        err, _ = self.c.call("PutItem", body)
        self.expect("PutItem", err, want)
        if want == "ok":
            self.tables[t]["items"][k] = item

    def update(self, t):
        key = self.key(t)
        attr = self.rng.choice(ATTRS)
        body = {"TableName": t, "Key": key, "ReturnValues": "ALL_NEW"}
        cond = self.condition(body)
        names = body.setdefault("ExpressionAttributeNames", {})
        values = body.setdefault("ExpressionAttributeValues", {})
        names["#u"] = attr
        k = self.key_of(t, key)
        old = self.tables[t]["items"].get(k)
        new = dict(old) if old else dict(key)
        valid = True
        kind = self.rng.randrange(3)
        if kind == 0:
            values[":u"] = self.value(attr)
            body["UpdateExpression"] = "SET #u = :u"
            new[attr] = values[":u"]
        elif kind == 1:
            body["UpdateExpression"] = "REMOVE #u"
            new.pop(attr, None)
        else:
            n = self.rng.randrange(-300, 300)
            values[":u"] = {"N": self.number_text(n)}
            body["UpdateExpression"] = "ADD #u :u"
            have = new.get(attr)
            if have is None:
                new[attr] = {"N": norm_number(str(decimal.Decimal(n) / 100))}
            elif "N" in have:
                new[attr] = {"N": norm_number(str(decimal.Decimal(have["N"]) + decimal.Decimal(n) / 100))}
            else:
                valid = False
        if not values:
            del body["ExpressionAttributeValues"]
        if not self.holds(cond, old):
            want = "ConditionalCheckFailedException"
        elif old is None and kind == 1:
            want, new = "ok", None  # REMOVE on a missing item creates nothing
        elif not valid or not self.good_gsi(t, new):
            want = "ValidationException"
        else:
            want = "ok"
        err, data = self.c.call("UpdateItem", body)
        self.expect("UpdateItem", err, want)
        if want == "ok" and new is not None:
            self.tables[t]["items"][k] = new
            if canon_item(data.get("Attributes", {})) != canon_item(new):
                raise Disagreement(f"UpdateItem ALL_NEW {data.get('Attributes')} != model {new}")

    def delete(self, t):
        key = self.key(t)
        body = {"TableName": t, "Key": key}
        cond = self.condition(body)
        k = self.key_of(t, key)
        old = self.tables[t]["items"].get(k)
        want = "ok" if self.holds(cond, old) else "ConditionalCheckFailedException"
        err, _ = self.c.call("DeleteItem", body)
        self.expect("DeleteItem", err, want)
        if want == "ok":
            self.tables[t]["items"].pop(k, None)

    def batch_write(self, t):
        reqs, seen, applied = [], set(), []
        for _ in range(self.rng.randrange(1, 5)):
            item = self.key(t)
            k = self.key_of(t, item)
            if k in seen:
                continue
            seen.add(k)
            if self.rng.random() < 0.7:
                item["c"] = self.value("c")
                reqs.append({"PutRequest": {"Item": item}})
                applied.append((k, item))
            else:
                reqs.append({"DeleteRequest": {"Key": item}})
                applied.append((k, None))
        err, data = self.c.call("BatchWriteItem", {"RequestItems": {t: reqs}})
        self.expect("BatchWriteItem", err, "ok")
        if data.get("UnprocessedItems"):
            raise Disagreement("BatchWriteItem left items unprocessed")
        for k, item in applied:
            if item is None:
                self.tables[t]["items"].pop(k, None)
            else:
                self.tables[t]["items"][k] = item

    def transact(self, t):
        acts, seen, plan, ok = [], set(), [], True
        for _ in range(self.rng.randrange(1, 4)):
            key = self.key(t)
            k = self.key_of(t, key)
            if k in seen:
                continue
            seen.add(k)
            old = self.tables[t]["items"].get(k)
            if self.rng.random() < 0.5:
                item = dict(key, a=self.value("a"))
                body = {"TableName": t, "Item": item}
                cond = self.condition(body)
                acts.append({"Put": body})
                plan.append((k, item))
            else:
                body = {"TableName": t, "Key": key}
                cond = self.condition(body)
                acts.append({"Delete": body})
                plan.append((k, None))
            ok = ok and self.holds(cond, old)
        err, _ = self.c.call("TransactWriteItems", {"TransactItems": acts})
        self.expect("TransactWriteItems", err, "ok" if ok else "TransactionCanceledException")
        if ok:
            for k, item in plan:
                if item is None:
                    self.tables[t]["items"].pop(k, None)
                else:
                    self.tables[t]["items"][k] = item

    def partiql(self, t):
        key = self.key(t)
        k = self.key_of(t, key)
        old = self.tables[t]["items"].get(k)
        params = [key["pk"]] + ([key["sk"]] if "sk" in key else [])
        if self.rng.random() < 0.5:
            cols = "'pk': ?" + (", 'sk': ?" if "sk" in key else "")
            stmt = f'INSERT INTO "{t}" VALUE {{{cols}}}'
            want = "DuplicateItemException" if old else "ok"
            new = dict(key)
        else:
            stmt = f'DELETE FROM "{t}" WHERE pk = ?' + (" AND sk = ?" if "sk" in key else "")
            want, new = "ok", None
        err, _ = self.c.call("ExecuteStatement", {"Statement": stmt, "Parameters": params})
        self.expect("ExecuteStatement " + stmt, err, want)
        if want == "ok":
            if new is None:
                self.tables[t]["items"].pop(k, None)
            else:
                self.tables[t]["items"][k] = new

    # --- checks ---
    def scan_all(self, t, **extra):
        items, start = [], None
        for _ in range(10000):
            body = {"TableName": t, **extra}
            if start:
                body["ExclusiveStartKey"] = start
            err, data = self.c.call("Scan", body)
            if err:
                raise Disagreement(f"Scan {extra}: {err} {data}")
            items += data.get("Items", [])
            start = data.get("LastEvaluatedKey")
            if not start:
                return items
        raise Disagreement("Scan: more than 10000 pages")

    def check(self, t):
        err, data = self.c.call("DescribeTable", {"TableName": t})
        if t not in self.tables:
            return self.expect("DescribeTable", err, "ResourceNotFoundException")
        self.expect("DescribeTable", err, "ok")
        model = self.tables[t]
        want = sorted(canon_item(i) for i in model["items"].values())
        if data["Table"]["ItemCount"] != len(want):
            raise Disagreement(f"{t}: ItemCount {data['Table']['ItemCount']}, model {len(want)}")
        limit = self.rng.choice([None, 1, 2])
        got = sorted(canon_item(i) for i in self.scan_all(t, ConsistentRead=True,
                                                           **({"Limit": limit} if limit else {})))
        if got != want:
            raise Disagreement(f"{t}: Scan\n  server {got}\n  model  {want}")
        segs = self.rng.randrange(2, 4)
        got = sorted(canon_item(i) for s in range(segs)
                     for i in self.scan_all(t, Segment=s, TotalSegments=segs, ConsistentRead=True))
        if got != want:
            raise Disagreement(f"{t}: segmented Scan\n  server {got}\n  model  {want}")
        if model["gsi"]:
            want_gsi = sorted(canon_item(i) for i in model["items"].values() if "g" in i)
            got = sorted(canon_item(i) for i in self.scan_all(t, IndexName="gsi"))
            if got != want_gsi:
                raise Disagreement(f"{t}: GSI\n  server {got}\n  model  {want_gsi}")

    def step(self):
        t = self.rng.choice(TABLES)
        ops = [self.create, self.delete_table, self.capacity]
        if t in self.tables:
            ops += [self.put] * 4 + [self.update] * 4 + [self.delete] * 2 + [
                self.batch_write, self.transact, self.partiql]
        op = self.rng.choice(ops)
        self.trace.append(f"{op.__name__} {t}")
        if self.verbose:
            print(f"step {len(self.trace) - 1}: {op.__name__} {t}", file=sys.stderr)
        op(t)
        self.check(t)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--steps", type=int, default=100000)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    server = ServerProcess("--in-memory").start()
    steps = 0
    try:
        client = Client(server.endpoint)
        fuzz = Fuzz(random.Random(args.seed), client, args.verbose)
        deadline = time.monotonic() + args.seconds
        while steps < args.steps and time.monotonic() < deadline:
            fuzz.step()
            steps += 1
    except Disagreement as e:
        print(f"stateful-wire: seed {args.seed}, step {steps} ({fuzz.trace[-1]}): {e}",
              file=sys.stderr)
        print("  steps: " + "; ".join(fuzz.trace[-10:]), file=sys.stderr)
        return 1
    except (ConnectionError, http.client.HTTPException, OSError) as e:
        print(f"stateful-wire: seed {args.seed}, step {steps}: server unreachable: {e}",
              file=sys.stderr)
        return 2
    finally:
        if server.proc.poll() is not None:
            print(f"stateful-wire: the server exited (rc={server.proc.returncode})", file=sys.stderr)
        else:
            server.stop()
    print(f"stateful-wire: seed {args.seed}: {steps} steps, no disagreement")
    return 0


if __name__ == "__main__":
    sys.exit(main())
