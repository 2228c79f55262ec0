import { Agent, OpenAIResponsesModel, run, setTracingDisabled } from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine, type ForkResult } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { forkTool } from '../src/openai-agents/index.js';

/*
 * The Agents SDK gives every call of a step its run's one abort signal: forkTool listens to it once
 * per step (not once per fork, which Node warns of past ten and which would outlive the step), and
 * aborting the run still cancels each of the step's forks.
 */

const KEY = 'fp-agents-abort-key-7e21';
const INSTRUCTIONS = `You are the main agent.\n${Array.from({ length: 300 }, (_, i) => `Rule ${i}: answer briefly.`).join('\n')}`;
const FORKS = 12;
const PROMPT = [
  ...Array.from({ length: FORKS }, (_, i) => `CALL fork {"directive":"REPLY fork ${i} done ${'and more words '.repeat(40)}"}`),
  'REPLY parent done',
].join('\n');

let server: LocalServer;
setTracingDisabled(true);

beforeAll(async () => {
  process.env.FORKPOOL_TEST_AGENTS_ABORT_KEY = KEY;
  server = await startLocalServer({ port: 0, usage: 'openai', latency: 'fast' });
});
afterAll(async () => {
  await server?.close();
  delete process.env.FORKPOOL_TEST_AGENTS_ABORT_KEY;
});

async function agentWith(fanOut: { onResult?: (r: ForkResult) => void }, onStep?: () => void) {
  const engine = await ForkEngine.create({
    provider: { kind: 'openai', baseUrl: `${server.url}/v1`, apiKeyEnv: 'FORKPOOL_TEST_AGENTS_ABORT_KEY' },
    threads: 2,
    spawnTools: ['fork'],
    concurrency: FORKS,
  });
  const forks = forkTool({ engine, fanOut });
  const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, fetch: forks.fetch });
  let calls = 0;
  // The step's calls reach the tool together; its forks are begun on the next turn after the last.
  const fork: typeof forks.tool = {
    ...forks.tool,
    invoke: (...args) => {
      if (++calls === FORKS) setImmediate(() => onStep?.());
      return forks.tool.invoke(...args);
    },
  };
  const agent = new Agent({
    name: 'lead',
    instructions: INSTRUCTIONS,
    model: new OpenAIResponsesModel(client, 'gpt-4.1-mini'),
    tools: [fork],
  });
  return { engine, agent };
}

describe('forkTool() in an OpenAI Agents SDK agent, under its run’s abort signal', () => {
  it('a step of twelve forks adds one listener to the run’s signal: Node warns of none', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    const results: ForkResult[] = [];
    const { engine, agent } = await agentWith({ onResult: (r) => void results.push(r) });
    try {
      const answer = await run(agent, PROMPT, { maxTurns: 3, signal: new AbortController().signal });
      expect(answer.finalOutput).toBe('parent done');
      expect(results.map((r) => r.status)).toEqual(Array(FORKS).fill('completed'));
      // Node emits its warnings on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await engine.close();
    }
  });

  it('aborting the run once its step’s forks have begun cancels every one of them', async () => {
    const controller = new AbortController();
    const results: ForkResult[] = [];
    const { engine, agent } = await agentWith({ onResult: (r) => void results.push(r) }, () => controller.abort());
    try {
      await expect(run(agent, PROMPT, { maxTurns: 3, signal: controller.signal })).rejects.toThrow();
      await expect.poll(() => results.length, { timeout: 10_000 }).toBe(FORKS);
      expect(results.map((r) => r.status)).toEqual(Array(FORKS).fill('cancelled'));
    } finally {
      await engine.close();
    }
  });
});
