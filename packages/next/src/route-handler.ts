import type { ComposedTemplate, ReceiverOptions } from "@reportkit/core";
import {
  type Attachable,
  adapterReceiver,
  attachable,
  SECRET_ENV,
  VERIFICATION_TOKEN_ENV,
} from "@reportkit/core/adapter";

/** A Next.js App Router route handler: `export const POST = webhookReceiver(...)`. */
export type NextRouteHandler = (request: Request) => Promise<Response>;

/** The route handler, with `onDelivery` / `onCall` / `onError` to attach handlers. */
export type NextReceiver<
  T extends ComposedTemplate | undefined = undefined,
  S extends object = object,
> = Attachable<NextRouteHandler, T, S>;

/**
 * The environment as a route sees it. Each variable is named in full (`process.env.NAME`):
 * Next.js gives an Edge route only the variables its code names that way.
 */
function routeEnv(): Record<string, string | undefined> {
  if (typeof process === "undefined") return {};
  return {
    [SECRET_ENV]: process.env.REPORTKIT_SECRET,
    [VERIFICATION_TOKEN_ENV]: process.env.REPORTKIT_VERIFICATION_TOKEN,
  };
}

declare const process: { env: Record<string, string | undefined> };

/**
 * The reportkit receiver as a Next.js App Router route handler, on the Node.js and the Edge
 * runtime (no `node:` imports). The secret is REPORTKIT_SECRET unless given (and the verification
 * token REPORTKIT_VERIFICATION_TOKEN), read when a request comes rather than when the module
 * loads, so `next build` (which loads every route) needs no secret; a request that finds none
 * gets 500 `secret_check_failed`, which the provider retries. The verification handshake is a
 * POST: `export const POST` answers it too.
 * Every other option is checked when the module loads. Every reply is core's.
 *
 * @example
 * // app/webhooks/route.ts
 * export const POST = webhookReceiver().onDelivery((report) => console.log(report.id));
 */
export function webhookReceiver<
  const T extends ComposedTemplate | undefined = undefined,
  S extends object = object,
>(options?: ReceiverOptions<T, S>): NextReceiver<T, S> {
  const receiver = adapterReceiver<T, S>(options, {
    env: routeEnv(),
    requestEnv: {
      whereToSet: `in process.env. Set it in the deployment's environment variables (locally: \`${SECRET_ENV}=… next start\`, or .env.local)`,
    },
  });
  // A web Request in, a web Response out: core's own `fetch`, with the environment as this
  // request finds it (not as it was when `next build` loaded the route).
  const handler: NextRouteHandler = (request) => receiver.fetch(request, routeEnv());
  return attachable(handler, receiver);
}
