// The S3 API on ddb's own port (server/s3/s3_api.h) through the AWS SDK for JavaScript v3's S3
// client pointed at the DynamoDB endpoint with path-style addressing, as suites that run
// against emulators co-locating services configure it: buckets, objects (with the SDK's
// default CRC32 checksums, streamed aws-chunked bodies), listing, multipart uploads through
// lib-storage, and ImportTable / ExportTableToPointInTime reading and writing those objects.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { mkdtempSync, rmSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  S3Client, CreateBucketCommand, DeleteBucketCommand, PutObjectCommand, GetObjectCommand,
  HeadObjectCommand, ListObjectsV2Command, DeleteObjectsCommand, DeleteObjectCommand,
  HeadBucketCommand, ListBucketsCommand, CopyObjectCommand, S3ServiceException,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import {
  CreateTableCommand, PutItemCommand, DescribeTableCommand, ExportTableToPointInTimeCommand,
  DescribeExportCommand, ListExportsCommand, ImportTableCommand, DescribeImportCommand,
  ListImportsCommand, UpdateContinuousBackupsCommand, GetItemCommand,
} from "@aws-sdk/client-dynamodb";
import { startServer, uniqueName, REGION, CREDENTIALS } from "./helpers/server.mjs";

let srv, ddb, s3, s3dir;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  s3dir = mkdtempSync(path.join(tmpdir(), "ddb-s3-js-"));
  srv = await startServer(["--s3-dir", s3dir]);
  ddb = srv.client();
  s3 = new S3Client({
    endpoint: srv.endpoint, region: REGION, credentials: CREDENTIALS, forcePathStyle: true,
    maxAttempts: 1,
  });
});

after(async () => {
  s3?.destroy();
  await srv?.stop();
  rmSync(s3dir, { recursive: true, force: true });
});

async function s3Error(promise) {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof S3ServiceException, `not an S3 error: ${e}`);
    return e;
  }
  assert.fail("expected an S3 error");
}

test("buckets: create, head, list, delete, and the service's errors", async () => {
  const bucket = uniqueName("bkt").toLowerCase();
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await s3.send(new HeadBucketCommand({ Bucket: bucket }));
  const listed = await s3.send(new ListBucketsCommand({}));
  assert.ok(listed.Buckets.some((b) => b.Name === bucket));
  const invalid = await s3Error(s3.send(new CreateBucketCommand({ Bucket: "Not_Valid" })));
  assert.equal(invalid.name, "InvalidBucketName");
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: "k", Body: "x" }));
  const notEmpty = await s3Error(s3.send(new DeleteBucketCommand({ Bucket: bucket })));
  assert.equal(notEmpty.name, "BucketNotEmpty");
  assert.equal(notEmpty.$metadata.httpStatusCode, 409);
  await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: "k" }));
  await s3.send(new DeleteBucketCommand({ Bucket: bucket }));
  const gone = await s3Error(s3.send(new HeadBucketCommand({ Bucket: bucket })));
  assert.equal(gone.$metadata.httpStatusCode, 404);
  const missing = await s3Error(s3.send(new PutObjectCommand({ Bucket: bucket, Key: "k", Body: "x" })));
  assert.equal(missing.name, "NoSuchBucket");
});

test("objects: put with checksums (string and streamed), get, ranges, head, copy, list", async () => {
  const bucket = uniqueName("obj").toLowerCase();
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  const put = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: "dir/a.json", Body: "hello world" }));
  assert.equal(put.ETag, '"5eb63bbbe01eeed093cb22bb8f5acdc3"');
  // A stream of unknown length goes as aws-chunked with a trailing checksum.
  const body = Readable.from([Buffer.from("streamed "), Buffer.from("body")]);
  await s3.send(new PutObjectCommand({
    Bucket: bucket, Key: "dir/b.txt", Body: body, ContentLength: 13, ChecksumAlgorithm: "CRC32",
  }));
  const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: "dir/b.txt" }));
  assert.equal(await got.Body.transformToString(), "streamed body");
  const range = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: "dir/a.json", Range: "bytes=6-" }));
  assert.equal(await range.Body.transformToString(), "world");
  assert.equal(range.ContentRange, "bytes 6-10/11");
  const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: "dir/a.json" }));
  assert.equal(head.ContentLength, 11);
  assert.equal(head.ETag, put.ETag);
  await s3.send(new CopyObjectCommand({ Bucket: bucket, Key: "copy.json", CopySource: `${bucket}/dir/a.json` }));
  const keys = (await s3.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents.map((o) => o.Key);
  assert.deepEqual(keys, ["copy.json", "dir/a.json", "dir/b.txt"]);
  const top = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Delimiter: "/" }));
  assert.deepEqual(top.CommonPrefixes.map((p) => p.Prefix), ["dir/"]);
  assert.deepEqual(top.Contents.map((o) => o.Key), ["copy.json"]);
  // Pages of one key each, by continuation token.
  const seen = [];
  let token;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, MaxKeys: 1, ContinuationToken: token }));
    seen.push(...page.Contents.map((o) => o.Key));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  assert.deepEqual(seen, keys);
  const noKey = await s3Error(s3.send(new GetObjectCommand({ Bucket: bucket, Key: "nope" })));
  assert.equal(noKey.name, "NoSuchKey");
  // What the client puts is a file in the bucket's directory.
  assert.equal(readFileSync(path.join(s3dir, bucket, "dir", "a.json"), "utf8"), "hello world");
  const deleted = await s3.send(new DeleteObjectsCommand({
    Bucket: bucket, Delete: { Objects: keys.map((Key) => ({ Key })) },
  }));
  assert.equal(deleted.Deleted.length, 3);
  await s3.send(new DeleteBucketCommand({ Bucket: bucket }));
});

test("a wrong checksum is refused with BadDigest and nothing is stored", async () => {
  const bucket = uniqueName("sum").toLowerCase();
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  const e = await s3Error(s3.send(new PutObjectCommand({
    Bucket: bucket, Key: "k", Body: "data", ChecksumCRC32: "AAAAAA==",
  })));
  assert.equal(e.name, "BadDigest");
  const head = await s3Error(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: "k" })));
  assert.equal(head.$metadata.httpStatusCode, 404);
});

test("multipart upload through lib-storage (12 MiB in 5 MiB parts)", async () => {
  const bucket = uniqueName("mpu").toLowerCase();
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  const data = Buffer.alloc(12 * 1024 * 1024);
  for (let i = 0; i < data.length; i += 4096) data.writeUInt32BE(i, i);
  const upload = new Upload({ client: s3, params: { Bucket: bucket, Key: "big.bin", Body: data }, partSize: 5 * 1024 * 1024, queueSize: 2 });
  await upload.done();
  const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: "big.bin" }));
  assert.equal(head.ContentLength, data.length);
  const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: "big.bin" }));
  assert.ok(Buffer.from(await got.Body.transformToByteArray()).equals(data));
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
  assert.deepEqual(listed.Contents.map((o) => o.Key), ["big.bin"]);  // no parts left behind
});

test("ImportTable reads what the S3 client put; an export's files are objects", async () => {
  const bucket = uniqueName("imp").toLowerCase();
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await s3.send(new PutObjectCommand({
    Bucket: bucket, Key: "imp/data.json",
    Body: '{"Item":{"pk":{"S":"imported1"}}}\n{"Item":{"pk":{"S":"imported2"},"n":{"N":"2"}}}\n',
  }));
  const target = uniqueName("imp_tgt");
  const imp = await ddb.send(new ImportTableCommand({
    S3BucketSource: { S3Bucket: bucket, S3KeyPrefix: "imp/" },
    InputFormat: "DYNAMODB_JSON",
    InputCompressionType: "NONE",
    TableCreationParameters: {
      TableName: target,
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
      BillingMode: "PAY_PER_REQUEST",
    },
  }));
  const importArn = imp.ImportTableDescription.ImportArn;
  assert.equal(imp.ImportTableDescription.ImportStatus, "IN_PROGRESS");
  const list = await ddb.send(new ListImportsCommand({}));
  assert.ok(list.ImportSummaryList.some((s) => s.ImportArn === importArn));
  let status;
  for (let i = 0; i < 100; i++) {
    const d = await ddb.send(new DescribeImportCommand({ ImportArn: importArn }));
    status = d.ImportTableDescription.ImportStatus;
    if (status !== "IN_PROGRESS") break;
    await sleep(100);
  }
  assert.equal(status, "COMPLETED");
  const item = await ddb.send(new GetItemCommand({ TableName: target, Key: { pk: { S: "imported2" } } }));
  assert.equal(item.Item.n.N, "2");

  // Export the imported table into the same bucket and read its manifest back over S3.
  await ddb.send(new UpdateContinuousBackupsCommand({
    TableName: target, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
  }));
  const arn = (await ddb.send(new DescribeTableCommand({ TableName: target }))).Table.TableArn;
  const exp = await ddb.send(new ExportTableToPointInTimeCommand({ TableArn: arn, S3Bucket: bucket, S3Prefix: "exp" }));
  const exportArn = exp.ExportDescription.ExportArn;
  assert.equal(exp.ExportDescription.ExportStatus, "IN_PROGRESS");
  assert.ok((await ddb.send(new ListExportsCommand({ TableArn: arn }))).ExportSummaries.some((s) => s.ExportArn === exportArn));
  let described;
  for (let i = 0; i < 100; i++) {
    described = (await ddb.send(new DescribeExportCommand({ ExportArn: exportArn }))).ExportDescription;
    if (described.ExportStatus !== "IN_PROGRESS") break;
    await sleep(100);
  }
  assert.equal(described.ExportStatus, "COMPLETED");
  const summary = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: described.ExportManifest }));
  const manifest = JSON.parse(await summary.Body.transformToString());
  assert.equal(manifest.itemCount, 2);
  const files = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: "exp/AWSDynamoDB/" }));
  assert.ok(files.Contents.some((o) => o.Key.endsWith(".json.gz")));
});
