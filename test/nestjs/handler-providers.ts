// Providers whose decorated methods are the receiver's handlers, built around given functions.
import { Injectable, type Type } from "@nestjs/common";
import { type CallReport, type DeliveryReport, OnCall, OnDelivery } from "@reportkit/nestjs";

type Fn = (report: never, ctx: never) => unknown;

/** A provider with `@OnDelivery(name)`, one with `@OnCall(name)`, for the functions given. */
export function handlerProviders(
  handlers: { onDelivery?: Fn; onCall?: Fn },
  name?: string,
): Type[] {
  const providers: Type[] = [];
  const { onDelivery, onCall } = handlers;
  if (onDelivery !== undefined) {
    @Injectable()
    class DeliveryHandlers {
      @OnDelivery(name)
      delivered(report: DeliveryReport) {
        return (onDelivery as Fn)(report as never, undefined as never);
      }
    }
    providers.push(DeliveryHandlers);
  }
  if (onCall !== undefined) {
    @Injectable()
    class CallHandlers {
      @OnCall(name)
      called(report: CallReport) {
        return (onCall as Fn)(report as never, undefined as never);
      }
    }
    providers.push(CallHandlers);
  }
  return providers;
}
