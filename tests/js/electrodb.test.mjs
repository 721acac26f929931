// ElectroDB against ddb-server: entities and a service on one table, the way ElectroDB's
// README and its own integration tests use DynamoDB.
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { CreateTableCommand, waitUntilTableExists } from "@aws-sdk/client-dynamodb";
import { Entity, Service } from "electrodb";
import { startServer, uniqueName, traceClient } from "./helpers/server.mjs";

let srv, client, Employee, Task, Office, TaskApp;
const table = uniqueName("electro");
const trace = [];

before(async () => {
  srv = await startServer();
  client = srv.client();
  traceClient(client, trace);
  await client.send(new CreateTableCommand({
    TableName: table, BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: ["pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk"].map((n) => ({ AttributeName: n, AttributeType: "S" })),
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
    GlobalSecondaryIndexes: [
      { IndexName: "gsi1pk-gsi1sk-index", KeySchema: [{ AttributeName: "gsi1pk", KeyType: "HASH" }, { AttributeName: "gsi1sk", KeyType: "RANGE" }], Projection: { ProjectionType: "ALL" } },
      { IndexName: "gsi2pk-gsi2sk-index", KeySchema: [{ AttributeName: "gsi2pk", KeyType: "HASH" }, { AttributeName: "gsi2sk", KeyType: "RANGE" }], Projection: { ProjectionType: "ALL" } },
    ],
  }));
  await waitUntilTableExists({ client, maxWaitTime: 20, minDelay: 1 }, { TableName: table });

  Employee = new Entity({
    model: { entity: "employee", version: "1", service: "taskapp" },
    attributes: {
      employee: { type: "string", required: true },
      firstName: { type: "string", required: true },
      lastName: { type: "string", required: true },
      office: { type: "string", required: true },
      title: { type: "string", required: true },
      team: { type: ["development", "marketing", "finance", "product"], required: true },
      salary: { type: "number", default: 0 },
      manager: { type: "string" },
      dateHired: { type: "string" },
      skills: { type: "set", items: "string" },
      projects: { type: "list", items: { type: "string" } },
      address: { type: "map", properties: { city: { type: "string" }, zip: { type: "string" } } },
      updatedAt: { type: "number", watch: "*", set: () => Date.now(), readOnly: true },
    },
    indexes: {
      employee: { pk: { field: "pk", composite: ["employee"] }, sk: { field: "sk", composite: [] } },
      coworkers: { index: "gsi1pk-gsi1sk-index", collection: "workplaces", pk: { field: "gsi1pk", composite: ["office"] }, sk: { field: "gsi1sk", composite: ["team", "title", "employee"] } },
      teams: { index: "gsi2pk-gsi2sk-index", pk: { field: "gsi2pk", composite: ["team"] }, sk: { field: "gsi2sk", composite: ["dateHired", "title"] } },
    },
  }, { client, table });

  Task = new Entity({
    model: { entity: "task", version: "1", service: "taskapp" },
    attributes: {
      task: { type: "string", required: true },
      project: { type: "string", required: true },
      employee: { type: "string", required: true },
      description: { type: "string" },
      points: { type: "number", default: 1 },
      status: { type: ["open", "in-progress", "closed"], default: "open" },
      comments: { type: "list", items: { type: "string" } },
      labels: { type: "set", items: "string" },
    },
    indexes: {
      task: { pk: { field: "pk", composite: ["task"] }, sk: { field: "sk", composite: ["project", "employee"] } },
      project: { index: "gsi1pk-gsi1sk-index", pk: { field: "gsi1pk", composite: ["project"] }, sk: { field: "gsi1sk", composite: ["employee", "status"] } },
      assigned: { collection: "assignments", index: "gsi2pk-gsi2sk-index", pk: { field: "gsi2pk", composite: ["employee"] }, sk: { field: "gsi2sk", composite: ["project", "status"] } },
    },
  }, { client, table });

  Office = new Entity({
    model: { entity: "office", version: "1", service: "taskapp" },
    attributes: {
      office: { type: "string", required: true },
      country: { type: "string", required: true },
      city: { type: "string", required: true },
    },
    indexes: {
      locations: { pk: { field: "pk", composite: ["country"] }, sk: { field: "sk", composite: ["city", "office"] } },
      office: { index: "gsi1pk-gsi1sk-index", collection: "workplaces", pk: { field: "gsi1pk", composite: ["office"] }, sk: { field: "gsi1sk", composite: [] } },
    },
  }, { client, table });

  TaskApp = new Service({ employees: Employee, tasks: Task, offices: Office });
});

after(async () => {
  await srv?.stop();
});

function failed(label) {
  return (e) => {
    e.message = `${label}: ${e.message}\nlast requests: ${JSON.stringify(trace.slice(-2))}`;
    throw e;
  };
}

const emp = (n, extra = {}) => ({
  employee: `e${n}`, firstName: `First${n}`, lastName: `Last${n}`, office: n % 2 ? "portland" : "nyc",
  title: n % 3 ? "engineer" : "manager", team: n % 2 ? "development" : "marketing",
  dateHired: `2020-0${(n % 9) + 1}-1${n % 10}`, salary: 1000 * n, ...extra,
});

describe("entity CRUD", () => {
  test("put, get, create (fails when the item exists)", async () => {
    const put = await Employee.put(emp(1, { skills: ["c++", "js"], projects: ["p1"], address: { city: "Portland", zip: "97201" } })).go().catch(failed("put"));
    assert.equal(put.data.employee, "e1");
    const got = await Employee.get({ employee: "e1" }).go().catch(failed("get"));
    assert.equal(got.data.firstName, "First1");
    assert.deepEqual(got.data.skills.sort(), ["c++", "js"]);
    assert.deepEqual(got.data.address, { city: "Portland", zip: "97201" });
    const none = await Employee.get({ employee: "nobody" }).go();
    assert.equal(none.data, null);

    await Employee.create(emp(2)).go().catch(failed("create"));
    const err = await Employee.create(emp(2)).go().catch((e) => e);
    assert.ok(err instanceof Error);
    assert.match(err.message, /The conditional request failed/);
    assert.equal(err.cause?.name, "ConditionalCheckFailedException");
    // ReturnValuesOnConditionCheckFailure through ElectroDB: the rejected write reports the
    // stored item from the exception's Item.
    const rejected = await Employee.create(emp(2, { firstName: "Other" })).go({ returnOnConditionCheckFailure: "all_old" }).catch(failed("create all_old"));
    assert.equal(rejected.rejected, true);
    assert.equal(rejected.data.firstName, "First2");
  });

  test("patch and update with set/add/subtract/append/remove/delete/data", async () => {
    await Employee.put(emp(3, { skills: ["go", "rust", "sql"], projects: ["a"] })).go();
    await Employee.patch({ employee: "e3" })
      .set({ lastName: "Director" })
      .add({ salary: 500, skills: ["zig"] })
      .append({ projects: ["b", "c"] })
      .remove(["manager"])
      .go().catch(failed("patch"));
    // One path may appear only once per UpdateExpression (DynamoDB rejects overlaps), so
    // subtract and delete go in a second patch.
    const r1 = await Employee.patch({ employee: "e3" })
      .subtract({ salary: 100 })
      .delete({ skills: ["rust"] })
      .go({ response: "all_new" }).catch(failed("patch 2"));
    assert.equal(r1.data.lastName, "Director");
    assert.equal(r1.data.salary, 3400);
    assert.deepEqual(r1.data.skills.sort(), ["go", "sql", "zig"]);
    assert.deepEqual(r1.data.projects, ["a", "b", "c"]);

    const r2 = await Employee.update({ employee: "e3" })
      .data((a, op) => {
        op.set(a.firstName, "Renamed");
        op.add(a.salary, 1);
        op.append(a.projects, ["d"]);
        op.ifNotExists(a.manager, "e1");
      })
      .where((a, { eq }) => eq(a.lastName, "Director"))
      .go({ response: "updated_new" }).catch(failed("update.data"));
    assert.equal(r2.data.firstName, "Renamed");
    assert.equal(r2.data.salary, 3401);
    assert.equal(r2.data.manager, "e1");

    const r3 = await Employee.update({ employee: "e3" }).set({ "address": { city: "Austin" } }).go({ response: "all_old" }).catch(failed("update all_old"));
    assert.equal(r3.data.firstName, "Renamed");

    const missing = await Employee.patch({ employee: "ghost" }).set({ lastName: "x" }).go().catch((e) => e);
    assert.ok(missing instanceof Error, "patch on a missing item fails its attribute_exists condition");
    assert.match(missing.message, /The conditional request failed/);

    const condFail = await Employee.update({ employee: "e3" }).set({ lastName: "vp" }).where((a, { eq }) => eq(a.lastName, "intern")).go().catch((e) => e);
    assert.match(condFail.message, /The conditional request failed/);
  });

  test("upsert, remove and delete", async () => {
    const up = await Task.upsert({ task: "t-up", project: "p", employee: "e1", description: "first" }).go({ response: "all_new" }).catch(failed("upsert"));
    assert.equal(up.data.description, "first");
    assert.equal(up.data.status, "open");
    await Task.upsert({ task: "t-up", project: "p", employee: "e1", points: 5 }).add({ points: 2 }).go().catch(failed("upsert2"));
    const got = await Task.get({ task: "t-up", project: "p", employee: "e1" }).go();
    assert.ok(got.data.points >= 2);

    const rm = await Task.remove({ task: "t-up", project: "p", employee: "e1" }).go({ response: "all_old" }).catch(failed("remove"));
    assert.equal(rm.data.description, "first");
    const rmAgain = await Task.remove({ task: "t-up", project: "p", employee: "e1" }).go().catch((e) => e);
    assert.ok(rmAgain instanceof Error, "remove requires the item to exist");
    const del = await Task.delete({ task: "t-up", project: "p", employee: "e1" }).go();
    assert.ok(del);
  });
});

describe("queries", () => {
  before(async () => {
    const employees = [];
    for (let n = 10; n < 40; n++) employees.push(emp(n));
    const r = await Employee.put(employees).go().catch(failed("batch put"));
    assert.deepEqual(r.unprocessed, []);
    const tasks = [];
    for (let n = 0; n < 30; n++) {
      tasks.push({ task: `task${String(n).padStart(2, "0")}`, project: n % 3 ? "apollo" : "gemini", employee: `e${10 + (n % 5)}`, status: ["open", "in-progress", "closed"][n % 3], points: n, description: `task number ${n}` });
    }
    await Task.put(tasks).go().catch(failed("batch put tasks"));
    await Office.put([{ office: "portland", country: "US", city: "Portland" }, { office: "nyc", country: "US", city: "New York" }]).go();
  });

  test("sort-key conditions: begins, between, gt, gte, lt, lte", async () => {
    const eq = await Task.query.task({ task: "task01" }).go().catch(failed("query"));
    assert.equal(eq.data.length, 1);
    const byEmployee = await Employee.query.coworkers({ office: "portland" }).begins({ team: "development" }).go({ pages: "all" }).catch(failed("begins"));
    assert.ok(byEmployee.data.length > 0 && byEmployee.data.every((e) => e.team === "development"));
    const between = await Employee.query.teams({ team: "development" }).between({ dateHired: "2020-01-01" }, { dateHired: "2020-05-31" }).go({ pages: "all" }).catch(failed("between"));
    assert.ok(between.data.length > 0);
    assert.ok(between.data.every((e) => e.dateHired >= "2020-01-01" && e.dateHired <= "2020-05-31"));
    for (const [op, pred] of [["gt", (d) => d > "2020-05"], ["gte", (d) => d >= "2020-05"], ["lt", (d) => d < "2020-05"], ["lte", (d) => d <= "2020-05~"]]) {
      const r = await Employee.query.teams({ team: "marketing" })[op]({ dateHired: "2020-05" }).go({ pages: "all" }).catch(failed(op));
      assert.ok(r.data.length > 0, op);
      assert.ok(r.data.every((e) => pred(e.dateHired)), op);
    }
  });

  test(".where() filters and attributes projection", async () => {
    const r = await Task.query.project({ project: "apollo" })
      .where(({ points, status, description }, { gte, eq, contains, notExists }) => `${gte(points, 10)} AND (${eq(status, "open")} OR ${contains(description, "number 2")}) AND ${notExists(status) === "" ? "" : "attribute_exists(#pk)".replace("#pk", "#status")}`.replace(/ AND $/, ""))
      .go({ pages: "all" }).catch(failed("where"));
    assert.ok(r.data.length > 0);
    assert.ok(r.data.every((t) => t.points >= 10 && (t.status === "open" || t.description.includes("number 2"))));

    const proj = await Task.query.assigned({ employee: "e11" }).go({ attributes: ["task", "points"], pages: "all" }).catch(failed("attributes"));
    assert.ok(proj.data.length > 0);
    for (const t of proj.data) assert.deepEqual(Object.keys(t).sort(), ["points", "task"]);

    const filt = await Task.query.project({ project: "gemini" }).where(({ points }, { between, size, type }) => `${between(points, 3, 12)} AND ${type(points, "N")}`).go().catch(failed("between filter"));
    assert.deepEqual(filt.data.map((t) => t.points).sort((a, b) => a - b), [3, 6, 9, 12]);
  });

  test("every .where() operator, on scalars, lists, sets and nested map paths", async () => {
    await Employee.put(emp(90, { skills: ["c", "go"], projects: ["x", "y"], address: { city: "Boise", zip: "83702" }, manager: "e1" })).go();
    const match = async (fn) => (await Employee.query.employee({ employee: "e90" }).where(fn).go().catch(failed("where op"))).data.length === 1;
    assert.equal(await match(({ salary }, { eq }) => eq(salary, 90000)), true);
    assert.equal(await match(({ salary }, { ne }) => ne(salary, 90000)), false);
    assert.equal(await match(({ salary }, { gt, lt }) => `${gt(salary, 1)} AND ${lt(salary, 100000)}`), true);
    assert.equal(await match(({ salary }, { gte, lte }) => `${gte(salary, 90000)} AND ${lte(salary, 90000)}`), true);
    assert.equal(await match(({ lastName }, { between }) => between(lastName, "Last8", "Last99")), true);
    assert.equal(await match(({ lastName }, { begins }) => begins(lastName, "Last9")), true);
    assert.equal(await match(({ manager, dateHired }, { exists, notExists }) => `${exists(manager)} AND ${notExists(dateHired) === "" ? "" : "attribute_exists(#dateHired)"}`.replace(/ AND $/, "")), true);
    assert.equal(await match(({ projects }, { contains }) => contains(projects, "y")), true);
    assert.equal(await match(({ skills }, { notContains }) => notContains(skills, "rust")), true);
    assert.equal(await match(({ projects }, { size, value }) => `${size(projects)} = ${value(projects, 2)}`), true);
    assert.equal(await match(({ skills }, { type }) => type(skills, "SS")), true);
    assert.equal(await match(({ address }, { eq }) => eq(address.city, "Boise")), true);
    assert.equal(await match(({ address }, { begins }) => begins(address.zip, "837")), true);
    assert.equal(await match(({ projects }, { eq }) => eq(projects[1], "y")), true);
    assert.equal(await match(({ firstName }, { value, name }) => `${name(firstName)} IN (${value(firstName, "First90")}, ${value(firstName, "Other")})`), true);
    assert.equal(await match(({ firstName, lastName }, { name }) => `${name(firstName)} <> ${name(lastName)}`), true);
    assert.equal(await match((attr, { field, escape }) => `${field("office")} = ${escape("portland")}`), false);
  });

  test("pagination with cursors, limit and order", async () => {
    const all = [];
    let cursor = null;
    let pages = 0;
    do {
      const r = await Employee.query.teams({ team: "development" }).go({ cursor, limit: 4 }).catch(failed("page"));
      all.push(...r.data);
      cursor = r.cursor;
      pages++;
    } while (cursor && pages < 50);
    assert.ok(pages >= 4, `pages ${pages}`);
    const everything = await Employee.query.teams({ team: "development" }).go({ pages: "all" });
    assert.deepEqual(all.map((e) => e.employee), everything.data.map((e) => e.employee));
    const desc = await Employee.query.teams({ team: "development" }).go({ order: "desc", pages: "all" });
    assert.deepEqual(desc.data.map((e) => e.employee), [...everything.data].reverse().map((e) => e.employee));

    const scanned = await Task.scan.where(({ points }, { lt }) => lt(points, 5)).go({ pages: "all" }).catch(failed("scan"));
    assert.deepEqual(scanned.data.map((t) => t.points).sort((a, b) => a - b), [0, 1, 2, 3, 4]);
    const matched = await Task.match({ project: "gemini", status: "open" }).go({ pages: "all" }).catch(failed("match"));
    assert.ok(matched.data.every((t) => t.project === "gemini" && t.status === "open"));
    assert.ok(matched.data.length > 0);
  });

  test("batchGet and batchWrite (put + delete)", async () => {
    const keys = [];
    for (let n = 10; n < 40; n++) keys.push({ employee: `e${n}` });
    keys.push({ employee: "nobody" });
    const r = await Employee.get(keys).go().catch(failed("batchGet"));
    assert.equal(r.data.length, 30);
    assert.deepEqual(r.unprocessed, []);
    const ordered = await Employee.get(keys.slice(0, 5)).go({ preserveBatchOrder: true });
    assert.deepEqual(ordered.data.map((e) => e.employee), ["e10", "e11", "e12", "e13", "e14"]);
    const del = await Employee.delete([{ employee: "e38" }, { employee: "e39" }]).go().catch(failed("batch delete"));
    assert.deepEqual(del.unprocessed, []);
    const after = await Employee.get([{ employee: "e38" }, { employee: "e39" }]).go();
    assert.deepEqual(after.data, []);
  });

  test("service collections", async () => {
    const wp = await TaskApp.collections.workplaces({ office: "portland" }).go({ pages: "all" }).catch(failed("collection"));
    assert.equal(wp.data.offices.length, 1);
    assert.ok(wp.data.employees.length > 0);
    assert.ok(wp.data.employees.every((e) => e.office === "portland"));
    const asg = await TaskApp.collections.assignments({ employee: "e12" }).where(({ points }, { gt }) => gt(points, 5)).go({ pages: "all" }).catch(failed("assignments"));
    assert.ok(asg.data.tasks.length > 0);
    assert.ok(asg.data.tasks.every((t) => t.employee === "e12" && t.points > 5));
  });

  test("service transactions: write and get, and a cancelled write", async () => {
    const w = await TaskApp.transaction.write(({ employees, tasks }) => [
      tasks.create({ task: "tx1", project: "apollo", employee: "e10", points: 3 }).commit(),
      employees.patch({ employee: "e10" }).add({ salary: 1 }).commit(),
      tasks.check({ task: "task01", project: "apollo", employee: "e11" }).where(({ status }, { exists }) => exists(status)).commit(),
    ]).go().catch(failed("transaction.write"));
    assert.equal(w.canceled, false);

    const g = await TaskApp.transaction.get(({ employees, tasks }) => [
      tasks.get({ task: "tx1", project: "apollo", employee: "e10" }).commit(),
      employees.get({ employee: "e10" }).commit(),
      employees.get({ employee: "nobody" }).commit(),
    ]).go().catch(failed("transaction.get"));
    assert.equal(g.canceled, false);
    assert.equal(g.data[0].item.points, 3);
    assert.equal(g.data[1].item.salary, 10001);
    assert.equal(g.data[2].item, null);

    const c = await TaskApp.transaction.write(({ tasks, employees }) => [
      tasks.create({ task: "tx1", project: "apollo", employee: "e10" }).commit({ response: "all_old" }),
      employees.patch({ employee: "e10" }).set({ lastName: "Boss" }).commit(),
    ]).go().catch(failed("cancelled tx"));
    assert.equal(c.canceled, true);
    assert.equal(c.data[0].rejected, true);
    assert.equal(c.data[0].code, "ConditionalCheckFailed");
    assert.equal(c.data[0].item?.points, 3);
    assert.equal(c.data[1].rejected, false);
    assert.equal(c.data[1].code, "None");
  });
});
