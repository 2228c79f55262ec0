import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../src/local-server/index.js';
import { client, MODEL, padding, statusOf } from './fixtures/local-server/client.js';

let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer({ maxBodyBytes: 64 * 1024, captureRequests: true });
});
afterAll(async () => {
  await server.close();
});

const generateUrl = (): string => `${server.url}/v1beta/models/${MODEL}:generateContent`;

async function raw(
  path: string,
  init: RequestInit,
): Promise<{ status: number; body: { error?: { code: number; message: string; status: string } } }> {
  const res = await fetch(`${server.url}${path}`, init);
  const text = await res.text();
  expect(res.headers.get('content-type')).toContain('application/json');
  return { status: res.status, body: JSON.parse(text) as { error?: { code: number; message: string; status: string } } };
}

const post = (body: string): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body });

/** Sends bytes on a raw socket and closes it before the body is complete. */
function truncated(): Promise<void> {
  const { port } = server;
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `POST /v1beta/models/${MODEL}:generateContent HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n{"contents":[{"parts":[{"te`,
      );
      setTimeout(() => socket.destroy(), 20);
    });
    socket.on('close', () => resolve());
    socket.on('error', () => resolve());
  });
}

function garbageSocket(): Promise<void> {
  const { port } = server;
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('\x00\x01NOT HTTP AT ALL\r\n\r\n'));
    socket.on('data', () => socket.destroy());
    socket.on('close', () => resolve());
    socket.on('error', () => resolve());
  });
}

describe('local server: errors in Gemini JSON', () => {
  it('malformed JSON → 400 INVALID_ARGUMENT', async () => {
    const res = await raw(`/v1beta/models/${MODEL}:generateContent`, post('{"contents": [ {'));
    expect(res.status).toBe(400);
    expect(res.body.error?.status).toBe('INVALID_ARGUMENT');
    expect(res.body.error?.code).toBe(400);
    expect(res.body.error?.message).toMatch(/Invalid JSON payload/);
  });

  it('missing or wrong-typed fields → 400 naming the field', async () => {
    const missing = await raw(`/v1beta/models/${MODEL}:generateContent`, post('{}'));
    expect(missing.status).toBe(400);
    expect(missing.body.error?.message).toContain('contents');
    const wrongType = await raw(`/v1beta/models/${MODEL}:generateContent`, post('{"contents":[{"role":"user","parts":[{"text":42}]}]}'));
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error?.message).toContain('contents[0].parts[0].text');
    const badRole = await raw(`/v1beta/models/${MODEL}:generateContent`, post('{"contents":[{"role":"robot","parts":[{"text":"x"}]}]}'));
    expect(badRole.status).toBe(400);
    const unknownField = await raw(`/v1beta/models/${MODEL}:generateContent`, post('{"contents":[{"parts":[{"text":"x"}]}],"history":[]}'));
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.error?.message).toContain('Unknown name "history"');
    const notObject = await raw(`/v1beta/models/${MODEL}:generateContent`, post('[1,2]'));
    expect(notObject.status).toBe(400);
    // Through the SDK too: an invalid role.
    expect(
      await statusOf(client(server.url).models.generateContent({ model: MODEL, contents: [{ role: 'robot', parts: [{ text: 'x' }] }] })),
    ).toBe(400);
  });

  it('unknown route and wrong method → 404 NOT_FOUND', async () => {
    const unknown = await raw('/v1beta/models/x:explode', post('{}'));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.status).toBe('NOT_FOUND');
    expect((await raw('/nothing/here', { method: 'GET' })).status).toBe(404);
    expect((await raw(`/v1beta/models/${MODEL}:generateContent`, { method: 'GET' })).status).toBe(404);
    expect((await raw('/v1beta/cachedContents/abc', { method: 'PUT', body: '{}' })).status).toBe(404);
  });

  it('unknown cachedContent → 404 through the SDK', async () => {
    const ai = client(server.url);
    expect(await statusOf(ai.caches.get({ name: 'cachedContents/nope' }))).toBe(404);
    expect(
      await statusOf(ai.models.generateContent({ model: MODEL, contents: 'REPLY x', config: { cachedContent: 'cachedContents/nope' } })),
    ).toBe(404);
  });

  it('a body over the size limit → 413', async () => {
    const ai = client(server.url);
    expect(await statusOf(ai.models.generateContent({ model: MODEL, contents: padding(40_000) }))).toBe(413);
  });

  it('captures raw request bodies when asked', async () => {
    const ai = client(server.url);
    await ai.models.generateContent({ model: MODEL, contents: 'REPLY captured-body' });
    const last = server.requests[server.requests.length - 1];
    expect(last?.route).toBe('generateContent');
    expect(last?.model).toBe(MODEL);
    expect(JSON.parse(last?.body ?? '{}')).toEqual({ contents: [{ role: 'user', parts: [{ text: 'REPLY captured-body' }] }] });
  });

  it('survives garbage, truncated bodies and wrong methods, then still serves', async () => {
    await garbageSocket();
    await truncated();
    await Promise.all([
      fetch(generateUrl(), post('\u0000\u00ff garbage')).then((r) => r.text()),
      fetch(generateUrl(), { method: 'DELETE' }).then((r) => r.text()),
      fetch(`${server.url}/v1beta/cachedContents`, post('nope')).then((r) => r.text()),
      fetch(`${server.url}/v1beta/models/%E0%A4%A:generateContent`, post('{}')).then((r) => r.text()),
    ]);
    const res = await client(server.url).models.generateContent({ model: MODEL, contents: 'REPLY still alive' });
    expect(res.text).toBe('still alive');
    expect(server.metrics().inFlight).toBe(0);
  });
});

describe('local server: API key', () => {
  it('accepts any key by default and enforces a required one (401 without, 403 wrong)', async () => {
    const guarded = await startLocalServer({ requireApiKey: 'sesame' });
    try {
      expect(await statusOf(client(guarded.url, {}, 'sesame').models.generateContent({ model: MODEL, contents: 'REPLY ok' }))).toBe(200);
      expect(await statusOf(client(guarded.url, {}, 'wrong').models.generateContent({ model: MODEL, contents: 'REPLY ok' }))).toBe(403);
      const anonymous = await fetch(
        `${guarded.url}/v1beta/models/${MODEL}:generateContent`,
        post('{"contents":[{"parts":[{"text":"x"}]}]}'),
      );
      expect(anonymous.status).toBe(401);
      expect(((await anonymous.json()) as { error: { status: string } }).error.status).toBe('UNAUTHENTICATED');
    } finally {
      await guarded.close();
    }
  });
});
