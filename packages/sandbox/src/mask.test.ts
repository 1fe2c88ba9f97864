import { describe, expect, it } from "vitest";
import { MASK, maskRequest, maskText } from "./mask.js";

describe("maskRequest", () => {
  it("masks the Authorization value after its scheme, credential-named headers and the secrets", () => {
    const shown = maskRequest(
      {
        method: "POST",
        url: "https://my.app/hook?key=s3cret-value&id=1",
        headers: {
          authorization: "Bearer s3cret-token",
          "x-api-key": "anything",
          "x-signature": "abc",
          "x-source": "sandbox s3cret-value",
          "content-type": "application/json",
        },
        body: new TextEncoder().encode('{"note":"s3cret-token"}'),
      },
      ["s3cret-token", "s3cret-value", "abc"],
    );
    expect(shown).toEqual({
      method: "POST",
      url: `https://my.app/hook?key=${MASK}&id=1`,
      headers: {
        authorization: `Bearer ${MASK}`,
        "x-api-key": MASK,
        "x-signature": MASK,
        "x-source": `sandbox ${MASK}`,
        "content-type": "application/json",
      },
      body: `{"note":"${MASK}"}`,
    });
  });

  it("masks a scheme-less Authorization whole, and leaves short strings alone", () => {
    expect(
      maskRequest({ method: "GET", url: "http://x/", headers: { Authorization: "tok" } }),
    ).toEqual({ method: "GET", url: "http://x/", headers: { Authorization: MASK }, body: null });
    // Three characters would mask ordinary text: only secrets of 4 or more are searched for.
    expect(maskText("abc abcd", ["abc", "abcd"])).toBe(`abc ${MASK}`);
  });
});
