// Internal: the Gemini provider (src/model/genai.ts) over @google/genai and forkpool's transport, against small node:http servers that misbehave: how a call that ends early is reported.
import { describe, expect, it } from 'vitest';
import { createGenaiProvider, loadGenai } from '../src/model/genai.js';
import { forkAbortReason } from '../src/fork-thread/run-job.js';
import { createNodeTransport } from '../src/transport/node-fetch.js';
import type { GeminiRequest, ModelOutcome, ProviderConfig } from '../src/provider.js';
import { tinyServersClosedAfterEach } from './support/tiny-server.js';

const tiny = tinyServersClosedAfterEach();

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
    const stalls = await tiny((_n, _req, res) => {
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

describe('the Gemini provider, a body cut by the server or by the fork', () => {
  const chunk = `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'par' }] } }] })}\n\n`;

  it('a connection the server closes mid-body is a network error', async () => {
    const cut = await tiny((_n, _req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk, () => res.socket?.destroy());
    });
    const outcome = await createGenaiProvider(config(cut.url)).generate(ask, { signal: new AbortController().signal });
    expect(failure(outcome)).toMatchObject({ kind: 'network', retryable: true });
  });

  it('an abort mid-body is an abort: one request', async () => {
    const stalls = await tiny((_n, _req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk);
    });
    const controller = new AbortController();
    const outcome = await createGenaiProvider(config(stalls.url)).generate(ask, {
      signal: controller.signal,
      onResponseStart: () => controller.abort(forkAbortReason('cancelled')),
    });
    expect(failure(outcome)).toEqual({ kind: 'aborted', message: 'the call was aborted', retryable: false });
    expect(stalls.requests).toHaveLength(1);
  });
});

describe('@google/genai over the transport with the fork’s signal (no call timeout: the SDK holds no signal of its own)', () => {
  it('an abort mid-body fails the read with the abort’s reason: the SDK stops there, without a continuation', async () => {
    // A checkpoint (a continuationToken, as a long decode sends), then nothing: the SDK resumes a hop that failed
    // other than by an abort from its token.
    const stalls = await tiny((_n, _req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'par' }] }, continuationToken: 't1' }] })}\n\n`,
      );
    });
    const transport = createNodeTransport({ readerBodies: true });
    const controller = new AbortController();
    // The reason a fork's signal aborts with (src/fork-thread/run-job.ts): another would have the SDK resume its stream.
    const reason = forkAbortReason('cancelled');
    let fetches = 0;
    const client = new (await loadGenai())({ apiKey: 'test-key', vertexai: false, httpOptions: { baseUrl: stalls.url } });
    const stream = await client.models.generateContentStream({
      model: 'gemini-2.5-flash',
      contents: 'hi',
      config: {
        // As src/model/genai.ts sends without a call timeout: the fork's signal goes to the transport, not to the SDK.
        httpOptions: {
          fetch: (input, init) => {
            fetches++;
            return transport.fetch(input, { ...init, signal: controller.signal });
          },
        },
      },
    });
    const read = (async () => {
      for await (const chunk of stream) if (chunk.candidates?.[0]?.continuationToken === 't1') controller.abort(reason);
    })();
    await expect(read).rejects.toBe(reason);
    expect(fetches).toBe(1);
    expect(stalls.requests).toHaveLength(1);
    transport.close();
  });
});
