import { describe, expect, it } from 'vitest';
import { parseFaultSpec, type LocalServer } from '../src/local-server/index.js';
import { client, MODEL, serversClosedAfterEach, statusOf } from './fixtures/local-server/client.js';

const start = serversClosedAfterEach();

async function statuses(server: LocalServer, n: number): Promise<number[]> {
  const ai = client(server.url);
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await statusOf(ai.models.generateContent({ model: MODEL, contents: `REPLY ${i}` })));
  return out;
}

const count = (list: number[], value: number): number => list.filter((s) => s === value).length;

describe('local server: fault injection', () => {
  it('parses the CLI string form', () => {
    expect(parseFaultSpec('429=0.1,500=0.02,drop=0.01,seed=7,retryAfter=2')).toEqual({
      rates: { '429': 0.1, '500': 0.02, drop: 0.01 },
      seed: 7,
      retryAfterSeconds: 2,
    });
    expect(() => parseFaultSpec('429=2')).toThrow(/between 0 and 1/);
    expect(() => parseFaultSpec('teapot=0.1')).toThrow(/unknown name/);
    expect(() => parseFaultSpec('429=0.6,500=0.6')).toThrow(/more than 1/);
  });

  it('injects faults at the configured rates, deterministically with a seed', async () => {
    const spec = '429=0.2,500=0.1,503=0.1,seed=7';
    const n = 400;
    const firstServer = await start({ faults: spec });
    const first = await statuses(firstServer, n);
    expect(count(first, 429) / n).toBeGreaterThan(0.13);
    expect(count(first, 429) / n).toBeLessThan(0.27);
    expect(count(first, 500) / n).toBeGreaterThan(0.05);
    expect(count(first, 500) / n).toBeLessThan(0.15);
    expect(count(first, 503) / n).toBeGreaterThan(0.05);
    expect(count(first, 503) / n).toBeLessThan(0.15);
    expect(count(first, 200) + count(first, 429) + count(first, 500) + count(first, 503)).toBe(n);

    const again = await statuses(await start({ faults: { rates: { '429': 0.2, '500': 0.1, '503': 0.1 }, seed: 7 } }), n);
    expect(again).toEqual(first);
    const other = await statuses(await start({ faults: '429=0.2,500=0.1,503=0.1,seed=8' }), n);
    expect(other).not.toEqual(first);

    const metrics = firstServer.metrics();
    expect(metrics.faults['429']).toBe(count(first, 429));
    expect(metrics.requests.find((r) => r.route === 'generateContent' && r.status === 503)?.count).toBe(count(first, 503));
  });

  it('429 carries Retry-After (header and RetryInfo)', async () => {
    const server = await start({ faults: { rates: { '429': 1 }, retryAfterSeconds: 3 } });
    const seen: { status: number; retryAfter: string | null; body: string }[] = [];
    const recording: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      seen.push({ status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.clone().text() });
      return res;
    };
    expect(await statusOf(client(server.url, { fetch: recording }).models.generateContent({ model: MODEL, contents: 'REPLY x' }))).toBe(
      429,
    );
    expect(seen[0]?.retryAfter).toBe('3');
    expect(JSON.parse(seen[0]?.body ?? '{}')).toMatchObject({
      error: { code: 429, status: 'RESOURCE_EXHAUSTED', details: [{ retryDelay: '3s' }] },
    });
  });

  it('drops connections and sends malformed bodies at rate 1', async () => {
    const dropper = await start({ faults: { rates: { drop: 1 } } });
    expect(await statusOf(client(dropper.url).models.generateContent({ model: MODEL, contents: 'REPLY x' }))).toBe(-1);
    expect(dropper.metrics().faults.drop).toBe(1);

    const garbler = await start({ faults: { rates: { malformed: 1 } } });
    const ai = client(garbler.url);
    await expect(ai.models.generateContent({ model: MODEL, contents: 'REPLY x' })).rejects.toThrow();
    await expect(
      (async () => {
        for await (const chunk of await ai.models.generateContentStream({ model: MODEL, contents: 'REPLY x' })) void chunk;
      })(),
    ).rejects.toThrow();
  });

  it('slow responses still succeed', async () => {
    const server = await start({ faults: { rates: { slow: 1 }, slowMs: 50 } });
    const res = await client(server.url).models.generateContent({ model: MODEL, contents: 'REPLY slow but fine' });
    expect(res.text).toBe('slow but fine');
    expect(server.metrics().faults.slow).toBe(1);
  });
});

describe('local server: scripted FAIL and SLEEP', () => {
  it('FAIL <status> xN fails the first N attempts of an identical request, then succeeds', async () => {
    const server = await start();
    const ai = client(server.url);
    const call = () => ai.models.generateContent({ model: MODEL, contents: 'Directive: FAIL 503 x2\nREPLY recovered' });
    expect(await statusOf(call())).toBe(503);
    expect(await statusOf(call())).toBe(503);
    expect((await call()).text).toBe('recovered');
    // A different request has its own count; FAIL without xN fails once.
    expect(await statusOf(ai.models.generateContent({ model: MODEL, contents: 'FAIL 429\nREPLY other' }))).toBe(429);
    expect((await ai.models.generateContent({ model: MODEL, contents: 'FAIL 429\nREPLY other' })).text).toBe('other');
  });

  it("the SDK's own retries get through a scripted FAIL", async () => {
    const server = await start();
    const ai = client(server.url, { retryOptions: { attempts: 4, initialDelay: 0.001, maxDelay: 0.01 } });
    const res = await ai.models.generateContent({ model: MODEL, contents: 'FAIL 500 x3\nREPLY third time lucky' });
    expect(res.text).toBe('third time lucky');
    expect(server.metrics().requests.find((r) => r.status === 500)?.count).toBe(3);
  });

  it('SLEEP delays the response and stops when the client aborts', async () => {
    const server = await start();
    const ai = client(server.url);
    const controller = new AbortController();
    const pending = ai.models.generateContent({
      model: MODEL,
      contents: 'SLEEP 60000\nREPLY late',
      config: { abortSignal: controller.signal },
    });
    while (server.metrics().inFlight === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await expect(pending).rejects.toThrow();
    while (server.metrics().inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(server.metrics().requests.find((r) => r.route === 'generateContent')?.status).toBe(0);
    // A short SLEEP completes; ordering: the sleeper finishes after a request sent later.
    const order: string[] = [];
    await Promise.all([
      ai.models.generateContent({ model: MODEL, contents: 'SLEEP 200\nREPLY sleeper' }).then((r) => order.push(r.text ?? '')),
      new Promise((resolve) => setTimeout(resolve, 20))
        .then(() => ai.models.generateContent({ model: MODEL, contents: 'REPLY quick' }))
        .then((r) => order.push(r.text ?? '')),
    ]);
    expect(order).toEqual(['quick', 'sleeper']);
  });
});
