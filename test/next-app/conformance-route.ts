// The route handler both runtimes' routes export, for the conformance table on a built Next.js
// app: receivers built per setup (a construction error comes back as a 500 with the error),
// chosen per request by a header, handler calls read back, and a body that fails (test stages). No node: imports: it runs on Edge too.
// Each runtime keeps its own state: Edge routes run in a sandbox of their own under next start.
import type { ComposedTemplate } from "@reportkit/core";
import { type NextRouteHandler, webhookReceiver } from "@reportkit/next";
import {
  APP_HEADER,
  type Call,
  FAULT_HEADER,
  failingStream,
  receiverSetup,
  type Setup,
} from "../conformance/setup.ts";

interface State {
  calls: Call[];
  /** Each case's receiver, by the id its setup got: dedupe stores and queues start empty. */
  apps: Map<string, { setup: Setup; handler: NextRouteHandler }>;
  opened: number;
}

const global = globalThis as { reportkitConformance?: State };
if (global.reportkitConformance === undefined) {
  global.reportkitConformance = { calls: [], apps: new Map(), opened: 0 };
}
const state = global.reportkitConformance;

function json(body: unknown, status = 200): Response {
  return Response.json(body, { status });
}

function open(setup: Setup): Response {
  try {
    // The secret from REPORTKIT_SECRET (next start's environment), in both forms.
    const { options, attach } = receiverSetup(setup, state.calls);
    const handler =
      options === undefined
        ? webhookReceiver()
        : webhookReceiver<ComposedTemplate | undefined>(options);
    attach(handler);
    const id = String(++state.opened);
    state.apps.set(id, { setup, handler });
    return json({ id });
  } catch (error) {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    return json({ constructionError: { name, message } }, 500);
  }
}

/** Which test stage a request to the route is for: `setup`, `calls`, `close`, or none (a report). */
export const OP_HEADER = "x-conformance-op";

/**
 * The route for every method. Reports reach it by next.config.mjs's rewrites of /webhooks
 * (and, on Node.js, the paths below it), so `request.url` is the path as sent.
 */
export async function conformanceRoute(request: Request): Promise<Response> {
  const op = request.headers.get(OP_HEADER);
  if (op === "setup") return open((await request.json()) as Setup);
  if (op === "calls") return json(state.calls.splice(0));
  const url = new URL(request.url);
  if (op === "close") return json({ closed: state.apps.delete(url.searchParams.get("id") ?? "") });
  const opened = state.apps.get(request.headers.get(APP_HEADER) ?? "");
  if (opened === undefined) return new Response("conformance: setup not opened", { status: 500 });
  const { setup, handler } = opened;
  const path = url.pathname;
  if (path !== "/webhooks" && !(setup.subpaths === true && path.startsWith("/webhooks/"))) {
    return new Response("Not Found", { status: 404 });
  }
  if (request.headers.get(FAULT_HEADER) === null || request.body === null) return handler(request);
  const first = (await request.body.getReader().read()).value ?? new Uint8Array();
  const failing = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: failingStream(first),
    duplex: "half",
  } as RequestInit);
  return handler(failing);
}
