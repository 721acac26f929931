#!/usr/bin/env python3
"""`ddb load` throughput (issue 20: >= 50k items/s from a file into a local server).

Generates N items as DynamoDB JSON lines (the export format), starts a local ddb-server
(in memory, or on a fresh data directory with --data-dir), creates the table, times
`ddb load T < file` (and `ddb dump T > file`), prints items/s and the machine.

  /usr/bin/python3 bench/cli_load.py [--items 200000] [--runs 3] [--parallel N]
                                     [--data-dir] [--server-flags "..."]

Binaries: $DDB_SERVER (build/ddb-server) and $DDB_CLI (ddb beside it).
"""

import argparse
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SERVER = os.environ.get("DDB_SERVER", str(REPO / "build" / "ddb-server"))
CLI = os.environ.get("DDB_CLI", str(Path(SERVER).parent / "ddb"))


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def generate(path, n):
    with open(path, "w") as f:
        for i in range(n):
            f.write(json.dumps({"Item": {
                "pk": {"S": f"user{i:08d}"}, "sk": {"N": str(i % 100)},
                "name": {"S": f"name {i}"}, "score": {"N": str(i * 7 % 1000)},
                "payload": {"S": "x" * 64}, "tags": {"SS": ["a", f"t{i % 5}"]}}}) + "\n")


def call(endpoint, op, body):
    req = urllib.request.Request(endpoint, data=json.dumps(body).encode(), headers={
        "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": f"DynamoDB_20120810.{op}",
        # Not verified (--auth off), but a well-formed header is required.
        "X-Amz-Date": "20261202T000000Z",
        "Authorization": "AWS4-HMAC-SHA256 Credential=x/20261202/us-east-1/dynamodb/aws4_request, "
                         "SignedHeaders=host;x-amz-date, Signature=" + "0" * 64})
    return json.loads(urllib.request.urlopen(req).read() or b"{}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--parallel", type=int, default=0, help="ddb load --parallel (0: default)")
    ap.add_argument("--data-dir", action="store_true", help="a data directory, not --in-memory")
    ap.add_argument("--server-flags", default="")
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="ddb-cli-bench-"))
    source = work / "items.jsonl"
    generate(source, args.items)
    size = source.stat().st_size
    print(f"machine: {os.cpu_count()} cpus, {cpu_model()}, load average "
          f"{os.getloadavg()[0]:.1f}")
    print(f"input: {args.items:,} items, {size / 1e6:.1f} MB ({size / args.items:.0f} B/line)")

    load_rates, dump_rates = [], []
    for run in range(args.runs):
        where = ["--data-dir", str(work / f"data{run}")] if args.data_dir else ["--in-memory"]
        server = subprocess.Popen([SERVER, "--port", "0", *where,
                                   *shlex.split(args.server_flags)],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            port = int(server.stdout.readline().split()[1])
            endpoint = f"http://127.0.0.1:{port}"
            call(endpoint, "CreateTable", {
                "TableName": "bench", "BillingMode": "PAY_PER_REQUEST",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                              {"AttributeName": "sk", "KeyType": "RANGE"}],
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                         {"AttributeName": "sk", "AttributeType": "N"}]})
            extra = ["--parallel", str(args.parallel)] if args.parallel else []
            with open(source, "rb") as f:
                t0 = time.monotonic()
                p = subprocess.run([CLI, "--endpoint", endpoint, "load", "bench", *extra],
                                   stdin=f, capture_output=True)
                t_load = time.monotonic() - t0
            if p.returncode != 0:
                sys.exit(f"ddb load failed ({p.returncode}): {p.stderr.decode()}")
            with open(work / "dump.jsonl", "wb") as out:
                t0 = time.monotonic()
                p = subprocess.run([CLI, "--endpoint", endpoint, "dump", "bench"], stdout=out,
                                   stderr=subprocess.PIPE)
                t_dump = time.monotonic() - t0
            if p.returncode != 0:
                sys.exit(f"ddb dump failed ({p.returncode}): {p.stderr.decode()}")
            lines = sum(1 for _ in open(work / "dump.jsonl", "rb"))
            assert lines == args.items, (lines, args.items)
        finally:
            server.terminate()
            server.wait(timeout=30)
        load_rates.append(args.items / t_load)
        dump_rates.append(args.items / t_dump)
        print(f"run {run + 1}: load {t_load:.2f} s = {load_rates[-1]:,.0f} items/s, "
              f"dump {t_dump:.2f} s = {dump_rates[-1]:,.0f} items/s")
    print(f"median: load {statistics.median(load_rates):,.0f} items/s, "
          f"dump {statistics.median(dump_rates):,.0f} items/s "
          f"({'data directory' if args.data_dir else 'in memory'})")
    subprocess.run(["rm", "-rf", str(work)])


if __name__ == "__main__":
    main()
