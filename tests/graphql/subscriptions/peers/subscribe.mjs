// Subscribes to supportdesk's `events` after sequence AFTER with a real client library,
// prints each event as one JSON line, and exits after COUNT of them.
//   node subscribe.mjs ws|sse BASE_URL KEY AFTER COUNT [TYPES]
// An error is printed as {"error": …}, with exit code 1.
import { createClient as createWsClient } from "graphql-ws";
import { createClient as createSseClient } from "graphql-sse";
import WebSocket from "ws";

const [transport, baseUrl, key, afterText, countText, typesText] = process.argv.slice(2);
const after = Number(afterText);
const count = Number(countText);
const types = typesText ? typesText.split(",") : null;
const query = `subscription($after: Int, $types: [String!]) {
  events(after: $after, types: $types) { id sequence type createdAt data }
}`;

function print(value) {
  process.stdout.write(JSON.stringify(value) + "\n");
}

function fail(error) {
  if (error instanceof Error) error = error.message;
  // graphql-ws reports a closed connection with the close event: its code and reason.
  else if (error && typeof error.code === "number") error = { code: error.code, reason: error.reason };
  print({ error });
  process.exit(1);
}

function client() {
  if (transport === "ws") {
    return createWsClient({
      url: baseUrl.replace(/^http/, "ws") + "/graphql",
      webSocketImpl: WebSocket, // Node 20 has no global WebSocket
      connectionParams: { authorization: `Bearer ${key}` },
      retryAttempts: 0,
    });
  }
  return createSseClient({
    url: baseUrl + "/graphql/stream",
    headers: { authorization: `Bearer ${key}` },
    retryAttempts: 0,
  });
}

const peer = client();
let seen = 0;
peer.subscribe(
  { query, variables: { after, types } },
  {
    next: (result) => {
      if (result.errors) fail(result.errors);
      print(result.data.events);
      seen += 1;
      if (seen >= count) {
        peer.dispose();
        process.exit(0);
      }
    },
    error: fail,
    complete: () => fail("completed before COUNT events"),
  },
);
