"""DynamoDB Local's command line, with its meaning and its refusals (DynamoDBLocal.jar 2.x:
commons-cli, names as written with one or two hyphens; its texts for bad ports, -dbPath with
-inMemory, -optimizeDbBeforeStartup without -dbPath, a -dbPath that is not a directory,
unknown options and missing values)."""

import http.client
import socket
import subprocess

import boto3
import pytest

from conftest import REGION, SERVER_BIN, ServerProcess


def client(srv, key="KEYONE", region=REGION):
    return boto3.session.Session().client(
        "dynamodb", endpoint_url=srv.endpoint, region_name=region, aws_access_key_id=key,
        aws_secret_access_key="x")


def create(c, name):
    c.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])


def refusal(*args):
    r = subprocess.run([SERVER_BIN, *args], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2, (args, r.stdout, r.stderr)
    return r.stderr.splitlines()[0]


@pytest.mark.parametrize("args", [
    ["-sharedDb", "-inMemory"],
    ["-jar", "DynamoDBLocal.jar", "-sharedDb", "-inMemory"],
    ["-Djava.library.path=./DynamoDBLocal_lib", "-jar", "DynamoDBLocal.jar", "-inMemory",
     "-sharedDb", "-disableTelemetry"],
    ["--inMemory", "--sharedDb"],  # its parser takes two hyphens too
])
def test_shared_in_memory_command_lines(args):
    srv = ServerProcess(*args).start()
    try:
        create(client(srv, "KEYONE"), "shared-t")
        assert client(srv, "KEYTWO").list_tables()["TableNames"] == ["shared-t"]
    finally:
        srv.stop_and_check()


def test_without_shared_db_each_access_key_and_region_has_its_tables():
    srv = ServerProcess("-inMemory").start()
    try:
        create(client(srv, "KEYONE"), "mine")
        assert client(srv, "KEYONE").list_tables()["TableNames"] == ["mine"]
        assert client(srv, "KEYTWO").list_tables()["TableNames"] == []
        assert client(srv, "KEYONE", "eu-west-1").list_tables()["TableNames"] == []
    finally:
        srv.stop_and_check()


def test_db_path_keeps_tables_and_optimize_compacts_before_serving(tmp_path):
    srv = ServerProcess("-sharedDb", "-dbPath", str(tmp_path)).start()
    try:
        create(client(srv), "kept")
        client(srv).put_item(TableName="kept", Item={"pk": {"S": "a"}})
    finally:
        srv.stop_and_check()
    srv = ServerProcess("-sharedDb", "-dbPath", str(tmp_path), "-optimizeDbBeforeStartup").start()
    try:
        assert client(srv).get_item(TableName="kept", Key={"pk": {"S": "a"}})["Item"] == {
            "pk": {"S": "a"}}
    finally:
        srv.stop_and_check()


def test_port_flag_and_every_interface():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([SERVER_BIN, "-port", str(port), "-inMemory", "-sharedDb"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == f"LISTENING {port}"
        # Listening on every interface, as DynamoDB Local: 127.0.0.1 reaches it.
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/")
        assert conn.getresponse().status == 200
        conn.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert "0.0.0.0" in proc.stderr.read()


def test_cors_allow_list():
    srv = ServerProcess("-inMemory", "-sharedDb", "-cors", "https://app.example,https://b.example"
                        ).start()
    try:
        def origin_header(origin):
            conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
            conn.request("OPTIONS", "/", headers={"Origin": origin,
                                                  "Access-Control-Request-Method": "POST"})
            resp = conn.getresponse()
            resp.read()
            conn.close()
            return resp.getheader("Access-Control-Allow-Origin")
        assert origin_header("https://app.example") == "https://app.example"
        assert origin_header("https://b.example") == "https://b.example"
        assert origin_header("https://evil.example") is None
    finally:
        srv.stop_and_check()


def test_refusals_keep_dynamodb_locals_texts(tmp_path):
    assert refusal("-inMemory", "-dbPath", str(tmp_path)) == (
        "ddb-server: dbPath and inMemory cannot be set at the same time.")
    assert refusal("-optimizeDbBeforeStartup") == (
        "ddb-server: optimizeDbBeforeStartup option must be used with dbPath to determine the "
        "location of database files to optimize.")
    for port in ("1", "65536", "eighty"):
        assert refusal("-port", port) == (
            "ddb-server: Invalid Port. Port number must lie between 1 and 65535.")
    assert refusal("-dbPath", str(tmp_path / "missing")) == (
        "ddb-server: Invalid directory for database creation.")
    assert refusal("-port") == (
        "ddb-server: Error while parsing options. Missing argument for option: port")
    assert refusal("-port", "-inMemory") == (
        "ddb-server: Error while parsing options. Missing argument for option: port")
    assert refusal("-inmemory") == (
        "ddb-server: Error while parsing options. Unrecognized option: -inmemory")


def test_help_and_version():
    r = subprocess.run([SERVER_BIN, "-help"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and "-sharedDb" in r.stdout and "telemetry" in r.stdout
    r = subprocess.run([SERVER_BIN, "-version"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and r.stdout.startswith("ddb-server ")


def _index_status(c, table, index):
    for g in c.describe_table(TableName=table)["Table"].get("GlobalSecondaryIndexes", []):
        if g["IndexName"] == index:
            return g["IndexStatus"]
    return None


def test_index_statuses_are_held():
    """-delayTransientStatuses holds a GSI CREATING (15 s before and after its backfill) and
    DELETING (15 s), as DynamoDB Local; --index-status-hold-ms sets the hold (short here)."""
    import time
    srv = ServerProcess("-inMemory", "-sharedDb", "-delayTransientStatuses",
                        "--index-status-hold-ms", "1500").start()
    try:
        c = client(srv)
        create(c, "held")
        c.put_item(TableName="held", Item={"pk": {"S": "a"}, "g": {"S": "x"}})
        c.update_table(TableName="held",
                       AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
                       GlobalSecondaryIndexUpdates=[{"Create": {
                           "IndexName": "by_g", "KeySchema": [{"AttributeName": "g",
                                                               "KeyType": "HASH"}],
                           "Projection": {"ProjectionType": "ALL"}}}])
        time.sleep(1.0)
        assert _index_status(c, "held", "by_g") == "CREATING"
        deadline = time.time() + 30
        while _index_status(c, "held", "by_g") != "ACTIVE" and time.time() < deadline:
            time.sleep(0.2)
        assert _index_status(c, "held", "by_g") == "ACTIVE"
        assert c.query(TableName="held", IndexName="by_g", KeyConditionExpression="g = :g",
                       ExpressionAttributeValues={":g": {"S": "x"}})["Count"] == 1
        c.update_table(TableName="held", GlobalSecondaryIndexUpdates=[
            {"Delete": {"IndexName": "by_g"}}])
        assert _index_status(c, "held", "by_g") == "DELETING"
        # Not readable while it goes, and gone after the hold.
        with pytest.raises(Exception):
            c.query(TableName="held", IndexName="by_g", KeyConditionExpression="g = :g",
                    ExpressionAttributeValues={":g": {"S": "x"}})
        c.put_item(TableName="held", Item={"pk": {"S": "b"}, "g": {"S": "y"}})
        deadline = time.time() + 30
        while _index_status(c, "held", "by_g") is not None and time.time() < deadline:
            time.sleep(0.2)
        assert _index_status(c, "held", "by_g") is None
        # Its key's definition went with it.
        assert c.describe_table(TableName="held")["Table"]["AttributeDefinitions"] == [
            {"AttributeName": "pk", "AttributeType": "S"}]
    finally:
        srv.stop_and_check()
