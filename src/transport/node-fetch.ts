import type http from 'node:http';
import type https from 'node:https';
import type { Readable } from 'node:stream';
import type zlib from 'node:zlib';

/*
 * A fetch for the model SDKs' `fetch` hooks, over node:http with keep-alive: the request body goes
 * to the socket as the buffers it is given, never joined, re-encoded or copied into a stream. The
 * SDKs keep their own headers, error classes and response parsing (they read a web Response as
 * from any fetch). Measured on this machine kind: fetch (undici) spends about ten times node:http's
 * client CPU on a large body (DESIGN.md).
 */

/** The body of a request as buffers, sent one after the other. */
export type BodyChunks = readonly Uint8Array[];

export interface NodeTransport {
  /** A standard fetch: string and byte bodies go over node:http; any other input goes to the global fetch. */
  fetch: typeof fetch;
  /** The same request with a body made of buffers (a spliced request: shared bytes and a fork's own). */
  send(url: string | URL, init: RequestInit, chunks: BodyChunks): Promise<Response>;
  /** Ends the kept-alive sockets. */
  close(): void;
}

/**
 * node:http, node:https and node:zlib, loaded at the first request a process sends (process.getBuiltinModule:
 * synchronous, Node 20.16 and later): importing node:http costs about 70 ms of CPU on Node 24 (7 on Node 20),
 * which a process that imports forkpool but sends nothing from this thread should not pay.
 */
let builtins: { http: typeof http; https: typeof https; zlib: typeof zlib } | undefined;
function nodeBuiltins(): { http: typeof http; https: typeof https; zlib: typeof zlib } {
  builtins ??= {
    http: process.getBuiltinModule('node:http'),
    https: process.getBuiltinModule('node:https'),
    zlib: process.getBuiltinModule('node:zlib'),
  };
  return builtins;
}

/** Statuses whose responses have no body: a web Response refuses one for them. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export function createNodeTransport(): NodeTransport {
  let agents: { 'http:': http.Agent; 'https:': https.Agent } | undefined;
  const agentsOnce = (): { 'http:': http.Agent; 'https:': https.Agent } => {
    if (agents) return agents;
    const { http, https } = nodeBuiltins();
    agents = {
      'http:': new http.Agent({ keepAlive: true, scheduling: 'lifo' }),
      'https:': new https.Agent({ keepAlive: true, scheduling: 'lifo' }),
    };
    return agents;
  };

  function send(input: string | URL, init: RequestInit, chunks: BodyChunks): Promise<Response> {
    const url = typeof input === 'string' ? new URL(input) : input;
    const agent = url.protocol === 'http:' || url.protocol === 'https:' ? agentsOnce()[url.protocol] : undefined;
    if (agent === undefined) return Promise.reject(new TypeError(`fetch failed: the ${url.protocol} scheme is not HTTP`));
    const signal = init.signal ?? undefined;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const headers = outgoingHeaders(init.headers);
    let length = 0;
    for (const chunk of chunks) length += chunk.byteLength;
    if (chunks.length > 0 || (init.method ?? 'GET') !== 'GET') headers['content-length'] = length;

    return new Promise<Response>((resolve, reject) => {
      const { http, https } = nodeBuiltins();
      const request = (url.protocol === 'https:' ? https : http).request(url, { method: init.method ?? 'GET', headers, agent });
      const onAbort = (): void => {
        request.destroy(abortReason(signal as AbortSignal) as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = (): void => signal?.removeEventListener('abort', onAbort);
      request.once('error', (err) => {
        done();
        reject(signal?.aborted ? abortReason(signal) : new TypeError('fetch failed', { cause: err }));
      });
      request.once('response', (response) => {
        // Past this point an abort ends the body's stream with the abort's reason, as fetch does.
        response.once('close', done);
        resolve(toResponse(response));
      });
      request.cork();
      for (const chunk of chunks) request.write(chunk);
      request.uncork();
      request.end();
    });
  }

  const nodeFetch = (async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const chunks = input instanceof Request ? undefined : bodyChunks(init.body);
    if (chunks === undefined) return fetch(input, init);
    return send(input as string | URL, init, chunks);
  }) as typeof fetch;

  return {
    fetch: nodeFetch,
    send,
    close() {
      agents?.['http:'].destroy();
      agents?.['https:'].destroy();
    },
  };
}

/** A body this transport sends as it is: none, a string, or bytes. Anything else: undefined. */
function bodyChunks(body: RequestInit['body']): BodyChunks | undefined {
  if (body === undefined || body === null) return [];
  if (typeof body === 'string') return [Buffer.from(body)];
  if (body instanceof Uint8Array) return [body];
  if (body instanceof ArrayBuffer) return [new Uint8Array(body)];
  return undefined;
}

function toResponse(response: http.IncomingMessage): Response {
  const status = response.statusCode ?? 0;
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  if (NULL_BODY.has(status)) {
    response.resume();
    return new Response(null, { status, statusText: response.statusMessage ?? '', headers });
  }
  const body = webStream(decode(response, headers.get('content-encoding')));
  return new Response(body, { status, statusText: response.statusMessage ?? '', headers });
}

/** The request's headers as node:http takes them, read once (iterating a Headers sorts its entries each time). */
function outgoingHeaders(init: RequestInit['headers']): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  if (init === undefined) return out;
  (init instanceof Headers ? init : new Headers(init)).forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

/**
 * A response body as a web stream, chunk for chunk: what Readable.toWeb does, without its copy of
 * every chunk and its per-stream bookkeeping (a third of a small call's client CPU, profiled).
 * Backpressure: the socket is paused while the stream's queue is full. A body cut short (the
 * connection closed, the call aborted) errors the stream, as fetch's does.
 */
function webStream(source: Readable): ReadableStream<Uint8Array> {
  // Once the stream is closed, errored or cancelled by its reader, the socket's late events are dropped
  // (an 'end' already queued when the reader cancels would otherwise close a cancelled stream: a throw).
  let settled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const settle = (end: () => void): void => {
        if (settled) return;
        settled = true;
        end();
      };
      source.on('data', (chunk: Buffer) => {
        if (settled) return;
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 1) <= 0) source.pause();
      });
      source.once('end', () => settle(() => controller.close()));
      source.once('error', (err) => settle(() => controller.error(err)));
      source.once('close', () => settle(() => controller.error(new TypeError('terminated: the response body was cut short'))));
    },
    pull() {
      source.resume();
    },
    cancel() {
      settled = true;
      source.destroy();
    },
  });
}

/** A compressed body decoded, as fetch does (the SDKs read text). */
function decode(response: http.IncomingMessage, encoding: string | null): Readable {
  const { zlib } = nodeBuiltins();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : encoding === 'br'
          ? zlib.createBrotliDecompress()
          : undefined;
  if (decoder === undefined) return response;
  response.once('error', (err) => decoder.destroy(err));
  return response.pipe(decoder);
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}
