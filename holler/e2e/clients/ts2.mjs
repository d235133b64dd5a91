// ts2.mjs drives holler with the official TypeScript SDK v2 client (@modelcontextprotocol/client)
// in the era it is told, through the steps of plan.mjs: "modern" pins 2026-07-28
// (server/discover, per-request _meta), "legacy" runs the 2025 initialize handshake. Its task
// step (modern) goes through the tasks extension's own client, @modelcontextprotocol/ext-tasks.
// Usage: node ts2.mjs URL ERA PLAN
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { answerer, runPlan } from './plan.mjs';

const [url, era, planText] = process.argv.slice(2);
const answers = answerer();
const client = new Client(
  { name: 'hoot-ts2', version: '0.0.0' },
  {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: era === 'modern' ? { mode: { pin: '2026-07-28' } } : { mode: 'legacy' },
  },
);
client.setRequestHandler('elicitation/create', async (request) => answers.handle(request.params.message));
const transport = new StreamableHTTPClientTransport(new URL(url));

// The tasks extension's requests go out through rawDispatch, which ext-tasks asks its host for
// in 2026-07-28: one POST per request, with the routing headers, answered in JSON or an event
// stream.
const framing = {
  protocolVersion: '2026-07-28',
  clientInfo: { name: 'hoot-ts2', version: '0.0.0' },
  clientCapabilities: { elicitation: { form: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } },
};
let rawID = 0;
async function rawDispatch(message, options) {
  // ext-tasks hands over the method and params; the envelope and its id are the host's.
  const request = { jsonrpc: '2.0', id: `task-${++rawID}`, ...message };
  const p = request.params || {};
  const headers = {
    'Content-Type': 'application/json',
    'Accept': 'application/json, text/event-stream',
    'MCP-Protocol-Version': framing.protocolVersion,
    'Mcp-Method': request.method,
  };
  const name = p.name ?? p.taskId ?? p.uri;
  if (name !== undefined) headers['Mcp-Name'] = String(name);
  const resp = await fetch(url, { method: 'POST', headers, body: JSON.stringify(request), signal: options && options.signal });
  const text = await resp.text();
  if ((resp.headers.get('Content-Type') || '').startsWith('text/event-stream')) {
    for (const block of text.split(/\r?\n\r?\n/)) {
      const data = block.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
      if (!data) continue;
      const m = JSON.parse(data);
      if (m.id === request.id) return { ...m, id: message.id ?? m.id };
    }
    throw new Error(`no response to ${request.method} in the event stream`);
  }
  const m = JSON.parse(text);
  return { ...m, id: message.id ?? m.id };
}
await client.connect(transport);

await runPlan(JSON.parse(planText), {
  listTools: async () => (await client.listTools()).tools.map((t) => t.name),
  callTool: (name, args, options) => client.callTool({ name, arguments: args }, options),
  async task(name, args) {
    const session = createTaskSessionFromClient(client, { endpointId: 'hoot-e2e', rawDispatch, v2RequestFraming: framing });
    try {
      const execution = await session.callTool(name, args);
      const { outcome } = await execution.settle();
      return { result: resultFromTaskOutcome(outcome), events: [outcome.kind || outcome.status || 'settled'] };
    } finally {
      await session.close();
    }
  },
}, answers);
await client.close();
process.exit(0);
