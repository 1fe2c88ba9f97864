// Many pushes at once: each in-flight request listens on the sandbox's one shutdown signal,
// which is no leak, so Node prints no MaxListenersExceededWarning however many are in flight.
import { createClient } from "@reportkit/client";
import { createSandbox, type Sandbox } from "@reportkit/sandbox";
import { afterEach, expect, it } from "vitest";
import { type Recorder, startRecorder } from "./servers.js";

const TOKEN = "sandbox-api-token";
const PUSHES = 25;

let sandbox: Sandbox | undefined;
let recorder: Recorder | undefined;
const warnings: Error[] = [];
const onWarning = (warning: Error) => void warnings.push(warning);

afterEach(async () => {
  process.off("warning", onWarning);
  await sandbox?.close();
  await recorder?.close();
});

it(`pushes ${PUSHES} reports at once without a MaxListenersExceededWarning`, async () => {
  process.on("warning", onWarning);
  // Every push waits until all of them are in flight, then all are answered.
  let release = () => {};
  const allIn = new Promise<number>((resolve) => {
    release = () => resolve(200);
  });
  recorder = await startRecorder((n) => {
    if (n === PUSHES - 1) release();
    return allIn;
  });
  sandbox = await createSandbox({ token: TOKEN, timeoutMs: 20_000 });
  const client = createClient({ baseUrl: sandbox.baseUrl, token: TOKEN });
  const hook = await client.webhooks.create({ name: "many", uri: `${recorder.url}/reports` });
  const sent = Array.from({ length: PUSHES }, () => sandbox?.sendSms({ webhookId: hook.id }));
  const outcomes = await Promise.all(sent.map((s) => s?.outcome));
  expect(outcomes).toEqual(Array.from({ length: PUSHES }, () => "delivered"));
  expect(recorder.requests).toHaveLength(PUSHES);
  // A warning is emitted on the next tick after the listener that exceeded the limit.
  await new Promise((resolve) => setImmediate(resolve));
  expect(warnings.map((w) => w.name)).not.toContain("MaxListenersExceededWarning");
});
