"""Shared fixtures and helpers for the wire-level conformance tests.

The tests talk to a real ddb-server process over HTTP with boto3, the AWS CLI
and raw http.client requests. Expectations come from DynamoDB's documented
behaviour (API reference, developer guide) and from error texts observed on
the real service (as pinned by independent emulators' test suites).

Server contract relied on here:
  * binary: $DDB_SERVER, default <repo>/build/ddb-server;
  * `--port 0 --in-memory` (or `--data-dir DIR`) starts it; once ready it
    prints exactly one line `LISTENING <port>` on stdout;
  * SIGTERM stops it and it exits with status 0.

--endpoint URL (e.g. `pytest tests/wire --endpoint http://127.0.0.1:8000`) runs the suite
against a server that is already running, ddb-server or another DynamoDB-compatible one,
instead of starting ddb-server: the shared fixtures (server, endpoint, ddb, raw, tables)
use URL, every table gets a unique name (so several runs can share the endpoint), and the
tests that need ddb-server itself are skipped with the reason: those marked
@pytest.mark.ddb_only("what they need") and those that start their own server
(ServerProcess: flags, data directories, restarts, crashes). See tests/wire/README.md.
"""

import http.client
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.parse
import uuid
from pathlib import Path

import boto3
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.exceptions import ClientError

REPO_ROOT = Path(__file__).resolve().parents[2]
SERVER_BIN = os.environ.get("DDB_SERVER", str(REPO_ROOT / "build" / "ddb-server"))

REGION = "us-east-1"
ACCESS_KEY = "AKIDWIRETESTEXAMPLE"
SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYWIRETESTKEY"
ACCOUNT_ID = "000000000000"
TARGET_PREFIX = "DynamoDB_20120810."
ERROR_TYPE_PREFIX = "com.amazonaws.dynamodb.v20120810#"

STARTUP_TIMEOUT_S = 20.0
SHUTDOWN_TIMEOUT_S = 15.0
_LISTENING_RE = re.compile(r"^LISTENING (\d+)$")


# --------------------------------------------------------------------------
# --endpoint: an already running server instead of ddb-server
# --------------------------------------------------------------------------

# The URL given with --endpoint, or None: set by pytest_configure.
EXTERNAL_ENDPOINT = None


def pytest_addoption(parser):
    parser.addoption(
        "--endpoint", metavar="URL", default=None,
        help="run against this already running DynamoDB-compatible endpoint instead of "
             "starting ddb-server; tests that need ddb-server itself are skipped")


def pytest_configure(config):
    global EXTERNAL_ENDPOINT
    config.addinivalue_line(
        "markers", "ddb_only(reason): the test needs ddb-server itself (its flags, metrics, "
                   "console, process or data directory); skipped under --endpoint")
    url = config.getoption("--endpoint")
    if url:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise pytest.UsageError(f"--endpoint wants an http(s)://host[:port] URL, got {url!r}")
        EXTERNAL_ENDPOINT = url.rstrip("/")


def pytest_collection_modifyitems(config, items):
    if EXTERNAL_ENDPOINT is None:
        return
    for item in items:
        marker = item.get_closest_marker("ddb_only")
        if marker is not None:
            what = marker.args[0] if marker.args else "ddb-server itself"
            item.add_marker(pytest.mark.skip(reason=f"needs {what}: skipped under --endpoint"),
                            append=False)  # before any other skip: this is the reason


def skip_under_endpoint(what):
    """Skip the calling test under --endpoint: it needs `what` of ddb-server itself."""
    if EXTERNAL_ENDPOINT is not None:
        pytest.skip(f"needs {what}: skipped under --endpoint")


class ExternalServer:
    """The server given with --endpoint: it has an address, but no process to look at."""

    def __init__(self, url):
        parts = urllib.parse.urlsplit(url)
        self.endpoint = url
        self.scheme = parts.scheme
        self.host = parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)

    def _no_process(self, *args, **kwargs):
        pytest.skip("needs the ddb-server process (its output or exit): skipped under "
                    "--endpoint")

    stderr_text = stop = stop_and_check = _no_process


def proc_status_bytes(pid, field):
    """A size from /proc/<pid>/status in bytes: "VmRSS" (now) or "VmHWM" (the peak)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field}")


def http_connection(srv, timeout=30):
    """An http.client connection to a ServerProcess or the --endpoint server."""
    if getattr(srv, "scheme", "http") == "https":
        return http.client.HTTPSConnection(srv.host, srv.port, timeout=timeout)
    return http.client.HTTPConnection(srv.host, srv.port, timeout=timeout)


# --------------------------------------------------------------------------
# Server process management
# --------------------------------------------------------------------------

class ServerProcess:
    """One ddb-server process: start, learn its port, stop with SIGTERM."""

    host = "127.0.0.1"

    def __init__(self, *extra_args, log_dir=None):
        self.extra_args = list(extra_args)
        self.proc = None
        self.port = None
        self._log_dir = log_dir
        self._stderr_file = None
        self.stderr_path = None
        self.stdout_lines = []
        self._reader = None

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self):
        skip_under_endpoint("a ddb-server of its own (started with its own flags or data "
                            "directory)")
        if not os.path.isfile(SERVER_BIN) or not os.access(SERVER_BIN, os.X_OK):
            pytest.fail(f"server binary not found or not executable: {SERVER_BIN} "
                        "(build it, or set DDB_SERVER)")
        log_dir = self._log_dir or tempfile.gettempdir()
        fd, self.stderr_path = tempfile.mkstemp(prefix="ddb-server-stderr-", suffix=".log",
                                                dir=log_dir)
        self._stderr_file = os.fdopen(fd, "wb")
        self.proc = subprocess.Popen(
            [SERVER_BIN, "--port", "0", *self.extra_args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self._stderr_file,
        )
        lines = queue.Queue()

        def pump():
            # Keep draining stdout so the server can never block on a full pipe.
            for raw in self.proc.stdout:
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                self.stdout_lines.append(line)
                lines.put(line)
            lines.put(None)

        self._reader = threading.Thread(target=pump, daemon=True)
        self._reader.start()
        try:
            first = lines.get(timeout=STARTUP_TIMEOUT_S)
        except queue.Empty:
            self._abort()
            pytest.fail(f"server did not print 'LISTENING <port>' within {STARTUP_TIMEOUT_S}s; "
                        f"stderr: {self.stderr_text()[-2000:]}")
        if first is None:
            rc = self.proc.wait(timeout=5)
            pytest.fail(f"server exited (rc={rc}) before printing LISTENING; "
                        f"stderr: {self.stderr_text()[-2000:]}")
        m = _LISTENING_RE.match(first)
        if not m:
            self._abort()
            pytest.fail(f"first stdout line is not 'LISTENING <port>': {first!r}")
        self.port = int(m.group(1))
        assert 0 < self.port < 65536
        return self

    def stderr_text(self):
        try:
            self._stderr_file.flush()
        except Exception:
            pass
        try:
            return Path(self.stderr_path).read_text("utf-8", "replace")
        except OSError:
            return ""

    def _abort(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self._close_files()

    def _close_files(self):
        if self._stderr_file and not self._stderr_file.closed:
            self._stderr_file.close()

    def stop(self):
        """SIGTERM the server and wait; returns its exit status."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=SHUTDOWN_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
                self._close_files()
                pytest.fail(f"server did not exit within {SHUTDOWN_TIMEOUT_S}s of SIGTERM")
        if self._reader:
            self._reader.join(timeout=5)
        self._close_files()
        return self.proc.returncode

    def stop_and_check(self):
        rc = self.stop()
        assert rc == 0, (f"server exited with status {rc} after SIGTERM; "
                         f"stderr tail: {self.stderr_text()[-2000:]}")
        # Exactly one line on stdout: the LISTENING line.
        assert len(self.stdout_lines) == 1, f"unexpected stdout lines: {self.stdout_lines!r}"


@pytest.fixture(scope="session")
def server():
    """The shared in-memory server used by most tests (the --endpoint server if given)."""
    if EXTERNAL_ENDPOINT is not None:
        yield ExternalServer(EXTERNAL_ENDPOINT)
        return
    srv = ServerProcess("--in-memory").start()
    yield srv
    srv.stop_and_check()


@pytest.fixture(scope="session")
def endpoint(server):
    return server.endpoint


# --------------------------------------------------------------------------
# Clients
# --------------------------------------------------------------------------

def make_client(endpoint_url):
    """A low-level boto3 DynamoDB client against the test server.

    parameter_validation=False lets deliberately invalid requests reach the
    server (otherwise botocore rejects e.g. Limit=0 or a 2-char TableName
    client-side). total_max_attempts=1 (on top of the required max_attempts)
    makes even a 500 surface on the first attempt.
    """
    session = boto3.session.Session(
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
        region_name=REGION,
    )
    return session.client(
        "dynamodb",
        endpoint_url=endpoint_url,
        region_name=REGION,
        config=Config(
            retries={"max_attempts": 1, "total_max_attempts": 1},
            parameter_validation=False,
            connect_timeout=5,
            read_timeout=30,
        ),
    )


@pytest.fixture(scope="session")
def ddb(endpoint):
    return make_client(endpoint)


# --------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------

def unique_name(prefix="wire"):
    return f"{prefix}-{uuid.uuid4().hex[:16]}"


def key_schema_kwargs(hash_key=("pk", "S"), range_key=None):
    ks = [{"AttributeName": hash_key[0], "KeyType": "HASH"}]
    ad = [{"AttributeName": hash_key[0], "AttributeType": hash_key[1]}]
    if range_key is not None:
        ks.append({"AttributeName": range_key[0], "KeyType": "RANGE"})
        ad.append({"AttributeName": range_key[0], "AttributeType": range_key[1]})
    return {"KeySchema": ks, "AttributeDefinitions": ad}


def delete_table_quietly(client, name):
    try:
        client.delete_table(TableName=name)
    except ClientError:
        pass


@pytest.fixture
def table_factory(ddb):
    """make(hash_key=("pk","S"), range_key=None, name=None, **extra) -> name.

    Creates a PAY_PER_REQUEST table (unless BillingMode/ProvisionedThroughput
    are overridden in extra) and deletes every created table afterwards.
    """
    created = []

    def make(hash_key=("pk", "S"), range_key=None, name=None, **extra):
        name = name or unique_name()
        kwargs = key_schema_kwargs(hash_key, range_key)
        if "ProvisionedThroughput" not in extra and "BillingMode" not in extra:
            kwargs["BillingMode"] = "PAY_PER_REQUEST"
        kwargs.update(extra)
        ddb.create_table(TableName=name, **kwargs)
        created.append(name)
        return name

    yield make
    for n in created:
        delete_table_quietly(ddb, n)


@pytest.fixture
def table_s(table_factory):
    """Hash key pk (S)."""
    return table_factory(("pk", "S"))


@pytest.fixture
def table_n(table_factory):
    """Hash key pk (N)."""
    return table_factory(("pk", "N"))


@pytest.fixture
def table_b(table_factory):
    """Hash key pk (B)."""
    return table_factory(("pk", "B"))


@pytest.fixture
def table_sn(table_factory):
    """Hash key pk (S), range key sk (N)."""
    return table_factory(("pk", "S"), ("sk", "N"))


@pytest.fixture
def table_ss(table_factory):
    """Hash key pk (S), range key sk (S)."""
    return table_factory(("pk", "S"), ("sk", "S"))


# --------------------------------------------------------------------------
# Error assertions
# --------------------------------------------------------------------------

def assert_error(err, code, message=None, *, match=None, contains=None, status=400):
    """Check a botocore ClientError.

    message:  exact expected message text;
    match:    regex that must match the message (re.search);
    contains: substring (or list of substrings) that must occur in it.
    """
    assert isinstance(err, ClientError), f"expected ClientError, got {type(err)!r}: {err!r}"
    got_code = err.response.get("Error", {}).get("Code")
    got_msg = err.response.get("Error", {}).get("Message")
    got_status = err.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    assert got_code == code, f"error code {got_code!r} != {code!r} (message: {got_msg!r})"
    if status is not None:
        assert got_status == status, f"HTTP status {got_status} != {status} ({got_code}: {got_msg!r})"
    if message is not None:
        assert got_msg == message, f"message mismatch:\n  got:      {got_msg!r}\n  expected: {message!r}"
    if match is not None:
        assert got_msg is not None and re.search(match, got_msg), \
            f"message {got_msg!r} does not match /{match}/"
    if contains is not None:
        for part in ([contains] if isinstance(contains, str) else contains):
            assert got_msg is not None and part in got_msg, f"message {got_msg!r} lacks {part!r}"
    return err


def expect_error(fn, code, message=None, *, match=None, contains=None, status=400):
    """Call fn(); it must raise a ClientError with the given code/message."""
    try:
        result = fn()
    except ClientError as e:
        return assert_error(e, code, message, match=match, contains=contains, status=status)
    pytest.fail(f"expected {code}, but the call succeeded: {result!r}")


# --------------------------------------------------------------------------
# Raw HTTP
# --------------------------------------------------------------------------

def sigv4_headers(endpoint_url, target, body, content_type="application/x-amz-json-1.0"):
    """Headers of a correctly SigV4-signed DynamoDB request (dummy credentials)."""
    headers = {"Content-Type": content_type}
    if target is not None:
        headers["X-Amz-Target"] = target
    req = AWSRequest(method="POST", url=endpoint_url + "/", data=body, headers=headers)
    SigV4Auth(Credentials(ACCESS_KEY, SECRET_KEY), "dynamodb", REGION).add_auth(req)
    return dict(req.headers.items())


class RawResponse:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers  # http.client.HTTPMessage (case-insensitive get)
        self.body = body

    def json(self):
        return json.loads(self.body.decode("utf-8"))

    def header(self, name):
        return self.headers.get(name)


def raw_post(conn, endpoint_url, target, body, *, content_type="application/x-amz-json-1.0",
             sign=True, extra_headers=None, drop_headers=()):
    """POST / on an http.client connection; returns RawResponse."""
    if isinstance(body, (dict, list)):
        body = json.dumps(body)
    if isinstance(body, str):
        body = body.encode("utf-8")
    if sign:
        headers = sigv4_headers(endpoint_url, target, body, content_type)
    else:
        headers = {"Content-Type": content_type}
        if target is not None:
            headers["X-Amz-Target"] = target
    for h in drop_headers:
        for k in [k for k in headers if k.lower() == h.lower()]:
            del headers[k]
    headers.update(extra_headers or {})
    conn.request("POST", "/", body=body, headers=headers)
    resp = conn.getresponse()
    data = resp.read()
    return RawResponse(resp.status, resp.headers, data)


@pytest.fixture
def raw(server):
    """raw(target_op, body, **kw) -> RawResponse on a fresh connection."""
    conns = []

    def call(op, body, **kw):
        conn = http_connection(server)
        conns.append(conn)
        target = (TARGET_PREFIX + op) if op is not None and "." not in op else op
        return raw_post(conn, server.endpoint, target, body, **kw)

    yield call
    for c in conns:
        c.close()


# --------------------------------------------------------------------------
# AWS CLI
# --------------------------------------------------------------------------

def aws_cli_path():
    return shutil.which("aws")


def run_aws_cli(endpoint_url, *args, check=True, timeout=60, service="dynamodb"):
    """Run `aws <service> <args> --endpoint-url ... --output json`.

    Returns (CompletedProcess, parsed JSON or None; None too for output that is not JSON,
    such as `aws s3`'s).
    """
    aws = aws_cli_path()
    if aws is None:
        pytest.fail("AWS CLI ('aws') not found on PATH")
    env = dict(os.environ)
    env.update({
        "AWS_ACCESS_KEY_ID": ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
        "AWS_DEFAULT_REGION": REGION,
        "AWS_REGION": REGION,
        "AWS_PAGER": "",
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_MAX_ATTEMPTS": "1",
        # Isolate from any user configuration on the machine.
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    })
    env.pop("AWS_PROFILE", None)
    env.pop("AWS_SESSION_TOKEN", None)
    cmd = [aws, service, *args, "--endpoint-url", endpoint_url, "--output", "json"]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if check:
        assert proc.returncode == 0, (f"{' '.join(cmd)} failed (rc={proc.returncode}):\n"
                                      f"stdout: {proc.stdout}\nstderr: {proc.stderr}")
    out = proc.stdout.strip()
    parsed = None
    if proc.returncode == 0 and out:
        try:
            parsed = json.loads(out)
        except ValueError:
            if service == "dynamodb":
                raise
    return proc, parsed


@pytest.fixture
def aws_cli(endpoint):
    def call(*args, check=True):
        return run_aws_cli(endpoint, *args, check=check)
    return call


# --------------------------------------------------------------------------
# Misc
# --------------------------------------------------------------------------

UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def table_arn(name, region=REGION):
    return f"arn:aws:dynamodb:{region}:{ACCOUNT_ID}:table/{name}"


def wait_until(pred, timeout=5.0, interval=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(interval)
    return pred()


# --------------------------------------------------------------------------
# Read-path helpers (Query / Scan / Batch tests)
# --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def module_table_factory(ddb):
    """Like table_factory, but module-scoped: one data set shared by many tests."""
    created = []

    def make(hash_key=("pk", "S"), range_key=None, name=None):
        name = name or unique_name("wmod")
        ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                         **key_schema_kwargs(hash_key, range_key))
        created.append(name)
        return name

    yield make
    for n in created:
        delete_table_quietly(ddb, n)


def collect_pages(call, max_pages=10_000, **kwargs):
    """Follow LastEvaluatedKey until the end; call is ddb.query or ddb.scan.

    Returns (all items, list of page responses). A page without 'Items'
    (Select=COUNT) contributes nothing to the item list.
    """
    items, pages = [], []
    kwargs = dict(kwargs)
    for _ in range(max_pages):
        page = call(**kwargs)
        pages.append(page)
        items.extend(page.get("Items", []))
        lek = page.get("LastEvaluatedKey")
        if not lek:
            return items, pages
        kwargs["ExclusiveStartKey"] = lek
    pytest.fail(f"paging did not finish within {max_pages} pages")


# ==========================================================================
# Expression / UpdateItem helpers
# (test_condition_expression.py, test_update_expression.py,
#  test_projection_expression.py)
# ==========================================================================

COND_FAILED = "ConditionalCheckFailedException"
COND_FAILED_MSG = "The conditional request failed"

_EXPR_SER = None
_EXPR_DESER = None


def to_wire(value):
    """Python value (int/Decimal/str/bytes/set/list/dict/bool/None) -> AttributeValue."""
    global _EXPR_SER
    if _EXPR_SER is None:
        from boto3.dynamodb.types import TypeSerializer
        _EXPR_SER = TypeSerializer()
    return _EXPR_SER.serialize(value)


def wire_map(d):
    """{name: python value} -> {name: AttributeValue} (for Item / Key / ExpressionAttributeValues)."""
    return {k: to_wire(v) for k, v in d.items()}


def from_wire(item):
    """{name: AttributeValue} -> {name: python value} (numbers as Decimal, sets as set)."""
    global _EXPR_DESER
    if _EXPR_DESER is None:
        from boto3.dynamodb.types import TypeDeserializer
        _EXPR_DESER = TypeDeserializer()
    if item is None:
        return None
    return {k: _EXPR_DESER.deserialize(v) for k, v in item.items()}


@pytest.fixture(scope="module")
def expr_table(ddb):
    """One module-scoped table with hash key pk (S); tests use unique keys."""
    name = unique_name("wexpr")
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     **key_schema_kwargs(("pk", "S")))
    yield name
    delete_table_quietly(ddb, name)


@pytest.fixture(scope="module")
def expr_table_sn(ddb):
    """One module-scoped table with hash key pk (S) and range key sk (N)."""
    name = unique_name("wexpr")
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     **key_schema_kwargs(("pk", "S"), ("sk", "N")))
    yield name
    delete_table_quietly(ddb, name)


def fresh_key():
    return uuid.uuid4().hex


def get_wire_item(client, table, key):
    """ConsistentRead GetItem; the wire-form Item, or None if absent."""
    return client.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")


def expect_condition_failed(fn):
    return expect_error(fn, COND_FAILED, COND_FAILED_MSG)


# ==========================================================================
# Secondary-index helpers (test_indexes.py, test_index_restart.py)
# ==========================================================================

# Bounded wait for the GSI applier (GSI reads are eventually consistent; the
# lag is normally milliseconds). Tests poll up to this long, never sleep blindly.
GSI_TIMEOUT_S = 5.0


def gsi_def(name, hash_key, range_key=None, projection="ALL", non_key=None):
    """A GlobalSecondaryIndexes entry; hash_key/range_key are attribute names."""
    ks = [{"AttributeName": hash_key, "KeyType": "HASH"}]
    if range_key is not None:
        ks.append({"AttributeName": range_key, "KeyType": "RANGE"})
    proj = {"ProjectionType": projection}
    if non_key is not None:
        proj["NonKeyAttributes"] = list(non_key)
    return {"IndexName": name, "KeySchema": ks, "Projection": proj}


def lsi_def(name, table_hash_key, range_key, projection="ALL", non_key=None):
    """A LocalSecondaryIndexes entry (same hash key as the table)."""
    return gsi_def(name, table_hash_key, range_key, projection, non_key)


def _canon_value(v):
    """A hashable, order-independent form of one wire AttributeValue."""
    (t, x), = v.items()
    if t in ("SS", "NS"):
        return (t, tuple(sorted(x)))
    if t == "BS":
        return (t, tuple(sorted(bytes(b) for b in x)))
    if t == "B":
        return (t, bytes(x))
    if t == "L":
        return (t, tuple(_canon_value(e) for e in x))
    if t == "M":
        return (t, canon_item(x))
    return (t, x)


def canon_item(item):
    """Hashable form of a wire item (attribute order and set order ignored)."""
    return tuple(sorted((k, _canon_value(v)) for k, v in item.items()))


def canon_multiset(items):
    """Sorted list of canonical items: equal iff the two lists are equal as multisets."""
    return sorted(canon_item(i) for i in items)


def index_schema(client, table, index_name):
    """(table key names, index key names, ProjectionType, NonKeyAttributes) from DescribeTable."""
    desc = client.describe_table(TableName=table)["Table"]
    table_keys = [k["AttributeName"] for k in desc["KeySchema"]]
    for idx in desc.get("GlobalSecondaryIndexes", []) + desc.get("LocalSecondaryIndexes", []):
        if idx["IndexName"] == index_name:
            keys = [k["AttributeName"] for k in idx["KeySchema"]]
            proj = idx["Projection"]
            return table_keys, keys, proj["ProjectionType"], proj.get("NonKeyAttributes", [])
    raise AssertionError(f"index {index_name} not in DescribeTable of {table}")


def project_for_index(item, table_keys, index_keys, projection, non_key=()):
    """What an index holds for a base item under DynamoDB's projection rules,
    or None when the item lacks an index key attribute (sparse index)."""
    if any(k not in item for k in index_keys):
        return None
    if projection == "ALL":
        return dict(item)
    wanted = set(table_keys) | set(index_keys)
    if projection == "INCLUDE":
        wanted |= set(non_key)
    return {k: v for k, v in item.items() if k in wanted}


def expected_index_items(client, table, index_name):
    """The entries the index must hold, derived from a consistent Scan of the table."""
    table_keys, index_keys, projection, non_key = index_schema(client, table, index_name)
    base, _ = collect_pages(client.scan, TableName=table, ConsistentRead=True)
    out = []
    for item in base:
        p = project_for_index(item, table_keys, index_keys, projection, non_key)
        if p is not None:
            out.append(p)
    return out


def scan_index(client, table, index_name, **kw):
    items, _ = collect_pages(client.scan, TableName=table, IndexName=index_name, **kw)
    return items


def query_index(client, table, index_name, **kw):
    items, _ = collect_pages(client.query, TableName=table, IndexName=index_name, **kw)
    return items


def eventually(fetch, check, timeout=GSI_TIMEOUT_S, interval=0.02, describe="condition"):
    """Call fetch() until check(result) holds or timeout passes; returns the last result.

    Fails with the last result when the condition never held.
    """
    deadline = time.monotonic() + timeout
    while True:
        result = fetch()
        if check(result):
            return result
        if time.monotonic() >= deadline:
            pytest.fail(f"{describe} did not hold within {timeout}s; last result: {result!r}")
        time.sleep(interval)


def eventually_items(fetch, expected, timeout=GSI_TIMEOUT_S, describe="index contents"):
    """Poll fetch() (a list of wire items) until it equals expected as a multiset.

    A lagging GSI may both miss new entries and still show stale ones until the
    applier catches up, so any difference is only an error once the deadline
    has passed; the failure then lists what is missing and what is unexpected.
    """
    want = canon_multiset(expected)
    deadline = time.monotonic() + timeout
    while True:
        items = fetch()
        got = canon_multiset(items)
        if got == want:
            return items
        if time.monotonic() >= deadline:
            missing = [i for i in want if i not in got]
            extra = [i for i in got if i not in want]
            dups = len(got) - len(set(got))
            pytest.fail(f"{describe}: did not converge within {timeout}s "
                        f"(want {len(want)}, got {len(got)}, duplicates {dups})\n"
                        f"  missing: {missing!r}\n  unexpected: {extra!r}")
        time.sleep(0.02)


def assert_index_matches_table(client, table, index_name, timeout=GSI_TIMEOUT_S):
    """Eventually, a Scan of the index holds exactly what the table's items project to."""
    expected = expected_index_items(client, table, index_name)
    return eventually_items(lambda: scan_index(client, table, index_name), expected,
                            timeout=timeout, describe=f"index {index_name} of {table}")


def index_description(client, table, index_name):
    desc = client.describe_table(TableName=table)["Table"]
    for idx in desc.get("GlobalSecondaryIndexes", []) + desc.get("LocalSecondaryIndexes", []):
        if idx["IndexName"] == index_name:
            return idx
    raise AssertionError(f"index {index_name} not in DescribeTable of {table}")


def kill_server(srv):
    """SIGKILL a ServerProcess (a crash), reaping it and closing its files."""
    if srv.proc is not None and srv.proc.poll() is None:
        srv.proc.kill()
        srv.proc.wait(timeout=10)
    if srv._reader:
        srv._reader.join(timeout=5)
    srv._close_files()


# ==========================================================================
# Shared by several feature files (test_indexes.py, test_table_settings.py,
# test_batch.py, test_transactions.py); they came with the tests of the
# conformance sweep, whose bodies call them by their old names (_create, _defs,
# _index_names, _metrics), under which those files import them.
# ==========================================================================

def gsi_create_update(name, attr):
    """A GlobalSecondaryIndexUpdates Create entry: hash key attr, projection ALL."""
    return {"Create": {"IndexName": name, "KeySchema": [{"AttributeName": attr, "KeyType": "HASH"}],
                       "Projection": {"ProjectionType": "ALL"}}}


def string_attribute_definitions(*names):
    """AttributeDefinitions declaring each name as a string (S) attribute."""
    return [{"AttributeName": n, "AttributeType": "S"} for n in names]


def gsi_names(ddb, table):
    """The sorted names of a table's GSIs, from DescribeTable."""
    return sorted(g["IndexName"] for g in
                  ddb.describe_table(TableName=table)["Table"].get("GlobalSecondaryIndexes", []))


@pytest.fixture
def lsi_table(table_factory):
    """Hash key pk (S), range key sk (S), and a KEYS_ONLY LSI by_alt on alt (S)."""
    return table_factory(
        ("pk", "S"), ("sk", "S"),
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"}
                              for n in ("pk", "sk", "alt")],
        LocalSecondaryIndexes=[{"IndexName": "by_alt", "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "alt", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}}])


def item_collection_metrics(pk):
    """The ItemCollectionMetrics entry of lsi_table's item collection pk."""
    return {"ItemCollectionKey": {"pk": {"S": pk}}, "SizeEstimateRangeGB": [0.0, 1.0]}
