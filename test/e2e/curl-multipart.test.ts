// A multipart body from a real non-Node client: curl, as a PHP sender's libcurl would build it,
// over a real socket into the core receiver on node:http.
import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { createReceiver, type DeliveryReport, type Receiver } from "@reportkit/core";
import { afterEach, describe, expect, it } from "vitest";
import { SAMPLE_DLR, TOKEN } from "../fixtures/samples.js";

const run = promisify(execFile);
let server: Server | undefined;

afterEach(() => {
  server?.close();
  server = undefined;
});

async function serve(receiver: Pick<Receiver, "handle">): Promise<string> {
  server = createServer(async (req, res) => {
    const reply = await receiver.handle({
      method: req.method ?? "GET",
      url: req.url ?? "/",
      headers: req.headers,
      body: req,
    });
    res.writeHead(reply.status, reply.headers).end(reply.body);
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function curl(args: string[]): Promise<{ status: number; body: string }> {
  const { stdout } = await run("curl", ["-sS", "-w", "\n%{http_code}", ...args]);
  const cut = stdout.lastIndexOf("\n");
  return { status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) };
}

describe("curl -F (multipart/form-data from a non-Node client)", () => {
  it("delivers a composed delivery report with the customer's own keys", async () => {
    const reports: { id: string; status: string; mobile: string; deliveredAt: Date | null }[] = [];
    const base = await serve(
      createReceiver({
        secret: TOKEN,
        timeZone: "Asia/Kolkata",
        composed: {
          type: "delivery",
          method: "POST",
          url: "https://example.com/dlr",
          body: { msg: "{{id}}", state: "{{status}}", phone: "{{mobile}}", at: "{{deliv_time}}" },
          format: "form",
        },
        onDelivery: (report) => {
          reports.push(report);
        },
      }),
    );
    const res = await curl([
      "-H",
      `Authorization: Bearer ${TOKEN}`,
      "-F",
      "msg=b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1",
      "-F",
      "state=DELIVRD",
      "-F",
      "phone=919876543210",
      "-F",
      "at=2021-04-09 16:27:51",
      `${base}/dlr`,
    ]);
    expect(res).toEqual({ status: 200, body: '{"ok":true}' });
    expect(reports[0]).toMatchObject({
      id: "b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1",
      status: "DELIVRD",
      mobile: "919876543210",
      deliveredAt: new Date("2021-04-09T10:57:51Z"),
    });
  });

  it("delivers the standard payload as multipart fields", async () => {
    const reports: DeliveryReport[] = [];
    const base = await serve(
      createReceiver({
        secret: TOKEN,
        onDelivery: (report) => {
          reports.push(report);
        },
      }),
    );
    const fields = Object.entries(SAMPLE_DLR).flatMap(([k, v]) => ["-F", `${k}=${v}`]);
    const res = await curl(["-H", `Authorization: Bearer ${TOKEN}`, ...fields, `${base}/webhooks`]);
    expect(res.status).toBe(200);
    expect(reports[0]).toMatchObject({ id: SAMPLE_DLR.id, units: 1, credits: "2.0000" });
    const wrong = await curl(["-H", "Authorization: Bearer nope", ...fields, `${base}/webhooks`]);
    expect(wrong.status).toBe(401);
    expect(reports).toHaveLength(1);
  });

  it("delivers a composed PUT sent with --data-urlencode, values in the path and the body", async () => {
    const reports: { id: string; status: string; custom: string }[] = [];
    const base = await serve(
      createReceiver({
        secret: TOKEN,
        composed: {
          type: "delivery",
          method: "PUT",
          url: "https://example.com/dlr/{{id}}",
          body: { state: "{{status}}", ref: "{{custom}}" },
          format: "form",
        },
        onDelivery: (report) => {
          reports.push(report);
        },
      }),
    );
    const res = await curl([
      "-X",
      "PUT",
      "-H",
      `Authorization: Bearer ${TOKEN}`,
      "--data-urlencode",
      "state=DELIVRD",
      "--data-urlencode",
      "ref=order 42 & more",
      `${base}/dlr/b34e35ad-fe34-4a8b-977c-b21cd76cd7d6%3A1`,
    ]);
    expect(res).toEqual({ status: 200, body: '{"ok":true}' });
    expect(reports[0]).toMatchObject({
      id: "b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1",
      status: "DELIVRD",
      custom: "order 42 & more",
    });
  });
});
