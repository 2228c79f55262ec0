import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/** A small node:http server of a test's own on a free port: every request recorded, the answer up to the test. */
export interface TinyServer {
  /** The server's root, and the path given to tinyServersClosedAfterEach (the SDK adds its route). */
  url: string;
  requests: { method: string | undefined; path: string | undefined; headers: IncomingMessage['headers']; body: string }[];
  /** Resolves when the client has gone (the connection of the nth request closed). */
  closed: (n: number) => Promise<void>;
  /** Stops it now (a URL nobody answers at); it is otherwise closed after the test. */
  close(): Promise<void>;
}

/** Answers the nth request (from 1), once its body has been read. */
export type TinyHandler = (n: number, req: IncomingMessage, res: ServerResponse) => void;

/**
 * Tiny servers started by a test file, each closed after every test (call once at the file's top
 * level). `urlPath` is added to each server's `url` (`/v1` where an SDK's base URL carries it).
 */
export function tinyServersClosedAfterEach(urlPath = ''): (handle: TinyHandler) => Promise<TinyServer> {
  let servers: Server[] = [];
  // Closing one already closed calls back with an error: it is closed all the same.
  const close = (server: Server): Promise<void> =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  afterEach(async () => {
    await Promise.all(servers.map(close));
    servers = [];
  });
  return async (handle) => {
    const requests: TinyServer['requests'] = [];
    const closes: Promise<void>[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      closes.push(new Promise((resolve) => res.on('close', () => resolve())));
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        requests.push({ method: req.method, path: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        handle(requests.length, req, res);
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}${urlPath}`,
      requests,
      closed: (n) => closes[n - 1] ?? Promise.reject(new Error(`no request ${n}`)),
      close: () => close(server),
    };
  };
}
