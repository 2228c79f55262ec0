import { z } from 'zod';
import type { AiSdkSession } from './ai-sdk-schema.js';
import type { AnthropicMessagesSession } from './anthropic-messages-schema.js';
import type { OpenAIChatSession } from './openai-chat-schema.js';
import type { OpenAIResponsesSession } from './openai-responses-schema.js';
import { toolEntryRule } from './tool-allowlist.js';
import { JsonObjectSchema, nonEmpty, positiveInteger } from './rules.js';

/*
 * The parent session and task lines, in Gemini's native shapes (@google/genai).
 * Messages here are the rule a user broke, in plain words; the loader prefixes file, line and path.
 * Parts and tool objects are loose: kinds we do not know (inlineData, thoughtSignature, …) are
 * kept as the session has them and handed to the SDK, which sends the part fields it knows.
 * Validation only: the session's own objects are what is frozen and sent (zod's output rebuilds
 * known keys in schema order, which would change the bytes).
 */

const FunctionCallSchema = z.looseObject({
  id: z.string().optional(),
  name: nonEmpty('a function name'),
  args: JsonObjectSchema.optional(),
});

const FunctionResponseSchema = z.looseObject({
  id: z.string().optional(),
  name: nonEmpty('a function name'),
  response: JsonObjectSchema,
});

const KNOWN_PART_KINDS = ['text', 'functionCall', 'functionResponse'] as const;

const PartSchema = z
  .looseObject({
    text: z.string().optional(),
    functionCall: FunctionCallSchema.optional(),
    functionResponse: FunctionResponseSchema.optional(),
  })
  .check((ctx) => {
    const kinds = KNOWN_PART_KINDS.filter((k) => ctx.value[k] !== undefined);
    if (kinds.length > 1) {
      ctx.issues.push({
        code: 'custom',
        input: ctx.value,
        message: `a part holds one kind of data, but this one holds ${kinds.join(' and ')}`,
      });
    } else if (Object.keys(ctx.value).length === 0) {
      ctx.issues.push({ code: 'custom', input: ctx.value, message: 'a part must not be empty' });
    }
  });

const ContentSchema = z.looseObject({
  role: z.enum(['user', 'model'], { error: 'must be "user" or "model"' }),
  parts: z.array(PartSchema).min(1, { error: 'a message must hold at least one part' }),
});

const SystemInstructionSchema = z.looseObject({
  role: z.string().optional(),
  parts: z.array(PartSchema).min(1, { error: 'a system instruction must hold at least one part' }),
});

const FunctionDeclarationSchema = z.looseObject({
  name: nonEmpty('a function name'),
  description: z.string().optional(),
});

const GeminiToolSchema = z.looseObject({
  functionDeclarations: z.array(FunctionDeclarationSchema).optional(),
});

const SESSION_KEYS = ['format', 'model', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig', 'history'];

/** Common mistakes get a hint; anything else gets the list of fields we forward. */
const SESSION_KEY_HINTS: Record<string, string> = {
  contents: 'is not a session field: the conversation goes in "history"',
  systemPrompt: 'is not a session field: use "systemInstruction" ({ "parts": [{ "text": … }] })',
  config: 'is not a session field: sampling settings go in "generationConfig"',
};

function unknownKeysRule(keys: readonly string[], what: string, allowed: readonly string[], why: string): string {
  const list = keys.map((k) => JSON.stringify(k)).join(', ');
  const subject = keys.length === 1 ? `is not a ${what} field` : `${list} are not ${what} fields`;
  return `${subject} (allowed: ${allowed.join(', ')}); ${why}`;
}

/** A session in Gemini's shape: the default when a session names no `format`. */
export const GeminiSessionSchema = z
  .strictObject(
    {
      format: z.literal('gemini', { error: 'must be "gemini" here' }).optional(),
      model: nonEmpty('the model name'),
      systemInstruction: SystemInstructionSchema.optional(),
      tools: z.array(GeminiToolSchema).optional(),
      toolConfig: z.looseObject({}).optional(),
      generationConfig: z.looseObject({}).optional(),
      history: z.array(ContentSchema, { error: 'must be an array of messages ({ "role", "parts" })' }),
    },
    {
      error: (iss) => {
        if (iss.code !== 'unrecognized_keys') return undefined;
        const hint = iss.keys.length === 1 ? SESSION_KEY_HINTS[iss.keys[0] ?? ''] : undefined;
        return hint ?? unknownKeysRule(iss.keys, 'session', SESSION_KEYS, 'it would not be forwarded to the model');
      },
    },
  )
  .check((ctx) => {
    // Gemini rejects a request that declares one function twice; say so before any fork runs.
    const seen = new Set<string>();
    ctx.value.tools?.forEach((tool, t) => {
      tool.functionDeclarations?.forEach((decl, d) => {
        if (seen.has(decl.name)) {
          ctx.issues.push({
            code: 'custom',
            input: decl.name,
            path: ['tools', t, 'functionDeclarations', d, 'name'],
            message: `the function "${decl.name}" is declared twice`,
          });
        }
        seen.add(decl.name);
      });
    });
  });

const TASK_KEYS = ['id', 'directive', 'subagentType', 'history', 'forkTurns', 'tools', 'outputSchema', 'maxTurns', 'maxTokens'];

/** Keys that would change the cache-safe prefix: a fork never changes them. */
const TASK_KEY_HINTS: Record<string, string> = {
  model:
    'a fork cannot change the model: every fork uses the parent session\'s model, because another model cannot read this model\'s prompt cache',
  systemInstruction: 'a fork cannot change the system instruction: it is part of the shared, cached prefix',
  generationConfig:
    'a fork cannot change generationConfig: sampling settings are part of the shared, cached prefix (use "outputSchema" to ask for a shaped answer)',
  toolConfig: 'a fork cannot change toolConfig: it is part of the shared, cached prefix (use "tools" to restrict what a fork may execute)',
  seed: 'is now called "history" ("inherit" or "completed-turns")',
};

/** One `tools` entry: an exact name or one of the reference's MCP forms, as the agent tool's fork_tools. */
const ToolNameSchema = z.string().check((ctx) => {
  const rule = toolEntryRule(ctx.value, 'tools');
  if (rule) ctx.issues.push({ code: 'custom', input: ctx.value, message: rule });
});

const ForkTurnsSchema = z.custom<'all' | number>(
  (v) => v === 'all' || (typeof v === 'number' && Number.isSafeInteger(v) && v > 0),
  { error: 'must be "all" or a positive integer' },
);

const SUBAGENT_TYPES = ['fork', 'general-purpose'] as const;

export const ForkTaskSchema = z.strictObject(
  {
    id: nonEmpty('a task id'),
    directive: z.string().refine((s) => s.trim().length > 0, { error: 'the directive must not be empty' }),
    /**
     * "fork" (default): inherits the conversation. "general-purpose": a fresh sub-agent with the
     * parent's system instruction and tools (still cacheable) and the directive as its first message.
     */
    subagentType: z.enum(SUBAGENT_TYPES, { error: 'must be "fork" or "general-purpose"' }).optional(),
    /** Which history a fork starts from (it was called `seed`, which read like a random seed). */
    history: z.enum(['inherit', 'completed-turns'], { error: 'must be "inherit" or "completed-turns"' }).optional(),
    forkTurns: ForkTurnsSchema.optional(),
    tools: z.array(ToolNameSchema, { error: 'must be an array of tool names or MCP patterns' }).optional(),
    outputSchema: z
      .record(z.string(), z.unknown(), { error: 'must be a JSON Schema object' })
      .refine((s) => s.type === undefined || typeof s.type === 'string' || Array.isArray(s.type), {
        error: 'must be a JSON Schema object ("type" must be a string or an array of strings)',
      })
      .optional(),
    maxTurns: positiveInteger.optional(),
    /** This fork's token budget (prompt + output tokens over its calls); overrides the engine's maxTokensPerFork. */
    maxTokens: positiveInteger.optional(),
  },
  {
    error: (iss) => {
      if (iss.code !== 'unrecognized_keys') return undefined;
      const hint = iss.keys.length === 1 ? TASK_KEY_HINTS[iss.keys[0] ?? ''] : undefined;
      return hint ?? unknownKeysRule(iss.keys, 'task', TASK_KEYS, 'a fork task takes only these');
    },
  },
).check((ctx) => {
  if (ctx.value.subagentType !== 'general-purpose') return;
  for (const key of ['history', 'forkTurns'] as const) {
    if (ctx.value[key] !== undefined) {
      ctx.issues.push({
        code: 'custom',
        input: ctx.value[key],
        path: [key],
        message: 'only a fork inherits history: a "general-purpose" sub-agent starts from its directive alone',
      });
    }
  }
});

export type Part = z.output<typeof PartSchema>;
export type Content = z.output<typeof ContentSchema>;
export type SystemInstruction = z.output<typeof SystemInstructionSchema>;
export type GeminiTool = z.output<typeof GeminiToolSchema>;
export type GeminiSession = z.output<typeof GeminiSessionSchema>;
/**
 * A parent session in the shape of the API it was sent to: Gemini's (no `format`, or "gemini"),
 * OpenAI Chat Completions' ("openai-chat"), Anthropic Messages' ("anthropic-messages"), or the
 * Vercel AI SDK's ModelMessage shape ("ai-sdk").
 */
export type ParentSession = GeminiSession | OpenAIChatSession | OpenAIResponsesSession | AnthropicMessagesSession | AiSdkSession;
/** The shapes a session can have: its `format`. */
export type SessionFormat = 'gemini' | 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'ai-sdk';

/** Each shape in words, for messages that name a session's shape. */
export const SHAPE_NAMES: Readonly<Record<SessionFormat, string>> = {
  gemini: "Gemini's shape",
  'openai-chat': 'OpenAI Chat Completions\' shape ("format": "openai-chat")',
  'openai-responses': 'OpenAI Responses\' shape ("format": "openai-responses")',
  'anthropic-messages': 'Anthropic Messages\' shape ("format": "anthropic-messages")',
  'ai-sdk': 'the Vercel AI SDK\'s shape ("format": "ai-sdk")',
};

/** A session's format: Gemini's unless it says otherwise. */
export function sessionFormat(session: Readonly<ParentSession>): SessionFormat {
  return session.format === 'openai-chat' || session.format === 'openai-responses' || session.format === 'anthropic-messages' || session.format === 'ai-sdk' ? session.format : 'gemini';
}

/** A session's messages, whatever its shape (Gemini calls them its history). */
export function sessionMessages(session: Readonly<ParentSession>): readonly unknown[] {
  // A string input is the one user message the API reads it as.
  if (session.format === 'openai-responses') return typeof session.input === 'string' ? [{ role: 'user', content: session.input }] : session.input;
  return session.format === 'openai-chat' || session.format === 'anthropic-messages' || session.format === 'ai-sdk' ? session.messages : session.history;
}
export type ForkTask = z.output<typeof ForkTaskSchema>;
export type HistoryMode = NonNullable<ForkTask['history']>;
export type ForkTurns = 'all' | number;
export type SubagentType = (typeof SUBAGENT_TYPES)[number];
