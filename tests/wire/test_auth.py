"""--auth verify: SigV4 signatures checked against a credentials file, with the service's
errors in its order of checks (header present and complete, date, Host signed, scope, key,
signature, session token). Clients: boto3, raw signed requests, presigned query strings and
the AWS CLI."""

import gzip
import http.client
import json
import os
import re
import subprocess
import textwrap
import urllib.parse

import boto3
import pytest
from botocore.auth import SigV4Auth, SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.exceptions import ClientError

from conftest import REGION, TARGET_PREFIX, ServerProcess, aws_cli_path, expect_error

pytestmark = pytest.mark.ddb_only("ddb-server's --auth verify mode")

ALICE = ("AKIAALICE0000000001", "alice-secret/abc+def")
TEMP = ("ASIATEMP00000000001", "temp-secret", "the-session-token")
CREDENTIALS = textwrap.dedent(f"""\
    # keys the server knows
    [alice]
    aws_access_key_id = {ALICE[0]}
    aws_secret_access_key = {ALICE[1]}
    account_id = 111122223333

    [profile temp]
    aws_access_key_id = {TEMP[0]}
    aws_secret_access_key = {TEMP[1]}
    aws_session_token = {TEMP[2]}
    """)


@pytest.fixture(scope="module")
def verifying_server(tmp_path_factory):
    path = tmp_path_factory.mktemp("auth") / "credentials"
    path.write_text(CREDENTIALS)
    srv = ServerProcess("--in-memory", "--auth", "verify", "--credentials", str(path)).start()
    yield srv
    srv.stop_and_check()


def client(srv, key_id, secret, token=None, region=REGION):
    return boto3.session.Session().client(
        "dynamodb", endpoint_url=srv.endpoint, region_name=region, aws_access_key_id=key_id,
        aws_secret_access_key=secret, aws_session_token=token,
        config=Config(retries={"max_attempts": 1, "total_max_attempts": 1}))


def post(srv, headers, body=b"{}", target="/"):
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
    if not any(h.lower() == "content-type" for h in headers):
        # The service answers a POST in any other content type 404 (test_http_layer.py).
        headers = dict(headers, **{"Content-Type": "application/x-amz-json-1.0"})
    try:
        conn.request("POST", target, body=body, headers=headers)
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read() or b"{}")
    finally:
        conn.close()


def signed_headers(srv, key=ALICE, body=b"{}", op="ListTables", extra=None):
    headers = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": TARGET_PREFIX + op}
    headers.update(extra or {})
    req = AWSRequest(method="POST", url=srv.endpoint + "/", data=body, headers=headers)
    SigV4Auth(Credentials(*key), "dynamodb", REGION).add_auth(req)
    return dict(req.headers.items())


def error_type(body):
    return body["__type"].split("#")[-1]


def test_right_key_is_served(verifying_server):
    c = client(verifying_server, *ALICE)
    c.create_table(TableName="auth-t", BillingMode="PAY_PER_REQUEST",
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    c.put_item(TableName="auth-t", Item={"pk": {"S": "k"}, "v": {"S": "x" * 5000}})
    assert c.get_item(TableName="auth-t", Key={"pk": {"S": "k"}})["Item"]["v"]["S"] == "x" * 5000
    assert "auth-t" in c.list_tables()["TableNames"]


def test_wrong_secret_shows_what_the_server_signed(verifying_server):
    err = expect_error(lambda: client(verifying_server, ALICE[0], "wrong").list_tables(),
                       "InvalidSignatureException")
    message = err.response["Error"]["Message"]
    assert message.startswith(
        "The request signature we calculated does not match the signature you provided. Check "
        "your AWS Secret Access Key and signing method. Consult the service documentation for "
        "details.\n\nThe Canonical String for this request should have been\n'POST\n/\n\n")
    assert re.search(r"'\n\nThe String-to-Sign should have been\n'AWS4-HMAC-SHA256\n\d{8}T\d{6}Z\n"
                     r"\d{8}/us-east-1/dynamodb/aws4_request\n[0-9a-f]{64}'\n$", message), message


def test_unknown_key_is_unrecognized(verifying_server):
    expect_error(lambda: client(verifying_server, "AKIANOBODY", "x").list_tables(),
                 "UnrecognizedClientException",
                 "The security token included in the request is invalid.")


def test_session_tokens(verifying_server):
    assert "TableNames" in client(verifying_server, *TEMP).list_tables()
    expect_error(lambda: client(verifying_server, TEMP[0], TEMP[1], "stale").list_tables(),
                 "UnrecognizedClientException",
                 "The security token included in the request is invalid")
    expect_error(lambda: client(verifying_server, TEMP[0], TEMP[1]).list_tables(),
                 "UnrecognizedClientException")


def test_tampered_body_fails(verifying_server):
    headers = signed_headers(verifying_server, body=b'{"Limit": 1}')
    status, body = post(verifying_server, headers, body=b'{"Limit": 2}')
    assert status == 400 and error_type(body) == "InvalidSignatureException"


def test_commas_without_blanks_are_accepted(verifying_server):
    # Scylla issue 9568: the service accepts "Credential=...,SignedHeaders=...,Signature=...".
    headers = signed_headers(verifying_server)
    parts = headers["Authorization"].split()
    headers["Authorization"] = parts[0] + " " + "".join(parts[1:])
    status, body = post(verifying_server, headers)
    assert status == 200, body


def test_missing_authorization(verifying_server):
    status, body = post(verifying_server, {"Content-Type": "application/x-amz-json-1.0",
                                           "X-Amz-Target": TARGET_PREFIX + "ListTables"})
    assert error_type(body) == "MissingAuthenticationTokenException"
    assert body["message"] == "Request is missing Authentication Token"


def test_incomplete_authorization_names_every_missing_part(verifying_server):
    status, body = post(verifying_server, {"X-Amz-Target": TARGET_PREFIX + "ListTables",
                                           "Authorization": "AWS4-HMAC-SHA256 Foo=bar"})
    assert error_type(body) == "IncompleteSignatureException"
    assert body["message"] == (
        "Authorization header requires 'Credential' parameter. Authorization header requires "
        "'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. "
        "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. "
        "Authorization=AWS4-HMAC-SHA256 Foo=bar")


@pytest.mark.parametrize("date,text", [
    ("20170101T010101Z", r"Signature expired: 20170101T010101Z is now earlier than "
                         r"\d{8}T\d{6}Z \(\d{8}T\d{6}Z - 15 min\.\)"),
    ("30200101T010101Z", r"Signature not yet current: 30200101T010101Z is still later than "
                         r"\d{8}T\d{6}Z \(\d{8}T\d{6}Z \+ 15 min\.\)"),
])
def test_dates_outside_fifteen_minutes(verifying_server, date, text):
    # alternator's test_expired_signature / test_signature_too_futuristic: the date is
    # checked before the (here nonsensical) scope.
    status, body = post(verifying_server, {
        "Content-Type": "application/x-amz-json-1.0", "X-Amz-Date": date,
        "X-Amz-Target": TARGET_PREFIX + "DescribeEndpoints",
        "Authorization": "AWS4-HMAC-SHA256 Credential=alternator/2/3/4/aws4_request "
                         "SignedHeaders=x-amz-date;host Signature=123"})
    assert status == 400 and error_type(body) == "InvalidSignatureException"
    assert re.fullmatch(text, body["message"]), body["message"]


def test_host_must_be_signed(verifying_server):
    req = AWSRequest(method="POST", url=verifying_server.endpoint + "/", data=b"{}",
                     headers={"X-Amz-Target": TARGET_PREFIX + "ListTables"})
    SigV4Auth(Credentials(*ALICE), "dynamodb", REGION).add_auth(req)
    headers = dict(req.headers.items())
    headers["Authorization"] = headers["Authorization"].replace("SignedHeaders=host;",
                                                                "SignedHeaders=")
    status, body = post(verifying_server, headers)
    assert error_type(body) == "IncompleteSignatureException"
    assert body["message"] == "'Host' must be a 'SignedHeader' in the AWS Authorization."


def test_gzip_body_is_verified_as_sent(verifying_server):
    body = gzip.compress(b'{"Limit": 1}')
    headers = signed_headers(verifying_server, body=body, extra={"Content-Encoding": "gzip"})
    status, answer = post(verifying_server, headers, body=body)
    assert status == 200, answer


class JsonBodyQueryAuth(SigV4QueryAuth):
    """botocore's query-string signer, keeping the JSON body as the body (its own moves a
    body into the query string, as query-protocol services want) and signing its hash."""

    def _modify_request_before_signing(self, request):
        body, request.data = request.data, b""
        super()._modify_request_before_signing(request)
        request.data = body


def test_presigned_query_string(verifying_server):
    def presigned(expires):
        req = AWSRequest(method="POST", url=verifying_server.endpoint + "/", data=b"{}",
                         headers={"Content-Type": "application/x-amz-json-1.0",
                                  "X-Amz-Target": TARGET_PREFIX + "ListTables"})
        JsonBodyQueryAuth(Credentials(*ALICE), "dynamodb", REGION, expires=expires).add_auth(req)
        return req
    req = presigned(60)
    assert "X-Amz-Signature=" in req.url and "Authorization" not in req.headers
    target = req.url[len(verifying_server.endpoint):]
    status, body = post(verifying_server, dict(req.headers.items()), target=target)
    assert status == 200, body
    # One signature, one request: another body does not pass.
    status, body = post(verifying_server, dict(req.headers.items()), body=b'{"Limit":1}',
                        target=target)
    assert error_type(body) == "InvalidSignatureException"
    incomplete = "/?" + urllib.parse.urlencode({"X-Amz-Algorithm": "AWS4-HMAC-SHA256"})
    status, body = post(verifying_server, {"X-Amz-Target": TARGET_PREFIX + "ListTables"},
                        target=incomplete)
    assert error_type(body) == "IncompleteSignatureException"
    assert body["message"].endswith("Re-examine the query-string parameters.")


def test_aws_cli_with_right_and_wrong_secret(verifying_server):
    aws = aws_cli_path()
    if aws is None:
        pytest.fail("AWS CLI ('aws') not found on PATH")

    def run(secret):
        env = dict(os.environ, AWS_ACCESS_KEY_ID=ALICE[0], AWS_SECRET_ACCESS_KEY=secret,
                   AWS_DEFAULT_REGION=REGION, AWS_PAGER="", AWS_MAX_ATTEMPTS="1",
                   AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull,
                   AWS_EC2_METADATA_DISABLED="true")
        env.pop("AWS_SESSION_TOKEN", None)
        env.pop("AWS_PROFILE", None)
        return subprocess.run([aws, "dynamodb", "list-tables", "--endpoint-url",
                               verifying_server.endpoint, "--output", "json"],
                              env=env, capture_output=True, text=True, timeout=60)
    ok = run(ALICE[1])
    assert ok.returncode == 0, ok.stderr
    assert "TableNames" in json.loads(ok.stdout)
    bad = run("wrong")
    assert bad.returncode != 0 and "InvalidSignatureException" in bad.stderr


def test_verify_refuses_to_start_without_keys(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    from conftest import SERVER_BIN
    proc = subprocess.run([SERVER_BIN, "--in-memory", "--port", "0", "--auth", "verify"],
                          env=env, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and "--auth verify needs keys" in proc.stderr
    bad = tmp_path / "creds"
    bad.write_text("[a]\naws_access_key_id = A\n")
    proc = subprocess.run([SERVER_BIN, "--in-memory", "--port", "0", "--auth", "verify",
                           "--credentials", str(bad)], env=env, capture_output=True, text=True,
                          timeout=30)
    assert proc.returncode == 2 and "has no aws_secret_access_key" in proc.stderr


def test_kinesis_and_lambda_requests_are_verified_for_their_services(verifying_server):
    """A Kinesis request is signed for `kinesis` and a Lambda one for `lambda`: verified as
    such, and the account of the key owns the stream."""
    session = boto3.session.Session()
    kinesis = session.client(
        "kinesis", endpoint_url=verifying_server.endpoint, region_name=REGION,
        aws_access_key_id=ALICE[0], aws_secret_access_key=ALICE[1],
        config=Config(retries={"max_attempts": 1, "total_max_attempts": 1}))
    kinesis.create_stream(StreamName="verified", ShardCount=1)
    arn = kinesis.describe_stream_summary(
        StreamName="verified")["StreamDescriptionSummary"]["StreamARN"]
    assert arn == f"arn:aws:kinesis:{REGION}:111122223333:stream/verified"
    lam = session.client(
        "lambda", endpoint_url=verifying_server.endpoint, region_name=REGION,
        aws_access_key_id=ALICE[0], aws_secret_access_key=ALICE[1],
        config=Config(retries={"max_attempts": 1, "total_max_attempts": 1}))
    assert lam.list_event_source_mappings()["EventSourceMappings"] == []
    wrong = session.client(
        "kinesis", endpoint_url=verifying_server.endpoint, region_name=REGION,
        aws_access_key_id=ALICE[0], aws_secret_access_key="not-the-secret",
        config=Config(retries={"max_attempts": 1, "total_max_attempts": 1}))
    with pytest.raises(ClientError) as e:
        wrong.list_streams()
    assert e.value.response["Error"]["Code"] == "InvalidSignatureException"
