"""PartiQL: ExecuteStatement, BatchExecuteStatement, ExecuteTransaction, as the developer guide
describes them (INSERT refuses an existing key with DuplicateItemException, UPDATE needs the
item, DELETE of a missing item succeeds, SELECT pages with NextToken)."""

import pytest
from botocore.exceptions import ClientError


@pytest.fixture
def music(table_factory):
    return table_factory(("Artist", "S"), ("SongTitle", "S"))


def run(ddb, statement, **kw):
    r = ddb.execute_statement(Statement=statement, **kw)
    return r


def error(ddb, statement, **kw):
    with pytest.raises(ClientError) as e:
        ddb.execute_statement(Statement=statement, **kw)
    return e.value.response["Error"]


def test_insert_then_duplicate(ddb, music):
    r = run(ddb, f"INSERT INTO \"{music}\" VALUE {{'Artist': 'Acme', 'SongTitle': 'Rocks', "
                 f"'Year': 2020, 'Tags': <<'a', 'b'>>, 'On': TRUE, 'L': [1, 'x'], 'M': {{'k': NULL}}}}")
    assert r["Items"] == []
    item = ddb.get_item(TableName=music, Key={"Artist": {"S": "Acme"}, "SongTitle": {"S": "Rocks"}})["Item"]
    assert item["Year"] == {"N": "2020"} and item["Tags"] == {"SS": ["a", "b"]}
    assert item["On"] == {"BOOL": True} and item["L"] == {"L": [{"N": "1"}, {"S": "x"}]}
    assert item["M"] == {"M": {"k": {"NULL": True}}}
    e = error(ddb, f"INSERT INTO \"{music}\" VALUE {{'Artist': 'Acme', 'SongTitle': 'Rocks'}}")
    assert e["Code"] == "DuplicateItemException"
    assert e["Message"] == "Duplicate primary key exists in table"


def test_parameters(ddb, music):
    run(ddb, f"INSERT INTO \"{music}\" VALUE {{'Artist': ?, 'SongTitle': ?, 'B': ?}}",
        Parameters=[{"S": "p"}, {"S": "q"}, {"B": b"\x00\x01"}])
    r = run(ddb, f"SELECT * FROM \"{music}\" WHERE Artist = ? AND SongTitle = ?",
            Parameters=[{"S": "p"}, {"S": "q"}])
    assert r["Items"] == [{"Artist": {"S": "p"}, "SongTitle": {"S": "q"}, "B": {"B": b"\x00\x01"}}]
    e = error(ddb, f"SELECT * FROM \"{music}\" WHERE Artist = ?")
    assert e["Code"] == "ValidationException" and "parameters" in e["Message"]


def test_select_query_scan_projection_and_missing(ddb, music):
    for artist, title, year in [("A", "s1", 1), ("A", "s2", None), ("B", "s1", 3)]:
        item = {"Artist": {"S": artist}, "SongTitle": {"S": title}}
        if year:
            item["Year"] = {"N": str(year)}
        ddb.put_item(TableName=music, Item=item)
    rows = run(ddb, f"SELECT * FROM \"{music}\" WHERE Artist = 'A'")["Items"]
    assert [r["SongTitle"]["S"] for r in rows] == ["s1", "s2"]
    rows = run(ddb, f"SELECT * FROM \"{music}\" WHERE Artist = 'A' ORDER BY SongTitle DESC")["Items"]
    assert [r["SongTitle"]["S"] for r in rows] == ["s2", "s1"]
    rows = run(ddb, f"SELECT SongTitle FROM \"{music}\" WHERE Artist = 'A' AND begins_with(SongTitle, 's2')")["Items"]
    assert rows == [{"SongTitle": {"S": "s2"}}]
    rows = run(ddb, f"SELECT * FROM \"{music}\" WHERE \"Year\" IS MISSING")["Items"]
    assert [(r["Artist"]["S"], r["SongTitle"]["S"]) for r in rows] == [("A", "s2")]
    rows = run(ddb, f"SELECT * FROM \"{music}\" WHERE \"Year\" IS NOT MISSING AND \"Year\" > 1")["Items"]
    assert [r["Artist"]["S"] for r in rows] == ["B"]
    rows = run(ddb, f"SELECT * FROM \"{music}\" WHERE SongTitle IN ['s1'] AND NOT Artist = 'A'")["Items"]
    assert [r["Artist"]["S"] for r in rows] == ["B"]


def test_select_pages_with_next_token(ddb, music):
    for i in range(5):
        ddb.put_item(TableName=music, Item={"Artist": {"S": "P"}, "SongTitle": {"S": f"s{i}"}})
    seen, token = [], None
    while True:
        kw = {"Limit": 2}
        if token:
            kw["NextToken"] = token
        r = run(ddb, f"SELECT * FROM \"{music}\" WHERE Artist = 'P'", **kw)
        seen += [i["SongTitle"]["S"] for i in r["Items"]]
        token = r.get("NextToken")
        if not token:
            break
    assert seen == [f"s{i}" for i in range(5)]


def test_update(ddb, music):
    run(ddb, f"INSERT INTO \"{music}\" VALUE {{'Artist': 'U', 'SongTitle': 't', 'n': 1, 'gone': 'x', 'S': <<'a'>>}}")
    r = run(ddb, f"UPDATE \"{music}\" SET n = n + 2 SET S = set_add(S, <<'b'>>) REMOVE gone "
                 f"WHERE Artist = 'U' AND SongTitle = 't' RETURNING ALL NEW *")
    assert r["Items"] == [{"Artist": {"S": "U"}, "SongTitle": {"S": "t"}, "n": {"N": "3"},
                           "S": {"SS": ["a", "b"]}}]
    # UPDATE needs the item, and the rest of WHERE is its condition.
    e = error(ddb, f"UPDATE \"{music}\" SET n = 1 WHERE Artist = 'none' AND SongTitle = 't'")
    assert e["Code"] == "ConditionalCheckFailedException"
    e = error(ddb, f"UPDATE \"{music}\" SET n = 1 WHERE Artist = 'U' AND SongTitle = 't' AND n = 99")
    assert e["Code"] == "ConditionalCheckFailedException"
    e = error(ddb, f"UPDATE \"{music}\" SET n = 1 WHERE Artist = 'U'")
    assert e["Code"] == "ValidationException"


def test_delete(ddb, music):
    run(ddb, f"INSERT INTO \"{music}\" VALUE {{'Artist': 'D', 'SongTitle': 't', 'n': 1}}")
    # A missing item: success, nothing deleted.
    assert run(ddb, f"DELETE FROM \"{music}\" WHERE Artist = 'none' AND SongTitle = 't'")["Items"] == []
    e = error(ddb, f"DELETE FROM \"{music}\" WHERE Artist = 'D' AND SongTitle = 't' AND n = 2")
    assert e["Code"] == "ConditionalCheckFailedException"
    r = run(ddb, f"DELETE FROM \"{music}\" WHERE Artist = 'D' AND SongTitle = 't' RETURNING ALL OLD *")
    assert r["Items"] == [{"Artist": {"S": "D"}, "SongTitle": {"S": "t"}, "n": {"N": "1"}}]
    assert "Item" not in ddb.get_item(TableName=music, Key={"Artist": {"S": "D"}, "SongTitle": {"S": "t"}})


def test_errors(ddb, music):
    assert error(ddb, "SELECT * FROM no_such_table_here")["Code"] == "ResourceNotFoundException"
    e = error(ddb, f"SELEC * FROM \"{music}\"")
    assert e["Code"] == "ValidationException" and "wasn't well formed" in e["Message"]
    assert error(ddb, f"SELECT * FROM \"{music}\" WHERE")["Code"] == "ValidationException"


def test_execute_transaction(ddb, music):
    r = ddb.execute_transaction(TransactStatements=[
        {"Statement": f"INSERT INTO \"{music}\" VALUE {{'Artist': 'T', 'SongTitle': '1'}}"},
        {"Statement": f"INSERT INTO \"{music}\" VALUE {{'Artist': 'T', 'SongTitle': '2'}}"}])
    assert r["Responses"] == []
    with pytest.raises(ClientError) as e:
        ddb.execute_transaction(TransactStatements=[
            {"Statement": f"INSERT INTO \"{music}\" VALUE {{'Artist': 'T', 'SongTitle': '3'}}"},
            {"Statement": f"INSERT INTO \"{music}\" VALUE {{'Artist': 'T', 'SongTitle': '1'}}"}])
    assert e.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert [r["Code"] for r in e.value.response["CancellationReasons"]] == ["None", "DuplicateItem"]
    assert "Item" not in ddb.get_item(TableName=music, Key={"Artist": {"S": "T"}, "SongTitle": {"S": "3"}})
    r = ddb.execute_transaction(TransactStatements=[
        {"Statement": f"SELECT * FROM \"{music}\" WHERE Artist = 'T' AND SongTitle = '1'"},
        {"Statement": f"SELECT * FROM \"{music}\" WHERE Artist = 'T' AND SongTitle = '9'"}])
    assert r["Responses"] == [{"Item": {"Artist": {"S": "T"}, "SongTitle": {"S": "1"}}}, {}]


def test_batch_execute_statement(ddb, music):
    ddb.put_item(TableName=music, Item={"Artist": {"S": "user02"}, "SongTitle": {"S": "x"}})
    r = ddb.batch_execute_statement(Statements=[
        {"Statement": f"INSERT INTO \"{music}\" VALUE {{'Artist': 'user01', 'SongTitle': 'x'}}"},
        {"Statement": f"UPDATE \"{music}\" SET Age = 20 WHERE Artist = 'user02' AND SongTitle = 'x'"},
        {"Statement": f"INSERT INTO \"{music}\" VALUE {{'Artist': 'user02', 'SongTitle': 'x'}}"}])
    assert r["Responses"][:2] == [{"TableName": music}, {"TableName": music}]
    assert r["Responses"][2]["Error"]["Code"] == "DuplicateItem"
    item = ddb.get_item(TableName=music, Key={"Artist": {"S": "user02"}, "SongTitle": {"S": "x"}})["Item"]
    assert item["Age"] == {"N": "20"}
    r = ddb.batch_execute_statement(Statements=[
        {"Statement": f"SELECT * FROM \"{music}\" WHERE Artist = 'user01' AND SongTitle = 'x'"},
        {"Statement": f"SELECT * FROM \"{music}\" WHERE Artist = 'nobody' AND SongTitle = 'x'"}])
    assert r["Responses"] == [
        {"TableName": music, "Item": {"Artist": {"S": "user01"}, "SongTitle": {"S": "x"}}},
        {"TableName": music}]


# Messages as the service answered them in 2026 (nubo-db/dynamodb-conformance records them).

@pytest.mark.parametrize("returning", ["MODIFIED OLD", "ALL NEW", "MODIFIED NEW"])
def test_delete_returns_only_all_old(ddb, music, returning):
    err = error(ddb, f"DELETE FROM \"{music}\" WHERE Artist = 'a' AND SongTitle = 'b' "
                     f"RETURNING {returning} *")
    assert err["Message"] == (
        f"Invalid returning clause: RETURNING {returning} *. Only RETURNING ALL OLD * is "
        "allowed in DELETE statements.")


def test_unknown_statement_kind(ddb, music):
    err = error(ddb, f"SLECT * FROM \"{music}\"")
    assert err["Message"] == (
        "Statement wasn't well formed, can't be processed: Expected data manipulation")


def test_transaction_refuses_returning(ddb, music):
    run(ddb, f"INSERT INTO \"{music}\" VALUE {{'Artist': 'r', 'SongTitle': 's'}}")
    with pytest.raises(ClientError) as e:
        ddb.execute_transaction(TransactStatements=[{
            "Statement": f"UPDATE \"{music}\" SET x = 1 WHERE Artist = 'r' AND SongTitle = 's' "
                         "RETURNING ALL NEW *"}])
    assert e.value.response["Error"]["Code"] == "ValidationException"
    assert e.value.response["Error"]["Message"] == (
        "Validation failed in TransactStatements[0]: RETURNING clause is not supported in "
        "ExecuteTransaction.")


@pytest.mark.parametrize("op", ["<", "<=", ">", ">="])
def test_where_errors_have_no_filter_expression_frame(ddb, music, op):
    err = error(ddb, f"SELECT Artist FROM \"{music}\" WHERE Artist = 'a' AND v {op} ?",
                Parameters=[{"BOOL": True}])
    assert err["Message"] == (
        f"Incorrect operand type for operator or function; operator or function: {op}, "
        "operand type: BOOL")
