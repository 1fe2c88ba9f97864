import { nestTarget } from "../nestjs/conformance-target.js";
import { runConformance } from "./suite.js";

// Nest's own body parsers (json, urlencoded) on, and a global guard, pipe, interceptor and
// exception filter that would change every reply they touch.
runConformance("@reportkit/nestjs on NestJS 12, Express platform", nestTarget("express"));
runConformance(
  "@reportkit/nestjs on NestJS 12, Express platform, rawBody: true",
  nestTarget("express", true),
);
