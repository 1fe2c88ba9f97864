// The provider's raw pages write placeholders "@{{id}}" (field-notes.md, "Composed webhooks"):
// pasted as they are, they are the same template as "{{id}}", in the path, the query and body
// values alike.
import { describe, expect, it } from "vitest";
import { parseTemplate } from "./parse-template.js";
import { renderUrl } from "./template-url.js";

function parsed(input: unknown) {
  const result = parseTemplate(input);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.template;
}

/** What parsing found, without the text as written (which keeps its "@"). */
function found(input: unknown) {
  const { segments, query, bodyValues, variables } = parsed(input);
  return { segments, query, bodyValues, variables };
}

describe("parseTemplate: the @{{name}} form of the provider's raw pages", () => {
  it("reads v2/sms/webhook.md's compose request as written: @{{id}} in the query and the body", () => {
    const escaped = {
      type: "delivery",
      url: "https://www.domain.com/ack/receive?id=@{{id}}",
      body: {
        id: "@{{id}}",
        mobile: "@{{mobile}}",
        message_status: "@{{status}}",
        credits: "@{{credits}}",
      },
    };
    const plain = {
      type: "delivery",
      url: "https://www.domain.com/ack/receive?id={{id}}",
      body: {
        id: "{{id}}",
        mobile: "{{mobile}}",
        message_status: "{{status}}",
        credits: "{{credits}}",
      },
    };
    expect(found(escaped)).toEqual(found(plain));
    expect(found(escaped).query).toEqual([
      { key: "id", placeholder: { variable: "id", field: "id", prefix: "", suffix: "" } },
    ]);
    expect(found(escaped).variables).toEqual(["id", "mobile", "status", "credits"]);
  });

  it("reads the call page's callback URL, the customer's own keys, as {{name}}", () => {
    const url =
      "https://www.domain.com/ack/receive?call_id=@{{id}}&to=@{{to}}&message_status=@{{status}}";
    expect(found({ type: "call", method: "GET", url })).toEqual(
      found({ type: "call", method: "GET", url: url.replaceAll("@{{", "{{") }),
    );
  });

  it("keeps the @ out of a path segment's or a query value's literal text", () => {
    const template = parsed({
      type: "delivery",
      method: "GET",
      url: "/hooks/@{{id}}/m-@{{ mobile }}.json?ref=dlr-@{{status}}&who=a@b",
    });
    expect(template.segments).toEqual([
      { kind: "literal", text: "hooks" },
      { kind: "placeholder", placeholder: { variable: "id", field: "id", prefix: "", suffix: "" } },
      {
        kind: "placeholder",
        placeholder: { variable: "mobile", field: "mobile", prefix: "m-", suffix: ".json" },
      },
    ]);
    expect(template.query).toEqual([
      {
        key: "ref",
        placeholder: { variable: "status", field: "status", prefix: "dlr-", suffix: "" },
      },
    ]);
  });

  it("takes only the one @ right before the braces: a second is literal text", () => {
    const template = parsed({ type: "delivery", url: "/d?i=user@@{{id}}&s={{status}}" });
    expect(template.query[0]?.placeholder).toMatchObject({ variable: "id", prefix: "user@" });
  });

  it("names an unknown variable the same way in either form", () => {
    const problemsOf = (url: string) => {
      const result = parseTemplate({ type: "delivery", url });
      return result.ok ? [] : result.problems;
    };
    expect(problemsOf("/d?i=@{{id}}&s=@{{status}}&x=@{{nope}}")).toEqual(
      problemsOf("/d?i={{id}}&s={{status}}&x={{nope}}"),
    );
    expect(problemsOf("/d?i=@{{id}}&s=@{{status}}&x=@{{nope}}")[0]?.message).toMatch(
      /^Unknown variable \{\{nope\}\} in the url's query parameter "x"/,
    );
  });

  it("refuses in a header and in a body value with other text, as {{name}} is", () => {
    const result = parseTemplate({
      type: "delivery",
      url: "/d?i=@{{id}}",
      body: { s: "state @{{status}}" },
      headers: { "x-id": "@{{id}}" },
    });
    expect(result.ok ? [] : result.problems.map((p) => p.field)).toEqual([
      "body.s",
      "headers.x-id",
    ]);
  });

  it("renders to the filled-in URL, no @ left", () => {
    const template = parsed({
      type: "delivery",
      method: "GET",
      url: "https://x.example/d/@{{id}}?s=@{{status}}&m=@{{mobile}}",
    });
    expect(renderUrl(template, { id: "a:1", status: "DELIVRD", mobile: "" })).toBe(
      "https://x.example/d/a%3A1?s=DELIVRD&m=",
    );
  });
});
