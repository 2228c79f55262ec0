// Internal: importSession (src/import/load.ts), what loadSession reads a file with, returning the import's summary and origins too.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForkEngine, InputError, type OpenAIResponsesSession, type ParentSession, parseSession } from '../src/index.js';
import { importSession } from '../src/import/load.js';
import { runCli } from './fixtures/cli/run-cli.js';
import { recall as recallOn } from './support/recall.js';

/*
 * Logged Responses API requests (`client.responses.create` bodies, or their input items alone)
 * read as openai-responses sessions, as the API reads them (src/import/openai-responses.ts):
 * recognized by their content, null and client-added fields left out and listed, the request's
 * transport and bookkeeping left out with a reason, the rest kept byte for byte; what a fork of the
 * imported session sees (the local simulator's RECALL).
 */

const F = 'test/fixtures/responses-import';
const BODY = `${F}/request-body.json`;
const ITEMS = `${F}/input-items.json`;
const tmp = mkdtempSync(join(tmpdir(), 'forkpool-import-responses-'));

let engine: ForkEngine;
beforeAll(async () => {
  engine = await ForkEngine.create({ provider: { kind: 'local' }, threads: 1 });
});
afterAll(async () => {
  await engine.close();
  rmSync(tmp, { recursive: true, force: true });
});

const recall = (session: ParentSession, pattern: string): Promise<string[]> => recallOn(engine, session, pattern);
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

function file(name: string, body: unknown): string {
  const path = join(tmp, name);
  writeFileSync(path, JSON.stringify(body, null, 2));
  return path;
}

async function imported(path: string, options: Parameters<typeof importSession>[1] = {}) {
  const result = await importSession(path, options);
  expect(parseSession(result.session)).toBe(result.session);
  return { ...result, out: result.session as OpenAIResponsesSession };
}

/** `value` as JSON without the keys `drop` names (at any depth) and the null values of the keys `nulls` names. */
const without = (value: unknown, drop: readonly string[], nulls: readonly string[] = []): string =>
  JSON.stringify(value, (key, inner) => (drop.includes(key) || (inner === null && nulls.includes(key)) ? undefined : inner));

describe('a logged Responses request body', () => {
  it('is recognized, and kept byte for byte but for what the API never read, each listed with its reason', async () => {
    const { out, summary } = await imported(BODY);
    expect(summary).toMatchObject({
      format: 'openai-responses',
      kind: 'an OpenAI Responses request body',
      shape: 'openai-responses',
      messages: 5,
      model: { name: 'gpt-5-mini', from: 'file' },
    });
    expect(summary.dropped.map((d) => [d.path, d.what, d.reason])).toEqual([
      ['temperature', 'a request field', 'null, which the API reads as the field left out'],
      ['stream', 'a request field', "a transport setting: forkpool sends each fork's calls itself (the provider's mode)"],
      ['metadata', 'a request field', "the caller's tags for one request, not part of the conversation"],
      ['user', 'a request field', "the caller's end-user id, not part of the conversation"],
      [
        'input[0].sender',
        '"sender" of a "user" message',
        'not a field the API takes on a "user" message: the client that wrote the log added it for its own use',
      ],
      ['input[0].phase', '"phase" of a "user" message', 'null, which the API reads as the field left out'],
      [
        'input[0].content[0].ts',
        '"ts" of an input_text part',
        'not a field the API takes on an input_text part: the client that wrote the log added it for its own use',
      ],
      ['input[1].status', '"status" of a reasoning item', 'null, which the API reads as the field left out'],
      [
        'input[2].parsed_arguments',
        '"parsed_arguments" of a function_call item',
        'not a field the API takes on a function_call item: the client that wrote the log added it for its own use',
      ],
      ['input[3].id', '"id" of a function_call_output item', 'null, which the API reads as the field left out'],
      [
        'input[3].tool_name',
        '"tool_name" of a function_call_output item',
        'not a field the API takes on a function_call_output item: the client that wrote the log added it for its own use',
      ],
      [
        'input[4].content[0].display',
        '"display" of an output_text part',
        'not a field the API takes on an output_text part: the client that wrote the log added it for its own use',
      ],
    ]);
    expect(summary.notes).toEqual([]);
    const body = readJson(BODY);
    // The session's fields in the body's order; include and store kept (they decide what a fork's responses return).
    expect(Object.keys(out)).toEqual([
      'format',
      'model',
      'instructions',
      'input',
      'tools',
      'tool_choice',
      'reasoning',
      'include',
      'store',
      'prompt_cache_key',
    ]);
    expect(JSON.stringify(out.input)).toBe(
      without(body.input, ['sender', 'ts', 'parsed_arguments', 'tool_name', 'display'], ['phase', 'status', 'id']),
    );
    expect(out.tools).toEqual(body.tools);
    expect(summary.declared).toEqual([{ name: 'search_code', from: 'recorded' }]);
    expect(summary.toolsUsed).toEqual([{ name: 'search_code', calls: 1 }]);
    expect(await recall(out, 'MARKER-[0-9A-Z]{4}|REFUND_FEE = [0-9.]+')).toEqual(['MARKER-RS7Q', 'REFUND_FEE = 2.5']);
  });

  it('a request that continues state kept at OpenAI: previous_response_id left out, and a note says the conversation before it is missing', async () => {
    const path = file('continued.json', {
      model: 'gpt-5-mini',
      previous_response_id: 'resp_68f1',
      input: 'And the cap?',
      background: false,
    });
    const { out, summary } = await imported(path);
    expect(out).toEqual({ format: 'openai-responses', model: 'gpt-5-mini', input: 'And the cap?' });
    expect(summary.messages).toBe(1);
    expect(summary.dropped.map((d) => [d.path, d.reason])).toEqual([
      [
        'previous_response_id',
        'state kept at OpenAI: the conversation before this request is not in the log, and a session is the whole conversation',
      ],
      ['background', "a transport setting: forkpool reads each fork's response itself"],
    ]);
    expect(summary.notes).toEqual([
      'the request continues state kept at OpenAI (previous_response_id): the session holds only the input this request sent, not the conversation before it',
    ]);
  });

  it('what the API itself refuses stays an error naming the file, the path and the rule', async () => {
    const builtIn = file('built-in.json', {
      model: 'gpt-5',
      input: [
        { role: 'user', content: 'q', ts: 1 },
        { type: 'web_search_call', id: 'ws_1', status: 'completed' },
      ],
    });
    await expect(importSession(builtIn)).rejects.toThrow(
      `${builtIn}: input[1].type: "web_search_call" items come from web search, a built-in tool forkpool does not run: forkpool runs the session's own function tools`,
    );
    const chatPart = file('chat-part.json', { model: 'gpt-5', input: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }] });
    await expect(importSession(chatPart)).rejects.toThrow(
      `${chatPart}: input[0].content[0].type: is Chat Completions' part type: a Responses input part is { "type": "input_text", "text" }`,
    );
    const noInput = file('no-input.json', { model: 'gpt-5', input: 42 });
    const err = await importSession(noInput).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toBe(`${noInput}: input: must be a string or an array of input items (the conversation)`);
  });
});

describe('Responses input items alone, and recognizing the format', () => {
  it('a JSON array of items is a session on the default model; its calls are counted, their tool left undeclared', async () => {
    const { out, summary } = await imported(ITEMS);
    expect(summary).toMatchObject({
      format: 'openai-responses',
      kind: 'OpenAI Responses input items (a JSON array)',
      messages: 5,
      model: { name: 'gpt-4.1-mini', from: 'default' },
      dropped: [],
    });
    expect(out).toEqual({ format: 'openai-responses', model: 'gpt-4.1-mini', input: readJson(ITEMS) as unknown });
    expect(summary.undeclared.map((t) => t.name)).toEqual(['lookup']);
    expect(await recall(out, 'MARKER-[0-9A-Z]{4}|AUDIT_CAP = [0-9]+')).toEqual(['AUDIT_CAP = 40', 'MARKER-IT5K']);
  });

  it.each<[string, string, unknown]>([
    ['a body with input and model', 'openai-responses', { model: 'gpt-5', input: 'hi' }],
    ['a body with input and instructions', 'openai-responses', { instructions: 'Be brief.', input: [{ role: 'user', content: 'hi' }] }],
    ['messages with Responses parts', 'openai-responses', [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }]],
    [
      'an assistant output message',
      'openai-responses',
      [
        { role: 'user', content: 'hi' },
        {
          type: 'message',
          role: 'assistant',
          id: 'msg_1',
          status: 'completed',
          content: [{ type: 'output_text', text: 'yo', annotations: [] }],
        },
      ],
    ],
    ['only string messages: Chat Completions, as before', 'openai-chat', [{ role: 'user', content: 'hi' }]],
    ['a forkpool session in the Responses shape: passed through', 'forkpool', { format: 'openai-responses', model: 'gpt-5', input: 'hi' }],
  ])('%s → %s', async (name, format, body) => {
    const { summary } = await imported(file(`detect-${name.replace(/\W+/g, '-')}.json`, body));
    expect(summary.format).toBe(format);
    if (format === 'forkpool') expect(summary.shape).toBe('openai-responses');
  });

  it('--format openai-responses reads a body whatever it looks like; a file of neither format names the Responses shape among those tried', async () => {
    const { summary } = await imported(file('forced.json', { input: [{ role: 'user', content: 'hi' }] }), { format: 'openai-responses' });
    expect(summary.format).toBe('openai-responses');
    await expect(importSession(file('neither.json', [42]))).rejects.toThrow(
      /openai-responses \(a request body \{ "model", "input", … \} or an array of input items\)/,
    );
  });
});

describe('forkpool import and run on a logged Responses request', () => {
  it('import writes the session and lists what it left out; run forks it on the local server', async () => {
    const out = join(tmp, 'imported.json');
    const run = await runCli(['import', BODY, '--out', out]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `forkpool: imported ${BODY} (an OpenAI Responses request body) as a session in OpenAI Responses' shape ("format": "openai-responses")`,
    );
    expect(run.stderr).toContain('  dropped    12 left out: 12 other records or fields');
    expect(run.stderr).toContain(
      '             input[2].parsed_arguments: "parsed_arguments" of a function_call item: not a field the API takes on a function_call item',
    );
    expect(parseSession(JSON.parse(readFileSync(out, 'utf8')))).toMatchObject({ format: 'openai-responses', model: 'gpt-5-mini' });

    const tasks = join(tmp, 'tasks.jsonl');
    writeFileSync(tasks, `${JSON.stringify({ id: 'recall', directive: 'RECALL MARKER-[0-9A-Z]{4}' })}\n`);
    const forked = await runCli(['run', '--session', ITEMS, '--tasks', tasks, '--output-format', 'json']);
    expect(forked.code, forked.stderr).toBe(0);
    expect(forked.stderr).toContain(
      `forkpool: read ${ITEMS} as OpenAI Responses input items (a JSON array): 5 messages kept, 1 tool left undeclared, model gpt-4.1-mini`,
    );
    const report = JSON.parse(forked.stdout) as { results: { status: string; text: string }[] };
    expect(report.results).toMatchObject([{ status: 'completed', text: 'RECALL MARKER-[0-9A-Z]{4}: MARKER-IT5K' }]);
  });
});
