// Which of core's files one report runs through (issue 40): an Express app with reportkit's
// receiver, started and warmed by one report, then V8's precise coverage of the next JSON DLR
// alone: every file of @reportkit/core (its built dist, one file per source file) with a function
// that ran. Prints JSON: { count, files }. Run after `tsc -b`: `node test/bench/core-path.mjs`.
import { once } from "node:events";
import http from "node:http";
import inspector from "node:inspector/promises";
import { webhookReceiver } from "@reportkit/express";
import express from "express";

const SECRET = "core-path-secret";
const session = new inspector.Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });

const app = express();
app.use(webhookReceiver({ path: "/webhooks", secret: SECRET, logger: false, onDelivery() {} }));
const server = http.createServer(app).listen(0, "127.0.0.1");
await once(server, "listening");
const { port } = server.address();

/** One DLR of the provider's shape, with an id of its own (each is a new report). */
async function push(id) {
  const reply = await fetch(`http://127.0.0.1:${port}/webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
    body: JSON.stringify({
      id,
      mobile: "919876543210",
      status: "DELIVRD",
      credits: "2.0000",
      units: 2,
      deliv_time: "2021-04-09 16:27:51",
      sent_time: "2021-04-09 16:27:35",
      submit_time: "2021-04-09 16:27:39",
    }),
  });
  if (reply.status !== 200) throw new Error(`core-path: HTTP ${reply.status} for ${id}`);
  await reply.arrayBuffer();
}

await push("warm-up:1");
// Counts since the last take: what start-up and the first report ran is left behind.
await session.post("Profiler.takePreciseCoverage");
await push("measured:1");
const { result } = await session.post("Profiler.takePreciseCoverage");
server.close();

const files = result
  .filter(({ url }) => url.includes("/packages/core/dist/"))
  .filter(({ functions }) => functions.some((f) => f.ranges.some((r) => r.count > 0)))
  .map(({ url }) => url.slice(url.indexOf("/packages/core/dist/") + "/packages/core/dist/".length))
  .sort();
console.log(JSON.stringify({ count: files.length, files }));
