import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming, TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine } from '../src/index.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';
import { anthropicSession, testTools, type ToolLog } from './support/engine-fixtures.js';

/*
 * Anthropic's automatic caching (one top-level `cache_control`: "The system automatically applies
 * the cache breakpoint to the last cacheable block and moves it forward as conversations grow")
 * caches a conversation turn after turn. It does not give forks a shared entry: the last cacheable
 * block of each fork's request is its own child message, so the entry one fork writes ends where
 * no sibling's prompt goes. A breakpoint at the end of the inherited history, which forkpool places,
 * is what siblings read. Shown through @anthropic-ai/sdk against `forkpool serve` in another process.
 */

const MODEL = 'claude-sonnet-4-5';
const KEY = 'sk-ant-automatic-never-printed';
const shared = `You review code. ${'The shared history is long and stable. '.repeat(250)}`;

let server: ServeProcess;
beforeAll(async () => {
  server = await startServe();
});
afterAll(async () => {
  await server.stop();
});

async function sibling(directive: string, withSharedBreakpoint: boolean): Promise<Anthropic.Usage> {
  const ai = new Anthropic({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
  const history: TextBlockParam = {
    type: 'text',
    text: shared,
    ...(withSharedBreakpoint ? { cache_control: { type: 'ephemeral' as const } } : {}),
  };
  const body: MessageCreateParamsNonStreaming = {
    model: MODEL,
    max_tokens: 256,
    cache_control: { type: 'ephemeral' },
    messages: [
      { role: 'user', content: [history] },
      { role: 'assistant', content: 'I have read it.' },
      { role: 'user', content: `REPLY ${directive}` },
    ],
  };
  return (await ai.messages.create(body)).usage;
}

describe("Anthropic's automatic caching and forks", () => {
  it('alone, it gives siblings nothing of their shared history: each writes an entry that ends in its own directive', async () => {
    const first = await sibling('one (automatic only)', false);
    const second = await sibling('two (automatic only)', false);
    expect(first.cache_creation_input_tokens).toBeGreaterThan(1024);
    expect(second.cache_read_input_tokens).toBe(0);
    expect(second.cache_creation_input_tokens).toBeGreaterThan(1024);
  });

  it('with a breakpoint at the end of the shared history (what forkpool places), siblings read it', async () => {
    const first = await sibling('one (placed)', true);
    const second = await sibling('two (placed)', true);
    expect(first.cache_read_input_tokens).toBe(0);
    expect(second.cache_read_input_tokens).toBeGreaterThan(1024);
    // What the second wrote is only its own tail, beyond the shared entry.
    expect(second.cache_creation_input_tokens).toBeLessThan(second.cache_read_input_tokens ?? 0);
  });

  it('a short run with 1-hour breakpoints is told that 5 minutes would have served it for less', async () => {
    const log: ToolLog = { calls: [] };
    const tools = testTools(log);
    const engine = await ForkEngine.create({
      provider: { kind: 'anthropic', baseUrl: server.url, apiKey: KEY },
      threads: 1,
      tools,
      cacheTtl: '1h',
    });
    try {
      const run = engine.fanOut(engine.freeze(anthropicSession(tools)), [{ id: 'a', directive: 'REPLY done' }]);
      await run.results();
      expect(run.report().notes.join('\n')).toMatch(/1-hour cache breakpoints: .*ended in \d+ s, within 5 minutes: cacheTtl '5m'/);
    } finally {
      await engine.close();
    }
    const fiveMinutes = await ForkEngine.create({ provider: { kind: 'anthropic', baseUrl: server.url, apiKey: KEY }, threads: 1, tools });
    try {
      const run = fiveMinutes.fanOut(fiveMinutes.freeze(anthropicSession(tools)), [{ id: 'b', directive: 'REPLY done' }]);
      await run.results();
      expect(run.report().notes.join('\n')).not.toContain('1-hour cache breakpoints');
    } finally {
      await fiveMinutes.close();
    }
  });
});
