// --auth verify with two accounts, with the JavaScript SDK v3: each account's own tables
// (--isolation account, the default there), and a cross-account read through the table's ARN
// that a resource-based policy allows, within a condition on the leading keys.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  CreateTableCommand, DeleteResourcePolicyCommand, GetItemCommand, GetResourcePolicyCommand,
  ListTablesCommand, PutItemCommand, PutResourcePolicyCommand,
} from "@aws-sdk/client-dynamodb";
import { startServer } from "./helpers/server.mjs";

const ALICE = { accessKeyId: "AKIAJSOWNER", secretAccessKey: "js-owner-secret" };
const BOB = { accessKeyId: "AKIAJSREADER", secretAccessKey: "js-reader-secret" };
const TABLE_ARN = "arn:aws:dynamodb:us-east-1:111122223333:table/js-owned";
let srv;

before(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "ddb-accounts-"));
  const file = path.join(dir, "credentials");
  writeFileSync(file, [
    "[owner]", `aws_access_key_id = ${ALICE.accessKeyId}`,
    `aws_secret_access_key = ${ALICE.secretAccessKey}`, "account_id = 111122223333",
    "[reader]", `aws_access_key_id = ${BOB.accessKeyId}`,
    `aws_secret_access_key = ${BOB.secretAccessKey}`, "account_id = 444455556666", ""].join("\n"));
  srv = await startServer(["--auth", "verify", "--credentials", file]);
});
after(async () => {
  await srv?.stop();
});

test("accounts keep their own tables, and a policy lets another account read", async () => {
  const owner = srv.client({ credentials: ALICE });
  const reader = srv.client({ credentials: BOB });
  await owner.send(new CreateTableCommand({
    TableName: "js-owned", BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
  }));
  await owner.send(new PutItemCommand({ TableName: "js-owned", Item: { pk: { S: "bob#1" } } }));
  await owner.send(new PutItemCommand({ TableName: "js-owned", Item: { pk: { S: "alice#1" } } }));
  assert.deepEqual((await reader.send(new ListTablesCommand({}))).TableNames, []);

  const read = (pk) => reader.send(new GetItemCommand({ TableName: TABLE_ARN, Key: { pk: { S: pk } } }));
  await assert.rejects(read("bob#1"), (e) => e.name === "AccessDeniedException" &&
    e.message === "User: arn:aws:iam::444455556666:user/reader is not authorized to perform: " +
      `dynamodb:GetItem on resource: ${TABLE_ARN} because no resource-based policy allows the ` +
      "dynamodb:GetItem action");

  const Policy = JSON.stringify({
    Version: "2012-10-17",
    Statement: [{
      Effect: "Allow", Principal: { AWS: "arn:aws:iam::444455556666:root" },
      Action: "dynamodb:GetItem", Resource: TABLE_ARN,
      Condition: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["bob#*"] } },
    }],
  });
  const put = await owner.send(new PutResourcePolicyCommand({ ResourceArn: TABLE_ARN, Policy }));
  const got = await owner.send(new GetResourcePolicyCommand({ ResourceArn: TABLE_ARN }));
  assert.equal(got.RevisionId, put.RevisionId);

  assert.deepEqual((await read("bob#1")).Item, { pk: { S: "bob#1" } });
  await assert.rejects(read("alice#1"), (e) => e.name === "AccessDeniedException");

  await owner.send(new DeleteResourcePolicyCommand({ ResourceArn: TABLE_ARN }));
  await assert.rejects(read("bob#1"), (e) => e.name === "AccessDeniedException");
});
