"""CreateTable / DescribeTable / ListTables / DeleteTable over boto3 and the AWS CLI.

Error texts: where marked "exact (real DynamoDB)", the text was observed on the
real service (emulator suites that were checked against AWS: dynalite's tests,
moto, and probe logs of the live API); other assertions are marked with their
confidence.
"""

import datetime

import pytest

from conftest import (UUID_RE, delete_table_quietly, expect_error, gsi_def, key_schema_kwargs,
                      lsi_def, table_arn, unique_name)

PK_ONLY = key_schema_kwargs(("pk", "S"))
PPR = {"BillingMode": "PAY_PER_REQUEST"}


def _create(ddb, name, **kw):
    args = dict(PK_ONLY)
    args.update(PPR)
    args.update(kw)
    return ddb.create_table(TableName=name, **args)


@pytest.fixture
def cleanup(ddb):
    """Names appended here are deleted after the test (for tables created directly)."""
    names = []
    yield names
    for n in names:
        delete_table_quietly(ddb, n)


def _assert_not_created(ddb, name):
    expect_error(lambda: ddb.describe_table(TableName=name), "ResourceNotFoundException")


def _recent(dt):
    assert isinstance(dt, datetime.datetime), dt
    now = datetime.datetime.now(datetime.timezone.utc)
    delta = abs((now - dt).total_seconds())
    assert delta < 300, f"CreationDateTime {dt} is not close to now ({now})"


# ---------------------------------------------------------------------------
# Lifecycle
# ---------------------------------------------------------------------------

def _check_common_description(desc, name):
    assert desc["TableName"] == name
    assert desc["TableStatus"] == "ACTIVE"
    assert desc["TableArn"] == table_arn(name)
    assert UUID_RE.match(desc["TableId"]), desc["TableId"]
    _recent(desc["CreationDateTime"])
    assert desc["ItemCount"] == 0
    assert desc["TableSizeBytes"] == 0


def test_create_describe_pay_per_request(ddb, cleanup):
    name = unique_name()
    cleanup.append(name)
    resp = _create(ddb, name, **key_schema_kwargs(("pk", "S"), ("sk", "N")))
    created = resp["TableDescription"]
    _check_common_description(created, name)
    assert created["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"},
                                    {"AttributeName": "sk", "KeyType": "RANGE"}]
    assert sorted(created["AttributeDefinitions"], key=lambda a: a["AttributeName"]) == [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "N"}]
    assert created["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    pt = created["ProvisionedThroughput"]
    assert pt["ReadCapacityUnits"] == 0
    assert pt["WriteCapacityUnits"] == 0
    assert pt["NumberOfDecreasesToday"] == 0

    desc = ddb.describe_table(TableName=name)["Table"]
    _check_common_description(desc, name)
    assert desc["TableId"] == created["TableId"]
    assert desc["TableArn"] == created["TableArn"]
    assert desc["KeySchema"] == created["KeySchema"]
    assert sorted(desc["AttributeDefinitions"], key=lambda a: a["AttributeName"]) == \
        sorted(created["AttributeDefinitions"], key=lambda a: a["AttributeName"])
    assert desc["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert desc["ProvisionedThroughput"]["ReadCapacityUnits"] == 0
    assert desc["ProvisionedThroughput"]["WriteCapacityUnits"] == 0
    assert desc["ProvisionedThroughput"]["NumberOfDecreasesToday"] == 0
    assert "LocalSecondaryIndexes" not in desc
    assert "GlobalSecondaryIndexes" not in desc


def test_create_describe_provisioned(ddb, cleanup):
    name = unique_name()
    cleanup.append(name)
    resp = ddb.create_table(TableName=name, BillingMode="PROVISIONED",
                            ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 7},
                            **PK_ONLY)
    for desc in (resp["TableDescription"], ddb.describe_table(TableName=name)["Table"]):
        _check_common_description(desc, name)
        pt = desc["ProvisionedThroughput"]
        assert pt["ReadCapacityUnits"] == 5
        assert pt["WriteCapacityUnits"] == 7
        assert pt["NumberOfDecreasesToday"] == 0
        # Real DynamoDB omits BillingModeSummary for tables created PROVISIONED;
        # if present it must say PROVISIONED.
        assert desc.get("BillingModeSummary", {"BillingMode": "PROVISIONED"})["BillingMode"] \
            == "PROVISIONED"


def test_billing_mode_defaults_to_provisioned(ddb, cleanup):
    name = unique_name()
    cleanup.append(name)
    ddb.create_table(TableName=name,
                     ProvisionedThroughput={"ReadCapacityUnits": 3, "WriteCapacityUnits": 4},
                     **PK_ONLY)
    desc = ddb.describe_table(TableName=name)["Table"]
    assert desc["ProvisionedThroughput"]["ReadCapacityUnits"] == 3
    assert desc["ProvisionedThroughput"]["WriteCapacityUnits"] == 4
    assert desc.get("BillingModeSummary", {"BillingMode": "PROVISIONED"})["BillingMode"] \
        == "PROVISIONED"


@pytest.mark.parametrize("ktype", ["S", "N", "B"])
def test_key_types_accepted(ddb, cleanup, ktype):
    name = unique_name()
    cleanup.append(name)
    _create(ddb, name, **key_schema_kwargs(("h", ktype), ("r", ktype)))
    desc = ddb.describe_table(TableName=name)["Table"]
    assert {a["AttributeName"]: a["AttributeType"] for a in desc["AttributeDefinitions"]} == \
        {"h": ktype, "r": ktype}


def test_delete_table(ddb):
    name = unique_name()
    created = _create(ddb, name)["TableDescription"]
    resp = ddb.delete_table(TableName=name)
    desc = resp["TableDescription"]
    assert desc["TableName"] == name
    assert desc["TableStatus"] == "DELETING"
    assert desc["TableArn"] == table_arn(name)
    assert desc["TableId"] == created["TableId"]
    # Gone immediately (this server deletes synchronously).
    expect_error(lambda: ddb.describe_table(TableName=name), "ResourceNotFoundException",
                 f"Requested resource not found: Table: {name} not found")
    assert name not in _all_tables(ddb)
    expect_error(lambda: ddb.delete_table(TableName=name), "ResourceNotFoundException",
                 f"Requested resource not found: Table: {name} not found")


def test_recreate_after_delete(ddb, cleanup):
    name = unique_name()
    cleanup.append(name)
    first = _create(ddb, name)["TableDescription"]
    ddb.put_item(TableName=name, Item={"pk": {"S": "x"}, "v": {"S": "old"}})
    ddb.delete_table(TableName=name)
    second = _create(ddb, name)["TableDescription"]
    assert second["TableArn"] == first["TableArn"]
    assert second["TableId"] != first["TableId"]
    desc = ddb.describe_table(TableName=name)["Table"]
    assert desc["TableId"] == second["TableId"]
    assert desc["ItemCount"] == 0
    # The old table's items did not survive into the new one.
    got = ddb.get_item(TableName=name, Key={"pk": {"S": "x"}}, ConsistentRead=True)
    assert "Item" not in got


def test_recreate_with_different_key_type(ddb, cleanup):
    name = unique_name()
    cleanup.append(name)
    _create(ddb, name)
    ddb.delete_table(TableName=name)
    _create(ddb, name, **key_schema_kwargs(("pk", "N")))
    desc = ddb.describe_table(TableName=name)["Table"]
    assert desc["AttributeDefinitions"] == [{"AttributeName": "pk", "AttributeType": "N"}]
    ddb.put_item(TableName=name, Item={"pk": {"N": "1"}})


def test_create_existing_table(ddb, table_s):
    err = expect_error(lambda: _create(ddb, table_s), "ResourceInUseException",
                       # exact (real DynamoDB, ACTIVE table)
                       f"Table already exists: {table_s}")
    assert err
    # With a different schema it is still ResourceInUse.
    expect_error(lambda: _create(ddb, table_s, **key_schema_kwargs(("other", "N"))),
                 "ResourceInUseException")


def test_describe_missing_table(ddb):
    name = unique_name("nosuch")
    expect_error(lambda: ddb.describe_table(TableName=name), "ResourceNotFoundException",
                 f"Requested resource not found: Table: {name} not found")  # exact (real DynamoDB)


def test_delete_missing_table(ddb):
    name = unique_name("nosuch")
    expect_error(lambda: ddb.delete_table(TableName=name), "ResourceNotFoundException",
                 f"Requested resource not found: Table: {name} not found")  # exact (real DynamoDB)


# ---------------------------------------------------------------------------
# ListTables
# ---------------------------------------------------------------------------

def _all_tables(ddb, limit=None):
    names, start = [], None
    for _ in range(1000):
        kw = {}
        if limit is not None:
            kw["Limit"] = limit
        if start is not None:
            kw["ExclusiveStartTableName"] = start
        resp = ddb.list_tables(**kw)
        names.extend(resp["TableNames"])
        start = resp.get("LastEvaluatedTableName")
        if not start:
            return names
    pytest.fail("ListTables paging did not terminate")


def test_list_tables_contains_new_tables_sorted(ddb, table_factory):
    mine = [table_factory() for _ in range(3)]
    names = ddb.list_tables()["TableNames"]
    assert names == sorted(names)
    assert len(names) == len(set(names))
    for n in mine:
        assert n in names


def test_list_tables_paging(ddb, table_factory):
    prefix = unique_name("lt") + "-"
    mine = sorted(table_factory(name=f"{prefix}{i}") for i in range(5))

    page1 = ddb.list_tables(ExclusiveStartTableName=prefix, Limit=2)
    assert page1["TableNames"] == mine[0:2]
    assert page1["LastEvaluatedTableName"] == mine[1]

    page2 = ddb.list_tables(ExclusiveStartTableName=page1["LastEvaluatedTableName"], Limit=2)
    assert page2["TableNames"] == mine[2:4]
    assert page2["LastEvaluatedTableName"] == mine[3]

    page3 = ddb.list_tables(ExclusiveStartTableName=page2["LastEvaluatedTableName"], Limit=2)
    assert page3["TableNames"][0] == mine[4]

    # ExclusiveStartTableName is exclusive and need not name an existing table.
    after = ddb.list_tables(ExclusiveStartTableName=mine[0])["TableNames"]
    assert mine[0] not in after and mine[1] in after

    # Walking all pages with a small Limit gives the same sorted list as one big page.
    walked = _all_tables(ddb, limit=3)
    assert walked == sorted(walked)
    assert len(walked) == len(set(walked))
    for n in mine:
        assert n in walked
    if len(walked) <= 100:
        assert walked == ddb.list_tables(Limit=100)["TableNames"]


def test_list_tables_limit_respected(ddb, table_factory):
    for _ in range(3):
        table_factory()
    resp = ddb.list_tables(Limit=1)
    assert len(resp["TableNames"]) == 1
    assert resp["LastEvaluatedTableName"] == resp["TableNames"][0]


def test_list_tables_past_the_end(ddb):
    resp = ddb.list_tables(ExclusiveStartTableName="zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz")
    assert resp["TableNames"] == []
    assert "LastEvaluatedTableName" not in resp


@pytest.mark.parametrize("limit,constraint", [
    (0, "Member must have value greater than or equal to 1"),
    (101, "Member must have value less than or equal to 100"),
])
def test_list_tables_bad_limit(ddb, limit, constraint):
    # exact (real DynamoDB, per dynalite's listTables tests); high confidence.
    expect_error(lambda: ddb.list_tables(Limit=limit), "ValidationException",
                 f"1 validation error detected: Value '{limit}' at 'limit' failed to satisfy "
                 f"constraint: {constraint}")


def test_deleted_table_leaves_list_immediately(ddb):
    name = unique_name()
    _create(ddb, name)
    assert name in _all_tables(ddb)
    ddb.delete_table(TableName=name)
    assert name not in _all_tables(ddb)


# ---------------------------------------------------------------------------
# CreateTable validation
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name,constraint", [
    ("ab", "Member must have length greater than or equal to 3"),
    ("a" * 256, "Member must have length less than or equal to 255"),
    ("bad name!", "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"),
    ("tbl/slash", "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"),
], ids=["too-short", "too-long", "bad-chars", "slash"])
def test_create_table_bad_name(ddb, name, constraint):
    # Prefix exact (real DynamoDB); the constraint wording is DynamoDB's
    # (medium-high confidence).
    expect_error(lambda: _create(ddb, name), "ValidationException",
                 f"1 validation error detected: Value '{name}' at 'tableName' failed to satisfy "
                 f"constraint: {constraint}")


def test_table_name_boundaries_accepted(ddb, cleanup):
    short = "t" + unique_name("")[-2:]  # 3 characters
    long_ = (unique_name("Long_.-") + "x" * 255)[:255]
    for name in (short, long_):
        cleanup.append(name)
        _create(ddb, name)
        assert ddb.describe_table(TableName=name)["Table"]["TableName"] == name


def test_describe_table_bad_name(ddb):
    expect_error(lambda: ddb.describe_table(TableName="ab"), "ValidationException",
                 contains="tableName")  # DynamoDB validates the name; wording not pinned


@pytest.mark.parametrize("key_schema,message", [
    ([{"AttributeName": "p", "KeyType": "HASH"}, {"AttributeName": "c", "KeyType": "HASH"}],
     "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type"),
    ([{"AttributeName": "p", "KeyType": "RANGE"}, {"AttributeName": "c", "KeyType": "HASH"}],
     "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"),
    ([{"AttributeName": "p", "KeyType": "RANGE"}, {"AttributeName": "c", "KeyType": "RANGE"}],
     "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"),
], ids=["two-hash", "range-first", "no-hash"])
def test_create_table_bad_key_schema(ddb, key_schema, message):
    name = unique_name()
    # exact (real DynamoDB probe logs + dynalite)
    expect_error(lambda: ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST", KeySchema=key_schema,
        AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"},
                              {"AttributeName": "c", "AttributeType": "S"}]),
        "ValidationException", message)
    _assert_not_created(ddb, name)


def test_create_table_only_range_key(ddb):
    name = unique_name()
    expect_error(lambda: ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "c", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "c", "AttributeType": "S"}]),
        "ValidationException",
        "Invalid KeySchema: The first KeySchemaElement is not a HASH key type")  # exact
    _assert_not_created(ddb, name)


def test_create_table_three_key_elements(ddb):
    expect_error(lambda: ddb.create_table(
        TableName=unique_name(), BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "a", "KeyType": "HASH"},
                   {"AttributeName": "b", "KeyType": "RANGE"},
                   {"AttributeName": "c", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": x, "AttributeType": "S"} for x in "abc"]),
        "ValidationException", contains="keySchema")  # text embeds Java object ids; not pinned


@pytest.mark.parametrize("bad_type", ["BOOL", "SS", "M", "Q"])
def test_create_table_bad_attribute_type(ddb, bad_type):
    name = unique_name()
    err = expect_error(lambda: ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": bad_type}]),
        "ValidationException",
        # Prefix exact (real DynamoDB); the enum listing ("[B, N, S]") is left open.
        match=(r"^1 validation error detected: Value '" + bad_type +
               r"' at 'attributeDefinitions\.1\.member\.attributeType' failed to satisfy "
               r"constraint: Member must satisfy enum value set: \[.*\]$"))
    assert err
    _assert_not_created(ddb, name)


def test_create_table_unused_attribute_definition(ddb):
    name = unique_name()
    expect_error(lambda: ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "extra", "AttributeType": "S"}]),
        "ValidationException",
        # exact (real DynamoDB probe logs + dynalite) for a table without indexes
        "One or more parameter values were invalid: Number of attributes in KeySchema does "
        "not exactly match number of attributes defined in AttributeDefinitions")
    _assert_not_created(ddb, name)


def test_create_table_unused_attribute_definition_with_index(ddb):
    # With indexes DynamoDB words it differently ("Some AttributeDefinitions are
    # not used..."); only the code and the field name are pinned.
    name = unique_name()
    expect_error(lambda: ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"},
                              {"AttributeName": "unused", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "gsi1",
                                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}]),
        "ValidationException", contains="AttributeDefinitions")
    _assert_not_created(ddb, name)


def test_create_table_key_not_in_attribute_definitions(ddb):
    name = unique_name()
    expect_error(lambda: ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "other", "AttributeType": "S"}]),
        "ValidationException",
        # exact (real DynamoDB probe logs + dynalite)
        "One or more parameter values were invalid: Some index key attributes are not defined "
        "in AttributeDefinitions. Keys: [pk], AttributeDefinitions: [other]")
    _assert_not_created(ddb, name)


def test_create_table_more_keys_than_definitions(ddb):
    # A sort key left out of the definitions: the service's count check answers before the
    # one naming the keys (dynalite, recorded against it; moto; found by a black-box probe).
    name = unique_name()
    expect_error(lambda: ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}]),
        "ValidationException", "Invalid KeySchema: Some index key attribute have no definition")
    _assert_not_created(ddb, name)


def test_create_table_units_out_of_bounds_answer_before_the_key_schema(raw):
    # dynalite's suite, recorded against the service, sends no AttributeDefinitions here.
    r = raw("CreateTable", {
        "TableName": "abc", "AttributeDefinitions": [],
        "KeySchema": [{"KeyType": "HASH", "AttributeName": "a"}],
        "ProvisionedThroughput": {"ReadCapacityUnits": 1000000000001,
                                  "WriteCapacityUnits": 1000000000001}})
    assert r.json()["message"] == "Given value 1000000000001 for ReadCapacityUnits is out of bounds"


def test_create_table_same_key_names_answer_before_the_key_types(raw):
    # dynalite's order, recorded against the service: the names, then HASH first, RANGE second.
    r = raw("CreateTable", {
        "TableName": "abc", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"},
                                 {"AttributeName": "b", "AttributeType": "S"}],
        "KeySchema": [{"KeyType": "HASH", "AttributeName": "a"},
                      {"KeyType": "HASH", "AttributeName": "a"}]})
    assert r.json()["message"] == (
        "Both the Hash Key and the Range Key element in the KeySchema have the same name")


def test_create_table_duplicate_attribute_definition(ddb):
    name = unique_name()
    expect_error(lambda: ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "pk", "AttributeType": "N"}]),
        "ValidationException",
        "Attribute Name is duplicated: pk")  # exact (real DynamoDB probe logs); medium-high
    _assert_not_created(ddb, name)


def test_create_table_provisioned_without_throughput(ddb):
    name = unique_name()
    expect_error(lambda: ddb.create_table(TableName=name, BillingMode="PROVISIONED", **PK_ONLY),
                 "ValidationException",
                 # exact (dynalite; consistent with real-service probe logs)
                 "One or more parameter values were invalid: ReadCapacityUnits and "
                 "WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")
    _assert_not_created(ddb, name)


def test_create_table_no_billing_mode_no_throughput(ddb):
    # BillingMode defaults to PROVISIONED, which requires ProvisionedThroughput.
    name = unique_name()
    expect_error(lambda: ddb.create_table(TableName=name, **PK_ONLY), "ValidationException")
    _assert_not_created(ddb, name)


def test_create_table_pay_per_request_with_throughput(ddb):
    name = unique_name()
    expect_error(lambda: ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}, **PK_ONLY),
        "ValidationException",
        # exact (real DynamoDB probe logs: same text on UpdateTable; dynalite for CreateTable)
        "One or more parameter values were invalid: Neither ReadCapacityUnits nor "
        "WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
    _assert_not_created(ddb, name)


def test_create_table_zero_read_capacity(ddb):
    name = unique_name()
    expect_error(lambda: ddb.create_table(
        TableName=name, BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 0, "WriteCapacityUnits": 5}, **PK_ONLY),
        "ValidationException",
        # exact (real DynamoDB wording for the >= 1 constraint)
        "1 validation error detected: Value '0' at 'provisionedThroughput.readCapacityUnits' "
        "failed to satisfy constraint: Member must have value greater than or equal to 1")
    _assert_not_created(ddb, name)


def test_create_table_bad_billing_mode(ddb):
    name = unique_name()
    expect_error(lambda: ddb.create_table(TableName=name, BillingMode="pay_per_request",
                                          **PK_ONLY),
                 "ValidationException", contains="billingMode")  # enum check; wording not pinned
    _assert_not_created(ddb, name)


def test_create_table_same_hash_and_range_name(ddb):
    expect_error(lambda: ddb.create_table(
        TableName=unique_name(), BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "pk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}]),
        "ValidationException")


# ---------------------------------------------------------------------------
# Secondary indexes
# ---------------------------------------------------------------------------

def _index_table_kwargs():
    return dict(
        BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "S"},
                              {"AttributeName": "lsk", "AttributeType": "N"},
                              {"AttributeName": "gpk", "AttributeType": "S"}],
        LocalSecondaryIndexes=[{
            "IndexName": "lsi1",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "lsk", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        }],
        GlobalSecondaryIndexes=[{
            "IndexName": "gsi1",
            "KeySchema": [{"AttributeName": "gpk", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["x", "y"]},
        }, {
            "IndexName": "gsi2",
            "KeySchema": [{"AttributeName": "lsk", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
        }],
    )


def test_indexes_shown_in_describe(ddb, cleanup):
    name = unique_name()
    cleanup.append(name)
    kw = _index_table_kwargs()
    ddb.create_table(TableName=name, **kw)
    desc = ddb.describe_table(TableName=name)["Table"]
    arn = table_arn(name)

    lsis = {i["IndexName"]: i for i in desc["LocalSecondaryIndexes"]}
    assert set(lsis) == {"lsi1"}
    assert lsis["lsi1"]["KeySchema"] == kw["LocalSecondaryIndexes"][0]["KeySchema"]
    assert lsis["lsi1"]["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    assert lsis["lsi1"]["IndexArn"] == f"{arn}/index/lsi1"

    gsis = {i["IndexName"]: i for i in desc["GlobalSecondaryIndexes"]}
    assert set(gsis) == {"gsi1", "gsi2"}
    assert gsis["gsi1"]["KeySchema"] == kw["GlobalSecondaryIndexes"][0]["KeySchema"]
    assert gsis["gsi1"]["Projection"]["ProjectionType"] == "INCLUDE"
    assert sorted(gsis["gsi1"]["Projection"]["NonKeyAttributes"]) == ["x", "y"]
    assert gsis["gsi2"]["KeySchema"] == [{"AttributeName": "lsk", "KeyType": "HASH"}]
    assert gsis["gsi2"]["Projection"] == {"ProjectionType": "ALL"}
    for gname, g in gsis.items():
        assert g["IndexStatus"] == "ACTIVE"
        assert g["IndexArn"] == f"{arn}/index/{gname}"

    # The CreateTable response describes them too.
    name2 = unique_name()
    cleanup.append(name2)
    created = ddb.create_table(TableName=name2, **kw)["TableDescription"]
    assert {i["IndexName"] for i in created["GlobalSecondaryIndexes"]} == {"gsi1", "gsi2"}
    assert {i["IndexName"] for i in created["LocalSecondaryIndexes"]} == {"lsi1"}


def test_gsi_on_provisioned_table(ddb, cleanup):
    name = unique_name()
    cleanup.append(name)
    ddb.create_table(
        TableName=name, BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 2, "WriteCapacityUnits": 3},
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "N"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "byg",
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
            "ProvisionedThroughput": {"ReadCapacityUnits": 4, "WriteCapacityUnits": 5},
        }])
    g = ddb.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"][0]
    assert g["IndexName"] == "byg"
    assert g["IndexStatus"] == "ACTIVE"
    assert g["ProvisionedThroughput"]["ReadCapacityUnits"] == 4
    assert g["ProvisionedThroughput"]["WriteCapacityUnits"] == 5


def test_lsi_with_different_hash_key_rejected(ddb):
    name = unique_name()
    kw = _index_table_kwargs()
    kw.pop("GlobalSecondaryIndexes")
    kw["AttributeDefinitions"] = [a for a in kw["AttributeDefinitions"]
                                  if a["AttributeName"] != "gpk"] + \
        [{"AttributeName": "other", "AttributeType": "S"}]
    kw["LocalSecondaryIndexes"][0]["KeySchema"] = [
        {"AttributeName": "other", "KeyType": "HASH"},
        {"AttributeName": "lsk", "KeyType": "RANGE"}]
    expect_error(lambda: ddb.create_table(TableName=name, **kw), "ValidationException",
                 # dynalite's text; wording medium confidence, so only substrings pinned
                 contains=["One or more parameter values were invalid", "same leading hash key",
                           "lsi1"])
    _assert_not_created(ddb, name)


def test_lsi_on_table_without_range_key_rejected(ddb):
    name = unique_name()
    expect_error(lambda: ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "l", "AttributeType": "S"}],
        LocalSecondaryIndexes=[{
            "IndexName": "lsi1",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "l", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}}]),
        "ValidationException")
    _assert_not_created(ddb, name)


def test_duplicate_gsi_names_rejected(ddb):
    name = unique_name()
    kw = _index_table_kwargs()
    kw["GlobalSecondaryIndexes"][1]["IndexName"] = "gsi1"
    expect_error(lambda: ddb.create_table(TableName=name, **kw), "ValidationException",
                 # "One or more parameter values were invalid: Duplicate index name: gsi1"
                 # (dynalite); medium confidence, substring pinned
                 contains="Duplicate index name: gsi1")
    _assert_not_created(ddb, name)


def test_duplicate_name_across_lsi_and_gsi_rejected(ddb):
    name = unique_name()
    kw = _index_table_kwargs()
    kw["GlobalSecondaryIndexes"][1]["IndexName"] = "lsi1"
    expect_error(lambda: ddb.create_table(TableName=name, **kw), "ValidationException",
                 contains="lsi1")
    _assert_not_created(ddb, name)


def test_index_key_not_in_attribute_definitions(ddb):
    name = unique_name()
    expect_error(lambda: ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "gsi1",
                                 "KeySchema": [{"AttributeName": "nodef", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}]),
        "ValidationException", contains="nodef")
    _assert_not_created(ddb, name)


# ---------------------------------------------------------------------------
# AWS CLI
# ---------------------------------------------------------------------------

def test_aws_cli_table_lifecycle(aws_cli, ddb):
    name = unique_name("cli")
    try:
        _, out = aws_cli("create-table", "--table-name", name,
                         "--attribute-definitions", "AttributeName=pk,AttributeType=S",
                         "AttributeName=sk,AttributeType=N",
                         "--key-schema", "AttributeName=pk,KeyType=HASH",
                         "AttributeName=sk,KeyType=RANGE",
                         "--billing-mode", "PAY_PER_REQUEST")
        td = out["TableDescription"]
        assert td["TableName"] == name
        assert td["TableStatus"] == "ACTIVE"
        assert td["TableArn"] == table_arn(name)

        _, out = aws_cli("describe-table", "--table-name", name)
        t = out["Table"]
        assert t["TableName"] == name
        assert t["TableStatus"] == "ACTIVE"
        assert t["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"},
                                  {"AttributeName": "sk", "KeyType": "RANGE"}]
        assert t["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"

        _, out = aws_cli("list-tables")
        assert name in out["TableNames"]

        _, out = aws_cli("delete-table", "--table-name", name)
        assert out["TableDescription"]["TableStatus"] == "DELETING"

        proc, _ = aws_cli("describe-table", "--table-name", name, check=False)
        assert proc.returncode != 0
        assert "ResourceNotFoundException" in proc.stderr
    finally:
        delete_table_quietly(ddb, name)


def test_aws_cli_create_existing_table_fails(aws_cli, table_s):
    proc, _ = aws_cli("create-table", "--table-name", table_s,
                      "--attribute-definitions", "AttributeName=pk,AttributeType=S",
                      "--key-schema", "AttributeName=pk,KeyType=HASH",
                      "--billing-mode", "PAY_PER_REQUEST", check=False)
    assert proc.returncode != 0
    assert "ResourceInUseException" in proc.stderr


# --------------------------------------------------------------------------
# Key attribute names of up to 255 bytes
# (from the conformance sweep: behaviours found missing in a sweep against a DynamoDB
# behaviour checklist; was test_conformance_sweep.py)
# --------------------------------------------------------------------------

def _key_name_error(name, path):
    return (f"1 validation error detected: Value '{name}' at '{path}' failed to satisfy "
            "constraint: Member must have length less than or equal to 255")


def test_key_names_of_255_bytes(ddb, table_factory):
    h, r = "h" * 255, "r" * 255
    table = table_factory((h, "S"), (r, "S"))
    item = {h: {"S": "a"}, r: {"S": "b"}, "other": {"N": "2"}}
    ddb.put_item(TableName=table, Item=item)
    got = ddb.get_item(TableName=table, Key={h: {"S": "a"}, r: {"S": "b"}}, ConsistentRead=True)
    assert got["Item"] == item


def test_table_key_name_too_long(ddb):
    long = "k" * 256
    name = unique_name()
    expect_error(lambda: ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": long, "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "short", "AttributeType": "S"}]),
        "ValidationException", _key_name_error(long, "keySchema.1.member.attributeName"))
    expect_error(lambda: ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "short", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": long, "AttributeType": "S"}]),
        "ValidationException", _key_name_error(long, "attributeDefinitions.1.member.attributeName"))
    err = expect_error(lambda: ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "x", "KeyType": "HASH"},
                   {"AttributeName": long, "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "x", "AttributeType": "S"},
                              {"AttributeName": long, "AttributeType": "S"}]),
        "ValidationException", match="^2 validation errors detected: ")
    msg = err.response["Error"]["Message"]
    assert "'keySchema.2.member.attributeName'" in msg
    assert "'attributeDefinitions.2.member.attributeName'" in msg
    assert name not in ddb.list_tables()["TableNames"]


@pytest.mark.parametrize("kind", ["GlobalSecondaryIndexes", "LocalSecondaryIndexes"])
def test_index_key_name_too_long(ddb, kind):
    long = "k" * 256
    path = ("globalSecondaryIndexes" if kind.startswith("Global") else "localSecondaryIndexes")
    schema = ([{"AttributeName": long, "KeyType": "HASH"}] if kind.startswith("Global") else
              [{"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": long, "KeyType": "RANGE"}])
    position = 1 if kind.startswith("Global") else 2
    expect_error(lambda: ddb.create_table(
        TableName=unique_name(), BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "a", "KeyType": "HASH"},
                   {"AttributeName": "b", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "a", "AttributeType": "S"},
                              {"AttributeName": "b", "AttributeType": "S"},
                              {"AttributeName": "c", "AttributeType": "S"}],
        **{kind: [{"IndexName": "idx", "KeySchema": schema,
                   "Projection": {"ProjectionType": "ALL"}}]}),
        "ValidationException",
        _key_name_error(long, f"{path}.1.member.keySchema.{position}.member.attributeName"))


def test_index_keys_of_255_bytes(ddb, table_factory):
    g, l = "g" * 255, "l" * 255
    table = table_factory(
        ("a", "S"), ("b", "S"),
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("a", "b", g, l)],
        GlobalSecondaryIndexes=[{"IndexName": "gsi", "KeySchema": [
            {"AttributeName": g, "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}],
        LocalSecondaryIndexes=[{"IndexName": "lsi", "KeySchema": [
            {"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": l, "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"}}])
    item = {"a": {"S": "1"}, "b": {"S": "2"}, g: {"S": "3"}, l: {"S": "4"}}
    ddb.put_item(TableName=table, Item=item)
    got = ddb.query(TableName=table, IndexName="lsi", ConsistentRead=True,
                    KeyConditionExpression="a = :a AND #l = :l",
                    ExpressionAttributeNames={"#l": l},
                    ExpressionAttributeValues={":a": {"S": "1"}, ":l": {"S": "4"}})
    assert got["Items"] == [item]


# --------------------------------------------------------------------------
# An empty index list in CreateTable
# (from the conformance sweep: behaviours found missing in a sweep against a DynamoDB
# behaviour checklist; was test_conformance_sweep.py)
# --------------------------------------------------------------------------

def test_create_table_empty_index_lists(ddb):
    for member in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        name = unique_name()
        expect_error(lambda: ddb.create_table(
            TableName=name, BillingMode="PAY_PER_REQUEST", **{member: []},
            KeySchema=[{"AttributeName": "p", "KeyType": "HASH"},
                       {"AttributeName": "c", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"},
                                  {"AttributeName": "c", "AttributeType": "S"}]),
            "ValidationException",
            f"One or more parameter values were invalid: List of {member} is empty")
        assert name not in ddb.list_tables()["TableNames"]


# --------------------------------------------------------------------------
# DeleteTable's description
# (from the service's edges on record: scylla's alternator suite in AWS mode; was
# test_service_edges.py)
# --------------------------------------------------------------------------

def test_delete_table_describes_the_table_without_its_schema(ddb):
    name = unique_name()
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "p", "KeyType": "HASH"},
                   {"AttributeName": "c", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in "pcx"],
        GlobalSecondaryIndexes=[gsi_def("hello", "x")],
        LocalSecondaryIndexes=[lsi_def("hithere", "p", "x")])
    described = ddb.describe_table(TableName=name)["Table"]
    got = ddb.delete_table(TableName=name)["TableDescription"]
    assert got["TableName"] == name and got["TableStatus"] == "DELETING"
    assert got["TableId"] == described["TableId"] and got["TableArn"] == described["TableArn"]
    for member in ("KeySchema", "AttributeDefinitions", "CreationDateTime",
                   "GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        assert member in described and member not in got, member
    assert got["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert got["BillingModeSummary"]["LastUpdateToPayPerRequestDateTime"]
    assert got["ProvisionedThroughput"] == {"NumberOfDecreasesToday": 0, "ReadCapacityUnits": 0,
                                            "WriteCapacityUnits": 0}
    assert got["ItemCount"] == 0 and got["TableSizeBytes"] == 0


# --------------------------------------------------------------------------
# CreateTable's request shape
# (from the service's edges on record: scylla's alternator suite in AWS mode; was
# test_service_edges.py. nubo-db/dynamodb-conformance tier 3, 2026)
# --------------------------------------------------------------------------

VE = "ValidationException"


def test_create_table_shape_answers(ddb):
    pt = {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}
    defs = [{"AttributeName": "pk", "AttributeType": "S"}]
    expect_error(lambda: ddb.create_table(
        TableName="dup_key_2026", AttributeDefinitions=defs, ProvisionedThroughput=pt,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "pk", "KeyType": "RANGE"}]),
        VE, "Invalid KeySchema: Some index key attribute have no definition")
    expect_error(lambda: ddb.create_table(
        TableName="three_keys_2026", ProvisionedThroughput=pt,
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"}
                              for n in ("pk", "sk", "extra")],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"},
                   {"AttributeName": "extra", "KeyType": "RANGE"}]),
        VE, "1 validation error detected: Value '[KeySchemaElement(attributeName=pk, "
        "keyType=HASH), KeySchemaElement(attributeName=sk, keyType=RANGE), "
        "KeySchemaElement(attributeName=extra, keyType=RANGE)]' at 'keySchema' failed to "
        "satisfy constraint: Member must have length less than or equal to 2")
    # An LSI's repeated key attribute keeps the older text (Alternator's test_lsi).
    expect_error(lambda: ddb.create_table(
        TableName="lsi_dup_2026", BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=defs + [{"AttributeName": "c", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "c", "KeyType": "RANGE"}],
        LocalSecondaryIndexes=[{"IndexName": "hello", "Projection": {"ProjectionType": "ALL"},
                                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                              {"AttributeName": "pk", "KeyType": "RANGE"}]}]),
        VE, "Both the Hash Key and the Range Key element in the KeySchema have the same name")
    # Global indexes' violations come before local ones', whatever the request's order.
    index = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
             "Projection": {"ProjectionType": "ALL"}}
    expect_error(lambda: ddb.create_table(
        TableName="index_names_2026", AttributeDefinitions=defs, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        LocalSecondaryIndexes=[{**index, "IndexName": "aa"}],
        GlobalSecondaryIndexes=[{**index, "IndexName": "zz"}]),
        VE, "2 validation errors detected: Value 'zz' at 'globalSecondaryIndexes.1.member."
        "indexName' failed to satisfy constraint: Member must have length greater than or equal "
        "to 3; Value 'aa' at 'localSecondaryIndexes.1.member.indexName' failed to satisfy "
        "constraint: Member must have length greater than or equal to 3")


def test_create_table_without_a_name(raw):
    r = raw("CreateTable", {"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                            "BillingMode": "PAY_PER_REQUEST"})
    assert r.json()["message"] == (
        "The parameter 'TableName' is required but was not present in the request")
