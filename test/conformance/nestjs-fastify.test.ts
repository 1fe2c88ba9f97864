import { nestTarget } from "../nestjs/conformance-target.js";
import { runConformance } from "./suite.js";

// Nest's own content-type parsers on, and a global guard, pipe, interceptor and exception
// filter that would change every reply they touch.
runConformance("@reportkit/nestjs on NestJS 12, Fastify platform", nestTarget("fastify"));
