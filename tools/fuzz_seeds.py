#!/usr/bin/python3
"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/seed-*), made from
real requests against the tables of tests/fuzz/fuzz_tables.h. Files named regress-* (inputs
that once crashed a target) are left alone. Run from anywhere; rerun after changing a seed."""
import base64
import hashlib
import hmac
import json
import os
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fuzz", "corpus")

# tests/fuzz/request_fuzz.cc's operation list, in its order.
OPERATIONS = [
    "CreateTable", "DescribeTable", "PutResourcePolicy", "GetResourcePolicy",
    "DeleteResourcePolicy", "DeleteTable", "ListTables", "PutItem", "GetItem", "DeleteItem",
    "Query", "Scan", "BatchGetItem", "BatchWriteItem", "UpdateItem", "UpdateTable",
    "TransactWriteItems", "ExecuteStatement", "DescribeContinuousBackups",
    "UpdateContinuousBackups", "BatchExecuteStatement", "ExecuteTransaction", "TransactGetItems",
    "UpdateTimeToLive", "DescribeTimeToLive", "TagResource", "UntagResource",
    "ListTagsOfResource", "DescribeLimits", "DescribeEndpoints", "ListStreams", "DescribeStream",
    "GetShardIterator", "GetRecords",
    "CreateBackup", "DescribeBackup", "ListBackups", "DeleteBackup", "RestoreTableFromBackup",
    "RestoreTableToPointInTime", "ImportTable", "DescribeImport", "ListImports", "DescribeExport",
    "ListExports", "UpdateContributorInsights", "DescribeContributorInsights",
    "ListContributorInsights",
]

KEY = {"pk": {"S": "a"}, "sk": {"N": "1"}}
ITEM = {"pk": {"S": "a"}, "sk": {"N": "3"}, "l": {"S": "x"}, "g": {"S": "y"}, "ttl": {"N": "1"},
        "m": {"M": {"k": {"L": [{"N": "1.5"}, {"B": "AAE="}, {"NULL": True}]}}},
        "ss": {"SS": ["a", "b"]}, "ns": {"NS": ["1", "-2e3"]}, "bs": {"BS": ["AA=="]},
        "t": {"BOOL": True}}
TABLE_ARN = "arn:aws:dynamodb:us-east-1:000000000000:table/tbl"

REQUESTS = [
    ("CreateTable", {"TableName": "new", "AttributeDefinitions": [
        {"AttributeName": "k", "AttributeType": "S"}, {"AttributeName": "r", "AttributeType": "B"}],
        "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"},
                      {"AttributeName": "r", "KeyType": "RANGE"}],
        "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
        "GlobalSecondaryIndexes": [{"IndexName": "idx", "KeySchema": [
            {"AttributeName": "r", "KeyType": "HASH"}], "Projection": {
            "ProjectionType": "INCLUDE", "NonKeyAttributes": ["x"]},
            "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}],
        "Tags": [{"Key": "a", "Value": "b"}]}),
    ("DescribeTable", {"TableName": "tbl"}),
    ("PutResourcePolicy", {"ResourceArn": TABLE_ARN, "Policy": json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Principal": "*",
        "Action": "dynamodb:GetItem", "Resource": TABLE_ARN}]})}),
    ("GetResourcePolicy", {"ResourceArn": TABLE_ARN}),
    ("DeleteTable", {"TableName": "new"}),
    ("ListTables", {"Limit": 1, "ExclusiveStartTableName": "abc"}),
    ("PutItem", {"TableName": "tbl", "Item": ITEM, "ConditionExpression": "attribute_not_exists(pk)",
                 "ReturnValues": "ALL_OLD", "ReturnConsumedCapacity": "INDEXES",
                 "ReturnItemCollectionMetrics": "SIZE"}),
    ("PutItem", {"TableName": "tbl", "Item": ITEM, "Expected": {"pk": {"Exists": False}}}),
    ("GetItem", {"TableName": "tbl", "Key": KEY, "ProjectionExpression": "#m.k[1], ns",
                 "ExpressionAttributeNames": {"#m": "m"}, "ConsistentRead": True}),
    ("DeleteItem", {"TableName": "tbl", "Key": KEY, "ConditionExpression": "size(l) > :z",
                    "ExpressionAttributeValues": {":z": {"N": "0"}}, "ReturnValues": "ALL_OLD"}),
    ("Query", {"TableName": "tbl", "KeyConditionExpression": "pk = :p AND sk BETWEEN :a AND :b",
               "FilterExpression": "contains(ss, :s) OR begins_with(l, :s)",
               "ExpressionAttributeValues": {":p": {"S": "a"}, ":a": {"N": "0"},
                                             ":b": {"N": "9"}, ":s": {"S": "x"}},
               "ScanIndexForward": False, "Limit": 1, "Select": "ALL_ATTRIBUTES"}),
    ("Query", {"TableName": "tbl", "IndexName": "lsi", "KeyConditions": {
        "pk": {"AttributeValueList": [{"S": "a"}], "ComparisonOperator": "EQ"}},
        "QueryFilter": {"n": {"ComparisonOperator": "NOT_NULL"}}}),
    ("Scan", {"TableName": "tbl", "Segment": 0, "TotalSegments": 2, "Select": "COUNT",
              "ScanFilter": {"sk": {"AttributeValueList": [{"N": "1"}],
                                    "ComparisonOperator": "GE"}}}),
    ("Scan", {"TableName": "tbl", "IndexName": "gsi",
              "ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"N": "1"}, "g": {"S": "y"}}}),
    ("BatchGetItem", {"RequestItems": {"tbl": {"Keys": [KEY, {"pk": {"S": "b"}, "sk": {"N": "2"}}],
                                             "ProjectionExpression": "pk"},
                                       "bin": {"Keys": [{"id": {"B": "AQI="}}]}}}),
    ("BatchWriteItem", {"RequestItems": {"tbl": [{"PutRequest": {"Item": ITEM}},
                                               {"DeleteRequest": {"Key": KEY}}]}}),
    ("UpdateItem", {"TableName": "tbl", "Key": KEY,
                    "UpdateExpression": "SET #c = if_not_exists(#c, :z) + :one, l = list_append(:l, :l) "
                                        "REMOVE m.k[0] ADD ns :ns DELETE ss :ss",
                    "ExpressionAttributeNames": {"#c": "count"},
                    "ExpressionAttributeValues": {":z": {"N": "0"}, ":one": {"N": "1"},
                                                  ":l": {"L": [{"S": "e"}]}, ":ns": {"NS": ["7"]},
                                                  ":ss": {"SS": ["a"]}},
                    "ReturnValues": "UPDATED_NEW"}),
    ("UpdateItem", {"TableName": "tbl", "Key": KEY, "AttributeUpdates": {
        "v": {"Action": "ADD", "Value": {"N": "1"}}, "w": {"Action": "DELETE"}}}),
    ("UpdateTable", {"TableName": "tbl", "StreamSpecification": {"StreamEnabled": False}}),
    ("UpdateTable", {"TableName": "tbl", "AttributeDefinitions": [
        {"AttributeName": "x", "AttributeType": "N"}], "GlobalSecondaryIndexUpdates": [
        {"Create": {"IndexName": "xidx", "KeySchema": [{"AttributeName": "x", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"}}}]}),
    ("TransactWriteItems", {"TransactItems": [
        {"Put": {"TableName": "tbl", "Item": ITEM}},
        {"ConditionCheck": {"TableName": "bin", "Key": {"id": {"B": "AQI="}},
                            "ConditionExpression": "attribute_exists(v)"}},
        {"Update": {"TableName": "tbl", "Key": KEY, "UpdateExpression": "SET q = :q",
                    "ExpressionAttributeValues": {":q": {"BOOL": False}}}}],
        "ClientRequestToken": "tok"}),
    ("ExecuteStatement", {"Statement": "SELECT pk, m.k[0] FROM tbl WHERE pk = ? AND sk > 0",
                          "Parameters": [{"S": "a"}], "Limit": 2}),
    ("ExecuteStatement", {"Statement": "INSERT INTO tbl VALUE {'pk': 'z', 'sk': 1, 's': <<'a'>>}"}),
    ("ExecuteStatement", {"Statement": "UPDATE tbl SET x = x + 1 SET y = set_add(y, <<1>>) "
                                       "WHERE pk = 'a' AND sk = 1 RETURNING ALL NEW *"}),
    ("DescribeContinuousBackups", {"TableName": "tbl"}),
    ("UpdateContinuousBackups", {"TableName": "tbl", "PointInTimeRecoverySpecification": {
        "PointInTimeRecoveryEnabled": True}}),
    ("BatchExecuteStatement", {"Statements": [
        {"Statement": "DELETE FROM tbl WHERE pk = 'a' AND sk = 1"},
        {"Statement": "SELECT * FROM bin WHERE id = ?", "Parameters": [{"B": "AQI="}]}]}),
    ("ExecuteTransaction", {"TransactStatements": [
        {"Statement": "UPDATE tbl REMOVE m WHERE pk = 'a' AND sk = 1"}]}),
    ("TransactGetItems", {"TransactItems": [{"Get": {"TableName": "tbl", "Key": KEY}}]}),
    ("UpdateTimeToLive", {"TableName": "bin", "TimeToLiveSpecification": {
        "Enabled": True, "AttributeName": "e"}}),
    ("DescribeTimeToLive", {"TableName": "tbl"}),
    ("TagResource", {"ResourceArn": TABLE_ARN, "Tags": [{"Key": "k", "Value": "v"}]}),
    ("UntagResource", {"ResourceArn": TABLE_ARN, "TagKeys": ["k"]}),
    ("ListTagsOfResource", {"ResourceArn": TABLE_ARN}),
    ("DescribeLimits", {}),
    ("DescribeEndpoints", {}),
    ("ListStreams", {"TableName": "tbl"}),
    ("DescribeStream", {"StreamArn": TABLE_ARN + "/stream/2025-01-01T00:00:00.000"}),
    ("GetShardIterator", {"StreamArn": TABLE_ARN + "/stream/2025-01-01T00:00:00.000",
                          "ShardId": "shardId-00000001735689600000-00000000",
                          "ShardIteratorType": "AT_SEQUENCE_NUMBER",
                          "SequenceNumber": "000000000000000000001"}),
    ("GetRecords", {"ShardIterator": TABLE_ARN + "/stream/2025-01-01T00:00:00.000|1|AAAA",
                    "Limit": 10}),
    ("CreateBackup", {"TableName": "tbl", "BackupName": "b1"}),
    ("ListBackups", {"TableName": "tbl", "Limit": 5, "BackupType": "ALL"}),
    ("DescribeBackup", {"BackupArn": TABLE_ARN + "/backup/01735689600000-0a1b2c3d"}),
    ("DeleteBackup", {"BackupArn": TABLE_ARN + "/backup/01735689600000-0a1b2c3d"}),
    ("RestoreTableFromBackup", {"TargetTableName": "copy",
                                "BackupArn": TABLE_ARN + "/backup/01735689600000-0a1b2c3d",
                                "BillingModeOverride": "PAY_PER_REQUEST"}),
    ("RestoreTableToPointInTime", {"SourceTableName": "tbl", "TargetTableName": "copy2",
                                   "UseLatestRestorableTime": True}),
    ("ImportTable", {"S3BucketSource": {"S3Bucket": "bucket", "S3KeyPrefix": "p/"},
                     "InputFormat": "CSV", "InputCompressionType": "NONE",
                     "InputFormatOptions": {"Csv": {"Delimiter": ";", "HeaderList": ["pk", "sk"]}},
                     "TableCreationParameters": {
                         "TableName": "imported", "BillingMode": "PAY_PER_REQUEST",
                         "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                         "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}}),
    ("ListImports", {"TableArn": TABLE_ARN, "PageSize": 5}),
    ("DescribeImport", {"ImportArn": TABLE_ARN + "/import/01735689600000-0a1b2c3d"}),
    ("ListExports", {"TableArn": TABLE_ARN, "MaxResults": 5}),
    ("DescribeExport", {"ExportArn": TABLE_ARN + "/export/01735689600000-0a1b2c3d"}),
    ("UpdateContributorInsights", {"TableName": "tbl", "ContributorInsightsAction": "ENABLE"}),
    ("DescribeContributorInsights", {"TableName": "tbl"}),
    ("ListContributorInsights", {"MaxResults": 3}),
]


def write(target, name, data):
    directory = os.path.join(ROOT, target)
    os.makedirs(directory, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(directory, "seed-" + name), "wb") as f:
        f.write(data)


def body(request):
    return json.dumps(request, separators=(",", ":"))


def request_seeds():
    for i, (operation, request) in enumerate(REQUESTS):
        write("request", "%02d-%s" % (i, operation),
              bytes([OPERATIONS.index(operation)]) + body(request).encode())
    write("request", "by-name", b"\xffDynamoDB_20120810.DescribeTable\n{\"TableName\":\"tbl\"}")
    write("request", "not-json", bytes([OPERATIONS.index("PutItem")]) + b"{\"TableName\":")


def attribute_value_seeds():
    values = [ITEM, {"S": "x"}, {"N": "-1.0e-130"}, {"N": "99999999999999999999999999999999999999"},
              {"B": "AAECAw=="}, {"SS": ["b", "a"]}, {"NS": ["1", "01"]}, {"BS": ["AA==", "AQ=="]},
              {"L": [{"M": {"a": {"NULL": True}}}, {"BOOL": False}]}, {"S": "x", "N": "1"},
              {"NS": []}, {"N": "1e126"}, {"M": {"": {"S": ""}}}]
    for i, v in enumerate(values):
        write("attribute_value_json", "%02d" % i, json.dumps(v))
    nested = {"S": "deep"}
    for _ in range(33):
        nested = {"L": [nested]}
    write("attribute_value_json", "nested", json.dumps(nested))


EXPRESSIONS = [
    (0, "attribute_exists(#m.k[2].d) AND NOT (b BETWEEN :z AND :n) OR a IN (:s, :e)"),
    (0, "size(#l) >= :n AND contains(ss, :s) AND attribute_type(bin, :s) AND begins_with(a, :s)"),
    (0, "#s = :s AND (n < :big OR n <> :tiny) AND attribute_not_exists(nope)\n:x={\"S\":\"y\"}"),
    (0, "#dot.x = :x\n#dot=a.b\n:x={\"NS\":[\"1\"]}"),
    (1, "SET #a = :s, b = b + :n, l[1] = list_append(l, :l), m.k[5] = if_not_exists(z, :m) "
        "REMOVE ss, n ADD ns :ns, c :n DELETE bs :bs"),
    (1, "SET big = big + :big, n = n - :tiny, l[10] = :t"),
    (1, "ADD ss :ss DELETE ns :ns SET m.k = :null"),
    (2, "#m.k[0], l[2][0], ss, #s, a.b.c"),
    (3, "#pk = :s AND sk BETWEEN :z AND :n"),
    (3, "pk = :s AND begins_with(sk, :n)"),
    (4, "bin = :b"),
    (5, "pk = :s AND b = :n AND a = :s AND sk > :z"),
]


def expression_seeds():
    for i, (kind, text) in enumerate(EXPRESSIONS):
        write("expression", "%02d" % i, bytes([kind]) + text.encode())


STATEMENTS = [
    (0, "SELECT * FROM tbl WHERE pk = 'a' AND sk BETWEEN 1 AND 3 ORDER BY sk DESC"),
    (2, "SELECT pk, m.k[0], \"x y\" FROM \"t\".\"lsi\" WHERE pk = ? AND l IN [?, 'b']"),
    (1, "INSERT INTO tbl VALUE {'pk': ?, 'sk': 1.5e3, 'l': [1, 'x', TRUE, NULL, {'a': <<1, 2>>}]}"),
    (0, "UPDATE tbl SET a = a + 1, b = list_append(b, [2]) SET c = set_add(c, <<'x'>>) "
        "REMOVE d.e[1] WHERE pk = 'a' AND sk = 1 AND attribute_exists(a) RETURNING MODIFIED OLD *"),
    (5, "DELETE FROM tbl WHERE pk = ? AND sk = ? AND NOT (x IS MISSING OR y IS NOT NULL) "
        "RETURNING ALL OLD *"),
    (0, "select * from t where begins_with(pk, 'a') and size(l) > 2 and contains(m, 'k')"),
    (0, "SELECT * FROM t.a.b"),
    (3, "SELECT * FROM tbl WHERE pk = ? AND sk = ?"),
]


def partiql_seeds():
    for i, (count, text) in enumerate(STATEMENTS):
        write("partiql", "%02d" % i, bytes([count]) + text.encode())


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def lp(b):
    return varint(len(b)) + b


def encode_value(v):
    (t, x), = v.items()
    tags = {"S": 1, "N": 2, "B": 3, "BOOL": 4, "NULL": 5, "M": 6, "L": 7, "SS": 8, "NS": 9, "BS": 10}
    out = bytes([tags[t]])
    if t in ("S", "N"):
        return out + lp(x.encode())
    if t == "B":
        return out + lp(base64.b64decode(x))
    if t == "BOOL":
        return out + bytes([1 if x else 0])
    if t == "NULL":
        return out
    if t in ("SS", "NS"):
        return out + varint(len(x)) + b"".join(lp(m.encode()) for m in sorted(x))
    if t == "BS":
        return out + varint(len(x)) + b"".join(lp(base64.b64decode(m)) for m in sorted(x))
    if t == "L":
        return out + varint(len(x)) + b"".join(encode_value(e) for e in x)
    return out + encode_map(x)


def encode_map(m):
    return varint(len(m)) + b"".join(lp(k.encode()) + encode_value(m[k]) for k in sorted(m))


def codec_seeds():
    item = {k: v for k, v in ITEM.items() if k != "ns"}
    write("codec", "item", b"\x00\x01" + encode_map(item))
    write("codec", "item-empty", b"\x00\x01\x00")
    write("codec", "sortkey-s", b"\x01\x00abc")
    write("codec", "sortkey-b", b"\x01\x02\x00\xff")
    write("codec", "number-text", b"\x03-12.50e-3")
    write("codec", "number-big", b"\x03" + b"9" * 38 + b"E+87")
    change_value = struct.pack(">IQ", 7, 1735689600000) + lp(b"\x00\x00\x00\x07key") + b"\x00" + \
        b"\x01" + lp(b"\x01" + encode_map({"a": {"S": "b"}}))
    write("codec", "change", b"\x04" + struct.pack(">Q", 42) + change_value)
    write("codec", "stream-record", b"\x05\x08" + struct.pack(">Q", 42) + b"\x00" + change_value)
    write("codec", "ttl-entry", b"\x06" + struct.pack(">IQ", 7, 1735689600) + b"itemkey")
    write("codec", "base64", b"\x07AAECAw==")
    write("codec", "label", b"\x082025-01-01T00:00:00.000")
    write("codec", "sequence", b"\x08000000000000000000042")
    write("codec", "arn", b"\x08" + TABLE_ARN.encode() + b"/stream/2025-01-01T00:00:00.000")


def paging_seeds():
    write("paging", "records-raw", b"\x00" + TABLE_ARN.encode() +
          b"/stream/2025-01-01T00:00:00.000|1|AQAAAAEAAAAAAAAAAQAAAZQbZkIAAAAAAAAAAAA=")
    write("paging", "records-forged", b"\x01" + struct.pack(">QIB", 1, 1000, 0))
    write("paging", "records-forged-far", b"\x01" + struct.pack(">QIB", 2 ** 63, 2 ** 31, 9) +
          b"2025-01-01T00:00:00.000\n\x00\x05")
    for i, (kind, seq) in enumerate([("TRIM_HORIZON", ""), ("LATEST", ""),
                                     ("AT_SEQUENCE_NUMBER", "000000000000000000002"),
                                     ("AFTER_SEQUENCE_NUMBER", "1")]):
        write("paging", "shard-iterator-%d" % i, b"\x02" + ("%s\n%s" % (kind, seq)).encode())
    write("paging", "shard-iterator-other", b"\x02TRIM_HORIZON\n\nshardId-1\n" + TABLE_ARN.encode() +
          b"/stream/x")
    keys = [(0, {"pk": {"S": "a"}, "sk": {"N": "1"}}),
            (1, {"pk": {"S": "a"}, "sk": {"N": "1"}, "l": {"S": "x"}}),
            (2, {"pk": {"S": "a"}, "sk": {"N": "1"}, "g": {"S": "y"}}),
            (3, {"pk": {"S": "a"}, "sk": {"N": "-1e-5"}}),
            (4, {"g": {"S": "y"}}), (5, {"id": {"B": "AQI="}})]
    for i, (read, key) in enumerate(keys):
        write("paging", "start-key-%d" % i, b"\x03" + bytes([read]) + body(key).encode())
    write("paging", "next-token-raw", b"\x04eyJzIjoiIiwiayI6e319")
    write("paging", "next-token-key", b"\x05" + body({"pk": {"S": "a"}, "sk": {"N": "1"}}).encode())


def http_request(method, path, headers, payload=b""):
    lines = ["%s %s HTTP/1.1" % (method, path)] + ["%s: %s" % h for h in headers]
    if payload or method == "POST":
        lines.append("Content-Length: %d" % len(payload))
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + payload


AUTH = ("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDFUZZ/20250101/us-east-1/dynamodb/"
        "aws4_request, SignedHeaders=host;x-amz-date, Signature=" + "0" * 64)


def http_seeds():
    put = body({"TableName": "tbl", "Item": ITEM}).encode()
    post = http_request("POST", "/", [("Host", "localhost"), ("X-Amz-Target",
                        "DynamoDB_20120810.ListTables"), ("Content-Type",
                        "application/x-amz-json-1.0"), ("X-Amz-Date", "20250101T000000Z"), AUTH],
                        b"{}")
    write("http", "list-tables", b"\x00" + post)
    write("http", "list-tables-verify", b"\x01" + post)
    write("http", "health-keepalive", b"\x00" + http_request("GET", "/", [("Host", "x")]) * 2)
    write("http", "metrics", b"\x00" + http_request("GET", "/metrics", [("Host", "x")]))
    write("http", "preflight", b"\x00" + http_request("OPTIONS", "/", [
        ("Origin", "http://a"), ("Access-Control-Request-Method", "POST"),
        ("Access-Control-Request-Headers", "x-amz-target")]))
    import zlib
    gz = zlib.compressobj(wbits=31)
    gzipped = gz.compress(put) + gz.flush()
    write("http", "gzip-put", b"\x00" + http_request("POST", "/", [
        ("X-Amz-Target", "DynamoDB_20120810.PutItem"), ("Content-Encoding", "gzip"),
        ("Accept-Encoding", "gzip, deflate"), AUTH], gzipped))
    write("http", "chunked", b"\x00POST / HTTP/1.1\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
          b"Authorization: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
    write("http", "partial", b"\x00POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\n{")
    write("http", "http10", b"\x00GET / HTTP/1.0\r\n\r\n")


def signed(method, target, headers, payload, key="AKIDFUZZ", secret="fuzzsecret"):
    amz_date, date = "20250101T000000Z", "20250101"
    signed_names = sorted(h[0].lower() for h in headers)
    canonical_headers = "".join("%s:%s\n" % (h[0].lower(), h[1].strip()) for h in
                                sorted(headers, key=lambda h: h[0].lower()))
    path, _, query = target.partition("?")
    canonical = "\n".join([method, path, query, canonical_headers, ";".join(signed_names),
                           hashlib.sha256(payload).hexdigest()])
    scope = "%s/us-east-1/dynamodb/aws4_request" % date
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope,
                         hashlib.sha256(canonical.encode()).hexdigest()])
    k = ("AWS4" + secret).encode()
    for part in (date, "us-east-1", "dynamodb", "aws4_request"):
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    signature = hmac.new(k, to_sign.encode(), hashlib.sha256).hexdigest()
    return "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s" % (
        key, scope, ";".join(signed_names), signature)


def import_formats_seeds():
    # Byte 0: 0 DynamoDB JSON, 1 Ion, 2 CSV (byte 1: the delimiter); then one record.
    json_line = json.dumps({"Item": ITEM}, separators=(",", ":"))
    write("import_formats", "json", b"\x00\x00" + json_line.encode())
    write("import_formats", "json-empty", b"\x00\x00   ")
    ion = ('$ion_1_0 {Item:{pk:"a",sk:3.,n:1.5e0,d:12.50,b:{{AAE=}},t:true,z:null,'
           'l:["x",[1,2]],m:{k:"v"},ss:$dynamodb_SS::["a","b"],ns:$dynamodb_NS::[1,2.]}}')
    write("import_formats", "ion", b"\x01\x00" + ion.encode())
    write("import_formats", "csv", b"\x02," + b'a,1,"quoted, with ""quotes""",4.5')
    write("import_formats", "csv-tab", b"\x02\t" + b"pk\tsk\ta\tb")


def sigv4_seeds():
    write("sigv4", "authorization", b"\x00" + AUTH[1].encode())
    write("sigv4", "authorization-blanks", b"\x00AWS4-HMAC-SHA256 Signature=ab,,Credential=K/20250101"
          b"/eu-west-1/dynamodb/aws4_request SignedHeaders=host")
    write("sigv4", "path-query", b"\x01/a/./b/../%41 c//d?X-Amz-Date=1&b=%2&a=&a=z+y")
    write("sigv4", "credentials", b"\x02[profile p]\naws_access_key_id = K ; c\n"
          b"aws_secret_access_key=s\naccount_id = 111122223333\n# x\n[q]\nfoo=bar\n")
    headers = [("Host", "localhost:8000"), ("X-Amz-Date", "20250101T000000Z"),
               ("X-Amz-Target", "DynamoDB_20120810.ListTables")]
    auth = signed("POST", "/", headers, b"{}")
    write("sigv4", "verify-signed", b"\x03POST\n/\n" + "".join(
        "%s: %s\n" % h for h in headers + [("Authorization", auth)]).encode() + b"\n{}")
    query = ("/?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDFUZZ%2F20250101%2Fus-east-1"
             "%2Fdynamodb%2Faws4_request&X-Amz-Date=20250101T000000Z&X-Amz-Expires=60"
             "&X-Amz-SignedHeaders=host&X-Amz-Signature=" + "0" * 64)
    write("sigv4", "verify-presigned", b"\x03GET\n" + query.encode() + b"\nHost: localhost\n\n")
    token_headers = headers + [("X-Amz-Security-Token", "sessiontoken")]
    auth = signed("POST", "/", token_headers, b"{}", "AKIDTOKEN", "tokensecret")
    write("sigv4", "verify-token", b"\x03POST\n/\n" + "".join(
        "%s: %s\n" % h for h in token_headers + [("Authorization", auth)]).encode() + b"\n{}")


def s3_request(method, target, headers=(), payload=b""):
    head = "".join("%s: %s\n" % h for h in headers)
    return ("%s\n%s\n%s\n" % (method, target, head)).encode() + payload


def s3_seeds():
    write("s3", "create-bucket", s3_request("PUT", "/bkt"))
    write("s3", "put-object", s3_request("PUT", "/bkt/dir/a%20b.json?x-id=PutObject",
                                         [("Content-MD5", "XrY7u+Ae7tCTyyK7j1rNww==")],
                                         b"hello world"))
    write("s3", "put-chunked", s3_request(
        "PUT", "/bkt/c.txt", [("Content-Encoding", "aws-chunked"),
                              ("x-amz-content-sha256", "STREAMING-UNSIGNED-PAYLOAD-TRAILER"),
                              ("x-amz-decoded-content-length", "11"),
                              ("x-amz-trailer", "x-amz-checksum-crc32")],
        b"6\r\nhello \r\n5\r\nworld\r\n0\r\nx-amz-checksum-crc32:DUoRhQ==\r\n\r\n"))
    write("s3", "get-range", s3_request("GET", "/bkt/dir/a%20b.json", [("Range", "bytes=2-")]))
    write("s3", "head", s3_request("HEAD", "/bkt/dir/a%20b.json", [("If-None-Match", "*")]))
    write("s3", "list-v2", s3_request(
        "GET", "/bkt?list-type=2&prefix=dir%2F&delimiter=%2F&max-keys=1&encoding-type=url"))
    write("s3", "list-v1", s3_request("GET", "/bkt?marker=a&max-keys=2"))
    write("s3", "list-buckets", s3_request("GET", "/"))
    write("s3", "copy", s3_request("PUT", "/bkt/copy", [("x-amz-copy-source", "/bkt/c.txt")]))
    write("s3", "delete-objects", s3_request(
        "POST", "/bkt?delete",
        payload=b"<Delete><Object><Key>c.txt</Key></Object><Quiet>true</Quiet></Delete>"))
    write("s3", "multipart-create", s3_request("POST", "/bkt/big?uploads"))
    write("s3", "multipart-complete", s3_request(
        "POST", "/bkt/big?uploadId=abcdefghijklmnopqrstuvwxyz012345",
        payload=b"<CompleteMultipartUpload><Part><PartNumber>1</PartNumber>"
                b"<ETag>\"5eb63bbbe01eeed093cb22bb8f5acdc3\"</ETag></Part></CompleteMultipartUpload>"))
    write("s3", "escape", s3_request("PUT", "/bkt/..%2F..%2Fescape", payload=b"x"))
    write("s3", "delete-bucket", s3_request("DELETE", "/bkt"))


# tests/fuzz/stateful_fuzz.cc: byte 0 the mode (0xd5: on disk), then per step an opcode byte,
# a table slot byte (tb0..tb2) and the bytes the step reads (see the decoder there).
class Steps:
    CREATE, DELETE_TABLE, CAPACITY, INDEX, STREAM, PUT, UPDATE, DELETE = 0, 2, 3, 4, 5, 6, 8, 10
    QUERY, SCAN, BATCH_WRITE, BATCH_GET, TRANSACT_WRITE, TRANSACT_GET = 11, 12, 13, 14, 15, 16
    PARTIQL, BACKUP, TTL, OTHER = 17, 18, 19, 20
    ATTRIBUTES = ["a", "b", "c", "g", "l", "ttl"]

    def __init__(self, disk=False):
        self.data = bytearray([0xD5 if disk else 0])

    def step(self, op, slot, *rest):
        self.data += bytes([op, slot, *rest])
        return self

    @staticmethod
    def item(pk, sk=None, **attrs):
        """ItemFor: key bytes, the attribute mask, then each attribute's value bytes (40+:
        the attribute's usual value: c a number from the pool, g/l "g1"/"l1" (odd) or "g2"/"l2")."""
        out = [pk] + ([] if sk is None else [sk])
        mask = sum(1 << i for i, a in enumerate(Steps.ATTRIBUTES) if a in attrs)
        out.append(mask)
        for a in Steps.ATTRIBUTES:
            if a in attrs:
                out += attrs[a]
        return out


def stateful_seeds():
    # tb0: S hash, N range, LSI, GSI gsiA (ALL), NEW_AND_OLD_IMAGES stream; tb1: N hash only.
    s = Steps()
    s.step(Steps.CREATE, 0, 0, 1, 1 | 4 | 8, 1, 0, 3)
    s.step(Steps.CREATE, 1, 1, 3, 0)
    s.step(Steps.PUT, 0, *Steps.item(0, 0, a=[0, 1, 2], c=[40, 3], g=[41], l=[41]), 1, 0)
    s.step(Steps.PUT, 0, *Steps.item(0, 1, a=[0, 5, 3], g=[42], ttl=[41]), 1, 1)
    s.step(Steps.PUT, 0, *Steps.item(1, 2, b=[0, 8, 2, 1, 0, 3, 1]), 1, 0)
    # UpdateItem tb0 (a, 1): ADD c 1, SET g = if_not_exists(g, "g1"), if attribute_exists(pk).
    s.step(Steps.UPDATE, 0, 0, 0, 0, 1, 1, 3, 2, 0, 1, 3, 41, 1)
    s.step(Steps.PUT, 1, *Steps.item(0, a=[0, 6, 5]), 1, 0)
    s.step(Steps.UPDATE, 1, 0, 1, 1, 4, 0, 6, 1, 1, 0)  # SET a = a + 1 (a is a set: refused)
    s.step(Steps.QUERY, 0, 0, 0, 1, 0, 1, 1)
    s.step(Steps.SCAN, 0, 1, 2, 4, 0, 1, 2)
    s.step(Steps.BATCH_WRITE, 0, 1, 0, 1, *Steps.item(2, 0, g=[42]), 1, 0, 0, 1)
    s.step(Steps.TRANSACT_WRITE, 0, 1, 0, 1, *Steps.item(2, 2, c=[40, 1]), 0, 1, 3, 1, 1, 0, 0, 0)
    s.step(Steps.TRANSACT_GET, 0, 1, 0, 0, 0, 1, 0)
    s.step(Steps.PARTIQL, 0, 0, *Steps.item(1, 0, a=[0, 3, 1]))  # INSERT
    s.step(Steps.PARTIQL, 0, 1, 0, 0, 0, 1, 0, 4)  # UPDATE SET a
    s.step(Steps.PARTIQL, 0, 3, 0, 0)  # SELECT one partition
    s.step(Steps.PARTIQL, 0, 4, 0, 0, 2)  # SELECT all, 2 a page
    s.step(Steps.BACKUP, 0, 0)  # CreateBackup tb0
    s.step(Steps.DELETE, 0, 1, 2, 1)
    s.step(Steps.BACKUP, 2, 1, 0)  # restore it as tb2
    s.step(Steps.INDEX, 0, 0, 1, 1)  # create gsiB (KEYS_ONLY)
    s.step(Steps.STREAM, 1, 1, 1)  # tb1: NEW_IMAGE stream
    s.step(Steps.PUT, 1, *Steps.item(1, c=[40, 2]), 1, 0)
    s.step(Steps.TTL, 0, 1, 1)
    s.step(Steps.OTHER, 0, 0, 20)  # time passes
    s.step(Steps.BATCH_GET, 0, 2, 0, 0, 0, 1, 1, 2, 0, 2)
    s.step(Steps.DELETE_TABLE, 2)
    write("stateful", "everything", bytes(s.data))

    # On disk: the store is closed and reopened between writes.
    s = Steps(disk=True)
    s.step(Steps.CREATE, 0, 2, 0, 1 | 4 | 8, 0, 2, 0)
    s.step(Steps.PUT, 0, *Steps.item(1, 1, c=[40, 4], l=[42]), 1, 0)
    s.step(Steps.OTHER, 0, 1)  # reopen
    s.step(Steps.UPDATE, 0, 1, 1, 1, 0, 2, 0, 1, 0, 1)
    s.step(Steps.OTHER, 0, 1)
    s.step(Steps.DELETE, 0, 1, 1, 1)
    write("stateful", "reopen", bytes(s.data))

    # Capacities: provisioned tables, huge and odd units (regress-huge-throughput-scan is the
    # 10^12 RCU/WCU one that once hung the Scan after it).
    s = Steps()
    s.step(Steps.CREATE, 0, 0, 3, 16 | 4, 0, 2)
    s.step(Steps.PUT, 0, *Steps.item(0, c=[40, 0]), 1, 0)
    s.step(Steps.CAPACITY, 0, 1 | 2 | 4 | 16 | 32 | 64, 6, 7)
    s.step(Steps.CAPACITY, 0, 1 | 8, 4, 5)
    s.step(Steps.SCAN, 0, 0, 0, 3)
    s.step(Steps.DELETE_TABLE, 0)
    s.step(Steps.CAPACITY, 0, 16)
    s.step(Steps.DELETE_TABLE, 0)
    write("stateful", "capacity", bytes(s.data))


if __name__ == "__main__":
    request_seeds()
    attribute_value_seeds()
    expression_seeds()
    partiql_seeds()
    codec_seeds()
    paging_seeds()
    http_seeds()
    sigv4_seeds()
    import_formats_seeds()
    s3_seeds()
    stateful_seeds()
