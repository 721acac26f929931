// The web console (/console) in headless Chromium against the real ddb-server: load the page,
// create data (with the SDK and in the console's editor), run a Query in the item browser and
// see the item, put load on one hot key under --simulate-capacity and watch it appear in the
// partition view, and read the stream tail. Screenshots go to tests/js/artifacts/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  CreateTableCommand, DescribeTableCommand, GetItemCommand, PutItemCommand,
} from "@aws-sdk/client-dynamodb";
import { CreateEventSourceMappingCommand, LambdaClient } from "@aws-sdk/client-lambda";
import { CREDENTIALS, REGION, startServer, uniqueName } from "./helpers/server.mjs";
import { haveChromium, launchBrowser } from "./helpers/browser.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
// Screenshots: $DDB_ARTIFACTS, default tests/js/artifacts/ (gitignored).
const ARTIFACTS = process.env.DDB_ARTIFACTS ?? path.join(here, "artifacts");
const TABLE = uniqueName("console");
// Without Chromium the tests are skipped, except under CI (tools/install-deps.sh installs it).
const skip = haveChromium() || process.env.CI ? false : "no chromium (apt-get install chromium)";

let srv, ddb, browser, page, fn;
const foreign = [];  // requests to anything but the server

async function shot(name) {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

before(async () => {
  if (skip) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  // A function for the triggers view's mapping: answers every invocation with success.
  fn = http.createServer((req, res) => { req.resume(); req.on("end", () => res.end("null")); });
  await new Promise((r) => fn.listen(0, "127.0.0.1", r));
  srv = await startServer(["--simulate-capacity", "--lambda-endpoint",
    `http://127.0.0.1:${fn.address().port}`]);
  ddb = srv.client();
  await ddb.send(new CreateTableCommand({
    TableName: TABLE,
    AttributeDefinitions: [
      { AttributeName: "pk", AttributeType: "S" },
      { AttributeName: "sk", AttributeType: "S" },
      { AttributeName: "status", AttributeType: "S" },
    ],
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
    GlobalSecondaryIndexes: [{
      IndexName: "by-status",
      KeySchema: [{ AttributeName: "status", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
      Projection: { ProjectionType: "ALL" },
      ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 200 },
    }],
    // Few read units, so that reads of one key throttle; writes to spare for the setup.
    ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 200 },
    StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" },
  }));
  for (let i = 0; i < 12; i++) {
    await ddb.send(new PutItemCommand({
      TableName: TABLE,
      Item: {
        pk: { S: `customer#${i % 3}` }, sk: { S: `order#${String(i).padStart(3, "0")}` },
        status: { S: i % 2 ? "open" : "shipped" }, total: { N: String(10 * i + 0.5) },
      },
    }));
  }
  browser = await launchBrowser();
  page = browser.page;
  page.on("request", (r) => { if (!r.url().startsWith(srv.endpoint)) foreign.push(r.url()); });
});

after(async () => {
  if (browser) await browser.close();
  if (srv) await srv.stop();
  fn?.close();
});

test("the page loads, paints and lists the table", { skip }, async () => {
  const response = await page.goto(`${srv.endpoint}/console`);
  assert.equal(response.status(), 200);
  assert.match(response.headers()["content-security-policy"], /default-src 'none'/);
  await page.locator(`#tables-list tr[data-table="${TABLE}"]`).waitFor();
  const row = await page.locator(`#tables-list tr[data-table="${TABLE}"]`).innerText();
  assert.match(row, /pk \(partition, S\)/);
  assert.match(row, /by-status/);
  assert.match(row, /NEW_AND_OLD_IMAGES/);
  const paint = await page.evaluate(() =>
    performance.getEntriesByType("paint").map((e) => [e.name, e.startTime]));
  assert.ok(paint.some(([name]) => name === "first-paint"), JSON.stringify(paint));
  await shot("console-tables");
});

test("an item put in the editor is found by a Query in the item browser", { skip }, async () => {
  await page.locator(`#tables-list tr[data-table="${TABLE}"]`).click();
  await page.waitForURL(/#items/);
  await page.click("#q-new");
  await page.fill("#editor-text", JSON.stringify({ pk: "customer#9", sk: "order#777", status: "open", note: "from the console" }));
  await page.click("#e-save");
  await page.locator("#e-message", { hasText: "saved" }).waitFor();
  const stored = await ddb.send(new GetItemCommand({
    TableName: TABLE, Key: { pk: { S: "customer#9" }, sk: { S: "order#777" } },
  }));
  assert.equal(stored.Item.note.S, "from the console");

  await page.fill("#q-pk", "customer#1");
  await page.selectOption("#q-sk-op", "begins_with");
  await page.fill("#q-sk", "order#00");
  await page.click("#q-run");
  await page.locator("#items-list tbody tr", { hasText: "order#004" }).waitFor();
  const rows = await page.locator("#items-list tbody tr").allInnerTexts();
  assert.deepEqual(rows.map((r) => r.split("\t")[1]), ["order#001", "order#004", "order#007"]);
  assert.match(await page.locator("#q-summary").innerText(), /Query: 3 item\(s\)/);

  // The same on the index, with between.
  await page.selectOption("#q-index", "by-status");
  await page.fill("#q-pk", "open");
  await page.selectOption("#q-sk-op", "between");
  await page.fill("#q-sk", "order#700");
  await page.fill("#q-sk2", "order#799");
  await page.click("#q-run");
  await page.locator("#items-list tbody tr", { hasText: "order#777" }).waitFor();
  await page.locator("#items-list tbody tr", { hasText: "order#777" }).click();
  assert.match(await page.inputValue("#editor-text"), /from the console/);
  await page.check('input[name="e-format"][value="dynamodb"]');
  assert.match(await page.inputValue("#editor-text"), /"S": "from the console"/);
  await shot("console-query");

  // Scan with a filter, one item per page.
  await page.selectOption("#q-index", "");
  await page.check('input[name="q-mode"][value="scan"]');
  await page.fill("#q-filter", "#t > :t");
  await page.fill("#q-names", '{"#t": "total"}');
  await page.fill("#q-values", '{":t": 100}');
  await page.fill("#q-limit", "5");
  await page.click("#q-run");
  await page.locator("#q-summary", { hasText: "Scan:" }).waitFor();
  assert.match(await page.locator("#q-summary").innerText(), /more pages/);
  await page.click("#q-next");
  await page.locator("#q-summary", { hasText: "scanned" }).waitFor();

  // Delete the item open in the editor (order#777, from the index query).
  await page.click("#e-delete");
  await page.locator("#editor").waitFor({ state: "hidden" });
  const gone = await ddb.send(new GetItemCommand({
    TableName: TABLE, Key: { pk: { S: "customer#9" }, sk: { S: "order#777" } },
  }));
  assert.equal(gone.Item, undefined);
});

test("a hot key shows in the partition view under load", { skip }, async () => {
  await page.goto(`${srv.endpoint}/console/?table=${TABLE}#partitions`);
  await page.locator(`.resource[data-resource="${TABLE}"] canvas`).waitFor();
  // GetItem on one key, as fast as one client goes, for up to 20 s: throttles come quickly at
  // 5 RCU; the key leads the hot keys.
  const deadline = Date.now() + 20000;
  let stop = false;
  const load = (async () => {
    while (!stop && Date.now() < deadline) {
      await ddb.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: "customer#2" }, sk: { S: "order#002" } } }))
        .catch(() => {});
    }
  })();
  const first = page.locator(`.resource[data-resource="${TABLE}"] .hot-keys li`).first();
  await page.waitForFunction((table) => {
    const li = document.querySelector(`.resource[data-resource="${table}"] .hot-keys li`);
    return li && li.dataset.key === "customer#2" && /: (?!0 units)[\d.,]+ units\/s/.test(li.textContent);
  }, TABLE, { timeout: 20000 });
  await page.locator(`.resource[data-resource="${TABLE}"] .figures .warn`).waitFor({ timeout: 20000 });
  assert.match(await first.innerText(), /^customer#2: /);
  await shot("console-partitions");
  stop = true;
  await load;
  const events = await page.locator("#p-events").innerText();
  assert.match(events, /throttled/);
});

test("the triggers view shows each mapping with its figures", { skip }, async () => {
  const lambda = new LambdaClient({ endpoint: srv.endpoint, region: REGION,
    credentials: CREDENTIALS, maxAttempts: 1 });
  const { Table } = await ddb.send(new DescribeTableCommand({ TableName: TABLE }));
  await lambda.send(new CreateEventSourceMappingCommand({
    FunctionName: "console-fn", EventSourceArn: Table.LatestStreamArn,
    StartingPosition: "TRIM_HORIZON", BatchSize: 5 }));
  await page.goto(`${srv.endpoint}/console/#triggers`);
  const row = page.locator("#trigger-list tbody tr", { hasText: "console-fn" });
  await row.waitFor();
  // The poller delivers the table's records: its invocations show within a few refreshes.
  const invocations = row.locator("td:nth-child(5)");
  for (let i = 0; i < 50 && (await invocations.innerText()) === "0"; i++) {
    await page.waitForTimeout(200);
  }
  assert.notEqual(await invocations.innerText(), "0");
  const text = await row.innerText();
  assert.match(text, new RegExp(TABLE));
  assert.match(text, /Enabled/);
  await shot("console-triggers");
  assert.deepEqual(foreign, []);
});

test("the stream tail shows the records with their images", { skip }, async () => {
  await page.goto(`${srv.endpoint}/console/?table=${TABLE}#stream`);
  // Its INSERT and its REMOVE.
  await page.locator("#stream-list tbody tr", { hasText: "from the console" }).nth(1).waitFor();
  const text = await page.locator("#stream-list tbody").innerText();
  assert.match(text, /INSERT/);
  assert.match(text, /REMOVE/);
  await shot("console-stream");
  assert.deepEqual(foreign, []);
});
