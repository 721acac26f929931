"""Which check answers first, and with which text, where a client suite recorded against the
service found ddb answering otherwise (issue 31, item 4).

Source: answers of Amazon DynamoDB recorded by the client suites of issue 31 (2026):
- a BatchWriteItem PutRequest without the key attributes: "The provided key element does not
  match the schema" (PutItem says "Missing the key <name> in the item");
- an item over 400 KB (PutItem, BatchWriteItem) and keys sent twice in BatchGetItem are
  refused before the table is looked up: ValidationException even when the table does not
  exist;
- UpdateTable with ReplicaUpdates names it rather than asking for "At least one of ..." (on a
  server whose Regions share one namespace, where a replica has no Region of its own).
"""

from conftest import unique_name

VE = "com.amazon.coral.validate#ValidationException"
BIG = "x" * (400 * 1024 + 1)


def _error(resp):
    assert resp.status == 400, resp.body
    body = resp.json()
    return body["__type"], body.get("message", body.get("Message"))


def test_batch_write_put_without_key(raw, table_s):
    r = raw("BatchWriteItem", {"RequestItems": {table_s: [
        {"PutRequest": {"Item": {"other": {"S": "v"}}}}]}})
    assert _error(r) == (VE, "The provided key element does not match the schema")


def test_put_item_without_key_names_it(raw, table_s):
    r = raw("PutItem", {"TableName": table_s, "Item": {"other": {"S": "v"}}})
    assert _error(r) == (VE, "One or more parameter values were invalid: Missing the key pk "
                             "in the item")


def test_oversized_item_before_missing_table(raw):
    missing = unique_name("missing")
    r = raw("PutItem", {"TableName": missing, "Item": {"pk": {"S": "k"}, "v": {"S": BIG}}})
    assert _error(r) == (VE, "Item size has exceeded the maximum allowed size")
    r = raw("BatchWriteItem", {"RequestItems": {missing: [
        {"PutRequest": {"Item": {"pk": {"S": "k"}, "v": {"S": BIG}}}}]}})
    assert _error(r) == (VE, "Item size has exceeded the maximum allowed size")


def test_batch_get_duplicate_keys_before_missing_table(raw):
    missing = unique_name("missing")
    key = {"pk": {"S": "k"}}
    r = raw("BatchGetItem", {"RequestItems": {missing: {"Keys": [key, key]}}})
    assert _error(r) == (VE, "Provided list of item keys contains duplicates")


def test_missing_table_still_not_found(raw):
    missing = unique_name("missing")
    r = raw("BatchGetItem", {"RequestItems": {missing: {"Keys": [{"pk": {"S": "k"}}]}}})
    assert _error(r)[0].endswith("#ResourceNotFoundException")


def test_update_table_replica_updates_named(raw, table_s):
    r = raw("UpdateTable", {"TableName": table_s,
                            "ReplicaUpdates": [{"Create": {"RegionName": "eu-west-1"}}]})
    typ, message = _error(r)
    assert typ == VE
    assert message.startswith("ReplicaUpdates need")
    assert "--isolation account" in message
