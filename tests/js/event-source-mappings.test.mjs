// Event source mappings with the JavaScript SDK v3's Lambda client (docs/triggers.md): a
// mapping created on ddb's port delivers a table's stream to a local HTTP function that
// speaks the Lambda Invoke API, and is listed, disabled and deleted.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { CreateTableCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import {
  CreateEventSourceMappingCommand, DeleteEventSourceMappingCommand,
  GetEventSourceMappingCommand, LambdaClient, ListEventSourceMappingsCommand,
  UpdateEventSourceMappingCommand,
} from "@aws-sdk/client-lambda";
import { CREDENTIALS, REGION, startServer, uniqueName } from "./helpers/server.mjs";

let srv;
let fn;
const events = [];
before(async () => {
  fn = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => { body += d; });
    req.on("end", () => {
      events.push({ path: req.url, event: JSON.parse(body) });
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end("null");
    });
  });
  await new Promise((r) => fn.listen(0, "127.0.0.1", r));
  srv = await startServer(["--in-memory", "--lambda-endpoint",
    `http://127.0.0.1:${fn.address().port}`]);
});
after(async () => {
  await srv?.stop();
  fn?.close();
});

async function waitFor(predicate, what) {
  const deadline = Date.now() + 15000;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`timed out waiting for ${what}`);
}

test("a mapping delivers a table's stream to the function", async () => {
  const ddb = srv.client();
  const lambda = new LambdaClient({ endpoint: srv.endpoint, region: REGION,
    credentials: CREDENTIALS, maxAttempts: 1 });
  const TableName = uniqueName("js-esm");
  const created = await ddb.send(new CreateTableCommand({
    TableName, BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
    StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_IMAGE" },
  }));
  const EventSourceArn = created.TableDescription.LatestStreamArn;
  const m = await lambda.send(new CreateEventSourceMappingCommand({
    FunctionName: "js-fn", EventSourceArn, StartingPosition: "TRIM_HORIZON", BatchSize: 5,
  }));
  assert.equal(m.State, "Creating");
  for (const pk of ["a", "b", "c"]) {
    await ddb.send(new PutItemCommand({ TableName, Item: { pk: { S: pk } } }));
  }
  await waitFor(() => events.flatMap((e) => e.event.Records).length === 3, "three records");
  const records = events.flatMap((e) => e.event.Records);
  assert.deepEqual(records.map((r) => r.dynamodb.NewImage.pk.S), ["a", "b", "c"]);
  assert.equal(records[0].eventSourceARN, EventSourceArn);
  assert.equal(events[0].path, "/2015-03-31/functions/js-fn/invocations");

  const listed = await lambda.send(new ListEventSourceMappingsCommand({ EventSourceArn }));
  assert.deepEqual(listed.EventSourceMappings.map((x) => x.UUID), [m.UUID]);
  const disabled = await lambda.send(new UpdateEventSourceMappingCommand({
    UUID: m.UUID, Enabled: false,
  }));
  assert.equal(disabled.State, "Disabling");
  assert.equal((await lambda.send(new GetEventSourceMappingCommand({ UUID: m.UUID }))).State,
    "Disabled");
  const deleted = await lambda.send(new DeleteEventSourceMappingCommand({ UUID: m.UUID }));
  assert.equal(deleted.State, "Deleting");
  await assert.rejects(lambda.send(new GetEventSourceMappingCommand({ UUID: m.UUID })),
    (e) => e.name === "ResourceNotFoundException");
  lambda.destroy();
});
