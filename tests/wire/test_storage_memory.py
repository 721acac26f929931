"""The store's memory on /metrics (issue 34): --cache-size sets the block cache's capacity,
and the memtables, charged to that cache, show in its usage and on their own gauge."""

import urllib.request

import pytest

from conftest import ServerProcess, make_client

pytestmark = pytest.mark.ddb_only("ddb-server's flags and /metrics")


def gauges(port):
    wanted = ("ddb_storage_cache_capacity_bytes", "ddb_storage_cache_usage_bytes",
              "ddb_storage_memtable_bytes")
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
