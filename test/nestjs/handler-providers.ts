// Providers whose decorated methods are the receiver's handlers, built around given functions.
import { Injectable, type Type } from "@nestjs/common";
import {
  type CallReport,
  type DeliveryReport,
  type EventReport,
  OnCall,
  OnDelivery,
  OnEvent,
  OnUnsubscribe,
  type UnsubscribeReport,
} from "@reportkit/nestjs";

type Fn = (report: never, ctx: never) => unknown;

/** A provider with a decorated method for each function given (`@OnDelivery(name)`, ...). */
export function handlerProviders(
  handlers: { onDelivery?: Fn; onCall?: Fn; onUnsubscribe?: Fn; onEvent?: Fn },
  name?: string,
): Type[] {
  const providers: Type[] = [];
  const { onDelivery, onCall, onUnsubscribe, onEvent } = handlers;
  if (onUnsubscribe !== undefined) {
    @Injectable()
    class UnsubscribeHandlers {
      @OnUnsubscribe(name)
      unsubscribed(report: UnsubscribeReport) {
        return (onUnsubscribe as Fn)(report as never, undefined as never);
      }
    }
    providers.push(UnsubscribeHandlers);
  }
  if (onEvent !== undefined) {
    @Injectable()
    class EventHandlers {
      @OnEvent(name)
      happened(report: EventReport) {
        return (onEvent as Fn)(report as never, undefined as never);
      }
    }
    providers.push(EventHandlers);
  }
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
