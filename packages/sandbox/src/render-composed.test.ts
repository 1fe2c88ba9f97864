import { describe, expect, it } from "vitest";
import { FieldErrors } from "./field-errors.js";
import { renderComposed, resolveTemplate } from "./render-composed.js";

const vars = {
  id: "b34e35ad-fe34-4a8b-977c-b21cd76cd7d6:1",
  status: "DELIVRD",
  deliv_time: "2021-04-09 16:27:51",
  custom: "a&b=c",
};

function errorsOf(input: Record<string, unknown>): Record<string, readonly string[]> {
  try {
    resolveTemplate(input);
  } catch (error) {
    if (error instanceof FieldErrors) return error.errors;
    throw error;
  }
  throw new Error("expected FieldErrors");
}

describe("resolveTemplate", () => {
  it("applies the defaults (POST, json) and normalizes method and format case", () => {
    expect(
      resolveTemplate({ type: "delivery", url: "https://x.example/{{id}}?s={{status}}" }),
    ).toMatchObject({
      type: "delivery",
      method: "POST",
      url: "https://x.example/{{id}}?s={{status}}",
      format: "json",
    });
    expect(
      resolveTemplate({
        type: "delivery",
        method: "put",
        format: "URLENCODED",
        url: "https://x.example/?ref=dlr-{{id}}&s={{status}}",
      }),
    ).toMatchObject({ method: "PUT", format: "urlencoded" });
  });

  it("rejects variables the report type does not have", () => {
    expect(
      errorsOf({ type: "delivery", url: "https://x.example/?i={{id}}&s={{status}}&d={{duration}}" })
        .url?.[0],
    ).toMatch(
      /Unknown variable \{\{duration\}\} in the url's query parameter "d": a delivery report has/,
    );
    expect(
      Object.keys(
        errorsOf({
          type: "call",
          url: "https://x.example/",
          body: { i: "{{id}}", s: "{{status}}", m: "{{mobile}}" },
        }),
      ),
    ).toEqual(["body.m"]);
  });

  it("rejects a body value that is not exactly one variable, a GET with a body, a placeholder in the host", () => {
    expect(errorsOf({ type: "call", url: "https://x.example/", body: { a: "id={{id}}" } })).toEqual(
      {
        "body.a": [
          'Body key "a" must be exactly one {{variable}} and nothing else, e.g. "{{status}}"; got "id={{id}}".',
        ],
      },
    );
    expect(
      errorsOf({ type: "call", method: "GET", url: "https://x.example/", body: { a: "{{id}}" } }),
    ).toEqual({
      body: [
        'A GET webhook has no body: move its values into the url\'s query string ("?state={{status}}"), or use POST or PUT.',
      ],
    });
    expect(errorsOf({ type: "call", url: "https://{{id}}.example/" })).toEqual({
      url: [
        'The url has a {{variable}} in its host ("https://{{id}}.example"): variables stand in the path and the query only.',
      ],
    });
  });

  it("rejects a template without identity: the receiver would refuse every report", () => {
    expect(
      errorsOf({ type: "call", url: "https://x.example/?to={{to}}&s={{status}}" }).url,
    ).toEqual([
      "A call template must carry one of {{id}}, {{mid}} or {{webhook_id}} in its url or a body value: without one a report cannot be identified, and the receiver refuses it.",
    ]);
    expect(
      errorsOf({ type: "delivery", url: "https://x.example/", body: { i: "{{id}}" } }).body,
    ).toEqual([
      "A delivery template must carry {{status}} in its url or a body value: without it a report cannot be identified, and the receiver refuses it.",
    ]);
  });

  it("rejects a path the sandbox cannot push to, though a receiver takes it", () => {
    expect(errorsOf({ type: "delivery", url: "/dlr?i={{id}}&s={{status}}" }).url?.[0]).toMatch(
      /absolute http or https URL for the sandbox to push to/,
    );
  });

  it("rejects unknown type, method and format, and bad headers", () => {
    const errors = errorsOf({
      type: "sms",
      method: "PATCH",
      format: "xml",
      url: "ftp://x",
      headers: { "bad header": "v", ok: "line\nbreak", id: "{{id}}" },
    });
    expect(Object.keys(errors).sort()).toEqual([
      "format",
      "headers",
      "headers.id",
      "headers.ok",
      "method",
      "type",
      "url",
    ]);
  });
});

describe("renderComposed", () => {
  it("fills the URL with URL-encoded values and sends a GET without a body", async () => {
    const template = resolveTemplate({
      type: "delivery",
      method: "get",
      url: "https://x.example/ack/{{id}}?s={{ status }}&t={{deliv_time}}&c=c-{{custom}}",
    });
    const request = await renderComposed(template, vars, "tok");
    expect(request).toEqual({
      method: "GET",
      url: "https://x.example/ack/b34e35ad-fe34-4a8b-977c-b21cd76cd7d6%3A1?s=DELIVRD&t=2021-04-09%2016%3A27%3A51&c=c-a%26b%3Dc",
      headers: { accept: "*/*", authorization: "Bearer tok" },
    });
  });

  it("sends JSON with the customer's keys, every value a string", async () => {
    const template = resolveTemplate({
      type: "delivery",
      url: "https://x.example/r",
      body: { message_id: "{{id}}", state: "{{status}}" },
    });
    const request = await renderComposed(template, vars, null);
    expect(request.headers).toEqual({ accept: "*/*", "content-type": "application/json" });
    expect(JSON.parse(request.body as string)).toEqual({ message_id: vars.id, state: "DELIVRD" });
  });

  it("sends urlencoded and multipart forms", async () => {
    const body = { message_id: "{{id}}", s: "{{status}}", c: "{{custom}}" };
    const urlencoded = await renderComposed(
      resolveTemplate({
        type: "delivery",
        method: "PUT",
        url: "https://x.example/",
        body,
        format: "urlencoded",
      }),
      vars,
      null,
    );
    expect(urlencoded.method).toBe("PUT");
    expect(urlencoded.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(new URLSearchParams(urlencoded.body as string))).toEqual({
      message_id: vars.id,
      s: "DELIVRD",
      c: "a&b=c",
    });

    const multipart = await renderComposed(
      resolveTemplate({ type: "delivery", url: "https://x.example/", body, format: "form" }),
      vars,
      null,
    );
    const type = multipart.headers["content-type"] as string;
    expect(type).toMatch(/^multipart\/form-data; boundary=/);
    const parsed = await new Response(new Uint8Array(multipart.body as Uint8Array), {
      headers: { "content-type": type },
    }).formData();
    expect(Object.fromEntries(parsed)).toEqual({ message_id: vars.id, s: "DELIVRD", c: "a&b=c" });
  });

  it("lets the template's own headers, sent as written, override the bearer", async () => {
    const template = resolveTemplate({
      type: "delivery",
      method: "GET",
      url: "https://x.example/?i={{id}}&s={{status}}",
      headers: { Authorization: "Token abc", "X-Source": "panel" },
    });
    const request = await renderComposed(template, vars, "tok");
    expect(request.headers).toEqual({
      accept: "*/*",
      authorization: "Token abc",
      "x-source": "panel",
    });
  });
});
