"""Colliding transactions answer as the service answers them (the developer guide,
"Transaction conflict handling in DynamoDB"), instead of waiting: a TransactWriteItems whose
item another transaction in flight holds is cancelled with a TransactionConflict reason,
and a single-item write to such an item fails with TransactionConflictException ("Transaction
is ongoing for the item"). Collisions are made by many threads on one item; each test runs
until it has seen one (or fails after a deadline), then checks the answer's shape and that
no update was lost or applied twice."""
import threading
import time

from botocore.exceptions import ClientError

from conftest import make_client

ONGOING = "Transaction is ongoing for the item"


def _hammer(endpoint, table, work, wanted, threads=8, seconds=20):
    """Runs work(client, thread, n) in threads until one saw the error code `wanted` (with a
    TransactionConflict reason, for a cancellation) or time is up; returns (outcomes, errors)
    where outcomes counts 'ok' and error codes."""
    stop = threading.Event()
    lock = threading.Lock()
    outcomes, conflicts = {}, []

    def run(t):
        c = make_client(endpoint)
        n = 0
        while not stop.is_set():
            n += 1
            try:
                work(c, t, n)
                kind = "ok"
            except ClientError as e:
                kind = e.response["Error"]["Code"]
                with lock:
                    conflicts.append(e.response)
                reasons = e.response.get("CancellationReasons", [])
                if kind == wanted and (kind == "TransactionConflictException" or any(
                        r.get("Code") == "TransactionConflict" for r in reasons)):
                    stop.set()
            with lock:
                outcomes[kind] = outcomes.get(kind, 0) + 1
            if n >= 2000:
                break

    workers = [threading.Thread(target=run, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not stop.is_set():
        time.sleep(0.05)
    stop.set()
    for w in workers:
        w.join()
    return outcomes, conflicts


def _add(table, pk, amount=1):
    return {"Update": {"TableName": table, "Key": {"pk": {"S": pk}},
                       "UpdateExpression": "ADD v :d",
                       "ExpressionAttributeValues": {":d": {"N": str(amount)}}}}


def _value(ddb, table, pk):
    item = ddb.get_item(TableName=table, Key={"pk": {"S": pk}}, ConsistentRead=True).get("Item")
    return int(item["v"]["N"]) if item else 0


def test_colliding_transactions_are_cancelled_with_transaction_conflict(ddb, endpoint,
                                                                        table_s):
    applied = [0]
    count_lock = threading.Lock()

    def work(c, t, n):
        # Each transaction adds to the shared item and to an item of its own (so that it takes
        # a while and collides often); the reasons are in request order.
        c.transact_write_items(TransactItems=[_add(table_s, f"own-{t}-{n % 50}"),
                                              _add(table_s, "hot")])
        with count_lock:
            applied[0] += 1

    outcomes, errors = _hammer(endpoint, table_s, work, "TransactionCanceledException")
    conflict = [e for e in errors if e["Error"]["Code"] == "TransactionCanceledException"]
    assert conflict, f"no transaction conflict seen: {outcomes}"
    reasons = conflict[0]["CancellationReasons"]
    assert len(reasons) == 2
    assert {"Code": "TransactionConflict", "Message": ONGOING} in reasons
    assert all(r == {"Code": "None"} or r == {"Code": "TransactionConflict", "Message": ONGOING}
               for r in reasons)
    assert "TransactionConflict" in conflict[0]["Error"]["Message"]
    assert set(outcomes) <= {"ok", "TransactionCanceledException"}, outcomes
    # Cancelled transactions applied nothing; the others applied once.
    assert _value(ddb, table_s, "hot") == applied[0] == outcomes["ok"]


def test_single_write_to_an_item_a_transaction_holds_conflicts(ddb, endpoint, table_s):
    committed = {"tx": 0, "single": 0}
    count_lock = threading.Lock()

    def work(c, t, n):
        if t % 2 == 0:
            c.transact_write_items(TransactItems=[_add(table_s, f"own-{t}-{n % 50}"),
                                                  _add(table_s, "hot")])
            key = "tx"
        else:
            c.update_item(TableName=table_s, Key={"pk": {"S": "hot"}}, UpdateExpression="ADD v :d",
                          ExpressionAttributeValues={":d": {"N": "1000"}})
            key = "single"
        with count_lock:
            committed[key] += 1

    outcomes, errors = _hammer(endpoint, table_s, work, "TransactionConflictException")
    single = [e for e in errors if e["Error"]["Code"] == "TransactionConflictException"]
    assert single, f"no single-item write conflict seen: {outcomes}"
    assert single[0]["Error"]["Message"] == ONGOING
    assert single[0]["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert set(outcomes) <= {"ok", "TransactionCanceledException",
                             "TransactionConflictException"}, outcomes
    assert _value(ddb, table_s, "hot") == committed["tx"] + 1000 * committed["single"]
