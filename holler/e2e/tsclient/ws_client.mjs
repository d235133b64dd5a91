// ws_client.mjs drives an MCP server with the official TypeScript SDK client over WebSocket
// (its WebSocketClientTransport, subprotocol "mcp"): it connects, lists the tools, and calls
// echo, answering the server's sampling request on the same socket. Usage: node ws_client.mjs URL
//
// It prints one JSON line with what it saw. Node before 22 needs --experimental-websocket.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const client = new Client({ name: 'hoot-wsclient', version: '0.0.0' }, { capabilities: { sampling: {} } });
let sampled = 0;
client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
  sampled++;
  return { role: 'assistant', model: 'test', content: { type: 'text', text: 'sampled:' + req.params.messages[0].content.text } };
});
await client.connect(new WebSocketClientTransport(new URL(process.argv[2])));

const names = [];
let cursor;
do {
  const page = await client.listTools(cursor === undefined ? {} : { cursor });
  names.push(...page.tools.map((t) => t.name));
  cursor = page.nextCursor;
} while (cursor !== undefined);

const echo = await client.callTool({ name: 'echo', arguments: { message: 'x' } });
const version = client.getServerVersion();
await client.close();
console.log(JSON.stringify({ names, echo, sampled, server: version?.name ?? '' }));
