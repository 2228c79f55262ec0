/**
 * One rate limit for a whole distributed run, every worker together: model requests and tokens per
 * minute and the 429 back-off live in Redis under the run id (`forkpool:rate:<run id>:*`, see
 * redis-wire.ts). BullMQ's own limiter counts jobs, and a job is a fork of several calls, so it
 * cannot bound model calls; this gate is asked before every attempt of every call instead.
 *
 * - The window is a sliding minute: a sorted set of the calls admitted, by time, each member ending
 *   in its tokens, and a counter of those tokens. One Lua script drops what left the window, checks
 *   both limits and the back-off, and admits (or says how long to wait), atomically across workers.
 * - A 429 ('rate_limited') sets "back off until" for every worker: 1 s, doubled by each 429 that
 *   comes after a back-off has ended within 10 s of the previous one, at most 30 s. 429s answered
 *   to calls sent before the back-off began do not lengthen it.
 * - Each worker keeps its own adaptive in-flight bound and retry budget (a local call gate, asked
 *   first: a call admitted by Redis is sent at once, so the window counts sends, not waits).
 *
 * Every wait is bounded and abortable: a wait sleeps at most `pollMs` before it asks Redis again,
 * and the fork's signal (its cancel, its timeout, the engine's close) ends it. When Redis does not
 * answer for `redisGraceMs`, calls go ahead under the local limits only (said once in the log):
 * a Redis outage must not hold every fork until its timeout.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { EngineCallGate, RateLimits } from '../engine/call-gate.js';
import { sleep } from '../model/retry.js';
import type { AttemptStatus } from '../model/types.js';
import { rateKey } from './redis-wire.js';

const WINDOW_MS = 60_000;
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_MAX_MS = 30_000;
/** A 429 within this long of the previous one (after its back-off ended) doubles the back-off. */
const STRIKES_MS = 10_000;
const POLL_MS = 1_000;
const REDIS_GRACE_MS = 30_000;

/** The time of the script: the caller's clock when one is given (tests), otherwise Redis's own, which every machine shares. */
const NOW = `
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end`;

/**
 * KEYS: calls, tokens, backoff. ARGV: now ('' = Redis's clock), window ms, requests per minute
 * (0: none), tokens per minute (0: none), this call's tokens, a member id unique to this call.
 * Returns {1, 0} when admitted, {0, ms to wait} when not.
 */
const ADMIT = `${NOW}
local window = tonumber(ARGV[2])
local rpm = tonumber(ARGV[3])
local tpm = tonumber(ARGV[4])
local tokens = tonumber(ARGV[5])
local back = tonumber(redis.call('GET', KEYS[3]) or '0')
if back > now then return {0, back - now} end
local cutoff = now - window
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', cutoff)
if #expired > 0 then
  local freed = 0
  for _, m in ipairs(expired) do freed = freed + (tonumber(string.match(m, ':(%d+)$')) or 0) end
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', cutoff)
  redis.call('DECRBY', KEYS[2], freed)
end
local count = redis.call('ZCARD', KEYS[1])
if count == 0 then
  redis.call('DEL', KEYS[2])
else
  local oldest = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
  local wait = math.max(1, oldest + window - now)
  if rpm > 0 and count >= rpm then return {0, wait} end
  -- A call larger than the whole budget still runs, alone in its window.
  if tpm > 0 and tonumber(redis.call('GET', KEYS[2]) or '0') + tokens > tpm then return {0, wait} end
end
redis.call('ZADD', KEYS[1], now, ARGV[6] .. ':' .. tokens)
redis.call('INCRBY', KEYS[2], tokens)
redis.call('PEXPIRE', KEYS[1], window * 2)
redis.call('PEXPIRE', KEYS[2], window * 2)
return {1, 0}`;

/**
 * KEYS: backoff, strikes. ARGV: now ('' = Redis's clock), base ms, max ms, strikes ms.
 * Returns the time every worker now backs off until.
 */
const BACK_OFF = `${NOW}
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current > now then return current end
local strikes = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[4]))
local ms = math.min(tonumber(ARGV[3]), tonumber(ARGV[2]) * 2 ^ (math.min(strikes, 16) - 1))
local untilAt = now + ms
redis.call('SET', KEYS[1], string.format('%d', untilAt), 'PX', math.floor(ms) + 60000)
return untilAt`;

interface RateCommands {
  forkpoolRateAdmit(calls: string, tokens: string, backoff: string, ...argv: string[]): Promise<[number, number]>;
  forkpoolRateBackOff(backoff: string, strikes: string, ...argv: string[]): Promise<number>;
}

export interface SharedGateOptions {
  redis: Redis;
  runId: string;
  /** The run's limits (from its record); none: only the 429 back-off is shared. */
  limits: RateLimits;
  /** This worker's own gate, asked first: its in-flight bound (adaptive) and retry budget. */
  local: EngineCallGate;
  /** ms; default Redis's own clock (TIME), so workers whose clocks differ still share one window. */
  now?: () => number;
  /** The longest sleep between two looks at Redis. Default 1 s. */
  pollMs?: number;
  /** How long Redis may fail before calls go ahead under the local limits only. Default 30 s. */
  redisGraceMs?: number;
  log?: (line: string) => void;
}

interface SharedGateStats {
  /** Calls this gate admitted. */
  admitted: number;
  /** Times a call waited (for the window, for a back-off or for Redis). */
  waits: number;
  /** 429s this gate reported to every worker. */
  rateLimited: number;
}

export type SharedGate = EngineCallGate & {
  release(status: AttemptStatus, wantsRetry: boolean): Promise<boolean>;
  stats(): SharedGateStats;
};

export function createSharedGate(options: SharedGateOptions): SharedGate {
  const { local, limits } = options;
  const log = options.log ?? (() => undefined);
  const pollMs = options.pollMs ?? POLL_MS;
  const graceMs = options.redisGraceMs ?? REDIS_GRACE_MS;
  const redis = options.redis as Redis & RateCommands;
  // defineCommand sends EVALSHA, and the script itself only when Redis does not have it yet.
  redis.defineCommand('forkpoolRateAdmit', { numberOfKeys: 3, lua: ADMIT });
  redis.defineCommand('forkpoolRateBackOff', { numberOfKeys: 2, lua: BACK_OFF });
  const keys = {
    calls: rateKey(options.runId, 'calls'),
    tokens: rateKey(options.runId, 'tokens'),
    backoff: rateKey(options.runId, 'backoff'),
    strikes: rateKey(options.runId, 'strikes'),
  };
  const now = (): string => (options.now ? String(Math.round(options.now())) : '');
  const id = randomBytes(6).toString('hex');
  let seq = 0;
  let failOpenSaid = false;
  const stats: SharedGateStats = { admitted: 0, waits: 0, rateLimited: 0 };

  const admitShared = async (tokens: number, signal: AbortSignal): Promise<boolean> => {
    let failingSince: number | undefined;
    for (;;) {
      if (signal.aborted) return false;
      let wait: number;
      try {
        const [admitted, ms] = await redis.forkpoolRateAdmit(
          keys.calls,
          keys.tokens,
          keys.backoff,
          now(),
          String(WINDOW_MS),
          String(limits.requestsPerMinute ?? 0),
          String(limits.tokensPerMinute ?? 0),
          String(tokens),
          `${id}.${seq++}`,
        );
        failingSince = undefined;
        if (admitted === 1) return true;
        wait = Number(ms);
      } catch (err) {
        const t = performance.now();
        failingSince ??= t;
        if (t - failingSince >= graceMs) {
          if (!failOpenSaid)
            log(
              `rate limit of run ${options.runId}: Redis has not answered for ${graceMs} ms (${(err as Error).message}); calls go ahead under this worker's limits only`,
            );
          failOpenSaid = true;
          return true;
        }
        wait = pollMs;
      }
      stats.waits++;
      if (!(await sleep(Math.min(Math.max(1, wait), pollMs), signal))) return false;
    }
  };

  return {
    async acquire(tokens: number, signal?: AbortSignal): Promise<boolean> {
      const s = signal ?? new AbortController().signal;
      if (!(await local.acquire(tokens, s))) return false;
      if (await admitShared(Math.max(0, Math.round(tokens)), s)) {
        stats.admitted++;
        return true;
      }
      // Aborted while waiting for the window: the local slot goes back, as no call was sent.
      await local.release('failed', false);
      return false;
    },

    /** The back-off is in Redis before this resolves, so the retry that follows waits for it too. */
    async release(status: AttemptStatus, wantsRetry: boolean): Promise<boolean> {
      const allowed = await local.release(status, wantsRetry);
      if (status === 'rate_limited') {
        stats.rateLimited++;
        try {
          await redis.forkpoolRateBackOff(
            keys.backoff,
            keys.strikes,
            now(),
            String(BACKOFF_BASE_MS),
            String(BACKOFF_MAX_MS),
            String(STRIKES_MS),
          );
        } catch (err) {
          log(`rate limit of run ${options.runId}: the 429 back-off could not reach Redis (${(err as Error).message})`);
        }
      }
      return allowed;
    },

    stats: () => ({ ...stats }),
  };
}
