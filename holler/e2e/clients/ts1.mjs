// ts1.mjs drives holler with the official TypeScript SDK v1 client (@modelcontextprotocol/sdk),
// which speaks the 2025 versions only, through the steps of plan.mjs. Its task step uses
// 2025-11-25's experimental tasks. Usage: node ts1.mjs URL legacy PLAN
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { answerer, runPlan } from './plan.mjs';

const [url, , planText] = process.argv.slice(2);
const answers = answerer();
const client = new Client(
  { name: 'hoot-ts1', version: '0.0.0' },
  // tasks: {} declares 2025-11-25's experimental tasks, which the task step uses.
  { capabilities: { elicitation: { form: {} }, tasks: {} } },
);
client.setRequestHandler(ElicitRequestSchema, async (request) => answers.handle(request.params.message));
await client.connect(new StreamableHTTPClientTransport(new URL(url)));

await runPlan(JSON.parse(planText), {
  async listTools() {
    const names = [];
    let cursor;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return names;
  },
  callTool: (name, args, options) => client.callTool({ name, arguments: args }, undefined, options),
  async task(name, args) {
    const events = [];
    let result;
    for await (const m of client.experimental.tasks.callToolStream({ name, arguments: args }, undefined, { task: { ttl: 60000 } })) {
      if (m.type === 'taskCreated') events.push(`created ${m.task.taskId}`);
      else if (m.type === 'taskStatus') events.push(m.task.status);
      else if (m.type === 'result') result = m.result;
      else if (m.type === 'error') throw m.error;
    }
    return { result, events };
  },
}, answers);
await client.close();
process.exit(0);
