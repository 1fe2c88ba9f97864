/**
 * A multipart/form-data body of text fields, as a browser's FormData encodes one: names
 * escaped as the HTML standard says, line breaks in values as CRLF.
 */
export function multipartBody(fields: Iterable<readonly [string, string]>): {
  body: string;
  type: string;
} {
  const boundary = `----reportkit${crypto.randomUUID().replaceAll("-", "")}`;
  const escapeName = (name: string) =>
    name.replaceAll('"', "%22").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
  let body = "";
  for (const [name, value] of fields) {
    body += `--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(name)}"\r\n\r\n`;
    body += `${value.replace(/\r\n|\r|\n/g, "\r\n")}\r\n`;
  }
  return { body: `${body}--${boundary}--\r\n`, type: `multipart/form-data; boundary=${boundary}` };
}
