import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Content } from '@google/genai';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { client, MODEL } from './fixtures/local-server/client.js';

let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer();
});
afterAll(async () => {
  await server.close();
});

const user = (text: string): Content => ({ role: 'user', parts: [{ text }] });

describe('local server: scripted model through the SDK', () => {
  it('REPLY, JSON and TOKENS shape the final answer', async () => {
    const ai = client(server.url);
    const reply = await ai.models.generateContent({ model: MODEL, contents: 'Directive: REPLY hello there' });
    expect(reply.text).toBe('hello there');
    expect(reply.candidates?.[0]?.finishReason).toBe('STOP');
    expect(reply.modelVersion).toBe(MODEL);
    expect(reply.responseId).toMatch(/^lsr-/);
    const usage = reply.usageMetadata;
    expect(usage?.promptTokenCount).toBeGreaterThan(0);
    expect(usage?.totalTokenCount).toBe((usage?.promptTokenCount ?? 0) + (usage?.candidatesTokenCount ?? 0));

    const json = await ai.models.generateContent({ model: MODEL, contents: 'some text\nJSON {"ok":true,"n":3}' });
    expect(JSON.parse(json.text ?? '')).toEqual({ ok: true, n: 3 });

    const long = await ai.models.generateContent({ model: MODEL, contents: 'TOKENS 200' });
    expect(long.text?.length).toBe(800);
    expect(long.usageMetadata?.candidatesTokenCount).toBe(200);
  });

  it('without a command answers with a Scope/Result report that hashes the context', async () => {
    const ai = client(server.url);
    const a = await ai.models.generateContent({ model: MODEL, contents: 'Directive: summarize the repo' });
    const b = await ai.models.generateContent({
      model: MODEL,
      contents: [user('other history'), { role: 'model', parts: [{ text: 'ok' }] }, user('Directive: summarize the repo')],
    });
    expect(a.text).toMatch(/^Scope: summarize the repo\nResult: no tool results; context [0-9a-f]{8}$/);
    expect(b.text?.startsWith('Scope: summarize the repo')).toBe(true);
    expect(b.text).not.toBe(a.text);
    const again = await ai.models.generateContent({ model: MODEL, contents: 'Directive: summarize the repo' });
    expect(again.text).toBe(a.text);
  });

  it('streams the same answer in SSE chunks, usage and finishReason in the last', async () => {
    const ai = client(server.url);
    const whole = await ai.models.generateContent({ model: MODEL, contents: 'TOKENS 120' });
    const chunks = [];
    for await (const chunk of await ai.models.generateContentStream({ model: MODEL, contents: 'TOKENS 120' })) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((c) => c.text ?? '').join('')).toBe(whole.text);
    const last = chunks[chunks.length - 1];
    expect(last?.candidates?.[0]?.finishReason).toBe('STOP');
    expect(chunks.slice(0, -1).every((c) => c.candidates?.[0]?.finishReason === undefined)).toBe(true);
    expect(last?.usageMetadata?.candidatesTokenCount).toBe(120);
    expect(last?.usageMetadata?.promptTokenCount).toBe(whole.usageMetadata?.promptTokenCount);
  });

  it('emits CALL lines as parallel calls on turn 1, CALL@2 on turn 2, then reports the results', async () => {
    const ai = client(server.url);
    const directive = user(
      '<fork-boilerplate>rules</fork-boilerplate>\nDirective: look around\nCALL read_file {"path":"a.txt"}\nCALL grep {"pattern":"TODO"}\nCALL@2 list_dir {}',
    );
    const turn1 = await ai.models.generateContent({ model: MODEL, contents: [directive] });
    const calls1 = turn1.functionCalls ?? [];
    expect(calls1.map((c) => [c.name, c.args])).toEqual([
      ['read_file', { path: 'a.txt' }],
      ['grep', { pattern: 'TODO' }],
    ]);
    expect(calls1.every((c) => /^call_[0-9a-f]{8}_\d$/.test(c.id ?? ''))).toBe(true);
    expect(new Set(calls1.map((c) => c.id)).size).toBe(2);

    const answered = (calls: typeof calls1): Content => ({
      role: 'user',
      parts: calls.map((c) => ({ functionResponse: { id: c.id, name: c.name ?? '', response: { output: `result of ${c.name}` } } })),
    });
    const history: Content[] = [directive, { role: 'model', parts: calls1.map((functionCall) => ({ functionCall })) }, answered(calls1)];
    const turn2 = await ai.models.generateContent({ model: MODEL, contents: history });
    expect(turn2.functionCalls?.map((c) => c.name)).toEqual(['list_dir']);

    const calls2 = turn2.functionCalls ?? [];
    history.push({ role: 'model', parts: calls2.map((functionCall) => ({ functionCall })) }, answered(calls2));
    const turn3 = await ai.models.generateContent({ model: MODEL, contents: history });
    expect(turn3.functionCalls).toBeUndefined();
    expect(turn3.text).toMatch(
      /^Scope: look around\nResult: 3 tool result\(s\) from read_file, grep, list_dir, digest [0-9a-f]{8}; context [0-9a-f]{8}$/,
    );
  });

  it('counts turns from the directive when a model acknowledgement follows it (inherited mid-turn seed)', async () => {
    const ai = client(server.url);
    const contents: Content[] = [
      user('parent asks'),
      { role: 'model', parts: [{ functionCall: { id: 'p1', name: 'agent', args: {} } }] },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'p1', name: 'agent', response: { output: 'placeholder' } } },
          { text: 'Directive: CALL read_file {"path":"x"}' },
        ],
      },
      { role: 'model', parts: [{ text: 'Understood.' }] },
      user('Begin.'),
    ];
    const res = await ai.models.generateContent({ model: MODEL, contents });
    expect(res.functionCalls?.map((c) => c.name)).toEqual(['read_file']);
  });

  it('RECALL finds a marker that only the inherited history holds', async () => {
    const ai = client(server.url);
    const history: Content[] = [user('remember MARKER-4711 for later'), { role: 'model', parts: [{ text: 'noted' }] }];
    const directive = user('Directive: RECALL MARKER-\\d+');
    const inherited = await ai.models.generateContent({ model: MODEL, contents: [...history, directive] });
    expect(inherited.text).toContain('MARKER-4711');
    const fresh = await ai.models.generateContent({ model: MODEL, contents: [directive] });
    expect(fresh.text).not.toContain('MARKER-4711');
    expect(fresh.text).toContain('no match');
    const inSystem = await ai.models.generateContent({
      model: MODEL,
      contents: [directive],
      config: { systemInstruction: 'secret MARKER-99' },
    });
    expect(inSystem.text).toContain('MARKER-99');
  });

  it('FORK lines become parallel agent calls; notifications fed back end up in the answer', async () => {
    const ai = client(server.url);
    const ask = user('FORK RECALL MARKER-\\d+\nFORK summarize the docs folder please');
    const first = await ai.models.generateContent({ model: MODEL, contents: [ask] });
    const calls = first.functionCalls ?? [];
    expect(calls.map((c) => c.name)).toEqual(['agent', 'agent']);
    expect(calls[0]?.args).toEqual({ description: 'RECALL MARKER-\\d+', prompt: 'RECALL MARKER-\\d+', subagent_type: 'fork' });
    expect(calls[1]?.args?.prompt).toBe('summarize the docs folder please');

    const history: Content[] = [
      ask,
      { role: 'model', parts: calls.map((functionCall) => ({ functionCall })) },
      {
        role: 'user',
        parts: calls.map((c) => ({
          functionResponse: { id: c.id, name: 'agent', response: { output: 'Fork started in the background.' } },
        })),
      },
    ];
    const second = await ai.models.generateContent({ model: MODEL, contents: history });
    expect(second.functionCalls).toBeUndefined();
    history.push({ role: 'model', parts: [{ text: second.text ?? '' }] });
    history.push(
      user(
        '<task-notification><task-id>t1</task-id><status>completed</status><result>RECALL MARKER-\\d+: MARKER-12 &amp; more</result></task-notification>',
      ),
    );
    const third = await ai.models.generateContent({ model: MODEL, contents: history });
    expect(third.functionCalls).toBeUndefined();
    expect(third.text).toContain('MARKER-12 & more');
  });

  it('countTokens counts the rendered prompt', async () => {
    const ai = client(server.url);
    const counted = await ai.models.countTokens({ model: MODEL, contents: 'REPLY x' });
    const generated = await ai.models.generateContent({ model: MODEL, contents: 'REPLY x' });
    expect(counted.totalTokens).toBe(generated.usageMetadata?.promptTokenCount);
  });
});
