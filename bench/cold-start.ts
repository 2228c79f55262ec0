/**
 * Cold start, in fresh processes against the local server in another process (zero latency):
 *   forkpool:           import the package, ForkEngine.create (2 threads, started ahead: the default),
 *                       freeze a 16 KiB session, one fork's answer;
 *   forkpool-on-demand: the same with `startThreads: 'on-demand'` (full run only);
 *   sdk:                import @google/genai and make the same call in-process;
 *   import:             the root import alone (`import 'forkpool'`);
 *   worker:             a thread's load of the fork worker's module, and of the run's provider SDK.
 * Wall time and CPU (process.cpuUsage: user + system, every thread of the process) from the child's
 * first line to its answer; each figure is the median of `--runs` children (default 5).
 * With `--compile-cache <dir>` the children run with NODE_COMPILE_CACHE set (Node 22.8+): the first
 * run fills it, so run twice to see a primed cache. `npm run bench` runs it as its `cold` section.
 *   npx tsx bench/cold-start.ts [--runs 5] [--node /path/to/node] [--compile-cache dir]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runningJobs } from './lib/child.js';
import { withServer } from './lib/server.js';
import { makeSession } from './lib/session.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const API_KEY = 'bench-key';
/** What an application imports (`@google/genai`, its node build), and what forkpool's threads load (its fetch build). */
const GENAI = join(ROOT, 'node_modules/@google/genai/dist/node/index.mjs');
const GENAI_IN_THREADS = join(ROOT, 'node_modules/@google/genai/dist/web/index.mjs');

export interface ColdFigures {
  wallMs: number;
  cpuMs: number;
}

export const COLD_KINDS = ['forkpool', 'forkpool-on-demand', 'sdk', 'import', 'worker'] as const;
export type ColdKind = (typeof COLD_KINDS)[number];

export interface ColdStartJob {
  /** Children per kind (each figure is their median). */
  runs: number;
  kinds: readonly ColdKind[];
  /** The Node binary the children run on (default: this process's). */
  node?: string;
  /** NODE_COMPILE_CACHE for the children (Node 22.8+). */
  compileCache?: string;
}

export interface ColdStartResult {
  node: string;
  compileCache: string | null;
  runs: number;
  figures: Partial<Record<ColdKind, ColdFigures>>;
}

const engineChild = (startThreads: 'ahead' | 'on-demand') => (url: string, sessionFile: string) =>
  `
    const t0 = performance.now(); const c0 = process.cpuUsage();
    const { ForkEngine } = await import(${JSON.stringify(join(ROOT, 'dist/src/index.js'))});
    const session = JSON.parse((await import('node:fs')).readFileSync(${JSON.stringify(sessionFile)}, 'utf8'));
    const engine = await ForkEngine.create({ provider: { kind: 'gemini', apiKey: '${API_KEY}', baseUrl: '${url}' }, threads: 2, warmup: 'none', startThreads: '${startThreads}' });
    const [result] = await engine.fanOut(engine.freeze(session), [{ id: 'f0', directive: 'Answer in one line.' }]).results();
    if (result.status !== 'completed') throw new Error('fork ' + result.status);
    const c = process.cpuUsage(c0);
    console.log(JSON.stringify({ wallMs: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 }));
    await engine.close();`;

/** Each child prints one JSON line of figures, measured from its own first line. */
const CHILDREN: Record<ColdKind, (url: string, sessionFile: string) => string> = {
  forkpool: engineChild('ahead'),
  'forkpool-on-demand': engineChild('on-demand'),
  sdk: (url, sessionFile) => `
    const t0 = performance.now(); const c0 = process.cpuUsage();
    const { GoogleGenAI } = await import(${JSON.stringify(GENAI)});
    const session = JSON.parse((await import('node:fs')).readFileSync(${JSON.stringify(sessionFile)}, 'utf8'));
    const ai = new GoogleGenAI({ vertexai: false, apiKey: '${API_KEY}', httpOptions: { baseUrl: '${url}' } });
    const stream = await ai.models.generateContentStream({ model: session.model,
      contents: [...session.history, { role: 'user', parts: [{ text: 'Answer in one line.' }] }],
      config: { systemInstruction: session.systemInstruction, tools: session.tools, ...session.generationConfig } });
    for await (const _ of stream);
    const c = process.cpuUsage(c0);
    console.log(JSON.stringify({ wallMs: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 }));`,
  import: () => `
    const t0 = performance.now(); const c0 = process.cpuUsage();
    await import(${JSON.stringify(join(ROOT, 'dist/src/index.js'))});
    const c = process.cpuUsage(c0);
    console.log(JSON.stringify({ wallMs: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 }));`,
  // A thread of its own, as Piscina's: the fork worker's module, then the Gemini SDK a run would load at its first call.
  worker: (_url, sessionFile) => `
    const { Worker } = await import('node:worker_threads');
    const w = new Worker(${JSON.stringify(join(sessionFile, '..', 'worker-load.mjs'))});
    w.once('message', (m) => { console.log(JSON.stringify(m)); w.terminate(); });`,
};

/** Only a hung child is killed. */
const CHILD_BOUND_MS = 120_000;

/** A child runs a script file (not `-e`: the worker threads would inherit `--input-type`). */
function runChild(dir: string, name: string, code: string, job: ColdStartJob): Promise<ColdFigures & { v?: string }> {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, code);
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ...(job.compileCache !== undefined ? { NODE_COMPILE_CACHE: job.compileCache } : {}) };
    const child = spawn(job.node ?? process.execPath, [file], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    runningJobs.add(child);
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_BOUND_MS);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => {
      runningJobs.delete(child);
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (code !== 0 || line === undefined) reject(new Error(`cold-start ${name} exited ${code}: ${err.slice(0, 2000)}`));
      else resolve(JSON.parse(line) as ColdFigures);
    });
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

/** Runs `job.runs` children of each kind against the server at `url`, one after the other; the medians. */
export async function runColdStart(url: string, job: ColdStartJob): Promise<ColdStartResult> {
  const dir = mkdtempSync(join(tmpdir(), 'cold-start-'));
  try {
    const sessionFile = join(dir, 'session.json');
    writeFileSync(sessionFile, JSON.stringify(makeSession(16 * 1024)));
    writeFileSync(
      join(dir, 'worker-load.mjs'),
      `import { parentPort } from 'node:worker_threads';
    const t0 = performance.now(); const c0 = process.cpuUsage();
    await import(${JSON.stringify(join(ROOT, 'dist/workers/fork-worker.js'))});
    await import(${JSON.stringify(GENAI_IN_THREADS)});
    const c = process.cpuUsage(c0);
    parentPort.postMessage({ wallMs: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 });`,
    );
    const figures: Partial<Record<ColdKind, ColdFigures>> = {};
    for (const kind of job.kinds) {
      const samples: ColdFigures[] = [];
      for (let i = 0; i < job.runs; i++) samples.push(await runChild(dir, `${kind}-${i}`, CHILDREN[kind](url, sessionFile), job));
      figures[kind] = { wallMs: median(samples.map((s) => s.wallMs)), cpuMs: median(samples.map((s) => s.cpuMs)) };
    }
    const version = await runChild(dir, 'version', 'console.log(JSON.stringify({ wallMs: 0, cpuMs: 0, v: process.version }))', job);
    return { node: version.v ?? '?', compileCache: job.compileCache ?? null, runs: job.runs, figures };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The result as lines of text: each kind's medians, and forkpool's over the SDK's. */
export function coldStartLines(r: ColdStartResult): string[] {
  const lines = [`cold start, node ${r.node}${r.compileCache !== null ? `, compile cache ${r.compileCache}` : ''}, median of ${r.runs}`];
  for (const [name, f] of Object.entries(r.figures))
    lines.push(`  ${name.padEnd(18)} wall ${f.wallMs.toFixed(0).padStart(6)} ms   cpu ${f.cpuMs.toFixed(0).padStart(6)} ms`);
  const { forkpool: fp, sdk } = r.figures;
  if (fp && sdk) lines.push(`  forkpool / sdk: wall ${(fp.wallMs / sdk.wallMs).toFixed(2)}×, cpu ${(fp.cpuMs / sdk.cpuMs).toFixed(2)}×`);
  return lines;
}

const isMain = process.argv[1]?.endsWith('cold-start.ts');
if (isMain) {
  const arg = (name: string): string | undefined => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const node = arg('--node');
  const compileCache = arg('--compile-cache');
  const job: ColdStartJob = {
    runs: Number(arg('--runs') ?? 5),
    kinds: COLD_KINDS,
    ...(node !== undefined ? { node } : {}),
    ...(compileCache !== undefined ? { compileCache } : {}),
  };
  withServer('zero', async (server) => console.log(coldStartLines(await runColdStart(server.url, job)).join('\n'))).catch(
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
