// What the sandbox shows of a push (the API's push log, the dashboard's feed, the CLI's
// attempt line) has every credential masked, over real HTTP: a secret of any length, every
// header a composed template configures whatever its name, the URI's user:password@, and the
// Basic Authorization Node makes of that userinfo, which is shown (masked) as it was sent.
import http from "node:http";
import { createSandbox, formatAttempt, type Sandbox } from "@reportkit/sandbox";
import { afterEach, beforeEach, expect, it } from "vitest";
import { listen, stop } from "./servers.js";

const API_TOKEN = "mask-api-token-8080";
const MASK = "********";

let sandbox: Sandbox;
let receiver: http.Server;
let receiverUrl: string;
const seen: { url: string; headers: http.IncomingHttpHeaders }[] = [];

beforeEach(async () => {
  sandbox = await createSandbox({ token: API_TOKEN, retries: 0 });
  seen.length = 0;
  // Echoes what it got, as a debugging receiver might: the reply is shown too.
  receiver = http.createServer((req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers });
    req.resume();
    req.on("end", () =>
      res.end(`got ${req.headers.authorization} ${req.headers["x-api"]} ${req.url}`),
    );
  });
  receiverUrl = await listen(receiver);
});

afterEach(async () => {
  await sandbox.close();
  await stop(receiver);
});

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(new URL(path, sandbox.baseUrl), {
    method,
    headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as { data: Record<string, unknown> & { id: string } };
}

it("masks a 3-character secret, the URI's userinfo and the Basic header sent for it", async () => {
  const uri = receiverUrl.replace("http://", "http://alice:pa55word@");
  const hook = await api("POST", "developer/webhooks", {
    name: "short secret",
    uri: `${uri}/hook?t=abc`,
    secret: "abc",
  });
  const sent = await api("POST", "sandbox/sms", { webhook_id: hook.data.id });
  await sandbox.settled();
  // What really went out: the request's own Bearer wins over the URI's userinfo.
  expect(seen[0]?.headers.authorization).toBe("Bearer abc");
  const log = await api("GET", `sandbox/push-attempts?report_id=${sent.data.report_id}`);
  const [attempt] = log.data as unknown as {
    url: string;
    request: { url: string; headers: Record<string, string> };
    response_body: string;
  }[];
  const shownUrl = `http://${MASK}@${receiverUrl.slice("http://".length)}/hook?t=${MASK}`;
  expect(attempt?.url).toBe(shownUrl);
  expect(attempt?.request.url).toBe(shownUrl);
  expect(attempt?.request.headers.authorization).toBe(`Bearer ${MASK}`);
  expect(attempt?.response_body).toBe(`got Bearer ${MASK} undefined /hook?t=${MASK}`);
  expect(JSON.stringify(log)).not.toMatch(/pa55word|alice|\babc\b/);
  // The CLI's attempt line (`reportkit sandbox`, `reportkit send`).
  const line = formatAttempt(
    sandbox.attempts()[0] as NonNullable<ReturnType<Sandbox["attempts"]>[0]>,
  );
  expect(line).toContain(`→ POST http://${MASK}@127.0.0.1:`);
  expect(line).not.toContain("pa55word");
});

it("shows the Basic Authorization made of userinfo, masked, and masks every configured header", async () => {
  const uri = receiverUrl.replace("http://", "http://bob:hunter22@");
  const hook = sandbox.createComposedWebhook({
    name: "composed",
    type: "delivery",
    url: `${uri}/dlr?id={{id}}&status={{status}}`,
    method: "GET",
    headers: { "x-api": "k1", "x-hub-sig": "sha1=0badc0ffee", "x-trace": "plain" },
  });
  const sent = sandbox.sendSms({ webhookId: hook.id });
  await sent.outcome;
  const basic = `Basic ${Buffer.from("bob:hunter22").toString("base64")}`;
  expect(seen[0]?.headers.authorization).toBe(basic);
  const log = await api("GET", `sandbox/push-attempts?report_id=${sent.report.id}`);
  const [attempt] = log.data as unknown as {
    request: { headers: Record<string, string> };
    response_body: string;
  }[];
  expect(attempt?.request.headers).toMatchObject({
    authorization: `Basic ${MASK}`,
    "x-api": MASK,
    "x-hub-sig": MASK,
    "x-trace": MASK,
    "user-agent": expect.stringMatching(/^reportkit-sandbox\//),
  });
  expect(JSON.stringify(log)).not.toMatch(/hunter22|0badc0ffee|Ym9iOmh1bnRlcjIy/);
});

it("the dashboard's webhook list masks the URI's userinfo; the management API serves it as stored", async () => {
  const uri = `${receiverUrl.replace("http://", "http://carol:s3cr3t@")}/hook`;
  await api("POST", "developer/webhooks", { name: "with userinfo", uri });
  const listed = (await api("GET", "developer/webhooks")).data as unknown as { uri: string }[];
  expect(listed[0]?.uri).toBe(uri);
  const key = new URL(sandbox.dashboardUrl).hash.slice("#key=".length);
  const events = await fetch(new URL("/dashboard/api/sandbox/events", sandbox.baseUrl), {
    headers: { "x-reportkit-dashboard-key": key },
  });
  const reader = (events.body as ReadableStream<Uint8Array>).getReader();
  let text = "";
  while (!text.includes("\n\n")) {
    const { value } = await reader.read();
    text += new TextDecoder().decode(value);
  }
  await reader.cancel();
  const snapshot = JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? "null") as {
    webhooks: { uri: string }[];
  };
  expect(snapshot.webhooks[0]?.uri).toBe(uri.replace("carol:s3cr3t", MASK));
});
