/*
 * Why a model stopped, in one vocabulary across providers, beside the provider's own word. A reply
 * that ends `length`, `content_filter`, `refusal` or `error` is not a whole answer: its text is kept,
 * and the fork's result says it was cut (results.ts answerCut).
 */

export type FinishReason =
  /** A whole answer: the model ended its turn (or hit a stop sequence). */
  | 'stop'
  /** The model asked for tools. */
  | 'tool_calls'
  /** The output limit (or the context window) cut the reply. */
  | 'length'
  /** A provider's safety or recitation filter stopped or blanked the reply. */
  | 'content_filter'
  /** The model declined to answer. */
  | 'refusal'
  /** The provider stopped the reply on its side (e.g. DeepSeek's `insufficient_system_resource`, Gemini's malformed call). */
  | 'error'
  /** A word this table does not know, or a pause: kept as the provider said it. */
  | 'other';

export interface Finish {
  reason: FinishReason;
  /** The provider's own word (`end_turn`, `MAX_TOKENS`, `insufficient_system_resource`, …). */
  raw: string;
}

export const FINISH_REASONS: ReadonlySet<string> = new Set<FinishReason>([
  'stop',
  'tool_calls',
  'length',
  'content_filter',
  'refusal',
  'error',
  'other',
]);

/** Reasons that leave a reply short of a whole answer. */
const CUT: ReadonlySet<FinishReason> = new Set(['length', 'content_filter', 'refusal', 'error']);

export function isCut(finish: Finish | undefined): boolean {
  return finish !== undefined && CUT.has(finish.reason);
}

/**
 * Each provider's words, by the APIs' references: Gemini's FinishReason enum, Chat Completions'
 * `finish_reason` (DeepSeek's `insufficient_system_resource` among them), Anthropic's `stop_reason`,
 * the Responses API's `status` and `incomplete_details.reason`, the AI SDK's unified reason.
 */
const WORDS: Readonly<Record<string, FinishReason>> = {
  stop: 'stop',
  end_turn: 'stop',
  stop_sequence: 'stop',
  completed: 'stop',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  tool_use: 'tool_calls',
  'tool-calls': 'tool_calls',
  length: 'length',
  max_tokens: 'length',
  max_output_tokens: 'length',
  model_context_window_exceeded: 'length',
  content_filter: 'content_filter',
  'content-filter': 'content_filter',
  safety: 'content_filter',
  recitation: 'content_filter',
  blocklist: 'content_filter',
  prohibited_content: 'content_filter',
  spii: 'content_filter',
  image_safety: 'content_filter',
  image_prohibited_content: 'content_filter',
  refusal: 'refusal',
  insufficient_system_resource: 'error',
  malformed_function_call: 'error',
  unexpected_tool_call: 'error',
  error: 'error',
  failed: 'error',
};

/**
 * A provider's finish word in forkpool's terms. `calls`: the reply asks for tools (Gemini and the
 * Responses API say `STOP`/`completed` then); `refused`: the reply holds the provider's refusal
 * field or part (OpenAI's), whatever the word.
 */
export function finishOf(raw: string, facts: { calls?: boolean; refused?: boolean } = {}): Finish {
  let reason = WORDS[raw.toLowerCase()] ?? 'other';
  if (facts.refused === true && (reason === 'stop' || reason === 'other')) reason = 'refusal';
  else if (facts.calls === true && reason === 'stop') reason = 'tool_calls';
  return { reason, raw };
}

/** What a cut reply is, in words (`2 answers cut at the output limit`): the summary, the page and the bench say it alike. */
const CUT_WORDS: Readonly<Record<FinishReason, string>> = {
  length: 'cut at the output limit',
  content_filter: "stopped by the provider's content filter",
  refusal: 'refused by the model',
  error: 'ended short by the provider',
  stop: 'whole',
  tool_calls: 'asking for tools',
  other: 'ended for another reason',
};

/** Why an answer is not whole, in words (the page reads a reason it got as a string). */
export function cutWords(reason: string): string {
  return Object.hasOwn(CUT_WORDS, reason) ? CUT_WORDS[reason as FinishReason] : reason;
}

export function answersCut(forks: number, reason: FinishReason): string {
  return `${forks} answer${forks === 1 ? '' : 's'} ${cutWords(reason)}`;
}
