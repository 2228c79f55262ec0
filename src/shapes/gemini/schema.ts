import { z } from 'zod';
import { JsonObjectSchema, nonEmpty, unknownKeysRule } from '../../input/rules.js';

/*
 * A parent session in Gemini's shape (@google/genai), the default when a session names no format.
 * Messages here are the rule a user broke, in plain words; the loader prefixes file, line and path.
 * Parts and tool objects are loose: kinds we do not know (inlineData, thoughtSignature, …) are
 * kept as the session has them and handed to the SDK, which sends the part fields it knows.
 * Validation only: the session's own objects are what is frozen and sent (zod's output rebuilds
 * known keys in schema order, which would change the bytes).
 */

export const SESSION_KEYS = ['format', 'model', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig', 'history'];

/** Common mistakes get a hint; anything else gets the list of fields we forward. */
const SESSION_KEY_HINTS: Record<string, string> = {
  contents: 'is not a session field: the conversation goes in "history"',
  systemPrompt: 'is not a session field: use "systemInstruction" ({ "parts": [{ "text": … }] })',
  config: 'is not a session field: sampling settings go in "generationConfig"',
};

/*
 * The schemas are built on first use, not when the module loads: a process (or a fork's thread)
 * that never checks a session of this shape does not pay for building them.
 */
function build() {
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

  /** A session in Gemini's shape: the default when a session names no `format`. */
  const GeminiSessionSchema = z
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

  return { PartSchema, ContentSchema, SystemInstructionSchema, GeminiToolSchema, GeminiSessionSchema };
}

type Built = ReturnType<typeof build>;
let built: Built | undefined;

/** A session in Gemini's shape: the default when a session names no `format` (built on first use). */
export function geminiSessionSchema(): Built['GeminiSessionSchema'] {
  built ??= build();
  return built.GeminiSessionSchema;
}

export type Part = z.output<Built['PartSchema']>;
export type Content = z.output<Built['ContentSchema']>;
export type SystemInstruction = z.output<Built['SystemInstructionSchema']>;
export type GeminiTool = z.output<Built['GeminiToolSchema']>;
export type GeminiSession = z.output<Built['GeminiSessionSchema']>;
