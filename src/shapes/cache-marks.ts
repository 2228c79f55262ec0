import type { AnyMessage } from './view.js';

/**
 * Where forkpool's prompt-cache mechanisms write on one shape's requests (the run's cache plan,
 * model/plan.ts, says which one a run uses; model/decorate.ts applies it). A mechanism the shape's
 * API does not take is absent. Each returns copies: the conversation itself never keeps a mark.
 */
export interface CacheMarks<M extends AnyMessage = AnyMessage, R = unknown> {
  /** DashScope's explicit cache: a `cache_control` marker on the last shared message that can carry one. */
  marker?(messages: readonly M[], shared: number): M[];
  /**
   * OpenAI's breakpoints (GPT-5.6 and later): at the end of what every fork shares, and with
   * `parentWarm` where the parent's request had its implicit one (shapes/openai-breakpoints.ts).
   */
  openAIBreakpoints?(messages: readonly M[], shared: number, parentWarm: boolean): M[];
  /** Anthropic's `cache_control` breakpoints on the request's messages, within the room the parent's own `parent` leave. */
  breakpoints?(request: R, shared: number, parent: number, ttl: '5m' | '1h'): R;
  /** Gemini's explicit cache: the request naming the cache, without the fields the cache holds. */
  cachedContent?(request: R, name: string): R;
  /** OpenAI's Responses API: the request naming the parent's stored response (its conversation is then left out). */
  storedResponse?(request: R, responseId: string): R;
  /** How many items of its own a request that names a stored response sends (with storedResponse). */
  storedResponseItems?(request: R): number;
}
