#!/usr/bin/python3
"""Builds ddb's image with podman and proves it a drop-in for DynamoDB Local's image.

Run by tools/container-check.sh (which installs podman, runc, debootstrap, podman-compose and
the AWS CLI). Every container publishes its port on 127.0.0.1 only and is removed at the end,
whatever happens. Prints one line per check, the figures (image size, time to first answer,
time to stop, start-up with a large store) and "N passed, M failed"; exits 1 on a failure.
"""
import argparse
import datetime
import http.client
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = "docker.io/library/debian:bookworm-slim"
COMPOSE_FILE = os.path.join(ROOT, "docs", "examples", "docker-compose.yml")

# Podman as this machine needs it: runc, no default ulimits (refused here), no systemd.
CONTAINERS_CONF = """[containers]
default_ulimits = []
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
"""


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = []
        self.figures = []

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print(f"ok    {name}" + (f" ({detail})" if detail else ""), flush=True)
        else:
            self.failed.append(name)
            print(f"FAIL  {name}" + (f": {detail}" if detail else ""), flush=True)
        return ok

    def figure(self, name, value):
        self.figures.append((name, value))
        print(f"      {name}: {value}", flush=True)


class Podman:
    """Runs podman with this script's configuration; remembers what it made, to remove it."""

    def __init__(self, workdir):
        conf = os.path.join(workdir, "containers.conf")
        with open(conf, "w") as f:
            f.write(CONTAINERS_CONF)
        self.env = dict(os.environ, CONTAINERS_CONF=conf)
        self.workdir = workdir
        self.containers = []
        self.volumes = []

    def run(self, *args, check=True, timeout=120):
        r = subprocess.run(["podman", "--runtime", "runc", *args], env=self.env,
                           capture_output=True, text=True, timeout=timeout)
        if check and r.returncode != 0:
            raise RuntimeError(f"podman {' '.join(args)} failed ({r.returncode}): "
                               f"{r.stderr.strip()[-2000:]}")
        return r

    def start(self, image, *args, port=None, inner_port=8000, options=()):
        """podman run -d; returns (container id, host port, time.time() before the run)."""
        port = port or free_port()
        before = time.time()
        r = self.run("run", "-d", "--pull=never", "-p", f"127.0.0.1:{port}:{inner_port}",
                     *options, image, *args)
        cid = r.stdout.strip().splitlines()[-1]
        self.containers.append(cid)
        return cid, port, before

    def volume(self):
        name = f"ddb-check-{os.getpid()}-{len(self.volumes)}"
        self.run("volume", "create", name)
        self.volumes.append(name)
        return name

    def inspect(self, what):
        r = self.run("inspect", what)
        return json.loads(r.stdout)[0]

    def cleanup(self):
        for cid in self.containers:
            self.run("rm", "-f", "-t", "0", cid, check=False)
        for v in self.volumes:
            self.run("volume", "rm", "-f", v, check=False)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def list_tables_once(port, timeout=1.0):
    """One unsigned ListTables; returns the status code, or None when nothing answers."""
    body = b"{}"
    request = (b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-amz-json-1.0"
               b"\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\nAuthorization: AWS4-HMAC-SHA256"
               b" Credential=check/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host,"
               b" Signature=00\r\nContent-Length: 2\r\nConnection: close\r\n\r\n" + body)
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(request)
            answer = s.recv(64)
        if not answer.startswith(b"HTTP/1.1 "):
            return None
        return int(answer[9:12])
    except OSError:
        return None


def wait_first_answer(port, limit_s=30):
    """Polls every millisecond; returns time.time() of the first answer, or None."""
    deadline = time.time() + limit_s
    while time.time() < deadline:
        if list_tables_once(port, timeout=0.5) == 200:
            return time.time()
        time.sleep(0.001)
    return None


def started_at(podman, cid):
    """The container's process start, from podman (RFC 3339 with nanoseconds)."""
    text = podman.inspect(cid)["State"]["StartedAt"]
    # "2026-12-01T18:50:00.123456789Z" or "...+00:00": keep microseconds for fromisoformat.
    date, frac = text.split(".", 1)
    digits = "".join(c for c in frac if c.isdigit())
    zone = frac[len(digits):] or "+00:00"
    zone = "+00:00" if zone == "Z" else zone
    return datetime.datetime.fromisoformat(f"{date}.{digits[:6]}{zone}").timestamp()


def aws(port, *args, key="check", region="us-east-1", service="dynamodb"):
    env = dict(os.environ, AWS_ACCESS_KEY_ID=key, AWS_SECRET_ACCESS_KEY="secret",
               AWS_DEFAULT_REGION=region, AWS_PAGER="")
    env.pop("AWS_PROFILE", None)
    r = subprocess.run(["aws", "--endpoint-url", f"http://127.0.0.1:{port}", "--output", "json",
                        service, *args], env=env, capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"aws {service} {' '.join(args)}: {r.stderr.strip()}")
    if service != "dynamodb":
        return r.stdout  # `aws s3` prints text
    return json.loads(r.stdout) if r.stdout.strip() else {}


def check_s3_import(c, port, workdir):
    """The S3 endpoint on the same port: a fixture put with `aws s3 cp`, then ImportTable."""
    fixture = os.path.join(workdir, "fixture.json")
    with open(fixture, "w") as f:
        f.write('{"Item": {"pk": {"S": "f"}, "sk": {"S": "1"}, "n": {"N": "7"}}}\n')
    try:
        aws(port, "mb", "s3://fixtures", service="s3")
        aws(port, "cp", fixture, "s3://fixtures/seed/fixture.json", service="s3")
        listing = aws(port, "ls", "--recursive", "s3://fixtures/", service="s3")
        imp = aws(port, "import-table", "--s3-bucket-source",
                  "S3Bucket=fixtures,S3KeyPrefix=seed/", "--input-format", "DYNAMODB_JSON",
                  "--table-creation-parameters",
                  "TableName=imported,KeySchema=[{AttributeName=pk,KeyType=HASH},"
                  "{AttributeName=sk,KeyType=RANGE}],AttributeDefinitions=[{AttributeName=pk,"
                  "AttributeType=S},{AttributeName=sk,AttributeType=S}],"
                  "BillingMode=PAY_PER_REQUEST")
        arn = imp["ImportTableDescription"]["ImportArn"]
        status = "IN_PROGRESS"
        for _ in range(100):
            status = aws(port, "describe-import", "--import-arn", arn)[
                "ImportTableDescription"]["ImportStatus"]
            if status != "IN_PROGRESS":
                break
            time.sleep(0.1)
        got = aws(port, "get-item", "--table-name", "imported", "--key",
                  '{"pk": {"S": "f"}, "sk": {"S": "1"}}')
        c.check("`aws s3 cp` a fixture to the same port, ImportTable it",
                "seed/fixture.json" in listing and status == "COMPLETED" and
                got.get("Item", {}).get("n") == {"N": "7"}, f"{status} {got}")
        aws(port, "delete-table", "--table-name", "imported")
    except RuntimeError as e:
        c.check("`aws s3 cp` a fixture to the same port, ImportTable it", False, str(e))


def create_table(port, name, *extra, key="check", region="us-east-1"):
    return aws(port, "create-table", "--table-name", name,
               "--attribute-definitions", "AttributeName=pk,AttributeType=S",
               "AttributeName=sk,AttributeType=S",
               "--key-schema", "AttributeName=pk,KeyType=HASH", "AttributeName=sk,KeyType=RANGE",
               "--billing-mode", "PAY_PER_REQUEST", *extra, key=key, region=region)


def table_names(port, key="check", region="us-east-1"):
    return aws(port, "list-tables", key=key, region=region)["TableNames"]


def stop(podman, cid):
    """podman stop (SIGTERM, then SIGKILL after 10 s); returns (seconds, exit code)."""
    before = time.time()
    podman.run("stop", "-t", "10", cid, timeout=60)
    took = time.time() - before
    return took, podman.inspect(cid)["State"]["ExitCode"]


def ensure_base_image(podman, workdir):
    if podman.run("image", "exists", BASE, check=False).returncode == 0:
        return
    # No registry is reachable: a debootstrapped bookworm stands in for bookworm-slim.
    target = os.path.join(workdir, "bookworm")
    print(f"      making {BASE} with debootstrap (once per machine)", flush=True)
    subprocess.run(["debootstrap", "--variant=minbase", "bookworm", target,
                    "http://deb.debian.org/debian"], check=True, capture_output=True)
    tar = subprocess.Popen(["tar", "-C", target, "-c", "."], stdout=subprocess.PIPE)
    subprocess.run(["podman", "import", "-", BASE], stdin=tar.stdout, env=podman.env, check=True,
                   capture_output=True)
    tar.wait()
    shutil.rmtree(target, ignore_errors=True)


def check_image(c, podman, image):
    info = podman.inspect(image)
    size_mb = info["Size"] / 1e6
    c.figure("image size", f"{size_mb:.1f} MB")
    c.check("image is at most 40 MB", size_mb <= 40, f"{size_mb:.1f} MB")
    config = info["Config"]
    c.check("runs as dynamodblocal (uid 1000), not root", config.get("User") == "dynamodblocal",
            str(config.get("User")))
    c.check("working directory /home/dynamodblocal",
            config.get("WorkingDir") == "/home/dynamodblocal", str(config.get("WorkingDir")))
    c.check("entrypoint ddb-server, DynamoDB Local's default command",
            config.get("Entrypoint") == ["ddb-server"] and
            config.get("Cmd") == ["-jar", "DynamoDBLocal.jar", "-inMemory"],
            f"{config.get('Entrypoint')} {config.get('Cmd')}")
    health = (info.get("Healthcheck") or config.get("Healthcheck") or {}).get("Test", [])
    c.check("HEALTHCHECK is the binary's own", health[-2:] == ["ddb-server", "--health-check"],
            str(health))
    c.check("exposes 8000, volume for ./data",
            "8000/tcp" in (config.get("ExposedPorts") or {}) and
            "/home/dynamodblocal/data" in (config.get("Volumes") or {}))


def wait_healthy(podman, cid, limit_s=15):
    deadline = time.time() + limit_s
    while time.time() < deadline:
        if podman.run("healthcheck", "run", cid, check=False).returncode == 0:
            return True
        time.sleep(0.1)
    return False


def check_drop_in_line(c, podman, image):
    """DynamoDB Local's documented line, timed, then driven with the AWS CLI and stopped."""
    cid, port, before = podman.start(image, "-jar", "DynamoDBLocal.jar", "-sharedDb", "-inMemory")
    first = wait_first_answer(port)
    if not c.check("`-jar DynamoDBLocal.jar -sharedDb -inMemory` answers", first is not None):
        print(podman.run("logs", cid, check=False).stderr)
        return
    from_run_ms = (first - before) * 1000
    from_exec_ms = (first - started_at(podman, cid)) * 1000
    c.figure("first answer after `podman run`", f"{from_run_ms:.0f} ms")
    c.figure("first answer after the container's exec (podman's StartedAt)",
             f"{from_exec_ms:.0f} ms")
    c.check("first answer within 100 ms of exec", from_exec_ms <= 100, f"{from_exec_ms:.0f} ms")
    c.check("first answer within 400 ms of `podman run`", from_run_ms <= 400, f"{from_run_ms:.0f} ms")
    c.check("health check passes", wait_healthy(podman, cid))
    c.check("health status healthy",
            podman.inspect(cid)["State"].get("Health", {}).get("Status") == "healthy")

    pid = podman.inspect(cid)["State"]["Pid"]
    with open(f"/proc/{pid}/status") as f:
        uid = next(line.split()[1] for line in f if line.startswith("Uid:"))
    c.check("server process runs as uid 1000", uid == "1000", f"uid {uid}")

    create_table(port, "check")
    aws(port, "put-item", "--table-name", "check", "--item",
        '{"pk": {"S": "a"}, "sk": {"S": "1"}, "n": {"N": "42"}}')
    aws(port, "put-item", "--table-name", "check", "--item", '{"pk": {"S": "a"}, "sk": {"S": "2"}}')
    got = aws(port, "get-item", "--table-name", "check", "--key",
              '{"pk": {"S": "a"}, "sk": {"S": "1"}}')
    c.check("AWS CLI put-item / get-item", got.get("Item", {}).get("n") == {"N": "42"}, str(got))
    q = aws(port, "query", "--table-name", "check", "--key-condition-expression", "pk = :p",
            "--expression-attribute-values", '{":p": {"S": "a"}}')
    c.check("AWS CLI query", q.get("Count") == 2, str(q.get("Count")))
    aws(port, "delete-item", "--table-name", "check", "--key", '{"pk": {"S": "a"}, "sk": {"S": "1"}}')
    got = aws(port, "get-item", "--table-name", "check", "--key",
              '{"pk": {"S": "a"}, "sk": {"S": "1"}}')
    c.check("AWS CLI delete-item", "Item" not in got)
    aws(port, "delete-table", "--table-name", "check")
    c.check("AWS CLI delete-table", table_names(port) == [])
    check_s3_import(c, port, podman.workdir)

    took, code = stop(podman, cid)
    c.figure("clean stop on SIGTERM (`podman stop`)", f"{took * 1000:.0f} ms")
    c.check("stops within 1 s with exit code 0", took <= 1.0 and code == 0,
            f"{took * 1000:.0f} ms, exit {code}")
    logs = podman.run("logs", cid)
    c.check("logs reach the container log", "listening on http://0.0.0.0:8000" in logs.stderr and
            "ddb-server stopped" in logs.stderr and "LISTENING 8000" in logs.stdout)
    ready = [line.split("ready ")[1] for line in logs.stderr.splitlines()
             if "ms after main()" in line]
    c.figure("listening after main(), inside the container (the server's own log)",
             ready[0] if ready else "?")


def refusal(podman, image, *args):
    r = podman.run("run", "--rm", "--pull=never", image, *args, check=False)
    # Podman's own complaints (no systemd for health-check timers here) come first.
    ours = [line for line in r.stderr.splitlines() if line.startswith("ddb-server:")]
    return r.returncode, ours[0] if ours else r.stderr.strip()


def check_flags(c, podman, image):
    """DynamoDB Local's flags inside the image."""
    r = podman.run("run", "--rm", "--pull=never", image, "-help", check=False)
    c.check("-help", r.returncode == 0 and "-sharedDb" in r.stdout)
    r = podman.run("run", "--rm", "--pull=never", image, "-version", check=False)
    c.check("-version", r.returncode == 0 and r.stdout.startswith("ddb-server "), r.stdout.strip())
    code, text = refusal(podman, image, "-jar", "DynamoDBLocal.jar", "-dbPath", "./data", "-inMemory")
    c.check("-dbPath with -inMemory refused with its text",
            code == 2 and text == "ddb-server: dbPath and inMemory cannot be set at the same time.",
            f"{code} {text}")
    code, text = refusal(podman, image, "-jar", "DynamoDBLocal.jar", "-optimizeDbBeforeStartup")
    c.check("-optimizeDbBeforeStartup without -dbPath refused",
            code == 2 and "must be used with dbPath" in text, f"{code} {text}")
    code, text = refusal(podman, image, "-jar", "DynamoDBLocal.jar", "-port", "0")
    c.check("-port 0 refused", code == 2 and "Invalid Port" in text, f"{code} {text}")

    # -port: another port inside, and the health check told about it.
    cid, port, _ = podman.start(image, "-jar", "DynamoDBLocal.jar", "-port", "8123", "-sharedDb",
                                "-inMemory", inner_port=8123)
    c.check("-port 8123 serves there", wait_first_answer(port, 15) is not None)
    r = podman.run("exec", cid, "ddb-server", "--health-check", "-port", "8123", check=False)
    c.check("health check with -port", r.returncode == 0, r.stderr.strip())
    r = podman.run("exec", cid, "ddb-server", "--health-check", check=False)
    c.check("health check fails where nothing listens", r.returncode == 1)
    r = podman.run("exec", cid, "ddb", "--endpoint", "http://127.0.0.1:8123", "--json", "tables",
                   check=False)
    c.check("the ddb command line is in the image", r.returncode == 0 and
            r.stdout.strip().startswith("["), f"{r.returncode} {r.stdout} {r.stderr}")
    stop(podman, cid)

    # The image's default command: in memory, one database per access key and region.
    cid, port, _ = podman.start(image)
    wait_first_answer(port, 15)
    create_table(port, "mine", key="alice")
    c.check("without -sharedDb: one database per access key and region",
            table_names(port, key="alice") == ["mine"] and table_names(port, key="bob") == [] and
            table_names(port, key="alice", region="eu-west-1") == [])
    stop(podman, cid)

    # -sharedDb -dbPath ./data on a named volume: tables outlive the container; then
    # -optimizeDbBeforeStartup on the same data.
    volume = podman.volume()
    mount = ("-v", f"{volume}:/home/dynamodblocal/data")
    cid, port, _ = podman.start(image, "-jar", "DynamoDBLocal.jar", "-sharedDb", "-dbPath",
                                "./data", options=mount)
    wait_first_answer(port, 15)
    create_table(port, "kept", key="alice")
    aws(port, "put-item", "--table-name", "kept", "--item", '{"pk": {"S": "a"}, "sk": {"S": "1"}}')
    stop(podman, cid)
    for flags in (("-sharedDb", "-dbPath", "./data"),
                  ("-sharedDb", "-dbPath", "/home/dynamodblocal/data/", "-optimizeDbBeforeStartup")):
        cid, port, _ = podman.start(image, "-jar", "DynamoDBLocal.jar", *flags, options=mount)
        answered = wait_first_answer(port, 30) is not None
        got = answered and aws(port, "get-item", "--table-name", "kept", "--key",
                               '{"pk": {"S": "a"}, "sk": {"S": "1"}}', key="bob")
        c.check(f"volume keeps tables across containers ({' '.join(flags)})",
                bool(got) and "Item" in got)
        stop(podman, cid)

    # `user: root` (as many compose files say) and a bind-mounted host directory.
    host_dir = tempfile.mkdtemp(prefix="ddb-check-data-")
    try:
        cid, port, _ = podman.start(image, "-jar", "DynamoDBLocal.jar", "-sharedDb", "-dbPath",
                                    "./data", options=("--user", "root", "-v",
                                                       f"{host_dir}:/home/dynamodblocal/data"))
        answered = wait_first_answer(port, 15) is not None
        if answered:
            create_table(port, "bound")
        c.check("`--user root` with a bind-mounted ./data", answered and
                any(os.scandir(host_dir)))
        stop(podman, cid)
    finally:
        subprocess.run(["rm", "-rf", host_dir])

    # -delayTransientStatuses: a table is CREATING 2 s, and a GSI added online CREATING 15 s
    # (DynamoDB Local holds only online index statuses).
    cid, port, _ = podman.start(image, "-jar", "DynamoDBLocal.jar", "-sharedDb", "-inMemory",
                                "-delayTransientStatuses")
    wait_first_answer(port, 15)
    created = aws(port, "create-table", "--table-name", "slow", "--billing-mode",
                  "PAY_PER_REQUEST", "--attribute-definitions", "AttributeName=pk,AttributeType=S",
                  "--key-schema", "AttributeName=pk,KeyType=HASH")
    c.check("-delayTransientStatuses shows a new table CREATING",
            created["TableDescription"]["TableStatus"] == "CREATING")
    aws(port, "wait", "table-exists", "--table-name", "slow")  # the AWS CLI's own waiter
    aws(port, "update-table", "--table-name", "slow", "--attribute-definitions",
        "AttributeName=g,AttributeType=S", "--global-secondary-index-updates",
        '[{"Create": {"IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": '
        '"HASH"}], "Projection": {"ProjectionType": "ALL"}}}]')
    time.sleep(1)
    status = aws(port, "describe-table", "--table-name", "slow")["Table"][
        "GlobalSecondaryIndexes"][0]["IndexStatus"]
    c.check("-delayTransientStatuses holds a GSI added online CREATING", status == "CREATING",
            status)
    stop(podman, cid)

    # -cors: only the listed origins get CORS answers.
    cid, port, _ = podman.start(image, "-jar", "DynamoDBLocal.jar", "-sharedDb", "-inMemory",
                                "-cors", "https://app.example")
    wait_first_answer(port, 15)

    def allowed(origin):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("OPTIONS", "/", headers={"Origin": origin,
                                              "Access-Control-Request-Method": "POST"})
        resp = conn.getresponse()
        resp.read()
        conn.close()
        return resp.getheader("Access-Control-Allow-Origin")

    c.check("-cors allow-list", allowed("https://app.example") == "https://app.example" and
            allowed("https://other.example") is None)
    stop(podman, cid)

    # ddb's own flags replace the command as well.
    cid, port, _ = podman.start(image, "--host", "0.0.0.0", "--in-memory", "--log-level", "warn")
    c.check("ddb's own flags (--host 0.0.0.0 --in-memory)", wait_first_answer(port, 15) is not None)
    stop(podman, cid)


def check_compose(c, podman, image, workdir):
    """docs/examples/docker-compose.yml, with only the image name and host port changed."""
    if not shutil.which("podman-compose"):
        c.check("docker-compose example (podman-compose)", False, "podman-compose not installed")
        return
    port = free_port()
    with open(COMPOSE_FILE) as f:
        text = f.read()
    if "image: ddb\n" not in text or '"8000:8000"' not in text:
        c.check("docker-compose example", False, "expected `image: ddb` and \"8000:8000\"")
        return
    text = text.replace("image: ddb\n", f"image: {image}\n").replace(
        '"8000:8000"', f'"127.0.0.1:{port}:8000"')
    project = os.path.join(workdir, "compose")
    os.makedirs(project)
    with open(os.path.join(project, "docker-compose.yml"), "w") as f:
        f.write(text)
    name = f"ddbcheck{os.getpid()}"
    compose = ["podman-compose", "-p", name, "-f", os.path.join(project, "docker-compose.yml")]
    try:
        r = subprocess.run([*compose, "up", "-d"], env=podman.env, capture_output=True, text=True,
                           timeout=120)
        answered = r.returncode == 0 and wait_first_answer(port, 20) is not None
        if answered:
            create_table(port, "composed")
        c.check("docker-compose example serves (podman-compose up)",
                answered and table_names(port) == ["composed"], r.stderr.strip()[-500:])
    finally:
        subprocess.run([*compose, "down", "-v"], env=podman.env, capture_output=True, timeout=120)


def check_testcontainers_node(c, podman, image, workdir):
    """docs/examples/testcontainers/ddb.test.mjs with testcontainers from npm, through podman's
    Docker-compatible API. Podman without systemd runs no health-check timers, so the checks
    are run here while the test waits, as Docker's daemon would run them."""
    if not shutil.which("npm") or not shutil.which("node"):
        print("skip  testcontainers (Node): no node/npm", flush=True)
        return
    project = os.path.join(workdir, "testcontainers")
    os.makedirs(project)
    shutil.copy(os.path.join(ROOT, "docs", "examples", "testcontainers", "ddb.test.mjs"), project)
    # testcontainers 12 needs Node >= 22 (its undici); 11 runs on this machine's Node 20.
    r = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent", "testcontainers@11",
                        "@aws-sdk/client-dynamodb"], cwd=project, capture_output=True, text=True,
                       timeout=600)
    if not c.check("npm install testcontainers", r.returncode == 0, r.stderr.strip()[-500:]):
        return
    sock = os.path.join(workdir, "podman.sock")
    service = subprocess.Popen(["podman", "--runtime", "runc", "system", "service", "--time=0",
                                f"unix://{sock}"], env=podman.env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if os.path.exists(sock):
                break
            time.sleep(0.05)
        env = dict(os.environ, DOCKER_HOST=f"unix://{sock}", TESTCONTAINERS_RYUK_DISABLED="true",
                   DDB_IMAGE=image)
        test = subprocess.Popen(["node", "--test", "ddb.test.mjs"], cwd=project, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.time() + 120
        while test.poll() is None and time.time() < deadline:
            ids = podman.run("ps", "-q", "--filter", f"ancestor={image}", check=False).stdout.split()
            for cid in ids:
                podman.run("healthcheck", "run", cid, check=False)
            time.sleep(0.2)
        if test.poll() is None:
            test.kill()
        out = test.communicate()[0]
        c.check("testcontainers (Node) example passes, waiting on the health check",
                test.returncode == 0, out.strip()[-1500:] if test.returncode else "")
    finally:
        service.terminate()
        service.wait(timeout=30)
        leftovers = podman.run("ps", "-aq", "--filter", f"ancestor={image}", check=False)
        for cid in leftovers.stdout.split():
            podman.run("rm", "-f", "-t", "0", cid, check=False)


def load(port, megabytes):
    """Writes about `megabytes` MB of 390 KB items with BatchWriteItem (boto3)."""
    import boto3
    client = boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{port}",
                          region_name="us-east-1", aws_access_key_id="check",
                          aws_secret_access_key="secret")
    client.create_table(TableName="big", BillingMode="PAY_PER_REQUEST",
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    item_bytes = 390_000
    count = megabytes * 1_000_000 // item_bytes
    for start in range(0, count, 25):
        batch = [{"PutRequest": {"Item": {"pk": {"S": f"item{i:07d}"},
                                          "blob": {"B": os.urandom(item_bytes)}}}}
                 for i in range(start, min(start + 25, count))]
        pending = {"big": batch}
        while pending:
            pending = client.batch_write_item(RequestItems=pending).get("UnprocessedItems")
    return count


def check_large_store(c, podman, image, megabytes):
    """Start-up with a large data directory after kill -9 (recovery), stop, and
    -optimizeDbBeforeStartup on it."""
    volume = podman.volume()
    mount = ("-v", f"{volume}:/home/dynamodblocal/data")
    flags = ("-jar", "DynamoDBLocal.jar", "-sharedDb", "-dbPath", "./data")
    cid, port, _ = podman.start(image, *flags, options=mount)
    wait_first_answer(port, 15)
    before = time.time()
    count = load(port, megabytes)
    c.figure(f"loaded {megabytes} MB ({count} items of 390 KB)", f"{time.time() - before:.0f} s")
    podman.run("kill", "-s", "KILL", cid)
    podman.run("wait", cid, check=False)
    mountpoint = json.loads(podman.run("volume", "inspect", volume).stdout)[0]["Mountpoint"]
    on_disk = subprocess.run(["du", "-sm", mountpoint], capture_output=True, text=True).stdout.split()[0]
    c.figure("data directory after kill -9", f"{on_disk} MB")

    before = time.time()
    podman.run("start", cid)
    first = wait_first_answer(port, 120)
    ok = first is not None
    if ok:
        c.figure("first answer after `podman start` (recovery after kill -9)",
                 f"{(first - before) * 1000:.0f} ms")
        c.figure("first answer after exec (recovery after kill -9)",
                 f"{(first - started_at(podman, cid)) * 1000:.0f} ms")
        ready = [line.split("ready ")[1] for line in podman.run("logs", cid).stderr.splitlines()
                 if "ms after main()" in line]
        c.figure("listening after main() (recovery after kill -9, the server's own log)",
                 ready[-1] if ready else "?")
        got = aws(port, "describe-table", "--table-name", "big")["Table"]
        ok = got["TableStatus"] == "ACTIVE"
        n = aws(port, "scan", "--table-name", "big", "--select", "COUNT")["Count"]
        c.check("every acknowledged item is there after kill -9", n == count, f"{n} of {count}")
    c.check(f"starts on a {on_disk} MB store after kill -9", ok)
    took, code = stop(podman, cid)
    c.figure(f"clean stop with a {on_disk} MB store", f"{took * 1000:.0f} ms")
    c.check("large store stops within 1 s with exit code 0", took <= 1.0 and code == 0,
            f"{took * 1000:.0f} ms, exit {code}")

    cid, port, before = podman.start(image, *flags, "-optimizeDbBeforeStartup", options=mount)
    first = wait_first_answer(port, 300)
    c.check("-optimizeDbBeforeStartup on the large store", first is not None)
    if first:
        c.figure("first answer with -optimizeDbBeforeStartup (compaction first)",
                 f"{(first - before) * 1000:.0f} ms")
    stop(podman, cid)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", default="localhost/ddb:check")
    parser.add_argument("--no-build", action="store_true", help="use the image as it is")
    parser.add_argument("--large-mb", type=int, default=1024,
                        help="size of the store for the start-up figures (0: skip)")
    args = parser.parse_args()

    c = Checks()
    workdir = tempfile.mkdtemp(prefix="ddb-container-check-")
    podman = Podman(workdir)
    print(f"machine: {platform.node()}, {os.cpu_count()} CPUs, "
          f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB; "
          f"{podman.run('--version').stdout.strip()}", flush=True)
    try:
        ensure_base_image(podman, workdir)
        if not args.no_build:
            before = time.time()
            r = subprocess.run(["podman", "--runtime", "runc", "build", "--format", "docker",
                                "--pull=never", "-t", args.image, ROOT], env=podman.env,
                               capture_output=True, text=True, timeout=3600)
            if not c.check("image builds from the Dockerfile", r.returncode == 0,
                           r.stderr.strip()[-3000:]):
                return 1
            c.figure("build time", f"{time.time() - before:.0f} s")
        check_image(c, podman, args.image)
        check_drop_in_line(c, podman, args.image)
        check_flags(c, podman, args.image)
        check_compose(c, podman, args.image, workdir)
        check_testcontainers_node(c, podman, args.image, workdir)
        if args.large_mb:
            check_large_store(c, podman, args.image, args.large_mb)
    except Exception as e:  # a broken step is a failure, and cleanup still runs
        c.check("container check ran to the end", False, f"{type(e).__name__}: {e}")
    finally:
        podman.cleanup()
        shutil.rmtree(workdir, ignore_errors=True)
    print("\nfigures:")
    for name, value in c.figures:
        print(f"  {name}: {value}")
    print(f"\n{c.passed} passed, {len(c.failed)} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
