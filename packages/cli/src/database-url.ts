// A database URL as the CLI may show it: where it points (host, port, database), never its
// user's password, and a redactor for any text that might carry the password (an error).
import { CliError } from "./io.js";

/**
 * "127.0.0.1:5432/app" of a postgres:// URL: no user, no password.
 * @throws CliError when it is no postgres:// URL
 */
export function databaseAddress(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(
      "--database-url is not a URL; give it as postgres://user:password@host:5432/database.",
    );
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    throw new CliError(
      `--database-url must start with postgres:// or postgresql://; got the scheme ${parsed.protocol}`,
    );
  }
  return `${parsed.hostname || "localhost"}:${parsed.port || "5432"}${parsed.pathname}`;
}

/**
 * A function that writes "[password]" for the URL's password, as given and decoded, in any
 * text; the text as it is when the URL has none.
 */
export function passwordRedactor(url: string): (text: string) => string {
  const raw = new URL(url).password;
  if (raw === "") return (text) => text;
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // Not percent-encoded as a whole: the raw form is the one to hide.
  }
  const forms = [...new Set([raw, decoded])].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(
    forms.map((form) => form.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join("|"),
    "g",
  );
  return (text) => text.replace(pattern, "[password]");
}
