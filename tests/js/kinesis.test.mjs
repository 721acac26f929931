// Kinesis with the JavaScript SDK v3 (docs/kinesis.md): a table's Kinesis streaming
// destination (the DynamoDB client, including UpdateKinesisStreamingDestination and the
// enable configuration, which Debian's boto3 lacks) read back by the Kinesis client.
// The Kinesis client's default handler speaks HTTP/2 with prior knowledge (h2c), which ddb
// serves on its port; the SDK's HTTP/1.1 handler works too.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  CreateTableCommand, DescribeKinesisStreamingDestinationCommand,
  EnableKinesisStreamingDestinationCommand, PutItemCommand,
  UpdateKinesisStreamingDestinationCommand,
} from "@aws-sdk/client-dynamodb";
import {
  CreateStreamCommand, DescribeStreamSummaryCommand, GetRecordsCommand,
  GetShardIteratorCommand, KinesisClient, ListShardsCommand, PutRecordsCommand,
} from "@aws-sdk/client-kinesis";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { CREDENTIALS, REGION, startServer, uniqueName } from "./helpers/server.mjs";

let srv;
before(async () => {
  srv = await startServer(["--in-memory"]);
});
after(async () => {
  await srv?.stop();
});

// `http1`: the SDK's HTTP/1.1 handler instead of the default (HTTP/2).
function kinesisClient(http1 = false) {
  return new KinesisClient({ endpoint: srv.endpoint, region: REGION, credentials: CREDENTIALS,
    maxAttempts: 1, ...(http1 ? { requestHandler: new NodeHttpHandler() } : {}) });
}

async function readShard(kinesis, StreamName, ShardId) {
  let { ShardIterator } = await kinesis.send(new GetShardIteratorCommand({
    StreamName, ShardId, ShardIteratorType: "TRIM_HORIZON" }));
  const out = [];
  for (let i = 0; i < 10; i++) {
    const page = await kinesis.send(new GetRecordsCommand({ ShardIterator }));
    out.push(...page.Records);
    ShardIterator = page.NextShardIterator;
    if (page.Records.length === 0) break;
  }
  return out;
}

test("a table's changes reach its Kinesis stream at the precision asked for", async () => {
  const ddb = srv.client();
  const kinesis = kinesisClient();
  const StreamName = uniqueName("js-kds");
  await kinesis.send(new CreateStreamCommand({ StreamName, ShardCount: 1 }));
  const { StreamDescriptionSummary: s } = await kinesis.send(
    new DescribeStreamSummaryCommand({ StreamName }));
  const TableName = uniqueName("js-kds");
  await ddb.send(new CreateTableCommand({
    TableName, BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
  }));
  const enabled = await ddb.send(new EnableKinesisStreamingDestinationCommand({
    TableName, StreamArn: s.StreamARN,
    EnableKinesisStreamingConfiguration: { ApproximateCreationDateTimePrecision: "MICROSECOND" },
  }));
  assert.equal(enabled.DestinationStatus, "ENABLING");
  assert.deepEqual(enabled.EnableKinesisStreamingConfiguration,
    { ApproximateCreationDateTimePrecision: "MICROSECOND" });
  const described = await ddb.send(new DescribeKinesisStreamingDestinationCommand({ TableName }));
  assert.deepEqual(described.KinesisDataStreamDestinations, [{ StreamArn: s.StreamARN,
    DestinationStatus: "ACTIVE", ApproximateCreationDateTimePrecision: "MICROSECOND" }]);
  await ddb.send(new PutItemCommand({ TableName, Item: { pk: { S: "a" }, n: { N: "1" } } }));
  const updated = await ddb.send(new UpdateKinesisStreamingDestinationCommand({
    TableName, StreamArn: s.StreamARN,
    UpdateKinesisStreamingConfiguration: { ApproximateCreationDateTimePrecision: "MILLISECOND" },
  }));
  assert.equal(updated.DestinationStatus, "UPDATING");
  await ddb.send(new PutItemCommand({ TableName, Item: { pk: { S: "a" }, n: { N: "2" } } }));
  const records = await readShard(kinesis, StreamName, "shardId-000000000000");
  const changes = records.map((r) => JSON.parse(Buffer.from(r.Data).toString("utf8")));
  assert.deepEqual(changes.map((c) => c.eventName), ["INSERT", "MODIFY"]);
  assert.equal(String(changes[0].dynamodb.ApproximateCreationDateTime).length, 16);
  assert.equal(changes[0].dynamodb.ApproximateCreationDateTimePrecision, "MICROSECOND");
  assert.equal(String(changes[1].dynamodb.ApproximateCreationDateTime).length, 13);
  assert.deepEqual(changes[1].dynamodb.OldImage, { pk: { S: "a" }, n: { N: "1" } });
  assert.ok(records[0].ApproximateArrivalTimestamp instanceof Date);
});

test("PutRecords spreads keys over the shards and ListShards lists them", async () => {
  const kinesis = kinesisClient(/* http1= */ true);
  const StreamName = uniqueName("js-kput");
  await kinesis.send(new CreateStreamCommand({ StreamName, ShardCount: 4 }));
  const { Shards } = await kinesis.send(new ListShardsCommand({ StreamName }));
  assert.equal(Shards.length, 4);
  const put = await kinesis.send(new PutRecordsCommand({ StreamName,
    Records: Array.from({ length: 100 }, (_, i) => ({
      Data: new TextEncoder().encode(`v${i}`), PartitionKey: `key-${i}` })) }));
  assert.equal(put.FailedRecordCount, 0);
  const used = new Set(put.Records.map((r) => r.ShardId));
  assert.equal(used.size, 4);
  let total = 0;
  for (const shard of Shards) {
    const got = await readShard(kinesis, StreamName, shard.ShardId);
    total += got.length;
    const seqs = got.map((r) => BigInt(r.SequenceNumber));
    assert.deepEqual(seqs, [...seqs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  }
  assert.equal(total, 100);
});

test("a server stops promptly with an HTTP/2 connection open", async () => {
  const own = await startServer(["--in-memory"]);
  const kinesis = new KinesisClient({ endpoint: own.endpoint, region: REGION,
    credentials: CREDENTIALS, maxAttempts: 1 });
  await kinesis.send(new CreateStreamCommand({ StreamName: "open", ShardCount: 1 }));
  const started = Date.now();
  await own.stop();  // the connection is still open: the server closes it
  assert.ok(Date.now() - started < 5000, `stopped after ${Date.now() - started} ms`);
  kinesis.destroy();
});
