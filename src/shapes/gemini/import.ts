import { InputError } from '../../input/errors.js';
import { isRecord } from '../../input/json.js';
import { withoutNullFields } from '../api-fields.js';
import type { DroppedRecord, RequestClaim, RequestIntake, RequestRead } from '../intake.js';
import { SESSION_KEYS } from './schema.js';

/*
 * A generateContent request body as Gemini's REST API takes it (`{ contents, systemInstruction?,
 * tools?, toolConfig?, generationConfig?, … }`, a `model` beside it when the log records one), read
 * as a session in Gemini's shape: its `contents` are the session's `history`, the fields a session
 * holds are kept as they are (the history last, as forkpool writes a session), null fields are
 * absent, and fields that steer one request (`safetySettings`, `cachedContent`, `labels`, …) are
 * left out and listed. An object with a "contents" array is Gemini's (distinctive); a role other
 * than user and model is foreign. (An array of Contents alone is a Gemini CLI checkpoint: src/import.)
 */

export const geminiIntake: RequestIntake = {
  claim,
  read: readGemini,
  looks: 'a generateContent request body { "contents", … }',
  defaultModel: 'gemini-2.5-flash',
};

const KEPT = new Set(SESSION_KEYS.filter((key) => key !== 'format' && key !== 'history'));

const REASONS: Record<string, string> = {
  cachedContent: "an explicit cache of one request: forkpool makes a fork's own (--cache explicit)",
  safetySettings: 'a setting of one request, not part of the conversation',
  labels: "the caller's tags for one request, not part of the conversation",
  config:
    "the @google/genai SDK's call settings: a session keeps systemInstruction, tools, toolConfig and generationConfig at the top level",
};

function claim(json: unknown): RequestClaim | undefined {
  if (!isRecord(json) || !Array.isArray(json.contents)) return undefined;
  const foreign = json.contents.some(
    (content) => isRecord(content) && content.role !== undefined && content.role !== 'user' && content.role !== 'model',
  );
  return { distinctive: true, foreign };
}

function readGemini(json: unknown, file: string | undefined): RequestRead {
  if (!isRecord(json))
    throw new InputError({ ...(file === undefined ? {} : { file }), rule: 'a Gemini request body is a JSON object ({ "contents", … })' });
  const dropped: DroppedRecord[] = [];
  const session: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(withoutNullFields(json, dropped))) {
    if (key === 'contents' || key === 'format') continue;
    if (KEPT.has(key)) session[key] = value;
    else dropped.push({ path: key, what: 'a request field', reason: REASONS[key] ?? 'not a field a session holds' });
  }
  const contents = json.contents;
  if (!Array.isArray(contents))
    throw new InputError({
      ...(file === undefined ? {} : { file }),
      path: 'contents',
      rule: 'must be an array of Contents (the conversation)',
    });
  session.history = contents;
  const model = typeof session.model === 'string' && session.model !== '' ? { name: session.model, from: 'file' as const } : undefined;
  return {
    session,
    kind: 'a Gemini generateContent request body',
    ...(model ? { model } : {}),
    dropped,
    // The history is the body's contents, unchanged: a path inside one is the same path in the source.
    origins: contents.map((_, i) => ({ path: `contents[${i}]`, exact: true })),
    notes: [],
  };
}
