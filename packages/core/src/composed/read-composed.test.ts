// A receiver of a composed template reads its requests back into reports: the field-notes call
// example, and delivery templates in every method and body format.
import { describe, expect, it } from "vitest";
import {
  AUTH,
  composedReceiver as receiverFor,
  statusAndError as status,
} from "../../../../test/fixtures/receiver-requests.js";
import { TOKEN } from "../../../../test/fixtures/samples.js";

// The field-notes example of a composed call webhook.
const CALL_URL =
  "https://www.domain.com/ack/receive?call_id={{id}}&to={{to}}&message_status={{status}}";
const CALL_BODY = { id: "{{id}}", to: "{{to}}", status: "{{status}}", duration: "{{duration}}" };

describe("composed call webhooks (the field-notes example)", () => {
  it("GET: reads the customer's query keys back into a call report", async () => {
    const { receiver, reports } = receiverFor({ type: "call", method: "GET", url: CALL_URL });
    const res = await status(receiver, {
      method: "GET",
      url: "/ack/receive?call_id=c-77&to=919876543210&message_status=ANSWER",
      headers: AUTH,
    });
    expect(res.status).toBe(200);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({
      type: "call",
      mid: "c-77",
      to: "919876543210",
      status: "ANSWER",
      duration: null,
      from: null,
      raw: { call_id: "c-77", to: "919876543210", message_status: "ANSWER" },
    });
  });

  it("POST JSON: reads body keys, coercing strings like a standard push", async () => {
    const { receiver, reports } = receiverFor({
      type: "call",
      url: "https://x.example/ack",
      body: CALL_BODY,
    });
    const body = JSON.stringify({ id: "c-78", to: "919876543210", status: "BUSY", duration: "23" });
    const res = await status(receiver, {
      method: "POST",
      url: "/ack",
      headers: { ...AUTH, "content-type": "application/json" },
      body,
    });
    expect(res.status).toBe(200);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ mid: "c-78", status: "BUSY", duration: 23 });
  });

  it("400 invalid_report naming a key the template promises and the request lacks", async () => {
    const { receiver, reports } = receiverFor({ type: "call", method: "GET", url: CALL_URL });
    const res = await status(receiver, {
      method: "GET",
      url: "/ack/receive?call_id=c-1&to=91",
      headers: AUTH,
    });
    expect(res.status).toBe(400);
    expect(res.error?.code).toBe("invalid_report");
    expect(res.error?.message).toContain('query parameter "message_status"');
    expect(res.error?.message).toContain("{{status}}");
    expect(reports).toHaveLength(0);
  });

  it("405 with Allow for any other method", async () => {
    const { receiver } = receiverFor({ type: "call", method: "GET", url: CALL_URL });
    const res = await receiver.handle({
      method: "POST",
      url: "/ack/receive",
      headers: AUTH,
      body: "{}",
    });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("GET");
  });

  it("GET reads only the query string, never a body", async () => {
    const { receiver, reports } = receiverFor({ type: "call", method: "GET", url: CALL_URL });
    const res = await status(receiver, {
      method: "GET",
      url: "/ack/receive?call_id=c-1&to=91&message_status=ANSWER",
      headers: { ...AUTH, "content-type": "application/xml" },
      body: "<not-read/>",
    });
    expect(res.status).toBe(200);
    expect(reports).toHaveLength(1);
  });
});

describe("composed delivery webhooks in every method and body format", () => {
  const body = {
    msg: "{{id}}",
    state: "{{status}}",
    phone: "{{mobile}}",
    when: "{{deliv_time}}",
    parts: "{{units}}",
  };
  const values = {
    msg: "b34e35ad:1",
    state: "DELIVRD",
    phone: "919876543210",
    when: "2021-04-09 16:27:51",
    parts: "2",
  };
  const expected = {
    type: "delivery",
    id: "b34e35ad:1",
    status: "DELIVRD",
    mobile: "919876543210",
    units: 2,
    deliveredAt: new Date("2021-04-09T10:57:51Z"),
    credits: null,
    sentAt: null,
    cid: null,
  };
  const multipart = () => {
    const form = new FormData();
    for (const [k, v] of Object.entries(values)) form.set(k, v);
    return form;
  };

  it.each(["POST", "PUT"] as const)(
    "%s with a JSON, urlencoded and multipart body",
    async (method) => {
      const { receiver, reports } = receiverFor(
        { type: "delivery", method, url: "https://x.example/dlr", body, format: "form" },
        { timeZone: "Asia/Kolkata" },
      );
      const json = await receiver.handle({
        method,
        url: "/dlr",
        headers: { ...AUTH, "content-type": "application/json" },
        body: JSON.stringify(values),
      });
      const urlencoded = await receiver.handle({
        method,
        url: "/dlr",
        headers: { ...AUTH, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(values).toString(),
      });
      const form = await receiver.fetch(
        new Request("http://x.example/dlr", { method, headers: AUTH, body: multipart() }),
      );
      expect([json.status, urlencoded.status, form.status]).toEqual([200, 200, 200]);
      expect(reports).toHaveLength(3);
      for (const report of reports) expect(report).toMatchObject(expected);
      expect(reports[2]?.raw).toEqual(values);
    },
  );

  it("GET with every value in the query", async () => {
    const url = `https://x.example/dlr?${Object.entries(body)
      .map(([k, v]) => `${k}=${v}`)
      .join("&")}`;
    const { receiver, reports } = receiverFor(
      { type: "delivery", method: "GET", url },
      { timeZone: "Asia/Kolkata" },
    );
    const res = await receiver.handle({
      method: "GET",
      url: `/dlr?${new URLSearchParams(values)}`,
      headers: AUTH,
    });
    expect(res.status).toBe(200);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject(expected);
  });

  it("reads urlencoded by the template's format when the sender sends no content type", async () => {
    const { receiver, reports } = receiverFor({
      type: "delivery",
      url: "https://x/dlr",
      body,
      format: "form",
    });
    const res = await receiver.handle({
      method: "POST",
      url: "/dlr",
      headers: AUTH,
      body: new URLSearchParams(values).toString(),
    });
    expect(res.status).toBe(200);
    expect(reports).toHaveLength(1);
    expect(reports[0]?.id).toBe("b34e35ad:1");
  });

  it("matches path placeholders segment by segment, behind any mount prefix", async () => {
    const { receiver, reports } = receiverFor({
      type: "delivery",
      method: "GET",
      url: "https://x.example/hooks/{{id}}/{{status}}/m-{{mobile}}.json?c={{custom}}",
    });
    const res = await receiver.handle({
      method: "GET",
      url: "/api/hooks/abc%3A1/UNDELIV/m-9198.json?c=",
      headers: AUTH,
    });
    expect(res.status).toBe(200);
    // An empty text value is still the (empty) string the template promised.
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({
      id: "abc:1",
      status: "UNDELIV",
      mobile: "9198",
      custom: "",
    });
    // Too short, one segment too many (values must not shift), a literal that differs.
    for (const url of [
      "/hooks/abc",
      "/hooks/abc/UNDELIV/m-9198.json/extra",
      "/other/abc/UNDELIV/m-9198.json",
      "/hooks/abc/UNDELIV/9198.json",
    ]) {
      const wrong = await status(receiver, { method: "GET", url: `${url}?c=`, headers: AUTH });
      expect(wrong.status).toBe(400);
      expect(wrong.error?.message).toContain("does not end with the composed template's path");
    }
    expect(reports).toHaveLength(1);
  });

  it("keeps an empty path segment in its place", async () => {
    const { receiver, reports } = receiverFor({
      type: "delivery",
      method: "PUT",
      url: "/hooks/{{custom}}/{{id}}/{{status}}/",
    });
    const res = await receiver.handle({ method: "PUT", url: "/hooks//a:1/DELIVRD", headers: AUTH });
    expect(res.status).toBe(200);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ custom: "", id: "a:1", status: "DELIVRD" });
  });

  it('reads a path that starts with an empty placeholder\'s "//" as a path, not as a host', async () => {
    const { receiver, reports } = receiverFor({
      type: "delivery",
      method: "GET",
      url: "http://127.0.0.1/{{custom}}/{{sent_at}}dlr-/dlr-{{id}}/{{status}}",
    });
    // A Node request's url is its path: "//x/…" there is a path, not a scheme-relative URL
    // (found by test/sandbox/composed-grammar.test.ts, seed 1059291096).
    const res = await receiver.handle({
      method: "GET",
      url: "//dlr-/dlr-a:1/DELIVRD",
      headers: AUTH,
    });
    expect(res.status).toBe(200);
    expect(reports[0]).toMatchObject({ custom: "", sentAt: null, id: "a:1", status: "DELIVRD" });
  });

  it("reads an empty last path placeholder from the trailing slash it leaves", async () => {
    const { receiver, reports } = receiverFor({
      type: "delivery",
      method: "GET",
      url: "/hooks/{{id}}/{{status}}/{{custom}}",
    });
    const empty = await receiver.handle({ method: "GET", url: "/hooks/a/DELIVRD/", headers: AUTH });
    const filled = await receiver.handle({
      method: "GET",
      url: "/hooks/a/DELIVRD/c",
      headers: AUTH,
    });
    expect([empty.status, filled.status]).toEqual([200, 200]);
    expect(reports.map((r) => r.custom)).toEqual(["", "c"]);
  });

  it("reads the template's path only when it has a placeholder: the route decides the rest", async () => {
    const { receiver, reports } = receiverFor({
      type: "call",
      method: "GET",
      url: "https://www.domain.com/ack/receive?call_id={{id}}&message_status={{status}}",
    });
    const res = await receiver.handle({
      method: "GET",
      url: "/webhooks?call_id=m-1&message_status=ANSWER",
      headers: AUTH,
    });
    expect(res.status).toBe(200);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ mid: "m-1", status: "ANSWER" });
  });

  it("takes the last of repeated query keys, as body forms do", async () => {
    const { receiver, reports } = receiverFor({
      type: "delivery",
      method: "GET",
      url: "/d?i={{id}}&s={{status}}",
    });
    await receiver.handle({ method: "GET", url: "/d?i=1&s=ACCEPTD&s=DELIVRD", headers: AUTH });
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ status: "DELIVRD" });
  });

  it("accepts an empty value for a promised number or time as null, as a standard push does", async () => {
    const { receiver, reports } = receiverFor({
      type: "delivery",
      method: "GET",
      url: "/d?i={{id}}&s={{status}}&u={{units}}&t={{deliv_time}}&a={{deliv_at}}",
    });
    const res = await receiver.handle({
      method: "GET",
      url: "/d?i=1&s=UNDELIV&u=&t=&a=0",
      headers: AUTH,
    });
    expect(res.status).toBe(200);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({
      id: "1",
      status: "UNDELIV",
      units: null,
      deliveredAt: null,
    });
  });

  it("reads {{sent_time}}/{{submit_time}} holding unix digits as the unix fields (the doc's second meaning)", async () => {
    const { receiver, reports } = receiverFor(
      {
        type: "delivery",
        method: "GET",
        url: "/d?i={{id}}&s={{status}}&a={{sent_time}}&b={{submit_time}}",
      },
      { timeZone: "Asia/Kolkata" },
    );
    const unix = await receiver.handle({
      method: "GET",
      url: "/d?i=1&s=DELIVRD&a=1617965868&b=1617965869",
      headers: AUTH,
    });
    const wallClock = await receiver.handle({
      method: "GET",
      url: "/d?i=2&s=DELIVRD&a=2021-04-09%2016%3A27%3A48&b=2021-04-09+16:27:49",
      headers: AUTH,
    });
    expect([unix.status, wallClock.status]).toEqual([200, 200]);
    expect(reports).toHaveLength(2);
    for (const report of reports) {
      expect(report).toMatchObject({
        sentAt: new Date(1617965868_000),
        submittedAt: new Date(1617965869_000),
      });
    }
  });

  it("authenticates with a custom header of the customer's choosing", async () => {
    const { receiver, reports } = receiverFor(
      { type: "delivery", method: "GET", url: "/d?i={{id}}&s={{status}}" },
      { secret: { value: TOKEN, header: "x-api-key" } },
    );
    const ok = await receiver.handle({
      method: "GET",
      url: "/d?i=1&s=DELIVRD",
      headers: { "X-API-Key": TOKEN },
    });
    const wrong = await receiver.handle({
      method: "GET",
      url: "/d?i=1&s=DELIVRD",
      headers: { "x-api-key": "nope" },
    });
    const bearer = await receiver.handle({ method: "GET", url: "/d?i=1&s=DELIVRD", headers: AUTH });
    // The whole value: no "Bearer" scheme, and no trailing comma forgiven as for Authorization.
    const comma = await receiver.handle({
      method: "GET",
      url: "/d?i=1&s=DELIVRD",
      headers: { "x-api-key": `${TOKEN},` },
    });
    expect([ok.status, wrong.status, bearer.status, comma.status]).toEqual([200, 401, 401, 401]);
    expect(wrong.headers["www-authenticate"]).toContain('error="invalid_token"');
    expect(reports).toHaveLength(1);
  });
});
