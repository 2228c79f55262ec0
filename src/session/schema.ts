import { z } from 'zod';
import { toolEntryRule } from './tool-allowlist.js';
import { nonEmpty, positiveInteger, unknownKeysRule } from '../input/rules.js';

const TASK_KEYS = ['id', 'directive', 'subagentType', 'history', 'forkTurns', 'tools', 'outputSchema', 'maxTurns', 'maxTokens'];

/** Keys that would change the cache-safe prefix: a fork never changes them. */
const TASK_KEY_HINTS: Record<string, string> = {
  model:
    "a fork cannot change the model: every fork uses the parent session's model, because another model cannot read this model's prompt cache",
  systemInstruction: 'a fork cannot change the system instruction: it is part of the shared, cached prefix',
  generationConfig:
    'a fork cannot change generationConfig: sampling settings are part of the shared, cached prefix (use "outputSchema" to ask for a shaped answer)',
  toolConfig: 'a fork cannot change toolConfig: it is part of the shared, cached prefix (use "tools" to restrict what a fork may execute)',
};

/** One `tools` entry: an exact name or one of the reference's MCP forms, as the agent tool's fork_tools. */
const ToolNameSchema = z.string().check((ctx) => {
  const rule = toolEntryRule(ctx.value, 'tools');
  if (rule) ctx.issues.push({ code: 'custom', input: ctx.value, message: rule });
});

const ForkTurnsSchema = z.custom<'all' | number>((v) => v === 'all' || (typeof v === 'number' && Number.isSafeInteger(v) && v > 0), {
  error: 'must be "all" or a positive integer',
});

const SUBAGENT_TYPES = ['fork', 'general-purpose'] as const;

export const ForkTaskSchema = z
  .strictObject(
    {
      id: nonEmpty('a task id'),
      directive: z.string().refine((s) => s.trim().length > 0, { error: 'the directive must not be empty' }),
      /**
       * "fork" (default): inherits the conversation. "general-purpose": a fresh sub-agent with the
       * parent's system instruction and tools (still cacheable) and the directive as its first message.
       */
      subagentType: z.enum(SUBAGENT_TYPES, { error: 'must be "fork" or "general-purpose"' }).optional(),
      /** Which history a fork starts from. */
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
  )
  .check((ctx) => {
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

export type ForkTask = z.output<typeof ForkTaskSchema>;
export type HistoryMode = NonNullable<ForkTask['history']>;
export type ForkTurns = 'all' | number;
export type SubagentType = (typeof SUBAGENT_TYPES)[number];
