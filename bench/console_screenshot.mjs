#!/usr/bin/env node
// bench/console_screenshot.mjs: runs one of bench/experiments with the web console open on
// its table's partition view (headless Chromium) and saves a screenshot of it taken while
// the load runs: docs/console-partitions.png, which docs/CONSOLE.md shows.
//
//   node bench/console_screenshot.mjs [--experiment hot_status_key] [--table users_by_status]
//                                     [--at S] [--window 30|60|180|300]
//                                     [--out docs/console-partitions.png]
// Environment: DDB_SERVER (default build/ddb-server). Needs tests/js's node_modules.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync, readFileSync, existsSync, rmSync, chmodSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { launchBrowser } = await import(pathToFileURL(path.join(ROOT, "tests/js/helpers/browser.mjs")));
const opts = { experiment: "hot_status_key", table: "users_by_status", at: 14, window: 30, out: path.join(ROOT, "docs/console-partitions.png") };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) opts[argv[i].replace(/^--/, "")] = argv[i + 1];
const server = path.resolve(process.env.DDB_SERVER ?? path.join(ROOT, "build/ddb-server"));

// The experiment starts its own server; a wrapper passes its LISTENING line on to us too.
const dir = mkdtempSync(path.join(os.tmpdir(), "ddb-console-shot-"));
const portFile = path.join(dir, "listening");
const wrapper = path.join(dir, "ddb-server");
writeFileSync(wrapper, `#!/usr/bin/env bash\nexec "${server}" "$@" > >(tee "${portFile}")\n`);
chmodSync(wrapper, 0o755);

// The experiment also redraws its own heat map (bench/experiments/<name>.svg): kept as it was.
const svg = path.join(ROOT, "bench/experiments", `${opts.experiment}.svg`);
const svgBefore = existsSync(svg) ? readFileSync(svg) : null;
const experiment = spawn("/usr/bin/python3", [path.join(ROOT, "bench/experiments", `${opts.experiment}.py`),
  "--server", wrapper, "--out-dir", dir], { stdio: ["ignore", "inherit", "inherit"] });
const done = new Promise((resolve) => experiment.on("exit", resolve));

let port = null;
for (let i = 0; i < 200 && !port; i++) {
  await new Promise((r) => setTimeout(r, 100));
  const m = existsSync(portFile) && readFileSync(portFile, "utf8").match(/LISTENING (\d+)/);
  if (m) port = Number(m[1]);
}
if (!port) throw new Error("the experiment's server did not start");
const started = Date.now();
const browser = await launchBrowser();
try {
  await browser.page.setViewportSize({ width: 1400, height: 900 });
  // The table appears once the experiment creates it: reload until the picker has it.
  for (let i = 0; i < 40; i++) {
    await browser.page.goto(`http://127.0.0.1:${port}/console/?table=${opts.table}#partitions`);
    await new Promise((r) => setTimeout(r, 500));
    const listed = await browser.page.evaluate((t) =>
      [...document.querySelectorAll("#table-select option")].some((o) => o.value === t), opts.table);
    if (listed) break;
  }
  await browser.page.locator(`.resource[data-resource="${opts.table}"] canvas`).waitFor({ timeout: 20000 });
  await browser.page.selectOption("#p-window", String(opts.window));
  const wait = Number(opts.at) * 1000 - (Date.now() - started);
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  await browser.page.screenshot({ path: opts.out, fullPage: true });
  console.log(`saved ${opts.out}`);
} finally {
  await browser.close();
}
await done;
if (svgBefore) writeFileSync(svg, svgBefore);
rmSync(dir, { recursive: true, force: true });
