/*
 * The run as the page knows it: a snapshot, then patches applied in place. Rows are replaced by
 * id and keep their first-seen order, so the list does not jump as forks change state.
 */
import type { ForkDetail, ForkRow, ForkState, ParentView, RunPatch, RunSnapshot, RunSummary, Sample } from '../../view.js';

export const STATES: readonly ForkState[] = ['queued', 'running', 'completed', 'failed', 'cancelled'];

function emptySummary(): RunSummary {
  return {
    startedAt: Date.now(),
    elapsedMs: 0,
    ended: false,
    provider: '',
    model: '',
    forks: { queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0, total: 0, totalKnown: true },
    promptTokens: 0,
    cachedTokens: null,
    outputTokens: 0,
    hitRate: null,
    efficiency: null,
    theoreticalCachedTokens: 0,
    cacheMisses: [],
    cutAnswers: [],
  };
}

export class RunStore {
  summary: RunSummary = emptySummary();
  samples: Sample[] = [];
  /** The parent agent, when the forks are its tasks (prompt --ui). */
  parent: ParentView | undefined;
  /** Bumped when the parent changed: its view redraws only then. */
  parentVersion = 0;
  live: boolean;
  /** A report's forks' details, by id (a live page asks the server for them). */
  private details: Record<string, ForkDetail> | undefined;
  /** When the summary arrived (performance.now()), to tick the elapsed time between patches. */
  receivedAt = performance.now();
  /** Bumped on every change to the rows: the list refilters only then. */
  version = 0;
  private readonly byId = new Map<string, ForkRow>();
  private order: ForkRow[] = [];
  private readonly index = new Map<string, number>();

  constructor(live: boolean) {
    this.live = live;
  }

  load(snapshot: RunSnapshot): void {
    this.byId.clear();
    this.index.clear();
    this.order = [];
    this.samples = [];
    this.live = snapshot.live;
    this.details = snapshot.details;
    this.apply(snapshot);
  }

  apply(patch: RunPatch): void {
    this.summary = patch.summary;
    this.receivedAt = performance.now();
    if (patch.parent !== undefined) {
      this.parent = patch.parent;
      this.parentVersion++;
    }
    for (const sample of patch.samples) this.samples.push(sample);
    for (const row of patch.forks) {
      const at = this.index.get(row.id);
      if (at === undefined) {
        this.index.set(row.id, this.order.length);
        this.order.push(row);
      } else {
        this.order[at] = row;
      }
      this.byId.set(row.id, row);
    }
    if (patch.forks.length > 0) this.version++;
  }

  rows(): readonly ForkRow[] {
    return this.order;
  }

  row(id: string): ForkRow | undefined {
    return this.byId.get(id);
  }

  /** A fork's detail from a report, if the report has it. */
  detail(id: string): ForkDetail | undefined {
    // Own keys only: an id such as "constructor" is not a detail.
    return this.details && Object.hasOwn(this.details, id) ? this.details[id] : undefined;
  }

  /** The run's elapsed time now: ticking between patches while a live run lasts. */
  elapsedNow(): number {
    const s = this.summary;
    if (!this.live || s.ended) return s.elapsedMs;
    return s.elapsedMs + (performance.now() - this.receivedAt);
  }
}
