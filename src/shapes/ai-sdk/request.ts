import type { SeedBase } from '../seed.js';
import type { AiSdkSession } from './schema.js';

/**
 * A message of the Vercel AI SDK's ModelMessage shape as the engine passes it through: role and
 * content parts, validated by the session schema (AiSdkMessage) and otherwise never looked into.
 */
export interface AiSdkMessageLike {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | readonly Readonly<Record<string, unknown>>[];
  providerOptions?: unknown;
}

/**
 * One AI SDK call: the parent's own call settings (system, tools as JSON schemas, providerOptions,
 * sampling, in its key order) with a fork's messages; the AI SDK provider package renders the bytes.
 */
export interface AiSdkRequest {
  format: 'ai-sdk';
  body: Readonly<Record<string, unknown>> & { readonly model: string; readonly messages: readonly AiSdkMessageLike[] };
}

/**
 * The pieces of a fork's first model request, for an AI SDK session: `contents` are its messages
 * (the session's leading system messages first); the system prompt, tools, providerOptions and
 * settings are the session's own (`session`, in its key order; a private deep copy unless `copy`
 * is false). A fresh fork of a session without a system prompt gets the fork's own in `session.system`.
 */
export interface AiSdkForkSeed extends SeedBase<AiSdkMessageLike> {
  format: 'ai-sdk';
  session: Readonly<AiSdkSession>;
}
