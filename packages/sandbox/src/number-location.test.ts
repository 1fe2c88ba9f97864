import { describe, expect, it } from "vitest";
import { locationOf } from "./number-location.js";

describe("locationOf", () => {
  it("gives an Indian mobile number the fields of the verification page's sample", () => {
    expect(locationOf("919876543210")).toEqual({
      location: "India",
      region: "Bangalore",
      provider: "Airtel",
      location_code: "in",
      region_code: "KA",
      provider_code: "AT",
    });
  });

  it("gives the same number the same circle and operator, and other numbers others", () => {
    expect(locationOf("919876543210")).toEqual(locationOf("919876543210"));
    const regions = new Set<string>();
    const providers = new Set<string>();
    for (let n = 0; n < 40; n++) {
      const where = locationOf(`91${7000000000 + n * 100_003}`);
      regions.add(where?.region_code ?? "none");
      providers.add(where?.provider_code ?? "none");
    }
    expect([...regions].sort()).toEqual(["DL", "KA", "MH", "TN", "WB"]);
    expect([...providers].sort()).toEqual(["AT", "BS", "RJ", "VI"]);
  });

  it("keeps each name with its own code", () => {
    const pairs = new Map<string, string>();
    for (let n = 0; n < 200; n++) {
      const mobile = `91${6000000000 + n * 12_345_677}`;
      const where = locationOf(mobile);
      if (where === undefined) throw new Error(`expected a location for ${mobile}`);
      for (const [name, code] of [
        [where.region, where.region_code],
        [where.provider, where.provider_code],
      ] as const) {
        expect(pairs.get(name) ?? code, name).toBe(code);
        pairs.set(name, code);
      }
    }
    expect(pairs.get("Bangalore")).toBe("KA");
    expect(pairs.get("Jio")).toBe("RJ");
  });

  it.each([
    ["447700900123", "a British number"],
    ["14155550100", "a US number"],
    ["9198765432", "91 with too few digits"],
    ["915876543210", "an Indian number that is no mobile (starts with 5)"],
  ])("gives nothing for %s (%s)", (mobile) => {
    expect(locationOf(mobile)).toBeUndefined();
  });
});
