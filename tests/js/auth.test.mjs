// --auth verify with the JavaScript SDK v3: its SigV4 signer (and its request compression,
// when bodies are large) against ddb's verification; keys from a credentials file.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ListTablesCommand, CreateTableCommand, PutItemCommand, GetItemCommand } from "@aws-sdk/client-dynamodb";
import { startServer, uniqueName } from "./helpers/server.mjs";

const ALICE = { accessKeyId: "AKIAJSALICE", secretAccessKey: "js-alice-secret" };
const TEMP = { accessKeyId: "ASIAJSTEMP", secretAccessKey: "js-temp-secret", sessionToken: "js-token" };
let srv;

before(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "ddb-auth-"));
  const file = path.join(dir, "credentials");
  writeFileSync(file, [
    "[alice]", `aws_access_key_id = ${ALICE.accessKeyId}`, `aws_secret_access_key = ${ALICE.secretAccessKey}`,
    "[temp]", `aws_access_key_id = ${TEMP.accessKeyId}`, `aws_secret_access_key = ${TEMP.secretAccessKey}`,
    `aws_session_token = ${TEMP.sessionToken}`, ""].join("\n"));
  srv = await startServer(["--auth", "verify", "--credentials", file]);
});
after(async () => {
  await srv?.stop();
});

test("a known key is served, writes and reads included", async () => {
  const c = srv.client({ credentials: ALICE });
  const TableName = uniqueName("auth");
  await c.send(new CreateTableCommand({
    TableName, BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
  }));
  await c.send(new PutItemCommand({ TableName, Item: { pk: { S: "k" }, v: { S: "é".repeat(3000) } } }));
  const got = await c.send(new GetItemCommand({ TableName, Key: { pk: { S: "k" } } }));
  assert.equal(got.Item.v.S, "é".repeat(3000));
  assert.ok((await c.send(new ListTablesCommand({}))).TableNames.includes(TableName));
});

test("a session token must match its key", async () => {
  await srv.client({ credentials: TEMP }).send(new ListTablesCommand({}));
  await assert.rejects(srv.client({ credentials: { ...TEMP, sessionToken: "other" } }).send(new ListTablesCommand({})),
    (e) => e.name === "UnrecognizedClientException" && e.message === "The security token included in the request is invalid");
});

test("a wrong secret and an unknown key are refused with the service's errors", async () => {
  await assert.rejects(srv.client({ credentials: { ...ALICE, secretAccessKey: "nope" } }).send(new ListTablesCommand({})),
    (e) => e.name === "InvalidSignatureException" && e.message.includes("The Canonical String for this request should have been"));
  await assert.rejects(srv.client({ credentials: { accessKeyId: "AKIANOBODY", secretAccessKey: "x" } }).send(new ListTablesCommand({})),
    (e) => e.name === "UnrecognizedClientException" && e.message === "The security token included in the request is invalid.");
});
