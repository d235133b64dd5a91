// client.mjs drives an MCP server with the official TypeScript SDK client over Streamable
// HTTP: it connects, pages through tools/list, calls echo with a progress callback, and
// cancels a blocking echo call. Usage: node client.mjs URL
//
// It prints "blocking" when the call to cancel has been sent, cancels it when a line arrives on
// stdin, and ends the session when a second line arrives, so that the test decides when. At
// the end it prints one JSON line with what it saw.
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const url = new URL(process.argv[2]);
const client = new Client({ name: 'hoot-tsclient', version: '0.0.0' });
const transport = new StreamableHTTPClientTransport(url);
await client.connect(transport);

const names = [];
let pages = 0;
let cursor;
do {
  const page = await client.listTools(cursor === undefined ? {} : { cursor });
  names.push(...page.tools.map((t) => t.name));
  cursor = page.nextCursor;
  pages++;
} while (cursor !== undefined);

const progress = [];
const echo = await client.callTool(
  { name: 'echo', arguments: { message: 'progress' } },
  undefined,
  { onprogress: (p) => progress.push(p) },
);

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const abort = new AbortController();
const blocked = client.callTool({ name: 'echo', arguments: { message: 'block' } }, undefined, {
  signal: abort.signal,
});
process.stdout.write('blocking\n');
await lines.next();
abort.abort('the test cancels the call');
let cancelled = '';
try {
  await blocked;
} catch (err) {
  cancelled = String(err);
}

// The SDK sends notifications/cancelled without waiting for it; ending the session at once
// could overtake it. The test sends a second line once the server has seen the cancellation.
await lines.next();
await transport.terminateSession();
await client.close();
process.stdout.write(JSON.stringify({ protocolVersion: transport.protocolVersion, pages, names, progress, echo, cancelled }) + '\n');
process.exit(0);
