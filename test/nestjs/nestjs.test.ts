// @reportkit/nestjs in real NestJS 12 apps, on both platforms, over a real socket. Every app
// here has a global guard that refuses everything, and a global pipe, interceptor and exception
// filter that would change every reply (see nest-app.ts).
import "reflect-metadata";
import { Controller, Get, Inject, Injectable, Module, type Type } from "@nestjs/common";
import {
  type CallReport,
  type DeliveryReport,
  OnCall,
  OnDelivery,
  type ReportContext,
  ReportkitModule,
} from "@reportkit/nestjs";
import { afterEach, describe, expect, it } from "vitest";
import { SAMPLE_CALL_TEXT, SAMPLE_DLR_TEXT, TOKEN } from "../fixtures/samples.js";
import { BIG, head, push } from "../support/raw-push.js";
import { type Platform, type RunningNestApp, startNestApp } from "./nest-app.js";

/** A dependency the handler provider gets injected, where the reports land. */
@Injectable()
class Inbox {
  readonly deliveries: DeliveryReport[] = [];
  readonly calls: CallReport[] = [];
  failuresLeft = 0;
}

@Injectable()
class ReportHandlers {
  constructor(@Inject(Inbox) private readonly inbox: Inbox) {}

  @OnDelivery()
  delivered(report: DeliveryReport, ctx: ReportContext) {
    expect(ctx.headers.get("authorization")).toBeNull(); // redacted, as everywhere
    if (this.inbox.failuresLeft > 0) {
      this.inbox.failuresLeft--;
      throw new Error("database down");
    }
    this.inbox.deliveries.push(report);
  }

  @OnCall()
  async called(report: CallReport) {
    this.inbox.calls.push(report);
  }
}

@Controller("orders")
class OrdersController {
  @Get()
  list() {
    return [];
  }
}

const running: RunningNestApp[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((app) => app.close()));
});

async function start(
  platform: Platform,
  options: Parameters<typeof startNestApp>[0]["imports"],
  providers: Type[] = [Inbox, ReportHandlers],
) {
  const app = await startNestApp({ platform, imports: options, providers });
  running.push(app);
  return app;
}

function post(origin: string, body: string, token = TOKEN, path = "/webhooks") {
  return fetch(`${origin}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body,
  });
}

describe.each(["express", "fastify"] as const)(
  "@reportkit/nestjs on the %s platform",
  (platform) => {
    it("the DLR and the call report reach the decorated methods, typed, with their injected dependency", async () => {
      const { app, origin } = await start(platform, [ReportkitModule.forRoot({ secret: TOKEN })]);
      const dlr = await post(origin, SAMPLE_DLR_TEXT);
      expect(dlr.status).toBe(200);
      expect(await dlr.json()).toEqual({ ok: true });
      expect((await post(origin, SAMPLE_CALL_TEXT)).status).toBe(200);
      const inbox = app.get(Inbox);
      expect(inbox.deliveries).toHaveLength(1);
      expect(inbox.deliveries[0]?.deliveredAt).toEqual(new Date("2021-04-09T10:57:51.000Z"));
      expect(inbox.calls).toHaveLength(1);
      expect(inbox.calls[0]?.duration).toBe(23);
    });

    it("401 without the right token, 400 for no report, 200 duplicate for a retry already processed", async () => {
      const { app, origin } = await start(platform, [ReportkitModule.forRoot({ secret: TOKEN })]);
      const wrong = await post(origin, SAMPLE_DLR_TEXT, "wrong");
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get("www-authenticate")).toBe(
        'Bearer realm="reportkit", error="invalid_token"',
      );
      const empty = await post(origin, "{}");
      expect(empty.status).toBe(400);
      expect((await empty.json()).error.code).toBe("unrecognized_report");
      expect((await post(origin, SAMPLE_DLR_TEXT)).status).toBe(200);
      const retry = await post(origin, SAMPLE_DLR_TEXT);
      expect(retry.status).toBe(200);
      expect(await retry.json()).toEqual({ ok: true, duplicate: true });
      expect(app.get(Inbox).deliveries).toHaveLength(1);
    });

    it("401 before the body: a request without the secret is refused before its body is read, and the connection closed (issue 42, 2)", async () => {
      const { origin } = await start(platform, [ReportkitModule.forRoot({ secret: TOKEN })]);
      const max = 64 * 1024 * 1024;
      const port = Number(new URL(origin).port);
      const pushed = await push(
        port,
        head(`authorization: Bearer wrong\r\ncontent-length: ${BIG}\r\n`),
        max,
      );
      expect(pushed.status).toBe(401);
      expect(pushed.closedByServer).toBe(true);
      expect(pushed.written).toBeLessThan(max);
    });

    it("a method that throws: 500 handler_failed, and the provider's retry runs it again", async () => {
      const { app, origin } = await start(platform, [
        ReportkitModule.forRoot({ secret: TOKEN, logger: false }),
      ]);
      app.get(Inbox).failuresLeft = 1;
      const failed = await post(origin, SAMPLE_DLR_TEXT);
      expect(failed.status).toBe(500);
      const body = await failed.text();
      expect(JSON.parse(body).error.code).toBe("handler_failed");
      expect(body).not.toContain("database down");
      const retry = await post(origin, SAMPLE_DLR_TEXT);
      expect(retry.status).toBe(200);
      expect(await retry.json()).toEqual({ ok: true });
      expect(app.get(Inbox).deliveries).toHaveLength(1);
    });

    it("the global guard that refuses everything guards the app's routes, not reportkit's", async () => {
      const { origin } = await start(
        platform,
        [ReportkitModule.forRoot({ secret: TOKEN })],
        [Inbox, ReportHandlers],
      );
      expect((await post(origin, SAMPLE_DLR_TEXT)).status).toBe(200);
      // The same app's own controller is guarded (and its filter answers 418 for the 403).
      @Module({ controllers: [OrdersController] })
      class OrdersModule {}
      const withController = await start(platform, [
        ReportkitModule.forRoot({ secret: TOKEN }),
        OrdersModule,
      ]);
      expect((await fetch(`${withController.origin}/orders`)).status).toBe(418);
      expect((await post(withController.origin, SAMPLE_DLR_TEXT)).status).toBe(200);
    });

    it("two modules on two paths, each with its token and its own methods (two provider accounts)", async () => {
      const seen: string[] = [];
      @Injectable()
      class AccountB {
        @OnDelivery("b")
        delivered(report: DeliveryReport) {
          seen.push(`b:${report.id}`);
        }
      }
      const { app, origin } = await start(
        platform,
        [
          ReportkitModule.forRoot({ secret: TOKEN, path: "/webhooks/a" }),
          ReportkitModule.forRootAsync({
            useFactory: async () => ({
              name: "b",
              path: "/webhooks/b",
              secret: "token-of-account-b",
            }),
          }),
        ],
        [Inbox, ReportHandlers, AccountB],
      );
      expect((await post(origin, SAMPLE_DLR_TEXT, TOKEN, "/webhooks/a")).status).toBe(200);
      expect(
        (await post(origin, SAMPLE_DLR_TEXT, "token-of-account-b", "/webhooks/b")).status,
      ).toBe(200);
      expect((await post(origin, SAMPLE_DLR_TEXT, TOKEN, "/webhooks/b")).status).toBe(401);
      expect(
        (await post(origin, SAMPLE_CALL_TEXT, "token-of-account-b", "/webhooks/b")).status,
      ).toBe(200);
      expect(app.get(Inbox).deliveries).toHaveLength(1);
      expect(app.get(Inbox).calls).toHaveLength(0); // account b has no @OnCall("b")
      expect(seen).toEqual(["b:b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1"]);
    });

    it("forRootAsync: options from a factory with injected dependencies", async () => {
      @Injectable()
      class Settings {
        readonly token = TOKEN;
        readonly path = "/hooks/dlr";
      }
      @Module({ providers: [Settings], exports: [Settings] })
      class SettingsModule {}
      const { origin } = await start(platform, [
        ReportkitModule.forRootAsync({
          imports: [SettingsModule],
          inject: [Settings],
          useFactory: (settings: Settings) => ({ secret: settings.token, path: settings.path }),
        }),
      ]);
      expect((await post(origin, SAMPLE_DLR_TEXT, TOKEN, "/hooks/dlr")).status).toBe(200);
      expect((await post(origin, SAMPLE_DLR_TEXT, TOKEN, "/webhooks")).status).toBe(418); // the app's 404, filtered
    });

    it("no decorated method: 503 no_handler with Retry-After", async () => {
      const { origin } = await start(
        platform,
        [ReportkitModule.forRoot({ secret: TOKEN, logger: false })],
        [],
      );
      const reply = await post(origin, SAMPLE_DLR_TEXT);
      expect(reply.status).toBe(503);
      expect(reply.headers.get("retry-after")).toMatch(/^\d+$/);
      expect((await reply.json()).error.code).toBe("no_handler");
    });

    it("two methods for the same kind: the app does not start, and the error names both", async () => {
      @Injectable()
      class MoreHandlers {
        @OnDelivery()
        alsoDelivered() {}
      }
      await expect(
        startNestApp({
          platform,
          imports: [ReportkitModule.forRoot({ secret: TOKEN })],
          providers: [Inbox, ReportHandlers, MoreHandlers],
        }),
      ).rejects.toThrow(
        /two @OnDelivery\("default"\) methods, (ReportHandlers\.delivered and MoreHandlers\.alsoDelivered|MoreHandlers\.alsoDelivered and ReportHandlers\.delivered)/,
      );
    });

    it("no token anywhere: the app does not start, and the error says how to give one", async () => {
      const before = process.env.REPORTKIT_SECRET;
      delete process.env.REPORTKIT_SECRET;
      try {
        await expect(
          startNestApp({ platform, imports: [ReportkitModule.forRoot()], providers: [] }),
        ).rejects.toThrow(/no secret given.*REPORTKIT_SECRET/);
      } finally {
        if (before !== undefined) process.env.REPORTKIT_SECRET = before;
      }
    });
  },
);
