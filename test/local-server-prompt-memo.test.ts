// Internal: the simulator's prompt hashing with remembered units (src/local-server/core/prompt-hash.ts,
// prefix-memo.ts, json-spans.ts) against the rendering it replaces: the whole prompt rendered to text
// and hashed in one pass, as every request did before (the reference below is that code, kept here).
import { describe, expect, it } from 'vitest';
import { renderMessages } from '../src/local-server/anthropic/render.js';
import { validateMessagesRequest } from '../src/local-server/anthropic/validate.js';
import { boundaries } from '../src/local-server/core/boundaries.js';
import { fmix } from '../src/local-server/core/chain.js';
import { bodySpans } from '../src/local-server/core/json-spans.js';
import { parseJsonBody } from '../src/local-server/core/json.js';
import { createPrefixMemo, type PrefixMemo } from '../src/local-server/core/prefix-memo.js';
import { hashPrompt, startOf, type PromptUnit } from '../src/local-server/core/prompt-hash.js';
import type { PromptFields } from '../src/local-server/core/types.js';
import { geminiPrompt } from '../src/local-server/gemini/prompt.js';
import { validateGenerateRequest } from '../src/local-server/gemini/validate.js';
import { renderChat } from '../src/local-server/openai/render.js';
import { validateChatRequest } from '../src/local-server/openai/validate.js';
import { createState, type ServerState } from '../src/local-server/state.js';
import { client, MODEL, serversClosedAfterEach } from './fixtures/local-server/client.js';

const start = serversClosedAfterEach();

// ---- The reference: render whole, hash whole (the code before units were remembered). ----

function seedOf(label: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function referenceHash(text: string, blockTokens: number, label: string): { tokens: number; keys: number[]; digest: string } {
  const blockChars = blockTokens * 4;
  const keys: number[] = [];
  let h1 = seedOf(label);
  let h2 = h1 ^ 0x9e3779b9;
  for (let start = 0; start < text.length; start += blockChars) {
    const end = Math.min(text.length, start + blockChars);
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 + c, 0x5bd1e995) ^ (h2 >>> 15);
    }
    if (end - start === blockChars) keys.push(fmix(h1) * 0x200000 + (fmix(h2 ^ end) & 0x1fffff));
  }
  const digest = ((fmix(h1 ^ text.length) ^ fmix(h2)) >>> 0).toString(16).padStart(8, '0');
  return { tokens: Math.ceil(text.length / 4), keys, digest };
}

function referenceFields(fields: PromptFields): string {
  let text = '';
  if (fields.systemInstruction) text += `<system>${JSON.stringify(fields.systemInstruction.parts)}\n`;
  if (fields.tools && fields.tools.length > 0) text += `<tools>${JSON.stringify(fields.tools)}\n`;
  if (fields.toolConfig) text += `<tool_config>${JSON.stringify(fields.toolConfig)}\n`;
  for (const content of fields.contents) text += `<${content.role || 'user'}>${JSON.stringify(content.parts)}\n`;
  return text;
}

// ---- Inputs: deterministic text with what JSON escapes and what UTF-16 splits. ----

function prose(seed: number, chars: number): string {
  const words = ['cache', 'fork', 'é', '日本語', '😀', 'say "hi"', 'back\\slash', 'line\nbreak', 'tab\t', '{[', ']}', 'ü'];
  let x = seed * 2654435761 || 1;
  let text = '';
  while (text.length < chars) {
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    text += `${words[x % words.length]} `;
  }
  return text;
}

type Json = Record<string, unknown>;

const history = (turns: number, seed = 0): Json[] =>
  Array.from({ length: turns }, (_, i) =>
    i % 3 === 2
      ? { role: 'model', parts: [{ functionCall: { name: 'read', args: { path: `f${i}`, n: i } } }] }
      : { role: i % 3 === 0 ? 'user' : 'model', parts: [{ text: prose(seed + i, 200 + ((i * 37) % 700)) }] },
  );

const ask = (directive: string): Json => ({ role: 'user', parts: [{ text: `Directive: ${directive}` }] });

function geminiBody(contents: Json[], system = 'You are terse.'): Json {
  // @google/genai's order: contents first, then what its config carries.
  return {
    contents,
    systemInstruction: { parts: [{ text: system }] },
    tools: [{ functionDeclarations: [{ name: 'read' }] }],
    generationConfig: { temperature: 0 },
  };
}

/** The Gemini prompt of `text` through the memo, and the reference for the same request. */
function bothGemini(state: ServerState, text: string, model = MODEL): { got: unknown; want: unknown } {
  const request = validateGenerateRequest(parseJsonBody(text));
  const hashed = geminiPrompt(state, request, model, undefined, Buffer.from(text));
  const got = { tokens: hashed.tokens, keys: hashed.keys, digest: hashed.digest };
  return { got, want: referenceHash(referenceFields(request), state.cache.config.blockTokens, model) };
}

describe('local server: a prompt hashed from remembered units equals the prompt rendered and hashed whole', () => {
  it('Gemini: repeated prefixes with new endings, edits, reformatting, other models, duplicate and escaped keys', () => {
    const state = createState({}, undefined);
    const prefix = history(40);
    const bodies = [
      JSON.stringify(geminiBody([...prefix, ask('REPLY one')])),
      JSON.stringify(geminiBody([...prefix, ask('REPLY two')])),
      JSON.stringify(geminiBody([...prefix, ask('REPLY two'), { role: 'model', parts: [{ text: 'two' }] }, ask('REPLY three')])),
      // An edit in the middle: everything after it is new.
      JSON.stringify(
        geminiBody([...prefix.slice(0, 20), { role: 'user', parts: [{ text: 'edited' }] }, ...prefix.slice(21), ask('REPLY four')]),
      ),
      // The same request laid out otherwise: other bytes, the same prompt.
      JSON.stringify(geminiBody([...prefix, ask('REPLY one')]), null, 2),
      ` \n${JSON.stringify(geminiBody([...prefix, ask('REPLY one')]))}\t`,
      // Another system instruction: nothing is shared.
      JSON.stringify(geminiBody([...prefix, ask('REPLY five')], 'You are verbose.')),
      // Duplicate keys: JSON.parse keeps the last.
      `{"contents":[{"role":"user","parts":[{"text":"first"}]}],${JSON.stringify(geminiBody([...prefix, ask('REPLY six')])).slice(1)}`,
      `${JSON.stringify(geminiBody([...prefix, ask('REPLY seven')])).slice(0, -1)},"contents":${JSON.stringify([...prefix.slice(0, 5), ask('REPLY seven')])}}`,
      // A key spelled with an escape is not remembered (its spans are not looked for).
      JSON.stringify(geminiBody([...prefix, ask('REPLY eight')])).replace('"contents"', '"cont\\u0065nts"'),
      JSON.stringify({ contents: [...prefix, ask('REPLY nine')] }),
      JSON.stringify(geminiBody([...prefix, ask('REPLY one')])),
    ];
    for (const text of bodies) {
      const { got, want } = bothGemini(state, text);
      expect(got).toEqual(want);
    }
    const other = bothGemini(state, bodies[0] as string, 'gemini-2.5-pro');
    expect(other.got).toEqual(other.want);
    expect(state.prompts.nodes()).toBeGreaterThan(40);
  });

  it('Gemini: a request naming an explicit cache resumes from the cache hashed at creation', async () => {
    const server = await start();
    const ai = client(server.url);
    const systemInstruction = 'You are terse.';
    const cached = history(24, 7) as never[];
    const cache = await ai.caches.create({ model: MODEL, config: { contents: cached, systemInstruction } });
    const own = [ask('REPLY cached')] as never[];
    const viaCache = await ai.models.generateContent({ model: MODEL, contents: own, config: { cachedContent: cache.name as string } });
    const whole = await ai.models.generateContent({ model: MODEL, contents: [...cached, ...own], config: { systemInstruction } });
    // The context hash ends the response id: the same prompt, rendered the same.
    const digest = (id: string | undefined): string | undefined => id?.split('-').pop();
    expect(digest(viaCache.responseId)).toBe(digest(whole.responseId));
    expect(viaCache.usageMetadata?.promptTokenCount).toBe(whole.usageMetadata?.promptTokenCount);
    expect(viaCache.usageMetadata?.cachedContentTokenCount).toBe(cache.usageMetadata?.totalTokenCount);
  });

  it('Chat Completions: keys, digest and message ends as rendered whole; marks as without the memo', () => {
    const memo = createPrefixMemo();
    const messages: Json[] = [{ role: 'system', content: 'Be brief.' }];
    for (let i = 0; i < 30; i++) messages.push({ role: i % 2 ? 'assistant' : 'user', content: prose(i, 300) });
    const tools = [{ type: 'function', function: { name: 'read', parameters: { type: 'object' } } }];
    for (const [i, last] of ['one', 'two', 'three'].entries()) {
      const body = { model: 'gpt-4.1-mini', messages: [...messages.slice(0, 30 - i), { role: 'user', content: `REPLY ${last}` }], tools };
      const text = JSON.stringify(body);
      const request = validateChatRequest(parseJsonBody(text));
      const got = renderChat(request, 32, { bytes: Buffer.from(text), memo });
      const plain = renderChat(request, 32);
      let whole = `<tools>${JSON.stringify(tools)}\n`;
      const ends: number[] = [];
      for (const message of request.messages) {
        whole += `${JSON.stringify(message)}\n`;
        ends.push(whole.length);
      }
      const want = referenceHash(whole, 32, 'gpt-4.1-mini');
      expect({ tokens: got.prompt.tokens, keys: got.prompt.keys, digest: got.prompt.digest }).toEqual(want);
      expect(got.messageEnds).toEqual(ends);
      expect(got.marks).toEqual(plain.marks);
    }
  });

  it('Anthropic: blocks, ends and keys as rendered whole, breakpoints moving from message to message', () => {
    const memo = createPrefixMemo();
    const turns: Json[] = [];
    for (let i = 0; i < 24; i++)
      turns.push({ role: i % 2 ? 'assistant' : 'user', content: i % 5 === 0 ? prose(i, 250) : [{ type: 'text', text: prose(i, 250) }] });
    const tools = [{ name: 'read', description: 'Read', input_schema: { type: 'object' } }];
    const marked = (message: Json): Json => ({
      ...message,
      content: [{ type: 'text', text: JSON.stringify(message.content), cache_control: { type: 'ephemeral' } }],
    });
    for (let n = 20; n <= 24; n += 2) {
      const messages = [...turns.slice(0, n - 1), marked(turns[n - 1] as Json), { role: 'user', content: `REPLY ${n}` }];
      const text = JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 8,
        system: 'Be brief.',
        tools,
        tool_choice: { type: 'auto' },
        messages,
      });
      const request = validateMessagesRequest(parseJsonBody(text));
      const got = renderMessages(request, { bytes: Buffer.from(text), memo });
      const plain = renderMessages(request);
      expect(got.blocks).toEqual(plain.blocks);
      expect(got.marks).toEqual(plain.marks);
      let whole = '';
      const ends: number[] = [];
      const add = (tag: string, block: Json): void => {
        const { cache_control: _marker, ...rest } = block;
        whole += `<${tag}>${JSON.stringify(rest)}\n`;
        ends.push(whole.length);
      };
      for (const tool of tools) add('tool', tool);
      add('system', { type: 'text', text: 'Be brief.' });
      whole += `<settings>${JSON.stringify({ tool_choice: { type: 'auto' }, thinking: undefined })}\n`;
      for (const message of request.messages) {
        if (typeof message.content === 'string') add(message.role, { type: 'text', text: message.content });
        else for (const block of message.content) add(message.role, block);
      }
      expect({ tokens: got.prompt.tokens, keys: got.prompt.keys, digest: got.prompt.digest }).toEqual(
        referenceHash(whole, 64, 'claude-sonnet-4-5'),
      );
      expect(got.messageEnds).toEqual(ends);
    }
  });

  it('boundary keys: equal exactly when the model and the text up to there are', () => {
    const render = (model: string, first: string, second: string) => {
      const request = validateChatRequest({
        model,
        messages: [
          { role: 'user', content: first },
          { role: 'user', content: second },
        ],
      });
      return boundaries(renderChat(request, 16), [0, 1]);
    };
    const [a0, a1] = render('m', 'one', 'two');
    const [b0, b1] = render('m', 'one', 'three');
    const [c0] = render('n', 'one', 'two');
    expect(a0?.key).toBe(b0?.key);
    expect(a1?.key).not.toBe(b1?.key);
    expect(c0?.key).not.toBe(a0?.key);
    expect(a1?.tokens).toBe(
      Math.ceil(`${JSON.stringify({ role: 'user', content: 'one' })}\n${JSON.stringify({ role: 'user', content: 'two' })}\n`.length / 4),
    );
  });
});

describe('local server: the prompt memo stays within its bound', () => {
  const hashWith = (memo: PrefixMemo, text: string): void => {
    const state = { ...createState({}, undefined), prompts: memo };
    const { got, want } = bothGemini(state, text);
    expect(got).toEqual(want);
  };

  it('evicts least recently used units past its budget, tails before heads, and answers the same', () => {
    const budget = 64 * 1024;
    const memo = createPrefixMemo(budget);
    for (let round = 0; round < 3; round++) {
      for (let p = 0; p < 6; p++) {
        const prefix = history(60, p * 1000);
        hashWith(memo, JSON.stringify(geminiBody([...prefix, ask(`REPLY ${round}`)])));
        expect(memo.bytes()).toBeLessThanOrEqual(budget);
      }
    }
    expect(memo.nodes()).toBeGreaterThan(0);
    // A prefix far over the budget: hashed right, remembered only as far as the budget allows.
    hashWith(memo, JSON.stringify(geminiBody([...history(600, 99), ask('REPLY big')])));
    expect(memo.bytes()).toBeLessThanOrEqual(budget);
  });

  it('renders only the units it does not know, by kind and bytes', () => {
    const memo = createPrefixMemo();
    const rendered: string[] = [];
    const unit = (kind: string, text: string): PromptUnit => ({
      kind,
      source: Buffer.from(text),
      marked: true,
      render: () => {
        rendered.push(text);
        return [text];
      },
    });
    const start = startOf('root', 'model');
    const first = hashPrompt([unit('a', 'one'), unit('a', 'two'), unit('a', 'three')], start, 4, memo);
    expect(rendered).toEqual(['one', 'two', 'three']);
    rendered.length = 0;
    const again = hashPrompt([unit('a', 'one'), unit('a', 'two'), unit('a', 'four')], start, 4, memo);
    expect(rendered).toEqual(['four']);
    rendered.length = 0;
    hashPrompt([unit('b', 'one'), unit('a', 'two')], start, 4, memo);
    expect(rendered).toEqual(['one', 'two']);
    // Blocks of 4 characters: the first ends inside "two", the second inside the new unit.
    expect(again.keys[0]).toBe(first.keys[0]);
    expect(again.keys[1]).not.toBe(first.keys[1]);
    expect(again.ends).toEqual([3, 6, 10]);
    expect(again.marks.slice(0, 2)).toEqual(first.marks.slice(0, 2));
  });

  it('what is left after evictions still answers the same', () => {
    const memo = createPrefixMemo(4096);
    for (let i = 0; i < 5; i++) hashWith(memo, JSON.stringify(geminiBody([...history(20, i), ask('REPLY x')])));
    // Whatever was evicted, what is left is a tree reachable from a root: walking again finds the same answers.
    for (let i = 0; i < 5; i++) hashWith(memo, JSON.stringify(geminiBody([...history(20, i), ask('REPLY x')])));
    expect(memo.bytes()).toBeLessThanOrEqual(4096);
  });
});

describe('local server: body spans', () => {
  const spansOf = (text: string, arrayKey = 'list') => {
    const bytes = Buffer.from(text);
    const spans = bodySpans(bytes, arrayKey);
    if (!spans) return undefined;
    const slice = (span: { start: number; end: number }): unknown => JSON.parse(bytes.subarray(span.start, span.end).toString());
    return {
      members: Object.fromEntries([...spans.members].map(([key, span]) => [key, slice(span)])),
      elements: spans.elements?.map(slice),
    };
  };

  it('finds each member and element as JSON.parse reads them', () => {
    const value = {
      a: 'quote " and backslash \\ and both \\" and a trailing backslash \\',
      list: [{ text: '{not [structure' }, 'ü日本😀', 12.5e3, true, null, [], {}, ['"]'], { deep: { er: [1, [2, [3]]] } }],
      n: -0.5,
      t: false,
      z: null,
      e: {},
    };
    for (const text of [JSON.stringify(value), JSON.stringify(value, null, 3), `\r\n ${JSON.stringify(value, null, '\t')} \n`]) {
      const found = spansOf(text);
      expect(found?.members).toEqual(value);
      expect(found?.elements).toEqual(value.list);
    }
  });

  it('keeps the last of duplicate keys, as JSON.parse does', () => {
    expect(spansOf('{"list":[1,2],"x":1,"list":[3]}')?.elements).toEqual([3]);
    expect(spansOf('{"list":[1,2],"list":"no"}')?.elements).toBeUndefined();
    expect(spansOf('{"list":[1],"x":1,"x":2}')?.members.x).toBe(2);
  });

  it('gives up on what it does not expect', () => {
    expect(spansOf('{"li\\u0073t":[1]}')).toBeUndefined();
    expect(spansOf('[1,2]')).toBeUndefined();
    expect(spansOf('{"list":[1,2]')).toBeUndefined();
    expect(spansOf('{"list":"unterminated}')).toBeUndefined();
    expect(spansOf('{}')?.members).toEqual({});
    expect(spansOf('{"list":[]}')?.elements).toEqual([]);
  });
});
