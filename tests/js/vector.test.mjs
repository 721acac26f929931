// Vector indexes and SearchVectors through the AWS SDK for JavaScript v3 (>= 3.1169): the
// SDK sends SearchVectors to the custom endpoint as it is (its search-endpoint rules apply
// only without one), so the plain client configuration of every other test works.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  CreateTableCommand, DescribeTableCommand, UpdateTableCommand, DeleteTableCommand, PutItemCommand,
  SearchVectorsCommand, ResourceNotFoundException, DynamoDBServiceException,
} from "@aws-sdk/client-dynamodb";
import { startServer, uniqueName } from "./helpers/server.mjs";

let srv, ddb;
const TABLE = uniqueName("vec");
const v = (xs) => ({ L: xs.map((x) => ({ N: String(x) })) });
const q = (xs) => xs.map((x) => ({ N: String(x) }));

before(async () => {
  srv = await startServer();
  ddb = srv.client();
  await ddb.send(new CreateTableCommand({
    TableName: TABLE,
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [
      { AttributeName: "pk", AttributeType: "S" },
      { AttributeName: "genre", AttributeType: "S" },
    ],
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    VectorIndexes: [{
      IndexName: "by-embedding",
      VectorAttribute: { AttributeName: "embedding" },
      Dimensions: 3,
      DistanceFunction: "COSINE",
      Projection: { ProjectionType: "ALL" },
      SearchSchema: [{ AttributeName: "genre", SearchSchemaElementType: "INLINE_FILTER" }],
    }],
  }));
  const items = [["a", "jazz", [1, 0, 0]], ["b", "rock", [0, 1, 0]], ["c", "jazz", [0.9, 0.1, 0]]];
  for (const [pk, genre, e] of items) {
    await ddb.send(new PutItemCommand({
      TableName: TABLE, Item: { pk: { S: pk }, genre: { S: genre }, embedding: v(e) },
    }));
  }
});

after(async () => {
  await ddb.send(new DeleteTableCommand({ TableName: TABLE })).catch(() => {});
  await srv.stop();
});

test("DescribeTable reports the vector index", async () => {
  const { Table } = await ddb.send(new DescribeTableCommand({ TableName: TABLE }));
  const [vi] = Table.VectorIndexes;
  assert.equal(vi.IndexName, "by-embedding");
  assert.equal(vi.Dimensions, 3);
  assert.equal(vi.DistanceFunction, "COSINE");
  assert.equal(vi.IndexStatus, "ACTIVE");
  assert.equal(vi.ItemCount, 3);
  assert.deepEqual(vi.VectorAttribute, { AttributeName: "embedding" });
  assert.equal(vi.IndexArn, `${Table.TableArn}/index/by-embedding`);
});

test("SearchVectors returns the nearest items, best first, with scores", async () => {
  const r = await ddb.send(new SearchVectorsCommand({
    TableName: TABLE, IndexName: "by-embedding", SearchVector: q([1, 0, 0]), TopK: 2,
    ReturnConsumedCapacity: "TOTAL",
  }));
  assert.deepEqual(r.SearchResults.map((x) => x.Item.pk.S), ["a", "c"]);
  assert.ok(r.SearchResults[0].Score <= r.SearchResults[1].Score);
  assert.ok(r.ConsumedCapacity.VectorSearchRequestBytes > 0);
});

test("SearchConditionExpression filters on an inline filter", async () => {
  const r = await ddb.send(new SearchVectorsCommand({
    TableName: TABLE, IndexName: "by-embedding", SearchVector: q([0, 1, 0]), TopK: 5,
    SearchConditionExpression: "genre = :g", ExpressionAttributeValues: { ":g": { S: "jazz" } },
    ProjectionExpression: "pk",
  }));
  assert.deepEqual(r.SearchResults.map((x) => x.Item), [{ pk: { S: "c" } }, { pk: { S: "a" } }]);
});

test("errors come back as the SDK's exceptions", async () => {
  await assert.rejects(
    ddb.send(new SearchVectorsCommand({
      TableName: TABLE, IndexName: "by-embedding", SearchVector: q([1, 0, 0]), TopK: 0,
    })),
    (e) => e instanceof DynamoDBServiceException && e.name === "ValidationException" &&
      e.message ===
        "Provided TopK value '0' is out of valid range. The value must be between 1 and 100 inclusive");
  await assert.rejects(
    ddb.send(new SearchVectorsCommand({
      TableName: TABLE, IndexName: "by-embedding", SearchVector: q([1, 0, 0]), TopK: 1,
      SearchConditionExpression: "genre > :g", ExpressionAttributeValues: { ":g": { S: "a" } },
    })),
    (e) => e.name === "ValidationException" &&
      e.message === "Invalid comparator used in SearchConditionExpression");
  await assert.rejects(
    ddb.send(new SearchVectorsCommand({
      TableName: uniqueName("missing"), IndexName: "by-embedding", SearchVector: q([1, 0, 0]), TopK: 1,
    })),
    (e) => e instanceof ResourceNotFoundException);
  await assert.rejects(
    ddb.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: "bad" }, embedding: v([1, 2]) } })),
    (e) => e.name === "ValidationException" && /dimension/.test(e.message));
});

test("UpdateTable adds a vector index with a backfill, then deletes it", async () => {
  const r = await ddb.send(new UpdateTableCommand({
    TableName: TABLE,
    VectorIndexUpdates: [{
      Create: {
        IndexName: "euclid", VectorAttribute: { AttributeName: "embedding" }, Dimensions: 3,
        DistanceFunction: "EUCLIDEAN", Projection: { ProjectionType: "KEYS_ONLY" },
      },
    }],
  }));
  const created = r.TableDescription.VectorIndexes.find((x) => x.IndexName === "euclid");
  assert.equal(created.IndexStatus, "CREATING");
  assert.equal(created.Backfilling, true);
  let vi;
  for (let i = 0; i < 200; i++) {
    const { Table } = await ddb.send(new DescribeTableCommand({ TableName: TABLE }));
    vi = Table.VectorIndexes.find((x) => x.IndexName === "euclid");
    if (vi.IndexStatus === "ACTIVE") break;
    await new Promise((res) => setTimeout(res, 50));
  }
  assert.equal(vi.IndexStatus, "ACTIVE");
  assert.equal(vi.Backfilling, false);
  const s = await ddb.send(new SearchVectorsCommand({
    TableName: TABLE, IndexName: "euclid", SearchVector: q([0, 1, 0]), TopK: 1,
  }));
  assert.deepEqual(s.SearchResults[0].Item, { pk: { S: "b" } });  // KEYS_ONLY
  assert.equal(s.SearchResults[0].Score, 0);
  await ddb.send(new UpdateTableCommand({
    TableName: TABLE, VectorIndexUpdates: [{ Delete: { IndexName: "euclid" } }],
  }));
  await assert.rejects(ddb.send(new SearchVectorsCommand({
    TableName: TABLE, IndexName: "euclid", SearchVector: q([0, 1, 0]), TopK: 1,
  })), (e) => e instanceof ResourceNotFoundException);
});
