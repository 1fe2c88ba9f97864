import { describe, expect, it } from "vitest";
import { createSandbox } from "./create-sandbox.js";
import { documentedJson, standardPush } from "./push-request.js";

const REPORT = { id: "b34e:1", units: 1, bridge: 918068281234, custom: undefined, note: 'a "q"' };

describe("standardPush", () => {
  it("complete: strict JSON", () => {
    const push = standardPush("https://my.app/r", REPORT, "t", "complete");
    expect(push).toEqual({
      method: "POST",
      url: "https://my.app/r",
      headers: { accept: "*/*", "content-type": "application/json", authorization: "Bearer t" },
      body: '{"id":"b34e:1","units":1,"bridge":918068281234,"note":"a \\"q\\""}',
    });
  });

  it("documented: written like the documentation's samples, trailing comma included", () => {
    const push = standardPush("https://my.app/r", REPORT, null, "documented");
    expect(push.headers).not.toHaveProperty("authorization");
    expect(push.body).toBe(
      '{\n    "id": "b34e:1",\n    "units": 1,\n    "bridge": 918068281234,\n    "note": "a \\"q\\"",\n}',
    );
    expect(() => JSON.parse(push.body as string)).toThrow();
  });

  it("defaults to strict JSON for callers that build their own reports", () => {
    expect(standardPush("https://my.app/r", { a: 1 }, null).body).toBe('{"a":1}');
  });
});

describe("documentedJson", () => {
  it("writes an empty object as braces on two lines", () => {
    expect(documentedJson({})).toBe("{\n\n}");
  });
});

describe("createSandbox({ payloads })", () => {
  it("refuses a shape it does not know, naming both it knows", async () => {
    await expect(
      createSandbox({ token: "t", payloads: "strict" as unknown as "complete" }),
    ).rejects.toThrow('`payloads` must be "documented" or "complete", got "strict".');
  });
});
