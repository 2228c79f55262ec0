import { syntheticPrefixLength } from '../fork/synthetic.js';
import type { AnyMessage } from '../shapes/index.js';
import { estimateTokens } from '../prefix/tokens.js';
import { loadingOf } from '../shapes/loading.js';
import { findShape, shapeNamed, shapeOf, type ParentSession, type SessionFormat } from '../shapes/registry.js';
import type { Tool } from '../tools/define.js';
import { importClaudeCode } from './claude-code.js';
import { detect } from './detect.js';
import { importGeminiCheckpoint, importGeminiRecording, importGeminiRecordingJsonl } from './gemini-cli.js';
import { importQwenCode } from './qwen-code.js';
import { leftOutShare, type Converted, type ImportFormat, type ImportSummary, type MessageOrigin, type ModelSource } from './summary.js';
import { relocate } from './relocate.js';
import { messagesOf, settleTools } from './tools.js';
import { convertSession } from '../convert/index.js';

/*
 * Reading other agents' transcripts into forkpool sessions: Gemini CLI, Qwen Code and Claude Code,
 * every shape's logged requests (each shape's intake facet reads its own), and forkpool's own
 * files (passed through, never reinterpreted). The result is a session in the source's own shape, not yet validated:
 * loadSession / importSession (load.ts) validate it. Rules: detect.ts and each format's file.
 */

export {
  importFormats,
  importFormatsHelp,
  formatImportSummary,
  importNotice,
  isImportFormat,
  type DroppedRecord,
  type ImportFormat,
  type ImportSummary,
  type MessageOrigin,
} from './summary.js';
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

const FORMAT_KIND = "forkpool's own session file";

/** Reads a file's text (UTF-8, byte-order mark removed) as a session. Throws InputError on a bad file. */
export function importTranscript(text: string, source: string | undefined, options: ImportOptions = {}): ImportResult {
  const detected = detect(text, source, options.format);
  const format = detected.format as ImportFormat;
  if (detected.format === 'forkpool') {
    const session = detected.json as Record<string, unknown>;
    if (options.model !== undefined && session !== null && typeof session === 'object') session.model = options.model;
    return { session: session as unknown as ParentSession, summary: forkpoolSummary(session, source, options.model), origins: [] };
  }
  const converted = convert(detected, source);
  const { name, from } = settleModel(converted, options.model);
  const session = withModel(converted, name);
  // A logged request is its shape's session once read: its schema, and no rules of the importer's
  // own, decides what is wrong in it (named at the body's path), before anything looks inside.
  if (detected.shape !== undefined) {
    try {
      loadingOf(detected.shape).parse(session, source);
    } catch (err) {
      throw relocate(err, converted.origins, source);
    }
  }
  const tools = settleTools(session, format, options.tools);
  const { ordered, shape, origins, dropped, notes } = routed(inKeyOrder(session), converted, source);
  const messages = messagesOf(ordered) as AnyMessage[];
  const startupContext = syntheticPrefixLength(messages);
  const withCompacted = syntheticPrefixLength(messages, { includeCompacted: true });
  const summary: ImportSummary = {
    ...(source === undefined ? {} : { source }),
    format,
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
    result = convertSession(session as unknown as ParentSession, converted.convertTo.to, {
      dropUnsupported: true,
      ...(source === undefined ? {} : { source }),
    });
  } catch (err) {
    throw relocate(err, converted.origins, source);
  }
  const api = converted.convertTo.api;
  const dropped = [
    ...converted.dropped,
    ...result.dropped.map((item) => ({
      ...inSource(item.path, converted.origins),
      what: item.what,
      reason: `has no counterpart in ${api}, or ${api} refuses it (the session was converted to ${result.to})`,
    })),
  ];
  // Converted messages no longer map one to one onto the source's records: the conversion validated them.
  return {
    ordered: result.session as unknown as Record<string, unknown>,
    shape: result.to,
    origins: [],
    dropped,
    notes: [...converted.notes, ...result.notes],
  };
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
  if (detected.shape !== undefined)
    return { ...loadingOf(detected.shape).intake.read(detected.json, source), shape: detected.shape.format as SessionFormat };
  const json = detected.json;
  return json !== null && typeof json === 'object' && !Array.isArray(json) && 'messages' in json
    ? importGeminiRecording(json as Record<string, unknown>, source)
    : importGeminiCheckpoint(json, source);
}

function settleModel(converted: Converted, option: string | undefined): { name: string; from: ModelSource } {
  if (option !== undefined) return { name: option, from: 'option' };
  if (converted.model) return converted.model;
  return { name: loadingOf(shapeNamed(converted.convertTo?.to ?? converted.shape)).intake.defaultModel, from: 'default' };
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

/**
 * A session of the default shape (which names no format) reads `model, systemInstruction, tools,
 * …, history`, as forkpool writes one: its conversation last, after the model withModel put first.
 */
function inKeyOrder(session: Record<string, unknown>): Record<string, unknown> {
  if ('format' in session) return session;
  const field = shapeOf(session).conversationField;
  const { [field]: conversation, ...rest } = session;
  return { ...rest, [field]: conversation };
}

function forkpoolSummary(session: Record<string, unknown>, source: string | undefined, model: string | undefined): ImportSummary {
  const format = session?.format;
  const shape = (typeof format === 'string' ? (findShape(format) ?? shapeOf({})) : shapeOf({})).format as SessionFormat;
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
