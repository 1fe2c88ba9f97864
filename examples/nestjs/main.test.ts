import { testExample } from "../../test/support/example-process.js";

testExample(new URL(".", import.meta.url), "main.ts");
