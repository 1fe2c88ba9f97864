import type { ComposedTemplate, ReceiverOptions } from "@reportkit/core";
import { adapterReceiver, attachable } from "@reportkit/core/adapter";
import fp from "fastify-plugin";
import type { FastifyReportkit } from "./fastify-reportkit.js";
import { route } from "./receiver-route.js";

/**
 * Core's options plus the route's `path`. A composed template is accepted; its report types
 * are the plain ones here, since register() cannot carry a literal template's type along.
 */
export type FastifyReceiverOptions = ReceiverOptions<ComposedTemplate | undefined> & {
  /**
   * The route's path, under the register `prefix`. Default "/webhooks"; with a `prefix` and no
   * `path`, the prefix itself (`register(webhookReceiver, { prefix: "/hooks" })` serves /hooks).
   */
  path?: string;
  /** Fastify's own register option, honoured: the route is `prefix` + `path`. */
  prefix?: string;
};

/**
 * Fastify 5 plugin: the reportkit receiver on one route. The instance that registers it gets
 * `fastify.reportkit` to attach handlers (so the plugin is wrapped with fastify-plugin); the
 * route itself lives in an encapsulated child context, so its catch-all body parser and error
 * handler never touch the host app's other routes. The secret is REPORTKIT_SECRET unless given.
 *
 * @example
 * await fastify.register(webhookReceiver);
 * fastify.reportkit.onDelivery((report) => console.log(report.id, report.status));
 */
export const webhookReceiver = fp<FastifyReceiverOptions>(
  async (fastify, options) => {
    const { path, prefix } = options ?? {};
    // One `fastify.reportkit` per scope: a further receiver there can only get its handlers
    // in its options (else nothing could ever reach it, and its reports would wait forever).
    const decorate = !fastify.hasDecorator("reportkit");
    const takesReports =
      options?.onDelivery !== undefined ||
      options?.onCall !== undefined ||
      options?.onUnsubscribe !== undefined ||
      options?.onEvent !== undefined ||
      options?.queue !== undefined;
    if (!decorate && !takesReports) {
      throw new TypeError(
        'reportkit: this Fastify scope already has a receiver (`fastify.reportkit`), so this one\'s handlers could not be attached. Give them in its options, or register it in a scope of its own and reach it there: `fastify.register(async (scope) => { await scope.register(webhookReceiver); scope.reportkit.onDelivery(fn); }, { prefix: "/other" })`.',
      );
    }
    // Fastify's logger, not core's console default: refusals once a minute, failures each.
    const receiver = adapterReceiver(
      { logger: fastify.log, ...options },
      // Fastify's own register options are the route's, never the receiver's.
      { env: process.env, mountOptions: ["path", "prefix", "logLevel", "logSerializers"] },
    );
    if (decorate) {
      fastify.decorate("reportkit", attachable({}, receiver) as FastifyReportkit);
    }
    // On fastify.close(), before the server stops listening (which waits for every open
    // connection): wait for the reports in flight, their replies closing their connections (a
    // kept-alive one would hold the process up to keepAliveTimeout), then close the stores.
    // Fastify itself answers 503 to requests that arrive meanwhile.
    const shutdown = { closing: false };
    fastify.addHook("preClose", async () => {
      shutdown.closing = true;
      await receiver.close();
    });
    await fastify.register(route, {
      receiver,
      shutdown,
      path: path ?? (prefix === undefined ? "/webhooks" : "/"),
      ...(prefix === undefined ? {} : { prefix }),
    });
  },
  { name: "@reportkit/fastify", fastify: "5.x" },
);

export default webhookReceiver;
