"""`ddb-server --health-check`: the container HEALTHCHECK that needs nothing but the binary."""
import subprocess

import pytest

from conftest import SERVER_BIN, ServerProcess

pytestmark = pytest.mark.ddb_only("the ddb-server binary (--health-check)")


def health(*args):
    return subprocess.run([SERVER_BIN, "--health-check", *args], capture_output=True, text=True,
                          timeout=30)


def test_health_check_answers_for_a_serving_server_and_fails_without_one():
    srv = ServerProcess().start()
    try:
        assert health("--port", str(srv.port)).returncode == 0
        # DynamoDB Local's -port names the port too.
        assert health("-port", str(srv.port)).returncode == 0
    finally:
        srv.stop_and_check()
    r = health("--port", str(srv.port))
    assert r.returncode == 1
    assert r.stderr.startswith("ddb-server: health check: connect to 127.0.0.1:")


def test_health_check_refuses_a_host_that_is_not_an_address():
    r = health("--host", "db.internal", "--port", "1")
    assert r.returncode == 1 and "is not an IP address" in r.stderr
