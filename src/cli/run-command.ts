import { appendFileSync, closeSync, openSync } from 'node:fs';
import { ForkEngine } from '../engine/engine.js';
import { loadSession, loadTasks } from '../session/load.js';
import { SESSION_FORMAT_FLAG, sessionLoadOptions } from './session-format.js';
import { ENGINE_FLAGS, engineOptions, localNotice, outputFormat, parentWarm, providerLabel, requireApiKey } from './engine-flags.js';
import { helpOf, parseOptionsOf, type FlagTable } from './flags.js';
import { startProgress } from './progress.js';
import { resultLine, type ResultLine } from './result-line.js';
import { createJournal, resumeJournal, rewriteOut } from './journal.js';
import { checkEarlierResults } from './earlier-results.js';
import { freezePrefix } from '../prefix/index.js';
import type { ForkTask } from '../session/schema.js';
import { compactReport, resultEventLine, taskNotificationLine, taskStartedLine } from './stream-json.js';
import { summaryText } from './summary.js';
import { toolsFromFlags } from './tools-flags.js';
import { UsageError } from './usage-error.js';
import { parseFlags } from './parse-flags.js';
import type { CliIo } from './io.js';
import { onStopSignals } from './signals.js';
import { sessionFormat } from '../session/schema.js';
import type { ProviderOption } from '../engine/options.js';
import { QUEUE_URL_HELP } from './queue-flag.js';
import { newRunId, openQueueRun, queueAddressOf, workersText, type QueueRun } from './queue-run.js';

/** `run`'s flags: parsing and help both come from here. */
const RUN_FLAGS = {
  session: { type: 'string', arg: 'FILE', help: 'the parent session (JSON)' },
  'session-format': SESSION_FORMAT_FLAG,
  tasks: { type: 'string', arg: 'FILE|-', help: 'JSONL, one task a line: {"id","directive",...}; - reads stdin' },
  out: {
    type: 'string',
    arg: 'FILE',
    help: 'write one JSON result line per fork as it ends (results are then not kept\nin memory; default: stdout for --output-format json / stream-json)',
  },
  journal: { type: 'string', arg: 'FILE', help: 'durable record of finished forks (default: FILE.journal beside --out)' },
  resume: {
    type: 'boolean',
    help: 'run only the forks the journal has no completed or failed result for;\n--out is rewritten to hold each finished fork exactly once. With --queue it\nre-attaches to the same distributed run (its id is in the journal): jobs\nstill queued or finished unheard are collected, not run again',
  },
  overwrite: {
    type: 'boolean',
    help: 'start again, discarding the results --out and the journal hold from an\nearlier run (without --resume or --overwrite, a run whose --out or journal\nholds results refuses to start)',
  },
  help: { type: 'boolean', short: 'h', help: 'this help' },
  ...ENGINE_FLAGS,
  queue: {
    type: 'string',
    arg: 'URL',
    group: 'Many machines',
    help: `coordinate a distributed run: the forks go to a BullMQ queue in this Redis,\nforkpool worker processes run them (their flags: forkpool worker --help).\nURL: ${QUEUE_URL_HELP}`,
  },
} as const satisfies FlagTable;

const RUN_HELP = `Usage: forkpool run --session FILE --tasks FILE|- [options]

Fans out one fork per task line from a saved parent conversation. Each fork inherits the
session's system instruction, tools, sampling settings and history, and gets its own directive.

${helpOf(RUN_FLAGS)}

Exit codes: 0 every fork completed · 1 a fork failed or was cancelled · 2 bad usage or input
(nothing ran) · 130 stopped by SIGINT or SIGTERM (finished forks are kept in --out and the journal)`;

export async function runCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, parseOptionsOf(RUN_FLAGS), false);
  if (values.help) {
    io.stdout.write(`${RUN_HELP}\n`);
    return 0;
  }
  if (!values.session) throw new UsageError('run: --session FILE is required');
  if (!values.tasks) throw new UsageError('run: --tasks FILE (or - for stdin) is required');
  const format = outputFormat(values);
  // Checked before anything is read or written: the flags that belong to the workers are refused.
  const queueAddress = values.queue !== undefined ? queueAddressOf(values) : undefined;
  const session = await loadSession(values.session, sessionLoadOptions(values['session-format'], io));
  const shape = sessionFormat(session);
  const options = engineOptions(values, io.env, shape);
  if (!queueAddress) requireApiKey(options.provider, io.env);
  if (values.model) session.model = values.model;
  const tasks = await loadTasks(values.tasks, io.stdin);
  const tools = await toolsFromFlags(values.workspace, values.tools);
  const journalPath = values.journal ?? (values.out ? `${values.out}.journal` : undefined);
  if (values.resume && !journalPath) throw new UsageError('--resume needs a journal: give --journal FILE or --out FILE');
  const prefix = freezePrefix(session);
  const overwrite = values.overwrite === true;
  checkEarlierResults({ out: values.out, journal: values.journal, journalPath, resume: values.resume === true, overwrite }, prefix.id, tasks);
  // The journal is read (and refused when it belongs to another run) before anything runs.
  const resumed = values.resume && journalPath ? resumeJournal(journalPath, prefix.id, tasks) : undefined;
  const done = resumed?.state.done ?? new Map<string, ResultLine>();
  if (resumed && values.out) rewriteOut(values.out, done, tasks);
  const journal = resumed?.journal ?? (journalPath ? createJournal(journalPath, prefix.id, tasks) : undefined);
  // Checked now, so a bad path fails before anything runs.
  const outFd = values.out ? openOut(values.out, overwrite) : undefined;
  const toRun = tasks.filter((t) => !done.has(t.id));
  const byId = new Map(tasks.map((t) => [t.id, t]));
  if (resumed) io.stderr.write(`forkpool: resuming: ${done.size} of ${tasks.length} forks already finished, ${toRun.length} to run\n`);

  const provider = options.provider as ProviderOption;
  if (provider.kind === 'local' && !provider.url && !queueAddress) io.stderr.write(localNotice(shape));
  // A distributed run's id goes on record in the journal before any job is enqueued: a coordinator
  // restarted with --resume re-attaches to the same run (its jobs' ids), collecting what is still in the queue.
  const recordedRunId = resumed?.state.runId;
  const runId = queueAddress ? (recordedRunId ?? newRunId()) : undefined;
  if (runId !== undefined && runId !== recordedRunId) journal?.recordRun(runId);
  const queue: QueueRun | undefined =
    queueAddress && runId !== undefined
      ? await openQueueRun(queueAddress, options, prefix, toRun.length, io, { runId, attach: runId === recordedRunId })
      : undefined;
  const engine = queue ? queue.engine : await ForkEngine.create({ ...options, tools });
  let stopSignals: ReturnType<typeof onStopSignals> | undefined;
  try {
    // Streaming to --out, results are not kept in memory: a run of any size stays flat.
    const run = engine.fanOut(prefix, toRun, { parentWarm: parentWarm(values), retainResults: outFd === undefined });
    stopSignals = onStopSignals(() => run.cancelAll());
    // forkpool cancel, from anywhere: the same cancel as a signal here (every fork, or one task).
    queue?.dispatcher.onCancel((taskId) => (taskId === undefined ? run.cancelAll() : run.cancel(taskId)));
    const resultsToStdout = !outFd && format === 'json';
    const collected: ResultLine[] = [...done.values()];
    run.onResult((result) => {
      const line = resultLine(result);
      // Journal first (fsync'd): a result on record is never run again, and --out is rebuilt from it.
      journal?.record(byId.get(result.id) as ForkTask, line);
      if (outFd !== undefined) appendFileSync(outFd, `${JSON.stringify(line)}\n`);
      if (resultsToStdout) collected.push(line);
    });
    const stopProgress = format === 'text' ? startProgress(run, io.stderr) : () => undefined;
    if (format === 'stream-json') {
      const descriptions = new Map<string, string>();
      for await (const ev of run.events()) {
        if (ev.type === 'task_started') {
          descriptions.set(ev.forkId, ev.description);
          io.stdout.write(`${taskStartedLine(ev.forkId, undefined, ev.description, byId.get(ev.forkId)?.subagentType)}\n`);
        } else if (ev.type === 'task_notification') {
          io.stdout.write(`${taskNotificationLine(ev.result, descriptions.get(ev.forkId) ?? ev.forkId)}\n`);
        }
      }
    }
    await run.settled();
    stopProgress();
    const signal = stopSignals.received();
    const report = run.report();
    const previously = { resumed: done.size, resumedFailed: [...done.values()].filter((r) => r.status !== 'completed').length };
    const allCompleted = report.forks.completed === report.forks.total && previously.resumedFailed === 0;
    const workers = queue ? { runId: queue.runId, workers: queue.dispatcher.workers() } : {};
    if (format === 'stream-json') io.stdout.write(`${resultEventLine(report, { ...(resumed ? previously : {}), ...workers })}\n`);
    else if (format === 'json') {
      const summary = { type: 'result', subtype: allCompleted ? 'success' : 'error', is_error: !allCompleted, ...(resumed ? previously : {}), ...workers, ...compactReport(report) };
      io.stdout.write(`${JSON.stringify({ ...summary, ...(resultsToStdout ? { results: collected } : {}) })}\n`);
    } else {
      io.stdout.write(`${summaryText(report, queue ? queue.label : providerLabel(provider))}\n`);
      if (queue) io.stdout.write(`${workersText(queue.dispatcher.workers())}\n`);
      if (resumed) io.stdout.write(`resumed    ${previously.resumed} forks finished in an earlier run (${previously.resumedFailed} failed) were not run again\n`);
    }
    if (signal) {
      io.stderr.write(`forkpool: stopped by ${signal}; finished results were kept\n`);
      return 130;
    }
    return allCompleted ? 0 : 1;
  } finally {
    stopSignals?.dispose();
    journal?.close();
    if (outFd !== undefined) closeSync(outFd);
    await engine.close();
  }
}

/** Appended to (a resumed run's --out holds the finished forks), or emptied by --overwrite. */
function openOut(path: string, overwrite: boolean): number {
  try {
    return openSync(path, overwrite ? 'w' : 'a');
  } catch (err) {
    throw new UsageError(`--out: cannot open ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}
