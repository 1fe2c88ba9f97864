import type { DiscoveryService } from "@nestjs/core";
import { DECORATOR_NAMES, HANDLER_METADATA, type HandlerKind } from "./decorators.js";
import { missingMetadataMessage, parametersWithoutToken } from "./injection-metadata.js";

/** A decorated method, bound to its provider instance. */
export interface FoundHandler {
  where: string;
  handler: (report: never, ctx: never) => unknown;
}

/**
 * The `@OnDelivery(name)`, `@OnCall(name)`, `@OnUnsubscribe(name)` and `@OnEvent(name)` methods among the app's providers, for the
 * receiver `name`. Two of one kind are an error naming both, at start-up; so is a handler
 * provider whose constructor parameters Nest could not inject (no decorator metadata).
 */
export function discoverHandlers(
  discovery: DiscoveryService,
  name: string,
): Partial<Record<HandlerKind, FoundHandler>> {
  const found: Partial<Record<HandlerKind, FoundHandler>> = {};
  const seen = new Set<object>();
  for (const wrapper of discovery.getProviders()) {
    const instance: unknown = wrapper.instance;
    // A provider exported to several modules is listed once per module.
    if (typeof instance !== "object" || instance === null || seen.has(instance)) continue;
    seen.add(instance);
    for (const [key, method] of methodsOf(instance)) {
      for (const kind of Object.keys(HANDLER_METADATA) as HandlerKind[]) {
        if ((method as unknown as Record<symbol, unknown>)[HANDLER_METADATA[kind]] !== name)
          continue;
        const where = `${instance.constructor.name}.${key}`;
        const before = found[kind];
        if (before !== undefined) {
          const decorator = DECORATOR_NAMES[kind];
          throw new Error(
            `reportkit: two ${decorator}(${JSON.stringify(name)}) methods, ${before.where} and ${where}; a receiver takes one handler per kind. Remove one, or give each its own receiver: ${decorator}("other") with ReportkitModule.forRoot({ name: "other", path: "/other" }).`,
          );
        }
        // A class provider (not useValue / useFactory): Nest constructed it from its metadata.
        if (!wrapper.isNotMetatype && wrapper.metatype === instance.constructor) {
          const missing = parametersWithoutToken(instance.constructor);
          if (missing.length > 0) {
            throw new Error(missingMetadataMessage(instance.constructor.name, where, missing));
          }
        }
        found[kind] = { where, handler: method.bind(instance) };
      }
    }
  }
  return found;
}

/** The instance's methods, its class's and those it inherits (not Object's); no getter is run. */
function methodsOf(instance: object): Map<string, (...args: never[]) => unknown> {
  const methods = new Map<string, (...args: never[]) => unknown>();
  for (let proto = Object.getPrototypeOf(instance); proto && proto !== Object.prototype; ) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      const value = Object.getOwnPropertyDescriptor(proto, key)?.value;
      if (key !== "constructor" && !methods.has(key) && typeof value === "function") {
        methods.set(key, value);
      }
    }
    proto = Object.getPrototypeOf(proto);
  }
  return methods;
}
