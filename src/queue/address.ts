/** Where a distributed run's Redis is: `redis[s]://[[USER]:PASSWORD@]HOST[:PORT][/DB]`. */
export interface QueueAddress {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  /** `rediss://`: TLS, the server's certificate checked against Node's CAs (and NODE_EXTRA_CA_CERTS). */
  tls: boolean;
  /** The address as it may be printed: without the password. */
  display: string;
  /** The environment variable the password was read from (--redis-password-env), not the URL. */
  passwordEnv?: string;
}

/** How to start a worker on this queue, as the coordinator tells it: the address as printed, and where its password is. */
export function workerCommandOf(address: QueueAddress): string {
  return `forkpool worker --queue ${address.display}${address.passwordEnv !== undefined ? ` --redis-password-env ${address.passwordEnv}` : ''}`;
}

export const QUEUE_ADDRESS_FORM = 'redis[s]://[[USER]:PASSWORD@]HOST[:PORT][/DB]';

/** A reconnection every 200 ms more, at most every 2 s: a Redis back from a restart is seen within 2 s. */
const retryStrategy = (times: number): number => Math.min(times * 200, 2_000);

/** The text as it may be echoed in an error: everything up to its last '@' (a password, whatever it holds) masked. */
function masked(text: string): string {
  const at = text.lastIndexOf('@');
  return at === -1 ? text : `***${text.slice(at)}`;
}

/** Parses a queue address; a TypeError says what is wrong with it (the caller names the flag). */
export function parseQueueAddress(text: string): QueueAddress {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(`not a URL: expected ${QUEUE_ADDRESS_FORM} (got ${JSON.stringify(masked(text).slice(0, 80))})`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw new TypeError(`expected ${QUEUE_ADDRESS_FORM} (got the scheme ${JSON.stringify(url.protocol)})`);
  if (url.hostname === '') throw new TypeError(`expected ${QUEUE_ADDRESS_FORM}: the host is missing`);
  if (url.search !== '' || url.hash !== '') throw new TypeError(`expected ${QUEUE_ADDRESS_FORM}: options after ? or # are not supported`);
  const tls = url.protocol === 'rediss:';
  const port = url.port === '' ? 6379 : Number(url.port);
  const path = url.pathname.replace(/^\//, '');
  if (path !== '' && !/^\d{1,5}$/.test(path))
    throw new TypeError(`expected ${QUEUE_ADDRESS_FORM}: the database must be a number (got ${JSON.stringify(path)})`);
  const db = path === '' ? 0 : Number(path);
  // IPv6 hosts come bracketed from URL; ioredis wants them bare.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const username = url.username === '' ? undefined : decodeURIComponent(url.username);
  const password = url.password === '' ? undefined : decodeURIComponent(url.password);
  const auth = username !== undefined ? `${url.username}${password !== undefined ? ':***' : ''}@` : password !== undefined ? ':***@' : '';
  return {
    host,
    port,
    db,
    ...(username !== undefined ? { username } : {}),
    ...(password !== undefined ? { password } : {}),
    tls,
    display: `${url.protocol}//${auth}${url.hostname}:${port}${db !== 0 ? `/${db}` : ''}`,
  };
}

/** The connection settings BullMQ and ioredis both take. */
export interface QueueConnection {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  /** Options for tls.connect (none: Node's defaults, NODE_EXTRA_CA_CERTS included). */
  tls?: Record<string, never>;
  retryStrategy(times: number): number;
}

/**
 * The connection settings BullMQ and ioredis both take for an address. TLS checks the server's
 * certificate and name as Node does for any TLS client: a private CA goes in NODE_EXTRA_CA_CERTS.
 */
export function connectionOf(address: QueueAddress): QueueConnection {
  return {
    host: address.host,
    port: address.port,
    db: address.db,
    ...(address.username !== undefined ? { username: address.username } : {}),
    ...(address.password !== undefined ? { password: address.password } : {}),
    // ioredis hands these to tls.connect with the host, which Node checks the certificate against.
    ...(address.tls ? { tls: {} } : {}),
    retryStrategy,
  };
}
