import type { FanOutRun } from '../engine/run.js';
import type { ForkTask } from '../session/schema.js';
import { createRunRecorder, type RunFigures } from './recorder.js';
import { startLiveServer, type LiveServer } from './server.js';

/*
 * A run's live page, wired: the recorder follows the run's events from the moment it is made (call
 * it right after fanOut, before anything awaits, so that no event is missed), the server shows it,
 * and the stop buttons cancel through the run as any cancel does.
 */

export interface RunPageOptions {
  /** The run's tasks when they are known up front (an array): queued rows from the start. */
  tasks?: readonly ForkTask[];
  provider: string;
  model: string;
  /** 0: a free port. */
  port: number;
  gate?: RunFigures['gate'];
  workers?: RunFigures['workers'];
}

export async function serveRunPage(run: FanOutRun, options: RunPageOptions): Promise<LiveServer> {
  const recorder = createRunRecorder({
    provider: options.provider,
    model: options.model,
    figures: {
      report: () => run.report(),
      ...(options.gate ? { gate: options.gate } : {}),
      ...(options.workers ? { workers: options.workers } : {}),
    },
  });
  if (options.tasks)
    recorder.queued(
      options.tasks.map((t) => ({
        id: t.id,
        directive: t.directive,
        ...(t.subagentType !== undefined ? { subagentType: t.subagentType } : {}),
      })),
    );
  // Subscribed now, read as events come (the iterator ends when every fork is terminal).
  const events = run.events();
  let server: LiveServer;
  try {
    server = await startLiveServer({
      recorder,
      title: `forkpool run: ${options.model}`,
      port: options.port,
      stopFork: (id) => run.cancel(id),
      stopRun: () => run.cancelAll(),
    });
  } catch (err) {
    // Unsubscribed, or the run's events would pile up for a reader that never comes.
    await events.return?.();
    throw err;
  }
  void (async () => {
    for await (const event of events) recorder.apply(event);
  })();
  return server;
}
