import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ForkEngine } from '../engine/engine.js';
import type { ParentSession } from '../shapes/registry.js';
import { loadSession } from '../import/load.js';
import { SESSION_FORMAT_FLAG, sessionLoadOptions } from './session-format.js';
import {
  ENGINE_FLAGS,
  engineOptions,
  localNotice,
  outputFormat,
  providerLabel,
  requireApiKey,
  requireProjectProvider,
} from './engine-flags.js';
import { helpOf, parseOptionsOf, type FlagTable, examplesOf } from './flags.js';
import { requireWritableDir, type CliIo } from './io.js';
import { onStopSignals } from './signals.js';
import { parentLines, streamSession } from './stream-json.js';
import { toolsFromFlags } from './tools-flags.js';
import { UsageError } from './usage-error.js';
import { parseFlags } from './parse-flags.js';
import { sessionFormat, shapeOf } from '../shapes/registry.js';
import type { BuiltInProviderOption as ProviderOption } from '../engine/options.js';
import type { ParentOutcome } from '../engine/parent-events.js';
import { serveParentPage, type ParentPage } from '../ui/parent-run.js';
import { UI_FLAGS, uiPortOf } from './ui-flags.js';
import { startTelemetry } from './telemetry.js';
import { EXIT_CODES_HELP, exitCodeOfSignal } from './exit-codes.js';
import { isCut } from '../model/finish.js';
import { answerCut } from '../result/results.js';

/** `prompt`'s flags: parsing and help both come from here. */
const PROMPT_FLAGS = {
  session: { type: 'string', arg: 'FILE', help: 'a parent session to continue (default: an empty conversation)' },
  'session-format': SESSION_FORMAT_FLAG,
  transcripts: {
    type: 'string',
    arg: 'DIR',
    help: "write each task's transcript to DIR/<task id>.jsonl (its output file;\nsend_message revives a completed task from it; default: a folder\nnamed after the session id in the system's temporary folder)",
  },
  help: { type: 'boolean', short: 'h', help: 'this help' },
  ...ENGINE_FLAGS,
  ...UI_FLAGS,
} as const satisfies FlagTable;

const PROMPT_HELP = `Usage: forkpool prompt TEXT [--session FILE] [options]

Runs a headless parent agent: the model gets the session (if any), TEXT as the user's message and
the \`agent\` tool. Forks it starts run in the background; their notifications come back to it; the
final answer is printed once every fork has finished.

${helpOf(PROMPT_FLAGS)}

${EXIT_CODES_HELP}
A task the parent stopped itself (task_stop) is not a shortfall: the parent chose it.

${examplesOf([
  ["forkpool prompt 'FORK REPLY hello from a fork'", 'a parent on the built-in local server that forks once and answers'],
  [
    'forkpool prompt "Survey the repo" --session s.json --output-format stream-json',
    "the parent's turns and its tasks' notifications as JSON lines",
  ],
])}`;

const DEFAULT_MODEL = 'gemini-2.5-flash';

export async function promptCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, parseOptionsOf(PROMPT_FLAGS), true);
  if (values.help) {
    io.stdout.write(`${PROMPT_HELP}\n`);
    return 0;
  }
  const text = positionals.join(' ').trim();
  if (!text) throw new UsageError('prompt: the prompt TEXT is required');
  const format = outputFormat(values);
  const uiPort = uiPortOf('prompt', values);
  const session: ParentSession = values.session
    ? await loadSession(values.session, sessionLoadOptions(values['session-format'], io))
    : { model: DEFAULT_MODEL, history: [] };
  if (values.model) session.model = values.model;
  const shape = sessionFormat(session);
  const options = engineOptions(values, io.env, shape);
  requireApiKey(options.provider, io.env);
  await requireProjectProvider(options.provider, values.provider);
  const tools = await toolsFromFlags(values.workspace, values.tools);
  const provider = options.provider as ProviderOption;
  if (provider.kind === 'local' && !provider.baseUrl) io.stderr.write(localNotice(shape));

  const stream = streamSession();
  // Every task has a transcript, as in the reference (which keeps them under ~/.qwen): its output file, and what revives it.
  const transcripts = values.transcripts ?? join(tmpdir(), 'forkpool-transcripts', stream.id);
  // A folder the transcripts cannot go into is refused before anything runs (the default one is made only when a task starts).
  if (values.transcripts !== undefined) await requireWritableDir('--transcripts', values.transcripts);
  // Before the engine makes its instruments (the API has no proxy for meters).
  const telemetry = await startTelemetry(io.env, { log: (line) => io.stderr.write(`forkpool: ${line}\n`) });
  let engine: ForkEngine;
  try {
    engine = await ForkEngine.create({ ...options, tools });
  } catch (err) {
    await telemetry?.close();
    throw err;
  }
  const controller = new AbortController();
  const stopSignals = onStopSignals(() => controller.abort());
  const started = performance.now();
  const lines =
    format === 'stream-json'
      ? parentLines(stream, shapeOf(session).reader, session.model, (line) => io.stdout.write(`${line}\n`))
      : undefined;
  let page: ParentPage | undefined;
  let outcome: ParentOutcome | undefined;
  try {
    if (uiPort !== undefined) {
      const gate = engine;
      page = await serveParentPage({
        provider: providerLabel(provider),
        model: session.model,
        port: uiPort,
        gate: () => gate.callGateStats(),
        stopRun: () => controller.abort(),
      });
      io.stderr.write(`forkpool: live page: ${page.url}\n`);
    }
    const shown = page;
    outcome = await engine.runParentAgent(session, text, {
      signal: controller.signal,
      transcripts,
      ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
      ...(shown !== undefined ? { onFanOut: (run, tasks) => shown.onFanOut(run, tasks) } : {}),
      onEvent: (event) => {
        shown?.onEvent(event);
        if (lines !== undefined) lines.event(event);
        else if (format === 'text' && event.type === 'task_notification') {
          io.stderr.write(`forkpool: task ${event.forkId} ${event.result.status}\n`);
        }
      },
    });
    const signal = stopSignals.received();
    const shortfall = shortfallOf(outcome);
    const isError = shortfall !== undefined;
    const summary = {
      duration_ms: Math.round(performance.now() - started),
      num_turns: outcome.turns,
      result: outcome.text,
      ...(shortfall !== undefined ? { error: { message: shortfall } } : {}),
      usage: {
        input_tokens: outcome.usage.promptTokens,
        ...(outcome.usage.cachedTokens !== null ? { cache_read_input_tokens: outcome.usage.cachedTokens } : {}),
        output_tokens: outcome.usage.outputTokens,
      },
      forks: outcome.forks.map((f) => ({ id: f.id, status: f.status })),
    };
    if (format === 'text') {
      io.stdout.write(`${outcome.text}\n`);
      if (shortfall !== undefined) io.stderr.write(`forkpool: ${shortfall}\n`);
    } else if (lines !== undefined) lines.end(isError, summary, outcome.status === 'failed' && outcome.error.kind === 'max_turns');
    else io.stdout.write(`${JSON.stringify({ type: 'result', subtype: isError ? 'error' : 'success', is_error: isError, ...summary })}\n`);
    if (signal) return exitCodeOfSignal(signal);
    return isError ? 1 : 0;
  } finally {
    stopSignals.dispose();
    try {
      // The page's last patch says how the parent ended; then it stops listening.
      await page?.close(outcome);
      await engine.close();
    } finally {
      // Last: the parent's and the forks' final spans and metrics go out with the flush.
      await telemetry?.close();
    }
  }
}

/**
 * Why the run is short of whole (exit 1, and the summary's error), or undefined: the parent answered
 * in full and every task completed with a whole answer, or was stopped by the parent itself.
 */
function shortfallOf(outcome: ParentOutcome): string | undefined {
  if (outcome.status !== 'completed') return outcome.error.message;
  if (isCut(outcome.finish)) return `the parent's answer was cut (${outcome.finish?.raw})`;
  const stopped = new Set(outcome.stoppedByParent);
  const short = outcome.forks.flatMap((f) => {
    const cut = answerCut(f);
    if (cut !== undefined) return [`${f.id} (answer cut: ${cut.raw})`];
    if (f.status === 'completed' || (f.status === 'cancelled' && stopped.has(f.id))) return [];
    return [`${f.id} (${f.status}: ${f.error.message})`];
  });
  return short.length === 0
    ? undefined
    : `${short.length} task${short.length === 1 ? '' : 's'} did not complete with a whole answer: ${short.join('; ')}`;
}
