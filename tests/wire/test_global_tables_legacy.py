"""Global tables version 2017.11.29 (Legacy), answered as the service answers them today
(protocol/global_table_operations.cc). Source: the AWS-run tests of scylladb's
test/alternator/test_global_tables.py (2026), which record: CreateGlobalTable is a
ValidationException naming version 2017.11.29; DescribeGlobalTable, UpdateGlobalTable,
DescribeGlobalTableSettings and UpdateGlobalTableSettings answer GlobalTableNotFoundException
"Global table with name '<name>' does not exist.", also for an existing table's name;
ListGlobalTables lists none.
"""

import pytest

from conftest import expect_error, unique_name

NOT_SUPPORTED = ("DynamoDB global tables version 2017.11.29 is not supported. We recommend "
                 "using DynamoDB global tables version 2019.11.21, instead of version "
                 "2017.11.29 (Legacy).")


def test_create_global_table_is_refused(ddb, table_s):
    expect_error(lambda: ddb.create_global_table(
        GlobalTableName=table_s, ReplicationGroup=[{"RegionName": "us-west-2"}]),
        "ValidationException", NOT_SUPPORTED)


@pytest.mark.parametrize("call", [
    lambda ddb, name: ddb.describe_global_table(GlobalTableName=name),
    lambda ddb, name: ddb.update_global_table(
        GlobalTableName=name, ReplicaUpdates=[{"Create": {"RegionName": "us-east-2"}}]),
    lambda ddb, name: ddb.describe_global_table_settings(GlobalTableName=name),
    lambda ddb, name: ddb.update_global_table_settings(
        GlobalTableName=name, GlobalTableBillingMode="PAY_PER_REQUEST"),
], ids=["describe", "update", "describe-settings", "update-settings"])
@pytest.mark.parametrize("existing", [False, True])
def test_no_legacy_global_table_exists(ddb, table_s, call, existing):
    name = table_s if existing else unique_name("noglobal")
    expect_error(lambda: call(ddb, name), "GlobalTableNotFoundException",
                 f"Global table with name '{name}' does not exist.")


def test_list_global_tables_is_empty(ddb, table_s):
    assert ddb.list_global_tables()["GlobalTables"] == []
    assert ddb.list_global_tables(Limit=5)["GlobalTables"] == []


def test_global_table_name_is_validated(raw):
    r = raw("DescribeGlobalTable", {})
    assert r.status == 400
    assert r.json()["message"] == ("1 validation error detected: Value null at 'globalTableName' "
                                   "failed to satisfy constraint: Member must not be null")
