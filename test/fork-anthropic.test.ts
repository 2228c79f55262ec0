// Internal: anthropicMessagesDialect.request and anthropicTool (src/shapes/anthropic-messages/dialect.ts), the Messages body a fork sends and the tool shape; parentBreakpoints and placeBreakpoints (src/shapes/anthropic-messages/breakpoints.ts); validateMessagesRequest (src/local-server/anthropic/validate.ts), the local server's check of a request; seedTask (src/fork/seed-task.ts) and the fork's fixed wording (src/wording/constants.ts): no entry point exports them. Also freezePrefix (src/prefix/freeze.ts), the prefix without an engine (its public face is engine.freeze).
/*
 * The fork rules where they are Anthropic's own ("format": "anthropic-messages"): calls are
 * `tool_use` blocks of an assistant message, results are `tool_result` blocks that open the next
 * user message and the user's words follow them in that same message; the system prompt is a field
 * of its own (no head messages). Here: thinking blocks, consecutive messages of one role read as one
 * turn, a mid-conversation system message, the system prompt of a fresh fork, image and document
 * blocks, the request's fields, bytes and breakpoints, the seed's copies, seedTask, the dialect's
 * tool results, and the same forks as Gemini's on random conversations. The rules that hold on every
 * shape run for Anthropic too from fork-rules.test.ts. Every session built here is checked with
 * parseSession, so each is a session a file could hold; where a Gemini or OpenAI case cannot be
 * written in this shape (the schema refuses it, as the API does), the test says so.
 */
import { describe, expect, it } from 'vitest';
import { anthropicMessagesDialect, anthropicTool, type AnthropicSessionLike } from '../src/shapes/anthropic-messages/dialect.js';
import { parentBreakpoints, placeBreakpoints } from '../src/shapes/anthropic-messages/breakpoints.js';
import { FORK_SYSTEM_TEXT } from '../src/wording/constants.js';
import { FORK_ACK_TEXT, FORK_BEGIN_TEXT, FORK_PLACEHOLDER_TEXT, FORK_UNAVAILABLE_RESULT_TEXT, seedTask } from '../src/fork/index.js';
import { type AnthropicMessagesSession, type AnthropicTool, parseSession } from '../src/index.js';
import { freezePrefix } from '../src/prefix/freeze.js';
import { validateMessagesRequest } from '../src/local-server/anthropic/validate.js';
import {
  AGENT_TOOL_ANTHROPIC,
  AGENT_TOOL_DECLARATION,
  type AnthropicMessageLike,
  buildChildMessage,
  type Content,
  ForkRejectedError,
  type GeminiSession,
  isForkChild,
  isRealUserTurn,
  seedFork,
  syntheticPrefixLength,
} from '../src/protocol.js';
import * as protocol from '../src/protocol.js';

type Msg = AnthropicMessageLike;
type Block = Record<string, unknown>;

const text = (value: string): Block => ({ type: 'text', text: value });
const user = (value: string): Msg => ({ role: 'user', content: value });
const userBlocks = (...texts: string[]): Msg => ({ role: 'user', content: texts.map(text) });
const assistant = (value: string): Msg => ({ role: 'assistant', content: value });
const use = (id: string, name: string, input: Record<string, unknown>): Block => ({ type: 'tool_use', id, name, input });
const calls = (...list: [id: string, name: string, input: Record<string, unknown>][]): Msg => ({
  role: 'assistant',
  content: list.map(([id, name, input]) => use(id, name, input)),
});
const result = (id: string, content: string): Block => ({ type: 'tool_result', tool_use_id: id, content });
/** One user message answering these calls (results open a user message). */
const answers = (...ids: string[]): Msg => ({ role: 'user', content: ids.map((id) => result(id, `result of ${id}`)) });
const tool = (name: string): AnthropicTool => ({
  name,
  description: `The ${name} tool.`,
  input_schema: { type: 'object', properties: {} },
});

/** The placeholder result a fork gets for a call of the parent's in-flight turn. */
const placeholder = (id: string): Block => result(id, FORK_PLACEHOLDER_TEXT);
const unavailable = (id: string): Block => result(id, FORK_UNAVAILABLE_RESULT_TEXT);
const childBlock = (directive: string, allowedTools?: readonly string[]): Block => text(buildChildMessage(directive, allowedTools));
/** The child message as a user message of its own (string content, as the dialect writes a user text). */
const child = (directive: string, allowedTools?: readonly string[]): Msg => user(buildChildMessage(directive, allowedTools));

const blocksOf = (message: Msg | undefined): readonly Block[] =>
  message === undefined || typeof message.content === 'string' ? [] : message.content;
const usesOf = (message: Msg | undefined) => blocksOf(message).filter((b) => b.type === 'tool_use');

const MARKER = 'MARKER-7f3a-only-in-parent-history';
const SYSTEM = 'You are the main agent.';
const TOOLS: AnthropicTool[] = [tool('read_file'), AGENT_TOOL_ANTHROPIC as AnthropicTool, tool('grep')];

/** A valid anthropic-messages session (parseSession returns the same object) with exactly these messages. */
function session(messages: Msg[], extra: Partial<AnthropicMessagesSession> = {}, { system = true } = {}): AnthropicMessagesSession {
  const made = unvalidated(messages, extra, { system });
  const parsed = parseSession(made);
  if (parsed !== made) throw new Error('parseSession returned another object');
  return made;
}

/**
 * The same session, not validated: for blank user messages, which the schema refuses as the API
 * does (issue 22) but which a caller's own session may still hold, and the fork rules must read as no turn.
 */
function unvalidated(messages: Msg[], extra: Partial<AnthropicMessagesSession> = {}, { system = true } = {}): AnthropicMessagesSession {
  const made = {
    format: 'anthropic-messages',
    model: 'claude-sonnet-4-5',
    system: SYSTEM,
    tools: TOOLS,
    tool_choice: { type: 'auto' },
    messages,
    max_tokens: 2048,
    stop_sequences: ['</report>'],
    ...extra,
  } as AnthropicMessagesSession;
  if (!system) delete made.system;
  return made;
}

/** The same without a system prompt (the key absent, not undefined). */
const bare = (messages: Msg[]): AnthropicMessagesSession => session(messages, {}, { system: false });

/** A finished exchange: user asks, model reads a file, answers. */
const finished: Msg[] = [
  user(`Please remember ${MARKER}.`),
  calls(['c1', 'read_file', { path: 'README.md' }]),
  answers('c1'),
  assistant('Noted, and I read the README.'),
];

/** The parent just called the Agent tool twice in one turn. */
const midTurn: Msg[] = [
  ...finished,
  user('Investigate the parser and the lexer in parallel.'),
  {
    role: 'assistant',
    content: [
      text('Starting two forks.'),
      use('a1', 'agent', { description: 'parser', prompt: 'PARSER-DIRECTIVE', subagent_type: 'fork' }),
      use('a2', 'agent', { description: 'lexer', prompt: 'LEXER-DIRECTIVE', subagent_type: 'fork' }),
    ],
  },
];

const textOf = (contents: readonly unknown[]): string => JSON.stringify(contents);

/** The local server's check of a Messages request (it answers 400 as the API does: a tool_result must answer a tool_use of the message before). */
function accepted(seed: { session: Readonly<AnthropicMessagesSession>; contents: readonly Msg[] }): boolean {
  validateMessagesRequest(bodyOf(seed.session, seed.contents) as Parameters<typeof validateMessagesRequest>[0]);
  return true;
}

/**
 * Whether a seed's messages, answered by the model, make a session the schema takes: its tool rules
 * are the API's, which reads consecutive messages of one role as one turn (the local server's check
 * pairs single messages only, so it cannot judge those).
 */
function valid(seed: { session: Readonly<AnthropicMessagesSession>; contents: readonly Msg[] }): boolean {
  // What is judged is what the fork rules made: a blank message the parent's own (unvalidated)
  // session held, which the schema's whitespace rule refuses, stands in as a word here.
  parseSession({ ...seed.session, messages: [...seed.contents.map(worded), assistant('done')] });
  return true;
}

function worded(message: Msg): Msg {
  const blank = (text: unknown): boolean => typeof text === 'string' && text.trim() === '';
  if (typeof message.content === 'string') return blank(message.content) ? { ...message, content: 'blank' } : message;
  const blocks = message.content as readonly { type: string; text?: unknown }[];
  return blocks.length > 0 && blocks.every((b) => b.type === 'text' && blank(b.text)) ? { ...message, content: 'blank' } : message;
}

/** The Messages API body a fork sends first: the session's fields with the seed's messages. */
function bodyOf(fields: Readonly<AnthropicMessagesSession>, messages: readonly Msg[]): Record<string, unknown> {
  const request = anthropicMessagesDialect.request(fields as unknown as AnthropicSessionLike, messages);
  if (request.format !== 'anthropic-messages') throw new Error('expected a Messages request');
  return request.body as Record<string, unknown>;
}

describe('anthropic-messages seedFork, history "inherit"', () => {
  it('case 2: thinking and redacted_thinking blocks of the call message are kept verbatim, signatures included', () => {
    const thinking = { type: 'thinking', thinking: 'Two forks will do.', signature: 'EqQBCkYIBxgCKkDsig==' };
    const redacted = { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' };
    const history = [user('go'), { role: 'assistant' as const, content: [thinking, redacted, use('a1', 'agent', { prompt: 'SIBLING' })] }];
    const seed = seedFork(session(history, { thinking: { type: 'enabled', budget_tokens: 1024 } }), 'mine');
    expect(seed.contents[1]).toEqual({ role: 'assistant', content: [thinking, redacted, use('a1', 'agent', {})] });
    expect(JSON.stringify(blocksOf(seed.contents[1]).slice(0, 2))).toBe(JSON.stringify([thinking, redacted]));
  });

  it("case 3: the user's words after the results stay in that message (as in Gemini), and the child message follows them", () => {
    const words = {
      role: 'user' as const,
      content: [result('g1', 'found it'), text('<system-reminder>x</system-reminder>'), text('and the tests?')],
    };
    const seed = seedFork(session([user('go'), calls(['g1', 'grep', { q: 'x' }]), words]), 'Look.');
    expect(seed.seedCase).toBe('tool-results');
    expect(seed.contents[2]).toEqual({ role: 'user', content: [...words.content, childBlock('Look.')] });
  });

  it('case 3: results answered in another order, and a trailing prompt after the results (dropped; the results are kept)', () => {
    const callMessage = calls(['g1', 'grep', { q: 'x' }], ['r1', 'read_file', { path: 'a.ts' }], ['g2', 'grep', { q: 'y' }]);
    const reordered = [user('go'), callMessage, answers('g2', 'r1', 'g1')];
    const seed = seedFork(session(reordered), 'Look.');
    expect(seed.contents).toEqual([user('go'), callMessage, { role: 'user', content: [...blocksOf(reordered[2]), childBlock('Look.')] }]);
    const prompted = [...reordered, user('and also?')];
    const dropped = seedFork(session(prompted), 'Look.');
    expect(dropped.seedCase).toBe('tool-results');
    expect(dropped.contents).toEqual(seed.contents);
    expect(dropped.sharedContents).toBe(2);
  });

  it('results answering only some calls, a prompt after unanswered calls, or results answering none: the schema refuses them, as the API does', () => {
    // Gemini seeds these (placeholders for the rest, or the stray message dropped); an Anthropic
    // session cannot hold them: every tool_use is answered by the user turn right after it.
    const partial = [user('go'), calls(['g1', 'grep', { q: 'x' }], ['a1', 'agent', { prompt: 'SIBLING' }]), answers('g1')];
    expect(() => session(partial)).toThrow(/the tool_use "a1" is not answered/);
    expect(() => session([user('go'), calls(['a1', 'agent', { prompt: 'SIBLING' }]), user('well?')])).toThrow(
      /the tool_use "a1" is not answered/,
    );
    expect(() => session([...finished, answers('zz')])).toThrow(/"zz" answers no tool_use/);
  });

  it('a history of only a user message, without a system prompt: a fresh agent with the fork system text in session.system, and the parent tools', () => {
    const parent = bare([user('hello')]);
    const seed = seedFork(parent, 'Start from scratch.');
    expect(seed.seedCase).toBe('fresh');
    expect(seed.contents).toEqual([child('Start from scratch.')]);
    expect(seed.sharedContents).toBe(0);
    expect(seed.trimmedMessages).toBe(0);
    expect(seed.session.system).toBe(FORK_SYSTEM_TEXT);
    expect(FORK_SYSTEM_TEXT).toMatch(/background worker agent/);
    expect(seed.session.tools).toEqual(parent.tools);
    // The parent keeps having none, and the fork's system prompt comes where the API reads it.
    expect('system' in parent).toBe(false);
    expect(bodyOf(seed.session, seed.contents).system).toBe(FORK_SYSTEM_TEXT);
    // Every seed has a session of its own.
    expect(seedFork(parent, 'y').session).not.toBe(seed.session);
    expect(seedFork(parent, 'y', { copy: false }).session.system).toBe(FORK_SYSTEM_TEXT);
  });

  it("a fresh fork keeps the parent's own system prompt", () => {
    const blocks = [{ type: 'text' as const, text: 'You are the main agent.', cache_control: { type: 'ephemeral' as const } }];
    const seed = seedFork(session([user('hello')], { system: blocks }), 'x');
    expect(seed.seedCase).toBe('fresh');
    expect(seed.session.system).toEqual(blocks);
    expect(seedFork(session([user('hello')]), 'x').session.system).toBe(SYSTEM);
  });

  it('a fork that inherits history never gets the fork system text, even when the parent has no system prompt', () => {
    const seed = seedFork(bare(finished), 'x');
    expect(seed.seedCase).toBe('continue');
    expect('system' in seed.session).toBe(false);
  });

  it('a mid-conversation system message is history: kept where it stands, and left out with the turns a window drops', () => {
    const note = { role: 'system' as const, content: 'Mode changed: read-only.' };
    const history = [user('a'), note, assistant('b'), user('c'), assistant('d')];
    expect(seedFork(session(history), 'x').contents).toEqual([...history, child('x')]);
    const windowed = seedFork(session(history), 'x', { forkTurns: 1 });
    expect(windowed.contents).toEqual([user('c'), assistant('d'), child('x')]);
    expect(windowed.trimmedMessages).toBe(3);
    expect(
      seedFork(session([user('a'), note, assistant('b'), user('c'), { role: 'system', content: 'again' }, assistant('d')]), 'x', {
        forkTurns: 1,
      }).contents,
    ).toEqual([user('c'), { role: 'system', content: 'again' }, assistant('d'), child('x')]);
  });
});

describe("anthropic-messages seedFork: consecutive messages of one role are one turn, as Anthropic's API reads them", () => {
  it('results spread over consecutive user messages are all kept (none replaced by a placeholder); the child message joins the last', () => {
    const history = [user('go'), calls(['g1', 'grep', { q: 'x' }], ['r1', 'read_file', { path: 'a.ts' }]), answers('g1'), answers('r1')];
    const seed = seedFork(session(history), 'Look.');
    expect(seed.seedCase).toBe('tool-results');
    expect(seed.contents).toEqual([...history.slice(0, 3), { role: 'user', content: [result('r1', 'result of r1'), childBlock('Look.')] }]);
    expect(textOf(seed.contents)).not.toContain(FORK_UNAVAILABLE_RESULT_TEXT);
    expect(seed.sharedContents).toBe(3);
    expect(valid(seed)).toBe(true);
  });

  it('calls spread over consecutive assistant messages, or followed by assistant text, are answered by the results after them', () => {
    const split = [user('go'), calls(['g1', 'grep', { q: 'x' }]), calls(['r1', 'read_file', { path: 'a.ts' }]), answers('g1', 'r1')];
    const seed = seedFork(session(split), 'Look.');
    expect(seed.seedCase).toBe('tool-results');
    expect(seed.contents).toEqual([...split.slice(0, 3), { role: 'user', content: [...blocksOf(split[3]), childBlock('Look.')] }]);
    const talking = [user('go'), calls(['g1', 'grep', { q: 'x' }]), assistant('Let me look.'), answers('g1')];
    const kept = seedFork(session(talking), 'Look.');
    // The results are the parent's, kept: not dropped as if they answered nothing.
    expect(kept.seedCase).toBe('tool-results');
    expect(kept.contents).toEqual([...talking.slice(0, 3), { role: 'user', content: [...blocksOf(talking[3]), childBlock('Look.')] }]);
    expect(valid(seed) && valid(kept)).toBe(true);
  });

  it('a mid-turn parent whose calls span several assistant messages gets a placeholder for every call, after the last of them', () => {
    const history = [user('go'), calls(['g1', 'grep', { q: 'x' }]), calls(['a1', 'agent', { prompt: 'SIBLING' }])];
    const parent = session(history);
    const seed = seedFork(parent, 'mine');
    expect(seed.seedCase).toBe('mid-turn');
    expect(seed.contents).toEqual([
      user('go'),
      history[1],
      calls(['a1', 'agent', {}]),
      { role: 'user', content: [unavailable('g1'), placeholder('a1'), childBlock('mine')] },
      assistant(FORK_ACK_TEXT),
      user(FORK_BEGIN_TEXT),
    ]);
    expect(seed.sharedContents).toBe(3);
    expect(valid(seed)).toBe(true);
    // With copy: false, the message without agent calls is the parent's own.
    expect(seedFork(parent, 'mine', { copy: false }).contents[1]).toBe(parent.messages[1]);
  });

  it('calls followed by assistant text that ends the conversation leave the parent mid-turn, not finished', () => {
    const history = [user('go'), calls(['a1', 'agent', { prompt: 'SIBLING' }]), assistant('Still waiting for the fork.')];
    const seed = seedFork(session(history), 'mine');
    expect(seed.seedCase).toBe('mid-turn');
    expect(seed.contents).toEqual([
      user('go'),
      calls(['a1', 'agent', {}]),
      history[2],
      { role: 'user', content: [placeholder('a1'), childBlock('mine')] },
      assistant(FORK_ACK_TEXT),
      user(FORK_BEGIN_TEXT),
    ]);
    expect(textOf(seed.contents)).not.toContain('SIBLING');
    expect(valid(seed)).toBe(true);
    // Its turn is not completed either.
    expect(seedFork(session(history), 'mine', { history: 'completed-turns' }).seedCase).toBe('fresh');
  });
});

describe('anthropic-messages seedFork: a mid-conversation system message at the end goes with the user message before it', () => {
  // Anthropic takes a { "role": "system" } message right after a user message, as the last message
  // or before an assistant message: a fork's user message may not follow it.
  const note = { role: 'system' as const, content: 'Mode changed: read-only.' };

  it('after a prompt the parent never answered, both are dropped', () => {
    const seed = seedFork(session([...finished, user('And now?'), note]), 'Look.');
    expect(seed.seedCase).toBe('dropped-user');
    expect(seed.contents).toEqual([...finished, child('Look.')]);
    expect(seed.sharedContents).toBe(4);
    expect(valid(seed)).toBe(true);
    const only = seedFork(session([user('hello'), note]), 'Look.');
    expect(only.seedCase).toBe('fresh');
    expect(only.contents).toEqual([child('Look.')]);
  });

  it('after results of the last calls, it follows the child message that joins them', () => {
    const history = [user('go'), calls(['g1', 'grep', { q: 'x' }]), answers('g1'), note];
    const seed = seedFork(session(history), 'Look.');
    expect(seed.seedCase).toBe('tool-results');
    expect(seed.contents).toEqual([
      user('go'),
      history[1],
      { role: 'user', content: [...blocksOf(history[2]), childBlock('Look.')] },
      note,
    ]);
    expect(seed.sharedContents).toBe(2);
    expect(valid(seed)).toBe(true);
  });

  it('elsewhere it is history like any message, and siblings still share everything before their child message', () => {
    const history = [user('go'), note, assistant('ok')];
    expect(seedFork(session(history), 'x').contents).toEqual([...history, child('x')]);
    const a = seedFork(session([user('go'), calls(['g1', 'grep', {}]), answers('g1'), note]), 'A');
    const b = seedFork(session([user('go'), calls(['g1', 'grep', {}]), answers('g1'), note]), 'B');
    expect(JSON.stringify(a.contents.slice(0, a.sharedContents))).toBe(JSON.stringify(b.contents.slice(0, b.sharedContents)));
  });
});

describe('anthropic-messages seedFork, forkTurns', () => {
  it('blank and reminder-only messages written as text blocks do not count either; an image block does', () => {
    const blocks: Msg[] = [
      user('turn one'),
      assistant('one done'),
      userBlocks('  ', '\n'),
      assistant('blank noted'),
      userBlocks('<system-reminder>a</system-reminder>', '<system-reminder>b</system-reminder>'),
      assistant('reminders noted'),
      { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'c2hvdA==' } }] },
      assistant('image seen'),
    ];
    expect(seedFork(unvalidated(blocks), 'x', { forkTurns: 1 }).contents).toEqual([...blocks.slice(6), child('x')]);
    expect(seedFork(unvalidated(blocks), 'x', { forkTurns: 2 }).contents).toEqual([...blocks, child('x')]);
  });

  it('a window that starts at a user message of results and words keeps the words, not the results of calls it left out', () => {
    const words = {
      role: 'user' as const,
      content: [result('g1', 'found it'), text('next question'), text('<system-reminder>x</system-reminder>')],
    };
    const history = [user('go'), calls(['g1', 'grep', { q: 'x' }]), words, assistant('ok')];
    const parent = session(history);
    const seed = seedFork(parent, 'x', { forkTurns: 1 });
    expect(seed.contents).toEqual([
      { role: 'user', content: [text('next question'), text('<system-reminder>x</system-reminder>')] },
      assistant('ok'),
      child('x'),
    ]);
    expect(seed.trimmedMessages).toBe(2);
    expect(seed.sharedContents).toBe(2);
    expect(accepted(seed)).toBe(true);
    // The parent keeps its message, with copy: false too (the window's is a new one, its blocks the parent's).
    const shared = seedFork(parent, 'x', { forkTurns: 1, copy: false });
    expect(shared.contents[0]).not.toBe(parent.messages[2]);
    expect(blocksOf(shared.contents[0])[0]).toBe(words.content[1]);
    expect(parent.messages[2]).toEqual(words);
    // A window that keeps the calls keeps their results; "all" keeps everything.
    expect(seedFork(parent, 'x', { forkTurns: 2 }).contents).toEqual([...history, child('x')]);
    // Then mid-turn: the window's first message is still without the results of calls it left out.
    const mid = seedFork(session([...history, user('and the lexer?'), calls(['a1', 'agent', { prompt: 'SIBLING' }])]), 'x', {
      forkTurns: 2,
    });
    expect(mid.seedCase).toBe('mid-turn');
    expect(mid.contents[0]).toEqual({ role: 'user', content: [text('next question'), text('<system-reminder>x</system-reminder>')] });
    expect(accepted(mid)).toBe(true);
  });
});

describe('anthropic-messages seedFork, copies and sharing', () => {
  it("the request's other fields are the session's own: model, system, tools and settings, in its key order", () => {
    const parent = session(finished);
    const seed = seedFork(parent, 'x', { allowedTools: ['read_file'] });
    expect(seed.model).toBe(parent.model);
    expect(JSON.stringify(seed.session.tools)).toBe(JSON.stringify(parent.tools));
    const body = bodyOf(seed.session, seed.contents);
    const { format: _format, ...fields } = parent;
    expect(Object.keys(body)).toEqual(Object.keys(fields));
    expect(JSON.stringify({ ...body, messages: parent.messages })).toBe(JSON.stringify(fields));
    expect(body.messages).toEqual(seed.contents);
  });

  it('keeps the seed to its documented keys', () => {
    const seed = seedFork(session(finished, { tools: undefined }), 'x');
    expect(Object.keys(seed).sort()).toEqual(['contents', 'format', 'model', 'seedCase', 'session', 'sharedContents', 'trimmedMessages']);
  });

  it('returns deep copies by default: mutating the seed never touches the parent session', () => {
    const parent = session(structuredClone(midTurn), { system: [{ type: 'text', text: SYSTEM }] });
    const before = structuredClone(parent);
    const seed = seedFork(parent, 'x');
    (seed.contents[0] as { content: string }).content = 'mutated';
    (usesOf(seed.contents[1])[0] as { input: Record<string, unknown> }).input.path = 'mutated';
    (usesOf(seed.contents[5])[0] as { input: Record<string, unknown> }).input.prompt = 'mutated';
    seed.contents.push(user('extra'));
    (seed.session.tools as AnthropicTool[]).push(tool('evil'));
    ((seed.session.system as { text: string }[])[0] as { text: string }).text = 'mutated';
    (seed.session as { max_tokens: number }).max_tokens = 1;
    (seed.session.messages as Msg[]).push(user('evil'));
    expect(parent).toEqual(before);
    for (const [i, message] of seed.contents.slice(0, 5).entries()) expect(message).not.toBe(parent.messages[i]);
    // The redacted message is a copy too: the parent still has its inputs.
    expect(usesOf(parent.messages[5] as Msg).map((b) => b.input)).toEqual([
      { description: 'parser', prompt: 'PARSER-DIRECTIVE', subagent_type: 'fork' },
      { description: 'lexer', prompt: 'LEXER-DIRECTIVE', subagent_type: 'fork' },
    ]);
  });

  it("seeds from a frozen prefix session and returns a mutable copy of the session's settings", () => {
    const prefix = freezePrefix(session(midTurn));
    const frozen = prefix.session as AnthropicMessagesSession;
    const seed = seedFork(frozen, 'x');
    (seed.session as { max_tokens: number }).max_tokens = 1;
    expect(frozen.max_tokens).toBe(2048);
  });

  it('with copy: false shares the frozen messages and session, in an array of its own', () => {
    const prefix = freezePrefix(session(finished));
    const frozen = prefix.session as AnthropicMessagesSession;
    const seed = seedFork(frozen, 'x', { copy: false });
    expect(seed.session).toBe(frozen);
    for (let i = 0; i < seed.sharedContents; i++) expect(seed.contents[i]).toBe(frozen.messages[i]);
    expect(seed.contents.slice(0, seed.sharedContents)).toEqual(frozen.messages);
    seed.contents.push(user('more'));
    expect(frozen.messages).toHaveLength(finished.length);
    expect(() => {
      (seed.contents[0] as { content: string }).content = 'edited';
    }).toThrow(TypeError);
  });

  it('with copy: false in the mid-turn case, the untouched messages are shared and the redacted one is new', () => {
    const parent = session(midTurn);
    const seed = seedFork(parent, 'x', { copy: false });
    for (let i = 0; i < 5; i++) expect(seed.contents[i]).toBe(parent.messages[i]);
    expect(seed.contents[5]).not.toBe(parent.messages[5]);
    // Blocks that are not agent calls are the parent's own objects.
    expect(blocksOf(seed.contents[5])[0]).toBe(blocksOf(parent.messages[5] as Msg)[0]);
    expect(usesOf(parent.messages[5] as Msg)[0]?.input).toMatchObject({ prompt: 'PARSER-DIRECTIVE' });
  });

  it('with copy: false in the tool-results case, the results message is a new one and the parent keeps its own', () => {
    const parent = session([user('go'), calls(['g1', 'grep', {}]), answers('g1')]);
    const seed = seedFork(parent, 'x', { copy: false });
    expect(seed.contents[2]).not.toBe(parent.messages[2]);
    expect(blocksOf(parent.messages[2] as Msg)).toHaveLength(1);
    expect(blocksOf(seed.contents[2])[0]).toBe(blocksOf(parent.messages[2] as Msg)[0]);
  });

  it('shares exactly the first sharedContents entries between forks with different directives, from results of every call; and the same session', () => {
    const results = [user('go'), calls(['g1', 'grep', {}], ['a1', 'agent', {}]), answers('g1', 'a1')];
    // The other parents' messages are checked for every shape in fork-rules.test.ts; their sessions here.
    const parents = [
      session(finished),
      session(midTurn),
      session([...finished, user('dangling')]),
      session(results),
      session([user('hi')]),
      bare([user('hi')]),
    ];
    for (const options of [{}, { forkTurns: 1 }, { history: 'completed-turns' as const }]) {
      const a = seedFork(session(results), 'directive A', options);
      const b = seedFork(session(results), 'directive B', options);
      expect(a.sharedContents).toBe(b.sharedContents);
      expect(JSON.stringify(a.contents.slice(0, a.sharedContents))).toBe(JSON.stringify(b.contents.slice(0, b.sharedContents)));
      expect(JSON.stringify(a.contents[a.sharedContents])).not.toBe(JSON.stringify(b.contents[b.sharedContents]));
      for (const parent of parents) {
        expect(JSON.stringify(seedFork(parent, 'directive A', options).session)).toBe(
          JSON.stringify(seedFork(parent, 'directive B', options).session),
        );
      }
    }
  });
});

describe("anthropic-messages byte fidelity: the parent part of a fork is the parent's bytes, in its own key order", () => {
  // Keys in orders no SDK would write, on every kind of block, on the tools, on the system prompt
  // and on the session itself; the parent's own cache_control markers; thinking with signatures.
  const text = `{
    "messages": [
      {"content": "Please remember ${MARKER}.", "role": "user"},
      {"content": [
        {"signature": "EqQBCkYIBxgCKkD+sig/==", "thinking": "I should read a.ts first.", "type": "thinking"},
        {"input": {"path": "a.ts",  "lines": [1, 2]}, "name": "read_file", "id": "c1", "type": "tool_use"}
      ], "role": "assistant"},
      {"content": [
        {"is_error": false, "content": [{"text": "file a", "type": "text"}], "tool_use_id": "c1", "type": "tool_result"},
        {"cache_control": {"ttl": "5m", "type": "ephemeral"}, "text": "Now in parallel?", "type": "text"},
        {"source": {"data": "c2hvdA==", "media_type": "image/png", "type": "base64"}, "type": "image"}
      ], "role": "user"},
      {"content": [
        {"data": "EmwKAhgBEgy3va3pzix/LafPsn4a", "type": "redacted_thinking"},
        {"text": "Two things.", "type": "text"},
        {"type": "tool_use", "name": "grep", "input": {"q": "x"}, "id": "g1"},
        {"id": "a1", "input": {"prompt": "SIBLING", "description": "d", "subagent_type": "fork"}, "name": "agent", "type": "tool_use"}
      ], "role": "assistant"}
    ],
    "max_tokens": 4096,
    "thinking": {"budget_tokens": 2048, "type": "enabled"},
    "tools": [{"input_schema": {"properties": {}, "type": "object"}, "name": "read_file", "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
    "system": [{"cache_control": {"type": "ephemeral", "ttl": "1h"}, "text": "You are terse.", "type": "text"}],
    "model": "claude-sonnet-4-5",
    "format": "anthropic-messages"
  }`;
  const parent = (): AnthropicMessagesSession => parseSession(JSON.parse(text)) as AnthropicMessagesSession;
  const bytes = (value: unknown): string => JSON.stringify(value);
  const M = (JSON.parse(text) as AnthropicMessagesSession).messages;
  const withResults = (): AnthropicMessagesSession => {
    const p = parent();
    p.messages.push({
      content: [
        { content: 'grep out', tool_use_id: 'g1', type: 'tool_result' },
        { tool_use_id: 'a1', type: 'tool_result', content: 'started' },
      ],
      role: 'user',
    });
    return parseSession(p) as AnthropicMessagesSession;
  };
  const withPrompt = (): AnthropicMessagesSession => {
    const p = parent();
    p.messages.splice(3, 1, { content: [{ text: 'done', type: 'text' }], role: 'assistant' }, { content: 'unanswered', role: 'user' });
    return parseSession(p) as AnthropicMessagesSession;
  };

  const cases: [string, () => AnthropicMessagesSession, Parameters<typeof seedFork>[2], number][] = [
    // name, session, options, parent messages kept verbatim
    ['mid-turn', parent, {}, 3],
    ['tool-results', withResults, {}, 4],
    ['dropped-user', withPrompt, {}, 4],
    ['completed-turns', parent, { history: 'completed-turns' }, 0],
  ];
  for (const copy of [true, false]) {
    for (const [name, make, options, kept] of cases) {
      it(`${name}${copy ? '' : ', copy: false'}: the messages taken from the parent serialize exactly as the parent's`, () => {
        const p = make();
        const frozen = freezePrefix(p).session as AnthropicMessagesSession;
        for (const source of [p, frozen]) {
          const seed = seedFork(source, 'mine', { ...options, copy });
          expect(bytes(seed.contents.slice(0, kept))).toBe(bytes(p.messages.slice(0, kept)));
          expect(bytes(seed.contents.slice(0, seed.sharedContents)).startsWith(bytes(p.messages.slice(0, kept)).slice(0, -1))).toBe(true);
          // The system prompt and tools, their markers included, are the parent's bytes.
          expect(bytes(seed.session.system)).toBe(bytes(p.system));
          expect(bytes(seed.session.tools)).toBe(bytes(p.tools));
        }
      });
    }
  }

  it('completed-turns without a completed turn is a fresh fork that keeps the system prompt byte for byte', () => {
    const seed = seedFork(parent(), 'mine', { history: 'completed-turns' });
    expect(seed.seedCase).toBe('fresh');
    expect(bytes(seed.session.system)).toBe(bytes(parent().system));
  });

  it("the redacted call message keeps its key order, its thinking and its text: only the agent call's input differs", () => {
    const seed = seedFork(parent(), 'mine');
    const redacted = bytes(M[3]).replace(bytes({ prompt: 'SIBLING', description: 'd', subagent_type: 'fork' }), '{}');
    expect(redacted).not.toBe(bytes(M[3]));
    expect(bytes(seed.contents[3])).toBe(redacted);
    expect(bytes(blocksOf(seed.contents[3])[0])).toBe('{"data":"EmwKAhgBEgy3va3pzix/LafPsn4a","type":"redacted_thinking"}');
  });

  it('the results message keeps its blocks byte for byte, and the child message follows them', () => {
    const p = withResults();
    const seed = seedFork(p, 'mine');
    expect(seed.seedCase).toBe('tool-results');
    const own = bytes(p.messages[4]);
    // The parent's message, its content array left open, then the child message's text block.
    expect(bytes(seed.contents[4]).startsWith(own.slice(0, own.lastIndexOf(']')))).toBe(true);
    expect(blocksOf(seed.contents[4]).at(-1)).toEqual(childBlock('mine'));
  });

  it("the thinking block and the parent's cache_control markers are untouched, also by the breakpoints a fork request adds", () => {
    const p = parent();
    const seed = seedFork(p, 'mine', { copy: false });
    expect(bytes(seed.contents[1])).toBe(bytes(M[1]));
    expect(bytes(seed.contents[2])).toBe(bytes(M[2]));
    const marks = parentBreakpoints(seed.session as Parameters<typeof parentBreakpoints>[0]);
    expect(marks).toEqual({ count: 3, hasFiveMinute: true });
    const before = bytes(seed.contents);
    const sent = placeBreakpoints(seed.contents, seed.sharedContents, marks.count, '1h');
    // The seed itself is not changed; the parent's marked message and the thinking go out as they were.
    expect(bytes(seed.contents)).toBe(before);
    expect(bytes(sent[1])).toBe(bytes(M[1]));
    expect(bytes(sent[2])).toBe(bytes(M[2]));
    expect(textOf(sent).match(/"cache_control"/g)).toHaveLength(2);
  });

  it('a forkTurns window keeps its messages byte for byte; the one it starts at loses only the results of calls it left out', () => {
    // Real turns: the marker prompt, the message with words and an image after a result, the unanswered prompt (dropped).
    const p = withPrompt();
    const seed = seedFork(p, 'mine', { forkTurns: 2 });
    expect(seed.trimmedMessages).toBe(2);
    expect(seed.seedCase).toBe('dropped-user');
    const result = bytes(blocksOf(p.messages[2] as Msg)[0]);
    expect(result).toBe('{"is_error":false,"content":[{"text":"file a","type":"text"}],"tool_use_id":"c1","type":"tool_result"}');
    expect(bytes(seed.contents[0])).toBe(bytes(p.messages[2]).replace(`${result},`, ''));
    expect(bytes(seed.contents.slice(1, seed.sharedContents))).toBe(bytes(p.messages.slice(3, 4)));
    expect(accepted(seed)).toBe(true);
  });

  it("the fork request carries the parent body byte for byte up to the fork's own messages", () => {
    const p = withPrompt();
    const { format: _format, ...fields } = p;
    const seed = seedFork(p, 'mine', { copy: false });
    const body = bytes(bodyOf(seed.session, seed.contents));
    const own = bytes(fields); // the parent's own request body
    const shared = `{"messages":${bytes(p.messages.slice(0, seed.sharedContents)).slice(0, -1)},`;
    expect(own.startsWith(shared)).toBe(true);
    expect(body.startsWith(shared)).toBe(true);
    expect(body.endsWith(own.slice(own.indexOf('],"max_tokens":')))).toBe(true);
  });

  it('a general-purpose sub-agent sends the system prompt and tools byte for byte, and nothing of the history', () => {
    const p = parent();
    const seed = seedTask(p, { id: 't', directive: 'go', subagentType: 'general-purpose' }, 'go', {
      history: 'inherit',
      spawnTools: ['agent'],
    });
    if (seed.format !== 'anthropic-messages') throw new Error('expected an anthropic-messages seed');
    expect(seed.session).toBe(p);
    expect(seed.contents).toEqual([user('go')]);
    const { format: _format, ...fields } = p;
    expect(bytes(bodyOf(seed.session, seed.contents))).toBe(bytes({ ...fields, messages: [user('go')] }));
  });
});

describe('anthropic-messages seedTask', () => {
  const defaults = { history: 'inherit' as const, spawnTools: ['agent'] };

  it('general-purpose: the directive as the first user message; nothing inherited, the system prompt kept', () => {
    const parent = session(midTurn);
    const seed = seedTask(parent, { id: 't', directive: 'Audit deps.', subagentType: 'general-purpose' }, 'Audit deps.', defaults);
    expect(seed.format).toBe('anthropic-messages');
    expect(seed.seedCase).toBe('fresh');
    expect(seed.contents).toEqual([user('Audit deps.')]);
    expect(seed.sharedContents).toBe(0);
    expect(seed.trimmedMessages).toBe(midTurn.length);
    expect(seed.format === 'anthropic-messages' && seed.session.system).toBe(SYSTEM);
    expect(textOf(seed.contents)).not.toContain(MARKER);
  });

  it('general-purpose without a system prompt adds none (it would break the cacheable opening)', () => {
    const seed = seedTask(bare(finished), { id: 't', directive: 'go', subagentType: 'general-purpose' }, 'go', defaults);
    expect(seed.contents).toEqual([user('go')]);
    expect(seed.format === 'anthropic-messages' && 'system' in seed.session).toBe(false);
  });

  it("a fork task shares the session's messages (copy: false), with its window and allowlist", () => {
    const parent = session(midTurn);
    const seed = seedTask(parent, { id: 't', directive: 'd', forkTurns: 1, tools: ['grep'] }, 'd', defaults);
    expect(seed.contents[0]).toBe(parent.messages[4]);
    expect(seed.contents.at(-3)).toEqual({ role: 'user', content: [placeholder('a1'), placeholder('a2'), childBlock('d', ['grep'])] });
    expect(seed.sharedContents).toBe(2);
  });

  it('refuses a session that is itself a fork, for a fork and a general-purpose sub-agent alike', () => {
    const forked = seedFork(session(finished), 'earlier').contents;
    const grandchild = session([...forked, assistant('done')]);
    expect(() => seedTask(grandchild, { id: 't', directive: 'd' }, 'd', defaults)).toThrow(ForkRejectedError);
    expect(() => seedTask(grandchild, { id: 't', directive: 'd', subagentType: 'general-purpose' }, 'd', defaults)).toThrow(
      ForkRejectedError,
    );
  });
});

describe('anthropic-messages tool results as the dialect writes them', () => {
  const call = { id: 'c1', name: 'grep' };

  it('an error is an is_error result holding the error text; an output is the text itself, anything else its JSON', () => {
    expect(anthropicMessagesDialect.answer([call], [{ error: 'Error: grep failed' }], [])).toEqual({
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'Error: grep failed', is_error: true }] }],
      shared: 1,
    });
    expect(anthropicMessagesDialect.answer([call], [{ output: 'found' }], ['next'])).toEqual({
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'found' }, text('next')] }],
      shared: 0,
    });
    expect(anthropicMessagesDialect.answer([call], [{ output: { hits: 2 } }], []).messages[0]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'c1', content: '{"output":{"hits":2}}' },
    ]);
  });

  it('a conversation with an is_error result and the results the dialect wrote is a valid session', () => {
    const written = anthropicMessagesDialect.answer([call], [{ error: 'Error: grep failed' }], ['go on']).messages;
    expect(() => session([user('go'), calls(['c1', 'grep', {}]), ...written, assistant('retrying')])).not.toThrow();
  });
});

describe('anthropic-messages fork-child guard', () => {
  it('does not mistake a thinking block, a mid-conversation system message or a parent whose tool result holds the tag for a fork child', () => {
    // Not written by a user: a thinking block, a mid-conversation system message, a tool result that read a file holding the tag.
    expect(isForkChild([{ role: 'assistant', content: [{ type: 'thinking', thinking: '<fork-boilerplate>', signature: 's' }] }])).toBe(
      false,
    );
    expect(isForkChild([{ role: 'system', content: 'Forks get a <fork-boilerplate> block.' }])).toBe(false);
    const parent = session([
      user('go'),
      calls(['c1', 'read_file', {}]),
      { role: 'user', content: [result('c1', '<fork-boilerplate>')] },
      assistant('read'),
    ]);
    expect(() => seedFork(parent, 'x')).not.toThrow();
  });
});

describe('anthropic-messages synthetic prefix and real user turns', () => {
  const reminder = '<system-reminder>\nstartup\n</system-reminder>';
  const image = { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } };

  it('an image or a document block counts as a real turn, alone or beside a reminder; blank or empty content does not', () => {
    expect(isRealUserTurn({ role: 'user', content: [image] })).toBe(true);
    expect(isRealUserTurn({ role: 'user', content: [text(reminder), image] })).toBe(true);
    expect(
      isRealUserTurn({ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'notes' } }] }),
    ).toBe(true);
    expect(syntheticPrefixLength([{ role: 'user', content: [text(reminder), image] }])).toBe(0);
    expect(isRealUserTurn(user('  '))).toBe(false);
    expect(isRealUserTurn(userBlocks('  ', '\n'))).toBe(false);
    // Empty content: Anthropic's API (and the schema) refuse it in a session, but it is no turn either.
    expect(isRealUserTurn(user(''))).toBe(false);
    expect(isRealUserTurn({ role: 'user', content: [] })).toBe(false);
  });

  it('tool_result-only user messages are not user turns, nor are they with a reminder; with words they are', () => {
    expect(isRealUserTurn(answers('c1'))).toBe(false);
    expect(isRealUserTurn({ role: 'user', content: [result('c1', 'a question in a result?'), text(reminder)] })).toBe(false);
    // A result whose content is an image is still a result.
    expect(isRealUserTurn({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: [image] }] })).toBe(false);
    expect(isRealUserTurn({ role: 'user', content: [result('c1', 'x'), text('and now?')] })).toBe(true);
  });

  it('only user messages are user turns: not assistant messages (thinking included) or system messages', () => {
    expect(isRealUserTurn(user('hello'))).toBe(true);
    expect(isRealUserTurn(assistant('hello'))).toBe(false);
    expect(isRealUserTurn({ role: 'assistant', content: [{ type: 'thinking', thinking: 'hello', signature: 's' }] })).toBe(false);
    expect(isRealUserTurn({ role: 'system', content: 'hello' })).toBe(false);
  });

  it('the legacy startup pair: its acknowledgement is read from the first block', () => {
    // The acknowledgement is read from the first block: a thinking block before it makes it another message.
    expect(
      syntheticPrefixLength([
        user('context'),
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'ok', signature: 's' }, text('Got it. Thanks for the context!')] },
      ]),
    ).toBe(0);
  });
});

describe('anthropic-messages agent tool', () => {
  it('AGENT_TOOL_ANTHROPIC is the agent tool as an Anthropic tool, exported from forkpool/protocol, and a valid session tool', () => {
    expect(protocol.AGENT_TOOL_ANTHROPIC).toBe(AGENT_TOOL_ANTHROPIC);
    expect(AGENT_TOOL_ANTHROPIC).toEqual({
      name: 'agent',
      description: AGENT_TOOL_DECLARATION.description,
      input_schema: AGENT_TOOL_DECLARATION.parametersJsonSchema,
    });
    expect(anthropicTool(AGENT_TOOL_DECLARATION)).toEqual(AGENT_TOOL_ANTHROPIC);
    expect(() => session([user('x')], { tools: [AGENT_TOOL_ANTHROPIC as AnthropicTool] })).not.toThrow();
  });
});

describe('anthropic-messages and Gemini: the same rules on the same conversation', () => {
  /*
   * Random conversations written in both shapes: whatever a Gemini fork gets, the Anthropic fork
   * gets the same messages in its own shape. The shapes match message for message: a Gemini model
   * message is an assistant message (text blocks, then tool_use blocks), a Gemini user message is a
   * user message (tool_result blocks, then text blocks), and a lone text is string content. Every
   * call is answered by the next message (all its results, in any order, maybe with words after
   * them), except in a call message that ends the conversation: Anthropic's API takes nothing else.
   */
  function toAnthropic(message: Content): Msg {
    const texts = message.parts.flatMap((p) => (typeof p.text === 'string' ? [p.text] : []));
    const only = message.parts.length === 1 && texts.length === 1 ? texts[0] : undefined;
    if (only !== undefined) return message.role === 'model' ? assistant(only) : user(only);
    if (message.role === 'model') {
      const made = message.parts.flatMap((p) =>
        p.functionCall ? [use(p.functionCall.id ?? p.functionCall.name, p.functionCall.name, p.functionCall.args ?? {})] : [],
      );
      return { role: 'assistant', content: [...texts.map(text), ...made] };
    }
    const results = message.parts.flatMap((p) =>
      p.functionResponse
        ? [result(p.functionResponse.id ?? p.functionResponse.name, String((p.functionResponse.response as { output?: unknown }).output))]
        : [],
    );
    return { role: 'user', content: [...results, ...texts.map(text)] };
  }

  function asBlocks(message: Msg): Msg {
    return typeof message.content === 'string' ? { ...message, content: [{ type: 'text', text: message.content }] } : message;
  }

  function random(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state / 2147483648;
    };
  }

  function conversation(next: () => number): Content[] {
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
    const gUser = (value: string): Content => ({ role: 'user', parts: [{ text: value }] });
    const gModel = (value: string): Content => ({ role: 'model', parts: [{ text: value }] });
    const history: Content[] = [];
    if (next() < 0.3) history.push(gUser('<system-reminder>\nstartup\n</system-reminder>'));
    if (next() < 0.2)
      history.push(gUser('Resume the prior task using the summary above.'), gModel('Got it. Thanks for the additional context!'));
    let id = 0;
    const length = 1 + Math.floor(next() * 12);
    for (let i = 0; i < length; i++) {
      const kind = pick(['user', 'user', 'blank', 'reminder', 'model', 'calls', 'calls'] as const);
      if (kind === 'user') history.push(gUser(`question ${i}`));
      else if (kind === 'blank') history.push(gUser('  '));
      else if (kind === 'reminder') history.push(gUser('<system-reminder>x</system-reminder>'));
      else if (kind === 'model') history.push(gModel(`answer ${i}`));
      else {
        const count = 1 + Math.floor(next() * 3);
        const made = Array.from({ length: count }, () => {
          const name = pick(['grep', 'agent', 'read_file']);
          return { id: `k${id++}`, name, args: name === 'agent' ? { prompt: `SIBLING-${id}` } : { q: `${id}` } };
        });
        history.push({ role: 'model', parts: [...(next() < 0.5 ? [{ text: 'calling' }] : []), ...made.map((c) => ({ functionCall: c }))] });
        // A call message that ends the conversation may stay unanswered; any other is answered whole, in any order.
        if (i === length - 1 && next() < 0.5) break;
        const answered = made.slice().sort(() => next() - 0.5);
        const words = pick([[], [], ['<system-reminder>y</system-reminder>'], [`words ${i}`]]);
        history.push({
          role: 'user',
          parts: [
            ...answered.map((c) => ({ functionResponse: { id: c.id, name: c.name, response: { output: `out ${c.id}` } } })),
            ...words.map((w) => ({ text: w })),
          ],
        });
      }
    }
    return history;
  }

  it('gives the same fork, message for message, for 400 random conversations and every window', () => {
    const next = random(20261201);
    let checked = 0;
    const cases = new Set<string>();
    for (let n = 0; n < 400; n++) {
      const history = conversation(next);
      const gemini = parseSession({ model: 'gemini-2.5-flash', systemInstruction: { parts: [{ text: 'sys' }] }, history }) as GeminiSession;
      // Random conversations hold blank user messages (no turn in either shape), which the Anthropic schema refuses.
      const anthropic = unvalidated(history.map(toAnthropic), { system: 'sys' });
      for (const mode of ['inherit', 'completed-turns'] as const) {
        for (const forkTurns of ['all', 1, 2, 3] as const) {
          const options = { history: mode, forkTurns, allowedTools: ['grep'] };
          const g = seedFork(gemini, 'the directive', options);
          const a = seedFork(anthropic, 'the directive', options);
          const context = JSON.stringify({ history: gemini.history, options });
          expect(a.seedCase, context).toBe(g.seedCase);
          // A window that starts at a message of results and words leaves those results out with the
          // calls they answer, in both shapes (every API refuses a result without its call).
          // (The window's first message keeps its remaining blocks as blocks, where the conversion of
          // Gemini's words gives a string: the same words.)
          expect(a.contents.map(asBlocks), context).toEqual(g.contents.map(toAnthropic).map(asBlocks));
          expect(accepted(a), context).toBe(true);
          expect(valid(a), context).toBe(true);
          expect(a.sharedContents, context).toBe(g.sharedContents);
          expect(a.trimmedMessages, context).toBe(g.trimmedMessages);
          expect(a.session.system).toBe('sys');
          cases.add(a.seedCase);
          checked++;
        }
      }
    }
    expect(checked).toBe(400 * 8);
    expect([...cases].sort()).toEqual(['continue', 'dropped-user', 'fresh', 'mid-turn', 'tool-results']);
  });
});
