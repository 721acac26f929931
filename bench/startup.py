#!/usr/bin/python3
"""Start-up and shutdown of ddb-server on this machine, outside any container.

For an empty in-memory store, an empty store on disk, and a store of --large-mb MB reopened
after kill -9 (recovery from the write-ahead log) and after a clean stop: the time from exec
to the first answered ListTables (polled every millisecond), the server's own "ready ... ms
after main()" figure, and the time from SIGTERM to exit. Each case --runs times; medians.
Everything listens on 127.0.0.1 and stops by itself. (Idle memory and first request of a new
store: bench/startup_rss.py; the same figures inside the image: tools/container-check.sh.)

    bench/startup.py                       # 5 runs, 1 GB store
    bench/startup.py --runs 3 --large-mb 200
"""
import argparse
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.environ.get("DDB_SERVER", os.path.join(ROOT, "build", "ddb-server"))
LIST_TABLES = (b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-amz-json-1.0\r\n"
               b"X-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Length: 2\r\n"
               b"Authorization: AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/dynamodb/"
               b"aws4_request, SignedHeaders=host, Signature=00\r\n"
               b"Connection: close\r\n\r\n{}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answered(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(LIST_TABLES)
            return s.recv(16).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def start(args, port, limit_s=300):
    """Returns (process, ms from exec to the first answer)."""
    before = time.perf_counter()
    proc = subprocess.Popen([SERVER, "--port", str(port), "--log-level", "info", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + limit_s
    while not answered(port):
        if proc.poll() is not None or time.time() > deadline:
            proc.kill()
            sys.exit(f"ddb-server {' '.join(args)} did not answer: {proc.stderr.read()[-2000:]}")
        time.sleep(0.001)
    return proc, (time.perf_counter() - before) * 1000


def stop(proc):
    """SIGTERM; returns (ms to exit, the server's 'ready' figure from its log)."""
    before = time.perf_counter()
    proc.terminate()
    _, err = proc.communicate(timeout=60)
    took = (time.perf_counter() - before) * 1000
    ready = [line.split("ready ")[1].split(" ms")[0] for line in err.splitlines()
             if "ms after main()" in line]
    return took, float(ready[0]) if ready else float("nan")


def client_for(port):
    import boto3
    return boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{port}",
                        region_name="us-east-1", aws_access_key_id="bench",
                        aws_secret_access_key="bench")


def put(port, first_index, megabytes):
    """About `megabytes` MB of 390 KB items into table big; returns how many."""
    client = client_for(port)
    item_bytes = 390_000
    count = megabytes * 1_000_000 // item_bytes
    for first in range(first_index, first_index + count, 25):
        pending = {"big": [{"PutRequest": {"Item": {"pk": {"S": f"item{i:07d}"},
                                                    "blob": {"B": os.urandom(item_bytes)}}}}
                           for i in range(first, min(first + 25, first_index + count))]}
        while pending:
            pending = client.batch_write_item(RequestItems=pending).get("UnprocessedItems")
    return count


def du_mb(path):
    total = 0
    for root, _, files in os.walk(path):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total / 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--large-mb", type=int, default=1024)
    args = parser.parse_args()
    print(f"machine: {platform.node()}, {os.cpu_count()} CPUs, "
          f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB; "
          f"server: {SERVER}")
    workdir = tempfile.mkdtemp(prefix="ddb-startup-", dir=os.environ.get("TMPDIR", "/var/tmp"))
    rows = []

    def case(name, flags, before_each=None):
        firsts, readies, stops = [], [], []
        for _ in range(args.runs):
            if before_each:
                before_each()
            proc, first = start(flags, free_port())
            took, ready = stop(proc)
            firsts.append(first)
            readies.append(ready)
            stops.append(took)
        rows.append((name, statistics.median(firsts), statistics.median(readies),
                     statistics.median(stops)))
    try:
        case("empty, -inMemory", ["-inMemory", "-sharedDb"])
        empty = os.path.join(workdir, "empty")
        os.makedirs(empty)
        case("empty, on disk", ["--data-dir", empty])
        if args.large_mb:
            big = os.path.join(workdir, "big")
            port = free_port()
            proc, _ = start(["--data-dir", big], port)
            client_for(port).create_table(
                TableName="big", BillingMode="PAY_PER_REQUEST",
                AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
            before = time.time()
            count = put(port, 0, args.large_mb)
            print(f"loaded {count} items of 390 KB in {time.time() - before:.0f} s")
            stop(proc)
            size = du_mb(big)
            crashed = big + ".crashed"

            def crash_copy():
                # The clean store plus 64 MB more, killed with them unflushed: the reopen
                # replays them from the write-ahead log.
                shutil.rmtree(crashed, ignore_errors=True)
                shutil.copytree(big, crashed)
                port = free_port()
                p, _ = start(["--data-dir", crashed], port)
                put(port, count, 64)
                p.kill()
                p.communicate()

            case(f"{size:.0f} MB store, after a clean stop", ["--data-dir", big])
            case(f"{size:.0f} MB store, after kill -9", ["--data-dir", crashed],
                 before_each=crash_copy)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    print(f"\n{'case':<36} {'exec->first answer':>19} {'ready after main()':>19} "
          f"{'SIGTERM->exit':>14}")
    for name, first, ready, took in rows:
        print(f"{name:<36} {first:>16.1f} ms {ready:>16.1f} ms {took:>11.1f} ms")


if __name__ == "__main__":
    main()
