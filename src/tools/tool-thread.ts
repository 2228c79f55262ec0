import { fileURLToPath } from 'node:url';
import type { MessagePort } from 'node:worker_threads';
import type { ToolThreadAnswer, ToolThreadJob } from './cpu-thread.js';
import { loadToolsModule } from './load-module.js';

/** Inside a tool thread: load the tool's module, run the one call, answer once. */
export async function runToolThread(job: ToolThreadJob, port: MessagePort): Promise<void> {
  let answer: ToolThreadAnswer;
  try {
    const file = job.module.startsWith('file:') ? fileURLToPath(job.module) : job.module;
    const tool = (await loadToolsModule(file)).find((t) => t.name === job.name);
    if (tool === undefined) throw new Error(`its module ${JSON.stringify(job.module)} exports no tool named ${JSON.stringify(job.name)}`);
    const output = await tool.execute(job.args, { forkId: job.forkId, signal: new AbortController().signal });
    answer = { ok: true, output: output ?? null };
  } catch (err) {
    answer = { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  try {
    port.postMessage(answer);
  } catch (err) {
    port.postMessage({ ok: false, message: `its result cannot cross threads: ${(err as Error).message}` } satisfies ToolThreadAnswer);
  }
}
