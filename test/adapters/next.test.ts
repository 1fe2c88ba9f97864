// @reportkit/next's handler on its own (the built app is test/conformance/next.test.ts): the
// token read per request, so a module loaded without it (next build) does not throw.
import { webhookReceiver } from "@reportkit/next";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SAMPLE_DLR_TEXT, TOKEN } from "../fixtures/samples.js";

const push = (token = TOKEN) =>
  new Request("http://localhost/webhooks", {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: SAMPLE_DLR_TEXT,
  });

afterEach(() => vi.unstubAllEnvs());

describe("@reportkit/next: the token", () => {
  it("loaded without REPORTKIT_SECRET: no throw; a request then gets 500 saying where to set it", async () => {
    vi.stubEnv("REPORTKIT_SECRET", "");
    const errors: string[] = [];
    const onDelivery = vi.fn();
    const POST = webhookReceiver({
      onDelivery,
      onError: (error) => void errors.push(error.message),
    });
    const reply = await POST(push());
    expect(reply.status).toBe(500);
    // The reply says what is missing, not that a verifier failed (none was configured).
    const { error } = await reply.json();
    expect(error.code).toBe("secret_check_failed");
    expect(error.message).toMatch(
      /no secret to check the request against: REPORTKIT_SECRET is neither in its options nor in process\.env/,
    );
    expect(errors).toHaveLength(1);
    expect(onDelivery).not.toHaveBeenCalled();
  });

  it("REPORTKIT_SECRET set after the module loaded (next start): 200, and 401 for a wrong token", async () => {
    vi.stubEnv("REPORTKIT_SECRET", "");
    const onDelivery = vi.fn();
    const POST = webhookReceiver().onDelivery(onDelivery);
    vi.stubEnv("REPORTKIT_SECRET", TOKEN);
    expect((await POST(push())).status).toBe(200);
    expect((await POST(push("wrong"))).status).toBe(401);
    expect(onDelivery).toHaveBeenCalledTimes(1);
  });

  it("other options are checked when the module loads", () => {
    expect(() => webhookReceiver({ body: { maxBytes: -1 } })).toThrow(/`body.maxBytes` must be/);
  });
});
