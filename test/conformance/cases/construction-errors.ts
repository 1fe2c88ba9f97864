// Setups the receiver refuses when it is built, each with a message naming the problem.
import type { ComposedTemplate } from "@reportkit/core";
import { DLR_POST_JSON } from "./composed-templates.js";
import type { ConstructionErrorCase } from "./types.js";

export const CONSTRUCTION_ERRORS: ConstructionErrorCase[] = [
  {
    name: "an unknown variable in a delivery template: named, and the allowed ones listed",
    setup: {
      composed: {
        type: "delivery",
        url: "https://example.com/dlr?id={{id}}&state={{status}}&at={{delivered_at}}",
      },
    },
    messages: [/unknown variable/i, /\{\{delivered_at\}\}/, /\{\{deliv_at\}\}.*\{\{submit_at\}\}/],
  },
  {
    name: "an unknown variable in a call template (mobile is a delivery variable)",
    setup: {
      composed: {
        type: "call",
        url: "https://example.com/calls",
        body: { state: "{{status}}", phone: "{{mobile}}" },
      },
    },
    messages: [/unknown variable/i, /\{\{mobile\}\}/, /\{\{recording_url\}\}/],
  },
  {
    name: "a body value that is not exactly one {{variable}}: text around it",
    setup: {
      composed: {
        type: "delivery",
        url: "https://example.com/dlr",
        body: { msg_id: "{{id}}", state: "status={{status}}" },
      },
    },
    messages: [/"state"/, /exactly one/i],
  },
  {
    name: "a body value that is not exactly one {{variable}}: two of them",
    setup: {
      composed: {
        type: "delivery",
        url: "https://example.com/dlr",
        body: { both: "{{id}}{{status}}" },
      },
    },
    messages: [/"both"/, /exactly one/i],
  },
  {
    name: "a body value that is not exactly one {{variable}}: a constant",
    setup: {
      composed: {
        type: "delivery",
        url: "https://example.com/dlr?id={{id}}&state={{status}}",
        body: { source: "panel" },
      },
    },
    messages: [/"source"/, /exactly one/i],
  },
  {
    name: "a GET template with a body",
    setup: {
      composed: {
        type: "delivery",
        method: "GET",
        url: "https://example.com/dlr?id={{id}}",
        body: { state: "{{status}}" },
      },
    },
    messages: [/GET/, /body/i],
  },
  {
    name: "a delivery template without {{id}}",
    setup: { composed: { type: "delivery", url: "https://example.com/dlr?state={{status}}" } },
    messages: [/\{\{id\}\}/],
  },
  {
    name: "a delivery template without {{status}}",
    setup: {
      composed: {
        type: "delivery",
        url: "https://example.com/dlr",
        body: { msg_id: "{{id}}", phone: "{{mobile}}" },
      },
    },
    messages: [/\{\{status\}\}/],
  },
  {
    name: "a call template without {{status}}",
    setup: {
      composed: {
        type: "call",
        method: "GET",
        url: "https://www.domain.com/ack/receive?call_id={{id}}&to={{to}}",
      },
    },
    messages: [/call/, /\{\{status\}\}/],
  },
  {
    name: "a call template without any identity ({{id}}, {{mid}} or {{webhook_id}})",
    setup: {
      composed: {
        type: "call",
        method: "GET",
        url: "https://www.domain.com/ack/receive?to={{to}}&message_status={{status}}",
      },
    },
    messages: [/call template must carry one of \{\{id\}\}, \{\{mid\}\} or \{\{webhook_id\}\}/],
  },
  {
    name: "two {{variables}} in one query value",
    setup: {
      composed: {
        type: "delivery",
        method: "GET",
        url: "https://example.com/dlr?v={{id}}-{{status}}",
      },
    },
    messages: [/query parameter "v" has 2 \{\{variables\}\}/],
  },
  {
    name: "a {{variable}} in a header (the documentation puts them in the url and body only)",
    setup: {
      composed: {
        type: "delivery",
        method: "GET",
        url: "https://example.com/dlr?id={{id}}&s={{status}}",
        headers: { "x-report": "{{id}}" },
      },
    },
    messages: [/header x-report holds a \{\{variable\}\}/],
  },
  {
    name: "a delivery template with only onCall",
    setup: { handlers: "call-only", composed: DLR_POST_JSON.composed as ComposedTemplate },
    messages: [/onDelivery/],
  },
];
