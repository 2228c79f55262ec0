import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  const log = join(mkdtempSync(join(tmpdir(), 'forkpool-loaded-')), 'modules.txt');
  await promisify(execFile)(process.execPath, ['--import', './test/fixtures/entry/record.mjs', 'test/fixtures/entry/import-root.mjs', ...args], {
    env: { ...process.env, FORKPOOL_LOADED_LOG: log },
    timeout: 60_000,
  });
  return readFileSync(log, 'utf8').split('\n');
}

describe('entry points', () => {
  it('forkpool: the engine, tools, loaders and the prefix — not the protocol, not the simulator', async () => {
    const root = await import('forkpool');
    for (const name of ['ForkEngine', 'defineTool', 'workspaceTools', 'loadToolsModule', 'loadSession', 'loadTasks', 'freezePrefix', 'decodePrefix', 'estimateTokens', 'InputError']) {
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

  it('forkpool loads the OpenTelemetry API and no SDK: the application brings its own', async () => {
    const urls = await loadedBy('local');
    expect(urls).toContainEqual(expect.stringMatching(/\/node_modules\/@opentelemetry\/api\//));
    expect(urls.filter((url) => /@opentelemetry\/(?!api\/)/.test(url))).toEqual([]);
  });

  it('forkpool/protocol: seeding, the child message, guards, the agent tool, notifications', async () => {
    const protocol = await import('forkpool/protocol');
    for (const name of ['seedFork', 'buildChildMessage', 'isForkChild', 'validateAgentParams', 'ForkRejectedError', 'AGENT_TOOL_DECLARATION', 'formatTaskNotification']) {
      expect(protocol).toHaveProperty(name);
    }
    expect(protocol).not.toHaveProperty('ForkEngine');
  });

  it('forkpool/provider: the request types of all five shapes and every provider kind; seedFork types its seed by the session\'s shape', { timeout: 120_000 }, async () => {
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
