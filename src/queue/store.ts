import { setTimeout as delay } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { freezePrefix, type FrozenPrefix } from '../prefix/index.js';
import { parseRunRecord, prefixKey, RUN_RECORD_VERSION, runKey, type RunForkSettings, type RunRecord } from './redis-wire.js';

/**
 * Stores the frozen prefix bytes under their content address, once: a prefix already there (the
 * same bytes, by its id) only has its TTL renewed.
 */
export async function storePrefix(redis: Redis, prefix: FrozenPrefix, ttlSeconds: number): Promise<void> {
  const key = prefixKey(prefix.id);
  // A copy of the shared bytes: the client may hold the buffer past this call.
  const bytes = Buffer.from(new Uint8Array(prefix.buffer, 0, prefix.byteLength));
  const stored = await redis.set(key, bytes, 'EX', ttlSeconds, 'NX');
  if (stored === null) await redis.expire(key, ttlSeconds);
}

export async function storeRun(redis: Redis, runId: string, record: RunRecord, ttlSeconds: number): Promise<void> {
  await redis.set(runKey(runId), JSON.stringify(record), 'EX', ttlSeconds);
}

/** What a coordinator stores for its run's workers, at its start and again when Redis lost it: the prefix and the run record. */
export async function storeRunData(
  redis: Redis,
  runId: string,
  prefix: FrozenPrefix,
  settings: RunForkSettings,
  ttlSeconds: number,
): Promise<void> {
  await storePrefix(redis, prefix, ttlSeconds);
  await storeRun(redis, runId, { version: RUN_RECORD_VERSION, prefixId: prefix.id, settings }, ttlSeconds);
}

/** Keeps a run's keys alive while it lasts (the TTL counts from the latest renewal). */
export async function renewRun(redis: Redis, runId: string, prefixId: string, ttlSeconds: number): Promise<void> {
  await redis.multi().expire(prefixKey(prefixId), ttlSeconds).expire(runKey(runId), ttlSeconds).exec();
}

/**
 * How long a worker waits for a prefix or a run record that is not in Redis: one whose Redis lost
 * its data has them back within seconds, as its coordinator stores them again (recovery.ts).
 */
const MISSING_WAIT_MS = 15_000;
const MISSING_POLL_MS = 250;

/** Reads a key until it is there, for at most waitMs. */
async function patiently<T>(read: () => Promise<T | null>, waitMs: number): Promise<T | null> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const value = await read();
    if (value !== null || Date.now() >= deadline) return value;
    await delay(MISSING_POLL_MS);
  }
}

/**
 * Fetches a prefix and freezes it again here: freezePrefix gives the same bytes, so its id must be
 * the one the job names (bytes changed in Redis, or written by another version, are refused).
 */
export async function fetchPrefix(redis: Redis, prefixId: string): Promise<FrozenPrefix> {
  const bytes = await patiently(() => redis.getBuffer(prefixKey(prefixId)), MISSING_WAIT_MS);
  if (bytes === null)
    throw new Error(
      `prefix ${prefixId.slice(0, 12)} is not in Redis (waited ${MISSING_WAIT_MS / 1000} s: its TTL ran out, or no coordinator stored it)`,
    );
  let session: unknown;
  try {
    session = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new Error(`prefix ${prefixId.slice(0, 12)} in Redis is not JSON`);
  }
  const prefix = freezePrefix(session);
  if (prefix.id !== prefixId) {
    throw new Error(
      `prefix ${prefixId.slice(0, 12)} in Redis freezes to ${prefix.id.slice(0, 12)}: its bytes are not the ones frozen under that id`,
    );
  }
  return prefix;
}

export async function fetchRun(redis: Redis, runId: string): Promise<RunRecord> {
  const text = await patiently(() => redis.get(runKey(runId)), MISSING_WAIT_MS);
  if (text === null)
    throw new Error(
      `run ${runId} is not in Redis (waited ${MISSING_WAIT_MS / 1000} s: its TTL ran out, or its coordinator never stored it)`,
    );
  return parseRunRecord(text, runId);
}
