// dynamodb-toolbox (v2) against ddb-server: Table + Entity, item commands with the update
// verbs, Query/Scan, batch and transaction commands, as its documentation shows them.
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { CreateTableCommand, waitUntilTableExists } from "@aws-sdk/client-dynamodb";
import {
  Table, Entity, item, string, number, boolean, list, map, set, binary, anyOf,
  PutItemCommand, GetItemCommand, UpdateItemCommand, DeleteItemCommand, UpdateAttributesCommand,
  QueryCommand, ScanCommand, BatchGetCommand, BatchGetRequest, BatchWriteCommand, BatchPutRequest, BatchDeleteRequest,
  executeBatchGet, executeBatchWrite, PutTransaction, UpdateTransaction, DeleteTransaction, ConditionCheck,
  GetTransaction, executeTransactWrite, executeTransactGet, DeletePartitionCommand,
  $add, $append, $prepend, $remove, $set, $delete, $subtract, $sum, $get,
  isConditionCheckFailed, isTransactionCancelled,
} from "dynamodb-toolbox";
import { startServer, uniqueName, traceClient } from "./helpers/server.mjs";

let srv, client, documentClient, table, Pokemon, Trainer;
const trace = [];
const tableName = uniqueName("toolbox");

function failed(label) {
  return (e) => {
    e.message = `${label}: ${e.message}\nlast requests: ${JSON.stringify(trace.slice(-2), (k, v) => (v instanceof Set ? [...v] : typeof v === "bigint" ? String(v) : v))}`;
    throw e;
  };
}

before(async () => {
  srv = await startServer();
  client = srv.client();
  traceClient(client, trace);
  documentClient = srv.doc(client);
  await client.send(new CreateTableCommand({
    TableName: tableName, BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [
      { AttributeName: "pk", AttributeType: "S" }, { AttributeName: "sk", AttributeType: "S" },
      { AttributeName: "gsi1pk", AttributeType: "S" }, { AttributeName: "level", AttributeType: "N" },
    ],
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
    GlobalSecondaryIndexes: [{ IndexName: "byType", KeySchema: [{ AttributeName: "gsi1pk", KeyType: "HASH" }, { AttributeName: "level", KeyType: "RANGE" }], Projection: { ProjectionType: "ALL" } }],
    LocalSecondaryIndexes: [{ IndexName: "byLevel", KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "level", KeyType: "RANGE" }], Projection: { ProjectionType: "ALL" } }],
  }));
  await waitUntilTableExists({ client, maxWaitTime: 20, minDelay: 1 }, { TableName: tableName });

  table = new Table({
    name: tableName, documentClient,
    partitionKey: { name: "pk", type: "string" },
    sortKey: { name: "sk", type: "string" },
    indexes: {
      byType: { type: "global", partitionKey: { name: "gsi1pk", type: "string" }, sortKey: { name: "level", type: "number" } },
      byLevel: { type: "local", sortKey: { name: "level", type: "number" } },
    },
  });

  Pokemon = new Entity({
    name: "Pokemon", table,
    schema: item({
      trainerId: string().key().savedAs("pk"),
      pokemonId: string().key().savedAs("sk"),
      name: string(),
      pokeType: string().enum("fire", "water", "grass").savedAs("gsi1pk"),
      level: number().default(1),
      captured: boolean().optional(),
      moves: list(string()).default([]),
      tags: set(string()).optional(),
      stats: map({ hp: number(), attack: number() }).optional(),
      nickname: string().optional(),
      sprite: binary().optional(),
      history: list(map({ at: number(), event: string() })).optional(),
    }),
  });

  Trainer = new Entity({
    name: "Trainer", table,
    schema: item({
      trainerId: string().key().savedAs("pk"),
      name: string(),
      badges: number().default(0),
    }),
    computeKey: ({ trainerId }) => ({ pk: trainerId, sk: "#trainer" }),
  });
});

after(async () => {
  await srv?.stop();
});

describe("item commands", () => {
  test("PutItemCommand and GetItemCommand, with timestamps and entity attribute", async () => {
    const put = await Pokemon.build(PutItemCommand).item({
      trainerId: "ash", pokemonId: "pikachu", name: "Pikachu", pokeType: "grass", level: 5,
      tags: new Set(["electric", "starter"]), stats: { hp: 35, attack: 55 }, sprite: new Uint8Array([1, 2, 3]),
    }).send().catch(failed("put"));
    assert.equal(put.ToolboxItem.name, "Pikachu");
    const { Item } = await Pokemon.build(GetItemCommand).key({ trainerId: "ash", pokemonId: "pikachu" }).options({ consistent: true }).send().catch(failed("get"));
    assert.equal(Item.name, "Pikachu");
    assert.equal(Item.level, 5);
    assert.deepEqual(Item.tags, new Set(["electric", "starter"]));
    assert.deepEqual(Item.moves, []);
    assert.deepEqual(Item.sprite, new Uint8Array([1, 2, 3]));
    assert.ok(Item.created && Item.modified, "toolbox timestamps are stored and read back");
    const raw = await documentClient.send(new (await import("@aws-sdk/lib-dynamodb")).GetCommand({ TableName: tableName, Key: { pk: "ash", sk: "pikachu" } }));
    assert.equal(raw.Item._et, "Pokemon");
    assert.equal(raw.Item.gsi1pk, "grass");

    const { Item: none } = await Pokemon.build(GetItemCommand).key({ trainerId: "ash", pokemonId: "nobody" }).send();
    assert.equal(none, undefined);

    const proj = await Pokemon.build(GetItemCommand).key({ trainerId: "ash", pokemonId: "pikachu" }).options({ attributes: ["name", "stats.hp"] }).send().catch(failed("get attributes"));
    assert.deepEqual(proj.Item, { name: "Pikachu", stats: { hp: 35 } });
  });

  test("conditional put: exists: false, and returnValues on failure", async () => {
    const cmd = Pokemon.build(PutItemCommand).item({ trainerId: "ash", pokemonId: "pikachu", name: "Other", pokeType: "fire" })
      .options({ condition: { attr: "pokemonId", exists: false }, returnValuesOnConditionFalse: "ALL_OLD" });
    const err = await cmd.send().catch((e) => e);
    assert.ok(isConditionCheckFailed(err), `${err.name}: ${err.message}`);
    assert.equal(err.Item?.name?.S, "Pikachu");
    const old = await Pokemon.build(PutItemCommand).item({ trainerId: "ash", pokemonId: "pikachu", name: "Pikachu", pokeType: "grass", level: 6, tags: new Set(["electric"]), stats: { hp: 35, attack: 55 } })
      .options({ condition: { and: [{ attr: "level", gte: 5 }, { attr: "name", beginsWith: "Pika" }, { size: "moves", lte: 0 }] }, returnValues: "ALL_OLD" }).send().catch(failed("conditional put"));
    assert.equal(old.Attributes.level, 5);
  });

  test("UpdateItemCommand with $add, $subtract, $sum, $append, $prepend, $remove, $set, $delete, $get", async () => {
    await Pokemon.build(PutItemCommand).item({ trainerId: "ash", pokemonId: "charmander", name: "Charmander", pokeType: "fire", level: 10, moves: ["scratch"], tags: new Set(["a", "b", "c"]), nickname: "Char", stats: { hp: 39, attack: 52 } }).send();
    const r = await Pokemon.build(UpdateItemCommand).item({
      trainerId: "ash", pokemonId: "charmander",
      level: $add(2),
      moves: $append(["ember", "growl"]),
      tags: $delete(new Set(["b"])),
      nickname: $remove(),
      stats: { hp: $subtract($get("stats.hp"), 4), attack: $sum(10, 20) },
      captured: true,
      history: $set([{ at: 1, event: "caught" }]),
    }).options({ returnValues: "ALL_NEW" }).send().catch(failed("update"));
    assert.equal(r.Attributes.level, 12);
    assert.deepEqual(r.Attributes.moves, ["scratch", "ember", "growl"]);
    assert.deepEqual(r.Attributes.tags, new Set(["a", "c"]));
    assert.equal(r.Attributes.nickname, undefined);
    assert.deepEqual(r.Attributes.stats, { hp: 35, attack: 30 });
    assert.equal(r.Attributes.captured, true);

    const r2 = await Pokemon.build(UpdateItemCommand).item({
      trainerId: "ash", pokemonId: "charmander", moves: $prepend(["tackle"]), history: $append([{ at: 2, event: "evolved" }]),
      tags: $add(new Set(["z"])), level: $subtract(100, 1),
    }).options({ returnValues: "UPDATED_OLD", condition: { attr: "captured", eq: true } }).send().catch(failed("update 2"));
    assert.equal(r2.Attributes.level, 12);
    const { Item } = await Pokemon.build(GetItemCommand).key({ trainerId: "ash", pokemonId: "charmander" }).send();
    assert.deepEqual(Item.moves, ["tackle", "scratch", "ember", "growl"]);
    assert.deepEqual(Item.history, [{ at: 1, event: "caught" }, { at: 2, event: "evolved" }]);
    assert.deepEqual(Item.tags, new Set(["a", "c", "z"]));
    assert.equal(Item.level, 99);

    const r3 = await Pokemon.build(UpdateItemCommand).item({ trainerId: "ash", pokemonId: "charmander", moves: { 1: "slash", 3: $remove() }, stats: $set({ hp: 1, attack: 1 }) })
      .options({ returnValues: "UPDATED_NEW" }).send().catch(failed("update list index"));
    assert.deepEqual(r3.Attributes.stats, { hp: 1, attack: 1 });
    const { Item: i2 } = await Pokemon.build(GetItemCommand).key({ trainerId: "ash", pokemonId: "charmander" }).send();
    assert.deepEqual(i2.moves, ["tackle", "slash", "ember"]);

    const fail = await Pokemon.build(UpdateItemCommand).item({ trainerId: "ash", pokemonId: "charmander", level: $add(1) })
      .options({ condition: { attr: "level", lt: 50 } }).send().catch((e) => e);
    assert.ok(isConditionCheckFailed(fail), fail.name);

    const ua = await Pokemon.build(UpdateAttributesCommand).item({ trainerId: "ash", pokemonId: "charmander", stats: { hp: 2, attack: 3 } })
      .options({ returnValues: "ALL_NEW" }).send().catch(failed("updateAttributes"));
    assert.deepEqual(ua.Attributes.stats, { hp: 2, attack: 3 });
  });

  test("conditions: attribute comparisons, size, type, contains, not/or, in", async () => {
    await Pokemon.build(PutItemCommand).item({ trainerId: "cond", pokemonId: "c1", name: "Cond", nickname: "Cond", pokeType: "water", level: 7, moves: ["a", "b"], tags: new Set(["x"]) }).send();
    const ok = async (condition) => Pokemon.build(UpdateItemCommand).item({ trainerId: "cond", pokemonId: "c1", level: $add(0) }).options({ condition }).send().then(() => true, (e) => {
      if (isConditionCheckFailed(e)) return false;
      throw e;
    });
    assert.equal(await ok({ attr: "name", eq: { attr: "nickname" } }), true);
    assert.equal(await ok({ attr: "level", gt: { attr: "name" } }), false);
    assert.equal(await ok({ size: "moves", eq: 2 }), true);
    assert.equal(await ok({ size: "name", between: [1, 3] }), false);
    assert.equal(await ok({ attr: "level", type: "N" }), true);
    assert.equal(await ok({ attr: "tags", type: "SS" }), true);
    assert.equal(await ok({ attr: "moves", contains: "b" }), true);
    assert.equal(await ok({ attr: "tags", contains: "y" }), false);
    assert.equal(await ok({ not: { attr: "level", in: [1, 2, 3] } }), true);
    assert.equal(await ok({ or: [{ attr: "captured", exists: true }, { attr: "name", beginsWith: "Co" }] }), true);
    assert.equal(await ok({ and: [{ attr: "stats", exists: false }, { not: { or: [{ attr: "level", lte: 6 }, { attr: "name", ne: "Cond" }] } }] }), true);
  });

  test("update with computed values: $get with default, $sum of attributes, nested $add", async () => {
    await Pokemon.build(PutItemCommand).item({ trainerId: "calc", pokemonId: "c1", name: "Calc", pokeType: "fire", level: 3, stats: { hp: 10, attack: 4 } }).send();
    const r = await Pokemon.build(UpdateItemCommand).item({
      trainerId: "calc", pokemonId: "c1",
      level: $sum($get("stats.hp"), $get("stats.attack")),
      stats: { hp: $add(5) },
      nickname: $get("nickname", "none-yet"),
    }).options({ returnValues: "ALL_NEW" }).send().catch(failed("computed update"));
    assert.equal(r.Attributes.level, 14);
    assert.equal(r.Attributes.stats.hp, 15);
    assert.equal(r.Attributes.nickname, "none-yet");
  });

  test("DeleteItemCommand with condition and returnValues", async () => {
    await Trainer.build(PutItemCommand).item({ trainerId: "brock", name: "Brock", badges: 1 }).send().catch(failed("trainer put"));
    const fail = await Trainer.build(DeleteItemCommand).key({ trainerId: "brock" }).options({ condition: { attr: "badges", gt: 5 } }).send().catch((e) => e);
    assert.ok(isConditionCheckFailed(fail));
    const del = await Trainer.build(DeleteItemCommand).key({ trainerId: "brock" }).options({ returnValues: "ALL_OLD", condition: { attr: "name", in: ["Brock", "Misty"] } }).send().catch(failed("delete"));
    assert.equal(del.Attributes.name, "Brock");
  });
});

describe("query, scan, batch and transactions", () => {
  before(async () => {
    const types = ["fire", "water", "grass"];
    const puts = [];
    for (let i = 0; i < 40; i++) {
      puts.push(Pokemon.build(BatchPutRequest).item({ trainerId: i < 30 ? "misty" : "gary", pokemonId: `p${String(i).padStart(2, "0")}`, name: `Poke${i}`, pokeType: types[i % 3], level: i, captured: i % 2 === 0 }));
    }
    await executeBatchWrite(table.build(BatchWriteCommand).requests(...puts.slice(0, 25))).catch(failed("batch write 1"));
    await executeBatchWrite(table.build(BatchWriteCommand).requests(...puts.slice(25), Trainer.build(BatchPutRequest).item({ trainerId: "misty", name: "Misty" }))).catch(failed("batch write 2"));
  });

  test("QueryCommand: partition, range conditions, index, filters, reverse, limit, pagination", async () => {
    const all = await table.build(QueryCommand).query({ partition: "misty" }).entities(Pokemon, Trainer).send().catch(failed("query"));
    assert.equal(all.Items.length, 31);
    const begins = await table.build(QueryCommand).entities(Pokemon).query({ partition: "misty", range: { beginsWith: "p1" } }).send().catch(failed("beginsWith"));
    assert.equal(begins.Items.length, 10);
    const between = await table.build(QueryCommand).entities(Pokemon).query({ partition: "misty", range: { between: ["p05", "p07"] } }).options({ reverse: true }).send().catch(failed("between"));
    assert.deepEqual(between.Items.map((p) => p.pokemonId), ["p07", "p06", "p05"]);
    const gsi = await table.build(QueryCommand).entities(Pokemon).query({ index: "byType", partition: "fire", range: { between: [30, 40] } }).send().catch(failed("gsi"));
    assert.deepEqual(gsi.Items.map((p) => p.level), [30, 33, 36, 39]);
    const lsi = await table.build(QueryCommand).entities(Pokemon).query({ index: "byLevel", partition: "misty", range: { lt: 3 } }).options({ consistent: true }).send().catch(failed("lsi"));
    assert.deepEqual(lsi.Items.map((p) => p.level), [0, 1, 2]);
    const filtered = await table.build(QueryCommand).entities(Pokemon).query({ partition: "misty" })
      .options({ filters: { Pokemon: { and: [{ attr: "captured", eq: true }, { attr: "level", between: [10, 20] }, { attr: "pokeType", ne: "water" }] } }, attributes: ["pokemonId", "level"] })
      .send().catch(failed("filters"));
    assert.ok(filtered.Items.length > 0);
    for (const p of filtered.Items) {
      assert.ok(p.level >= 10 && p.level <= 20 && p.level % 2 === 0);
      assert.deepEqual(Object.keys(p).sort(), ["level", "pokemonId"]);
    }
    const pages = [];
    for await (const page of table.build(QueryCommand).entities(Pokemon).query({ partition: "misty", range: { beginsWith: "p" } }).options({ limit: 7 }).paginate()) {
      pages.push(page.Items.length);
    }
    assert.deepEqual(pages.filter((n) => n > 0), [7, 7, 7, 7, 2]);
    const limited = await table.build(QueryCommand).entities(Pokemon).query({ partition: "misty", range: { beginsWith: "p" } }).options({ maxPages: Infinity, limit: 10 }).send().catch(failed("maxPages"));
    assert.equal(limited.Items.length, 30);
    const count = await table.build(QueryCommand).query({ partition: "misty" }).options({ select: "COUNT" }).send().catch(failed("count"));
    assert.equal(count.Count, 31);
  });

  test("ScanCommand: entities, filters, segments", async () => {
    const all = await table.build(ScanCommand).entities(Pokemon).options({ maxPages: Infinity }).send().catch(failed("scan"));
    assert.ok(all.Items.length >= 40);
    const fire = await table.build(ScanCommand).entities(Pokemon).options({ filters: { Pokemon: { attr: "pokeType", eq: "fire" } }, maxPages: Infinity }).send().catch(failed("scan filter"));
    assert.ok(fire.Items.every((p) => p.pokeType === "fire"));
    let n = 0;
    for (const segment of [0, 1, 2, 3]) {
      const r = await table.build(ScanCommand).entities(Pokemon).options({ segment, totalSegments: 4, maxPages: Infinity }).send().catch(failed("segment"));
      n += r.Items.length;
    }
    assert.equal(n, all.Items.length);
    const idx = await table.build(ScanCommand).entities(Pokemon).options({ index: "byType", limit: 5 }).send().catch(failed("scan index"));
    assert.equal(idx.Items.length, 5);
    assert.ok(idx.LastEvaluatedKey?.gsi1pk && idx.LastEvaluatedKey?.pk, "index LastEvaluatedKey has table and index keys");
  });

  test("BatchGetCommand and BatchWriteCommand with deletes", async () => {
    const { Responses } = await executeBatchGet(table.build(BatchGetCommand).requests(
      Pokemon.build(BatchGetRequest).key({ trainerId: "misty", pokemonId: "p01" }),
      Pokemon.build(BatchGetRequest).key({ trainerId: "gary", pokemonId: "p35" }),
      Pokemon.build(BatchGetRequest).key({ trainerId: "gary", pokemonId: "nope" }),
      Trainer.build(BatchGetRequest).key({ trainerId: "misty" }),
    ).options({ consistent: true })).catch(failed("batch get"));
    const [items] = Responses;
    assert.equal(items[0].name, "Poke1");
    assert.equal(items[1].name, "Poke35");
    assert.equal(items[2], undefined);
    assert.equal(items[3].name, "Misty");
    await executeBatchWrite(table.build(BatchWriteCommand).requests(
      Pokemon.build(BatchDeleteRequest).key({ trainerId: "gary", pokemonId: "p39" }),
      Pokemon.build(BatchPutRequest).item({ trainerId: "gary", pokemonId: "p99", name: "New", pokeType: "water" }),
    )).catch(failed("batch write delete"));
    const { Item } = await Pokemon.build(GetItemCommand).key({ trainerId: "gary", pokemonId: "p39" }).send();
    assert.equal(Item, undefined);
  });

  test("transactions: write, get, cancelled", async () => {
    await executeTransactWrite(
      Pokemon.build(PutTransaction).item({ trainerId: "gary", pokemonId: "eevee", name: "Eevee", pokeType: "water" }).options({ condition: { attr: "pokemonId", exists: false } }),
      Pokemon.build(UpdateTransaction).item({ trainerId: "gary", pokemonId: "p30", level: $add(1), moves: $append(["bite"]) }),
      Pokemon.build(DeleteTransaction).key({ trainerId: "gary", pokemonId: "p31" }),
      Trainer.build(ConditionCheck).key({ trainerId: "misty" }).condition({ attr: "badges", eq: 0 }),
    ).catch(failed("transact write"));
    const { Responses } = await executeTransactGet(
      Pokemon.build(GetTransaction).key({ trainerId: "gary", pokemonId: "eevee" }),
      Pokemon.build(GetTransaction).key({ trainerId: "gary", pokemonId: "p30" }).options({ attributes: ["level", "moves"] }),
      Pokemon.build(GetTransaction).key({ trainerId: "gary", pokemonId: "p31" }),
    ).catch(failed("transact get"));
    assert.equal(Responses[0].Item.name, "Eevee");
    assert.deepEqual(Responses[1].Item, { level: 31, moves: ["bite"] });
    assert.equal(Responses[2].Item, undefined);

    const err = await executeTransactWrite(
      Pokemon.build(PutTransaction).item({ trainerId: "gary", pokemonId: "eevee", name: "Eevee2", pokeType: "water" }).options({ condition: { attr: "pokemonId", exists: false }, returnValuesOnConditionFalse: "ALL_OLD" }),
      Trainer.build(UpdateTransaction).item({ trainerId: "misty", badges: $add(1) }),
    ).catch((e) => e);
    assert.ok(isTransactionCancelled(err), `${err.name}: ${err.message}`);
    assert.equal(err.CancellationReasons[0].Code, "ConditionalCheckFailed");
    assert.equal(err.CancellationReasons[0].Item.name.S, "Eevee");
    assert.equal(err.CancellationReasons[1].Code, "None");
  });

  test("DeletePartitionCommand", async () => {
    await table.build(DeletePartitionCommand).entities(Pokemon).query({ partition: "gary" }).send().catch(failed("delete partition"));
    const r = await table.build(QueryCommand).entities(Pokemon).query({ partition: "gary" }).send();
    assert.equal(r.Items.length, 0);
  });
});
