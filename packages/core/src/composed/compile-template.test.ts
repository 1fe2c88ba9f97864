// Composed templates are checked when the receiver is built: every problem named with its field,
// in a ComposedTemplateError with a stable code.
import { describe, expect, it } from "vitest";
import {
  AUTH,
  composedReceiver as receiverFor,
  statusAndError as status,
} from "../../../../test/fixtures/receiver-requests.js";
import { TOKEN } from "../../../../test/fixtures/samples.js";
import { createReceiver } from "../receiver/create-receiver.js";
import type { ReceiverOptions } from "../receiver/options.js";
import { ComposedTemplateError } from "./compile-template.js";

describe("composed templates are checked at construction", () => {
  const onDelivery = () => {};
  const onCall = () => {};
  const build = (composed: unknown) =>
    createReceiver({ secret: TOKEN, composed, onDelivery, onCall } as unknown as ReceiverOptions);
  it.each([
    [
      { type: "delivery", url: "/d?i={{id}}&s={{status}}&x={{nope}}" },
      /Unknown variable \{\{nope\}\} in the url's query parameter "x".*\{\{deliv_time\}\}/,
    ],
    [
      { type: "call", url: "/c?s={{status}}&i={{id}}&m={{mobile}}" },
      /Unknown variable \{\{mobile\}\}.*\{\{recording_url\}\}/,
    ],
    [
      { type: "delivery", url: "/d", body: { i: "{{id}}", s: "status: {{status}}" } },
      /Body key "s" must be exactly one \{\{variable\}\}.*; got "status: \{\{status\}\}"\.$/,
    ],
    [
      { type: "delivery", url: "/d", body: { i: "{{id}}", s: "{{status}}{{units}}" } },
      /Body key "s" must be exactly one/,
    ],
    [
      { type: "delivery", method: "GET", url: "/d", body: { i: "{{id}}", s: "{{status}}" } },
      /A GET webhook has no body/,
    ],
    [{ type: "delivery", url: "/d?s={{status}}" }, /must carry \{\{id\}\}/],
    [{ type: "delivery", url: "/d?i={{id}}" }, /must carry \{\{status\}\}/],
    [{ type: "call", url: "/c?i={{id}}" }, /call template must carry \{\{status\}\}/],
    [
      { type: "call", url: "/c?s={{status}}&t={{to}}" },
      /must carry one of \{\{id\}\}, \{\{mid\}\} or \{\{webhook_id\}\}/,
    ],
    [{ type: "sms", url: "/c?s={{status}}" }, /The type must be "delivery" .* or "call"/],
    [
      { type: "call", method: "DELETE", url: "/c?s={{status}}&i={{id}}" },
      /The method must be GET, POST or PUT \(any case\), got "DELETE"\.$/,
    ],
    [
      { type: "delivery", format: "xml", url: "/c?s={{status}}&i={{id}}" },
      /The format must be "json", "form" .* or "urlencoded" .*got "xml"/,
    ],
    [
      { type: "call", url: "www.domain.com/ack/{{status}}" },
      /must be an http or https URL .* or a path starting with "\/"/,
    ],
    [{ type: "call", url: "ftp://x.example/c?s={{status}}&i={{id}}" }, /http or https URL/],
    [{ type: "call", url: "https://{{to}}.example.com/c?s={{status}}" }, /in its host/],
    [{ type: "call", url: "/c?s={{status}}&i={{id}}#{{to}}" }, /#fragment never reaches/],
    [{ type: "call", url: "/c?s={{status}}&t={{to" }, /unbalanced braces/],
    [{ type: "call", url: "/c", body: { s: "{{status}}", t: "{{to}" } }, /Body key "t"/],
    [
      { type: "call", url: "/c/{{id}}-{{to}}?s={{status}}" },
      /path segment .* has 2 \{\{variables\}\}/,
    ],
    [{ type: "call", url: "/c?i={{id}}{{to}}&s={{status}}" }, /query parameter "i" has 2/],
    [{ type: "call", url: "/c?{{id}}=x&s={{status}}" }, /not in names/],
    [{ type: "call", url: "/c?s={{status}}&s={{id}}" }, /"s" appears 2 times/],
    [
      { type: "call", url: "/c?s={{status}}&i={{id}}", headers: { "x-id": "{{id}}" } },
      /header x-id holds a \{\{variable\}\}/,
    ],
    [
      { type: "call", url: "/c?s={{status}}&i={{id}}", headers: { "Content-Type": "text/plain" } },
      /written by the sender/,
    ],
    [
      { type: "call", url: "/c?s={{status}}&i={{id}}", headers: { "bad name": "v" } },
      /not a valid HTTP header name/,
    ],
  ])("%o", (composed, message) => {
    expect(() => build(composed)).toThrow(message);
  });

  it("names every problem with its field, in a TypeError with a stable code", () => {
    let thrown: unknown;
    try {
      build({ type: "call", method: "PATCH", url: "/c?s={{status}}", body: { m: "{{mobile}}" } });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ComposedTemplateError);
    expect(thrown).toBeInstanceOf(TypeError);
    const { code, problems } = thrown as ComposedTemplateError;
    expect(code).toBe("invalid_template");
    expect(problems.map((p) => p.field)).toEqual(["method", "body.m"]);
  });

  it("accepts a method in any case, the three formats and literal text around a query value", async () => {
    for (const format of ["json", "form", "urlencoded"] as const) {
      const { receiver, reports } = receiverFor({
        type: "delivery",
        method: "put",
        url: "/d?ref=dlr-{{id}}.x&s={{status}}",
        body: { n: "{{units}}" },
        format,
      });
      const res = await receiver.handle({
        method: "PUT",
        url: "/d?ref=dlr-a%3A1.x&s=DELIVRD",
        headers: { ...AUTH, "content-type": "application/x-www-form-urlencoded" },
        body: "n=2",
      });
      expect(res.status).toBe(200);
      expect(reports).toHaveLength(1);
      expect(reports[0]).toMatchObject({ id: "a:1", status: "DELIVRD", units: 2 });
      const wrong = await status(receiver, {
        method: "PUT",
        url: "/d?ref=a%3A1&s=DELIVRD",
        headers: { ...AUTH, "content-type": "application/x-www-form-urlencoded" },
        body: "n=2",
      });
      expect(wrong.status).toBe(400);
      expect(wrong.error?.message).toContain('"dlr-{{id}}.x"');
    }
  });

  it("needs the handler for the template's kind", () => {
    expect(() =>
      createReceiver({
        secret: TOKEN,
        composed: { type: "call", url: "/c?s={{status}}&i={{id}}" },
        onDelivery,
      } as never),
    ).toThrow(/give `onCall`/);
  });
});
