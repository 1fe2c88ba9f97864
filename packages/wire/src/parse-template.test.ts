import { describe, expect, it } from "vitest";
import { parseTemplate } from "./parse-template.js";
import type { TemplateProblem } from "./template-types.js";
import { renderUrl } from "./template-url.js";
import { composedValues } from "./variables.js";

function parsed(input: unknown) {
  const result = parseTemplate(input);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.template;
}

function problems(input: unknown): readonly TemplateProblem[] {
  const result = parseTemplate(input);
  if (result.ok) throw new Error("expected problems");
  return result.problems;
}

describe("parseTemplate: the normalized form", () => {
  it("records where each variable stands, literal text around it decoded", () => {
    const template = parsed({
      type: "delivery",
      method: " put ",
      format: "Form",
      url: " https://example.com/hooks/m-{{mobile}}.json/a%20b/?ref=dlr-{{ id }}&x=1&s=a+{{status}}%21 ",
      body: { at: " {{deliv_at}} " },
      headers: { "X-Api-Key": "k" },
    });
    expect(template).toEqual({
      type: "delivery",
      method: "PUT",
      format: "form",
      url: "https://example.com/hooks/m-{{mobile}}.json/a%20b/?ref=dlr-{{ id }}&x=1&s=a+{{status}}%21",
      body: { at: " {{deliv_at}} " },
      headers: { "X-Api-Key": "k" },
      path: "/hooks/m-{{mobile}}.json/a%20b/",
      segments: [
        { kind: "literal", text: "hooks" },
        {
          kind: "placeholder",
          placeholder: { variable: "mobile", field: "mobile", prefix: "m-", suffix: ".json" },
        },
        { kind: "literal", text: "a b" },
      ],
      query: [
        { key: "ref", placeholder: { variable: "id", field: "id", prefix: "dlr-", suffix: "" } },
        {
          key: "s",
          placeholder: { variable: "status", field: "status", prefix: "a ", suffix: "!" },
        },
      ],
      bodyValues: [
        {
          key: "at",
          placeholder: { variable: "deliv_at", field: "deliv_at", prefix: "", suffix: "" },
        },
      ],
      variables: ["mobile", "id", "status", "deliv_at"],
    });
  });

  it("defaults to POST and json; null is absent; a call's {{id}} is its mid", () => {
    const template = parsed({
      type: "call",
      method: null,
      format: null,
      body: null,
      headers: null,
      url: "/c?i={{id}}&s={{status}}",
    });
    expect(template).toMatchObject({ method: "POST", format: "json", path: "/c" });
    expect(template.query[0]?.placeholder.field).toBe("mid");
    expect(template).not.toHaveProperty("body");
  });

  it("takes {{mid}} or {{webhook_id}} as a call's identity too", () => {
    expect(parsed({ type: "call", url: "/c/{{webhook_id}}?s={{status}}" }).variables).toEqual([
      "webhook_id",
      "status",
    ]);
    expect(parsed({ type: "call", url: "/c", body: { m: "{{mid}}", s: "{{status}}" } }).type).toBe(
      "call",
    );
  });
});

describe("parseTemplate: every problem, by field", () => {
  it("names each field with a message saying what and how", () => {
    expect(
      problems({
        type: "sms",
        method: 1,
        format: "xml",
        url: "/d?s={{status}}",
        body: [],
        headers: "x",
      }),
    ).toEqual([
      {
        field: "type",
        message:
          'The type must be "delivery" (SMS delivery reports) or "call" (call reports), got "sms": a template carries no discriminator, so it must say which report it sends.',
      },
      { field: "method", message: "The method must be GET, POST or PUT (any case), got 1." },
      {
        field: "format",
        message:
          'The format must be "json", "form" (multipart/form-data) or "urlencoded" (application/x-www-form-urlencoded), got "xml".',
      },
      {
        field: "body",
        message:
          'The body must be an object of key: "{{variable}}" pairs, e.g. { "msg_id": "{{id}}" }, got an array.',
      },
      {
        field: "headers",
        message:
          'The headers must be an object of name: value pairs, e.g. { "x-api-key": "..." }, got "x".',
      },
    ]);
  });

  it("refuses a field it does not know, suggesting the one meant", () => {
    expect(
      problems({
        type: "delivery",
        metod: "GET",
        Url: "/d",
        url: "/d?i={{id}}&s={{status}}",
        x: 1,
      }),
    ).toEqual([
      {
        field: "metod",
        message:
          'Unknown template field "metod" (did you mean "method"?): a composed template has "type", "method", "url", "body", "format" and "headers".',
      },
      {
        field: "Url",
        message:
          'Unknown template field "Url" (did you mean "url"?): a composed template has "type", "method", "url", "body", "format" and "headers".',
      },
      {
        field: "x",
        message:
          'Unknown template field "x": a composed template has "type", "method", "url", "body", "format" and "headers".',
      },
    ]);
  });

  it("is an object, or one problem saying so", () => {
    expect(problems("https://x")).toEqual([
      {
        field: "template",
        message:
          'A composed template must be an object like { type, method, url, body, format, headers }, got "https://x".',
      },
    ]);
  });

  it("refuses what a receiver could not read back", () => {
    const fieldsOf = (input: object) => problems(input).map((p) => p.field);
    expect(fieldsOf({ type: "delivery", url: "" })).toEqual(["url"]);
    expect(fieldsOf({ type: "delivery", url: "//host/d?i={{id}}&s={{status}}" })).toEqual(["url"]);
    expect(
      fieldsOf({ type: "delivery", url: "/d?i={{id}}&s={{status}}", body: { "": "{{id}}" } }),
    ).toEqual(["body"]);
    expect(
      fieldsOf({
        type: "delivery",
        url: "/d?i={{id}}&s={{status}}",
        headers: { "X-A": "1", "x-a": "2", "content-length": "1", "x-b": "a\r\nb" },
      }),
    ).toEqual(["headers.x-a", "headers.content-length", "headers.x-b"]);
    // A problem in a value is not reported again as a missing identity.
    expect(fieldsOf({ type: "delivery", url: "/d?i={{id}}", body: { s: "s={{status}}" } })).toEqual(
      ["body.s"],
    );
    expect(
      fieldsOf({ type: "delivery", url: "/d?i={{id}}", body: { s: "{{constructor}}" } }),
    ).toEqual(["body.s"]);
  });
});

describe("renderUrl and composedValues", () => {
  it("fills each placeholder with its value URL-encoded, absent ones empty", () => {
    const template = parsed({
      type: "delivery",
      method: "GET",
      url: "https://x.example/d/{{id}}?s={{status}}&c=c-{{ custom }}&m={{mobile}}",
    });
    expect(renderUrl(template, { id: "a/1:2", status: "DELIVRD", custom: "a&b=c d" })).toBe(
      "https://x.example/d/a%2F1%3A2?s=DELIVRD&c=c-a%26b%3Dc%20d&m=",
    );
  });

  it("gives each variable as the provider fills it: strings, numbers in decimal, absent as empty", () => {
    expect(
      composedValues("call", { status: "ANSWER", to: 919876543210, mid: "m-1", duration: "23" }),
    ).toEqual({
      id: "m-1",
      webhook_id: "",
      mid: "m-1",
      bridge: "",
      from: "",
      to: "919876543210",
      start_at: "",
      end_at: "",
      duration: "23",
      flow_id: "",
      status: "ANSWER",
      source: "",
      recording_url: "",
      billing: "",
      status1: "",
      status2: "",
      hangup_by: "",
      unixtime: "",
      date: "",
    });
    expect(
      composedValues("delivery", { id: "x:1", mobile: 91, status: "DELIVRD", units: 2 }),
    ).toMatchObject({ id: "x:1", mobile: "91", units: "2", sent_time: "", custom: "" });
  });
});
