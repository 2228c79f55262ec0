/**
 * Memory per task when a task file streams through (issue 21): an N-line JSONL file, in a process
 * of its own, three ways:
 *   run     ForkEngine.fanOut(prefix, streamTasks(file), { retainResults: false }) on a stand-in pool
 *           that answers every fork at once (no model, no worker thread): the coordinator's side of a
 *           run — the reader, the checks, the id index, scheduling, accounting, events — at full speed;
 *   reader  streamTasks(file) alone, each task dropped once taken (the reader and its id index);
 *   array   loadTasks(file): the whole file as an array of tasks (what `run` did before).
 * Heap after GC at the last task (every id in the index; for `run`, in its last result's callback),
 * minus heap after GC before reading, per line. Run by `npm run bench` (section `tasks`), or alone:
 *   node --import tsx --expose-gc bench/task-stream.ts '{"lines":100000,"mode":"run"}'
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { ForkEngine, type ForkEngineOptions, streamTasks } from '../dist/src/index.js';
import type { ForkPool } from '../dist/src/engine/fork-start.js';
import type { ForkJob } from '../dist/src/wire/protocol.js';
import { connectHost } from '../dist/src/wire/fork-end.js';
import type { FrozenPrefix } from '../dist/src/prefix/index.js';
// Internal: loadTasks (deprecated in the entry point, where it warns) reads the file whole, as the bench compares.
import { loadTasks } from '../dist/src/session/load.js';
import { runIfMain } from './lib/script.js';
import { makeSession } from './lib/session.js';

export type TaskStreamMode = 'run' | 'reader' | 'array';

export interface TaskStreamJob {
  lines: number;
  mode: TaskStreamMode;
}

export interface TaskStreamResult {
  mode: TaskStreamMode;
  lines: number;
  fileMiB: number;
  heapBeforeMiB: number;
  heapAtEndMiB: number;
  /** (heap at the last task − heap before) / lines, both after GC. */
  bytesPerTask: number;
  peakRssMiB: number;
  seconds: number;
  tasksPerSecond: number;
}

const MIB = 1024 * 1024;
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

/** A task line as long as a real directive tends to be (about 120 bytes). */
function taskLine(i: number): string {
  return `${JSON.stringify({ id: `task-${String(i).padStart(7, '0')}`, directive: `REPLY Look into module ${i % 997}: find where the cache key is built and list its call sites.` })}\n`;
}

async function writeTaskFile(path: string, lines: number): Promise<number> {
  const out = createWriteStream(path);
  let bytes = 0;
  for (let i = 0; i < lines; i++) {
    const line = taskLine(i);
    bytes += line.length;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return bytes;
}

/**
 * Answers every fork at once, as a fork that made no call: nothing but the run's own work is
 * measured. The result goes back on the fork's channel, as a fork's thread sends it (the job's own
 * port: a pool of other processes is given one per fork).
 */
const standInPool: ForkPool = {
  run(job: ForkJob): Promise<void> {
    if (!('port' in job.link)) throw new TypeError('task-stream: a remote pool job brings its own port');
    connectHost(job.link.port, () => undefined).end({
      id: job.task.id,
      status: 'completed',
      text: 'ok',
      turns: 1,
      toolCalls: 0,
      usage: { promptTokens: 0, cachedTokens: 0, outputTokens: 0 },
      durationMs: 0,
      retries: 0,
      calls: [],
      worker: { threadId: 0, decodedPrefix: false },
    });
    return Promise.resolve();
  },
  close: () => Promise.resolve(),
};

const WARM_LINES = 2_000;

/** One pass of `lines` tasks through `mode`; `atLastTask` is called when the last one is in hand. Returns how many went through. */
async function pass(
  mode: TaskStreamMode,
  file: string,
  lines: number,
  engine: ForkEngine | undefined,
  prefix: FrozenPrefix | undefined,
  atLastTask: () => void,
): Promise<number> {
  let count = 0;
  if (mode === 'array') {
    const tasks = await loadTasks(file, undefined, { maxBytes: 1024 * MIB });
    count = tasks.length;
    atLastTask();
    // Keeps the array alive until it was measured.
    if (tasks[count - 1]?.id !== `task-${String(lines - 1).padStart(7, '0')}`) throw new Error('tasks: the array lost tasks');
  } else if (mode === 'reader') {
    for await (const _task of await streamTasks(file)) if (++count === lines) atLastTask();
  } else {
    if (!engine || !prefix) throw new Error('tasks: the run mode needs an engine');
    const run = engine.fanOut(prefix, await streamTasks(file), {
      retainResults: false,
      onResult: () => {
        if (++count === lines) atLastTask();
      },
    });
    await run.settled();
    if (run.tasksError) throw run.tasksError;
  }
  return count;
}

// Internal: ForkEngine.createRemote (what forkpool's distributed runs make) is left out of dist's declarations.
const createRemote = (
  ForkEngine as unknown as { createRemote(options: ForkEngineOptions, pool: ForkPool): Promise<ForkEngine> }
).createRemote.bind(ForkEngine);

export async function measureTaskStream(job: TaskStreamJob): Promise<TaskStreamResult> {
  const dir = await mkdtemp(join(tmpdir(), 'forkpool-bench-tasks-'));
  const file = join(dir, 'tasks.jsonl');
  const engine =
    job.mode === 'run'
      ? await createRemote(
          { provider: { kind: 'local', baseUrl: 'http://127.0.0.1:9' }, concurrency: 64, warmup: 'none', eventReplayLimit: 0 },
          standInPool,
        )
      : undefined;
  try {
    const prefix = engine?.freeze(makeSession(16 * 1024));
    // Code compiled, pools and caches made: not measured (at 100,000 lines, 1 MiB of it would read as 10 bytes a task).
    const warm = join(dir, 'warm.jsonl');
    await writeTaskFile(warm, WARM_LINES);
    await pass(job.mode, warm, WARM_LINES, engine, prefix, () => undefined);
    const fileBytes = await writeTaskFile(file, job.lines);
    gc();
    const before = process.memoryUsage();
    let peakRss = before.rss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
    let atEnd = before.heapUsed;
    /** At the last task: every id is in the index, nothing else should be left. */
    const measure = (): void => {
      gc();
      atEnd = process.memoryUsage().heapUsed;
    };
    const t0 = performance.now();
    const count = await pass(job.mode, file, job.lines, engine, prefix, measure);
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    if (count !== job.lines) throw new Error(`tasks: ${count} of ${job.lines} tasks went through`);
    return {
      mode: job.mode,
      lines: job.lines,
      fileMiB: fileBytes / MIB,
      heapBeforeMiB: before.heapUsed / MIB,
      heapAtEndMiB: atEnd / MIB,
      bytesPerTask: (atEnd - before.heapUsed) / job.lines,
      peakRssMiB: peakRss / MIB,
      seconds,
      tasksPerSecond: job.lines / seconds,
    };
  } finally {
    await engine?.close();
    await rm(dir, { recursive: true, force: true });
  }
}

runIfMain('task-stream.ts', measureTaskStream);
