import { DIRECTIVE_PREFIX, type ForkSeed, type TaskSeedDefaults } from '../fork/index.js';
import { measuredMessages } from '../model/decorate.js';
import type { CachePlan } from '../model/plan.js';
import { seedFieldsChars } from '../dialect/seed-request.js';
import { viewMessage, type AnyMessage } from '../dialect/view.js';
import { sessionMessages, type ForkTask, type HistoryMode, type ParentSession } from '../session/schema.js';
import type { FrozenPrefix } from '../prefix/index.js';
import { seedForkTask } from './fork-seed.js';
import { seedWindow, type CallRecord, type ForkResult } from './thread-wire.js';
import type { ForkCacheFigures } from './report.js';
import { forkFigures, type FirstCallRole } from './cache-figures.js';
import { createOpeningWave, type FigureCorrection } from './opening-wave.js';

/*
 * Cache accounting, all of it, on the engine's thread: what of a fork's first request its siblings,
 * the other windows and the parent send byte for byte, and from that and the order of dispatch the
 * most a provider could have served from cache (cache-figures.ts). Workers only report what each
 * call cost.
 */

export interface AccountingSettings {
  history: HistoryMode;
  spawnTools: readonly string[];
  /**
   * The provider's cache rules (the minimum, the step, whether the cache holds exactly what a marker
   * closes), what its requests carry (a marker is measured as sent), and its prices when it bills
   * cache reads and writes apart (each fork's figures then get a relative input cost).
   */
  plan: Pick<CachePlan, 'rules' | 'request' | 'pricing'>;
}

/** What the scheduler knew when it sent a fork. */
interface Dispatch {
  /** The first fork of the run. */
  first: boolean;
  /** Its requests name an explicit cache that already holds its window's shared part. */
  explicit: boolean;
  /** The parent has just sent the prefix and the first fork may read it (parent-warm, no marker of its own to write). */
  parentWarm: boolean;
  /** No fork's response had begun yet: it went with the opening wave. */
  wave: boolean;
}

export interface CacheAccounting {
  dispatched(task: ForkTask, at: Dispatch): void;
  /** A settled fork: its first call annotated with the shared shares, and its figures (final unless corrections() moves them). */
  settle(task: ForkTask, result: ForkResult): { result: ForkResult; figures: ForkCacheFigures };
  /** Figures given at settle that the report replaces: the opening wave's first request, once known (opening-wave.ts). */
  corrections(): FigureCorrection[];
}

export function createCacheAccounting(prefix: FrozenPrefix, settings: AccountingSettings): CacheAccounting {
  const defaults: TaskSeedDefaults = { history: settings.history, spawnTools: settings.spawnTools };
  const { plan } = settings;
  const heads = new Map<string, SeedHead>();
  const leaders = new Map<string, string>();
  const windowLeaders = new Set<string>();
  const wave = createOpeningWave();
  let openingRole: FirstCallRole = 'cold';
  let waveOpen = false;

  return {
    dispatched(task, at) {
      // The first fork meets the cache as the run found it, unless an explicit cache was made for it.
      if (at.first && !at.explicit) {
        waveOpen = true;
        openingRole = at.parentWarm ? 'parent' : 'cold';
      }
      if (waveOpen && at.wave && !at.explicit) wave.join(task.id);
      // With an explicit cache, every window's shared part was cached before any fork ran.
      const window = seedWindow(task, settings.history);
      if (!leaders.has(window) && !at.explicit) {
        leaders.set(window, task.id);
        windowLeaders.add(task.id);
      }
    },
    settle(task, result) {
      const annotated = annotateFirstCall(result, () => {
        const seed = asSent(seedForkTask(prefix.session, task, defaults), plan);
        const key = seedWindow(task, settings.history);
        const head = heads.get(key) ?? measureHead(seed, conversationOf(prefix.session));
        heads.set(key, head);
        return sharedShares(head, seed.contents.slice(seed.sharedContents), plan.rules.toMarkerOnly);
      });
      const ordinary: FirstCallRole = windowLeaders.has(result.id) ? 'leader' : 'sibling';
      const figuresAs = (role: FirstCallRole): ForkCacheFigures => forkFigures(annotated, role, plan.rules, plan.pricing);
      const inWave = wave.role(result.id);
      if (inWave === undefined) return { result: annotated, figures: figuresAs(ordinary) };
      const asOpening = figuresAs(openingRole);
      const asOrdinary = figuresAs(ordinary);
      wave.settled(result.id, { firstServed: annotated.calls[0]?.cachedTokens, asOpening, asOrdinary });
      return { result: annotated, figures: inWave === 'opening' ? asOpening : asOrdinary };
    },
    corrections: () => wave.corrections(),
  };
}

/** The seed's contents as the report measures them (decorate.ts: a marker makes the shared part a little longer). */
function asSent(seed: ForkSeed, plan: AccountingSettings['plan']): ForkSeed {
  const contents = measuredMessages(plan, seed.contents as readonly AnyMessage[], seed.sharedContents);
  return contents === seed.contents ? seed : ({ ...seed, contents } as ForkSeed);
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

function measureHead(seed: ForkSeed, history: readonly AnyMessage[]): SeedHead {
  const shared: readonly AnyMessage[] = seed.contents.slice(0, seed.sharedContents);
  const fixedSize = seedFieldsChars(seed);
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
