// OneTable (dynamodb-onetable) against ddb-server: createTable from the schema, models with
// unique fields (transactions), create/get/find/update/remove, batch and pagination.
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { Table } from "dynamodb-onetable";
import { startServer, uniqueName, traceClient } from "./helpers/server.mjs";

const Schema = {
  format: "onetable:1.1.0",
  version: "0.0.1",
  indexes: {
    primary: { hash: "pk", sort: "sk" },
    gs1: { hash: "gs1pk", sort: "gs1sk", project: "all" },
    gs2: { hash: "gs2pk", sort: "gs2sk", project: ["name", "status"] },
    ls1: { sort: "id", type: "local" },
  },
  models: {
    Event: {
      pk: { type: String, value: "stream#${stream}" },
      sk: { type: String, value: "event#${seq}" },
      stream: { type: String, required: true },
      seq: { type: Number, required: true },
      kind: { type: String },
      data: { type: Object },
      expires: { type: Date, ttl: true },
    },
    Account: {
      pk: { type: String, value: "account#${id}" },
      sk: { type: String, value: "account#" },
      id: { type: String, generate: "ulid" },
      name: { type: String, required: true, unique: true },
      plan: { type: String, default: "free", enum: ["free", "pro"] },
      gs1pk: { type: String, value: "account-name#${name}" },
      gs1sk: { type: String, value: "account#" },
    },
    User: {
      pk: { type: String, value: "account#${accountId}" },
      sk: { type: String, value: "user#${email}" },
      accountId: { type: String, required: true },
      id: { type: String, generate: "ulid" },
      name: { type: String, required: true },
      email: { type: String, required: true, unique: true },
      status: { type: String, default: "active", enum: ["active", "inactive"] },
      balance: { type: Number, default: 0 },
      tags: { type: Set },
      profile: { type: Object, default: {} },
      history: { type: Array, default: [] },
      lastLogin: { type: Date },
      gs1pk: { type: String, value: "user-email#${email}" },
      gs1sk: { type: String, value: "user#" },
      gs2pk: { type: String, value: "status#${status}" },
      gs2sk: { type: String, value: "user#${name}" },
    },
  },
  params: { isoDates: true, timestamps: true },
};

let srv, client, table, Account, User, Event;
const trace = [];

function failed(label) {
  return (e) => {
    const err = e instanceof Error ? e : new Error(String(e));
    err.message = `${label}: ${err.message} ${JSON.stringify(e.context ?? "")}\nlast requests: ${JSON.stringify(trace.slice(-2), (k, v) => (v instanceof Set ? [...v] : v))}`;
    throw err;
  };
}

before(async () => {
  srv = await startServer();
  client = srv.client();
  traceClient(client, trace);
  table = new Table({ client, name: uniqueName("onetable"), schema: Schema, partial: false });
  await table.createTable().catch(failed("createTable"));
  Account = table.getModel("Account");
  User = table.getModel("User");
  Event = table.getModel("Event");
});

after(async () => {
  await srv?.stop();
});

describe("OneTable", () => {
  let account;

  test("createTable made the table with the schema's indexes", async () => {
    assert.ok(await table.exists());
    const d = await table.describeTable();
    assert.equal(d.Table.TableStatus, "ACTIVE");
    assert.deepEqual(d.Table.GlobalSecondaryIndexes.map((i) => i.IndexName).sort(), ["gs1", "gs2"]);
    assert.deepEqual(d.Table.LocalSecondaryIndexes.map((i) => i.IndexName), ["ls1"]);
    const names = await table.listTables();
    assert.ok(names.includes(table.name));
  });

  test("create/get with unique attributes (transactions)", async () => {
    account = await Account.create({ name: "Acme" }).catch(failed("Account.create"));
    assert.ok(account.id);
    assert.equal(account.plan, "free");
    assert.ok(account.created instanceof Date);
    const dup = await Account.create({ name: "Acme" }).catch((e) => e);
    assert.ok(dup instanceof Error, "a second account with the same unique name must fail");
    assert.match(dup.message, /Cannot create "Account", an item of the same name already exists|unique|Conditional|cancel/i);

    const user = await User.create({ accountId: account.id, name: "Alice", email: "alice@acme.com", tags: new Set(["a"]), profile: { theme: "dark" } }).catch(failed("User.create"));
    assert.equal(user.status, "active");
    const dupEmail = await User.create({ accountId: account.id, name: "Alice2", email: "alice@acme.com" }).catch((e) => e);
    assert.ok(dupEmail instanceof Error);
    const got = await User.get({ accountId: account.id, email: "alice@acme.com" }).catch(failed("User.get"));
    assert.equal(got.name, "Alice");
    assert.deepEqual(got.profile, { theme: "dark" });
    const viaIndex = await User.get({ email: "alice@acme.com" }, { index: "gs1", follow: true }).catch(failed("User.get gs1"));
    assert.equal(viaIndex?.name, "Alice");
    const none = await User.get({ accountId: account.id, email: "nobody@acme.com" });
    assert.equal(none, undefined);
  });

  test("update: set, add, remove, push, conditions and exists", async () => {
    const u = await User.update({ accountId: account.id, email: "alice@acme.com", status: "inactive" }, {
      add: { balance: 10 }, remove: ["tags"], set: { "profile.theme": "light" }, push: { history: ["login"] }, return: "get",
    }).catch(failed("User.update"));
    assert.equal(u.status, "inactive");
    assert.equal(u.balance, 10);
    assert.equal(u.tags, undefined);
    assert.equal(u.profile.theme, "light");
    assert.deepEqual(u.history, ["login"]);
    const u2 = await User.update({ accountId: account.id, email: "alice@acme.com", lastLogin: new Date(0) }, { where: "${balance} >= {10}", return: "get" }).catch(failed("update where"));
    assert.equal(u2.lastLogin.getTime(), 0);
    const bad = await User.update({ accountId: account.id, email: "alice@acme.com", name: "x" }, { where: "${balance} > {100}" }).catch((e) => e);
    assert.ok(bad instanceof Error);
    assert.match(bad.message + JSON.stringify(bad.context ?? {}), /Conditional|condition/i);
    const missing = await User.update({ accountId: account.id, email: "ghost@acme.com", name: "Ghost" }).catch((e) => e);
    assert.ok(missing instanceof Error, "update of a missing item fails (exists: true by default)");
    const upsert = await User.update({ accountId: account.id, email: "ghost@acme.com", name: "Ghost" }, { exists: null, return: "get" }).catch(failed("upsert"));
    assert.equal(upsert.name, "Ghost");
  });

  test("find with conditions, filters, pagination and indexes", async () => {
    const acct = await Account.create({ name: "Many" });
    for (let i = 0; i < 25; i++) {
      await User.create({ accountId: acct.id, name: `user${String(i).padStart(2, "0")}`, email: `u${String(i).padStart(2, "0")}@many.com`, balance: i, status: i % 2 ? "inactive" : "active" }).catch(failed("create many"));
    }
    const all = await User.find({ accountId: acct.id }).catch(failed("find"));
    assert.equal(all.length, 25);
    const begins = await User.find({ accountId: acct.id, sk: { begins: "user#u1" } }).catch(failed("begins"));
    assert.equal(begins.length, 10);
    const between = await User.find({ accountId: acct.id, sk: { between: ["user#u03", "user#u05~"] } }).catch(failed("between"));
    assert.deepEqual(between.map((u) => u.name), ["user03", "user04", "user05"]);
    const where = await User.find({ accountId: acct.id }, { where: "(${balance} > {20}) and (${status} = {active})" }).catch(failed("where"));
    assert.deepEqual(where.map((u) => u.balance).sort((a, b) => a - b), [22, 24]);
    const filter = await User.find({ accountId: acct.id, status: "inactive" }).catch(failed("filter"));
    assert.equal(filter.length, 12);

    let next;
    const seen = [];
    let pages = 0;
    do {
      const page = await User.find({ accountId: acct.id }, { limit: 10, next }).catch(failed("page"));
      seen.push(...page.map((u) => u.email));
      next = page.next;
      pages++;
    } while (next && pages < 10);
    assert.equal(seen.length, 25);
    assert.equal(new Set(seen).size, 25);
    const reverse = await User.find({ accountId: acct.id }, { limit: 3, reverse: true });
    assert.deepEqual(reverse.map((u) => u.email), ["u24@many.com", "u23@many.com", "u22@many.com"]);
    const prev = await User.find({ accountId: acct.id }, { limit: 5, prev: reverse.next ? undefined : undefined });
    assert.equal(prev.length, 5);

    const byStatus = await User.find({ status: "active" }, { index: "gs2" }).catch(failed("gs2"));
    assert.ok(byStatus.length >= 13);
    const count = await User.find({ accountId: acct.id }, { count: true }).catch(failed("count"));
    assert.equal(count.count, 25);
    const scanned = await User.scan({}).catch(failed("scan"));
    assert.ok(scanned.length >= 27);
  });

  test("batch get and write, transactions", async () => {
    // Models with unique attributes cannot be batched (OneTable), so batches use Event.
    const batch = {};
    for (let seq = 1; seq <= 30; seq++) {
      await Event.create({ stream: "s1", seq, kind: seq === 1 ? "start" : "tick", data: { n: seq }, expires: new Date(Date.now() + 3600e3) }, { batch });
    }
    const batch1 = { RequestItems: { [table.name]: batch.RequestItems[table.name].slice(0, 25) } };
    const batch2 = { RequestItems: { [table.name]: batch.RequestItems[table.name].slice(25) } };
    await table.batchWrite(batch1).catch(failed("batchWrite"));
    await table.batchWrite(batch2).catch(failed("batchWrite 2"));
    const get = {};
    for (const seq of [1, 2, 3, 99]) await Event.get({ stream: "s1", seq }, { batch: get });
    const items = await table.batchGet(get, { parse: true, hidden: false, consistent: true }).catch(failed("batchGet"));
    assert.deepEqual(items.map((i) => i.seq).sort(), [1, 2, 3]);
    const ev = await Event.get({ stream: "s1", seq: 1 });
    assert.ok(ev.expires instanceof Date);

    const transaction = {};
    await Event.update({ stream: "s1", seq: 2, kind: "tock" }, { transaction });
    await Event.remove({ stream: "s1", seq: 3 }, { transaction });
    await User.update({ accountId: account.id, email: "alice@acme.com" }, { add: { balance: 1 }, transaction });
    await table.transact("write", transaction).catch(failed("transact write"));
    const tget = {};
    await Event.get({ stream: "s1", seq: 2 }, { transaction: tget });
    await Event.get({ stream: "s1", seq: 3 }, { transaction: tget });
    const got = await table.transact("get", tget, { parse: true, hidden: false }).catch(failed("transact get"));
    assert.equal(got.length, 1);
    assert.equal(got[0].kind, "tock");

    const page1 = await Event.find({ stream: "s1" }, { limit: 10 });
    assert.equal(page1.length, 10);
    const page2 = await Event.find({ stream: "s1" }, { limit: 10, next: page1.next });
    assert.equal(page2.length, 10);
    const back = await Event.find({ stream: "s1" }, { limit: 10, prev: page2.prev });
    assert.deepEqual(back.map((e) => e.seq), page1.map((e) => e.seq));
  });

  test("remove, with unique attributes cleaned up", async () => {
    await User.remove({ accountId: account.id, email: "alice@acme.com" }).catch(failed("remove"));
    assert.equal(await User.get({ accountId: account.id, email: "alice@acme.com" }), undefined);
    const again = await User.create({ accountId: account.id, name: "Alice", email: "alice@acme.com" }).catch(failed("re-create after remove"));
    assert.equal(again.name, "Alice");
    // With unique attributes, remove is a transaction and returns no item (OneTable).
    await User.remove({ accountId: account.id, email: "ghost@acme.com" }).catch(failed("remove ghost"));
    assert.equal(await User.get({ email: "ghost@acme.com" }, { index: "gs1", follow: true }), undefined);
    const old = await Event.remove({ stream: "s1", seq: 1 }, { return: "ALL_OLD" }).catch(failed("remove return"));
    assert.equal(old.kind, "start");
    await Event.remove({ stream: "s1" }, { many: true }).catch(failed("remove many"));
    assert.deepEqual(await Event.find({ stream: "s1" }), []);
  });
});

describe("OneTable partial updates of nested schemas", () => {
  let PTable, Person;
  before(async () => {
    PTable = new Table({
      client, name: uniqueName("partial"), partial: true,
      schema: {
        format: "onetable:1.1.0", version: "0.0.1",
        indexes: { primary: { hash: "pk", sort: "sk", project: "all" }, gs1: { hash: "gs1pk", sort: "gs1sk", project: "all" } },
        models: {
          Person: {
            pk: { type: "string", value: "${_type}#${id}" },
            sk: { type: "string", value: "${_type}#" },
            id: { type: "string", generate: "ulid" },
            email: { type: "string", required: true },
            address: { type: Object, schema: { street: { type: "string" }, zip: { type: "number" }, geo: { type: Object, schema: { lat: { type: "number" }, lng: { type: "number" } } } } },
            phones: { type: Array, items: { type: Object, schema: { kind: { type: "string" }, number: { type: "string" } } } },
            gs1pk: { type: "string", value: "email#${email}" },
            gs1sk: { type: "string", value: "${_type}#" },
          },
        },
        params: {},
      },
    });
    await PTable.createTable().catch(failed("createTable"));
    Person = PTable.getModel("Person");
  });

  test("create, get and find with nested properties", async () => {
    const p = await Person.create({ email: "p@x.com", address: { street: "42 Park Ave", zip: 12345, geo: { lat: 1, lng: 2 } }, phones: [{ kind: "home", number: "1" }] }).catch(failed("create"));
    const got = await Person.get({ id: p.id, address: { zip: 12345 } }).catch(failed("get"));
    assert.equal(got.address.street, "42 Park Ave");
    const found = await Person.find({ id: p.id, address: { zip: 12345 } }).catch(failed("find nested filter"));
    assert.equal(found.length, 1);
    const none = await Person.find({ id: p.id, address: { zip: 1 } });
    assert.equal(none.length, 0);
  });

  test("partial update keeps sibling properties; partial: false replaces the map", async () => {
    const [p] = await Person.find({ email: "p@x.com" }, { index: "gs1", follow: true });
    let u = await Person.update({ id: p.id, email: "q@x.com" }).catch(failed("update email"));
    assert.equal(u.email, "q@x.com");
    assert.equal(u.address.street, "42 Park Ave");
    u = await Person.update({ id: p.id, address: { zip: 99999, geo: { lat: 5 } } }).catch(failed("partial nested"));
    assert.equal(u.address.street, "42 Park Ave");
    assert.equal(u.address.zip, 99999);
    assert.deepEqual(u.address.geo, { lat: 5, lng: 2 });
    u = await Person.update({ id: p.id, address: { zip: 22222 } }, { partial: false }).catch(failed("full replace"));
    assert.equal(u.address.street, undefined);
    assert.equal(u.address.zip, 22222);
    u = await Person.update({ id: p.id }, { set: { "address.street": "Main St" }, remove: ["phones"] }).catch(failed("set path"));
    assert.equal(u.address.street, "Main St");
    assert.equal(u.phones, undefined);
  });
});

describe("OneTable mapped and packed attributes", () => {
  let MTable, MUser;
  before(async () => {
    MTable = new Table({
      client, name: uniqueName("mapped"), partial: false,
      schema: {
        format: "onetable:1.1.0", version: "0.0.1",
        indexes: { primary: { hash: "pk", sort: "sk" }, gs1: { hash: "pk1", sort: "sk1", project: ["pk1", "sk1", "data"] } },
        models: {
          User: {
            primaryHash: { type: String, value: "us#${id}", map: "pk" },
            primarySort: { type: String, value: "us#", map: "sk" },
            id: { type: String, generate: "ulid" },
            name: { type: String, map: "nm" },
            email: { type: String, map: "em" },
            status: { type: String, map: "st" },
            address: { type: String, map: "data.address" },
            city: { type: String, map: "data.city" },
            zip: { type: String, map: "data.zip" },
            gs1pk: { type: String, value: "ty#us", map: "pk1" },
            gs1sk: { type: String, value: "us#${email}", map: "sk1" },
          },
        },
        params: {},
      },
    });
    await MTable.createTable().catch(failed("createTable with key attributes in the INCLUDE projection"));
    MUser = MTable.getModel("User");
  });

  test("create, get (raw and via the GSI), find, update, remove attributes", async () => {
    let user = await MUser.create({ name: "Peter Smith", status: "active", email: "peter@example.com", address: "444 Cherry Tree Lane", city: "Paris", zip: "1234567" }).catch(failed("create"));
    assert.equal(user.city, "Paris");
    const raw = await MUser.get({ id: user.id }, { hidden: true, parse: false }).catch(failed("raw get"));
    assert.equal(raw.em.S, "peter@example.com");
    assert.deepEqual(raw.data.M.city, { S: "Paris" });
    const viaGsi = await MUser.get({ email: user.email }, { index: "gs1", follow: true }).catch(failed("gsi follow"));
    assert.equal(viaGsi.name, "Peter Smith");
    const gsiItems = await MUser.find({ email: user.email }, { index: "gs1" }).catch(failed("gsi find"));
    assert.equal(gsiItems[0].zip, "1234567", "the packed map is projected into the index");
    // With partial: false OneTable rewrites the whole packed map, so every packed property goes along.
    user = await MUser.update({ id: user.id, status: "inactive", city: "Lyon", address: "444 Cherry Tree Lane", zip: "1234567" }).catch(failed("update packed"));
    assert.equal(user.status, "inactive");
    assert.equal(user.city, "Lyon");
    assert.equal(user.address, "444 Cherry Tree Lane");
    user = await MUser.update({ id: user.id, status: null }).catch(failed("remove via null"));
    assert.equal(user.status, undefined);
    user = await MUser.update({ id: user.id, email: "peter@gmail.com" }, { remove: ["name"], hidden: true }).catch(failed("remove option"));
    assert.equal(user.name, undefined);
    assert.equal(user.email, "peter@gmail.com");
    assert.equal(user.primarySort, "us#");
    await MUser.remove({ id: user.id });
    assert.equal(await MUser.get({ id: user.id }), undefined);
  });
});
