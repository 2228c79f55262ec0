import { cancelRun } from '../queue/cancel.js';
import { isRunId } from '../queue/redis-wire.js';
import { helpOf, parseOptionsOf, type FlagTable, examplesOf } from './flags.js';
import type { CliIo } from './io.js';
import { parseFlags, quoted } from './parse-flags.js';
import { QUEUE_URL_HELP, REDIS_PASSWORD_ENV_FLAG, queueFlagOf } from './queue-flag.js';
import { UsageError } from './usage-error.js';
import { EXIT_CODES_HELP } from './exit-codes.js';

const CANCEL_FLAGS = {
  queue: { type: 'string', arg: 'URL', help: `the distributed run's Redis (required):\n${QUEUE_URL_HELP}` },
  'redis-password-env': REDIS_PASSWORD_ENV_FLAG,
  help: { type: 'boolean', short: 'h', help: 'this help' },
} as const satisfies FlagTable;

const CANCEL_HELP = `Usage: forkpool cancel --queue URL RUN [TASK]

Cancels a distributed run (RUN: the id its coordinator printed), or one fork of it (TASK: a task
id): jobs no worker has taken are removed from the queue, workers stop the forks they run (each
ends cancelled, with what it had), and the run's coordinator records them cancelled. A run Redis
does not know (never started there, or ended more than an hour ago) is an error: exit code 1.

${helpOf(CANCEL_FLAGS)}

${EXIT_CODES_HELP}
For cancel, 0 means the cancel was sent.

${examplesOf([
  [
    'forkpool cancel --queue redis://127.0.0.1:6379 RUN_ID',
    "cancel every fork of a distributed run (its id is in the coordinator's journal)",
  ],
  ['forkpool cancel --queue redis://127.0.0.1:6379 RUN_ID task-7', 'cancel one fork of it'],
])}`;

export async function cancelCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, parseOptionsOf(CANCEL_FLAGS), true);
  if (values.help) {
    io.stdout.write(`${CANCEL_HELP}\n`);
    return 0;
  }
  const address = queueFlagOf(values, io.env, 'cancel');
  const [runId, taskId, ...extra] = positionals;
  if (runId === undefined) throw new UsageError('cancel: the RUN id is required (the coordinator prints it: "distributed run RUN on …")');
  if (extra.length > 0) throw new UsageError(`cancel: one RUN and at most one TASK (got ${positionals.length} arguments)`);
  if (!isRunId(runId)) throw new UsageError(`cancel: RUN must be a run id, lowercase hex (got ${quoted(runId)})`);
  const outcome = await cancelRun(address, runId, taskId);
  const what = taskId === undefined ? `run ${runId}` : `fork ${JSON.stringify(taskId)} of run ${runId}`;
  if (!outcome.found) {
    io.stderr.write(
      `forkpool: cancel of ${what}: Redis at ${address.display} has no such run (never started there, or ended more than an hour ago); nothing was cancelled\n`,
    );
    return 1;
  }
  io.stdout.write(
    `forkpool: cancel of ${what} sent: ${outcome.removed} waiting job${outcome.removed === 1 ? '' : 's'} removed, ${outcome.listeners} process${outcome.listeners === 1 ? '' : 'es'} told (its coordinator and the workers)\n`,
  );
  return 0;
}
