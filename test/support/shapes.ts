/*
 * One adapter per session shape (Gemini, OpenAI Chat Completions, Anthropic Messages, the AI SDK's) for the fork
 * rules that hold on every shape (test/fork-rules.test.ts). A test writes its conversation once, as
 * Gemini Contents (the neutral form: a user message holds results, then words), and each shape writes
 * it in its own form: Chat Completions as one `tool` message per result, then the words as a user
 * message of their own, after its system and developer messages (the head); Anthropic as tool_result
 * blocks, then text blocks, of one user message (a lone text is string content). The readers here are
 * the tests' own, so the code under test is not its own oracle.
 */
// Internal: FORK_SYSTEM_TEXT (src/wording/constants.ts), the fork system text a fresh Chat Completions fork sends; no entry point exports it.
import { FORK_SYSTEM_TEXT } from '../../src/wording/constants.js';
// Internal: aiSdkTool (src/shapes/ai-sdk/dialect.ts), the agent tool in the AI SDK's shape; AiSdkSession (src/shapes/ai-sdk/schema.ts).
import { aiSdkTool } from '../../src/shapes/ai-sdk/dialect.js';
import type { AiSdkSession } from '../../src/shapes/ai-sdk/schema.js';
import type { OpenAIResponsesSession } from '../../src/shapes/openai-responses/schema.js';
// Internal: the shape registry (src/shapes/registry.ts, loading.ts), where the made-up acme shape is registered.
import { registerShape } from '../../src/shapes/loading.js';
import { findShape } from '../../src/shapes/registry.js';
import { acmeShape } from '../fixtures/shapes/acme.js';
import { type AnthropicMessagesSession, type AnthropicTool, type ChatTool, parseSession, type ParentSession } from '../../src/index.js';
import {
  AGENT_TOOL_ANTHROPIC,
  AGENT_TOOL_DECLARATION,
  AGENT_TOOL_FUNCTION,
  buildChildMessage,
  type ChatMessage,
  type Content,
  type GeminiSession,
  type OpenAIChatSession,
} from '../../src/protocol.js';

/** A message of any shape, as the tests handle it. */
export type AnyMessage = any;

export const user = (text: string): Content => ({ role: 'user', parts: [{ text }] });
const userParts = (...texts: string[]): Content => ({ role: 'user', parts: texts.map((text) => ({ text })) });
export const model = (text: string): Content => ({ role: 'model', parts: [{ text }] });
export const calls = (...list: [id: string, name: string, args: Record<string, unknown>][]): Content => ({
  role: 'model',
  parts: list.map(([id, name, args]) => ({ functionCall: { id, name, args } })),
});
/** A user message of results, each `result of <id>`. */
export const answers = (...list: [id: string, name: string][]): Content => ({
  role: 'user',
  parts: list.map(([id, name]) => ({ functionResponse: { id, name, response: { output: `result of ${id}` } } })),
});
/** A result part with this output. */
export const resultPart = (id: string, name: string, output: string): Content['parts'][number] => ({
  functionResponse: { id, name, response: { output } },
});
const PARTS = 'asParts';
/**
 * The same message, written as text parts (blocks) in every shape: Chat Completions and Anthropic
 * write a lone text as string content otherwise. (A non-enumerable mark: equality checks and copies
 * do not see it, so a Gemini Content stays what it was.)
 */
export function asParts(message: Content): Content {
  const marked = { ...message };
  Object.defineProperty(marked, PARTS, { value: true, enumerable: false });
  return marked;
}
const partsWanted = (message: Content): boolean => (message as unknown as Record<string, unknown>)[PARTS] === true;
/** A user message of these texts, as text parts in every shape. */
export const textParts = (...texts: string[]): Content => asParts(userParts(...texts));

export const child = (directive: string, allowedTools?: readonly string[]): Content => user(buildChildMessage(directive, allowedTools));
export const childPart = (directive: string, allowedTools?: readonly string[]): Content['parts'][number] => ({
  text: buildChildMessage(directive, allowedTools),
});

export const MARKER = 'MARKER-7f3a-only-in-parent-history';

/** A finished exchange: user asks, model reads a file, answers. */
export const finished: Content[] = [
  user(`Please remember ${MARKER}.`),
  calls(['c1', 'read_file', { path: 'README.md' }]),
  answers(['c1', 'read_file']),
  model('Noted, and I read the README.'),
];

/** The parent just called the Agent tool twice in one turn. */
export const midTurn: Content[] = [
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

/** What the tests read of a message, in any shape. */
interface View {
  /** 'tool': a Chat Completions tool message; 'system': a system or developer message. */
  role: 'user' | 'model' | 'tool' | 'system';
  texts: string[];
  calls: { id: string | undefined; name: string; args: unknown }[];
  results: { id: string | undefined; output: unknown }[];
}

export interface Shape {
  /** The shape's name, as the describe titles say it. */
  name: 'gemini' | 'openai-chat' | 'anthropic-messages' | 'ai-sdk' | 'openai-responses' | 'acme-chat';
  /** The messages every seed of `session()` keeps first (Chat Completions' system and developer messages). */
  head: readonly AnyMessage[];
  /** What a fresh fork of `bare()` starts with before its child message (Chat Completions: a system message with the fork system text). */
  freshHead: readonly AnyMessage[];
  /** Neutral messages, written in this shape. */
  write(contents: readonly Content[]): AnyMessage[];
  /** A session of this shape: system prompt (or head), tools and settings, then these messages. */
  session(history: readonly Content[]): ParentSession;
  /**
   * The same, not validated: for blank user messages, which Anthropic's schema refuses as its API
   * does (issue 22) but a caller's own session may still hold (the other shapes take them).
   */
  unvalidated(history: readonly Content[]): ParentSession;
  /** The same without a system prompt (for Chat Completions: without the head). */
  bare(history: readonly Content[]): ParentSession;
  /** A session's messages (for Chat Completions: the head included). */
  messages(session: Readonly<ParentSession>): readonly AnyMessage[];
  /** Read a message of this shape. */
  view(message: AnyMessage): View;
  /** Set the text of a message with one text (string content, or its first text part). */
  setText(message: AnyMessage, text: string): void;
  /** The system prompt a seed sends (Gemini: its systemInstruction; Chat Completions: its first message, when a system message; Anthropic: session.system). */
  system(seed: unknown): unknown;
  /** A system prompt of this text, as `system` reads it. */
  systemFor(text: string): unknown;
  /** A session like `session()`'s, holding exactly these messages of this shape (Chat Completions: no head added). */
  sessionOf(messages: readonly AnyMessage[]): ParentSession;
}

/** The messages a seed of this shape holds, for a seed written in neutral form (the head first). */
export function seedOf(shape: Shape, contents: readonly Content[], head: readonly AnyMessage[] = shape.head): AnyMessage[] {
  return [...head, ...shape.write(contents)];
}

/** How many messages come before the one that holds the child message, in this shape's form of a neutral seed. */
export function sharedOf(shape: Shape, contents: readonly Content[], head: readonly AnyMessage[] = shape.head): number {
  const written = seedOf(shape, contents, head);
  const at = written.findIndex((m) => shape.view(m).texts.some((t) => t.startsWith('<fork-boilerplate>')));
  if (at < 0) throw new Error('the expected seed holds no child message');
  return at;
}

/** The text of every message's text parts, one string (what a "does not contain" check reads). */
export const textOf = (contents: readonly unknown[]): string => JSON.stringify(contents);

const outputOf = (response: unknown): string => String((response as { output?: unknown }).output);

// ---- Gemini -----------------------------------------------------------------------------------

function geminiSession(history: readonly Content[], system: boolean): GeminiSession {
  const session: GeminiSession = {
    model: 'gemini-2.5-flash',
    systemInstruction: { parts: [{ text: 'You are the main agent.' }] },
    tools: [{ functionDeclarations: [{ name: 'read_file' }, { name: 'agent' }, { name: 'grep' }] }],
    toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
    generationConfig: { temperature: 0.1, topK: 5, thinkingConfig: { thinkingBudget: 64 } },
    history: [...history],
  };
  if (!system) delete session.systemInstruction;
  return session;
}

const gemini: Shape = {
  name: 'gemini',
  head: [],
  freshHead: [],
  write: (contents) => [...contents],
  session: (history) => geminiSession(history, true),
  unvalidated: (history) => geminiSession(history, true),
  bare: (history) => geminiSession(history, false),
  messages: (session) => (session as GeminiSession).history,
  view: (message: Content) => ({
    role: message.role === 'model' ? 'model' : 'user',
    texts: message.parts.flatMap((p) => (typeof p.text === 'string' ? [p.text] : [])),
    calls: message.parts.flatMap((p) =>
      p.functionCall ? [{ id: p.functionCall.id, name: p.functionCall.name, args: p.functionCall.args }] : [],
    ),
    results: message.parts.flatMap((p) =>
      p.functionResponse ? [{ id: p.functionResponse.id, output: outputOf(p.functionResponse.response) }] : [],
    ),
  }),
  setText: (message: Content, text) => {
    (message.parts[0] as { text: string }).text = text;
  },
  system: (seed) => (seed as { systemInstruction?: unknown }).systemInstruction,
  systemFor: (text) => ({ parts: [{ text }] }),
  sessionOf: (messages) => geminiSession(messages as Content[], true),
};

// ---- OpenAI Chat Completions ------------------------------------------------------------------

const sys = (content: string): ChatMessage => ({ role: 'system', content });
const dev = (content: string): ChatMessage => ({ role: 'developer', content });
const fn = (name: string): ChatTool => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } });
const CHAT_HEAD: ChatMessage[] = [sys('You are the main agent.'), dev('Prefer small, reviewed changes.')];

/** A Gemini Content as Chat Completions messages: one tool message per result, then the words as a user message. */
function toChat(message: Content): ChatMessage[] {
  const texts = message.parts.flatMap((p) => (typeof p.text === 'string' ? [p.text] : []));
  const parts = partsWanted(message);
  if (message.role === 'model') {
    const made = message.parts.flatMap((p) => (p.functionCall ? [p.functionCall] : []));
    if (made.length === 0)
      return [{ role: 'assistant', content: parts ? texts.map((text) => ({ type: 'text' as const, text })) : texts.join('') }];
    return [
      {
        role: 'assistant',
        content: texts.length > 0 ? texts.join('') : null,
        tool_calls: made.map((c) => ({
          id: c.id ?? c.name,
          type: 'function' as const,
          function: { name: c.name, arguments: JSON.stringify(c.args ?? {}) },
        })),
      },
    ];
  }
  const results = message.parts.flatMap((p) => (p.functionResponse ? [p.functionResponse] : []));
  return [
    ...results.map((r): ChatMessage => ({ role: 'tool', tool_call_id: r.id ?? r.name, content: outputOf(r.response) })),
    ...(texts.length === 1 && !parts
      ? [{ role: 'user' as const, content: texts[0] as string }]
      : texts.length > 0
        ? [{ role: 'user' as const, content: texts.map((text) => ({ type: 'text' as const, text })) }]
        : []),
  ];
}

function chatSession(messages: ChatMessage[]): OpenAIChatSession {
  const session: OpenAIChatSession = {
    format: 'openai-chat',
    model: 'gpt-4.1-mini',
    messages,
    tools: [fn('read_file'), AGENT_TOOL_FUNCTION, fn('grep')],
    tool_choice: 'auto',
    parallel_tool_calls: true,
    temperature: 0.1,
    top_p: 0.9,
    max_completion_tokens: 2048,
  };
  if (parseSession(session) !== session) throw new Error('parseSession returned another object');
  return session;
}

function chatText(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((b: { type?: string; text?: unknown }) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : []));
}

const openAIChat: Shape = {
  name: 'openai-chat',
  head: CHAT_HEAD,
  freshHead: [sys(FORK_SYSTEM_TEXT)],
  write: (contents) => contents.flatMap(toChat),
  session: (history) => chatSession([...CHAT_HEAD, ...history.flatMap(toChat)]),
  unvalidated: (history) => chatSession([...CHAT_HEAD, ...history.flatMap(toChat)]),
  bare: (history) => chatSession(history.flatMap(toChat)),
  messages: (session) => (session as OpenAIChatSession).messages,
  view: (message: ChatMessage) => {
    const texts = chatText(message.content);
    if (message.role === 'assistant') {
      const made = (message.tool_calls ?? []).map((c) => ({
        id: c.id,
        name: c.function.name,
        args: JSON.parse(c.function.arguments) as unknown,
      }));
      return { role: 'model', texts, calls: made, results: [] };
    }
    if (message.role === 'tool')
      return { role: 'tool', texts: [], calls: [], results: [{ id: message.tool_call_id, output: message.content }] };
    return { role: message.role === 'user' ? 'user' : 'system', texts, calls: [], results: [] };
  },
  setText: (message: { content: string }, text) => {
    message.content = text;
  },
  system: (seed) => {
    const first = (seed as { contents: ChatMessage[] }).contents[0];
    return first?.role === 'system' ? first : undefined;
  },
  systemFor: (text) => sys(text),
  sessionOf: (messages) => chatSession([...messages]),
};

// ---- Anthropic Messages -----------------------------------------------------------------------

type Block = Record<string, unknown>;
const tool = (name: string): AnthropicTool => ({
  name,
  description: `The ${name} tool.`,
  input_schema: { type: 'object', properties: {} },
});

/** A Gemini Content as one Anthropic message: tool_result blocks, then text blocks; a lone text is string content. */
function toAnthropic(message: Content): AnyMessage {
  const texts = message.parts.flatMap((p) => (typeof p.text === 'string' ? [p.text] : []));
  const only = message.parts.length === 1 && texts.length === 1 && !partsWanted(message) ? texts[0] : undefined;
  const role = message.role === 'model' ? 'assistant' : 'user';
  if (only !== undefined) return { role, content: only };
  const text = (value: string): Block => ({ type: 'text', text: value });
  if (message.role === 'model') {
    const made = message.parts.flatMap((p) =>
      p.functionCall
        ? [{ type: 'tool_use', id: p.functionCall.id ?? p.functionCall.name, name: p.functionCall.name, input: p.functionCall.args ?? {} }]
        : [],
    );
    return { role, content: [...texts.map(text), ...made] };
  }
  const results = message.parts.flatMap((p) =>
    p.functionResponse
      ? [
          {
            type: 'tool_result',
            tool_use_id: p.functionResponse.id ?? p.functionResponse.name,
            content: outputOf(p.functionResponse.response),
          },
        ]
      : [],
  );
  return { role, content: [...results, ...texts.map(text)] };
}

function anthropicSession(messages: AnyMessage[], system: boolean, validate = true): AnthropicMessagesSession {
  const made = {
    format: 'anthropic-messages',
    model: 'claude-sonnet-4-5',
    system: 'You are the main agent.',
    tools: [tool('read_file'), AGENT_TOOL_ANTHROPIC as AnthropicTool, tool('grep')],
    tool_choice: { type: 'auto' },
    messages,
    max_tokens: 2048,
    stop_sequences: ['</report>'],
  } as AnthropicMessagesSession;
  if (!system) delete made.system;
  if (validate && parseSession(made) !== made) throw new Error('parseSession returned another object');
  return made;
}

const anthropicMessages: Shape = {
  name: 'anthropic-messages',
  head: [],
  freshHead: [],
  write: (contents) => contents.map(toAnthropic),
  session: (history) => anthropicSession(history.map(toAnthropic), true),
  unvalidated: (history) => anthropicSession(history.map(toAnthropic), true, false),
  bare: (history) => anthropicSession(history.map(toAnthropic), false),
  messages: (session) => (session as AnthropicMessagesSession).messages,
  view: (message: { role: string; content: string | Block[] }) => {
    const blocks: Block[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    return {
      role: message.role === 'assistant' ? 'model' : message.role === 'user' ? 'user' : 'system',
      texts: blocks.flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : [])),
      calls: blocks.flatMap((b) => (b.type === 'tool_use' ? [{ id: b.id as string, name: b.name as string, args: b.input }] : [])),
      results: blocks.flatMap((b) => (b.type === 'tool_result' ? [{ id: b.tool_use_id as string, output: b.content }] : [])),
    };
  },
  setText: (message: { content: string }, text) => {
    message.content = text;
  },
  system: (seed) => (seed as { session: { system?: unknown } }).session.system,
  systemFor: (text) => text,
  sessionOf: (messages) => anthropicSession([...messages], true),
};

// ---- Vercel AI SDK ----------------------------------------------------------------------------

const aiTool = (name: string) => ({ description: `The ${name} tool.`, inputSchema: { type: 'object', properties: {} } });
const { name: _agentName, ...AGENT_TOOL_AI_SDK } = aiSdkTool(AGENT_TOOL_DECLARATION);

/** A Gemini Content as AI SDK messages: a tool message of tool-result parts, then the words as a user message; a lone text is string content. */
function toAiSdk(message: Content): AnyMessage[] {
  const texts = message.parts.flatMap((p) => (typeof p.text === 'string' ? [p.text] : []));
  const parts = partsWanted(message);
  const text = (value: string): Block => ({ type: 'text', text: value });
  if (message.role === 'model') {
    const made = message.parts.flatMap((p) =>
      p.functionCall
        ? [
            {
              type: 'tool-call',
              toolCallId: p.functionCall.id ?? p.functionCall.name,
              toolName: p.functionCall.name,
              input: p.functionCall.args ?? {},
            },
          ]
        : [],
    );
    if (made.length === 0 && texts.length === 1 && !parts) return [{ role: 'assistant', content: texts[0] }];
    return [{ role: 'assistant', content: [...texts.map(text), ...made] }];
  }
  const results = message.parts.flatMap((p) =>
    p.functionResponse
      ? [
          {
            type: 'tool-result',
            toolCallId: p.functionResponse.id ?? p.functionResponse.name,
            toolName: p.functionResponse.name,
            output: { type: 'text', value: outputOf(p.functionResponse.response) },
          },
        ]
      : [],
  );
  return [
    ...(results.length > 0 ? [{ role: 'tool', content: results }] : []),
    ...(texts.length === 1 && !parts
      ? [{ role: 'user', content: texts[0] }]
      : texts.length > 0
        ? [{ role: 'user', content: texts.map(text) }]
        : []),
  ];
}

function aiSdkSession(messages: AnyMessage[], system: boolean, validate = true): AiSdkSession {
  const made = {
    format: 'ai-sdk',
    model: 'gpt-4.1-mini',
    system: 'You are the main agent.',
    messages,
    tools: { read_file: aiTool('read_file'), agent: AGENT_TOOL_AI_SDK, grep: aiTool('grep') },
    toolChoice: 'auto',
    temperature: 0.1,
    maxOutputTokens: 2048,
    // The agent tool's entry is the engine's own (aiSdkTool), typed loosely there: parseSession checks the whole session below.
  } as unknown as AiSdkSession;
  if (!system) delete made.system;
  if (validate && parseSession(made) !== made) throw new Error('parseSession returned another object');
  return made;
}

const aiSdk: Shape = {
  name: 'ai-sdk',
  head: [],
  freshHead: [],
  write: (contents) => contents.flatMap(toAiSdk),
  session: (history) => aiSdkSession(history.flatMap(toAiSdk), true),
  unvalidated: (history) => aiSdkSession(history.flatMap(toAiSdk), true, false),
  bare: (history) => aiSdkSession(history.flatMap(toAiSdk), false),
  messages: (session) => (session as AiSdkSession).messages,
  view: (message: { role: string; content: string | Block[] }) => {
    const blocks: Block[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    return {
      role: message.role === 'assistant' ? 'model' : message.role === 'user' ? 'user' : message.role === 'tool' ? 'tool' : 'system',
      texts: blocks.flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : [])),
      calls: blocks.flatMap((b) =>
        b.type === 'tool-call' ? [{ id: b.toolCallId as string, name: b.toolName as string, args: b.input }] : [],
      ),
      results: blocks.flatMap((b) =>
        b.type === 'tool-result' ? [{ id: b.toolCallId as string, output: (b.output as { value?: unknown }).value }] : [],
      ),
    };
  },
  setText: (message: { content: string }, text) => {
    message.content = text;
  },
  system: (seed) => (seed as { session: { system?: unknown } }).session.system,
  systemFor: (text) => text,
  sessionOf: (messages) => aiSdkSession([...messages], true),
};

// ---- OpenAI Responses ------------------------------------------------------------------------

/**
 * A Gemini Content as Responses input items: a model message's text as an assistant message (an
 * output message when written as parts), each call a function_call item; a user message's results
 * as function_call_output items, then its words as a user message (input_text parts when written as parts).
 */
function toResponses(message: Content): AnyMessage[] {
  const texts = message.parts.flatMap((p) => (typeof p.text === 'string' ? [p.text] : []));
  const parts = partsWanted(message);
  if (message.role === 'model') {
    const said =
      texts.length === 0
        ? []
        : parts
          ? [
              {
                type: 'message',
                id: `msg_${texts.join('').length}`,
                role: 'assistant',
                status: 'completed',
                content: texts.map((text) => ({ type: 'output_text', text, annotations: [] })),
              },
            ]
          : [{ role: 'assistant', content: texts.join('') }];
    const made = message.parts.flatMap((p) =>
      p.functionCall
        ? [
            {
              type: 'function_call',
              call_id: p.functionCall.id ?? p.functionCall.name,
              name: p.functionCall.name,
              arguments: JSON.stringify(p.functionCall.args ?? {}),
            },
          ]
        : [],
    );
    return [...said, ...made];
  }
  const results = message.parts.flatMap((p) =>
    p.functionResponse
      ? [
          {
            type: 'function_call_output',
            call_id: p.functionResponse.id ?? p.functionResponse.name,
            output: outputOf(p.functionResponse.response),
          },
        ]
      : [],
  );
  return [
    ...results,
    ...(texts.length === 1 && !parts
      ? [{ role: 'user', content: texts[0] }]
      : texts.length > 0
        ? [{ role: 'user', content: texts.map((text) => ({ type: 'input_text', text })) }]
        : []),
  ];
}

const responsesFn = (name: string) => ({
  type: 'function',
  name,
  description: `The ${name} tool.`,
  parameters: { type: 'object', properties: {} },
  strict: false,
});

function responsesSession(input: AnyMessage[], system: boolean, validate = true): OpenAIResponsesSession {
  const made = {
    format: 'openai-responses',
    model: 'gpt-4.1-mini',
    instructions: 'You are the main agent.',
    input,
    tools: [responsesFn('read_file'), responsesFn('agent'), responsesFn('grep')],
    tool_choice: 'auto',
    temperature: 0.1,
    max_output_tokens: 2048,
  } as OpenAIResponsesSession;
  if (!system) delete made.instructions;
  if (validate && parseSession(made) !== made) throw new Error('parseSession returned another object');
  return made;
}

function responsesText(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((b: { type?: string; text?: unknown }) =>
    (b.type === 'input_text' || b.type === 'output_text') && typeof b.text === 'string' ? [b.text] : [],
  );
}

const openAIResponses: Shape = {
  name: 'openai-responses',
  head: [],
  freshHead: [],
  write: (contents) => contents.flatMap(toResponses),
  session: (history) => responsesSession(history.flatMap(toResponses), true),
  unvalidated: (history) => responsesSession(history.flatMap(toResponses), true, false),
  bare: (history) => responsesSession(history.flatMap(toResponses), false),
  messages: (session) => (session as OpenAIResponsesSession).input as AnyMessage[],
  view: (item: Record<string, unknown>) => {
    if (item.type === 'function_call')
      return {
        role: 'model',
        texts: [],
        calls: [{ id: item.call_id as string, name: item.name as string, args: JSON.parse(item.arguments as string) as unknown }],
        results: [],
      };
    if (item.type === 'function_call_output')
      return { role: 'tool', texts: [], calls: [], results: [{ id: item.call_id as string, output: item.output }] };
    const role = item.role === 'assistant' ? 'model' : item.role === 'user' ? 'user' : 'system';
    return { role, texts: responsesText(item.content), calls: [], results: [] };
  },
  setText: (message: { content: string }, text) => {
    message.content = text;
  },
  system: (seed) => (seed as { session: { instructions?: unknown } }).session.instructions,
  systemFor: (text) => text,
  sessionOf: (messages) => responsesSession([...messages], true),
};

/** Every shape, for describe.each: [name, adapter] (the name first, for the title's %s). */
// ---- A made-up sixth shape ---------------------------------------------------------------------

/** Acme's shape (test/fixtures/shapes/acme.ts): Chat Completions' messages under a format of its own, registered as a user would. */
if (findShape(acmeShape.format) === undefined) registerShape(acmeShape);
const asAcme = (session: ParentSession): ParentSession => ({ ...session, format: 'acme-chat' }) as unknown as ParentSession;
const acme: Shape = {
  ...openAIChat,
  name: 'acme-chat',
  session: (history) => asAcme(openAIChat.session(history)),
  unvalidated: (history) => asAcme(openAIChat.unvalidated(history)),
  bare: (history) => asAcme(openAIChat.bare(history)),
  sessionOf: (messages) => asAcme(openAIChat.sessionOf(messages)),
};

export const SHAPES: readonly (readonly [Shape['name'], Shape])[] = [
  gemini,
  openAIChat,
  anthropicMessages,
  aiSdk,
  openAIResponses,
  acme,
].map((shape) => [shape.name, shape] as const);
