// The documented bodies beyond delivery and call reports, held against the provider's pages
// (test/fixtures/provider-samples.ts, byte for byte): the same fields in the same order, the
// same values but where a page masks digits ("917002088xxx") or lists choices in one string.
import { describe, expect, it } from "vitest";
import { PROVIDER_SAMPLES } from "../../../test/fixtures/provider-samples.js";
import {
  DOCUMENTED_CLICK2CALL_SAMPLE,
  DOCUMENTED_CONTACT_UPDATE_SAMPLE,
  DOCUMENTED_LINK_VISIT_SAMPLE,
  DOCUMENTED_MESSAGE_IN_SAMPLE,
  DOCUMENTED_MESSAGE_STATUS_SAMPLE,
  DOCUMENTED_UNSUBSCRIBE_SAMPLE,
  PROVIDER_EVENTS,
} from "./index.js";

/** A page's sample as data: its trailing commas and its string left open mended. */
function page(name: string): Record<string, unknown> {
  const text = PROVIDER_SAMPLES.find((s) => s.name === name)?.text ?? "{}";
  return JSON.parse(text.replace('"23.3.1,', '"23.3.1",').replace(/,(\s*[}\]])/g, "$1"));
}

/** Every key path and its value, in order (arrays by index). */
function leaves(value: unknown, path = ""): [string, unknown][] {
  if (value === null || typeof value !== "object") return [[path, value]];
  return Object.entries(value).flatMap(([key, inner]) =>
    leaves(inner, path === "" ? key : `${path}.${key}`),
  );
}

// Masked digits, a page's list of choices, and the times of a status the sample's one reached.
const MASKED = /x{3}|X{3}|\|/;

describe.each([
  ["Click2Call report", DOCUMENTED_CLICK2CALL_SAMPLE, ["unixtime", "recording_url"]],
  ["sms:unsubscription", DOCUMENTED_UNSUBSCRIBE_SAMPLE, []],
  ["whatsapp:message:status", DOCUMENTED_MESSAGE_STATUS_SAMPLE, ["payload.read_at"]],
  ["vmn:message:in", DOCUMENTED_MESSAGE_IN_SAMPLE, []],
  ["contacts:subscriber:subscription (2)", DOCUMENTED_CONTACT_UPDATE_SAMPLE, []],
  ["smart-link visit", DOCUMENTED_LINK_VISIT_SAMPLE, []],
] as const)("the documented %s", (name, sample, changed) => {
  it("has the page's fields in its order, and its values but masked ones", () => {
    const documented = leaves(sample);
    const shown = leaves(page(name));
    expect(documented.map(([path]) => path)).toEqual(shown.map(([path]) => path));
    for (const [i, [path, value]] of documented.entries()) {
      const pageValue = shown[i]?.[1];
      if ((changed as readonly string[]).includes(path)) continue;
      if (typeof pageValue === "string" && MASKED.test(pageValue)) continue;
      expect(value, path).toEqual(pageValue);
    }
  });
});

describe("PROVIDER_EVENTS", () => {
  it("are the events of v2/event/index.md's table, with the pages' samples for each kind", () => {
    expect(PROVIDER_EVENTS).toHaveLength(15);
    const sampled = new Set(PROVIDER_SAMPLES.map((s) => s.name.replace(/ \(2\)$/, "")));
    expect(PROVIDER_EVENTS.filter((event) => !sampled.has(event))).toEqual([]);
  });
});
