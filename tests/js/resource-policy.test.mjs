// Resource-based policies through the AWS SDK for JavaScript v3: Put, Get, Delete, the
// revision ids, and the error shapes the SDK parses.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  CreateTableCommand, DescribeTableCommand, DeleteTableCommand, PutResourcePolicyCommand,
  GetResourcePolicyCommand, DeleteResourcePolicyCommand, PolicyNotFoundException,
} from "@aws-sdk/client-dynamodb";
import { startServer, uniqueName } from "./helpers/server.mjs";

let srv, ddb, arn;
const TABLE = uniqueName("policy");

function policyFor(resourceArn, action = "dynamodb:GetItem") {
  const account = resourceArn.split(":")[4];
  return JSON.stringify({
    Version: "2012-10-17",
    Statement: [{ Sid: "js", Effect: "Allow", Principal: { AWS: `arn:aws:iam::${account}:root` },
                  Action: action, Resource: resourceArn }],
  });
}

before(async () => {
  srv = await startServer();
  ddb = srv.client();
  await ddb.send(new CreateTableCommand({
    TableName: TABLE, BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
  }));
  arn = (await ddb.send(new DescribeTableCommand({ TableName: TABLE }))).Table.TableArn;
});

after(async () => {
  await ddb.send(new DeleteTableCommand({ TableName: TABLE }));
  await srv.stop();
});

test("GetResourcePolicy without a policy is PolicyNotFoundException", async () => {
  await assert.rejects(ddb.send(new GetResourcePolicyCommand({ ResourceArn: arn })), (e) => {
    assert.ok(e instanceof PolicyNotFoundException);
    assert.equal(e.message, `Resource-based policy not found for the provided ResourceArn: ${arn}`);
    return true;
  });
});

test("Put, Get, a conditional Put, Delete", async () => {
  const put = await ddb.send(new PutResourcePolicyCommand({ ResourceArn: arn, Policy: policyFor(arn) }));
  assert.match(put.RevisionId, /^\d+$/);
  const got = await ddb.send(new GetResourcePolicyCommand({ ResourceArn: arn }));
  assert.equal(got.RevisionId, put.RevisionId);
  assert.equal(JSON.parse(got.Policy).Statement[0].Resource, arn);

  await assert.rejects(ddb.send(new PutResourcePolicyCommand({
    ResourceArn: arn, Policy: policyFor(arn, "dynamodb:Query"), ExpectedRevisionId: "1",
  })), PolicyNotFoundException);
  const next = await ddb.send(new PutResourcePolicyCommand({
    ResourceArn: arn, Policy: policyFor(arn, "dynamodb:Query"), ExpectedRevisionId: put.RevisionId,
  }));
  assert.notEqual(next.RevisionId, put.RevisionId);

  const del = await ddb.send(new DeleteResourcePolicyCommand({ ResourceArn: arn }));
  assert.equal(del.RevisionId, next.RevisionId);
  await assert.rejects(ddb.send(new GetResourcePolicyCommand({ ResourceArn: arn })), PolicyNotFoundException);
});
