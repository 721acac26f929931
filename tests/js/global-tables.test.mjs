// Global tables (version 2019.11.21) with the JavaScript SDK v3: UpdateTable's ReplicaUpdates
// on a server whose Regions are namespaces of their own, a replica filled and ACTIVE, writes
// in either Region reaching the other, and the replica deleted again.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  CreateTableCommand, DescribeTableCommand, GetItemCommand, PutItemCommand, ScanCommand,
  UpdateTableCommand,
} from "@aws-sdk/client-dynamodb";
import { startServer, uniqueName } from "./helpers/server.mjs";

let srv;
before(async () => {
  srv = await startServer(["--in-memory", "--isolation", "account", "--replication-delay-ms", "50"]);
});
after(async () => {
  await srv?.stop();
});

async function waitFor(predicate, what) {
  const deadline = Date.now() + 15000;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`timed out waiting for ${what}`);
}

const count = async (c, TableName) =>
  (await c.send(new ScanCommand({ TableName, ConsistentRead: true }))).Count;

test("a replica in another Region follows the table both ways", async () => {
  const us = srv.client({ region: "us-east-1" });
  const eu = srv.client({ region: "eu-west-1" });
  const TableName = uniqueName("js-global");
  await us.send(new CreateTableCommand({
    TableName, BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
  }));
  await us.send(new PutItemCommand({ TableName, Item: { pk: { S: "before" } } }));
  const created = await us.send(new UpdateTableCommand({
    TableName, ReplicaUpdates: [{ Create: { RegionName: "eu-west-1" } }],
  }));
  assert.equal(created.TableDescription.GlobalTableVersion, "2019.11.21");
  assert.deepEqual(created.TableDescription.Replicas.map((r) => [r.RegionName, r.ReplicaStatus]),
    [["eu-west-1", "CREATING"]]);
  await waitFor(async () => {
    const d = (await us.send(new DescribeTableCommand({ TableName }))).Table;
    return d.Replicas?.[0]?.ReplicaStatus === "ACTIVE";
  }, "the replica to be ACTIVE");
  const there = (await eu.send(new DescribeTableCommand({ TableName }))).Table;
  assert.deepEqual(there.Replicas.map((r) => r.RegionName), ["us-east-1"]);
  assert.equal(await count(eu, TableName), 1);
  await eu.send(new PutItemCommand({ TableName, Item: { pk: { S: "from-eu" } } }));
  await waitFor(async () => (await count(us, TableName)) === 2, "the write from eu-west-1");

  const deleted = await us.send(new UpdateTableCommand({
    TableName, ReplicaUpdates: [{ Delete: { RegionName: "eu-west-1" } }],
  }));
  assert.equal(deleted.TableDescription.Replicas[0].ReplicaStatus, "DELETING");
  await assert.rejects(eu.send(new DescribeTableCommand({ TableName })),
    (e) => e.name === "ResourceNotFoundException");
});

test("a strongly consistent table (two Regions and a witness) has every write everywhere", async () => {
  const east1 = srv.client({ region: "us-east-1" });
  const east2 = srv.client({ region: "us-east-2" });
  const TableName = uniqueName("js-strong");
  await east1.send(new CreateTableCommand({
    TableName, BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
  }));
  const made = await east1.send(new UpdateTableCommand({
    TableName, MultiRegionConsistency: "STRONG",
    ReplicaUpdates: [{ Create: { RegionName: "us-east-2" } }],
    GlobalTableWitnessUpdates: [{ Create: { RegionName: "us-west-2" } }],
  }));
  assert.equal(made.TableDescription.MultiRegionConsistency, "STRONG");
  assert.deepEqual(made.TableDescription.GlobalTableWitnesses,
    [{ RegionName: "us-west-2", WitnessStatus: "ACTIVE" }]);
  await waitFor(async () => {
    const d = (await east1.send(new DescribeTableCommand({ TableName }))).Table;
    return d.Replicas?.[0]?.ReplicaStatus === "ACTIVE";
  }, "the replica to be ACTIVE");
  await east1.send(new PutItemCommand({ TableName, Item: { pk: { S: "now" } } }));
  const got = await east2.send(new GetItemCommand({
    TableName, Key: { pk: { S: "now" } }, ConsistentRead: true,
  }));
  assert.deepEqual(got.Item, { pk: { S: "now" } });
});
