"""Bounded concurrency stress tests on loopback: fixed thread and operation counts,
each test well under 10 s.

What DynamoDB documents and these tests rely on ("Amazon DynamoDB Transactions:
How it works" - isolation levels, conflict handling; "Condition expressions"):
  * a single-item conditional write is atomic with its condition, so racing
    attribute_not_exists puts on one key have exactly one winner, and ADD on one
    item from many clients loses no increment;
  * transactions are serializable with each other and with single-item writes;
    a conflicting transaction may be cancelled (reason TransactionConflict) or
    rejected with TransactionConflictException instead of waiting - the tests
    retry those and never count them as applied;
  * TransactGetItems reads all its items at one instant (it may also be
    cancelled by a conflicting write, which is retried).
Every worker owns its boto3 client; a worker's exception fails the test.
"""

import random
import threading
import time
import uuid

from botocore.exceptions import ClientError

from conftest import get_wire_item, make_client

THREADS = 8
TIME_LIMIT_S = 10.0
TCE = "TransactionCanceledException"
CONFLICT = "TransactionConflictException"
COND_FAILED = "ConditionalCheckFailedException"
IN_PROGRESS = "TransactionInProgressException"


def N(v):
    return {"N": str(v)}


def S(v):
    return {"S": v}


def run_workers(endpoint, n, work, time_limit=TIME_LIMIT_S):
    """Run work(tid, client, barrier) on n threads; fail on any worker error or overrun."""
    errors = []
    barrier = threading.Barrier(n)

    def body(tid):
        try:
            client = make_client(endpoint)
            work(tid, client, barrier)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append((tid, repr(e)))
            barrier.abort()

    start = time.monotonic()
    threads = [threading.Thread(target=body, args=(t,), daemon=True) for t in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(0.1, time_limit - (time.monotonic() - start)))
    elapsed = time.monotonic() - start
    assert not any(t.is_alive() for t in threads), \
        f"workers still running after {elapsed:.1f}s (deadlock or livelock?)"
    assert not errors, errors
    assert elapsed < time_limit, f"took {elapsed:.1f}s"
    return elapsed


def is_conflict(err):
    """A transaction conflict the service may report instead of waiting."""
    code = err.response["Error"]["Code"]
    if code == CONFLICT:
        return True
    if code == TCE:
        codes = [r.get("Code") for r in err.response.get("CancellationReasons", [])]
        return "TransactionConflict" in codes
    return False


def cancel_codes(err):
    return [r.get("Code") for r in err.response.get("CancellationReasons", [])]


# ---------------------------------------------------------------------------
# Single-item atomicity
# ---------------------------------------------------------------------------

def test_concurrent_add_reaches_exact_total(server, ddb, table_s):
    per_thread = 50
    key = {"pk": S("counter")}

    def work(tid, client, barrier):
        barrier.wait(timeout=10)
        for _ in range(per_thread):
            client.update_item(TableName=table_s, Key=key, UpdateExpression="ADD n :one",
                               ExpressionAttributeValues={":one": N(1)})

    run_workers(server.endpoint, THREADS, work)
    assert get_wire_item(ddb, table_s, key) == {"pk": S("counter"), "n": N(THREADS * per_thread)}


def test_concurrent_add_with_returned_values_are_all_distinct(server, ddb, table_s):
    """Every ADD returns the value it produced: no two writers see the same one."""
    per_thread = 40
    key = {"pk": S("ticket")}
    seen = [[] for _ in range(THREADS)]

    def work(tid, client, barrier):
        barrier.wait(timeout=10)
        for _ in range(per_thread):
            r = client.update_item(TableName=table_s, Key=key, UpdateExpression="ADD n :one",
                                   ExpressionAttributeValues={":one": N(1)},
                                   ReturnValues="UPDATED_NEW")
            seen[tid].append(int(r["Attributes"]["n"]["N"]))

    run_workers(server.endpoint, THREADS, work)
    values = sorted(v for s in seen for v in s)
    assert values == list(range(1, THREADS * per_thread + 1))
    for s in seen:  # each writer's own values increase
        assert s == sorted(s)


def test_attribute_not_exists_race_has_exactly_one_winner(server, ddb, table_s):
    rounds = 12
    winners = [[None] * THREADS for _ in range(rounds)]

    def work(tid, client, barrier):
        for r in range(rounds):
            barrier.wait(timeout=10)
            try:
                client.put_item(TableName=table_s,
                                Item={"pk": S(f"race-{r}"), "winner": N(tid),
                                      "payload": S(f"{tid}:" * 64)},
                                ConditionExpression="attribute_not_exists(pk)")
                winners[r][tid] = True
            except ClientError as e:
                assert e.response["Error"]["Code"] == COND_FAILED, e.response["Error"]
                winners[r][tid] = False

    run_workers(server.endpoint, THREADS, work)
    for r in range(rounds):
        won = [t for t in range(THREADS) if winners[r][t]]
        assert len(won) == 1, f"round {r}: winners {won}"
        item = get_wire_item(ddb, table_s, {"pk": S(f"race-{r}")})
        assert item["winner"] == N(won[0]), (r, item)
        assert item["payload"] == S(f"{won[0]}:" * 64)


def test_transactional_attribute_not_exists_race_has_exactly_one_winner(server, ddb, table_s):
    """The same race through TransactWriteItems (a Put plus a per-thread claim)."""
    rounds = 10
    winners = [[None] * THREADS for _ in range(rounds)]

    def work(tid, client, barrier):
        for r in range(rounds):
            barrier.wait(timeout=10)
            while True:
                try:
                    client.transact_write_items(TransactItems=[
                        {"Put": {"TableName": table_s,
                                 "Item": {"pk": S(f"txrace-{r}"), "winner": N(tid)},
                                 "ConditionExpression": "attribute_not_exists(pk)"}},
                        {"Put": {"TableName": table_s,
                                 "Item": {"pk": S(f"claim-{r}-{tid}")}}}])
                    winners[r][tid] = True
                except ClientError as e:
                    if is_conflict(e):
                        continue
                    assert e.response["Error"]["Code"] == TCE, e.response["Error"]
                    assert cancel_codes(e) == ["ConditionalCheckFailed", "None"], e.response
                    winners[r][tid] = False
                break

    run_workers(server.endpoint, THREADS, work)
    for r in range(rounds):
        won = [t for t in range(THREADS) if winners[r][t]]
        assert len(won) == 1, f"round {r}: winners {won}"
        assert get_wire_item(ddb, table_s, {"pk": S(f"txrace-{r}")})["winner"] == N(won[0])
        for t in range(THREADS):  # the losers' second action was not applied either
            claimed = get_wire_item(ddb, table_s, {"pk": S(f"claim-{r}-{t}")}) is not None
            assert claimed == (t == won[0]), (r, t)


# ---------------------------------------------------------------------------
# Transfers between accounts
# ---------------------------------------------------------------------------

def test_concurrent_transfers_conserve_the_sum(server, ddb, table_s):
    accounts = 5
    initial = 100
    per_thread = 40
    keys = [{"pk": S(f"acct-{i}")} for i in range(accounts)]
    for k in keys:
        ddb.put_item(TableName=table_s, Item={**k, "b": N(initial)})
    applied = [[] for _ in range(THREADS)]  # (src, dst, amount) of committed transfers
    refused = [0] * THREADS
    reads = [0]
    stop_reader = threading.Event()
    reader_errors = []

    def transfer(client, src, dst, amount):
        return client.transact_write_items(TransactItems=[
            {"Update": {"TableName": table_s, "Key": keys[src],
                        "UpdateExpression": "SET b = b - :v", "ConditionExpression": "b >= :v",
                        "ExpressionAttributeValues": {":v": N(amount)}}},
            {"Update": {"TableName": table_s, "Key": keys[dst],
                        "UpdateExpression": "SET b = b + :v",
                        "ExpressionAttributeValues": {":v": N(amount)}}}])

    def work(tid, client, barrier):
        rng = random.Random(1000 + tid)
        barrier.wait(timeout=10)
        for _ in range(per_thread):
            src, dst = rng.sample(range(accounts), 2)
            amount = rng.randint(1, 60)
            while True:
                try:
                    transfer(client, src, dst, amount)
                    applied[tid].append((src, dst, amount))
                except ClientError as e:
                    if is_conflict(e):
                        continue
                    assert e.response["Error"]["Code"] == TCE, e.response["Error"]
                    assert cancel_codes(e) == ["ConditionalCheckFailed", "None"], e.response
                    refused[tid] += 1
                break

    def reader():
        # Meanwhile, every TransactGetItems of all accounts sees the exact sum. Under load a
        # read of every account collides with some transfer nearly always and is cancelled
        # (TransactionConflict, as the service answers), so the reader goes on until it has
        # one read, at the latest once the transfers are done.
        client = make_client(server.endpoint)
        deadline = [None]
        try:
            while True:
                if stop_reader.is_set():
                    if deadline[0] is None:
                        deadline[0] = time.monotonic() + 10
                    if reads[0] > 0 or time.monotonic() > deadline[0]:
                        break
                try:
                    r = client.transact_get_items(TransactItems=[
                        {"Get": {"TableName": table_s, "Key": k}} for k in keys])
                except ClientError as e:
                    if is_conflict(e):
                        continue
                    raise
                bals = [int(x["Item"]["b"]["N"]) for x in r["Responses"]]
                assert sum(bals) == accounts * initial, bals
                assert min(bals) >= 0, bals
                reads[0] += 1
        except BaseException as e:  # noqa: BLE001
            reader_errors.append(repr(e))

    rt = threading.Thread(target=reader, daemon=True)
    rt.start()
    try:
        run_workers(server.endpoint, THREADS, work)
    finally:
        stop_reader.set()
        rt.join(timeout=20)
    assert not rt.is_alive()
    assert not reader_errors, reader_errors
    assert reads[0] > 0

    final = [int(get_wire_item(ddb, table_s, k)["b"]["N"]) for k in keys]
    assert sum(final) == accounts * initial, final
    assert min(final) >= 0, final
    # The committed transfers alone explain the final balances, exactly.
    expected = [initial] * accounts
    for ops in applied:
        for src, dst, amount in ops:
            expected[src] -= amount
            expected[dst] += amount
    assert final == expected, (final, expected)
    assert sum(len(a) for a in applied) + sum(refused) == THREADS * per_thread
    assert sum(len(a) for a in applied) > 0


def test_transfers_in_both_directions_do_not_deadlock(server, ddb, table_s):
    """Pairs of threads move value A->B and B->A at once, many times (lock order)."""
    per_thread = 60
    a, b = {"pk": S("dl-a")}, {"pk": S("dl-b")}
    ddb.put_item(TableName=table_s, Item={**a, "b": N(1000)})
    ddb.put_item(TableName=table_s, Item={**b, "b": N(1000)})
    done = [0] * THREADS

    def work(tid, client, barrier):
        src, dst = (a, b) if tid % 2 else (b, a)
        barrier.wait(timeout=10)
        for _ in range(per_thread):
            while True:
                try:
                    client.transact_write_items(TransactItems=[
                        {"Update": {"TableName": table_s, "Key": src,
                                    "UpdateExpression": "SET b = b - :v",
                                    "ConditionExpression": "b >= :v",
                                    "ExpressionAttributeValues": {":v": N(1)}}},
                        {"Update": {"TableName": table_s, "Key": dst,
                                    "UpdateExpression": "SET b = b + :v",
                                    "ExpressionAttributeValues": {":v": N(1)}}}])
                    done[tid] += 1
                except ClientError as e:
                    if is_conflict(e):
                        continue
                    raise
                break

    run_workers(server.endpoint, THREADS, work)
    assert sum(done) == THREADS * per_thread
    fa = int(get_wire_item(ddb, table_s, a)["b"]["N"])
    fb = int(get_wire_item(ddb, table_s, b)["b"]["N"])
    assert (fa, fb) == (1000, 1000)  # equal numbers of moves each way


# ---------------------------------------------------------------------------
# Order placement: put order, count it for the user, decrement stock if enough
# ---------------------------------------------------------------------------

def test_order_transaction_never_oversells(server, ddb, table_factory):
    orders = table_factory(("orderId", "S"))
    users = table_factory(("userId", "S"))
    products = table_factory(("productId", "S"))
    initial_stock = 60
    per_thread = 15  # 120 attempts of 1..3 units: far more demand than stock
    user_count = 4
    product_key = {"productId": S("widget")}
    ddb.put_item(TableName=products, Item={**product_key, "stock": N(initial_stock)})
    for u in range(user_count):
        ddb.put_item(TableName=users, Item={"userId": S(f"user-{u}"), "orderCount": N(0)})
    placed = [[] for _ in range(THREADS)]  # (orderId, user, qty)
    refused = [0] * THREADS

    def place(client, order_id, user, qty):
        client.transact_write_items(TransactItems=[
            {"Put": {"TableName": orders,
                     "Item": {"orderId": S(order_id), "userId": S(user), "qty": N(qty),
                              "productId": S("widget")},
                     "ConditionExpression": "attribute_not_exists(orderId)"}},
            {"Update": {"TableName": users, "Key": {"userId": S(user)},
                        "UpdateExpression": "ADD orderCount :one",
                        "ExpressionAttributeValues": {":one": N(1)}}},
            {"Update": {"TableName": products, "Key": product_key,
                        "UpdateExpression": "SET stock = stock - :qty",
                        "ConditionExpression": "stock >= :qty",
                        "ExpressionAttributeValues": {":qty": N(qty)}}},
        ], ClientRequestToken=order_id)

    def work(tid, client, barrier):
        rng = random.Random(7000 + tid)
        barrier.wait(timeout=10)
        for i in range(per_thread):
            order_id = f"o-{tid}-{i}-{uuid.uuid4().hex[:8]}"
            user = f"user-{rng.randrange(user_count)}"
            qty = rng.randint(1, 3)
            while True:
                try:
                    place(client, order_id, user, qty)
                    placed[tid].append((order_id, user, qty))
                except ClientError as e:
                    if is_conflict(e):
                        continue
                    assert e.response["Error"]["Code"] == TCE, e.response["Error"]
                    assert cancel_codes(e) == ["None", "None", "ConditionalCheckFailed"], \
                        e.response
                    refused[tid] += 1
                break

    run_workers(server.endpoint, THREADS, work)

    all_placed = [p for ps in placed for p in ps]
    final_stock = int(get_wire_item(ddb, products, product_key)["stock"]["N"])
    assert final_stock >= 0
    # Orders placed account for exactly the stock that left.
    assert sum(q for _, _, q in all_placed) == initial_stock - final_stock
    # Demand exceeded stock, so what is left is less than the largest order size.
    assert final_stock < 3, final_stock
    assert len(all_placed) + sum(refused) == THREADS * per_thread
    assert sum(refused) > 0
    # Exactly the committed orders exist, and each user's count matches them.
    stored = ddb.scan(TableName=orders, ConsistentRead=True)
    assert "LastEvaluatedKey" not in stored
    assert sorted(i["orderId"]["S"] for i in stored["Items"]) == sorted(o for o, _, _ in all_placed)
    counts = {f"user-{u}": 0 for u in range(user_count)}
    for _, user, _ in all_placed:
        counts[user] += 1
    for u, c in counts.items():
        assert get_wire_item(ddb, users, {"userId": S(u)})["orderCount"] == N(c), u
    assert sum(counts.values()) == len(all_placed)


# ---------------------------------------------------------------------------
# Idempotency under concurrent retries
# ---------------------------------------------------------------------------

def test_concurrent_retries_with_one_token_apply_once(server, ddb, table_s):
    """8 clients send the same request with the same ClientRequestToken at once:
    it is applied exactly once. Each call succeeds or, per the API reference, is
    refused with TransactionInProgressException while the first is running."""
    rounds = 15
    outcomes = [[None] * THREADS for _ in range(rounds)]
    run_id = uuid.uuid4().hex[:12]  # tokens unique to the run (--endpoint may share a server)

    def work(tid, client, barrier):
        for r in range(rounds):
            barrier.wait(timeout=10)
            try:
                client.transact_write_items(TransactItems=[
                    {"Update": {"TableName": table_s, "Key": {"pk": S(f"idem-{r}")},
                                "UpdateExpression": "ADD n :one",
                                "ExpressionAttributeValues": {":one": N(1)}}}],
                    ClientRequestToken=f"idem-token-{r}-{run_id}")
                outcomes[r][tid] = "ok"
            except ClientError as e:
                code = e.response["Error"]["Code"]
                assert code in (IN_PROGRESS, CONFLICT) or is_conflict(e), e.response["Error"]
                outcomes[r][tid] = code

    run_workers(server.endpoint, THREADS, work)
    for r in range(rounds):
        item = get_wire_item(ddb, table_s, {"pk": S(f"idem-{r}")})
        assert item == {"pk": S(f"idem-{r}"), "n": N(1)}, (r, item, outcomes[r])
        assert "ok" in outcomes[r]
