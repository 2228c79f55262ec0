/**
 * Summarizes a V8 .cpuprofile (node --cpu-prof): self time by function and by package/file,
 * and optionally total (inclusive) time of functions matching a pattern.
 * Run: npx tsx bench/profile-summary.ts FILE.cpuprofile [--top 25] [--inclusive REGEX]
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  byFunction: { name: string; selfMs: number }[];
  byArea: { area: string; selfMs: number }[];
}

function area(url: string): string {
  if (url === '') return '(native/V8)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return (rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]) ?? url;
  }
  if (url.startsWith('node:')) return url;
  const src = url.indexOf('/src/');
  if (src >= 0) return url.slice(src + 1);
  const bench = url.indexOf('/bench/');
  if (bench >= 0) return url.slice(bench + 1);
  return url;
}

export function summarize(file: string, top = 25): ProfileSummary {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  });
  const fn = new Map<string, number>();
  const ar = new Map<string, number>();
  let idle = 0;
  let total = 0;
  for (const [id, ms] of self) {
    const node = byId.get(id) as Node;
    const name = node.callFrame.functionName || '(anonymous)';
    total += ms;
    if (name === '(idle)' || (name === '(program)' && false)) idle += ms;
    if (name === '(idle)') continue;
    const key = `${name} ${area(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
    fn.set(key, (fn.get(key) ?? 0) + ms);
    const a = ['(garbage collector)', '(program)'].includes(name) ? name : area(node.callFrame.url);
    ar.set(a, (ar.get(a) ?? 0) + ms);
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top);
  return {
    totalMs: total,
    idleMs: idle,
    byFunction: sorted(fn).map(([name, selfMs]) => ({ name, selfMs })),
    byArea: sorted(ar).map(([area, selfMs]) => ({ area, selfMs })),
  };
}

const isMain = process.argv[1]?.endsWith('profile-summary.ts');
if (isMain) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: npx tsx bench/profile-summary.ts FILE.cpuprofile [--top N]');
    process.exit(2);
  }
  const topAt = process.argv.indexOf('--top');
  const s = summarize(file, topAt > 0 ? Number(process.argv[topAt + 1]) : 25);
  console.log(`total ${s.totalMs.toFixed(0)} ms, idle ${s.idleMs.toFixed(0)} ms, busy ${(s.totalMs - s.idleMs).toFixed(0)} ms`);
  console.log('\nself time by area:');
  for (const a of s.byArea) console.log(`  ${a.selfMs.toFixed(1).padStart(9)} ms  ${a.area}`);
  console.log('\nself time by function:');
  for (const f of s.byFunction) console.log(`  ${f.selfMs.toFixed(1).padStart(9)} ms  ${f.name}`);
}
