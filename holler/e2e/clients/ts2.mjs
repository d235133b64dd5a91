// ts2.mjs drives holler with the official TypeScript SDK v2 client (@modelcontextprotocol/client)
// in the era it is told: "modern" pins 2026-07-28 (server/discover, per-request _meta), "legacy"
// runs the 2025 initialize handshake. Usage: node ts2.mjs URL ERA PLAN
//
// PLAN is a JSON array of steps, run in order; the script prints one JSON line per step with
// what it saw, and exits non-zero only when it cannot connect. Steps:
//   {"op":"list"}                                     names of every tool (all pages)
//   {"op":"call","tool":T,"args":{...}}               the result and the progress reports
//   {"op":"cancel","tool":T,"args":{...},"afterMs":N} aborts the call after N ms: the error
//   {"op":"elicit","tool":T,"args":{...},"answer":{...}} answers every elicitation with answer
//   {"op":"task","tool":T,"args":{...}}              (modern) calls T through the tasks extension
//                                                     (@modelcontextprotocol/ext-tasks), to its end
// An argument "$job" stands for the job id that the last call's result named.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';

const [url, era, planText] = process.argv.slice(2);
const plan = JSON.parse(planText);
let answer = { action: 'decline' };
const asked = [];
const client = new Client(
  { name: 'hoot-ts2', version: '0.0.0' },
  {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: era === 'modern' ? { mode: { pin: '2026-07-28' } } : { mode: 'legacy' },
  },
);
client.setRequestHandler('elicitation/create', async (request) => {
  asked.push(request.params.message);
  return answer;
});
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
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');

let lastJob = '';
const bind = (v) => (v === '$job' ? lastJob : Array.isArray(v) ? v.map(bind) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, bind(x)])) : v);
for (const step of plan) {
  const started = Date.now();
  step.args = bind(step.args);
  try {
    switch (step.op) {
      case 'list': {
        const res = await client.listTools();
        out({ op: step.op, names: res.tools.map((t) => t.name) });
        break;
      }
      case 'call': {
        const progress = [];
        const res = await client.callTool({ name: step.tool, arguments: step.args }, { onprogress: (p) => progress.push(p) });
        if (res.structuredContent && res.structuredContent.job_id) lastJob = res.structuredContent.job_id;
        out({ op: step.op, result: res, progress });
        break;
      }
      case 'cancel': {
        const abort = new AbortController();
        setTimeout(() => abort.abort('cancelled by the test'), step.afterMs);
        try {
          const res = await client.callTool({ name: step.tool, arguments: step.args }, { signal: abort.signal });
          out({ op: step.op, result: res, ms: Date.now() - started });
        } catch (err) {
          out({ op: step.op, error: String(err), ms: Date.now() - started });
        }
        break;
      }
      case 'elicit': {
        answer = step.answer;
        asked.length = 0;
        const res = await client.callTool({ name: step.tool, arguments: step.args });
        out({ op: step.op, result: res, asked: [...asked] });
        break;
      }
      case 'task': {
        const session = createTaskSessionFromClient(client, { endpointId: 'hoot-e2e', rawDispatch, v2RequestFraming: framing });
        try {
          const execution = await session.callTool(step.tool, step.args);
          const { outcome } = await execution.settle();
          out({ op: step.op, result: resultFromTaskOutcome(outcome), asked: [outcome.kind || outcome.status || 'settled'] });
        } finally {
          await session.close();
        }
        break;
      }
      default:
        out({ op: step.op, error: 'unknown step' });
    }
  } catch (err) {
    out({ op: step.op, error: String(err), ms: Date.now() - started });
  }
}
await client.close();
process.exit(0);
