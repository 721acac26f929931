#!/usr/bin/python3
"""What overload costs ddb-server in memory, with its default limits (issue 17).

Three loads against one in-memory server on 127.0.0.1, each reported as the server's RSS
before, at its peak and after, and whether a GetItem from another client was answered
meanwhile (its latency):
  idle       N connections that send nothing (what a connection costs)
  slow16mb   N connections that each declare a 16 MiB PutItem body and trickle it
             (--max-body-memory admits 256 MiB of them; the rest get 503 at once)
  noread     N connections that pipeline GetItems of a 350 KB item and never read
Everything stops by itself; only the server this script started is stopped.

    bench/overload.py              # N = 1000
    bench/overload.py --n 500
"""
import argparse
import json
import os
import platform
import resource
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.environ.get("DDB_SERVER", os.path.join(ROOT, "build", "ddb-server"))
AUTH = ("Authorization: AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/dynamodb/"
        "aws4_request, SignedHeaders=host, Signature=00\r\n")
BIG = 16 * 1024 * 1024


def head(target, length):
    return (f"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-amz-json-1.0\r\n"
            f"X-Amz-Target: DynamoDB_20120810.{target}\r\n{AUTH}"
            f"Content-Length: {length}\r\n\r\n").encode()


def request(target, body):
    data = json.dumps(body).encode()
    return head(target, len(data)) + data


def call(port, target, body):
    """One request on a fresh connection: (status, ms)."""
    start = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request(target, body))
        data = b""
        while b"\r\n\r\n" not in data:
            data += s.recv(65536)
        h, rest = data.split(b"\r\n\r\n", 1)
        length = int([l for l in h.split(b"\r\n") if l.lower().startswith(b"content-length")][0]
                     .split(b":")[1])
        while len(rest) < length:
            rest += s.recv(65536)
    return int(h.split()[1]), (time.perf_counter() - start) * 1000


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def start_server():
    proc = subprocess.Popen([SERVER, "--port", "0", "--in-memory", "--log-level", "error"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    if not line.startswith("LISTENING"):
        proc.kill()
        sys.exit(f"server did not start: {line!r}")
    return proc, int(line.split()[1])


def measure(name, pid, port, table, body):
    before = rss_mb(pid)
    peak = before
    probes = []

    def probe():
        nonlocal peak
        status, ms = call(port, "GetItem", {"TableName": table, "Key": {"pk": {"S": "big"}}})
        probes.append((status, ms))
        peak = max(peak, rss_mb(pid))

    socks = body(probe)
    peak = max(peak, rss_mb(pid))
    for s in socks:
        s.close()
    time.sleep(1.0)
    after = rss_mb(pid)
    ok = sum(1 for status, _ in probes if status == 200)
    worst = max((ms for _, ms in probes), default=0.0)
    print(f"| {name} | {before:.0f} | {peak:.0f} | {after:.0f} | {ok}/{len(probes)} "
          f"(worst {worst:.1f} ms) |", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1000)
    args = parser.parse_args()
    n = args.n
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, n + 256)), hard))

    print(f"machine: {platform.node()} {os.cpu_count()} CPUs, {platform.platform()}")
    print(f"connections per load: {n}; server defaults (--max-connections 4096, "
          f"--max-body-memory 256 MiB, --read-timeout 30)\n")
    proc, port = start_server()
    try:
        table = "overload"
        call(port, "CreateTable", {
            "TableName": table, "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]})
        call(port, "PutItem", {"TableName": table,
                               "Item": {"pk": {"S": "big"}, "v": {"S": "x" * 350_000}}})
        print("| load | RSS before (MB) | peak (MB) | after closing (MB) | other client's GetItems |")
        print("|---|---:|---:|---:|---|")

        def idle(probe):
            socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
            # One request each, so that every session has its buffers.
            for s in socks:
                s.sendall(request("ListTables", {}))
            for s in socks:
                s.recv(65536)
            for _ in range(5):
                probe()
            return socks
        measure(f"idle x{n} (after one ListTables each)", proc.pid, port, table, idle)

        def slow(probe):
            socks = []
            for _ in range(n):
                s = socket.create_connection(("127.0.0.1", port))
                s.sendall(head("PutItem", BIG) + b"{")
                socks.append(s)
            probe()
            # Everyone trickles 64 KiB every round for 10 rounds, refused ones included
            # (their sends fail once the server has closed).
            chunk = b" " * 65536
            for _ in range(10):
                for s in socks:
                    try:
                        s.setblocking(False)
                        s.send(chunk)
                    except OSError:
                        pass
                probe()
                time.sleep(0.1)
            return socks
        measure(f"slow 16 MiB bodies x{n}", proc.pid, port, table, slow)

        def noread(probe):
            get = request("GetItem", {"TableName": table, "Key": {"pk": {"S": "big"}}}) * 200
            socks = []
            for _ in range(n):
                s = socket.create_connection(("127.0.0.1", port))
                s.setblocking(False)
                try:
                    s.send(get)
                except BlockingIOError:
                    pass
                socks.append(s)
            for _ in range(10):
                probe()
                time.sleep(0.1)
            return socks
        measure(f"never-reading clients x{n} (200 pipelined 350 KB GetItems each)", proc.pid,
                port, table, noread)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
