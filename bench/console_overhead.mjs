#!/usr/bin/env node
// bench/console_overhead.mjs: what the web console costs (docs/CONSOLE.md).
//  1. First paint of /console from a loopback ddb-server holding 100 tables: headless
//     Chromium's performance.getEntriesByType('paint'), and the time until the Tables view
//     lists all 100 (median of --loads page loads, each in a fresh browser profile).
//  2. GetItem throughput (bench/loadgen, as bench/compare.sh runs it) with the partition
//     view's polling running (GET /console/api/partitions?table=bench once a second: the
//     request the open page makes) and without, in the same run and on the same server,
//     alternating closed/open/open/closed for --rounds rounds; --browser keeps a real
//     headless page open on the partition view instead (Chromium then shares the CPUs).
// Prints the machine, each case's req/s per round and the medians. Results are reported,
// never asserted.
//
//   node bench/console_overhead.mjs [--duration S] [--rounds N] [--connections N]
//                                   [--preload N] [--tables N] [--loads N] [--browser]
//                                   [--only paint|throughput]
// Environment: DDB_SERVER (default build/ddb-server), LOADGEN (default build/loadgen).
// Needs tests/js's node_modules (cd tests/js && npm ci) and /usr/bin/chromium.
import { spawn, execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { launchBrowser } = await import(pathToFileURL(path.join(ROOT, "tests/js/helpers/browser.mjs")));
const SERVER = process.env.DDB_SERVER ?? path.join(ROOT, "build/ddb-server");
const LOADGEN = process.env.LOADGEN ?? path.join(ROOT, "build/loadgen");

const opts = { duration: 10, rounds: 3, connections: 16, preload: 10000, tables: 100, loads: 5, browser: false, only: "" };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const name = argv[i].replace(/^--/, "");
  if (name === "browser") opts.browser = true;
  else if (name === "only") opts.only = argv[++i];
  else if (name in opts) opts[name] = Number(argv[++i]);
  else { console.error(`unknown flag ${argv[i]}`); process.exit(2); }
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

function startServer() {
  const proc = spawn(SERVER, ["--in-memory", "--port", "0", "--host", "127.0.0.1", "--log-level", "error"],
    { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    proc.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/LISTENING (\d+)/);
      if (m) resolve({ proc, port: Number(m[1]), endpoint: `http://127.0.0.1:${m[1]}` });
    });
    proc.on("exit", (c) => reject(new Error(`server exited ${c}`)));
  });
}

async function stopServer(srv) {
  srv.proc.removeAllListeners("exit");
  await new Promise((resolve) => { srv.proc.on("exit", resolve); srv.proc.kill("SIGTERM"); });
}

async function ddb(endpoint, op, body) {
  const r = await fetch(endpoint, {
    method: "POST", body: JSON.stringify(body),
    headers: {
      "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": `DynamoDB_20120810.${op}`,
      Authorization: "AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0",
    },
  });
  if (!r.ok) throw new Error(`${op}: ${await r.text()}`);
  return r.json();
}

function machine() {
  const cpu = (readFileSync("/proc/cpuinfo", "utf8").match(/model name\s*:\s*(.*)/) || [])[1];
  return `${os.cpus().length} CPUs (${cpu}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ` +
    `${os.type()} ${os.release()}, load average ${os.loadavg()[0].toFixed(2)}; chromium ` +
    execFileSync("/usr/bin/chromium", ["--version"], { stdio: ["ignore", "pipe", "ignore"] }).toString().trim().replace(/^Chromium /, "").split(" ")[0];
}

async function firstPaint() {
  const srv = await startServer();
  try {
    for (let i = 0; i < opts.tables; i++) {
      await ddb(srv.endpoint, "CreateTable", {
        TableName: `table_${String(i).padStart(3, "0")}`,
        AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }, { AttributeName: "sk", AttributeType: "S" }],
        KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
        BillingMode: "PAY_PER_REQUEST",
      });
    }
    // One load: a new tab navigates to the console; paint entries and the time until the
    // Tables view lists every table, in ms after navigation start.
    const load = async (page) => {
      await page.goto(`${srv.endpoint}/console/`);
      await page.waitForFunction((n) => document.querySelectorAll("#tables-list tbody tr").length === n,
        opts.tables, { polling: "raf" });
      return page.evaluate(() => ({
        fp: performance.getEntriesByType("paint").find((e) => e.name === "first-paint").startTime,
        fcp: performance.getEntriesByType("paint").find((e) => e.name === "first-contentful-paint").startTime,
        listed: performance.now(),
        api: performance.getEntriesByType("resource").find((e) => e.name.includes("/console/api/tables")).duration,
      }));
    };
    // The browser's own share: the first paint of the server's one-line health check
    // (GET /, text/plain), the least a page from this server can cost.
    const blank = async (page) => {
      await page.goto(`${srv.endpoint}/`);
      const paint = await page.waitForFunction(() =>
        performance.getEntriesByType("paint").find((e) => e.name === "first-paint")?.startTime, null, { polling: "raf" });
      return paint.jsonValue();
    };
    const cold = [], warm = [], baseCold = [], baseWarm = [];
    for (let i = 0; i < opts.loads; i++) {
      const base = await launchBrowser();
      try {
        baseCold.push(await blank(base.page));
        const page = await base.context.newPage();
        baseWarm.push(await blank(page));
      } finally {
        await base.close();
      }
      // Cold: the first page of a browser just started with a fresh profile. Warm: further
      // tabs of it (the files revalidated with their ETags: 304s).
      const browser = await launchBrowser();
      try {
        cold.push(await load(browser.page));
        for (let j = 0; j < 3; j++) {
          const page = await browser.context.newPage();
          warm.push(await load(page));
          await page.close();
        }
      } finally {
        await browser.close();
      }
    }
    const show = (name, xs) => `median ${median(xs).toFixed(1)}  all ${xs.map((x) => x.toFixed(0)).join(" ")}`;
    console.log(`first paint with ${opts.tables} tables, ms after navigation start (${opts.loads} browsers, ` +
      `each: its first page cold, then 3 more tabs warm):`);
    console.log(`  baseline: GET / (one line of text), first-paint cold ${show("", baseCold)}; warm ${show("", baseWarm)}`);
    for (const [label, runs] of [["cold", cold], ["warm", warm]]) {
      console.log(`  ${label} first-paint             ${show("", runs.map((r) => r.fp))}`);
      console.log(`  ${label} first-contentful-paint  ${show("", runs.map((r) => r.fcp))}`);
      console.log(`  ${label} all ${opts.tables} tables listed    ${show("", runs.map((r) => r.listed))}` +
        ` (GET /console/api/tables median ${median(runs.map((r) => r.api)).toFixed(1)} ms)`);
    }
  } finally {
    await stopServer(srv);
  }
}

function loadgen(port, args) {
  return new Promise((resolve, reject) => {
    const p = spawn(LOADGEN, ["--port", String(port), "--connections", String(opts.connections), "--no-progress", ...args],
      { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    p.stdout.on("data", (d) => { out += d; });
    p.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`loadgen exited ${code}\n${out}`))));
  });
}

// The page's requests while the partition view is open: one snapshot a second.
function startPoller(endpoint) {
  let polls = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const started = Date.now();
      const r = await fetch(`${endpoint}/console/api/partitions?table=bench`);
      await r.arrayBuffer();
      polls++;
      await new Promise((res) => setTimeout(res, Math.max(0, 1000 - (Date.now() - started))));
    }
  })();
  return { async stop() { stopped = true; await loop; return polls; } };
}

async function startPage(endpoint) {
  const browser = await launchBrowser();
  await browser.page.goto(`${endpoint}/console/?table=bench#partitions`);
  await browser.page.locator('.resource[data-resource="bench"] canvas').waitFor();
  return { async stop() { await browser.close(); return "-"; } };
}

async function throughput() {
  const srv = await startServer();
  try {
    await loadgen(srv.port, ["--workload", "none", "--preload", String(opts.preload), "--table", "bench"]);
    // What one poll costs the server: CPU time (/proc/<pid>/stat) over many polls in a row.
    const cpu = () => {
      const f = readFileSync(`/proc/${srv.proc.pid}/stat`, "utf8").split(") ")[1].split(" ");
      return (Number(f[11]) + Number(f[12])) / 100;  // utime + stime, clock ticks of 10 ms
    };
    const polls = 500;
    const cpu0 = cpu(), t0 = performance.now();
    for (let i = 0; i < polls; i++) {
      await (await fetch(`${srv.endpoint}/console/api/partitions?table=bench`)).arrayBuffer();
    }
    const perPoll = ((cpu() - cpu0) / polls) * 1e6, wall = ((performance.now() - t0) / polls) * 1000;
    console.log(`one poll (GET /console/api/partitions?table=bench, ${polls} in a row): ` +
      `${perPoll.toFixed(0)} us of server CPU, ${wall.toFixed(0)} us wall; at 1/s that is ` +
      `${(perPoll / 1e4).toFixed(4)} % of one core`);
    const rps = { closed: [], open: [] };
    const order = [];
    for (let r = 0; r < opts.rounds; r++) order.push(...(r % 2 ? ["open", "closed"] : ["closed", "open"]));
    for (const [i, mode] of order.entries()) {
      const console_ = mode === "open" ? await (opts.browser ? startPage(srv.endpoint) : startPoller(srv.endpoint)) : null;
      const out = await loadgen(srv.port, ["--no-create", "--keyspace", String(opts.preload), "--workload", "get",
        "--table", "bench", "--duration", String(opts.duration), "--warmup", "1", "--server-pid", String(srv.proc.pid),
        "--label", mode]);
      const polls = console_ ? await console_.stop() : 0;
      const line = out.split("\n").find((l) => l.startsWith("RESULT") && / op=GetItem /.test(l));
      const v = Number(line.match(/ rps=([\d.]+)/)[1]);
      const cpu = (line.match(/ server_cpu_us_per_req=([\d.]+)/) || [])[1];
      rps[mode].push(v);
      console.log(`  case ${i + 1}: console ${mode.padEnd(6)} GetItem ${v.toFixed(0)} req/s, server CPU ${cpu} us/req` +
        (mode === "open" ? `, ${polls} polls` : ""));
    }
    const c = median(rps.closed), o = median(rps.open);
    console.log(`GetItem, ${opts.connections} connections, ${opts.duration} s per case, ${opts.preload} items, ` +
      `console ${opts.browser ? "open in headless Chromium" : "polling 1/s"}:`);
    console.log(`  closed median ${c.toFixed(0)} req/s, open median ${o.toFixed(0)} req/s, open/closed ${(o / c).toFixed(3)}`);
  } finally {
    await stopServer(srv);
  }
}

console.log(`machine: ${machine()}`);
if (opts.only !== "throughput") await firstPaint();
if (opts.only !== "paint") await throughput();
