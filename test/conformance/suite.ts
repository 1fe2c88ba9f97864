import { createReceiver } from "@reportkit/core";
import { describe, expect, it } from "vitest";
import { TOKEN } from "../fixtures/samples.js";
import { CASES, type ExpressParser, type RequestSpec } from "./cases.js";
import { type Call, failingStream, HANDLER_SECRET, receiverOptions, type Setup } from "./setup.js";

/** A reply as the client saw it; header names lowercase. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One app of a target, built for one setup. */
export interface TargetApp {
  send(request: RequestSpec): Promise<Reply>;
  /** The handler calls since the last take. */
  takeCalls(): Promise<Call[]>;
  close(): Promise<void>;
}

export type OpenApp = (setup: Setup, expressParsers?: ExpressParser[]) => Promise<TargetApp>;

/** Runs the whole table against one target; each reply is also compared with core's own. */
export function runConformance(target: string, open: OpenApp): void {
  describe(`conformance: ${target}`, () => {
    for (const testCase of CASES) {
      it(testCase.name, async () => {
        const { expect: expected } = testCase;
        const setup = testCase.setup ?? {};
        const app = await open(setup, testCase.expressParsers);
        let replies: Reply[];
        let calls: Call[];
        try {
          replies = await Promise.all(testCase.requests.map((request) => app.send(request)));
          calls = await app.takeCalls();
        } finally {
          await app.close();
        }
        const reference = await referenceReplies(setup, testCase.requests);
        replies.forEach((reply, i) => {
          expect(reply.status).toBe(expected.status);
          expect(reply.headers["content-type"]).toBe("application/json");
          for (const [name, value] of Object.entries(expected.headers ?? {})) {
            expect(reply.headers[name]).toBe(value);
          }
          const body = JSON.parse(reply.body) as { ok: boolean; error?: { code: string } };
          if (expected.code === undefined) expect(body).toEqual({ ok: true });
          else expect(body.error?.code).toBe(expected.code);
          expect(reply.body).not.toContain(HANDLER_SECRET);
          expect(reply.body).toBe(reference[i]?.body);
        });
        expect(sorted(calls)).toEqual(sorted(expected.calls));
      });
    }
  });
}

/** Core's own replies to the same requests: what every adapter has to give. */
async function referenceReplies(setup: Setup, requests: RequestSpec[]): Promise<Reply[]> {
  const receiver = createReceiver({ token: TOKEN, ...receiverOptions(setup, []) });
  return Promise.all(
    requests.map(async (request) => toReply(await receiver.fetch(toRequest(request)))),
  );
}

function sorted(calls: Call[]): Call[] {
  const key = (call: Call) => JSON.stringify(call);
  return [...calls].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

const encoder = new TextEncoder();

/** The bytes to send; a failing body sends its first part (the app's test stage fails it). */
export function bodyBytes(body: RequestSpec["body"]): Uint8Array<ArrayBuffer> | undefined {
  if (body === undefined || body instanceof Uint8Array) return body;
  return encoder.encode(typeof body === "string" ? body : body.fail);
}

/** A web Request, with a stream that fails mid-way for a failing body. */
export function toRequest(spec: RequestSpec, origin = "http://localhost"): Request {
  const bytes = bodyBytes(spec.body);
  const body =
    typeof spec.body === "object" && "fail" in spec.body && bytes ? failingStream(bytes) : bytes;
  return new Request(`${origin}${spec.url}`, {
    method: spec.method,
    headers: spec.headers,
    body,
    duplex: "half",
  } as RequestInit);
}

export async function toReply(response: Response): Promise<Reply> {
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.text(),
  };
}
