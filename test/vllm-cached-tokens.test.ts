import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine } from '../src/index.js';
import { runCli } from './fixtures/cli/run-cli.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';
import { openAIChatSession, testTools, type ToolLog } from './support/engine-fixtures.js';

/*
 * vLLM reports `prompt_tokens_details.cached_tokens` only when started with
 * --enable-prompt-tokens-details (vllm/entrypoints/openai/cli_args.py), and versions up to mid-2026
 * leave the field out when it is 0 (vllm#44377). So an absent field is unknown, unless the user says
 * the server runs with the flag: then it is 0. `forkpool serve --usage none` is such a server (no
 * cached-token field at all), in another process; the engine calls it through the openai SDK.
 */

let server: ServeProcess;
const log: ToolLog = { calls: [] };
const tools = testTools(log);

beforeAll(async () => {
  server = await startServe(['--usage', 'none']);
});
afterAll(async () => {
  await server.stop();
});

async function firstCallCached(reportsCachedTokens: boolean | undefined): Promise<(number | null)[]> {
  const provider = {
    kind: 'openai-compatible' as const,
    baseUrl: `${server.url}/v1`,
    ...(reportsCachedTokens === undefined ? {} : { reportsCachedTokens }),
  };
  const engine = await ForkEngine.create({ provider, threads: 1, tools });
  try {
    const tasks = [0, 1].map((i) => ({ id: `v${i}`, directive: 'REPLY done' }));
    const results = await engine.fanOut(engine.freeze(openAIChatSession(tools)), tasks).results();
    return results.map((r) => {
      expect(r.status).toBe('completed');
      const first = r.calls[0];
      return first === undefined ? Number.NaN : first.cachedTokens;
    });
  } finally {
    await engine.close();
  }
}

describe('cached tokens a server does not report', () => {
  it('are unknown (null) by default, and 0 when the server is declared to report them', async () => {
    expect(await firstCallCached(undefined)).toEqual([null, null]);
    expect(await firstCallCached(false)).toEqual([null, null]);
    expect(await firstCallCached(true)).toEqual([0, 0]);
  });

  it('the option is a boolean, and only openai-compatible takes it (library and CLI)', async () => {
    await expect(
      ForkEngine.create({
        provider: { kind: 'openai-compatible', baseUrl: `${server.url}/v1`, reportsCachedTokens: 'yes' as unknown as boolean },
      }),
    ).rejects.toThrow('options.provider.reportsCachedTokens must be true or false, got "yes"');
    await expect(ForkEngine.create({ provider: { kind: 'openai', apiKey: 'k', reportsCachedTokens: true } })).rejects.toThrow(
      /reportsCachedTokens/,
    );
    const run = await runCli([
      'run',
      '--session',
      'examples/openai-session.json',
      '--tasks',
      '-',
      '--provider',
      'deepseek',
      '--reports-cached-tokens',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--reports-cached-tokens: only for --provider openai-compatible');
  });
});
