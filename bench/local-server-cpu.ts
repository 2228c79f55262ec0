/**
 * CPU cost of the local model server per MiB of prompt.
 * Requests are pre-serialized and sent with node:http (no SDK), so the process's CPU time is
 * almost all the server's: read body, parse, validate, render, tokenize, hash blocks, plan, reply.
 * Also times the in-process pipeline alone (parse + validate + render + hash + plan).
 * Run: npx tsx bench/local-server-cpu.ts
 */
import { request, Agent } from 'node:http';
import { performance } from 'node:perf_hooks';
import { startLocalServer } from '../dist/src/local-server/index.js';
import { planResponse } from '../dist/src/local-server/core/model.js';
import { renderPrompt } from '../dist/src/local-server/core/render.js';
import { parseJsonBody } from '../dist/src/local-server/core/json.js';
import { validateGenerateRequest } from '../dist/src/local-server/gemini/validate.js';

const MIB = 1024 * 1024;

function buildBody(targetBytes: number): string {
  const contents: unknown[] = [];
  const paragraph = 'The quick brown fox jumps over the lazy dog while the parser reads every byte of history. ';
  let size = 0;
  for (let i = 0; size < targetBytes; i++) {
    const text = `turn ${i}: ${paragraph.repeat(40)}`;
    contents.push({ role: 'user', parts: [{ text }] });
    contents.push({ role: 'model', parts: [{ text: `ack ${i}: ${paragraph.repeat(10)}` }] });
    size += text.length + paragraph.length * 10 + 80;
  }
  contents.push({ role: 'user', parts: [{ text: 'Directive: REPLY done' }] });
  return JSON.stringify({
    contents,
    systemInstruction: { parts: [{ text: 'You are a careful agent.' }] },
    tools: [{ functionDeclarations: [{ name: 'read_file', description: 'Read a file', parameters: { type: 'OBJECT', properties: { path: { type: 'STRING' } } } }] }],
    generationConfig: { temperature: 0 },
  });
}

function post(url: string, agent: Agent, body: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1beta/models/gemini-2.5-flash:generateContent`, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-goog-api-key': 'bench' },
    }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const cpuMs = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;

async function main(): Promise<void> {
  const server = await startLocalServer({ cache: { capacityTokens: 64_000_000 } });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const rows: Record<string, number | string>[] = [];
  try {
    for (const sizeMiB of [0.25, 1, 4]) {
      const text = buildBody(sizeMiB * MIB);
      const body = Buffer.from(text);
      const iterations = sizeMiB >= 4 ? 10 : 30;
      for (let i = 0; i < 3; i++) await post(server.url, agent, body);
      const start = process.cpuUsage();
      const wall = performance.now();
      for (let i = 0; i < iterations; i++) await post(server.url, agent, body);
      const perRequest = cpuMs(process.cpuUsage(start)) / iterations;
      const wallPer = (performance.now() - wall) / iterations;

      let pipeline = 0;
      for (let i = 0; i < iterations; i++) {
        const t = performance.now();
        const req = validateGenerateRequest(parseJsonBody(text));
        const rendered = renderPrompt([req], 64, 'gemini-2.5-flash');
        planResponse({ fields: [req], digest: rendered.digest });
        pipeline += performance.now() - t;
      }
      let renderOnly = 0;
      const parsed = validateGenerateRequest(parseJsonBody(text));
      for (let i = 0; i < iterations; i++) {
        const t = performance.now();
        renderPrompt([parsed], 64, 'gemini-2.5-flash');
        renderOnly += performance.now() - t;
      }
      const mib = body.length / MIB;
      rows.push({
        'prompt MiB': mib.toFixed(2),
        'server CPU ms/req': perRequest.toFixed(2),
        'server CPU ms/MiB': (perRequest / mib).toFixed(2),
        'wall ms/req': wallPer.toFixed(2),
        'pipeline ms/MiB': (pipeline / iterations / mib).toFixed(2),
        'render+hash ms/MiB': (renderOnly / iterations / mib).toFixed(2),
      });
    }
  } finally {
    agent.destroy();
    await server.close();
  }
  console.table(rows);
  const oneMiB = rows.find((r) => r['prompt MiB'] === '1.00') ?? rows[1];
  console.log(`local server CPU per MiB of prompt: ${String(oneMiB?.['server CPU ms/MiB'])} ms (render+hash alone ${String(oneMiB?.['render+hash ms/MiB'])} ms)`);
}

await main();
