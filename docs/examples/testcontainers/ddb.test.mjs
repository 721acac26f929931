// ddb as a testcontainers GenericContainer, in place of amazon/dynamodb-local.
//   npm install --save-dev testcontainers @aws-sdk/client-dynamodb
//   node --test ddb.test.mjs
// tools/container-check.sh runs this file against the image it builds (DDB_IMAGE).
import { test } from "node:test";
import assert from "node:assert/strict";
import { GenericContainer, Wait } from "testcontainers";
import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from "@aws-sdk/client-dynamodb";

const image = process.env.DDB_IMAGE ?? "ddb";

test("tables in a ddb container", async () => {
  const container = await new GenericContainer(image)
    .withExposedPorts(8000)
    .withCommand(["-jar", "DynamoDBLocal.jar", "-sharedDb", "-inMemory"])
    .withWaitStrategy(Wait.forHealthCheck()) // the image's own HEALTHCHECK
    .start();
  try {
    const client = new DynamoDBClient({
      endpoint: `http://${container.getHost()}:${container.getMappedPort(8000)}`,
      region: "us-east-1",
      credentials: { accessKeyId: "local", secretAccessKey: "local" },
    });
    await client.send(
      new CreateTableCommand({
        TableName: "orders",
        BillingMode: "PAY_PER_REQUEST",
        AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
        KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
      }),
    );
    const { TableNames } = await client.send(new ListTablesCommand({}));
    assert.deepEqual(TableNames, ["orders"]);
  } finally {
    await container.stop();
  }
});
