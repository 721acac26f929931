#!/usr/bin/env python3
"""The current date as the partition key: every write of the day goes to one partition.

An on-demand table of events keyed by (date, event_id). Events arrive at 400 per second,
4 KB each (1,600 WCU/s, within the table's 4,000 WCU warm throughput). All of a day's
events share the partition key "<today>", so one partition takes them all and throttles
above its 1,000 WCU/s; at (simulated) midnight the hot spot jumps to wherever the next
date hashes, leaving yesterday's partition idle. Three days of 8 seconds each.
"""

import datetime
import time
import uuid

import _common as c

TABLE = "events_by_date"
RATE = 400
ITEM_BYTES = 4000
DAYS = 3
DAY_SECONDS = 8


def main():
    args = c.parse_args(__doc__.splitlines()[0])
    today = datetime.date.today()
    dates = [(today + datetime.timedelta(days=d)).isoformat() for d in range(DAYS)]
    with c.Server(args.server) as srv:
        cl = c.Client(srv.port)
        c.create_table(cl, TABLE, ("date", "S"), ("event_id", "S"))
        sampler = c.start_sampler(srv, args, "date_partition_key")
        stats = c.Stats()
        t0 = time.monotonic()
        for d, date in enumerate(dates):
            def event(t, i, date=date):
                return "PutItem", {"TableName": TABLE, "Item": {
                    "date": {"S": date}, "event_id": {"S": str(uuid.uuid4())},
                    "payload": {"S": c.pad(ITEM_BYTES - 60)}}}
            c.run_load(srv.port, DAY_SECONDS, RATE, args.threads, event, stats,
                       t_offset=d * DAY_SECONDS)
        elapsed = time.monotonic() - t0
        time.sleep(0.6)
        samples = sampler.stop()

    print(f"== date_partition_key: partition key = the date ({', '.join(dates)}; one "
          f"simulated day = {DAY_SECONDS} s; {RATE}/s x {ITEM_BYTES} B = {RATE * 4} WCU/s)")
    c.print_client_summary("events", stats, elapsed, unit_cost=4)
    c.print_timeline(stats, unit_cost=4)
    last = samples[-1]["resources"].get(TABLE, {})
    for date in dates:
        token = None
        # Which partition each day landed in (by the hot-key series).
        for k, v in last.get("hot", []):
            if k == date:
                token = v
        print(f"  key {date}: {token or 0:.0f} units consumed")
    c.heat_map(samples, "date_partition_key", TABLE,
               title="Date as partition key: the hot spot moves every (simulated) midnight")


if __name__ == "__main__":
    main()
