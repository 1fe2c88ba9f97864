import type { ReportKind, UnsubscribePayload } from "@reportkit/wire";
import { describe, expectTypeOf, it } from "vitest";
import type {
  CallPayload,
  DeliveryPayload,
  NotificationPayload,
  PushAttempt,
  PushOutcome,
  PushRequest,
  Sandbox,
  SandboxCallPayload,
  SandboxClick2CallPayload,
  SandboxDeliveryPayload,
} from "./index.js";

describe("sandbox types", () => {
  it("types what sendSms and makeCall return", () => {
    type Sms = ReturnType<Sandbox["sendSms"]>;
    type Call = ReturnType<Sandbox["makeCall"]>;
    expectTypeOf<Sms["report"]>().toEqualTypeOf<SandboxDeliveryPayload>();
    expectTypeOf<Call["report"]>().toEqualTypeOf<SandboxCallPayload>();
    // What the sandbox pushes is a wire payload, the type core's receiver reads.
    expectTypeOf<SandboxDeliveryPayload>().toExtend<DeliveryPayload>();
    expectTypeOf<SandboxCallPayload>().toExtend<CallPayload>();
    expectTypeOf<Sms["outcome"]>().resolves.toEqualTypeOf<PushOutcome | "skipped">();
    expectTypeOf<SandboxDeliveryPayload["units"]>().toEqualTypeOf<number>();
    expectTypeOf<SandboxCallPayload["to"]>().toEqualTypeOf<number>();
    expectTypeOf<SandboxCallPayload["duration"]>().toEqualTypeOf<string>();
    expectTypeOf<PushAttempt["outcome"]>().toEqualTypeOf<
      "delivered" | "retrying" | "dropped" | "skipped"
    >();
    expectTypeOf<PushAttempt["request"]>().toEqualTypeOf<PushRequest>();
    expectTypeOf<PushAttempt["responseBody"]>().toEqualTypeOf<string | null>();
    expectTypeOf<Sandbox["dashboardUrl"]>().toEqualTypeOf<string>();
  });

  it("types a Click2Call, a notification and the push log's kinds", () => {
    type Click2Call = ReturnType<Sandbox["click2Call"]>;
    type Notified = ReturnType<Sandbox["notify"]>;
    expectTypeOf<Click2Call["report"]>().toEqualTypeOf<SandboxClick2CallPayload>();
    expectTypeOf<SandboxClick2CallPayload>().toExtend<CallPayload>();
    expectTypeOf<SandboxClick2CallPayload["to"]>().toEqualTypeOf<number | string>();
    expectTypeOf<Notified["report"]>().toEqualTypeOf<NotificationPayload>();
    expectTypeOf<Notified["subscription"]>().toEqualTypeOf<{
      id: number;
      created: boolean;
    } | null>();
    expectTypeOf<
      Extract<NotificationPayload, { receiver: unknown }>
    >().toExtend<UnsubscribePayload>();
    expectTypeOf<PushAttempt["reportType"]>().toEqualTypeOf<ReportKind>();
    expectTypeOf<PushAttempt["event"]>().toEqualTypeOf<string | null>();
  });

  it("needs a webhook id to send", () => {
    const sandbox = {} as Sandbox;
    // @ts-expect-error webhookId is required
    void (() => sandbox.sendSms({ mobile: "919876543210" }));
    // @ts-expect-error an event is named
    void (() => sandbox.notify({ receiver: "919876543210" }));
    // @ts-expect-error a composed webhook needs a type
    void (() => sandbox.createComposedWebhook({ name: "n", url: "https://a.example/" }));
  });
});
