// Internal: anthropicTool (src/shapes/anthropic-messages/dialect.ts) and chatFunctionTool (src/shapes/openai-chat/dialect.ts), a declaration as Anthropic's and Chat Completions' requests carry it: no entry point builds a request body; everything else comes through forkpool, forkpool/protocol and forkpool/local-server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { anthropicTool } from '../src/shapes/anthropic-messages/dialect.js';
import { chatFunctionTool } from '../src/shapes/openai-chat/dialect.js';
import {
  ENGINE_DEFAULTS,
  ForkEngine,
  defineTool,
  parseSession,
  type AnthropicMessagesSession,
  type AnthropicTool,
  type Content,
  type ParentSession,
  type ProviderOption,
} from '../src/index.js';
import {
  AGENT_TOOL_DECLARATION,
  AGENT_TOOL_FUNCTION,
  buildChildMessage,
  type AnthropicMessageLike,
  isForkChild,
  seedFork,
  validateAgentParams,
  type ChatMessage,
  type ForkSeed,
  type FunctionDeclaration,
  type OpenAIChatSession,
} from '../src/protocol.js';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import type { ModelMessage } from '../src/shapes/registry.js';
import { filler } from './support/engine-fixtures.js';

/*
 * Conformance with the reference implementation's own fork tests: Qwen Code (QwenLM/qwen-code)
 * at commit 05c11b40c68a46b5d77a54de95526054fa393bbb — packages/core/src/tools/agent/
 * fork-subagent.test.ts and the fork cases of agent.test.ts. (That commit's environmentContext.ts,
 * which recognizes synthetic prefixes, is read at 57ada502d55aede903bb4f3b8d85a2f0662e7b37, the
 * version with the signature 05c11b40 calls; fork profiles do not apply.) Each case is restated as
 * a fact about forkpool's public API, in our own code; docs/conformance.md's table lists every
 * case and why forkpool differs where it does. Case names below are the reference's.
 */

const REF = {
  placeholder: 'Fork started — processing in background',
  ack: 'Understood. Executing directive now.',
  begin: 'Begin.',
  nestedFork:
    'Error: subagent_type "fork" is not supported from within a sub-agent. Complete this task directly with your own tools instead of requesting a nested fork.',
  spawnInFork: 'Error: Cannot spawn sub-agents from within a fork. Please execute tasks directly.',
};

/*
 * Every case that seeds a fork runs on the three session shapes: Gemini's (Content with parts),
 * OpenAI Chat Completions' ("format": "openai-chat") and Anthropic Messages' ("format":
 * "anthropic-messages"). A shape says how it writes a user text, a model text, a call and its
 * results; the expectations are the same facts in that shape. In Chat Completions a result is a
 * `tool` message of its own and the user's words a user message after it, where Gemini puts both in
 * one user message (Anthropic too: `tool_result` blocks, then the words); its leading system message
 * (the head) is kept first by every fork, where Gemini and Anthropic keep the system prompt in a
 * field of their own.
 */

/** A message in any shape: what a seed of a session typed as any shape holds (these tests build Gemini, Chat Completions and Anthropic ones). */
type Message = ModelMessage;
type Result = [id: string, name: string, output: string];

interface Shape {
  name: string;
  /** What every fork keeps before the conversation: Chat Completions' system message (Gemini: nothing, its system instruction is a field). */
  head: Message[];
  user(text: string): Message;
  model(text: string): Message;
  /** A user message of these text parts. */
  userParts(...texts: string[]): Message;
  /** A user message with no content at all; undefined when a session of this shape cannot hold one (Anthropic's API refuses empty content). */
  emptyUser: (() => Message) | undefined;
  call(id: string, name: string, args: Record<string, unknown>): Message;
  /** The results of calls, then the user's text if any, as this shape writes them after the call message. */
  results(list: Result[], text?: string): Message[];
  /** A parent session with the head (or, system: false, without any system instruction) and this conversation. */
  session(history: Message[], options?: { system?: boolean }): ParentSession;
  /** The smallest conversation a fork inherits nothing of (Gemini: none at all). */
  nothing: Message[];
  /** The fork's system instruction text. */
  systemText(seed: ForkSeed): string | undefined;
  /** The tool declarations a fork's requests carry. */
  tools(seed: ForkSeed): unknown;
  /** The last text of a message. */
  lastText(message: Message | undefined): string | undefined;
  /** A tool result holding a nested object, and where to find that object's copy in a fork's contents. */
  nestedResult(): { message: Message; nested: object; find(contents: Message[]): unknown };
  /** How a tool's error text reads inside a request body the local server captured. */
  inBody(text: string): string;
  /** The local server's route for a model call in this shape. */
  modelRoute: RegExp;
  /** A session for the engine: this system text, these groups of declarations, this conversation. */
  engineSession(system: string, tools: FunctionDeclaration[][], history: Message[]): ParentSession;
  /** The engine's provider for this shape, talking to the local server at `url`. */
  provider(url: string): ProviderOption;
}

const gemini: Shape = {
  name: 'gemini',
  head: [],
  user: (text) => ({ role: 'user', parts: [{ text }] }),
  model: (text) => ({ role: 'model', parts: [{ text }] }),
  userParts: (...texts) => ({ role: 'user', parts: texts.map((text) => ({ text })) }),
  emptyUser: () => ({ role: 'user', parts: [] }),
  call: (id, name, args) => ({ role: 'model', parts: [{ functionCall: { id, name, args } }] }),
  results: (list, text) => [
    {
      role: 'user',
      parts: [
        ...list.map(([id, name, output]) => ({ functionResponse: { id, name, response: { output } } })),
        ...(text !== undefined ? [{ text }] : []),
      ],
    },
  ],
  session: (history, { system = true } = {}) => ({
    model: 'gemini-2.5-flash',
    ...(system ? { systemInstruction: { parts: [{ text: 'parent system' }] } } : {}),
    tools: [{ functionDeclarations: [{ name: 'read_file' }, { name: 'edit' }, { name: 'agent' }] }],
    history: history as Content[],
  }),
  nothing: [],
  systemText: (seed) => (seed.format === 'gemini' ? seed.systemInstruction?.parts[0]?.text : undefined),
  tools: (seed) => (seed.format === 'gemini' ? seed.tools : undefined),
  lastText: (message) => (message as Content | undefined)?.parts.at(-1)?.text,
  nestedResult() {
    const nested = { inlineData: { mimeType: 'image/png', data: 'c2hvdA==' } };
    const message: Content = {
      role: 'user',
      parts: [{ functionResponse: { id: 'call-1', name: 'read_file', response: { output: 'captured' }, parts: [nested] } }],
    };
    const find = (contents: Message[]) => {
      const response = (contents as Content[]).flatMap((c) => c.parts).find((p) => p.functionResponse !== undefined)?.functionResponse;
      return (response as unknown as { parts: unknown[] }).parts[0];
    };
    return { message, nested, find };
  },
  inBody: (text) => JSON.stringify(text).slice(1, -1),
  modelRoute: /^(generateContent|streamGenerateContent)$/,
  engineSession: (system, tools, history) => ({
    model: 'gemini-2.5-flash',
    systemInstruction: { parts: [{ text: system }] },
    tools: tools.map((group) => ({ functionDeclarations: group.map((declaration) => ({ ...declaration })) })),
    history: history as Content[],
  }),
  provider: (url) => ({ kind: 'local', url }),
};

const chatSystem = (content: string): ChatMessage => ({ role: 'system', content });

/** A valid openai-chat session: parseSession throws on anything else, and returns the very object. */
function chatSession(session: OpenAIChatSession): OpenAIChatSession {
  if (parseSession(session) !== session) throw new Error('parseSession returned another object');
  return session;
}

const openAIChat: Shape = {
  name: 'openai-chat',
  head: [chatSystem('parent system')],
  user: (text) => ({ role: 'user', content: text }),
  model: (text) => ({ role: 'assistant', content: text }),
  userParts: (...texts) => ({ role: 'user', content: texts.map((text) => ({ type: 'text' as const, text })) }),
  emptyUser: () => ({ role: 'user', content: '' }),
  call: (id, name, args) => ({
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
  }),
  results: (list, text) => [
    ...list.map(([id, , output]): ChatMessage => ({ role: 'tool', tool_call_id: id, content: output })),
    ...(text !== undefined ? [{ role: 'user' as const, content: text }] : []),
  ],
  session: (history, { system = true } = {}) =>
    chatSession({
      format: 'openai-chat',
      model: 'gpt-4.1-mini',
      messages: [...(system ? [chatSystem('parent system')] : []), ...(history as ChatMessage[])],
      tools: ['read_file', 'edit', 'agent'].map((name) => ({ type: 'function' as const, function: { name } })),
    }),
  // A session holds at least one message: a lone prompt the parent never answered, which a fork drops.
  nothing: [{ role: 'user', content: 'hello' }],
  systemText: (seed) => {
    const first = seed.format === 'openai-chat' ? seed.contents[0] : undefined;
    return first?.role === 'system' && typeof first.content === 'string' ? first.content : undefined;
  },
  tools: (seed) => (seed.format === 'openai-chat' ? seed.session.tools : undefined),
  lastText: (message) => {
    const content = (message as ChatMessage | undefined)?.content;
    if (typeof content === 'string') return content;
    const last = Array.isArray(content) ? content.at(-1) : undefined;
    return last?.type === 'text' ? last.text : undefined;
  },
  nestedResult() {
    const nested = { type: 'text' as const, text: 'captured' };
    const message: ChatMessage = { role: 'tool', tool_call_id: 'call-1', content: [nested] };
    const find = (contents: Message[]) => {
      const result = (contents as ChatMessage[]).find((m) => m.role === 'tool');
      return Array.isArray(result?.content) ? result.content[0] : undefined;
    };
    return { message, nested, find };
  },
  // A result that is not text is sent as JSON in the tool message's content, itself a JSON string in the body.
  inBody: (text) => JSON.stringify(JSON.stringify(text).slice(1, -1)).slice(1, -1),
  modelRoute: /^chat\.completions$/,
  engineSession: (system, tools, history) =>
    chatSession({
      format: 'openai-chat',
      model: 'gpt-4.1-mini',
      messages: [chatSystem(system), ...(history as ChatMessage[])],
      tools: tools
        .flat()
        .map((declaration) => (declaration === AGENT_TOOL_DECLARATION ? AGENT_TOOL_FUNCTION : chatFunctionTool(declaration))),
    }),
  provider: (url) => ({ kind: 'local', url }),
};

/** A valid anthropic-messages session: parseSession throws on anything else, and returns the very object. */
function anthropicSession(session: AnthropicMessagesSession): AnthropicMessagesSession {
  if (parseSession(session) !== session) throw new Error('parseSession returned another object');
  return session;
}

/** An Anthropic session as the conformance shape builds it, not validated: for content the schema refuses but a caller may still pass. */
function unvalidatedAnthropicSession(history: Message[]): AnthropicMessagesSession {
  return {
    format: 'anthropic-messages',
    model: 'claude-sonnet-4-5',
    system: 'parent system',
    tools: ['read_file', 'edit', 'agent'].map((name) => ({ name, input_schema: { type: 'object' as const } })),
    messages: history as AnthropicMessagesSession['messages'],
    max_tokens: 1024,
  } as AnthropicMessagesSession;
}

const anthropicBlocks = (message: Message | undefined): readonly Record<string, unknown>[] => {
  const content = (message as AnthropicMessageLike | undefined)?.content;
  return Array.isArray(content) ? content : [];
};

const anthropicMessages: Shape = {
  name: 'anthropic-messages',
  head: [],
  user: (text) => ({ role: 'user', content: text }),
  model: (text) => ({ role: 'assistant', content: text }),
  userParts: (...texts) => ({ role: 'user', content: texts.map((text) => ({ type: 'text', text })) }),
  // Anthropic's API (and so the schema) refuses a user message with empty content.
  emptyUser: undefined,
  call: (id, name, args) => ({ role: 'assistant', content: [{ type: 'tool_use', id, name, input: args }] }),
  results: (list, text) => [
    {
      role: 'user',
      content: [
        ...list.map(([id, , output]) => ({ type: 'tool_result', tool_use_id: id, content: output })),
        ...(text !== undefined ? [{ type: 'text', text }] : []),
      ],
    },
  ],
  session: (history, { system = true } = {}) =>
    anthropicSession({
      format: 'anthropic-messages',
      model: 'claude-sonnet-4-5',
      ...(system ? { system: 'parent system' } : {}),
      tools: ['read_file', 'edit', 'agent'].map((name) => ({ name, input_schema: { type: 'object' as const } })),
      messages: history as AnthropicMessagesSession['messages'],
      max_tokens: 1024,
    }),
  // A session holds at least one message: a lone prompt the parent never answered, which a fork drops.
  nothing: [{ role: 'user', content: 'hello' }],
  systemText: (seed) => (seed.format === 'anthropic-messages' && typeof seed.session.system === 'string' ? seed.session.system : undefined),
  tools: (seed) => (seed.format === 'anthropic-messages' ? seed.session.tools : undefined),
  lastText: (message) => {
    const content = (message as AnthropicMessageLike | undefined)?.content;
    if (typeof content === 'string') return content;
    const last = anthropicBlocks(message).at(-1);
    return last?.type === 'text' && typeof last.text === 'string' ? last.text : undefined;
  },
  nestedResult() {
    const nested = { type: 'text', text: 'captured' };
    const message: AnthropicMessageLike = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call-1', content: [nested] }] };
    const find = (contents: Message[]) => {
      const block = contents.flatMap(anthropicBlocks).find((b) => b.type === 'tool_result');
      return Array.isArray(block?.content) ? block.content[0] : undefined;
    };
    return { message, nested, find };
  },
  // A tool's error is a tool_result holding the text itself, marked as an error.
  inBody: (text) => `"content":${JSON.stringify(text)},"is_error":true`,
  modelRoute: /^messages$/,
  engineSession: (system, tools, history) =>
    anthropicSession({
      format: 'anthropic-messages',
      model: 'claude-sonnet-4-5',
      system,
      tools: tools.flat().map((declaration) => anthropicTool(declaration) as AnthropicTool),
      messages: history as AnthropicMessagesSession['messages'],
      max_tokens: 1024,
    }),
  provider: (url) => ({ kind: 'anthropic', apiKey: 'sk-test-not-real', baseUrl: url }),
};

const SHAPES = [gemini, openAIChat, anthropicMessages];

/** The reference's fixtures, in a shape. */
function fixtures(shape: Shape) {
  const reminderText = '<system-reminder>\nchanged tools\n</system-reminder>';
  return {
    startup: shape.user('<system-reminder>\nstartup\n</system-reminder>'),
    firstUser: shape.user('first question'),
    firstModel: shape.model('first answer'),
    toolCall: shape.call('call-1', 'read_file', { path: 'a.ts' }),
    toolResult: shape.results([['call-1', 'read_file', 'file contents']]),
    secondUser: shape.user('second question'),
    secondModel: shape.model('second answer'),
    reminderText,
    reminder: shape.user(reminderText),
    compactedSummary: shape.user('Resume the prior task from this summary.'),
    compactedAck: shape.model('Got it. Thanks for the additional context!'),
    /** The child message as a user message of its own. */
    child: (directive: string, allowedTools?: readonly string[]) => shape.user(buildChildMessage(directive, allowedTools)),
  };
}

/** What a fork inherits of the parent's conversation with `forkTurns` (the head checked, its own child message left out). */
function inheritedIn(shape: Shape) {
  return (history: Message[], forkTurns: 'all' | number): Message[] => {
    const seed = seedFork(shape.session(history), 'the directive', { forkTurns });
    expect(seed.contents.slice(0, shape.head.length)).toEqual(shape.head);
    return seed.contents.slice(shape.head.length, -1);
  };
}

describe('fork-subagent.test.ts › selectForkHistory', () => {
  it('defaults to all and normalizes explicit values', () => {
    const forkTurns = (extra: Record<string, unknown>) => {
      const checked = validateAgentParams({ description: 'd', prompt: 'p', subagent_type: 'fork', ...extra });
      return checked.ok ? checked.fork?.forkTurns : checked.error.message;
    };
    expect(forkTurns({})).toBe('all');
    expect(forkTurns({ fork_turns: 'all' })).toBe('all');
    expect(forkTurns({ fork_turns: '3' })).toBe(3);
  });

  describe.each(SHAPES)('on $name sessions', (shape) => {
    const {
      startup,
      firstUser,
      firstModel,
      toolCall,
      toolResult,
      secondUser,
      secondModel,
      reminderText,
      reminder,
      compactedSummary,
      compactedAck,
      child,
    } = fixtures(shape);
    const inherited = inheritedIn(shape);
    const H = shape.head.length;

    it('preserves all history when no bounded window is requested', () => {
      expect(inherited([startup, firstUser, firstModel], 'all')).toEqual([startup, firstUser, firstModel]);
    });

    it('counts real user turns rather than tool responses', () => {
      expect(inherited([startup, firstUser, toolCall, ...toolResult, firstModel, secondUser, secondModel], 1)).toEqual([
        secondUser,
        secondModel,
      ]);
    });

    it('keeps all available context when fewer turns exist than requested', () => {
      const seed = seedFork(shape.session([startup, firstUser, firstModel]), 'd', { forkTurns: 3 });
      expect(seed.contents.slice(0, H)).toEqual(shape.head);
      expect(seed.contents.slice(H, -1)).toEqual([firstUser, firstModel]);
      expect(seed.trimmedMessages).toBe(1);
      expect(seed.sharedContents).toBe(H + 2);
    });

    it('returns empty when no real user turns exist after the synthetic prefix', () => {
      const seed = seedFork(shape.session([startup]), 'the directive', { forkTurns: 1 });
      expect(seed.seedCase).toBe('fresh');
      expect(seed.contents).toEqual([...shape.head, child('the directive')]);
    });

    it('does not count or inherit a compacted-history prefix for a numeric window', () => {
      expect(inherited([startup, compactedSummary, compactedAck, firstUser, firstModel], 3)).toEqual([firstUser, firstModel]);
      // The real compaction text (Qwen Code's RESUME_TRAILER) is recognized the same way.
      const real = shape.user(
        'Summary of the work.\n\nResume the prior task using the summary above. Continue from the last in-flight step.',
      );
      expect(inherited([real, compactedAck, firstUser, firstModel, secondUser, secondModel], 5)).toEqual([
        firstUser,
        firstModel,
        secondUser,
        secondModel,
      ]);
    });

    it('does not count pure reminders as user turns', () => {
      expect(inherited([startup, firstUser, firstModel, reminder, secondUser, secondModel], 1)).toEqual([secondUser, secondModel]);
    });

    it('does not count empty user content as a real turn', () => {
      const emptyAck = shape.model('ignored empty input');
      if (shape.emptyUser !== undefined) {
        const emptyUser = shape.emptyUser();
        expect(inherited([startup, firstUser, firstModel, emptyUser, emptyAck], 1)).toEqual([firstUser, firstModel, emptyUser, emptyAck]);
        // A Gemini session file cannot hold a message without parts (Gemini refuses one); a blank text part is the same case.
        const blank = shape.userParts('  ');
        expect(inherited([startup, firstUser, firstModel, blank, emptyAck], 1)).toEqual([firstUser, firstModel, blank, emptyAck]);
      } else {
        // Anthropic's API refuses empty and whitespace-only content, and so does the schema (issue 22) ...
        expect(() => shape.session([startup, firstUser, firstModel, shape.user(''), emptyAck])).toThrow(/must not be empty/);
        expect(() => shape.session([startup, firstUser, firstModel, shape.user('  '), emptyAck])).toThrow(/holds only whitespace text/);
        // ... but a session never validated (seedFork takes one as it is) may hold blank content, and it is no real turn either.
        for (const blank of [shape.user('  '), shape.userParts('  ')]) {
          const seed = seedFork(unvalidatedAnthropicSession([startup, firstUser, firstModel, blank, emptyAck]), 'the directive', {
            forkTurns: 1,
          });
          expect(seed.contents.slice(H, -1)).toEqual([firstUser, firstModel, blank, emptyAck]);
        }
      }
    });

    it('does not count a tool response mixed with a pure reminder', () => {
      const mixed = shape.results([['call-1', 'read_file', 'file contents']], reminderText);
      expect(inherited([startup, firstUser, toolCall, ...mixed, firstModel], 1)).toEqual([firstUser, toolCall, ...mixed, firstModel]);
    });

    it('does not share nested mutable parts with the parent history', () => {
      const { message, nested, find } = shape.nestedResult();
      for (const forkTurns of ['all', 5] as const) {
        const seed = seedFork(shape.session([startup, firstUser, toolCall, message, firstModel]), 'd', { forkTurns });
        const copy = find(seed.contents);
        expect(copy).toEqual(nested);
        expect(copy).not.toBe(nested);
      }
    });
  });
});

describe('agent.test.ts › schema generation and validateToolParams (fork cases)', () => {
  const schema = AGENT_TOOL_DECLARATION.parametersJsonSchema as { properties: Record<string, Record<string, unknown>> };
  const fork = { description: 'Search files', prompt: 'Find all TypeScript files in the project', subagent_type: 'fork' };

  it('keeps subagent_type open', () => {
    expect(schema.properties.subagent_type?.type).toBe('string');
    expect(schema.properties.subagent_type?.enum).toBeUndefined();
    expect(String(schema.properties.subagent_type?.description)).toContain('"fork"');
  });

  it('declares the background default and the foreground opt-out for a sub-agent that is not a fork', () => {
    expect(String(schema.properties.run_in_background?.description)).toContain('Defaults to true');
    const foreground = validateAgentParams({ description: 'd', prompt: 'p', run_in_background: false });
    expect(foreground.ok && foreground.runInBackground).toBe(false);
    const background = validateAgentParams({ description: 'd', prompt: 'p' });
    expect(background.ok && background.runInBackground).toBe(true);
  });

  it('declares fork_turns for fork agents without a none option (and, unlike the reference, as a number too)', () => {
    expect(schema.properties.fork_turns?.default).toBeUndefined();
    expect(JSON.stringify(schema.properties.fork_turns)).not.toContain('none');
    expect(String(schema.properties.fork_turns?.description)).toContain('Fork only');
  });

  it('declares fork_tools as an optional execution-only allowlist', () => {
    expect(schema.properties.fork_tools).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(schema.properties.fork_tools?.default).toBeUndefined();
    expect(schema.properties.fork_tools?.minItems).toBeUndefined();
  });

  it('rejects a model grade for fork agents', () => {
    expect(validateAgentParams({ ...fork, model: 'high' })).toMatchObject({
      ok: false,
      error: { kind: 'invalid_params', message: expect.stringMatching(/cannot be combined with subagent_type "fork"/i) },
    });
  });

  it.each(['all', '1', '12'])('accepts fork_turns=%s for fork agents', (turns) => {
    expect(validateAgentParams({ ...fork, fork_turns: turns }).ok).toBe(true);
  });

  it.each(['', 'none', '0', '-1', '1.5', ' 3 '])('rejects invalid fork_turns=%j', (turns) => {
    expect(validateAgentParams({ ...fork, fork_turns: turns })).toMatchObject({
      ok: false,
      error: { kind: 'invalid_params', message: expect.stringMatching(/^fork_turns: /) },
    });
  });

  it.each([undefined, 'general-purpose'])('rejects fork_turns and fork_tools for non-fork subagent_type=%s', (type) => {
    const base = { description: 'd', prompt: 'p', ...(type ? { subagent_type: type } : {}) };
    expect(validateAgentParams({ ...base, fork_turns: 'all' })).toMatchObject({
      error: { kind: 'invalid_params', message: expect.stringMatching(/only be used with subagent_type "fork"/) },
    });
    expect(validateAgentParams({ ...base, fork_tools: ['read_file'] })).toMatchObject({
      error: { kind: 'invalid_params', message: expect.stringMatching(/only be used with subagent_type "fork"/) },
    });
  });

  it('accepts fork_tools, including an empty deny-all list, names it does not know and the MCP forms (PR #8066), for forks', () => {
    expect(validateAgentParams({ ...fork, fork_tools: ['read_file', 'unknown_exact_tool'] }).ok).toBe(true);
    expect(validateAgentParams({ ...fork, fork_tools: [] }).ok).toBe(true);
    expect(validateAgentParams({ ...fork, fork_tools: ['mcp__github', 'mcp__*', 'mcp__github__read_*'] }).ok).toBe(true);
  });

  it('rejects invalid fork_tools entries', () => {
    for (const tools of [['  '], [' read_file '], null, ['*'], ['read_fil*'], ['mcp__github*']]) {
      expect(validateAgentParams({ ...fork, fork_tools: tools })).toMatchObject({
        ok: false,
        error: { kind: 'invalid_params', message: expect.stringMatching(/^fork_tools/) },
      });
    }
    expect(validateAgentParams({ ...fork, fork_tools: ['*'] })).toMatchObject({
      error: { message: expect.stringContaining('does not accept "*"') },
    });
    expect(validateAgentParams({ ...fork, fork_tools: ['read_fil*'] })).toMatchObject({
      error: {
        message: expect.stringContaining(
          'wildcard entries must be "mcp__*" or a trailing MCP tool-prefix pattern such as "mcp__github__read_*"',
        ),
      },
    });
  });

  it('reports fork_tools applicability before malformed entries', () => {
    const checked = validateAgentParams({ description: 'd', prompt: 'p', subagent_type: 'general-purpose', fork_tools: ['*'] });
    expect(checked.ok ? '' : checked.error.message.split('\n')[0]).toBe('fork_tools: can only be used with subagent_type "fork"');
  });

  it('rejects isolation and working_dir (deliberate difference: not supported for any sub-agent, and not declared)', () => {
    expect(schema.properties.isolation).toBeUndefined();
    expect(schema.properties.working_dir).toBeUndefined();
    expect(validateAgentParams({ ...fork, isolation: 'worktree' })).toMatchObject({
      ok: false,
      error: { kind: 'invalid_params', message: expect.stringMatching(/^isolation: is not supported/) },
    });
    expect(validateAgentParams({ description: 'd', prompt: 'p', subagent_type: 'general-purpose', working_dir: '/tmp' })).toMatchObject({
      ok: false,
      error: { kind: 'invalid_params', message: expect.stringMatching(/^working_dir: is not supported/) },
    });
  });

  it('accepts subagent_type "fork" without consulting a registry, in any case', () => {
    expect(validateAgentParams(fork).ok).toBe(true);
    expect(validateAgentParams({ ...fork, subagent_type: 'FORK' }).ok).toBe(true);
  });

  it('omitting subagent_type uses general-purpose, not fork', () => {
    expect(validateAgentParams({ description: 'd', prompt: 'p' })).toMatchObject({
      ok: true,
      subagentType: 'general-purpose',
      fork: undefined,
    });
  });

  it('rejects a nested fork request instead of changing its context mode', () => {
    expect(validateAgentParams(fork, { insideSubagent: true })).toEqual({
      ok: false,
      error: { kind: 'nested_fork', message: REF.nestedFork },
    });
    expect(validateAgentParams(fork, { insideFork: true })).toEqual({ ok: false, error: { kind: 'nested_fork', message: REF.nestedFork } });
  });

  it('blocks a fork child from spawning any sub-agent', () => {
    expect(validateAgentParams({ description: 'd', prompt: 'p', subagent_type: 'general-purpose' }, { insideFork: true })).toEqual({
      ok: false,
      error: { kind: 'fork_spawn', message: REF.spawnInFork },
    });
  });

  it('runs a non-interactive fork in the background whatever run_in_background says', () => {
    const checked = validateAgentParams({ ...fork, run_in_background: false });
    expect(checked.ok && checked.runInBackground).toBe(true);
  });

  describe.each(SHAPES)('on $name sessions', (shape) => {
    const { firstUser, firstModel } = fixtures(shape);
    const H = shape.head.length;

    it('refuses to fork a conversation that is itself a fork (its history holds an opening <fork-boilerplate>)', () => {
      const forked = seedFork(shape.session([firstUser, firstModel]), 'earlier').contents;
      expect(() => seedFork(shape.session([...forked.slice(H), firstModel]), 'again')).toThrow(/it is itself a fork/);
      expect(isForkChild([shape.user('<fork-boilerplate>\ncut off')])).toBe(true);
      expect(isForkChild([shape.userParts('context', '<fork-boilerplate>\ncut off')])).toBe(true);
    });
  });
});

describe('agent.test.ts › fork dispatch: child message and forked messages', () => {
  it('does not require a commit unless the directive asks for one', () => {
    expect(buildChildMessage('update the implementation')).not.toContain('commit your changes');
  });

  it('adds the execution restriction only when fork_tools is supplied, after the directive', () => {
    expect(buildChildMessage('inspect the implementation')).not.toContain('<tool-restriction>');
    const restricted = buildChildMessage('inspect the implementation', ['read_file', 'mcp__github']);
    expect(restricted).toContain('read_file, mcp__github');
    expect(restricted.indexOf('Directive: inspect the implementation')).toBeLessThan(restricted.indexOf('<tool-restriction>'));
    expect(buildChildMessage('reason without tools', [])).toContain('may not execute any tool');
  });

  describe.each(SHAPES)('on $name sessions', (shape) => {
    const { startup, firstUser, firstModel, toolCall, secondUser, secondModel, child } = fixtures(shape);
    const inherited = inheritedIn(shape);
    const H = shape.head.length;

    it('includes the execution restriction in the synthetic fork suffix of a mid-turn parent', () => {
      const midTurn = shape.call('call-1', 'read_file', { path: 'README.md' });
      const seed = seedFork(shape.session([firstUser, midTurn]), 'inspect the implementation', { allowedTools: ['read_file'] });
      // The message that holds the child message: Gemini's user message of results, Chat Completions' user message after the tool messages.
      const userMessage = seed.contents.at(-3);
      expect(shape.lastText(userMessage)).toBe(buildChildMessage('inspect the implementation', ['read_file']));
      expect(shape.lastText(userMessage)).toContain('<tool-restriction>');
      expect(seed.contents.slice(-2)).toEqual([shape.model(REF.ack), shape.user(REF.begin)]);
    });

    it('a mid-turn parent: placeholder results, the child message after them (Gemini: the last part of that user message), the ack, then Begin.', () => {
      const agentCall = shape.call('a1', 'agent', { description: 'x', prompt: 'SIBLING', subagent_type: 'fork' });
      const seed = seedFork(shape.session([firstUser, agentCall]), 'mine');
      expect(seed.contents.slice(H + 2)).toEqual([
        ...shape.results([['a1', 'agent', REF.placeholder]], buildChildMessage('mine')),
        shape.model(REF.ack),
        shape.user(REF.begin),
      ]);
      expect(JSON.stringify(seed.contents)).not.toContain('SIBLING');
    });

    it('a history ending on a user message (deliberate difference: real tool results are kept, only a prompt is dropped)', () => {
      // The reference drops any trailing user message; forkpool keeps the results of the last calls.
      const results: Result[] = [['call-1', 'read_file', 'file contents']];
      const kept = seedFork(shape.session([firstUser, toolCall, ...shape.results(results)]), 'd');
      expect(kept.contents).toEqual([...shape.head, firstUser, toolCall, ...shape.results(results, buildChildMessage('d'))]);
      const dropped = seedFork(shape.session([firstUser, firstModel, secondUser]), 'd');
      expect(dropped.contents).toEqual([...shape.head, firstUser, firstModel, child('d')]);
    });

    it('limits a fork to recent real user turns (deliberate difference: forkpool does not put the startup context back)', () => {
      // The reference re-attaches the startup context in front of the window; forkpool's window
      // omits every synthetic prefix, as its design states (docs/conformance.md).
      expect(inherited([startup, firstUser, firstModel, secondUser, secondModel], 1)).toEqual([secondUser, secondModel]);
    });

    it('preserves full curated history when fork_turns is "all", adding nothing when it ends on model text', () => {
      const seed = seedFork(shape.session([startup, firstUser, firstModel, secondUser, secondModel]), 'd');
      expect(seed.contents).toEqual([...shape.head, startup, firstUser, firstModel, secondUser, secondModel, child('d')]);
    });

    it('a fork of an empty conversation without a system instruction gets the fork system prompt and every declared tool', () => {
      const parent = shape.session(shape.nothing, { system: false });
      const seed = seedFork(parent, 'd');
      expect(seed.seedCase).toBe('fresh');
      expect(shape.systemText(seed)).toMatch(/background worker agent/);
      expect(shape.tools(seed)).toEqual(parent.tools);
    });

    it("passes fork_tools separately from inherited tool names: the declarations stay the parent's", () => {
      const parent = shape.session([firstUser, firstModel]);
      const seed = seedFork(parent, 'd', { allowedTools: ['read_file'] });
      expect(JSON.stringify(shape.tools(seed))).toBe(JSON.stringify(parent.tools));
    });
  });
});

describe.each(SHAPES)(
  'fork-subagent.test.ts › resolveForkExecutionAllowedTools, and agent.test.ts › display_image (on a real engine, $name sessions)',
  (shape) => {
    const { firstUser, firstModel } = fixtures(shape);
    let server: LocalServer;
    let engine: ForkEngine;
    const executed: string[] = [];
    const readFile = defineTool({
      name: 'read_file',
      description: 'Reads a file.',
      parameters: z.object({ path: z.string() }),
      execute: ({ path }) => {
        executed.push(`read_file ${path}`);
        return { content: `contents of ${path}` };
      },
    });
    // The reference's image renderer: main-session-only.
    const displayImage = defineTool({
      name: 'display_image',
      description: 'Shows an image to the user.',
      parameters: z.object({ path: z.string() }),
      forks: false,
      execute: ({ path }) => {
        executed.push(`display_image ${path}`);
        return { shown: true };
      },
    });
    const system = `parent system ${filler(1200)}`;
    const parent = shape.engineSession(system, [[readFile.declaration, displayImage.declaration]], [firstUser, firstModel]);
    beforeAll(async () => {
      server = await startLocalServer({ captureRequests: true });
      engine = await ForkEngine.create({ provider: shape.provider(server.url), threads: 1, tools: [readFile, displayImage] });
    });
    afterAll(async () => {
      await engine.close();
      await server.close();
    });

    /** What the forks sent since `from`: every model call in this shape's own route. */
    const said = (from: number): string => {
      const requests = server.requests.slice(from).filter((r) => r.route !== 'countTokens');
      expect(requests.length).toBeGreaterThan(0);
      for (const request of requests) expect(request.route).toMatch(shape.modelRoute);
      return requests.map((r) => r.body).join('\n');
    };

    it('preserves unrestricted execution when display_image is not advertised', async () => {
      executed.length = 0;
      const start = server.requests.length;
      const plain = shape.engineSession(system, [[readFile.declaration]], [firstUser, firstModel]);
      const [result] = await engine
        .fanOut(engine.freeze(plain), [{ id: 'a', directive: 'CALL read_file {"path":"a.ts"}\nREPLY ok' }])
        .results();
      expect(result?.status).toBe('completed');
      expect(executed).toEqual(['read_file a.ts']);
      // Each model call went to this shape's own route.
      said(start);
    });

    it('keeps inherited declarations but denies display_image by default', async () => {
      executed.length = 0;
      const start = server.requests.length;
      const directive = 'CALL read_file {"path":"a.ts"}\nCALL display_image {"path":"shot.png"}\nREPLY ok';
      const [result] = await engine.fanOut(engine.freeze(parent), [{ id: 'b', directive }]).results();
      expect(result?.status).toBe('completed');
      expect(executed).toEqual(['read_file a.ts']);
      expect(said(start)).toContain('"name":"display_image","description":"Shows an image to the user."');
      expect(said(start)).toContain('display_image can only be executed by the main session');
    });

    it('cannot re-enable display_image through fork_tools', async () => {
      executed.length = 0;
      const start = server.requests.length;
      const [result] = await engine
        .fanOut(engine.freeze(parent), [
          { id: 'c', directive: 'CALL display_image {"path":"shot.png"}\nREPLY ok', tools: ['display_image', 'read_file'] },
        ])
        .results();
      expect(result?.status).toBe('completed');
      expect(executed).toEqual([]);
      expect(said(start)).toContain('display_image can only be executed by the main session');
    });

    it('caps fork turns at 200 and never asks a person: an approval-required tool is denied in a fork', async () => {
      expect(ENGINE_DEFAULTS.maxTurns).toBe(200);
      const deploy = defineTool({
        name: 'deploy',
        description: 'Deploys.',
        parameters: z.object({}),
        approval: 'required',
        execute: () => 'deployed',
      });
      const local = await ForkEngine.create({ provider: shape.provider(server.url), threads: 1, tools: [deploy] });
      try {
        const start = server.requests.length;
        const withDeploy = shape.engineSession(system, [[deploy.declaration]], [firstUser, firstModel]);
        const [result] = await local
          .fanOut(local.freeze(withDeploy), [{ id: 'e', directive: 'CALL deploy {}\nREPLY not deployed' }])
          .results();
        expect(result?.text).toBe('not deployed');
        expect(said(start)).toContain("deploy needs a person's approval, and background agents cannot prompt for it.");
      } finally {
        await local.close();
      }
    });

    it('runs a non-interactive fork in the background, whatever run_in_background says, and it sees the parent conversation', async () => {
      const withAgent = shape.engineSession(
        system,
        [[readFile.declaration, displayImage.declaration], [AGENT_TOOL_DECLARATION]],
        [shape.user('parent marker: FORK7348_PARENT_7XQ9'), shape.model('Ready.')],
      );
      const start = server.requests.length;
      const outcome = await engine.runParentAgent(
        withAgent,
        'CALL agent {"description":"marker","prompt":"RECALL FORK\\\\d+_PARENT_\\\\w+","subagent_type":"fork","run_in_background":false}\nREPLY launched',
      );
      expect(outcome.status).toBe('completed');
      expect(outcome.forks.map((f) => [f.status, f.text])).toEqual([['completed', 'RECALL FORK\\d+_PARENT_\\w+: FORK7348_PARENT_7XQ9']]);
      // The parent's calls and the fork's went to this shape's own route.
      said(start);
    });

    it("blocks a fork from spawning any sub-agent, with the reference's words", async () => {
      const withAgent = shape.engineSession(
        system,
        [[readFile.declaration, displayImage.declaration], [AGENT_TOOL_DECLARATION]],
        [firstUser, firstModel],
      );
      const start = server.requests.length;
      const [result] = await engine
        .fanOut(engine.freeze(withAgent), [
          {
            id: 'd',
            directive:
              'CALL agent {"description":"x","prompt":"y"}\nCALL@2 agent {"description":"x","prompt":"y","subagent_type":"fork"}\nREPLY ok',
          },
        ])
        .results();
      expect(result?.status).toBe('completed');
      expect(said(start)).toContain(shape.inBody(REF.spawnInFork));
      expect(said(start)).toContain(shape.inBody(REF.nestedFork));
    });
  },
);
