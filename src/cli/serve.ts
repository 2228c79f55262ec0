import { helpOf, parseOptionsOf, type FlagTable, examplesOf } from './flags.js';
import { parseFlags } from './parse-flags.js';
import { onStopSignals } from './signals.js';
import {
  isLatencyPreset,
  isUsagePreset,
  LATENCY_PRESETS,
  parseFaultSpec,
  startLocalServer,
  USAGE_PRESETS,
  type LocalServer,
  type LocalServerOptions,
} from '../local-server/index.js';
import { EXIT_CODES_HELP } from './exit-codes.js';

/** `serve`'s flags: parsing and help both come from here. */
const SERVE_FLAGS = {
  port: { type: 'string', arg: 'N', help: 'port to listen on (default 0: a free port)' },
  host: { type: 'string', arg: 'H', help: 'address to listen on (default 127.0.0.1)' },
  latency: { type: 'string', arg: 'PRESET', help: `${Object.keys(LATENCY_PRESETS).join(' | ')} (default zero)` },
  'min-cache-tokens': { type: 'string', arg: 'N', help: "the Gemini routes' simulated cache: minimum cacheable prompt (default 1024)" },
  'block-tokens': { type: 'string', arg: 'N', help: "the Gemini routes' simulated cache: tokens per block (default 64)" },
  usage: {
    type: 'string',
    arg: 'PRESET',
    help: `${USAGE_PRESETS.join(' | ')} (default openai): the provider the OpenAI routes
simulate (/v1/chat/completions, /v1/responses, /v1/models): usage field names and cache rules`,
  },
  faults: { type: 'string', arg: 'SPEC', help: 'e.g. "429=0.1,500=0.02,503=0.01,drop=0.01,slow=0.05,malformed=0.01,seed=7"' },
  'require-api-key': { type: 'string', arg: 'KEY', help: 'answer 401/403 unless requests carry this key' },
  help: { type: 'boolean', short: 'h', help: 'this help' },
} as const satisfies FlagTable;

const USAGE = `Usage: forkpool serve [options]

Runs the local model server (a scripted, simulated model) until SIGINT/SIGTERM. It speaks
Gemini's REST API (/v1beta), OpenAI's Chat Completions (/v1/chat/completions) and Responses API
(/v1/responses: streamed events, stored responses, previous_response_id) and Anthropic's Messages
API (/v1/messages).

${helpOf(SERVE_FLAGS)}

${EXIT_CODES_HELP}
For serve, 1 also means it cannot start (e.g. the port is taken).

${examplesOf([
  ['forkpool serve --port 8080', 'the local model server on http://127.0.0.1:8080, until Ctrl-C'],
  [
    'forkpool run --session s.json --tasks t.jsonl --provider local --base-url http://127.0.0.1:8080',
    'a run against it, from another terminal',
  ],
])}`;

export interface ServeIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Resolves when the process is asked to stop (default: SIGINT or SIGTERM). */
  stopped?: Promise<string>;
}

/** An integer flag of at least `min`: a negative value gets the same message as any other out of range. */
function intAtLeast(min: 0 | 1, name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new Error(`--${name} must be a ${min === 1 ? 'positive' : 'non-negative'} integer, got "${value}"`);
  return Number(value);
}

/** SIGINT/SIGTERM, through the same handler as the other commands. */
function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    const signals = onStopSignals(() => {
      signals.dispose();
      resolve(signals.received() ?? 'SIGTERM');
    });
  });
}

function parseOptions(argv: string[]): LocalServerOptions {
  const { values } = parseFlags(argv, parseOptionsOf(SERVE_FLAGS), false);
  const options: LocalServerOptions = {};
  const port = intAtLeast(0, 'port', values.port);
  if (port !== undefined) {
    if (port > 65535) throw new Error('--port must be at most 65535');
    options.port = port;
  }
  if (values.host !== undefined) options.host = values.host;
  if (values.latency !== undefined) {
    if (!isLatencyPreset(values.latency)) throw new Error(`--latency must be one of ${Object.keys(LATENCY_PRESETS).join(', ')}`);
    options.latency = values.latency;
  }
  const minTokens = intAtLeast(0, 'min-cache-tokens', values['min-cache-tokens']);
  const blockTokens = intAtLeast(1, 'block-tokens', values['block-tokens']);
  if (minTokens !== undefined || blockTokens !== undefined) {
    options.cache = {};
    if (minTokens !== undefined) options.cache.minTokens = minTokens;
    if (blockTokens !== undefined) options.cache.blockTokens = blockTokens;
  }
  if (values.faults !== undefined) options.faults = parseFaultSpec(values.faults);
  if (values['require-api-key'] !== undefined) options.requireApiKey = values['require-api-key'];
  if (values.usage !== undefined) {
    if (!isUsagePreset(values.usage)) throw new Error(`--usage must be one of ${USAGE_PRESETS.join(', ')}`);
    options.usage = values.usage;
  }
  return options;
}

/** `forkpool serve`: runs the local server (Gemini and OpenAI dialects) until SIGINT/SIGTERM. Exit code 2 on bad usage. */
export async function serveCommand(
  argv: string[],
  io: ServeIo = { out: (l) => console.log(l), err: (l) => console.error(l) },
): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(USAGE);
    return 0;
  }
  let options: LocalServerOptions;
  try {
    options = parseOptions(argv);
  } catch (err) {
    io.err(`forkpool serve: ${err instanceof Error ? err.message : String(err)}`);
    io.err(USAGE);
    return 2;
  }
  let server: LocalServer;
  try {
    server = await startLocalServer(options);
  } catch (err) {
    io.err(`forkpool serve: cannot start: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
  // Listening for the stop before saying we are up: a supervisor may signal as soon as it reads the URL.
  const stopped = io.stopped ?? waitForSignal();
  io.out(`forkpool local Gemini-, OpenAI- and Anthropic-compatible server (simulated, scripted model) listening on ${server.url}`);
  io.out(`export GOOGLE_GEMINI_BASE_URL=${server.url}`);
  io.out(`export OPENAI_BASE_URL=${server.url}/v1`);
  io.out(`export ANTHROPIC_BASE_URL=${server.url}`);
  await stopped;
  await server.close();
  return 0;
}
