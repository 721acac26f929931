"""The `ddb` command line (issue 20) against a real ddb-server (--endpoint) and against a
data directory opened in process (--data-dir, server stopped): every command, --json
output, the exit codes (0 ok, 1 service error, 2 usage, 3 connection or I/O) and a
100k-item dump -> load round trip.

Binary: $DDB_CLI, default `ddb` beside $DDB_SERVER (build/ddb).
"""

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from conftest import SERVER_BIN, ServerProcess, make_client, unique_name

CLI_BIN = os.environ.get("DDB_CLI", str(Path(SERVER_BIN).parent / "ddb"))


def run(*args, endpoint=None, data_dir=None, stdin=None, check=None, timeout=120, aws=None):
    """Runs ddb; returns CompletedProcess (text). check: the expected exit code. aws: the
    AWS_* environment variables to give it (none otherwise)."""
    if not os.access(CLI_BIN, os.X_OK):
        pytest.fail(f"ddb not found: {CLI_BIN} (build it, or set DDB_CLI)")
    where = []
    if endpoint:
        where = ["--endpoint", endpoint]
    if data_dir:
        where = ["--data-dir", str(data_dir)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(aws or {})
    p = subprocess.run([CLI_BIN, *where, *args], input=stdin, capture_output=True,
                       timeout=timeout, env=env,
                       **({"text": True} if not isinstance(stdin, bytes) else {}))
    if check is not None:
        assert p.returncode == check, (p.returncode, p.stdout[-2000:], p.stderr[-2000:])
    return p


def make_table(client, name=None, gsi=True):
    name = name or unique_name("cli")
    kwargs = dict(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "N"}])
    if gsi:
        kwargs["AttributeDefinitions"].append({"AttributeName": "g", "AttributeType": "S"})
        kwargs["GlobalSecondaryIndexes"] = [{
            "IndexName": "byG",
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}}]
    client.create_table(**kwargs)
    return name


def fill(endpoint=None, data_dir=None, table=None):
    """u1 has sk 1..5 (g "even"/"odd"), u2 one item."""
    for sk in range(1, 6):
        item = {"pk": {"S": "u1"}, "sk": {"N": str(sk)},
                "g": {"S": "even" if sk % 2 == 0 else "odd"}, "v": {"S": f"v{sk}"}}
        run("put", table, json.dumps(item), endpoint=endpoint, data_dir=data_dir, check=0)
    run("put", table, "-", stdin=json.dumps({"Item": {"pk": {"S": "u2"}, "sk": {"N": "10"},
                                                      "g": {"S": "odd"}}}),
        endpoint=endpoint, data_dir=data_dir, check=0)


@pytest.fixture
def cli_table(ddb, endpoint):
    name = make_table(ddb)
    fill(endpoint=endpoint, table=name)
    yield name
    ddb.delete_table(TableName=name)


# ------------------------------------------------------------------ usage and exit codes

def test_help_and_usage_errors():
    p = run("--help", check=0)
    assert "Exit codes" in p.stdout and "query T PK" in p.stdout
    p = run(check=2)
    assert "no command given" in p.stderr and "usage:" in p.stderr
    assert "unknown command" in run("frobnicate", check=2).stderr
    assert "wrong number of arguments" in run("describe", check=2).stderr
    assert "unknown option" in run("scan", "T", "--bogus", check=2).stderr
    run("query", "T", "p", "--sk-prefix", "a", "--sk-between", "a", "b", check=2)
    run("--endpoint", "ftp://x", "tables", check=2)
    assert run("--version", check=0).stdout.startswith("ddb ")


def test_connection_error_is_3():
    p = run("tables", endpoint="http://127.0.0.1:1", check=3)
    assert p.stderr.startswith("ddb: cannot connect")


def test_timeout_is_3():
    # A server that accepts connections and never answers.
    import socket
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        started = time.monotonic()
        p = run("tables", "--timeout", "0.5", endpoint=f"http://127.0.0.1:{port}", check=3)
        assert time.monotonic() - started < 10
    assert p.stderr.startswith("ddb: request to 127.0.0.1:") and "timeout" in p.stderr


def test_service_error_is_1(endpoint):
    p = run("describe", "no-such-table", endpoint=endpoint, check=1)
    assert p.stderr.startswith("ResourceNotFoundException: Requested resource not found")
    p = run("put", "no-such-table", '{"pk":{"S":"a"}}', endpoint=endpoint, check=1)
    assert p.stderr.startswith("ResourceNotFoundException: ")
    p = run("get", "x", "--key", "{not json", endpoint=endpoint, check=2)


# ------------------------------------------------------------------ over --endpoint

def test_tables_and_describe(endpoint, cli_table):
    assert cli_table in run("tables", endpoint=endpoint, check=0).stdout.split("\n")
    assert cli_table in json.loads(run("tables", "--json", endpoint=endpoint, check=0).stdout)
    out = run("describe", cli_table, endpoint=endpoint, check=0).stdout
    assert "pk (S), sk (N)" in out and "GSI byG: g (S), sk (N)" in out and "ACTIVE" in out
    d = json.loads(run("describe", cli_table, "--json", endpoint=endpoint, check=0).stdout)
    assert d["TableName"] == cli_table and d["ItemCount"] == 6


def test_get_put_delete(endpoint, cli_table):
    item = json.loads(run("get", cli_table, "u1", "3", "--json", endpoint=endpoint,
                          check=0).stdout)
    assert item == {"pk": {"S": "u1"}, "sk": {"N": "3"}, "g": {"S": "odd"}, "v": {"S": "v3"}}
    out = run("get", cli_table, "u1", "3", endpoint=endpoint, check=0).stdout
    assert "v3" in out and "attribute" in out
    assert run("get", cli_table, "--key", '{"pk":{"S":"u1"},"sk":{"N":"3"}}', "--json",
               endpoint=endpoint, check=0).stdout.strip() == json.dumps(item,
                                                                       separators=(",", ":"))
    assert run("get", cli_table, "u1", "99", "--json", endpoint=endpoint,
               check=0).stdout.strip() == "null"
    assert "(no item)" in run("get", cli_table, "u1", "99", endpoint=endpoint, check=0).stderr
    # A key of the wrong shape: the usage (2); a bad key value: the service (1).
    run("get", cli_table, "u1", endpoint=endpoint, check=2)
    p = run("get", cli_table, "u1", "notanumber", endpoint=endpoint, check=1)
    assert p.stderr.startswith("ValidationException: ")
    run("delete", cli_table, "u1", "3", endpoint=endpoint, check=0)
    assert run("get", cli_table, "u1", "3", "--json", endpoint=endpoint,
               check=0).stdout.strip() == "null"
    assert "(no item)" in run("delete", cli_table, "u1", "3", endpoint=endpoint, check=0).stderr


def keys_of(stdout):
    return [(i["pk"]["S"], int(i["sk"]["N"])) for i in json.loads(stdout)]


def test_query(endpoint, cli_table):
    q = lambda *a: keys_of(run("query", cli_table, *a, "--json", endpoint=endpoint,
                               check=0).stdout)
    assert q("u1") == [("u1", s) for s in range(1, 6)]
    assert q("u1", "--desc", "--limit", "2") == [("u1", 5), ("u1", 4)]
    assert q("u1", "--sk-between", "2", "4") == [("u1", 2), ("u1", 3), ("u1", 4)]
    assert q("u1", "--filter", "v = :v", "--values", '{":v":{"S":"v5"}}') == [("u1", 5)]
    assert q("odd", "--index", "byG") == [("u1", 1), ("u1", 3), ("u1", 5), ("u2", 10)]
    assert q("odd", "--index", "byG", "--sk-between", "3", "9") == [("u1", 3), ("u1", 5)]
    assert q("nobody") == []
    out = run("query", cli_table, "u1", endpoint=endpoint, check=0)
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["pk", "sk", "g", "v"] and len(lines) == 7
    assert "(5 items)" in out.stderr
    p = run("query", cli_table, "u1", "--index", "nope", endpoint=endpoint, check=1)
    assert p.stderr.startswith("ValidationException: ")
    p = run("query", cli_table, "u1", "--filter", "v = :missing", endpoint=endpoint, check=1)
    assert p.stderr.startswith("ValidationException: ")


def test_query_sk_prefix(ddb, endpoint):
    name = unique_name("cli")
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "sk", "AttributeType": "S"}])
    for sk in ["order#1", "order#2", "profile"]:
        run("put", name, json.dumps({"pk": {"S": "u"}, "sk": {"S": sk}}), endpoint=endpoint,
            check=0)
    items = json.loads(run("query", name, "u", "--sk-prefix", "order#", "--json",
                           endpoint=endpoint, check=0).stdout)
    assert [i["sk"]["S"] for i in items] == ["order#1", "order#2"]
    ddb.delete_table(TableName=name)


def test_scan(endpoint, cli_table):
    assert len(json.loads(run("scan", cli_table, "--json", endpoint=endpoint,
                              check=0).stdout)) == 6
    assert len(json.loads(run("scan", cli_table, "--json", "--limit", "4",
                              endpoint=endpoint, check=0).stdout)) == 4
    got = keys_of(run("scan", cli_table, "--json", "--filter", "#g = :g", "--names",
                      '{"#g":"g"}', "--values", '{":g":{"S":"even"}}', "--projection",
                      "pk, sk", endpoint=endpoint, check=0).stdout)
    assert sorted(got) == [("u1", 2), ("u1", 4)]
    assert len(json.loads(run("scan", cli_table, "--index", "byG", "--json",
                              endpoint=endpoint, check=0).stdout)) == 6
    p = run("scan", "no-such-table", endpoint=endpoint, check=1)
    assert p.stderr.startswith("ResourceNotFoundException")


@pytest.mark.ddb_only("ddb-server's /metrics (what `ddb partitions` and `ddb hot-keys` read)")
def test_partitions_and_hot_keys(endpoint, cli_table):
    for _ in range(5):
        run("get", cli_table, "u2", "10", endpoint=endpoint, check=0)
    parts = json.loads(run("partitions", cli_table, "--json", endpoint=endpoint,
                           check=0).stdout)
    assert parts and {p["index"] for p in parts} <= {"", "byG"}
    table_parts = [p for p in parts if p["index"] == ""]
    assert table_parts and table_parts[0]["range_start"].startswith("0x")
    assert sum(p["items"] for p in table_parts) == 6
    assert sum(p["write_units"] for p in table_parts) >= 6
    out = run("partitions", cli_table, endpoint=endpoint, check=0).stdout
    assert out.splitlines()[0].split()[:3] == ["index", "partition", "token"]
    assert "\u2588" not in out  # no block characters when not a terminal
    hot = json.loads(run("hot-keys", cli_table, "--json", endpoint=endpoint, check=0).stdout)
    table_hot = [h for h in hot if h["index"] == ""]
    assert table_hot and table_hot[0]["key"] in ("u1", "u2") and table_hot[0]["rank"] == 1
    out = run("hot-keys", cli_table, "--top", "1", endpoint=endpoint, check=0).stdout
    assert "#" in out and "partition key" in out
    run("partitions", "no-such-table", endpoint=endpoint, check=1)


def test_dump_and_load_small(ddb, endpoint, cli_table):
    dump = run("dump", cli_table, endpoint=endpoint, check=0)
    lines = dump.stdout.splitlines()
    assert len(lines) == 6 and all(json.loads(l).keys() == {"Item"} for l in lines)
    assert "dumped 6 items" in dump.stderr and "\r" not in dump.stderr  # no bar when piped
    other = make_table(ddb)
    p = run("load", other, stdin=dump.stdout + "\n\n", endpoint=endpoint, check=0)
    assert "loaded 6 items" in p.stderr
    assert sorted(run("dump", other, endpoint=endpoint, check=0).stdout.splitlines()) == \
        sorted(lines)
    # A bad line: exit 3, its number on stderr, nothing after it necessarily written.
    p = run("load", other, stdin=lines[0] + "\nnot json\n", endpoint=endpoint, check=3)
    assert "line 2" in p.stderr
    # How many landed is said (found by a black-box probe: nothing reported it).
    assert "items were loaded before the failure" in p.stderr
    # An item the table refuses: the service's error, exit 1.
    p = run("load", other, stdin='{"Item":{"pk":{"S":"x"}}}\n', endpoint=endpoint, check=1)
    assert p.stderr.startswith("ValidationException: ") and "line 1" in p.stderr
    run("load", "no-such-table", stdin=lines[0] + "\n", endpoint=endpoint, check=1)
    # Also with nothing to load (it exited 0, "loaded 0 items": found by a black-box probe).
    p = run("load", "no-such-table", stdin="", endpoint=endpoint, check=1)
    assert p.stderr.startswith("ResourceNotFoundException")
    ddb.delete_table(TableName=other)


# ------------------------------------------------------------------ 100k round trip

def test_dump_load_round_trip_100k(ddb, endpoint, tmp_path):
    n = 100_000
    source = tmp_path / "source.jsonl"
    with open(source, "w") as f:
        for i in range(n):
            f.write(json.dumps({"Item": {"pk": {"S": f"user{i % 5000}"}, "sk": {"N": str(i)},
                                         "g": {"S": f"g{i % 7}"},
                                         "payload": {"S": "x" * 40},
                                         "tags": {"SS": ["a", f"t{i % 3}"]},
                                         "m": {"M": {"n": {"N": f"{i}.5"}}}}}) + "\n")
    a = make_table(ddb, gsi=False)
    b = make_table(ddb, gsi=False)
    started = time.monotonic()
    with open(source, "rb") as f:
        p = subprocess.run([CLI_BIN, "--endpoint", endpoint, "load", a], stdin=f,
                           capture_output=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert f"loaded {n:,} items" in p.stderr.decode()
    dump_a = tmp_path / "a.jsonl"
    with open(dump_a, "wb") as out:
        p = subprocess.run([CLI_BIN, "--endpoint", endpoint, "dump", a], stdout=out,
                           stderr=subprocess.PIPE, timeout=300)
    assert p.returncode == 0, p.stderr
    with open(dump_a, "rb") as f:
        p = subprocess.run([CLI_BIN, "--endpoint", endpoint, "load", b], stdin=f,
                           capture_output=True, timeout=300)
    assert p.returncode == 0, p.stderr
    dump_b = run("dump", b, endpoint=endpoint, check=0).stdout
    elapsed = time.monotonic() - started

    def canonical(text):
        return sorted(json.dumps(json.loads(l), sort_keys=True) for l in text.splitlines())

    expected = canonical(source.read_text())
    assert len(expected) == n
    assert canonical(dump_a.read_text()) == expected
    assert canonical(dump_b) == expected
    print(f"100k round trip (load, dump, load, dump): {elapsed:.1f} s")
    ddb.delete_table(TableName=a)
    ddb.delete_table(TableName=b)


# ------------------------------------------------------------------ over --data-dir

@pytest.mark.ddb_only("a ddb data directory")
def test_data_dir_commands(tmp_path):
    data = tmp_path / "data"
    srv = ServerProcess("--data-dir", str(data)).start()
    client = make_client(srv.endpoint)
    name = make_table(client)
    fill(endpoint=srv.endpoint, table=name)
    srv.stop_and_check()

    # The server is stopped: the same commands on the directory itself.
    assert name in run("tables", data_dir=data, check=0).stdout.split()
    d = json.loads(run("describe", name, "--json", data_dir=data, check=0).stdout)
    assert d["TableName"] == name
    assert json.loads(run("get", name, "u1", "2", "--json", data_dir=data,
                          check=0).stdout)["v"] == {"S": "v2"}
    assert keys_of(run("query", name, "u1", "--sk-between", "4", "5", "--json",
                       data_dir=data, check=0).stdout) == [("u1", 4), ("u1", 5)]
    assert keys_of(run("query", name, "even", "--index", "byG", "--json", data_dir=data,
                       check=0).stdout) == [("u1", 2), ("u1", 4)]
    assert len(json.loads(run("scan", name, "--json", data_dir=data, check=0).stdout)) == 6
    run("put", name, '{"pk":{"S":"u3"},"sk":{"N":"1"},"g":{"S":"odd"}}', data_dir=data, check=0)
    run("delete", name, "u1", "1", data_dir=data, check=0)
    dump = run("dump", name, data_dir=data, check=0).stdout
    assert len(dump.splitlines()) == 6
    other = "copy-" + name
    srv = ServerProcess("--data-dir", str(data)).start()
    make_table(make_client(srv.endpoint), name=other)
    srv.stop_and_check()
    run("load", other, stdin=dump, data_dir=data, check=0)
    assert sorted(run("dump", other, data_dir=data, check=0).stdout.splitlines()) == \
        sorted(dump.splitlines())
    parts = json.loads(run("partitions", name, "--json", data_dir=data, check=0).stdout)
    # Nothing read or written in this process: the stored figures, one range each.
    assert [(p["index"], p["items"], p["active"]) for p in parts] == [("", 6, False),
                                                                       ("byG", 6, False)]
    parts = json.loads(run("partitions", other, "--json", data_dir=data, check=0).stdout)
    assert parts
    run("hot-keys", name, data_dir=data, check=0)
    p = run("describe", "no-such-table", data_dir=data, check=1)
    assert p.stderr.startswith("ResourceNotFoundException: Requested resource not found")

    # The data survives: a server on the directory sees what the CLI wrote.
    srv = ServerProcess("--data-dir", str(data)).start()
    got = make_client(srv.endpoint).get_item(TableName=name, Key={"pk": {"S": "u3"},
                                                                   "sk": {"N": "1"}})
    assert got["Item"]["g"] == {"S": "odd"}
    # While the server runs, the directory is locked: an I/O error, 3.
    p = run("tables", data_dir=data, check=3)
    assert p.stderr.startswith("ddb: cannot open")
    srv.stop_and_check()


@pytest.mark.ddb_only("a ddb data directory")
def test_data_dir_missing(tmp_path):
    p = run("tables", data_dir=tmp_path / "nope", check=3)
    assert "no such data directory" in p.stderr


# ------------------------------------------------------------------ SigV4 (--auth verify)

def test_signed_requests(tmp_path):
    key, secret = "AKIDCLITESTEXAMPLE", "cli/secret/key/for/the/wire/tests/only"
    creds = tmp_path / "credentials"
    creds.write_text(f"[default]\naws_access_key_id = {key}\naws_secret_access_key = {secret}\n")
    srv = ServerProcess("--in-memory", "--auth", "verify", "--credentials", str(creds)).start()
    try:
        good = {"AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": secret,
                "AWS_REGION": "us-east-1"}
        assert run("tables", "--json", endpoint=srv.endpoint, aws=good, check=0).stdout \
            .strip() == "[]"
        bad = dict(good, AWS_SECRET_ACCESS_KEY="wrong")
        p = run("tables", endpoint=srv.endpoint, aws=bad, check=1)
        assert p.stderr.startswith("InvalidSignatureException: ")
        p = run("tables", endpoint=srv.endpoint, check=1)  # no keys: the placeholder
        assert p.stderr.startswith("UnrecognizedClientException: ")
    finally:
        srv.stop_and_check()
