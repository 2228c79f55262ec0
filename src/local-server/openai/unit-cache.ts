import type { UnitRules } from './cache-presets.js';
import { createPrefixCache, type PrefixCache, type PrefixCacheConfig } from '../core/prefix-cache.js';
import { createPrefixUnits, type PrefixUnits } from './prefix-units.js';
import type { ChatRendering } from './render.js';
import type { AssistantReply } from './translate.js';
import { blockEnd, possibleEnds, promptEnd, replyEnd, type UnitEnd } from './unit-ends.js';

/**
 * The simulated DeepSeek cache (`--usage deepseek`): which cache prefix units a request is served
 * and which it creates, after api-docs.deepseek.com/guides/kv_cache: "Each request will produce two
 * cache prefix units at the end position of the user input and the end position of the model
 * output"; "When the system detects a common prefix across multiple requests, it will persist that
 * common prefix as an independent cache prefix unit"; "the system will carve out cache prefix units
 * at fixed token intervals". Its example: after A + B, a request A + C "cannot hit the cache" but
 * makes A a unit, which A + D then hits. So a fan-out whose forks end in different directives gets
 * the shared prefix only from its third fork on, once the second one's common-prefix unit is built.
 */

export interface UnitCache {
  /** The record of recent prompts' 64-token blocks, where common prefixes are found (not a cache: nothing is served from it). */
  readonly seen: PrefixCache;
  readonly units: PrefixUnits;
  /** Before prefill: tokens of the longest built unit that is a prefix of this prompt. */
  lookup(rendering: ChatRendering): number;
  /** Prefill ended: units at the prompt's end, at its common prefix with earlier prompts, at each interval. */
  prefillDone(rendering: ChatRendering): void;
  /** The response has ended: a unit at the end of the reply, as the conversation's next request renders it. */
  responseDone(rendering: ChatRendering, reply: AssistantReply): void;
}

export function createUnitCache(config: PrefixCacheConfig, rules: UnitRules, now: () => number = Date.now): UnitCache {
  const { blockTokens, minTokens } = config;
  // As many units, and as many remembered blocks, as the capacity has blocks.
  const maxUnits = Math.max(0, Math.floor(config.capacityTokens / blockTokens));
  const units = createPrefixUnits({ ttlMs: config.ttlMs, buildDelayMs: config.buildDelayMs, maxUnits }, now);
  // Seen is seen at once: a prompt counts for common prefixes as soon as its prefill is done.
  const seen = createPrefixCache({ ...config, buildDelayMs: 0 }, now);
  const intervalBlocks = Math.max(1, Math.round(rules.intervalTokens / blockTokens));
  const big = (end: UnitEnd): boolean => end.tokens >= minTokens;

  return {
    seen,
    units,
    lookup: (rendering) => units.serve(possibleEnds(rendering, blockTokens).filter(big)),
    prefillDone(rendering) {
      const { keys, tokens } = rendering.prompt;
      const end = promptEnd(rendering);
      const created: UnitEnd[] = [end];
      // The longest run of leading blocks some earlier prompt had too, when this prompt goes on past it. A prompt
      // seen whole before (its end is a unit) shares all of itself: its common prefix is that unit, not a block end.
      const common = seen.lookup(keys, tokens) / blockTokens;
      if (common > 0 && common * blockTokens < tokens && !units.holds(end)) created.push(blockEnd(rendering, common, blockTokens));
      seen.admit(keys, tokens);
      for (let blocks = intervalBlocks; blocks <= keys.length && blocks * blockTokens < tokens; blocks += intervalBlocks) {
        created.push(blockEnd(rendering, blocks, blockTokens));
      }
      units.create(created.filter(big));
    },
    responseDone(rendering, reply) {
      units.create([replyEnd(rendering, reply)].filter(big));
    },
  };
}
