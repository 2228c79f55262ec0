import { ApiFailure } from '../core/errors.js';
import { EXPLICIT_DEFAULT_TTL_MS } from './cache-rules.js';
import { invalid, notFound } from './errors.js';
import { CHARS_PER_TOKEN } from '../core/chain.js';
import type { Segment } from '../core/prefix-memo.js';
import { hashPrompt, startOf, type HashedPrompt } from '../core/prompt-hash.js';
import { fieldUnits } from '../core/render.js';
import type { PromptFields } from '../core/types.js';
import { parseDuration, parseTimestamp, type CacheCreateRequest, type CacheUpdateRequest } from './validate.js';

/**
 * Explicit caches (cachedContents): stored prompt fields with a TTL; expired or deleted ones 404.
 * Their rendering is hashed once, when created: a request naming one resumes from there.
 */

export interface StoredCache {
  name: string;
  model: string;
  displayName: string | undefined;
  fields: PromptFields;
  tokens: number;
  /** The chain after the cache's rendering, seeded by the model named in a request's URL (the chain's label). */
  prefix(label: string): Segment;
  createTime: number;
  updateTime: number;
  expireTime: number;
}

export interface WireCachedContent {
  name: string;
  model: string;
  displayName?: string;
  createTime: string;
  updateTime: string;
  expireTime: string;
  usageMetadata: { totalTokenCount: number };
}

export interface ExplicitCacheStore {
  create(request: CacheCreateRequest): StoredCache;
  get(name: string): StoredCache;
  update(name: string, update: CacheUpdateRequest): StoredCache;
  delete(name: string): void;
  list(): StoredCache[];
  size(): number;
}

export function modelResource(model: string): string {
  return model.startsWith('models/') ? model : `models/${model}`;
}

function cacheResource(name: string): string {
  return name.startsWith('cachedContents/') ? name : `cachedContents/${name}`;
}

export function toWireCache(cache: StoredCache): WireCachedContent {
  const wire: WireCachedContent = {
    name: cache.name,
    model: cache.model,
    createTime: new Date(cache.createTime).toISOString(),
    updateTime: new Date(cache.updateTime).toISOString(),
    expireTime: new Date(cache.expireTime).toISOString(),
    usageMetadata: { totalTokenCount: cache.tokens },
  };
  if (cache.displayName !== undefined) wire.displayName = cache.displayName;
  return wire;
}

function expiry(request: CacheUpdateRequest, at: number): number {
  if (request.ttl !== undefined && request.expireTime !== undefined) {
    throw invalid('Only one of ttl and expire_time can be set.');
  }
  if (request.expireTime !== undefined) return parseTimestamp(request.expireTime, 'cached_content.expire_time');
  if (request.ttl !== undefined) return at + parseDuration(request.ttl, 'cached_content.ttl');
  return at + EXPLICIT_DEFAULT_TTL_MS;
}

/**
 * The chain after `fields`: hashed at creation for the model as requests name it in their URL
 * (without `models/`), and at most once more, for the only other spelling that names the same
 * model (`models/…`).
 */
function prefixes(fields: PromptFields, model: string, blockTokens: number): { tokens: number; prefix: (label: string) => Segment } {
  const byLabel = new Map<string, Segment>();
  const hash = (label: string): HashedPrompt => {
    const hashed = hashPrompt(fieldUnits(fields), startOf('', label), blockTokens * CHARS_PER_TOKEN);
    byLabel.set(label, hashed);
    return hashed;
  };
  const { tokens } = hash(model.replace(/^models\//, ''));
  return { tokens, prefix: (label) => byLabel.get(label) ?? hash(label) };
}

export function createExplicitCacheStore(minTokens: number, blockTokens: number, now: () => number = Date.now): ExplicitCacheStore {
  const caches = new Map<string, StoredCache>();
  let serial = 0;

  function live(name: string): StoredCache {
    const key = cacheResource(name);
    const cache = caches.get(key);
    if (!cache) throw notFound(`CachedContent not found (or permission denied): ${key}`);
    if (cache.expireTime <= now()) {
      caches.delete(key);
      throw notFound(`CachedContent not found (or permission denied): ${key}`);
    }
    return cache;
  }

  return {
    create(request) {
      const at = now();
      const fields: PromptFields = { contents: request.contents };
      if (request.systemInstruction) fields.systemInstruction = request.systemInstruction;
      if (request.tools) fields.tools = request.tools;
      if (request.toolConfig) fields.toolConfig = request.toolConfig;
      const model = modelResource(request.model);
      const { tokens, prefix } = prefixes(fields, model, blockTokens);
      if (tokens < minTokens) {
        throw new ApiFailure(400, `Cached content is too small. total_token_count=${tokens}, min_total_token_count=${minTokens}`);
      }
      const expireTime = expiry(request, at);
      if (expireTime <= at) throw invalid('expire_time must be in the future.');
      serial++;
      const id = `${serial.toString(36)}${(at % 1_000_000).toString(36)}${Math.floor(Math.random() * 1e9).toString(36)}`;
      const cache: StoredCache = {
        name: `cachedContents/${id}`,
        model,
        displayName: request.displayName,
        fields,
        tokens,
        prefix,
        createTime: at,
        updateTime: at,
        expireTime,
      };
      caches.set(cache.name, cache);
      return cache;
    },
    get: live,
    update(name, update) {
      const cache = live(name);
      const at = now();
      cache.expireTime = expiry(update, at);
      cache.updateTime = at;
      return cache;
    },
    delete(name) {
      live(name);
      caches.delete(cacheResource(name));
    },
    list() {
      const at = now();
      return [...caches.values()].filter((c) => c.expireTime > at);
    },
    size: () => caches.size,
  };
}
