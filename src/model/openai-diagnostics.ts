import { takesCacheBreakpoints } from '../shapes/openai-breakpoints.js';
import { isRecord } from '../input/json.js';
import { OPENAI_MISS_REASONS, type ResponseDiagnostics } from './types.js';

/*
 * OpenAI's prompt cache diagnostics, the client's side
 * (https://developers.openai.com/api/docs/guides/prompt-caching/diagnostics; read 2026-12):
 * - "Diagnostics are available in the Responses API for GPT-5.6 and later supported models."
 * - The request names a baseline: "Set `comparison_response_id` in `prompt_cache_options` to the ID
 *   of a recent, completed response from the same organization." It "does not load that response's
 *   conversation content or restrict which matching cache the request can use." No opt-in on the
 *   earlier request is needed.
 * - The answer is the Response's `prompt_cache_diagnostics` (in a stream, on response.completed's
 *   response), one of `cache_hit`, `cache_miss` (`reason`, `cache_missed_tokens`,
 *   `comparison_reusable_tokens`), `comparison_response_not_found`, `unavailable` (the API
 *   reference's union; openai 6.49 types neither field, so both are written and read here only).
 */

/** Whether a model answers `prompt_cache_options.comparison_response_id`: GPT-5.6 and later, as take breakpoints. */
const takesCacheDiagnostics = takesCacheBreakpoints;

/**
 * A Responses body naming `named` for comparison, when its model takes it: `prompt_cache_options`
 * keeps the body's own fields (mode, ttl) in their place with `comparison_response_id` set (a
 * parent's own is replaced: the comparison is the fork's); otherwise the body as it is.
 */
export function withComparison<B extends Record<string, unknown>>(body: B, named: string | null | undefined): B {
  if (typeof named !== 'string' || typeof body.model !== 'string' || !takesCacheDiagnostics(body.model)) return body;
  const own = isRecord(body.prompt_cache_options) ? body.prompt_cache_options : {};
  return { ...body, prompt_cache_options: { ...own, comparison_response_id: named } };
}

/**
 * The verdict on a completed response's `prompt_cache_diagnostics` (`response`: the Response as
 * response.completed carried it), for a call that named `named`: nothing when the response has no
 * such field (a model or server without diagnostics: silence is not a match) or something that is
 * not one; a hit is a conclusive comparison without a miss; not found and unavailable are misses of
 * their own name, as Anthropic's previous_message_not_found and unavailable are.
 */
export function readComparison(named: string, response: unknown): Pick<ResponseDiagnostics, 'diagnosedAgainst' | 'cacheMiss'> {
  const diagnostics = isRecord(response) ? response.prompt_cache_diagnostics : undefined;
  if (!isRecord(diagnostics)) return {};
  switch (diagnostics.type) {
    case 'cache_hit':
      return { diagnosedAgainst: named };
    case 'comparison_response_not_found':
    case 'unavailable':
      return { diagnosedAgainst: named, cacheMiss: { reason: diagnostics.type } };
    case 'cache_miss': {
      const missed = diagnostics.cache_missed_tokens;
      return {
        diagnosedAgainst: named,
        cacheMiss: {
          reason: knownReason(diagnostics.reason),
          ...(typeof missed === 'number' && Number.isSafeInteger(missed) && missed >= 0 ? { missedTokens: missed } : {}),
        },
      };
    }
    default:
      return {};
  }
}

/** A reason this client does not know yet (the enum may grow) is one it cannot name: unavailable. */
function knownReason(reason: unknown): (typeof OPENAI_MISS_REASONS)[number] {
  const known = OPENAI_MISS_REASONS.find((r) => r === reason && r !== 'comparison_response_not_found');
  return known ?? 'unavailable';
}
