// AWS SDK for JavaScript v3 (low-level client and DocumentClient) against ddb-server:
// every operation the way applications use them, and the error shapes the SDK parses.
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import {
  CreateTableCommand, DescribeTableCommand, ListTablesCommand, UpdateTableCommand, DeleteTableCommand,
  PutItemCommand, GetItemCommand, UpdateItemCommand, DeleteItemCommand, QueryCommand, ScanCommand,
  BatchGetItemCommand, BatchWriteItemCommand, TransactWriteItemsCommand, TransactGetItemsCommand,
  UpdateTimeToLiveCommand, DescribeTimeToLiveCommand, TagResourceCommand, UntagResourceCommand,
  ListTagsOfResourceCommand, DescribeEndpointsCommand, DescribeLimitsCommand,
  ConditionalCheckFailedException, TransactionCanceledException, ResourceNotFoundException,
  ResourceInUseException, waitUntilTableExists, waitUntilTableNotExists, paginateQuery, paginateScan,
  paginateListTables, DynamoDBServiceException,
} from "@aws-sdk/client-dynamodb";
import {
  PutCommand, GetCommand, UpdateCommand, DeleteCommand, QueryCommand as DocQuery, ScanCommand as DocScan,
  BatchGetCommand, BatchWriteCommand, TransactWriteCommand, TransactGetCommand, paginateQuery as docPaginateQuery,
  paginateScan as docPaginateScan, ExecuteStatementCommand,
} from "@aws-sdk/lib-dynamodb";
import { marshall, unmarshall, NumberValueImpl as NumberValue } from "@aws-sdk/util-dynamodb";
import { startServer, uniqueName } from "./helpers/server.mjs";

let srv, ddb, doc;
const TABLE = uniqueName("sdk");

before(async () => {
  srv = await startServer();
  ddb = srv.client();
  doc = srv.doc(ddb, { marshallOptions: { removeUndefinedValues: true } });
  await ddb.send(new CreateTableCommand({
    TableName: TABLE,
    AttributeDefinitions: [
      { AttributeName: "pk", AttributeType: "S" },
      { AttributeName: "sk", AttributeType: "S" },
      { AttributeName: "gsi1pk", AttributeType: "S" },
      { AttributeName: "gsi1sk", AttributeType: "N" },
      { AttributeName: "lsisk", AttributeType: "N" },
    ],
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
    GlobalSecondaryIndexes: [{
      IndexName: "gsi1",
      KeySchema: [{ AttributeName: "gsi1pk", KeyType: "HASH" }, { AttributeName: "gsi1sk", KeyType: "RANGE" }],
      Projection: { ProjectionType: "ALL" },
    }],
    LocalSecondaryIndexes: [{
      IndexName: "lsi1",
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "lsisk", KeyType: "RANGE" }],
      Projection: { ProjectionType: "INCLUDE", NonKeyAttributes: ["title"] },
    }],
    BillingMode: "PAY_PER_REQUEST",
    Tags: [{ Key: "env", Value: "test" }],
  }));
  const w = await waitUntilTableExists({ client: ddb, maxWaitTime: 20, minDelay: 1 }, { TableName: TABLE });
  assert.equal(w.state, "SUCCESS");
});

after(async () => {
  await srv?.stop();
});

async function eventually(fn, timeoutMs = 5000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (Date.now() > end) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

describe("tables", () => {
  test("DescribeTable shows the schema, indexes and ACTIVE status", async () => {
    const { Table } = await ddb.send(new DescribeTableCommand({ TableName: TABLE }));
    assert.equal(Table.TableName, TABLE);
    assert.equal(Table.TableStatus, "ACTIVE");
    assert.ok(Table.CreationDateTime instanceof Date);
    assert.ok(Math.abs(Table.CreationDateTime.getTime() - Date.now()) < 120000);
    assert.match(Table.TableArn, new RegExp(`^arn:aws:dynamodb:us-east-1:\\d{12}:table/${TABLE}$`));
    assert.equal(Table.BillingModeSummary.BillingMode, "PAY_PER_REQUEST");
    assert.equal(Table.GlobalSecondaryIndexes[0].IndexName, "gsi1");
    assert.equal(Table.GlobalSecondaryIndexes[0].IndexStatus, "ACTIVE");
    assert.match(Table.GlobalSecondaryIndexes[0].IndexArn, /table\/.*\/index\/gsi1$/);
    assert.deepEqual(Table.LocalSecondaryIndexes[0].Projection, { ProjectionType: "INCLUDE", NonKeyAttributes: ["title"] });
    assert.equal(typeof Table.ItemCount, "number");
    assert.equal(typeof Table.TableSizeBytes, "number");
  });

  test("ListTables with pagination", async () => {
    const names = [];
    for (let i = 0; i < 3; i++) {
      const n = uniqueName("lt");
      names.push(n);
      await ddb.send(new CreateTableCommand({
        TableName: n, BillingMode: "PAY_PER_REQUEST",
        AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }],
        KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
      }));
    }
    const seen = [];
    for await (const page of paginateListTables({ client: ddb, pageSize: 2 }, {})) {
      assert.ok(page.TableNames.length <= 2);
      seen.push(...page.TableNames);
    }
    for (const n of names) assert.ok(seen.includes(n));
    assert.deepEqual([...seen].sort(), seen, "ListTables returns names in order");
    for (const n of names) await ddb.send(new DeleteTableCommand({ TableName: n }));
    await waitUntilTableNotExists({ client: ddb, maxWaitTime: 20, minDelay: 1 }, { TableName: names[0] });
    const err = await ddb.send(new DescribeTableCommand({ TableName: names[0] })).catch((e) => e);
    assert.ok(err instanceof ResourceNotFoundException);
    assert.equal(err.name, "ResourceNotFoundException");
    assert.equal(err.$metadata.httpStatusCode, 400);
    assert.equal(err.$fault, "client");
  });

  test("CreateTable on an existing name is ResourceInUseException", async () => {
    const err = await ddb.send(new CreateTableCommand({
      TableName: TABLE, BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    })).catch((e) => e);
    assert.ok(err instanceof ResourceInUseException, err.name);
    assert.equal(err.$metadata.httpStatusCode, 400);
  });

  test("UpdateTable: provisioned throughput, then a new GSI", async () => {
    const n = uniqueName("ut");
    await ddb.send(new CreateTableCommand({
      TableName: n,
      AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
      ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 },
    }));
    await waitUntilTableExists({ client: ddb, maxWaitTime: 20, minDelay: 1 }, { TableName: n });
    const r = await ddb.send(new UpdateTableCommand({
      TableName: n, ProvisionedThroughput: { ReadCapacityUnits: 10, WriteCapacityUnits: 7 },
    }));
    assert.equal(r.TableDescription.TableName, n);
    await ddb.send(new PutItemCommand({ TableName: n, Item: marshall({ id: "a", email: "a@x" }) }));
    await eventually(async () => {
      const d = (await ddb.send(new DescribeTableCommand({ TableName: n }))).Table;
      assert.equal(d.TableStatus, "ACTIVE");
    });
    await ddb.send(new UpdateTableCommand({
      TableName: n,
      AttributeDefinitions: [{ AttributeName: "email", AttributeType: "S" }],
      GlobalSecondaryIndexUpdates: [{
        Create: {
          IndexName: "byEmail",
          KeySchema: [{ AttributeName: "email", KeyType: "HASH" }],
          Projection: { ProjectionType: "KEYS_ONLY" },
          ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
        },
      }],
    }));
    await eventually(async () => {
      const d = (await ddb.send(new DescribeTableCommand({ TableName: n }))).Table;
      assert.equal(d.GlobalSecondaryIndexes[0].IndexStatus, "ACTIVE");
      assert.equal(d.ProvisionedThroughput.ReadCapacityUnits, 10);
    }, 10000);
    const q = await eventually(async () => {
      const q = await ddb.send(new QueryCommand({
        TableName: n, IndexName: "byEmail", KeyConditionExpression: "email = :e",
        ExpressionAttributeValues: { ":e": { S: "a@x" } },
      }));
      assert.equal(q.Count, 1);
      return q;
    });
    assert.deepEqual(unmarshall(q.Items[0]), { id: "a", email: "a@x" });
    await ddb.send(new DeleteTableCommand({ TableName: n }));
  });

  test("TTL and tags", async () => {
    const ttl = await ddb.send(new UpdateTimeToLiveCommand({
      TableName: TABLE, TimeToLiveSpecification: { AttributeName: "expiresAt", Enabled: true },
    }));
    assert.deepEqual(ttl.TimeToLiveSpecification, { AttributeName: "expiresAt", Enabled: true });
    const d = await ddb.send(new DescribeTimeToLiveCommand({ TableName: TABLE }));
    assert.equal(d.TimeToLiveDescription.TimeToLiveStatus, "ENABLED");
    assert.equal(d.TimeToLiveDescription.AttributeName, "expiresAt");

    const arn = (await ddb.send(new DescribeTableCommand({ TableName: TABLE }))).Table.TableArn;
    await ddb.send(new TagResourceCommand({ ResourceArn: arn, Tags: [{ Key: "team", Value: "db" }] }));
    let tags = (await ddb.send(new ListTagsOfResourceCommand({ ResourceArn: arn }))).Tags;
    assert.deepEqual(tags.sort((a, b) => a.Key.localeCompare(b.Key)), [{ Key: "env", Value: "test" }, { Key: "team", Value: "db" }]);
    await ddb.send(new UntagResourceCommand({ ResourceArn: arn, TagKeys: ["env"] }));
    tags = (await ddb.send(new ListTagsOfResourceCommand({ ResourceArn: arn }))).Tags;
    assert.deepEqual(tags, [{ Key: "team", Value: "db" }]);
  });

  test("DescribeLimits and DescribeEndpoints", async () => {
    const l = await ddb.send(new DescribeLimitsCommand({}));
    assert.equal(typeof l.TableMaxReadCapacityUnits, "number");
    const e = await ddb.send(new DescribeEndpointsCommand({}));
    assert.ok(e.Endpoints.length >= 1);
    assert.equal(typeof e.Endpoints[0].CachePeriodInMinutes, "number");
  });
});

describe("HTTP", () => {
  test("responses carry x-amzn-RequestId, x-amz-crc32 and a Date the SDK can use for clock skew", async () => {
    const c = srv.client();
    const seen = [];
    c.middlewareStack.add((next) => async (args) => {
      const out = await next(args);
      seen.push(out.response.headers);
      return out;
    }, { step: "deserialize", name: "captureHeaders" });
    await c.send(new ListTablesCommand({}));
    const h = seen[0];
    assert.match(h["x-amzn-requestid"], /^[A-Z0-9]{52}$/);
    assert.match(h["x-amz-crc32"], /^\d+$/);
    assert.ok(h.date, "Date header");
    assert.ok(Math.abs(Date.parse(h.date) - Date.now()) < 120000);
    assert.equal(h["content-type"], "application/x-amz-json-1.0");
  });
});

describe("items (low-level)", () => {
  test("every attribute type round-trips through marshall/unmarshall", async () => {
    const item = {
      pk: "types", sk: "1",
      s: "héllo ☃", empty: "", n: 42, neg: -3.25, zero: 0,
      big: new NumberValue("12345678901234567890123456789012345678"),
      tiny: new NumberValue("1E-130"),
      bin: new Uint8Array([0, 1, 2, 255]), emptyBin: new Uint8Array([]),
      t: true, f: false, nul: null,
      l: [1, "two", [3], { four: 4 }], m: { a: { b: { c: "deep" } }, e: "" },
      ss: new Set(["b", "a"]), ns: new Set([3, 1, 2]), bs: new Set([new Uint8Array([1]), new Uint8Array([2])]),
    };
    await ddb.send(new PutItemCommand({ TableName: TABLE, Item: marshall(item) }));
    const { Item } = await ddb.send(new GetItemCommand({ TableName: TABLE, Key: marshall({ pk: "types", sk: "1" }), ConsistentRead: true }));
    const got = unmarshall(Item, { wrapNumbers: true });
    assert.equal(got.big.value, "12345678901234567890123456789012345678");
    assert.equal(Number(got.tiny.value), 1e-130);
    assert.equal(got.n.value, "42");
    assert.equal(got.neg.value, "-3.25");
    assert.equal(got.zero.value, "0");
    const plain = unmarshall(Item, { wrapNumbers: (s) => s });
    assert.equal(plain.s, "héllo ☃");
    assert.equal(plain.empty, "");
    assert.deepEqual(plain.bin, new Uint8Array([0, 1, 2, 255]));
    assert.deepEqual(plain.emptyBin, new Uint8Array([]));
    assert.equal(plain.t, true);
    assert.equal(plain.f, false);
    assert.equal(plain.nul, null);
    assert.deepEqual(plain.l, ["1", "two", ["3"], { four: "4" }]);
    assert.deepEqual(plain.m, { a: { b: { c: "deep" } }, e: "" });
    assert.deepEqual([...plain.ss].sort(), ["a", "b"]);
    assert.deepEqual([...plain.ns].sort(), ["1", "2", "3"]);
    assert.deepEqual([...plain.bs].map((b) => b[0]).sort(), [1, 2]);
  });

  test("numbers past Number.MAX_SAFE_INTEGER need NumberValue, and the server keeps all 38 digits", async () => {
    await ddb.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: "num" }, sk: { S: "1" }, v: { N: "9007199254740993" }, e: { N: "1.5e3" }, z: { N: "-0.000" } } }));
    const { Item } = await ddb.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: "num" }, sk: { S: "1" } } }));
    assert.deepEqual(Item.v, { N: "9007199254740993" });
    assert.deepEqual(Item.e, { N: "1500" });
    assert.deepEqual(Item.z, { N: "0" });
    assert.equal(unmarshall(Item).v, 9007199254740993n, "util-dynamodb turns unsafe integers into BigInt");
    const err = await ddb.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: "num" }, sk: { S: "2" }, v: { N: "1" + "0".repeat(38) + "1" } } })).catch((e) => e);
    assert.equal(err.name, "ValidationException");
    assert.match(err.message, /Attempting to store more than 38 significant digits in a Number/);
  });

  test("Put with a condition: ConditionalCheckFailedException as the SDK parses it", async () => {
    await ddb.send(new PutItemCommand({ TableName: TABLE, Item: marshall({ pk: "c", sk: "1", v: 1 }) }));
    const err = await ddb.send(new PutItemCommand({
      TableName: TABLE, Item: marshall({ pk: "c", sk: "1", v: 2 }),
      ConditionExpression: "attribute_not_exists(pk)",
      ReturnValuesOnConditionCheckFailure: "ALL_OLD",
    })).catch((e) => e);
    assert.ok(err instanceof ConditionalCheckFailedException, `${err.name}: ${err.message}`);
    assert.ok(err instanceof DynamoDBServiceException);
    assert.equal(err.name, "ConditionalCheckFailedException");
    assert.equal(err.message, "The conditional request failed");
    assert.equal(err.$metadata.httpStatusCode, 400);
    assert.equal(err.$fault, "client");
    assert.ok(err.$metadata.requestId, "x-amzn-RequestId is surfaced");
    assert.deepEqual(unmarshall(err.Item), { pk: "c", sk: "1", v: 1 });

    const err2 = await ddb.send(new PutItemCommand({
      TableName: TABLE, Item: marshall({ pk: "c", sk: "1", v: 2 }), ConditionExpression: "v = :two",
      ExpressionAttributeValues: { ":two": { N: "2" } },
    })).catch((e) => e);
    assert.equal(err2.name, "ConditionalCheckFailedException");
    assert.equal(err2.Item, undefined);
  });

  test("Put/Update/Delete ReturnValues", async () => {
    const key = marshall({ pk: "rv", sk: "1" });
    const p1 = await ddb.send(new PutItemCommand({ TableName: TABLE, Item: marshall({ pk: "rv", sk: "1", a: 1 }), ReturnValues: "ALL_OLD" }));
    assert.equal(p1.Attributes, undefined);
    const p2 = await ddb.send(new PutItemCommand({ TableName: TABLE, Item: marshall({ pk: "rv", sk: "1", a: 2, b: "x" }), ReturnValues: "ALL_OLD" }));
    assert.deepEqual(unmarshall(p2.Attributes), { pk: "rv", sk: "1", a: 1 });
    const u1 = await ddb.send(new UpdateItemCommand({
      TableName: TABLE, Key: key, UpdateExpression: "SET a = a + :one, c = :c REMOVE b",
      ExpressionAttributeValues: marshall({ ":one": 1, ":c": [1, 2] }), ReturnValues: "UPDATED_NEW",
    }));
    assert.deepEqual(unmarshall(u1.Attributes), { a: 3, c: [1, 2] });
    const u2 = await ddb.send(new UpdateItemCommand({
      TableName: TABLE, Key: key, UpdateExpression: "SET c[1] = :v", ExpressionAttributeValues: marshall({ ":v": 9 }), ReturnValues: "UPDATED_OLD",
    }));
    assert.deepEqual(unmarshall(u2.Attributes), { c: [2] });
    const u3 = await ddb.send(new UpdateItemCommand({
      TableName: TABLE, Key: key, UpdateExpression: "ADD cnt :n", ExpressionAttributeValues: marshall({ ":n": 5 }), ReturnValues: "ALL_NEW",
    }));
    assert.deepEqual(unmarshall(u3.Attributes), { pk: "rv", sk: "1", a: 3, c: [1, 9], cnt: 5 });
    const u4 = await ddb.send(new UpdateItemCommand({
      TableName: TABLE, Key: key, UpdateExpression: "SET a = :a", ExpressionAttributeValues: marshall({ ":a": 0 }), ReturnValues: "NONE",
    }));
    assert.equal(u4.Attributes, undefined);
    const d = await ddb.send(new DeleteItemCommand({ TableName: TABLE, Key: key, ReturnValues: "ALL_OLD" }));
    assert.deepEqual(unmarshall(d.Attributes), { pk: "rv", sk: "1", a: 0, c: [1, 9], cnt: 5 });
    const d2 = await ddb.send(new DeleteItemCommand({ TableName: TABLE, Key: key, ReturnValues: "ALL_OLD" }));
    assert.equal(d2.Attributes, undefined);
  });

  test("Update with a failed condition returns the old item when asked", async () => {
    const key = marshall({ pk: "uc", sk: "1" });
    await ddb.send(new PutItemCommand({ TableName: TABLE, Item: marshall({ pk: "uc", sk: "1", version: 3 }) }));
    const err = await ddb.send(new UpdateItemCommand({
      TableName: TABLE, Key: key, UpdateExpression: "SET version = :new",
      ConditionExpression: "version = :expected", ExpressionAttributeValues: marshall({ ":new": 5, ":expected": 4 }),
      ReturnValuesOnConditionCheckFailure: "ALL_OLD",
    })).catch((e) => e);
    assert.equal(err.name, "ConditionalCheckFailedException");
    assert.deepEqual(unmarshall(err.Item), { pk: "uc", sk: "1", version: 3 });
    const derr = await ddb.send(new DeleteItemCommand({
      TableName: TABLE, Key: marshall({ pk: "nope", sk: "1" }), ConditionExpression: "attribute_exists(pk)",
      ReturnValuesOnConditionCheckFailure: "ALL_OLD",
    })).catch((e) => e);
    assert.equal(derr.name, "ConditionalCheckFailedException");
    assert.equal(derr.Item, undefined);
  });

  test("ReturnConsumedCapacity on reads and writes", async () => {
    const p = await ddb.send(new PutItemCommand({ TableName: TABLE, Item: marshall({ pk: "cap", sk: "1", gsi1pk: "g", gsi1sk: 1 }), ReturnConsumedCapacity: "INDEXES" }));
    assert.equal(p.ConsumedCapacity.TableName, TABLE);
    assert.equal(p.ConsumedCapacity.CapacityUnits, 2);
    assert.deepEqual(p.ConsumedCapacity.Table, { CapacityUnits: 1 });
    assert.deepEqual(p.ConsumedCapacity.GlobalSecondaryIndexes, { gsi1: { CapacityUnits: 1 } });
    const g = await ddb.send(new GetItemCommand({ TableName: TABLE, Key: marshall({ pk: "cap", sk: "1" }), ReturnConsumedCapacity: "TOTAL" }));
    assert.deepEqual(g.ConsumedCapacity, { TableName: TABLE, CapacityUnits: 0.5 });
    const gc = await ddb.send(new GetItemCommand({ TableName: TABLE, Key: marshall({ pk: "cap", sk: "1" }), ConsistentRead: true, ReturnConsumedCapacity: "TOTAL" }));
    assert.equal(gc.ConsumedCapacity.CapacityUnits, 1);
  });

  test("validation errors the SDK surfaces as ValidationException", async () => {
    const e1 = await ddb.send(new PutItemCommand({ TableName: TABLE, Item: marshall({ pk: "v" }) })).catch((e) => e);
    assert.equal(e1.name, "ValidationException");
    assert.equal(e1.$metadata.httpStatusCode, 400);
    assert.match(e1.message, /One of the required keys was not given a value|Missing the key sk/);
    const e2 = await ddb.send(new GetItemCommand({ TableName: "no-such-table", Key: marshall({ pk: "v" }) })).catch((e) => e);
    assert.equal(e2.name, "ResourceNotFoundException");
    assert.equal(e2.message, "Requested resource not found");
    const e3 = await ddb.send(new UpdateItemCommand({
      TableName: TABLE, Key: marshall({ pk: "v", sk: "1" }), UpdateExpression: "SET #a = :a",
      ExpressionAttributeValues: marshall({ ":a": 1 }),
    })).catch((e) => e);
    assert.equal(e3.name, "ValidationException");
    assert.match(e3.message, /An expression attribute name used in the document path is not defined; attribute name: #a/);
    const e4 = await ddb.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: "v" }, sk: { S: "" } } })).catch((e) => e);
    assert.equal(e4.name, "ValidationException");
    assert.match(e4.message, /empty string/);
  });
});

describe("DocumentClient", () => {
  test("put/get/update/delete with plain JS values", async () => {
    await doc.send(new PutCommand({
      TableName: TABLE,
      Item: { pk: "doc#1", sk: "profile", name: "Ada", tags: new Set(["x", "y"]), skip: undefined, nested: { list: [1, { a: null }] } },
      ConditionExpression: "attribute_not_exists(pk)",
    }));
    const { Item } = await doc.send(new GetCommand({ TableName: TABLE, Key: { pk: "doc#1", sk: "profile" }, ProjectionExpression: "#n, nested.#l[1], tags", ExpressionAttributeNames: { "#n": "name", "#l": "list" } }));
    assert.deepEqual(Item, { name: "Ada", nested: { list: [{ a: null }] }, tags: new Set(["x", "y"]) });
    const u = await doc.send(new UpdateCommand({
      TableName: TABLE, Key: { pk: "doc#1", sk: "profile" },
      UpdateExpression: "SET #n = :n, visits = if_not_exists(visits, :zero) + :one, nested.#l = list_append(nested.#l, :more) ADD tags :t",
      ExpressionAttributeNames: { "#n": "name", "#l": "list" },
      ExpressionAttributeValues: { ":n": "Grace", ":zero": 0, ":one": 1, ":more": ["z"], ":t": new Set(["w"]) },
      ReturnValues: "ALL_NEW",
    }));
    assert.deepEqual(u.Attributes, { pk: "doc#1", sk: "profile", name: "Grace", visits: 1, tags: new Set(["w", "x", "y"]), nested: { list: [1, { a: null }, "z"] } });
    const d = await doc.send(new UpdateCommand({
      TableName: TABLE, Key: { pk: "doc#1", sk: "profile" }, UpdateExpression: "DELETE tags :d",
      ExpressionAttributeValues: { ":d": new Set(["x", "w", "y"]) }, ReturnValues: "UPDATED_NEW",
    }));
    assert.equal(d.Attributes, undefined, "deleting every element removes the set attribute");
    // size() of a string counts UTF-16 code units, like JavaScript's String#length.
    const word = "é𝄞";
    await doc.send(new UpdateCommand({
      TableName: TABLE, Key: { pk: "doc#1", sk: "profile" }, UpdateExpression: "SET word = :w",
      ExpressionAttributeValues: { ":w": word },
    }));
    await doc.send(new UpdateCommand({
      TableName: TABLE, Key: { pk: "doc#1", sk: "profile" }, UpdateExpression: "REMOVE word",
      ConditionExpression: "size(word) = :len", ExpressionAttributeValues: { ":len": word.length },
    }));
    const del = await doc.send(new DeleteCommand({ TableName: TABLE, Key: { pk: "doc#1", sk: "profile" }, ConditionExpression: "visits = :one", ExpressionAttributeValues: { ":one": 1 }, ReturnValues: "ALL_OLD" }));
    assert.equal(del.Attributes.name, "Grace");
    const gone = await doc.send(new GetCommand({ TableName: TABLE, Key: { pk: "doc#1", sk: "profile" } }));
    assert.equal(gone.Item, undefined);
    assert.equal("Item" in gone, false);
  });

  test("Query with paginateQuery, filters, projections, descending order and Select COUNT", async () => {
    const items = [];
    for (let i = 0; i < 25; i++) {
      items.push({ pk: "q", sk: `item#${String(i).padStart(3, "0")}`, n: i, lsisk: 100 - i, title: `t${i}`, body: "x".repeat(100) });
    }
    for (let i = 0; i < items.length; i += 25) {
      await doc.send(new BatchWriteCommand({ RequestItems: { [TABLE]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
    }
    const pages = [];
    const got = [];
    for await (const page of docPaginateQuery({ client: doc, pageSize: 7 }, {
      TableName: TABLE, KeyConditionExpression: "pk = :pk AND begins_with(sk, :p)",
      ExpressionAttributeValues: { ":pk": "q", ":p": "item#" },
    })) {
      pages.push(page.Count);
      got.push(...page.Items);
    }
    assert.deepEqual(pages, [7, 7, 7, 4]);
    assert.deepEqual(got.map((i) => i.n), items.map((i) => i.n));

    const between = await doc.send(new DocQuery({
      TableName: TABLE, KeyConditionExpression: "#p = :pk AND #s BETWEEN :a AND :b",
      ExpressionAttributeNames: { "#p": "pk", "#s": "sk" },
      ExpressionAttributeValues: { ":pk": "q", ":a": "item#005", ":b": "item#009", ":one": 1 },
      FilterExpression: "size(title) > :one", ScanIndexForward: false,
      ProjectionExpression: "n",
    }));
    assert.deepEqual(between.Items.map((i) => i.n), [9, 8, 7, 6, 5]);
    assert.equal(between.ScannedCount, 5);

    const filtered = await doc.send(new DocQuery({
      TableName: TABLE, KeyConditionExpression: "pk = :pk", FilterExpression: "n >= :min AND contains(title, :t)",
      ExpressionAttributeValues: { ":pk": "q", ":min": 10, ":t": "2" }, Limit: 15,
    }));
    assert.deepEqual(filtered.Items.map((i) => i.n), [12]);
    assert.equal(filtered.ScannedCount, 15);
    assert.deepEqual(filtered.LastEvaluatedKey, { pk: "q", sk: "item#014" });

    const count = await doc.send(new DocQuery({ TableName: TABLE, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": "q" }, Select: "COUNT" }));
    assert.equal(count.Count, 25);
    assert.equal(count.Items, undefined);

    const lsi = await doc.send(new DocQuery({
      TableName: TABLE, IndexName: "lsi1", KeyConditionExpression: "pk = :pk AND lsisk < :v",
      ExpressionAttributeValues: { ":pk": "q", ":v": 78 },
    }));
    assert.deepEqual(lsi.Items.map((i) => i.lsisk), [76, 77]);
    assert.deepEqual(Object.keys(lsi.Items[0]).sort(), ["lsisk", "pk", "sk", "title"]);
    const lsiAll = await doc.send(new DocQuery({
      TableName: TABLE, IndexName: "lsi1", KeyConditionExpression: "pk = :pk AND lsisk = :v",
      ExpressionAttributeValues: { ":pk": "q", ":v": 76 }, Select: "ALL_ATTRIBUTES",
    }));
    assert.equal(lsiAll.Items[0].body, "x".repeat(100));
  });

  test("Query with an empty partition key value is a ValidationException, not an empty result", async () => {
    const err = await doc.send(new DocQuery({ TableName: TABLE, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": "" } })).catch((e) => e);
    assert.equal(err.name, "ValidationException");
    assert.equal(err.message, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk");
    const gerr = await doc.send(new DocQuery({ TableName: TABLE, IndexName: "gsi1", KeyConditionExpression: "gsi1pk = :g", ExpressionAttributeValues: { ":g": "" } })).catch((e) => e);
    assert.equal(gerr.name, "ValidationException");
    assert.match(gerr.message, /IndexName: gsi1, IndexKey: gsi1pk$/);
  });

  test("GSI query and Scan with paginateScan and parallel segments", async () => {
    const put = [];
    for (let i = 0; i < 30; i++) put.push({ PutRequest: { Item: { pk: `s#${i}`, sk: "x", gsi1pk: i % 2 ? "odd" : "even", gsi1sk: i } } });
    await doc.send(new BatchWriteCommand({ RequestItems: { [TABLE]: put.slice(0, 25) } }));
    await doc.send(new BatchWriteCommand({ RequestItems: { [TABLE]: put.slice(25) } }));
    const odd = await eventually(async () => {
      const r = await doc.send(new DocQuery({
        TableName: TABLE, IndexName: "gsi1", KeyConditionExpression: "gsi1pk = :g AND gsi1sk > :n",
        ExpressionAttributeValues: { ":g": "odd", ":n": 20 },
      }));
      assert.equal(r.Count, 5);
      return r;
    });
    assert.deepEqual(odd.Items.map((i) => i.gsi1sk), [21, 23, 25, 27, 29]);
    const err = await doc.send(new DocQuery({
      TableName: TABLE, IndexName: "gsi1", ConsistentRead: true, KeyConditionExpression: "gsi1pk = :g",
      ExpressionAttributeValues: { ":g": "odd" },
    })).catch((e) => e);
    assert.equal(err.name, "ValidationException");
    assert.match(err.message, /Consistent reads are not supported on global secondary indexes/);

    const seen = new Set();
    let pages = 0;
    for await (const page of docPaginateScan({ client: doc, pageSize: 8 }, {
      TableName: TABLE, FilterExpression: "begins_with(pk, :p)", ExpressionAttributeValues: { ":p": "s#" },
    })) {
      pages++;
      for (const i of page.Items) seen.add(i.pk);
    }
    assert.equal(seen.size, 30);
    assert.ok(pages > 4);
    const segs = new Set();
    for (let s = 0; s < 3; s++) {
      for await (const page of paginateScan({ client: ddb }, { TableName: TABLE, Segment: s, TotalSegments: 3, FilterExpression: "begins_with(pk, :p)", ExpressionAttributeValues: { ":p": { S: "s#" } } })) {
        for (const i of page.Items) {
          assert.ok(!segs.has(i.pk.S), "segments are disjoint");
          segs.add(i.pk.S);
        }
      }
    }
    assert.equal(segs.size, 30);
  });

  test("BatchGet and BatchWrite (with deletes and UnprocessedKeys shape)", async () => {
    const w = await doc.send(new BatchWriteCommand({
      RequestItems: { [TABLE]: [
        { PutRequest: { Item: { pk: "b#1", sk: "x", v: 1 } } },
        { PutRequest: { Item: { pk: "b#2", sk: "x", v: 2 } } },
        { PutRequest: { Item: { pk: "b#3", sk: "x", v: 3 } } },
      ] },
      ReturnConsumedCapacity: "TOTAL",
    }));
    assert.deepEqual(w.UnprocessedItems, {});
    assert.equal(w.ConsumedCapacity[0].TableName, TABLE);
    await doc.send(new BatchWriteCommand({ RequestItems: { [TABLE]: [{ DeleteRequest: { Key: { pk: "b#3", sk: "x" } } }] } }));
    const g = await doc.send(new BatchGetCommand({
      RequestItems: { [TABLE]: { Keys: [{ pk: "b#1", sk: "x" }, { pk: "b#2", sk: "x" }, { pk: "b#3", sk: "x" }], ProjectionExpression: "pk, v", ConsistentRead: true } },
      ReturnConsumedCapacity: "TOTAL",
    }));
    assert.deepEqual(g.Responses[TABLE].sort((a, b) => a.v - b.v), [{ pk: "b#1", v: 1 }, { pk: "b#2", v: 2 }]);
    assert.deepEqual(g.UnprocessedKeys, {});
    const dup = await doc.send(new BatchGetCommand({ RequestItems: { [TABLE]: { Keys: [{ pk: "b#1", sk: "x" }, { pk: "b#1", sk: "x" }] } } })).catch((e) => e);
    assert.equal(dup.name, "ValidationException");
    assert.match(dup.message, /Provided list of item keys contains duplicates/);
  });

  test("TransactWrite and TransactGet; TransactionCanceledException with CancellationReasons", async () => {
    await doc.send(new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: TABLE, Item: { pk: "t#1", sk: "x", bal: 100 }, ConditionExpression: "attribute_not_exists(pk)" } },
        { Put: { TableName: TABLE, Item: { pk: "t#2", sk: "x", bal: 0 } } },
      ],
      ClientRequestToken: "tok-1",
    }));
    const tw = await doc.send(new TransactWriteCommand({
      ReturnConsumedCapacity: "TOTAL",
      TransactItems: [
        { Update: { TableName: TABLE, Key: { pk: "t#1", sk: "x" }, UpdateExpression: "SET bal = bal - :a", ConditionExpression: "bal >= :a", ExpressionAttributeValues: { ":a": 30 } } },
        { Update: { TableName: TABLE, Key: { pk: "t#2", sk: "x" }, UpdateExpression: "SET bal = bal + :a", ExpressionAttributeValues: { ":a": 30 } } },
        { ConditionCheck: { TableName: TABLE, Key: { pk: "q", sk: "item#000" }, ConditionExpression: "attribute_exists(pk)" } },
      ],
    }));
    // Transactional responses split the units by kind (single-item ones do not).
    assert.deepEqual(tw.ConsumedCapacity, [{ TableName: TABLE, CapacityUnits: 6, WriteCapacityUnits: 6 }]);
    const g = await doc.send(new TransactGetCommand({
      ReturnConsumedCapacity: "INDEXES",
      TransactItems: [
        { Get: { TableName: TABLE, Key: { pk: "t#1", sk: "x" } } },
        { Get: { TableName: TABLE, Key: { pk: "t#2", sk: "x" }, ProjectionExpression: "bal" } },
        { Get: { TableName: TABLE, Key: { pk: "t#none", sk: "x" } } },
      ],
    }));
    assert.deepEqual(g.Responses, [{ Item: { pk: "t#1", sk: "x", bal: 70 } }, { Item: { bal: 30 } }, {}]);
    assert.equal(g.ConsumedCapacity[0].ReadCapacityUnits, g.ConsumedCapacity[0].CapacityUnits);
    assert.equal(g.ConsumedCapacity[0].Table.ReadCapacityUnits, g.ConsumedCapacity[0].Table.CapacityUnits);

    const err = await doc.send(new TransactWriteCommand({
      TransactItems: [
        { Update: { TableName: TABLE, Key: { pk: "t#1", sk: "x" }, UpdateExpression: "SET bal = bal - :a", ConditionExpression: "bal >= :a", ExpressionAttributeValues: { ":a": 1000 }, ReturnValuesOnConditionCheckFailure: "ALL_OLD" } },
        { Delete: { TableName: TABLE, Key: { pk: "t#2", sk: "x" } } },
      ],
    })).catch((e) => e);
    assert.ok(err instanceof TransactionCanceledException, err.name);
    assert.equal(err.name, "TransactionCanceledException");
    assert.equal(err.$metadata.httpStatusCode, 400);
    assert.match(err.message, /^Transaction cancelled, please refer cancellation reasons for specific reasons \[ConditionalCheckFailed, None\]$/);
    assert.equal(err.CancellationReasons.length, 2);
    assert.equal(err.CancellationReasons[0].Code, "ConditionalCheckFailed");
    assert.equal(err.CancellationReasons[0].Message, "The conditional request failed");
    assert.deepEqual(unmarshall(err.CancellationReasons[0].Item), { pk: "t#1", sk: "x", bal: 70 });
    assert.deepEqual(err.CancellationReasons[1], { Code: "None" });

    const same = await doc.send(new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: TABLE, Item: { pk: "t#1", sk: "x" } } },
        { Delete: { TableName: TABLE, Key: { pk: "t#1", sk: "x" } } },
      ],
    })).catch((e) => e);
    assert.equal(same.name, "ValidationException");
    assert.match(same.message, /Transaction request cannot include multiple operations on one item/);
  });

  test("PartiQL ExecuteStatement (if supported) or UnknownOperation shape", async () => {
    const r = await doc.send(new ExecuteStatementCommand({ Statement: `SELECT * FROM "${TABLE}" WHERE pk = ?`, Parameters: ["b#1"] })).catch((e) => e);
    if (r instanceof Error) {
      assert.ok(["UnknownOperationException", "ValidationException"].includes(r.name), r.name);
      assert.equal(r.$metadata.httpStatusCode, 400);
    } else {
      assert.equal(r.Items[0].pk, "b#1");
    }
  });
});
