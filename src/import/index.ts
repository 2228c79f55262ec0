import { syntheticPrefixLength } from '../fork/synthetic.js';
import type { AnyMessage } from '../shapes/index.js';
import { estimateTokens } from '../prefix/tokens.js';
import type { ParentSession, SessionFormat } from '../shapes/registry.js';
import type { Tool } from '../tools/define.js';
import { importAnthropicMessages } from './anthropic-messages.js';
import { importClaudeCode } from './claude-code.js';
import { detect } from './detect.js';
import { importGeminiCheckpoint, importGeminiRecording, importGeminiRecordingJsonl } from './gemini-cli.js';
import { importOpenAIChat } from './openai-chat.js';
import { importOpenAIResponses } from './openai-responses.js';
import { importQwenCode } from './qwen-code.js';
import { leftOutShare, type Converted, type ImportFormat, type ImportSummary, type MessageOrigin, type ModelSource } from './summary.js';
import { relocate } from './relocate.js';
import { messagesOf, settleTools } from './tools.js';
import { convertSession } from '../convert/index.js';

/*
 * Reading other agents' transcripts into forkpool sessions: Gemini CLI, Qwen Code, Claude Code,
 * OpenAI Chat Completions, OpenAI Responses and Anthropic Messages requests, and forkpool's own
 * files (passed through, never reinterpreted). The result is a session in the source's own shape, not yet validated:
 * loadSession / importSession (load.ts) validate it. Rules: detect.ts and each format's file.
 */

export {
  IMPORT_FORMATS,
  formatImportSummary,
  importNotice,
  isImportFormat,
  type DroppedRecord,
  type ImportFormat,
  type ImportSummary,
  type MessageOrigin,
} from './summary.js';
export { WORKSPACE_MAPPINGS } from './tools.js';
export { relocate } from './relocate.js';

export interface ImportOptions {
  /** Read the file as this format instead of recognizing it. */
  format?: ImportFormat;
  /** The model the session runs on (a file that names one keeps its own unless this is given). */
  model?: string;
  /** Tools to declare (`--tools MODULE`). */
  tools?: readonly Tool[];
}

export interface ImportResult {
  session: ParentSession;
  summary: ImportSummary;
  /** Per message of the session, where it came from (an error in it can then name the source's line). */
  origins: readonly (MessageOrigin | undefined)[];
}

/**
 * The model a file that names none runs on: forkpool's default for each API (the one `forkpool
 * prompt` starts an empty Gemini conversation with, and the examples' models for the others).
 */
export const DEFAULT_MODELS: Readonly<Record<SessionFormat, string>> = {
  gemini: 'gemini-2.5-flash',
  'openai-chat': 'gpt-4.1-mini',
  'openai-responses': 'gpt-4.1-mini',
  'anthropic-messages': 'claude-sonnet-4-5',
  'ai-sdk': 'gpt-4.1-mini',
};

const FORMAT_KIND = "forkpool's own session file";

/** Reads a file's text (UTF-8, byte-order mark removed) as a session. Throws InputError on a bad file. */
export function importTranscript(text: string, source: string | undefined, options: ImportOptions = {}): ImportResult {
  const detected = detect(text, source, options.format);
  if (detected.format === 'forkpool') {
    const session = detected.json as Record<string, unknown>;
    if (options.model !== undefined && session !== null && typeof session === 'object') session.model = options.model;
    return { session: session as unknown as ParentSession, summary: forkpoolSummary(session, source, options.model), origins: [] };
  }
  const converted = convert(detected, source);
  const { name, from } = settleModel(converted, options.model);
  const session = withModel(converted, name);
  const tools = settleTools(session, detected.format, options.tools);
  const { ordered, shape, origins, dropped, notes } = routed(inKeyOrder(session, converted.shape), converted, source);
  const messages = messagesOf(ordered) as AnyMessage[];
  const startupContext = syntheticPrefixLength(messages);
  const withCompacted = syntheticPrefixLength(messages, { includeCompacted: true });
  const summary: ImportSummary = {
    ...(source === undefined ? {} : { source }),
    format: detected.format,
    kind: converted.kind,
    shape,
    messages: messages.length,
    tokens: estimateTokens(JSON.stringify(ordered)),
    model: { name, from },
    toolsUsed: tools.toolsUsed,
    declared: tools.declared,
    undeclared: tools.undeclared,
    synthetic: { startupContext, compactedSummary: withCompacted - startupContext },
    dropped,
    ...withLeftOut(leftOutShare(dropped, converted.messageRecords)),
    ...(converted.partialLastLine === undefined ? {} : { partialLastLine: converted.partialLastLine }),
    notes,
  };
  return { session: ordered as unknown as ParentSession, summary, origins };
}

/** The session in the shape of the API its model was reached through (Qwen Code on an OpenAI-compatible server). */
function routed(session: Record<string, unknown>, converted: Converted, source: string | undefined) {
  if (converted.convertTo === undefined) {
    return { ordered: session, shape: converted.shape, origins: converted.origins, dropped: converted.dropped, notes: converted.notes };
  }
  let result: ReturnType<typeof convertSession>;
  try {
    result = convertSession(session as unknown as ParentSession, converted.convertTo, { dropUnsupported: true, ...(source === undefined ? {} : { source }) });
  } catch (err) {
    throw relocate(err, converted.origins, source);
  }
  const api = converted.convertTo === 'openai-chat' ? 'Chat Completions' : 'Anthropic Messages';
  const dropped = [
    ...converted.dropped,
    ...result.dropped.map((item) => ({
      ...inSource(item.path, converted.origins),
      what: item.what,
      reason: `has no counterpart in ${api}, or ${api} refuses it (the session was converted to ${result.to})`,
    })),
  ];
  // Converted messages no longer map one to one onto the source's records: the conversion validated them.
  return { ordered: result.session as unknown as Record<string, unknown>, shape: result.to, origins: [], dropped, notes: [...converted.notes, ...result.notes] };
}

/** A path in the converted history (`history[3].parts[0]`) as the source's line and field, where the history's message came from one. */
function inSource(path: string, origins: readonly (MessageOrigin | undefined)[]): { line?: number; path: string } {
  const match = /^history\[(\d+)\](.*)$/.exec(path);
  const origin = match ? origins[Number(match[1])] : undefined;
  if (!match || origin?.line === undefined) return { path };
  return { line: origin.line, path: origin.exact ? `${origin.path}${match[2]}` : path };
}

const withLeftOut = (leftOut: ImportSummary['leftOut']) => (leftOut === undefined ? {} : { leftOut });

function convert(detected: ReturnType<typeof detect>, source: string | undefined): Converted {
  if (detected.jsonl !== undefined) {
    if (detected.format === 'qwen-code') return importQwenCode(detected.jsonl, source);
    if (detected.format === 'claude-code') return importClaudeCode(detected.jsonl, source);
    return importGeminiRecordingJsonl(detected.jsonl, source);
  }
  const json = detected.json;
  switch (detected.format) {
    case 'gemini-cli':
      return json !== null && typeof json === 'object' && !Array.isArray(json) && 'messages' in json
        ? importGeminiRecording(json as Record<string, unknown>, source)
        : importGeminiCheckpoint(json, source);
    case 'anthropic-messages':
      return importAnthropicMessages(json, source);
    case 'openai-responses':
      return importOpenAIResponses(json, source);
    default:
      return importOpenAIChat(json, source);
  }
}

function settleModel(converted: Converted, option: string | undefined): { name: string; from: ModelSource } {
  if (option !== undefined) return { name: option, from: 'option' };
  if (converted.model) return converted.model;
  return { name: DEFAULT_MODELS[converted.convertTo ?? converted.shape], from: 'default' };
}

/** The model in place when the source had one there (a request body), else first (after `format`). */
function withModel(converted: Converted, model: string): Record<string, unknown> {
  const session = converted.session;
  if ('model' in session) {
    session.model = model;
    return session;
  }
  const { format, ...rest } = session;
  return { ...(format === undefined ? {} : { format }), model, ...rest };
}

/** A Gemini session reads `model, systemInstruction, tools, …, history`, as forkpool writes one. */
function inKeyOrder(session: Record<string, unknown>, shape: SessionFormat): Record<string, unknown> {
  if (shape !== 'gemini') return session;
  const { history, ...rest } = session;
  return { ...rest, history };
}

function forkpoolSummary(session: Record<string, unknown>, source: string | undefined, model: string | undefined): ImportSummary {
  const format = session?.format;
  const shape = typeof format === 'string' && Object.hasOwn(DEFAULT_MODELS, format) ? (format as SessionFormat) : 'gemini';
  const messages = session !== null && typeof session === 'object' ? messagesOf(session) : [];
  return {
    ...(source === undefined ? {} : { source }),
    format: 'forkpool',
    kind: FORMAT_KIND,
    shape,
    messages: messages.length,
    tokens: estimateTokens(JSON.stringify(session) ?? ''),
    model: { name: typeof session?.model === 'string' ? session.model : '', from: model !== undefined ? 'option' : 'file' },
    toolsUsed: [],
    declared: [],
    undeclared: [],
    synthetic: { startupContext: 0, compactedSummary: 0 },
    dropped: [],
    notes: ['passed through unchanged: forkpool never reinterprets its own session files'],
  };
}
