import { randomBytes } from 'node:crypto';
import type { BodyChunks, NodeTransport } from './node-fetch.js';
import { sharedPlace, sharedRun, type SharedPlace } from './shared-objects.js';

/*
 * The request path splices bytes. What a fork's request shares with its prefix (instructions,
 * tools, the inherited messages) is serialized once — by the provider's own SDK, so the bytes are
 * exactly the ones the SDK would send — and kept encoded. Each call then has the SDK write a light
 * request in which a sentinel stands for each shared part, and the fetch hook sends the SDK's bytes
 * with each sentinel's bytes replaced by the shared ones: the shared part is never stringified,
 * encoded or copied again. The SDK keeps its headers, errors and response parsing.
 *
 * Why the bytes are the SDK's: a JSON value's serialization does not depend on what surrounds it,
 * so the SDK's rendering of a request equals its rendering of the light request with each
 * sentinel's bytes replaced by the real part's. Each part's bytes are cut out of a rendering of the
 * light request with that one part real: the two renderings differ only there.
 */

/** What a shape tells the splicer: where its SDK writes the shared parts, and what may stand in for them. */
export interface SpliceShape<R> {
  /** The object whose top-level fields the SDK writes as the body's (Gemini's request; the Chat and Messages bodies). */
  root(request: R): Readonly<Record<string, unknown>>;
  withRoot(request: R, root: Readonly<Record<string, unknown>>): R;
  /** Top-level fields that may be shared; `run`: an array whose leading elements may be. */
  fields: readonly { key: string; run?: true }[];
  /** A value the SDK passes through for field `key` (for a run, one element), holding `marker` as a string. */
  sentinel(key: string, marker: string): unknown;
}

/**
 * The Chat Completions and Messages requests: the SDKs write the body as given (JSON.stringify), so
 * any value stands in; system prompts, tools and the inherited messages may be shared.
 */
export const BODY_SPLICE: SpliceShape<{ body: Readonly<Record<string, unknown>> }> = {
  root: (request) => request.body,
  withRoot: (request, root) => ({ ...request, body: root }),
  fields: [{ key: 'system' }, { key: 'tools' }, { key: 'messages', run: true }],
  sentinel: (_key, marker) => marker,
};

/** Renders a request as the SDK would send it, without sending it: the body's text. */
export type Render<R> = (request: R) => Promise<string>;

export interface Splicer<R> {
  /**
   * The request the SDK is to write: with sentinels for its shared parts once their bytes are kept
   * (rendered now, the first time), or the request itself when nothing in it is shared. `release`
   * once the call is over: until then its shared bytes are kept, even if newer layouts displace them.
   */
  prepare(request: R): Promise<{ request: R; release(): void }>;
  /** The fetch the SDK is given: sends a light request's bytes with the shared ones spliced in; any other as it is. */
  fetch: typeof fetch;
}

/** One shared part's place in a request: a field, or a run of a field's leading elements. */
interface Hole {
  key: string;
  run: boolean;
  place: SharedPlace;
  /** Elements replaced (runs only). */
  length: number;
}

interface Template {
  id: number;
  holes: readonly Hole[];
  /** Calls prepared and not yet released. */
  users: number;
  /** Displaced from the kept layouts: forgotten once its last call is released. */
  evicted: boolean;
  /** Per hole, in the order the SDK writes them: the sentinel's text and the shared bytes. */
  parts: readonly { sentinel: string; bytes: Buffer }[];
}

/** Requests this process sent with shared bytes spliced in (a test's and a benchmark's evidence that the path was taken). */
let splicedRequests = 0;
export function splicedRequestCount(): number {
  return splicedRequests;
}

/**
 * Kept templates per splicer (a client in a worker): one per shared layout (a prefix and how much of
 * it a fork inherits). Each holds its shared bytes once, as the worker's prefix store holds each
 * prefix parsed once; the same bound (8) keeps a long-lived worker that meets many from growing.
 */
const TEMPLATE_CAPACITY = 8;

export function createSplicer<R>(shape: SpliceShape<R>, render: Render<R>, transport: NodeTransport): Splicer<R> {
  // The marker starts with a NUL, which JSON writes as \u0000 and no model text carries, and a nonce.
  const markerHead = `\u0000forkpool-splice:${randomBytes(6).toString('hex')}:`;
  const markerHeadJson = JSON.stringify(markerHead).slice(1, -1);
  const templates = new Map<string, Promise<Template>>();
  const byId = new Map<number, Template>();
  let ids = 0;

  const holesOf = (request: R): Hole[] => {
    const root = shape.root(request);
    const holes: Hole[] = [];
    for (const field of shape.fields) {
      const value = root[field.key];
      if (field.run) {
        if (!Array.isArray(value) || value.length === 0) continue;
        const run = sharedRun(value);
        if (run !== undefined) holes.push({ key: field.key, run: true, place: run.place, length: run.length });
      } else {
        const place = sharedPlace(value);
        if (place !== undefined) holes.push({ key: field.key, run: false, place, length: 1 });
      }
    }
    return holes;
  };

  /** The request with sentinels for the holes whose index `keep` does not name (that one stays real). */
  const withSentinels = (request: R, template: Pick<Template, 'id' | 'holes'>, keep?: number): R => {
    const root: Record<string, unknown> = { ...shape.root(request) };
    template.holes.forEach((hole, i) => {
      if (i === keep) return;
      const sentinel = shape.sentinel(hole.key, `${markerHead}${template.id}:${i}`);
      root[hole.key] = hole.run ? [sentinel, ...(root[hole.key] as unknown[]).slice(hole.length)] : sentinel;
    });
    return shape.withRoot(request, root);
  };

  async function build(request: R, holes: Hole[]): Promise<Template> {
    const id = ++ids;
    const light = await render(withSentinels(request, { id, holes }));
    const parts: { at: number; sentinel: string; bytes: Buffer }[] = [];
    for (let i = 0; i < holes.length; i++) {
      const real = await render(withSentinels(request, { id, holes }, i));
      // The two renderings differ only where hole i is: its sentinel in one, its bytes in the other.
      const head = commonHead(light, real);
      const tail = commonTail(light, real, head);
      const sentinel = light.slice(head, light.length - tail);
      if (!sentinel.includes(`${markerHeadJson}${id}:${i}`))
        throw new Error(`splice: the SDK did not write the ${holes[i]?.key} sentinel as given`);
      parts.push({ at: head, sentinel, bytes: Buffer.from(real.slice(head, real.length - tail)) });
    }
    parts.sort((a, b) => a.at - b.at);
    const template: Template = { id, holes, users: 0, evicted: false, parts: parts.map(({ sentinel, bytes }) => ({ sentinel, bytes })) };
    byId.set(id, template);
    return template;
  }

  /** The kept template of a layout, made once even when calls ask for it together. */
  function templateOf(request: R, holes: Hole[], key: string): Promise<Template> {
    let kept = templates.get(key);
    if (kept !== undefined) {
      templates.delete(key);
      templates.set(key, kept); // most recently used last
      return kept;
    }
    kept = build(request, holes);
    templates.set(key, kept);
    // A layout whose parts cannot be rendered apart stays failed: its calls go unspliced.
    kept.catch(() => undefined);
    if (templates.size > TEMPLATE_CAPACITY) {
      const [oldKey, old] = templates.entries().next().value as [string, Promise<Template>];
      templates.delete(oldKey);
      old.then(
        (t) => {
          t.evicted = true;
          if (t.users === 0) byId.delete(t.id);
        },
        () => undefined,
      );
    }
    return kept;
  }

  async function prepare(request: R): Promise<{ request: R; release(): void }> {
    const holes = holesOf(request);
    if (holes.length === 0) return { request, release: () => undefined };
    const key = holes.map((h) => `${h.key}:${h.place.owner}:${h.place.index}:${h.length}`).join('|');
    let template: Template;
    try {
      template = await templateOf(request, holes, key);
    } catch {
      return { request, release: () => undefined };
    }
    template.users++;
    let released = false;
    return {
      request: withSentinels(request, template),
      release() {
        if (released) return;
        released = true;
        template.users--;
        if (template.evicted && template.users === 0) byId.delete(template.id);
      },
    };
  }

  /** The body's bytes with each sentinel replaced, or undefined when the body holds none. */
  function splice(body: string): BodyChunks | undefined {
    const at = body.indexOf(markerHeadJson);
    if (at < 0) return undefined;
    const id = Number.parseInt(body.slice(at + markerHeadJson.length, at + markerHeadJson.length + 12), 10);
    const template = byId.get(id);
    if (template === undefined) throw new Error('splice: a request names shared bytes this client no longer keeps');
    const chunks: Uint8Array[] = [];
    let from = 0;
    for (const part of template.parts) {
      const found = body.indexOf(part.sentinel, from);
      if (found < 0) throw new Error('splice: a shared part of the request is missing from what the SDK wrote');
      if (found > from) chunks.push(Buffer.from(body.slice(from, found)));
      chunks.push(part.bytes);
      from = found + part.sentinel.length;
    }
    if (from < body.length) chunks.push(Buffer.from(body.slice(from)));
    return chunks;
  }

  const spliceFetch = (async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const chunks = typeof init.body === 'string' && !(input instanceof Request) ? splice(init.body) : undefined;
    if (chunks === undefined) return transport.fetch(input, init);
    splicedRequests++;
    return transport.send(input as string | URL, init, chunks);
  }) as typeof fetch;

  return { prepare, fetch: spliceFetch };
}

function commonHead(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** The length of the common end of a and b, not reaching back past `head` in either. */
function commonTail(a: string, b: string, head: number): number {
  const n = Math.min(a.length, b.length) - head;
  let i = 0;
  while (i < n && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i++;
  return i;
}

/**
 * A render function over a fetch hook: the SDK is called with a fetch that keeps the body it was
 * given and answers with an error, so nothing is sent. `call` makes the SDK call with that fetch.
 */
export async function renderThrough(call: (captureFetch: typeof fetch) => Promise<unknown>): Promise<string> {
  let body: string | undefined;
  const captureFetch = (async (_input: string | URL | Request, init: RequestInit = {}) => {
    if (typeof init.body !== 'string') throw new TypeError('splice: the SDK wrote a body that is not text');
    body = init.body;
    throw new RenderedError();
  }) as typeof fetch;
  try {
    await call(captureFetch);
  } catch (err) {
    if (body !== undefined) return body;
    throw err;
  }
  if (body !== undefined) return body;
  throw new Error('splice: the SDK sent no request');
}

class RenderedError extends Error {
  constructor() {
    super('rendered, not sent');
  }
}
