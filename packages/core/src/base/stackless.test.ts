import { describe, expect, it } from "vitest";
import { ReportkitError } from "../reply/errors.js";
import { parseLenientJson } from "./parse-json.js";

describe("errors nobody reads the stack of are built without one", () => {
  it("a refusal (4xx) is still an Error, with name, code and message, and a stack without frames", () => {
    const limit = Error.stackTraceLimit;
    const error = new ReportkitError("invalid_json", "The body is not valid JSON.");
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(ReportkitError);
    expect(error.name).toBe("ReportkitError");
    expect(error.status).toBe(400);
    expect(error.stack).toBe("ReportkitError: The body is not valid JSON.");
    expect(Error.stackTraceLimit).toBe(limit);
  });

  it("a failure (5xx) keeps its stack and its cause", () => {
    const cause = new Error("database down");
    const error = new ReportkitError("handler_failed", "The report handler failed.", { cause });
    expect(error.stack).toMatch(/^ReportkitError: The report handler failed\.\n\s+at /);
    expect(error.cause).toBe(cause);
  });

  it("a body that is not JSON still throws JSON.parse's SyntaxError, and the limit is put back", () => {
    const limit = Error.stackTraceLimit;
    expect(() => parseLenientJson('{"id": ')).toThrow(SyntaxError);
    expect(parseLenientJson('{"id": "1",}')).toEqual({ id: "1" });
    expect(Error.stackTraceLimit).toBe(limit);
  });

  it("where Error.stackTraceLimit cannot be set, errors are built as usual", () => {
    const original = Object.getOwnPropertyDescriptor(Error, "stackTraceLimit");
    Object.defineProperty(Error, "stackTraceLimit", { value: 10, writable: false });
    try {
      const error = new ReportkitError("unauthorized", "Missing credentials.");
      expect(error.status).toBe(401);
      expect(error.stack).toMatch(/^ReportkitError: Missing credentials\.\n\s+at /);
      expect(() => parseLenientJson("nope")).toThrow(SyntaxError);
    } finally {
      if (original !== undefined) Object.defineProperty(Error, "stackTraceLimit", original);
    }
  });
});
