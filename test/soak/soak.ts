/**
 * Soak: many forks through the CLI against a faulty local server, killed twice with SIGKILL and
 * resumed. Not part of `npm test` (it takes minutes). Run from the repo root after `npm run build`:
 *
 *   npx tsx test/soak/soak.ts [--forks 10000] [--prefix-mib 2] [--concurrency 512] [--latency realistic]
 *
 * Prints: forks with exactly one result, completed and failed (a fork fails when every attempt of a
 * call meets a fault), retries made, results lost (must be 0), peak RSS, time. Exits 1 when a
 * result is lost or written twice.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    forks: { type: 'string', default: '10000' },
    'prefix-mib': { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '512' },
    latency: { type: 'string', default: 'realistic' },
    faults: { type: 'string', default: '429=0.1,500=0.02,drop=0.01,seed=11' },
  },
});
const FORKS = Number(values.forks);
const PREFIX_BYTES = Number(values['prefix-mib']) * 1024 * 1024;
const CLI = 'dist/src/cli/main.js';
/** Kill points, as fractions of the forks finished. */
const KILL_AT = [0.2, 0.6];

const dir = mkdtempSync(join(tmpdir(), 'forkpool-soak-'));
const sessionPath = join(dir, 'session.json');
const tasksPath = join(dir, 'tasks.jsonl');
const outPath = join(dir, 'out.jsonl');

function writeInputs(): void {
  const chunk = 'The cache keeps what every fork shares; each fork adds only its own directive. ';
  const history = [];
  let size = 0;
  for (let i = 0; size < PREFIX_BYTES; i++) {
    const text = `Note ${i}: ${chunk.repeat(200)}`;
    history.push({ role: 'user', parts: [{ text }] }, { role: 'model', parts: [{ text: `Noted ${i}.` }] });
    size += text.length + 64;
  }
  writeFileSync(
    sessionPath,
    JSON.stringify({ model: 'gemini-2.5-flash', systemInstruction: { parts: [{ text: 'You are a soak-test agent.' }] }, history }),
  );
  const lines = Array.from({ length: FORKS }, (_, i) => JSON.stringify({ id: `f${i}`, directive: `REPLY fork ${i} done` }));
  writeFileSync(tasksPath, `${lines.join('\n')}\n`);
}

function startServer(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [CLI, 'serve', '--port', '0', '--latency', values.latency as string, '--faults', values.faults as string],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const m = /export GOOGLE_GEMINI_BASE_URL=(\S+)/.exec(text);
      if (m?.[1]) resolve({ url: m[1], child });
    });
    child.on('exit', (code) => reject(new Error(`server exited (${code})`)));
  });
}

function finishedLines(): number {
  if (!existsSync(outPath)) return 0;
  return readFileSync(outPath, 'utf8')
    .split('\n')
    .filter((l) => l.trim()).length;
}

/** Peak resident set of a running process (VmHWM), in MiB; 0 once it is gone. */
function peakRssMib(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

interface Leg {
  exit: string;
  peakRssMib: number;
  summary?: { retries?: number; forks?: { total: number; completed: number; failed: number } };
}

function runLeg(url: string, resume: boolean, killAtLines: number | undefined): Promise<Leg> {
  const args = [
    'run',
    '--session',
    sessionPath,
    '--tasks',
    tasksPath,
    '--out',
    outPath,
    '--provider',
    'local',
    '--base-url',
    url,
    '--cache',
    'explicit',
    '--concurrency',
    values.concurrency as string,
    '--output-format',
    'json',
    '--timeout-ms',
    '600000',
  ];
  if (resume) args.push('--resume');
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  let peak = 0;
  const poll = setInterval(() => {
    peak = Math.max(peak, peakRssMib(child.pid as number));
    if (killAtLines !== undefined && finishedLines() >= killAtLines) child.kill('SIGKILL');
  }, 250);
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      clearInterval(poll);
      let summary: Leg['summary']; // the CLI's --output-format json summary, as far as the soak reads it
      try {
        summary = JSON.parse(stdout);
      } catch {
        summary = undefined;
      }
      resolve({ exit: signal ?? String(code), peakRssMib: Math.round(peak), summary });
    });
  });
}

async function serverMetric(url: string, name: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const [labels, value] = line.slice(name.length).split(' ');
    out.set(labels ?? '', Number(value));
  }
  return out;
}

writeInputs();
const started = performance.now();
const server = await startServer();
const legs: Leg[] = [];
try {
  legs.push(await runLeg(server.url, false, Math.floor(FORKS * (KILL_AT[0] as number))));
  legs.push(await runLeg(server.url, true, Math.floor(FORKS * (KILL_AT[1] as number))));
  legs.push(await runLeg(server.url, true, undefined));
  const seconds = (performance.now() - started) / 1000;
  const lines = readFileSync(outPath, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { id: string; status: string });
  const counts = new Map<string, number>();
  for (const l of lines) counts.set(l.id, (counts.get(l.id) ?? 0) + 1);
  const exactlyOnce = [...counts.values()].filter((n) => n === 1).length;
  const duplicates = [...counts.values()].filter((n) => n > 1).length;
  const completed = lines.filter((l) => l.status === 'completed').length;
  const failed = lines.filter((l) => l.status === 'failed').length;
  const lost = FORKS - counts.size;
  const byStatus = await serverMetric(server.url, 'forkpool_local_requests_total');
  const faults = [...byStatus].filter(([labels]) => /status="(429|500|503|0)"/.test(labels)).reduce((a, [, v]) => a + v, 0);
  const report = {
    forks: FORKS,
    prefixMiB: PREFIX_BYTES / 1024 / 1024,
    concurrency: Number(values.concurrency),
    latency: values.latency,
    faults: values.faults,
    legs: legs.map((l) => ({ exit: l.exit, peakRssMib: l.peakRssMib, retries: l.summary?.retries, forks: l.summary?.forks })),
    completedExactlyOnce: exactlyOnce,
    completed,
    failed,
    duplicates,
    resultsLost: lost,
    retriesInFinishedLegs: legs.reduce((a, l) => a + (l.summary?.retries ?? 0), 0),
    faultyResponsesServed: faults,
    peakRssMib: Math.max(...legs.map((l) => l.peakRssMib)),
    seconds: Math.round(seconds),
  };
  console.log(JSON.stringify(report, null, 2));
  // A fork that failed (its retries spent) is a result; a fork missing from --out, or there twice, is the bug.
  process.exitCode = lost === 0 && duplicates === 0 ? 0 : 1;
} finally {
  server.child.kill('SIGTERM');
}
