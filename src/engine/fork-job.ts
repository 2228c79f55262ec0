import { AGENT_TOOL_NAME } from '../fork/index.js';
import type { CachePlan } from '../model/plan.js';
import type { ProviderConfig } from '../model/types.js';
import type { FrozenPrefix } from '../prefix/index.js';
import type { ForkStart } from './fork-start.js';
import type { ResolvedOptions } from './options.js';

/** The engine options a fork's job carries, under the option schema's names (docs/options.md). */
export type JobOptions = Pick<ResolvedOptions, 'history' | 'maxTurns' | 'timeoutMs' | 'retry' | 'maxTokensPerFork' | 'spawnTools'>;

/** What a job's run resolved once: where the model is, how requests are decorated, how long a tool may take. */
export interface JobContext {
  /** Where this process reaches the model (the provider module's config). */
  provider: ProviderConfig;
  plan: CachePlan;
  /** The longest a tool call may take on this thread (the tool host's). */
  toolTimeoutMs: number;
  /**
   * Each model call's report carries what it sent and received (TelemetryOptions.captureContent),
   * for a run that records its forks' model calls in spans.
   */
  captureContent: boolean;
}

/** The tools that start agents, refused in forks: `agent` and the engine's spawnTools. */
export function spawnToolsOf(options: Pick<ResolvedOptions, 'spawnTools'>): ReadonlySet<string> {
  return new Set([AGENT_TOOL_NAME, ...options.spawnTools]);
}

/**
 * A fork job's run-wide part: the prefix in shared memory, the plan, the provider and the bounds.
 * The one way a job is built, for a fan-out's forks and a single fork (ForkEngine.runFork, which
 * `forkpool worker` runs each queued fork with).
 */
export function forkJobOf(prefix: FrozenPrefix, options: JobOptions, context: JobContext): ForkStart['job'] {
  return {
    prefix: { id: prefix.id, buffer: prefix.buffer, byteLength: prefix.byteLength },
    prefixTokens: prefix.tokenEstimate,
    retry: options.retry,
    maxTokensPerFork: options.maxTokensPerFork,
    toolTimeoutMs: context.toolTimeoutMs,
    provider: context.provider,
    history: options.history,
    spawnTools: [...spawnToolsOf(options)],
    maxTurns: options.maxTurns,
    timeoutMs: options.timeoutMs,
    plan: context.plan,
    ...(context.captureContent ? { captureContent: true as const } : {}),
  };
}
