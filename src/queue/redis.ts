import { Redis } from 'ioredis';
import { connectionOf, type QueueAddress } from './address.js';

/**
 * A client of our own (prefixes and run records), connected now: an address nobody answers at is
 * an error at once, not a silent retry loop. Later disconnections are retried.
 */
export async function connectRedis(address: QueueAddress, onError: (err: Error) => void = () => undefined): Promise<Redis> {
  const redis = new Redis({
    ...connectionOf(address),
    lazyConnect: true,
    connectTimeout: 5_000,
    maxRetriesPerRequest: 3,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
  redis.on('error', onError);
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    throw new Error(`cannot reach Redis at ${address.display}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return redis;
}
