import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ForkEngine, defineTool, type ForkResult } from '../src/index.js';
// Internal: AiSdkSession (src/shapes/ai-sdk/schema.ts), the session type of the AI SDK's shape.
import type { AiSdkSession } from '../src/shapes/ai-sdk/schema.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';

/*
 * The Vercel AI SDK as forkpool's provider: sessions in its ModelMessage shape, forks run in real
 * worker threads, each call made through the AI SDK's own streamText with @ai-sdk/openai's Chat
 * Completions model (the package resolved from this project), against `forkpool serve` in a process
 * of its own (OpenAI's cache rules), and against an in-process server that keeps the raw bodies.
 */

const KEY = 'fp-ai-sdk-test-key-4c1e';
const LONG = Array.from({ length: 400 }, (_, i) => `Rule ${i}: keep the answer short and cite the file you read.`).join('\n');

function session(): AiSdkSession {
  return {
    format: 'ai-sdk',
    model: 'gpt-4.1-mini',
    system: `You are the main agent.\n${LONG}`,
    messages: [
      { role: 'user', content: 'Please remember MARKER-5A7C and read the README.' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading it.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { key: 'readme' } },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: { type: 'text', value: 'README: forkpool forks agents.' } },
        ],
      },
      { role: 'assistant', content: 'Noted MARKER-5A7C; the README says forkpool forks agents.' },
    ],
    tools: {
      lookup: {
        description: 'Looks a key up.',
        inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
      },
    },
    temperature: 0,
  };
}

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a key up.',
  parameters: z.object({ key: z.string() }),
  execute: ({ key }) => `value of ${key}: 42`,
});

function aiSdkProvider(baseUrl: string) {
  return {
    kind: 'ai-sdk' as const,
    package: '@ai-sdk/openai',
    factory: 'createOpenAI',
    method: 'chat',
    model: 'gpt-4.1-mini',
    settings: { baseURL: `${baseUrl}/v1`, apiKey: { env: 'FORKPOOL_TEST_AI_SDK_KEY' } },
  };
}

let serve: ServeProcess;
beforeAll(async () => {
  process.env.FORKPOOL_TEST_AI_SDK_KEY = KEY;
  serve = await startServe(['--usage', 'openai']);
});
afterAll(async () => {
  await serve?.stop();
  delete process.env.FORKPOOL_TEST_AI_SDK_KEY;
});

describe('the ai-sdk provider', () => {
  it('runs forks of an AI SDK session through @ai-sdk/openai against forkpool serve: answers, a tool round trip, the prefix served from the cache', async () => {
    const engine = await ForkEngine.create({ provider: aiSdkProvider(serve.url), threads: 2, tools: [lookup] });
    try {
      const tasks = [
        { id: 'recall', directive: 'RECALL MARKER-[0-9A-F]{4}' },
        { id: 'tool', directive: 'CALL lookup {"key":"answer"}\nRECALL value of answer: \\d+' },
        ...[1, 2, 3].map((n) => ({ id: `reply-${n}`, directive: `REPLY fork ${n} done` })),
      ];
      const run = engine.fanOut(engine.freeze(session()), tasks);
      const results = await run.results();
      const byId = Object.fromEntries(results.map((r) => [r.id, r])) as Record<string, ForkResult>;
      for (const r of results) expect(r.status, `${r.id}: ${r.status === 'completed' ? '' : r.error.message}`).toBe('completed');
      // The marker only the parent's history holds; the tool's answer came back through a tool message.
      expect(byId.recall?.text).toContain('MARKER-5A7C');
      expect(byId.tool?.text).toContain('value of answer: 42');
      expect(byId.tool?.toolCalls).toBe(1);
      expect(byId['reply-2']?.text).toBe('fork 2 done');
      // After the warm-up, the shared prefix is served from OpenAI's (simulated) cache.
      const report = run.report();
      expect(report.cachedTokens).toBeGreaterThan(0);
      expect(report.efficiency).toBeGreaterThanOrEqual(0.9);
      expect(JSON.stringify(results)).not.toContain(KEY);
    } finally {
      await engine.close();
    }
  });

  it('every fork sends the parent’s bytes: the bodies agree up to the forks’ own messages', async () => {
    const server: LocalServer = await startLocalServer({ port: 0, captureRequests: true, usage: 'openai' });
    const engine = await ForkEngine.create({ provider: aiSdkProvider(server.url), threads: 2, warmup: 'none' });
    try {
      const run = engine.fanOut(
        engine.freeze(session()),
        [1, 2, 3].map((n) => ({ id: `f${n}`, directive: `REPLY fork ${n}` })),
      );
      for (const r of await run.results()) expect(r.status).toBe('completed');
      const bodies = server.requests.filter((r) => r.route === 'chat.completions').map((r) => r.body);
      expect(bodies).toHaveLength(3);
      // The system prompt, the history and the tools come first in each body, byte for byte the same; only the child message differs.
      const at = bodies.map((b) => b.indexOf('<fork-boilerplate>'));
      for (const i of at) expect(i).toBeGreaterThan(LONG.length);
      const shared = bodies.map((b, k) => b.slice(0, at[k]));
      expect(new Set(shared).size).toBe(1);
      expect(shared[0]).toContain('MARKER-5A7C');
      expect(bodies[0]).toContain('"tool_call_id":"c1"');
    } finally {
      await engine.close();
      await server.close();
    }
  });

  it("a failure is read from the AI SDK's APICallError: a 429 is sent again and answered, a 400 ends the fork with its status", async () => {
    const engine = await ForkEngine.create({
      provider: aiSdkProvider(serve.url),
      threads: 1,
      warmup: 'none',
      retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50 },
    });
    try {
      const run = engine.fanOut(engine.freeze(session()), [
        { id: 'busy', directive: 'FAIL 429 x1\nREPLY after a retry' },
        { id: 'refused', directive: 'FAIL 400\nREPLY never' },
      ]);
      const [busy, refused] = (await run.results()) as [ForkResult, ForkResult];
      expect(busy).toMatchObject({ status: 'completed', text: 'after a retry', retries: 1 });
      expect(refused.status).toBe('failed');
      if (refused.status === 'failed') {
        expect(refused.error.kind).toBe('model_error');
        expect(refused.error.message).toMatch(/400/);
        expect(refused.error.message).not.toContain(KEY);
      }
    } finally {
      await engine.close();
    }
  });

  it('a variable a setting names must be set: the error names it, and no key travels by value', async () => {
    await expect(
      ForkEngine.create({ provider: { ...aiSdkProvider('http://127.0.0.1:9'), settings: { apiKey: { env: 'FORKPOOL_TEST_UNSET_KEY' } } } }),
    ).rejects.toThrow("the AI SDK provider's setting apiKey is read from FORKPOOL_TEST_UNSET_KEY, which is not set");
    await expect(ForkEngine.create({ provider: { ...aiSdkProvider('http://127.0.0.1:9'), settings: { apiKey: KEY } } })).rejects.toThrow(
      /settings\.apiKey looks like a secret: give it as \{ env: NAME \}/,
    );
    await expect(
      ForkEngine.create({ provider: { kind: 'ai-sdk', package: '@ai-sdk/openai', factory: 'createOpenAI' } as never }),
    ).rejects.toThrow(/needs model/);
  });
});
