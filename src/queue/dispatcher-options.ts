import type { ModelPrice } from '../model/prices.js';
import type { FrozenPrefix } from '../prefix/index.js';
import type { QueueAddress } from './address.js';
import type { RunForkSettings } from './redis-wire.js';

/** How long the prefix, the run record and finished jobs stay in Redis after the coordinator last renewed them. */
const DEFAULT_TTL_SECONDS = 3_600;

export interface DispatcherOptions {
  address: QueueAddress;
  runId: string;
  prefix: FrozenPrefix;
  settings: RunForkSettings;
  /**
   * The run may already have jobs in the queue (a coordinator restarted with --resume under the
   * run id its journal recorded): each fork first looks for its job and collects it, and only a
   * fork with no job, or with a cancelled one, is enqueued.
   */
  attach?: boolean;
  /** The model's price, when one is known: what the attempts lost with dead workers cost. */
  price?: ModelPrice;
  ttlSeconds?: number;
  /** Lines for people (stderr). */
  log?: (line: string) => void;
}

/** The options with their defaults filled in. */
export type DispatcherConfig = DispatcherOptions & { ttlSeconds: number; log: (line: string) => void };

export function dispatcherConfigOf(options: DispatcherOptions): DispatcherConfig {
  return { ...options, ttlSeconds: options.ttlSeconds ?? DEFAULT_TTL_SECONDS, log: options.log ?? (() => undefined) };
}
