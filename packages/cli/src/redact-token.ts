/**
 * A function that replaces every occurrence of `token`, in any letter case, with "[token]", as
 * the client does with its API token: a receiver may echo the Authorization header (or the
 * token, upper- or lower-cased) in its reply, and the CLI prints replies. Without a token (or
 * one too short to tell from ordinary text), the text as it is.
 *
 * @example
 * redactToken("s3cret")("401: got Bearer S3CRET"); // "401: got Bearer [token]"
 */
export function redactToken(token: string | undefined): (text: string) => string {
  if (token === undefined || token.length < 4) return (text) => text;
  const pattern = new RegExp(token.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"), "giu");
  return (text) => text.replace(pattern, "[token]");
}
