// cone.mjs takes a conversation turn with cone_chat through an official TypeScript SDK client
// whose model answers sampling, for cone_clients_test.go: v1 (@modelcontextprotocol/sdk, the
// 2025 versions only) or v2 (@modelcontextprotocol/client, 2026-07-28 or the 2025 handshake).
// Usage: node cone.mjs URL v1|v2 ERA PLAN, where PLAN is JSON:
//   {"tree","root","message","cancel","plain","answer"}
//
// It prints one JSON object with what it saw:
//   chat:   the result, the progress messages, how many had arrived when the model answered
//           (the model waits for the first), and what the model was asked;
//   cancel: the call of message "cancel", aborted from inside the model's handler while the
//           model answers (the model then gives up): its error, and whether the model was
//           asked;
//   plain:  the call from a client that declares no sampling: its result or error and code.
import * as v1 from '@modelcontextprotocol/sdk/client/index.js';
import * as v1http from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import * as v2 from '@modelcontextprotocol/client';

const [url, sdk, era, planText] = process.argv.slice(2);
const plan = JSON.parse(planText);
const report = { chat: {}, cancel: {}, plain: {} };

// connect returns a connected client of the chosen SDK and era; with model, it samples.
async function connect(name, model) {
  const capabilities = model ? { sampling: {} } : {};
  if (sdk === 'v1') {
    const client = new v1.Client({ name, version: '0.0.0' }, { capabilities });
    if (model) client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => model(request, extra.signal));
    await client.connect(new v1http.StreamableHTTPClientTransport(new URL(url)));
    return {
      call: (args, options) => client.callTool({ name: 'cone_chat', arguments: args }, undefined, options),
      close: () => client.close(),
    };
  }
  const client = new v2.Client({ name, version: '0.0.0' }, {
    capabilities,
    versionNegotiation: era === '2026-07-28' ? { mode: { pin: '2026-07-28' } } : { mode: 'legacy' },
  });
  if (model) client.setRequestHandler('sampling/createMessage', (request, ctx) => model(request, ctx.mcpReq.signal));
  await client.connect(new v2.StreamableHTTPClientTransport(new URL(url)));
  return {
    call: (args, options) => client.callTool({ name: 'cone_chat', arguments: args }, options),
    close: () => client.close(),
  };
}

const progress = [];
let progressSeen;
const firstProgress = new Promise((resolve) => { progressSeen = resolve; });
let abortCall = null; // set while the call to cancel runs
let modelGaveUp;
const gaveUp = new Promise((resolve) => { modelGaveUp = resolve; });

// model is the client's model: it answers plan.answer once the call's first progress report is
// in, or, while the call to cancel runs, cancels that call and waits until its request is
// withdrawn (signal, the SDK's for the request it answers), then gives up.
async function model(request, signal) {
  if (abortCall) {
    report.cancel.asked = true;
    abortCall('cancelled while the model answers');
    // The bound only keeps a failing test from hanging.
    await new Promise((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener('abort', resolve);
      setTimeout(resolve, 10000);
    });
    report.cancel.withdrawn = signal.aborted;
    modelGaveUp();
    throw new Error('the call was cancelled');
  }
  await Promise.race([firstProgress, new Promise((resolve) => setTimeout(resolve, 10000))]);
  report.chat.before = progress.length;
  report.chat.system = request.params.systemPrompt;
  report.chat.messages = request.params.messages.map((m) => (Array.isArray(m.content) ? m.content[0] : m.content).text);
  return { role: 'assistant', model: 'client-model', content: { type: 'text', text: plan.answer } };
}

const describe = (err) => ({ error: String(err && err.message ? err.message : err), code: err && typeof err.code === 'number' ? err.code : 0 });

const sampler = await connect('hoot-cone', model);
try {
  report.chat.result = await sampler.call({ tree_id: plan.tree, node_id: plan.root, message: plan.message }, {
    onprogress: (p) => {
      progress.push(p.message || '');
      progressSeen();
    },
  });
} catch (err) {
  report.chat.error = describe(err).error;
}
report.chat.progress = [...progress];

const abort = new AbortController();
abortCall = (why) => abort.abort(why);
try {
  report.cancel.result = await sampler.call({ tree_id: plan.tree, node_id: plan.root, message: plan.cancel }, { signal: abort.signal });
} catch (err) {
  report.cancel.error = describe(err).error;
}
// The model of the cancelled call reports whether its request was withdrawn; a call that
// ended before its model was asked has no model to wait for.
if (report.cancel.asked) await gaveUp;
abortCall = null;
report.cancel.asked = Boolean(report.cancel.asked);

const plain = await connect('hoot-cone-plain', null);
try {
  report.plain.result = await plain.call({ tree_id: plan.tree, node_id: plan.root, message: plan.plain }, {});
} catch (err) {
  Object.assign(report.plain, describe(err));
}

await sampler.close();
await plain.close();
process.stdout.write(JSON.stringify(report) + '\n');
process.exit(0);
