// The verification page's extra DLR fields (field-notes.md, "Fields a real push carries beyond
// the interface") and the provider's @{{name}} template form, end to end: the sandbox pushes
// over a real socket to a core receiver on node:http, whose handler gets them typed.
//
// The webhooks carry a secret and no token: the secret is the bearer of every push (the
// verification page), and without a token no verification request is sent.
import { createClient } from "@reportkit/client";
import { type ComposedTemplate, createReceiver, type DeliveryReport } from "@reportkit/core";
import { createSandbox, PAYLOAD_STYLES, type Sandbox } from "@reportkit/sandbox";
import { afterEach, describe, expect, it } from "vitest";
import { type Running, serveReceiver } from "./servers.js";

const API_TOKEN = "sandbox-api-token";
const HOOK_SECRET = "webhook-secret-0123456789";

let sandbox: Sandbox | undefined;
let receiver: Running | undefined;

afterEach(async () => {
  await sandbox?.close();
  await receiver?.close();
  sandbox = undefined;
  receiver = undefined;
});

/** A core receiver on a real socket, recording what its handler gets. */
async function serveDeliveries(composed?: ComposedTemplate) {
  const deliveries: DeliveryReport[] = [];
  const onDelivery = (report: DeliveryReport) => {
    deliveries.push(report);
  };
  receiver = await serveReceiver(
    composed === undefined
      ? createReceiver({ secret: HOOK_SECRET, onDelivery })
      : createReceiver({ secret: HOOK_SECRET, composed, onDelivery }),
  );
  return { url: receiver.url, deliveries };
}

describe.each(PAYLOAD_STYLES)("the extra DLR fields, payloads: %s", (payloads) => {
  it("reach the handler typed: the client's custom1/custom2, and where the number is registered", async () => {
    sandbox = await createSandbox({ token: API_TOKEN, retryIntervalMs: 20, payloads });
    const { url, deliveries } = await serveDeliveries();
    const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
    const hook = await client.webhooks.create({
      name: "extra",
      uri: `${url}/reports`,
      secret: HOOK_SECRET,
    });

    const sms = sandbox.sendSms({
      webhookId: hook.id,
      mobile: "919812345678",
      custom: "order-77",
      custom1: "campaign-3344",
      custom2: "new-camp",
    });
    expect(await sms.outcome).toBe("delivered");
    expect(sms.report).toMatchObject({ location: "India", location_code: "in" });
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      id: sms.report.id,
      custom: "order-77",
      custom1: "campaign-3344",
      custom2: "new-camp",
      location: "India",
      region: sms.report.region,
      provider: sms.report.provider,
      locationCode: "in",
      regionCode: sms.report.region_code,
      providerCode: sms.report.provider_code,
      warnings: [],
    });
    expect(deliveries[0]?.region).toEqual(expect.any(String));
    expect(deliveries[0]?.providerCode).toMatch(/^[A-Z]{2}$/);
    // raw keeps them under their wire names, as pushed.
    expect(deliveries[0]?.raw).toMatchObject({
      custom1: "campaign-3344",
      location_code: "in",
      provider_code: sms.report.provider_code,
    });
  });

  it("are null, without warnings, when the push leaves them out", async () => {
    sandbox = await createSandbox({ token: API_TOKEN, retryIntervalMs: 20, payloads });
    const { url, deliveries } = await serveDeliveries();
    const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
    const hook = await client.webhooks.create({
      name: "uk",
      uri: `${url}/reports`,
      secret: HOOK_SECRET,
    });

    // A British number: the sandbox pushes no location for a number outside India.
    const sms = sandbox.sendSms({ webhookId: hook.id, mobile: "447700900123" });
    expect(await sms.outcome).toBe("delivered");
    expect(sms.report).not.toHaveProperty("location");
    expect(deliveries[0]).toMatchObject({
      custom1: null,
      custom2: null,
      location: null,
      region: null,
      provider: null,
      locationCode: null,
      regionCode: null,
      providerCode: null,
      warnings: [],
    });
  });
});

describe("the sandbox's HTTP API", () => {
  it("POST sandbox/sms takes custom1 and custom2, and refuses an unusable one by field", async () => {
    sandbox = await createSandbox({ token: API_TOKEN, retryIntervalMs: 20 });
    const { url, deliveries } = await serveDeliveries();
    const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
    const hook = await client.webhooks.create({
      name: "api",
      uri: `${url}/reports`,
      secret: HOOK_SECRET,
    });
    const post = async (body: Record<string, unknown>) => {
      const response = await fetch(new URL("sandbox/sms", (sandbox as Sandbox).baseUrl), {
        method: "POST",
        headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: response.status, json: await response.json() };
    };

    const sent = await post({ webhook_id: hook.id, custom1: "c-1", custom2: "c-2" });
    expect(sent.status).toBe(200);
    expect(sent.json.data.report).toMatchObject({ custom1: "c-1", custom2: "c-2" });
    await sandbox.settled();
    expect(deliveries).toEqual([expect.objectContaining({ custom1: "c-1", custom2: "c-2" })]);

    const refused = await post({ webhook_id: hook.id, custom1: 7, custom2: "a\nb" });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.json.errors).sort()).toEqual(["custom1", "custom2"]);
  });
});

describe("a composed webhook written in the provider's @{{name}} form", () => {
  it("is pushed with its values filled in and read back by a receiver given the same template", async () => {
    sandbox = await createSandbox({ token: API_TOKEN, retryIntervalMs: 20 });
    // v2/sms/webhook.md's compose request, as its raw page writes it.
    const template = {
      type: "delivery",
      url: "/ack/receive?id=@{{id}}",
      body: {
        id: "@{{id}}",
        mobile: "@{{mobile}}",
        message_status: "@{{status}}",
        credits: "@{{credits}}",
      },
    } as const;
    const { url, deliveries } = await serveDeliveries(template);
    const hook = sandbox.createComposedWebhook({
      name: "composed",
      ...template,
      url: `${url}${template.url}`,
      secret: HOOK_SECRET,
    });

    const sms = sandbox.sendSms({
      webhookId: hook.id,
      status: "UNDELIV",
      custom1: "not-a-variable",
    });
    expect(await sms.outcome).toBe("delivered");
    const [attempt] = sandbox.attempts();
    expect(attempt?.request.url).toBe(`${url}/ack/receive?id=${encodeURIComponent(sms.report.id)}`);
    expect(deliveries).toEqual([
      expect.objectContaining({
        id: sms.report.id,
        mobile: sms.report.mobile,
        status: "UNDELIV",
        credits: sms.report.credits,
        // No composed variable carries them (the provider's list ends at custom).
        custom1: null,
        location: null,
        warnings: [],
      }),
    ]);
    expect(deliveries[0]?.raw).toEqual({
      id: sms.report.id,
      mobile: sms.report.mobile,
      message_status: "UNDELIV",
      credits: sms.report.credits,
    });
  });
});
