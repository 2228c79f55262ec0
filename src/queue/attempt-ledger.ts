import { costOfCalls, type ModelPrice } from '../model/prices.js';
import type { TokenUsage } from '../model/types.js';
import { sumUsage } from '../result/results.js';
import type { WorkerFigures } from './redis-wire.js';

/**
 * Per worker process that took a job of this run, what it did: the forks it finished, the model
 * calls it answered (of its lost attempts too) and the attempts lost with it. Its process figures
 * come with the forks it finished: a worker that finished none has none.
 */
export interface WorkerSummary extends Partial<Omit<WorkerFigures, 'id'>> {
  id: string;
  forks: number;
  modelCalls: number;
  /** Its runs of forks that ended with no result: its job's lock ran out (it died, or stalled) and another worker took the fork, or the job failed. */
  lostAttempts: number;
}

/**
 * What the attempts lost with dead workers spent: paid for, in no fork's result (each fork's
 * result is its last attempt's). The run's cost and token budget counted their calls as they
 * returned; the report's totals add them (queue-run.ts).
 */
export interface LostAttempts {
  /** Forks that lost at least one attempt. */
  forks: number;
  attempts: number;
  /** Calls answered (their usage is below) and calls in flight when their worker died (unknownCalls). */
  modelCalls: number;
  /** Calls in flight when their worker died: most likely paid for, their usage unknown (not in `usage`). */
  unknownCalls: number;
  /** Tool calls the answered calls asked for. */
  toolCalls: number;
  usage: TokenUsage;
  /** At the model's price, when one is known. */
  costUsd?: number;
}

/** A worker process now: the forks it finished for this run and those it runs. */
export interface WorkerNow {
  id: string;
  forks: number;
  running: string[];
}

/** One worker's run of a fork's job, as its progress told it: what it spent until its result, or until it was lost. */
interface Attempt {
  worker: string;
  /** The usage of each call answered. */
  calls: TokenUsage[];
  toolCalls: number;
  /** The worker's last count of the fork's calls in flight. */
  callsInFlight: number;
}

/** What the ledger keeps on each fork it is told of (the coordinator's record of the fork holds it). */
export interface ForkAttempts {
  /** The run of the fork's job the progress tells of now; it ends with the job's result, or lost. */
  attempt?: Attempt;
  /** An earlier attempt of it was lost. */
  lostBefore: boolean;
}

/** A fork a worker runs now, by its task id. */
export interface RunningFork {
  worker: string;
  taskId: string;
}

/**
 * The coordinator's accounts of a distributed run's attempts: per worker process, the forks it
 * finished, the calls it answered and the attempts lost with it; and what the lost attempts spent
 * in all. It is told of each attempt as the job's progress tells of it.
 */
export class AttemptLedger {
  private readonly summaries = new Map<string, WorkerSummary>();
  private readonly lost: LostAttempts = {
    forks: 0,
    attempts: 0,
    modelCalls: 0,
    unknownCalls: 0,
    toolCalls: 0,
    usage: { promptTokens: 0, cachedTokens: 0, outputTokens: 0 },
  };

  /** `price`: the model's, when one is known (what the lost attempts cost). */
  constructor(private readonly price: ModelPrice | undefined) {}

  /** A worker took the fork's job: its earlier run, if any, ended without a result (its stall may go unseen as an event). */
  taken(fork: ForkAttempts, worker: string): void {
    this.lose(fork);
    fork.attempt = { worker, calls: [], toolCalls: 0, callsInFlight: 0 };
    this.summaryOf(worker);
  }

  /** The worker's count of the fork's calls in flight now. */
  callsInFlight(fork: ForkAttempts, inFlight: number): void {
    if (fork.attempt) fork.attempt.callsInFlight = inFlight;
  }

  /** A model call of the fork answered: its usage, and the tool calls it asked for. */
  answered(fork: ForkAttempts, usage: TokenUsage, toolCalls: number): void {
    if (!fork.attempt) return;
    fork.attempt.calls.push(usage);
    fork.attempt.toolCalls += toolCalls;
  }

  /** The fork's current run ended without a result: what it spent goes to the lost attempts and to its worker's line. */
  lose(fork: ForkAttempts): void {
    const a = fork.attempt;
    if (!a) return;
    delete fork.attempt;
    const lost = this.lost;
    if (!fork.lostBefore) lost.forks++;
    fork.lostBefore = true;
    lost.attempts++;
    lost.modelCalls += a.calls.length + a.callsInFlight;
    lost.unknownCalls += a.callsInFlight;
    lost.toolCalls += a.toolCalls;
    lost.usage = sumUsage([lost.usage, ...a.calls]);
    // Priced call by call, as the run's cost is (a price may depend on a call's size).
    if (this.price) lost.costUsd = (lost.costUsd ?? 0) + costOfCalls(a.calls, this.price);
    const s = this.summaryOf(a.worker);
    s.lostAttempts++;
    s.modelCalls += a.calls.length + a.callsInFlight;
  }

  /** A worker finished a fork, in `modelCalls` calls: its figures are the latest its process sent. */
  finished(worker: WorkerFigures, modelCalls: number): void {
    const s = this.summaryOf(worker.id);
    s.forks++;
    s.modelCalls += modelCalls;
    s.prefixFetches = Math.max(s.prefixFetches ?? 0, worker.prefixFetches);
    s.cpuMs = Math.max(s.cpuMs ?? 0, worker.cpuMs);
  }

  /** What each worker process that took a job did for this run, in the order they first took one. */
  workers(): WorkerSummary[] {
    return [...this.summaries.values()].map((s) => ({ ...s }));
  }

  /** What the attempts lost with dead workers spent so far. */
  lostAttempts(): LostAttempts {
    return { ...this.lost, usage: { ...this.lost.usage } };
  }

  /** Each worker that finished or runs a fork of this run: its finished count and the task ids it runs now. */
  workersNow(running: Iterable<RunningFork>): WorkerNow[] {
    const now = new Map<string, WorkerNow>();
    for (const s of this.summaries.values()) now.set(s.id, { id: s.id, forks: s.forks, running: [] });
    for (const { worker, taskId } of running) {
      const w = now.get(worker) ?? { id: worker, forks: 0, running: [] };
      w.running.push(taskId);
      now.set(w.id, w);
    }
    return [...now.values()];
  }

  private summaryOf(worker: string): WorkerSummary {
    let s = this.summaries.get(worker);
    if (!s) {
      s = { id: worker, forks: 0, modelCalls: 0, lostAttempts: 0 };
      this.summaries.set(worker, s);
    }
    return s;
  }
}
