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

export interface NodeTransportOptions {
  /**
   * A successful event stream's body is a reader source (getReader()) over the socket, not a web
   * stream, its headers a list: for a client that reads such a response through getReader() alone
   * (@google/genai). Any other response is a Response.
   */
  readerBodies?: boolean;
}

export function createNodeTransport(options: NodeTransportOptions = {}): NodeTransport {
  const readerBodies = options.readerBodies === true;
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
        // From here the body's reader answers the abort (cutByAbort).
        done();
        resolve(readerBodies && isEventStream(response) ? readerResponse(response, signal) : toResponse(response, signal));
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

function toResponse(response: http.IncomingMessage, signal: AbortSignal | undefined): Response {
  const status = response.statusCode ?? 0;
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  if (NULL_BODY.has(status)) {
    response.resume();
    return new Response(null, { status, statusText: response.statusMessage ?? '', headers });
  }
  const body = webStream(decode(response, headers.get('content-encoding')), signal);
  return new Response(body, { status, statusText: response.statusMessage ?? '', headers });
}

function isEventStream(response: http.IncomingMessage): boolean {
  const status = response.statusCode ?? 0;
  return status >= 200 && status < 300 && !NULL_BODY.has(status) && /^text\/event-stream\b/i.test(response.headers['content-type'] ?? '');
}

/**
 * A successful event stream as a client that reads it through getReader() sees it: its body read
 * chunk for chunk from the socket without a web stream, its headers the raw list (iterable as
 * pairs, so a Response can be made with them). A web stream and a Headers cost more than the rest
 * of the transport's work on a small call, in every thread that runs one (profiled).
 */
function readerResponse(response: http.IncomingMessage, signal: AbortSignal | undefined): Response {
  const headers = new HeaderList(response.rawHeaders);
  const reader = new BodyReader(decode(response, headers.get('content-encoding')), signal);
  return {
    ok: true,
    status: response.statusCode ?? 200,
    statusText: response.statusMessage ?? '',
    headers,
    body: { getReader: () => reader },
  } as unknown as Response;
}

/** A response's headers as received: lower-cased names, in order; `get` joins repeated ones as Headers does. */
class HeaderList {
  private readonly pairs: [string, string][] = [];

  constructor(raw: readonly string[]) {
    for (let i = 0; i + 1 < raw.length; i += 2) this.pairs.push([(raw[i] as string).toLowerCase(), raw[i + 1] as string]);
  }

  get(name: string): string | null {
    const key = name.toLowerCase();
    const values = this.pairs.filter(([n]) => n === key).map(([, v]) => v);
    return values.length === 0 ? null : values.join(', ');
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  forEach(each: (value: string, name: string) => void): void {
    for (const [name, value] of this.pairs) each(value, name);
  }

  entries(): IterableIterator<[string, string]> {
    return this.pairs.values();
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.pairs.values();
  }
}

type ReadResult = { done: false; value: Uint8Array } | { done: true; value: undefined };

/**
 * A body's reader over its socket, as a web stream's default reader reads: chunk for chunk, the
 * socket paused while a chunk waits to be read; a body cut short (the connection closed, the call
 * aborted) fails the reads, as fetch's does.
 */
class BodyReader {
  private readonly chunks: Uint8Array[] = [];
  private readonly reads: { resolve(result: ReadResult): void; reject(err: unknown): void }[] = [];
  private ended = false;
  private failure: { err: unknown } | undefined;
  /** Stops hearing the call's abort (a no-op until the constructor has listened: an abort already given ends the body there). */
  private unlisten: () => void = () => undefined;

  constructor(
    private readonly source: Readable,
    signal: AbortSignal | undefined,
  ) {
    source.on('data', (chunk: Buffer) => {
      if (this.ended || this.failure) return;
      const read = this.reads.shift();
      if (read) return read.resolve({ done: false, value: chunk });
      this.chunks.push(chunk);
      source.pause();
    });
    source.once('end', () => this.end(undefined));
    source.once('error', (err) => this.end({ err }));
    // 'close' follows every body's end: its error is made only for a body cut short.
    source.once('close', () => {
      if (!this.ended) this.end({ err: new TypeError('terminated: the response body was cut short') });
    });
    this.unlisten = cutByAbort(source, signal, (reason) => this.end({ err: reason }));
  }

  /** The body ended (`failed` undefined) or failed: the reads waiting hear it. */
  private end(failed: { err: unknown } | undefined): void {
    if (this.ended || this.failure) return;
    this.unlisten();
    if (failed) {
      this.failure = failed;
      this.chunks.length = 0;
    } else this.ended = true;
    for (const read of this.reads.splice(0)) {
      if (failed) read.reject(failed.err);
      else read.resolve({ done: true, value: undefined });
    }
  }

  read(): Promise<ReadResult> {
    if (this.failure) return Promise.reject(this.failure.err);
    const chunk = this.chunks.shift();
    if (chunk !== undefined) return Promise.resolve({ done: false, value: chunk });
    if (this.ended) return Promise.resolve({ done: true, value: undefined });
    this.source.resume();
    return new Promise((resolve, reject) => this.reads.push({ resolve, reject }));
  }

  /**
   * The reader is the body's only one, and @google/genai releases it only when it has stopped reading
   * (its finally, after the end or a failure mid-stream): a body released before its end is cancelled,
   * or its paused socket and the call's abort listener would stay until the process ends.
   */
  releaseLock(): void {
    if (!this.ended && !this.failure) void this.cancel();
  }

  cancel(): Promise<void> {
    this.end(undefined);
    this.source.destroy();
    return Promise.resolve();
  }
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
function webStream(source: Readable, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  // Once the stream is closed, errored or cancelled by its reader, the socket's late events are dropped
  // (an 'end' already queued when the reader cancels would otherwise close a cancelled stream: a throw).
  let settled = false;
  let unlisten = (): void => undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const settle = (end: () => void): void => {
        if (settled) return;
        settled = true;
        unlisten();
        end();
      };
      unlisten = cutByAbort(source, signal, (reason) => settle(() => controller.error(reason)));
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
      unlisten();
      source.destroy();
    },
  });
}

/**
 * A body the call's abort cuts: `fail` hears the abort's reason at once, so the reads fail with it
 * even where data already waits (fetch's body does so; the request's destroy would fail them with
 * Error('aborted'), which @google/genai takes for a dropped connection and resumes), and the body is
 * destroyed, its socket with it (decode). Returns what stops listening, once the body has ended.
 */
function cutByAbort(source: Readable, signal: AbortSignal | undefined, fail: (reason: unknown) => void): () => void {
  if (signal === undefined) return () => undefined;
  const onAbort = (): void => {
    const reason = abortReason(signal);
    fail(reason);
    source.destroy(reason as Error);
  };
  if (signal.aborted) {
    onAbort();
    return () => undefined;
  }
  signal.addEventListener('abort', onAbort, { once: true });
  return () => signal.removeEventListener('abort', onAbort);
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
  // A decoded body ended before its end (a reader's cancel, a decoding error) ends the response too:
  // destroying the decoder alone would leave the socket open, paused, until the process ends.
  decoder.once('close', () => {
    if (!response.readableEnded) response.destroy();
  });
  return response.pipe(decoder);
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}
