/**
 * Synthetic inputs for the benchmarks: a parent session of a chosen JSON size, the one tool
 * the forks call, and fork directives for the local server's scripted model.
 */
import { z } from 'zod';
import type { OpenAIChatSession } from '../../dist/src/shapes/openai-chat/schema.js';
// The public entry point: the measurements that use nothing else can also measure another build (bench/compare.ts).
import { defineTool, type ForkTask, type ParentSession, type Tool } from '../../dist/src/index.js';

const MODEL = 'gemini-2.5-flash';
const CHAT_MODEL = 'gpt-4.1-mini';
export const KIB = 1024;
export const MIB = 1024 * 1024;

/** The forks' tool: instant and tiny, so what is measured is the engine, not the tool. */
export const benchTool: Tool = defineTool({
  name: 't',
  description: 'Benchmark probe: returns which fork and step called it.',
  parameters: z.object({ i: z.number().int(), step: z.number().int().optional() }),
  execute: (args) => ({ ok: true, fork: args.i, step: args.step ?? 1 }),
});

const WORDS = [
  'prefix',
  'cache',
  'worker',
  'thread',
  'fork',
  'session',
  'history',
  'token',
  'buffer',
  'shared',
  'parse',
  'decode',
  'model',
  'tool',
  'reply',
  'engine',
  'latency',
  'pool',
  'directive',
  'result',
];

/** Deterministic prose, different for every turn (a real history is not one repeated string). */
export function prose(seed: number, chars: number): string {
  let x = (seed * 2654435761) >>> 0 || 1;
  const out: string[] = [];
  let n = 0;
  while (n < chars) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    const word = WORDS[x % WORDS.length] as string;
    out.push(word);
    n += word.length + 1;
  }
  return out.join(' ').slice(0, chars);
}

/** The history's turns, ~8 KiB each (user 3/4, model 1/4), to fill `budget` bytes of JSON. */
function turns(budget: number): { user: string; model: string }[] {
  // Turns of ~8 KiB keep the message count realistic at every size.
  const turnBytes = Math.min(8 * KIB, Math.max(512, Math.floor(budget / 2)));
  const out: { user: string; model: string }[] = [];
  let used = 0;
  for (let i = 0; used + 80 < budget; i++) {
    const left = budget - used;
    const size = Math.min(turnBytes, left) - 80; // ~80 bytes of JSON around the two texts
    if (size < 16) break;
    const userChars = Math.floor(size * 0.75);
    out.push({ user: `Q${i}: ${prose(2 * i + 1, userChars)}`, model: `A${i}: ${prose(2 * i + 2, size - userChars)}` });
    used += size + 80;
  }
  if (out.length === 0) out.push({ user: 'Q0: start', model: 'A0: ok' });
  return out;
}

const SYSTEM = 'You are a research agent. Use the tool t when the directive says so; answer briefly.';

/**
 * A parent session whose JSON is about `targetBytes` long: system instruction, the
 * bench tool's declaration, and a history of user/model turns ending on a model message without
 * function calls (the fork's child message follows it as the next user message).
 */
export function makeSession(targetBytes: number): ParentSession {
  const base = {
    model: MODEL,
    systemInstruction: { parts: [{ text: SYSTEM }] },
    tools: [{ functionDeclarations: [benchTool.declaration] }],
    generationConfig: { temperature: 0 },
    history: [] as unknown[],
  };
  const history = turns(Math.max(0, targetBytes - JSON.stringify(base).length)).flatMap((t) => [
    { role: 'user', parts: [{ text: t.user }] },
    { role: 'model', parts: [{ text: t.model }] },
  ]);
  return { ...base, history } as unknown as ParentSession;
}

/**
 * The same parent in OpenAI Chat Completions' shape (`"format": "openai-chat"`), about
 * `targetBytes` long, for the OpenAI-compatible presets. `salt` makes its cache entries its own:
 * it opens the system message and the tool's description, and the tool's `function` key comes
 * first, so the salt lies inside the first cache block of the rendering (tools are rendered ahead
 * of the messages, and a 16-token block is 64 characters) and no two salts share a block.
 */
export function makeChatSession(targetBytes: number, salt: string): OpenAIChatSession {
  const decl = benchTool.declaration;
  const base: OpenAIChatSession = {
    format: 'openai-chat',
    model: CHAT_MODEL,
    messages: [{ role: 'system', content: `Run ${salt}. ${SYSTEM}` }],
    tools: [
      {
        function: {
          description: `${salt}: ${decl.description}`,
          name: decl.name,
          parameters: decl.parametersJsonSchema as Record<string, unknown>,
        },
        type: 'function',
      },
    ],
    temperature: 0,
  };
  const messages = turns(Math.max(0, targetBytes - JSON.stringify(base).length)).flatMap((t) => [
    { role: 'user' as const, content: t.user },
    { role: 'assistant' as const, content: t.model },
  ]);
  return { ...base, messages: [...base.messages, ...messages] };
}

/** "each fork 3 model calls and 2 tool calls": CALL on turn 1, CALL@2 on turn 2, REPLY on turn 3. */
export function makeTasks(n: number, label = 'f'): ForkTask[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${label}${i}`,
    directive: `Probe part ${i} of the corpus.\nCALL t {"i":${i}}\nCALL@2 t {"i":${i},"step":2}\nREPLY done ${i}`,
  }));
}

export function sizeLabel(bytes: number): string {
  if (bytes >= MIB) return `${Math.round((bytes / MIB) * 10) / 10} MiB`;
  return `${Math.round(bytes / KIB)} KiB`;
}
