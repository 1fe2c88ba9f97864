/** A host as it goes into a URL: an IPv6 address in brackets, any other name as it is. */
export function formatHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}
