"""Resource-based policies enforced under --auth verify: another account's caller reaches a
table by its ARN only when a policy allows its principal, action and resource (conditions
on the leading keys included); an explicit Deny refuses anyone, the owner's account too."""

import json
import os
import subprocess
import textwrap
import urllib.request

import boto3
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
import http.client

from conftest import REGION, TARGET_PREFIX, ServerProcess, aws_cli_path, expect_error

pytestmark = pytest.mark.ddb_only("ddb-server's auth mode with accounts and policies")

ALICE = ("AKIAALICE0000000001", "alice-secret")
BOB = ("AKIABOB00000000001", "bob-secret")
CREDENTIALS = textwrap.dedent(f"""\
    [alice]
    aws_access_key_id = {ALICE[0]}
    aws_secret_access_key = {ALICE[1]}
    account_id = 111122223333

    [bob]
    aws_access_key_id = {BOB[0]}
    aws_secret_access_key = {BOB[1]}
    account_id = 444455556666
    """)
TABLE_ARN = f"arn:aws:dynamodb:{REGION}:111122223333:table/owned"
ALICE_ARN = "arn:aws:iam::111122223333:user/alice"
BOB_ARN = "arn:aws:iam::444455556666:user/bob"
DENIED = "AccessDeniedException"
STATEMENTS = [
    {"Sid": "BobReadsHisOwn", "Effect": "Allow",
     "Principal": {"AWS": "arn:aws:iam::444455556666:root"},
     "Action": ["dynamodb:GetItem", "dynamodb:Query"], "Resource": TABLE_ARN,
     "Condition": {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["bob#*"]}}},
    {"Sid": "NotThatOne", "Effect": "Deny", "Principal": "*",
     "Action": "dynamodb:GetItem", "Resource": TABLE_ARN,
     "Condition": {"ForAnyValue:StringEquals": {"dynamodb:LeadingKeys": ["bob#2"]}}},
    {"Sid": "NoDeletes", "Effect": "Deny", "Principal": {"AWS": ALICE_ARN},
     "Action": "dynamodb:DeleteItem", "Resource": TABLE_ARN},
]


def no_policy_allows(principal, action, resource):
    return (f"User: {principal} is not authorized to perform: {action} on resource: {resource} "
            f"because no resource-based policy allows the {action} action")


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    path = tmp_path_factory.mktemp("policy") / "credentials"
    path.write_text(CREDENTIALS)
    s = ServerProcess("--in-memory", "--auth", "verify", "--credentials", str(path)).start()
    yield s
    s.stop_and_check()


def client(srv, key):
    return boto3.session.Session().client(
        "dynamodb", endpoint_url=srv.endpoint, region_name=REGION, aws_access_key_id=key[0],
        aws_secret_access_key=key[1],
        config=Config(retries={"max_attempts": 1, "total_max_attempts": 1}))


def call(srv, key, op, body):
    """A signed request of an operation boto3 1.26 does not know; (status, JSON)."""
    data = json.dumps(body).encode()
    headers = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": TARGET_PREFIX + op}
    req = AWSRequest(method="POST", url=srv.endpoint + "/", data=data, headers=headers)
    SigV4Auth(Credentials(*key), "dynamodb", REGION).add_auth(req)
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
    try:
        conn.request("POST", "/", body=data, headers=dict(req.headers.items()))
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read() or b"{}")
    finally:
        conn.close()


def put_policy(srv, statements):
    status, body = call(srv, ALICE, "PutResourcePolicy", {
        "ResourceArn": TABLE_ARN,
        "Policy": json.dumps({"Version": "2012-10-17", "Statement": statements})})
    assert status == 200, body


@pytest.fixture(scope="module")
def owned(srv):
    alice = client(srv, ALICE)
    alice.create_table(TableName="owned", BillingMode="PAY_PER_REQUEST",
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    for pk in ("bob#1", "bob#2", "alice#1"):
        alice.put_item(TableName="owned", Item={"pk": {"S": pk}, "v": {"S": pk}})
    return alice


def test_another_account_needs_a_policy(srv, owned):
    assert call(srv, ALICE, "DeleteResourcePolicy", {"ResourceArn": TABLE_ARN})[0] == 200
    bob = client(srv, BOB)
    expect_error(lambda: bob.get_item(TableName=TABLE_ARN, Key={"pk": {"S": "bob#1"}}), DENIED,
                 no_policy_allows(BOB_ARN, "dynamodb:GetItem", TABLE_ARN))
    # A missing table of that account is refused the same way.
    missing = TABLE_ARN.replace("owned", "nothing_here")
    expect_error(lambda: bob.describe_table(TableName=missing), DENIED,
                 no_policy_allows(BOB_ARN, "dynamodb:DescribeTable", missing))
    # An account the server has no tables of: refused alike, and no namespace is made for it.
    elsewhere = f"arn:aws:dynamodb:{REGION}:999999999999:table/owned"
    expect_error(lambda: bob.get_item(TableName=elsewhere, Key={"pk": {"S": "bob#1"}}), DENIED,
                 no_policy_allows(BOB_ARN, "dynamodb:GetItem", elsewhere))
    with urllib.request.urlopen(srv.endpoint + "/metrics", timeout=30) as r:
        assert 'account="999999999999"' not in r.read().decode()
    # Bob's own namespace is his: the name alone names his tables.
    assert bob.list_tables()["TableNames"] == []
    expect_error(lambda: bob.get_item(TableName="owned", Key={"pk": {"S": "bob#1"}}),
                 "ResourceNotFoundException")


def test_an_allow_with_a_leading_keys_condition(srv, owned):
    put_policy(srv, STATEMENTS)
    bob = client(srv, BOB)
    got = bob.get_item(TableName=TABLE_ARN, Key={"pk": {"S": "bob#1"}})
    assert got["Item"] == {"pk": {"S": "bob#1"}, "v": {"S": "bob#1"}}
    # Outside the condition: no statement allows it.
    expect_error(lambda: bob.get_item(TableName=TABLE_ARN, Key={"pk": {"S": "alice#1"}}), DENIED,
                 no_policy_allows(BOB_ARN, "dynamodb:GetItem", TABLE_ARN))
    # An action the policy does not grant.
    expect_error(lambda: bob.put_item(TableName=TABLE_ARN, Item={"pk": {"S": "bob#9"}}), DENIED,
                 no_policy_allows(BOB_ARN, "dynamodb:PutItem", TABLE_ARN))
    # An explicit Deny wins over the Allow.
    e = expect_error(lambda: bob.get_item(TableName=TABLE_ARN, Key={"pk": {"S": "bob#2"}}),
                     DENIED)
    assert "explicit deny" in e.response["Error"]["Message"]
    # The owner's account is refused by an explicit Deny, and allowed otherwise.
    e = expect_error(lambda: owned.delete_item(TableName="owned", Key={"pk": {"S": "alice#1"}}),
                     DENIED)
    assert e.response["Error"]["Message"].startswith(
        f"User: {ALICE_ARN} is not authorized to perform: dynamodb:DeleteItem on resource: "
        f"{TABLE_ARN}")
    assert owned.get_item(TableName="owned", Key={"pk": {"S": "alice#1"}})["Item"]
    # What Bob reads names the owner's account.
    q = bob.query(TableName=TABLE_ARN, KeyConditionExpression="pk = :p",
                  ExpressionAttributeValues={":p": {"S": "bob#1"}})
    assert q["Items"] == [{"pk": {"S": "bob#1"}, "v": {"S": "bob#1"}}]


def test_a_transaction_needs_each_action_allowed(srv, owned):
    put_policy(srv, STATEMENTS)
    bob = client(srv, BOB)
    expect_error(lambda: bob.transact_get_items(TransactItems=[
        {"Get": {"TableName": TABLE_ARN, "Key": {"pk": {"S": "bob#1"}}}},
        {"Get": {"TableName": TABLE_ARN, "Key": {"pk": {"S": "alice#1"}}}}]), DENIED,
        no_policy_allows(BOB_ARN, "dynamodb:GetItem", TABLE_ARN))


def test_resources_of_two_accounts_in_one_request(srv, owned):
    bob = client(srv, BOB)
    bob.create_table(TableName="bobs", BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    expect_error(lambda: bob.batch_get_item(RequestItems={
        "bobs": {"Keys": [{"pk": {"S": "x"}}]},
        TABLE_ARN: {"Keys": [{"pk": {"S": "bob#1"}}]}}), "ValidationException")


def test_aws_cli_reads_across_accounts(srv, owned):
    """The AWS CLI as Bob: the allowed read through the table's ARN, and the refused one."""
    put_policy(srv, STATEMENTS)
    aws = aws_cli_path()
    if aws is None:
        pytest.fail("AWS CLI ('aws') not found on PATH")
    env = dict(os.environ, AWS_ACCESS_KEY_ID=BOB[0], AWS_SECRET_ACCESS_KEY=BOB[1],
               AWS_DEFAULT_REGION=REGION, AWS_PAGER="", AWS_MAX_ATTEMPTS="1",
               AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull,
               AWS_EC2_METADATA_DISABLED="true")
    env.pop("AWS_SESSION_TOKEN", None)
    env.pop("AWS_PROFILE", None)

    def get(pk):
        return subprocess.run([aws, "dynamodb", "get-item", "--endpoint-url", srv.endpoint,
                               "--table-name", TABLE_ARN, "--key",
                               json.dumps({"pk": {"S": pk}}), "--output", "json"],
                              env=env, capture_output=True, text=True, timeout=60)
    r = get("bob#1")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["Item"]["pk"] == {"S": "bob#1"}
    r = get("alice#1")
    assert r.returncode != 0 and "AccessDeniedException" in r.stderr


def test_partiql_is_checked_too(srv):
    """An explicit Deny of dynamodb:PartiQLSelect refuses ExecuteStatement on the table, the
    owner's account too, while GetItem (another action) goes on."""
    alice = client(srv, ALICE)
    alice.create_table(TableName="queried", BillingMode="PAY_PER_REQUEST",
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    alice.put_item(TableName="queried", Item={"pk": {"S": "a"}})
    arn = f"arn:aws:dynamodb:{REGION}:111122223333:table/queried"
    status, body = call(srv, ALICE, "PutResourcePolicy", {"ResourceArn": arn, "Policy": json.dumps({
        "Version": "2012-10-17", "Statement": [{
            "Effect": "Deny", "Principal": {"AWS": ALICE_ARN}, "Action": "dynamodb:PartiQLSelect",
            "Resource": arn}]})})
    assert status == 200, body
    e = expect_error(lambda: alice.execute_statement(
        Statement='SELECT * FROM "queried" WHERE pk = \'a\''), DENIED)
    assert "dynamodb:PartiQLSelect" in e.response["Error"]["Message"]
    # A quote of the other kind inside a quoted name does not hide the FROM.
    expect_error(lambda: alice.execute_statement(
        Statement='SELECT "it\'s" FROM "queried" WHERE pk = \'a\''), DENIED)
    assert alice.get_item(TableName="queried", Key={"pk": {"S": "a"}})["Item"]
    # Another statement kind is another action.
    alice.execute_statement(Statement='UPDATE "queried" SET v = 1 WHERE pk = \'a\'')


def test_table_settings_are_not_shared_across_accounts_by_a_policy(srv, owned):
    # "Because table administrators configure internal table settings within the same account,
    # APIs such as UpdateTimeToLive ... don't support cross-account access through resource-based
    # policies" (the developer guide's rbac-iam-actions): a policy allowing everything still
    # lets another account read and write items, not change the table's settings or its policy
    # (a black-box probe found another account doing both).
    put_policy(srv, [{"Effect": "Allow", "Principal": {"AWS": BOB_ARN}, "Action": "dynamodb:*",
                      "Resource": TABLE_ARN}])
    try:
        bob = client(srv, BOB)
        bob.put_item(TableName=TABLE_ARN, Item={"pk": {"S": "bob#3"}})
        for op, body in [
                ("UpdateTimeToLive", {"TableName": TABLE_ARN, "TimeToLiveSpecification": {
                    "Enabled": True, "AttributeName": "ttl"}}),
                ("CreateBackup", {"TableName": TABLE_ARN, "BackupName": "bobs"}),
                ("GetResourcePolicy", {"ResourceArn": TABLE_ARN}),
                ("PutResourcePolicy", {"ResourceArn": TABLE_ARN, "Policy": json.dumps({
                    "Version": "2012-10-17", "Statement": []})})]:
            status, answer = call(srv, BOB, op, body)
            assert status == 400 and answer["__type"].endswith("AccessDeniedException"), (op, answer)
    finally:
        assert call(srv, ALICE, "DeleteResourcePolicy", {"ResourceArn": TABLE_ARN})[0] == 200
        owned.delete_item(TableName="owned", Key={"pk": {"S": "bob#3"}})
