import { createReceiver } from "@reportkit/core";
import { describe, expect, it } from "vitest";
import { TOKEN } from "../fixtures/samples.js";
import {
  CASES,
  CONSTRUCTION_ERRORS,
  type ConformanceCase,
  type ExpectedReply,
  type ExpressParser,
  type RequestSpec,
} from "./cases.js";
import { type Call, failingStream, HANDLER_SECRET, receiverSetup, type Setup } from "./setup.js";

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

/**
 * Builds the target's app for one setup. A setup the receiver refuses (an invalid composed
 * template) rejects with the receiver's construction error, as the target's users would see it.
 */
export type OpenApp = (setup: Setup, expressParsers?: ExpressParser[]) => Promise<TargetApp>;

/**
 * What a target's mount routes to the receiver, for mounts that by design see only part of the
 * requests (a route such as `app.post("/webhooks", ...)`), and what the target can send. A case
 * with a request the mount would never hand to the receiver, or one the target cannot send, does
 * not apply to it and is left out, explicitly.
 */
export interface Routes {
  /** Only these methods reach the receiver. Default: every method. */
  methods?: readonly string[];
  /** Only the exact path /webhooks reaches it, so no `subpaths` setup. Default: false. */
  exactPath?: boolean;
  /**
   * Whether the target can hand the receiver a body whose stream fails mid-way and still carry
   * the reply back (a `fail` body). Default: true. A real client that hangs up mid-body is tested
   * on every adapter in test/adapters/real-socket.test.ts.
   */
  failingBody?: boolean;
}

function routed(testCase: ConformanceCase, routes: Routes): boolean {
  if (routes.exactPath === true && testCase.setup?.subpaths === true) return false;
  if (routes.failingBody === false && testCase.requests.some(isFailing)) return false;
  const { methods } = routes;
  return methods === undefined || testCase.requests.every((r) => methods.includes(r.method));
}

/**
 * Runs the whole table against one target; each reply is also compared with core's own. Then
 * every construction error: opening the target's app for such a setup must fail with it.
 */
export function runConformance(target: string, open: OpenApp, routes: Routes = {}): void {
  describe(`conformance: ${target}`, () => {
    // A case a mount would never route to the receiver, or the target cannot send, is not run
    // there (nor counted).
    for (const testCase of CASES.filter((c) => routed(c, routes))) {
      it(testCase.name, async () => {
        const { expect: expected, requests } = testCase;
        const sequence = "sequence" in expected ? expected.sequence : undefined;
        if (sequence !== undefined) expect(sequence).toHaveLength(requests.length);
        const expectedReply = (i: number) => (sequence?.[i] ?? expected) as ExpectedReply;
        const setup = testCase.setup ?? {};
        const app = await open(setup, testCase.expressParsers);
        let replies: Reply[];
        let calls: Call[];
        try {
          replies = await sendAll(requests, (request) => app.send(request), sequence !== undefined);
          calls = await app.takeCalls();
        } finally {
          await app.close();
        }
        const reference = await referenceReplies(setup, requests, sequence !== undefined);
        expect(replies).toHaveLength(requests.length);
        replies.forEach((reply, i) => {
          const want = expectedReply(i);
          expect(reply.status).toBe(want.status);
          expect(reply.headers["content-type"]).toBe("application/json");
          for (const [name, value] of Object.entries(want.headers ?? {})) {
            if (typeof value === "string") expect(reply.headers[name]).toBe(value);
            else expect(reply.headers[name]).toMatch(value);
          }
          const body = JSON.parse(reply.body) as {
            ok: boolean;
            error?: { code: string; message: string };
          };
          if (want.code === undefined) expect(body).toEqual(want.body ?? { ok: true });
          else expect(body.error?.code).toBe(want.code);
          if (want.message !== undefined) expect(body.error?.message).toMatch(want.message);
          expect(reply.body).not.toContain(HANDLER_SECRET);
          expect(reply.body).toBe(reference[i]?.body);
        });
        expect(sorted(calls)).toEqual(sorted(expected.calls));
      });
    }
    for (const { name, setup, messages } of CONSTRUCTION_ERRORS) {
      it(`construction error: ${name}`, async () => {
        const error = await open(setup).then(
          async (app) => {
            await app.close();
            return undefined;
          },
          (thrown: unknown) => thrown,
        );
        expect(error, "the app was built").toBeInstanceOf(Error);
        for (const message of messages) expect((error as Error).message).toMatch(message);
      });
    }
  });
}

/** Sends every request at once, or (`inTurn`) each once the one before was answered. */
async function sendAll(
  requests: RequestSpec[],
  send: (request: RequestSpec) => Promise<Reply>,
  inTurn: boolean,
): Promise<Reply[]> {
  if (!inTurn) return Promise.all(requests.map(send));
  const replies: Reply[] = [];
  for (const request of requests) replies.push(await send(request));
  return replies;
}

/** Core's own replies to the same requests, sent the same way: what every adapter has to give. */
async function referenceReplies(
  setup: Setup,
  requests: RequestSpec[],
  inTurn: boolean,
): Promise<Reply[]> {
  const { options, attach } = receiverSetup(setup, []);
  const receiver = createReceiver({ secret: TOKEN, ...options });
  attach(receiver);
  return sendAll(
    requests,
    async (request) => toReply(await receiver.fetch(toRequest(request))),
    inTurn,
  );
}

function sorted(calls: Call[]): Call[] {
  const key = (call: Call) => JSON.stringify(call);
  return [...calls].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * Runs `build` with REPORTKIT_SECRET set, as the zero-argument form reads it at construction,
 * and puts the environment back after.
 */
export function withTokenEnv<T>(build: () => T): T {
  const before = process.env.REPORTKIT_SECRET;
  const restore = () => {
    if (before === undefined) delete process.env.REPORTKIT_SECRET;
    else process.env.REPORTKIT_SECRET = before;
  };
  process.env.REPORTKIT_SECRET = TOKEN;
  let built: T;
  try {
    built = build();
  } catch (error) {
    restore();
    throw error;
  }
  // Fastify's register runs the plugin later, when awaited: keep the variable until then.
  if (built instanceof Promise) return built.finally(restore) as T;
  restore();
  return built;
}

const encoder = new TextEncoder();

export function isFailing(spec: RequestSpec): boolean {
  return typeof spec.body === "object" && "fail" in spec.body;
}

/** The chunks of a body sent as a stream without Content-Length, else undefined. */
export function chunksOf(spec: RequestSpec): Uint8Array<ArrayBuffer>[] | undefined {
  const { body } = spec;
  return typeof body === "object" && "chunks" in body
    ? body.chunks.map((chunk) => encoder.encode(chunk))
    : undefined;
}

/** A body sent in chunks as a web stream (a fetch sends it chunked). */
export function streamOf(chunks: Uint8Array<ArrayBuffer>[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[next++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

/** The bytes to send; a failing body sends its first part (the app's test stage fails it). */
export function bodyBytes(spec: RequestSpec): Uint8Array<ArrayBuffer> | undefined {
  const { body } = spec;
  if (body === undefined || body instanceof Uint8Array) return body;
  if (typeof body === "string") return encoder.encode(body);
  return "fail" in body ? encoder.encode(body.fail) : encoder.encode(body.chunks.join(""));
}

/** The body as a fetch sends it: bytes, a chunked stream, or a stream that fails mid-way. */
export function bodyInit(spec: RequestSpec): BodyInit | undefined {
  const chunks = chunksOf(spec);
  if (chunks !== undefined) return streamOf(chunks);
  const bytes = bodyBytes(spec);
  return isFailing(spec) && bytes !== undefined ? failingStream(bytes) : bytes;
}

/** A web Request for the spec. */
export function toRequest(spec: RequestSpec, origin = "http://localhost"): Request {
  return new Request(`${origin}${spec.url}`, {
    method: spec.method,
    headers: spec.headers,
    body: bodyInit(spec),
    duplex: "half",
  } as RequestInit);
}

/**
 * Sends the spec over a real socket with fetch: a chunked body as a stream, a `fail` body whole
 * (with `headers` naming FAULT_HEADER, the app's own test stage fails it).
 */
export async function fetchReply(
  origin: string,
  spec: RequestSpec,
  headers: Record<string, string> = spec.headers,
): Promise<Reply> {
  const body = chunksOf(spec) === undefined ? bodyBytes(spec) : bodyInit(spec);
  const response = await fetch(`${origin}${spec.url}`, {
    method: spec.method,
    headers,
    ...(body === undefined ? {} : { body, duplex: "half" }),
  } as RequestInit);
  return toReply(response);
}

export async function toReply(response: Response): Promise<Reply> {
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.text(),
  };
}
