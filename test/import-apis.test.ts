// Internal: importSession (src/import/load.ts), what loadSession reads a file with, returning the import's summary and origins too.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine, formatImportSummary, type ParentSession, parseSession } from '../src/index.js';
import { importSession } from '../src/import/load.js';
import { recall as recallOn } from './support/recall.js';

/*
 * Issue 22, what was left: logged API requests read as the APIs read them inside content parts and
 * blocks (every extra listed in one pass, what is kept byte for byte as the source had it), and a
 * Qwen Code session recorded through Anthropic becoming an anthropic-messages session. Each test
 * asserts what a fork of the imported session sees (the local simulator's RECALL).
 */

const F = 'test/fixtures/import';
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-import-apis-'));

let engine: ForkEngine;
beforeAll(async () => {
  engine = await ForkEngine.create({ provider: { kind: 'local' }, threads: 1 });
});
afterAll(async () => {
  await engine.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** What a fork of `session` answers to `RECALL pattern` (test/support/recall.ts), on this file's engine. */
const recall = (session: ParentSession, pattern: string): Promise<string[]> => recallOn(engine, session, pattern);

function file(name: string, body: unknown): string {
  const path = join(tmp, name);
  writeFileSync(path, JSON.stringify(body, null, 2));
  return path;
}

async function imported(path: string, options: Parameters<typeof importSession>[1] = {}) {
  const result = await importSession(path, options);
  expect(parseSession(result.session)).toBe(result.session);
  return result;
}

/**
 * `value` as JSON without the keys `drop` names and the null keys `nulls` names (at any depth), the
 * others in their own order: what the source holds once those are left out.
 */
const without = (value: unknown, drop: readonly string[], nulls: readonly string[] = []): string =>
  JSON.stringify(value, (key, inner) => (drop.includes(key) || (inner === null && nulls.includes(key)) ? undefined : inner));

describe('OpenAI Chat Completions logs: content parts read as the API reads them', () => {
  const image = {
    type: 'image_url',
    image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low', alt: 'a chart' },
    uploadId: 'u-7',
  };
  const body = {
    model: 'gpt-4.1',
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'You review refunds.', cache_control: { type: 'ephemeral' }, id: 'sys-1' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'The audit code is MARKER-OP3T.', annotations: [], index: 0 },
          image,
          { type: 'text', text: 'Which fee applies?', cache_control: null },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'REFUND_FEE = 2.25 applies.', logprobs: null },
          { type: 'refusal', refusal: 'Nothing else.', index: 1 },
        ],
      },
      { role: 'user', content: 'Thanks.' },
    ],
  };

  it('every extra and null field of a part, and of its image_url, is left out and listed in one pass; the rest keeps its bytes and key order', async () => {
    const { session, summary } = await imported(file('openai-parts.json', body));
    expect(summary.dropped.map((d) => [d.path, d.what])).toEqual([
      ['messages[0].content[0].id', '"id" of a text part'],
      ['messages[1].content[0].annotations', '"annotations" of a text part'],
      ['messages[1].content[0].index', '"index" of a text part'],
      ['messages[1].content[1].uploadId', '"uploadId" of an image part'],
      ['messages[1].content[1].image_url.alt', '"alt" of an image part\'s "image_url"'],
      ['messages[1].content[2].cache_control', '"cache_control" of a text part'],
      ['messages[2].content[0].logprobs', '"logprobs" of a text part'],
      ['messages[2].content[1].index', '"index" of a refusal part'],
    ]);
    expect(summary.dropped[5]?.reason).toBe('null, which the API reads as the field left out');
    expect(summary.dropped[0]?.reason).toBe(
      'not a field the API takes on a text part: the client that wrote the log added it for its own use',
    );
    const messages = (session as unknown as { messages: unknown[] }).messages;
    expect(JSON.stringify(messages)).toBe(
      without(body.messages, ['id', 'annotations', 'index', 'uploadId', 'alt'], ['cache_control', 'logprobs']),
    );
    expect(await recall(session, 'MARKER-[0-9A-Z]{4}|REFUND_FEE = [0-9.]+')).toEqual(['MARKER-OP3T', 'REFUND_FEE = 2.25']);
  });

  it("a part keeps every field the session schema takes: a prompt_cache_breakpoint (GPT-5.6) is the API's, not a client's extra", async () => {
    const part = { type: 'text', text: 'The long shared prefix.', prompt_cache_breakpoint: { mode: 'explicit' } };
    const body = { model: 'gpt-5.6', messages: [{ role: 'user', content: [part] }] };
    const { session, summary } = await imported(file('breakpoint.json', body));
    expect(summary.dropped).toEqual([]);
    expect((session as { messages: { content: unknown[] }[] }).messages[0]?.content).toEqual([part]);
  });

  it('what the API itself refuses inside a part stays an error, with its path and rule', async () => {
    const bad = file('openai-bad-part.json', {
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hi', index: 0 },
            { type: 'video', url: 'x' },
          ],
        },
      ],
    });
    await expect(importSession(bad)).rejects.toThrow(
      `${bad}: messages[0].content[1].type: must be "text", "image_url", "input_audio" or "file", not "video"`,
    );
  });
});

describe('Anthropic Messages logs: content blocks read as the API reads them', () => {
  const signature = 'EqQBCkgIBxABGAIiQL+sig==';
  const body = {
    model: 'claude-sonnet-4-5',
    max_tokens: 2048,
    system: [{ type: 'text', text: 'You audit refunds.', cache_control: { type: 'ephemeral' }, source: 'prompt-library' }],
    tools: [{ name: 'read_file', description: 'Reads a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Audit code MARKER-AB2C.', citations: null, ts: 1764000000 }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Read the refunds module.', signature, index: 0 },
          { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix', index: 1 },
          {
            type: 'tool_use',
            id: 'toolu_01Xy',
            name: 'read_file',
            input: { path: 'src/refunds.ts' },
            partial_json: '',
            cache_control: null,
          },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_01Xy',
            content: [{ type: 'text', text: 'export const REFUND_FEE = 4.5;', display: 'collapsed' }],
            is_error: false,
            duration_ms: 12,
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'The fee is fixed.', citations: null, cache_control: { type: 'ephemeral' } }] },
    ],
  };

  it('extras inside system, text, thinking, tool_use and tool_result blocks (and the blocks inside a tool_result) are listed in one pass; real fields kept as they are', async () => {
    const { session, summary } = await imported(file('anthropic-blocks.json', body), { format: 'anthropic-messages' });
    expect(summary.dropped.map((d) => d.path)).toEqual([
      'system[0].source',
      'messages[0].content[0].ts',
      'messages[1].content[0].index',
      'messages[1].content[1].index',
      'messages[1].content[2].partial_json',
      'messages[2].content[0].duration_ms',
      'messages[2].content[0].content[0].display',
    ]);
    const out = session as unknown as { system: unknown; messages: { content: Record<string, unknown>[] }[] };
    // Real fields stay: cache_control, citations (null is the API's own value there), signature, data, is_error, and a null cache_control where the SDK types `| null`.
    expect(out.messages[1]?.content[0]).toEqual({ type: 'thinking', thinking: 'Read the refunds module.', signature });
    expect(out.messages[1]?.content[1]).toEqual({ type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' });
    expect(JSON.stringify(out.messages)).toBe(without(body.messages, ['ts', 'index', 'partial_json', 'display', 'duration_ms']));
    expect(JSON.stringify(out.system)).toBe(without(body.system, ['source']));
    expect(formatImportSummary(summary)).toContain(
      'messages[2].content[0].content[0].display: "display" of a text block: not a field the API takes on a text block: the client that wrote the log added it for its own use',
    );
    expect(await recall(session, 'MARKER-[0-9A-Z]{4}|REFUND_FEE = [0-9.]+')).toEqual(['MARKER-AB2C', 'REFUND_FEE = 4.5']);
  });

  it("a cache_control on a thinking block is kept for validation, which names the API's rule", async () => {
    const bad = file('anthropic-thinking-cache.json', {
      ...body,
      messages: [
        body.messages[0],
        { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature, cache_control: { type: 'ephemeral' } }] },
      ],
    });
    await expect(importSession(bad, { format: 'anthropic-messages' })).rejects.toThrow(
      `${bad}: messages[1].content[0].cache_control: a thinking block cannot carry cache_control (Anthropic's API refuses it): mark another block`,
    );
  });
});

describe('Qwen Code through Anthropic (issue 22): an anthropic-messages session, never a request the provider cannot route', () => {
  it('auth_type "anthropic": converted after Qwen Code\'s own Anthropic converter, the provider named, the whitespace block listed at its line', async () => {
    const { session, summary } = await imported(`${F}/qwen-code-anthropic.jsonl`);
    expect(session.format).toBe('anthropic-messages');
    expect(summary.shape).toBe('anthropic-messages');
    expect(summary.model).toEqual({ name: 'claude-sonnet-4-5', from: 'records' });
    const messages = (
      session as unknown as { messages: { role: string; content: { type: string; id?: string; tool_use_id?: string }[] }[] }
    ).messages;
    expect(messages.map((m) => [m.role, m.content.map((b) => b.type).join('+')])).toEqual([
      ['user', 'text'],
      ['assistant', 'tool_use'],
      ['user', 'tool_result'],
      ['assistant', 'text'],
      ['user', 'text'],
    ]);
    expect(messages[2]?.content[0]?.tool_use_id).toBe(messages[1]?.content[0]?.id);
    expect((session as unknown as { max_tokens: number }).max_tokens).toBe(8192);
    expect(summary.notes).toEqual([
      "1 thought part left out (as Qwen Code's resume strips them)",
      'recorded with auth_type "anthropic" (Anthropic\'s API): converted to an anthropic-messages session; run it with --provider anthropic (or the local server)',
      "max_tokens 8192: the session sets no maxOutputTokens (forkpool's choice; the Messages API requires one)",
    ]);
    expect(summary.dropped.map((d) => [d.line, d.path, d.what])).toEqual([
      [5, undefined, 'a "system" record (ui_telemetry)'],
      [6, 'message.parts[0]', 'whitespace-only text'],
    ]);
    expect(await recall(session, 'MARKER-[0-9A-Z]{4}|REFUND_FEE = [0-9.]+|I[ ]should[ ]read')).toEqual([
      'MARKER-QA8N',
      'REFUND_FEE = 3.75',
    ]);
  });

  it("with no model recorded, the default model is Anthropic's, not Gemini's", async () => {
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(`${F}/qwen-code-anthropic.jsonl`, 'utf8').replace(/,"model":"claude-sonnet-4-5"/g, '');
    const path = join(tmp, 'qwen-anthropic-no-model.jsonl');
    writeFileSync(path, text);
    const { session, summary } = await imported(path);
    expect(summary.model).toEqual({ name: 'claude-sonnet-4-5', from: 'default' });
    expect(session.format).toBe('anthropic-messages');
  });
});
