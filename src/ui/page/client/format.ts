/* How figures read on the page. */

export const DASH = '—';

export function int(n: number): string {
  return n.toLocaleString('en-US');
}

/** Short token counts for the list: 950, 12.3k, 4.56M. */
export function compact(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 2 : 1)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

/** An axis's round values: 0, 250, 2.5k, 50M. */
export function round(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${Number((n / 1000).toFixed(2))}k`;
  if (n < 1_000_000_000) return `${Number((n / 1_000_000).toFixed(2))}M`;
  return `${Number((n / 1_000_000_000).toFixed(2))}G`;
}

export function pct(x: number | null): string {
  return x === null ? DASH : `${(x * 100).toFixed(1)}%`;
}

export function duration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const whole = Math.floor(s);
  const m = Math.floor(whole / 60);
  if (m < 60) return `${m}m ${String(whole % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

export function usd(x: number | undefined): string {
  if (x === undefined) return DASH;
  return x < 0.01 && x > 0 ? `$${x.toFixed(4)}` : `$${x.toFixed(2)}`;
}

export function cached(n: number | null): string {
  return n === null ? 'n/a' : compact(n);
}
