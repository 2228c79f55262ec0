import { InputError } from '../input/errors.js';
import { parseSession } from '../session/parse.js';
import type { OpenAIChatSession } from '../shapes/openai-chat/schema.js';
import type { OpenAIResponsesSession } from '../shapes/openai-responses/schema.js';
import { sessionFormat, sessionMessages, type ParentSession, type SessionFormat } from '../shapes/registry.js';
import type { GeminiSession } from '../shapes/gemini/schema.js';
import { openAIResponsesToChat } from './from-openai-responses.js';
import { ConversionError, Issues, type DroppedItem } from './issues.js';
import { geminiToAnthropicMessages } from './to-anthropic-messages.js';
import { openAIChatToGemini } from './to-gemini.js';
import { geminiToOpenAIChat } from './to-openai-chat.js';
import { openAIChatToResponses } from './to-openai-responses.js';

/*
 * Converting a session from one API shape to another: Gemini's (no `format`) ⇄ OpenAI Chat
 * Completions' (`"format": "openai-chat"`) ⇄ OpenAI Responses' (`"format": "openai-responses"`),
 * Gemini's ⇄ Responses' through Chat Completions' shape, and Gemini's → Anthropic Messages'
 * (`"format": "anthropic-messages"`). Never done silently: `forkpool convert`, `convertSession`
 * and the Qwen Code importer (a session recorded through another API) are the only ways. The
 * rules are at the top of to-openai-chat.ts, to-gemini.ts, to-openai-responses.ts,
 * from-openai-responses.ts and to-anthropic-messages.ts, and in the README's "Converting sessions".
 */

export { ConversionError, type DroppedItem } from './issues.js';

export interface ConvertOptions {
  /** Leave out what the target shape cannot represent, and list it in `dropped`, instead of throwing. */
  dropUnsupported?: boolean;
  /** The file the session came from: errors then read `file: path: rule`. */
  source?: string;
}

export interface ConversionResult {
  /** A valid session of the target shape (parseSession accepts it); it shares no object with the input. */
  session: ParentSession;
  from: SessionFormat;
  to: SessionFormat;
  /** Messages in the source (history Contents, messages, or input items) and in the result. */
  messages: { from: number; to: number };
  /** Function tools declared in the result. */
  tools: number;
  /** What was left out: thought parts always, unsupported items with `dropUnsupported`. */
  dropped: DroppedItem[];
  /** Facts about the result (a required setting the source had no value for, filled in). */
  notes: string[];
}

const TARGETS: readonly SessionFormat[] = ['gemini', 'openai-chat', 'openai-responses', 'anthropic-messages'];

type Step = (session: ParentSession, issues: Issues) => ParentSession;

/** One converter per pair; a pair of two steps goes through openai-chat (its second step's paths are that session's). */
const STEPS: Partial<Record<`${SessionFormat}>${SessionFormat}`, Step[]>> = {
  'gemini>openai-chat': [(s, i) => geminiToOpenAIChat(s as GeminiSession, i)],
  'gemini>anthropic-messages': [(s, i) => geminiToAnthropicMessages(s as GeminiSession, i)],
  'openai-chat>gemini': [(s, i) => openAIChatToGemini(s as OpenAIChatSession, i)],
  'openai-chat>openai-responses': [(s, i) => openAIChatToResponses(s as OpenAIChatSession, i)],
  'openai-responses>openai-chat': [(s, i) => openAIResponsesToChat(s as OpenAIResponsesSession, i)],
  'gemini>openai-responses': [(s, i) => geminiToOpenAIChat(s as GeminiSession, i), (s, i) => openAIChatToResponses(s as OpenAIChatSession, i)],
  'openai-responses>gemini': [(s, i) => openAIResponsesToChat(s as OpenAIResponsesSession, i), (s, i) => openAIChatToGemini(s as OpenAIChatSession, i)],
};

/**
 * Converts a session to another API shape (Gemini's ⇄ OpenAI Chat Completions' ⇄ OpenAI
 * Responses', Gemini's ⇄ Responses' through Chat Completions', Gemini's → Anthropic Messages';
 * converting an Anthropic Messages or AI SDK session, or an OpenAI one to Anthropic's shape, is a
 * ConversionError). The input is validated first (InputError); an item the target cannot
 * represent throws a ConversionError naming its path (`history[3].parts[1]: inlineData cannot be
 * converted to openai-chat`), unless `dropUnsupported` is set.
 */
export function convertSession(session: ParentSession, to: SessionFormat, options: ConvertOptions = {}): ConversionResult {
  if (!TARGETS.includes(to)) {
    throw new TypeError(`convertSession: "to" must be "gemini", "openai-chat", "openai-responses" or "anthropic-messages", not ${JSON.stringify(to)}`);
  }
  const file = options.source;
  const input = parseSession(session, file);
  const from = sessionFormat(input);
  const steps = STEPS[`${from}>${to}`];
  if (steps === undefined) throw new ConversionError({ ...(file === undefined ? {} : { file }), rule: refusal(from, to) });
  const issues = new Issues(to, options.dropUnsupported === true, file);
  // The second step reads the first's result: its paths are those of the openai-chat session on the way.
  const converted = steps.reduce<ParentSession>((current, step, n) => step(current, n === 0 ? issues : issues.through('openai-chat')), input);
  // Opaque values (args, responses, schemas) were carried over by reference: the result owns its copy.
  const output = structuredClone(converted);
  checkConverted(output, to, file);
  return {
    session: output,
    from,
    to,
    messages: { from: messageCount(input), to: messageCount(output) },
    tools: toolCount(output),
    dropped: issues.dropped,
    notes: issues.notes,
  };
}

/** Why a pair is not converted, and what to do instead. */
function refusal(from: SessionFormat, to: SessionFormat): string {
  if (from === to) return `is already a ${to} session; nothing to convert`;
  if (from === 'ai-sdk') {
    return 'is an ai-sdk session: it runs as it is, through an AI SDK provider (each provider package renders it for its own API); converting it is not supported';
  }
  if (from === 'anthropic-messages') {
    return 'is an anthropic-messages session, and only gemini, openai-chat and openai-responses sessions can be converted (gemini to any other shape, the OpenAI ones to gemini and to each other); run it as it is, with --provider anthropic or local';
  }
  return `is an ${from} session: only a gemini session converts to anthropic-messages (convert it to gemini first, then to anthropic-messages)`;
}

/** A converted session the target's validation refuses: the converter missed a rule. Say where, in the result's terms. */
function checkConverted(session: ParentSession, to: SessionFormat, file: string | undefined): void {
  try {
    parseSession(session);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    const where = err.path ? `${err.path} of the converted session` : 'the converted session';
    throw new ConversionError({ ...(file === undefined ? {} : { file }), rule: `cannot be converted to ${to}: ${where} ${err.rule}` });
  }
}

function messageCount(session: ParentSession): number {
  return sessionMessages(session).length;
}

function toolCount(session: ParentSession): number {
  if (session.format === 'ai-sdk') return Object.keys(session.tools ?? {}).length;
  if (session.format === 'openai-responses') return session.tools?.length ?? 0;
  if ('messages' in session) return session.tools?.length ?? 0;
  return (session.tools ?? []).reduce((n, tool) => n + (tool.functionDeclarations?.length ?? 0), 0);
}
