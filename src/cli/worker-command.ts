import { ENGINE_DEFAULTS } from '../engine/options.js';
import type { BuiltInProviderOption as ProviderOption } from '../engine/options.js';
import { DEFAULT_LOCK_MS, startQueueWorker } from '../queue/worker.js';
import { findProvider } from '../model/providers/index.js';
import { shapeOf, type SessionFormat } from '../shapes/registry.js';
import { ENGINE_FLAGS, engineOptions, localNotice, optionFlag, requireApiKey, requireProjectProvider } from './engine-flags.js';
import { helpOf, parseOptionsOf, type FlagTable, examplesOf } from './flags.js';
import type { CliIo } from './io.js';
import { parseFlags, quoted } from './parse-flags.js';
import { QUEUE_URL_HELP, REDIS_PASSWORD_ENV_FLAG, queueFlagOf } from './queue-flag.js';
import { onStopSignals } from './signals.js';
import { startTelemetry } from './telemetry.js';
import { toolsFromFlags } from './tools-flags.js';
import { UsageError } from './usage-error.js';
import { EXIT_CODES_HELP } from './exit-codes.js';

const E = ENGINE_FLAGS;

/** `worker`'s flags: the queue, and the engine flags that are this process's own (its pool, provider, tools, retries). */
const WORKER_FLAGS = {
  queue: { type: 'string', arg: 'URL', help: `the distributed run's Redis (required):\n${QUEUE_URL_HELP}` },
  'redis-password-env': REDIS_PASSWORD_ENV_FLAG,
  'lock-ms': {
    type: 'string',
    arg: 'N',
    help: `BullMQ's job lock: a worker that dies holds its forks until it runs out,\nthen another worker takes them over (default ${DEFAULT_LOCK_MS})`,
  },
  name: { type: 'string', arg: 'NAME', help: 'how this worker is named in the run reports (default HOST:PID)' },
  'transcripts-root': {
    type: 'string',
    arg: 'DIR',
    help: "write the transcripts of runs started with --transcripts, when they are\nunder DIR (the folder this machine shares with the coordinators); without\nit a worker writes none (a job's path comes from Redis)",
  },
  help: { type: 'boolean', short: 'h', help: 'this help' },
  provider: E.provider,
  'base-url': E['base-url'],
  'api-key-env': E['api-key-env'],
  threads: E.threads,
  concurrency: optionFlag('concurrency', 'forks this process runs at once'),
  'call-timeout-ms': E['call-timeout-ms'],
  'max-attempts': E['max-attempts'],
  'retry-budget': optionFlag('retry-budget', 'retries this process may spend'),
  rpm: optionFlag('rpm', 'model requests per minute from this process'),
  tpm: optionFlag('tpm', 'tokens per minute from this process'),
  workspace: E.workspace,
  tools: E.tools,
  'otel-capture-content': E['otel-capture-content'],
} as const satisfies FlagTable;

const WORKER_HELP = `Usage: forkpool worker --queue URL [options]

Runs the forks of distributed runs (forkpool run ... --queue) until SIGTERM or SIGINT, then
finishes the forks in flight and exits. Any number of workers, on any machines, may serve the
same queue. Each reads its API keys from its own environment: keys never go through Redis.
The Redis password is never printed; --redis-password-env NAME reads it from the environment,
off the command line. With rediss:// (TLS), a server certificate from a private
CA is trusted when its file is in NODE_EXTRA_CA_CERTS.

${helpOf(WORKER_FLAGS)}

${EXIT_CODES_HELP}

${examplesOf([['forkpool worker --queue redis://127.0.0.1:6379 --concurrency 8', 'run the forks of distributed runs, 8 at a time, until Ctrl-C']])}`;

/**
 * The shape a worker's provider flags are checked against: the first its provider module speaks
 * (local speaks several: the default shape's rule applies); an unknown --provider is engineOptions' to name.
 */
function formatOf(provider: string | undefined): SessionFormat {
  const module = provider === undefined ? undefined : findProvider(provider.startsWith('ai-sdk:') ? 'ai-sdk' : provider);
  return module?.shapes[0] ?? (shapeOf({}).format as SessionFormat);
}

export async function workerCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, parseOptionsOf(WORKER_FLAGS), false);
  if (values.help) {
    io.stdout.write(`${WORKER_HELP}\n`);
    return 0;
  }
  const address = queueFlagOf(values, io.env, 'worker');
  const lockMs = values['lock-ms'] === undefined ? undefined : lockMsOf(values['lock-ms']);
  if (values.name !== undefined && (values.name === '' || values.name.length > 200)) throw new UsageError('--name: 1 to 200 characters');
  const format = formatOf(values.provider);
  const options = engineOptions(values, io.env, format);
  requireApiKey(options.provider, io.env);
  await requireProjectProvider(options.provider, values.provider);
  const tools = await toolsFromFlags(values.workspace, values.tools);
  const provider = options.provider as ProviderOption;
  if (provider.kind === 'local' && !provider.baseUrl) io.stderr.write(localNotice(format));
  const log = (line: string): void => void io.stderr.write(`forkpool worker: ${line}\n`);
  const concurrency = options.concurrency ?? ENGINE_DEFAULTS.concurrency;
  // Before the worker's engine makes its instruments (the API has no proxy for meters).
  const telemetry = await startTelemetry(io.env, { log });
  try {
    const worker = await startQueueWorker({
      address,
      engine: { ...options, tools },
      concurrency,
      ...(lockMs !== undefined ? { lockMs } : {}),
      ...(values.name !== undefined ? { name: values.name } : {}),
      ...(values['transcripts-root'] !== undefined ? { transcriptsRoot: values['transcripts-root'] } : {}),
      log,
    });
    const stopped = new Promise<NodeJS.Signals | undefined>((resolve) => {
      const signals = onStopSignals(() => resolve(signals.received()));
    });
    log(`${worker.name} ready on ${address.display} (queue forkpool, ${concurrency} forks at once, provider ${provider.kind})`);
    const signal = await stopped;
    log(`${signal ?? 'stop'}: finishing the forks in flight`);
    await worker.close();
  } finally {
    // The spans and metrics of the forks it ran go out before it exits (SIGTERM and SIGINT come here too).
    await telemetry?.close();
  }
  log('stopped');
  return 0;
}

function lockMsOf(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 100 || Number(value) > 86_400_000) {
    throw new UsageError(`--lock-ms: must be an integer from 100 to 86400000 (got ${quoted(value)})`);
  }
  return Number(value);
}
