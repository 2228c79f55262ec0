import { DIRECTIVE_PREFIX, type ForkSeed, type TaskSeedDefaults } from '../fork/index.js';
import { measuredMessages } from '../model/decorate.js';
import type { CachePlan } from '../model/plan.js';
import { seedFieldsChars } from '../shapes/seed-request.js';
import { viewMessage } from '../shapes/registry.js';
import type { AnyMessage } from '../shapes/view.js';
import { sessionMessages, type ParentSession } from '../shapes/registry.js';
import type { ForkTask, HistoryMode } from '../session/schema.js';
import type { FrozenPrefix } from '../prefix/index.js';
import { seedForkTask } from '../fork/fork-seed.js';
import { seedWindow } from '../fork/seed-window.js';
import type { CacheMiss, CallRecord, ForkResult } from '../result/fork-result.js';
import type { ForkCacheFigures } from './report.js';
import { callMaxima, forkFigures, type FirstCallRole } from './cache-figures.js';
import { cacheMissOf } from './cache-miss.js';
import { createOpeningWave, type FigureCorrection, type OpeningWave } from './opening-wave.js';

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
  plan: Pick<CachePlan, 'rules' | 'request' | 'pricing' | 'shape'>;
  /** The clock the TTL is measured by (tests move it). Default: performance.now. */
  now?: () => number;
}

/** What the scheduler knew when it sent a fork. */
interface Dispatch {
  /** The first fork of the run. */
  first: boolean;
  /** Its requests name an explicit cache that already holds its window's shared part. */
  explicit: boolean;
  /** The parent has just sent the prefix and the first fork may read it (parent-warm, no marker of its own to write). */
  parentWarm: boolean;
}

export interface CacheAccounting {
  dispatched(task: ForkTask, at: Dispatch): void;
  /** A fork's response began: what its request sent can be read from now on (once built). */
  responded(task: ForkTask): void;
  /** A fork's call returned: its request sent the prefix again, so the provider's entry was used then. */
  called(task: ForkTask): void;
  /**
   * A settled fork: its first call annotated with the shared shares, its figures (final unless
   * corrections() moves them), and why its first call missed what it shares, if it did.
   */
  /** `continued`: it picked up from its transcript, so its first call is not a fork's first (no share of the seed, no miss). */
  settle(
    task: ForkTask,
    result: ForkResult,
    continued?: boolean,
  ): { result: ForkResult; figures: ForkCacheFigures; miss: CacheMiss | undefined };
  /** Figures given at settle that the report replaces: the opening wave's first request, once known (opening-wave.ts). */
  corrections(): FigureCorrection[];
}

export function createCacheAccounting(prefix: FrozenPrefix, settings: AccountingSettings): CacheAccounting {
  const defaults: TaskSeedDefaults = { history: settings.history, spawnTools: settings.spawnTools };
  const { plan } = settings;
  const now = settings.now ?? (() => performance.now());
  const windowOf = (task: ForkTask): string => seedWindow(task, settings.history);
  const heads = new Map<string, SeedHead>();
  const leaders = new Set<string>();
  const windowLeaders = new Set<string>();
  /** Each window's forks sent before any of its responses had begun, and the role its first one holds. */
  const waves = new Map<string, { wave: OpeningWave; opening: FirstCallRole }>();
  /** Windows one of whose forks' responses has begun, and whether any fork's has. */
  const answered = new Set<string>();
  let anyAnswered = false;
  /** When a request last sent each window's prefix, and any fork's (the part every window shares). */
  const lastSent = new Map<string, number>();
  let lastSentAny: number | undefined;
  /** What a fork met when it was dispatched, until it settles. */
  const met = new Map<string, { idleMs: number | undefined; early: boolean }>();
  /** Forks dispatched so far on a cache of prefix units, and the one that was second (cache-figures.ts 'second'). */
  let unitRequests = 0;
  const seconds = new Set<string>();
  let openingRole: FirstCallRole = 'cold';

  const sent = (task: ForkTask): void => {
    const at = now();
    lastSent.set(windowOf(task), at);
    lastSentAny = at;
  };

  return {
    dispatched(task, at) {
      const window = windowOf(task);
      // With an explicit cache, every window's shared part was cached before any fork ran.
      if (at.explicit) {
        met.set(task.id, { idleMs: undefined, early: false });
        return sent(task);
      }
      // The first fork meets the cache as the run found it.
      if (at.first) openingRole = at.parentWarm ? 'parent' : 'cold';
      const leads = !leaders.has(window);
      if (leads) {
        leaders.add(window);
        windowLeaders.add(task.id);
      }
      // Sent before any response of its window had begun: which of those reached the provider first, the run cannot see.
      if (!answered.has(window)) {
        const wave = waves.get(window) ?? { wave: createOpeningWave(), opening: leads && at.first ? openingRole : 'leader' };
        waves.set(window, wave);
        wave.wave.join(task.id);
      }
      // On a cache of prefix units the run's second request is the one whose request caches the prefix it shares with the first
      // (after a parent that has just sent the prefix, the parent's own unit serves it).
      if (plan.rules.prefixUnits !== undefined && openingRole === 'cold' && ++unitRequests === 2 && !leads) seconds.add(task.id);
      const since = leads ? lastSentAny : lastSent.get(window);
      // Nothing it could read had been answered: a window's first fork reads what every window shares, the others their window.
      const early = leads ? !anyAnswered : !answered.has(window);
      met.set(task.id, { idleMs: since === undefined ? undefined : now() - since, early });
      sent(task);
    },
    responded(task) {
      answered.add(windowOf(task));
      anyAnswered = true;
    },
    called: sent,
    settle(task, result, continued = false) {
      const window = windowOf(task);
      let head: SeedHead | undefined;
      // A continued fork's first call sent its own conversation: what it could be served is what it had sent before (callMaxima's later-call rule).
      const annotated = continued
        ? result
        : annotateFirstCall(result, () => {
            const seed = asSent(seedForkTask(prefix.session, task, defaults), plan);
            head = heads.get(window) ?? measureHead(seed, conversationOf(prefix.session));
            heads.set(window, head);
            return sharedShares(head, seed.contents.slice(seed.sharedContents), plan.rules.toMarkerOnly);
          });
      const ordinary: FirstCallRole = windowLeaders.delete(result.id) ? 'leader' : seconds.delete(result.id) ? 'second' : 'sibling';
      const figuresAs = (role: FirstCallRole): ForkCacheFigures => forkFigures(annotated, role, plan.rules, plan.pricing);
      const wave = waves.get(window);
      const inWave = wave?.wave.role(result.id);
      const opening = wave?.opening ?? ordinary;
      const role = inWave === 'opening' ? opening : ordinary;
      const facts = met.get(result.id);
      met.delete(result.id);
      const first = annotated.calls[0];
      const miss =
        continued || first === undefined || facts === undefined
          ? undefined
          : cacheMissOf({
              first,
              role,
              maximum: callMaxima([first], role, plan.rules)[0] ?? 0,
              early: facts.early,
              trimmedWindow: head !== undefined && !head.wholeHistory,
              unmarked: plan.rules.unmarked === true,
              idleMs: facts.idleMs,
              rules: plan.rules,
            });
      const withMiss = (figures: ForkCacheFigures): ForkCacheFigures => (miss ? { ...figures, cacheMiss: miss } : figures);
      const settled: ForkResult = miss ? { ...annotated, cacheMiss: miss } : annotated;
      if (inWave === undefined || wave === undefined) return { result: settled, figures: withMiss(figuresAs(ordinary)), miss };
      // A wave's opening role goes to the fork served least, once all are in (opening-wave.ts): either role's figures are kept.
      const asOpening = withMiss(figuresAs(opening));
      const asOrdinary = withMiss(figuresAs(ordinary === 'leader' ? 'sibling' : ordinary));
      wave.wave.settled(result.id, { firstServed: first?.cachedTokens, asOpening, asOrdinary });
      return { result: settled, figures: inWave === 'opening' ? asOpening : asOrdinary, miss };
    },
    corrections: () => [...waves.values()].flatMap((w) => w.wave.corrections()),
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
