import { appendFileSync, closeSync, openSync } from 'node:fs';
import { ForkEngine } from '../engine/engine.js';
import { loadSession } from '../import/load.js';
import { streamTasks, type TaskLines } from '../session/task-lines.js';
import { SESSION_FORMAT_FLAG, sessionLoadOptions } from './session-format.js';
import {
  ENGINE_FLAGS,
  engineOptions,
  localNotice,
  outputFormat,
  parentWarm,
  providerLabel,
  requireApiKey,
  requireProjectProvider,
} from './engine-flags.js';
import { helpOf, parseOptionsOf, type FlagTable, examplesOf } from './flags.js';
import { startProgress, type Progress } from './progress.js';
import { answerText } from './answers.js';
import { resultLine, type ResultLine } from './result-line.js';
import { createJournal, resumeJournal, taskHash, type Journal } from './journal.js';
import { checkEarlierResults } from './earlier-results.js';
import { freezePrefix } from '../prefix/index.js';
import type { ForkTask, SubagentType } from '../session/schema.js';
import { compactReport, resultEventLine, streamSession, taskNotificationLines, taskStartedLine } from './stream-json.js';
import { counted, summaryText, TABLE_MAX_FORKS } from './summary.js';
import type { ForkCacheFigures } from '../engine/report.js';
import { toolsFromFlags } from './tools-flags.js';
import { UsageError } from './usage-error.js';
import { namesStoredResponses } from '../model/decorate.js';
import { priceOf } from '../model/prices.js';
import { parseFlags, portOf } from './parse-flags.js';
import { describeWriteError, requireWritableDir, type CliIo } from './io.js';
import { EXIT_CODES_HELP, exitCodeOfSignal } from './exit-codes.js';
import { onStopSignals } from './signals.js';
import { sessionFormat } from '../shapes/registry.js';
import type { BuiltInProviderOption as ProviderOption } from '../engine/options.js';
import { QUEUE_URL_HELP, REDIS_PASSWORD_ENV_FLAG } from './queue-flag.js';
import { newRunId, openQueueRun, queueAddressOf, queueSummaryFields, withLostAttempts, workersText, type QueueRun } from './queue-run.js';
import { METRICS_PORT_FLAG, startTelemetry, type CliTelemetry } from './telemetry.js';
import { serveRunPage } from '../ui/live-run.js';
import { UI_FLAGS, uiPortOf } from './ui-flags.js';
import type { LiveServer } from '../ui/server.js';

/** `run`'s flags: parsing and help both come from here. */
const RUN_FLAGS = {
  session: { type: 'string', arg: 'FILE', help: 'the parent session (JSON)' },
  'session-format': SESSION_FORMAT_FLAG,
  tasks: {
    type: 'string',
    arg: 'FILE|-',
    help: 'JSONL, one task a line: {"id","directive",...}; - reads stdin. A file is\nchecked whole first (a bad line or a repeated id: exit 2 naming the line,\nnothing runs), then read as the forks go. stdin is read as it comes: a bad\nline stops the reading, the forks before it finish (exit 1 naming the line)',
  },
  out: {
    type: 'string',
    arg: 'FILE',
    help: 'write one JSON result line per fork as it ends (results are then not kept\nin memory; default: stdout for --output-format json / stream-json)',
  },
  journal: { type: 'string', arg: 'FILE', help: 'durable record of finished forks (default: FILE.journal beside --out)' },
  resume: {
    type: 'boolean',
    help: 'skip each task the journal has a completed or failed result for (same id\nand content); --out is rebuilt to hold each finished fork exactly once.\nWith --transcripts, a fork that has one continues from its last completed\nturn instead of starting again. With --queue it re-attaches to the same\ndistributed run (its id is in the journal): jobs still queued or finished\nunheard are collected, not run again',
  },
  transcripts: {
    type: 'string',
    arg: 'DIR',
    help: "write each fork's transcript to DIR/<task id>.jsonl as it goes (read one\nwith forkpool transcript FILE). With --queue, the worker that runs a fork\nwrites it: DIR must be a folder every worker shares",
  },
  overwrite: {
    type: 'boolean',
    help: 'start again, discarding the results --out and the journal hold from an\nearlier run (without --resume or --overwrite, a run whose --out or journal\nholds results refuses to start)',
  },
  quiet: {
    type: 'boolean',
    short: 'q',
    help: "the summary alone (--output-format text prints each fork's id, status and\nfirst lines of its answer as it ends, then the summary)",
  },
  help: { type: 'boolean', short: 'h', help: 'this help' },
  ...ENGINE_FLAGS,
  'previous-response': {
    type: 'string',
    arg: 'ID',
    group: 'Provider and pool',
    help: "a Responses session, with --cache explicit: the id of the parent's last\nresponse, stored by OpenAI (store: true). Each fork that holds the whole\nconversation names it (previous_response_id) and sends only its own items,\nwith the instructions, tools and settings (a named response carries none over)",
  },
  'metrics-port': METRICS_PORT_FLAG,
  ...UI_FLAGS,
  queue: {
    type: 'string',
    arg: 'URL',
    group: 'Many machines',
    help: `coordinate a distributed run: the forks go to a BullMQ queue in this Redis,\nforkpool worker processes run them (their flags: forkpool worker --help).\nEvery fork is queued at once unless --concurrency bounds them (each worker\nruns its own --concurrency at a time). URL: ${QUEUE_URL_HELP}`,
  },
  'redis-password-env': { ...REDIS_PASSWORD_ENV_FLAG, group: 'Many machines' },
} as const satisfies FlagTable;

const RUN_HELP = `Usage: forkpool run --session FILE --tasks FILE|- [options]

Fans out one fork per task line from a saved parent conversation. Each fork inherits the
session's system instruction, tools, sampling settings and history, and gets its own directive.

${helpOf(RUN_FLAGS)}

${EXIT_CODES_HELP}

${examplesOf([
  [
    'forkpool run --session examples/session.json --tasks examples/research.jsonl --workspace .',
    'fan out the example research tasks on the built-in local server: each answer, then the summary',
  ],
  [
    'forkpool run --session s.json --tasks tasks.jsonl --out results.jsonl --quiet',
    'one result line per fork in results.jsonl, the summary alone on screen',
  ],
  [
    'forkpool run --session s.json --tasks tasks.jsonl --quiet || echo "exit $?"',
    'exit 1 when a fork failed, 2 when the input was bad and nothing ran',
  ],
])}`;

export async function runCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, parseOptionsOf(RUN_FLAGS), false);
  if (values.help) {
    io.stdout.write(`${RUN_HELP}\n`);
    return 0;
  }
  if (!values.session) throw new UsageError('run: --session FILE is required');
  if (!values.tasks) throw new UsageError('run: --tasks FILE (or - for stdin) is required');
  const format = outputFormat(values);
  if (values.quiet && format !== 'text')
    throw new UsageError(`--quiet: only with --output-format text (${format} prints no answers on the way to leave out)`);
  const showAnswers = format === 'text' && values.quiet !== true;
  const metricsPort = portOf('metrics-port', values['metrics-port']);
  const uiPort = uiPortOf('run', values);
  // Checked before anything is read or written: the flags that belong to the workers are refused.
  const queueAddress = queueAddressOf(values, io.env);
  const session = await loadSession(values.session, sessionLoadOptions(values['session-format'], io));
  const shape = sessionFormat(session);
  const options = engineOptions(values, io.env, shape);
  if (!queueAddress) requireApiKey(options.provider, io.env);
  if (!queueAddress) await requireProjectProvider(options.provider, values.provider);
  const storedResponse = storedResponseOf(values['previous-response'], shape, options.cache, queueAddress !== undefined);
  if (values.model) session.model = values.model;
  // A cost cap without a price would stop nothing: refused before any file is opened.
  if (options.maxCost !== undefined && priceOf(options.provider.kind, session.model, options.prices) === undefined) {
    throw new UsageError(
      `--max-cost: forkpool has no price for ${options.provider.kind} model "${session.model}": give it with --prices FILE (docs/prices.md)`,
    );
  }
  const tools = await toolsFromFlags(values.workspace, values.tools);
  const journalPath = values.journal ?? (values.out ? `${values.out}.journal` : undefined);
  if (values.resume && !journalPath) throw new UsageError('--resume needs a journal: give --journal FILE or --out FILE');
  const prefix = freezePrefix(session);
  const overwrite = values.overwrite === true;
  // Nothing paid for is thrown away unasked: an --out or journal holding results needs --resume or --overwrite.
  checkEarlierResults({ out: values.out, journal: values.journal, journalPath, resume: values.resume === true, overwrite }, prefix.id);
  // The journal is read (and refused when it belongs to another session) before anything runs.
  const resumed = values.resume && journalPath ? resumeJournal(journalPath, prefix.id) : undefined;
  const resultsToStdout = !values.out && format === 'json';
  const collected: ResultLine[] = [];
  const previously = { resumed: 0, resumedFailed: 0 };
  let outFd: number | undefined;
  // A resumed run rebuilds --out as the tasks stream past: a task the journal has a result for is not
  // run, its result goes to --out again, so each fork ends up there exactly once (whatever a killed
  // run left in it: a torn line, a result whose journal write never happened, a cancelled fork).
  const finishedLine = (task: ForkTask): ResultLine | undefined => resumed?.state.done.get(taskHash(task));
  const keepFinished = (task: ForkTask): void => {
    const line = finishedLine(task) as ResultLine;
    previously.resumed++;
    if (line.status !== 'completed') previously.resumedFailed++;
    if (outFd !== undefined) appendFileSync(outFd, `${JSON.stringify(line)}\n`);
    if (resultsToStdout) collected.push(line);
  };
  // Not with --queue: there the workers write the transcripts, on their own machines.
  if (values.transcripts !== undefined && !queueAddress) await requireWritableDir('--transcripts', values.transcripts);
  // A file is checked whole here (a bad line anywhere: exit 2, nothing has run); stdin line by line as it comes.
  const lines = await streamTasks(
    values.tasks,
    io.stdin,
    resumed ? { skip: (task) => finishedLine(task) !== undefined, onSkip: keepFinished } : {},
  );
  let journal: Journal | undefined = resumed?.journal;
  let engine: ForkEngine | undefined;
  let telemetry: CliTelemetry | undefined;
  let page: LiveServer | undefined;
  let stopSignals: ReturnType<typeof onStopSignals> | undefined;
  let progress: Progress | undefined;
  // The progress line (a TTY's stderr) is wiped before an answer is printed, and drawn again at its next tick.
  const clearProgress = (): void => progress?.clear();
  try {
    if (resumed && values.out) outFd = openOut(values.out, 'w');
    // Up to the first task to run: a bad first line is refused before anything starts.
    await lines.ready();
    // A distributed run reads every task first (each becomes a job; bad input enqueues nothing).
    const tasks = queueAddress ? await readAll(lines) : lines;
    if (resumed)
      io.stderr.write(
        `forkpool: resuming: the journal holds ${counted(resumed.state.done.size, 'finished fork')}; a task with the same id and content is not run again\n`,
      );
    journal ??= journalPath ? createJournal(journalPath, prefix.id) : undefined;
    // Checked now, so a bad path fails before anything runs.
    outFd ??= values.out ? openOut(values.out, overwrite ? 'w' : 'a') : undefined;

    const provider = options.provider as ProviderOption;
    if (provider.kind === 'local' && !provider.baseUrl && !queueAddress) io.stderr.write(localNotice(shape));
    // Before the engine (and a distributed run's dispatcher) makes its instruments.
    telemetry = await startTelemetry(io.env, { metricsPort, log: (line) => io.stderr.write(`forkpool: ${line}\n`) });
    // A distributed run's id goes on record in the journal (below): a coordinator restarted with
    // --resume re-attaches to the same run (its jobs' ids), collecting what is still in the queue.
    const recordedRunId = resumed?.state.runId;
    const runId = queueAddress ? (recordedRunId ?? newRunId()) : undefined;
    // One session id per invocation, on every stream-json line (a distributed run's is its run id).
    const stream = streamSession(runId);
    const queue: QueueRun | undefined =
      queueAddress && runId !== undefined && Array.isArray(tasks)
        ? await openQueueRun(queueAddress, options, prefix, tasks.length, io, { runId, attach: runId === recordedRunId })
        : undefined;
    // Recorded once Redis has taken the run and before any job is enqueued: a run Redis refused (a
    // wrong password, nobody at the address) leaves no run on record to block the corrected command.
    if (runId !== undefined && runId !== recordedRunId) journal?.recordRun(runId);
    engine = queue ? queue.engine : await ForkEngine.create({ ...options, tools });
    const out = outFd;
    // No result is kept but for the text summary's per-fork table, which a run of at most
    // TABLE_MAX_FORKS forks has: a run of any size stays readable and flat in memory. A file's
    // tasks are counted before the run, so the engine keeps the figures of a few (with the opening
    // wave's corrections); standard input's are not, so the rows of its first forks are kept here,
    // and let go once there are more.
    const known = Array.isArray(tasks) ? tasks.length : lines.total;
    const retainResults = format === 'text' && known !== undefined && known <= TABLE_MAX_FORKS;
    let ownRows: ForkCacheFigures[] | undefined = format === 'text' && known === undefined ? [] : undefined;
    const run = engine.fanOut(prefix, tasks, {
      parentWarm: parentWarm(values),
      retainResults,
      ...(storedResponse !== undefined ? { storedResponse } : {}),
      ...(values.transcripts !== undefined ? { transcripts: { dir: values.transcripts, resume: resumed !== undefined } } : {}),
      onResult: (result, task, end) => {
        const line = resultLine(result, task.subagentType ?? 'fork', Date.now(), { task, end });
        // Journal first (fsync'd): a result on record is never run again, and --out is rebuilt from it.
        journal?.record(task, line);
        if (out !== undefined) appendFileSync(out, `${JSON.stringify(line)}\n`);
        if (resultsToStdout) collected.push(line);
        ownRows?.push(end.figures);
        if (ownRows !== undefined && ownRows.length > TABLE_MAX_FORKS) ownRows = undefined;
        if (showAnswers) {
          clearProgress();
          io.stdout.write(`${answerText(result)}\n`);
        }
      },
    });
    if (uiPort !== undefined) {
      page = await serveRunPage(run, {
        ...(Array.isArray(tasks) ? { tasks } : {}),
        provider: queue ? queue.label : providerLabel(provider),
        model: prefix.session.model,
        port: uiPort,
        ...(queue ? { workers: () => queue.dispatcher.workersNow() } : { gate: () => (engine as ForkEngine).callGateStats() }),
      });
      io.stderr.write(`forkpool: live page: ${page.url}\n`);
    }
    stopSignals = onStopSignals(() => run.cancelAll());
    // forkpool cancel, from anywhere: the same cancel as a signal here (every fork, or one task).
    queue?.dispatcher.onCancel((taskId) => (taskId === undefined ? run.cancelAll() : run.cancel(taskId)));
    if (format === 'text') progress = startProgress(run, io.stderr);
    if (format === 'stream-json') {
      const started = new Map<string, { description: string; subagentType: SubagentType }>();
      for await (const ev of run.events()) {
        if (ev.type === 'task_started') {
          started.set(ev.forkId, { description: ev.description, subagentType: ev.subagentType ?? 'fork' });
          io.stdout.write(`${taskStartedLine(stream, ev.forkId, undefined, ev.description, ev.subagentType ?? 'fork')}\n`);
        } else if (ev.type === 'task_notification') {
          const task = started.get(ev.forkId);
          io.stdout.write(`${taskNotificationLines(stream, ev.result, task?.description ?? ev.forkId, task?.subagentType ?? 'fork')}\n`);
          started.delete(ev.forkId);
        }
      }
    }
    await run.settled();
    progress?.stop();
    const signal = stopSignals.received();
    // A distributed run's totals hold the attempts lost with dead workers too.
    const report = queue ? withLostAttempts(run.report(), queue.dispatcher.lostAttempts()) : run.report();
    // A bad line from stdin stopped the reading: the forks before it ran and their results are kept, but the run is not whole.
    const badTask = run.tasksError;
    // Whole: every task of the input has a result, and each is a completed fork with a whole answer (none cut or refused).
    const allCompleted =
      report.forks.totalKnown &&
      report.forks.completed === report.forks.total &&
      report.cutAnswers.length === 0 &&
      previously.resumedFailed === 0 &&
      badTask === undefined;
    const workers = queue ? queueSummaryFields(queue) : {};
    // Standard input stopped before its end (a cancel, a budget, a bad line): how far it was read, the rest never was.
    const read = lines.progress(report.forks.taken);
    const unread =
      Array.isArray(tasks) || read.ended
        ? {}
        : { input: { source: lines.source, throughLine: read.throughLine, tasksTaken: report.forks.taken, restRead: false } };
    if (format === 'stream-json')
      io.stdout.write(`${resultEventLine(stream, report, !allCompleted, { ...(resumed ? previously : {}), ...workers, ...unread })}\n`);
    else if (format === 'json') {
      const summary = {
        type: 'result',
        subtype: allCompleted ? 'success' : 'error',
        is_error: !allCompleted,
        ...(resumed ? previously : {}),
        ...workers,
        ...unread,
        ...compactReport(report),
      };
      io.stdout.write(`${JSON.stringify({ ...summary, ...(resultsToStdout ? { results: collected } : {}) })}\n`);
    } else {
      if (showAnswers && report.forks.completed + report.forks.failed + report.forks.cancelled > 0) io.stdout.write('\n');
      io.stdout.write(
        `${summaryText(report, queue ? queue.label : providerLabel(provider), {
          rows: retainResults ? report.perFork : ownRows,
          ...(values.out !== undefined ? { resultsFile: values.out } : {}),
        })}\n`,
      );
      if (queue) io.stdout.write(`${workersText(queue.dispatcher.workers(), queue.dispatcher.lostAttempts())}\n`);
      if (resumed)
        io.stdout.write(
          `resumed    ${counted(previously.resumed, 'fork')} finished in an earlier run (${previously.resumedFailed} failed) ${previously.resumed === 1 ? 'was' : 'were'} not run again\n`,
        );
      if (unread.input)
        io.stdout.write(
          `input      ${lines.source}: ${counted(report.forks.taken, 'task')} taken, through line ${read.throughLine}; the rest was not read\n`,
        );
    }
    if (signal) {
      io.stderr.write(`forkpool: stopped by ${signal}; finished results were kept\n`);
      return exitCodeOfSignal(signal);
    }
    // A bad line found after forks ran (stdin is read as it comes): named by its line, the run not whole.
    if (badTask) io.stderr.write(`forkpool: ${badTask.message}\n`);
    return allCompleted ? 0 : 1;
  } finally {
    stopSignals?.dispose();
    lines.close();
    journal?.close();
    if (outFd !== undefined) closeSync(outFd);
    try {
      // The page's last patch says the run ended; then it stops listening.
      await page?.close();
      await engine?.close();
    } finally {
      // Last: the engine's final spans and metrics go out with the flush.
      await telemetry?.close();
    }
  }
}

/** Every task of the stream, in an array. */
async function readAll(lines: TaskLines): Promise<ForkTask[]> {
  const tasks: ForkTask[] = [];
  for await (const task of lines) tasks.push(task);
  return tasks;
}

/** Appended to, or emptied (a resumed run rebuilds it; --overwrite discards an earlier run's). */
function openOut(path: string, flags: 'a' | 'w'): number {
  try {
    return openSync(path, flags);
  } catch (err) {
    throw new UsageError(`--out: cannot open ${path}: ${describeWriteError(err)}`);
  }
}

/** --previous-response: a Responses session's, with --cache explicit, on this machine's pool. */
function storedResponseOf(id: string | undefined, shape: string, cache: string | undefined, queued: boolean): string | undefined {
  if (id === undefined) return undefined;
  if (id === '') throw new UsageError("--previous-response: give the id of the parent's stored response (resp_…)");
  if (!namesStoredResponses(shape))
    throw new UsageError(
      `--previous-response: only a Responses session ("format": "openai-responses") names a stored response; this session is ${shape}`,
    );
  if (cache !== 'explicit')
    throw new UsageError(
      '--previous-response: forks name a stored response only with --cache explicit (without it they re-send the conversation, and the flag would do nothing)',
    );
  if (queued) throw new UsageError("--previous-response: not with --queue yet (a distributed run's forks re-send the conversation)");
  return id;
}
