"""Resource-based policies: PutResourcePolicy, GetResourcePolicy, DeleteResourcePolicy and
CreateTable's ResourcePolicy. boto3 1.26 predates these operations, so requests are raw
JSON. Expected texts are the service's (moto's AWS-verified resource-policy tests and
recorded service answers) unless a comment says otherwise."""
import http.client
import json

import pytest

from conftest import (ACCOUNT_ID, REGION, TARGET_PREFIX, ServerProcess, key_schema_kwargs,
                      make_client, raw_post, table_arn, unique_name)

INVALID = "One or more parameter values were invalid: "


def policy_doc(arn, action="dynamodb:GetItem", effect="Allow", principal=None, **extra):
    statement = {"Sid": "s1", "Effect": effect,
                 "Principal": principal or {"AWS": f"arn:aws:iam::{ACCOUNT_ID}:root"},
                 "Action": action, "Resource": arn}
    statement.update(extra)
    return json.dumps({"Version": "2012-10-17", "Statement": [statement]})


def error(resp):
    body = resp.json()
    return body["__type"].split("#")[-1], body.get("message", body.get("Message"))


@pytest.fixture
def table(table_factory):
    name = table_factory(("pk", "S"))
    return name, table_arn(name)


def put(raw, arn, policy, **extra):
    return raw("PutResourcePolicy", {"ResourceArn": arn, "Policy": policy, **extra})


def test_round_trip(raw, table):
    name, arn = table
    r = put(raw, arn, policy_doc(arn))
    assert r.status == 200, r.body
    rev = r.json()["RevisionId"]
    assert rev.isdigit()
    got = raw("GetResourcePolicy", {"ResourceArn": arn})
    assert got.status == 200
    assert got.json()["RevisionId"] == rev
    assert json.loads(got.json()["Policy"])["Statement"][0]["Action"] == "dynamodb:GetItem"
    deleted = raw("DeleteResourcePolicy", {"ResourceArn": arn})
    assert deleted.status == 200
    assert deleted.json() == {"RevisionId": rev}
    gone = raw("GetResourcePolicy", {"ResourceArn": arn})
    assert gone.status == 400
    assert error(gone) == ("PolicyNotFoundException",
                           f"Resource-based policy not found for the provided ResourceArn: {arn}")


def test_no_policy(raw, table):
    _, arn = table
    r = raw("GetResourcePolicy", {"ResourceArn": arn})
    assert error(r) == ("PolicyNotFoundException",
                        f"Resource-based policy not found for the provided ResourceArn: {arn}")
    # Deleting what is not there is a 200 without a RevisionId.
    d = raw("DeleteResourcePolicy", {"ResourceArn": arn})
    assert d.status == 200 and d.json() == {}


def test_revisions(raw, table):
    name, arn = table
    rev1 = put(raw, arn, policy_doc(arn)).json()["RevisionId"]
    # An equivalent document (whitespace, a one-element list) keeps the revision.
    same = json.dumps(json.loads(policy_doc(arn, action=["dynamodb:GetItem"])), indent=2)
    assert put(raw, arn, same).json()["RevisionId"] == rev1
    rev2 = put(raw, arn, policy_doc(arn, "dynamodb:PutItem"),
               ExpectedRevisionId=rev1).json()["RevisionId"]
    assert rev2 != rev1 and int(rev2) > int(rev1)
    stale = put(raw, arn, policy_doc(arn, "dynamodb:Query"), ExpectedRevisionId=rev1)
    assert error(stale) == (
        "PolicyNotFoundException",
        "Resource-based policy not found for the provided ResourceArn: Requested update for "
        f"policy with revision id {rev1}, but the policy associated to target table {name} has "
        f"revision id {rev2}.")
    none = put(raw, arn, policy_doc(arn, "dynamodb:Query"), ExpectedRevisionId="NO_POLICY")
    assert error(none) == (
        "PolicyNotFoundException",
        "Resource-based policy not found for the provided ResourceArn: Requested policy update "
        f"expecting none to be present for table {name}, but a policy exists with revision id "
        f"{rev2}.")
    bad_delete = raw("DeleteResourcePolicy", {"ResourceArn": arn, "ExpectedRevisionId": "unknown"})
    assert error(bad_delete) == (
        "PolicyNotFoundException",
        "Resource-based policy not found for the provided ResourceArn: Requested update for "
        f"policy with revision id unknown, but the policy associated to target table {name} has "
        f"revision id {rev2}.")
    assert raw("GetResourcePolicy", {"ResourceArn": arn}).json()["RevisionId"] == rev2
    ok = raw("DeleteResourcePolicy", {"ResourceArn": arn, "ExpectedRevisionId": rev2})
    assert ok.json() == {"RevisionId": rev2}
    first = put(raw, arn, policy_doc(arn), ExpectedRevisionId="NO_POLICY")
    assert first.status == 200


def test_canonical_form(raw, table):
    _, arn = table
    doc = {"Statement": {"Resource": [arn], "Action": ["dynamodb:GetItem"], "Effect": "allow",
                         "Principal": {"AWS": ACCOUNT_ID}}}
    assert put(raw, arn, json.dumps(doc, indent=4)).status == 200
    got = raw("GetResourcePolicy", {"ResourceArn": arn}).json()["Policy"]
    assert got == json.dumps({"Version": "2008-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT_ID}:root"},
         "Action": "dynamodb:GetItem", "Resource": arn}]}, separators=(",", ":"))


@pytest.mark.parametrize("policy, message", [
    ("{not json", INVALID + "Invalid policy document: This policy contains invalid Json"),
    ("", INVALID + "Invalid policy document: This policy contains invalid Json"),
    (json.dumps({"Version": "2012-10-17", "Statement": []}),
     INVALID + "Invalid policy document: Could not parse the policy: Statement is empty!"),
    (json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": ACCOUNT_ID}, "Action": "dynamodb:GetItem"}]}),
     INVALID + "Invalid policy document: Missing required field Resource"),
    (json.dumps({"Version": "2012-10-17", "Statement": [
        {"Sid": "a", "Effect": "Allow", "Principal": {"AWS": ACCOUNT_ID},
         "Action": "dynamodb:GetItem", "Resource": "*"},
        {"Sid": "a", "Effect": "Allow", "Principal": {"AWS": ACCOUNT_ID},
         "Action": "dynamodb:Query", "Resource": "*"}]}),
     INVALID + "Invalid policy document: The Statement Ids in the policy are not unique"),
    (json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": "*", "Action": "dynamodb:GetItem", "Resource": "*"}]}),
     "Resource-based policy grants unbounded access in one or more elements. Please revise the "
     "policy to ensure least-privilege form of access"),
    (json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": ACCOUNT_ID},
         "Action": ["dynamodb:GetRecords", "dynamodb:DescribeStream"], "Resource": "*"}]}),
     INVALID + 'Invalid policy document: The following action names are invalid: '
     '"dynamodb:GetRecords", "dynamodb:DescribeStream"'),
    (" " * 20481, INVALID + "Maximum policy size of 20480 bytes exceeded"),
])
def test_policy_validation(raw, table, policy, message):
    _, arn = table
    r = put(raw, arn, policy)
    assert error(r) == ("ValidationException", message)
    assert error(raw("GetResourcePolicy", {"ResourceArn": arn}))[0] == "PolicyNotFoundException"


def test_policy_size_limit(raw, table):
    _, arn = table
    doc = policy_doc(arn)
    padded = doc[:-1] + " " * (20480 - len(doc)) + doc[-1]
    assert len(padded) == 20480
    assert put(raw, arn, padded).status == 200  # whitespace counts, up to the limit


def test_other_resources_in_the_document_are_accepted(raw, table):
    _, arn = table
    other = table_arn("someone-else")
    assert put(raw, arn, policy_doc([arn, other, arn + "/index/*"])).status == 200


@pytest.mark.parametrize("arn, code, message", [
    ("just-a-name", "ValidationException",
     INVALID + "ARNs must start with 'arn:': just-a-name"),
    (f"arn:aws:dynamodb:{REGION}:{ACCOUNT_ID}:table/t1/backup/0170", "ValidationException",
     INVALID + f"Provided Arn is not a DynamoDB resource arn: "
     f"arn:aws:dynamodb:{REGION}:{ACCOUNT_ID}:table/t1/backup/0170"),
    (f"arn:aws:dynamodb:eu-west-3:{ACCOUNT_ID}:table/t1", "ValidationException",
     INVALID + f"Invalid resource Arn: arn:aws:dynamodb:eu-west-3:{ACCOUNT_ID}:table/t1"),
    (f"arn:aws:dynamodb:{REGION}:123456789012:table/t1", "ValidationException",
     "This action is only supported by accounts that match the resource owner\u2019s account."),
    (f"arn:aws:dynamodb:{REGION}:{ACCOUNT_ID}:table/t1/index/i", "ValidationException",
     INVALID + "Invalid resource arn provided, only table or stream is accepted. Provided "
     f"resource arn: arn:aws:dynamodb:{REGION}:{ACCOUNT_ID}:table/t1/index/i"),
    (table_arn("no-such-table"), "ResourceNotFoundException",
     "Requested resource not found: Table: no-such-table not found"),
])
def test_resource_arn_forms(raw, arn, code, message):
    for op, body in [("GetResourcePolicy", {}), ("DeleteResourcePolicy", {})]:
        r = raw(op, {"ResourceArn": arn, **body})
        assert error(r) == (code, message), op
    r = put(raw, arn, policy_doc(table_arn("t1")))
    assert error(r) == (code, message)


def test_missing_members(raw):
    r = raw("PutResourcePolicy", {})
    assert error(r) == ("ValidationException",
                        "2 validation errors detected: Value null at 'resourceArn' failed to "
                        "satisfy constraint: Member must not be null; Value null at 'policy' "
                        "failed to satisfy constraint: Member must not be null")


def test_self_lockout_needs_confirmation(raw, table):
    _, arn = table
    deny = policy_doc(arn, ["dynamodb:PutResourcePolicy", "dynamodb:DeleteResourcePolicy"],
                      effect="Deny", principal="*")
    r = put(raw, arn, deny)
    assert error(r) == ("AccessDeniedException",
                        "The new resource policy will not allow you to update the resource "
                        "policy in the future.")
    # The request framework's namespace, with "Message" (test_error_envelope.py: sources).
    assert r.json()["__type"] == "com.amazon.coral.service#AccessDeniedException"
    assert "Message" in r.json() and "message" not in r.json()
    r = put(raw, arn, deny, ConfirmRemoveSelfResourceAccess=True)
    assert r.status == 200, r.body


def test_stream_policies(raw, table_factory):
    name = table_factory(("pk", "S"), StreamSpecification={"StreamEnabled": True,
                                                          "StreamViewType": "KEYS_ONLY"})
    arn = table_arn(name)
    stream = raw("DescribeTable", {"TableName": name}).json()["Table"]["LatestStreamArn"]
    r = put(raw, stream, policy_doc(stream, ["dynamodb:GetRecords", "dynamodb:DescribeStream"]))
    assert r.status == 200, r.body
    # The stream's policy is its own: the table still has none.
    assert error(raw("GetResourcePolicy", {"ResourceArn": arn}))[0] == "PolicyNotFoundException"
    assert raw("GetResourcePolicy", {"ResourceArn": stream}).json()["RevisionId"] == \
        r.json()["RevisionId"]
    # Table actions on a stream are refused.
    bad = put(raw, stream, policy_doc(stream, "dynamodb:GetItem"))
    assert error(bad)[0] == "ValidationException"
    assert error(bad)[1].startswith(INVALID + 'Invalid policy document: The relative-id "')
    bogus = arn + "/stream/2000-01-01T00:00:00.000"
    assert error(raw("GetResourcePolicy", {"ResourceArn": bogus})) == (
        "ResourceNotFoundException",
        f"Requested resource not found: Stream: 2000-01-01T00:00:00.000 not found for Table: {name}")
    assert raw("DeleteResourcePolicy", {"ResourceArn": stream}).status == 200
    assert error(raw("GetResourcePolicy", {"ResourceArn": stream}))[0] == "PolicyNotFoundException"


def test_policy_goes_with_the_table(raw, ddb):
    name = unique_name("rp")
    arn = table_arn(name)
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST", **key_schema_kwargs())
    assert put(raw, arn, policy_doc(arn)).status == 200
    ddb.delete_table(TableName=name)
    for op in ("GetResourcePolicy", "DeleteResourcePolicy"):
        assert error(raw(op, {"ResourceArn": arn})) == (
            "ResourceNotFoundException", f"Requested resource not found: Table: {name} not found")
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST", **key_schema_kwargs())
    try:
        assert error(raw("GetResourcePolicy", {"ResourceArn": arn}))[0] == \
            "PolicyNotFoundException"
    finally:
        ddb.delete_table(TableName=name)


def test_create_table_resource_policy(raw, ddb):
    name = unique_name("rp")
    arn = table_arn(name)
    body = {"TableName": name, "BillingMode": "PAY_PER_REQUEST",
            "ResourcePolicy": policy_doc(arn), **key_schema_kwargs()}
    r = raw("CreateTable", body)
    assert r.status == 200, r.body
    try:
        assert "ResourcePolicy" not in json.dumps(r.json())
        got = raw("GetResourcePolicy", {"ResourceArn": arn})
        assert got.status == 200
        assert json.loads(got.json()["Policy"])["Statement"][0]["Resource"] == arn
        # DescribeTable does not show the policy, as in the service.
        assert "Policy" not in json.dumps(raw("DescribeTable", {"TableName": name}).json())
    finally:
        ddb.delete_table(TableName=name)
    bad = raw("CreateTable", {**body, "ResourcePolicy": "{not json"})
    assert error(bad) == ("ValidationException",
                          INVALID + "Invalid policy document: This policy contains invalid Json")
    assert error(raw("DescribeTable", {"TableName": name}))[0] == "ResourceNotFoundException"


def test_policies_survive_a_restart(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    name = unique_name("rp")
    arn = table_arn(name)

    def call(srv, op, body):
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
        try:
            return raw_post(conn, srv.endpoint, TARGET_PREFIX + op, body)
        finally:
            conn.close()

    srv = ServerProcess("--data-dir", str(data_dir), log_dir=str(tmp_path)).start()
    try:
        make_client(srv.endpoint).create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                                               **key_schema_kwargs())
        rev = call(srv, "PutResourcePolicy",
                   {"ResourceArn": arn, "Policy": policy_doc(arn)}).json()["RevisionId"]
        before = call(srv, "GetResourcePolicy", {"ResourceArn": arn}).json()
    finally:
        srv.stop_and_check()
    srv2 = ServerProcess("--data-dir", str(data_dir), log_dir=str(tmp_path)).start()
    try:
        after = call(srv2, "GetResourcePolicy", {"ResourceArn": arn}).json()
        assert after == before and after["RevisionId"] == rev
    finally:
        srv2.stop_and_check()
