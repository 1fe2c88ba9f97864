import { describe, expect, it } from "vitest";
import { errorOf, post, setup } from "../../../../test/fixtures/receiver-requests.js";
import { SAMPLE_DLR, SAMPLE_DLR_TEXT, TOKEN } from "../../../../test/fixtures/samples.js";
import type { ReportContext } from "../process/run-handler.js";
import type { DeliveryReport } from "../report/schemas.js";
import { createReceiver } from "./create-receiver.js";

describe("the credential", () => {
  it("accepts every token of a rotation, and only those", async () => {
    const { receiver } = setup({ secret: ["new-token", TOKEN] });
    for (const [token, status] of [
      ["new-token", 200],
      [TOKEN, 200],
      ["other", 401],
    ] as const) {
      const res = await receiver.handle(
        post(SAMPLE_DLR_TEXT, { authorization: `Bearer ${token}` }),
      );
      expect(res.status).toBe(status);
    }
  });

  it("asks a verifier function, sync or async", async () => {
    const seen: string[] = [];
    const verify = async (token: string) => {
      seen.push(token);
      return token === "from-vault";
    };
    const { receiver } = setup({ secret: verify });
    expect(
      (await receiver.handle(post(SAMPLE_DLR_TEXT, { authorization: "Bearer from-vault" }))).status,
    ).toBe(200);
    expect(
      (await receiver.handle(post(SAMPLE_DLR_TEXT, { authorization: "Bearer nope" }))).status,
    ).toBe(401);
    expect(seen).toEqual(["from-vault", "nope"]);
    // A synchronous verifier works the same.
    const sync = setup({ secret: (token: string) => token === "from-vault" }).receiver;
    const good = await sync.handle(post(SAMPLE_DLR_TEXT, { authorization: "Bearer from-vault" }));
    const bad = await sync.handle(post(SAMPLE_DLR_TEXT, { authorization: "Bearer nope" }));
    expect([good.status, bad.status]).toEqual([200, 401]);
  });

  it("500 secret_check_failed when the verifier throws, so the provider retries", async () => {
    const { receiver } = setup({
      secret: () => {
        throw new Error("vault unreachable");
      },
    });
    const res = await receiver.handle(post(SAMPLE_DLR_TEXT));
    expect(res.status).toBe(500);
    expect(errorOf(res.body).code).toBe("secret_check_failed");
  });

  it("reads the token from a custom header, whole value", async () => {
    const { receiver } = setup({ secret: { value: TOKEN, header: "X-Api-Key" } });
    expect((await receiver.handle(post(SAMPLE_DLR_TEXT, { "x-api-key": TOKEN }))).status).toBe(200);
    expect(
      (await receiver.handle(post(SAMPLE_DLR_TEXT, { "x-api-key": `Bearer ${TOKEN}` }))).status,
    ).toBe(401);
  });

  it("accepts anything with secret: false", async () => {
    const deliveries: DeliveryReport[] = [];
    const receiver = createReceiver({ secret: false, onDelivery: (r) => void deliveries.push(r) });
    const res = await receiver.handle({
      method: "POST",
      url: "/",
      headers: {},
      body: SAMPLE_DLR_TEXT,
    });
    expect(res.status).toBe(200);
    expect(deliveries).toHaveLength(1);
  });

  it("never puts a token or Authorization value in a reply, an error or the context", async () => {
    const contexts: ReportContext[] = [];
    const { receiver, errors } = setup({
      onDelivery: (_, ctx) => {
        contexts.push(ctx);
        throw new Error("boom");
      },
    });
    const wrong = "wrong-secret-value";
    const replies = [
      await receiver.handle(post(SAMPLE_DLR_TEXT, { authorization: `Bearer ${wrong}` })),
      await receiver.handle(post(SAMPLE_DLR_TEXT)),
    ];
    const everything = JSON.stringify([replies, errors.map((e) => [e.message, e.code]), contexts]);
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain(wrong);
    expect(contexts[0]?.headers.get("authorization")).toBeNull();
    expect(contexts[0]?.headers.get("content-type")).toBe("application/json");
  });

  it("refuses an empty or blank verification.token at construction, so no request is checked against it", () => {
    for (const token of ["", "   "]) {
      expect(() =>
        createReceiver({ secret: TOKEN, verification: { token }, onDelivery() {} }),
      ).toThrow(
        `reportkit: \`verification.token\` must be the webhook's token as the provider has it (the "validation key" its verification request carries), a string without whitespace around it, got ${JSON.stringify(token)}.`,
      );
    }
  });

  it("finds headers in any case, in records and in Headers", async () => {
    const { receiver, deliveries } = setup();
    const body = JSON.stringify(SAMPLE_DLR);
    const mixed = { AUTHORIZATION: `bearer ${TOKEN}`, "Content-TYPE": "application/json" };
    expect((await receiver.handle({ method: "post", url: "/", headers: mixed, body })).status).toBe(
      200,
    );
    const web = new Headers({ Authorization: `BEARER ${TOKEN}` });
    expect((await receiver.handle({ method: "POST", url: "/", headers: web, body })).status).toBe(
      200,
    );
    expect(deliveries).toHaveLength(2);
  });

  it("accepts the documented curl's stray comma after the token", async () => {
    const { receiver } = setup();
    const res = await receiver.handle(post(SAMPLE_DLR_TEXT, { authorization: `Bearer ${TOKEN},` }));
    expect(res.status).toBe(200);
  });
});
