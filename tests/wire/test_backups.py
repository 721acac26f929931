"""On-demand backups and point-in-time recovery: CreateBackup, DescribeBackup, ListBackups,
DeleteBackup, RestoreTableFromBackup, RestoreTableToPointInTime, and the restorable window of
DescribeContinuousBackups.

Shapes follow the API reference (BackupDetails, BackupDescription, SourceTableDetails,
SourceTableFeatureDetails, BackupSummary, RestoreSummary); error types and texts follow the
service where the public record has them (moto's suite, checked against AWS: "Backup not found:
<arn>", "Table already exists: <name>", "Table not found: <name>"); other texts are guesses
and the tests pin only their types.
"""

import datetime
import re
import time

import pytest
from botocore.exceptions import ClientError

from conftest import ServerProcess, make_client, unique_name

BACKUP_ARN_RE = re.compile(
    r"^arn:aws:dynamodb:us-east-1:000000000000:table/(?P<table>[A-Za-z0-9_.-]+)"
    r"/backup/(?P<ms>\d{14})-(?P<hex>[0-9a-f]{8})$")


def _error(excinfo):
    return excinfo.value.response["Error"]["Code"], excinfo.value.response["Error"]["Message"]


def _next_second():
    """Sleeps past the next whole second and returns it (boto3 sends timestamps in whole
    seconds)."""
    t = int(time.time()) + 1
    time.sleep(t - time.time() + 0.05)
    return t


def _wait_active(c, name, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        t = c.describe_table(TableName=name)["Table"]
        if t["TableStatus"] == "ACTIVE":
            return t
        time.sleep(0.05)
    raise AssertionError(f"{name} not ACTIVE after {timeout}s")


def _scan_all(c, name, **kw):
    items, start = [], None
    while True:
        args = dict(TableName=name, **kw)
        if start:
            args["ExclusiveStartKey"] = start
        page = c.scan(**args)
        items += page["Items"]
        start = page.get("LastEvaluatedKey")
        if not start:
            return items


def _key_of(item):
    return (item["pk"]["S"], item["sk"]["N"])


def _canon(items):
    def setless(v):
        if isinstance(v, dict):
            return {k: (sorted(x) if k in ("SS", "NS", "BS") else setless(x)) for k, x in v.items()}
        if isinstance(v, list):
            return [setless(x) for x in v]
        return v
    return sorted((repr(sorted(setless(i).items())) for i in items))


def _create_indexed_table(c, name):
    c.create_table(
        TableName=name,
        BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 6},
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "N"},
                              {"AttributeName": "g", "AttributeType": "S"},
                              {"AttributeName": "l", "AttributeType": "N"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        LocalSecondaryIndexes=[{
            "IndexName": "byl",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "l", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}}],
        GlobalSecondaryIndexes=[{
            "IndexName": "byg",
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["v"]},
            "ProvisionedThroughput": {"ReadCapacityUnits": 2, "WriteCapacityUnits": 3}}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})


def _fill(c, name, n=60):
    for i in range(n):
        item = {"pk": {"S": f"p{i % 7}"}, "sk": {"N": str(i)}, "v": {"S": f"v{i}"},
                "m": {"M": {"a": {"L": [{"N": str(i)}, {"SS": ["x", "y"]}]}}}}
        if i % 2 == 0:
            item["g"] = {"S": f"g{i % 3}"}
        if i % 3 == 0:
            item["l"] = {"N": str(100 - i)}
        c.put_item(TableName=name, Item=item)


def _compare_tables(c, source, target):
    """Every item, and every index (queried), of `target` equals `source`."""
    assert _canon(_scan_all(c, source, ConsistentRead=True)) == \
        _canon(_scan_all(c, target, ConsistentRead=True))
    for part in (f"p{i}" for i in range(7)):
        for index in ("byl", None):
            kw = dict(KeyConditionExpression="pk = :p",
                      ExpressionAttributeValues={":p": {"S": part}})
            if index:
                kw["IndexName"] = index
            a = c.query(TableName=source, **kw)["Items"]
            b = c.query(TableName=target, **kw)["Items"]
            assert a == b, (index, part)
    for g in ("g0", "g1", "g2"):
        kw = dict(IndexName="byg", KeyConditionExpression="g = :g",
                  ExpressionAttributeValues={":g": {"S": g}})
        assert c.query(TableName=source, **kw)["Items"] == c.query(TableName=target, **kw)["Items"]
    s = c.describe_table(TableName=source)["Table"]
    t = c.describe_table(TableName=target)["Table"]
    assert s["ItemCount"] == t["ItemCount"]
    assert s["TableSizeBytes"] == t["TableSizeBytes"]
    for kind in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes"):
        counts = {i["IndexName"]: (i["ItemCount"], i["IndexSizeBytes"]) for i in s[kind]}
        assert counts == {i["IndexName"]: (i["ItemCount"], i["IndexSizeBytes"]) for i in t[kind]}


@pytest.fixture
def names(ddb):
    made = []

    def make(prefix="bk"):
        n = unique_name(prefix)
        made.append(n)
        return n
    yield make
    for n in made:
        try:
            ddb.delete_table(TableName=n)
        except ClientError:
            pass


# --------------------------------------------------------------------------
# CreateBackup / DescribeBackup / ListBackups / DeleteBackup
# --------------------------------------------------------------------------

def test_create_describe_list_delete(ddb, names):
    src = names()
    _create_indexed_table(ddb, src)
    _fill(ddb, src, 10)
    ddb.update_time_to_live(TableName=src, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "exp"})
    before = time.time()
    created = ddb.create_backup(TableName=src, BackupName="first.backup-1")["BackupDetails"]
    m = BACKUP_ARN_RE.match(created["BackupArn"])
    assert m and m["table"] == src
    assert created["BackupName"] == "first.backup-1"
    assert created["BackupStatus"] in ("CREATING", "AVAILABLE")
    assert created["BackupType"] == "USER"
    assert created["BackupSizeBytes"] > 0
    ts = created["BackupCreationDateTime"].timestamp()
    assert before - 1 <= ts <= time.time() + 1
    assert abs(int(m["ms"]) / 1000 - ts) < 0.002

    desc = ddb.describe_backup(BackupArn=created["BackupArn"])["BackupDescription"]
    assert desc["BackupDetails"]["BackupStatus"] == "AVAILABLE"
    assert desc["BackupDetails"]["BackupArn"] == created["BackupArn"]
    table = ddb.describe_table(TableName=src)["Table"]
    details = desc["SourceTableDetails"]
    assert details["TableName"] == src
    assert details["TableId"] == table["TableId"]
    assert details["TableArn"] == table["TableArn"]
    assert details["KeySchema"] == table["KeySchema"]
    assert details["ItemCount"] == 10
    assert details["TableSizeBytes"] == table["TableSizeBytes"]
    assert details["ProvisionedThroughput"] == {"ReadCapacityUnits": 5, "WriteCapacityUnits": 6}
    assert details["BillingMode"] == "PROVISIONED"
    assert details["TableCreationDateTime"] == table["CreationDateTime"]
    features = desc["SourceTableFeatureDetails"]
    assert [i["IndexName"] for i in features["LocalSecondaryIndexes"]] == ["byl"]
    assert features["LocalSecondaryIndexes"][0]["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    gsi = features["GlobalSecondaryIndexes"][0]
    assert gsi["IndexName"] == "byg"
    assert gsi["Projection"] == {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["v"]}
    assert gsi["ProvisionedThroughput"] == {"ReadCapacityUnits": 2, "WriteCapacityUnits": 3}
    assert features["StreamDescription"] == {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
    assert features["TimeToLiveDescription"] == {"TimeToLiveStatus": "ENABLED",
                                                 "AttributeName": "exp"}

    second = ddb.create_backup(TableName=src, BackupName="second")["BackupDetails"]
    listed = ddb.list_backups(TableName=src)["BackupSummaries"]
    assert [b["BackupArn"] for b in listed] == [created["BackupArn"], second["BackupArn"]]
    s = listed[0]
    assert s["TableName"] == src and s["TableId"] == table["TableId"]
    assert s["TableArn"] == table["TableArn"]
    assert s["BackupName"] == "first.backup-1" and s["BackupStatus"] == "AVAILABLE"
    assert s["BackupType"] == "USER" and s["BackupSizeBytes"] == created["BackupSizeBytes"]

    deleted = ddb.delete_backup(BackupArn=created["BackupArn"])["BackupDescription"]
    assert deleted["BackupDetails"]["BackupStatus"] == "DELETED"
    assert deleted["SourceTableDetails"]["TableName"] == src
    with pytest.raises(ClientError) as e:
        ddb.describe_backup(BackupArn=created["BackupArn"])
    assert _error(e) == ("BackupNotFoundException", f"Backup not found: {created['BackupArn']}")
    with pytest.raises(ClientError) as e:
        ddb.delete_backup(BackupArn=created["BackupArn"])
    assert _error(e)[0] == "BackupNotFoundException"
    assert [b["BackupArn"] for b in ddb.list_backups(TableName=src)["BackupSummaries"]] == \
        [second["BackupArn"]]
    ddb.delete_backup(BackupArn=second["BackupArn"])


def test_create_backup_errors(ddb, names):
    missing = names()
    with pytest.raises(ClientError) as e:
        ddb.create_backup(TableName=missing, BackupName="b1b")
    assert _error(e) == ("TableNotFoundException", f"Table not found: {missing}")
    with pytest.raises(ClientError) as e:
        ddb.create_backup(TableName="x", BackupName="b")
    code, msg = _error(e)
    assert code == "ValidationException"
    assert msg.startswith("2 validation errors detected: ")
    assert "at 'tableName' failed to satisfy constraint: Member must have length greater than" \
           " or equal to 3" in msg
    assert "at 'backupName' failed to satisfy constraint: Member must have length greater " \
           "than or equal to 3" in msg
    src = names()
    ddb.create_table(TableName=src, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    with pytest.raises(ClientError) as e:
        ddb.create_backup(TableName=src, BackupName="bad name!")
    code, msg = _error(e)
    assert code == "ValidationException"
    assert "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+" in msg


def test_describe_and_delete_errors(ddb):
    with pytest.raises(ClientError) as e:
        ddb.describe_backup(BackupArn="short")
    code, msg = _error(e)
    assert code == "ValidationException"
    assert "at 'backupArn' failed to satisfy constraint: Member must have length greater " \
           "than or equal to 37" in msg
    arn = "arn:aws:dynamodb:us-east-1:000000000000:table/nope/backup/01700000000000-abcdef01"
    for op in (ddb.describe_backup, ddb.delete_backup):
        with pytest.raises(ClientError) as e:
            op(BackupArn=arn)
        assert _error(e) == ("BackupNotFoundException", f"Backup not found: {arn}")


def test_list_backups_filters_and_paging(ddb, names):
    a, b = names(), names()
    for t in (a, b):
        ddb.create_table(TableName=t, BillingMode="PAY_PER_REQUEST",
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    arns = []
    for i in range(5):
        if i in (2, 4):
            _next_second()
        arns.append(ddb.create_backup(TableName=a, BackupName=f"a{i:02}")["BackupDetails"])
    other = ddb.create_backup(TableName=b, BackupName="b00")["BackupDetails"]
    mine = [x["BackupArn"] for x in ddb.list_backups(TableName=a)["BackupSummaries"]]
    assert mine == [x["BackupArn"] for x in arns]
    everything = [x["BackupArn"] for x in ddb.list_backups()["BackupSummaries"]]
    assert set(mine) | {other["BackupArn"]} <= set(everything)
    # Paging by Limit and ExclusiveStartBackupArn.
    seen, start = [], None
    while True:
        kw = {"TableName": a, "Limit": 2}
        if start:
            kw["ExclusiveStartBackupArn"] = start
        page = ddb.list_backups(**kw)
        assert len(page["BackupSummaries"]) <= 2
        seen += [x["BackupArn"] for x in page["BackupSummaries"]]
        start = page.get("LastEvaluatedBackupArn")
        if not start:
            break
    assert seen == mine
    # Time range: lower inclusive, upper exclusive (whole seconds, as boto3 sends them).
    lo = int(arns[2]["BackupCreationDateTime"].timestamp())
    hi = int(arns[4]["BackupCreationDateTime"].timestamp())
    ranged = ddb.list_backups(TableName=a, TimeRangeLowerBound=lo,
                              TimeRangeUpperBound=hi)["BackupSummaries"]
    assert [x["BackupArn"] for x in ranged] == [arns[2]["BackupArn"], arns[3]["BackupArn"]]
    # Types: USER by default; SYSTEM lists none of these; ALL all.
    assert ddb.list_backups(TableName=a, BackupType="SYSTEM")["BackupSummaries"] == []
    assert len(ddb.list_backups(TableName=a, BackupType="ALL")["BackupSummaries"]) == 5
    for bad in ({"Limit": 0}, {"Limit": 101}):
        with pytest.raises(ClientError) as e:
            ddb.list_backups(**bad)
        code, msg = _error(e)
        assert code == "ValidationException" and "at 'limit' failed to satisfy" in msg
    with pytest.raises(ClientError) as e:
        ddb.list_backups(BackupType="NOPE")
    code, msg = _error(e)
    assert code == "ValidationException"
    assert "Member must satisfy enum value set: [USER, SYSTEM, AWS_BACKUP, ALL]" in msg
    for x in arns + [other]:
        ddb.delete_backup(BackupArn=x["BackupArn"])


# --------------------------------------------------------------------------
# RestoreTableFromBackup
# --------------------------------------------------------------------------

def test_restore_round_trip_items_and_indexes(ddb, names):
    src, dst = names(), names()
    _create_indexed_table(ddb, src)
    _fill(ddb, src)
    backup = ddb.create_backup(TableName=src, BackupName="rtrip")["BackupDetails"]
    # Changes after the backup are not in it.
    ddb.put_item(TableName=src, Item={"pk": {"S": "p1"}, "sk": {"N": "1000"}, "g": {"S": "g1"}})
    ddb.delete_item(TableName=src, Key={"pk": {"S": "p0"}, "sk": {"N": "0"}})
    ddb.update_item(TableName=src, Key={"pk": {"S": "p2"}, "sk": {"N": "2"}},
                    UpdateExpression="SET v = :v, g = :g",
                    ExpressionAttributeValues={":v": {"S": "changed"}, ":g": {"S": "g9"}})
    restored = ddb.restore_table_from_backup(TargetTableName=dst,
                                             BackupArn=backup["BackupArn"])["TableDescription"]
    assert restored["TableName"] == dst
    assert restored["TableStatus"] in ("CREATING", "ACTIVE")
    summary = restored["RestoreSummary"]
    assert summary["SourceBackupArn"] == backup["BackupArn"]
    assert summary["SourceTableArn"].endswith(f":table/{src}")
    assert summary["RestoreDateTime"] == backup["BackupCreationDateTime"]
    final = _wait_active(ddb, dst)
    assert final["RestoreSummary"]["RestoreInProgress"] is False
    assert final["KeySchema"] == restored["KeySchema"]
    assert final["ProvisionedThroughput"]["ReadCapacityUnits"] == 5
    assert final["ProvisionedThroughput"]["WriteCapacityUnits"] == 6
    assert "StreamSpecification" not in final  # streams are set up again by hand
    assert final["ItemCount"] == 60
    # The restored table is the source as of the backup: undo the three changes on the
    # source and compare everything, indexes included.
    ddb.delete_item(TableName=src, Key={"pk": {"S": "p1"}, "sk": {"N": "1000"}})
    _fill(ddb, src)
    _compare_tables(ddb, src, dst)
    # The restored table is independent of its source.
    ddb.put_item(TableName=dst, Item={"pk": {"S": "only"}, "sk": {"N": "1"}})
    assert "Item" not in ddb.get_item(TableName=src, Key={"pk": {"S": "only"}, "sk": {"N": "1"}})
    ddb.delete_backup(BackupArn=backup["BackupArn"])


def test_restore_errors(ddb, names):
    src, dst = names(), names()
    ddb.create_table(TableName=src, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    backup = ddb.create_backup(TableName=src, BackupName="err")["BackupDetails"]
    with pytest.raises(ClientError) as e:
        ddb.restore_table_from_backup(TargetTableName=src, BackupArn=backup["BackupArn"])
    assert _error(e) == ("TableAlreadyExistsException", f"Table already exists: {src}")
    missing = backup["BackupArn"][:-8] + "00000000"
    with pytest.raises(ClientError) as e:
        ddb.restore_table_from_backup(TargetTableName=dst, BackupArn=missing)
    assert _error(e) == ("BackupNotFoundException", f"Backup not found: {missing}")
    with pytest.raises(ClientError) as e:
        ddb.restore_table_from_backup(TargetTableName="a", BackupArn=backup["BackupArn"])
    code, msg = _error(e)
    assert code == "ValidationException" and "at 'targetTableName'" in msg
    with pytest.raises(ClientError) as e:
        ddb.restore_table_from_backup(TargetTableName=dst, BackupArn=backup["BackupArn"],
                                      BillingModeOverride="SOMETIMES")
    code, msg = _error(e)
    assert code == "ValidationException"
    assert "Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]" in msg
    ddb.delete_backup(BackupArn=backup["BackupArn"])


def test_restore_overrides(ddb, names):
    src, dst = names(), names()
    _create_indexed_table(ddb, src)
    _fill(ddb, src, 12)
    backup = ddb.create_backup(TableName=src, BackupName="ovr")["BackupDetails"]
    ddb.restore_table_from_backup(
        TargetTableName=dst, BackupArn=backup["BackupArn"], BillingModeOverride="PAY_PER_REQUEST",
        GlobalSecondaryIndexOverride=[], LocalSecondaryIndexOverride=[],
        SSESpecificationOverride={"Enabled": True, "SSEType": "KMS"})
    t = _wait_active(ddb, dst)
    assert t["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert "GlobalSecondaryIndexes" not in t and "LocalSecondaryIndexes" not in t
    assert t["SSEDescription"]["SSEType"] == "KMS"
    assert {a["AttributeName"] for a in t["AttributeDefinitions"]} == {"pk", "sk"}
    assert t["ItemCount"] == 12
    dst2 = names()
    ddb.restore_table_from_backup(
        TargetTableName=dst2, BackupArn=backup["BackupArn"],
        ProvisionedThroughputOverride={"ReadCapacityUnits": 7, "WriteCapacityUnits": 8})
    t2 = _wait_active(ddb, dst2)
    assert t2["ProvisionedThroughput"]["ReadCapacityUnits"] == 7
    assert t2["ProvisionedThroughput"]["WriteCapacityUnits"] == 8
    assert [g["IndexName"] for g in t2["GlobalSecondaryIndexes"]] == ["byg"]
    ddb.delete_backup(BackupArn=backup["BackupArn"])


def test_backup_outlives_its_table(ddb, names):
    src, dst = names(), names()
    _create_indexed_table(ddb, src)
    _fill(ddb, src, 20)
    backup = ddb.create_backup(TableName=src, BackupName="outlive")["BackupDetails"]
    expected = _canon(_scan_all(ddb, src))
    ddb.delete_table(TableName=src)
    assert ddb.describe_backup(BackupArn=backup["BackupArn"])["BackupDescription"][
        "BackupDetails"]["BackupStatus"] == "AVAILABLE"
    # The same name again is another table: the backup keeps the old one's items.
    ddb.create_table(TableName=src, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "sk", "AttributeType": "N"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}])
    ddb.put_item(TableName=src, Item={"pk": {"S": "new"}, "sk": {"N": "1"}})
    ddb.restore_table_from_backup(TargetTableName=dst, BackupArn=backup["BackupArn"])
    _wait_active(ddb, dst)
    assert _canon(_scan_all(ddb, dst)) == expected
    ddb.delete_backup(BackupArn=backup["BackupArn"])


def test_restoring_table_is_creating_and_refuses_data_plane(endpoint, names):
    c = make_client(endpoint)
    src, dst = names(), names()
    c.create_table(TableName=src, BillingMode="PAY_PER_REQUEST",
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    for i in range(0, 3000, 25):
        c.batch_write_item(RequestItems={src: [
            {"PutRequest": {"Item": {"pk": {"S": f"k{j}"}, "pad": {"S": "x" * 200}}}}
            for j in range(i, i + 25)]})
    backup = c.create_backup(TableName=src, BackupName="busy")["BackupDetails"]
    out = c.restore_table_from_backup(TargetTableName=dst, BackupArn=backup["BackupArn"])
    statuses = {out["TableDescription"]["TableStatus"]}
    try:
        c.get_item(TableName=dst, Key={"pk": {"S": "k1"}})
        statuses.add("served")
    except ClientError as e:
        assert e.response["Error"]["Code"] == "ResourceNotFoundException"
    t = _wait_active(c, dst)
    assert t["ItemCount"] == 3000
    assert c.get_item(TableName=dst, Key={"pk": {"S": "k1"}})["Item"]["pad"]["S"] == "x" * 200
    assert "CREATING" in statuses or "served" not in statuses
    c.delete_backup(BackupArn=backup["BackupArn"])


# --------------------------------------------------------------------------
# Point-in-time recovery
# --------------------------------------------------------------------------

def test_pitr_window_and_restore_between_two_writes(ddb, names):
    src, dst, dst2 = names(), names(), names()
    _create_indexed_table(ddb, src)
    with pytest.raises(ClientError) as e:
        ddb.restore_table_to_point_in_time(SourceTableName=src, TargetTableName=dst,
                                           UseLatestRestorableTime=True)
    assert _error(e)[0] == "PointInTimeRecoveryUnavailableException"
    out = ddb.update_continuous_backups(TableName=src, PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": True})
    pitr = out["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    assert pitr["PointInTimeRecoveryStatus"] == "ENABLED"
    earliest = pitr["EarliestRestorableDateTime"]
    _fill(ddb, src, 20)
    ddb.put_item(TableName=src, Item={"pk": {"S": "p1"}, "sk": {"N": "1"}, "v": {"S": "before"},
                                      "g": {"S": "g1"}})
    expected = _canon(_scan_all(ddb, src, ConsistentRead=True))
    between = datetime.datetime.fromtimestamp(_next_second(), tz=datetime.timezone.utc)
    ddb.put_item(TableName=src, Item={"pk": {"S": "p1"}, "sk": {"N": "1"}, "v": {"S": "after"}})
    ddb.delete_item(TableName=src, Key={"pk": {"S": "p2"}, "sk": {"N": "2"}})
    ddb.put_item(TableName=src, Item={"pk": {"S": "p3"}, "sk": {"N": "999"}})
    time.sleep(1.2)  # --pitr-lag-ms defaults to 1000
    desc = ddb.describe_continuous_backups(TableName=src)["ContinuousBackupsDescription"]
    window = desc["PointInTimeRecoveryDescription"]
    assert window["EarliestRestorableDateTime"] == earliest
    assert window["LatestRestorableDateTime"].timestamp() <= time.time() - 0.9
    assert window["LatestRestorableDateTime"] > between
    restored = ddb.restore_table_to_point_in_time(
        SourceTableName=src, TargetTableName=dst, RestoreDateTime=between)["TableDescription"]
    assert restored["RestoreSummary"]["SourceTableArn"].endswith(f":table/{src}")
    assert "SourceBackupArn" not in restored["RestoreSummary"]
    assert abs(restored["RestoreSummary"]["RestoreDateTime"].timestamp() -
               between.timestamp()) < 0.002
    _wait_active(ddb, dst)
    assert _canon(_scan_all(ddb, dst, ConsistentRead=True)) == expected
    got = ddb.get_item(TableName=dst, Key={"pk": {"S": "p1"}, "sk": {"N": "1"}})["Item"]
    assert got["v"]["S"] == "before"
    gsi = ddb.query(TableName=dst, IndexName="byg", KeyConditionExpression="g = :g AND sk = :s",
                    ExpressionAttributeValues={":g": {"S": "g1"}, ":s": {"N": "1"}})["Items"]
    assert len(gsi) == 1 and gsi[0]["v"]["S"] == "before"
    # UseLatestRestorableTime, and by ARN.
    arn = ddb.describe_table(TableName=src)["Table"]["TableArn"]
    ddb.restore_table_to_point_in_time(SourceTableArn=arn, TargetTableName=dst2,
                                       UseLatestRestorableTime=True)
    _wait_active(ddb, dst2)
    assert ddb.get_item(TableName=dst2, Key={"pk": {"S": "p1"}, "sk": {"N": "1"}})[
        "Item"]["v"]["S"] == "after"
    assert "Item" not in ddb.get_item(TableName=dst2, Key={"pk": {"S": "p2"}, "sk": {"N": "2"}})


def test_pitr_errors(ddb, names):
    src, dst = names(), names()
    ddb.create_table(TableName=src, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    ddb.update_continuous_backups(TableName=src, PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": True})
    missing = names()
    with pytest.raises(ClientError) as e:
        ddb.restore_table_to_point_in_time(SourceTableName=missing, TargetTableName=dst,
                                           UseLatestRestorableTime=True)
    assert _error(e) == ("TableNotFoundException", f"Table not found: {missing}")
    with pytest.raises(ClientError) as e:
        ddb.restore_table_to_point_in_time(SourceTableName=src, TargetTableName=src,
                                           UseLatestRestorableTime=True)
    assert _error(e) == ("TableAlreadyExistsException", f"Table already exists: {src}")
    for when in (time.time() - 3600, time.time() + 3600):
        with pytest.raises(ClientError) as e:
            ddb.restore_table_to_point_in_time(SourceTableName=src, TargetTableName=dst,
                                               RestoreDateTime=when)
        assert _error(e)[0] == "InvalidRestoreTimeException"
    with pytest.raises(ClientError) as e:
        ddb.restore_table_to_point_in_time(SourceTableName=src, TargetTableName=dst)
    assert _error(e)[0] == "ValidationException"
    ddb.update_continuous_backups(TableName=src, PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": False})
    with pytest.raises(ClientError) as e:
        ddb.restore_table_to_point_in_time(SourceTableName=src, TargetTableName=dst,
                                           UseLatestRestorableTime=True)
    assert _error(e)[0] == "PointInTimeRecoveryUnavailableException"


def test_deleting_a_pitr_table_keeps_a_system_backup(ddb, names):
    src, dst = names(), names()
    ddb.create_table(TableName=src, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    ddb.update_continuous_backups(TableName=src, PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": True})
    ddb.put_item(TableName=src, Item={"pk": {"S": "kept"}})
    ddb.delete_table(TableName=src)
    assert ddb.list_backups(TableName=src)["BackupSummaries"] == []  # USER only by default
    system = ddb.list_backups(TableName=src, BackupType="SYSTEM")["BackupSummaries"]
    assert len(system) == 1 and system[0]["BackupType"] == "SYSTEM"
    assert system[0]["BackupExpiryDateTime"] > system[0]["BackupCreationDateTime"]
    ddb.restore_table_from_backup(TargetTableName=dst, BackupArn=system[0]["BackupArn"])
    _wait_active(ddb, dst)
    assert ddb.get_item(TableName=dst, Key={"pk": {"S": "kept"}})["Item"] == {"pk": {"S": "kept"}}
    ddb.delete_backup(BackupArn=system[0]["BackupArn"])


# --------------------------------------------------------------------------
# Restarts
# --------------------------------------------------------------------------

def test_backups_and_pitr_survive_restart(tmp_path):
    data = tmp_path / "data"
    srv = ServerProcess("--data-dir", str(data), log_dir=str(tmp_path)).start()
    try:
        c = make_client(srv.endpoint)
        _create_indexed_table(c, "src")
        c.update_continuous_backups(TableName="src", PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True})
        _fill(c, "src", 30)
        backup = c.create_backup(TableName="src", BackupName="kept")["BackupDetails"]
        expected = _canon(_scan_all(c, "src"))
        between = _next_second()
        c.put_item(TableName="src", Item={"pk": {"S": "late"}, "sk": {"N": "1"}})
        window = c.describe_continuous_backups(TableName="src")[
            "ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    finally:
        srv.stop_and_check()
    srv = ServerProcess("--data-dir", str(data), log_dir=str(tmp_path)).start()
    try:
        c = make_client(srv.endpoint)
        d = c.describe_backup(BackupArn=backup["BackupArn"])["BackupDescription"]
        assert d["BackupDetails"]["BackupName"] == "kept"
        assert d["BackupDetails"]["BackupCreationDateTime"] == backup["BackupCreationDateTime"]
        again = c.describe_continuous_backups(TableName="src")[
            "ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
        assert again["EarliestRestorableDateTime"] == window["EarliestRestorableDateTime"]
        c.restore_table_from_backup(TargetTableName="from-backup", BackupArn=backup["BackupArn"])
        time.sleep(1.1)
        c.restore_table_to_point_in_time(SourceTableName="src", TargetTableName="from-pitr",
                                         RestoreDateTime=between)
        _wait_active(c, "from-backup")
        _wait_active(c, "from-pitr")
        assert _canon(_scan_all(c, "from-backup")) == expected
        assert _canon(_scan_all(c, "from-pitr")) == expected
    finally:
        srv.stop_and_check()


def test_restart_in_the_middle_of_a_restore(tmp_path):
    data = tmp_path / "data"
    srv = ServerProcess("--data-dir", str(data), log_dir=str(tmp_path)).start()
    n = 40000
    try:
        c = make_client(srv.endpoint)
        c.create_table(TableName="big", BillingMode="PAY_PER_REQUEST",
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                             {"AttributeName": "g", "AttributeType": "S"}],
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                       GlobalSecondaryIndexes=[{
                           "IndexName": "byg",
                           "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                           "Projection": {"ProjectionType": "ALL"}}])
        for i in range(0, n, 25):
            c.batch_write_item(RequestItems={"big": [
                {"PutRequest": {"Item": {"pk": {"S": f"k{j}"}, "g": {"S": f"g{j % 10}"},
                                         "pad": {"S": "p" * 100}}}}
                for j in range(i, i + 25)]})
        backup = c.create_backup(TableName="big", BackupName="mid")["BackupDetails"]
        out = c.restore_table_from_backup(TargetTableName="copy", BackupArn=backup["BackupArn"])
        assert out["TableDescription"]["TableStatus"] == "CREATING"
    finally:
        srv.stop_and_check()  # SIGTERM right away: the restore is cut short (or just done)
    srv = ServerProcess("--data-dir", str(data), log_dir=str(tmp_path)).start()
    try:
        c = make_client(srv.endpoint)
        t = _wait_active(c, "copy", timeout=60)
        # 40k items with a GSI take far longer to restore than the stop took.
        assert "the restore of table copy was cut short: it starts again" in srv.stderr_text()
        assert t["ItemCount"] == n
        assert t["GlobalSecondaryIndexes"][0]["ItemCount"] == n
        q = c.query(TableName="copy", IndexName="byg", KeyConditionExpression="g = :g",
                    ExpressionAttributeValues={":g": {"S": "g3"}}, Select="COUNT")
        assert q["Count"] == n // 10
        # Deleting the backup now is allowed: the restore is over.
        c.delete_backup(BackupArn=backup["BackupArn"])
    finally:
        srv.stop_and_check()


def test_in_memory_backups_work(tmp_path):
    srv = ServerProcess("--in-memory", log_dir=str(tmp_path)).start()
    try:
        c = make_client(srv.endpoint)
        c.create_table(TableName="mem", BillingMode="PAY_PER_REQUEST",
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        c.put_item(TableName="mem", Item={"pk": {"S": "a"}, "v": {"N": "1"}})
        b = c.create_backup(TableName="mem", BackupName="mem1")["BackupDetails"]
        c.put_item(TableName="mem", Item={"pk": {"S": "a"}, "v": {"N": "2"}})
        c.restore_table_from_backup(TargetTableName="mem2", BackupArn=b["BackupArn"])
        _wait_active(c, "mem2")
        assert c.get_item(TableName="mem2", Key={"pk": {"S": "a"}})["Item"]["v"]["N"] == "1"
    finally:
        srv.stop_and_check()


def test_history_cap_moves_the_window_start(tmp_path):
    """With a small --pitr-history-max-bytes the trimmer drops the oldest history (every
    second) and EarliestRestorableDateTime moves up past it; a restore or an export before it
    is refused; later times still restore."""
    srv = ServerProcess("--in-memory", "--pitr-history-max-bytes", "20000", "--s3-dir",
                        str(tmp_path / "s3"), log_dir=str(tmp_path)).start()
    try:
        c = make_client(srv.endpoint)
        c.create_table(TableName="capped", BillingMode="PAY_PER_REQUEST",
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        c.update_continuous_backups(TableName="capped", PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True})
        for i in range(10):
            c.put_item(TableName="capped", Item={"pk": {"S": f"k{i}"}, "v": {"N": "0"}})
        early = _next_second()
        # ~100 KB of old images, five times the cap; the last ones over a second after
        # `early` (an export may ask for up to a second before the window's start).
        for round_ in range(1, 11):
            if round_ == 6:
                time.sleep(1.5)
            for i in range(10):
                c.put_item(TableName="capped", Item={"pk": {"S": f"k{i}"},
                                                     "v": {"N": str(round_)},
                                                     "pad": {"S": "p" * 1000}})
        deadline = time.time() + 15
        while True:
            pitr = c.describe_continuous_backups(TableName="capped")[
                "ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
            earliest = pitr["EarliestRestorableDateTime"].timestamp()
            if earliest > early + 1.2 or time.time() > deadline:
                break
            time.sleep(0.2)
        assert earliest > early + 1.2, (earliest, early)
        time.sleep(2.1)  # so that `early` is not "now" for an export
        with pytest.raises(ClientError) as e:
            c.restore_table_to_point_in_time(SourceTableName="capped", TargetTableName="restored1",
                                             RestoreDateTime=early)
        assert _error(e)[0] == "InvalidRestoreTimeException", _error(e)
        (tmp_path / "s3" / "out").mkdir(parents=True)
        arn = c.describe_table(TableName="capped")["Table"]["TableArn"]
        with pytest.raises(ClientError) as e:
            c.export_table_to_point_in_time(TableArn=arn, S3Bucket="out", ExportTime=early)
        assert _error(e)[0] == "InvalidExportTimeException"
        c.restore_table_to_point_in_time(SourceTableName="capped", TargetTableName="restored2",
                                         UseLatestRestorableTime=True)
        _wait_active(c, "restored2")
        got = {x["pk"]["S"]: x["v"]["N"] for x in _scan_all(c, "restored2")}
        assert got == {f"k{i}": "10" for i in range(10)}
    finally:
        srv.stop_and_check()
