#!/usr/bin/env python3
"""Burst credit: unused provisioned capacity (up to 300 s of it) absorbs a spike, then runs out.

A provisioned table of 100 WCU (one partition). Phase 1: 2 s at 50 WCU/s (under the
provisioned rate, so credit builds). Phase 2: 10 s idle (credit builds at 100 units/s).
Phase 3: a spike of 400 WCU/s (100 writes/s of 4 KB, random keys) for 9 s. The spike is
served in full while the credit lasts, about (100 + 2 x 50 + 10 x 100) / (400 - 100)
= 4 s, then the table is held to its 100 WCU/s and the rest is throttled.
"""

import time
import uuid

import _common as c

TABLE = "orders"
WCU = 100
ITEM_BYTES = 4000


def main():
    args = c.parse_args(__doc__.splitlines()[0], threads=2, interval_ms=250)
    with c.Server(args.server) as srv:
        cl = c.Client(srv.port)
        c.create_table(cl, TABLE, ("order_id", "S"), rcu=5, wcu=WCU)
        sampler = c.start_sampler(srv, args, "burst_credit")

        def order(t, i):
            return "PutItem", {"TableName": TABLE, "Item": {
                "order_id": {"S": str(uuid.uuid4())}, "lines": {"S": c.pad(ITEM_BYTES - 60)}}}

        stats = c.Stats()
        t0 = time.monotonic()
        c.run_load(srv.port, 2, 12.5, args.threads, order, stats)           # 50 WCU/s
        time.sleep(10)                                                       # idle
        t_spike = time.monotonic()
        c.run_load(srv.port, 9, 100, args.threads, order, stats, t_offset=12)  # 400 WCU/s
        elapsed = time.monotonic() - t0
        spike = time.monotonic() - t_spike
        time.sleep(0.5)
        samples = sampler.stop()

    print(f"== burst_credit: provisioned {WCU} WCU; 2 s at 50 WCU/s, 10 s idle, "
          f"then 9 s at 400 WCU/s")
    c.print_client_summary("all phases", stats, elapsed, unit_cost=4)
    spike_ok = sum(v for s, v in stats.ok.items() if s >= 12)
    spike_thr = sum(v for s, v in stats.throttled.items() if s >= 12)
    full = [s for s in range(12, 21) if stats.throttled[s] == 0 and stats.ok[s] > 0]
    print(f"  spike: {spike_ok} ok / {spike_thr} throttled in {spike:.1f} s; served in full "
          f"for {len(full)} s (expected ~4 s of credit), then ~{WCU // 4} writes/s "
          f"({WCU} WCU/s)")
    c.print_timeline(stats, unit_cost=4)
    c.heat_map(samples, "burst_credit", TABLE,
               title="Burst credit: idle capacity absorbs a spike, then runs out")


if __name__ == "__main__":
    main()
