// A journal with `bodies: "redacted"` is handed each report without its phone numbers: the
// fields that carry one (JSON, form, query; a composed template's own keys), any long digit
// run elsewhere and in the error text. The rest stays, and a full journal still gets it all.
import { describe, expect, it } from "vitest";
import { post as postTo } from "../../../../test/fixtures/receiver-requests.js";
import { SAMPLE_CALL, SAMPLE_DLR, TOKEN } from "../../../../test/fixtures/samples.js";
import type { ReceiverRequest } from "../base/types.js";
import { createReceiver } from "../receiver/create-receiver.js";
import type { FailureJournal, JournalBodies, JournalRecord } from "../store-kit/dedupe-store.js";
import { maskDigits, REDACTED } from "./redact-request.js";

const NUMBERS = ["919876543210", "918068281234", "918068281235"];

function post(body: string, contentType = "application/json", url = "/webhooks"): ReceiverRequest {
  return { ...postTo(body, { "content-type": contentType }), url };
}

function journalOf(bodies: JournalBodies): { journal: FailureJournal; kept: JournalRecord[] } {
  const kept: JournalRecord[] = [];
  return { kept, journal: { bodies, record: async (entry) => void kept.push(entry) } };
}

/** A receiver whose handlers fail with a message that quotes the number. */
function failing(journal: FailureJournal) {
  const fail = () => {
    throw new Error("no customer with number +91 98765 43210");
  };
  return createReceiver({ secret: TOKEN, journal, logger: false, onDelivery: fail, onCall: fail });
}

describe("a redacting journal", () => {
  it("gets a DLR's and a call report's JSON without a number, the rest as it came", async () => {
    const { journal, kept } = journalOf("redacted");
    const receiver = failing(journal);
    expect((await receiver.handle(post(JSON.stringify(SAMPLE_DLR)))).status).toBe(500);
    expect((await receiver.handle(post(JSON.stringify(SAMPLE_CALL)))).status).toBe(500);
    const [dlr, call] = kept as [JournalRecord, JournalRecord];
    expect(JSON.parse(dlr.request.body)).toEqual({ ...SAMPLE_DLR, mobile: REDACTED });
    expect(JSON.parse(call.request.body)).toEqual({
      ...SAMPLE_CALL,
      bridge: REDACTED,
      from: REDACTED,
      to: REDACTED,
    });
    expect(dlr.error.message).toBe(
      `The report handler failed; the provider will retry this report. Cause: no customer with number ${REDACTED}`,
    );
    for (const number of NUMBERS) expect(JSON.stringify(kept)).not.toContain(number);
  });

  it("redacts a form body and the query by key, and digit runs in a body it cannot read", async () => {
    const { journal, kept } = journalOf("redacted");
    const receiver = failing(journal);
    const form = new URLSearchParams({ ...SAMPLE_DLR, units: "1" } as Record<string, string>);
    await receiver.handle(post(form.toString(), "application/x-www-form-urlencoded"));
    await receiver.handle(
      post("{not json, call 919876543210", "application/json", "/w?to=919876543210&x=1"),
    );
    const [fromForm, refused] = kept as [JournalRecord, JournalRecord];
    expect(new URLSearchParams(fromForm.request.body).get("mobile")).toBe(REDACTED);
    expect(new URLSearchParams(fromForm.request.body).get("id")).toBe(SAMPLE_DLR.id);
    expect(refused.status).toBe("refused");
    expect(refused.request.body).toBe(`{not json, call ${REDACTED}`);
    expect(refused.request.url).toBe(`/w?to=${encodeURIComponent(REDACTED)}&x=1`);
    for (const number of NUMBERS) expect(JSON.stringify(kept)).not.toContain(number);
  });

  it("hides numbers in keys, dashed numbers, a form body that is JSON, and credentials by name (issue 42, 1)", async () => {
    const { journal, kept } = journalOf("redacted");
    const receiver = failing(journal);
    const dlr = { ...SAMPLE_DLR, "919876543210": "a number as a key", note: "98-7654-3210" };
    // A JSON body sent as a form: read as the JSON it is.
    await receiver.handle(post(JSON.stringify(dlr), "application/x-www-form-urlencoded"));
    const form = new URLSearchParams({ ...SAMPLE_DLR, api_key: "k-live-1", "918068281234": "x" });
    await receiver.handle(
      post(form.toString(), "application/x-www-form-urlencoded", "/w?token=v-77&signature=s1"),
    );
    const [fromJson, fromForm] = kept as [JournalRecord, JournalRecord];
    const json = JSON.parse(fromJson.request.body);
    expect(json.id).toBe(SAMPLE_DLR.id);
    expect(json.note).toBe(REDACTED);
    expect(Object.keys(json)).toContain(REDACTED);
    const fields = new URLSearchParams(fromForm.request.body);
    expect(fields.get("api_key")).toBe(REDACTED);
    expect(fromForm.request.url).not.toMatch(/v-77|s1/);
    for (const secret of [...NUMBERS, "98-7654-3210", "k-live-1"])
      expect(JSON.stringify(kept)).not.toContain(secret);
  });

  it("a full journal keeps the body as it came, but never the verification's ?token= or the secret (issue 42, 7)", async () => {
    const { journal, kept } = journalOf("full");
    const receiver = failing(journal);
    const body = JSON.stringify({ ...SAMPLE_DLR, echo: TOKEN });
    await receiver.handle(post(body, "application/json", "/webhooks?token=v-77&x=1"));
    const entry = kept[0] as JournalRecord;
    expect(entry.request.url).not.toContain("v-77");
    expect(entry.request.url).toContain("x=1");
    expect(JSON.parse(entry.request.body).mobile).toBe(SAMPLE_DLR.mobile);
    expect(JSON.stringify(kept)).not.toContain(TOKEN);
  });

  it("redacts a composed template's own key for the number", async () => {
    const { journal, kept } = journalOf("redacted");
    const receiver = createReceiver({
      secret: TOKEN,
      journal,
      logger: false,
      composed: {
        type: "delivery",
        method: "POST",
        url: "https://example.com/webhooks",
        body: { msg: "{{id}}", phone: "{{mobile}}", state: "{{status}}" },
      },
      onDelivery: () => {
        throw new Error("down");
      },
    });
    const body = JSON.stringify({ msg: "m:1", phone: "919876543210", state: "DELIVRD" });
    expect((await receiver.handle(post(body))).status).toBe(500);
    expect(JSON.parse((kept[0] as JournalRecord).request.body)).toEqual({
      msg: "m:1",
      phone: REDACTED,
      state: "DELIVRD",
    });
  });

  it("keeps everything for a journal that keeps full bodies (the default)", async () => {
    const { journal, kept } = journalOf("full");
    const receiver = failing(journal);
    const body = JSON.stringify(SAMPLE_DLR);
    await receiver.handle(post(body));
    expect((kept[0] as JournalRecord).request.body).toBe(body);
    expect((kept[0] as JournalRecord).error.message).toContain("+91 98765 43210");
  });
});

describe("maskDigits", () => {
  it("masks runs of 7 or more digits (spaces and a + taken along), never dates, ids or short numbers", () => {
    expect(maskDigits("call +91 98765 43210 now")).toBe(`call ${REDACTED} now`);
    expect(maskDigits("2021-04-09 16:27:51 b34e35ad-fe34:1 order-1234, 123456")).toBe(
      "2021-04-09 16:27:51 b34e35ad-fe34:1 order-1234, 123456",
    );
  });
});
