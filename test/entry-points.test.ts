import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { typeErrorsOf } from './support/type-check.js';

/*
 * The package's entry points, imported by name as a user would (the package refers to
 * itself through its "exports" map; `npm test` builds dist first).
 */

/** Every module a process of its own loads, with module hooks that log them (test/fixtures/entry/). */
async function loadedBy(...args: string[]): Promise<string[]> {
  return (await runImportRoot(...args)).loaded;
}

/** test/fixtures/entry/import-root.mjs in a process of its own: the modules it loaded and what it printed. */
async function runImportRoot(...args: string[]): Promise<{ loaded: string[]; stdout: string }> {
  const log = join(mkdtempSync(join(tmpdir(), 'forkpool-loaded-')), 'modules.txt');
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', './test/fixtures/entry/record.mjs', 'test/fixtures/entry/import-root.mjs', ...args],
    {
      env: { ...process.env, FORKPOOL_LOADED_LOG: log },
      timeout: 60_000,
    },
  );
  return { loaded: readFileSync(log, 'utf8').split('\n'), stdout };
}

/**
 * The declaration files a user's compiler reads from the entry points' on, each with the chain of
 * imports that reaches it first: every type the entry points' signatures can name is declared in one.
 */
function declarationsReached(entries: readonly string[], read: (file: string) => string | undefined): Map<string, string[]> {
  const reached = new Map<string, string[]>();
  const queue: [string, string[]][] = entries.map((file) => [file, [file]]);
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const [file, chain] = next;
    if (reached.has(file)) continue;
    const text = read(file);
    if (text === undefined) continue;
    reached.set(file, chain);
    for (const match of text.matchAll(/(?:\bfrom\s+|\bimport\(\s*)'(\.[^']+)'/g)) {
      const target = join(dirname(file), (match[1] as string).replace(/\.js$/, '.d.ts'));
      queue.push([target, [...chain, target]]);
    }
  }
  return reached;
}

const ENTRY_DECLARATIONS = ['index', 'protocol', 'provider', 'ai-sdk/index', 'openai-agents/index', 'local-server/index'].map((name) =>
  resolve('dist/src', `${name}.d.ts`),
);

describe('entry points', () => {
  it('public types are declared in public modules: no entry point reaches the thread wire (src/wire/)', () => {
    const dist = resolve('dist/src');
    const reached = declarationsReached(ENTRY_DECLARATIONS, (file) => (existsSync(file) ? readFileSync(file, 'utf8') : undefined));
    expect(reached.has(join(dist, 'result/fork-result.d.ts'))).toBe(true);
    const wire = [...reached.values()].filter((chain) => relative(dist, chain.at(-1) as string).startsWith('wire/'));
    expect(wire.map((chain) => chain.map((file) => relative(dist, file)).join(' → '))).toEqual([]);
  });

  it('would see one: a planted import of the wire is named with the chain that reaches it', () => {
    const files: Record<string, string> = {
      '/d/index.d.ts': "export { run } from './engine/run.js';",
      '/d/engine/run.d.ts': "import type { Job } from '../wire/protocol.js';\nexport declare function run(job: Job): void;",
      '/d/wire/protocol.d.ts': 'export interface Job {}',
    };
    const reached = declarationsReached(['/d/index.d.ts'], (file) => files[file]);
    expect(reached.get('/d/wire/protocol.d.ts')).toEqual(['/d/index.d.ts', '/d/engine/run.d.ts', '/d/wire/protocol.d.ts']);
  });

  it('forkpool: the engine, tools, loaders and the prefix — not the protocol, not the simulator', async () => {
    const root = await import('forkpool');
    for (const name of [
      'ForkEngine',
      'defineTool',
      'workspaceTools',
      'loadToolsModule',
      'loadSession',
      'loadTasks',
      'freezePrefix',
      'decodePrefix',
      'estimateTokens',
      'InputError',
    ]) {
      expect(root).toHaveProperty(name);
    }
    for (const name of ['seedFork', 'buildChildMessage', 'validateAgentParams', 'startLocalServer', 'canonicalJson']) {
      expect(root).not.toHaveProperty(name);
    }
  });

  it('forkpool loads no module of the simulator; { kind: "local" } loads it when asked', async () => {
    const loaded = async (...args: string[]): Promise<string[]> => (await loadedBy(...args)).filter((url) => url.includes('/dist/src/'));
    const simulator = (urls: string[]) => urls.filter((url) => url.includes('/dist/src/local-server/'));
    const root = await loaded();
    expect(root).toContainEqual(expect.stringMatching(/\/dist\/src\/engine\/engine\.js$/));
    expect(simulator(root)).toEqual([]);
    expect(simulator(await loaded('local'))).toContainEqual(expect.stringMatching(/\/dist\/src\/local-server\/server\.js$/));
  });

  it('forkpool loads no OpenTelemetry module, not even the API, while nothing is registered with it; nor re2js until a grep', async () => {
    const urls = await loadedBy('local');
    // The run happened: its fan-out's modules are there.
    expect(urls).toContainEqual(expect.stringMatching(/\/dist\/src\/engine\/run\.js$/));
    expect(urls.filter((url) => url.includes('/node_modules/@opentelemetry/'))).toEqual([]);
    expect(urls.filter((url) => url.includes('/node_modules/re2js/'))).toEqual([]);
  });

  it('a tracer provider registered after the engine is made gets the run’s spans', async () => {
    const { stdout } = await runImportRoot('local', 'traced');
    expect(JSON.parse(stdout)).toEqual(
      expect.arrayContaining(['invoke_workflow fan-out', 'invoke_agent fork', 'generate_content gemini-2.5-flash']),
    );
  });

  it('forkpool/protocol: seeding, the child message, guards, the agent tool, notifications', async () => {
    const protocol = await import('forkpool/protocol');
    for (const name of [
      'seedFork',
      'buildChildMessage',
      'isForkChild',
      'validateAgentParams',
      'ForkRejectedError',
      'AGENT_TOOL_DECLARATION',
      'formatTaskNotification',
    ]) {
      expect(protocol).toHaveProperty(name);
    }
    expect(protocol).not.toHaveProperty('ForkEngine');
  });

  it("forkpool/provider: the request types of all five shapes and every provider kind; seedFork types its seed by the session's shape", {
    timeout: 120_000,
  }, async () => {
    // Types only at run time: the module exports no values.
    expect(Object.keys(await import('forkpool/provider'))).toEqual([]);
    expect(typeErrorsOf(fileURLToPath(new URL('./fixtures/entry/types.ts', import.meta.url)))).toEqual([]);
  });

  it('forkpool/local-server: the simulator', async () => {
    const local = await import('forkpool/local-server');
    const server = await local.startLocalServer({});
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await server.close();
    }
    expect(local).toHaveProperty('startLocalServerThread');
    expect(local).toHaveProperty('LATENCY_PRESETS');
  });

  it('forkpool/ai-sdk and forkpool/openai-agents: a fork tool each, and nothing of the engine', async () => {
    const aiSdk = await import('forkpool/ai-sdk');
    const agents = await import('forkpool/openai-agents');
    expect(Object.keys(aiSdk)).toEqual(['forkTool']);
    expect(Object.keys(agents)).toEqual(['forkTool']);
    const made = agents.forkTool({ engine: {} as never });
    expect(made.tool).toMatchObject({ type: 'function', name: 'fork', strict: true });
    expect(typeof made.fetch).toBe('function');
  });
});
