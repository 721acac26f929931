"""Concurrent clients: 8 threads x 50 operations on distinct and shared keys."""

import threading
import time

from botocore.exceptions import ClientError

from conftest import delete_table_quietly, key_schema_kwargs, make_client, unique_name

THREADS = 8
OPS_PER_THREAD = 50
SHARED_KEYS = 4
TIME_LIMIT_S = 30.0
PAYLOAD_REPEAT = 200


def _payload(writer, seq):
    # Long enough that a torn (partially applied) write would be visible.
    return f"{writer}:{seq};" * PAYLOAD_REPEAT


def _check_shared_item(item):
    """A shared-key item must be exactly one writer's complete write."""
    writer = int(item["writer"]["N"])
    seq = int(item["seq"]["N"])
    assert 0 <= writer < THREADS
    assert 0 <= seq < OPS_PER_THREAD
    assert item["payload"]["S"] == _payload(writer, seq), "torn write on a shared key"
    assert item["tags"]["SS"] == sorted(item["tags"]["SS"])
    assert set(item["tags"]["SS"]) == {f"w{writer}", f"s{seq}"}
    return writer, seq


def test_parallel_puts_and_gets(server, table_sn):
    table = table_sn
    errors = []
    last_seq_seen = {}
    barrier = threading.Barrier(THREADS)

    def worker(tid):
        try:
            client = make_client(server.endpoint)  # each thread has its own client
            barrier.wait(timeout=20)
            for i in range(OPS_PER_THREAD):
                # Distinct key: write, then read back our own write.
                own_key = {"pk": {"S": f"own-{tid}"}, "sk": {"N": str(i)}}
                own_item = {**own_key, "writer": {"N": str(tid)}, "v": {"S": f"v{tid}-{i}"},
                            "n": {"N": f"{tid * 1000 + i}.000"}}
                client.put_item(TableName=table, Item=own_item)
                got = client.get_item(TableName=table, Key=own_key, ConsistentRead=True)
                assert got["Item"]["v"] == {"S": f"v{tid}-{i}"}
                assert got["Item"]["n"] == {"N": str(tid * 1000 + i)}

                # Shared keys: everyone overwrites them.
                shared_key = {"pk": {"S": "shared"}, "sk": {"N": str(i % SHARED_KEYS)}}
                client.put_item(TableName=table, Item={
                    **shared_key, "writer": {"N": str(tid)}, "seq": {"N": str(i)},
                    "payload": {"S": _payload(tid, i)},
                    "tags": {"SS": [f"w{tid}", f"s{i}"]}})
                got = client.get_item(TableName=table, Key=shared_key, ConsistentRead=True)
                assert "Item" in got
                _check_shared_item(got["Item"])
            last_seq_seen[tid] = OPS_PER_THREAD - 1
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append((tid, repr(e)))

    start = time.monotonic()
    threads = [threading.Thread(target=worker, args=(t,), daemon=True) for t in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(0.1, TIME_LIMIT_S - (time.monotonic() - start)))
    elapsed = time.monotonic() - start
    assert not any(t.is_alive() for t in threads), f"workers still running after {elapsed:.1f}s"
    assert not errors, errors
    assert elapsed < TIME_LIMIT_S
    assert len(last_seq_seen) == THREADS

    # Final state: every distinct key holds its writer's value.
    client = make_client(server.endpoint)
    for tid in range(THREADS):
        for i in range(OPS_PER_THREAD):
            got = client.get_item(TableName=table,
                                  Key={"pk": {"S": f"own-{tid}"}, "sk": {"N": str(i)}},
                                  ConsistentRead=True)
            assert got["Item"]["v"] == {"S": f"v{tid}-{i}"}
            assert got["Item"]["writer"] == {"N": str(tid)}
    # Each shared key holds one complete write, and one that targeted that key.
    for k in range(SHARED_KEYS):
        got = client.get_item(TableName=table, Key={"pk": {"S": "shared"}, "sk": {"N": str(k)}},
                              ConsistentRead=True)
        _writer, seq = _check_shared_item(got["Item"])
        assert seq % SHARED_KEYS == k


def test_parallel_table_creation_and_deletion(server):
    """Concurrent CreateTable/DeleteTable on distinct names all succeed."""
    names = [unique_name("conc") for _ in range(THREADS)]
    errors = []

    def worker(name):
        try:
            c = make_client(server.endpoint)
            c.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                           **key_schema_kwargs(("pk", "S")))
            for j in range(10):
                c.put_item(TableName=name, Item={"pk": {"S": str(j)}})
            assert c.get_item(TableName=name, Key={"pk": {"S": "9"}})["Item"] == {"pk": {"S": "9"}}
            c.delete_table(TableName=name)
        except BaseException as e:  # noqa: BLE001
            errors.append((name, repr(e)))

    start = time.monotonic()
    threads = [threading.Thread(target=worker, args=(n,), daemon=True) for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(0.1, TIME_LIMIT_S - (time.monotonic() - start)))
    assert not any(t.is_alive() for t in threads)
    assert not errors, errors
    remaining = set(make_client(server.endpoint).list_tables()["TableNames"])
    assert not remaining & set(names)


def test_same_table_created_concurrently_exactly_once(server):
    """Racing CreateTable calls for one name: exactly one wins, the rest get ResourceInUse."""
    name = unique_name("race")
    outcomes = []
    lock = threading.Lock()
    barrier = threading.Barrier(THREADS)

    def worker():
        c = make_client(server.endpoint)
        barrier.wait(timeout=20)
        try:
            c.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                           **key_schema_kwargs(("pk", "S")))
            res = "ok"
        except ClientError as e:
            res = e.response["Error"]["Code"]
        except BaseException as e:  # noqa: BLE001
            res = repr(e)
        with lock:
            outcomes.append(res)

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(THREADS)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=TIME_LIMIT_S)
        assert sorted(outcomes) == ["ResourceInUseException"] * (THREADS - 1) + ["ok"]
    finally:
        delete_table_quietly(make_client(server.endpoint), name)
