#!/usr/bin/env python3
"""A hot partition key: every user's status is ACTIVE, and status is the partition key.

An on-demand table (warm throughput 4,000 WCU, 8 partitions) keyed by (status, user_id).
Users sign up at 400 per second with 4 KB items (4 WCU each = 1,600 WCU/s, well inside
the table's 4,000): all of them land on the partition key "ACTIVE", so in one partition,
which serves at most 1,000 WCU per second. About 250 writes/s get through and the rest
are throttled with TableWriteKeyRangeThroughputExceeded, while seven partitions sit
idle. The partition splits under the heat (next to the hot key), which cannot help: one
key value is never split.
"""

import time
import uuid

import _common as c

TABLE = "users_by_status"
RATE = 400          # sign-ups per second offered
ITEM_BYTES = 4000   # ~4 KB: 4 WCU per write
SECONDS = 15


def main():
    args = c.parse_args(__doc__.splitlines()[0])
    with c.Server(args.server) as srv:
        cl = c.Client(srv.port)
        c.create_table(cl, TABLE, ("status", "S"), ("user_id", "S"))
        sampler = c.start_sampler(srv, args, "hot_status_key")

        def signup(t, i):
            return "PutItem", {"TableName": TABLE, "Item": {
                "status": {"S": "ACTIVE"}, "user_id": {"S": str(uuid.uuid4())},
                "profile": {"S": c.pad(ITEM_BYTES - 60)}}}

        t0 = time.monotonic()
        stats = c.run_load(srv.port, SECONDS, RATE, args.threads, signup)
        elapsed = time.monotonic() - t0
        time.sleep(0.6)
        samples = sampler.stop()

    print(f"== hot_status_key: partition key 'status' = ACTIVE for everyone "
          f"(on-demand table, {RATE}/s x {ITEM_BYTES} B offered = {RATE * 4} WCU/s)")
    c.print_client_summary("sign-ups", stats, elapsed, unit_cost=4)
    c.print_timeline(stats, unit_cost=4)
    c.heat_map(samples, "hot_status_key", TABLE,
               title="Everyone is ACTIVE: one partition key takes all the writes")


if __name__ == "__main__":
    main()
