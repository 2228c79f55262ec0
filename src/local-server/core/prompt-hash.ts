import { chainDigest, chainExtend, chainMark, chainStart, countTokens, type ChainState } from './chain.js';
import type { MemoNode, PrefixMemo, Segment } from './prefix-memo.js';

/**
 * Tokens, chained block keys and digest of a prompt given as units in rendering order (a message,
 * the system instruction, the tools), each rendered only when the memo does not already know it
 * by the bytes it was sent as (core/prefix-memo.ts). A unit without bytes to be known by, and every
 * unit after it, is rendered and hashed afresh.
 */

export interface PromptUnit {
  /** What the unit is: the same bytes render differently as another kind. */
  kind: string;
  /** The exact bytes it was sent as (a view into the body); undefined: not remembered. */
  source: Uint8Array | undefined;
  /** Each piece's end is recorded (a message, a content block): boundaries are keyed there. */
  marked: boolean;
  /** Its rendering, in pieces; called only when the memo does not know the unit. */
  render(): string[];
}

export interface RenderedPrompt {
  tokens: number;
  /** One key per full block, chained: key i identifies the whole text up to the end of block i. */
  keys: number[];
  /** Short hex digest of the whole text (context hash). */
  digest: string;
}

export interface HashedPrompt extends RenderedPrompt {
  /** Per piece of the marked units, in order: the character offset where it ends, and the mark of the text up to there. */
  ends: number[];
  marks: string[];
  /** The chain after the whole prompt. */
  state: ChainState;
}

/** A request's body as sent, and the memo that knows units by such bytes. */
export interface SentBody {
  bytes: Buffer;
  memo: PrefixMemo;
}

/** Where a chain starts: the memo root's key (dialect, model, block size, explicit cache) and what comes before the units. */
export interface PromptStart {
  key: string;
  segment: Segment;
}

export function startOf(key: string, label: string): PromptStart {
  return { key, segment: { state: chainStart(label), keys: [], ends: [], marks: [] } };
}

/** What `pieces` add to the chain after `state`. */
function hashPieces(state: ChainState, pieces: readonly string[], marked: boolean, blockChars: number): Segment {
  const keys: number[] = [];
  const ends: number[] = [];
  const marks: string[] = [];
  for (const piece of pieces) {
    state = chainExtend(state, piece, blockChars, keys);
    if (marked) {
      ends.push(state.length);
      marks.push(chainMark(state));
    }
  }
  return { state, keys, ends, marks };
}

/** Arrays joined by Array#concat (native: a push loop was several times slower), a bounded number of arguments at a time. */
function joined<T>(arrays: readonly (readonly T[])[]): T[] {
  let out: T[] = [];
  for (let i = 0; i < arrays.length; i += 8192) out = out.concat(...arrays.slice(i, i + 8192));
  return out;
}

export function hashPrompt(units: readonly PromptUnit[], start: PromptStart, blockChars: number, memo?: PrefixMemo): HashedPrompt {
  let node: MemoNode | undefined = memo?.root(start.key);
  const path: MemoNode[] = node ? [node] : [];
  const segments: Segment[] = [start.segment];
  for (const unit of units) {
    const source = memo && node ? unit.source : undefined;
    const known = memo && node && source ? memo.find(node, unit.kind, source) : undefined;
    if (known) {
      node = known;
      path.push(known);
      segments.push(known.segment);
      continue;
    }
    const segment = hashPieces((segments[segments.length - 1] as Segment).state, unit.render(), unit.marked, blockChars);
    // A unit not remembered leaves the rest unremembered too: their identity includes it.
    node = memo && node && source ? memo.add(node, unit.kind, source, segment) : undefined;
    if (node) path.push(node);
    segments.push(segment);
  }
  memo?.used(path);
  const state = (segments[segments.length - 1] as Segment).state;
  return {
    tokens: countTokens(state.length),
    keys: joined(segments.map((segment) => segment.keys)),
    digest: chainDigest(state),
    state,
    ends: joined(segments.map((segment) => segment.ends)),
    marks: joined(segments.map((segment) => segment.marks)),
  };
}
