#!/usr/bin/env python3
"""A GSI on a low-cardinality attribute becomes a hot index partition.

An on-demand users table keyed by a random user_id (writes spread over all 8 table
partitions) with a global secondary index "by_status" on status (ALL projection). 95 %
of the users are ACTIVE, so 95 % of the index writes go to one index partition key.
400 sign-ups/s of 4 KB: the table partitions take ~200 WCU/s each, but the index
partition of "ACTIVE" gets ~1,520 WCU/s, above its 1,000 WCU/s ceiling. The service
applies back-pressure: table writes whose index write would be throttled are rejected
with IndexWriteKeyRangeThroughputExceeded, although the table itself has capacity to
spare.
"""

import random
import time
import uuid

import _common as c

TABLE = "users"
INDEX = "by_status"
RATE = 400
ITEM_BYTES = 4000
SECONDS = 15


def main():
    args = c.parse_args(__doc__.splitlines()[0])
    with c.Server(args.server) as srv:
        cl = c.Client(srv.port)
        c.create_table(cl, TABLE, ("user_id", "S"), gsis=[(INDEX, "status", "ALL", None)],
                       extra_attrs=[("status", "S")])
        sampler = c.start_sampler(srv, args, "hot_gsi")
        rng = random.Random(7)

        def signup(t, i):
            status = "ACTIVE" if rng.random() < 0.95 else "INACTIVE"
            return "PutItem", {"TableName": TABLE, "Item": {
                "user_id": {"S": str(uuid.uuid4())}, "status": {"S": status},
                "profile": {"S": c.pad(ITEM_BYTES - 60)}}}

        t0 = time.monotonic()
        stats = c.run_load(srv.port, SECONDS, RATE, args.threads, signup)
        elapsed = time.monotonic() - t0
        time.sleep(0.6)
        samples = sampler.stop()

    print(f"== hot_gsi: GSI '{INDEX}' on status (95 % ACTIVE); {RATE}/s x {ITEM_BYTES} B "
          f"= {RATE * 4} WCU/s on the table and ~{int(RATE * 0.95 * 4)} WCU/s on one index key")
    c.print_client_summary("sign-ups", stats, elapsed, unit_cost=4)
    c.print_timeline(stats, unit_cost=4)
    c.heat_map(samples, "hot_gsi-table", TABLE,
               title="The table: random user_id spreads the writes")
    c.heat_map(samples, "hot_gsi-index", TABLE, INDEX,
               title="The GSI on status: one hot index partition (ACTIVE)")


if __name__ == "__main__":
    main()
