// The sandbox's pull APIs and subscriptions over real HTTP: the envelopes of the provider's
// pages (compared key for key with its own examples, test/fixtures/pull-api.ts), pagination
// by 100, the filters, the status summary, the errors it chooses, and subscriptions routing
// a send that names no webhook.
import { createClient } from "@reportkit/client";
import { createSandbox, type Sandbox } from "@reportkit/sandbox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  DOC_CALL_STATUS_RESPONSE_TEXT,
  DOC_DLR_PAGED_RESPONSE_TEXT,
  DOC_DLR_RESPONSE_TEXT,
  DOC_STATUS_SUMMARY_RESPONSE_TEXT,
  DOC_SUBSCRIPTION_CREATE_RESPONSE_TEXT,
  DOC_SUBSCRIPTION_LIST_RESPONSE_TEXT,
} from "../fixtures/pull-api.js";
import { type Recorder, startRecorder } from "./servers.js";
import { orderedShapeOf as shape } from "./shape.js";

const API_TOKEN = "pull-sandbox-token-2024";
let sandbox: Sandbox;
let recorder: Recorder | undefined;

beforeEach(async () => {
  sandbox = await createSandbox({ token: API_TOKEN, retryIntervalMs: 3_600_000 });
});
afterEach(async () => {
  await sandbox.close();
  await recorder?.close();
  recorder = undefined;
});

async function get(path: string, token = API_TOKEN) {
  const response = await fetch(new URL(path, sandbox.baseUrl), {
    headers: { authorization: `Bearer ${token}`, accept: "application/json" },
  });
  return { status: response.status, json: await response.json() };
}

/** A webhook that is not pushed to (inactive): the messages are only logged. */
async function quietWebhook(): Promise<string> {
  const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
  return (await client.webhooks.create({ name: "quiet", uri: "http://127.0.0.1:9/", status: 0 }))
    .id;
}

const doc = (text: string) => JSON.parse(text.replaceAll("{endpoint}", "http://x/"));

describe("GET sms/status", () => {
  it("answers by date as the page's paginated example: same keys, same order, same types", async () => {
    const webhookId = await quietWebhook();
    const sent = sandbox.sendSms({ webhookId, status: "DELIVRD", message: "Hello!!" });
    const day = sent.report.submit_time.slice(0, 10);
    const { status, json } = await get(`sms/status?date=${day}`);
    expect(status).toBe(200);
    expect(shape(json)).toEqual(shape(doc(DOC_DLR_PAGED_RESPONSE_TEXT)));
    expect(json.data[0]).toEqual({
      id: sent.report.id,
      mobile: "919876543210",
      status: "DELIVRD",
      units: 1,
      service: "T",
      length: 7,
      charges: 0.25,
      custom: "",
      custom1: "",
      location: "",
      provider: "",
      submitted_at: sent.report.submit_time,
      delivered_at: sent.report.deliv_time,
      sender: "RPTKIT",
    });
    expect(json.meta.links.map((l: { label: string }) => l.label)).toEqual([
      "&laquo; Previous",
      "1",
      "Next &raquo;",
    ]);
  });

  it("answers by id as the page's first example, without the paginator", async () => {
    const webhookId = await quietWebhook();
    const sent = sandbox.sendSms({ webhookId, status: "UNDELIV", custom: "order-42" });
    const { json } = await get(`sms/status?id=${encodeURIComponent(sent.report.id)}`);
    expect(shape(json)).toEqual(shape(doc(DOC_DLR_RESPONSE_TEXT)));
    // No receipt time for an undelivered message, as its push has none.
    expect(json.data[0]).toMatchObject({ status: "UNDELIV", custom: "order-42", delivered_at: "" });
  });

  it("pages by 100, links without the query (as the page shows), and the client walks them", async () => {
    const webhookId = await quietWebhook();
    const sent = Array.from({ length: 230 }, () => sandbox.sendSms({ webhookId }).report);
    const ids = sent.map((r) => r.id);
    const day = (sent[0]?.submit_time ?? "").slice(0, 10);
    const first = (await get(`sms/status?date=${day}`)).json;
    expect(first.meta).toMatchObject({ current_page: 1, last_page: 3, per_page: 100, total: 230 });
    expect(first.links.next).toBe(`${sandbox.baseUrl}sms/status?page=2`);
    const third = (await get(`sms/status?date=${day}&page=3`)).json;
    expect(third.data).toHaveLength(30);
    expect(third.meta).toMatchObject({ from: 201, to: 230 });
    const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
    const walked = [];
    for await (const r of client.dlr.iterate({ date: day })) walked.push(r.id);
    expect(walked).toEqual(ids);
  });

  it("filters by mobile, custom id (or cid) and group; several filters all apply", async () => {
    const webhookId = await quietWebhook();
    const a = sandbox.sendSms({ webhookId, mobile: "919800000001", custom: "order-1", cid: "c-1" });
    sandbox.sendSms({ webhookId, mobile: "919800000002", custom: "order-2" });
    const ids = async (query: string) =>
      (await get(`sms/status?${query}`)).json.data.map((r: { id: string }) => r.id);
    expect(await ids("mobile=919800000001")).toEqual([a.report.id]);
    expect(await ids("cid=order-1")).toEqual([a.report.id]);
    expect(await ids("cid=c-1")).toEqual([a.report.id]);
    expect(await ids(`group_id=${a.report.id.split(":")[0]}`)).toEqual([a.report.id]);
    expect(await ids(`mobile=919800000001&id=${encodeURIComponent(a.report.id)}`)).toEqual([
      a.report.id,
    ]);
    expect(await ids("mobile=919800000002&cid=order-1")).toEqual([]);
  });

  it("refuses a request without a filter or with a wrong date (422), and a wrong token (401)", async () => {
    expect(await get("sms/status")).toEqual({
      status: 422,
      json: {
        status: "Error",
        code: 422,
        message:
          "The id field is required when none of mobile / cid / date / group id are present.",
        errors: {
          id: ["The id field is required when none of mobile / cid / date / group id are present."],
        },
      },
    });
    expect((await get("sms/status?date=24-06-2024")).json.message).toBe(
      "The date does not match the format Y-m-d.",
    );
    expect((await get("sms/status?date=2024-06-24", "wrong")).status).toBe(401);
  });
});

describe("GET outgoing/callstatus and GET sms/report", () => {
  it("lists calls in the call-status envelope, the call's mid as its id", async () => {
    const webhookId = await quietWebhook();
    const call = sandbox.makeCall({ webhookId, status: "BUSY", to: "919811112222" });
    const { json } = await get("outgoing/callstatus?mobile=919811112222");
    expect(shape(json)).toEqual(shape(doc(DOC_CALL_STATUS_RESPONSE_TEXT)));
    expect(json.data).toEqual([
      {
        id: call.report.mid,
        channel: "outgoing",
        from: "918068281235",
        to: "919811112222",
        created_at: call.report.start_at,
        foreign_id: "",
        status: "BUSY",
        start_at: call.report.start_at,
        end_at: call.report.end_at,
        dtmf: "",
      },
    ]);
  });

  it("sums a day per status, newest day first; an empty range is data: []", async () => {
    const webhookId = await quietWebhook();
    const day = sandbox.sendSms({ webhookId }).report.submit_time.slice(0, 10);
    sandbox.sendSms({ webhookId });
    sandbox.sendSms({ webhookId, status: "EXPIRED" });
    const { json } = await get(`sms/report?daterange=${day}|${day}`);
    const documented = doc(DOC_STATUS_SUMMARY_RESPONSE_TEXT);
    expect(shape({ ...json, data: null })).toEqual(shape({ ...documented, data: null }));
    expect(Object.keys(json.data[day])).toEqual(Object.keys(documented.data["2019-07-02"]));
    expect(json.data[day]).toEqual({ date: day, status: { EXPIRED: 1, DELIVRD: 2 } });
    expect((await get("sms/report?daterange=2001-01-01|2001-01-02")).json).toEqual({
      status: 200,
      message: "OK",
      data: [],
    });
    expect((await get("sms/report")).status).toBe(422);
  });
});

describe("developer/subscriptions", () => {
  it("creates, lists, shows and deletes in the page's envelopes", async () => {
    const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
    const created = await client.subscriptions.create({
      event: "sms:message:status",
      identity: "all",
      webhookId: "dd4b91af-167d-48e6-901d-ae181ff6e80d",
    });
    expect(shape(created.raw)).toEqual(shape(doc(DOC_SUBSCRIPTION_CREATE_RESPONSE_TEXT).data));
    const listed = await get("developer/subscriptions");
    expect(shape(listed.json)).toEqual(shape(doc(DOC_SUBSCRIPTION_LIST_RESPONSE_TEXT)));
    expect(listed.json.message).toBe("Subscriptions List");
    expect((await client.subscriptions.get(created.id)).payload).toBeNull();
    await client.subscriptions.delete(created.id);
    await expect(client.subscriptions.get(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(
      client.subscriptions.create({ event: "sms:nothing", identity: "all", webhookId: "w" }),
    ).rejects.toMatchObject({ status: 422, errors: { event: ["The selected event is invalid."] } });
  });

  it("routes a send without webhook_id to the webhook subscribed to its event", async () => {
    recorder = await startRecorder();
    const client = createClient({ baseUrl: sandbox.baseUrl, token: API_TOKEN });
    const hook = await client.webhooks.create({ name: "all", uri: recorder.url });
    await client.subscriptions.create({
      event: "sms:message:status",
      identity: "all",
      webhookId: hook.id,
    });
    const response = await fetch(new URL("sandbox/sms", sandbox.baseUrl), {
      method: "POST",
      headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ status: "DELIVRD" }),
    });
    expect(response.status).toBe(200);
    await sandbox.settled();
    expect(recorder.requests).toHaveLength(1);
    // Without a subscription to calls, a call still needs its webhook_id.
    const call = await fetch(new URL("sandbox/calls", sandbox.baseUrl), {
      method: "POST",
      headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(call.status).toBe(422);
  });
});
