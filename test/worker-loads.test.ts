/**
 * A fork's worker thread loads its run's provider SDK and not the others'. The engine runs in a
 * process of its own (the built package), against the local server in this one; a module hook that
 * the child's worker threads register (NODE_OPTIONS=--import) records every module each thread loads.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SDKS = { genai: '/node_modules/@google/genai/', openai: '/node_modules/openai/', anthropic: '/node_modules/@anthropic-ai/sdk/' };

let server: LocalServer;
let dir: string;

beforeAll(async () => {
  server = await startLocalServer({});
  dir = mkdtempSync(join(tmpdir(), 'forkpool-worker-loads-'));
  // Registered in worker threads only: each thread's hooks record its own loads, tagged with its id.
  writeFileSync(
    join(dir, 'record.mjs'),
    `import { register } from 'node:module';
import { isMainThread, threadId } from 'node:worker_threads';
if (!isMainThread) register(new URL('./hooks.mjs', import.meta.url), { data: { threadId, log: process.env.LOAD_LOG } });
`,
  );
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
let tag;
let log;
export function initialize(data) { tag = data.threadId; log = data.log; }
export async function load(url, context, next) { appendFileSync(log, tag + ' ' + url + '\\n'); return next(url, context); }
`,
  );
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs one fork with `provider` on `session` in a child process (an engine of `threads` threads); the
 * modules each fork worker thread loaded, by the run's end or (`at: 'create'`) by the time ForkEngine.create resolved.
 */
async function forkThreadLoads(
  name: string,
  provider: object,
  session: object,
  { threads = 1, at = 'end' }: { threads?: number; at?: 'create' | 'end' } = {},
): Promise<string[][]> {
  const log = join(dir, `${name}.log`);
  const script = join(dir, `${name}.mjs`);
  writeFileSync(
    script,
    `import { ForkEngine } from ${JSON.stringify(join(ROOT, 'dist/src/index.js'))};
import { copyFileSync, writeFileSync } from 'node:fs';
writeFileSync(process.env.LOAD_LOG, '', { flag: 'a' });
const engine = await ForkEngine.create({ provider: ${JSON.stringify(provider)}, threads: ${threads}, warmup: 'none' });
copyFileSync(process.env.LOAD_LOG, process.env.LOAD_LOG + '.create');
const [result] = await engine.fanOut(engine.freeze(${JSON.stringify(session)}), [{ id: 'f0', directive: 'Answer briefly.' }]).results();
await engine.close();
console.log(result.status);
`,
  );
  // NODE_OPTIONS, not the child's execArgv: the engine starts its threads with an execArgv of its own.
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, NODE_OPTIONS: `--import ${join(dir, 'record.mjs')}`, LOAD_LOG: log },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect({ code, out: out.trim(), err }).toMatchObject({ code: 0, out: 'completed' });
  const byThread = new Map<string, string[]>();
  for (const line of readFileSync(at === 'end' ? log : `${log}.create`, 'utf8')
    .split('\n')
    .filter(Boolean)) {
    const [thread = '', url = ''] = line.split(' ');
    byThread.set(thread, [...(byThread.get(thread) ?? []), url]);
  }
  // A fork's thread is a Piscina worker (the tool thread and the local server's are plain workers).
  return [...byThread.values()].filter((urls) => urls.some((url) => url.endsWith('/piscina/dist/worker.js')));
}

/** The files of a package a thread loaded, relative to the package. */
const filesOf = (urls: string[], sdk: string): string[] =>
  urls.filter((url) => url.includes(sdk)).map((url) => url.slice(url.indexOf(sdk) + sdk.length));
const loaded = (urls: string[], sdk: string): boolean => filesOf(urls, sdk).length > 0;
/** A thread may read another SDK's error classes (two small modules, to classify a failure), never its client. */
const clientLoaded = (urls: string[], sdk: string): boolean =>
  filesOf(urls, sdk).some((file) => file !== 'core/error.mjs' && file !== 'internal/errors.mjs');

const GEMINI_SESSION = {
  model: 'gemini-2.5-flash',
  history: [
    { role: 'user', parts: [{ text: 'Look into the cache.' }] },
    { role: 'model', parts: [{ text: 'The cache is keyed by prefix.' }] },
  ],
};

describe("a fork's worker thread", () => {
  it('of a Gemini run loads @google/genai, and the client of neither openai nor @anthropic-ai/sdk', async () => {
    const threads = await forkThreadLoads('gemini', { kind: 'gemini', apiKey: 'test-key-not-real', baseUrl: server.url }, GEMINI_SESSION);
    expect(threads).toHaveLength(1);
    for (const urls of threads) {
      expect(loaded(urls, SDKS.genai)).toBe(true);
      expect(clientLoaded(urls, SDKS.openai)).toBe(false);
      expect(clientLoaded(urls, SDKS.anthropic)).toBe(false);
    }
  });

  it("loads @google/genai's fetch build, not its node build", async () => {
    const [urls = []] = await forkThreadLoads(
      'web-build',
      { kind: 'gemini', apiKey: 'test-key-not-real', baseUrl: server.url },
      GEMINI_SESSION,
    );
    expect(filesOf(urls, SDKS.genai)).toEqual(['dist/web/index.mjs']);
  });

  it('started ahead (the default), has loaded the fork worker and @google/genai before ForkEngine.create resolves, in every thread', async () => {
    const threads = await forkThreadLoads('ahead', { kind: 'gemini', apiKey: 'test-key-not-real', baseUrl: server.url }, GEMINI_SESSION, {
      threads: 2,
      at: 'create',
    });
    expect(threads).toHaveLength(2);
    // The SDK is imported by the fork worker's own code (Piscina require()s the worker, which these hooks do not see).
    for (const urls of threads) expect(loaded(urls, SDKS.genai)).toBe(true);
  });

  it('of an OpenAI Chat Completions run loads openai, and neither @google/genai nor the client of @anthropic-ai/sdk', async () => {
    const threads = await forkThreadLoads(
      'openai',
      { kind: 'openai', apiKey: 'sk-test-not-real', baseUrl: `${server.url}/v1` },
      {
        format: 'openai-chat',
        model: 'gpt-4.1-mini',
        messages: [
          { role: 'user', content: 'Look into the cache.' },
          { role: 'assistant', content: 'The cache is keyed by prefix.' },
        ],
      },
    );
    expect(threads).toHaveLength(1);
    for (const urls of threads) {
      expect(loaded(urls, SDKS.openai)).toBe(true);
      expect(loaded(urls, SDKS.genai)).toBe(false);
      expect(clientLoaded(urls, SDKS.anthropic)).toBe(false);
    }
  });
});

describe('the built fork worker', () => {
  it('is one module: it imports packages, node builtins, the simulator thread starter and the modules of two rare features, no other module of forkpool', () => {
    const source = readFileSync(join(ROOT, 'dist/workers/fork-worker.js'), 'utf8');
    const specifiers = [...source.matchAll(/(?:^import\s[^'"]*?from\s*|\bimport\()\s*["']([^"']+)["']/gm)].map((m) => m[1] ?? '');
    const relative = specifiers.filter((s) => s.startsWith('.'));
    // Checking an output schema and reading a transcript take zod: a fork imports them when it needs them.
    expect(relative.sort()).toEqual(['../src/fork/output-check.js', '../src/local-server/thread.js', '../src/transcript/read.js']);
    expect(specifiers).toContain('@google/genai/web');
    expect(specifiers.filter((s) => s === 'zod' || s.startsWith('zod/'))).toEqual([]);
  });

  it('holds no zod: neither an import of it nor its code (a fork that checks an output schema or reads a transcript imports it then)', () => {
    const source = readFileSync(join(ROOT, 'dist/workers/fork-worker.js'), 'utf8');
    expect(source).not.toMatch(/["']zod(\/[^"']*)?["']/);
    // zod's own classes and functions, by the names its code gives them (inlined, they would be here).
    for (const name of ['ZodType', 'ZodObject', '$ZodType', 'toJSONSchema', 'fromJSONSchema']) expect(source).not.toContain(name);
  });
});
