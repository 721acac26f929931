"""Event source mappings (docs/triggers.md): the Lambda API's CreateEventSourceMapping and
friends on ddb's port, and a DynamoDB stream delivered to a small local HTTP function that
speaks the Lambda Invoke API (as `sam local start-lambda` or a Runtime Interface Emulator
does): order, batching, retries, partial batch failures, disabling, and a restart.

Sources for the service's answers: LocalStack's AWS-recorded snapshots of these operations
(tests/aws/services/lambda_/event_source_mapping/...dynamodbstreams.snapshot.json), botocore's
Lambda model, the Lambda developer guide's pages on DynamoDB streams.
"""

import http.client
import json
import threading
import time
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import boto3
import pytest
from botocore.config import Config

from conftest import (ACCESS_KEY, SECRET_KEY, ServerProcess, expect_error, run_aws_cli,
                      unique_name)

pytestmark = pytest.mark.ddb_only("ddb serves the Lambda API's event source mappings itself")

REGION = "us-east-1"


class Function:
    """A function on a free loopback port: records every event; `behaviour(event)` answers
    (status, body, headers)."""

    def __init__(self):
        self.events = []
        self.lock = threading.Lock()
        self.behaviour = lambda event: (200, "null", {})
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                event = json.loads(body)
                with outer.lock:
                    outer.events.append((self.path, event))
                status, answer, headers = outer.behaviour(event)
                data = answer.encode()
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def records(self):
        with self.lock:
            return [r for _, e in self.events for r in e["Records"]]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def function():
    f = Function()
    yield f
    f.close()


def start_server(function, *extra):
    s = ServerProcess("--lambda-endpoint", function.url, "--lambda-function",
                      f"rie={function.url}/2015-03-31/functions/function/invocations", *extra)
    s.start()
    return s


@pytest.fixture
def srv(function):
    s = start_server(function, "--in-memory")
    yield s
    s.stop()


def clients(srv):
    kw = dict(endpoint_url=srv.endpoint, region_name=REGION, aws_access_key_id=ACCESS_KEY,
              aws_secret_access_key=SECRET_KEY,
              config=Config(retries={"max_attempts": 1, "total_max_attempts": 1}))
    return boto3.client("dynamodb", **kw), boto3.client("lambda", **kw)


def table_with_stream(ddb, view="NEW_AND_OLD_IMAGES"):
    name = unique_name("esm")
    d = ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         StreamSpecification={"StreamEnabled": True, "StreamViewType": view})
    return name, d["TableDescription"]["LatestStreamArn"]


def wait_for(predicate, what, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    pytest.fail(f"timed out waiting for {what}")


def put(ddb, name, *keys):
    for k in keys:
        ddb.put_item(TableName=name, Item={"pk": {"S": k}, "v": {"N": "1"}})


def test_a_mapping_delivers_the_stream_in_order_in_the_services_shape(srv, function):
    ddb, lam = clients(srv)
    name, stream = table_with_stream(ddb)
    put(ddb, name, "before")  # TRIM_HORIZON: delivered too
    m = lam.create_event_source_mapping(FunctionName="orders", EventSourceArn=stream,
                                        StartingPosition="TRIM_HORIZON", BatchSize=2)
    assert m["ResponseMetadata"]["HTTPStatusCode"] == 202
    assert m["State"] == "Creating"
    assert m["FunctionArn"] == f"arn:aws:lambda:{REGION}:000000000000:function:orders"
    assert (m["BatchSize"], m["MaximumRetryAttempts"], m["MaximumRecordAgeInSeconds"],
            m["StartingPosition"]) == (2, -1, -1, "TRIM_HORIZON")
    assert m["LastProcessingResult"] == "No records processed"
    put(ddb, name, "a", "b", "c")
    ddb.delete_item(TableName=name, Key={"pk": {"S": "a"}})
    wait_for(lambda: len(function.records()) == 5, "five records")
    records = function.records()
    assert [(r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"]) for r in records] == [
        ("INSERT", "before"), ("INSERT", "a"), ("INSERT", "b"), ("INSERT", "c"),
        ("REMOVE", "a")]
    r = records[1]
    assert r["eventSource"] == "aws:dynamodb" and r["eventVersion"] == "1.1"
    assert r["eventSourceARN"] == stream and r["awsRegion"] == REGION
    assert r["dynamodb"]["NewImage"] == {"pk": {"S": "a"}, "v": {"N": "1"}}
    assert r["dynamodb"]["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    # Batches of at most BatchSize, through the Invoke API's path of the function.
    assert all(len(e["Records"]) <= 2 for _, e in function.events)
    assert {p for p, _ in function.events} == {"/2015-03-31/functions/orders/invocations"}
    # The function has the records a moment before their checkpoint is taken.
    wait_for(lambda: lam.get_event_source_mapping(UUID=m["UUID"])["LastProcessingResult"] == "OK",
             "the checkpoint")
    assert lam.get_event_source_mapping(UUID=m["UUID"])["State"] == "Enabled"


def test_a_failing_function_is_retried_then_its_batch_given_up(srv, function):
    ddb, lam = clients(srv)
    name, stream = table_with_stream(ddb)
    calls = {"n": 0}

    def flaky(event):
        calls["n"] += 1
        if calls["n"] <= 2:  # an Invoke API function error, then a Runtime Interface
            return (200, '{"errorMessage":"boom","errorType":"Error"}',  # Emulator's
                    {"X-Amz-Function-Error": "Unhandled"} if calls["n"] == 1 else {})
        return 200, "null", {}
    function.behaviour = flaky
    lam.create_event_source_mapping(FunctionName="rie", EventSourceArn=stream,
                                    StartingPosition="LATEST")
    time.sleep(0.3)  # LATEST: the mapping starts reading first
    put(ddb, name, "x")
    wait_for(lambda: calls["n"] == 3, "two retries")
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in function.records()] == ["x", "x", "x"]
    assert {p for p, _ in function.events} == {"/2015-03-31/functions/function/invocations"}

    # Out of retries: the batch is given up and the shard goes on.
    other, stream2 = table_with_stream(ddb)
    function.events.clear()
    function.behaviour = lambda event: (500, "{}", {}) if any(
        r["dynamodb"]["Keys"]["pk"]["S"] == "bad" for r in event["Records"]) else (200, "{}", {})
    m = lam.create_event_source_mapping(FunctionName="rie", EventSourceArn=stream2,
                                        StartingPosition="TRIM_HORIZON", BatchSize=1,
                                        MaximumRetryAttempts=1)
    put(ddb, other, "bad", "good")
    wait_for(lambda: [r["dynamodb"]["Keys"]["pk"]["S"] for r in function.records()] ==
             ["bad", "bad", "good"], "the bad record twice, then the good one")
    wait_for(lambda: lam.get_event_source_mapping(UUID=m["UUID"])["LastProcessingResult"] == "OK",
             "the good record's checkpoint")


def test_report_batch_item_failures_resumes_at_the_first_failed_record(srv, function):
    ddb, lam = clients(srv)
    name, stream = table_with_stream(ddb)
    failed_once = set()

    def partial(event):
        keys = [r["dynamodb"]["Keys"]["pk"]["S"] for r in event["Records"]]
        if "k2" in keys and "k2" not in failed_once:
            failed_once.add("k2")
            seq = event["Records"][keys.index("k2")]["dynamodb"]["SequenceNumber"]
            return 200, json.dumps({"batchItemFailures": [{"itemIdentifier": seq}]}), {}
        return 200, json.dumps({"batchItemFailures": []}), {}
    function.behaviour = partial
    put(ddb, name, "k1", "k2", "k3")
    lam.create_event_source_mapping(FunctionName="rie", EventSourceArn=stream,
                                    StartingPosition="TRIM_HORIZON", BatchSize=10,
                                    FunctionResponseTypes=["ReportBatchItemFailures"])
    wait_for(lambda: len(function.events) == 2, "the batch and its retry")
    batches = [[r["dynamodb"]["Keys"]["pk"]["S"] for r in e["Records"]] for _, e in function.events]
    assert batches == [["k1", "k2", "k3"], ["k2", "k3"]]


def test_the_mapping_operations_and_their_refusals(srv, function):
    ddb, lam = clients(srv)
    name, stream = table_with_stream(ddb)
    m = lam.create_event_source_mapping(FunctionName="fn", EventSourceArn=stream,
                                        StartingPosition="LATEST")
    uuid = m["UUID"]
    expect_error(lambda: lam.create_event_source_mapping(
        FunctionName="fn", EventSourceArn=stream, StartingPosition="LATEST"),
        "ResourceConflictException", status=409,
        contains=f"provided mapping already exists. Please update or delete the existing "
                 f"mapping with UUID {uuid}")
    listed = lam.list_event_source_mappings(EventSourceArn=stream)["EventSourceMappings"]
    assert [x["UUID"] for x in listed] == [uuid]
    assert lam.list_event_source_mappings(FunctionName="other")["EventSourceMappings"] == []
    u = lam.update_event_source_mapping(UUID=uuid, Enabled=False, BatchSize=7)
    assert (u["State"], u["BatchSize"]) == ("Disabling", 7)
    assert lam.get_event_source_mapping(UUID=uuid)["State"] == "Disabled"
    # Disabled: nothing is delivered.
    put(ddb, name, "quiet")
    time.sleep(0.3)
    assert function.records() == []
    lam.update_event_source_mapping(UUID=uuid, Enabled=True)
    wait_for(lambda: [r["dynamodb"]["Keys"]["pk"]["S"] for r in function.records()] == ["quiet"],
             "the record written while disabled")
    d = lam.delete_event_source_mapping(UUID=uuid)
    assert d["State"] == "Deleting"
    expect_error(lambda: lam.get_event_source_mapping(UUID=uuid), "ResourceNotFoundException",
                 status=404)
    _, out = run_aws_cli(srv.endpoint, "list-event-source-mappings", service="lambda")
    assert out == {"EventSourceMappings": []}


def test_mappings_and_their_checkpoints_survive_a_restart(function, tmp_path):
    s = start_server(function, "--data-dir", str(tmp_path))
    try:
        ddb, lam = clients(s)
        name, stream = table_with_stream(ddb)
        m = lam.create_event_source_mapping(FunctionName="fn", EventSourceArn=stream,
                                            StartingPosition="TRIM_HORIZON")
        put(ddb, name, "one", "two")
        wait_for(lambda: len(function.records()) == 2, "the first records")
        # Stopped only once the checkpoint is kept: before, a restart delivers them again
        # (at least once, as the service).
        wait_for(lambda: lam.get_event_source_mapping(UUID=m["UUID"])["LastProcessingResult"]
                 == "OK", "the checkpoint")
        time.sleep(0.3)  # a second batch's checkpoint follows its invocation within it
    finally:
        s.stop()
    s = start_server(function, "--data-dir", str(tmp_path))
    try:
        ddb, lam = clients(s)
        assert [m["State"] for m in lam.list_event_source_mappings()["EventSourceMappings"]] == [
            "Enabled"]
        put(ddb, name, "three")
        wait_for(lambda: len(function.records()) >= 3, "the record after the restart")
        time.sleep(0.2)
        assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in function.records()] == [
            "one", "two", "three"]
    finally:
        s.stop()


def test_filter_criteria_let_through_only_the_matching_records(srv, function):
    ddb, lam = clients(srv)
    name, stream = table_with_stream(ddb)
    lam.create_event_source_mapping(
        FunctionName="fn", EventSourceArn=stream, StartingPosition="TRIM_HORIZON",
        FilterCriteria={"Filters": [
            {"Pattern": json.dumps({"eventName": ["INSERT"], "dynamodb": {
                "NewImage": {"pk": {"S": [{"prefix": "keep"}]}}}})},
            {"Pattern": json.dumps({"eventName": ["REMOVE"]})}]})
    put(ddb, name, "keep-1", "drop-1", "keep-2")
    ddb.put_item(TableName=name, Item={"pk": {"S": "keep-1"}, "v": {"N": "2"}})  # MODIFY
    ddb.delete_item(TableName=name, Key={"pk": {"S": "drop-1"}})
    wait_for(lambda: len(function.records()) == 3, "the three matching records")
    time.sleep(0.2)
    assert [(r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"]) for r in function.records()] == [
        ("INSERT", "keep-1"), ("INSERT", "keep-2"), ("REMOVE", "drop-1")]
    expect_error(lambda: lam.create_event_source_mapping(
        FunctionName="other", EventSourceArn=stream, StartingPosition="LATEST",
        FilterCriteria={"Filters": [{"Pattern": json.dumps({"eventName": [{"nope": 1}]})}]}),
        "InvalidParameterValueException", "Invalid filter pattern definition.")


def test_bisect_on_function_error_isolates_the_bad_record(srv, function):
    ddb, lam = clients(srv)
    name, stream = table_with_stream(ddb)
    put(ddb, name, "a", "b", "bad", "c")
    function.behaviour = lambda event: (200, '{"errorMessage":"bad","errorType":"Error"}',
                                        {"X-Amz-Function-Error": "Unhandled"}) if any(
        r["dynamodb"]["Keys"]["pk"]["S"] == "bad" for r in event["Records"]) else (200, "{}", {})
    lam.create_event_source_mapping(FunctionName="fn", EventSourceArn=stream,
                                    StartingPosition="TRIM_HORIZON", BatchSize=4,
                                    BisectBatchOnFunctionError=True, MaximumRetryAttempts=0)
    wait_for(lambda: len(function.events) == 5, "five invocations")
    time.sleep(0.2)
    batches = [[r["dynamodb"]["Keys"]["pk"]["S"] for r in e["Records"]] for _, e in function.events]
    # Halved without counting a retry; the lone bad record then runs out of retries.
    assert batches == [["a", "b", "bad", "c"], ["a", "b"], ["bad", "c"], ["bad"], ["c"]]


def test_a_batch_given_up_is_recorded_for_the_on_failure_destination(function, tmp_path):
    failures = tmp_path / "failures"
    s = start_server(function, "--in-memory", "--lambda-failure-dir", str(failures))
    try:
        ddb, lam = clients(s)
        name, stream = table_with_stream(ddb)
        function.behaviour = lambda event: (200, '{"errorMessage":"no","errorType":"Error"}',
                                            {"X-Amz-Function-Error": "Unhandled"})
        queue = "arn:aws:sqs:us-east-1:000000000000:dlq"
        m = lam.create_event_source_mapping(
            FunctionName="fn", EventSourceArn=stream, StartingPosition="TRIM_HORIZON",
            MaximumRetryAttempts=1, DestinationConfig={"OnFailure": {"Destination": queue}})
        assert m["DestinationConfig"] == {"OnFailure": {"Destination": queue}}
        put(ddb, name, "lost")
        wait_for(lambda: any(failures.rglob("*.json")), "the failure record")
        (record_file,) = list(failures.rglob("*.json"))
        assert record_file.parent.name == "dlq"
        record = json.loads(record_file.read_text())
        assert record["requestContext"]["condition"] == "RetryAttemptsExhausted"
        assert record["requestContext"]["approximateInvokeCount"] == 2
        assert record["requestContext"]["functionArn"].endswith(":function:fn")
        assert record["responseContext"] == {"statusCode": 200, "executedVersion": "$LATEST",
                                              "functionError": "Unhandled"}
        info = record["DDBStreamBatchInfo"]
        assert (info["batchSize"], info["streamArn"]) == (1, stream)
        assert info["startSequenceNumber"] == info["endSequenceNumber"]
        assert info["approximateArrivalOfFirstRecord"].endswith("Z")
    finally:
        s.stop()


def test_an_on_failure_destination_needs_somewhere_to_keep_its_records(srv):
    ddb, lam = clients(srv)
    _, stream = table_with_stream(ddb)
    expect_error(lambda: lam.create_event_source_mapping(
        FunctionName="fn", EventSourceArn=stream, StartingPosition="LATEST",
        DestinationConfig={"OnFailure": {"Destination": "arn:aws:sqs:us-east-1:000000000000:q"}}),
        "InvalidParameterValueException", contains="--lambda-failure-dir")


def test_batches_stay_within_the_invocation_payload_and_names_are_checked(srv, function):
    ddb, lam = clients(srv)
    name, stream = table_with_stream(ddb)
    big = "x" * 350_000
    for i in range(15):  # about 10 MB of new and old images together
        ddb.put_item(TableName=name, Item={"pk": {"S": f"big{i}"}, "blob": {"S": big}})
    lam.create_event_source_mapping(FunctionName="fn", EventSourceArn=stream,
                                    StartingPosition="TRIM_HORIZON", BatchSize=100)
    wait_for(lambda: len(function.records()) == 15, "the fifteen records")
    sizes = [len(json.dumps(e)) for _, e in function.events]
    assert len(sizes) > 1 and max(sizes) < 6 * 1024 * 1024
    expect_error(lambda: lam.create_event_source_mapping(
        FunctionName="bad/name", EventSourceArn=stream, StartingPosition="LATEST"),
        "InvalidParameterValueException", contains="Invalid function name")


def test_tumbling_windows_carry_state_and_close_with_a_final_invocation(srv, function):
    """TumblingWindowInSeconds: each invocation gets the state the last one answered in its
    window; once the window's end has passed, a final invocation closes it."""
    ddb, lam = clients(srv)
    name, stream = table_with_stream(ddb)

    def count(event):
        n = event["state"].get("n", 0) + len(event["Records"])
        return 200, json.dumps({"state": {"n": n}, "batchItemFailures": []}), {}
    function.behaviour = count
    lam.create_event_source_mapping(FunctionName="win", EventSourceArn=stream,
                                    StartingPosition="TRIM_HORIZON", BatchSize=2,
                                    TumblingWindowInSeconds=1)
    put(ddb, name, *[f"k{i}" for i in range(7)])

    def finals():
        with function.lock:
            return [e for _, e in function.events if e["isFinalInvokeForWindow"]]
    wait_for(lambda: sum(e["state"]["n"] for e in finals()) == 7, "the windows' final counts")
    with function.lock:
        events = [e for _, e in function.events]
    for e in events:
        start = datetime.fromisoformat(e["window"]["start"].replace("Z", "+00:00"))
        end = datetime.fromisoformat(e["window"]["end"].replace("Z", "+00:00"))
        assert (end - start).total_seconds() == 1
        assert e["shardId"].startswith("shardId-") and e["eventSourceARN"] == stream
        assert e["isWindowTerminatedEarly"] is False and len(e["Records"]) <= 2
    assert all(e["Records"] == [] for e in finals())
    # Every record once, in order.
    keys = [r["dynamodb"]["Keys"]["pk"]["S"] for e in events for r in e["Records"]]
    assert keys == [f"k{i}" for i in range(7)]


def test_a_window_answer_without_state_is_a_failure(srv, function):
    ddb, lam = clients(srv)
    name, stream = table_with_stream(ddb)
    calls = {"n": 0}

    def flaky(event):
        calls["n"] += 1
        if calls["n"] == 1:
            return 200, "{}", {}  # no state: retried
        return 200, json.dumps({"state": {"seen": len(event["Records"])}}), {}
    function.behaviour = flaky
    m = lam.create_event_source_mapping(FunctionName="win2", EventSourceArn=stream,
                                        StartingPosition="TRIM_HORIZON",
                                        TumblingWindowInSeconds=1)
    put(ddb, name, "only")
    wait_for(lambda: any(e["isFinalInvokeForWindow"] for _, e in list(function.events)),
             "the final invocation")
    with function.lock:
        first, second = function.events[0][1], function.events[1][1]
    assert first["Records"] == second["Records"] and len(first["Records"]) == 1
    assert second["state"] == {}  # the failed answer's (missing) state was not kept
    assert lam.get_event_source_mapping(UUID=m["UUID"])["TumblingWindowInSeconds"] == 1


def test_parallelization_factor_runs_batches_concurrently_in_order_per_key(srv, function):
    ddb, lam = clients(srv)
    name, stream = table_with_stream(ddb)
    state = {"inflight": 0, "most": 0}
    gate = threading.Lock()

    def slow(event):
        with gate:
            state["inflight"] += 1
            state["most"] = max(state["most"], state["inflight"])
        time.sleep(0.1)
        with gate:
            state["inflight"] -= 1
        return 200, "null", {}
    function.behaviour = slow
    for k in range(8):  # written before the mapping: one read, split over the lanes
        for n in range(5):
            ddb.put_item(TableName=name, Item={"pk": {"S": f"key{k}"}, "n": {"N": str(n)}})
    m = lam.create_event_source_mapping(FunctionName="par", EventSourceArn=stream,
                                        StartingPosition="TRIM_HORIZON", BatchSize=2,
                                        ParallelizationFactor=4)
    assert m["ParallelizationFactor"] == 4
    wait_for(lambda: len(function.records()) == 40, "every record", timeout=30)
    wait_for(lambda: lam.get_event_source_mapping(UUID=m["UUID"])["LastProcessingResult"] == "OK",
             "a checkpoint", timeout=30)
    assert state["most"] >= 2  # lanes ran side by side
    by_key = {}
    for r in function.records():
        by_key.setdefault(r["dynamodb"]["Keys"]["pk"]["S"], []).append(
            int(r["dynamodb"]["NewImage"]["n"]["N"]))
    assert all(v == sorted(v) for v in by_key.values())


def test_metrics_and_the_console_count_invocations_errors_and_retries(srv, function):
    ddb, lam = clients(srv)
    name, stream = table_with_stream(ddb)
    calls = {"n": 0}

    def fails_twice(event):
        calls["n"] += 1
        if calls["n"] <= 2:
            return 200, '{"errorMessage":"no"}', {"X-Amz-Function-Error": "Unhandled"}
        return 200, "null", {}
    function.behaviour = fails_twice
    m = lam.create_event_source_mapping(FunctionName="counted", EventSourceArn=stream,
                                        StartingPosition="TRIM_HORIZON")
    put(ddb, name, "x")
    wait_for(lambda: calls["n"] >= 3, "the third invocation")
    wait_for(lambda: lam.get_event_source_mapping(UUID=m["UUID"])["LastProcessingResult"] == "OK",
             "the checkpoint")
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
    conn.request("GET", "/console/api/triggers")
    (entry,) = [e for e in json.loads(conn.getresponse().read())["mappings"]
                if e["uuid"] == m["UUID"]]
    assert (entry["function"], entry["invocations"], entry["errors"], entry["retries"]) == (
        "counted", 3, 2, 2)
    assert entry["state"] == "Enabled" and entry["lastProcessingResult"] == "OK"
    conn.request("GET", "/metrics")
    metrics = conn.getresponse().read().decode()
    conn.close()
    labels = f'{{uuid="{m["UUID"]}",function="counted"}}'
    assert f"ddb_event_source_mapping_retries_total{labels} 2" in metrics
    assert f"ddb_event_source_mapping_errors_total{labels} 2" in metrics
