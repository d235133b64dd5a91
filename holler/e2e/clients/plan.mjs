// plan.mjs runs a plan of steps with an official MCP client, for ts1.mjs and ts2.mjs, which
// differ only in the SDK and so in how a call is made. The Go test gives both the same plan.
//
// PLAN is a JSON array of steps, run in order; runPlan prints one JSON line per step with what
// it saw. Steps:
//   {"op":"list"}                                     names of every tool (all pages)
//   {"op":"call","tool":T,"args":{...}}               the result and the progress reports
//   {"op":"cancel","tool":T,"args":{...},"afterMs":N} aborts the call after N ms: the error
//   {"op":"elicit","tool":T,"args":{...},"answer":{...}} answers every elicitation with answer
//   {"op":"task","tool":T,"args":{...}}              calls T as a task, to its end; the task's
//                                                     events are reported as asked
// An argument "$job" stands for the job id that the last call's result named.
//
// sdk is the client's adapter: listTools() → names; callTool(name, args, {onprogress, signal})
// → result; task(name, args) → {result, events}. elicitation answers with the step's answer
// through answerer, which the script installs as the client's elicitation handler.
export function answerer() {
  const state = { answer: { action: 'decline' }, asked: [] };
  state.handle = (message) => {
    state.asked.push(message);
    return state.answer;
  };
  return state;
}

export async function runPlan(plan, sdk, answers) {
  const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
  let lastJob = '';
  const bind = (v) =>
    v === '$job' ? lastJob
      : Array.isArray(v) ? v.map(bind)
        : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, bind(x)]))
          : v;
  for (const step of plan) {
    const started = Date.now();
    const args = bind(step.args);
    try {
      switch (step.op) {
        case 'list':
          out({ op: step.op, names: await sdk.listTools() });
          break;
        case 'call': {
          const progress = [];
          const res = await sdk.callTool(step.tool, args, { onprogress: (p) => progress.push(p) });
          if (res.structuredContent && res.structuredContent.job_id) lastJob = res.structuredContent.job_id;
          out({ op: step.op, result: res, progress });
          break;
        }
        case 'cancel': {
          const abort = new AbortController();
          setTimeout(() => abort.abort('cancelled by the test'), step.afterMs);
          try {
            const res = await sdk.callTool(step.tool, args, { signal: abort.signal });
            out({ op: step.op, result: res, ms: Date.now() - started });
          } catch (err) {
            out({ op: step.op, error: String(err), ms: Date.now() - started });
          }
          break;
        }
        case 'elicit': {
          answers.answer = step.answer;
          answers.asked.length = 0;
          const res = await sdk.callTool(step.tool, args, {});
          out({ op: step.op, result: res, asked: [...answers.asked] });
          break;
        }
        case 'task': {
          const { result, events } = await sdk.task(step.tool, args);
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
}
