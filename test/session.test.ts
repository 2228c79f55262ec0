// Internal: formatPath (src/input/errors.ts): the JSON paths in InputError's messages are its public face; loadTasks (src/session/load.ts), a task file read whole into an array (its public face is streamTasks); ForkTaskSchema (src/session/schema.ts) and geminiSessionSchema() (src/shapes/loading.ts), the schemas fanOut and parseSession check with; everything else comes through forkpool.
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { InputError, loadSession, parseSession, parseTasks } from '../src/index.js';
import { geminiSessionSchema } from '../src/shapes/loading.js';
import { ForkTaskSchema } from '../src/session/schema.js';
import { loadTasks } from '../src/session/load.js';
import { formatPath } from '../src/session/index.js';
import { geminiSession } from './support/gemini-session.js';
import { errorOf } from './support/input-error.js';

/** Qwen Code's words (PR #8066) for a wildcard that is not one of its MCP forms. */
const WILDCARD_RULE = 'wildcard entries must be "mcp__*" or a trailing MCP tool-prefix pattern such as "mcp__github__read_*"';

const session = {
  model: 'gemini-2.5-flash',
  systemInstruction: { parts: [{ text: 'You are helpful.' }] },
  tools: [{ functionDeclarations: [{ name: 'read_file', description: 'Reads', parametersJsonSchema: { type: 'object' } }] }],
  toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
  generationConfig: { temperature: 0.2, thinkingConfig: { thinkingBudget: 0 } },
  history: [
    { role: 'user', parts: [{ text: 'hi' }] },
    { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'read_file', args: { path: 'a' } }, thoughtSignature: 'sig' }] },
    { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'read_file', response: { output: 'x' } } }] },
    { role: 'model', parts: [{ text: 'done' }] },
  ],
};

async function rejectionOf(promise: Promise<unknown>): Promise<InputError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error('expected an InputError');
}

function withHistory(history: unknown[]): unknown {
  return { model: 'm', history };
}

describe('parseSession', () => {
  it('accepts a Gemini-shaped session and keeps unknown part kinds and keys untouched', () => {
    const input = structuredClone(session);
    input.history.push({ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } } as never] });
    const parsed = geminiSession(parseSession(input, 's.json'));
    expect(parsed).toEqual(input);
    expect(parsed.history[1]?.parts[0]).toEqual({
      functionCall: { id: 'c1', name: 'read_file', args: { path: 'a' } },
      thoughtSignature: 'sig',
    });
    expect(parsed.history[4]?.parts[0]).toEqual({ inlineData: { mimeType: 'image/png', data: 'AAAA' } });
  });

  it('accepts an empty history and a session without optional fields', () => {
    expect(parseSession({ model: 'm', history: [] })).toEqual({ model: 'm', history: [] });
  });

  it.each([
    [{ history: [] }, 's.json: model: is required'],
    [{ model: '', history: [] }, 's.json: model: the model name must not be empty'],
    [{ model: 'm' }, 's.json: history: must be an array of messages ({ "role", "parts" })'],
    [withHistory([{ role: 'bot', parts: [{ text: 'x' }] }]), 's.json: history[0].role: must be "user" or "model"'],
    [withHistory([{ role: 'user', parts: [] }]), 's.json: history[0].parts: a message must hold at least one part'],
    [withHistory([{ role: 'user', parts: [{}] }]), 's.json: history[0].parts[0]: a part must not be empty'],
    [withHistory([{ role: 'user', parts: [{ text: 3 }] }]), 's.json: history[0].parts[0].text: must be a string, not the number 3'],
    [
      withHistory([
        { role: 'user', parts: [{ text: 'a' }] },
        { role: 'model', parts: [{ text: 'b' }] },
        { role: 'user', parts: [{ text: 'c' }] },
        { role: 'model', parts: [{ functionCall: { args: {} } }] },
      ]),
      's.json: history[3].parts[0].functionCall.name: is required',
    ],
    [
      withHistory([{ role: 'model', parts: [{ functionCall: { name: 'f', args: [] } }] }]),
      's.json: history[0].parts[0].functionCall.args: must be a JSON object',
    ],
    [
      withHistory([{ role: 'user', parts: [{ functionResponse: { name: 'f' } }] }]),
      's.json: history[0].parts[0].functionResponse.response: is required',
    ],
    [
      withHistory([{ role: 'user', parts: [{ text: 'x', functionCall: { name: 'f' } }] }]),
      's.json: history[0].parts[0]: a part holds one kind of data, but this one holds text and functionCall',
    ],
    [
      { model: 'm', history: [], systemInstruction: { parts: [] } },
      's.json: systemInstruction.parts: a system instruction must hold at least one part',
    ],
    [
      { model: 'm', history: [], tools: [{ functionDeclarations: [{ name: 7 }] }] },
      's.json: tools[0].functionDeclarations[0].name: must be a string, not the number 7',
    ],
    [
      { model: 'm', history: [], tools: [{ functionDeclarations: [{ name: 'a' }] }, { functionDeclarations: [{ name: 'a' }] }] },
      's.json: tools[1].functionDeclarations[0].name: the function "a" is declared twice',
    ],
    [{ model: 'm', history: [], generationConfig: 'hot' }, 's.json: generationConfig: must be a JSON object, not a string'],
    [{ model: 'm', history: [], contents: [] }, 's.json: contents: is not a session field: the conversation goes in "history"'],
    [
      { model: 'm', history: [], temperature: 1 },
      's.json: temperature: is not a session field (allowed: format, model, systemInstruction, tools, toolConfig, generationConfig, history); it would not be forwarded to the model',
    ],
    [[], 's.json: a session must be a JSON object ({ "model", "history", … })'],
  ])('rejects %j with a located rule', (input, message) => {
    expect(errorOf(() => parseSession(input, 's.json')).message).toBe(message);
  });

  it('fills the InputError fields', () => {
    const err = errorOf(() => parseSession(withHistory([{ role: 'bot', parts: [{ text: 'x' }] }]), 'sess.json'));
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('InputError');
    expect(err.file).toBe('sess.json');
    expect(err.line).toBeUndefined();
    expect(err.path).toBe('history[0].role');
    expect(err.rule).toBe('must be "user" or "model"');
  });

  it('omits the file when no source is given', () => {
    expect(errorOf(() => parseSession({ history: [] })).message).toBe('model: is required');
  });

  it.each(['__proto__', 'constructor', 'prototype'])('rejects a %s key anywhere in the input', (key) => {
    const input = JSON.parse(`{"model":"m","history":[{"role":"user","parts":[{"text":"x","${key}":{"polluted":true}}]}]}`);
    const err = errorOf(() => parseSession(input, 's.json'));
    expect(err.path).toBe(`history[0].parts[0].${key}`);
    expect(err.rule).toBe(
      'keys named "__proto__", "constructor" or "prototype" are not allowed (they could tamper with object prototypes)',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('rejects nesting deeper than 64 levels and accepts 64', () => {
    const nest = (levels: number): unknown => {
      let value: unknown = 'leaf';
      for (let i = 0; i < levels; i++) value = { a: value };
      return value;
    };
    // session(1) → history(2) → message(3) → parts(4) → part(5) → functionCall(6) → args(7) → …
    const at = (levels: number) => withHistory([{ role: 'model', parts: [{ functionCall: { name: 'f', args: nest(levels) } }] }]);
    expect(() => parseSession(at(58))).not.toThrow();
    const err = errorOf(() => parseSession(at(59), 's.json'));
    expect(err.rule).toBe('nesting is deeper than 64 levels, which is not allowed');
    expect(err.path.startsWith('history[0].parts[0].functionCall.args.a.a')).toBe(true);
  });
});

describe('loadSession', () => {
  async function fileWith(name: string, text: string): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'forkpool-session-'));
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  }

  it('loads a valid file (with a byte-order mark)', async () => {
    const path = await fileWith('s.json', `\uFEFF${JSON.stringify(session, null, 2)}`);
    expect(await loadSession(path)).toEqual(session);
  });

  it('names a missing file', async () => {
    const err = await rejectionOf(loadSession('/nonexistent/forkpool/s.json'));
    expect(err.message).toBe('/nonexistent/forkpool/s.json: file not found');
    expect(err.file).toBe('/nonexistent/forkpool/s.json');
  });

  it('names a directory given as a file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'forkpool-dir-'));
    await mkdir(join(dir, 'x.json'));
    const err = await rejectionOf(loadSession(join(dir, 'x.json')));
    expect(err.message).toBe(`${join(dir, 'x.json')}: is a directory, not a file`);
  });

  it('reports invalid JSON with its line and column', async () => {
    const path = await fileWith('bad.json', '{\n  "model": "m",\n  "history": [,]\n}');
    const err = await rejectionOf(loadSession(path));
    expect(err.line).toBe(3);
    expect(err.message).toBe(`${path}:3: invalid JSON at column 15: unexpected token ','`);
  });

  it('reports truncated JSON at its end', async () => {
    const path = await fileWith('cut.json', '{"model": "m",\n"history": [');
    const err = await rejectionOf(loadSession(path));
    expect(err.line).toBe(2);
    expect(err.message).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: invalid JSON at column 13: `));
  });

  it('reports an empty file', async () => {
    const path = await fileWith('empty.json', '  \n');
    expect((await rejectionOf(loadSession(path))).message).toBe(`${path}: is empty (expected a JSON object)`);
  });

  it('names the file on a schema error', async () => {
    const path = await fileWith('s.json', JSON.stringify({ model: 'm', history: [{ role: 'user', parts: [{ text: 1 }] }] }));
    expect((await rejectionOf(loadSession(path))).message).toBe(`${path}: history[0].parts[0].text: must be a string, not the number 1`);
  });
});

describe('parseTasks', () => {
  it('parses JSONL, skipping blank lines', () => {
    const text = [
      '{"id":"a","directive":"find the bug"}',
      '',
      '   ',
      '{"id":"b","directive":"write tests","history":"completed-turns","forkTurns":2,"tools":["read_file"],"outputSchema":{"type":"object"},"maxTurns":5}',
      '{"id":"c","directive":"x","forkTurns":"all"}',
      '',
    ].join('\r\n');
    expect(parseTasks(text, 'tasks.jsonl')).toEqual([
      { id: 'a', directive: 'find the bug' },
      {
        id: 'b',
        directive: 'write tests',
        history: 'completed-turns',
        forkTurns: 2,
        tools: ['read_file'],
        outputSchema: { type: 'object' },
        maxTurns: 5,
      },
      { id: 'c', directive: 'x', forkTurns: 'all' },
    ]);
  });

  it("accepts a task's tools in the agent tool's forms: exact names, MCP servers, all MCP tools, MCP tool prefixes, and []", () => {
    const tools = ['read_file', 'mcp__github__create_issue', 'mcp__github', 'mcp__*', 'mcp__github__read_*', 'mcp__docs__*'];
    const text = [JSON.stringify({ id: 'a', directive: 'x', tools }), JSON.stringify({ id: 'b', directive: 'y', tools: [] })].join('\n');
    expect(parseTasks(text, 'tasks.jsonl')).toEqual([
      { id: 'a', directive: 'x', tools },
      { id: 'b', directive: 'y', tools: [] },
    ]);
  });

  it('names the line of a bad field, counting blank lines', () => {
    const lines = ['{"id":"a","directive":"x"}', '', '', '', '', '', '{"id":"b","directive":"y","forkTurns":0}'];
    const err = errorOf(() => parseTasks(lines.join('\n'), 'tasks.jsonl'));
    expect(err.message).toBe('tasks.jsonl:7: forkTurns: must be "all" or a positive integer');
    expect([err.file, err.line, err.path, err.rule]).toEqual(['tasks.jsonl', 7, 'forkTurns', 'must be "all" or a positive integer']);
  });

  it.each([
    ['{"id":"a","directive":"x","forkTurns":1.5}', 'tasks.jsonl:1: forkTurns: must be "all" or a positive integer'],
    ['{"id":"a","directive":"x","forkTurns":"2"}', 'tasks.jsonl:1: forkTurns: must be "all" or a positive integer'],
    ['{"directive":"x"}', 'tasks.jsonl:1: id: is required'],
    ['{"id":"","directive":"x"}', 'tasks.jsonl:1: id: a task id must not be empty'],
    ['{"id":"a"}', 'tasks.jsonl:1: directive: is required'],
    ['{"id":"a","directive":"   "}', 'tasks.jsonl:1: directive: the directive must not be empty'],
    // Two fields, as the common task has, but not its two: the schema still names what is wrong.
    ['{"id":"a","directve":"x"}', 'tasks.jsonl:1: directive: is required'],
    ['{"id":1,"directive":"x"}', 'tasks.jsonl:1: id: must be a string, not the number 1'],
    ['{"id":"a","directive":7}', 'tasks.jsonl:1: directive: must be a string, not the number 7'],
    ['{"id":"a","directive":"x","history":"all"}', 'tasks.jsonl:1: history: must be "inherit" or "completed-turns"'],
    // history's old name is a field like any other a task does not take: the list names history.
    [
      '{"id":"a","directive":"x","seed":"inherit"}',
      'tasks.jsonl:1: seed: is not a task field (allowed: id, directive, subagentType, history, forkTurns, tools, outputSchema, maxTurns, maxTokens); a fork task takes only these',
    ],
    ['{"id":"a","directive":"x","tools":"read_file"}', 'tasks.jsonl:1: tools: must be an array of tool names or MCP patterns'],
    ['{"id":"a","directive":"x","tools":["*"]}', 'tasks.jsonl:1: tools[0]: does not accept "*"; omit tools for unrestricted execution'],
    ['{"id":"a","directive":"x","tools":["ls","read_*"]}', `tasks.jsonl:1: tools[1]: "read_*": ${WILDCARD_RULE}`],
    ['{"id":"a","directive":"x","tools":["mcp__github*"]}', `tasks.jsonl:1: tools[0]: "mcp__github*": ${WILDCARD_RULE}`],
    ['{"id":"a","directive":"x","tools":["mcp__*__read"]}', `tasks.jsonl:1: tools[0]: "mcp__*__read": ${WILDCARD_RULE}`],
    ['{"id":"a","directive":"x","tools":["mcp__gh__*_*"]}', `tasks.jsonl:1: tools[0]: "mcp__gh__*_*": ${WILDCARD_RULE}`],
    ['{"id":"a","directive":"x","tools":[" ls"]}', 'tasks.jsonl:1: tools[0]: " ls" must not have surrounding whitespace'],
    ['{"id":"a","directive":"x","tools":[""]}', 'tasks.jsonl:1: tools[0]: must be a non-empty tool name'],
    ['{"id":"a","directive":"x","outputSchema":[]}', 'tasks.jsonl:1: outputSchema: must be a JSON Schema object'],
    [
      '{"id":"a","directive":"x","outputSchema":{"type":5}}',
      'tasks.jsonl:1: outputSchema: must be a JSON Schema object ("type" must be a string or an array of strings)',
    ],
    ['{"id":"a","directive":"x","maxTurns":0}', 'tasks.jsonl:1: maxTurns: must be a positive integer'],
    ['{"id":"a","directive":"x","maxTurns":2.5}', 'tasks.jsonl:1: maxTurns: must be a positive integer'],
    [
      '{"id":"a","directive":"x","model":"gemini-pro"}',
      "tasks.jsonl:1: model: a fork cannot change the model: every fork uses the parent session's model, because another model cannot read this model's prompt cache",
    ],
    [
      '{"id":"a","directive":"x","generationConfig":{}}',
      'tasks.jsonl:1: generationConfig: a fork cannot change generationConfig: sampling settings are part of the shared, cached prefix (use "outputSchema" to ask for a shaped answer)',
    ],
    [
      '{"id":"a","directive":"x","prio":1}',
      'tasks.jsonl:1: prio: is not a task field (allowed: id, directive, subagentType, history, forkTurns, tools, outputSchema, maxTurns, maxTokens); a fork task takes only these',
    ],
    ['{"id":"a","directive":"x","subagentType":"explore"}', 'tasks.jsonl:1: subagentType: must be "fork" or "general-purpose"'],
    [
      '{"id":"a","directive":"x","subagentType":"general-purpose","forkTurns":2}',
      'tasks.jsonl:1: forkTurns: only a fork inherits history: a "general-purpose" sub-agent starts from its directive alone',
    ],
    ['["a"]', 'tasks.jsonl:1: each line must be a JSON object ({ "id", "directive", … })'],
    ['{"id":"a","directive":}', "tasks.jsonl:1: invalid JSON at column 23: unexpected token '}'"],
    ['{"id":"a","directive":"x"', "tasks.jsonl:1: invalid JSON at column 26: expected ',' or '}' after property value"],
    [
      '{"id":"a","directive":"x","__proto__":{}}',
      'tasks.jsonl:1: __proto__: keys named "__proto__", "constructor" or "prototype" are not allowed (they could tamper with object prototypes)',
    ],
  ])('rejects %s', (line, message) => {
    expect(errorOf(() => parseTasks(line, 'tasks.jsonl')).message).toBe(message);
  });

  it('rejects duplicate ids, naming both lines', () => {
    const text = '{"id":"a","directive":"x"}\n{"id":"b","directive":"y"}\n\n{"id":"a","directive":"z"}';
    const err = errorOf(() => parseTasks(text, 'tasks.jsonl'));
    expect(err.message).toBe('tasks.jsonl:4: id: "a" repeats line 1; task ids must be unique');
  });

  it('rejects a file with no tasks', () => {
    expect(errorOf(() => parseTasks('\n  \n', 'tasks.jsonl')).message).toBe(
      'tasks.jsonl: holds no tasks (expected one JSON task object per line)',
    );
    expect(errorOf(() => parseTasks('')).message).toBe('holds no tasks (expected one JSON task object per line)');
  });

  it('the task schema alone also refuses a model', () => {
    const result = ForkTaskSchema.safeParse({ id: 'a', directive: 'x', model: 'other' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/^a fork cannot change the model/);
    expect(geminiSessionSchema().safeParse({ model: 'm', history: [] }).success).toBe(true);
  });
});

describe('loadTasks', () => {
  it('reads a file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'forkpool-tasks-'));
    const path = join(dir, 'tasks.jsonl');
    await writeFile(path, '{"id":"a","directive":"x"}\n{"id":"b","directive":"y"}\n');
    expect((await loadTasks(path)).map((t) => t.id)).toEqual(['a', 'b']);
  });

  it("reads standard input for '-'", async () => {
    const stdin = Readable.from([Buffer.from('{"id":"a","direc'), Buffer.from('tive":"ünïcode"}\n')]);
    expect(await loadTasks('-', stdin)).toEqual([{ id: 'a', directive: 'ünïcode' }]);
  });

  it('names <stdin> in errors from standard input', async () => {
    const stdin = Readable.from(['\n{"id":"a","directive":"x","forkTurns":-1}\n']);
    expect((await rejectionOf(loadTasks('-', stdin))).message).toBe('<stdin>:2: forkTurns: must be "all" or a positive integer');
  });

  it('names a missing file', async () => {
    expect((await rejectionOf(loadTasks('/nonexistent/tasks.jsonl'))).message).toBe('/nonexistent/tasks.jsonl: file not found');
  });
});

describe('formatPath', () => {
  it('writes indexes in brackets and odd keys quoted', () => {
    expect(formatPath(['history', 3, 'parts', 0, 'functionCall', 'name'])).toBe('history[3].parts[0].functionCall.name');
    expect(formatPath(['tools', 0, 'a-b'])).toBe('tools[0]["a-b"]');
    expect(formatPath([])).toBe('');
  });
});
