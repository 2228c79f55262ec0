import { Agent, OpenAIResponsesModel, run, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ForkEngine, type ForkResult } from '../src/index.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { forkTool } from '../src/openai-agents/index.js';
import { startServe } from './fixtures/cli/serve.js';

/*
 * forkTool() in an OpenAI Agents SDK agent: the agent runs on the Agents SDK's own Responses model
 * (OpenAIResponsesModel over the official openai client, given the tool's fetch), calls the fork
 * tool twice in one turn, and the forks run on forkpool's pool through forkpool's OpenAI provider
 * against the same local server, which keeps the raw bodies (the bytes).
 */

const KEY = 'fp-agents-fork-tool-key-51c0';
const LONG = Array.from({ length: 400 }, (_, i) => `Rule ${i}: keep the answer short and cite the file you read.`).join('\n');
const INSTRUCTIONS = `You are the main agent.\n${LONG}`;
const PROMPT = [
  'Please remember MARKER-5A7C.',
  'CALL fork {"directive":"RECALL MARKER-[0-9A-F]{4}"}',
  'CALL fork {"directive":"REPLY second fork done"}',
  'REPLY parent done',
].join('\n');

const lookup = tool({
  name: 'lookup',
  description: 'Looks a key up.',
  parameters: z.object({ key: z.string() }),
  execute: async ({ key }) => `value of ${key}`,
});

let server: LocalServer;
// Offline: the Agents SDK would export its traces to OpenAI.
setTracingDisabled(true);

beforeAll(async () => {
  process.env.FORKPOOL_TEST_AGENTS_KEY = KEY;
  server = await startLocalServer({ port: 0, captureRequests: true, usage: 'openai' });
});
afterAll(async () => {
  await server?.close();
  delete process.env.FORKPOOL_TEST_AGENTS_KEY;
});

function engineFor(url: string): Promise<ForkEngine> {
  return ForkEngine.create({
    provider: { kind: 'openai', baseUrl: `${url}/v1`, apiKeyEnv: 'FORKPOOL_TEST_AGENTS_KEY' },
    threads: 2,
    spawnTools: ['fork'],
  });
}

/** The agent's first request up to the end of its last input item: what each fork's request begins with. */
function throughLastInput(body: string): string {
  const input = JSON.stringify((JSON.parse(body) as { input: unknown }).input);
  const at = body.indexOf(`"input":${input}`);
  expect(at).toBeGreaterThan(0);
  return body.slice(0, at + '"input":'.length + input.length - 1);
}

const isFork = (body: string): boolean => body.includes('<fork-boilerplate>');

describe('forkTool() in an OpenAI Agents SDK agent', () => {
  it('forks the run mid-turn: each fork answers as the tool’s output, its request is the agent’s bytes up to its last item, its prefix served from the cache', async () => {
    const engine = await engineFor(server.url);
    const results: ForkResult[] = [];
    const before = server.requests.length;
    try {
      const forks = forkTool({ engine, fanOut: { onResult: (r) => void results.push(r) } });
      const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, fetch: forks.fetch });
      const agent = new Agent({
        name: 'lead',
        instructions: INSTRUCTIONS,
        model: new OpenAIResponsesModel(client, 'gpt-4.1-mini'),
        tools: [lookup, forks.tool],
      });
      const answer = await run(agent, PROMPT, { maxTurns: 4 });
      expect(answer.finalOutput).toBe('parent done');

      const bodies = server.requests
        .slice(before)
        .filter((r) => r.route === 'responses')
        .map((r) => r.body);
      const forkBodies = bodies.filter(isFork);
      const [first, second] = bodies.filter((b) => !isFork(b)) as [string, string];
      expect(forkBodies).toHaveLength(2);
      // The forks' answers are the tool's outputs the agent sent back.
      const outputs = (JSON.parse(second).input as { type?: string; output?: string }[])
        .filter((item) => item.type === 'function_call_output')
        .map((item) => item.output);
      expect(outputs).toHaveLength(2);
      expect(outputs[0]).toContain('MARKER-5A7C');
      expect(outputs[1]).toBe('second fork done');

      const shared = throughLastInput(first);
      expect(shared).toContain('MARKER-5A7C');
      for (const body of forkBodies) {
        expect(body.startsWith(shared)).toBe(true);
        const sent = JSON.parse(body) as { tools: unknown; input: { type?: string; name?: string }[]; prompt_cache_key?: string };
        // The same tools, as the Agents SDK rendered them.
        expect(JSON.stringify(sent.tools)).toBe(JSON.stringify(JSON.parse(first).tools));
        // Seeded mid-turn: the model's two calls of the fork tool, as it output them.
        expect(sent.input.filter((item) => item.type === 'function_call' && item.name === 'fork')).toHaveLength(2);
        // The agent sent no prompt_cache_key, so neither do its forks (OpenAI routes by key and prefix).
        expect(sent.prompt_cache_key).toBeUndefined();
      }
      expect(results).toHaveLength(2);
      for (const r of results) expect((r.usage.cachedTokens ?? 0) / r.usage.promptTokens).toBeGreaterThanOrEqual(0.9);
    } finally {
      await engine.close();
    }
  });

  it('streamed, against forkpool serve in a process of its own: the recorder reads the stream’s last event, and the forks are served the agent’s prefix', async () => {
    const serve = await startServe(['--usage', 'openai']);
    const engine = await engineFor(serve.url);
    const results: ForkResult[] = [];
    try {
      const forks = forkTool({ engine, fanOut: { onResult: (r) => void results.push(r) } });
      const client = new OpenAI({ baseURL: `${serve.url}/v1`, apiKey: KEY, fetch: forks.fetch });
      const agent = new Agent({
        name: 'lead',
        instructions: INSTRUCTIONS,
        model: new OpenAIResponsesModel(client, 'gpt-4.1-mini'),
        tools: [forks.tool],
      });
      const streamed = await run(agent, PROMPT, { maxTurns: 4, stream: true });
      for await (const _event of streamed) {
        // The run is read to its end, as an agent's UI would.
      }
      await streamed.completed;
      expect(streamed.finalOutput).toBe('parent done');
      expect(results.map((r) => r.status)).toEqual(['completed', 'completed']);
      expect(results.map((r) => r.text).join('\n')).toContain('MARKER-5A7C');
      for (const r of results) expect((r.usage.cachedTokens ?? 0) / r.usage.promptTokens).toBeGreaterThanOrEqual(0.9);
    } finally {
      await engine.close();
      await serve.stop();
    }
  });

  it('forks carry the agent’s own prompt_cache_key where its body had it, once', async () => {
    const engine = await engineFor(server.url);
    const before = server.requests.length;
    try {
      const forks = forkTool({ engine });
      const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, fetch: forks.fetch });
      const agent = new Agent({
        name: 'lead',
        instructions: INSTRUCTIONS,
        model: new OpenAIResponsesModel(client, 'gpt-4.1-mini'),
        modelSettings: { providerData: { prompt_cache_key: 'agent-routing-key' } },
        tools: [forks.tool],
      });
      expect((await run(agent, PROMPT, { maxTurns: 4 })).finalOutput).toBe('parent done');
      const forkBodies = server.requests
        .slice(before)
        .filter((r) => r.route === 'responses' && isFork(r.body))
        .map((r) => r.body);
      expect(forkBodies).toHaveLength(2);
      for (const body of forkBodies) {
        expect(body.match(/"prompt_cache_key"/g)).toHaveLength(1);
        expect((JSON.parse(body) as { prompt_cache_key?: string }).prompt_cache_key).toBe('agent-routing-key');
      }
    } finally {
      await engine.close();
    }
  });

  it('in background mode the call returns at once and each fork’s result comes to onResult', async () => {
    const engine = await engineFor(server.url);
    try {
      const delivered: { id: string; text: string }[] = [];
      let forksEnded!: () => void;
      const ended = new Promise<void>((resolve) => (forksEnded = resolve));
      const forks = forkTool({
        engine,
        onResult: (result, call) => {
          delivered.push({ id: call.toolCallId, text: result.status === 'completed' ? result.text : result.status });
          if (delivered.length === 2) forksEnded();
        },
      });
      const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, fetch: forks.fetch });
      const agent = new Agent({
        name: 'lead',
        instructions: INSTRUCTIONS,
        model: new OpenAIResponsesModel(client, 'gpt-4.1-mini'),
        tools: [forks.tool],
      });
      const [answer] = await Promise.all([run(agent, PROMPT, { maxTurns: 4 }), ended]);
      expect(answer.finalOutput).toBe('parent done');
      const placeholders = answer.newItems
        .filter((item) => item.type === 'tool_call_output_item')
        .map((item) => String((item as { output: unknown }).output));
      expect(placeholders).toHaveLength(2);
      for (const text of placeholders) expect(text).toMatch(/started in the background/);
      expect(delivered.map((d) => d.text).sort()).toEqual(['RECALL MARKER-[0-9A-F]{4}: MARKER-5A7C', 'second fork done'].sort());
    } finally {
      await engine.close();
    }
  });

  it('in background mode, a conversation a fork cannot start from is the call’s error, told to the model', async () => {
    const engine = await engineFor(server.url);
    const before = server.requests.length;
    try {
      const forks = forkTool({ engine, onResult: () => expect.unreachable('no fork runs') });
      const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, fetch: forks.fetch });
      const agent = new Agent({
        name: 'lead',
        instructions: INSTRUCTIONS,
        model: new OpenAIResponsesModel(client, 'gpt-4.1-mini'),
        tools: [forks.tool],
      });
      // The agent continues a conversation the API stores: its request holds only the new items.
      const first = await run(agent, 'REPLY noted', { maxTurns: 2 });
      const answer = await run(agent, PROMPT, { maxTurns: 4, previousResponseId: first.lastResponseId });
      expect(answer.finalOutput).toBe('parent done');
      const bodies = server.requests
        .slice(before)
        .filter((r) => r.route === 'responses')
        .map((r) => r.body);
      expect(bodies.filter(isFork)).toHaveLength(0);
      const outputs = (JSON.parse(bodies.at(-1) as string).input as { type?: string; output?: string }[]).filter(
        (item) => item.type === 'function_call_output',
      );
      expect(outputs).toHaveLength(2);
      for (const item of outputs) expect(item.output).toContain('previous_response_id');
    } finally {
      await engine.close();
    }
  });

  it('forks a later turn: the items the Agents SDK sent back from earlier turns are the fork’s too', async () => {
    const engine = await engineFor(server.url);
    const results: ForkResult[] = [];
    const before = server.requests.length;
    try {
      const forks = forkTool({ engine, fanOut: { onResult: (r) => void results.push(r) } });
      const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, fetch: forks.fetch });
      const agent = new Agent({
        name: 'lead',
        instructions: INSTRUCTIONS,
        model: new OpenAIResponsesModel(client, 'gpt-4.1-mini'),
        tools: [lookup, forks.tool],
      });
      const prompt = [
        'Please remember MARKER-5A7C.',
        'CALL@1 lookup {"key":"readme"}',
        'CALL@2 fork {"directive":"RECALL value of [a-z]+"}',
        'CALL@2 fork {"directive":"REPLY second fork done"}',
        'REPLY parent done',
      ].join('\n');
      const answer = await run(agent, prompt, { maxTurns: 5 });
      expect(answer.finalOutput).toBe('parent done');
      const bodies = server.requests
        .slice(before)
        .filter((r) => r.route === 'responses')
        .map((r) => r.body);
      const forkBodies = bodies.filter(isFork);
      // The agent's second request: its first turn's call and its output, as the Agents SDK sent them back.
      const second = bodies.filter((b) => !isFork(b))[1] as string;
      expect(second).toContain('value of readme');
      expect(forkBodies).toHaveLength(2);
      for (const body of forkBodies) expect(body.startsWith(throughLastInput(second))).toBe(true);
      expect(results.map((r) => r.status)).toEqual(['completed', 'completed']);
      expect(results.map((r) => r.text).join('\n')).toContain('value of readme');
      for (const r of results) expect((r.usage.cachedTokens ?? 0) / r.usage.promptTokens).toBeGreaterThanOrEqual(0.9);
    } finally {
      await engine.close();
    }
  });

  it('without the tool’s fetch on the agent’s client, the model is told what is missing and no fork runs', async () => {
    const engine = await engineFor(server.url);
    const before = server.requests.length;
    try {
      const forks = forkTool({ engine });
      const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY });
      const agent = new Agent({
        name: 'lead',
        instructions: INSTRUCTIONS,
        model: new OpenAIResponsesModel(client, 'gpt-4.1-mini'),
        tools: [forks.tool],
      });
      const answer = await run(agent, PROMPT, { maxTurns: 4 });
      expect(answer.finalOutput).toBe('parent done');
      const bodies = server.requests
        .slice(before)
        .filter((r) => r.route === 'responses')
        .map((r) => r.body);
      expect(bodies.filter(isFork)).toHaveLength(0);
      const outputs = (JSON.parse(bodies[1] as string).input as { type?: string; output?: string }[]).filter(
        (item) => item.type === 'function_call_output',
      );
      expect(outputs).toHaveLength(2);
      for (const item of outputs) expect(item.output).toContain('new OpenAI({ fetch: forks.fetch })');
    } finally {
      await engine.close();
    }
  });
});
