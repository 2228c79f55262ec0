// Internal: deepFreeze (src/prefix/deep-freeze.ts), what makes a FrozenPrefix read-only, and canonicalJson (src/cli/canonical-json.ts), the CLI journal's task hash: neither has an entry point; freezePrefix (src/prefix/freeze.ts), the prefix without an engine (its public face is engine.freeze); decodePrefix and estimateTokens come through forkpool.
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/cli/canonical-json.js';
import { decodePrefix, estimateTokens, type GeminiSession, type ParentSession } from '../src/index.js';
import { freezePrefix } from '../src/prefix/freeze.js';
import { deepFreeze } from '../src/prefix/index.js';
import { geminiSession } from './support/gemini-session.js';

function baseSession(): GeminiSession {
  return {
    model: 'gemini-2.5-flash',
    systemInstruction: { parts: [{ text: 'You are a careful engineer.' }] },
    tools: [
      {
        functionDeclarations: [
          {
            name: 'read_file',
            description: 'Read a file',
            parametersJsonSchema: { type: 'object', properties: { path: { type: 'string' } } },
          },
        ],
      },
    ],
    toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
    generationConfig: { temperature: 0.2, topP: 0.9, thinkingConfig: { thinkingBudget: 128 } },
    history: [
      { role: 'user', parts: [{ text: 'Look at src/a.ts' }] },
      { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'read_file', args: { path: 'src/a.ts' } } }] },
      { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'read_file', response: { output: 'export const a = 1;' } } }] },
      { role: 'model', parts: [{ text: 'It exports a constant.' }] },
    ],
  };
}

/** The same data with every object's keys in reverse order. */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).reverse()) out[key] = reverseKeys((value as Record<string, unknown>)[key]);
  return out;
}

function bytesOf(buffer: SharedArrayBuffer): Buffer {
  return Buffer.from(new Uint8Array(buffer));
}

describe('canonicalJson (journal task hashes)', () => {
  it('sorts keys at every level and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}');
  });

  it('is independent of key order and stable across calls', () => {
    const s = baseSession();
    const once = canonicalJson(s);
    expect(canonicalJson(reverseKeys(s))).toBe(once);
    expect(canonicalJson(structuredClone(s))).toBe(once);
    expect(JSON.parse(once)).toEqual(s);
  });

  it('omits undefined fields like JSON.stringify and keeps array positions', () => {
    expect(canonicalJson({ a: undefined, b: [undefined, 1] })).toBe('{"b":[null,1]}');
  });

  it('escapes strings as JSON does and keeps non-ASCII text', () => {
    expect(canonicalJson({ s: 'quote " newline \n 漢字 🙂' })).toBe('{"s":"quote \\" newline \\n 漢字 🙂"}');
  });

  it('refuses values with no faithful JSON form', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow('canonicalJson: the value contains a cycle');
    expect(() => canonicalJson({ n: Number.NaN })).toThrow('canonicalJson: NaN has no JSON form');
    expect(() => canonicalJson({ n: Infinity })).toThrow('canonicalJson: Infinity has no JSON form');
    expect(() => canonicalJson({ f: () => 1 })).toThrow('canonicalJson: a function has no JSON form');
    expect(() => canonicalJson({ b: 1n })).toThrow('canonicalJson: a bigint has no JSON form');
  });

  it('allows the same object twice when it is not a cycle', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });
});

describe('estimateTokens', () => {
  it('is the character count over four, rounded up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abc')).toBe(1);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens(4096)).toBe(1024);
    expect(estimateTokens(4097)).toBe(1025);
    expect(estimateTokens(-5)).toBe(0);
  });
});

describe('freezePrefix', () => {
  it("writes the session's own JSON once into a SharedArrayBuffer of exactly its length", () => {
    const session = baseSession();
    const prefix = freezePrefix(session);
    const text = JSON.stringify(session);
    expect(prefix.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(prefix.buffer.byteLength).toBe(prefix.byteLength);
    expect(prefix.byteLength).toBe(Buffer.byteLength(text));
    expect(bytesOf(prefix.buffer).toString('utf8')).toBe(text);
    expect(prefix.id).toBe(createHash('sha256').update(text).digest('hex'));
    expect(prefix.id).toMatch(/^[0-9a-f]{64}$/);
    expect(prefix.tokenEstimate).toBe(Math.ceil(text.length / 4));
  });

  it("keeps the session's own key order at every level, never sorting it (byte fidelity)", () => {
    const reversed = reverseKeys(baseSession()) as GeminiSession;
    const prefix = freezePrefix(reversed);
    expect(bytesOf(prefix.buffer).toString('utf8')).toBe(JSON.stringify(reversed));
    expect(prefix.id).not.toBe(freezePrefix(baseSession()).id);
    const frozen = geminiSession(prefix.session);
    const decl = frozen.tools?.[0]?.functionDeclarations?.[0] as Record<string, unknown>;
    expect(Object.keys(decl)).toEqual(['parametersJsonSchema', 'description', 'name']);
    expect(Object.keys(frozen.history[1]!.parts[0]!.functionCall!)).toEqual(['args', 'name', 'id']);
    expect(Object.keys(frozen.generationConfig!)).toEqual(['thinkingConfig', 'topP', 'temperature']);
  });

  const changes: [string, (s: GeminiSession) => void][] = [
    ['the model', (s) => void (s.model = 'gemini-2.5-pro')],
    ['the system instruction', (s) => void (s.systemInstruction = { parts: [{ text: 'You are a careless engineer.' }] })],
    ['a tool description', (s) => void (s.tools![0]!.functionDeclarations![0]!.description = 'Read one file')],
    ['a tool parameter schema', (s) => void (s.tools![0]!.functionDeclarations![0]!.parametersJsonSchema = { type: 'object' })],
    ['an added tool', (s) => void s.tools![0]!.functionDeclarations!.push({ name: 'write_file' })],
    ['the toolConfig', (s) => void (s.toolConfig = { functionCallingConfig: { mode: 'ANY' } })],
    ['the temperature', (s) => void (s.generationConfig!.temperature = 0.3)],
    ['topK added', (s) => void (s.generationConfig!.topK = 40)],
    ['the thinking budget', (s) => void (s.generationConfig!.thinkingConfig = { thinkingBudget: 256 })],
    ['a history text part', (s) => void (s.history[0]!.parts[0]!.text = 'Look at src/b.ts')],
    ['a function call argument', (s) => void (s.history[1]!.parts[0]!.functionCall!.args = { path: 'src/b.ts' })],
    ['a function call id', (s) => void (s.history[1]!.parts[0]!.functionCall!.id = 'c2')],
    ['a function response', (s) => void (s.history[2]!.parts[0]!.functionResponse!.response = { output: '' })],
    ['an added message', (s) => void s.history.push({ role: 'user', parts: [{ text: 'thanks' }] })],
    ['an unknown part field', (s) => void (s.history[3]!.parts[0]!.thoughtSignature = 'abc')],
  ];

  it.each(changes)('changes its id when %s changes', (_what, change) => {
    const before = freezePrefix(baseSession());
    const edited = baseSession();
    change(edited);
    const after = freezePrefix(edited);
    expect(after.id).not.toBe(before.id);
    expect(bytesOf(after.buffer).equals(bytesOf(before.buffer))).toBe(false);
  });

  it('round-trips non-ASCII text through the shared bytes', () => {
    const session = baseSession();
    const text = 'Überprüfe 日本語 · emoji 🚀 · RTL עברית · combining é';
    session.history[0]!.parts[0]!.text = text;
    const prefix = freezePrefix(session);
    expect(prefix.byteLength).toBeGreaterThan(JSON.stringify(session).length);
    const decoded = decodePrefix(prefix.buffer, prefix.byteLength);
    expect(geminiSession(decoded).history[0]?.parts[0]?.text).toBe(text);
    expect(decoded).toEqual(session);
  });

  it('returns a deep-frozen parsed copy, never the caller object', () => {
    const session = baseSession();
    const prefix = freezePrefix(session);
    expect(prefix.session).not.toBe(session);
    expect(prefix.session).toEqual(session);
    expect(Object.isFrozen(prefix.session)).toBe(true);
    const frozen = geminiSession(prefix.session);
    expect(Object.isFrozen(frozen.history[1]!.parts[0]!.functionCall!.args)).toBe(true);
    expect(() => {
      (frozen.history as unknown[]).push({});
    }).toThrow(TypeError);
    session.model = 'changed-after-freeze';
    expect(prefix.session.model).toBe('gemini-2.5-flash');
    expect(Object.isFrozen(session)).toBe(false);
  });

  it('refuses a number JSON cannot hold, which would silently reach the model as null', () => {
    const session = baseSession();
    session.history[1]!.parts[0]!.functionCall!.args = { n: Number.NaN };
    expect(() => freezePrefix(session)).toThrow(
      'history[1].parts[0].functionCall.args.n: NaN is not a finite number, so it cannot be sent as it is (JSON has no NaN or Infinity)',
    );
  });

  it('validates what it freezes', () => {
    expect(() => freezePrefix({ model: 'm', history: [{ role: 'bot', parts: [] }] } as unknown as ParentSession)).toThrow(
      'history[0].role: must be "user" or "model"',
    );
  });
});

describe('decodePrefix', () => {
  it('decodes the same, deep-frozen object', () => {
    const prefix = freezePrefix(baseSession());
    const decoded = decodePrefix(prefix.buffer);
    expect(decoded).toEqual(prefix.session);
    expect(Object.isFrozen(geminiSession(decoded).generationConfig)).toBe(true);
  });

  it('refuses a byteLength outside the buffer and bytes that are not a session', () => {
    const prefix = freezePrefix(baseSession());
    expect(() => decodePrefix(prefix.buffer, prefix.byteLength + 1)).toThrow(RangeError);
    const other = new SharedArrayBuffer(7);
    new Uint8Array(other).set(new TextEncoder().encode('{"a":1}'));
    expect(() => decodePrefix(other)).toThrow('decodePrefix: the buffer does not hold a frozen parent session');
  });
});

describe('deepFreeze', () => {
  it('freezes nested values, also under an already-frozen shell', () => {
    const inner = { x: [1, { y: 2 }] };
    const outer = Object.freeze({ inner });
    deepFreeze(outer);
    expect(Object.isFrozen(inner)).toBe(true);
    expect(Object.isFrozen(inner.x[1])).toBe(true);
  });
});

// Plain JS on purpose: a worker thread runs outside vitest's module graph.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { buffer, byteLength, offset } = workerData;
const view = new Uint8Array(buffer, 0, byteLength);
const decoded = JSON.parse(new TextDecoder().decode(view));
parentPort.postMessage({ decoded, isShared: buffer instanceof SharedArrayBuffer });
// Prove the memory is shared: write into it, then tell the main thread to look.
view[offset] = 'G'.charCodeAt(0);
parentPort.postMessage('written');
`;

describe('SharedArrayBuffer across a real worker thread', () => {
  it('decodes the same object in the worker, and a write from the worker is visible on the main thread', async () => {
    const session = baseSession();
    session.history[0]!.parts[0]!.text = 'ünïcödé 中文';
    const prefix = freezePrefix(session);
    const offset = Buffer.from(new Uint8Array(prefix.buffer)).indexOf('"model":"gemini') + '"model":"'.length;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { buffer: prefix.buffer, byteLength: prefix.byteLength, offset },
    });
    const messages: unknown[] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        worker.on('message', (message: unknown) => {
          messages.push(message);
          if (message === 'written') resolve();
        });
        worker.on('error', reject);
        worker.on('exit', (code) => reject(new Error(`worker exited early with code ${code}`)));
      });
    } finally {
      await worker.terminate();
    }
    const [first] = messages as [{ decoded: unknown; isShared: boolean }];
    expect(first.isShared).toBe(true);
    expect(first.decoded).toEqual(prefix.session);
    // The worker's write landed in the main thread's bytes: shared, not copied.
    expect(decodePrefix(prefix.buffer, prefix.byteLength).model).toBe('Gemini-2.5-flash');
    expect(prefix.session.model).toBe('gemini-2.5-flash');
  });
});
