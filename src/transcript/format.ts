import { z } from 'zod';
import { ForkTaskSchema } from '../session/schema.js';
import { findShape, formatList } from '../shapes/registry.js';

/*
 * A task's transcript: JSON Lines, written as the fork goes, never the whole request again. The
 * frozen prefix is named by its id; each `message` line is one message of the fork's own, in the
 * session's shape, as it was sent or received (byte for byte: a resumed or revived fork sends
 * these very objects again, so the provider's cache is warm for them).
 *
 *   header   the task, its prefix and shape (once, first)
 *   seed     how the fork was seeded: how many of the parent's messages it inherits as they are
 *   message  'seed': a message the seeding added (child message, placeholders); 'model': the
 *            model's reply, with its call's usage; 'tool': the answer to a turn's calls (`part` of
 *            `parts`: a turn is complete once all are written); 'user': a text the loop added (a
 *            message from the parent, a request to fix the output's format)
 *   resumed  the fork continues here: after a crash (`--resume`) or revived by a message
 *   end      how this stretch ended
 *
 * A reader takes the lines it knows: a line of a later version's kind is skipped, not an error.
 */

export const TRANSCRIPT_VERSION = 1;

const Usage = z.object({
  promptTokens: z.number(),
  cachedTokens: z.number().nullable(),
  outputTokens: z.number(),
  cacheWriteTokens: z.number().optional(),
  cacheWrite1hTokens: z.number().optional(),
  responseId: z.string().optional(),
});

const TranscriptHeaderSchema = z.object({
  type: z.literal('header'),
  version: z.literal(TRANSCRIPT_VERSION),
  taskId: z.string(),
  prefixId: z.string(),
  /** The session's shape: a registered one's format (a transcript of a shape this process does not know cannot be read back). */
  format: z.string().refine((format) => findShape(format) !== undefined, {
    error: (iss) => `must be a session format: ${formatList()}, not ${JSON.stringify(iss.input)}`,
  }),
  task: ForkTaskSchema,
  at: z.string(),
});

const TranscriptSeedSchema = z.object({
  type: z.literal('seed'),
  /** The parent's messages the fork sends as they are, before its own (after `trimmed` left out). */
  inherited: z.number().int().nonnegative(),
  /** Leading parent messages left out by forkTurns. */
  trimmed: z.number().int().nonnegative(),
  seedCase: z.string(),
});

const TranscriptMessageSchema = z.object({
  type: z.literal('message'),
  /** The model turn it belongs to (0: the seed). */
  turn: z.number().int().nonnegative(),
  role: z.enum(['seed', 'model', 'tool', 'user']),
  message: z.unknown(),
  /** A model message: its call's usage and response id. */
  usage: Usage.optional(),
  /** A tool answer of several messages: which one this is (1-based), and how many there are. */
  part: z.number().int().positive().optional(),
  parts: z.number().int().positive().optional(),
});

const TranscriptResumedSchema = z.object({
  type: z.literal('resumed'),
  /** 'crash': a run resumed it from its last completed turn; 'message': the parent's message revived it once it had ended. */
  from: z.enum(['crash', 'message']),
  at: z.string(),
});

const TranscriptEndSchema = z.object({
  type: z.literal('end'),
  status: z.enum(['completed', 'failed', 'cancelled']),
  turns: z.number().int().nonnegative(),
  error: z.object({ kind: z.string(), message: z.string() }).optional(),
  at: z.string(),
});

export const TranscriptLineSchema = z.discriminatedUnion('type', [
  TranscriptHeaderSchema,
  TranscriptSeedSchema,
  TranscriptMessageSchema,
  TranscriptResumedSchema,
  TranscriptEndSchema,
]);

export type TranscriptHeader = z.output<typeof TranscriptHeaderSchema>;
type TranscriptSeed = z.output<typeof TranscriptSeedSchema>;
type TranscriptMessage = z.output<typeof TranscriptMessageSchema>;
export type TranscriptLine = z.output<typeof TranscriptLineSchema>;
export type TranscriptUsage = z.output<typeof Usage>;

/** What a worker reports of its fork's conversation for the transcript (the main thread writes it). */
export type TranscriptEntry = TranscriptSeed | TranscriptMessage | z.output<typeof TranscriptResumedSchema>;
