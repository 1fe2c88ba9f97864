import express from "express";
import express4 from "express4";
import { expressTarget, POST_ROUTE } from "./express-app.js";
import { runConformance } from "./suite.js";

runConformance(
  "@reportkit/express on Express 5, app.use(webhookReceiver({ path }))",
  expressTarget(express, "path option"),
);
runConformance(
  "@reportkit/express on Express 5, app.use(path, webhookReceiver())",
  expressTarget(express, "mount path"),
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
);
