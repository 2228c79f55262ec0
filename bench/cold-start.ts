/**
 * Cold start, in fresh processes against the local server in another process (zero latency):
 *   forkpool: import the package, ForkEngine.create (2 threads), freeze a 16 KiB session, one fork's answer;
 *   sdk:      import @google/genai and make the same call in-process;
 *   import:   the root import alone (`import 'forkpool'`);
 *   worker:   a thread's load of the fork worker's module, and of the run's provider SDK.
 * Wall time and CPU (process.cpuUsage: user + system, every thread of the process) from the child's
 * first line to its answer; each figure is the median of `--runs` children (default 5).
 * With `--compile-cache <dir>` the children run with NODE_COMPILE_CACHE set (Node 22.8+): the first
 * run fills it, so run twice to see a primed cache.
 *   npx tsx bench/cold-start.ts [--runs 5] [--node /path/to/node] [--compile-cache dir]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withServer } from './lib/server.js';
import { makeSession } from './lib/session.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const API_KEY = 'bench-key';
const GENAI = join(ROOT, 'node_modules/@google/genai/dist/node/index.mjs');

interface Figures {
  wallMs: number;
  cpuMs: number;
}

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const runs = Number(arg('--runs') ?? 5);
const node = arg('--node') ?? process.execPath;
const compileCache = arg('--compile-cache');

/** Each child prints one JSON line of figures, measured from its own first line. */
const CHILDREN: Record<string, (url: string, sessionFile: string) => string> = {
  forkpool: (url, sessionFile) => `
    const t0 = performance.now(); const c0 = process.cpuUsage();
    const { ForkEngine } = await import(${JSON.stringify(join(ROOT, 'dist/src/index.js'))});
    const session = JSON.parse((await import('node:fs')).readFileSync(${JSON.stringify(sessionFile)}, 'utf8'));
    const engine = await ForkEngine.create({ provider: { kind: 'gemini', apiKey: '${API_KEY}', baseUrl: '${url}' }, threads: 2, warmup: 'none' });
    const [result] = await engine.fanOut(engine.freeze(session), [{ id: 'f0', directive: 'Answer in one line.' }]).results();
    if (result.status !== 'completed') throw new Error('fork ' + result.status);
    const c = process.cpuUsage(c0);
    console.log(JSON.stringify({ wallMs: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 }));
    await engine.close();`,
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

let scripts = 0;
/** A child runs a script file (not `-e`: the worker threads would inherit `--input-type`). */
function runChild(code: string): Promise<Figures> {
  const file = join(dir, `child-${scripts++}.mjs`);
  writeFileSync(file, code);
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ...(compileCache !== undefined ? { NODE_COMPILE_CACHE: compileCache } : {}) };
    const child = spawn(node, [file], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (code !== 0 || line === undefined) reject(new Error(`child exited ${code}: ${err.slice(0, 2000)}`));
      else resolve(JSON.parse(line) as Figures);
    });
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

const dir = mkdtempSync(join(tmpdir(), 'cold-start-'));

async function main(): Promise<void> {
  const sessionFile = join(dir, 'session.json');
  writeFileSync(sessionFile, JSON.stringify(makeSession(16 * 1024)));
  writeFileSync(
    join(dir, 'worker-load.mjs'),
    `import { parentPort } from 'node:worker_threads';
    const t0 = performance.now(); const c0 = process.cpuUsage();
    await import(${JSON.stringify(join(ROOT, 'dist/workers/fork-worker.js'))});
    await import(${JSON.stringify(GENAI)});
    const c = process.cpuUsage(c0);
    parentPort.postMessage({ wallMs: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 });`,
  );
  try {
    await withServer('zero', async (server) => {
      const figures: Record<string, Figures> = {};
      for (const [name, child] of Object.entries(CHILDREN)) {
        const samples: Figures[] = [];
        for (let i = 0; i < runs; i++) samples.push(await runChild(child(server.url, sessionFile)));
        figures[name] = { wallMs: median(samples.map((s) => s.wallMs)), cpuMs: median(samples.map((s) => s.cpuMs)) };
      }
      const version = await runChild('console.log(JSON.stringify({ wallMs: 0, cpuMs: 0, v: process.version }))').then(
        (f) => (f as Figures & { v: string }).v,
      );
      console.log(`cold start, node ${version}${compileCache !== undefined ? `, compile cache ${compileCache}` : ''}, median of ${runs}`);
      for (const [name, f] of Object.entries(figures))
        console.log(`  ${name.padEnd(9)} wall ${f.wallMs.toFixed(0).padStart(6)} ms   cpu ${f.cpuMs.toFixed(0).padStart(6)} ms`);
      const fp = figures.forkpool;
      const sdk = figures.sdk;
      if (fp && sdk)
        console.log(`  forkpool / sdk: wall ${(fp.wallMs / sdk.wallMs).toFixed(2)}×, cpu ${(fp.cpuMs / sdk.cpuMs).toFixed(2)}×`);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
