/**
 * The local model server's own CPU per request (issue 24, "The simulator stops dominating
 * benchmarks"): the server runs in a process of its own (bench/lib/server.ts), and its process CPU
 * over a batch of requests, divided by the batch, is what each request cost it. The client posts
 * prepared bytes with node:http (no SDK), one request at a time, so nothing overlaps.
 *
 * Shapes, at 16 KiB, 1 MiB and 8 MiB of prefix:
 *   gemini       generateContent: the same prefix (history, system instruction, tools) on every
 *                request and a new user message at its end each time, as forkpool's forks send it
 *   chat         the same over /v1/chat/completions
 *   anthropic    the same over /v1/messages, a cache_control breakpoint at the prefix's last block
 *   explicit     generateContent naming a cachedContents entry that holds the prefix: only the new
 *                message is sent
 * Each shape gets one cold request first (it writes the caches), then the measured batch; every
 * body of the batch differs from the others after the prefix.
 * Run: npx tsx bench/local-server-cpu.ts [--quick]
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { withServer, type ServerProcess } from './lib/server.js';
import { KIB, MIB, makeChatSession, makeSession } from './lib/session.js';

const MODEL = 'gemini-2.5-flash';
const CLAUDE = 'claude-sonnet-4-5';
const SHAPES = ['gemini', 'chat', 'anthropic', 'explicit'] as const;
type Shape = (typeof SHAPES)[number];

/** Where each request's new message goes in the prepared JSON. */
const SLOT = '@@new-message@@';

interface Prepared {
  path: string;
  headers: Record<string, string>;
  /** Bytes before and after the new message. */
  head: Buffer;
  tail: Buffer;
  newMessage: (i: number) => unknown;
}

function split(path: string, headers: Record<string, string>, body: unknown, newMessage: (i: number) => unknown): Prepared {
  const text = JSON.stringify(body);
  const at = text.indexOf(JSON.stringify(SLOT));
  return { path, headers, head: Buffer.from(text.slice(0, at)), tail: Buffer.from(text.slice(at + SLOT.length + 2)), newMessage };
}

const directive = (i: number): string => `Directive: REPLY fork ${i} is done`;

interface GeminiParts {
  history: unknown[];
  systemInstruction: unknown;
  tools: unknown[];
}

function geminiParts(bytes: number): GeminiParts {
  const session = makeSession(bytes) as unknown as GeminiParts & { history: unknown[] };
  return { history: session.history, systemInstruction: session.systemInstruction, tools: session.tools };
}

const geminiMessage = (i: number): unknown => ({ role: 'user', parts: [{ text: directive(i) }] });

/** As @google/genai orders a generateContent body: contents, then what its config carries. */
function prepareGemini(bytes: number): Prepared {
  const { history, systemInstruction, tools } = geminiParts(bytes);
  const body = { contents: [...history, SLOT], systemInstruction, tools, generationConfig: { temperature: 0 } };
  return split(`/v1beta/models/${MODEL}:generateContent`, {}, body, geminiMessage);
}

function prepareChat(bytes: number): Prepared {
  const session = makeChatSession(bytes, 'cpu');
  const body = { model: session.model, messages: [...session.messages, SLOT], tools: session.tools, temperature: 0 };
  return split('/v1/chat/completions', {}, body, (i) => ({ role: 'user', content: directive(i) }));
}

function prepareAnthropic(bytes: number): Prepared {
  const { history } = geminiParts(bytes);
  const messages = (history as { role: string; parts: { text: string }[] }[]).map((content) => ({
    role: content.role === 'model' ? 'assistant' : 'user',
    content: content.parts[0]?.text ?? '',
  }));
  const last = messages.pop() as { role: string; content: string };
  const marked = { role: last.role, content: [{ type: 'text', text: last.content, cache_control: { type: 'ephemeral' } }] };
  const tools = [{ name: 't', description: 'Benchmark probe.', input_schema: { type: 'object', properties: { i: { type: 'integer' } } } }];
  const body = { model: CLAUDE, max_tokens: 64, system: 'You are a research agent.', tools, messages: [...messages, marked, SLOT] };
  return split('/v1/messages', { 'anthropic-version': '2023-06-01' }, body, (i) => ({ role: 'user', content: directive(i) }));
}

function post(url: string, agent: Agent, path: string, headers: Record<string, string>, body: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': body.length, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          if (res.statusCode === 200) resolve(text);
          else reject(new Error(`${path}: status ${res.statusCode}: ${text.slice(0, 200)}`));
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A cachedContents entry holding the Gemini prefix; requests name it and send only the new message. */
async function prepareExplicit(url: string, agent: Agent, bytes: number): Promise<Prepared> {
  const { history, systemInstruction, tools } = geminiParts(bytes);
  const create = Buffer.from(JSON.stringify({ model: `models/${MODEL}`, contents: history, systemInstruction, tools, ttl: '3600s' }));
  const created = JSON.parse(await post(url, agent, '/v1beta/cachedContents', {}, create)) as { name: string };
  const body = { contents: [SLOT], cachedContent: created.name, generationConfig: { temperature: 0 } };
  return split(`/v1beta/models/${MODEL}:generateContent`, {}, body, geminiMessage);
}

interface Row {
  shape: Shape;
  prefix: string;
  requests: number;
  'request KiB': number;
  'server CPU ms/req': number;
  'wall ms/req': number;
}

const label = (bytes: number): string => (bytes >= MIB ? `${bytes / MIB} MiB` : `${bytes / KIB} KiB`);

async function measure(server: ServerProcess, agent: Agent, shape: Shape, bytes: number, quick: boolean): Promise<Row> {
  const prepared =
    shape === 'gemini'
      ? prepareGemini(bytes)
      : shape === 'chat'
        ? prepareChat(bytes)
        : shape === 'anthropic'
          ? prepareAnthropic(bytes)
          : await prepareExplicit(server.url, agent, bytes);
  const bodyOf = (i: number): Buffer => Buffer.concat([prepared.head, Buffer.from(JSON.stringify(prepared.newMessage(i))), prepared.tail]);
  await post(server.url, agent, prepared.path, prepared.headers, bodyOf(0));
  // At least 5 requests, at most 200, about 3 s of requests (1 s with --quick) at the cost of the cold one.
  const budgetMs = quick ? 1_000 : 3_000;
  const bodies: Buffer[] = [];
  const before = await server.stats();
  const wall = performance.now();
  let n = 0;
  while (n < 5 || (n < 200 && performance.now() - wall < budgetMs)) {
    const body = bodyOf(n + 1);
    bodies.push(body);
    await post(server.url, agent, prepared.path, prepared.headers, body);
    n++;
  }
  const wallMs = performance.now() - wall;
  const after = await server.stats();
  const bodyBytes = bodies.reduce((a, b) => a + b.length, 0) / n;
  return {
    shape,
    prefix: label(bytes),
    requests: n,
    'request KiB': Math.round(bodyBytes / KIB),
    'server CPU ms/req': Number(((after.cpuMs - before.cpuMs) / n).toFixed(2)),
    'wall ms/req': Number((wallMs / n).toFixed(2)),
  };
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const sizes = [16 * KIB, MIB, 8 * MIB];
  const rows: Row[] = [];
  // One server per shape and size: each measurement starts from an empty server.
  for (const bytes of sizes) {
    for (const shape of SHAPES) {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        rows.push(await withServer('zero', (server) => measure(server, agent, shape, bytes, quick)));
      } finally {
        agent.destroy();
      }
    }
  }
  console.table(rows);
}

await main();
