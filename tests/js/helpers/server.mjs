// Starts the real ddb-server binary for one test file and gives out clients for it.
//
// The binary is $DDB_SERVER (default ../../build/ddb-server, relative to this folder's
// parent, i.e. <repo>/build/ddb-server). It is started with `--in-memory --port 0
// --host 127.0.0.1`; once ready it prints `LISTENING <port>` on stdout. stop() sends
// SIGTERM and expects a clean exit.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { randomUUID } from "node:crypto";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";

const here = path.dirname(fileURLToPath(import.meta.url));
export const SERVER_BIN = path.resolve(
  process.env.DDB_SERVER ?? path.join(here, "..", "..", "..", "build", "ddb-server"));

export const REGION = "us-east-1";
export const CREDENTIALS = { accessKeyId: "AKIDJSWIRETEST", secretAccessKey: "jswiretestsecret" };

export async function startServer(extraArgs = []) {
  if (!existsSync(SERVER_BIN)) {
    throw new Error(`server binary not found: ${SERVER_BIN} (build it, or set DDB_SERVER)`);
  }
  const proc = spawn(SERVER_BIN, ["--in-memory", "--port", "0", "--host", "127.0.0.1", ...extraArgs], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  proc.stderr.on("data", (d) => {
    stderr += d.toString();
    if (stderr.length > 20000) stderr = stderr.slice(-10000);
  });
  const port = await new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`no LISTENING line within 20s; stderr: ${stderr}`)), 20000);
    proc.stdout.on("data", (d) => {
      out += d.toString();
      const m = out.match(/^LISTENING (\d+)\r?\n/);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    proc.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before LISTENING; stderr: ${stderr}`));
    });
  });
  proc.removeAllListeners("exit");
  // Never outlive the test process, even when it dies before stop().
  const reap = () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
  };
  process.once("exit", reap);
  const endpoint = `http://127.0.0.1:${port}`;
  const clients = [];
  return {
    endpoint,
    port,
    stderr: () => stderr,
    // A low-level client. maxAttempts 1: a server error surfaces at once instead of
    // being retried away.
    client(extra = {}) {
      const c = new DynamoDBClient({ endpoint, region: REGION, credentials: CREDENTIALS, maxAttempts: 1, ...extra });
      clients.push(c);
      return c;
    },
    doc(client, translateConfig) {
      return DynamoDBDocumentClient.from(client ?? this.client(), translateConfig);
    },
    async stop() {
      process.removeListener("exit", reap);
      for (const c of clients) c.destroy();
      if (proc.exitCode !== null) throw new Error(`server died early (${proc.exitCode}); stderr: ${stderr}`);
      const code = await new Promise((resolve) => {
        const t = setTimeout(() => proc.kill("SIGKILL"), 15000);
        proc.on("exit", (c, sig) => {
          clearTimeout(t);
          resolve(c ?? sig);
        });
        proc.kill("SIGTERM");
      });
      if (code !== 0) throw new Error(`server exited with ${code} after SIGTERM; stderr: ${stderr}`);
    },
  };
}

export function uniqueName(prefix = "js") {
  return `${prefix}-${randomUUID().slice(0, 12)}`;
}

// Records every request and response body a client sends and receives, for reducing a
// library's failure to the raw exchange (set DDB_TRACE=1 to print them).
export function traceClient(client, log = []) {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const entry = { op: context.commandName, input: args.input };
      log.push(entry);
      try {
        const out = await next(args);
        entry.output = out.output;
        if (process.env.DDB_TRACE) console.error(JSON.stringify(entry));
        return out;
      } catch (e) {
        entry.error = { name: e.name, message: e.message };
        if (process.env.DDB_TRACE) console.error(JSON.stringify(entry));
        throw e;
      }
    },
    { step: "initialize", name: "ddbTrace" },
  );
  return log;
}

// Captures the raw HTTP body of each request (for checking what a library sends).
export function rawBodies(client, sink = []) {
  client.middlewareStack.add(
    (next) => async (args) => {
      if (args.request?.body) sink.push({ target: args.request.headers["x-amz-target"], body: args.request.body });
      return next(args);
    },
    { step: "finalizeRequest", name: "ddbRawBody" },
  );
  return sink;
}
