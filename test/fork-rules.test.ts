// Internal: FORK_ACK_TEXT, FORK_BEGIN_TEXT, FORK_PLACEHOLDER_TEXT, FORK_UNAVAILABLE_RESULT_TEXT, FORK_SYSTEM_TEXT and NESTED_FORK_ERROR (src/wording/constants.ts): the fork's fixed wording has no entry point; everything else comes through forkpool and forkpool/protocol. Also freezePrefix (src/prefix/freeze.ts), the prefix without an engine (its public face is engine.freeze).
/*
 * The fork rules that hold on every session shape, run once per shape (Gemini, OpenAI Chat
 * Completions, Anthropic Messages) through the adapters of test/support/shapes.ts: a test writes its
 * conversation and the seed it expects once, as Gemini Contents, and each shape writes both in its own
 * form. Then the rules that do not depend on a shape at all (the child message's wording, the agent
 * tool's parameters). What only one shape has stays beside its shape: fork.test.ts (Gemini),
 * fork-openai.test.ts (Chat Completions), fork-anthropic.test.ts (Anthropic).
 */
import { describe, expect, it } from 'vitest';
import {
  FORK_ACK_TEXT,
  FORK_BEGIN_TEXT,
  FORK_PLACEHOLDER_TEXT,
  FORK_UNAVAILABLE_RESULT_TEXT,
  NESTED_FORK_ERROR,
} from '../src/fork/index.js';
import { FORK_SYSTEM_TEXT } from '../src/wording/constants.js';
import { freezePrefix } from '../src/prefix/freeze.js';
import {
  AGENT_TOOL_DECLARATION,
  AGENT_TOOL_NAME,
  buildChildMessage,
  type Content,
  ForkRejectedError,
  isForkChild,
  isRealUserTurn,
  seedFork,
  syntheticPrefixLength,
  validateAgentParams,
} from '../src/protocol.js';
import {
  answers,
  asParts,
  calls,
  child,
  childPart,
  finished,
  MARKER,
  midTurn,
  model,
  resultPart,
  SHAPES,
  seedOf,
  sharedOf,
  textOf,
  textParts,
  user,
} from './support/shapes.js';

const TURNS_RULE = 'must be "all" or a positive integer (a number such as 2, or a string such as "2")';
/** Qwen Code's words (PR #8066) for a wildcard that is not one of its MCP forms. */
const WILDCARD_RULE = 'wildcard entries must be "mcp__*" or a trailing MCP tool-prefix pattern such as "mcp__github__read_*"';

/** The mid-turn seed of `midTurn` for this directive: redacted agent calls, a placeholder per call, the child message, an ack, the begin text. */
const midTurnSeed = (directive: string): Content[] => [
  ...midTurn.slice(0, 5),
  {
    role: 'model',
    parts: [
      { text: 'Starting two forks.' },
      { functionCall: { id: 'a1', name: 'agent', args: {} } },
      { functionCall: { id: 'a2', name: 'agent', args: {} } },
    ],
  },
  {
    role: 'user',
    parts: [resultPart('a1', 'agent', FORK_PLACEHOLDER_TEXT), resultPart('a2', 'agent', FORK_PLACEHOLDER_TEXT), childPart(directive)],
  },
  model(FORK_ACK_TEXT),
  user(FORK_BEGIN_TEXT),
];

describe.each(SHAPES)('%s seedFork, history "inherit"', (_name, shape) => {
  it('case 1: history ending on a model message without calls is kept, child message follows', () => {
    const seed = seedFork(shape.session(finished), 'Summarize the README.');
    const expected = [...finished, child('Summarize the README.')];
    expect(seed.format).toBe(shape.name);
    expect(seed.seedCase).toBe('continue');
    expect(seed.contents).toEqual(seedOf(shape, expected));
    expect(seed.sharedContents).toBe(sharedOf(shape, expected));
    expect(seed.trimmedMessages).toBe(0);
  });

  it('case 2: mid-turn history gets redacted calls, placeholders, the child message, an ack and the begin text', () => {
    const seed = seedFork(shape.session(midTurn), 'PARSER-DIRECTIVE');
    expect(seed.seedCase).toBe('mid-turn');
    expect(seed.contents).toEqual(seedOf(shape, midTurnSeed('PARSER-DIRECTIVE')));
    expect(seed.sharedContents).toBe(sharedOf(shape, midTurnSeed('PARSER-DIRECTIVE')));
    expect(seed.trimmedMessages).toBe(0);
  });

  it('case 2: calls of other tools keep their arguments, and their placeholder says the result was not available', () => {
    const history = [user('go'), calls(['g1', 'grep', { q: 'x' }])];
    const seed = seedFork(shape.session(history), 'do it');
    const expected: Content[] = [
      user('go'),
      history[1] as Content,
      { role: 'user', parts: [resultPart('g1', 'grep', FORK_UNAVAILABLE_RESULT_TEXT), childPart('do it')] },
      model(FORK_ACK_TEXT),
      user(FORK_BEGIN_TEXT),
    ];
    expect(seed.contents).toEqual(seedOf(shape, expected));
    expect(seed.sharedContents).toBe(sharedOf(shape, expected));
    expect(FORK_UNAVAILABLE_RESULT_TEXT).toContain('not finished when the fork started');
  });

  it('case 2: a turn mixing agent and other calls blanks only the agent calls, and each call gets its own placeholder', () => {
    const history: Content[] = [
      user('go'),
      calls(
        ['g1', 'grep', { q: 'parser' }],
        ['a1', 'agent', { description: 'd', prompt: 'SIBLING-DIRECTIVE', subagent_type: 'fork' }],
        ['s1', 'spawn_helper', { task: 'HELPER-TASK' }],
      ),
    ];
    const seed = seedFork(shape.session(history), 'mine', { spawnTools: ['agent', 'spawn_helper'] });
    const at = shape.head.length + 1;
    // The calling turn: one message in most shapes, an item per call in the Responses API's.
    const turn = shape.write([history[1] as Content]).length;
    expect(seed.contents.slice(at, at + turn).flatMap((m) => shape.view(m).calls.map((c) => c.args))).toEqual([{ q: 'parser' }, {}, {}]);
    const placeholders = shape.write([
      {
        role: 'user',
        parts: [
          resultPart('g1', 'grep', FORK_UNAVAILABLE_RESULT_TEXT),
          resultPart('a1', 'agent', FORK_PLACEHOLDER_TEXT),
          resultPart('s1', 'spawn_helper', FORK_PLACEHOLDER_TEXT),
          childPart('mine'),
        ],
      },
    ]);
    expect(seed.contents.slice(at + turn, at + turn + placeholders.length)).toEqual(placeholders);
    expect(textOf(seed.contents)).not.toContain('SIBLING-DIRECTIVE');
    expect(textOf(seed.contents)).not.toContain('HELPER-TASK');
    expect(FORK_PLACEHOLDER_TEXT).toBe('Fork started — processing in background');
  });

  it('case 3: a trailing user prompt the parent never answered is dropped, and the child message takes its place', () => {
    const seed = seedFork(shape.session([...finished, user('And now something else?')]), 'Check the tests.');
    const expected = [...finished, child('Check the tests.')];
    expect(seed.seedCase).toBe('dropped-user');
    expect(seed.contents).toEqual(seedOf(shape, expected));
    expect(textOf(seed.contents)).not.toContain('something else');
    expect(seed.sharedContents).toBe(sharedOf(shape, expected));
  });

  it('case 3: only that one message is dropped; an unanswered prompt before it stays (text parts too)', () => {
    const history = [...finished, user('first unanswered'), textParts('second unanswered')];
    const seed = seedFork(shape.session(history), 'Check the tests.');
    const expected = [...finished, user('first unanswered'), child('Check the tests.')];
    expect(seed.seedCase).toBe('dropped-user');
    expect(seed.contents).toEqual(seedOf(shape, expected));
    expect(seed.sharedContents).toBe(sharedOf(shape, expected));
  });

  it('case 3: real tool results the parent has not answered are kept, calls keep their arguments, the child message joins them', () => {
    const history = [
      user('go'),
      calls(['g1', 'grep', { q: 'x' }], ['r1', 'read_file', { path: 'a.ts' }]),
      answers(['g1', 'grep'], ['r1', 'read_file']),
    ];
    const seed = seedFork(shape.session(history), 'Look.');
    const expected: Content[] = [
      history[0] as Content,
      history[1] as Content,
      { role: 'user', parts: [...(history[2] as Content).parts, childPart('Look.')] },
    ];
    expect(seed.seedCase).toBe('tool-results');
    expect(seed.contents).toEqual(seedOf(shape, expected));
    expect(textOf(seed.contents)).not.toContain(FORK_PLACEHOLDER_TEXT);
    expect(textOf(seed.contents)).not.toContain(FORK_UNAVAILABLE_RESULT_TEXT);
    expect(seed.sharedContents).toBe(sharedOf(shape, expected));
  });

  it('a history of only a user message falls back to a fresh agent', () => {
    expect(seedFork(shape.session([user('hello')]), 'x').seedCase).toBe('fresh');
    expect(seedFork(shape.session([user('hello')]), 'x').contents).toEqual(seedOf(shape, [child('x')]));
  });
});

describe.each(SHAPES)('%s seedFork, history "completed-turns"', (_name, shape) => {
  it('leaves the in-flight turn out entirely', () => {
    const seed = seedFork(shape.session(midTurn), 'Look at the lexer.', { history: 'completed-turns' });
    const expected = [...finished, child('Look at the lexer.')];
    expect(seed.contents).toEqual(seedOf(shape, expected));
    expect(textOf(seed.contents)).not.toContain('PARSER-DIRECTIVE');
    expect(textOf(seed.contents)).not.toContain('in parallel');
    expect(seed.sharedContents).toBe(sharedOf(shape, expected));
    expect(seed.seedCase).toBe('continue');
  });

  it('stops before a turn whose calls are answered but not yet replied to', () => {
    const history = [...finished, user('next'), calls(['c9', 'grep', {}]), answers(['c9', 'grep'])];
    expect(seedFork(shape.session(history), 'x', { history: 'completed-turns' }).contents).toEqual(
      seedOf(shape, [...finished, child('x')]),
    );
  });

  it('does not count a model text message while an earlier call is unanswered', () => {
    const history = [user('go'), calls(['c1', 'grep', {}]), model('still waiting')];
    // Unvalidated: the AI SDK refuses a call left unanswered before a later message (MissingToolResultsError), and so does its schema.
    const seed = seedFork(shape.unvalidated(history), 'x', { history: 'completed-turns' });
    expect(seed.seedCase).toBe('fresh');
    expect(seed.contents).toEqual(seedOf(shape, [child('x')]));
  });

  it('counts a model message whose calls were all answered, then the text reply', () => {
    const history = [
      user('go'),
      calls(['c1', 'grep', {}], ['c2', 'grep', {}]),
      answers(['c2', 'grep'], ['c1', 'grep']),
      model('both done'),
      user('more'),
    ];
    const seed = seedFork(shape.session(history), 'x', { history: 'completed-turns' });
    expect(seed.contents).toEqual(seedOf(shape, [...history.slice(0, 4), child('x')]));
  });

  it('with no completed turn the seed is empty and the fork starts fresh, with the fork system text when the parent has none', () => {
    const seed = seedFork(shape.bare([user('go'), calls(['c1', 'agent', { prompt: 'x' }])]), 'Do the thing.', {
      history: 'completed-turns',
    });
    expect(seed.contents).toEqual(seedOf(shape, [child('Do the thing.')], shape.freshHead));
    expect(seed.sharedContents).toBe(sharedOf(shape, [child('Do the thing.')], shape.freshHead));
    expect(seed.seedCase).toBe('fresh');
    expect(shape.system(seed)).toEqual(shape.systemFor(FORK_SYSTEM_TEXT));
  });
});

describe.each(SHAPES)('%s seedFork, forkTurns', (_name, shape) => {
  // Three real user turns, with a tool-result, a blank, and a reminder-only user message between
  // (built unvalidated: Anthropic's schema refuses the blank one, as its API does).
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
    const seed = seedFork(shape.unvalidated(turns), 'x', { forkTurns: 1 });
    const expected = [...turns.slice(10), child('x')];
    expect(seed.contents).toEqual(seedOf(shape, expected));
    expect(seed.trimmedMessages).toBe(10);
    expect(seed.sharedContents).toBe(sharedOf(shape, expected));
  });

  it('2 keeps from the second real turn on: tool results, blank and reminder-only messages do not count', () => {
    const seed = seedFork(shape.unvalidated(turns), 'x', { forkTurns: 2 });
    const expected = [...turns.slice(2), child('x')];
    expect(seed.contents).toEqual(seedOf(shape, expected));
    expect(seed.trimmedMessages).toBe(2);
    expect(seed.sharedContents).toBe(sharedOf(shape, expected));
  });

  it('more turns than exist, and "all", keep everything', () => {
    for (const forkTurns of [3, 50, 'all'] as const) {
      const seed = seedFork(shape.unvalidated(turns), 'x', { forkTurns });
      expect(seed.contents).toEqual(seedOf(shape, [...turns, child('x')]));
      expect(seed.trimmedMessages).toBe(0);
      expect(seed.sharedContents).toBe(sharedOf(shape, [...turns, child('x')]));
    }
  });

  it('combines with the mid-turn case', () => {
    const seed = seedFork(shape.session(midTurn), 'PARSER-DIRECTIVE', { forkTurns: 1 });
    const expected = midTurnSeed('PARSER-DIRECTIVE').slice(4);
    expect(expected[0]).toEqual(user('Investigate the parser and the lexer in parallel.'));
    expect(seed.contents).toEqual(seedOf(shape, expected));
    expect(textOf(seed.contents)).not.toContain(MARKER);
    expect(seed.sharedContents).toBe(sharedOf(shape, expected));
    expect(seed.trimmedMessages).toBe(4);
  });

  it('combines with completed-turns', () => {
    const seed = seedFork(shape.session(midTurn), 'x', { history: 'completed-turns', forkTurns: 1 });
    expect(seed.contents).toEqual(seedOf(shape, [...finished, child('x')]));
  });

  it('never inherits startup context or a compacted summary, and keeps the system prompt', () => {
    const history: Content[] = [
      textParts('<system-reminder>\nstartup\n</system-reminder>'),
      user('Summary of the work.\n\nResume the prior task using the summary above.'),
      model('Got it. Thanks for the additional context!'),
      user('first question'),
      model('first answer'),
    ];
    const seed = seedFork(shape.session(history), 'x', { forkTurns: 5 });
    const expected = [user('first question'), model('first answer'), child('x')];
    expect(seed.contents).toEqual(seedOf(shape, expected));
    expect(seed.trimmedMessages).toBe(3);
    expect(seed.sharedContents).toBe(sharedOf(shape, expected));
    // No real turn after the synthetic prefix: empty and fresh; the parent's system prompt is kept…
    const empty = seedFork(shape.session(history.slice(0, 3)), 'x', { forkTurns: 1 });
    expect(empty.seedCase).toBe('fresh');
    expect(empty.contents).toEqual(seedOf(shape, [child('x')]));
    expect(empty.sharedContents).toBe(sharedOf(shape, [child('x')]));
    expect(shape.system(empty)).toEqual(shape.systemFor('You are the main agent.'));
    // …and without one, the fork's own.
    const bare = seedFork(shape.bare(history.slice(0, 3)), 'x', { forkTurns: 1 });
    expect(bare.contents).toEqual(seedOf(shape, [child('x')], shape.freshHead));
    expect(shape.system(bare)).toEqual(shape.systemFor(FORK_SYSTEM_TEXT));
  });
});

describe.each(SHAPES)('%s seedFork, copies and sharing', (_name, shape) => {
  it('seeds from a frozen prefix session and returns mutable copies', () => {
    const prefix = freezePrefix(shape.session(midTurn));
    const seed = seedFork(prefix.session, 'x');
    const at = shape.head.length;
    shape.setText(seed.contents[at], 'mutable');
    expect(shape.view(shape.messages(prefix.session)[at]).texts[0]).toBe(`Please remember ${MARKER}.`);
  });

  it('shares exactly the first sharedContents entries between forks with different directives', () => {
    const parents = [
      shape.session(finished),
      shape.session(midTurn),
      shape.session([...finished, user('dangling')]),
      shape.session([user('hi')]),
      shape.bare([user('hi')]),
    ];
    for (const parent of parents) {
      for (const options of [{}, { forkTurns: 1 }, { history: 'completed-turns' as const }]) {
        const a = seedFork(parent, 'directive A', options);
        const b = seedFork(parent, 'directive B', options);
        expect(a.sharedContents).toBe(b.sharedContents);
        expect(JSON.stringify(a.contents.slice(0, a.sharedContents))).toBe(JSON.stringify(b.contents.slice(0, b.sharedContents)));
        expect(JSON.stringify(a.contents[a.sharedContents])).not.toBe(JSON.stringify(b.contents[b.sharedContents]));
      }
    }
  });
});

describe.each(SHAPES)('%s sibling forks from one parent turn with two Agent calls', (_name, shape) => {
  const parent = shape.session(midTurn);
  const parser = seedFork(parent, 'PARSER-DIRECTIVE');
  const lexer = seedFork(parent, 'LEXER-DIRECTIVE');
  const childAt = sharedOf(shape, midTurnSeed('PARSER-DIRECTIVE'));
  const redactedAt = shape.head.length + shape.write(midTurn.slice(0, 5)).length;
  /** A message's bytes with the child message's text taken out. */
  const withoutChild = (message: unknown, directive: string): string =>
    JSON.stringify(message).replace(JSON.stringify(buildChildMessage(directive)).slice(1, -1), '');

  it("neither fork's contents hold the other's directive", () => {
    expect(textOf(parser.contents)).not.toContain('LEXER-DIRECTIVE');
    expect(textOf(lexer.contents)).not.toContain('PARSER-DIRECTIVE');
  });

  it('each holds its own Directive line, in the message after the placeholders', () => {
    expect(textOf(parser.contents)).toContain('Directive: PARSER-DIRECTIVE');
    expect(shape.view(parser.contents[childAt]).texts.at(-1)?.endsWith('Directive: PARSER-DIRECTIVE')).toBe(true);
    expect(shape.view(lexer.contents[childAt]).texts.at(-1)?.endsWith('Directive: LEXER-DIRECTIVE')).toBe(true);
    expect(parser.sharedContents).toBe(childAt);
  });

  it('both share the redacted model message and the placeholders byte for byte', () => {
    expect(JSON.stringify(parser.contents[redactedAt])).toBe(JSON.stringify(lexer.contents[redactedAt]));
    expect(JSON.stringify(parser.contents.slice(0, parser.sharedContents))).toBe(
      JSON.stringify(lexer.contents.slice(0, lexer.sharedContents)),
    );
    expect(withoutChild(parser.contents[childAt], 'PARSER-DIRECTIVE')).toBe(withoutChild(lexer.contents[childAt], 'LEXER-DIRECTIVE'));
    expect(withoutChild(parser.contents[childAt], 'PARSER-DIRECTIVE')).not.toContain('Directive:');
    expect(JSON.stringify(parser.contents.slice(childAt + 1))).toBe(JSON.stringify(lexer.contents.slice(childAt + 1)));
  });

  it('a marker only in the parent history reaches the fork, and is not in the directive', () => {
    expect(textOf(parser.contents)).toContain(MARKER);
    expect('PARSER-DIRECTIVE').not.toContain(MARKER);
    expect(buildChildMessage('PARSER-DIRECTIVE')).not.toContain(MARKER);
  });
});

describe.each(SHAPES)('%s child message', (_name, shape) => {
  it('is what seedFork puts in the child message, restriction included', () => {
    const seed = seedFork(shape.session(finished), 'Look.', { allowedTools: [] });
    expect(seed.contents.at(-1)).toEqual(shape.write([child('Look.', [])])[0]);
    const mid = seedFork(shape.session(midTurn), 'Look.', { allowedTools: ['read_file'] });
    expect(shape.view(mid.contents.at(-3)).texts.at(-1)).toBe(buildChildMessage('Look.', ['read_file']));
    expect(shape.view(mid.contents.at(-3)).texts.at(-1)).toContain('<tool-restriction>');
  });
});

describe.each(SHAPES)('%s fork-child guard', (_name, shape) => {
  it('recognises a fork child and refuses to fork it', () => {
    const forked = seedFork(shape.session(finished), 'x');
    expect(isForkChild(forked.contents)).toBe(true);
    const grandchild = shape.sessionOf([...forked.contents, ...shape.write([model('done')])]);
    expect(() => seedFork(grandchild, 'again')).toThrow(ForkRejectedError);
    expect(() => seedFork(grandchild, 'again')).toThrow(
      'cannot fork this conversation: it is itself a fork (its history holds a <fork-boilerplate> block).',
    );
    // A mid-turn fork child too (its child message follows the placeholders).
    const mid = seedFork(shape.session(midTurn), 'x');
    expect(isForkChild(mid.contents)).toBe(true);
    expect(() => seedFork(shape.sessionOf([...mid.contents, ...shape.write([model('done')])]), 'again')).toThrow(ForkRejectedError);
    // And a frozen one.
    expect(() => seedFork(freezePrefix(grandchild).session, 'again')).toThrow(ForkRejectedError);
  });

  it('reads string content and text parts, closed or cut off (the opening tag alone)', () => {
    expect(isForkChild(shape.write([user('<fork-boilerplate>rules</fork-boilerplate>\n\nDirective: x')]))).toBe(true);
    expect(isForkChild(shape.write([textParts('some context', '<fork-boilerplate>rules</fork-boilerplate>\n\nDirective: x')]))).toBe(true);
    expect(isForkChild(seedOf(shape, [textParts('<fork-boilerplate>\nYou are a fork: a copy of the agent, started fr')]))).toBe(true);
    expect(() => seedFork(shape.session([textParts('<fork-boilerplate>rules, cut off'), model('ok')]), 'again')).toThrow(ForkRejectedError);
  });

  it('does not mistake ordinary conversations for fork children', () => {
    expect(isForkChild(shape.messages(shape.session(finished)))).toBe(false);
    expect(isForkChild(shape.messages(shape.session(midTurn)))).toBe(false);
    expect(isForkChild([])).toBe(false);
    expect(isForkChild(shape.write([model('<fork-boilerplate>rules</fork-boilerplate>')]))).toBe(false);
    expect(isForkChild(shape.write([asParts(model('<fork-boilerplate>'))]))).toBe(false);
    expect(isForkChild(shape.write([user('what does the fork-boilerplate tag mean?')]))).toBe(false);
    // Not written by a user: a tool result that read a file holding the tag.
    expect(
      isForkChild(
        shape.write([
          calls(['c1', 'read_file', {}]),
          { role: 'user', parts: [resultPart('c1', 'read_file', 'const OPEN = "<fork-boilerplate>";')] },
        ]),
      ),
    ).toBe(false);
  });
});

describe.each(SHAPES)('%s synthetic prefix and real user turns', (_name, shape) => {
  const reminder = '<system-reminder>\nstartup\n</system-reminder>';
  const one = (message: Content): object => shape.write([message])[0];

  it('a reminder-only user message is startup context, as a string and as text parts', () => {
    expect(syntheticPrefixLength(shape.write([user(reminder), user('hi')]))).toBe(1);
    expect(syntheticPrefixLength(shape.write([textParts(reminder, '<system-reminder>more</system-reminder>\n'), user('hi')]))).toBe(1);
    expect(isRealUserTurn(one(user(reminder)))).toBe(false);
    expect(isRealUserTurn(one(textParts(reminder, '<system-reminder>more</system-reminder>')))).toBe(false);
    // A reminder with anything a person wrote is a real turn.
    expect(syntheticPrefixLength(shape.write([textParts(reminder, 'and a question')]))).toBe(0);
    expect(isRealUserTurn(one(textParts(reminder, 'and a question')))).toBe(true);
  });

  it('the legacy startup pair: a user message and "Got it. Thanks for the context!" (string or text part)', () => {
    expect(syntheticPrefixLength(shape.write([user('context'), model('Got it. Thanks for the context!'), user('q')]))).toBe(2);
    expect(syntheticPrefixLength(shape.write([user('context'), asParts(model('Got it. Thanks for the context!'))]))).toBe(2);
    expect(syntheticPrefixLength(shape.write([textParts('context'), asParts(model('Got it. Thanks for the context!'))]))).toBe(2);
    expect(syntheticPrefixLength(shape.write([user('context'), model('Got it. Thanks for the context! And more.')]))).toBe(0);
  });

  it('a compacted summary with its acknowledgement, its attachments and the calls after them', () => {
    const summary = user('Summary of the work.\n\nResume the prior task using the summary above.');
    const ack = model('Got it. Thanks for the additional context!');
    const attachments = textParts('The following files were recently accessed before context was compacted.\n- a.ts');
    const reads = calls(['r1', 'read_file', { path: 'a.ts' }]);
    const w = (...messages: Content[]) => shape.write(messages);
    expect(syntheticPrefixLength(w(summary, ack, user('q')))).toBe(0);
    expect(syntheticPrefixLength(w(summary, ack, user('q')), { includeCompacted: true })).toBe(2);
    expect(syntheticPrefixLength(w(textParts(reminder), summary, ack, user('q')), { includeCompacted: true })).toBe(3);
    expect(
      syntheticPrefixLength(w(summary, ack, attachments, reads, answers(['r1', 'read_file']), user('q')), { includeCompacted: true }),
    ).toBe(4);
    expect(syntheticPrefixLength(w(summary, ack, attachments, user('q')), { includeCompacted: true })).toBe(3);
    // The acknowledgement must be the model's, word for word.
    expect(syntheticPrefixLength(w(summary, user('Got it. Thanks for the additional context!')), { includeCompacted: true })).toBe(0);
    expect(syntheticPrefixLength(w(summary, model('Got it.')), { includeCompacted: true })).toBe(0);
  });
});

describe.each(SHAPES)('%s agent tool', (_name, shape) => {
  it("a model's agent call, read from its arguments, seeds a fork with the window and allowlist it asks for", () => {
    const args = { description: 'parser', prompt: 'Read the parser.', subagent_type: 'fork', fork_turns: 1, fork_tools: ['read_file'] };
    const parent = shape.session([...finished, user('Look at the parser.'), calls(['a1', 'agent', args])]);
    const checked = validateAgentParams(shape.view(shape.messages(parent).at(-1)).calls[0]?.args);
    if (!checked.ok || checked.fork === undefined) throw new Error('expected a fork request');
    const seed = seedFork(parent, checked.params.prompt, checked.fork);
    expect(seed.contents).toEqual(
      seedOf(shape, [
        user('Look at the parser.'),
        calls(['a1', 'agent', {}]),
        { role: 'user', parts: [resultPart('a1', 'agent', FORK_PLACEHOLDER_TEXT), childPart('Read the parser.', ['read_file'])] },
        model(FORK_ACK_TEXT),
        user(FORK_BEGIN_TEXT),
      ]),
    );
    expect(seed.trimmedMessages).toBe(shape.write(finished).length);
  });
});

describe.each(SHAPES)('%s seedFork option checks', (_name, shape) => {
  it('refuses an empty directive and bad options', () => {
    const parent = shape.session(finished);
    expect(() => seedFork(parent, '  ')).toThrow('seedFork: the directive must be a non-empty string');
    expect(() => seedFork(parent, 'x', { forkTurns: 0 })).toThrow('seedFork: forkTurns must be "all" or a positive integer, not 0');
    expect(() => seedFork(parent, 'x', { forkTurns: 1.5 })).toThrow(RangeError);
    expect(() => seedFork(parent, 'x', { history: 'everything' as never })).toThrow(
      'seedFork: history must be "inherit" or "completed-turns", not "everything"',
    );
    // An option it does not take (seed, history's old name, among them) is refused, naming those it takes.
    expect(() => seedFork(parent, 'x', { seed: 'inherit' } as never)).toThrow(
      'seedFork: options.seed is not an option (known: history, forkTurns, allowedTools, spawnTools, copy)',
    );
  });
});

// The rules below do not depend on a shape: the child message's wording and the agent tool's parameters.

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
      'name',
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
      // A fork is never awaited, whatever run_in_background says.
      runInBackground: true,
    });
  });

  it('accepts fork_turns "all" and an empty fork_tools list', () => {
    const result = validateAgentParams({ ...fork, fork_turns: 'all', fork_tools: [] });
    expect(result.ok && result.fork).toEqual({ forkTurns: 'all', allowedTools: [] });
  });

  it("accepts fork_tools in Qwen Code's forms (exact names and MCP server, all-MCP and tool-prefix patterns), passed on as given", () => {
    const tools = ['read_file', 'mcp__github__create_issue', 'mcp__github', 'mcp__*', 'mcp__github__read_*', 'mcp__github__*'];
    const result = validateAgentParams({ ...fork, fork_tools: tools });
    expect(result.ok && result.fork).toEqual({ forkTurns: 'all', allowedTools: tools });
    expect(result.ok && result.params.fork_tools).toEqual(tools);
    const schema = AGENT_TOOL_DECLARATION.parametersJsonSchema as { properties: Record<string, { description?: string }> };
    const described = String(schema.properties.fork_tools?.description);
    for (const form of [
      '"mcp__<server>"',
      '"mcp__*"',
      '"mcp__<server>__<prefix>*"',
      'Not "*": omit fork_tools for unrestricted execution',
    ]) {
      expect(described).toContain(form);
    }
  });

  it('accepts fork_turns as a JSON number as well as a numeric string', () => {
    const asNumber = validateAgentParams({ ...fork, fork_turns: 3 });
    const asString = validateAgentParams({ ...fork, fork_turns: '3' });
    expect(asNumber.ok && asNumber.fork).toEqual({ forkTurns: 3 });
    expect(asString.ok && asString.fork).toEqual({ forkTurns: 3 });
  });

  it('runs every fork in the background, whatever run_in_background says (the reference: forks are detached)', () => {
    for (const run_in_background of [undefined, true, false]) {
      const checked = validateAgentParams({ ...fork, ...(run_in_background !== undefined ? { run_in_background } : {}) });
      expect(checked.ok && checked.runInBackground).toBe(true);
    }
  });

  it('runs a general-purpose sub-agent as run_in_background says; left out, in the background unless it was given a name', () => {
    const general = { description: 'd', prompt: 'p' };
    const cases: [Record<string, unknown>, boolean][] = [
      [{}, true],
      [{ run_in_background: true }, true],
      [{ run_in_background: false }, false],
      [{ name: 'scout' }, false],
      [{ name: 'scout', run_in_background: true }, true],
      [{ name: 'scout', run_in_background: false }, false],
    ];
    for (const [extra, background] of cases) {
      const checked = validateAgentParams({ ...general, ...extra });
      expect([extra, checked.ok && checked.runInBackground]).toEqual([extra, background]);
    }
    expect(validateAgentParams(general)).toEqual({
      ok: true,
      params: general,
      subagentType: 'general-purpose',
      fork: undefined,
      runInBackground: true,
    });
  });

  it('inside a sub-agent, a sub-agent runs in the foreground (the reference: background delegation is top-level only)', () => {
    const nested = validateAgentParams({ description: 'd', prompt: 'p' }, { insideSubagent: true });
    expect(nested.ok && nested.runInBackground).toBe(false);
  });

  it('takes name as a label, a non-empty string', () => {
    const named = validateAgentParams({ ...fork, name: 'audit' });
    expect(named.ok && named.params.name).toBe('audit');
    const empty = validateAgentParams({ ...fork, name: ' ' });
    expect(!empty.ok && empty.error.message).toBe('name: must be a non-empty string');
  });

  it('an omitted subagent_type, or "general-purpose", is a fresh general-purpose sub-agent, never a fork', () => {
    for (const params of [
      { description: 'd', prompt: 'p' },
      { description: 'd', prompt: 'p', subagent_type: 'General-Purpose' },
    ]) {
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
    [
      'fork_turns without fork',
      { description: 'd', prompt: 'p', fork_turns: '2' },
      'fork_turns: can only be used with subagent_type "fork"',
    ],
    [
      'fork_turns with general-purpose',
      { description: 'd', prompt: 'p', subagent_type: 'general-purpose', fork_turns: 'all' },
      'fork_turns: can only be used with subagent_type "fork"',
    ],
    [
      'an unknown subagent_type',
      { description: 'd', prompt: 'p', subagent_type: 'explore' },
      'subagent_type: must be "fork" or "general-purpose" (or omitted), not "explore"',
    ],
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
    [
      'fork_tools without fork',
      { description: 'd', prompt: 'p', fork_tools: ['grep'] },
      'fork_tools: can only be used with subagent_type "fork"',
    ],
    ['fork_tools not an array', { ...fork, fork_tools: 'grep' }, 'fork_tools: must be an array of tool names or MCP patterns'],
    ['fork_tools "*"', { ...fork, fork_tools: ['*'] }, 'fork_tools[0]: does not accept "*"; omit fork_tools for unrestricted execution'],
    [
      'fork_tools "*" among names',
      { ...fork, fork_tools: ['grep', 'mcp__*', '*'] },
      'fork_tools[2]: does not accept "*"; omit fork_tools for unrestricted execution',
    ],
    ['fork_tools built-in wildcard', { ...fork, fork_tools: ['grep', 'read_fil*'] }, `fork_tools[1]: "read_fil*": ${WILDCARD_RULE}`],
    [
      'fork_tools server wildcard without "__"',
      { ...fork, fork_tools: ['mcp__github*'] },
      `fork_tools[0]: "mcp__github*": ${WILDCARD_RULE}`,
    ],
    ['fork_tools star not at the end', { ...fork, fork_tools: ['mcp__*__read'] }, `fork_tools[0]: "mcp__*__read": ${WILDCARD_RULE}`],
    ['fork_tools two stars', { ...fork, fork_tools: ['mcp__github__re*d_*'] }, `fork_tools[0]: "mcp__github__re*d_*": ${WILDCARD_RULE}`],
    ['fork_tools empty server', { ...fork, fork_tools: ['mcp____read_*'] }, `fork_tools[0]: "mcp____read_*": ${WILDCARD_RULE}`],
    ['fork_tools empty name', { ...fork, fork_tools: [''] }, 'fork_tools[0]: must be a non-empty tool name'],
    ['fork_tools whitespace', { ...fork, fork_tools: ['grep '] }, 'fork_tools[0]: "grep " must not have surrounding whitespace'],
    ['fork_tools non-string', { ...fork, fork_tools: [3] }, 'fork_tools[0]: must be a non-empty tool name'],
    [
      'model with fork',
      { ...fork, model: 'gemini-2.5-pro' },
      'model: cannot be combined with subagent_type "fork": a fork always uses this conversation\'s model, because another model cannot read its prompt cache',
    ],
    [
      'model with general-purpose',
      { description: 'd', prompt: 'p', model: 'gemini-2.5-pro' },
      "model: is not supported: every sub-agent runs on this conversation's model",
    ],
    [
      'isolation with fork',
      { ...fork, isolation: 'worktree' },
      'isolation: is not supported: sub-agents run in this process and share its workspace',
    ],
    [
      'isolation with general-purpose',
      { description: 'd', prompt: 'p', subagent_type: 'general-purpose', isolation: 'worktree' },
      'isolation: is not supported: sub-agents run in this process and share its workspace',
    ],
    [
      'working_dir',
      { description: 'd', prompt: 'p', working_dir: '/tmp' },
      "working_dir: is not supported: sub-agents share this process's working directory",
    ],
    [
      'unknown parameter',
      { ...fork, fork_profile: 'x' },
      'fork_profile: is not a parameter of the agent tool (known: description, prompt, subagent_type, run_in_background, name, fork_turns, fork_tools, model)',
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
    expect(validateAgentParams({ ...fork, model: 'x', fork_turns: 'bad' }, { insideFork: true })).toEqual({
      ok: false,
      error: { kind: 'nested_fork', message: expected },
    });
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
