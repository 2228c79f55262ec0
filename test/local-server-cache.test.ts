import { describe, expect, it } from 'vitest';
import type { Content, GenerateContentConfig, Tool } from '@google/genai';
import { client, MODEL, padding, serversClosedAfterEach, statusOf } from './fixtures/local-server/client.js';

const start = serversClosedAfterEach();

const history = (tokens: number): Content[] => [
  { role: 'user', parts: [{ text: padding(tokens, 'history') }] },
  { role: 'model', parts: [{ text: 'understood' }] },
];
const ask = (directive: string): Content => ({ role: 'user', parts: [{ text: `Directive: ${directive}` }] });
const tools: Tool[] = [{ functionDeclarations: [{ name: 'read_file', description: 'Read a file' }] }];

describe('local server: implicit prefix cache', () => {
  it('misses on a cold prefix, then hits block-aligned after the first request completed', async () => {
    const server = await start();
    const ai = client(server.url);
    const config: GenerateContentConfig = { systemInstruction: 'You are terse.', tools };
    const cold = await ai.models.generateContent({ model: MODEL, contents: [...history(3000), ask('REPLY one')], config });
    expect(cold.usageMetadata?.cachedContentTokenCount ?? 0).toBe(0);
    const warm = await ai.models.generateContent({ model: MODEL, contents: [...history(3000), ask('REPLY two')], config });
    const cached = warm.usageMetadata?.cachedContentTokenCount ?? 0;
    expect(cached).toBeGreaterThan(2900);
    expect(cached % 64).toBe(0);
    expect(cached).toBeLessThanOrEqual(warm.usageMetadata?.promptTokenCount ?? 0);
    expect(warm.usageMetadata?.cacheTokensDetails?.[0]?.tokenCount).toBe(cached);
    const metrics = server.metrics();
    expect(metrics.cachedTokens).toBe(cached);
    expect(metrics.cacheEntries).toBeGreaterThan(0);
  });

  it('honours a configured block size', async () => {
    const server = await start({ cache: { blockTokens: 100, minTokens: 200 } });
    const ai = client(server.url);
    await ai.models.generateContent({ model: MODEL, contents: [...history(1000), ask('REPLY a')] });
    const warm = await ai.models.generateContent({ model: MODEL, contents: [...history(1000), ask('REPLY b')] });
    const cached = warm.usageMetadata?.cachedContentTokenCount ?? 0;
    expect(cached).toBeGreaterThan(900);
    expect(cached % 100).toBe(0);
  });

  it('two cold requests sent together both miss (blocks are admitted when prefill ends)', async () => {
    const server = await start({
      latency: { overheadMs: 300, prefillTokensPerSecond: Infinity, cachedTokensPerSecond: Infinity, decodeTokensPerSecond: Infinity },
    });
    const ai = client(server.url);
    const [a, b] = await Promise.all([
      ai.models.generateContent({ model: MODEL, contents: [...history(2000), ask('REPLY a')] }),
      ai.models.generateContent({ model: MODEL, contents: [...history(2000), ask('REPLY b')] }),
    ]);
    expect(a?.usageMetadata?.cachedContentTokenCount ?? 0).toBe(0);
    expect(b?.usageMetadata?.cachedContentTokenCount ?? 0).toBe(0);
    const c = await ai.models.generateContent({ model: MODEL, contents: [...history(2000), ask('REPLY c')] });
    expect(c.usageMetadata?.cachedContentTokenCount ?? 0).toBeGreaterThan(1900);
  });

  it('reports 0 below the minimum cacheable size', async () => {
    const server = await start({ cache: { minTokens: 1024 } });
    const ai = client(server.url);
    for (let i = 0; i < 2; i++) {
      const res = await ai.models.generateContent({ model: MODEL, contents: [...history(600), ask('REPLY small')] });
      expect(res.usageMetadata?.promptTokenCount).toBeLessThan(1024);
      expect(res.usageMetadata?.cachedContentTokenCount ?? 0).toBe(0);
    }
  });

  it('a changed system instruction or tool declaration breaks the hit', async () => {
    const server = await start();
    const ai = client(server.url);
    const contents = [...history(2000), ask('REPLY x')];
    await ai.models.generateContent({ model: MODEL, contents, config: { systemInstruction: 'Rule A.', tools } });
    const same = await ai.models.generateContent({ model: MODEL, contents, config: { systemInstruction: 'Rule A.', tools } });
    expect(same.usageMetadata?.cachedContentTokenCount ?? 0).toBeGreaterThan(1900);
    const otherSystem = await ai.models.generateContent({ model: MODEL, contents, config: { systemInstruction: 'Rule B.', tools } });
    expect(otherSystem.usageMetadata?.cachedContentTokenCount ?? 0).toBe(0);
    const otherTools = await ai.models.generateContent({
      model: MODEL,
      contents,
      config: { systemInstruction: 'Rule A.', tools: [{ functionDeclarations: [{ name: 'read_file', description: 'Read one file' }] }] },
    });
    expect(otherTools.usageMetadata?.cachedContentTokenCount ?? 0).toBe(0);
    const otherModel = await ai.models.generateContent({
      model: 'gemini-2.5-pro',
      contents,
      config: { systemInstruction: 'Rule A.', tools },
    });
    expect(otherModel.usageMetadata?.cachedContentTokenCount ?? 0).toBe(0);
  });

  it('evicts least recently used blocks beyond its capacity', async () => {
    const server = await start({ cache: { capacityTokens: 3000 } });
    const ai = client(server.url);
    const first = [...history(2000), ask('REPLY first')];
    const second: Content[] = [{ role: 'user', parts: [{ text: padding(2000, 'other') }] }, ask('REPLY second')];
    await ai.models.generateContent({ model: MODEL, contents: first });
    await ai.models.generateContent({ model: MODEL, contents: second });
    expect(server.metrics().evictions).toBeGreaterThan(0);
    expect(server.metrics().cacheTokens).toBeLessThanOrEqual(3000);
    const again = await ai.models.generateContent({ model: MODEL, contents: first });
    expect(again.usageMetadata?.cachedContentTokenCount ?? 0).toBe(0);
    const recent = await ai.models.generateContent({ model: MODEL, contents: second });
    expect(recent.usageMetadata?.cachedContentTokenCount ?? 0).toBe(0);
  });
});

describe('local server: explicit caches (cachedContents)', () => {
  it('create, get, list, use, update and delete', async () => {
    const server = await start();
    const ai = client(server.url);
    const created = await ai.caches.create({
      model: MODEL,
      config: { systemInstruction: 'Cached rules. MARKER-77', tools, contents: history(1500), ttl: '300s', displayName: 'run-1' },
    });
    expect(created.name).toMatch(/^cachedContents\/[a-z0-9]+$/);
    expect(created.model).toBe(`models/${MODEL}`);
    expect(created.displayName).toBe('run-1');
    const total = created.usageMetadata?.totalTokenCount ?? 0;
    expect(total).toBeGreaterThan(1500);
    const created0 = Date.parse(created.createTime ?? '');
    expect(Date.parse(created.expireTime ?? '') - created0).toBe(300_000);

    const name = created.name ?? '';
    const got = await ai.caches.get({ name });
    expect(got.name).toBe(name);
    expect(got.usageMetadata?.totalTokenCount).toBe(total);
    const listed = [];
    for await (const item of await ai.caches.list()) listed.push(item.name);
    expect(listed).toEqual([name]);

    const used = await ai.models.generateContent({ model: MODEL, contents: [ask('RECALL MARKER-\\d+')], config: { cachedContent: name } });
    expect(used.usageMetadata?.cachedContentTokenCount).toBe(total);
    expect(used.usageMetadata?.promptTokenCount).toBeGreaterThan(total);
    expect(used.text).toContain('MARKER-77');
    const usedAgain = await ai.models.generateContent({ model: MODEL, contents: [ask('REPLY x')], config: { cachedContent: name } });
    expect(usedAgain.usageMetadata?.cachedContentTokenCount).toBe(total);
    const counted = await ai.models.countTokens({ model: MODEL, contents: [ask('REPLY x')] });
    expect(usedAgain.usageMetadata?.promptTokenCount).toBeGreaterThanOrEqual(total + (counted.totalTokens ?? 0) - 1);

    const updated = await ai.caches.update({ name, config: { ttl: '600s' } });
    expect(Date.parse(updated.expireTime ?? '') - Date.parse(updated.updateTime ?? '')).toBe(600_000);

    await ai.caches.delete({ name });
    expect(await statusOf(ai.caches.get({ name }))).toBe(404);
    expect(await statusOf(ai.models.generateContent({ model: MODEL, contents: 'REPLY x', config: { cachedContent: name } }))).toBe(404);
    expect(await statusOf(ai.caches.delete({ name }))).toBe(404);
    expect(server.metrics().explicitCaches).toBe(0);
  });

  it('rejects cachedContent together with systemInstruction, tools or toolConfig (400)', async () => {
    const server = await start();
    const ai = client(server.url);
    const { name } = await ai.caches.create({ model: MODEL, config: { contents: history(1500) } });
    const cachedContent = name ?? '';
    expect(
      await statusOf(
        ai.models.generateContent({ model: MODEL, contents: 'REPLY x', config: { cachedContent, systemInstruction: 'again' } }),
      ),
    ).toBe(400);
    expect(await statusOf(ai.models.generateContent({ model: MODEL, contents: 'REPLY x', config: { cachedContent, tools } }))).toBe(400);
    expect(
      await statusOf(
        ai.models.generateContent({
          model: MODEL,
          contents: 'REPLY x',
          config: { cachedContent, toolConfig: { functionCallingConfig: {} } },
        }),
      ),
    ).toBe(400);
    expect(await statusOf(ai.models.generateContent({ model: 'gemini-2.5-pro', contents: 'REPLY x', config: { cachedContent } }))).toBe(
      400,
    );
    expect(await statusOf(ai.models.generateContent({ model: MODEL, contents: 'REPLY x', config: { cachedContent } }))).toBe(200);
  });

  it('rejects a cache below the minimum size, and expired caches are gone', async () => {
    const server = await start({ cache: { minTokens: 1024 } });
    const ai = client(server.url);
    expect(await statusOf(ai.caches.create({ model: MODEL, config: { contents: history(100) } }))).toBe(400);
    expect(await statusOf(ai.caches.create({ model: MODEL, config: { contents: history(1500), ttl: 'soon' } }))).toBe(400);
    const { name } = await ai.caches.create({ model: MODEL, config: { contents: history(1500), ttl: '0.05s' } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await statusOf(ai.caches.get({ name: name ?? '' }))).toBe(404);
    expect(await statusOf(ai.caches.get({ name: 'cachedContents/never-made' }))).toBe(404);
  });
});
