import express from "express";
import express4 from "express4";
import { EXPRESS, expressTarget, POST_ROUTE } from "./express-app.js";
import { runConformance } from "./suite.js";

// No Express mount sends a body that fails mid-way while the client waits (see EXPRESS).

runConformance(
  "@reportkit/express on Express 5, app.use(webhookReceiver({ path }))",
  expressTarget(express, "path option"),
  EXPRESS,
);
runConformance(
  "@reportkit/express on Express 5, app.use(path, webhookReceiver())",
  expressTarget(express, "mount path"),
  EXPRESS,
);
// A route sees only POST to /webhooks: cases with other methods or subpaths are left out.
runConformance(
  "@reportkit/express on Express 5, app.post(path, webhookReceiver())",
  expressTarget(express, "post route"),
  POST_ROUTE,
);
runConformance(
  "@reportkit/express on Express 4, app.use(path, webhookReceiver())",
  expressTarget(express4, "mount path"),
  EXPRESS,
);
