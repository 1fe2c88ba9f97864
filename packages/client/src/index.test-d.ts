import { describe, expectTypeOf, it } from "vitest";
import {
  type ApiError,
  type CallLogPage,
  type CallLogRecord,
  type CallStatusRecord,
  type Client,
  createClient,
  type DlrPage,
  type DlrRecord,
  type DownloadedRecording,
  downloadRecording,
  type RecordedCall,
  type Recording,
  type RecordingErrorReason,
  type RecordingPage,
  type Subscription,
  type Webhook,
  type WebhookPage,
} from "./index.js";

describe("client types", () => {
  it("types a webhook from the schema", () => {
    expectTypeOf<Webhook["id"]>().toEqualTypeOf<string>();
    expectTypeOf<Webhook["status"]>().toEqualTypeOf<0 | 1>();
    expectTypeOf<Webhook["active"]>().toEqualTypeOf<boolean>();
    expectTypeOf<Webhook["secret"]>().toEqualTypeOf<string | null>();
    expectTypeOf<Webhook["verificationCode"]>().toEqualTypeOf<string | null>();
    expectTypeOf<Webhook["createdAt"]>().toEqualTypeOf<Date | null>();
    expectTypeOf<Webhook["raw"]>().toEqualTypeOf<Readonly<Record<string, unknown>>>();
  });

  it("types every call", () => {
    const client = createClient({ baseUrl: "https://x.example/api/v2/", token: "t" });
    expectTypeOf(client).toEqualTypeOf<Client>();
    expectTypeOf(client.webhooks.list()).resolves.toEqualTypeOf<WebhookPage>();
    expectTypeOf(client.webhooks.iterate()).toEqualTypeOf<AsyncIterableIterator<Webhook>>();
    expectTypeOf(client.webhooks.get("id")).resolves.toEqualTypeOf<Webhook>();
    expectTypeOf(client.webhooks.delete("id")).resolves.toEqualTypeOf<void>();
    expectTypeOf<WebhookPage["page"]["total"]>().toEqualTypeOf<number>();
    expectTypeOf<WebhookPage["links"]["next"]>().toEqualTypeOf<string | null>();
    expectTypeOf<ApiError["status"]>().toEqualTypeOf<number>();
    // status is 0 or 1, nothing else
    // @ts-expect-error 2 is not a status
    void client.webhooks.create({ name: "n", uri: "https://a.example/", status: 2 });
    // @ts-expect-error the API requires name and uri on edit
    void client.webhooks.update("id", { status: 0 });
  });
});

describe("pull API types", () => {
  it("types the records and the calls", () => {
    const client = createClient({ baseUrl: "https://x.example/api/v2/", token: "t" });
    expectTypeOf(client.dlr.list({ date: "2024-06-24" })).resolves.toEqualTypeOf<DlrPage>();
    expectTypeOf(client.dlr.iterate({ id: "a:1" })).toEqualTypeOf<
      AsyncIterableIterator<DlrRecord>
    >();
    expectTypeOf<DlrRecord["deliveredAt"]>().toEqualTypeOf<string | null>();
    expectTypeOf<DlrRecord["units"]>().toEqualTypeOf<number | null>();
    expectTypeOf<CallStatusRecord["to"]>().toEqualTypeOf<string | null>();
    expectTypeOf<Subscription["webhookId"]>().toEqualTypeOf<string>();
    // @ts-expect-error a filter is required
    void client.dlr.list({});
    // @ts-expect-error the call-status API has no group filter
    void client.calls.list({ groupId: "g" });
  });
});

describe("voice logs and recordings types", () => {
  it("types the records, the lookup and the download", () => {
    const client = createClient({ baseUrl: "https://x.example/api/v2/", token: "t" });
    expectTypeOf(client.callLogs.list()).resolves.toEqualTypeOf<CallLogPage>();
    expectTypeOf(
      client.recordings.list({ from: "2024-06-24" }),
    ).resolves.toEqualTypeOf<RecordingPage>();
    expectTypeOf(client.recordings.iterate()).toEqualTypeOf<AsyncIterableIterator<Recording>>();
    expectTypeOf<CallLogRecord["duration"]>().toEqualTypeOf<number | null>();
    expectTypeOf<Recording["audio"]>().toEqualTypeOf<string | null>();
    expectTypeOf<Recording["createdAt"]>().toEqualTypeOf<string | null>();
    const call: RecordedCall = { recordingUrl: "https://r.example/a.mp3", endedAt: new Date() };
    expectTypeOf(client.recordings.forCall(call)).resolves.toEqualTypeOf<Recording | null>();
    expectTypeOf(
      downloadRecording(call, new WritableStream<Uint8Array>(), { client }),
    ).resolves.toEqualTypeOf<DownloadedRecording>();
    expectTypeOf<RecordingErrorReason>().toMatchTypeOf<string>();
    // A report's JSON form fits: its times are ISO strings.
    void downloadRecording(
      { recordingUrl: "u", endedAt: "2024-06-24T10:00:00.000Z" },
      async () => {},
    );
    // @ts-expect-error a sink is a WritableStream or a function
    void downloadRecording(call, "file.wav");
    // @ts-expect-error the range starts with `from`
    void client.recordings.list({ from: 20240624 });
  });
});
