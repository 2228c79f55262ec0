import { randomBytes } from 'node:crypto';
import type { InputItem, ResponseObject } from './wire.js';

/**
 * The responses made with `store` not false, in memory, for `previous_response_id` and GET/DELETE
 * /v1/responses/{id}. Each keeps the response it continued by reference and only its own input,
 * so a long conversation is held once and any number of branches share it; naming a response
 * continues from everything it was made from: its ancestors' inputs and outputs, then its own.
 * Bounded (least recently used first out), as the simulator's caches are; an evicted response is
 * then "not found", as an expired one is.
 */

export interface StoredResponse {
  response: ResponseObject;
  /** The stored response this one continued (its previous_response_id). */
  parent: StoredResponse | undefined;
  /** This request's own input items. */
  input: readonly InputItem[];
  /** What it holds, roughly: its request body and its response, as sent. */
  bytes: number;
}

export interface ResponseStore {
  /** Hex put in every id this server makes: an id from another server or an earlier run is never taken for one of this one's. */
  readonly tag: string;
  /** Touches what it finds. */
  get(id: string): StoredResponse | undefined;
  put(entry: StoredResponse): void;
  delete(id: string): boolean;
}

/** A simulator's bounds, not the API's (it keeps responses for 30 days). */
const MAX_RESPONSES = 10_000;
const MAX_BYTES = 256 * 1024 * 1024;

export function createResponseStore(): ResponseStore {
  /** Map order is LRU order. */
  const entries = new Map<string, StoredResponse>();
  let bytes = 0;
  const remove = (id: string): boolean => {
    const entry = entries.get(id);
    if (entry) bytes -= entry.bytes;
    return entries.delete(id);
  };
  return {
    tag: randomBytes(4).toString('hex'),
    get(id) {
      const entry = entries.get(id);
      if (entry) {
        entries.delete(id);
        entries.set(id, entry);
      }
      return entry;
    },
    put(entry) {
      remove(entry.response.id);
      entries.set(entry.response.id, entry);
      bytes += entry.bytes;
      while (entries.size > MAX_RESPONSES || (bytes > MAX_BYTES && entries.size > 1)) remove(entries.keys().next().value as string);
    },
    delete: remove,
  };
}

/** The input a request continuing `previous` is made from: every ancestor's input and output, oldest first, then its own. */
export function effectiveInput(previous: StoredResponse | undefined, input: readonly InputItem[]): InputItem[] {
  const chain: StoredResponse[] = [];
  for (let at = previous; at; at = at.parent) chain.push(at);
  const items: InputItem[] = [];
  for (const entry of chain.reverse()) {
    for (const item of entry.input) items.push(item);
    for (const item of entry.response.output) items.push(item);
  }
  for (const item of input) items.push(item);
  return items;
}
