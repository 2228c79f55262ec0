// Tests forkpool's fetch over node:http (src/transport/node-fetch.ts), which every provider's SDK is given: bodies as buffers, responses as fetch gives them, aborts and cut connections as fetch reports them.
import { getEventListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGzip, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeTransport } from '../src/transport/node-fetch.js';

let server: http.Server;
let base: string;
const received: { method: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
/** Whether the server's side of each /gzip-slow answer has closed (the client let its connection go). */
const gzipSlowClosed: boolean[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
      if (req.url === '/gzip') {
        res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' });
        res.end(gzipSync('unzipped é'));
      } else if (req.url === '/cut') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n');
        setTimeout(() => res.socket?.destroy(), 20);
      } else if (req.url === '/two') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n');
        res.end('data: second\n\n');
      } else if (req.url === '/slow') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n');
      } else if (req.url === '/gzip-slow' || req.url === '/gzip-slow-events') {
        // A compressed body whose first event is flushed, then nothing more: the answer never ends by itself.
        const n = gzipSlowClosed.push(false) - 1;
        res.once('close', () => {
          gzipSlowClosed[n] = true;
        });
        const type = req.url === '/gzip-slow' ? 'text/plain' : 'text/event-stream';
        res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': type });
        const gzip = createGzip();
        gzip.pipe(res);
        gzip.write('data: first\n\n');
        gzip.flush();
      } else if (req.url === '/gzip-whole' || req.url === '/gzip-whole-events') {
        // A compressed body sent whole at once: 4 MiB that gzip to a few KiB, so the socket's side ends long
        // before the decoded body has been read.
        const type = req.url === '/gzip-whole' ? 'text/plain' : 'text/event-stream';
        res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': type });
        res.end(gzipSync(Buffer.alloc(4 * 1024 * 1024, 'a')));
      } else if (req.url === '/empty') {
        res.writeHead(204);
        res.end();
      } else {
        res.writeHead(429, { 'retry-after': '3', 'x-many': ['a', 'b'] });
        res.end('{"error":"slow down"}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('the node:http transport', () => {
  it("sends a body given as buffers as their concatenation, with its length and the caller's headers", async () => {
    const transport = createNodeTransport();
    const parts = ['{"a":', '"é😀"', ',"b":[1,2]}'].map((p) => Buffer.from(p));
    const response = await transport.send(
      `${base}/echo`,
      { method: 'POST', headers: new Headers({ 'X-Key': 'v', 'content-type': 'application/json' }) },
      parts,
    );
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
    expect(response.headers.get('x-many')).toBe('a, b');
    expect(await response.text()).toBe('{"error":"slow down"}');
    const last = received.at(-1);
    expect(last?.body).toBe('{"a":"é😀","b":[1,2]}');
    expect(last?.headers['content-length']).toBe(String(Buffer.concat(parts).byteLength));
    expect(last?.headers['x-key']).toBe('v');
    transport.close();
  });

  it('is a fetch: a string body, a gzip response decoded, a 204 with no body', async () => {
    const transport = createNodeTransport();
    const zipped = await transport.fetch(`${base}/gzip`, { method: 'POST', body: 'plain text body' });
    expect(await zipped.text()).toBe('unzipped é');
    expect(received.at(-1)?.body).toBe('plain text body');
    const empty = await transport.fetch(`${base}/empty`, { method: 'POST', body: '' });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    transport.close();
  });

  it("an abort before the response rejects with the signal's reason; an abort mid-body errors the body with it", async () => {
    const transport = createNodeTransport();
    const before = new AbortController();
    before.abort(new DOMException('stop', 'AbortError'));
    await expect(transport.fetch(`${base}/slow`, { method: 'POST', body: 'x', signal: before.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
    const during = new AbortController();
    const response = await transport.fetch(`${base}/slow`, { method: 'POST', body: 'x', signal: during.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
    const reason = new DOMException('stop', 'AbortError');
    during.abort(reason);
    await expect(reader.read()).rejects.toBe(reason);
    transport.close();
  });

  it('a reader that cancels the body mid-stream ends it there, whatever the socket does next', async () => {
    const transport = createNodeTransport();
    for (let i = 0; i < 20; i++) {
      const response = await transport.fetch(`${base}/two`, { method: 'POST', body: 'x' });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toMatch(/^data: first/);
      await reader.cancel();
      await expect(reader.closed).resolves.toBeUndefined();
    }
    // The socket's 'end' arriving after a cancel would have thrown outside any call (an unhandled error fails this file).
    await new Promise((resolve) => setTimeout(resolve, 50));
    transport.close();
  });

  it('a compressed body cancelled mid-stream closes its connection, as a web stream and as a reader body', async () => {
    for (const [readerBodies, path] of [
      [false, '/gzip-slow'],
      [true, '/gzip-slow-events'],
    ] as const) {
      const transport = createNodeTransport({ readerBodies });
      const response = await transport.fetch(`${base}${path}`, { method: 'POST', body: 'x' });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
      const n = gzipSlowClosed.length - 1;
      await reader.cancel();
      // The server sees its connection close: the cancel reached the socket, not only the decompressor.
      await expect.poll(() => gzipSlowClosed[n], { timeout: 10_000 }).toBe(true);
      transport.close();
    }
  });

  it("an abort once a compressed body's socket side has ended still fails the reads of what is left, with the abort's reason", async () => {
    for (const [readerBodies, path] of [
      [false, '/gzip-whole'],
      [true, '/gzip-whole-events'],
    ] as const) {
      const transport = createNodeTransport({ readerBodies });
      const controller = new AbortController();
      const response = await transport.fetch(`${base}${path}`, { method: 'POST', body: 'x', signal: controller.signal });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      expect((await reader.read()).value?.[0]).toBe('a'.charCodeAt(0));
      // The few KiB of the compressed body arrive with its first chunk; what is left waits in the decoder.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const reason = new DOMException('stop', 'AbortError');
      controller.abort(reason);
      await expect(reader.read()).rejects.toBe(reason);
      transport.close();
    }
  });

  it('a connection cut mid-body errors the body instead of ending it as if whole; a refused one is "fetch failed"', async () => {
    const transport = createNodeTransport();
    const response = await transport.fetch(`${base}/cut`, { method: 'POST', body: 'x' });
    await expect(response.text()).rejects.toBeDefined();
    await expect(transport.fetch('http://127.0.0.1:9/', { method: 'POST', body: 'x' })).rejects.toMatchObject({
      name: 'TypeError',
      message: 'fetch failed',
    });
    transport.close();
  });
});

describe('the node:http transport with reader bodies (what @google/genai is given)', () => {
  const text = (value: Uint8Array | undefined) => new TextDecoder().decode(value);

  it('gives a successful event stream as a reader over the socket, and every other response as a Response', async () => {
    const transport = createNodeTransport({ readerBodies: true });
    const stream = await transport.fetch(`${base}/two`, { method: 'POST', body: 'x' });
    expect([stream.ok, stream.status]).toEqual([true, 200]);
    expect(stream.headers.get('Content-Type')).toBe('text/event-stream');
    // Its headers make a Response's, as the SDK makes one per event.
    expect(new Response('{}', { headers: stream.headers }).headers.get('content-type')).toBe('text/event-stream');
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    let read = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) read += text(r.value);
    expect(read).toBe('data: first\n\ndata: second\n\n');
    await expect(reader.read()).resolves.toEqual({ done: true, value: undefined });
    reader.releaseLock();
    const refused = await transport.send(`${base}/echo`, { method: 'POST' }, [Buffer.from('x')]);
    expect(refused).toBeInstanceOf(Response);
    expect(await refused.text()).toBe('{"error":"slow down"}');
    const zipped = await transport.fetch(`${base}/gzip`, { method: 'POST', body: 'x' });
    expect(await zipped.text()).toBe('unzipped é');
    transport.close();
  });

  it("an abort mid-body fails the reads with the abort's reason, a cut connection with a network error; a cancel ends the body there", async () => {
    const transport = createNodeTransport({ readerBodies: true });
    const during = new AbortController();
    const slow = await transport.fetch(`${base}/slow`, { method: 'POST', body: 'x', signal: during.signal });
    const aborted = (slow.body as ReadableStream<Uint8Array>).getReader();
    expect(text((await aborted.read()).value)).toBe('data: first\n\n');
    // The abort's reason, as fetch's body fails: @google/genai knows the caller's abort by it (an AbortError).
    const reason = new DOMException('stop', 'AbortError');
    during.abort(reason);
    await expect(aborted.read()).rejects.toBe(reason);
    const cut = (await transport.fetch(`${base}/cut`, { method: 'POST', body: 'x' })).body as ReadableStream<Uint8Array>;
    const cutReader = cut.getReader();
    expect(text((await cutReader.read()).value)).toBe('data: first\n\n');
    // A connection the server closed is no abort.
    await expect(cutReader.read()).rejects.not.toMatchObject({ name: 'AbortError' });
    for (let i = 0; i < 20; i++) {
      const reader = ((await transport.fetch(`${base}/two`, { method: 'POST', body: 'x' })).body as ReadableStream<Uint8Array>).getReader();
      expect(text((await reader.read()).value)).toMatch(/^data: first/);
      await reader.cancel();
      await expect(reader.read()).resolves.toEqual({ done: true, value: undefined });
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    transport.close();
  });
  it('a reader released before the end of its body (the SDK stopped reading) ends the body: its socket and abort listener go', async () => {
    const transport = createNodeTransport({ readerBodies: true });
    const signal = new AbortController().signal;
    const slow = await transport.fetch(`${base}/slow`, { method: 'POST', body: 'x', signal });
    const reader = (slow.body as ReadableStream<Uint8Array>).getReader();
    expect(text((await reader.read()).value)).toBe('data: first\n\n');
    expect(getEventListeners(signal, 'abort')).toHaveLength(1);
    reader.releaseLock();
    await expect(reader.read()).resolves.toEqual({ done: true, value: undefined });
    await expect.poll(() => getEventListeners(signal, 'abort').length).toBe(0);
    transport.close();
  });
});
