import { ANTHROPIC_MISS_REASONS, type AnthropicMissReason, type ResponseDiagnostics } from './types.js';
import { isRecord } from '../input/json.js';

/*
 * Anthropic's cache diagnostics, the client's side
 * (https://platform.claude.com/docs/en/build-with-claude/cache-diagnostics, GA; read 2026-09).
 * - Opt-in per request: "For each request that includes the `diagnostics` object, the API stores a
 *   lightweight fingerprint keyed by the response `id`. It stores nothing for requests that omit
 *   the object." "On the first turn, pass `"previous_message_id": null` to opt in without a prior
 *   message to compare against."
 * - No header: "The `cache-diagnosis-2026-04-07` beta header is no longer required".
 * - The answer rides on the Message ("In streaming responses, `diagnostics` appears on the
 *   `message_start` event"): `null` when "a comparison ran and found no divergence" (or nothing was
 *   named), `{"cache_miss_reason": null}` while "still running" ("Treat it as inconclusive"), else
 *   a reason. "Diagnostics never blocks or fails your request."
 */

/** The `diagnostics` request field: the response named, or null (opt in, nothing to compare). */
export function diagnosticsParam(previousResponseId: string | null): { previous_message_id: string | null } {
  return { previous_message_id: previousResponseId };
}

/**
 * The verdict on a response's `diagnostics` (`field`: its value, from `message_start`'s message),
 * for a call that named `previousResponseId`: nothing while the comparison is pending, or when the
 * response has no such field (a server that does not implement it: silence is not a match) or
 * something that is not one.
 */
export function readDiagnosis(
  previousResponseId: string,
  field: { value: unknown } | undefined,
): Pick<ResponseDiagnostics, 'diagnosedAgainst' | 'cacheMiss'> {
  if (field === undefined) return {};
  const diagnostics = field.value;
  if (diagnostics === null) return { diagnosedAgainst: previousResponseId };
  if (!isRecord(diagnostics) || !isRecord(diagnostics.cache_miss_reason)) return {};
  const reason = diagnostics.cache_miss_reason;
  if (typeof reason.type !== 'string') return {};
  const missed = reason.cache_missed_input_tokens;
  return {
    diagnosedAgainst: previousResponseId,
    cacheMiss: {
      reason: knownReason(reason.type),
      ...(typeof missed === 'number' && Number.isSafeInteger(missed) && missed >= 0 ? { missedTokens: missed } : {}),
    },
  };
}

/** A type this client does not know yet (the union may grow) is "Diagnostic information was not available": not a match. */
function knownReason(type: string): AnthropicMissReason {
  return (ANTHROPIC_MISS_REASONS as readonly string[]).includes(type) ? (type as AnthropicMissReason) : 'unavailable';
}
