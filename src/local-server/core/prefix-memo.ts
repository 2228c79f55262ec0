import type { ChainState } from './chain.js';
import { LruList, type LruLinks } from './lru-list.js';

/**
 * What the server remembers of the prompts it has hashed, so that a request repeating an earlier
 * one's leading units (messages, contents, the system instruction: every fork re-sends its
 * parent's prefix) hashes only what is new. A tree: a root per chain start (dialect, model, block
 * size, explicit cache), under it one node per unit, known by its kind and the exact bytes it was
 * sent as; a node holds what its unit added to the chain (the hash state after it, the block keys
 * and marked ends it completed). Since a node is reached only through the units before it, a key
 * still depends on everything before it. This is a memo of a pure computation: the keys, digests
 * and cached tokens a request gets are exactly those of hashing its rendering whole.
 *
 * Bound: at most `budgetBytes` (DEFAULT_MEMO_BYTES, 64 MiB: eight 8 MiB prefixes) of remembered
 * unit bytes, keys, ends and marks, plus an estimate of each node's own overhead; past it the least
 * recently used nodes go. A request touches its path from the last unit back to the root, so a
 * node is always more recent than everything under it: eviction takes leaves first, and a chain
 * loses its tail before its head.
 */

const DEFAULT_MEMO_BYTES = 64 * 1024 * 1024;

/** What a unit added to the chain: the state after it, and the block keys, ends and marks it completed. */
export interface Segment {
  readonly state: ChainState;
  readonly keys: readonly number[];
  readonly ends: readonly number[];
  readonly marks: readonly string[];
}

export interface MemoNode {
  readonly segment: Segment;
}

export interface PrefixMemo {
  /** The root of the chains that start at `key` (made when new). */
  root(key: string): MemoNode;
  /** The child of `parent` for a unit of this kind sent as exactly these bytes. */
  find(parent: MemoNode, kind: string, source: Uint8Array): MemoNode | undefined;
  /** Remembers a unit under `parent` (its bytes are copied: the body they came from is not kept). */
  add(parent: MemoNode, kind: string, source: Uint8Array, segment: Segment): MemoNode;
  /** A request walked `path` (root first): marks it recently used, then evicts past the budget. */
  used(path: readonly MemoNode[]): void;
  bytes(): number;
  nodes(): number;
}

interface Node extends MemoNode, LruLinks<Node> {
  readonly parent: Node | undefined;
  /** Roots: their key in `roots`. */
  readonly rootKey: string;
  readonly kind: string;
  readonly source: Uint8Array | undefined;
  /** Its bucket in the parent's children. */
  readonly bucket: number;
  readonly children: Map<number, Node[]>;
  readonly bytes: number;
}

const EMPTY: Segment = { state: { h1: 0, h2: 0, length: 0 }, keys: [], ends: [], marks: [] };

/** An estimate of a node's objects, maps and arrays beyond the bytes counted one by one. */
const NODE_OVERHEAD_BYTES = 256;
/** A mark (a short string) and its slot in the array. */
const MARK_BYTES = 48;

/** Length and a sample of the first and last bytes, as a small integer: candidates share it; kind and bytes decide. */
function bucketOf(source: Uint8Array): number {
  const n = source.length;
  const take = Math.min(n, 32);
  let h = 0x811c9dc5 ^ n;
  for (let i = 0; i < take; i++) h = Math.imul(h ^ (source[i] as number), 0x01000193);
  for (let i = n - take; i < n; i++) h = Math.imul(h ^ (source[i] as number), 0x01000193);
  return h & 0x3fffffff;
}

function sizeOf(source: Uint8Array | undefined, segment: Segment): number {
  return NODE_OVERHEAD_BYTES + (source?.length ?? 0) + 8 * (segment.keys.length + segment.ends.length) + MARK_BYTES * segment.marks.length;
}

export function createPrefixMemo(budgetBytes: number = DEFAULT_MEMO_BYTES): PrefixMemo {
  const roots = new Map<string, Node>();
  /** Every node, in LRU order (core/lru-list.ts: a request touches thousands). */
  const order = new LruList<Node>();
  let count = 0;
  let total = 0;

  function remember(node: Node): Node {
    order.push(node);
    count++;
    total += node.bytes;
    return node;
  }

  /** Forgets `node` and everything under it. */
  function drop(node: Node): void {
    const stack = [node];
    for (let n = stack.pop(); n !== undefined; n = stack.pop()) {
      for (const bucket of n.children.values()) for (const child of bucket) stack.push(child);
      order.remove(n);
      count--;
      total -= n.bytes;
    }
    if (!node.parent) {
      roots.delete(node.rootKey);
      return;
    }
    const siblings = node.parent.children.get(node.bucket) ?? [];
    const at = siblings.indexOf(node);
    if (at >= 0) siblings.splice(at, 1);
    if (siblings.length === 0) node.parent.children.delete(node.bucket);
  }

  function node(
    parent: Node | undefined,
    rootKey: string,
    kind: string,
    source: Uint8Array | undefined,
    segment: Segment,
    bytes: number,
  ): Node {
    return {
      parent,
      rootKey,
      kind,
      source,
      bucket: source ? bucketOf(source) : 0,
      children: new Map(),
      segment,
      bytes,
      older: undefined,
      newer: undefined,
    };
  }

  return {
    root(key) {
      const known = roots.get(key);
      if (known) return known;
      const root = node(undefined, key, '', undefined, EMPTY, NODE_OVERHEAD_BYTES + 2 * key.length);
      roots.set(key, root);
      return remember(root);
    },
    find(parent, kind, source) {
      const bucket = (parent as Node).children.get(bucketOf(source));
      return bucket?.find((child) => child.kind === kind && Buffer.compare(child.source as Uint8Array, source) === 0);
    },
    add(parent, kind, source, segment) {
      const copy = new Uint8Array(source.length);
      copy.set(source);
      const child = node(parent as Node, '', kind, copy, segment, sizeOf(copy, segment));
      const siblings = child.parent?.children.get(child.bucket);
      if (siblings) siblings.push(child);
      else child.parent?.children.set(child.bucket, [child]);
      return remember(child);
    },
    used(path) {
      for (let i = path.length - 1; i >= 0; i--) order.touch(path[i] as Node);
      while (total > budgetBytes && order.oldest) drop(order.oldest);
    },
    bytes: () => total,
    nodes: () => count,
  };
}
