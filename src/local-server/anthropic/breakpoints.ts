import { ANTHROPIC_CACHE_RULES } from './cache-rules.js';
import { invalidRequest } from './errors.js';
import type { AnthropicRendering } from './render.js';
import type { CacheControl, CacheTtl } from './wire.js';

/**
 * Where a request's cache breakpoints are (platform.claude.com/docs/en/build-with-claude/
 * prompt-caching): every block marked with `cache_control`, plus, with a top-level
 * `cache_control` (automatic caching), the last cacheable block. The rules the API enforces with
 * a 400: at most 4; "Cache entries with longer TTL must appear before shorter TTLs"; automatic
 * caching "uses one of the 4 available breakpoint slots" and refuses a last block that already
 * carries another TTL.
 */

export interface Breakpoint {
  /** Index into rendering.blocks. */
  block: number;
  ttl: CacheTtl;
}

/** "You can define up to 4 cache breakpoints"; a fifth is refused ("A maximum of 4 blocks with cache_control may be provided. Found 5."). */
const MAX_BREAKPOINTS = ANTHROPIC_CACHE_RULES.maxBreakpoints;

const ttlOf = (control: CacheControl): CacheTtl => control.ttl ?? '5m';

/** "If the last block is not eligible …, the system silently walks backwards to find the nearest eligible block." */
function automaticTarget(rendering: AnthropicRendering): number {
  for (let i = rendering.blocks.length - 1; i >= 0; i--) if (rendering.blocks[i]?.cacheable) return i;
  return -1;
}

export function breakpointsOf(rendering: AnthropicRendering, automatic: CacheControl | undefined): Breakpoint[] {
  const points: Breakpoint[] = [];
  rendering.blocks.forEach((block, i) => {
    if (block.cacheControl) points.push({ block: i, ttl: ttlOf(block.cacheControl) });
  });
  if (points.length > MAX_BREAKPOINTS)
    throw invalidRequest(`A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${points.length}.`);
  const target = automatic ? automaticTarget(rendering) : -1;
  if (automatic && target >= 0) {
    const explicit = points.find((point) => point.block === target);
    const ttl = ttlOf(automatic);
    if (explicit && explicit.ttl !== ttl) {
      throw invalidRequest(
        `cache_control: the last cacheable block (${rendering.blocks[target]?.path}) already has a cache_control with ttl '${explicit.ttl}', not '${ttl}'`,
      );
    }
    if (!explicit) {
      if (points.length === MAX_BREAKPOINTS) {
        throw invalidRequest(`A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${points.length + 1}.`);
      }
      points.push({ block: target, ttl });
    }
  }
  let fiveMinutes: Breakpoint | undefined;
  for (const point of points) {
    if (point.ttl === '5m') fiveMinutes ??= point;
    else if (fiveMinutes) {
      // The automatic breakpoint's ttl is the top-level cache_control's.
      const marked = rendering.blocks[point.block]?.cacheControl ? `${rendering.blocks[point.block]?.path}.` : '';
      throw invalidRequest(
        `${marked}cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block (${rendering.blocks[fiveMinutes.block]?.path})`,
      );
    }
  }
  return points;
}
