import { Redis } from 'ioredis';
import { connectionOf, type QueueAddress } from './address.js';

/** Node's codes for a server certificate it cannot trust (self-signed, or signed by a CA it does not know). */
const UNTRUSTED_CERTIFICATE = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

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
  });
  // connect() rejects with "Connection is closed." alone: the cause (a refused password, an untrusted certificate) is the first error event.
  let cause: Error | undefined;
  redis.on('error', (err: Error) => {
    cause ??= err;
    onError(err);
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (thrown) {
    redis.disconnect();
    const err = cause ?? thrown;
    const code = (err as { code?: unknown }).code;
    const hint =
      typeof code === 'string' && UNTRUSTED_CERTIFICATE.has(code)
        ? ' (a certificate from a private CA: give its file to every forkpool process in NODE_EXTRA_CA_CERTS)'
        : '';
    throw new Error(`cannot reach Redis at ${address.display}: ${err instanceof Error ? err.message : String(err)}${hint}`);
  }
  return redis;
}
