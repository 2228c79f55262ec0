import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, ForkEngine, type ForkEngineOptions, type ForkTask, type ParentSession } from '../src/index.js';
import { startLocalServer, type LocalServer, type UsagePreset } from '../src/local-server/index.js';
import { differences, fixtureOf, normalise, type ResponseIds } from './support/request-bodies.js';

/*
 * The request bodies the simulator receives, byte for byte, for each example session and each
 * provider that speaks its shape (and the cache modes that change what is sent): three forks each,
 * one of which calls a tool the session declares so that its second request carries the result,
 * one of which starts from the completed turns. The bodies are compared with a committed fixture
 * (test/fixtures/request-bodies/<session>.<provider>[.<mode>].json); FORKPOOL_UPDATE_BODIES=1
 * writes the fixtures instead. What the simulator draws at random is normalised
 * (test/support/request-bodies.ts); nothing else is.
 */

const UPDATE = process.env.FORKPOOL_UPDATE_BODIES === '1';
const FIXTURES = 'test/fixtures/request-bodies';
const KEY = 'sk-request-bodies-never-sent-anywhere';
const AI_SDK_KEY_ENV = 'FORKPOOL_TEST_REQUEST_BODIES_KEY';

// Tools the example sessions declare, answering with fixed text so the bodies never depend on the files of this checkout.
const workspace = [
  defineTool({
    name: 'read_file',
    description: 'Reads a file.',
    parameters: z.object({ path: z.string(), offset: z.number().optional(), limit: z.number().optional() }),
    execute: ({ path }) => `1\tcontents of ${path}`,
  }),
  defineTool({
    name: 'list_dir',
    description: 'Lists a folder.',
    parameters: z.object({ path: z.string() }),
    execute: ({ path }) => ({ entries: [`${path}/a.ts`, `${path}/b.ts`] }),
  }),
  defineTool({
    name: 'glob',
    description: 'Finds files.',
    parameters: z.object({ pattern: z.string() }),
    execute: ({ pattern }) => ({ files: [`match-of-${pattern}`] }),
  }),
  defineTool({
    name: 'grep',
    description: 'Searches files.',
    parameters: z.object({ pattern: z.string(), path: z.string().optional() }),
    execute: ({ pattern }) => ({ matches: [`a.ts:1: ${pattern}`] }),
  }),
];
const notes = [
  defineTool({
    name: 'lookup',
    description: 'Looks a note up.',
    parameters: z.object({ key: z.string() }),
    execute: ({ key }) => ({ note: `the note on ${key}` }),
  }),
];

function tasks(call: string): ForkTask[] {
  return [
    { id: 'recall', directive: 'Quote the marker from the conversation.\nRECALL MARKER-[0-9A-F]{4}' },
    { id: 'tool', directive: `Look it up, then answer.\n${call}\nREPLY looked it up` },
    { id: 'completed-turns', history: 'completed-turns', directive: 'Say that you are done.\nREPLY done' },
  ];
}

const READ = 'CALL read_file {"path":"src/engine/fork-loop.ts","limit":20}';
const LOOKUP = 'CALL lookup {"key":"cache"}';

interface Case {
  session: string;
  /** A call of a tool the session declares. */
  call: string;
  /** Responses with cache: 'explicit': the parent's last response is stored first and the forks name it. */
  storedResponse?: boolean;
}

/** One engine and one simulator, for each session its provider speaks: starting the engine's thread is what takes the time. */
interface Group {
  provider: string;
  mode?: string;
  /** The simulator's Chat Completions preset (the provider's). */
  usage?: UsagePreset;
  options: (url: string) => ForkEngineOptions;
  cases: Case[];
}

const GEMINI: Case[] = [
  { session: 'session', call: READ },
  { session: 'notes-session', call: LOOKUP },
];
const CHAT: Case[] = [{ session: 'openai-session', call: READ }];
const AI_SDK: Case[] = [{ session: 'ai-sdk-session', call: READ }];

const local = (url: string) => ({ provider: { kind: 'local' as const, url } });
const gemini = (url: string) => ({ provider: { kind: 'gemini' as const, baseUrl: url, apiKey: KEY } });
const anthropic = (url: string) => ({ provider: { kind: 'anthropic' as const, baseUrl: url, apiKey: KEY } });
const chatKind = (kind: 'openai' | 'deepseek' | 'dashscope' | 'openai-compatible') => (url: string) => ({
  provider: { kind, baseUrl: `${url}/v1`, apiKey: KEY },
});
const aiSdkOpenAI = (method: 'chat' | 'responses', mode?: 'generate') => (url: string) => ({
  provider: {
    kind: 'ai-sdk' as const,
    package: '@ai-sdk/openai',
    factory: 'createOpenAI',
    method,
    model: 'gpt-4.1-mini',
    settings: { baseURL: `${url}/v1`, apiKey: { env: AI_SDK_KEY_ENV } },
    ...(mode ? { mode } : {}),
  },
});

const GROUPS: Group[] = [
  {
    provider: 'local',
    options: local,
    cases: [...GEMINI, ...CHAT, { session: 'anthropic-session', call: READ }, { session: 'responses-session', call: READ }],
  },
  { provider: 'local', mode: 'explicit', options: (url) => ({ ...local(url), cache: 'explicit' }), cases: [GEMINI[0] as Case] },
  { provider: 'gemini', options: gemini, cases: GEMINI },
  // The notes session is far below Gemini's minimum for a cached content (2,048 tokens): only the implicit runs take it.
  { provider: 'gemini', mode: 'explicit', options: (url) => ({ ...gemini(url), cache: 'explicit' }), cases: [GEMINI[0] as Case] },
  { provider: 'openai', usage: 'openai', options: chatKind('openai'), cases: [...CHAT, { session: 'responses-session', call: READ }] },
  {
    provider: 'openai',
    mode: 'explicit',
    usage: 'openai',
    options: (url) => ({ ...chatKind('openai')(url), cache: 'explicit' }),
    cases: [{ session: 'responses-session', call: READ, storedResponse: true }],
  },
  // DeepSeek's 3 s cache build is waited for by warm-up; it changes no byte sent.
  { provider: 'deepseek', usage: 'deepseek', options: (url) => ({ ...chatKind('deepseek')(url), cacheBuildMs: 0 }), cases: CHAT },
  { provider: 'dashscope', usage: 'dashscope', options: chatKind('dashscope'), cases: CHAT },
  {
    provider: 'dashscope',
    mode: 'explicit',
    usage: 'dashscope',
    options: (url) => ({ ...chatKind('dashscope')(url), cache: 'explicit' }),
    cases: CHAT,
  },
  { provider: 'openai-compatible', usage: 'none', options: chatKind('openai-compatible'), cases: CHAT },
  { provider: 'anthropic', options: anthropic, cases: [{ session: 'anthropic-session', call: READ }] },
  {
    provider: 'anthropic',
    mode: 'ttl-1h',
    options: (url) => ({ ...anthropic(url), cacheTtl: '1h' }),
    cases: [{ session: 'anthropic-session', call: READ }],
  },
  { provider: 'ai-sdk-openai-chat', usage: 'openai', options: aiSdkOpenAI('chat'), cases: AI_SDK },
  { provider: 'ai-sdk-openai-chat', mode: 'generate', usage: 'openai', options: aiSdkOpenAI('chat', 'generate'), cases: AI_SDK },
  { provider: 'ai-sdk-openai-responses', usage: 'openai', options: aiSdkOpenAI('responses'), cases: AI_SDK },
  {
    provider: 'ai-sdk-anthropic',
    options: (url) => ({
      provider: {
        kind: 'ai-sdk',
        package: '@ai-sdk/anthropic',
        factory: 'createAnthropic',
        model: 'claude-sonnet-4-5',
        settings: { baseURL: `${url}/v1`, apiKey: { env: AI_SDK_KEY_ENV } },
      },
    }),
    cases: AI_SDK,
  },
];

function example(name: string): ParentSession {
  return JSON.parse(readFileSync(`examples/${name}.json`, 'utf8')) as ParentSession;
}

/** The parent's last request sent with the official SDK and stored; the session gains its output, as `forkpool run --previous-response` expects. */
async function storeParent(url: string, session: ParentSession): Promise<{ session: ParentSession; id: string }> {
  const { format: _format, ...body } = session as ParentSession & { input: unknown[] };
  const input = [...(body.input as unknown[]), { role: 'user', content: 'REPLY Mapped.' }];
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: KEY, maxRetries: 0 });
  const parent = await client.responses.create({
    ...(body as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming),
    input: input as OpenAI.Responses.ResponseInput,
    store: true,
  });
  // Its items' ids carry the server's random tag; the session gets a fixed one, so its prefix id (the forks' prompt_cache_key) is the same on every run.
  const output = JSON.parse(JSON.stringify(parent.output).replaceAll(ids(parent.id).tag, 'f1xedta9')) as unknown[];
  return { session: { ...session, input: [...input, ...output] } as ParentSession, id: parent.id };
}

/** One answer of the server's Responses route, whose id shows its tag. */
async function respond(url: string): Promise<string> {
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: KEY, maxRetries: 0 });
  return (await client.responses.create({ model: 'gpt-4.1-mini', input: 'REPLY tag', store: false })).id;
}

/** The random tag and the serial of the simulator's response `id`, which later ids are normalised against. */
function ids(id: string): ResponseIds {
  const found = /^resp_([0-9a-f]{8})([0-9a-f]{8})/.exec(id);
  if (found === null)
    throw new Error(`the simulator's response id ${id} is not resp_<tag><serial>…: test/support/request-bodies.ts must learn its new form`);
  return { tag: found[1] as string, serial: Number.parseInt(found[2] as string, 16) };
}

beforeAll(() => {
  process.env[AI_SDK_KEY_ENV] = KEY;
});
afterAll(() => {
  delete process.env[AI_SDK_KEY_ENV];
});

for (const g of GROUPS) {
  const label = [g.provider, ...(g.mode ? [g.mode] : [])].join('.');
  describe(`the request bodies ${label} sends are the fixtures', byte for byte`, () => {
    let server: LocalServer;
    let engine: ForkEngine;
    beforeAll(async () => {
      server = await startLocalServer({ captureRequests: true, ...(g.usage ? { usage: g.usage } : {}) });
      const declared = new Set(g.cases.map((c) => c.call));
      engine = await ForkEngine.create({
        ...g.options(server.url),
        threads: 1,
        concurrency: 1,
        tools: [...(declared.has(READ) ? workspace : []), ...(declared.has(LOOKUP) ? notes : [])],
      });
    });
    afterAll(async () => {
      await engine?.close();
      await server?.close();
    });

    for (const c of g.cases) {
      const name = `${c.session}.${label}`;
      it(name, async () => {
        let session = example(c.session);
        let storedResponse: string | undefined;
        if (c.storedResponse) ({ session, id: storedResponse } = await storeParent(server.url, session));
        // The simulator's Responses ids carry a tag drawn at random per server and the server's serial (resp_<tag><serial><digest>), and forks send back the ids of their calls.
        const responses =
          c.session === 'responses-session' || g.provider.endsWith('-responses')
            ? ids(storedResponse ?? (await respond(server.url)))
            : undefined;
        const start = server.requests.length;
        const results = await engine.fanOut(engine.freeze(session), tasks(c.call), storedResponse ? { storedResponse } : {}).results();
        for (const r of results) expect(r.status, `${name} ${r.id}: ${r.status === 'completed' ? '' : r.error.message}`).toBe('completed');
        expect(results.find((r) => r.id === 'tool')?.toolCalls).toBe(1);
        const actual = {
          session: `examples/${c.session}.json`,
          provider: g.provider,
          mode: g.mode ?? 'default',
          requests: normalise(server.requests.slice(start), responses),
        };
        const path = join(FIXTURES, `${name}.json`);
        const expected = fixtureOf(path, actual, UPDATE);
        if (expected === undefined)
          throw new Error(`${path} is missing: run FORKPOOL_UPDATE_BODIES=1 npx vitest run test/request-bodies.test.ts to write it`);
        const found = differences(expected.requests, actual.requests);
        expect(found, `${c.session} × ${g.provider}${g.mode ? ` (${g.mode})` : ''}, against ${path}:\n${found.join('\n')}`).toEqual([]);
      });
    }
  });
}
