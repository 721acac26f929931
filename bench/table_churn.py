#!/usr/bin/env python3
"""Table churn: does a read get slower as tables are created and deleted?

Starts build/ddb-server (DDB_SERVER overrides) on a free loopback port, in memory
(`mem`) or on a scratch data directory (`disk`), creates a probe table of 20 items,
then runs N cycles of CreateTable, five PutItems and DeleteTable (what a test
fixture does per test), and after each quarter prints the mean latency of 200
reverse Queries on the probe table. Reported, never asserted. DeleteTable writes
range tombstones; before Storage::DeleteRange flushed a family every 32 of them,
every new iterator fragmented all of them again.

    bench/table_churn.py [mem|disk] [N (default 2000)]
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import boto3

mode = sys.argv[1] if len(sys.argv) > 1 else "mem"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
server = os.environ.get("DDB_SERVER", os.path.join(root, "build", "ddb-server"))
scratch = tempfile.mkdtemp(prefix="ddb-churn-")
args = [server, "--host", "127.0.0.1", "--port", "0"] + (
    ["--in-memory"] if mode == "mem" else ["--data-dir", os.path.join(scratch, "data")])
p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
port = None
for line in p.stdout:
    if line.startswith("LISTENING"):
        port = int(line.split()[1]); break
c = boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                 aws_access_key_id="a", aws_secret_access_key="b")
def mk(name):
    c.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}])
def probe(name):
    t = time.perf_counter()
    for i in range(200):
        c.query(TableName=name, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "p%d" % (i % 7)}}, ScanIndexForward=False)
    return (time.perf_counter() - t) / 200 * 1e6
mk("probe")
for i in range(20):
    c.put_item(TableName="probe", Item={"pk": {"S": "p%d" % (i % 5)}, "sk": {"N": str(i)}})
print("before churn: reverse query %.0f us" % probe("probe"))
t0 = time.time()
for k in range(n):
    name = "tab%d" % k
    mk(name)
    for i in range(5):
        c.put_item(TableName=name, Item={"pk": {"S": "p%d" % i}, "sk": {"N": str(i)}})
    c.delete_table(TableName=name)
    if (k + 1) % max(1, n // 4) == 0:
        print("after %d create/put/delete cycles (%.0f s): reverse query %.0f us" % (k + 1, time.time() - t0, probe("probe")), flush=True)
p.terminate()
p.wait(timeout=30)
shutil.rmtree(scratch, ignore_errors=True)
