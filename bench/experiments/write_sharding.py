#!/usr/bin/env python3
"""Write sharding: a random suffix on a hot partition key spreads it over partitions.

The same workload as hot_status_key.py (400 sign-ups/s of 4 KB = 1,600 WCU/s on an
on-demand table) in two phases of 10 s on one table: first with partition key "ACTIVE"
(one partition, throttled at 1,000 WCU/s), then with "ACTIVE#0" .. "ACTIVE#9" chosen at
random. The ten shard keys hash to different partitions, each taking ~160 WCU/s, and the
throttling stops. The price is on the read side: listing the ACTIVE users now takes one
Query per shard (done at the end, counting the items).
"""

import random
import time
import uuid

import _common as c

TABLE = "users_by_status"
RATE = 400
ITEM_BYTES = 4000
PHASE_SECONDS = 10
SHARDS = 10


def main():
    args = c.parse_args(__doc__.splitlines()[0])
    with c.Server(args.server) as srv:
        cl = c.Client(srv.port)
        c.create_table(cl, TABLE, ("status", "S"), ("user_id", "S"))
        sampler = c.start_sampler(srv, args, "write_sharding")

        def item(status):
            return {"status": {"S": status}, "user_id": {"S": str(uuid.uuid4())},
                    "profile": {"S": c.pad(ITEM_BYTES - 60)}}

        t0 = time.monotonic()
        hot = c.run_load(srv.port, PHASE_SECONDS, RATE, args.threads,
                         lambda t, i: ("PutItem", {"TableName": TABLE, "Item": item("ACTIVE")}))
        t1 = time.monotonic()
        sharded = c.run_load(
            srv.port, PHASE_SECONDS, RATE, args.threads,
            lambda t, i: ("PutItem", {"TableName": TABLE,
                                      "Item": item(f"ACTIVE#{random.randrange(SHARDS)}")}),
            t_offset=PHASE_SECONDS)
        t2 = time.monotonic()
        time.sleep(0.6)
        samples = sampler.stop()

        # Reading them back: one Query per shard.
        counts = {}
        for s in range(SHARDS):
            body = {"TableName": TABLE, "KeyConditionExpression": "#s = :s",
                    "ExpressionAttributeNames": {"#s": "status"},
                    "ExpressionAttributeValues": {":s": {"S": f"ACTIVE#{s}"}},
                    "Select": "COUNT"}
            n = 0
            while True:
                out = cl.ok("Query", body)
                n += out["Count"]
                if "LastEvaluatedKey" not in out:
                    break
                body["ExclusiveStartKey"] = out["LastEvaluatedKey"]
            counts[s] = n

    print(f"== write_sharding: {RATE}/s x {ITEM_BYTES} B = {RATE * 4} WCU/s, "
          f"{PHASE_SECONDS} s on 'ACTIVE', then {PHASE_SECONDS} s on 'ACTIVE#0..{SHARDS - 1}'")
    c.print_client_summary("phase 1, one key 'ACTIVE'   ", hot, t1 - t0, unit_cost=4)
    c.print_client_summary("phase 2, ten shard keys     ", sharded, t2 - t1, unit_cost=4)
    both = c.Stats()
    for st in (hot, sharded):
        for s in set(st.ok) | set(st.throttled):
            both.ok[s] += st.ok[s]
            both.throttled[s] += st.throttled[s]
    c.print_timeline(both, unit_cost=4)
    print(f"  items per shard (one Query each): {counts} = {sum(counts.values())} "
          f"(phase 2 wrote {sum(sharded.ok.values())})")
    c.heat_map(samples, "write_sharding", TABLE,
               title="Write sharding: 'ACTIVE' (0-10 s), then 'ACTIVE#0..9' (10-20 s)")


if __name__ == "__main__":
    main()
