import { describe, expect, it } from 'vitest';
import {
  AGENT_TOOL_DECLARATION,
  AGENT_TOOL_NAME,
  FORK_ACK_TEXT,
  FORK_BEGIN_TEXT,
  FORK_PLACEHOLDER_TEXT,
  FORK_SYSTEM_INSTRUCTION,
  FORK_UNAVAILABLE_RESULT_TEXT,
  ForkRejectedError,
  NESTED_FORK_ERROR,
  buildChildMessage,
  isForkChild,
  seedFork,
  validateAgentParams,
} from '../src/fork/index.js';
import { freezePrefix } from '../src/prefix/index.js';
import type { Content, ParentSession } from '../src/session/index.js';

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

function session(history: Content[], extra: Partial<ParentSession> = {}): ParentSession {
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

const textOf = (contents: Content[]): string => JSON.stringify(contents);
const TURNS_RULE = 'must be "all" or a positive integer (a number such as 2, or a string such as "2")';

describe('seedFork, seed "inherit"', () => {
  it('case 1: history ending on a model message without calls is kept, child message follows', () => {
    const parent = session(finished);
    const seed = seedFork(parent, 'Summarize the README.');
    expect(seed.seedCase).toBe('continue');
    expect(seed.contents.slice(0, 4)).toEqual(finished);
    expect(seed.contents).toHaveLength(5);
    expect(seed.contents[4]).toEqual(user(buildChildMessage('Summarize the README.')));
    expect(seed.sharedContents).toBe(4);
    expect(seed.trimmedMessages).toBe(0);
  });

  it('case 2: mid-turn history gets redacted calls, placeholders, the child message, an ack and the begin text', () => {
    const seed = seedFork(session(midTurn), 'PARSER-DIRECTIVE');
    expect(seed.seedCase).toBe('mid-turn');
    expect(seed.contents.slice(0, 5)).toEqual(midTurn.slice(0, 5));
    expect(seed.contents[5]).toEqual({
      role: 'model',
      parts: [
        { text: 'Starting two forks.' },
        { functionCall: { id: 'a1', name: 'agent', args: {} } },
        { functionCall: { id: 'a2', name: 'agent', args: {} } },
      ],
    });
    expect(seed.contents[6]).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { id: 'a1', name: 'agent', response: { output: FORK_PLACEHOLDER_TEXT } } },
        { functionResponse: { id: 'a2', name: 'agent', response: { output: FORK_PLACEHOLDER_TEXT } } },
        { text: buildChildMessage('PARSER-DIRECTIVE') },
      ],
    });
    expect(seed.contents[7]).toEqual(model(FORK_ACK_TEXT));
    expect(seed.contents[8]).toEqual(user(FORK_BEGIN_TEXT));
    expect(seed.contents).toHaveLength(9);
    expect(seed.sharedContents).toBe(6);
  });

  it('case 2: calls of other tools keep their arguments, and their placeholder says the result was not available', () => {
    const history: Content[] = [user('go'), { role: 'model', parts: [{ functionCall: { name: 'grep', args: { q: 'x' } } }] }];
    const seed = seedFork(session(history), 'do it');
    expect(seed.contents[1]).toEqual({ role: 'model', parts: [{ functionCall: { name: 'grep', args: { q: 'x' } } }] });
    expect(seed.contents[1]).toEqual(history[1]);
    expect(seed.contents[2]?.parts[0]).toEqual({ functionResponse: { name: 'grep', response: { output: FORK_UNAVAILABLE_RESULT_TEXT } } });
    expect(FORK_UNAVAILABLE_RESULT_TEXT).toContain('not finished when the fork started');
  });

  it('case 2: a turn mixing agent and other calls blanks only the agent calls, and each call gets its own placeholder', () => {
    const history: Content[] = [
      user('go'),
      {
        role: 'model',
        parts: [
          { functionCall: { id: 'g1', name: 'grep', args: { q: 'parser' } } },
          { functionCall: { id: 'a1', name: 'agent', args: { description: 'd', prompt: 'SIBLING-DIRECTIVE', subagent_type: 'fork' } } },
          { functionCall: { id: 's1', name: 'spawn_helper', args: { task: 'HELPER-TASK' } } },
        ],
      },
    ];
    const seed = seedFork(session(history), 'mine', { spawnTools: ['agent', 'spawn_helper'] });
    expect(seed.contents[1]?.parts.map((p) => p.functionCall?.args)).toEqual([{ q: 'parser' }, {}, {}]);
    expect(seed.contents[2]?.parts.slice(0, 3).map((p) => p.functionResponse?.response.output)).toEqual([
      FORK_UNAVAILABLE_RESULT_TEXT,
      FORK_PLACEHOLDER_TEXT,
      FORK_PLACEHOLDER_TEXT,
    ]);
    expect(textOf(seed.contents)).not.toContain('SIBLING-DIRECTIVE');
    expect(textOf(seed.contents)).not.toContain('HELPER-TASK');
    expect(FORK_PLACEHOLDER_TEXT).toBe('Fork started — processing in background');
  });

  it('case 3: a trailing user prompt the parent never answered is dropped, and the child message takes its place', () => {
    const history = [...finished, user('And now something else?')];
    const seed = seedFork(session(history), 'Check the tests.');
    expect(seed.seedCase).toBe('dropped-user');
    expect(seed.contents).toEqual([...finished, user(buildChildMessage('Check the tests.'))]);
    expect(textOf(seed.contents)).not.toContain('something else');
    expect(seed.sharedContents).toBe(4);
  });

  it('case 3: only that one message is dropped; an unanswered prompt before it stays', () => {
    const history = [...finished, user('first unanswered'), user('second unanswered')];
    const seed = seedFork(session(history), 'Check the tests.');
    expect(seed.seedCase).toBe('dropped-user');
    expect(seed.contents).toEqual([...finished, user('first unanswered'), user(buildChildMessage('Check the tests.'))]);
    expect(seed.sharedContents).toBe(5);
  });

  it('case 3: real tool results the parent has not answered are kept, calls keep their arguments, the child message joins them', () => {
    const history = [user('go'), calls(['g1', 'grep', { q: 'x' }], ['r1', 'read_file', { path: 'a.ts' }]), answers(['g1', 'grep'], ['r1', 'read_file'])];
    const seed = seedFork(session(history), 'Look.');
    expect(seed.seedCase).toBe('tool-results');
    expect(seed.contents).toHaveLength(3);
    expect(seed.contents[1]).toEqual(history[1]);
    expect(seed.contents[2]).toEqual({
      role: 'user',
      parts: [...(history[2] as Content).parts, { text: buildChildMessage('Look.') }],
    });
    expect(textOf(seed.contents)).not.toContain(FORK_PLACEHOLDER_TEXT);
    expect(seed.sharedContents).toBe(2);
  });

  it('case 3: results that answer only some of the calls are kept, and each call still without one gets a placeholder', () => {
    const history = [user('go'), calls(['g1', 'grep', { q: 'x' }], ['a1', 'agent', { prompt: 'SIBLING' }], ['r1', 'read_file', { path: 'a.ts' }]), answers(['g1', 'grep'])];
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

  it('a history of only a user message falls back to a fresh agent', () => {
    expect(seedFork(session([user('hello')]), 'x').seedCase).toBe('fresh');
  });
});

describe('seedFork, seed "completed-turns"', () => {
  it('leaves the in-flight turn out entirely', () => {
    const seed = seedFork(session(midTurn), 'Look at the lexer.', { history: 'completed-turns' });
    expect(seed.contents).toEqual([...finished, user(buildChildMessage('Look at the lexer.'))]);
    expect(textOf(seed.contents)).not.toContain('PARSER-DIRECTIVE');
    expect(textOf(seed.contents)).not.toContain('in parallel');
    expect(seed.sharedContents).toBe(4);
    expect(seed.seedCase).toBe('continue');
  });

  it('stops before a turn whose calls are answered but not yet replied to', () => {
    const history = [...finished, user('next'), calls(['c9', 'grep', {}]), answers(['c9', 'grep'])];
    expect(seedFork(session(history), 'x', { history: 'completed-turns' }).contents.slice(0, -1)).toEqual(finished);
  });

  it('does not count a model text message while an earlier call is unanswered', () => {
    const history = [user('go'), calls(['c1', 'grep', {}]), model('still waiting')];
    const seed = seedFork(session(history), 'x', { history: 'completed-turns' });
    expect(seed.seedCase).toBe('fresh');
  });

  it('with no completed turn the seed is empty and the fork starts fresh', () => {
    const parent = session([user('go'), calls(['c1', 'agent', { prompt: 'x' }])], { systemInstruction: undefined });
    delete parent.systemInstruction;
    const seed = seedFork(parent, 'Do the thing.', { history: 'completed-turns' });
    expect(seed.contents).toEqual([user(buildChildMessage('Do the thing.'))]);
    expect(seed.sharedContents).toBe(0);
    expect(seed.seedCase).toBe('fresh');
    expect(seed.systemInstruction).toEqual(FORK_SYSTEM_INSTRUCTION);
  });
});

describe('seedFork, forkTurns', () => {
  // Three real user turns, with a tool-result, a blank, and a reminder-only user message between.
  const turns: Content[] = [
    user('turn one'),
    model('one done'),
    user('turn two'),
    calls(['c1', 'grep', { q: 'a' }]),
    answers(['c1', 'grep']),
    model('grep done'),
    user('   '),
    model('blank noted'),
    user('<system-reminder>todo list is empty</system-reminder>\n'),
    model('reminder noted'),
    user('turn three <system-reminder>x</system-reminder>'),
    model('three done'),
  ];

  it('1 keeps the last real user turn only', () => {
    const seed = seedFork(session(turns), 'x', { forkTurns: 1 });
    expect(seed.contents.slice(0, -1)).toEqual(turns.slice(10));
    expect(seed.trimmedMessages).toBe(10);
    expect(seed.sharedContents).toBe(2);
  });

  it('2 keeps from the second real turn on: tool results, blank and reminder-only messages do not count', () => {
    const seed = seedFork(session(turns), 'x', { forkTurns: 2 });
    expect(seed.contents.slice(0, -1)).toEqual(turns.slice(2));
    expect(seed.trimmedMessages).toBe(2);
  });

  it('more turns than exist, and "all", keep everything', () => {
    for (const forkTurns of [3, 50, 'all'] as const) {
      const seed = seedFork(session(turns), 'x', { forkTurns });
      expect(seed.contents.slice(0, -1)).toEqual(turns);
      expect(seed.trimmedMessages).toBe(0);
    }
  });

  it('a window that starts at a user message of results and words keeps the words, not the results of calls it left out', () => {
    const history: Content[] = [
      user('turn one'),
      calls(['c1', 'grep', { q: 'a' }]),
      { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'grep', response: { output: 'found' } } }, { text: 'turn two, after the result' }] },
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

  it('combines with the mid-turn case', () => {
    const seed = seedFork(session(midTurn), 'PARSER-DIRECTIVE', { forkTurns: 1 });
    expect(seed.contents[0]).toEqual(user('Investigate the parser and the lexer in parallel.'));
    expect(seed.contents[1]?.parts[1]).toEqual({ functionCall: { id: 'a1', name: 'agent', args: {} } });
    expect(textOf(seed.contents)).not.toContain(MARKER);
    expect(seed.sharedContents).toBe(2);
  });

  it('combines with completed-turns', () => {
    const seed = seedFork(session(midTurn), 'x', { history: 'completed-turns', forkTurns: 1 });
    expect(seed.contents.slice(0, -1)).toEqual(finished);
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

  it('seeds from a frozen prefix session and returns mutable copies', () => {
    const prefix = freezePrefix(session(midTurn));
    const seed = seedFork(prefix.session, 'x');
    seed.contents[0]!.parts[0]!.text = 'mutable';
    expect(prefix.session.history[0]?.parts[0]?.text).toBe(`Please remember ${MARKER}.`);
  });

  it('with copy: false shares the frozen messages and prefix fields, in an array of its own', () => {
    const prefix = freezePrefix(session(finished));
    const seed = seedFork(prefix.session, 'x', { copy: false });
    expect(seed.contents[0]).toBe(prefix.session.history[0]);
    expect(seed.contents.slice(0, seed.sharedContents)).toEqual(prefix.session.history);
    seed.contents.push({ role: 'user', parts: [{ text: 'more' }] });
    expect(prefix.session.history).toHaveLength(finished.length);
    expect(() => {
      seed.contents[0]!.parts[0]!.text = 'edited';
    }).toThrow(TypeError);
  });

  it('shares exactly the first sharedContents entries between forks with different directives', () => {
    for (const history of [finished, midTurn, [...finished, user('dangling')], []]) {
      const a = seedFork(session(history), 'directive A');
      const b = seedFork(session(history), 'directive B');
      expect(a.sharedContents).toBe(b.sharedContents);
      expect(JSON.stringify(a.contents.slice(0, a.sharedContents))).toBe(JSON.stringify(b.contents.slice(0, b.sharedContents)));
      expect(JSON.stringify(a.contents[a.sharedContents])).not.toBe(JSON.stringify(b.contents[b.sharedContents]));
    }
  });
});

describe('sibling forks from one parent turn with two Agent calls', () => {
  const parent = session(midTurn);
  const parser = seedFork(parent, 'PARSER-DIRECTIVE');
  const lexer = seedFork(parent, 'LEXER-DIRECTIVE');

  it("neither fork's contents hold the other's directive", () => {
    expect(textOf(parser.contents)).not.toContain('LEXER-DIRECTIVE');
    expect(textOf(lexer.contents)).not.toContain('PARSER-DIRECTIVE');
  });

  it('each holds its own Directive line', () => {
    expect(textOf(parser.contents)).toContain('Directive: PARSER-DIRECTIVE');
    expect(parser.contents[6]?.parts[2]?.text?.endsWith('Directive: PARSER-DIRECTIVE')).toBe(true);
    expect(lexer.contents[6]?.parts[2]?.text?.endsWith('Directive: LEXER-DIRECTIVE')).toBe(true);
  });

  it('both share the redacted model message and the placeholders byte for byte', () => {
    expect(JSON.stringify(parser.contents[5])).toBe(JSON.stringify(lexer.contents[5]));
    expect(JSON.stringify(parser.contents.slice(0, parser.sharedContents))).toBe(
      JSON.stringify(lexer.contents.slice(0, lexer.sharedContents)),
    );
    expect(JSON.stringify(parser.contents[6]?.parts.slice(0, 2))).toBe(JSON.stringify(lexer.contents[6]?.parts.slice(0, 2)));
    expect(JSON.stringify(parser.contents.slice(7))).toBe(JSON.stringify(lexer.contents.slice(7)));
  });

  it('a marker only in the parent history reaches the fork, and is not in the directive', () => {
    expect(textOf(parser.contents)).toContain(MARKER);
    expect('PARSER-DIRECTIVE').not.toContain(MARKER);
    expect(buildChildMessage('PARSER-DIRECTIVE')).not.toContain(MARKER);
  });
});

describe('buildChildMessage', () => {
  it('states the rules in a fork-boilerplate block and ends with the directive', () => {
    const text = buildChildMessage('Find the flaky test.');
    expect(text.startsWith('<fork-boilerplate>\n')).toBe(true);
    expect(text).toContain('</fork-boilerplate>');
    for (const rule of ['not the main agent', 'background', 'sub-agents', 'questions', 'tools directly', 'scope']) {
      expect(text).toContain(rule);
    }
    for (const heading of ['Scope:', 'Result:', 'Key files:', 'Files changed:', 'Issues:']) expect(text).toContain(heading);
    expect(text.endsWith('\n\nDirective: Find the flaky test.')).toBe(true);
    expect(text).not.toContain('<tool-restriction>');
  });

  it('lists exactly the tools a fork may execute, after the directive (as the reference does)', () => {
    const text = buildChildMessage('Look.', ['read_file', 'grep', 'read_file']);
    expect(text).toContain('\n\nDirective: Look.\n\n<tool-restriction>\nYou may execute only these tools: read_file, grep. ');
    expect(text.endsWith('</tool-restriction>')).toBe(true);
  });

  it('says that no tool may be executed for an empty list', () => {
    const text = buildChildMessage('Think.', []);
    expect(text).toContain('Directive: Think.\n\n<tool-restriction>\nYou may not execute any tool in this run');
  });

  it('is what seedFork puts in the child message, restriction included', () => {
    const seed = seedFork(session(finished), 'Look.', { allowedTools: [] });
    expect(seed.contents.at(-1)?.parts[0]?.text).toBe(buildChildMessage('Look.', []));
  });
});

describe('fork-child guard', () => {
  it('recognises a fork child and refuses to fork it', () => {
    const child = seedFork(session(finished), 'x');
    expect(isForkChild(child.contents)).toBe(true);
    const grandchild = { ...session(finished), history: [...child.contents, model('done')] };
    expect(() => seedFork(grandchild, 'again')).toThrow(ForkRejectedError);
    expect(() => seedFork(grandchild, 'again')).toThrow(
      'cannot fork this conversation: it is itself a fork (its history holds a <fork-boilerplate> block).',
    );
  });

  it('does not mistake ordinary histories for fork children', () => {
    expect(isForkChild(finished)).toBe(false);
    expect(isForkChild(midTurn)).toBe(false);
    expect(isForkChild([])).toBe(false);
    expect(isForkChild([model('<fork-boilerplate>rules</fork-boilerplate>')])).toBe(false);
    expect(isForkChild([user('what does the fork-boilerplate tag mean?')])).toBe(false);
    expect(isForkChild([user('<fork-boilerplate>rules</fork-boilerplate>\n\nDirective: x')])).toBe(true);
  });

  it('recognises a fork child by the opening tag alone, closed or not (a cut-off child message)', () => {
    expect(isForkChild([user('<fork-boilerplate>\nYou are a fork: a copy of the agent, started fr')])).toBe(true);
    expect(() => seedFork(session([user('<fork-boilerplate>rules, cut off'), model('ok')]), 'again')).toThrow(ForkRejectedError);
  });
});

describe('seedFork option checks', () => {
  it('refuses an empty directive and bad options', () => {
    const parent = session(finished);
    expect(() => seedFork(parent, '  ')).toThrow('seedFork: the directive must be a non-empty string');
    expect(() => seedFork(parent, 'x', { forkTurns: 0 })).toThrow('seedFork: forkTurns must be "all" or a positive integer, not 0');
    expect(() => seedFork(parent, 'x', { forkTurns: 1.5 })).toThrow(RangeError);
    expect(() => seedFork(parent, 'x', { history: 'everything' as never })).toThrow(
      'seedFork: history must be "inherit" or "completed-turns", not "everything"',
    );
    // The option was renamed: the old name says so (issue 13).
    expect(() => seedFork(parent, 'x', { seed: 'inherit' } as never)).toThrow('seedFork: the option "seed" is now called "history"');
  });
});

describe('Agent tool', () => {
  it('declares the agent tool from its zod schema', () => {
    expect(AGENT_TOOL_NAME).toBe('agent');
    expect(AGENT_TOOL_DECLARATION.name).toBe('agent');
    const schema = AGENT_TOOL_DECLARATION.parametersJsonSchema as {
      type: string;
      required: string[];
      properties: Record<string, { type: string }>;
      additionalProperties: boolean;
    };
    expect(schema.type).toBe('object');
    expect(schema.required).toEqual(['description', 'prompt']);
    expect(Object.keys(schema.properties)).toEqual([
      'description',
      'prompt',
      'subagent_type',
      'run_in_background',
      'fork_turns',
      'fork_tools',
      'model',
    ]);
    expect(schema.properties.fork_tools?.type).toBe('array');
    // fork_turns: "all" or a positive integer, as a string or a number.
    expect(JSON.stringify(schema.properties.fork_turns)).toContain('"type":"integer"');
    expect(JSON.stringify(schema.properties.fork_turns)).toContain('"type":"string"');
    expect(schema.additionalProperties).toBe(false);
    expect('$schema' in schema).toBe(false);
  });

  const fork = { description: 'parser', prompt: 'Read the parser.', subagent_type: 'fork' };

  it('accepts a full fork request and returns what seedFork needs', () => {
    const result = validateAgentParams({ ...fork, fork_turns: '2', fork_tools: ['read_file', 'grep'], run_in_background: false });
    expect(result).toEqual({
      ok: true,
      params: { ...fork, fork_turns: '2', fork_tools: ['read_file', 'grep'], run_in_background: false },
      subagentType: 'fork',
      fork: { forkTurns: 2, allowedTools: ['read_file', 'grep'] },
      runInBackground: false,
    });
  });

  it('accepts fork_turns "all" and an empty fork_tools list', () => {
    const result = validateAgentParams({ ...fork, fork_turns: 'all', fork_tools: [] });
    expect(result.ok && result.fork).toEqual({ forkTurns: 'all', allowedTools: [] });
  });

  it('accepts fork_turns as a JSON number as well as a numeric string', () => {
    const asNumber = validateAgentParams({ ...fork, fork_turns: 3 });
    const asString = validateAgentParams({ ...fork, fork_turns: '3' });
    expect(asNumber.ok && asNumber.fork).toEqual({ forkTurns: 3 });
    expect(asString.ok && asString.fork).toEqual({ forkTurns: 3 });
  });

  it('runs forks in the background by default, and always when headless', () => {
    const plain = validateAgentParams(fork);
    expect(plain.ok && plain.runInBackground).toBe(true);
    const headless = validateAgentParams({ ...fork, run_in_background: false }, { headless: true });
    expect(headless.ok && headless.runInBackground).toBe(true);
    const general = validateAgentParams({ description: 'd', prompt: 'p' });
    expect(general).toEqual({
      ok: true,
      params: { description: 'd', prompt: 'p' },
      subagentType: 'general-purpose',
      fork: undefined,
      runInBackground: false,
    });
    const headlessGeneral = validateAgentParams({ description: 'd', prompt: 'p' }, { headless: true });
    expect(headlessGeneral.ok && headlessGeneral.runInBackground).toBe(true);
  });

  it('an omitted subagent_type, or "general-purpose", is a fresh general-purpose sub-agent, never a fork', () => {
    for (const params of [{ description: 'd', prompt: 'p' }, { description: 'd', prompt: 'p', subagent_type: 'General-Purpose' }]) {
      const result = validateAgentParams(params);
      expect(result.ok && result.subagentType).toBe('general-purpose');
      expect(result.ok && result.fork).toBeUndefined();
    }
  });

  it('normalizes the case of "fork"', () => {
    const result = validateAgentParams({ ...fork, subagent_type: 'Fork' });
    expect(result.ok && result.params.subagent_type).toBe('fork');
    expect(result.ok && result.fork).toEqual({ forkTurns: 'all' });
  });

  it.each<[string, unknown, string]>([
    ['not an object', 'go', 'the agent tool takes an object of parameters ({ "description", "prompt", … })'],
    ['description missing', { prompt: 'p' }, 'description: is required'],
    ['description blank', { description: '  ', prompt: 'p' }, 'description: must be a non-empty string'],
    ['prompt missing', { description: 'd' }, 'prompt: is required'],
    ['prompt not a string', { description: 'd', prompt: 5 }, 'prompt: must be a non-empty string'],
    ['subagent_type empty', { description: 'd', prompt: 'p', subagent_type: '' }, 'subagent_type: must be a non-empty string'],
    ['run_in_background not boolean', { ...fork, run_in_background: 'yes' }, 'run_in_background: must be true or false'],
    ['fork_turns without fork', { description: 'd', prompt: 'p', fork_turns: '2' }, 'fork_turns: can only be used with subagent_type "fork"'],
    [
      'fork_turns with general-purpose',
      { description: 'd', prompt: 'p', subagent_type: 'general-purpose', fork_turns: 'all' },
      'fork_turns: can only be used with subagent_type "fork"',
    ],
    ['an unknown subagent_type', { description: 'd', prompt: 'p', subagent_type: 'explore' }, 'subagent_type: must be "fork" or "general-purpose" (or omitted), not "explore"'],
    ['fork_turns zero', { ...fork, fork_turns: '0' }, `fork_turns: ${TURNS_RULE}, not "0"`],
    ['fork_turns negative', { ...fork, fork_turns: '-1' }, `fork_turns: ${TURNS_RULE}, not "-1"`],
    ['fork_turns decimal', { ...fork, fork_turns: '1.5' }, `fork_turns: ${TURNS_RULE}, not "1.5"`],
    ['fork_turns padded', { ...fork, fork_turns: ' 3 ' }, `fork_turns: ${TURNS_RULE}, not " 3 "`],
    ['fork_turns empty', { ...fork, fork_turns: '' }, `fork_turns: ${TURNS_RULE}, not ""`],
    ['fork_turns none', { ...fork, fork_turns: 'none' }, `fork_turns: ${TURNS_RULE}, not "none"`],
    ['fork_turns word', { ...fork, fork_turns: 'ALL' }, `fork_turns: ${TURNS_RULE}, not "ALL"`],
    ['fork_turns number zero', { ...fork, fork_turns: 0 }, `fork_turns: ${TURNS_RULE}, not 0`],
    ['fork_turns fractional number', { ...fork, fork_turns: 2.5 }, `fork_turns: ${TURNS_RULE}, not 2.5`],
    ['fork_turns boolean', { ...fork, fork_turns: true }, `fork_turns: ${TURNS_RULE}, not true`],
    ['fork_tools without fork', { description: 'd', prompt: 'p', fork_tools: ['grep'] }, 'fork_tools: can only be used with subagent_type "fork"'],
    ['fork_tools not an array', { ...fork, fork_tools: 'grep' }, 'fork_tools: must be an array of exact tool names'],
    ['fork_tools wildcard', { ...fork, fork_tools: ['*'] }, 'fork_tools[0]: "*": wildcards are not supported, list exact tool names'],
    ['fork_tools partial wildcard', { ...fork, fork_tools: ['grep', 'read_*'] }, 'fork_tools[1]: "read_*": wildcards are not supported, list exact tool names'],
    ['fork_tools empty name', { ...fork, fork_tools: [''] }, 'fork_tools[0]: must be a non-empty tool name'],
    ['fork_tools whitespace', { ...fork, fork_tools: ['grep '] }, 'fork_tools[0]: "grep " must not have surrounding whitespace'],
    ['fork_tools non-string', { ...fork, fork_tools: [3] }, 'fork_tools[0]: must be a non-empty tool name'],
    [
      'model with fork',
      { ...fork, model: 'gemini-2.5-pro' },
      'model: cannot be combined with subagent_type "fork": a fork always uses this conversation\'s model, because another model cannot read its prompt cache',
    ],
    ['model with general-purpose', { description: 'd', prompt: 'p', model: 'gemini-2.5-pro' }, "model: is not supported: every sub-agent runs on this conversation's model"],
    ['isolation with fork', { ...fork, isolation: 'worktree' }, 'isolation: is not supported: sub-agents run in this process and share its workspace'],
    [
      'isolation with general-purpose',
      { description: 'd', prompt: 'p', subagent_type: 'general-purpose', isolation: 'worktree' },
      'isolation: is not supported: sub-agents run in this process and share its workspace',
    ],
    ['working_dir', { description: 'd', prompt: 'p', working_dir: '/tmp' }, "working_dir: is not supported: sub-agents share this process's working directory"],
    [
      'unknown parameter',
      { ...fork, fork_profile: 'x' },
      'fork_profile: is not a parameter of the agent tool (known: description, prompt, subagent_type, run_in_background, fork_turns, fork_tools, model)',
    ],
  ])('rejects %s', (_case, input, error) => {
    expect(validateAgentParams(input)).toEqual({ ok: false, error: { kind: 'invalid_params', message: error } });
  });

  it('reports every broken rule at once, one per line', () => {
    const result = validateAgentParams({ prompt: 'p', fork_turns: 'x', model: 'm', subagent_type: 'fork' });
    expect(result).toEqual({
      ok: false,
      error: {
        kind: 'invalid_params',
        message: [
          'description: is required',
          `fork_turns: ${TURNS_RULE}, not "x"`,
          'model: cannot be combined with subagent_type "fork": a fork always uses this conversation\'s model, because another model cannot read its prompt cache',
        ].join('\n'),
      },
    });
  });

  it("refuses a fork request from inside a sub-agent with Qwen Code's words, whole and at once, never downgrading it", () => {
    const expected =
      'Error: subagent_type "fork" is not supported from within a sub-agent. Complete this task directly with your own tools instead of requesting a nested fork.';
    expect(NESTED_FORK_ERROR).toBe(expected);
    expect(validateAgentParams(fork, { insideSubagent: true })).toEqual({ ok: false, error: { kind: 'nested_fork', message: expected } });
    expect(validateAgentParams({ ...fork, model: 'x', fork_turns: 'bad' }, { insideFork: true })).toEqual({ ok: false, error: { kind: 'nested_fork', message: expected } });
  });

  it('refuses any sub-agent from inside a fork, and nested background runs', () => {
    expect(validateAgentParams({ description: 'd', prompt: 'p', subagent_type: 'general-purpose' }, { insideFork: true })).toEqual({
      ok: false,
      error: { kind: 'fork_spawn', message: 'Error: Cannot spawn sub-agents from within a fork. Please execute tasks directly.' },
    });
    expect(validateAgentParams({ description: 'd', prompt: 'p', run_in_background: true }, { insideSubagent: true })).toEqual({
      ok: false,
      error: { kind: 'invalid_params', message: 'run_in_background: background runs cannot be started from inside a sub-agent' },
    });
    const ok = validateAgentParams({ description: 'd', prompt: 'p' }, { insideSubagent: true });
    expect(ok.ok).toBe(true);
  });
});
