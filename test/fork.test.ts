// Internal: FORK_PLACEHOLDER_TEXT, FORK_SYSTEM_INSTRUCTION and FORK_UNAVAILABLE_RESULT_TEXT (src/wording/constants.ts): the fork's fixed wording has no entry point; seedFork and buildChildMessage come through forkpool/protocol. Also freezePrefix (src/prefix/freeze.ts), the prefix without an engine (its public face is engine.freeze).
/*
 * The fork rules on Gemini sessions where they are Gemini's own: calls and results without ids, a
 * user message of results and words, the systemInstruction and the other prefix fields of a Gemini
 * seed, its copies. The rules that hold on every shape (the seeding cases, completed-turns, forkTurns
 * windows and synthetic prefixes, siblings, the child message, the guards, the option checks) run
 * for Gemini, Chat Completions and Anthropic from fork-rules.test.ts, with the agent tool's
 * parameters and the child message's wording; Chat Completions' and Anthropic's own cases are in
 * fork-openai.test.ts and fork-anthropic.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { FORK_PLACEHOLDER_TEXT, FORK_SYSTEM_INSTRUCTION, FORK_UNAVAILABLE_RESULT_TEXT } from '../src/fork/index.js';
import { freezePrefix } from '../src/prefix/freeze.js';
import { buildChildMessage, type Content, type GeminiSession, seedFork } from '../src/protocol.js';
import { geminiSession } from './support/gemini-session.js';

const user = (text: string): Content => ({ role: 'user', parts: [{ text }] });
const model = (text: string): Content => ({ role: 'model', parts: [{ text }] });
const calls = (...list: [id: string, name: string, args: Record<string, unknown>][]): Content => ({
  role: 'model',
  parts: list.map(([id, name, args]) => ({ functionCall: { id, name, args } })),
});
const answers = (...list: [id: string, name: string][]): Content => ({
  role: 'user',
  parts: list.map(([id, name]) => ({ functionResponse: { id, name, response: { output: `result of ${id}` } } })),
});

const MARKER = 'MARKER-7f3a-only-in-parent-history';

function session(history: Content[], extra: Partial<GeminiSession> = {}): GeminiSession {
  return {
    model: 'gemini-2.5-flash',
    systemInstruction: { parts: [{ text: 'You are the main agent.' }] },
    tools: [{ functionDeclarations: [{ name: 'read_file' }, { name: 'agent' }, { name: 'grep' }] }],
    toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
    generationConfig: { temperature: 0.1, topK: 5, thinkingConfig: { thinkingBudget: 64 } },
    history,
    ...extra,
  };
}

/** A finished exchange: user asks, model reads a file, answers. */
const finished: Content[] = [
  user(`Please remember ${MARKER}.`),
  calls(['c1', 'read_file', { path: 'README.md' }]),
  answers(['c1', 'read_file']),
  model('Noted, and I read the README.'),
];

/** The parent just called the Agent tool twice in one turn. */
const midTurn: Content[] = [
  ...finished,
  user('Investigate the parser and the lexer in parallel.'),
  {
    role: 'model',
    parts: [
      { text: 'Starting two forks.' },
      { functionCall: { id: 'a1', name: 'agent', args: { description: 'parser', prompt: 'PARSER-DIRECTIVE', subagent_type: 'fork' } } },
      { functionCall: { id: 'a2', name: 'agent', args: { description: 'lexer', prompt: 'LEXER-DIRECTIVE', subagent_type: 'fork' } } },
    ],
  },
];

describe('seedFork, seed "inherit"', () => {
  it('case 2: a call without an id keeps its arguments, and its placeholder (without an id either) says the result was not available', () => {
    const history: Content[] = [user('go'), { role: 'model', parts: [{ functionCall: { name: 'grep', args: { q: 'x' } } }] }];
    const seed = seedFork(session(history), 'do it');
    expect(seed.contents[1]).toEqual({ role: 'model', parts: [{ functionCall: { name: 'grep', args: { q: 'x' } } }] });
    expect(seed.contents[1]).toEqual(history[1]);
    expect(seed.contents[2]?.parts[0]).toEqual({ functionResponse: { name: 'grep', response: { output: FORK_UNAVAILABLE_RESULT_TEXT } } });
    expect(FORK_UNAVAILABLE_RESULT_TEXT).toContain('not finished when the fork started');
  });

  it('case 3: results that answer only some of the calls are kept, and each call still without one gets a placeholder', () => {
    const history = [
      user('go'),
      calls(['g1', 'grep', { q: 'x' }], ['a1', 'agent', { prompt: 'SIBLING' }], ['r1', 'read_file', { path: 'a.ts' }]),
      answers(['g1', 'grep']),
    ];
    const seed = seedFork(session(history), 'Look.');
    expect(seed.seedCase).toBe('tool-results');
    expect(seed.contents[2]?.parts).toEqual([
      ...(history[2] as Content).parts,
      { functionResponse: { id: 'a1', name: 'agent', response: { output: FORK_PLACEHOLDER_TEXT } } },
      { functionResponse: { id: 'r1', name: 'read_file', response: { output: FORK_UNAVAILABLE_RESULT_TEXT } } },
      { text: buildChildMessage('Look.') },
    ]);
  });

  it('case 3: a trailing message whose results answer none of the last calls is dropped, like an unanswered prompt', () => {
    const stray: Content = { role: 'user', parts: [{ functionResponse: { id: 'zz', name: 'grep', response: { output: 'stale' } } }] };
    const seed = seedFork(session([...finished, stray]), 'Look.');
    expect(seed.seedCase).toBe('dropped-user');
    expect(seed.contents).toEqual([...finished, user(buildChildMessage('Look.'))]);
  });

  it('empty history: a fresh agent with the built-in system instruction when the parent has none, and the parent tools', () => {
    const parent = session([]);
    delete parent.systemInstruction;
    const seed = seedFork(parent, 'Start from scratch.');
    expect(seed.seedCase).toBe('fresh');
    expect(seed.contents).toEqual([user(buildChildMessage('Start from scratch.'))]);
    expect(seed.sharedContents).toBe(0);
    expect(seed.systemInstruction).toEqual(FORK_SYSTEM_INSTRUCTION);
    expect(seed.systemInstruction).not.toBe(FORK_SYSTEM_INSTRUCTION);
    expect(seed.tools).toEqual(parent.tools);
  });

  it("empty history: the parent's own system instruction is kept when it has one", () => {
    const parent = session([]);
    const seed = seedFork(parent, 'x');
    expect(seed.systemInstruction).toEqual({ parts: [{ text: 'You are the main agent.' }] });
  });
});

describe('seedFork, forkTurns', () => {
  it('a window that starts at a user message of results and words keeps the words, not the results of calls it left out', () => {
    const history: Content[] = [
      user('turn one'),
      calls(['c1', 'grep', { q: 'a' }]),
      {
        role: 'user',
        parts: [{ functionResponse: { id: 'c1', name: 'grep', response: { output: 'found' } } }, { text: 'turn two, after the result' }],
      },
      model('two done'),
    ];
    const seed = seedFork(session(history), 'x', { forkTurns: 1 });
    // Gemini refuses a function response whose call is not in the turn before it.
    expect(seed.contents.slice(0, 2)).toEqual([user('turn two, after the result'), model('two done')]);
    expect(seed.trimmedMessages).toBe(2);
    // The parent's message is untouched, and a window that keeps the call keeps its result.
    expect(history[2]?.parts).toHaveLength(2);
    expect(seedFork(session(history), 'x', { forkTurns: 2 }).contents.slice(0, 4)).toEqual(history);
  });
});

describe('seedFork, cache-safe copies', () => {
  it('copies model, systemInstruction, tools, toolConfig and generationConfig verbatim', () => {
    const parent = session(finished);
    const seed = seedFork(parent, 'x', { allowedTools: ['read_file'] });
    for (const key of ['model', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig'] as const) {
      expect(seed[key]).toEqual(parent[key]);
      expect(JSON.stringify(seed[key])).toBe(JSON.stringify(parent[key]));
    }
  });

  it('keeps keys absent in the session absent', () => {
    const seed = seedFork({ model: 'm', history: finished }, 'x');
    expect(Object.keys(seed).sort()).toEqual(['contents', 'format', 'model', 'seedCase', 'sharedContents', 'trimmedMessages']);
  });

  it('returns deep copies: mutating the seed never touches the parent session', () => {
    const parent = session(structuredClone(midTurn));
    const before = structuredClone(parent);
    const seed = seedFork(parent, 'x');
    seed.contents[0]!.parts[0]!.text = 'mutated';
    seed.contents[1]!.parts[0]!.functionCall!.args!.path = 'mutated';
    seed.contents.push(user('extra'));
    seed.tools![0]!.functionDeclarations!.push({ name: 'evil' });
    seed.systemInstruction!.parts[0]!.text = 'mutated';
    seed.generationConfig!.temperature = 2;
    seed.toolConfig!.functionCallingConfig = 'mutated';
    expect(parent).toEqual(before);
    // The redacted message is a copy too: the parent still has its arguments.
    expect(parent.history[5]?.parts[1]?.functionCall?.args).toEqual({
      description: 'parser',
      prompt: 'PARSER-DIRECTIVE',
      subagent_type: 'fork',
    });
  });

  it('with copy: false shares the frozen messages and prefix fields, in an array of its own', () => {
    const prefix = freezePrefix(session(finished));
    const frozen = geminiSession(prefix.session);
    const seed = seedFork(frozen, 'x', { copy: false });
    expect(seed.contents[0]).toBe(frozen.history[0]);
    expect(seed.contents.slice(0, seed.sharedContents)).toEqual(frozen.history);
    seed.contents.push({ role: 'user', parts: [{ text: 'more' }] });
    expect(frozen.history).toHaveLength(finished.length);
    expect(() => {
      seed.contents[0]!.parts[0]!.text = 'edited';
    }).toThrow(TypeError);
  });

  it('shares exactly the first sharedContents entries between forks with different directives, from an empty history', () => {
    const a = seedFork(session([]), 'directive A');
    const b = seedFork(session([]), 'directive B');
    expect(a.sharedContents).toBe(b.sharedContents);
    expect(JSON.stringify(a.contents.slice(0, a.sharedContents))).toBe(JSON.stringify(b.contents.slice(0, b.sharedContents)));
    expect(JSON.stringify(a.contents[a.sharedContents])).not.toBe(JSON.stringify(b.contents[b.sharedContents]));
  });
});
