// A Redis Cluster's nodes as reportkit's Redis packages (@reportkit/redis, @reportkit/bullmq)
// take them, checked in one place. Only URL parsing: no Redis client here.

/** One node of a Redis Cluster: `redis://host:port` (`rediss://` for TLS) or `{ host, port }`. */
export type RedisClusterNode = string | { readonly host: string; readonly port: number };

export interface ResolvedClusterNodes {
  /** The startup nodes, as ioredis's `Cluster` takes them. */
  readonly nodes: { host: string; port: number }[];
  /**
   * The URLs' credentials and TLS, for every node (the ones the cluster names later too):
   * ioredis's `redisOptions`.
   */
  readonly redisOptions: { username?: string; password?: string; tls?: object };
  /** "redis://h1:p1,h2:p2,…" for messages: never a user name or password. */
  readonly address: string;
}

/**
 * Checks a list of cluster nodes once, at construction. URLs must agree on scheme, user name
 * and password (a cluster has one of each). @throws TypeError naming `who`, saying how to fix.
 *
 * @example
 * resolveClusterNodes(["redis://10.0.0.1:7000", "redis://10.0.0.2:7000"], "redisDedupe");
 * // { nodes: [{ host: "10.0.0.1", port: 7000 }, …], redisOptions: {}, address: "redis://10.0.0.1:7000,10.0.0.2:7000" }
 */
export function resolveClusterNodes(list: unknown, who: string): ResolvedClusterNodes {
  const example = `e.g. ["redis://10.0.0.1:7000", "redis://10.0.0.2:7000"] or [{ host: "10.0.0.1", port: 7000 }]`;
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError(
      `${who}: \`connection.cluster\` must be a non-empty list of the cluster's nodes, ${example}.`,
    );
  }
  const nodes: { host: string; port: number }[] = [];
  let secure: boolean | undefined;
  let credentials: string | undefined;
  const redisOptions: { username?: string; password?: string; tls?: object } = {};
  for (const [index, node] of list.entries()) {
    if (typeof node === "object" && node !== null) {
      const { host, port } = node as { host?: unknown; port?: unknown };
      if (typeof host !== "string" || host === "" || !validPort(port)) {
        throw new TypeError(
          `${who}: \`connection.cluster[${index}]\` must be { host: string, port: 1-65535 } or a redis:// URL, ${example}.`,
        );
      }
      nodes.push({ host, port });
      continue;
    }
    if (typeof node !== "string") {
      throw new TypeError(
        `${who}: \`connection.cluster[${index}]\` must be a redis:// URL or { host, port }, ${example}.`,
      );
    }
    let url: URL;
    try {
      url = new URL(node);
    } catch {
      throw new TypeError(
        `${who}: \`connection.cluster[${index}]\` is not a URL; give it with its scheme, e.g. "redis://10.0.0.1:7000".`,
      );
    }
    if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
      throw new TypeError(
        `${who}: \`connection.cluster[${index}]\` must start with redis:// or rediss:// (TLS), got the scheme "${url.protocol.slice(0, -1)}".`,
      );
    }
    if (url.pathname !== "" && url.pathname !== "/" && url.pathname !== "/0") {
      throw new TypeError(
        `${who}: \`connection.cluster[${index}]\` names a database (${url.pathname}); a Redis Cluster has only database 0.`,
      );
    }
    const isSecure = url.protocol === "rediss:";
    const nodeCredentials = `${url.username}:${url.password}`;
    if (
      (secure !== undefined && secure !== isSecure) ||
      (credentials !== undefined && credentials !== nodeCredentials)
    ) {
      throw new TypeError(
        `${who}: the \`connection.cluster\` URLs differ in scheme, user name or password; a cluster has one of each, so give every node the same.`,
      );
    }
    secure = isSecure;
    credentials = nodeCredentials;
    if (url.username !== "") redisOptions.username = decodeURIComponent(url.username);
    if (url.password !== "") redisOptions.password = decodeURIComponent(url.password);
    if (isSecure) redisOptions.tls = {};
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    nodes.push({ host, port: url.port === "" ? 6379 : Number(url.port) });
  }
  const scheme = secure ? "rediss" : "redis";
  const address = `${scheme}://${nodes.map((n) => `${n.host}:${n.port}`).join(",")}`;
  return { nodes, redisOptions, address };
}

function validPort(port: unknown): port is number {
  return typeof port === "number" && Number.isInteger(port) && port > 0 && port < 65536;
}
