#!/usr/bin/env python3
"""Sequential numeric user IDs vs random UUIDs: hashing spreads both evenly.

A common worry is that sequential IDs (1, 2, 3, ...) pile up in one partition the way
they would in a range-partitioned store. DynamoDB partitions by a hash of the partition
key, so consecutive IDs land in unrelated partitions. Two on-demand tables (8 partitions
each) get 4,000 users each, written in ID order with BatchWriteItem over 8 s: one keyed by
user_id (N) = 1..4000, the other by a random UUID (S). The per-partition item counts of
both are close to the uniform 500, with the spread one expects of random placement.
"""

import math
import time
import uuid

import _common as c

USERS = 4000
BATCH = 25
SECONDS = 8.0


def distribution(samples, table):
    parts = samples[-1]["resources"][table]["partitions"]
    return [(p[0], p[1], p[6]) for p in parts]


def report(label, dist):
    counts = [n for _, _, n in dist]
    total = sum(counts)
    mean = total / len(counts)
    chi2 = sum((n - mean) ** 2 / mean for n in counts)
    sd = math.sqrt(sum((n - mean) ** 2 for n in counts) / len(counts))
    print(f"  {label}: {total} items over {len(counts)} partitions: "
          f"min {min(counts)}, max {max(counts)}, max/mean {max(counts) / mean:.2f}, "
          f"cv {sd / mean:.3f}, chi-square {chi2:.1f} ({len(counts) - 1} dof; "
          f"< {14.07 if len(counts) == 8 else 'n/a'} at p = 0.05 for uniform)")
    for start, end, n in dist:
        bar = "#" * round(40 * n / max(counts))
        print(f"    {start:#018x}..{end:#018x} {n:5d} {bar}")


def main():
    args = c.parse_args(__doc__.splitlines()[0], threads=2)
    with c.Server(args.server) as srv:
        cl = c.Client(srv.port)
        c.create_table(cl, "users_seq", ("user_id", "N"))
        c.create_table(cl, "users_uuid", ("user_id", "S"))
        sampler = c.start_sampler(srv, args, "sequential_vs_uuid")
        batches = USERS // BATCH
        rate = batches / SECONDS
        ids = {"users_seq": [{"N": str(i)} for i in range(1, USERS + 1)],
               "users_uuid": [{"S": str(uuid.uuid4())} for _ in range(USERS)]}
        results = {}
        for table in ("users_seq", "users_uuid"):
            def batch(t, i, table=table):
                n = (i * args.threads + t) % batches
                keys = ids[table][n * BATCH:(n + 1) * BATCH]
                return "BatchWriteItem", {"RequestItems": {table: [
                    {"PutRequest": {"Item": {"user_id": k, "name": {"S": "user"},
                                             "bio": {"S": c.pad(200)}}}} for k in keys]}}
            t0 = time.monotonic()
            results[table] = (c.run_load(srv.port, SECONDS, rate, args.threads, batch),
                              time.monotonic() - t0)
        time.sleep(0.6)
        samples = sampler.stop()

    print(f"== sequential_vs_uuid: {USERS} users per table, written in order over "
          f"{SECONDS:.0f} s ({rate:.0f} BatchWriteItem/s of {BATCH})")
    for table, (st, el) in results.items():
        c.print_client_summary(f"{table} batches", st, el)
        unprocessed = sum(st.unprocessed.values())
        print(f"  unprocessed items: {unprocessed}")
    report("sequential 1..4000 (N)", distribution(samples, "users_seq"))
    report("random UUIDs (S)      ", distribution(samples, "users_uuid"))
    c.heat_map(samples, "sequential_vs_uuid-sequential", "users_seq",
               title="Sequential numeric IDs 1..4000: hashed evenly over the partitions")
    c.heat_map(samples, "sequential_vs_uuid-uuid", "users_uuid",
               title="Random UUIDs: hashed evenly over the partitions")


if __name__ == "__main__":
    main()
