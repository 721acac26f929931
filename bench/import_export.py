#!/usr/bin/env python3
"""ImportTable and ExportTableToPointInTime throughput on a real ddb-server.

Generates N items (default 1,000,000) as DYNAMODB_JSON lines in gzip files under a fresh
--s3-dir, starts ddb-server on a free port with a fresh --data-dir, imports them (timing from
the ImportTable call to COMPLETED), then exports the table (DYNAMODB_JSON) and times that.
Prints items/s for both. Only 127.0.0.1; the server is stopped by its PID at the end.

  bench/import_export.py [--items N] [--files F] [--server build/ddb-server] [--gsi]
                         [--earlier N]

With --earlier N, a second export follows: as of a time before N more writes (overwrites
of existing items), read through the point-in-time history.
"""
import argparse
import gzip
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

import boto3


def generate(root, items, files):
    os.makedirs(os.path.join(root, "bench", "in"), exist_ok=True)
    per_file = (items + files - 1) // files
    written = 0
    for f in range(files):
        path = os.path.join(root, "bench", "in", f"part-{f:04d}.json.gz")
        with gzip.open(path, "wt", compresslevel=1) as out:
            lines = []
            for i in range(written, min(items, written + per_file)):
                lines.append('{"Item":{"pk":{"S":"user#%d"},"sk":{"N":"%d"},"name":{"S":"name %d"},'
                             '"g":{"S":"g%d"},"score":{"N":"%d.5"},"tags":{"SS":["a","b%d"]},'
                             '"active":{"BOOL":%s}}}\n' % (i, i % 7, i, i % 100, i, i % 3,
                                                          "true" if i % 2 else "false"))
            out.write("".join(lines))
            written = min(items, written + per_file)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=1_000_000)
    ap.add_argument("--files", type=int, default=10)
    ap.add_argument("--server", default=os.path.join(os.path.dirname(__file__), "..", "build",
                                                     "ddb-server"))
    ap.add_argument("--gsi", action="store_true", help="give the table one GSI")
    ap.add_argument("--earlier", type=int, default=0,
                    help="also export as of a time before this many further writes")
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="ddb-import-bench-")
    s3 = os.path.join(work, "s3")
    t0 = time.time()
    generate(s3, args.items, args.files)
    gen_s = time.time() - t0
    size = sum(os.path.getsize(os.path.join(s3, "bench", "in", f))
               for f in os.listdir(os.path.join(s3, "bench", "in")))
    proc = subprocess.Popen([args.server, "--port", "0", "--data-dir", os.path.join(work, "data"),
                             "--s3-dir", s3], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    try:
        port = None
        while port is None:
            line = proc.stdout.readline()
            if not line:
                raise SystemExit("server did not start")
            if line.startswith("LISTENING "):
                port = int(line.split()[1])
        c = boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{port}",
                         region_name="us-east-1", aws_access_key_id="x",
                         aws_secret_access_key="y")
        params = {
            "TableName": "bench",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "sk", "AttributeType": "N"},
                                     {"AttributeName": "g", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}],
            "BillingMode": "PAY_PER_REQUEST",
        }
        if args.gsi:
            params["GlobalSecondaryIndexes"] = [{
                "IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"}}]
        else:
            params["AttributeDefinitions"].pop()
        start = time.time()
        d = c.import_table(S3BucketSource={"S3Bucket": "bench", "S3KeyPrefix": "in/"},
                           InputFormat="DYNAMODB_JSON", InputCompressionType="GZIP",
                           TableCreationParameters=params)["ImportTableDescription"]
        while d["ImportStatus"] == "IN_PROGRESS":
            time.sleep(0.05)
            d = c.describe_import(ImportArn=d["ImportArn"])["ImportTableDescription"]
        import_s = time.time() - start
        assert d["ImportStatus"] == "COMPLETED", d
        assert d["ImportedItemCount"] == args.items, d
        table = c.describe_table(TableName="bench")["Table"]
        assert table["ItemCount"] == args.items, table["ItemCount"]

        c.update_continuous_backups(TableName="bench", PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True})
        os.makedirs(os.path.join(s3, "out"), exist_ok=True)
        start = time.time()
        e = c.export_table_to_point_in_time(TableArn=table["TableArn"],
                                            S3Bucket="out")["ExportDescription"]
        while e["ExportStatus"] == "IN_PROGRESS":
            time.sleep(0.05)
            e = c.describe_export(ExportArn=e["ExportArn"])["ExportDescription"]
        export_s = time.time() - start
        assert e["ExportStatus"] == "COMPLETED" and e["ItemCount"] == args.items, e
        earlier_s = None
        if args.earlier:
            between = int(time.time()) + 1
            time.sleep(between - time.time() + 2.5)  # past --pitr-lag-ms and "now"
            for start_i in range(0, args.earlier, 25):
                c.batch_write_item(RequestItems={"bench": [
                    {"PutRequest": {"Item": {"pk": {"S": "user#%d" % i}, "sk": {"N": str(i % 7)},
                                             "g": {"S": "changed"}}}}
                    for i in range(start_i, min(args.earlier, start_i + 25))]})
            start = time.time()
            e = c.export_table_to_point_in_time(TableArn=table["TableArn"], S3Bucket="out",
                                                ExportTime=between)["ExportDescription"]
            while e["ExportStatus"] == "IN_PROGRESS":
                time.sleep(0.05)
                e = c.describe_export(ExportArn=e["ExportArn"])["ExportDescription"]
            earlier_s = time.time() - start
            assert e["ExportStatus"] == "COMPLETED" and e["ItemCount"] == args.items, e
        print(f"items {args.items}, {args.files} gzip files, {size / 1e6:.1f} MB compressed "
              f"(generated in {gen_s:.1f} s), gsi={args.gsi}")
        print(f"import: {import_s:.2f} s, {args.items / import_s:,.0f} items/s "
              f"({d['ProcessedSizeBytes'] / 1e6:.0f} MB uncompressed)")
        print(f"export: {export_s:.2f} s, {args.items / export_s:,.0f} items/s")
        if earlier_s is not None:
            print(f"export as of before {args.earlier} writes: {earlier_s:.2f} s, "
                  f"{args.items / earlier_s:,.0f} items/s")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
