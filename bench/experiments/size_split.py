#!/usr/bin/env python3
"""Splits by size: a partition that grows past the split size splits, as the service's do at
10 GB — here at 1 MiB (--partition-split-bytes), so the experiment needs megabytes, not
terabytes.

An on-demand table (8 partitions) takes 100 items of 20 KB per second (2,000 WCU/s, a
quarter of what its partitions may serve, so nothing splits for throughput) on random keys
for 20 s: ~40 MB spread evenly. Each partition splits in two whenever it passes 1 MiB, so
the count grows with the data (one dashed line per split in the heat map), and the summary
lists each partition's items and bytes.
"""

import time
import uuid

import _common as c

TABLE = "documents"
RATE = 100
ITEM_BYTES = 20000
SECONDS = 20
SPLIT_BYTES = 1 << 20


def main():
    args = c.parse_args(__doc__.splitlines()[0])
    with c.Server(args.server, "--partition-split-bytes", str(SPLIT_BYTES)) as srv:
        cl = c.Client(srv.port)
        c.create_table(cl, TABLE)
        sampler = c.start_sampler(srv, args, "size_split")

        def document(t, i):
            return "PutItem", {"TableName": TABLE, "Item": {
                "pk": {"S": str(uuid.uuid4())}, "body": {"S": c.pad(ITEM_BYTES - 60)}}}
        t0 = time.monotonic()
        stats = c.run_load(srv.port, SECONDS, RATE, args.threads, document)
        elapsed = time.monotonic() - t0
        time.sleep(0.6)
        samples = sampler.stop()

    print(f"== size_split: {RATE}/s x {ITEM_BYTES} B for {SECONDS} s into an on-demand table, "
          f"split size {SPLIT_BYTES} B (--partition-split-bytes)")
    c.print_client_summary("documents", stats, elapsed, unit_cost=ITEM_BYTES // 1024 + 1)
    c.heat_map(samples, "size_split", TABLE,
               title="Splits by size: each partition splits past 1 MiB")


if __name__ == "__main__":
    main()
