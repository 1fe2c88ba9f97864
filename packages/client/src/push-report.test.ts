// What a failed push says about the receiver's reply: its first 200 characters, with the secret
// redacted before the cut, so that no cut can leave part of the secret (issue 42, finding 3).
// Real HTTP servers on localhost, the global fetch.
import { afterEach, describe, expect, it } from "vitest";
import {
  closeServers,
  recordingServer as server,
} from "../../../test/support/client-api-server.js";
import { reportPusher } from "./push-report.js";

const SECRET = "Zq7-ssssssssssssssss-9f";

afterEach(closeServers);

/** The reason a push to a receiver that answers `status` with `body` fails with. */
async function reasonFor(status: number, body: string): Promise<string> {
  const receiver = await server((_req, res) => res.writeHead(status).end(body));
  const push = reportPusher({ secret: SECRET, timeoutMs: 5000 });
  const verdict = await push({
    url: new URL(`${receiver.origin}/webhooks`),
    contentType: "application/json",
    body: "{}",
  });
  if (verdict.kind !== "failed") throw new Error(`expected a failure, got ${verdict.kind}`);
  return verdict.reason;
}

/** Every prefix of the secret of 3 characters or more: none may be shown. */
const prefixes = Array.from({ length: SECRET.length - 2 }, (_, i) => SECRET.slice(0, i + 3));

describe("the reply in a failed push's reason", () => {
  it("is redacted before it is cut: an echoed secret across the cut shows no prefix of it", async () => {
    // The echo starts 5 characters before the 200th of the reply, wherever the cut falls.
    for (const pad of [188, 190, 193, 195, 198, 199]) {
      const reason = await reasonFor(401, `${"x".repeat(pad)} Bearer ${SECRET} and more`);
      for (const prefix of prefixes) expect(reason).not.toContain(prefix);
      expect(reason).toMatch(/^HTTP 401: x+ /);
      expect(reason.endsWith("…")).toBe(true);
    }
  });

  it("a short reply shows the credential redacted, the rest as it came", async () => {
    const reason = await reasonFor(401, `refused: Authorization: Bearer ${SECRET} (wrong)`);
    expect(reason).toBe("HTTP 401: refused: Authorization: Bearer [token] (wrong)");
  });

  it("any Bearer credential a reply shows is redacted, not only the secret (one cut by the receiver, another's)", async () => {
    const reason = await reasonFor(
      500,
      `got Bearer ${SECRET.slice(0, 9)}… and bearer b3JhbmdlLXRva2Vu== from the proxy`,
    );
    expect(reason).toBe("HTTP 500: got Bearer [token]… and bearer [token] from the proxy");
  });

  it("a 200 that is not reportkit's reply is cut the same way", async () => {
    const reason = await reasonFor(200, `${"<p>".repeat(63)}Bearer ${SECRET}</p>`);
    for (const prefix of prefixes) expect(reason).not.toContain(prefix);
    expect(reason).toContain("HTTP 200 but not reportkit's reply (no Content-Type)");
  });

  it("reads at most 64 KiB of a reply: a larger one is quoted not at all, and never counted processed", async () => {
    const huge = `{"ok":true,"pad":"${"x".repeat(1 << 20)}"}`;
    expect(await reasonFor(500, huge)).toBe("HTTP 500");
    expect(await reasonFor(200, huge)).toBe(
      "HTTP 200 but not reportkit's reply (no Content-Type), so not counted as processed: is the URL your receiver's?",
    );
  });
});
