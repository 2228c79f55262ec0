import { type AnyMessage, viewMessage } from '../shapes/index.js';
import { efficiencyOf, ratio } from '../engine/cache-figures.js';
import type { ParentEvent, ParentOutcome } from '../engine/parent-events.js';
import { tallyCut, type RunReport } from '../engine/report.js';
import type { FanOutRun } from '../engine/run.js';
import { addCached, addKnown } from '../model/types.js';
import type { ForkTask } from '../session/schema.js';
import { createRunRecorder, type ReportFigures, type RunFigures } from './recorder.js';
import { startLiveServer } from './server.js';
import type { ParentTurn, ParentView } from './view.js';

/*
 * A headless parent agent's live page (`forkpool prompt --ui`): its turns as they come (usage,
 * reply, the calls it made and the tasks they started) above its tasks, which are forks like any
 * run's. The parent starts a fan-out per turn that launches sub-agents (and one per revived task):
 * each is followed from the moment it starts, and the summary adds up all of them.
 */

export interface ParentPageOptions {
  provider: string;
  model: string;
  /** 0: a free port. */
  port: number;
  gate?: RunFigures['gate'];
  /** The run's stop button: cancels the parent (and so its tasks). */
  stopRun(): void;
}

export interface ParentPage {
  readonly url: string;
  /** Give it the parent's events (runParentAgent's onEvent). */
  onEvent(event: ParentEvent): void;
  /** Give it each fan-out as it starts (runParentAgent's onFanOut). */
  onFanOut(run: FanOutRun, tasks: readonly ForkTask[]): void;
  /** Says how the parent ended, then sends the last patch and closes. */
  close(outcome?: ParentOutcome): Promise<void>;
}

/** A parent's reply longer than this is cut on the page. */
const REPLY_LIMIT = 2_000;

export async function serveParentPage(options: ParentPageOptions): Promise<ParentPage> {
  const runs: FanOutRun[] = [];
  /** The run that holds each task now (a revived task's latest). */
  const runOf = new Map<string, FanOutRun>();
  const view: ParentView = { state: 'running', turns: [] };
  // The recorder's clock: its times are ms since it was made.
  const startedAt = Date.now();
  const recorder = createRunRecorder({
    provider: options.provider,
    model: options.model,
    figures: {
      report: () =>
        sumReports(
          runs.map((r) => r.report()),
          runOf.size,
        ),
      ...(options.gate ? { gate: options.gate } : {}),
    },
  });
  recorder.parent(view);
  const server = await startLiveServer({
    recorder,
    title: `forkpool prompt: ${options.model}`,
    port: options.port,
    stopFork: (id) => runOf.get(id)?.cancel(id) ?? false,
    stopRun: options.stopRun,
  });

  return {
    url: server.url,
    onEvent(event) {
      // The parent's own replies; a task's messages (parentToolUseId) are its fork's, seen through its run.
      if (event.type !== 'message' || event.role !== 'assistant' || event.parentToolUseId !== undefined) return;
      const reply = viewMessage(event.message as AnyMessage);
      const text = reply.texts.join('');
      const turn: ParentTurn = {
        turn: event.turn,
        at: Date.now() - startedAt,
        promptTokens: event.usage?.promptTokens ?? 0,
        cachedTokens: event.usage?.cachedTokens ?? null,
        outputTokens: event.usage?.outputTokens ?? 0,
        text: text.length > REPLY_LIMIT ? `${text.slice(0, REPLY_LIMIT)}… (${text.length - REPLY_LIMIT} more characters)` : text,
        calls: reply.calls.map((call, k) => ({ name: call.name, callId: event.callIds?.[k] ?? '' })),
      };
      view.turns.push(turn);
      recorder.parent(view);
    },
    onFanOut(run, tasks) {
      runs.push(run);
      for (const task of tasks) {
        runOf.set(task.id, run);
        linkCall(view, task);
      }
      recorder.queued(
        tasks.map((t) => ({ id: t.id, directive: t.directive, ...(t.subagentType !== undefined ? { subagentType: t.subagentType } : {}) })),
      );
      recorder.parent(view);
      // Subscribed now, before anything awaits: none of its events is missed.
      void (async () => {
        for await (const event of run.events()) recorder.apply(event);
      })();
    },
    async close(outcome) {
      if (outcome !== undefined) {
        view.state = outcome.status;
        if (outcome.status !== 'completed') view.error = outcome.error.message;
      } else {
        view.state = 'failed';
      }
      recorder.parent(view);
      await server.close();
    },
  };
}

/**
 * A task's id is `<subagent type>-<the call's id>` (parent-agent.ts), made unique with a suffix when
 * the model repeated an id: the agent call of the parent's latest turn that started it.
 */
function linkCall(view: ParentView, task: ForkTask): void {
  const type = task.subagentType ?? 'fork';
  for (let t = view.turns.length - 1; t >= 0; t--) {
    const call = (view.turns[t] as ParentTurn).calls.find(
      (c) => c.taskId === undefined && c.callId !== '' && (task.id === `${type}-${c.callId}` || task.id.startsWith(`${type}-${c.callId}-`)),
    );
    if (call !== undefined) {
      call.taskId = task.id;
      return;
    }
  }
}

/** The parent's fan-outs as one: tokens, cache figures, misses, cut answers and retries added up; `forks` distinct tasks. */
function sumReports(reports: readonly RunReport[], tasks: number): ReportFigures {
  const misses = new Map<string, RunReport['cacheMisses'][number]>();
  let promptTokens = 0;
  let cachedTokens: number | null = 0;
  let preexisting: number | null = 0;
  let outputTokens = 0;
  let theoretical = 0;
  let retries = 0;
  let usd: number | undefined;
  let reasoning: number | undefined;
  let written: number | undefined;
  const cut: RunReport['cutAnswers'] = [];
  for (const report of reports) {
    reasoning = addKnown(reasoning, report.reasoningTokens);
    written = addKnown(written, report.cacheWriteTokens);
    for (const c of report.cutAnswers) tallyCut(cut, c.reason, c.raw, c.forks);
    promptTokens += report.promptTokens;
    cachedTokens = addCached(cachedTokens, report.cachedTokens);
    preexisting = addCached(preexisting, report.preexistingCachedTokens);
    outputTokens += report.outputTokens;
    theoretical += report.theoreticalCachedTokens;
    retries += report.retries;
    if (report.cost !== undefined) usd = (usd ?? 0) + report.cost.usd;
    for (const miss of report.cacheMisses) {
      const sum = misses.get(miss.reason) ?? { reason: miss.reason, forks: 0, tokens: 0 };
      sum.forks += miss.forks;
      sum.tokens += miss.tokens;
      misses.set(miss.reason, sum);
    }
  }
  return {
    forks: { total: tasks },
    promptTokens,
    cachedTokens,
    outputTokens,
    ...(reasoning !== undefined ? { reasoningTokens: reasoning } : {}),
    ...(written !== undefined ? { cacheWriteTokens: written } : {}),
    hitRate: cachedTokens === null ? null : ratio(cachedTokens, promptTokens),
    efficiency: efficiencyOf(cachedTokens, preexisting, theoretical),
    theoreticalCachedTokens: theoretical,
    cacheMisses: [...misses.values()],
    cutAnswers: cut,
    retries,
    ...(usd !== undefined ? { cost: { usd } } : {}),
  };
}
