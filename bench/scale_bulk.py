#!/usr/bin/env python3
"""The bulk paths of bench/scale.sh, against its server and big table: a full export, an
import of that export into a new table, and `ddb load` of part of it into another.

  bench/scale_bulk.py --port P --s3-dir DIR --table big [--load-items N] [--cli build/ddb]

1. ExportTableToPointInTime of the table (point-in-time recovery turned on first) to bucket
   "out" in DIR (the server's --s3-dir): items/s from the call to COMPLETED.
2. ImportTable of that export's data files (DYNAMODB_JSON, GZIP) into a new table with the
   same keys and GSIs: items/s from the call to COMPLETED.
3. `ddb load` of the first --load-items lines of those files into a third table (BatchWriteItem
   of 25 from one client, --parallel 4): items/s. 0 skips it.

Prints one "bulk:" line of key=value figures. Only 127.0.0.1.
"""
import argparse
import glob
import gzip
import os
import subprocess
import time

import boto3


def wait(describe, key, status_key):
    while True:
        d = describe()[key]
        if d[status_key] != "IN_PROGRESS":
            return d
        time.sleep(0.05)


def creation_parameters(table, name):
    params = {
        "TableName": name,
        "AttributeDefinitions": table["AttributeDefinitions"],
        "KeySchema": table["KeySchema"],
        "BillingMode": "PAY_PER_REQUEST",
    }
    gsis = [{"IndexName": g["IndexName"], "KeySchema": g["KeySchema"],
             "Projection": g["Projection"]} for g in table.get("GlobalSecondaryIndexes", [])]
    if gsis:
        params["GlobalSecondaryIndexes"] = gsis
    return params


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--s3-dir", required=True)
    ap.add_argument("--table", default="big")
    ap.add_argument("--load-items", type=int, default=1_000_000)
    ap.add_argument("--cli", default=os.path.join(os.path.dirname(__file__), "..", "build", "ddb"))
    args = ap.parse_args()
    endpoint = f"http://127.0.0.1:{args.port}"
    c = boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                     aws_access_key_id="x", aws_secret_access_key="y")
    table = c.describe_table(TableName=args.table)["Table"]
    items = table["ItemCount"]
    figures = {"bulk_items": items}

    c.update_continuous_backups(TableName=args.table, PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": True})
    os.makedirs(os.path.join(args.s3_dir, "out"), exist_ok=True)
    start = time.time()
    e = c.export_table_to_point_in_time(TableArn=table["TableArn"],
                                        S3Bucket="out")["ExportDescription"]
    e = wait(lambda: c.describe_export(ExportArn=e["ExportArn"]), "ExportDescription",
             "ExportStatus")
    export_s = time.time() - start
    assert e["ExportStatus"] == "COMPLETED" and e["ItemCount"] == items, e
    figures["export_items_s"] = round(items / export_s)
    export_dir = os.path.dirname(os.path.join(args.s3_dir, "out", e["ExportManifest"]))
    data = sorted(glob.glob(os.path.join(export_dir, "data", "*.json.gz")))
    prefix = os.path.relpath(os.path.join(export_dir, "data"),
                             os.path.join(args.s3_dir, "out")) + "/"
    figures["export_files"] = len(data)
    figures["export_mb"] = round(sum(os.path.getsize(f) for f in data) / 1e6)

    start = time.time()
    d = c.import_table(S3BucketSource={"S3Bucket": "out", "S3KeyPrefix": prefix},
                       InputFormat="DYNAMODB_JSON", InputCompressionType="GZIP",
                       TableCreationParameters=creation_parameters(table, "imported"))
    d = wait(lambda: c.describe_import(ImportArn=d["ImportTableDescription"]["ImportArn"]),
             "ImportTableDescription", "ImportStatus")
    import_s = time.time() - start
    assert d["ImportStatus"] == "COMPLETED" and d["ImportedItemCount"] == items, d
    figures["import_items_s"] = round(items / import_s)

    if args.load_items > 0:
        c.create_table(**creation_parameters(table, "loaded"))
        lines = []
        for f in data:
            with gzip.open(f, "rt") as src:
                for line in src:
                    lines.append(line)
                    if len(lines) >= args.load_items:
                        break
            if len(lines) >= args.load_items:
                break
        body = "".join(lines).encode()
        start = time.time()
        subprocess.run([args.cli, "--endpoint", endpoint, "load", "loaded", "--parallel", "4"],
                       input=body, check=True, stdout=subprocess.DEVNULL,
                       env={k: v for k, v in os.environ.items() if not k.startswith("AWS_")})
        load_s = time.time() - start
        loaded = c.describe_table(TableName="loaded")["Table"]["ItemCount"]
        assert loaded == len(lines), (loaded, len(lines))
        figures["load_items"] = len(lines)
        figures["load_items_s"] = round(len(lines) / load_s)
    print("bulk: " + " ".join(f"{k}={v}" for k, v in figures.items()), flush=True)


if __name__ == "__main__":
    main()
