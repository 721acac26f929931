#!/usr/bin/env python3
"""SearchVectors over HTTP: loads N vectors (BatchWriteItem, raw JSON) into a fresh
in-memory ddb-server on 127.0.0.1, waits for the HNSW graph (/metrics), then times TopK=10
searches on one keep-alive connection (p50, p99). Bounded: N items, Q queries.
  DDB_SERVER=build/ddb-server python3 bench/vector_http.py [N] [DIMS] [Q] [FUNCTION]
"""
import http.client
import json
import random
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "wire"))
from conftest import ServerProcess, TARGET_PREFIX, raw_post  # noqa: E402

n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
dims = int(sys.argv[2]) if len(sys.argv) > 2 else 128
queries = int(sys.argv[3]) if len(sys.argv) > 3 else 500
fn = sys.argv[4] if len(sys.argv) > 4 else "COSINE"

srv = ServerProcess("--in-memory")
srv.start()
try:
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=60)

    def call(op, body):
        r = raw_post(conn, srv.endpoint, TARGET_PREFIX + op, json.dumps(body))
        assert r.status == 200, r.body[:300]
        return r.json()

    call("CreateTable", {"TableName": "vecbench", "BillingMode": "PAY_PER_REQUEST",
                         "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                         "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                         "VectorIndexes": [{"IndexName": "vix", "VectorAttribute": {"AttributeName": "e"},
                                            "Dimensions": dims, "DistanceFunction": fn,
                                            "Projection": {"ProjectionType": "KEYS_ONLY"}}]})
    rng = random.Random(1)
    t0 = time.time()
    for start in range(0, n, 25):
        call("BatchWriteItem", {"RequestItems": {"vecbench": [
            {"PutRequest": {"Item": {"pk": {"S": str(i)}, "e": {"L": [
                {"N": "%.6f" % rng.uniform(-1, 1)} for _ in range(dims)]}}}}
            for i in range(start, min(start + 25, n))]}})
    load_s = time.time() - t0
    t1 = time.time()
    while True:
        text = urllib.request.urlopen(srv.endpoint + "/metrics", timeout=30).read().decode()
        graph = [l for l in text.splitlines() if l.startswith("ddb_vector_index_graph{")]
        declined = [l for l in text.splitlines()
                    if l.startswith("ddb_vector_index_graph_declined{")]
        mem = [l for l in text.splitlines() if l.startswith("ddb_vector_index_memory_bytes")]
        if n < 20000:
            mode = "exact (below the graph threshold)"
            break
        if graph and graph[0].endswith(" 1"):
            mode = "graph"
            break
        if declined and declined[0].endswith(" 1"):
            mode = "exact (graph declined)"
            break
        assert time.time() - t1 < 600, "no graph and none declined after 10 minutes"
        time.sleep(0.2)
    graph_s = time.time() - t1
    lat = []
    for _ in range(queries):
        q = [{"N": "%.6f" % rng.uniform(-1, 1)} for _ in range(dims)]
        a = time.perf_counter()
        r = call("SearchVectors", {"TableName": "vecbench", "IndexName": "vix", "SearchVector": q, "TopK": 10})
        lat.append((time.perf_counter() - a) * 1000)
        assert len(r["SearchResults"]) == 10
    lat.sort()
    print(f"n={n} dims={dims} fn={fn}: load {load_s:.1f} s ({n / load_s:.0f} items/s over HTTP), "
          f"{mode} {graph_s:.1f} s after, SearchVectors TopK=10 p50 {lat[len(lat) // 2]:.2f} ms "
          f"p99 {lat[len(lat) * 99 // 100]:.2f} ms; {mem[0] if mem else ''}")
finally:
    srv.stop()
