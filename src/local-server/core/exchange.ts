import type { ServerResponse } from 'node:http';
import { decodeMs, delay, type LatencyModel } from './latency.js';
import { countTokens } from './chain.js';
import type { WirePart } from './types.js';

/** One request and its response, and the pacing of output that every dialect's handlers share. */

export interface Exchange {
  res: ServerResponse;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  rawBody: string;
  /** The body's bytes as sent: what prompt units are remembered by (core/prefix-memo.ts). */
  rawBytes: Buffer;
}

/** Status code sent; 0 when the connection was dropped or the client left. */
export type Sent = number;

export function outputTokens(parts: readonly WirePart[]): number {
  let chars = 0;
  for (const part of parts) chars += part.text !== undefined ? part.text.length : JSON.stringify(part.functionCall ?? part).length;
  return Math.max(1, countTokens(chars));
}

/** Splits a text answer into a few stream chunks (whole answer when short). */
export function streamPieces(parts: WirePart[]): WirePart[][] {
  const text = parts.length === 1 ? parts[0]?.text : undefined;
  if (text === undefined || text.length <= 64) return [parts];
  const size = Math.max(64, Math.ceil(text.length / 8));
  const pieces: WirePart[][] = [];
  for (let at = 0; at < text.length; at += size) pieces.push([{ text: text.slice(at, at + size) }]);
  return pieces;
}

/** Argument text in a few fragments, as a model streams it. */
export function argumentFragments(text: string): string[] {
  const size = Math.max(16, Math.ceil(text.length / 4));
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

/**
 * Sends each streamed step after its decode time (`chars`: the generated text it carries); the
 * last step carries whatever output tokens the others did not. False when the client went away.
 */
export async function sendPaced<T extends { chars: number }>(
  steps: readonly T[],
  completionTokens: number,
  latency: LatencyModel,
  signal: AbortSignal,
  send: (step: T) => void,
): Promise<boolean> {
  let sentTokens = 0;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i] as T;
    const tokens = i === steps.length - 1 ? Math.max(0, completionTokens - sentTokens) : countTokens(step.chars);
    if (!(await delay(decodeMs(latency, tokens), signal))) return false;
    sentTokens += tokens;
    send(step);
  }
  return true;
}
