// Where the provider says a mobile number is registered: the `location`, `region`, `provider`
// fields and their codes that its verification page's sample adds to a DLR (field-notes.md:
// "India", "Bangalore", "Jio"; "in", "KA", "RJ"). The sandbox has no numbering plan, so it
// picks a circle and an operator from small tables, the same ones for the same number.

/** The location fields of a DLR, wire names and all. */
export interface NumberLocation {
  location: string;
  region: string;
  provider: string;
  location_code: string;
  region_code: string;
  provider_code: string;
}

// The first row of each is the documentation sample's; the others are made up alike (a
// telecom circle's city with its state's code; an operator with a two-letter code).
const REGIONS = [
  { region: "Bangalore", region_code: "KA" },
  { region: "Mumbai", region_code: "MH" },
  { region: "Delhi", region_code: "DL" },
  { region: "Chennai", region_code: "TN" },
  { region: "Kolkata", region_code: "WB" },
] as const;

const PROVIDERS = [
  { provider: "Jio", provider_code: "RJ" },
  { provider: "Airtel", provider_code: "AT" },
  { provider: "Vi", provider_code: "VI" },
  { provider: "BSNL", provider_code: "BS" },
] as const;

// An Indian mobile number with its country code: 91, then ten digits starting 6 to 9.
const INDIAN_MOBILE = /^91[6-9]\d{9}$/;

/**
 * The location fields for a mobile number, or undefined for a number outside India (the
 * platform is India-based; what it sends for other countries is not documented, and any of
 * these fields may be absent).
 * @example
 * locationOf("919876543210"); // { location: "India", region: "Bangalore", provider: "Airtel", location_code: "in", ... }
 * locationOf("447700900123"); // undefined
 */
export function locationOf(mobile: string): NumberLocation | undefined {
  if (!INDIAN_MOBILE.test(mobile)) return undefined;
  // Circle and operator from different digits, so that they vary apart from each other.
  const operatorDigits = Number(mobile.slice(2, 7));
  const lineDigits = Number(mobile.slice(7));
  const region = REGIONS[lineDigits % REGIONS.length] as (typeof REGIONS)[number];
  const provider = PROVIDERS[operatorDigits % PROVIDERS.length] as (typeof PROVIDERS)[number];
  return {
    location: "India",
    region: region.region,
    provider: provider.provider,
    location_code: "in",
    region_code: region.region_code,
    provider_code: provider.provider_code,
  };
}
