import { describe, expect, it } from "vitest";
import { AUTH, errorOf, post, setup } from "../../../../test/fixtures/receiver-requests.js";
import {
  SAMPLE_CALL_TEXT,
  SAMPLE_DLR,
  SAMPLE_DLR_TEXT,
} from "../../../../test/fixtures/samples.js";

// From a request to a report: the method, then the credential, then the body by its type.
describe("readReport, through the receiver", () => {
  it.each(["GET", "PUT", "DELETE", "PATCH"])("405 with Allow for %s", async (method) => {
    const { receiver } = setup();
    const res = await receiver.handle({ ...post(SAMPLE_DLR_TEXT), method });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("POST");
    expect(errorOf(res.body).code).toBe("method_not_allowed");
  });

  it.each(["application/xml", "image/png", "application/octet-stream"])(
    "415 for %s",
    async (type) => {
      const { receiver } = setup();
      const res = await receiver.handle(post(SAMPLE_DLR_TEXT, { "content-type": type }));
      expect(res.status).toBe(415);
      expect(errorOf(res.body).code).toBe("unsupported_media_type");
    },
  );

  it.each([
    ["application/json; charset=UTF-8"],
    ["Application/JSON"],
    ["application/vnd.provider+json"],
    ["text/plain"],
    [undefined],
  ])("reads %s as JSON", async (type) => {
    const { receiver, deliveries } = setup();
    const headers: Record<string, string> = { ...AUTH };
    if (type !== undefined) headers["content-type"] = type;
    const res = await receiver.handle({ method: "POST", url: "/", headers, body: SAMPLE_DLR_TEXT });
    expect(res.status).toBe(200);
    expect(deliveries).toHaveLength(1);
  });

  it("reads the standard payload sent as urlencoded or multipart form fields", async () => {
    const { receiver, deliveries } = setup();
    const form = new URLSearchParams(SAMPLE_DLR as Record<string, string>);
    const urlencoded = post(form.toString(), {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect((await receiver.handle(urlencoded)).status).toBe(200);
    const multipart = new FormData();
    for (const [k, v] of Object.entries(SAMPLE_DLR)) multipart.set(k, String(v));
    const request = new Request("http://x/webhooks", {
      method: "POST",
      body: multipart,
      headers: AUTH,
    });
    expect((await receiver.fetch(request)).status).toBe(200);
    expect(deliveries[0]).toMatchObject({ units: 1, mobile: "919876543210" });
    expect(deliveries[1]).toMatchObject({
      units: 1,
      deliveredAt: new Date("2021-04-09T10:57:51Z"),
      warnings: [],
    });
  });

  it("reads a JSON body sent with PHP curl's default urlencoded content type", async () => {
    const { receiver, deliveries } = setup();
    const res = await receiver.handle(
      post(JSON.stringify(SAMPLE_DLR), { "content-type": "application/x-www-form-urlencoded" }),
    );
    expect(res.status).toBe(200);
    expect(deliveries[0]?.id).toBe(SAMPLE_DLR.id);
  });

  it("is not polluted by __proto__ keys in JSON or form bodies", async () => {
    const { receiver, deliveries } = setup();
    const json = `{"__proto__":{"polluted":1},${JSON.stringify(SAMPLE_DLR).slice(1)}`;
    expect((await receiver.handle(post(json))).status).toBe(200);
    const form = `__proto__[polluted]=1&constructor[prototype][polluted]=1&${new URLSearchParams(SAMPLE_DLR as Record<string, string>)}`;
    const res = await receiver.handle(
      post(form, { "content-type": "application/x-www-form-urlencoded" }),
    );
    expect(res.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(deliveries).toHaveLength(2);
  });

  it("a body a framework failed to read still gets the method, the secret and the content type checked first", async () => {
    const { receiver } = setup();
    const failing = {
      [Symbol.asyncIterator]: () => ({
        next: () => Promise.reject(new Error("the framework's body limit")),
      }),
    };
    const refused = (method: string, headers: Record<string, string>) =>
      receiver.handle({ method, url: "/", headers, body: failing });
    expect((await refused("POST", {})).status).toBe(401);
    expect((await refused("PUT", AUTH)).status).toBe(405);
    expect((await refused("POST", { ...AUTH, "content-type": "application/xml" })).status).toBe(
      415,
    );
    expect((await refused("POST", AUTH)).status).toBe(400);
  });

  it("reads wall-clock times in Asia/Kolkata by default, in `timeZone` when given", async () => {
    const byDefault = setup();
    const utc = setup({ timeZone: "UTC" });
    await byDefault.receiver.handle(post(SAMPLE_CALL_TEXT));
    await utc.receiver.handle(post(SAMPLE_CALL_TEXT));
    expect(byDefault.calls[0]?.startedAt).toEqual(new Date("2021-04-09T10:57:51Z"));
    expect(utc.calls[0]?.startedAt).toEqual(new Date("2021-04-09T16:27:51Z"));
  });
});
