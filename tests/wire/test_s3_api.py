"""The S3 API on ddb's own port (server/s3/s3_api.h), through boto3's S3 client and the AWS CLI's
`aws s3` commands pointed at the DynamoDB endpoint: fixtures put with S3 clients are what
ImportTable reads, and an export's files are objects."""
import gzip
import json
import os
import time

import boto3
import botocore
import pytest

from conftest import ACCESS_KEY, REGION, SECRET_KEY, ServerProcess, run_aws_cli, unique_name


@pytest.fixture(scope="module")
def s3_server(tmp_path_factory):
    s3dir = tmp_path_factory.mktemp("s3")
    p = ServerProcess("--in-memory", "--s3-dir", str(s3dir))
    p.start()
    yield p, s3dir
    p.stop_and_check()


def s3_client(endpoint, key=ACCESS_KEY):
    return boto3.client(
        "s3", endpoint_url=endpoint, region_name=REGION, aws_access_key_id=key,
        aws_secret_access_key=SECRET_KEY,
        config=botocore.config.Config(s3={"addressing_style": "path"},
                                      retries={"max_attempts": 1}))


def ddb_client(endpoint):
    return boto3.client("dynamodb", endpoint_url=endpoint, region_name=REGION,
                        aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY)


def error_of(fn, *args, **kwargs):
    with pytest.raises(botocore.exceptions.ClientError) as info:
        fn(*args, **kwargs)
    return info.value.response


def bucket_name():
    return unique_name("b").lower().replace("_", "-")


def test_objects_listing_and_errors(s3_server):
    server, s3dir = s3_server
    s3 = s3_client(server.endpoint)
    b = bucket_name()
    s3.create_bucket(Bucket=b)
    for key in ["a.json", "d/1 one.json", "d/2+two.json", "d/e/3.json", "z&<>.txt"]:
        s3.put_object(Bucket=b, Key=key, Body=key.encode())
    # boto3 asks for encoding-type=url and decodes the keys itself.
    listed = s3.list_objects_v2(Bucket=b)
    assert [o["Key"] for o in listed["Contents"]] == [
        "a.json", "d/1 one.json", "d/2+two.json", "d/e/3.json", "z&<>.txt"]
    assert listed["KeyCount"] == 5 and listed["IsTruncated"] is False
    grouped = s3.list_objects_v2(Bucket=b, Prefix="d/", Delimiter="/")
    assert [o["Key"] for o in grouped["Contents"]] == ["d/1 one.json", "d/2+two.json"]
    assert grouped["CommonPrefixes"] == [{"Prefix": "d/e/"}]
    v1 = s3.list_objects(Bucket=b, MaxKeys=2)
    assert [o["Key"] for o in v1["Contents"]] == ["a.json", "d/1 one.json"]
    assert v1["IsTruncated"] is True
    after = s3.list_objects_v2(Bucket=b, StartAfter="d/e/3.json")
    assert [o["Key"] for o in after["Contents"]] == ["z&<>.txt"]
    assert s3.get_object(Bucket=b, Key="d/2+two.json")["Body"].read() == b"d/2+two.json"
    assert (s3dir / b / "d" / "e" / "3.json").read_bytes() == b"d/e/3.json"

    # Keys this store cannot hold as files are refused, and nothing escapes the bucket.
    e = error_of(s3.put_object, Bucket=b, Key="../escape", Body=b"x")
    assert e["Error"]["Code"] == "InvalidArgument"
    assert not (s3dir / "escape").exists()
    e = error_of(s3.put_object, Bucket=b, Key="a.json/under-a-file", Body=b"x")
    assert e["Error"]["Code"] == "InvalidArgument"
    assert s3.get_object(Bucket=b, Key="a.json")["Body"].read() == b"a.json"
    e = error_of(s3.get_object, Bucket=b, Key="a.json", Range="bytes=100-")
    assert e["Error"]["Code"] == "InvalidRange"
    assert e["ResponseMetadata"]["HTTPStatusCode"] == 416
    e = error_of(s3.get_bucket_versioning, Bucket=b)
    assert e["Error"]["Code"] == "NotImplemented"
    assert e["ResponseMetadata"]["HTTPStatusCode"] == 501
    e = error_of(s3.list_objects_v2, Bucket="no-such-bucket-here")
    assert e["Error"] == {"Code": "NoSuchBucket", "Message": "The specified bucket does not exist",
                          "Resource": "/no-such-bucket-here"}

    quiet = s3.delete_objects(Bucket=b, Delete={
        "Objects": [{"Key": o["Key"]} for o in listed["Contents"]], "Quiet": True})
    assert "Deleted" not in quiet and "Errors" not in quiet
    assert s3.list_objects_v2(Bucket=b)["KeyCount"] == 0
    assert list((s3dir / b).iterdir()) == []  # emptied directories are pruned
    s3.delete_bucket(Bucket=b)
    assert not (s3dir / b).exists()


def test_aws_cli_s3_commands_and_import(s3_server, tmp_path):
    server, s3dir = s3_server
    b = bucket_name()

    def s3cli(*args):
        proc, _ = run_aws_cli(server.endpoint, *args, service="s3", timeout=120)
        return proc.stdout

    s3cli("mb", f"s3://{b}")
    lines = "".join(json.dumps({"Item": {"pk": {"S": f"k{i}"}, "n": {"N": str(i)}}}) + "\n"
                    for i in range(500))
    fixture = tmp_path / "items.json.gz"
    fixture.write_bytes(gzip.compress(lines.encode()))
    s3cli("cp", str(fixture), f"s3://{b}/fixtures/items.json.gz")
    # Larger than the CLI's 8 MiB multipart threshold: it goes up in parts.
    big = tmp_path / "big.bin"
    big.write_bytes(os.urandom(20 * 1024 * 1024))
    s3cli("cp", str(big), f"s3://{b}/blobs/big.bin")
    listing = s3cli("ls", "--recursive", f"s3://{b}/")
    assert "fixtures/items.json.gz" in listing and "blobs/big.bin" in listing
    assert (s3dir / b / "blobs" / "big.bin").read_bytes() == big.read_bytes()
    back = tmp_path / "back.bin"
    s3cli("cp", f"s3://{b}/blobs/big.bin", str(back))
    assert back.read_bytes() == big.read_bytes()

    ddb = ddb_client(server.endpoint)
    table = unique_name("s3imp")
    imp = ddb.import_table(
        S3BucketSource={"S3Bucket": b, "S3KeyPrefix": "fixtures/"},
        InputFormat="DYNAMODB_JSON", InputCompressionType="GZIP",
        TableCreationParameters={
            "TableName": table, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
    arn = imp["ImportTableDescription"]["ImportArn"]
    deadline = time.time() + 30
    while True:
        d = ddb.describe_import(ImportArn=arn)["ImportTableDescription"]
        if d["ImportStatus"] != "IN_PROGRESS" or time.time() > deadline:
            break
        time.sleep(0.1)
    assert d["ImportStatus"] == "COMPLETED", d
    assert d["ImportedItemCount"] == 500
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "k7"}})["Item"]["n"] == {"N": "7"}

    s3cli("rm", "--recursive", f"s3://{b}/")
    s3cli("rb", f"s3://{b}")
    assert not (s3dir / b).exists()


def test_presigned_urls_without_auth(s3_server):
    import urllib.request
    server, _ = s3_server
    s3 = s3_client(server.endpoint)
    b = bucket_name()
    s3.create_bucket(Bucket=b)
    s3.put_object(Bucket=b, Key="p.txt", Body=b"presigned")
    # boto3 1.26 presigns with SigV2 by default; either form reaches the S3 API.
    for client in (s3, boto3.client("s3", endpoint_url=server.endpoint, region_name=REGION,
                                    aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY,
                                    config=botocore.config.Config(
                                        s3={"addressing_style": "path"},
                                        signature_version="s3v4"))):
        url = client.generate_presigned_url("get_object", Params={"Bucket": b, "Key": "p.txt"})
        with urllib.request.urlopen(url) as r:
            assert r.read() == b"presigned"


def announce(port, head):
    """Sends a request head announcing a body, none of it; returns the status line."""
    import socket
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head.encode())
        return sock.recv(4096).split(b"\r\n", 1)[0]


def test_body_limits_s3_larger_than_dynamodb(s3_server):
    server, _ = s3_server
    s3 = s3_client(server.endpoint)
    b = bucket_name()
    s3.create_bucket(Bucket=b)
    # One PutObject of 20 MiB: over DynamoDB's 16 MiB request limit, under S3's.
    data = os.urandom(20 * 1024 * 1024)
    s3.put_object(Bucket=b, Key="single.bin", Body=data)
    assert s3.get_object(Bucket=b, Key="single.bin")["Body"].read() == data
    s3_auth = ("Authorization: AWS4-HMAC-SHA256 Credential=AKID/20261202/us-east-1/s3/"
               "aws4_request, SignedHeaders=host, Signature=00\r\n")
    ddb_auth = s3_auth.replace("/s3/", "/dynamodb/")
    # Refused from the header alone: DynamoDB over 16 MiB, S3 over --max-body-memory.
    assert b" 413 " in announce(server.port, "POST / HTTP/1.1\r\nHost: x\r\n" + ddb_auth +
                                "X-Amz-Target: DynamoDB_20120810.ListTables\r\n"
                                f"Content-Length: {17 * 1024 * 1024}\r\n\r\n")
    assert b" 413 " in announce(server.port, f"PUT /{b}/huge HTTP/1.1\r\nHost: x\r\n" + s3_auth +
                                f"Content-Length: {257 * 1024 * 1024}\r\n\r\n")


def test_dynamodb_requests_are_untouched(s3_server):
    server, _ = s3_server
    # The same port answers DynamoDB as before: S3 is chosen by the signature's service.
    assert "TableNames" in ddb_client(server.endpoint).list_tables()


def test_auth_verify_checks_s3_signatures(tmp_path):
    credentials = tmp_path / "credentials"
    credentials.write_text(f"[default]\naws_access_key_id = {ACCESS_KEY}\n"
                           f"aws_secret_access_key = {SECRET_KEY}\n")
    p = ServerProcess("--in-memory", "--auth", "verify", "--credentials", str(credentials),
                      "--s3-dir", str(tmp_path / "s3")).start()
    try:
        s3 = s3_client(p.endpoint)
        s3.create_bucket(Bucket="signed")
        s3.put_object(Bucket="signed", Key="dir/a b+c.txt", Body=b"signed body")
        assert s3.get_object(Bucket="signed", Key="dir/a b+c.txt")["Body"].read() == b"signed body"
        # The AWS CLI's multipart upload and listing, signed.
        big = tmp_path / "big.bin"
        big.write_bytes(os.urandom(9 * 1024 * 1024))
        run_aws_cli(p.endpoint, "cp", str(big), "s3://signed/big.bin", service="s3", timeout=120)
        assert s3.head_object(Bucket="signed", Key="big.bin")["ContentLength"] == 9 * 1024 * 1024

        e = error_of(s3_client(p.endpoint, key="AKIDUNKNOWNKEY").list_buckets)
        assert e["Error"]["Code"] == "InvalidAccessKeyId"
        assert e["ResponseMetadata"]["HTTPStatusCode"] == 403
        wrong = boto3.client(
            "s3", endpoint_url=p.endpoint, region_name=REGION, aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key="not-the-secret",
            config=botocore.config.Config(s3={"addressing_style": "path"},
                                          retries={"max_attempts": 1}))
        e = error_of(wrong.put_object, Bucket="signed", Key="forged", Body=b"x")
        assert e["Error"]["Code"] == "SignatureDoesNotMatch"
        assert e["ResponseMetadata"]["HTTPStatusCode"] == 403
        assert "forged" not in [o["Key"] for o in s3.list_objects_v2(Bucket="signed")["Contents"]]

        # Presigned URLs (SigV4) work as signed, and not once tampered with; boto3's default
        # SigV2 ones are refused under verify.
        import urllib.error
        import urllib.request
        v2 = s3.generate_presigned_url("get_object", Params={"Bucket": "signed", "Key": "big.bin"})
        assert "AWSAccessKeyId=" in v2
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(v2)
        assert info.value.code == 403
        s3 = boto3.client(
            "s3", endpoint_url=p.endpoint, region_name=REGION, aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
            config=botocore.config.Config(s3={"addressing_style": "path"},
                                          signature_version="s3v4"))
        url = s3.generate_presigned_url("get_object", Params={"Bucket": "signed",
                                                              "Key": "dir/a b+c.txt"})
        with urllib.request.urlopen(url) as r:
            assert r.read() == b"signed body"
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(url.replace("a%20b", "a%20x"))
        assert info.value.code in (403, 404)
        assert b"SignatureDoesNotMatch" in info.value.read()
        # Unsigned requests are refused.
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(p.endpoint + "/signed/dir/a%20b%2Bc.txt?X-Amz-Credential="
                                   "AKID%2F20260101%2Fus-east-1%2Fs3%2Faws4_request")
        assert info.value.code in (400, 403)
    finally:
        p.stop_and_check()
