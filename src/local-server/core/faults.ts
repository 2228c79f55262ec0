/**
 * Fault injection by rate, deterministic with a seed: one draw per model request, in arrival order.
 * String form (CLI): "429=0.1,500=0.02,503=0.01,drop=0.01,slow=0.05,malformed=0.01,seed=7,slowMs=2000,retryAfter=1".
 */

export const FAULT_KINDS = ['429', '500', '503', 'drop', 'slow', 'malformed'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultSpec {
  rates?: Partial<Record<FaultKind, number>>;
  seed?: number;
  /** Extra delay of a `slow` response, ms (default 2000). */
  slowMs?: number;
  /** Retry-After of a 429, seconds (default 1). Also used by the scripted `FAIL 429`. */
  retryAfterSeconds?: number;
}

function isFaultKind(name: string): name is FaultKind {
  return (FAULT_KINDS as readonly string[]).includes(name);
}

export function parseFaultSpec(spec: string): FaultSpec {
  const rates: Partial<Record<FaultKind, number>> = {};
  const out: FaultSpec = { rates };
  for (const item of spec.split(',')) {
    const entry = item.trim();
    if (entry === '') continue;
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new Error(`fault spec: "${entry}" is not name=value`);
    const name = entry.slice(0, eq).trim();
    const value = Number(entry.slice(eq + 1).trim());
    if (!Number.isFinite(value) || value < 0) throw new Error(`fault spec: "${entry}" needs a non-negative number`);
    if (isFaultKind(name)) {
      if (value > 1) throw new Error(`fault spec: rate of ${name} must be between 0 and 1`);
      rates[name] = value;
    } else if (name === 'seed') out.seed = Math.floor(value);
    else if (name === 'slowMs') out.slowMs = value;
    else if (name === 'retryAfter') out.retryAfterSeconds = Math.floor(value);
    else throw new Error(`fault spec: unknown name "${name}" (${[...FAULT_KINDS, 'seed', 'slowMs', 'retryAfter'].join(', ')})`);
  }
  const total = Object.values(rates).reduce((sum, r) => sum + (r ?? 0), 0);
  if (total > 1) throw new Error('fault spec: rates add up to more than 1');
  return out;
}

/** mulberry32: small, fast, deterministic. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface FaultInjector {
  /** The fault for the next model request, or undefined. */
  draw(): FaultKind | undefined;
  readonly slowMs: number;
  readonly retryAfterSeconds: number;
}

export function createFaultInjector(spec: FaultSpec | undefined): FaultInjector {
  const rates = spec?.rates ?? {};
  const active = FAULT_KINDS.filter((kind) => (rates[kind] ?? 0) > 0);
  const random = prng(spec?.seed ?? 1);
  return {
    slowMs: spec?.slowMs ?? 2000,
    retryAfterSeconds: spec?.retryAfterSeconds ?? 1,
    draw() {
      if (active.length === 0) return undefined;
      const r = random();
      let edge = 0;
      for (const kind of active) {
        edge += rates[kind] ?? 0;
        if (r < edge) return kind;
      }
      return undefined;
    },
  };
}
