import { decodeUtf8, limitOf, readInputFile, type ReadLimits } from '../session/read.js';
import { stripBom } from '../session/load.js';
import { parseSession } from '../session/parse.js';
import type { ParentSession } from '../shapes/registry.js';
import type { ImportOptions, ImportResult, ImportSummary } from './index.js';

/*
 * Reading a session file, whatever wrote it: above both the session floor (forkpool's own shapes)
 * and the importers (other agents' formats), so that neither floor reaches up.
 */

export interface LoadSessionOptions extends ReadLimits, ImportOptions {
  /** Called with the import's summary when the file is another agent's transcript, not forkpool's own session. */
  onImport?: (summary: ImportSummary) => void;
}

/**
 * Reads a session file: a regular file of at most `limits.maxBytes` (default 256 MiB), strict
 * UTF-8 (a byte-order mark is allowed): forkpool's own session (one JSON object), or another
 * agent's transcript that `importSession` recognizes (or `options.format` names).
 */
export async function loadSession(path: string, options?: LoadSessionOptions): Promise<ParentSession> {
  const result = await importSession(path, options);
  if (result.summary.format !== 'forkpool') options?.onImport?.(result.summary);
  return result.session;
}

/**
 * Reads a file as a session, whatever wrote it (src/import/): forkpool's own formats pass through;
 * Gemini CLI, Qwen Code and Claude Code transcripts and OpenAI / Anthropic requests are converted
 * to a session in their own shape. The result is validated; an error in a converted message names
 * the source's line and field.
 */
export async function importSession(path: string, options: ReadLimits & ImportOptions = {}): Promise<ImportResult> {
  const bytes = await readInputFile(path, limitOf(options));
  const text = decodeUtf8(bytes, path);
  // Loaded when a session is read (main thread), so workers that only parse prefixes never load the importers.
  const { importTranscript, relocate } = await import('./index.js');
  const result = importTranscript(stripBom(text), path, options);
  try {
    parseSession(result.session, path);
  } catch (err) {
    throw result.summary.format === 'forkpool' ? err : relocate(err, result.origins, path);
  }
  return result;
}
