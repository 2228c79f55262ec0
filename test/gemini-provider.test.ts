// Internal: the Gemini provider (src/model/genai.ts) over @google/genai and forkpool's transport, against small node:http servers that misbehave: how a call that ends early is reported.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createGenaiProvider } from '../src/model/genai.js';
import type { GeminiRequest, ModelOutcome, ProviderConfig } from '../src/provider.js';

let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
  servers = [];
});

/** A server of our own on a free port: the requests it received, the answer up to the test. */
async function tiny(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests.push(req.url ?? '');
      handle(req, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

const ask: GeminiRequest = { format: 'gemini', model: 'gemini-2.5-flash', contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
const config = (baseUrl: string, more: Partial<ProviderConfig> = {}): ProviderConfig => ({
  kind: 'gemini',
  baseUrl,
  apiKey: 'test-key',
  retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
  ...more,
});

function failure(outcome: ModelOutcome) {
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome.message)}`);
  return outcome.error;
}

describe('the Gemini provider, a call cut short', () => {
  it('a call timeout that fires after the headers arrived is a timeout, as one before them is', async () => {
    // Headers, then nothing: the timeout fires while the body is read.
    const stalls = await tiny((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
    });
    const retry = { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 };
    const outcome = await createGenaiProvider(config(stalls.url, { callTimeoutMs: 100, retry })).generate(ask, {
      signal: new AbortController().signal,
    });
    expect(failure(outcome)).toEqual({ kind: 'timeout', message: 'the model call timed out', retryable: true });
    // Retried as a timeout is, each attempt one request.
    expect(outcome.attempts).toBe(2);
    expect(stalls.requests).toHaveLength(2);

    // No headers at all.
    const silent = await tiny(() => undefined);
    const before = await createGenaiProvider(config(silent.url, { callTimeoutMs: 100 })).generate(ask, {
      signal: new AbortController().signal,
    });
    expect(failure(before)).toEqual({ kind: 'timeout', message: 'the model call timed out', retryable: true });
  });
});
