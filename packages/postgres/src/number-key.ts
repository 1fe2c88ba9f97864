// How the ledger compares phone numbers: by their last 10 digits, so that one number written
// with or without its country code, a plus sign or spaces ("+91 98765 43210", "919876543210",
// "9876543210") is one number. Ten digits are an Indian mobile number without its 91; two
// numbers of different countries that share their last ten digits would be taken for one.

/** How many trailing digits tell two numbers apart. */
export const NUMBER_KEY_DIGITS = 10;

/**
 * A number's key: its last 10 digits (all of them when it has fewer); null when it has none.
 * @example
 * numberKey("+91 98765 43210"); // "9876543210"
 */
export function numberKey(number: string): string | null {
  const digits = number.replace(/\D/g, "");
  return digits === "" ? null : digits.slice(-NUMBER_KEY_DIGITS);
}
