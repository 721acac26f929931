"""The store's memory on /metrics (issue 34): --cache-size sets the block cache's capacity,
and the memtables, charged to that cache, show in its usage and on their own gauge; the
compactions' debt shows too."""

import time
import urllib.request

import pytest

from conftest import ServerProcess, make_client

pytestmark = pytest.mark.ddb_only("ddb-server's flags and /metrics")


def gauges(port):
    wanted = ("ddb_storage_cache_capacity_bytes", "ddb_storage_cache_usage_bytes",
              "ddb_storage_memtable_bytes", "ddb_storage_pending_compaction_bytes",
              "ddb_storage_running_compactions")
    out = {}
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        for line in r.read().decode().splitlines():
            name = line.split("{")[0].split(" ")[0]
            if name in wanted:
                out[name] = float(line.split()[-1])
    return out


def test_cache_size_and_memtables_show_on_metrics(tmp_path):
    cache = 64 << 20
    srv = ServerProcess("--data-dir", str(tmp_path / "data"), "--cache-size", str(cache)).start()
    try:
        client = make_client(srv.endpoint)
        client.create_table(TableName="tbl", BillingMode="PAY_PER_REQUEST",
                            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        payload = "x" * 4000
        for b in range(40):  # ~4 MB into the memtables
            client.batch_write_item(RequestItems={"tbl": [
                {"PutRequest": {"Item": {"pk": {"S": f"k{b}-{i}"}, "v": {"S": payload}}}}
                for i in range(25)]})
        g = gauges(srv.port)
        assert g["ddb_storage_cache_capacity_bytes"] == cache
        assert g["ddb_storage_memtable_bytes"] > 2 << 20
        # The memtables' charge is part of what the cache holds.
        assert g["ddb_storage_cache_usage_bytes"] >= g["ddb_storage_memtable_bytes"]
    finally:
        srv.stop_and_check()


def test_compaction_debt_shows_and_is_worked_off(tmp_path):
    srv = ServerProcess("--data-dir", str(tmp_path / "data"), "--cache-size",
                        str(64 << 20)).start()
    try:
        client = make_client(srv.endpoint)
        client.create_table(TableName="tbl", BillingMode="PAY_PER_REQUEST",
                            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        g = gauges(srv.port)
        assert g["ddb_storage_pending_compaction_bytes"] >= 0
        assert g["ddb_storage_running_compactions"] >= 0
        payload = "y" * 4000
        for b in range(40):
            client.batch_write_item(RequestItems={"tbl": [
                {"PutRequest": {"Item": {"pk": {"S": f"k{b}-{i}"}, "v": {"S": payload}}}}
                for i in range(25)]})
        # Whatever the writes left to compact is done soon on an idle server: the gauges
        # come back to 0 (and never read negative or absent meanwhile).
        deadline = time.monotonic() + 60
        while True:
            g = gauges(srv.port)
            assert g["ddb_storage_pending_compaction_bytes"] >= 0
            assert g["ddb_storage_running_compactions"] >= 0
            if (g["ddb_storage_pending_compaction_bytes"] == 0 and
                    g["ddb_storage_running_compactions"] == 0):
                break
            assert time.monotonic() < deadline, g
            time.sleep(0.2)
    finally:
        srv.stop_and_check()
