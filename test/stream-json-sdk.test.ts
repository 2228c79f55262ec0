import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { SDKMessage } from '@qwen-code/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParentEvent } from '../src/engine/parent-events.js';
import type { ForkResult } from '../src/result/fork-result.js';
import { parentLines, streamSession } from '../src/cli/stream-json.js';
import { shapeNamed } from '../src/shapes/registry.js';
import { jsonLines, runCli } from './fixtures/cli/run-cli.js';
import { startServe, type ServeProcess } from './fixtures/cli/serve.js';

/*
 * `forkpool prompt --output-format stream-json` as Qwen Code emits it, checked against the message
 * types of Qwen Code's own SDK (@qwen-code/sdk, a type-only dev dependency): the lines of real runs
 * (the built CLI against `forkpool serve` in another process, one run per session shape) and of a
 * scripted Gemini run without call ids are written into a .ts file, each line typed as the SDK
 * type for its kind, and compiled with the project's TypeScript.
 */

type Line = Record<string, any>;

const require = createRequire(import.meta.url);
const TSC = require.resolve('typescript/bin/tsc');
const TSC_TIMEOUT_MS = 60_000;

/*
 * Every kind of line: the parent's reply calls the agent tool (a fork) and read_file; the fork
 * calls read_file twice (one fails) and answers; the parent answers, then again after the
 * notification. The parent's own read_file result and the fork's are tool results of both scopes.
 */
const SCENARIO = [
  'FORK CALL read_file {"path":"package.json"}\\nCALL read_file {"path":"missing.txt"}\\nREPLY fork done',
  'CALL read_file {"path":"package.json"}',
  'RECALL fork done',
].join('\n');

const KEYS = { GEMINI_API_KEY: 'test-key', OPENAI_API_KEY: 'test-key', ANTHROPIC_API_KEY: 'test-key' };

let server: ServeProcess;
let tmp: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'forkpool-stream-sdk-'));
  server = await startServe();
});
afterAll(async () => {
  await server?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** The CLI's lines for one run of `prompt` against the served model. */
async function promptLines(
  session: string,
  provider: readonly string[],
  prompt = SCENARIO,
  extra: readonly string[] = [],
): Promise<{ code: number | null; stderr: string; lines: Line[] }> {
  const transcripts = mkdtempSync(join(tmp, 'transcripts-'));
  const run = await runCli(
    [
      'prompt',
      prompt,
      '--session',
      session,
      '--workspace',
      '.',
      ...provider,
      '--transcripts',
      transcripts,
      '--output-format',
      'stream-json',
      ...extra,
    ],
    { env: KEYS },
  );
  return { code: run.code, stderr: run.stderr, lines: jsonLines(run.stdout) as Line[] };
}

const PROVIDERS = (url: string): Record<string, { session: string; flags: string[] }> => ({
  gemini: { session: 'examples/session.json', flags: ['--provider', 'gemini', '--base-url', url] },
  'openai-chat': { session: 'examples/openai-session.json', flags: ['--provider', 'openai', '--base-url', `${url}/v1`] },
  'anthropic-messages': { session: 'examples/anthropic-session.json', flags: ['--provider', 'anthropic', '--base-url', url] },
  'openai-responses': { session: 'examples/responses-session.json', flags: ['--provider', 'openai', '--base-url', `${url}/v1`] },
  'ai-sdk': {
    session: 'examples/ai-sdk-session.json',
    flags: ['--provider', 'ai-sdk:@ai-sdk/openai.chat/gpt-4.1-mini', '--base-url', `${url}/v1`, '--api-key-env', 'OPENAI_API_KEY'],
  },
});

const kindOf = (l: Line): string => (l.type === 'system' ? l.subtype : l.type);
const blocksOf = (l: Line): Line[] => (Array.isArray(l.message?.content) ? l.message.content : []);
const toolUses = (l: Line): Line[] => blocksOf(l).filter((b) => b.type === 'tool_use');
const toolResults = (l: Line): Line[] => blocksOf(l).filter((b) => b.type === 'tool_result');

/** What every scenario run must show, whatever the session's shape. */
function expectEveryKind(lines: Line[]): void {
  expect(new Set(lines.map((l) => l.uuid)).size).toBe(lines.length);
  expect(new Set(lines.map((l) => l.session_id)).size).toBe(1);
  const started = lines.filter((l) => kindOf(l) === 'task_started');
  expect(started).toHaveLength(1);
  const task = started[0]!.data.tool_use_id as string;
  const at = (l: Line): number => lines.indexOf(l);

  // The parent's reply: its agent call's tool_use comes before the task_started it caused, its results after.
  const reply = lines.find((l) => l.type === 'assistant' && l.parent_tool_use_id === null && toolUses(l).some((b) => b.id === task))!;
  expect(reply).toBeDefined();
  expect(toolUses(reply).map((b) => b.name)).toEqual(['agent', 'read_file']);
  expect(reply.message).toMatchObject({ type: 'message', role: 'assistant', id: reply.uuid, stop_reason: 'tool_use' });
  expect(reply.message.usage.input_tokens).toBeGreaterThan(0);
  const results = lines.filter((l) => l.type === 'user' && l.parent_tool_use_id === null && toolResults(l).length > 0);
  expect(results.map((l) => toolResults(l)[0]!.tool_use_id)).toEqual(toolUses(reply).map((b) => b.id));
  expect(at(reply)).toBeLessThan(at(started[0]!));
  expect(at(started[0]!)).toBeLessThan(at(results[0]!));
  expect(toolResults(results[0]!)[0]!.content).toContain(`task_id: ${started[0]!.data.task_id}`);
  // read_file answers with an object: the result's content is its JSON (as the model read it).
  expect(toolResults(results[1]!)[0]!.is_error).toBe(false);
  expect(toolResults(results[1]!)[0]!.content).toMatch(/^\{.*"path":"package\.json".*Worker-thread parallel fork executor/s);

  // The fork's own conversation, marked with its tool_use id: its calls, their results (one failed), its answer.
  const inner = lines.filter((l) => l.parent_tool_use_id === task);
  expect(inner.every((l) => at(l) > at(started[0]!))).toBe(true);
  const innerCall = inner.find(
    (l) => l.type === 'assistant' && toolUses(l).length === 2 && toolUses(l).every((b) => b.name === 'read_file'),
  )!;
  expect(toolUses(innerCall).map((b) => b.input)).toEqual([{ path: 'package.json' }, { path: 'missing.txt' }]);
  const innerResults = inner
    .filter((l) => toolResults(l).some((r) => toolUses(innerCall).some((b) => b.id === r.tool_use_id)))
    .map((l) => toolResults(l)[0]!);
  expect(innerResults.map((r) => r.is_error)).toEqual([false, true]);
  expect(inner.at(-1)).toMatchObject({ type: 'assistant', message: { content: [{ type: 'text', text: 'fork done' }], stop_reason: null } });

  // Its end, shown once as the reference shows it; the <task-notification> text the model got is no line of its own.
  const notified = lines.filter((l) => kindOf(l) === 'task_notification');
  expect(notified.map((l) => l.data.task_id)).toEqual([started[0]!.data.task_id]);
  expect(lines[at(notified[0]!) - 1]).toMatchObject({
    type: 'user',
    message: { content: [{ type: 'text', text: expect.stringMatching(/^Background agent "fork: .*" completed\.$/) }] },
  });
  expect(lines.flatMap(blocksOf).some((b) => b.type === 'text' && b.text.startsWith('<task-notification>'))).toBe(false);
  const parentTexts = lines.filter((l) => l.type === 'user' && l.parent_tool_use_id === null && toolResults(l).length === 0);
  expect(parentTexts).toEqual([lines[at(notified[0]!) - 1]]);

  const result = lines.at(-1)!;
  expect(result).toMatchObject({ type: 'result', subtype: 'success', is_error: false, permission_denials: [] });
  expect(result).not.toHaveProperty('parent_tool_use_id');
  expect(result.duration_api_ms).toBeGreaterThan(0);
  expect(result.duration_api_ms).toBeLessThanOrEqual(result.duration_ms);
  expect(result.result).toContain('fork done');
  // The parent's last reply is its answer.
  expect(lines.at(-2)).toMatchObject({
    type: 'assistant',
    parent_tool_use_id: null,
    message: { content: [{ type: 'text', text: result.result }] },
  });
}

/** A finished fork as its notification carries it. */
function forkResult(id: string, text: string): ForkResult {
  return {
    id,
    status: 'completed',
    text,
    turns: 1,
    toolCalls: 1,
    usage: { promptTokens: 100, cachedTokens: 80, outputTokens: 5 },
    durationMs: 10,
    retries: 0,
    calls: [],
    worker: { threadId: 1, decodedPrefix: true },
  };
}

const USAGE = { promptTokens: 1200, cachedTokens: 1024, outputTokens: 30 };

/**
 * A Gemini parent whose model gives no call ids (as Gemini 2.5 does): the loop named its
 * background agent call `call-1`. Then the task's conversation, its notification, and a
 * send_message that revives the completed task (a second notification under the same ids).
 */
async function unnamedCallsScenario(): Promise<Line[]> {
  const out: string[] = [];
  const lines = parentLines(streamSession('s-1'), shapeNamed('gemini').reader, 'gemini-2.5-flash', (line) => out.push(line));
  const send = (event: ParentEvent): void => lines.event(event);
  // The loop names each of a reply's calls that has no id (call-N), in its events as in its tasks' ids.
  const parent = (role: 'assistant' | 'user', message: unknown, turn: number, callIds?: string[]): ParentEvent =>
    role === 'assistant'
      ? { type: 'message', role, message, turn, usage: USAGE, ...(callIds ? { callIds } : {}) }
      : { type: 'message', role, message, turn };
  const task = (role: 'assistant' | 'user', message: unknown, turn: number): ParentEvent => ({
    type: 'message',
    role,
    message,
    turn,
    parentToolUseId: 'call-1',
  });
  const notification = '<task-notification>\n<task-id>fork-call-1</task-id>\n</task-notification>';

  send(
    parent(
      'assistant',
      {
        role: 'model',
        parts: [
          { text: 'Planning', thought: true },
          { text: 'Two looks: ' },
          { text: 'one in the background.' },
          { functionCall: { name: 'agent', args: { description: 'scan', prompt: 'scan it', subagent_type: 'fork' } } },
          { functionCall: { name: 'read_file', args: { path: 'missing.txt' } } },
          { functionCall: { name: 'agent', args: { description: 'inline', prompt: 'look', run_in_background: false } } },
        ],
      },
      1,
      ['call-1', 'call-2', 'call-3'],
    ),
  );
  send({ type: 'turn', turn: 1, usage: USAGE });
  send({ type: 'task_started', forkId: 'fork-call-1', toolUseId: 'call-1', description: 'scan', subagentType: 'fork' });
  send(
    parent(
      'user',
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'agent', response: { output: 'Background agent launched successfully.' } } },
          { functionResponse: { name: 'read_file', response: { error: 'no such file: missing.txt' } } },
          { functionResponse: { name: 'agent', response: { output: 'inline answer' } } },
        ],
      },
      1,
    ),
  );
  send(
    task(
      'user',
      {
        role: 'user',
        parts: [{ functionResponse: { name: 'agent', response: { output: 'Fork started' } } }, { text: 'Directive: scan it' }],
      },
      0,
    ),
  );
  send(task('assistant', { role: 'model', parts: [{ functionCall: { name: 'read_file', args: { path: 'a.txt' } } }] }, 1));
  send(task('user', { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: { output: 'A' } } }] }, 1));
  send(task('assistant', { role: 'model', parts: [{ text: 'found A' }] }, 2));
  send({
    type: 'task_notification',
    forkId: 'fork-call-1',
    toolUseId: 'call-1',
    description: 'scan',
    subagentType: 'fork',
    result: forkResult('fork-call-1', 'found A'),
  });
  send(
    parent(
      'assistant',
      { role: 'model', parts: [{ functionCall: { name: 'send_message', args: { task_id: 'fork-call-1', message: 'again' } } }] },
      2,
      ['call-4'],
    ),
  );
  send(
    parent(
      'user',
      { role: 'user', parts: [{ functionResponse: { name: 'send_message', response: { output: 'revived' } } }, { text: notification }] },
      2,
    ),
  );
  send(task('user', { role: 'user', parts: [{ text: '[Message from parent agent]: again' }] }, 1));
  send(task('assistant', { role: 'model', parts: [{ text: 'again: found A' }] }, 1));
  send({
    type: 'task_notification',
    forkId: 'fork-call-1',
    toolUseId: 'call-1',
    description: 'scan',
    subagentType: 'fork',
    result: forkResult('fork-call-1', 'again: found A'),
    revived: true,
  });
  send(parent('user', { role: 'user', parts: [{ text: notification }] }, 3));
  send(parent('assistant', { role: 'model', parts: [{ text: 'All done.' }] }, 3));
  lines.end(false, { duration_ms: 5, num_turns: 3, result: 'All done.', usage: { input_tokens: 3600, output_tokens: 90 } }, false);
  return jsonLines(out.join('\n')) as Line[];
}

describe('stream-json lines of the parent loop (scripted events)', () => {
  it('a Gemini reply without call ids: the ids the loop made up, a task’s own calls stable ids of ours, results paired by position', async () => {
    const lines = await unnamedCallsScenario();
    const kinds = lines.map((l) => `${kindOf(l)}${l.parent_tool_use_id ? '@task' : ''}`);
    expect(kinds).toEqual([
      // The reply, split as the reference splits one: a thought, a text, the calls.
      'assistant',
      'assistant',
      'assistant',
      'task_started',
      'user',
      'user',
      'user',
      'user@task',
      'user@task',
      'assistant@task',
      'user@task',
      'assistant@task',
      'user',
      'task_notification',
      'assistant',
      'user',
      'user@task',
      'assistant@task',
      'user',
      'task_notification',
      'assistant',
      'result',
    ]);
    const [thought, text, calls] = lines as [Line, Line, Line];
    expect(blocksOf(thought)).toEqual([{ type: 'thinking', thinking: 'Planning' }]);
    expect(blocksOf(text)).toEqual([{ type: 'text', text: 'Two looks: one in the background.' }]);
    expect(toolUses(calls).map((b) => b.id)).toEqual(['call-1', 'call-2', 'call-3']);
    // The call's usage once, on the last line of the reply.
    expect(thought.message.usage).toEqual({ input_tokens: 0, output_tokens: 0 });
    expect(calls.message.usage).toEqual({ input_tokens: 1200, output_tokens: 30, cache_read_input_tokens: 1024 });
    expect(lines[3]!.data.tool_use_id).toBe('call-1');
    expect(lines.slice(4, 7).map((l) => toolResults(l)[0])).toEqual([
      { type: 'tool_result', tool_use_id: 'call-1', content: 'Background agent launched successfully.', is_error: false },
      { type: 'tool_result', tool_use_id: 'call-2', content: 'no such file: missing.txt', is_error: true },
      { type: 'tool_result', tool_use_id: 'call-3', content: 'inline answer', is_error: false },
    ]);
    // The task's seed answers the parent's calls by position; its own call gets an id of its own, and its result the same.
    expect(toolResults(lines[7]!)[0]!.tool_use_id).toBe('call-1');
    expect(blocksOf(lines[8]!)).toEqual([{ type: 'text', text: 'Directive: scan it' }]);
    expect(toolUses(lines[9]!)[0]!.id).toBe('unnamed-call-1');
    expect(toolResults(lines[10]!)[0]!.tool_use_id).toBe('unnamed-call-1');
    expect(lines[9]!.message.usage).toEqual({ input_tokens: 0, output_tokens: 0 });
    // The send_message call (no id either) and its result; the notification text the model got is no line.
    expect(toolUses(lines[14]!)[0]!.id).toBe('call-4');
    expect(blocksOf(lines[15]!)).toEqual([{ type: 'tool_result', tool_use_id: 'call-4', content: 'revived', is_error: false }]);
    // Revived: a second notification under the same ids, after the revived run's lines.
    const notified = lines.filter((l) => kindOf(l) === 'task_notification');
    expect(notified.map((l) => [l.data.task_id, l.data.tool_use_id, l.data.result.text])).toEqual([
      ['fork-call-1', 'call-1', 'found A'],
      ['fork-call-1', 'call-1', 'again: found A'],
    ]);
    expect(lines.at(-1)).toMatchObject({ type: 'result', duration_ms: 5, permission_denials: [] });
  });
});

describe('forkpool prompt --output-format stream-json against the types of @qwen-code/sdk', () => {
  it('every line of real runs (a session of each shape; a turn-limited run) and of the scripted one type-checks as its SDK type', async () => {
    const providers = PROVIDERS(server.url);
    const runs = await Promise.all(Object.values(providers).map((p) => promptLines(p.session, p.flags)));
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      expectEveryKind(run.lines);
    }
    // The error result (error_max_turns): the parent's first reply calls a tool, and one turn is all it has.
    const limited = await promptLines(
      providers.gemini!.session,
      providers.gemini!.flags,
      'CALL read_file {"path":"package.json"}\nREPLY never',
      ['--max-turns', '1'],
    );
    expect(limited.code, limited.stderr).toBe(1);
    expect(limited.lines.at(-1)).toMatchObject({ type: 'result', subtype: 'error_max_turns', is_error: true });

    const lines = [...runs.flatMap((r) => r.lines), ...limited.lines, ...(await unnamedCallsScenario())];
    const diagnostics = await typeCheck(lines);
    expect(diagnostics, diagnostics).toBe('');
    // Six CLI runs at once and a compile: more than the default minute on a busy machine.
  }, 180_000);
});

/**
 * The lines as a TypeScript file, each typed as the SDK's type for its kind (an object literal, so
 * a property the type does not declare is an error too), compiled with the project's tsc over that
 * one file: its diagnostics, '' when there are none.
 */
async function typeCheck(lines: readonly Line[]): Promise<string> {
  const dir = mkdtempSync(join(tmp, 'types-'));
  const source = [
    `import type { ${SDK_TYPES.join(', ')} } from '@qwen-code/sdk';`,
    // Qwen Code writes parent_tool_use_id (null) on its system lines too (emitSystemMessage), though SDKSystemMessage does not declare it.
    'type SystemLine = SDKSystemMessage & { parent_tool_use_id: null };',
    ...lines.map((line, i) => `export const line${i}: ${typeFor(line)} = ${JSON.stringify(line, null, 2)};`),
    '',
  ].join('\n');
  writeFileSync(join(dir, 'lines.ts'), source);
  const compilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023'],
    types: [],
    // The SDK as this project installed it (the generated file lives outside the project).
    paths: { '@qwen-code/sdk': [sdkTypes()] },
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['lines.ts'] }));
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [TSC, '-p', dir, '--pretty', 'false'], { cwd: dir, timeout: TSC_TIMEOUT_MS }, (error, stdout, stderr) => {
      if (error === null) resolve('');
      else if (error.killed) reject(new Error(`tsc did not finish within ${TSC_TIMEOUT_MS} ms`));
      else resolve(`${stdout}${stderr}` || String(error));
    });
  });
}

/** The SDK's type for each kind of line we write (its stream_event lines, partial messages, we do not). */
const TYPE_OF: { readonly [K in SDKMessage['type']]?: string } = {
  assistant: 'SDKAssistantMessage',
  user: 'SDKUserMessage',
  system: 'SystemLine',
  result: 'SDKResultMessage',
};
const SDK_TYPES = ['SDKAssistantMessage', 'SDKMessage', 'SDKResultMessage', 'SDKSystemMessage', 'SDKUserMessage'] as const;

/** The SDK type a line of this kind must be (a line of another kind must still be some SDKMessage). */
function typeFor(line: Line): string {
  return TYPE_OF[line.type as SDKMessage['type']] ?? 'SDKMessage';
}

/** Where the installed SDK's declarations are (its package.json's `types`). */
function sdkTypes(): string {
  const manifest = require.resolve('@qwen-code/sdk/package.json');
  const { types } = JSON.parse(readFileSync(manifest, 'utf8')) as { types: string };
  return join(dirname(manifest), types);
}
