"""Durability across restarts: --data-dir keeps tables and items, --in-memory does not."""

import os

import pytest

from conftest import ServerProcess, key_schema_kwargs, make_client, table_arn

ITEMS = [
    {"pk": {"S": "alpha"}, "sk": {"N": "1"}, "s": {"S": "h\u00e9llo \U0001F600"},
     "n": {"N": "-12.5"}, "b": {"B": b"\x00\x01\xff"}},
    {"pk": {"S": "alpha"}, "sk": {"N": "2"}, "ss": {"SS": ["a", "b"]}, "ns": {"NS": ["1", "10"]},
     "bs": {"BS": [b"\x01", b"\x02"]}, "bool": {"BOOL": False}, "null": {"NULL": True}},
    {"pk": {"S": "beta"}, "sk": {"N": "12345678901234567890123456789012345678"},
     "m": {"M": {"l": {"L": [{"S": "x"}, {"M": {"deep": {"N": "3"}}}]}, "e": {"S": ""}}},
     "el": {"L": []}, "em": {"M": {}}},
]


def _setless(v):
    if isinstance(v, dict):
        return {k: (frozenset(x) if k in ("SS", "NS", "BS") else _setless(x)) for k, x in v.items()}
    if isinstance(v, list):
        return [_setless(x) for x in v]
    return v


def _key(item):
    return {"pk": item["pk"], "sk": item["sk"]}


def _get(client, table, key):
    return client.get_item(TableName=table, Key=key, ConsistentRead=True)


def test_data_dir_survives_restart(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()

    srv = ServerProcess("--data-dir", str(data_dir), log_dir=str(tmp_path)).start()
    try:
        c = make_client(srv.endpoint)
        c.create_table(TableName="persist-main", BillingMode="PAY_PER_REQUEST",
                       **key_schema_kwargs(("pk", "S"), ("sk", "N")))
        c.create_table(TableName="persist-prov", BillingMode="PROVISIONED",
                       ProvisionedThroughput={"ReadCapacityUnits": 3, "WriteCapacityUnits": 4},
                       AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "B"},
                                             {"AttributeName": "g", "AttributeType": "S"}],
                       KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                       GlobalSecondaryIndexes=[{
                           "IndexName": "byg",
                           "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                           "Projection": {"ProjectionType": "KEYS_ONLY"},
                           "ProvisionedThroughput": {"ReadCapacityUnits": 1,
                                                     "WriteCapacityUnits": 1}}])
        c.create_table(TableName="persist-gone", BillingMode="PAY_PER_REQUEST",
                       **key_schema_kwargs(("pk", "S")))
        before_main = c.describe_table(TableName="persist-main")["Table"]
        before_prov = c.describe_table(TableName="persist-prov")["Table"]

        for item in ITEMS:
            c.put_item(TableName="persist-main", Item=item)
        # An overwritten and a deleted item must stay that way.
        c.put_item(TableName="persist-main",
                   Item={"pk": {"S": "gamma"}, "sk": {"N": "1"}, "v": {"S": "old"}})
        c.put_item(TableName="persist-main",
                   Item={"pk": {"S": "gamma"}, "sk": {"N": "1"}, "v": {"S": "new"}})
        c.put_item(TableName="persist-main",
                   Item={"pk": {"S": "deleted"}, "sk": {"N": "1"}})
        c.delete_item(TableName="persist-main", Key={"pk": {"S": "deleted"}, "sk": {"N": "1"}})
        c.put_item(TableName="persist-prov", Item={"id": {"B": b"\x00id"}, "g": {"S": "grp"}})
        c.put_item(TableName="persist-gone", Item={"pk": {"S": "x"}})
        c.delete_table(TableName="persist-gone")
    finally:
        srv.stop_and_check()

    srv2 = ServerProcess("--data-dir", str(data_dir), log_dir=str(tmp_path)).start()
    try:
        c = make_client(srv2.endpoint)
        names = c.list_tables()["TableNames"]
        assert names == ["persist-main", "persist-prov"]

        after_main = c.describe_table(TableName="persist-main")["Table"]
        for field in ("TableName", "TableId", "TableArn", "KeySchema", "TableStatus"):
            assert after_main[field] == before_main[field], field
        assert after_main["TableArn"] == table_arn("persist-main")
        assert after_main["CreationDateTime"] == before_main["CreationDateTime"]
        assert after_main["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
        assert sorted(after_main["AttributeDefinitions"], key=lambda a: a["AttributeName"]) == \
            sorted(before_main["AttributeDefinitions"], key=lambda a: a["AttributeName"])

        after_prov = c.describe_table(TableName="persist-prov")["Table"]
        assert after_prov["TableId"] == before_prov["TableId"]
        assert after_prov["ProvisionedThroughput"]["ReadCapacityUnits"] == 3
        assert after_prov["ProvisionedThroughput"]["WriteCapacityUnits"] == 4
        gsi = after_prov["GlobalSecondaryIndexes"]
        assert [g["IndexName"] for g in gsi] == ["byg"]
        assert gsi[0]["KeySchema"] == [{"AttributeName": "g", "KeyType": "HASH"}]
        assert gsi[0]["Projection"]["ProjectionType"] == "KEYS_ONLY"

        for item in ITEMS:
            got = _get(c, "persist-main", _key(item))
            assert "Item" in got, f"lost item {_key(item)}"
            assert _setless(got["Item"]) == _setless(item)
        assert _get(c, "persist-main", {"pk": {"S": "gamma"}, "sk": {"N": "1"}})["Item"]["v"] == \
            {"S": "new"}
        assert "Item" not in _get(c, "persist-main", {"pk": {"S": "deleted"}, "sk": {"N": "1"}})
        assert _get(c, "persist-prov", {"id": {"B": b"\x00id"}})["Item"] == \
            {"id": {"B": b"\x00id"}, "g": {"S": "grp"}}

        err = None
        try:
            c.describe_table(TableName="persist-gone")
        except Exception as e:  # noqa: BLE001
            err = e
        assert err is not None and "ResourceNotFoundException" in str(err)

        # Still writable after the restart; and a further restart keeps that too.
        c.put_item(TableName="persist-main", Item={"pk": {"S": "post"}, "sk": {"N": "9"}})
    finally:
        srv2.stop_and_check()

    srv3 = ServerProcess("--data-dir", str(data_dir), log_dir=str(tmp_path)).start()
    try:
        c = make_client(srv3.endpoint)
        assert _get(c, "persist-main", {"pk": {"S": "post"}, "sk": {"N": "9"}})["Item"] == \
            {"pk": {"S": "post"}, "sk": {"N": "9"}}
        assert _get(c, "persist-main", _key(ITEMS[0]))["Item"]["s"] == ITEMS[0]["s"]
    finally:
        srv3.stop_and_check()


def test_in_memory_restart_loses_everything(tmp_path):
    srv = ServerProcess("--in-memory", log_dir=str(tmp_path)).start()
    try:
        c = make_client(srv.endpoint)
        c.create_table(TableName="volatile", BillingMode="PAY_PER_REQUEST",
                       **key_schema_kwargs(("pk", "S")))
        c.put_item(TableName="volatile", Item={"pk": {"S": "x"}})
        assert c.list_tables()["TableNames"] == ["volatile"]
    finally:
        srv.stop_and_check()

    srv2 = ServerProcess("--in-memory", log_dir=str(tmp_path)).start()
    try:
        c = make_client(srv2.endpoint)
        assert c.list_tables()["TableNames"] == []
        with pytest.raises(Exception) as exc:
            c.describe_table(TableName="volatile")
        assert "ResourceNotFoundException" in str(exc.value)
    finally:
        srv2.stop_and_check()


def test_in_memory_writes_nothing_to_cwd(tmp_path):
    """--in-memory must not create a data directory (default ./data) anywhere it runs."""
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        srv = ServerProcess("--in-memory", log_dir=str(tmp_path)).start()
        try:
            c = make_client(srv.endpoint)
            c.create_table(TableName="nodisk", BillingMode="PAY_PER_REQUEST",
                           **key_schema_kwargs(("pk", "S")))
            c.put_item(TableName="nodisk", Item={"pk": {"S": "x"}})
        finally:
            srv.stop_and_check()
    finally:
        os.chdir(cwd)
    leftovers = [p.name for p in tmp_path.iterdir() if not p.name.startswith("ddb-server-stderr-")]
    assert leftovers == [], f"--in-memory left files behind: {leftovers}"


# Issue 29: the SDKs put a ClientRequestToken on every TransactWriteItems and resend it after a
# dropped connection; a restart between the commit and the answer must not commit twice.
@pytest.mark.parametrize("how", ["sigterm", "kill9"])
@pytest.mark.parametrize("durability", ["process", "fsync"])
def test_client_request_token_survives_restart(tmp_path, how, durability):
    from conftest import kill_server
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    args = ("--data-dir", str(data_dir), "--durability", durability)
    srv = ServerProcess(*args, log_dir=str(tmp_path)).start()
    add = [{"Update": {"TableName": "tok", "Key": {"pk": {"S": "ctr"}},
                       "UpdateExpression": "ADD v :one",
                       "ExpressionAttributeValues": {":one": {"N": "1"}}}}]
    try:
        c = make_client(srv.endpoint)
        c.create_table(TableName="tok", BillingMode="PAY_PER_REQUEST", **key_schema_kwargs())
        c.transact_write_items(TransactItems=add, ClientRequestToken="retry-me")
        if how == "kill9":
            kill_server(srv)
        else:
            srv.stop()
    finally:
        kill_server(srv)
    srv = ServerProcess(*args, log_dir=str(tmp_path)).start()
    try:
        c = make_client(srv.endpoint)
        r = c.transact_write_items(TransactItems=add, ClientRequestToken="retry-me",
                                   ReturnConsumedCapacity="TOTAL")
        # A repeat reports a transactional read of the item, as the service does.
        assert r["ConsumedCapacity"] == [{"TableName": "tok", "CapacityUnits": 2.0,
                                          "ReadCapacityUnits": 2.0}]
        item = c.get_item(TableName="tok", Key={"pk": {"S": "ctr"}}, ConsistentRead=True)["Item"]
        assert item["v"] == {"N": "1"}
        # The same token with other parameters is still refused; a new token applies.
        other = [dict(add[0], Update=dict(add[0]["Update"],
                                          ExpressionAttributeValues={":one": {"N": "5"}}))]
        try:
            c.transact_write_items(TransactItems=other, ClientRequestToken="retry-me")
            raise AssertionError("a reused token with other parameters was applied")
        except c.exceptions.IdempotentParameterMismatchException:
            pass
        c.transact_write_items(TransactItems=add, ClientRequestToken="fresh")
        item = c.get_item(TableName="tok", Key={"pk": {"S": "ctr"}}, ConsistentRead=True)["Item"]
        assert item["v"] == {"N": "2"}
    finally:
        srv.stop_and_check()
