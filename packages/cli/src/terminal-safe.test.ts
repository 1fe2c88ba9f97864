// Text from other parties (a management API's webhook names and URIs, a receiver's reply) cannot
// drive the terminal: the real binary (dist/cli.js, built here with tsc -b) prints it with its
// control characters escaped, and the sandbox refuses them where it stores names and ids.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createClient } from "@reportkit/client";
import { createSandbox, type Sandbox } from "@reportkit/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  buildCli,
  type RecordingReceiver,
  reportkit,
  startReceiver,
} from "../../../test/support/reportkit-cli.js";

const API_TOKEN = "cli-test-api-token-777";

let sandbox: Sandbox;

beforeAll(async () => {
  buildCli();
  sandbox = await createSandbox({ token: API_TOKEN });
});
afterAll(() => sandbox.close());

const receivers: RecordingReceiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});

describe("terminal escapes from other parties", () => {
  // A title change, a clipboard write, and an erase-line + carriage return that would hide the
  // real line behind a fake "delivered".
  const ATTACK = "\u001b]0;pwned\u0007\u001b]52;c;Y2xpcA==\u0007\u001b[2K\r\u009b2Kdelivered OK";
  const SHOWN =
    "\\u001b]0;pwned\\u0007\\u001b]52;c;Y2xpcA==\\u0007\\u001b[2K\\u000d\\u009b2Kdelivered OK";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for them
  const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

  /** A management API that serves one webhook whose name and uri carry the attack. */
  async function hostileApi(): Promise<{ baseUrl: string; close(): Promise<void> }> {
    const webhook = {
      id: "9a7b4c2e-3f1d-4e5a-8b6c-0d9e8f7a6b5c",
      name: `evil${ATTACK}`,
      uri: `https://u:p4ss@x.example/${ATTACK}`,
      secret: null,
      verification_code: "********",
      status: "1",
      created_at: "2022-10-19T07:40:13.000000Z",
      updated_at: "2022-10-19T07:40:13.000000Z",
    };
    const server = http.createServer((req, res) => {
      const list = new URL(req.url ?? "/", "http://x").pathname.endsWith("/developer/webhooks");
      const data = list ? [webhook] : webhook;
      const body = {
        status: "OK",
        code: 200,
        message: "OK",
        data,
        links: { first: null, last: null, prev: null, next: null },
        meta: { current_page: 1, last_page: 1, per_page: 15, total: 1, from: 1, to: 1 },
      };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return {
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2/`,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  }

  it("webhooks list and show print names and URIs with control characters escaped", async () => {
    const api = await hostileApi();
    try {
      const hostile = { REPORTKIT_BASE_URL: api.baseUrl, REPORTKIT_API_TOKEN: API_TOKEN };
      const list = await reportkit(["webhooks", "list"], hostile);
      const show = await reportkit(["webhooks", "show", "9a7b4c2e"], hostile);
      const json = await reportkit(["webhooks", "show", "9a7b4c2e", "--json"], hostile);
      for (const run of [list, show, json]) {
        expect(run.code).toBe(0);
        expect(run.stdout).not.toMatch(CONTROL);
      }
      expect(list.stdout.split("\n")).toHaveLength(4); // header, row, total, final newline
      expect(list.stdout).toContain(`evil${SHOWN}`);
      expect(show.stdout).toContain(`name     evil${SHOWN}\n`);
      // The URI's password stays off the screen too (point 4 of the same review).
      expect(show.stdout).toContain(`uri      https://********@x.example/${SHOWN}\n`);
      expect(list.stdout).toContain(`https://********@x.example/${SHOWN}`);
      expect(list.stdout).not.toContain("p4ss");
      // Still JSON, with the same text: \u009b is a valid JSON escape of the character.
      expect(JSON.parse(json.stdout).name).toBe(`evil${ATTACK}`);
    } finally {
      await api.close();
    }
  });

  it("send prints a receiver's reply with control characters escaped", async () => {
    const receiver = await startReceiver(
      () => 500,
      () => `{"error":"${ATTACK}"}`,
    );
    receivers.push(receiver);
    const run = await reportkit(["send", "delivery", "--to", receiver.url, "--retries", "0"]);
    expect(run.code).toBe(1);
    // A reply is shown on one line: its carriage return is whitespace, printed as a space.
    const reply = SHOWN.replace("\\u000d", " ");
    expect(run.stdout).toContain(`reply: {"error":"${reply}"}`);
    expect(`${run.stdout}${run.stderr}`).not.toMatch(CONTROL);
    expect(run.stderr).toContain(reply);
  });

  it("the sandbox refuses control characters in ids and names with 422", async () => {
    const post = (path: string, body: object) =>
      fetch(new URL(path, sandbox.baseUrl), {
        method: "POST",
        headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const named = await post("developer/webhooks", {
      name: `a${ATTACK}`,
      uri: "http://x.example/",
    });
    expect(named.status).toBe(422);
    expect(((await named.json()) as { errors: object }).errors).toEqual({
      name: ["The name field must not contain control characters."],
    });
    const hook = await createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN }).webhooks.create(
      { name: "plain", uri: "http://127.0.0.1:9/" },
    );
    const call = await post("sandbox/calls", { webhook_id: hook.id, mid: `m\u001b]0;x\u0007` });
    expect(call.status).toBe(422);
    expect(((await call.json()) as { errors: object }).errors).toEqual({
      mid: [
        "The mid field must be a single-line string of at most 64 characters, without control characters.",
      ],
    });
    const sms = await post("sandbox/sms", { webhook_id: hook.id, cid: "c\u009b2K" });
    expect(sms.status).toBe(422);
  });
});
