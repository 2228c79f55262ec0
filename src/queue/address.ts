/** Where a distributed run's Redis is: `redis://[USER:PASSWORD@]HOST[:PORT][/DB]`. */
export interface QueueAddress {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  /** The address as it may be printed: without the password. */
  display: string;
}

const FORM = 'redis://HOST:PORT[/DB]';

/** Parses a queue address; a TypeError says what is wrong with it (the caller names the flag). */
export function parseQueueAddress(text: string): QueueAddress {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(`not a URL: expected ${FORM} (got ${JSON.stringify(text.slice(0, 80))})`);
  }
  if (url.protocol === 'rediss:') throw new TypeError(`rediss:// (TLS) is not supported yet: expected ${FORM}`);
  if (url.protocol !== 'redis:') throw new TypeError(`expected ${FORM} (got the scheme ${JSON.stringify(url.protocol)})`);
  if (url.hostname === '') throw new TypeError(`expected ${FORM}: the host is missing`);
  if (url.search !== '' || url.hash !== '') throw new TypeError(`expected ${FORM}: options after ? or # are not supported`);
  const port = url.port === '' ? 6379 : Number(url.port);
  const path = url.pathname.replace(/^\//, '');
  if (path !== '' && !/^\d{1,5}$/.test(path)) throw new TypeError(`expected ${FORM}: the database must be a number (got ${JSON.stringify(path)})`);
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
    display: `redis://${auth}${url.hostname}:${port}${db !== 0 ? `/${db}` : ''}`,
  };
}

/** The connection settings BullMQ and ioredis both take for an address. */
export function connectionOf(address: QueueAddress): { host: string; port: number; db: number; username?: string; password?: string } {
  return {
    host: address.host,
    port: address.port,
    db: address.db,
    ...(address.username !== undefined ? { username: address.username } : {}),
    ...(address.password !== undefined ? { password: address.password } : {}),
  };
}
