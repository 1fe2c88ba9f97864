import { describe, expect, it } from "vitest";
import { MASK, maskRequest, maskText } from "./mask.js";

describe("maskRequest", () => {
  it("masks the Authorization value after its scheme, every header but the transport's, and the secrets", () => {
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
        "x-source": MASK,
        "content-type": "application/json",
      },
      body: `{"note":"${MASK}"}`,
    });
  });

  it("masks a scheme-less Authorization whole, and a short secret only where it stands alone", () => {
    expect(
      maskRequest({ method: "GET", url: "http://x/", headers: { Authorization: "tok" } }),
    ).toEqual({ method: "GET", url: "http://x/", headers: { Authorization: MASK }, body: null });
    // Inside a word, three characters would mask ordinary text: alone, they are the secret.
    expect(maskText("abc abcd xabc ?t=abc", ["abc", "abcd"])).toBe(
      `${MASK} ${MASK} xabc ?t=${MASK}`,
    );
  });
});
