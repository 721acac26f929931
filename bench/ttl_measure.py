#!/usr/bin/env python3
"""Time to Live cost, two numbers: the idle CPU of a server holding many items under TTL
(none expiring), and how long a burst of items expiring in the same second takes to be
deleted. Starts its own in-memory ddb-server on 127.0.0.1 and stops it.

  DDB_SERVER=build/ddb-server /usr/bin/python3 bench/ttl_measure.py [--items 200000]
      [--burst 20000] [--idle-seconds 30]
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import time
import urllib.request

import boto3
from botocore.config import Config


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def deleted_total(port, client, before):
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics").read().decode()
    m = re.search(r"^ddb_ttl_deleted_items_total (\S+)$", text, re.M)
    if m:
        return int(float(m.group(1)))
    # Servers older than the counter: ddb's ItemCount is live.
    return before - client.describe_table(TableName="ttl_bench")["Table"]["ItemCount"]


def load(client, table, prefix, count, expiry, threads=4):
    def batch(start):
        items = [{"PutRequest": {"Item": {"pk": {"S": f"{prefix}{i}"},
                                          "exp": {"N": str(expiry)},
                                          "pad": {"S": "x" * 100}}}}
                 for i in range(start, min(start + 25, count))]
        while items:
            r = client.batch_write_item(RequestItems={table: items})
            items = r.get("UnprocessedItems", {}).get(table, [])

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        list(pool.map(batch, range(0, count, 25)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--items", type=int, default=200_000)
    p.add_argument("--burst", type=int, default=20_000)
    p.add_argument("--idle-seconds", type=float, default=30)
    args = p.parse_args()
    server = subprocess.Popen([os.environ.get("DDB_SERVER", "build/ddb-server"), "--in-memory",
                               "--port", "0", "--log-level", "error"],
                              stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline().split()[1])
        client = boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{port}",
                              region_name="us-east-1", aws_access_key_id="x",
                              aws_secret_access_key="x",
                              config=Config(max_pool_connections=16, retries={"max_attempts": 1}))
        client.create_table(TableName="ttl_bench", BillingMode="PAY_PER_REQUEST",
                            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        client.update_time_to_live(TableName="ttl_bench", TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "exp"})
        t = time.time()
        load(client, "ttl_bench", "keep", args.items, int(time.time()) + 86400)
        print(f"loaded {args.items} items (expiring in a day) in {time.time() - t:.1f} s")
        time.sleep(2)
        c0, t0 = cpu_seconds(server.pid), time.time()
        time.sleep(args.idle_seconds)
        c1, t1 = cpu_seconds(server.pid), time.time()
        print(f"idle: {c1 - c0:.2f} CPU s over {t1 - t0:.1f} s = "
              f"{100 * (c1 - c0) / (t1 - t0):.3f} % of a core")

        expiry = int(time.time()) + 20
        t = time.time()
        load(client, "ttl_bench", "burst", args.burst, expiry)
        print(f"loaded {args.burst} items expiring at {expiry} in {time.time() - t:.1f} s")
        while time.time() < expiry + 1:  # expired once now (whole seconds) > expiry
            time.sleep(0.05)
        t = time.time()
        before = args.items + args.burst
        while deleted_total(port, client, before) < args.burst and time.time() - t < 120:
            # The server keeps serving meanwhile: time a GetItem.
            g = time.time()
            client.get_item(TableName="ttl_bench", Key={"pk": {"S": "keep1"}})
            get_ms = 1000 * (time.time() - g)
            time.sleep(0.1)
        done = time.time() - t
        print(f"burst: {deleted_total(port, client, before)} of {args.burst} deleted {done:.2f} s after they "
              f"expired (last GetItem meanwhile {get_ms:.1f} ms)")
        n = client.describe_table(TableName="ttl_bench")["Table"]["ItemCount"]
        print(f"items left: {n}")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
