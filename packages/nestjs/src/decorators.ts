import type {
  CallReport,
  DeliveryReport,
  EventReport,
  ReportContext,
  UnsubscribeReport,
} from "@reportkit/core";

/** Where a handler method's receiver name is kept, one key per kind. */
export const HANDLER_METADATA = {
  onDelivery: Symbol.for("reportkit:onDelivery"),
  onCall: Symbol.for("reportkit:onCall"),
  onUnsubscribe: Symbol.for("reportkit:onUnsubscribe"),
  onEvent: Symbol.for("reportkit:onEvent"),
} as const;

/** Each kind's decorator, as a message names it. */
export const DECORATOR_NAMES = {
  onDelivery: "@OnDelivery",
  onCall: "@OnCall",
  onUnsubscribe: "@OnUnsubscribe",
  onEvent: "@OnEvent",
} as const satisfies Record<keyof typeof HANDLER_METADATA, string>;

export type HandlerKind = keyof typeof HANDLER_METADATA;

/** A method that may take reports of type R: a Promise or a value, with `ctx`. */
type ReportMethod<R> = (report: R, ctx: ReportContext) => unknown;

type HandlerDecorator<R> = <M extends ReportMethod<R>>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<M>,
) => void;

function handlerDecorator<R>(kind: HandlerKind, receiver: string): HandlerDecorator<R> {
  return (_target, _key, descriptor) => {
    if (typeof descriptor.value !== "function") {
      throw new TypeError(`reportkit: ${DECORATOR_NAMES[kind]}() goes on a method.`);
    }
    Object.defineProperty(descriptor.value, HANDLER_METADATA[kind], { value: receiver });
  };
}

/**
 * Marks a provider's method as the SMS delivery report handler of the receiver `name` (default
 * "default": a `ReportkitModule` without `name`). Called with the typed report and `ctx`, on the
 * provider instance, so its injected dependencies are there. One per kind and receiver.
 *
 * @example
 * @Injectable()
 * export class Reports {
 *   constructor(@Inject(Db) private readonly db: Db) {}
 *   @OnDelivery()
 *   async delivered(report: DeliveryReport) {
 *     await this.db.save(report.id, report.status);
 *   }
 * }
 */
export function OnDelivery(name = "default"): HandlerDecorator<DeliveryReport> {
  return handlerDecorator("onDelivery", name);
}

/** Marks a provider's method as the call report handler of the receiver `name`, as `@OnDelivery`. */
export function OnCall(name = "default"): HandlerDecorator<CallReport> {
  return handlerDecorator("onCall", name);
}

/** Marks a provider's method as the opt-out handler of the receiver `name`, as `@OnDelivery`. */
export function OnUnsubscribe(name = "default"): HandlerDecorator<UnsubscribeReport> {
  return handlerDecorator("onUnsubscribe", name);
}

/** Marks a provider's method as the handler of other events of the receiver `name`, as `@OnDelivery`. */
export function OnEvent(name = "default"): HandlerDecorator<EventReport> {
  return handlerDecorator("onEvent", name);
}
