"""DynamoDB Local's command line, with its meaning and its refusals (DynamoDBLocal.jar 2.x:
commons-cli, names as written with one or two hyphens; its texts for bad ports, -dbPath with
-inMemory, -optimizeDbBeforeStartup without -dbPath, a -dbPath that is not a directory,
unknown options and missing values)."""

import http.client
import socket
import subprocess

import boto3
import pytest
from botocore.exceptions import ClientError

from conftest import REGION, SERVER_BIN, ServerProcess

pytestmark = pytest.mark.ddb_only("ddb-server started with DynamoDB Local's flags")


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
                        "--index-status-hold-ms", "1500", "--table-status-hold-ms", "0").start()
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


def test_one_online_index_change_at_a_time():
    """While one GSI is CREATING, another Create or Delete is LimitExceededException, as in
    the service (architect/architect#334); deleting the CREATING index itself is allowed (it
    cancels the backfill, per the API reference's Backfilling). The hold keeps it CREATING."""
    srv = ServerProcess("-inMemory", "-sharedDb", "--index-status-hold-ms", "3000",
                        "--table-status-hold-ms", "0").start()
    try:
        c = client(srv)
        create(c, "online")

        def gsi(name, attr):
            return {"Create": {"IndexName": name,
                               "KeySchema": [{"AttributeName": attr, "KeyType": "HASH"}],
                               "Projection": {"ProjectionType": "ALL"}}}

        defs = [{"AttributeName": a, "AttributeType": "S"} for a in ("g", "h")]
        c.update_table(TableName="online", AttributeDefinitions=defs,
                       GlobalSecondaryIndexUpdates=[gsi("by_g", "g")])
        assert _index_status(c, "online", "by_g") == "CREATING"
        code, msg = _error(c.update_table, TableName="online", AttributeDefinitions=defs,
                           GlobalSecondaryIndexUpdates=[gsi("by_h", "h")])
        assert (code, msg) == ("LimitExceededException",
                               "Subscriber limit exceeded: Only 1 online index can be created "
                               "or deleted simultaneously per table")
        c.update_table(TableName="online",
                       GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "by_g"}}])
        assert _index_status(c, "online", "by_g") == "DELETING"
        code, _ = _error(c.update_table, TableName="online", AttributeDefinitions=defs,
                         GlobalSecondaryIndexUpdates=[gsi("by_h", "h")])
        assert code == "LimitExceededException"
    finally:
        srv.stop_and_check()


def _table_status(c, table):
    return c.describe_table(TableName=table)["Table"]["TableStatus"]


def _error(call, **kwargs):
    with pytest.raises(ClientError) as e:
        call(**kwargs)
    return e.value.response["Error"]["Code"], e.value.response["Error"]["Message"]


def test_table_statuses_are_held_as_the_service_shows_them():
    """Tables pass through CREATING, UPDATING and DELETING (--table-status-hold-ms; 2 s under
    -delayTransientStatuses), refusing meanwhile what the service refuses."""
    import time
    srv = ServerProcess("-inMemory", "-sharedDb", "--table-status-hold-ms", "1000").start()
    try:
        c = client(srv)
        created = c.create_table(
            TableName="slow", BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        assert created["TableDescription"]["TableStatus"] == "CREATING"
        assert _table_status(c, "slow") == "CREATING"
        item = {"pk": {"S": "a"}}
        assert _error(c.put_item, TableName="slow", Item=item) == (
            "ResourceNotFoundException", "Requested resource not found")
        assert _error(c.get_item, TableName="slow", Key=item)[0] == "ResourceNotFoundException"
        assert _error(c.delete_table, TableName="slow") == (
            "ResourceInUseException",
            "Attempt to change a resource which is still in use: Table is being created: slow")
        assert _error(c.update_table, TableName="slow", BillingMode="PROVISIONED",
                      ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}
                      )[1].endswith("Table is being created: slow")
        # And UpdateTimeToLive (an import's table took it while its items still arrived, and
        # its expired items were never deleted: found by a black-box probe).
        assert _error(c.update_time_to_live, TableName="slow", TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "ttl"})[0] == "ResourceInUseException"
        time.sleep(1.2)
        assert _table_status(c, "slow") == "ACTIVE"
        c.put_item(TableName="slow", Item=item)

        updated = c.update_table(TableName="slow", BillingMode="PROVISIONED",
                                 ProvisionedThroughput={"ReadCapacityUnits": 1,
                                                        "WriteCapacityUnits": 1})
        assert updated["TableDescription"]["TableStatus"] == "UPDATING"
        assert _table_status(c, "slow") == "UPDATING"
        c.put_item(TableName="slow", Item=item)  # an UPDATING table serves
        assert _error(c.update_table, TableName="slow", BillingMode="PAY_PER_REQUEST") == (
            "ResourceInUseException",
            "Attempt to change a resource which is still in use: Table is being updated: slow")
        time.sleep(1.2)
        assert _table_status(c, "slow") == "ACTIVE"

        deleted = c.delete_table(TableName="slow")
        assert deleted["TableDescription"]["TableStatus"] == "DELETING"
        assert _table_status(c, "slow") == "DELETING"
        assert c.list_tables()["TableNames"] == ["slow"]
        assert _error(c.get_item, TableName="slow", Key=item)[0] == "ResourceNotFoundException"
        assert _error(c.create_table, TableName="slow", BillingMode="PAY_PER_REQUEST",
                      AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                      KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}]) == (
            "ResourceInUseException", "Table already exists: slow")
        time.sleep(1.2)
        assert _error(c.describe_table, TableName="slow")[0] == "ResourceNotFoundException"
        assert c.list_tables()["TableNames"] == []
    finally:
        srv.stop_and_check()


def test_delay_transient_statuses_holds_tables_two_seconds():
    import time
    srv = ServerProcess("-inMemory", "-sharedDb", "-delayTransientStatuses").start()
    try:
        c = client(srv)
        create(c, "two")
        assert _table_status(c, "two") == "CREATING"
        deadline = time.time() + 10
        while _table_status(c, "two") == "CREATING" and time.time() < deadline:
            time.sleep(0.1)
        waited = 10 - (deadline - time.time())
        assert _table_status(c, "two") == "ACTIVE" and 1.0 < waited < 4.0
    finally:
        srv.stop_and_check()
