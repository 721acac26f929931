"""--isolation account (the default under --auth verify): every account and region of a
signing key has its own tables, streams and ARNs, kept across restarts; --isolation shared is
one namespace for every caller, as under --auth off."""

import subprocess
import textwrap
import urllib.request

import boto3
import pytest
from botocore.config import Config

from conftest import REGION, SERVER_BIN, ServerProcess, expect_error

pytestmark = pytest.mark.ddb_only("ddb-server's auth and --isolation modes")

ALICE = ("AKIAALICE0000000001", "alice-secret")
CAROL = ("AKIACAROL0000000001", "carol-secret")  # Alice's account too
BOB = ("AKIABOB00000000001", "bob-secret")
CREDENTIALS = textwrap.dedent(f"""\
    [alice]
    aws_access_key_id = {ALICE[0]}
    aws_secret_access_key = {ALICE[1]}
    account_id = 111122223333

    [carol]
    aws_access_key_id = {CAROL[0]}
    aws_secret_access_key = {CAROL[1]}
    account_id = 111122223333

    [bob]
    aws_access_key_id = {BOB[0]}
    aws_secret_access_key = {BOB[1]}
    account_id = 444455556666
    """)
NOT_FOUND = "ResourceNotFoundException"


@pytest.fixture(scope="module")
def credentials(tmp_path_factory):
    path = tmp_path_factory.mktemp("isolation") / "credentials"
    path.write_text(CREDENTIALS)
    return str(path)


def client(srv, key, region=REGION):
    return boto3.session.Session().client(
        "dynamodb", endpoint_url=srv.endpoint, region_name=region, aws_access_key_id=key[0],
        aws_secret_access_key=key[1],
        config=Config(retries={"max_attempts": 1, "total_max_attempts": 1}))


def streams_client(srv, key):
    return boto3.session.Session().client(
        "dynamodbstreams", endpoint_url=srv.endpoint, region_name=REGION,
        aws_access_key_id=key[0], aws_secret_access_key=key[1])


def create(c, name, **extra):
    return c.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                          AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                          KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                          **extra)["TableDescription"]


def test_accounts_and_regions_have_their_own_tables(credentials, tmp_path):
    data = tmp_path / "data"
    srv = ServerProcess("--data-dir", str(data), "--auth", "verify",
                        "--credentials", credentials).start()
    try:
        alice, bob, carol = client(srv, ALICE), client(srv, BOB), client(srv, CAROL)
        d = create(alice, "iso-t", StreamSpecification={"StreamEnabled": True,
                                                         "StreamViewType": "KEYS_ONLY"})
        assert d["TableArn"] == f"arn:aws:dynamodb:{REGION}:111122223333:table/iso-t"
        assert d["LatestStreamArn"].startswith(
            f"arn:aws:dynamodb:{REGION}:111122223333:table/iso-t/stream/")
        alice.put_item(TableName="iso-t", Item={"pk": {"S": "alice's"}})

        # Another account sees nothing of it, and may use the same name.
        assert bob.list_tables()["TableNames"] == []
        expect_error(lambda: bob.describe_table(TableName="iso-t"), NOT_FOUND)
        expect_error(lambda: bob.get_item(TableName="iso-t", Key={"pk": {"S": "alice's"}}),
                     NOT_FOUND)
        assert streams_client(srv, BOB).list_streams()["Streams"] == []
        d = create(bob, "iso-t")
        assert d["TableArn"] == f"arn:aws:dynamodb:{REGION}:444455556666:table/iso-t"
        assert bob.scan(TableName="iso-t")["Items"] == []

        # A second key of the same account shares its tables; another region does not.
        assert carol.list_tables()["TableNames"] == ["iso-t"]
        assert carol.scan(TableName="iso-t")["Items"] == [{"pk": {"S": "alice's"}}]
        assert client(srv, ALICE, region="eu-west-1").list_tables()["TableNames"] == []
        streams = streams_client(srv, CAROL).list_streams()["Streams"]
        assert [s["TableName"] for s in streams] == ["iso-t"]

        # /metrics labels each namespace's series.
        with urllib.request.urlopen(srv.endpoint + "/metrics", timeout=30) as r:
            text = r.read().decode()
        assert ('ddb_table_items{account="111122223333",region="us-east-1",table="iso-t"} 1'
                in text)
        assert ('ddb_table_items{account="444455556666",region="us-east-1",table="iso-t"} 0'
                in text)
    finally:
        srv.stop_and_check()

    # Namespaces are kept across a restart.
    srv = ServerProcess("--data-dir", str(data), "--auth", "verify",
                        "--credentials", credentials).start()
    try:
        assert client(srv, ALICE).scan(TableName="iso-t")["Items"] == [{"pk": {"S": "alice's"}}]
        assert client(srv, BOB).scan(TableName="iso-t")["Items"] == []
        assert client(srv, ALICE, region="eu-west-1").list_tables()["TableNames"] == []
    finally:
        srv.stop_and_check()


def test_shared_isolation_is_one_namespace(credentials):
    srv = ServerProcess("--in-memory", "--auth", "verify", "--isolation", "shared",
                        "--credentials", credentials).start()
    try:
        create(client(srv, ALICE), "shared-t")
        assert client(srv, BOB).list_tables()["TableNames"] == ["shared-t"]
        # ARNs name the caller's account.
        arn = client(srv, BOB).describe_table(TableName="shared-t")["Table"]["TableArn"]
        assert arn == f"arn:aws:dynamodb:{REGION}:444455556666:table/shared-t"
    finally:
        srv.stop_and_check()


def test_without_auth_every_caller_shares_the_default_account(ddb, table_s):
    arn = ddb.describe_table(TableName=table_s)["Table"]["TableArn"]
    assert arn == f"arn:aws:dynamodb:{REGION}:000000000000:table/{table_s}"


def test_isolation_flag_values():
    r = subprocess.run([SERVER_BIN, "--in-memory", "--isolation", "nobody"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 2
    assert "--isolation" in r.stderr and "shared, account or access-key" in r.stderr


def test_access_key_isolation_keys_tables_by_access_key_and_region(tmp_path):
    """--isolation access-key: DynamoDB Local's databases without -sharedDb, one per access key
    and region, whatever the account (here --auth off: every caller is 000000000000)."""
    data = tmp_path / "data"
    srv = ServerProcess("--data-dir", str(data), "--isolation", "access-key").start()
    try:
        one, two = client(srv, ("KEYONE", "x")), client(srv, ("KEYTWO", "x"))
        create(one, "by-key")
        assert one.list_tables()["TableNames"] == ["by-key"]
        assert two.list_tables()["TableNames"] == []
        assert client(srv, ("KEYONE", "x"), region="eu-west-1").list_tables()["TableNames"] == []
        # DynamoDB Local's rule: an access key of letters and digits only.
        expect_error(lambda: client(srv, ("KEY-ONE", "x")).list_tables(), "ValidationException")
    finally:
        srv.stop_and_check()
    assert (data / "keys" / "KEYONE" / REGION).is_dir()
    srv = ServerProcess("--data-dir", str(data), "--isolation", "access-key").start()
    try:
        assert client(srv, ("KEYONE", "x")).list_tables()["TableNames"] == ["by-key"]
    finally:
        srv.stop_and_check()


def test_an_arn_of_another_region_or_account_names_no_table_of_the_callers(credentials):
    # A black-box probe found an ARN's Region ignored (a write reached the caller's table of
    # the same name in its own Region) and CreateTable of another account's ARN creating the
    # table in the caller's account. The service: "Invalid AWS region in '<arn>'" (quoted in
    # hashicorp/terraform-provider-aws#42792); no resource policy allows CreateTable.
    srv = ServerProcess("--in-memory", "--auth", "verify", "--credentials", credentials).start()
    try:
        east, west = client(srv, ALICE), client(srv, ALICE, region="eu-west-1")
        create(east, "arn-t")
        create(west, "arn-t")
        east_arn = f"arn:aws:dynamodb:{REGION}:111122223333:table/arn-t"
        for call in (lambda: west.put_item(TableName=east_arn, Item={"pk": {"S": "x"}}),
                     lambda: west.describe_table(TableName=east_arn),
                     lambda: west.list_tags_of_resource(ResourceArn=east_arn),
                     lambda: west.list_exports(TableArn=east_arn)):
            expect_error(call, "ValidationException",
                         f"1 validation error detected: Invalid AWS region in '{east_arn}'")
        assert west.scan(TableName="arn-t")["Items"] == []
        # The caller's own Region's ARN is its table.
        east.put_item(TableName=east_arn, Item={"pk": {"S": "y"}})
        assert east.scan(TableName="arn-t")["Count"] == 1
        # CreateTable of another account's ARN creates nothing in either account.
        bob = client(srv, BOB)
        expect_error(lambda: create(bob, "arn:aws:dynamodb:us-east-1:111122223333:table/arn-u"),
                     "AccessDeniedException")
        assert bob.list_tables()["TableNames"] == []
        assert "arn-u" not in east.list_tables()["TableNames"]
        expect_error(lambda: create(east, "arn:aws:dynamodb:eu-west-1:111122223333:table/arn-v"),
                     "ValidationException")
    finally:
        srv.stop_and_check()
