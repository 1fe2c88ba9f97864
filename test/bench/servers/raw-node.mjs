// The Node ceiling: node:http reading the body, JSON.parse and a 200, nothing else.
import { createServer } from "node:http";
import { countHandled, OK_BODY } from "./common.mjs";

export function start() {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      try {
        JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        res.writeHead(400).end();
        return;
      }
      countHandled();
      res.writeHead(200, { "content-type": "application/json" }).end(OK_BODY);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => resolve(server.address().port));
  });
}
