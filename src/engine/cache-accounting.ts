import { DIRECTIVE_PREFIX, type ForkSeed, type TaskSeedDefaults } from '../fork/index.js';
import { prefixFields } from '../model/request.js';
import { viewMessage, type AnyMessage } from '../dialect/view.js';
import { sessionMessages, type ForkTask, type HistoryMode, type ParentSession } from '../session/schema.js';
import type { FrozenPrefix } from '../prefix/index.js';
import { seedForkTask } from './fork-seed.js';
import { seedWindow, type CallRecord, type ForkResult } from './protocol.js';
import type { TokenUsage } from '../model/types.js';
import type { CachePricing, ForkCacheFigures } from './report.js';

/*
 * Cache accounting, all of it, on the engine's thread: what of a fork's first request its siblings,
 * the other windows and the parent send byte for byte, and from that and the order of dispatch the
 * most a provider could have served from cache. Workers only report what each call cost.
 */

export interface AccountingSettings {
  history: HistoryMode;
  spawnTools: readonly string[];
  /** The provider's minimum cacheable prompt; calls below it can hit nothing. */
  minCacheTokens: number;
  /** The provider caches in steps of this many tokens (1: any length). */
  cacheBlockTokens: number;
  /**
   * The cache holds exactly what a marker closes (DashScope's cache_control on the last shared
   * message): the child message's common opening after it is not cached.
   */
  toMarkerOnly?: boolean;
  /** Set for providers that bill cache reads and writes apart: each fork's figures get a relative input cost. */
  pricing?: CachePricing;
}

/** What the scheduler knew when it sent a fork. */
interface Dispatch {
  /** The first fork of the run. */
  first: boolean;
  /** Its requests name an explicit cache that already holds its window's shared part. */
  explicit: boolean;
  /** The parent has just sent the prefix (parent-warm run). */
  parentWarm: boolean;
  /** Parent-warm, and no fork's response has begun yet: it can reuse only what the parent sent. */
  parentWave: boolean;
}

export interface CacheAccounting {
  dispatched(task: ForkTask, at: Dispatch): void;
  /** A settled fork: its first call annotated with the shared shares, and its figures (final). */
  settle(task: ForkTask, result: ForkResult): { result: ForkResult; figures: ForkCacheFigures };
}

export interface TheoreticalInputs {
  /** The fork whose first call met a cold cache (the first one dispatched), if any. */
  coldForkId: string | undefined;
  /** Parent-warm: forks dispatched before any fork's response began. */
  parentWave?: ReadonlySet<string>;
  /** The first fork dispatched of each seed window (history × forkTurns). */
  windowLeaders: ReadonlySet<string>;
  minCacheTokens: number;
  /** Default 1: the provider can serve any length. */
  cacheBlockTokens?: number;
}

export function createCacheAccounting(prefix: FrozenPrefix, settings: AccountingSettings): CacheAccounting {
  const defaults: TaskSeedDefaults = { history: settings.history, spawnTools: settings.spawnTools };
  const heads = new Map<string, SeedHead>();
  const leaders = new Map<string, string>();
  const inputs = {
    coldForkId: undefined as string | undefined,
    parentWave: new Set<string>(),
    windowLeaders: new Set<string>(),
    minCacheTokens: settings.minCacheTokens,
    cacheBlockTokens: settings.cacheBlockTokens,
  };

  return {
    dispatched(task, at) {
      if (at.first && !at.explicit && !at.parentWarm) inputs.coldForkId = task.id;
      if (at.parentWave && !at.explicit) inputs.parentWave.add(task.id);
      // With an explicit cache, every window's shared part was cached before any fork ran.
      const window = seedWindow(task, settings.history);
      if (!leaders.has(window) && !at.explicit) {
        leaders.set(window, task.id);
        inputs.windowLeaders.add(task.id);
      }
    },
    settle(task, result) {
      const annotated = annotateFirstCall(result, () => {
        const seed = seedForkTask(prefix.session, task, defaults);
        const key = seedWindow(task, settings.history);
        const head = heads.get(key) ?? measureHead(seed, conversationOf(prefix.session));
        heads.set(key, head);
        return sharedShares(head, seed.contents.slice(seed.sharedContents), settings.toMarkerOnly === true);
      });
      const theoretical = theoreticalCached(annotated, inputs);
      const figures: ForkCacheFigures = {
        id: result.id,
        status: result.status,
        promptTokens: result.usage.promptTokens,
        cachedTokens: result.usage.cachedTokens,
        theoreticalCachedTokens: theoretical,
        efficiency: result.usage.cachedTokens === null ? null : ratio(result.usage.cachedTokens, theoretical),
        ...(settings.pricing ? { relativeInputCost: ratio(inputUnits(result.usage, settings.pricing), result.usage.promptTokens) } : {}),
      };
      return { result: annotated, figures };
    },
  };
}

type Shares = { shared: number; base: number; parent: number };

/** Adds the estimated shared, base and parent tokens to a fork's first call (not to explicit-cache calls). */
function annotateFirstCall(result: ForkResult, shares: () => Shares): ForkResult {
  const first = result.calls[0];
  if (first === undefined || first.explicitTokens !== undefined) return result;
  const share = shares();
  const annotated: CallRecord = {
    ...first,
    sharedTokens: Math.round(first.promptTokens * share.shared),
    baseTokens: Math.round(first.promptTokens * share.base),
    parentTokens: Math.round(first.promptTokens * share.parent),
  };
  return { ...result, calls: [annotated, ...result.calls.slice(1)] };
}

/**
 * The theoretical maximum for one fork, never below what it was served. On an explicit cache: the cached content, on every call.
 * Otherwise, its first call can reuse the prefix its siblings share
 * (nothing, for the very first call on a cold cache; what the parent sent, for the forks a
 * parent-warm run sent before any fork's response began; only the system instruction and tools for
 * the first fork of another seed window); each later call can reuse everything the previous call sent
 * and received. Never more than the call's own prompt.
 */
export function theoreticalCached(result: ForkResult, inputs: TheoreticalInputs): number {
  let total = 0;
  result.calls.forEach((call, i) => {
    if (call.explicitTokens !== undefined) {
      // A call that names a cachedContent is served from it and nothing more: that is its maximum.
      total += Math.min(call.explicitTokens, call.promptTokens);
      return;
    }
    const previous = result.calls[i - 1];
    let reusable =
      previous === undefined
        ? result.id === inputs.coldForkId
          ? 0
          : inputs.parentWave?.has(result.id) === true
            ? (call.parentTokens ?? 0)
            : inputs.windowLeaders.has(result.id)
              ? (call.baseTokens ?? 0)
              : (call.sharedTokens ?? 0)
        : previous.promptTokens + previous.outputTokens;
    const block = inputs.cacheBlockTokens ?? 1;
    reusable = Math.floor(Math.min(reusable, call.promptTokens) / block) * block;
    if (reusable < inputs.minCacheTokens) reusable = 0;
    // A first call's share is an estimate from characters and from the order of dispatch (a fork of
    // a parent-warm first wave may still find a sibling's prefill cached): what it was served was
    // possible, so it is never more than the maximum.
    if (previous === undefined) reusable = Math.max(reusable, call.cachedTokens ?? 0);
    total += reusable;
  });
  return total;
}

/**
 * A call's input in units of one uncached input token: tokens neither read nor written at 1×, reads
 * and writes at their prices. Unknown cached tokens count as none read.
 */
export function inputUnits(usage: TokenUsage, pricing: CachePricing): number {
  const read = usage.cachedTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const written1h = usage.cacheWrite1hTokens ?? 0;
  const plain = Math.max(0, usage.promptTokens - read - written);
  return plain + read * pricing.read + (written - written1h) * pricing.write5m + written1h * pricing.write1h;
}

export function ratio(numerator: number, denominator: number): number | null {
  return denominator > 0 ? numerator / denominator : null;
}

/**
 * The shares of a fork's first request that others send byte for byte. `shared`: what siblings of
 * the same seed window send (prefix fields, shared seed contents, and the child message's fixed
 * opening up to the directive: the boilerplate is the same for every fork, so a provider caches
 * it too). `base`: what forks of other windows send too (prefix fields and the untouched leading
 * part of the parent's history). `parent`: what the parent itself sent (prefix fields and the
 * untouched history up to its last request: a trailing model message is the parent's response).
 * Providers count tokens their own way, so shares of characters estimate shares of tokens.
 */
function sharedShares(head: SeedHead, tailContents: readonly AnyMessage[], toMarkerOnly: boolean): Shares {
  const tail = JSON.stringify(tailContents);
  const at = tail.indexOf(DIRECTIVE_PREFIX);
  const common = at < 0 || toMarkerOnly ? 0 : at + DIRECTIVE_PREFIX.length;
  const total = head.chars + tail.length;
  if (total === 0) return { shared: 0, base: 0, parent: 0 };
  const base = head.wholeHistory ? head.chars + common : head.baseChars;
  return { shared: (head.chars + common) / total, base: base / total, parent: head.parentChars / total };
}

/** Sizes of the part of a first request that does not depend on the directive. */
interface SeedHead {
  /** Prefix fields plus the seed contents every sibling of the window shares. */
  chars: number;
  /** Prefix fields plus the leading seed contents that are the parent's history unchanged. */
  baseChars: number;
  /** baseChars without a trailing model message of the history: the response, which the parent did not send. */
  parentChars: number;
  /** The window is the whole history as is: the child message then opens alike in every window. */
  wholeHistory: boolean;
}

/** The session's messages as a fork's contents start: Chat Completions' leading instructions included. */
function conversationOf(session: Readonly<ParentSession>): readonly AnyMessage[] {
  return sessionMessages(session) as readonly AnyMessage[];
}

/** The size of what a request sends besides its messages (instructions, tools, settings). */
function fieldsSize(seed: ForkSeed): number {
  if (seed.format !== 'gemini') {
    const { messages: _messages, format: _format, ...fields } = seed.session;
    return JSON.stringify(fields).length;
  }
  const fixed = prefixFields(seed);
  return JSON.stringify([fixed.systemInstruction ?? null, fixed.tools ?? null, fixed.toolConfig ?? null]).length;
}

function measureHead(seed: ForkSeed, history: readonly AnyMessage[]): SeedHead {
  const shared: readonly AnyMessage[] = seed.contents.slice(0, seed.sharedContents);
  const fixedSize = fieldsSize(seed);
  let chars = fixedSize;
  let baseChars = fixedSize;
  let unchanged = true;
  let response = 0;
  shared.forEach((content, i) => {
    const json = JSON.stringify(content);
    chars += json.length;
    // The seed's messages are the history's own objects (`copy: false`): identity is enough.
    unchanged &&= i < history.length && (content === history[i] || json === JSON.stringify(history[i]));
    if (unchanged) baseChars += json.length;
    if (unchanged && i === history.length - 1 && viewMessage(content).role === 'model') response = json.length;
  });
  return { chars, baseChars, parentChars: baseChars - response, wholeHistory: unchanged && shared.length === history.length };
}
