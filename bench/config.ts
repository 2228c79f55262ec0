/** What `npm run bench` and `npm run bench -- --quick` run. */
import type { LatencyModel, UsagePreset } from '../dist/src/local-server/index.js';
import { KIB, MIB } from './lib/session.js';
import { FLOOR_CLIENTS, type FloorClient } from './floor.js';
import { PEER_CLIENTS, type PeerClient } from './peers.js';
import type { UiJob } from './ui.js';
import { COLD_KINDS, type ColdKind } from './cold-start.js';
import { AI_SDK_VARIANTS, type AiSdkVariant } from './ai-sdk.js';
import type { VariantName } from './variants/common.js';

/** The server latencies the AI SDK section runs at (presets of src/local-server/core/latency.ts). */
export type AiSdkLatency = 'zero' | 'fast' | 'realistic';

export const PREFIX_SIZES = [16 * KIB, 256 * KIB, 1 * MIB, 8 * MIB] as const;

/**
 * The prefix-size sweep's server latency: a fixed 100 ms per call plus 5 ms per output token,
 * prefill free. "realistic" would spend minutes prefilling an 8 MiB (~2M token) prefix; with
 * prefill free, what grows with the prefix is CPU work only: the engine's, the SDK's, the server's.
 */
export const SWEEP_LATENCY: LatencyModel = {
  overheadMs: 100,
  prefillTokensPerSecond: 1e12,
  cachedTokensPerSecond: 1e12,
  decodeTokensPerSecond: 200,
};

export interface BenchConfig {
  mode: 'quick' | 'full';
  threads: number;
  /** One child process per scenario (clean memory figures) instead of one per variant and group. */
  isolate: boolean;
  micro: { sizes: readonly number[] };
  /** Dispatch bursts: `n` forks dispatched at once, `bursts` times per size, against a dead port. */
  dispatch: { sizes: readonly number[]; n: number; bursts: number; variants: readonly VariantName[] };
  /**
   * `plainClientAt`: the prefix size at which each repeat, after `sab`, also runs the plain-client
   * ideal (bench/plain-client.ts: a node:http client sending the same n × 3 requests to the same
   * server process); null: not run (quick: its sweep has no 8 MiB size).
   */
  sweep: { sizes: readonly number[]; n: number; repeats: number; plainClientAt: number | null };
  throughput: {
    /** Fork counts per latency preset. */
    ns: { zero: readonly number[]; realistic: readonly number[] };
    concurrency: number;
    repeats: number;
    prefixBytes: number;
    /** The large fan-out (realistic and zero), run on its own with `bigRepeats` repeats. */
    bigN: number | null;
    bigRepeats: number;
  };
  /**
   * `latency`: realistic in the full run; quick uses 'fast' (the same shape scaled down: the cold start is still a whole wave).
   * `chat`: the same conversation in OpenAI Chat Completions' shape, per simulated provider preset
   * (warm-up none, auto, parent; DeepSeek's auto and parent also with `cacheBuildMs: 0`), `ns` forks
   * each, run `chat.repeats` times (no more than `repeats`). Once in the full run too: in 3 runs at
   * realistic latency (2026-12-01) hit rate, efficiency and misses came out the same every time
   * except in DeepSeek's parent-warm rows at N=256 (spread up to 0.04), and the 3 runs took the
   * cache section from 3 to 14 minutes (on the shared machine).
   */
  cache: {
    ns: readonly number[];
    concurrency: number;
    repeats: number;
    prefixBytes: number;
    latency: 'realistic' | 'fast';
    /** `withoutWarmup`: also the warm-up-none job per preset (the Gemini rows show that loss in every mode). */
    chat: { ns: readonly number[]; presets: readonly UsagePreset[]; repeats: number; withoutWarmup: boolean };
  };
  /**
   * sab+explicit over a small and a large prefix: `nBig` forks over each, and `nSmall` forks over
   * the large one, so that what grows per fork (a copy per fork in flight) shows apart from what
   * the prefix costs once.
   */
  memory: { nSmall: number; nBig: number; concurrency: number; smallPrefix: number; bigPrefix: number };
  /** One-call forks per run, with results retained and streamed (`retainResults: false`). */
  retention: { n: number };
  /** Lines of the streamed task file (also run at half as many, for the per-task slope). */
  tasks: { lines: number };
  /**
   * The same run local and on a BullMQ queue (issue 16): `n` forks per run at each latency, `repeats`
   * times, with 0 (local), then each of `workers` worker processes; `concurrency` forks in flight in all. Memory:
   * one worker, `memory.n` forks (one wave) at `memory.latency`, Redis sampled while they run.
   */
  queue: {
    n: number;
    latencies: readonly { latency: 'zero' | 'fast' | 'realistic'; repeats: number }[];
    workers: readonly number[];
    concurrency: number;
    /** null: no run of its own (the rows above still sample Redis with their forks in flight). */
    memory: { n: number; latency: 'fast' | 'realistic' } | null;
  };
  /**
   * A fork's model call against the physical floor (issue 24, bench/floor.ts): each client in a
   * process of its own against the sink, `calls` calls per run (`inFlight` at a time), `runs` runs
   * per prefix size after a warm-up batch of `warmupCalls`. `throughput`: node:http and forkpool
   * again at these sizes with more calls per run, for the throughput rows (null: those rows come
   * from the CPU runs).
   */
  floor: {
    /** The columns measured: every client in the full run. */
    clients: readonly FloorClient[];
    sizes: readonly number[];
    calls: number;
    warmupCalls: number;
    /** Calls at the first size before any size is measured (FloorJob.jitWarmupCalls). */
    jitWarmupCalls: number;
    runs: number;
    inFlight: number;
    throughput: { sizes: readonly number[]; calls: number } | null;
  };
  /**
   * A fan-out's client CPU per call, fresh and warm (issue 44, bench/fanout-cpu.ts): per row, `runs`
   * processes of each client (forkpool, the in-process SDK) against the sink, alternating, each a
   * fresh fan-out of `calls` one-call forks of `prefixBytes` (`warm`: then a second one, and, with
   * `warmCodeCalls`, one more once the process has made that many calls: its code compiled). `oneFork`:
   * also forkpool's fresh run of one fork (its fixed cost), `runs` times.
   */
  fanout: {
    rows: readonly { prefixBytes: number; calls: number; warm: boolean }[];
    runs: number;
    inFlight: number;
    oneFork: boolean;
    warmCodeCalls: number;
  };
  /**
   * Peers in the same run (issue 24, bench/peers.ts): the same fan-out, `n` one-call forks of one
   * conversation with `concurrency` in flight, through each of `clients` (forkpool and agent
   * frameworks on their own SDK paths), each in a process of its own against one local server
   * (Chat Completions, the openai preset) at `latency`: `runs` measured runs per prefix size, a
   * cold cache each (odd runs: makespan and CPU; even runs: the same with the event-loop monitor).
   */
  peers: {
    sizes: readonly number[];
    n: number;
    concurrency: number;
    runs: number;
    latency: 'realistic' | 'fast';
    clients: readonly PeerClient[];
  };
  /**
   * The AI SDK's own parallel `generateText` against forkpool's `forkTool` (issue 29, bench/ai-sdk.ts):
   * one AI SDK agent (a system prompt of `prefixBytes`, `turns` earlier turns) whose model calls the
   * tool `fork` n times in one step, for each n of `ns`; the forks run by hand in the agent's process
   * (variant ai-sdk) or through forkTool on forkpool's workers (variant forkpool), each variant in a
   * process of its own, and the same agent on the OpenAI Agents SDK (variants agents-sdk and
   * agents-forkpool, bench/openai-agents.ts, on the Responses route), against one local server
   * (the openai preset) at each of
   * `latencies` (a server each): `runs` agent runs per n, each on a cold cache (odd runs: makespan
   * and CPU; even runs: the same with the event-loop monitor).
   */
  aiSdk: {
    prefixBytes: number;
    turns: number;
    ns: readonly number[];
    runs: number;
    latencies: readonly AiSdkLatency[];
    variants: readonly AiSdkVariant[];
  };
  /**
   * The scaling curve (issue 24): `sab` forks (3 model calls, 2 tool calls) as one dimension at a
   * time moves away from `base`: forks, worker threads, concurrency, prefix size. Each point is a
   * job of its own (its own process and pool), each axis has a server process of its own; the concurrency axis runs
   * at SWEEP_LATENCY with `concurrencyWaves` × concurrency forks (latency is what concurrency
   * hides), the others at zero latency (what the machine's CPU allows); the prefix axis runs
   * `prefixN` forks per size. Each point runs `repeats` times (median), except fan-outs of 10,000
   * forks or more, which run once (their length evens them out).
   */
  scaling: {
    base: { n: number; threads: number; concurrency: number; prefixBytes: number };
    forks: readonly number[];
    threads: readonly number[];
    concurrency: readonly number[];
    concurrencyWaves: number;
    prefixes: readonly number[];
    prefixN: number;
    repeats: number;
  };
  /**
   * The live page and the HTML report in Chromium (issue 28, bench/ui.ts): `forks` forks' synthetic
   * events fed to the page's recorder over `feedMs` (about `inFlight` running at once), with
   * `searchSamples` keystrokes in its search box meanwhile; each time-to-render figure over
   * `renderRuns` pages opened (median).
   */
  ui: UiJob;
  /** Cold start (bench/cold-start.ts): `runs` fresh processes of each kind, against a server in another process. */
  cold: { runs: number; kinds: readonly ColdKind[] };
  variants: readonly VariantName[];
  /** Per-fork bound: a stuck fork fails, the benchmark goes on. */
  forkTimeoutMs: number;
}

const VARIANTS: readonly VariantName[] = ['inprocess', 'clone', 'sab', 'sab+explicit'];
/** Every simulated OpenAI-compatible provider ('none': a vLLM-like server that does not report cached tokens). */
const CHAT_PRESETS: readonly UsagePreset[] = ['openai', 'deepseek', 'dashscope', 'none'];

/**
 * Within 90 s on 2 cores: every section's headline once, on the fewest forks and sizes that still
 * give it (16 KiB and 1 MiB where a target compares sizes, 8 MiB where it is about 8 MiB; sab alone
 * where the full run compares variants; N=16 for the cache's cold start; the AI SDK's fork tools, the
 * Agents SDK's in the full run). throughput and scaling are the full run's (run.ts, FULL_RUN_ONLY).
 * On a quiet machine it took 86 s on 2026-12-05 (bench's own count; 89 s for `npm run bench --
 * --quick`): most of each section is its processes' start-up, which load stretches.
 */
export const QUICK: BenchConfig = {
  mode: 'quick',
  threads: 2,
  isolate: false,
  micro: { sizes: [16 * KIB, 1 * MIB] },
  dispatch: { sizes: [16 * KIB, 1 * MIB], n: 8, bursts: 1, variants: ['clone', 'sab'] },
  sweep: { sizes: [16 * KIB, 1 * MIB], n: 8, repeats: 1, plainClientAt: null },
  throughput: { ns: { zero: [100], realistic: [] }, concurrency: 64, repeats: 1, prefixBytes: 16 * KIB, bigN: null, bigRepeats: 0 },
  cache: {
    ns: [16],
    concurrency: 64,
    repeats: 1,
    prefixBytes: 16 * KIB,
    latency: 'fast',
    // The Chat Completions route's cache in the full run: the quick run keeps Gemini's.
    chat: { ns: [16], presets: [], repeats: 1, withoutWarmup: false },
  },
  memory: { nSmall: 2, nBig: 8, concurrency: 64, smallPrefix: 16 * KIB, bigPrefix: 8 * MIB },
  retention: { n: 500 },
  tasks: { lines: 4_000 },
  queue: { n: 64, latencies: [{ latency: 'zero', repeats: 1 }], workers: [2], concurrency: 64, memory: null },
  // One run each, as the other quick sections (the full run takes the median of 5), and the headline
  // clients only (node:http, the SDK, forkpool; the Agents SDK among the peers): the two sections
  // cost about 40 s of the quick run with every client, each a process of its own.
  floor: {
    clients: ['node-http', 'sdk', 'forkpool'],
    sizes: [16 * KIB, 1 * MIB],
    calls: 48,
    warmupCalls: 8,
    jitWarmupCalls: 300,
    runs: 1,
    inFlight: 16,
    throughput: null,
  },
  // Two processes of ~3 s each: the 16 KiB row, fresh then warm.
  fanout: { rows: [{ prefixBytes: 16 * KIB, calls: 200, warm: true }], runs: 1, inFlight: 16, oneFork: false, warmCodeCalls: 0 },
  peers: { sizes: [64 * KIB], n: 16, concurrency: 16, runs: 2, latency: 'fast', clients: ['forkpool', 'ai-sdk'] },
  // Two processes of ~2–3 s each (start-up, a warm-up agent run, two measured runs of 16 forks): the AI SDK's
  // fork tools; the Agents SDK's in the full run.
  aiSdk: { prefixBytes: 64 * KIB, turns: 3, ns: [16], runs: 2, latencies: ['zero'], variants: ['ai-sdk', 'forkpool'] },
  // Two axes' ends on few forks: each point is a process and a pool of its own (~1.5 s each); the
  // sweep and the floor cover prefix size, the throughput section a fan-out at concurrency 64.
  // 150 forks at the base point (300 until 2026-12-04: the same forks/s and CPU per fork, 1.2 s less).
  scaling: {
    base: { n: 150, threads: 2, concurrency: 64, prefixBytes: 16 * KIB },
    forks: [150],
    threads: [],
    concurrency: [],
    concurrencyWaves: 2,
    prefixes: [],
    prefixN: 0,
    repeats: 1,
  },
  // The 10,000 forks, fed over 2 s (about 11 s with Chromium's start and four pages opened).
  ui: { forks: 10_000, feedMs: 2_000, inFlight: 256, renderRuns: 1, searchSamples: 6 },
  // Four processes (about 1 s each on an idle machine): forkpool's first answer and the SDK's, side by side.
  cold: { runs: 2, kinds: ['forkpool', 'sdk'] },
  variants: ['sab'],
  forkTimeoutMs: 120_000,
};

export const FULL: BenchConfig = {
  mode: 'full',
  threads: 2,
  isolate: true,
  micro: { sizes: PREFIX_SIZES },
  dispatch: { sizes: PREFIX_SIZES, n: 64, bursts: 6, variants: ['inprocess', 'clone', 'sab'] },
  sweep: { sizes: PREFIX_SIZES, n: 32, repeats: 3, plainClientAt: 8 * MIB },
  throughput: {
    ns: { zero: [1, 10, 100], realistic: [1, 10, 100] },
    concurrency: 64,
    repeats: 3,
    prefixBytes: 16 * KIB,
    bigN: 1000,
    bigRepeats: 1,
  },
  cache: {
    ns: [16, 256],
    concurrency: 64,
    repeats: 3,
    prefixBytes: 16 * KIB,
    latency: 'realistic',
    chat: { ns: [16, 256], presets: CHAT_PRESETS, repeats: 1, withoutWarmup: true },
  },
  memory: { nSmall: 16, nBig: 1000, concurrency: 64, smallPrefix: 16 * KIB, bigPrefix: 8 * MIB },
  retention: { n: 100_000 },
  tasks: { lines: 1_000_000 },
  queue: {
    n: 300,
    latencies: [
      { latency: 'zero', repeats: 3 },
      { latency: 'realistic', repeats: 3 },
    ],
    workers: [1, 2, 4],
    concurrency: 64,
    memory: { n: 64, latency: 'realistic' },
  },
  floor: {
    clients: FLOOR_CLIENTS,
    sizes: [16 * KIB, 256 * KIB, 1 * MIB, 4 * MIB, 8 * MIB],
    calls: 48,
    warmupCalls: 48,
    jitWarmupCalls: 3000,
    runs: 5,
    inFlight: 16,
    throughput: { sizes: [16 * KIB, 1 * MIB], calls: 480 },
  },
  // About 4 minutes: 5 runs × (4 rows × 2 clients + the one-fork run), a process each.
  fanout: {
    rows: [
      { prefixBytes: 16 * KIB, calls: 200, warm: true },
      { prefixBytes: 256 * KIB, calls: 200, warm: false },
      { prefixBytes: 1 * MIB, calls: 200, warm: false },
      { prefixBytes: 4 * MIB, calls: 48, warm: false },
    ],
    runs: 5,
    inFlight: 16,
    oneFork: true,
    // As the floor's jitWarmupCalls: in-process alternation (2026-12-06) had forkpool's worker threads reach
    // the SDK's cost per call after about 3,000 calls, the SDK's one thread after a few hundred.
    warmCodeCalls: 3_000,
  },
  peers: { sizes: [64 * KIB, 1 * MIB], n: 64, concurrency: 16, runs: 2, latency: 'realistic', clients: PEER_CLIENTS },
  // About 6 minutes, most of it the agent's own model: at realistic latency its step of 256 tool calls
  // decodes for ~60 s (100 tokens/s), the same in both variants; 4 runs took 12 minutes (2026-12-04).
  aiSdk: { prefixBytes: 64 * KIB, turns: 3, ns: [16, 256], runs: 3, latencies: ['zero', 'realistic'], variants: AI_SDK_VARIANTS },
  scaling: {
    base: { n: 2_000, threads: 2, concurrency: 64, prefixBytes: 16 * KIB },
    forks: [1, 10, 100, 1_000, 10_000, 100_000],
    threads: [1, 2, 4, 8],
    concurrency: [16, 64, 256, 1_024],
    concurrencyWaves: 8,
    prefixes: [16 * KIB, 256 * KIB, 1 * MIB, 4 * MIB, 8 * MIB],
    prefixN: 256,
    repeats: 3,
  },
  ui: { forks: 10_000, feedMs: 20_000, inFlight: 256, renderRuns: 5, searchSamples: 20 },
  cold: { runs: 5, kinds: COLD_KINDS },
  variants: VARIANTS,
  forkTimeoutMs: 300_000,
};
