// Generated composed templates and push overrides for the grammar property of
// composed-grammar.test.ts: templates that place every variable of their type anywhere a
// template may (path, query, body), with literal text around them.
import { CALL_VARIABLES, DELIVERY_VARIABLES } from "@reportkit/wire";
import fc from "fast-check";

export type Where = "path" | "query" | "body";
export interface Placement {
  variable: string;
  where: Where;
  prefix: string;
  suffix: string;
}
export interface Generated {
  template: Record<string, unknown>;
  placements: Placement[];
}

/** Literal text around a placeholder or in a segment: URL-safe, encoded, non-ASCII, spaces. */
const literal = fc.oneof(
  fc.stringMatching(/^[a-zA-Z0-9_.~-]{0,5}$/),
  fc.constantFrom("dlr-", ".json", "é", "a b", "%41", "x+y", "ok:"),
);
const key = fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/);

function placementsOf(type: "delivery" | "call", method: string) {
  const names = Object.keys(type === "call" ? CALL_VARIABLES : DELIVERY_VARIABLES);
  const identity =
    type === "delivery"
      ? fc.constant(["id", "status"])
      : fc.constantFrom("id", "mid", "webhook_id").map((v) => ["status", v]);
  const places: Where[] =
    method.toUpperCase() === "GET" ? ["path", "query"] : ["path", "query", "body"];
  const place = (variable: string) =>
    fc.record({
      variable: fc.constant(variable),
      where: fc.constantFrom(...places),
      prefix: literal,
      suffix: literal,
    });
  return fc
    .tuple(identity, fc.subarray(names))
    .map(([required, more]) => [...new Set([...required, ...more])])
    .chain((variables) => fc.tuple(...variables.map(place)));
}

/**
 * Valid composed templates, each with where it placed each variable; their URLs on the origin
 * `originOf()` gives when a template is generated (a server that starts before the test).
 */
export function validTemplates(originOf: () => string): fc.Arbitrary<Generated> {
  return fc
    .record({
      type: fc.constantFrom("delivery" as const, "call" as const),
      method: fc.constantFrom("GET", "POST", "PUT", "get", "post", "Put", undefined),
      format: fc.constantFrom("json", "form", "urlencoded", "FORM", undefined),
    })
    .chain(({ type, method, format }) =>
      fc.record({
        type: fc.constant(type),
        method: fc.constant(method),
        format: fc.constant(format),
        placements: placementsOf(type, method ?? "POST"),
        literalSegments: fc.array(fc.stringMatching(/^[a-z0-9-]{1,6}$/), { maxLength: 2 }),
        literalQuery: fc.dictionary(key, fc.stringMatching(/^[a-z0-9]{0,4}$/), { maxKeys: 2 }),
        keys: fc.uniqueArray(key, { minLength: 20, maxLength: 20 }),
        trailingSlash: fc.boolean(),
        spaced: fc.boolean(),
        headers: fc.dictionary(
          fc.stringMatching(/^x-[a-z]{1,8}$/),
          fc.stringMatching(/^[A-Za-z0-9 ]{0,10}$/),
          { maxKeys: 2 },
        ),
      }),
    )
    .map((g) => {
      const braces = (v: string) => (g.spaced ? `{{ ${v} }}` : `{{${v}}}`);
      const keys = [...g.keys];
      const taken = new Set(Object.keys(g.literalQuery));
      const nextKey = () => {
        let next = keys.shift() as string;
        while (taken.has(next)) next = keys.shift() as string;
        taken.add(next);
        return next;
      };
      const segments = [...g.literalSegments];
      const query: string[] = Object.entries(g.literalQuery).map(([k, v]) => `${k}=${v}`);
      const body: Record<string, string> = {};
      for (const p of g.placements) {
        if (p.where === "path") segments.push(`${p.prefix}${braces(p.variable)}${p.suffix}`);
        else if (p.where === "query") {
          query.push(`${nextKey()}=${p.prefix}${braces(p.variable)}${p.suffix}`);
        } else body[nextKey()] = braces(p.variable);
      }
      const path = `/${segments.join("/")}${g.trailingSlash && segments.length > 0 ? "/" : ""}`;
      const template: Record<string, unknown> = {
        type: g.type,
        url: `${originOf()}${path}${query.length > 0 ? `?${query.join("&")}` : ""}`,
      };
      if (g.method !== undefined) template.method = g.method;
      if (g.format !== undefined) template.format = g.format;
      if (Object.keys(body).length > 0) template.body = body;
      if (Object.keys(g.headers).length > 0) template.headers = g.headers;
      return {
        template,
        placements: g.placements.map((p) =>
          p.where === "body" ? { ...p, prefix: "", suffix: "" } : p,
        ),
      };
    });
}

/** A value a report may carry in any text field: any single line, never a dot segment alone. */
const text = (maxLength: number) =>
  fc
    .string({ unit: "grapheme", maxLength })
    .filter((s) => !/[\r\n]/.test(s) && s !== "." && s !== "..");
const digits = (min: number, max: number) =>
  fc.stringMatching(new RegExp(`^[1-9][0-9]{${min - 1},${max - 1}}$`));
const status = fc.stringMatching(/^[A-Z_]{1,12}$/);

export const smsOverrides = fc.record(
  {
    mobile: digits(8, 15),
    status,
    custom: text(20),
    units: fc.integer({ min: 1, max: 9 }),
    credits: fc.constantFrom("0.25", "1.5", "0", 2),
  },
  { requiredKeys: [] },
);
export const callOverrides = fc.record(
  {
    to: digits(3, 15),
    from: digits(3, 15),
    bridge: digits(3, 15),
    status,
    duration: fc.integer({ min: 0, max: 7200 }),
    flowId: fc.integer({ min: 0, max: 99999 }),
    source: fc.stringMatching(/^[A-Z]{2,5}$/),
    mid: text(40).filter((s) => s.trim() !== ""),
    recordingUrl: fc.option(fc.webUrl(), { nil: null }),
  },
  { requiredKeys: [] },
);
