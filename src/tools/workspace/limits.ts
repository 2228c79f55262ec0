/** Bounds that keep one tool call from flooding a fork's context or walking a whole disk. */
export interface WorkspaceLimits {
  /** Bytes of one file that read_file returns and grep searches (grep skips bigger files). */
  maxFileBytes?: number;
  /** Entries from list_dir, paths from glob, matches from grep. */
  maxResults?: number;
  /** Directory levels below the root (or below grep's path) that glob and grep descend. */
  maxDepth?: number;
  /** Characters of one line kept in read_file content and grep text. */
  maxLineChars?: number;
}

export type ResolvedLimits = Required<WorkspaceLimits>;

const DEFAULT_LIMITS: ResolvedLimits = Object.freeze({
  maxFileBytes: 1024 * 1024,
  maxResults: 200,
  maxDepth: 32,
  maxLineChars: 2000,
});

export function resolveLimits(limits: WorkspaceLimits = {}): ResolvedLimits {
  const out = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof ResolvedLimits)[]) {
    const value = limits[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1) {
      throw new RangeError(`workspaceTools: limits.${key} must be a positive integer, got ${String(value)}`);
    }
    out[key] = value;
  }
  return out;
}

/** Cuts a line to `max` characters, saying so, so a minified file cannot fill the context in one line. */
export function clipLine(line: string, max: number): { text: string; clipped: boolean } {
  if (line.length <= max) return { text: line, clipped: false };
  return { text: `${line.slice(0, max)}… [line truncated, ${line.length} chars]`, clipped: true };
}

/** Git's heuristic: a NUL byte in the first 8000 bytes means binary. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8000).includes(0);
}
