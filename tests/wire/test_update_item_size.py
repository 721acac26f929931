"""UpdateItem's own item-size rule, at its boundaries.

Besides the finished item's 400 KB limit, the service refuses an UpdateItem when the
attributes the update expression writes (as they are in the finished item) plus a cost
per statement exceed 409,600 bytes: 3 bytes, plus 19 a SET (one more through a list
index) and 2 a REMOVE. The key and the attributes the update leaves alone are not
counted. A PartiQL UPDATE and a transaction's Update check only the finished item.
Measured against DynamoDB in 2026 (the conformance suite's
tests/tier3/limits/itemSizeBySurface.test.ts); engine/write_path.cc, UpdateItemSizeFits.

Sizes here use S values only: an attribute costs len(name) + len(value).
"""

from conftest import expect_error

MAX_ITEM = 409_600
UPDATE_TOO_BIG = "Item size to update has exceeded the maximum allowed size"
STATEMENT, SET, REMOVE = 3, 19, 2


def _pad(n):
    return {"S": "x" * n}


def _stored_size(ddb, table, key):
    item = ddb.get_item(TableName=table, Key=key, ConsistentRead=True)["Item"]
    return sum(len(name) + len(value["S"]) for name, value in item.items())


def _set_b(ddb, table, key, written, expression="SET b = :pad", values=None):
    """UpdateItem that leaves attribute b (1-byte name) at `written` bytes."""
    values = dict(values or {})
    values[":pad"] = _pad(written - len("b"))
    ddb.update_item(TableName=table, Key=key, UpdateExpression=expression,
                    ExpressionAttributeValues=values)


def _refused(fn):
    expect_error(fn, "ValidationException", UPDATE_TOO_BIG)


def test_one_byte_key_limit_binds_below_the_item_limit(ddb, table_s):
    # pk + "K" = 3 bytes, not counted; one SET costs 3 + 19: the finished item tops out at
    # 409,600 - 19.
    ok, over = {"pk": {"S": "K"}}, {"pk": {"S": "L"}}
    _set_b(ddb, table_s, ok, MAX_ITEM - STATEMENT - SET)
    assert _stored_size(ddb, table_s, ok) == MAX_ITEM - 19
    _refused(lambda: _set_b(ddb, table_s, over, MAX_ITEM - STATEMENT - SET + 1))
    assert "Item" not in ddb.get_item(TableName=table_s, Key=over, ConsistentRead=True)


def test_long_key_leaves_the_finished_item_limit(ddb, table_s):
    # With a 100-byte key the statement rule has room to spare: the item limit binds.
    ok, over = {"pk": {"S": "k" * 100}}, {"pk": {"S": "j" * 100}}
    key_bytes = 2 + 100
    _set_b(ddb, table_s, ok, MAX_ITEM - key_bytes)
    assert _stored_size(ddb, table_s, ok) == MAX_ITEM
    _refused(lambda: _set_b(ddb, table_s, over, MAX_ITEM - key_bytes + 1))


def test_each_set_costs_19_bytes_whatever_it_writes(ddb, table_s):
    for c in ("y", "y" * 500):
        ok, over = {"pk": {"S": "A" + str(len(c))}}, {"pk": {"S": "B" + str(len(c))}}
        c_bytes = len("c") + len(c)
        budget = MAX_ITEM - STATEMENT - 2 * SET - c_bytes  # for b
        args = dict(expression="SET b = :pad, c = :c", values={":c": {"S": c}})
        _set_b(ddb, table_s, ok, budget, **args)
        _refused(lambda: _set_b(ddb, table_s, over, budget + 1, **args))


def test_a_remove_costs_2_bytes(ddb, table_s):
    ok, over = {"pk": {"S": "A3"}}, {"pk": {"S": "B3"}}
    budget = MAX_ITEM - STATEMENT - SET - REMOVE
    for key in (ok, over):
        ddb.put_item(TableName=table_s, Item={**key, "r": {"S": "z"}})
    _set_b(ddb, table_s, ok, budget, expression="SET b = :pad REMOVE r")
    _refused(lambda: _set_b(ddb, table_s, over, budget + 1, expression="SET b = :pad REMOVE r"))


def test_an_untouched_attribute_is_not_counted(ddb, table_s):
    ok, over = {"pk": {"S": "A9"}}, {"pk": {"S": "B9"}}
    untouched = {"u": {"S": "y" * 10}}
    for key in (ok, over):
        ddb.put_item(TableName=table_s, Item={**key, **untouched})
    budget = MAX_ITEM - STATEMENT - SET
    _set_b(ddb, table_s, ok, budget)
    assert _stored_size(ddb, table_s, ok) == len("pkA9") + len("uyyyyyyyyyy") + budget
    _refused(lambda: _set_b(ddb, table_s, over, budget + 1))


def test_an_alias_costs_what_the_name_does(ddb, table_s):
    budget = MAX_ITEM - STATEMENT - SET

    def by_alias(key, written):
        ddb.update_item(TableName=table_s, Key=key, UpdateExpression="SET #twelvechars = :pad",
                        ExpressionAttributeNames={"#twelvechars": "b"},
                        ExpressionAttributeValues={":pad": _pad(written - len("b"))})

    by_alias({"pk": {"S": "A7"}}, budget)
    _refused(lambda: by_alias({"pk": {"S": "B7"}}, budget + 1))


def test_a_set_through_a_list_index_costs_one_byte_more(ddb, table_s):
    # d = [S p] is 1 (name) + 3 (list) + 1 (element) + p bytes.
    p = MAX_ITEM - STATEMENT - SET - 5  # the largest whole list one SET may write
    whole = lambda key, n: ddb.update_item(
        TableName=table_s, Key=key, UpdateExpression="SET d = :v",
        ExpressionAttributeValues={":v": {"L": [_pad(n)]}})
    indexed = lambda key, n: ddb.update_item(
        TableName=table_s, Key=key, UpdateExpression="SET d[0] = :v",
        ExpressionAttributeValues={":v": _pad(n)})
    whole({"pk": {"S": "D1"}}, p)
    _refused(lambda: whole({"pk": {"S": "E1"}}, p + 1))
    ok, over = {"pk": {"S": "D2"}}, {"pk": {"S": "E2"}}
    for key in (ok, over):
        whole(key, 1)
    indexed(ok, p - 1)
    _refused(lambda: indexed(over, p))


def test_a_set_through_a_map_key_costs_a_plain_set(ddb, table_s):
    # d = {leaf: S p} is 1 (name) + 3 (map) + 4 (key) + 1 (entry) + p bytes.
    p = MAX_ITEM - STATEMENT - SET - 9
    ok, over = {"pk": {"S": "D3"}}, {"pk": {"S": "E3"}}
    for key in (ok, over):
        ddb.put_item(TableName=table_s, Item={**key, "d": {"M": {"leaf": _pad(1)}}})
    nested = lambda key, n: ddb.update_item(
        TableName=table_s, Key=key, UpdateExpression="SET d.leaf = :v",
        ExpressionAttributeValues={":v": _pad(n)})
    nested(ok, p)
    _refused(lambda: nested(over, p + 1))


def _refused_by_update_item(ddb, table, key):
    """An UpdateItem of a finished item of exactly 409,600 bytes at a 3-byte key: refused."""
    ddb.put_item(TableName=table, Item=key)
    value = _pad(MAX_ITEM - 3 - len("p"))
    _refused(lambda: ddb.update_item(TableName=table, Key=key, UpdateExpression="SET p = :p",
                                     ExpressionAttributeValues={":p": value}))
    return value


def test_partiql_update_checks_only_the_finished_item(ddb, table_s):
    key = {"pk": {"S": "X"}}
    value = _refused_by_update_item(ddb, table_s, key)
    statement = f'UPDATE "{table_s}" SET p = ? WHERE pk = ?'
    ddb.execute_statement(Statement=statement, Parameters=[value, key["pk"]])
    assert _stored_size(ddb, table_s, key) == MAX_ITEM
    _refused(lambda: ddb.execute_statement(
        Statement=statement, Parameters=[{"S": value["S"] + "x"}, key["pk"]]))


def test_transacted_update_checks_only_the_finished_item(ddb, table_s):
    key = {"pk": {"S": "Y"}}
    value = _refused_by_update_item(ddb, table_s, key)

    def update(v):
        ddb.transact_write_items(TransactItems=[{"Update": {
            "TableName": table_s, "Key": key, "UpdateExpression": "SET p = :p",
            "ExpressionAttributeValues": {":p": v}}}])

    update(value)
    assert _stored_size(ddb, table_s, key) == MAX_ITEM
    try:
        update({"S": value["S"] + "x"})
        raise AssertionError("one byte over the item limit was written")
    except ddb.exceptions.TransactionCanceledException as e:
        reason = e.response["CancellationReasons"][0]
        assert reason["Code"] == "ValidationError"
        assert reason["Message"] == UPDATE_TOO_BIG
