import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pageHtml } from './page/html.js';
import type { RunRecorder } from './recorder.js';

/*
 * The live page of a run: an HTTP server on 127.0.0.1 whose every request must carry the random
 * token of the URL it printed (a page on another origin, or another user of the machine, gets a
 * 403), with the page, its server-sent events (a snapshot, then what changed, a few times a second),
 * a fork's detail, and stop. A Host header that is not this address is refused too (DNS rebinding).
 */

export interface LiveServerOptions {
  recorder: RunRecorder;
  title: string;
  /** 0: a free port. */
  port: number;
  /** Stops one fork (false: no such fork, or it had ended). */
  stopFork(id: string): boolean;
  stopRun(): void;
}

export interface LiveServer {
  /** The page's address, token included. */
  readonly url: string;
  /** Sends what changed last, says the run ended, and closes (the pages keep what they show). */
  close(): Promise<void>;
}

/** How often what changed goes out, and how often the figures are sampled. */
const PATCH_MS = 250;
const SAMPLE_MS = 1_000;
/** A comment now and then keeps proxies and the browser from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;

export async function startLiveServer(options: LiveServerOptions): Promise<LiveServer> {
  const token = randomBytes(24).toString('base64url');
  const streams = new Set<ServerResponse>();
  const recorder = options.recorder;
  let host = '';

  const message = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
  const broadcast = (): void => {
    const patch = recorder.patch();
    if (patch === undefined) return;
    // Made into text once, however many pages are open.
    const text = message('patch', patch);
    for (const res of streams) res.write(text);
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.headers.host !== host) return refuse(res, 400, 'this server answers only at the address it printed');
    if (!tokenMatches(url.searchParams.get('token'), token))
      return refuse(res, 403, 'this page needs the token of the URL forkpool printed');
    const route = `${req.method ?? 'GET'} ${url.pathname}`;
    switch (route) {
      case 'GET /': {
        const nonce = randomBytes(16).toString('base64');
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...securityHeaders(nonce) });
        res.end(pageHtml({ title: options.title, nonce }));
        return;
      }
      case 'GET /events':
        res.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-store',
          connection: 'keep-alive',
          'x-content-type-options': 'nosniff',
        });
        res.write(message('snapshot', recorder.snapshot(true)));
        streams.add(res);
        req.on('close', () => streams.delete(res));
        return;
      case 'GET /fork': {
        const detail = recorder.detail(url.searchParams.get('id') ?? '');
        if (detail === undefined) return refuse(res, 404, 'no fork of that id');
        return json(res, 200, detail);
      }
      case 'POST /stop': {
        const id = url.searchParams.get('id');
        if (id === null) {
          options.stopRun();
          return json(res, 202, { stopped: true });
        }
        return json(res, 202, { stopped: options.stopFork(id) });
      }
      default:
        return refuse(res, 404, 'not found');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  host = `127.0.0.1:${port}`;
  const timers = [
    setInterval(broadcast, PATCH_MS),
    setInterval(() => recorder.sample(), SAMPLE_MS),
    setInterval(() => {
      for (const res of streams) res.write(': keep-alive\n\n');
    }, HEARTBEAT_MS),
  ];

  return {
    url: `http://${host}/?token=${token}`,
    async close() {
      for (const timer of timers) clearInterval(timer);
      recorder.sample();
      recorder.end();
      broadcast();
      for (const res of streams) res.end();
      streams.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function tokenMatches(given: string | null, token: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The page runs its one script and style (by nonce) and talks to this server only. */
function securityHeaders(nonce: string): Record<string, string> {
  return {
    'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(JSON.stringify(body));
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
  res.end(`${message}\n`);
}
