// ts1.mjs drives holler with the official TypeScript SDK v1 client (@modelcontextprotocol/sdk),
// which speaks the 2025 versions only. Usage: node ts1.mjs URL legacy PLAN (the plan as in
// ts2.mjs, which the Go test gives both).
//
// PLAN is a JSON array of steps, run in order; the script prints one JSON line per step with
// what it saw, and exits non-zero only when it cannot connect. Steps:
//   {"op":"list"}                                     names of every tool (all pages)
//   {"op":"call","tool":T,"args":{...}}               the result and the progress reports
//   {"op":"cancel","tool":T,"args":{...},"afterMs":N} aborts the call after N ms: the error
//   {"op":"elicit","tool":T,"args":{...},"answer":{...}} answers every elicitation with answer
//   {"op":"task","tool":T,"args":{...}}              calls T as a task (2025-11-25's experimental
//                                                     tasks), reporting the task's events as asked
// An argument "$job" stands for the job id that the last call's result named.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [url, , planText] = process.argv.slice(2);
const plan = JSON.parse(planText);
let answer = { action: 'decline' };
const asked = [];
const client = new Client(
  { name: 'hoot-ts1', version: '0.0.0' },
  // tasks: {} declares 2025-11-25's experimental tasks, which the task step uses.
  { capabilities: { elicitation: { form: {} }, tasks: {} } },
);
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  asked.push(request.params.message);
  return answer;
});
const transport = new StreamableHTTPClientTransport(new URL(url));
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
        const names = [];
        let cursor;
        do {
          const page = await client.listTools(cursor === undefined ? {} : { cursor });
          names.push(...page.tools.map((t) => t.name));
          cursor = page.nextCursor;
        } while (cursor !== undefined);
        out({ op: step.op, names });
        break;
      }
      case 'call': {
        const progress = [];
        const res = await client.callTool({ name: step.tool, arguments: step.args }, undefined, { onprogress: (p) => progress.push(p) });
        if (res.structuredContent && res.structuredContent.job_id) lastJob = res.structuredContent.job_id;
        out({ op: step.op, result: res, progress });
        break;
      }
      case 'cancel': {
        const abort = new AbortController();
        setTimeout(() => abort.abort('cancelled by the test'), step.afterMs);
        try {
          const res = await client.callTool({ name: step.tool, arguments: step.args }, undefined, { signal: abort.signal });
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
        // 2025-11-25's experimental tasks: the call is made as a task, followed to its end.
        const events = [];
        let result;
        for await (const m of client.experimental.tasks.callToolStream({ name: step.tool, arguments: step.args }, undefined, { task: { ttl: 60000 } })) {
          if (m.type === 'taskCreated') events.push(`created ${m.task.taskId}`);
          else if (m.type === 'taskStatus') events.push(m.task.status);
          else if (m.type === 'result') result = m.result;
          else if (m.type === 'error') throw m.error;
        }
        out({ op: step.op, result, asked: events });
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
