import express from "express";
import express4 from "express4";
import { expressTarget } from "./express-app.js";
import { runConformance } from "./suite.js";

runConformance(
  "@reportkit/express on Express 5, app.use(webhookReceiver({ path }))",
  expressTarget(express, "path option"),
);
runConformance(
  "@reportkit/express on Express 4, app.use(path, webhookReceiver())",
  expressTarget(express4, "mount path"),
);
