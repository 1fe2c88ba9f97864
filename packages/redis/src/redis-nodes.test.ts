import { describe, expect, it } from "vitest";
import { resolveClusterNodes } from "./redis-nodes.js";

describe("resolveClusterNodes", () => {
  it("takes URLs and { host, port } alike; the address for messages has no credentials", () => {
    expect(
      resolveClusterNodes(["redis://10.0.0.1:7000", { host: "10.0.0.2", port: 7001 }], "x"),
    ).toEqual({
      nodes: [
        { host: "10.0.0.1", port: 7000 },
        { host: "10.0.0.2", port: 7001 },
      ],
      redisOptions: {},
      address: "redis://10.0.0.1:7000,10.0.0.2:7001",
    });
  });

  it("gives every node the URLs' user name, password and TLS (the nodes the cluster names later too)", () => {
    const resolved = resolveClusterNodes(
      ["rediss://app:p%40ss@a.example:6380", "rediss://app:p%40ss@b.example"],
      "x",
    );
    expect(resolved).toEqual({
      nodes: [
        { host: "a.example", port: 6380 },
        { host: "b.example", port: 6379 },
      ],
      redisOptions: { username: "app", password: "p@ss", tls: {} },
      address: "rediss://a.example:6380,b.example:6379",
    });
  });

  it("names the caller and the node in its refusals", () => {
    expect(() => resolveClusterNodes(["redis://h:1", 7], "bullmqQueue")).toThrow(
      "bullmqQueue: `connection.cluster[1]` must be a redis:// URL or { host, port }",
    );
  });
});
