// On-demand backups, continuous backups (point-in-time recovery) and contributor insights through
// the AWS SDK for JavaScript v3, pinned to what the service answers: the behaviours the public
// service-verified conformance suite (nubo-db/dynamodb-conformance, tests/tier2/backups/ and
// tests/tier2/contributorInsights/) checks against DynamoDB, and scylladb's test_backup.py
// (DescribeContinuousBackups of a missing table, without a name, by table ARN).
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import {
  CreateTableCommand, DescribeTableCommand, DeleteTableCommand, PutItemCommand, GetItemCommand,
  CreateBackupCommand, DescribeBackupCommand, ListBackupsCommand, DeleteBackupCommand,
  RestoreTableFromBackupCommand, DescribeContinuousBackupsCommand, UpdateContinuousBackupsCommand,
  UpdateContributorInsightsCommand, DescribeContributorInsightsCommand,
  ListContributorInsightsCommand, BackupNotFoundException, TableNotFoundException,
  ResourceNotFoundException, ResourceInUseException, ContinuousBackupsUnavailableException,
  DynamoDBServiceException,
} from "@aws-sdk/client-dynamodb";
import { startServer, uniqueName } from "./helpers/server.mjs";

let srv, ddb;

before(async () => {
  srv = await startServer((process.env.DDB_CONF_ARGS ?? "").split(" ").filter(Boolean));
  ddb = srv.client();
});

after(async () => {
  await srv?.stop();
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function createHashTable(prefix) {
  const name = uniqueName(prefix);
  await ddb.send(new CreateTableCommand({
    TableName: name,
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    BillingMode: "PAY_PER_REQUEST",
  }));
  await waitActive(name);
  return name;
}

async function waitActive(name, timeoutMs = 20000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const t = (await ddb.send(new DescribeTableCommand({ TableName: name }))).Table;
    if (t.TableStatus === "ACTIVE" &&
        (t.GlobalSecondaryIndexes ?? []).every((g) => g.IndexStatus === "ACTIVE")) return t;
    if (Date.now() > deadline) throw new Error(`${name} not ACTIVE in time`);
    await sleep(50);
  }
}

async function waitGone(name, timeoutMs = 20000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await ddb.send(new DescribeTableCommand({ TableName: name }));
    } catch (e) {
      if (e instanceof ResourceNotFoundException) return;
      throw e;
    }
    if (Date.now() > deadline) throw new Error(`${name} still there`);
    await sleep(50);
  }
}

// The suite's "is this operation unimplemented" probe: such an answer would make it skip.
function assertNotUnsupported(e) {
  assert.notEqual(e.name, "UnknownOperationException");
  assert.doesNotMatch(e.message ?? "", /unknown operation|not implemented|unsupported operation|is not supported/i);
  assert.notEqual(e.$metadata?.httpStatusCode, 501);
}

async function expectError(fn, ctor, name) {
  try {
    await fn();
  } catch (e) {
    assertNotUnsupported(e);
    assert.ok(e instanceof DynamoDBServiceException, `not a service error: ${e}`);
    assert.equal(e.name, name, e.message);
    if (ctor) assert.ok(e instanceof ctor, `${e.name} is not a ${ctor.name}`);
    assert.equal(e.$metadata.httpStatusCode, 400);
    return e;
  }
  assert.fail(`expected ${name}`);
}

describe("on-demand backups", () => {
  let source;
  before(async () => {
    source = await createHashTable("bk-src");
    await ddb.send(new PutItemCommand({ TableName: source, Item: { pk: { S: "a" } } }));
  });

  test("ListBackups of a table without backups answers an empty list, not an unsupported fault", async () => {
    const list = await ddb.send(new ListBackupsCommand({ TableName: source }));
    assert.deepEqual(list.BackupSummaries, []);
    assert.equal(list.LastEvaluatedBackupArn, undefined);
  });

  test("CreateBackup -> DescribeBackup -> ListBackups -> DeleteBackup", async () => {
    const created = await ddb.send(new CreateBackupCommand({ TableName: source, BackupName: "lifecycle" }));
    const d = created.BackupDetails;
    assert.ok(d.BackupArn.startsWith(`arn:aws:dynamodb:us-east-1:000000000000:table/${source}/backup/`));
    assert.equal(d.BackupName, "lifecycle");
    assert.ok(["CREATING", "AVAILABLE"].includes(d.BackupStatus));
    assert.equal(d.BackupType, "USER");
    assert.ok(d.BackupCreationDateTime instanceof Date);
    assert.equal(typeof d.BackupSizeBytes, "number");

    const desc = await ddb.send(new DescribeBackupCommand({ BackupArn: d.BackupArn }));
    const bd = desc.BackupDescription;
    assert.equal(bd.BackupDetails.BackupStatus, "AVAILABLE");
    assert.equal(bd.BackupDetails.BackupArn, d.BackupArn);
    assert.equal(bd.SourceTableDetails.TableName, source);
    assert.equal(bd.SourceTableDetails.BillingMode, "PAY_PER_REQUEST");
    assert.deepEqual(bd.SourceTableDetails.KeySchema, [{ AttributeName: "pk", KeyType: "HASH" }]);
    assert.equal(bd.SourceTableDetails.ItemCount, 1);

    const list = await ddb.send(new ListBackupsCommand({ TableName: source }));
    const summary = list.BackupSummaries.find((b) => b.BackupArn === d.BackupArn);
    assert.ok(summary, "the backup is listed");
    assert.equal(summary.TableName, source);
    assert.equal(summary.BackupName, "lifecycle");
    assert.equal(summary.BackupStatus, "AVAILABLE");
    assert.equal(summary.BackupType, "USER");

    const del = await ddb.send(new DeleteBackupCommand({ BackupArn: d.BackupArn }));
    assert.equal(del.BackupDescription.BackupDetails.BackupArn, d.BackupArn);
    assert.equal(del.BackupDescription.BackupDetails.BackupStatus, "DELETED");
    assert.equal(del.BackupDescription.SourceTableDetails.TableName, source);
    const after = await ddb.send(new ListBackupsCommand({ TableName: source }));
    assert.ok(!after.BackupSummaries.some((b) => b.BackupArn === d.BackupArn));
  });

  test("RestoreTableFromBackup answers the new table with the restore in progress", async () => {
    const { BackupDetails } = await ddb.send(new CreateBackupCommand({ TableName: source, BackupName: "restore_src" }));
    const arn = BackupDetails.BackupArn;
    const target = uniqueName("bk-restored");
    const res = await ddb.send(new RestoreTableFromBackupCommand({ TargetTableName: target, BackupArn: arn }));
    const t = res.TableDescription;
    assert.equal(t.TableName, target);
    assert.equal(t.TableStatus, "CREATING");
    assert.equal(t.RestoreSummary.SourceBackupArn, arn);
    assert.equal(t.RestoreSummary.RestoreInProgress, true);
    assert.ok(t.RestoreSummary.RestoreDateTime instanceof Date);
    assert.deepEqual(t.KeySchema, [{ AttributeName: "pk", KeyType: "HASH" }]);

    // The suite's teardown: wait the restore out, then delete the backup and the table.
    const done = await waitActive(target);
    assert.equal(done.RestoreSummary.RestoreInProgress, false);
    const got = await ddb.send(new GetItemCommand({ TableName: target, Key: { pk: { S: "a" } } }));
    assert.deepEqual(got.Item, { pk: { S: "a" } });
    await ddb.send(new DeleteBackupCommand({ BackupArn: arn }));
    await ddb.send(new DeleteTableCommand({ TableName: target }));
    await waitGone(target);
  });

  test("DeleteTable of a table still being restored is ResourceInUseException", async () => {
    // Teardown of a CREATING restore target must get what the suite's deleteTable tolerates.
    const { BackupDetails } = await ddb.send(new CreateBackupCommand({ TableName: source, BackupName: "busy" }));
    const target = uniqueName("bk-busy");
    await ddb.send(new RestoreTableFromBackupCommand({ TargetTableName: target, BackupArn: BackupDetails.BackupArn }));
    try {
      await ddb.send(new DeleteTableCommand({ TableName: target }));
      // The restore of one item may already be over: then the delete just worked.
    } catch (e) {
      assert.ok(e instanceof ResourceInUseException, `${e.name}: ${e.message}`);
      await waitActive(target);
      await ddb.send(new DeleteTableCommand({ TableName: target }));
    }
    await waitGone(target);
    await ddb.send(new DeleteBackupCommand({ BackupArn: BackupDetails.BackupArn }));
  });

  test("DescribeBackup and DeleteBackup of a deleted backup are BackupNotFoundException", async () => {
    const { BackupDetails } = await ddb.send(new CreateBackupCommand({ TableName: source, BackupName: "gone" }));
    const arn = BackupDetails.BackupArn;
    await ddb.send(new DeleteBackupCommand({ BackupArn: arn }));
    const e = await expectError(() => ddb.send(new DescribeBackupCommand({ BackupArn: arn })),
      BackupNotFoundException, "BackupNotFoundException");
    assert.equal(e.message, `Backup not found: ${arn}`);
    await expectError(() => ddb.send(new DeleteBackupCommand({ BackupArn: arn })),
      BackupNotFoundException, "BackupNotFoundException");
  });

  test("CreateBackup of a missing table is TableNotFoundException", async () => {
    const missing = uniqueName("bk-none");
    const e = await expectError(() => ddb.send(new CreateBackupCommand({ TableName: missing, BackupName: "xyz" })),
      TableNotFoundException, "TableNotFoundException");
    assert.equal(e.message, `Table not found: ${missing}`);
  });
});

describe("continuous backups (point-in-time recovery)", () => {
  let table;
  before(async () => {
    table = await createHashTable("cb");
  });

  test("PITR is DISABLED by default", async () => {
    const res = await ddb.send(new DescribeContinuousBackupsCommand({ TableName: table }));
    const d = res.ContinuousBackupsDescription;
    assert.deepEqual(d.PointInTimeRecoveryDescription, { PointInTimeRecoveryStatus: "DISABLED" });
    assert.ok(["ENABLED", "DISABLED"].includes(d.ContinuousBackupsStatus));
  });

  test("DescribeContinuousBackups by table ARN answers as by name", async () => {
    const arn = (await ddb.send(new DescribeTableCommand({ TableName: table }))).Table.TableArn;
    const byArn = await ddb.send(new DescribeContinuousBackupsCommand({ TableName: arn }));
    const byName = await ddb.send(new DescribeContinuousBackupsCommand({ TableName: table }));
    assert.deepEqual(byArn.ContinuousBackupsDescription, byName.ContinuousBackupsDescription);
  });

  test("enabling PITR makes PointInTimeRecoveryStatus ENABLED, with a restorable window", async () => {
    const up = await ddb.send(new UpdateContinuousBackupsCommand({
      TableName: table,
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    }));
    assert.equal(up.ContinuousBackupsDescription.ContinuousBackupsStatus, "ENABLED");
    assert.equal(up.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus, "ENABLED");
    const res = await ddb.send(new DescribeContinuousBackupsCommand({ TableName: table }));
    const p = res.ContinuousBackupsDescription.PointInTimeRecoveryDescription;
    assert.equal(p.PointInTimeRecoveryStatus, "ENABLED");
    assert.equal(res.ContinuousBackupsDescription.ContinuousBackupsStatus, "ENABLED");
    assert.ok(p.EarliestRestorableDateTime instanceof Date);
    assert.ok(p.LatestRestorableDateTime instanceof Date);
    assert.equal(p.RecoveryPeriodInDays, 35);

    const off = await ddb.send(new UpdateContinuousBackupsCommand({
      TableName: table,
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: false },
    }));
    assert.deepEqual(off.ContinuousBackupsDescription.PointInTimeRecoveryDescription,
      { PointInTimeRecoveryStatus: "DISABLED" });
  });

  test("DescribeContinuousBackups of a missing table is TableNotFoundException", async () => {
    const missing = uniqueName("cb-none");
    await expectError(() => ddb.send(new DescribeContinuousBackupsCommand({ TableName: missing })),
      TableNotFoundException, "TableNotFoundException");
    await expectError(() => ddb.send(new UpdateContinuousBackupsCommand({
      TableName: missing, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    })), TableNotFoundException, "TableNotFoundException");
  });

  test("DescribeContinuousBackups without a table name is ValidationException", async () => {
    await expectError(() => ddb.send(new DescribeContinuousBackupsCommand({})), null, "ValidationException");
  });
});

describe("contributor insights", () => {
  let table;
  before(async () => {
    table = await createHashTable("ci");
  });

  test("DISABLED by default", async () => {
    const res = await ddb.send(new DescribeContributorInsightsCommand({ TableName: table }));
    assert.equal(res.TableName, table);
    assert.equal(res.ContributorInsightsStatus, "DISABLED");
    assert.equal(res.ContributorInsightsRuleList, undefined);
  });

  test("enabling changes the status and lists the table with no filter", async () => {
    const up = await ddb.send(new UpdateContributorInsightsCommand({ TableName: table, ContributorInsightsAction: "ENABLE" }));
    assert.equal(up.TableName, table);
    assert.equal(up.ContributorInsightsStatus, "ENABLING");
    const desc = await ddb.send(new DescribeContributorInsightsCommand({ TableName: table }));
    assert.ok(["ENABLING", "ENABLED"].includes(desc.ContributorInsightsStatus));

    const list = await ddb.send(new ListContributorInsightsCommand({}));
    const mine = (list.ContributorInsightsSummaries ?? []).filter((s) => s.TableName === table);
    assert.equal(mine.length, 1);
    assert.ok(["ENABLING", "ENABLED"].includes(mine[0].ContributorInsightsStatus));
    assert.equal(mine[0].IndexName, undefined);
  });

  test("a deleted table is no longer listed", async () => {
    const other = await createHashTable("ci-del");
    await ddb.send(new UpdateContributorInsightsCommand({ TableName: other, ContributorInsightsAction: "ENABLE" }));
    await ddb.send(new DeleteTableCommand({ TableName: other }));
    await waitGone(other);
    const list = await ddb.send(new ListContributorInsightsCommand({}));
    assert.ok(!(list.ContributorInsightsSummaries ?? []).some((s) => s.TableName === other));
  });

  test("DescribeContributorInsights of a missing table is ResourceNotFoundException", async () => {
    await expectError(() => ddb.send(new DescribeContributorInsightsCommand({ TableName: uniqueName("ci-none") })),
      ResourceNotFoundException, "ResourceNotFoundException");
  });
});

// With transient statuses shown as the service shows them, a table just created refuses both
// CreateBackup and UpdateContinuousBackups with ContinuousBackupsUnavailableException until it
// is ACTIVE: the window the suite's retryWhileBackupsEnabling helper waits out.
describe("a table still CREATING (--table-status-hold-ms)", () => {
  let held, c;
  before(async () => {
    held = await startServer(["--table-status-hold-ms", "1500"]);
    c = held.client();
  });
  after(async () => {
    await held?.stop();
  });

  test("CreateBackup and UpdateContinuousBackups are ContinuousBackupsUnavailableException", async () => {
    const name = uniqueName("cb-new");
    const created = await c.send(new CreateTableCommand({
      TableName: name,
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
      BillingMode: "PAY_PER_REQUEST",
    }));
    assert.equal(created.TableDescription.TableStatus, "CREATING");
    const unavailable = async (fn) => {
      try {
        await fn();
      } catch (e) {
        assert.ok(e instanceof ContinuousBackupsUnavailableException, `${e.name}: ${e.message}`);
        assert.equal(e.message, `Backups are being enabled for the table: ${name}. Please retry later`);
        return;
      }
      assert.fail("expected ContinuousBackupsUnavailableException");
    };
    await unavailable(() => c.send(new CreateBackupCommand({ TableName: name, BackupName: "early" })));
    await unavailable(() => c.send(new UpdateContinuousBackupsCommand({
      TableName: name, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    })));
    // Nothing was enabled by the refused call.
    const desc = await c.send(new DescribeContinuousBackupsCommand({ TableName: name }));
    assert.equal(desc.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus, "DISABLED");

    // Retried once ACTIVE, as the suite's helper does, both succeed.
    const deadline = Date.now() + 10000;
    while ((await c.send(new DescribeTableCommand({ TableName: name }))).Table.TableStatus !== "ACTIVE") {
      assert.ok(Date.now() < deadline, "table not ACTIVE in time");
      await sleep(100);
    }
    const up = await c.send(new UpdateContinuousBackupsCommand({
      TableName: name, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    }));
    assert.equal(up.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus, "ENABLED");
    const b = await c.send(new CreateBackupCommand({ TableName: name, BackupName: "later" }));
    assert.equal(b.BackupDetails.BackupType, "USER");
    await c.send(new DeleteBackupCommand({ BackupArn: b.BackupDetails.BackupArn }));
  });
});
