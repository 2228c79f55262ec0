import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, tool } from 'ai';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { forkTool } from '../src/ai-sdk/index.js';
import { ForkEngine, type ForkResult } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';

/*
 * forkTool() in an AI SDK agent: generateText with @ai-sdk/openai's Chat Completions model calls the
 * fork tool twice in one step; the forks run on forkpool's pool through the same provider package,
 * seeded mid-turn (the calling message rebuilt from the step's calls). Against a local server that
 * keeps the raw bodies (the bytes), and against forkpool serve in a process of its own (background mode).
 */

const KEY = 'fp-fork-tool-key-93ad';
const LONG = Array.from({ length: 400 }, (_, i) => `Rule ${i}: keep the answer short and cite the file you read.`).join('\n');
const SYSTEM = `You are the main agent.\n${LONG}`;
const PROMPT = [
  'Please remember MARKER-5A7C.',
  'CALL fork {"directive":"RECALL MARKER-[0-9A-F]{4}"}',
  'CALL fork {"directive":"REPLY second fork done"}',
  'REPLY parent done',
].join('\n');

const lookup = tool({
  description: 'Looks a key up.',
  inputSchema: z.object({ key: z.string() }),
  execute: async ({ key }) => `value of ${key}`,
});

function engineFor(url: string, api: 'openai' | 'anthropic' = 'openai'): Promise<ForkEngine> {
  const settings = { baseURL: `${url}/v1`, apiKey: { env: 'FORKPOOL_TEST_FORK_TOOL_KEY' } };
  return ForkEngine.create({
    provider:
      api === 'openai'
        ? { kind: 'ai-sdk', package: '@ai-sdk/openai', factory: 'createOpenAI', method: 'chat', model: 'gpt-4.1-mini', settings }
        : {
            kind: 'ai-sdk',
            package: '@ai-sdk/anthropic',
            factory: 'createAnthropic',
            model: 'claude-sonnet-4-5',
            settings,
            mode: 'generate',
          },
    threads: 2,
    spawnTools: ['fork'],
  });
}

let serve: ServeProcess;
beforeAll(async () => {
  process.env.FORKPOOL_TEST_FORK_TOOL_KEY = KEY;
  serve = await startServe(['--usage', 'openai']);
});
afterAll(async () => {
  await serve?.stop();
  delete process.env.FORKPOOL_TEST_FORK_TOOL_KEY;
});

describe('forkTool() in an AI SDK agent', () => {
  it('forks the agent mid-turn: each fork answers as the tool’s output, its request is the agent’s bytes up to its last message, its prefix served from the cache', async () => {
    const server: LocalServer = await startLocalServer({ port: 0, captureRequests: true, usage: 'openai' });
    const engine = await engineFor(server.url);
    const results: ForkResult[] = [];
    try {
      const openai = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY });
      const tools = { lookup };
      const fork = forkTool({ engine, model: 'gpt-4.1-mini', system: SYSTEM, tools, fanOut: { onResult: (r) => void results.push(r) } });
      const answer = await generateText({
        model: openai.chat('gpt-4.1-mini'),
        system: SYSTEM,
        tools: { ...tools, fork },
        messages: [{ role: 'user', content: PROMPT }],
        stopWhen: stepCountIs(3),
      });
      expect(answer.text).toBe('parent done');
      const outputs = answer.steps[0]?.toolResults.map((r) => r.output) ?? [];
      expect(outputs).toHaveLength(2);
      expect(String(outputs[0])).toContain('MARKER-5A7C');
      expect(outputs[1]).toBe('second fork done');

      const bodies = server.requests.filter((r) => r.route === 'chat.completions').map((r) => r.body);
      const forks = bodies.filter((b) => b.includes('<fork-boilerplate>'));
      const parent = bodies.filter((b) => !b.includes('<fork-boilerplate>'));
      expect(forks).toHaveLength(2);
      // The agent's first request ends on the user's message; each fork's begins with exactly those bytes.
      const first = parent[0] as string;
      const lastMessageEnd = first.indexOf('}]', first.indexOf('"messages"')) + 1;
      const shared = first.slice(0, lastMessageEnd);
      expect(shared).toContain('MARKER-5A7C');
      for (const body of forks) {
        expect(body.startsWith(shared)).toBe(true);
        // The same tools, rendered the same.
        expect(JSON.stringify(JSON.parse(body).tools)).toBe(JSON.stringify(JSON.parse(first).tools));
        // Seeded mid-turn: the agent's calls of the fork tool, then a result for each.
        expect(JSON.parse(body).messages[2]).toMatchObject({
          role: 'assistant',
          tool_calls: [{ function: { name: 'fork' } }, { function: { name: 'fork' } }],
        });
      }
      // Each fork's prefix was in the cache the agent's own request made.
      expect(results).toHaveLength(2);
      for (const r of results) expect((r.usage.cachedTokens ?? 0) / r.usage.promptTokens).toBeGreaterThanOrEqual(0.9);
    } finally {
      await engine.close();
      await server.close();
    }
  });

  it('through @ai-sdk/anthropic on the Messages route: the forks’ bodies are the agent’s bytes up to its last message, and its cache breakpoint serves them', async () => {
    const server: LocalServer = await startLocalServer({ port: 0, captureRequests: true });
    const engine = await engineFor(server.url, 'anthropic');
    const results: ForkResult[] = [];
    try {
      const anthropic = createAnthropic({ baseURL: `${server.url}/v1`, apiKey: KEY });
      const fork = forkTool({
        engine,
        model: 'claude-sonnet-4-5',
        system: SYSTEM,
        tools: { lookup },
        fanOut: { onResult: (r) => void results.push(r) },
      });
      // The agent marks its conversation for Anthropic's cache, as an AI SDK user does (providerOptions).
      const messages = [
        { role: 'user' as const, content: PROMPT, providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
      ];
      const answer = await generateText({
        model: anthropic('claude-sonnet-4-5'),
        system: SYSTEM,
        tools: { lookup, fork },
        messages,
        stopWhen: stepCountIs(3),
      });
      expect(answer.text).toBe('parent done');
      expect(String(answer.steps[0]?.toolResults[0]?.output)).toContain('MARKER-5A7C');
      const bodies = server.requests.filter((r) => r.route === 'messages').map((r) => r.body);
      const forks = bodies.filter((b) => b.includes('<fork-boilerplate>'));
      const first = bodies.find((b) => !b.includes('<fork-boilerplate>')) as string;
      expect(forks).toHaveLength(2);
      const shared = first.slice(0, first.indexOf('}]}]', first.indexOf('"messages"')) + 3);
      expect(shared).toContain('"cache_control":{"type":"ephemeral"}');
      for (const body of forks) expect(body.startsWith(shared)).toBe(true);
      // The tools as the agent's generateText rendered them: the engine calls in the same mode (a streamed Anthropic request marks its tools eager_input_streaming).
      for (const body of forks) expect(JSON.stringify(JSON.parse(body).tools)).toBe(JSON.stringify(JSON.parse(first).tools));
      expect(results).toHaveLength(2);
      for (const r of results) expect((r.usage.cachedTokens ?? 0) / r.usage.promptTokens).toBeGreaterThanOrEqual(0.9);
    } finally {
      await engine.close();
      await server.close();
    }
  });

  it('with the agent traced, each fork’s fan-out is a child of the AI SDK’s tool-call span for its call', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    provider.register();
    const engine = await engineFor(serve.url);
    try {
      const openai = createOpenAI({ baseURL: `${serve.url}/v1`, apiKey: KEY });
      const fork = forkTool({ engine, model: 'gpt-4.1-mini', system: SYSTEM });
      const answer = await generateText({
        model: openai.chat('gpt-4.1-mini'),
        system: SYSTEM,
        tools: { fork },
        messages: [{ role: 'user', content: PROMPT }],
        stopWhen: stepCountIs(3),
        experimental_telemetry: { isEnabled: true },
      });
      expect(answer.text).toBe('parent done');
      const spans = exporter.getFinishedSpans();
      const toolSpans = spans.filter((x) => x.name === 'ai.toolCall');
      const agents = spans.filter((x) => x.name === 'invoke_agent fork');
      expect(toolSpans).toHaveLength(2);
      expect(agents).toHaveLength(2);
      for (const agent of agents) {
        const fanOut = spans.find((x) => x.spanContext().spanId === agent.parentSpanContext?.spanId);
        expect(fanOut?.name).toBe('invoke_workflow fan-out');
        const toolSpan = toolSpans.find((x) => x.spanContext().spanId === fanOut?.parentSpanContext?.spanId);
        expect(toolSpan?.attributes['ai.toolCall.id']).toBe(agent.attributes['gen_ai.agent.id']);
      }
    } finally {
      await engine.close();
      await provider.shutdown();
      trace.disable();
    }
  });

  it('background mode: the call returns a placeholder at once, and the result comes to onResult', async () => {
    const engine = await engineFor(serve.url);
    try {
      const delivered: { result: ForkResult; toolCallId: string }[] = [];
      let done: () => void = () => undefined;
      const bothDelivered = new Promise<void>((resolve) => (done = resolve));
      const fork = forkTool({
        engine,
        model: 'gpt-4.1-mini',
        system: SYSTEM,
        // Both forks at once here (the other tests: the first alone until its response begins).
        warmup: 'none',
        onResult: (result, call) => {
          delivered.push({ result, toolCallId: call.toolCallId });
          if (delivered.length === 2) done();
        },
      });
      const openai = createOpenAI({ baseURL: `${serve.url}/v1`, apiKey: KEY });
      const answer = await generateText({
        model: openai.chat('gpt-4.1-mini'),
        system: SYSTEM,
        tools: { fork },
        messages: [{ role: 'user', content: PROMPT }],
        stopWhen: stepCountIs(3),
      });
      expect(answer.text).toBe('parent done');
      for (const r of answer.steps[0]?.toolResults ?? []) expect(String(r.output)).toMatch(/^Fork \S+ started in the background/);
      await bothDelivered;
      expect(delivered.map((d) => d.result.status)).toEqual(['completed', 'completed']);
      expect(delivered.map((d) => d.result.text).sort()).toEqual(['RECALL MARKER-[0-9A-F]{4}: MARKER-5A7C', 'second fork done'].sort());
    } finally {
      await engine.close();
    }
  });
});
