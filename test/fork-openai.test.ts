// Internal: openAIChatDialect.request (src/shapes/openai-chat/dialect.ts), the Chat Completions body a fork sends, which no entry point builds without a model call; seedTask (src/fork/seed-task.ts), how the engine seeds a task, and the fork's fixed wording (src/wording/constants.ts): no entry point exports them. Also freezePrefix (src/prefix/freeze.ts), the prefix without an engine (its public face is engine.freeze).
/*
 * The fork rules where they are Chat Completions' own ("format": "openai-chat"): one `tool` message
 * per result, the child message as a user message of its own after them, the leading system and
 * developer messages (the head) kept first by every fork and counted in sharedContents; results in
 * another order, a user message after the results, image parts, the request's fields and bytes, the
 * seed's copies, seedTask, and the same forks as Gemini's on random conversations. The rules that
 * hold on every shape run for Chat Completions too from fork-rules.test.ts. Every session built here
 * is checked with parseSession: each is a session a file could hold.
 */
import { describe, expect, it } from 'vitest';
import { openAIChatDialect } from '../src/shapes/openai-chat/dialect.js';
import { FORK_SYSTEM_TEXT } from '../src/wording/constants.js';
import { FORK_ACK_TEXT, FORK_BEGIN_TEXT, FORK_PLACEHOLDER_TEXT, FORK_UNAVAILABLE_RESULT_TEXT, seedTask } from '../src/fork/index.js';
import { parseSession } from '../src/index.js';
import { freezePrefix } from '../src/prefix/freeze.js';
import {
  AGENT_TOOL_DECLARATION,
  AGENT_TOOL_FUNCTION,
  buildChildMessage,
  type ChatMessage,
  type ChatTool,
  ForkRejectedError,
  isForkChild,
  isRealUserTurn,
  type OpenAIChatSession,
  seedFork,
  syntheticPrefixLength,
} from '../src/protocol.js';
import * as protocol from '../src/protocol.js';

const sys = (content: string): ChatMessage => ({ role: 'system', content });
const dev = (content: string): ChatMessage => ({ role: 'developer', content });
const user = (text: string): ChatMessage => ({ role: 'user', content: text });
const userParts = (...texts: string[]): ChatMessage => ({ role: 'user', content: texts.map((text) => ({ type: 'text' as const, text })) });
const assistant = (text: string): ChatMessage => ({ role: 'assistant', content: text });
const call = (id: string, name: string, args: Record<string, unknown>) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: JSON.stringify(args) },
});
const calls = (...list: [id: string, name: string, args: Record<string, unknown>][]): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: list.map(([id, name, args]) => call(id, name, args)),
});
const tool = (id: string, content: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content });
const answers = (...ids: string[]): ChatMessage[] => ids.map((id) => tool(id, `result of ${id}`));
const fn = (name: string): ChatTool => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } });

/** The placeholder tool message a fork gets for a call of the parent's in-flight turn. */
const placeholder = (id: string): ChatMessage => tool(id, FORK_PLACEHOLDER_TEXT);
const unavailable = (id: string): ChatMessage => tool(id, FORK_UNAVAILABLE_RESULT_TEXT);
const child = (directive: string, allowedTools?: readonly string[]): ChatMessage => user(buildChildMessage(directive, allowedTools));

const callsOf = (message: ChatMessage | undefined) => (message?.role === 'assistant' ? (message.tool_calls ?? []) : []);

const MARKER = 'MARKER-7f3a-only-in-parent-history';
const HEAD: ChatMessage[] = [sys('You are the main agent.'), dev('Prefer small, reviewed changes.')];
const H = HEAD.length;
const TOOLS: ChatTool[] = [fn('read_file'), AGENT_TOOL_FUNCTION, fn('grep')];

/** A valid openai-chat session (parseSession returns the same object) with exactly these messages. */
function chat(messages: ChatMessage[], extra: Partial<OpenAIChatSession> = {}): OpenAIChatSession {
  const session: OpenAIChatSession = {
    format: 'openai-chat',
    model: 'gpt-4.1-mini',
    messages,
    tools: TOOLS,
    tool_choice: 'auto',
    parallel_tool_calls: true,
    temperature: 0.1,
    top_p: 0.9,
    max_completion_tokens: 2048,
    ...extra,
  };
  const parsed = parseSession(session);
  if (parsed !== session) throw new Error('parseSession returned another object');
  return session;
}

/** The head (system + developer messages), then this history. */
const session = (history: ChatMessage[], extra: Partial<OpenAIChatSession> = {}): OpenAIChatSession => chat([...HEAD, ...history], extra);

/** A finished exchange: user asks, model reads a file, answers. */
const finished: ChatMessage[] = [
  user(`Please remember ${MARKER}.`),
  calls(['c1', 'read_file', { path: 'README.md' }]),
  ...answers('c1'),
  assistant('Noted, and I read the README.'),
];

/** The parent just called the Agent tool twice in one turn. */
const midTurn: ChatMessage[] = [
  ...finished,
  user('Investigate the parser and the lexer in parallel.'),
  {
    role: 'assistant',
    content: 'Starting two forks.',
    tool_calls: [
      call('a1', 'agent', { description: 'parser', prompt: 'PARSER-DIRECTIVE', subagent_type: 'fork' }),
      call('a2', 'agent', { description: 'lexer', prompt: 'LEXER-DIRECTIVE', subagent_type: 'fork' }),
    ],
  },
];

const textOf = (contents: readonly unknown[]): string => JSON.stringify(contents);

/** The Chat Completions body a fork sends first: the session's fields with the seed's messages. */
function bodyOf(session: Readonly<OpenAIChatSession>, messages: readonly ChatMessage[]): Record<string, unknown> {
  const request = openAIChatDialect.request(session, messages);
  if (request.format !== 'openai-chat') throw new Error('expected a Chat Completions request');
  return request.body as Record<string, unknown>;
}

describe('openai-chat seedFork, history "inherit"', () => {
  it('case 3: results that answer only some of the calls are kept, and each call still without one gets a placeholder tool message', () => {
    const history = [
      user('go'),
      calls(['g1', 'grep', { q: 'x' }], ['a1', 'agent', { prompt: 'SIBLING' }], ['r1', 'read_file', { path: 'a.ts' }]),
      ...answers('g1'),
    ];
    const seed = seedFork(session(history), 'Look.');
    expect(seed.seedCase).toBe('tool-results');
    expect(seed.contents).toEqual([...HEAD, ...history, placeholder('a1'), unavailable('r1'), child('Look.')]);
    expect(seed.sharedContents).toBe(H + 5);
  });

  it('case 3: results answered in another order, and a trailing prompt after partial results', () => {
    const callMessage = calls(['g1', 'grep', { q: 'x' }], ['r1', 'read_file', { path: 'a.ts' }], ['g2', 'grep', { q: 'y' }]);
    const reordered = [user('go'), callMessage, ...answers('g2', 'g1')];
    const seed = seedFork(session(reordered), 'Look.');
    expect(seed.contents).toEqual([...HEAD, ...reordered, unavailable('r1'), child('Look.')]);
    // The prompt is dropped (only it); the results before it are kept and completed.
    const prompted = [user('go'), callMessage, ...answers('g1'), user('and also?')];
    const dropped = seedFork(session(prompted), 'Look.');
    expect(dropped.contents).toEqual([...HEAD, ...prompted.slice(0, 3), unavailable('r1'), unavailable('g2'), child('Look.')]);
    expect(dropped.seedCase).toBe('tool-results');
    expect(dropped.sharedContents).toBe(H + 5);
  });

  it('case 3: a trailing prompt after an unanswered call message leaves the parent mid-turn', () => {
    const history = [user('go'), calls(['a1', 'agent', { prompt: 'SIBLING' }]), user('well?')];
    const seed = seedFork(session(history), 'mine');
    expect(seed.seedCase).toBe('mid-turn');
    expect(seed.contents.slice(H + 1)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'a1', type: 'function', function: { name: 'agent', arguments: '{}' } }] },
      placeholder('a1'),
      child('mine'),
      assistant(FORK_ACK_TEXT),
      user(FORK_BEGIN_TEXT),
    ]);
  });

  it('case 3: a user message after the results is dropped, even a reminder (Gemini holds results and words in one message, which is kept)', () => {
    const history = [
      user('go'),
      calls(['g1', 'grep', { q: 'x' }], ['r1', 'read_file', {}]),
      ...answers('g1'),
      user('<system-reminder>x</system-reminder>'),
    ];
    const seed = seedFork(session(history), 'Look.');
    expect(seed.seedCase).toBe('tool-results');
    // The placeholder must follow the call message's results directly, so the child message comes after it.
    expect(seed.contents).toEqual([...HEAD, ...history.slice(0, 3), unavailable('r1'), child('Look.')]);
  });

  it('a tool message answering none of the last calls cannot occur: the schema refuses it (Gemini drops such a message)', () => {
    expect(() => session([...finished, tool('zz', 'stale')])).toThrow(/answers no tool call/);
  });

  it('no conversation after the head: a fresh agent that keeps the head', () => {
    const seed = seedFork(chat(HEAD), 'x');
    expect(seed.seedCase).toBe('fresh');
    expect(seed.contents).toEqual([...HEAD, child('x')]);
    expect(seed.sharedContents).toBe(H);
  });

  it('no system message and nothing to inherit: a fresh agent gets a system message with the fork system text, and the parent tools', () => {
    const parent = chat([user('hello')]);
    const seed = seedFork(parent, 'Start from scratch.');
    expect(seed.seedCase).toBe('fresh');
    expect(seed.contents).toEqual([sys(FORK_SYSTEM_TEXT), child('Start from scratch.')]);
    expect(FORK_SYSTEM_TEXT).toMatch(/background worker agent/);
    expect(seed.sharedContents).toBe(1);
    expect(seed.session.tools).toEqual(parent.tools);
    // Every seed has a system message of its own.
    expect(seedFork(parent, 'y').contents[0]).not.toBe(seed.contents[0]);
  });

  it('a developer message alone, or several, make the head; a system message later in the conversation is history', () => {
    const later = sys('Mode changed: read-only.');
    const seed = seedFork(chat([dev('dev only'), user('a'), assistant('b'), later, user('c'), assistant('d')]), 'x', { forkTurns: 1 });
    expect(seed.contents).toEqual([dev('dev only'), user('c'), assistant('d'), child('x')]);
    expect(seed.sharedContents).toBe(3);
    expect(seed.trimmedMessages).toBe(3);
  });
});

describe('openai-chat seedFork, forkTurns', () => {
  it('blank and reminder-only messages written as text parts do not count either; an image does', () => {
    const parts: ChatMessage[] = [
      user('turn one'),
      assistant('one done'),
      userParts('  ', ''),
      assistant('blank noted'),
      userParts('<system-reminder>a</system-reminder>', '<system-reminder>b</system-reminder>'),
      assistant('reminders noted'),
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,c2hvdA==' } }] },
      assistant('image seen'),
    ];
    expect(seedFork(session(parts), 'x', { forkTurns: 1 }).contents).toEqual([...HEAD, ...parts.slice(6), child('x')]);
    expect(seedFork(session(parts), 'x', { forkTurns: 2 }).contents).toEqual([...HEAD, ...parts, child('x')]);
  });
});

describe('openai-chat seedFork, copies and sharing', () => {
  it("the request's other fields are the session's own: model, tools and settings, in its key order", () => {
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
    const seed = seedFork(chat([...HEAD, ...finished], { tools: undefined }), 'x');
    expect(Object.keys(seed).sort()).toEqual(['contents', 'format', 'model', 'seedCase', 'session', 'sharedContents', 'trimmedMessages']);
  });

  it('returns deep copies by default: mutating the seed never touches the parent session', () => {
    const parent = session(structuredClone(midTurn));
    const before = structuredClone(parent);
    const seed = seedFork(parent, 'x');
    (seed.contents[0] as { content: string }).content = 'mutated';
    (seed.contents[H] as { content: string }).content = 'mutated';
    callsOf(seed.contents[H + 1])[0]!.function.arguments = 'mutated';
    callsOf(seed.contents[H + 5])[0]!.function.arguments = 'mutated';
    seed.contents.push(user('extra'));
    (seed.session.tools as ChatTool[]).push(fn('evil'));
    (seed.session as { temperature: number }).temperature = 2;
    (seed.session.messages as ChatMessage[]).push(user('evil'));
    expect(parent).toEqual(before);
    for (const [i, message] of seed.contents.slice(0, H + 5).entries()) expect(message).not.toBe(parent.messages[i]);
    // The redacted message is a copy too: the parent still has its arguments.
    expect(callsOf(parent.messages[H + 5]).map((c) => JSON.parse(c.function.arguments))).toEqual([
      { description: 'parser', prompt: 'PARSER-DIRECTIVE', subagent_type: 'fork' },
      { description: 'lexer', prompt: 'LEXER-DIRECTIVE', subagent_type: 'fork' },
    ]);
  });

  it('with copy: false shares the frozen messages (head included), in an array of its own', () => {
    const prefix = freezePrefix(session(finished));
    const frozen = prefix.session as OpenAIChatSession;
    const seed = seedFork(frozen, 'x', { copy: false });
    expect(seed.session).toBe(frozen);
    for (let i = 0; i < seed.sharedContents; i++) expect(seed.contents[i]).toBe(frozen.messages[i]);
    expect(seed.contents.slice(0, seed.sharedContents)).toEqual(frozen.messages);
    seed.contents.push(user('more'));
    expect(frozen.messages).toHaveLength(H + finished.length);
    expect(() => {
      (seed.contents[H] as { content: string }).content = 'edited';
    }).toThrow(TypeError);
  });

  it('with copy: false in the mid-turn case, the untouched messages are shared and the redacted one is new', () => {
    const parent = session(midTurn);
    const seed = seedFork(parent, 'x', { copy: false });
    for (let i = 0; i < H + 5; i++) expect(seed.contents[i]).toBe(parent.messages[i]);
    expect(seed.contents[H + 5]).not.toBe(parent.messages[H + 5]);
    expect(callsOf(parent.messages[H + 5])[0]?.function.arguments).toContain('PARSER-DIRECTIVE');
  });

  it('shares exactly the first sharedContents entries between forks with different directives, from results answering some calls and from the head alone', () => {
    const partial = [user('go'), calls(['g1', 'grep', {}], ['a1', 'agent', {}]), ...answers('g1')];
    const parents = [session(partial), chat(HEAD)];
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

describe("openai-chat byte fidelity: the parent part of a fork is the parent's bytes, in its own key order", () => {
  // Keys in orders no SDK would write, on every kind of message and on the session itself.
  const text = `{
    "messages": [
      {"content": "You are terse.", "role": "system"},
      {"name": "ops", "content": [{"text": "Prefer small diffs.", "type": "text"}], "role": "developer"},
      {"content": "Please remember ${MARKER}.", "role": "user"},
      {"tool_calls": [{"function": {"arguments": "{\\"path\\": \\"a.ts\\",  \\"lines\\": [1, 2]}", "name": "read_file"}, "type": "function", "id": "c1"}], "content": null, "role": "assistant"},
      {"tool_call_id": "c1", "content": [{"text": "file a", "type": "text"}], "role": "tool"},
      {"refusal": null, "content": "Read it.", "role": "assistant"},
      {"content": [{"text": "Now in parallel?", "type": "text"}, {"image_url": {"detail": "low", "url": "https://example.com/a.png"}, "type": "image_url"}], "role": "user"},
      {"tool_calls": [
        {"type": "function", "function": {"name": "grep", "arguments": "{\\"q\\":\\"x\\"}"}, "id": "g1"},
        {"id": "a1", "function": {"arguments": "{\\"prompt\\":\\"SIBLING\\",\\"description\\":\\"d\\",\\"subagent_type\\":\\"fork\\"}", "name": "agent"}, "type": "function"}
      ], "content": "Two things.", "role": "assistant"}
    ],
    "temperature": 0,
    "tools": [{"function": {"parameters": {"type": "object", "properties": {}}, "name": "read_file"}, "type": "function"}],
    "model": "gpt-4.1-mini",
    "format": "openai-chat"
  }`;
  const parent = (): OpenAIChatSession => parseSession(JSON.parse(text)) as OpenAIChatSession;
  const bytes = (value: unknown): string => JSON.stringify(value);
  const M = (JSON.parse(text) as OpenAIChatSession).messages;
  const withResult = (): OpenAIChatSession => {
    const p = parent();
    p.messages.push({ content: 'grep out', tool_call_id: 'g1', role: 'tool' } as ChatMessage);
    return parseSession(p) as OpenAIChatSession;
  };
  const withPrompt = (): OpenAIChatSession => {
    const p = parent();
    p.messages.splice(7, 1, { content: 'done', role: 'assistant' } as ChatMessage, { content: 'unanswered', role: 'user' } as ChatMessage);
    return parseSession(p) as OpenAIChatSession;
  };

  const cases: [string, () => OpenAIChatSession, Parameters<typeof seedFork>[2], number, number][] = [
    // name, session, options, parent messages kept verbatim (from `from`), from
    ['mid-turn', parent, {}, 7, 0],
    ['tool-results', withResult, {}, 9, 0],
    ['dropped-user', withPrompt, {}, 8, 0],
    ['completed-turns', parent, { history: 'completed-turns' }, 6, 0],
  ];
  for (const copy of [true, false]) {
    for (const [name, make, options, kept] of cases) {
      it(`${name}${copy ? '' : ', copy: false'}: the messages taken from the parent serialize exactly as the parent's`, () => {
        const p = make();
        const frozen = freezePrefix(p).session as OpenAIChatSession;
        for (const source of [p, frozen]) {
          const seed = seedFork(source, 'mine', { ...options, copy });
          expect(bytes(seed.contents.slice(0, kept))).toBe(bytes(p.messages.slice(0, kept)));
          // …and so does the shared part, up to where the fork's own messages begin.
          expect(bytes(seed.contents.slice(0, seed.sharedContents)).startsWith(bytes(p.messages.slice(0, kept)).slice(0, -1))).toBe(true);
        }
      });
    }
  }

  it("the redacted call message keeps its key order: only the agent call's arguments differ", () => {
    const seed = seedFork(parent(), 'mine');
    const redacted = bytes(M[7]).replace(JSON.stringify('{"prompt":"SIBLING","description":"d","subagent_type":"fork"}'), '"{}"');
    expect(redacted).not.toBe(bytes(M[7]));
    expect(bytes(seed.contents[7])).toBe(redacted);
  });

  it('a forkTurns window keeps the head and the window byte for byte', () => {
    // Real turns: the marker prompt, the prompt with an image, the unanswered one (then dropped).
    const seed = seedFork(withPrompt(), 'mine', { forkTurns: 2 });
    const p = withPrompt();
    expect(seed.trimmedMessages).toBe(4);
    expect(bytes(seed.contents.slice(0, seed.sharedContents))).toBe(bytes([...p.messages.slice(0, 2), ...p.messages.slice(6, 8)]));
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
    expect(body.endsWith(own.slice(own.indexOf('],"temperature":')))).toBe(true);
  });

  it('a general-purpose sub-agent keeps the head byte for byte', () => {
    const p = parent();
    const seed = seedTask(p, { id: 't', directive: 'go', subagentType: 'general-purpose' }, 'go', {
      history: 'inherit',
      spawnTools: ['agent'],
    });
    expect(bytes(seed.contents.slice(0, seed.sharedContents))).toBe(bytes(p.messages.slice(0, 2)));
  });
});

describe('openai-chat seedTask', () => {
  const defaults = { history: 'inherit' as const, spawnTools: ['agent'] };

  it('general-purpose: the head, then the directive as the first user message; nothing inherited', () => {
    const parent = session(midTurn);
    const seed = seedTask(parent, { id: 't', directive: 'Audit deps.', subagentType: 'general-purpose' }, 'Audit deps.', defaults);
    expect(seed.format).toBe('openai-chat');
    expect(seed.seedCase).toBe('fresh');
    expect(seed.contents).toEqual([...HEAD, user('Audit deps.')]);
    expect(seed.sharedContents).toBe(H);
    expect(seed.trimmedMessages).toBe(midTurn.length);
    expect(seed.contents[0]).toBe(parent.messages[0]);
    expect(textOf(seed.contents)).not.toContain(MARKER);
  });

  it('general-purpose without a system message adds none (it would break the cacheable opening)', () => {
    const seed = seedTask(chat(finished), { id: 't', directive: 'go', subagentType: 'general-purpose' }, 'go', defaults);
    expect(seed.contents).toEqual([user('go')]);
    expect(seed.sharedContents).toBe(0);
  });

  it("a fork task shares the session's messages (copy: false), with its window and allowlist", () => {
    const parent = session(midTurn);
    const seed = seedTask(parent, { id: 't', directive: 'd', forkTurns: 1, tools: ['grep'] }, 'd', defaults);
    expect(seed.contents[0]).toBe(parent.messages[0]);
    expect(seed.contents[H]).toBe(parent.messages[H + 4]);
    expect(seed.contents.at(-3)).toEqual(child('d', ['grep']));
    expect(seed.sharedContents).toBe(H + 4);
  });

  it('refuses a session that is itself a fork, for a fork and a general-purpose sub-agent alike', () => {
    const forked = seedFork(session(finished), 'earlier').contents;
    const grandchild = chat([...forked, assistant('done')]);
    expect(() => seedTask(grandchild, { id: 't', directive: 'd' }, 'd', defaults)).toThrow(ForkRejectedError);
    expect(() => seedTask(grandchild, { id: 't', directive: 'd', subagentType: 'general-purpose' }, 'd', defaults)).toThrow(
      ForkRejectedError,
    );
  });
});

describe('openai-chat fork-child guard', () => {
  it('does not mistake a system prompt that quotes the tag for a fork child', () => {
    // Not written by a user.
    expect(isForkChild([sys('Forks get a <fork-boilerplate> block.')])).toBe(false);
  });
});

describe('openai-chat synthetic prefix and real user turns', () => {
  const reminder = '<system-reminder>\nstartup\n</system-reminder>';

  it('an image_url part counts as a real turn, alone or beside a reminder; blank text does not', () => {
    const image = { type: 'image_url' as const, image_url: { url: 'https://example.com/a.png' } };
    expect(isRealUserTurn({ role: 'user', content: [image] })).toBe(true);
    expect(isRealUserTurn({ role: 'user', content: [{ type: 'text', text: reminder }, image] })).toBe(true);
    expect(syntheticPrefixLength([{ role: 'user', content: [{ type: 'text', text: reminder }, image] }])).toBe(0);
    expect(isRealUserTurn(user(''))).toBe(false);
    expect(isRealUserTurn(userParts('  ', '\n'))).toBe(false);
  });

  it('only user messages are user turns: not tool results, assistant, system or developer messages', () => {
    expect(isRealUserTurn(user('hello'))).toBe(true);
    expect(isRealUserTurn(tool('c1', 'hello'))).toBe(false);
    expect(isRealUserTurn(assistant('hello'))).toBe(false);
    expect(isRealUserTurn(sys('hello'))).toBe(false);
    expect(isRealUserTurn(dev('hello'))).toBe(false);
  });
});

describe('openai-chat agent tool', () => {
  it('AGENT_TOOL_FUNCTION is the agent tool as a Chat Completions function tool, exported from forkpool/protocol', () => {
    expect(protocol.AGENT_TOOL_FUNCTION).toBe(AGENT_TOOL_FUNCTION);
    expect(AGENT_TOOL_FUNCTION).toEqual({
      type: 'function',
      function: { name: 'agent', description: AGENT_TOOL_DECLARATION.description, parameters: AGENT_TOOL_DECLARATION.parametersJsonSchema },
    });
    expect(() => chat([user('x')], { tools: [AGENT_TOOL_FUNCTION] })).not.toThrow();
  });
});

describe('openai-chat and Gemini: the same rules on the same conversation', () => {
  /*
   * Random conversations written in both shapes: whatever a Gemini fork gets, the OpenAI fork gets
   * the same messages in its own shape (a Gemini results message is one tool message per result;
   * a Gemini user message of results and text is those tool messages, then the text as a user message).
   * Gemini user messages mixing results and words are not generated: in Chat Completions the words
   * are a user message of their own after the results, and a trailing one is dropped like any prompt.
   */
  type GContent = import('../src/protocol.js').Content;

  function toChat(message: GContent): ChatMessage[] {
    const texts = message.parts.flatMap((p) => (typeof p.text === 'string' ? [p.text] : []));
    if (message.role === 'model') {
      const callParts = message.parts.flatMap((p) => (p.functionCall ? [p.functionCall] : []));
      if (callParts.length === 0) return [assistant(texts.join(''))];
      return [
        {
          role: 'assistant',
          content: texts.length > 0 ? texts.join('') : null,
          tool_calls: callParts.map((c) => call(c.id ?? c.name, c.name, c.args ?? {})),
        },
      ];
    }
    const results = message.parts.flatMap((p) => (p.functionResponse ? [p.functionResponse] : []));
    return [
      ...results.map((r) => tool(r.id ?? r.name, String((r.response as { output?: unknown }).output))),
      ...(texts.length === 1 ? [user(texts[0] as string)] : texts.length > 1 ? [userParts(...texts)] : []),
    ];
  }

  function random(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state / 2147483648;
    };
  }

  function conversation(next: () => number): GContent[] {
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
    const gUser = (text: string): GContent => ({ role: 'user', parts: [{ text }] });
    const gModel = (text: string): GContent => ({ role: 'model', parts: [{ text }] });
    const history: GContent[] = [];
    if (next() < 0.3) history.push(gUser('<system-reminder>\nstartup\n</system-reminder>'));
    if (next() < 0.2)
      history.push(gUser('Resume the prior task using the summary above.'), gModel('Got it. Thanks for the additional context!'));
    let id = 0;
    const length = Math.floor(next() * 12);
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
        // Results right after the calls (Chat Completions allows them nowhere else): all, some (in any order), or none.
        const answered = made.filter(() => next() < 0.7).sort(() => next() - 0.5);
        if (answered.length > 0) {
          history.push({
            role: 'user',
            parts: answered.map((c) => ({ functionResponse: { id: c.id, name: c.name, response: { output: `out ${c.id}` } } })),
          });
        }
      }
    }
    return history;
  }

  it('gives the same fork, message for message, for 400 random conversations and every window', () => {
    const next = random(20261130);
    let checked = 0;
    const cases = new Set<string>();
    for (let n = 0; n < 400; n++) {
      const history = conversation(next);
      const gemini = parseSession({
        model: 'gemini-2.5-flash',
        systemInstruction: { parts: [{ text: 'sys' }] },
        history,
      }) as import('../src/protocol.js').GeminiSession;
      const openai = chat([sys('sys'), ...history.flatMap(toChat)]);
      for (const history of ['inherit', 'completed-turns'] as const) {
        for (const forkTurns of ['all', 1, 2, 3] as const) {
          const options = { history, forkTurns, allowedTools: ['grep'] };
          const g = seedFork(gemini, 'the directive', options);
          const o = seedFork(openai, 'the directive', options);
          const context = JSON.stringify({ history: gemini.history, options });
          expect(o.seedCase, context).toBe(g.seedCase);
          expect(o.contents.slice(1), context).toEqual(g.contents.flatMap(toChat));
          const trimmed = gemini.history.slice(0, g.trimmedMessages).flatMap(toChat).length;
          expect(o.trimmedMessages, context).toBe(trimmed);
          expect(o.contents[0]).toEqual(sys('sys'));
          cases.add(o.seedCase);
          checked++;
        }
      }
    }
    expect(checked).toBe(400 * 8);
    expect([...cases].sort()).toEqual(['continue', 'dropped-user', 'fresh', 'mid-turn', 'tool-results']);
  });
});
