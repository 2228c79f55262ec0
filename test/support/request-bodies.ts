import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CapturedRequest } from '../../src/local-server/index.js';

/*
 * The request bodies a fan-out sends, kept byte for byte in a fixture and compared on each run
 * (test/request-bodies.test.ts). Only what the simulator makes up at random is normalised: the
 * names of Gemini cached contents and the per-server tag in Responses ids; the order of requests
 * across forks is sorted away.
 */

export interface CapturedBody {
  route: string;
  /** The model the URL (or body) names. */
  model: string;
  /** The raw body, as sent, after normalise(). */
  body: string;
}

export interface BodiesFixture {
  session: string;
  provider: string;
  mode: string;
  requests: CapturedBody[];
}

/** What the simulator's Responses ids hold: its random tag, and the serial of a response sent just before the fan-out. */
export interface ResponseIds {
  tag: string;
  serial: number;
}

/**
 * Stands in for what the simulator draws at random or counts and the client sends back: a cached
 * content's name (`cachedContents/<serial><time><random>`, numbered by first appearance) and the
 * random tag and server-wide serial of its Responses ids (`resp_`, `msg_`, `fc_`, `rs_`, 8 hex
 * digits of tag, 8 of serial, then a digest): the serial is counted from `responses.serial`, so a
 * case's bodies do not depend on the cases that ran before it on the same server.
 */
export function normalise(requests: readonly CapturedRequest[], responses?: ResponseIds): CapturedBody[] {
  const tagged = (body: string): string =>
    responses === undefined
      ? body
      : body.replace(
          new RegExp(`\\b(resp|msg|fc|rs)_${responses.tag}([0-9a-f]{8})`, 'g'),
          (_id, kind: string, serial: string) => `${kind}_TAG+${Number.parseInt(serial, 16) - responses.serial}:`,
        );
  // Sorted with the cache names masked, so the numbers follow the sorted bodies, not the order the caches were made in.
  const masked = (body: string): string => body.replace(CACHE_NAME, 'cachedContents/*');
  const sorted = requests
    .map((r) => ({ route: r.route, model: r.model, body: tagged(r.body) }))
    .sort((a, b) => (a.route === b.route ? compare(masked(a.body), masked(b.body)) : compare(a.route, b.route)));
  const caches = new Map<string, string>();
  return sorted.map((r) => ({
    ...r,
    body: r.body.replace(CACHE_NAME, (name) => {
      const known = caches.get(name) ?? `cachedContents/cache-${caches.size + 1}`;
      caches.set(name, known);
      return known;
    }),
  }));
}

const CACHE_NAME = /cachedContents\/[0-9a-z]+/g;

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Reads the fixture, or (with `update`) writes it: the bodies stay strings, so their bytes are kept as they were sent. */
export function fixtureOf(path: string, actual: BodiesFixture, update: boolean): BodiesFixture | undefined {
  if (update) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${JSON.stringify(actual, null, 2)}\n`);
    return actual;
  }
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as BodiesFixture) : undefined;
}

/** What differs between the fixture's requests and this run's, one readable paragraph per request; empty when none does. */
export function differences(expected: readonly CapturedBody[], actual: readonly CapturedBody[]): string[] {
  const found: string[] = [];
  if (expected.length !== actual.length) {
    found.push(`${expected.length} requests expected, ${actual.length} sent: expected routes ${routes(expected)}; sent ${routes(actual)}`);
  }
  for (let i = 0; i < Math.min(expected.length, actual.length); i++) {
    const want = expected[i] as CapturedBody;
    const got = actual[i] as CapturedBody;
    if (want.route !== got.route || want.model !== got.model) {
      found.push(
        `request ${i}: expected ${want.route} (model ${JSON.stringify(want.model)}), sent ${got.route} (model ${JSON.stringify(got.model)})`,
      );
    } else if (want.body !== got.body) {
      found.push(`request ${i} (${got.route}): ${bodyDifference(want.body, got.body)}`);
    }
  }
  return found;
}

function routes(requests: readonly CapturedBody[]): string {
  return requests.map((r) => r.route).join(', ') || 'none';
}

/** Where two bodies part: the byte offset with some context, and the JSON path whose value (or key order) differs. */
function bodyDifference(want: string, got: string): string {
  let at = 0;
  while (at < want.length && at < got.length && want[at] === got[at]) at++;
  const around = (s: string): string => JSON.stringify(s.slice(Math.max(0, at - 60), at + 60));
  const path = jsonDifference(parse(want), parse(got), '$');
  return [
    `bodies differ at byte ${at} (expected ${want.length} bytes, sent ${got.length})`,
    ...(path === undefined ? [] : [`  at ${path}`]),
    `  expected …${around(want)}…`,
    `  sent     …${around(got)}…`,
  ].join('\n');
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function jsonDifference(want: unknown, got: unknown, path: string): string | undefined {
  if (Array.isArray(want) && Array.isArray(got)) {
    for (let i = 0; i < Math.max(want.length, got.length); i++) {
      if (i >= want.length || i >= got.length) return `${path}: ${want.length} items expected, ${got.length} sent`;
      const inner = jsonDifference(want[i], got[i], `${path}[${i}]`);
      if (inner !== undefined) return inner;
    }
    return undefined;
  }
  if (isObject(want) && isObject(got)) {
    const wantKeys = Object.keys(want);
    const gotKeys = Object.keys(got);
    for (const key of wantKeys) {
      if (!(key in got)) return `${path}.${key}: missing`;
      const inner = jsonDifference(want[key], got[key], `${path}.${key}`);
      if (inner !== undefined) return inner;
    }
    const extra = gotKeys.filter((k) => !(k in want));
    if (extra.length > 0) return `${path}: keys not expected: ${extra.join(', ')}`;
    if (wantKeys.join('\0') !== gotKeys.join('\0')) return `${path}: key order ${wantKeys.join(',')} expected, ${gotKeys.join(',')} sent`;
    return undefined;
  }
  return JSON.stringify(want) === JSON.stringify(got)
    ? undefined
    : `${path}: expected ${clip(JSON.stringify(want))}, sent ${clip(JSON.stringify(got))}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function clip(text: string | undefined): string {
  const t = text ?? 'undefined';
  return t.length > 200 ? `${t.slice(0, 200)}…` : t;
}
