// ElectroDB index variants against ddb-server: multi-attribute ("composite") GSI keys,
// a KEYS_ONLY index with hydration, numeric key fields (castKeys) and a table without a
// sort key, as in ElectroDB's own table definitions.
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { CreateTableCommand, waitUntilTableExists } from "@aws-sdk/client-dynamodb";
import { Entity } from "electrodb";
import { startServer, uniqueName, traceClient } from "./helpers/server.mjs";

let srv, client;
const trace = [];
function failed(label) {
  return (e) => {
    e.message = `${label}: ${e.message}\nlast requests: ${JSON.stringify(trace.slice(-2))}`;
    throw e;
  };
}

async function createTable(def) {
  const TableName = uniqueName("edb");
  await client.send(new CreateTableCommand({ BillingMode: "PAY_PER_REQUEST", ...def, TableName }));
  await waitUntilTableExists({ client, maxWaitTime: 20, minDelay: 1 }, { TableName });
  return TableName;
}
const S = (n) => ({ AttributeName: n, AttributeType: "S" });
const N = (n) => ({ AttributeName: n, AttributeType: "N" });
const K = (n, t) => ({ AttributeName: n, KeyType: t });

before(async () => {
  srv = await startServer();
  client = srv.client();
  traceClient(client, trace);
});
after(async () => {
  await srv?.stop();
});

describe("multi-attribute GSI keys (type: composite)", () => {
  let Thing;
  before(async () => {
    const table = await createTable({
      KeySchema: [K("pk", "HASH"), K("sk", "RANGE")],
      AttributeDefinitions: [S("pk"), S("sk"), S("attr1"), S("attr2"), S("attr3"), S("attr4"), S("attr5"), N("attr6"), S("attr7")],
      GlobalSecondaryIndexes: [{
        IndexName: "gsi1",
        KeySchema: [K("attr1", "HASH"), K("attr2", "HASH"), K("attr3", "HASH"), K("attr4", "RANGE"), K("attr5", "RANGE"), K("attr6", "RANGE"), K("attr7", "RANGE")],
        Projection: { ProjectionType: "ALL" },
      }],
    });
    Thing = new Entity({
      model: { entity: "thing", version: "1", service: "test" },
      attributes: {
        id: { type: "string", required: true, readOnly: true },
        name: { type: "string", field: "attr7" },
        country: { type: "string", field: "attr1" },
        region: { type: "string", field: "attr2" },
        city: { type: "string", field: "attr3" },
        manufacturer: { type: "string", field: "attr4" },
        model: { type: "string", field: "attr5" },
        count: { type: "number", field: "attr6" },
      },
      indexes: {
        thing: { pk: { field: "pk", composite: ["manufacturer"] }, sk: { field: "sk", composite: ["model", "id"] } },
        location: {
          index: "gsi1", type: "composite",
          pk: { composite: ["country", "region", "city"] },
          sk: { composite: ["manufacturer", "model", "count", "name"] },
        },
      },
    }, { table, client });
    const items = [];
    for (let i = 0; i < 20; i++) {
      items.push({ id: `id${i}`, name: `name${i % 4}`, country: "US", region: i < 15 ? "OR" : "WA", city: "Portland", manufacturer: i % 2 ? "acme" : "zenith", model: `m${i % 3}`, count: i });
    }
    await Thing.put(items).go().catch(failed("batch put"));
  });

  test("query on equality of every partition attribute and leading sort attributes", async () => {
    const all = await Thing.query.location({ country: "US", region: "OR", city: "Portland" }).go({ pages: "all" }).catch(failed("query pk"));
    assert.equal(all.data.length, 15);
    const acme = await Thing.query.location({ country: "US", region: "OR", city: "Portland", manufacturer: "acme" }).go({ pages: "all" }).catch(failed("query sk prefix"));
    assert.equal(acme.data.length, 7);
    assert.ok(acme.data.every((t) => t.manufacturer === "acme"));
    const m1 = await Thing.query.location({ country: "US", region: "OR", city: "Portland", manufacturer: "acme", model: "m1" }).go({ pages: "all" }).catch(failed("query 2 sk"));
    assert.deepEqual(m1.data.map((t) => t.count).sort((a, b) => a - b), [1, 7, 13]);
  });

  test("range conditions on the next sort attribute", async () => {
    const base = { country: "US", region: "OR", city: "Portland", manufacturer: "acme", model: "m1" };
    const gt = await Thing.query.location(base).gt({ count: 5 }).go({ pages: "all" }).catch(failed("gt"));
    assert.deepEqual(gt.data.map((t) => t.count), [7, 13]);
    const lte = await Thing.query.location(base).lte({ count: 7 }).go({ pages: "all" }).catch(failed("lte"));
    assert.deepEqual(lte.data.map((t) => t.count), [1, 7]);
    const between = await Thing.query.location(base).between({ count: 2 }, { count: 13 }).go({ pages: "all" }).catch(failed("between"));
    assert.deepEqual(between.data.map((t) => t.count), [7, 13]);
    const desc = await Thing.query.location({ country: "US", region: "OR", city: "Portland", manufacturer: "zenith" }).go({ order: "desc", pages: "all" }).catch(failed("desc"));
    const keys = desc.data.map((t) => [t.model, t.count]);
    const sorted = [...keys].sort((a, b) => (a[0] === b[0] ? a[1] - b[1] : a[0] < b[0] ? -1 : 1)).reverse();
    assert.deepEqual(keys, sorted);
    const paged = [];
    let cursor = null;
    do {
      const r = await Thing.query.location({ country: "US", region: "OR", city: "Portland" }).go({ cursor, limit: 4 }).catch(failed("page"));
      paged.push(...r.data.map((t) => t.id));
      cursor = r.cursor;
    } while (cursor);
    assert.equal(paged.length, 15);
    assert.equal(new Set(paged).size, 15);
  });

  test("update of a composite attribute moves the item in the index", async () => {
    await Thing.patch({ manufacturer: "acme", model: "m1", id: "id1" }).set({ count: 500 }).composite({ country: "US", region: "OR", city: "Portland", name: "name1" }).go().catch(failed("patch"));
    const r = await Thing.query.location({ country: "US", region: "OR", city: "Portland", manufacturer: "acme", model: "m1" }).gte({ count: 100 }).go().catch(failed("after patch"));
    assert.deepEqual(r.data.map((t) => t.id), ["id1"]);
  });
});

describe("KEYS_ONLY index with hydrate", () => {
  let Item;
  before(async () => {
    const table = await createTable({
      KeySchema: [K("pk", "HASH"), K("sk", "RANGE")],
      AttributeDefinitions: [S("pk"), S("sk"), S("gsi1pk"), S("gsi1sk")],
      GlobalSecondaryIndexes: [{ IndexName: "gsi1pk-gsi1sk-index", KeySchema: [K("gsi1pk", "HASH"), K("gsi1sk", "RANGE")], Projection: { ProjectionType: "KEYS_ONLY" } }],
    });
    Item = new Entity({
      model: { entity: "item", version: "1", service: "keysonly" },
      attributes: { id: { type: "string" }, group: { type: "string" }, payload: { type: "string" }, n: { type: "number" } },
      indexes: {
        record: { pk: { field: "pk", composite: ["id"] }, sk: { field: "sk", composite: [] } },
        byGroup: { index: "gsi1pk-gsi1sk-index", pk: { field: "gsi1pk", composite: ["group"] }, sk: { field: "gsi1sk", composite: ["id"] } },
      },
    }, { table, client });
    const items = [];
    for (let i = 0; i < 12; i++) items.push({ id: `i${String(i).padStart(2, "0")}`, group: "g", payload: `p${i}`, n: i });
    await Item.put(items).go().catch(failed("put"));
  });

  test("query returns keys; hydrate fetches the items with BatchGetItem", async () => {
    const r = await Item.query.byGroup({ group: "g" }).go({ hydrate: true, pages: "all" }).catch(failed("hydrate"));
    assert.equal(r.data.length, 12);
    assert.deepEqual(r.data.map((i) => i.payload), Array.from({ length: 12 }, (_, i) => `p${i}`));
    const keysOnly = await Item.query.byGroup({ group: "g" }).go({ data: "raw", pages: "all" }).catch(failed("raw"));
    for (const it of keysOnly.data.Items) assert.deepEqual(Object.keys(it).sort(), ["gsi1pk", "gsi1sk", "pk", "sk"]);
    const filtered = await Item.query.byGroup({ group: "g" }).gt({ id: "i05" }).go({ hydrate: true, limit: 3 }).catch(failed("hydrate limit"));
    assert.deepEqual(filtered.data.map((i) => i.id), ["i06", "i07", "i08"]);
  });
});

describe("numeric key fields and a table without a sort key", () => {
  test("castKeys: number partition and sort keys", async () => {
    const table = await createTable({
      KeySchema: [K("pk", "HASH"), K("sk", "RANGE")],
      AttributeDefinitions: [N("pk"), N("sk"), N("gsi1pk"), N("gsi1sk")],
      GlobalSecondaryIndexes: [{ IndexName: "gsi1", KeySchema: [K("gsi1pk", "HASH"), K("gsi1sk", "RANGE")], Projection: { ProjectionType: "ALL" } }],
    });
    const Reading = new Entity({
      model: { entity: "reading", version: "1", service: "numeric" },
      attributes: { sensor: { type: "number" }, ts: { type: "number" }, bucket: { type: "number" }, value: { type: "number" } },
      indexes: {
        readings: { pk: { field: "pk", composite: ["sensor"], cast: "number" }, sk: { field: "sk", composite: ["ts"], cast: "number" } },
        byBucket: { index: "gsi1", pk: { field: "gsi1pk", composite: ["bucket"], cast: "number" }, sk: { field: "gsi1sk", composite: ["value"], cast: "number" } },
      },
    }, { table, client });
    const rows = [];
    for (let i = 0; i < 10; i++) rows.push({ sensor: 7, ts: 1000 + i * 10, bucket: i % 2, value: -5 + i * 1.5 });
    await Reading.put(rows).go().catch(failed("put"));
    const r = await Reading.query.readings({ sensor: 7 }).between({ ts: 1020 }, { ts: 1050 }).go().catch(failed("between"));
    assert.deepEqual(r.data.map((x) => x.ts), [1020, 1030, 1040, 1050]);
    const neg = await Reading.query.byBucket({ bucket: 0 }).lt({ value: 0 }).go().catch(failed("lt"));
    assert.deepEqual(neg.data.map((x) => x.value), [-5, -2]);
    const got = await Reading.get({ sensor: 7, ts: 1090 }).go();
    assert.equal(got.data.value, 8.5);
  });

  test("partition-key-only table", async () => {
    const table = await createTable({ KeySchema: [K("partition_key", "HASH")], AttributeDefinitions: [S("partition_key")] });
    const Setting = new Entity({
      model: { entity: "setting", version: "1", service: "nosort" },
      attributes: { name: { type: "string" }, value: { type: "any" }, tags: { type: "set", items: "number" } },
      indexes: { setting: { pk: { field: "partition_key", composite: ["name"] } } },
    }, { table, client });
    await Setting.create({ name: "a", value: { nested: [1, "x", null] }, tags: [3, 1] }).go().catch(failed("create"));
    const dup = await Setting.create({ name: "a", value: 1 }).go().catch((e) => e);
    assert.match(dup.message, /The conditional request failed/);
    const up = await Setting.update({ name: "a" }).add({ tags: [2] }).go({ response: "all_new" }).catch(failed("update"));
    assert.deepEqual(up.data.tags.sort(), [1, 2, 3]);
    const q = await Setting.query.setting({ name: "a" }).go().catch(failed("query"));
    assert.deepEqual(q.data[0].value, { nested: [1, "x", null] });
    const s = await Setting.scan.go().catch(failed("scan"));
    assert.equal(s.data.length, 1);
  });
});
