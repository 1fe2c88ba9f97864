// One report through a receiver on postgresInbox, in a process of its own:
// `one-report-process.ts` with DATABASE_URL set sends the sample DLR to a receiver whose store
// is the inbox on that database, prints "reply <status> <code>", closes the store, waits a
// moment for late events on its connections, and prints "done". A crash on the way (an error
// event nobody listens to) ends the process before "done", with exit code 1.
import { createReceiver } from "@reportkit/core";
import { postgresInbox } from "@reportkit/postgres";
import { SAMPLE_DLR, TOKEN } from "../fixtures/samples.js";
import { requiredEnv } from "../support/serve-receiver.js";

const store = postgresInbox({ connectionString: requiredEnv("DATABASE_URL") });
const receiver = createReceiver({
  secret: TOKEN,
  dedupe: store,
  logger: false,
  onDelivery: () => {},
});
const reply = await receiver.fetch(
  new Request("http://localhost/webhooks", {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ ...SAMPLE_DLR, id: "fatal:1" }),
  }),
);
const body = (await reply.json()) as { error?: { code?: string } };
console.log(`reply ${reply.status} ${body.error?.code ?? "ok"}`);
await store.close();
await new Promise((resolve) => setTimeout(resolve, 200));
console.log("done");
