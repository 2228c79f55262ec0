/**
 * A change against its base: `npm run bench -- --against <commit> [--quick] [--keep-base] [--out DIR]`.
 * Builds <commit> in a git worktree of its own beside this checkout (its node_modules a link to this
 * one's when package-lock.json is the same, else `npm ci`), then runs the dispatch, floor, memory and
 * many-fork measurements for both builds, base and change alternately (A B A B A B, so drift on the
 * machine hits both), three times each, every run a fresh process against a server process of the
 * bench's own. Both builds run this checkout's measuring code: the base's run has the bench's imports
 * of dist/ redirected to the base's dist/ (bench/lib/build-under-test.ts), so only the engine under
 * the code differs. Writes bench/results/<date>-compare-<mode>.json and .md and prints the table:
 * each build's median and spread (min–max), their ratio, and a verdict (bench/lib/verdict.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freezePrefix } from '../dist/src/prefix/index.js';
import { FULL, QUICK, SWEEP_LATENCY, type BenchConfig } from './config.js';
import type { FloorJob, FloorResult } from './floor.js';
import { ensureBuilt } from './lib/built.js';
import { measureBuild } from './lib/build-under-test.js';
import { runJobChild } from './lib/child.js';
import { median } from './lib/measure.js';
import { primeCache } from './lib/prime.js';
import { runScriptChild } from './lib/script.js';
import { withServer, withSink, type ServerProcess } from './lib/server.js';
import { makeSession, sizeLabel } from './lib/session.js';
import { judge, TOLERANCE, type Better, type Verdict } from './lib/verdict.js';
import type { RetentionJob, RetentionResult } from './retention.js';
import type { JobSpec } from './scenario.js';

const here = dirname(fileURLToPath(import.meta.url));
const changeRoot = join(here, '..');

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

const REPEATS = 3;
/** A port nothing listens on: forks fail at their first call, so only the dispatch is measured (as bench/run.ts). */
const DEAD_URL = 'http://127.0.0.1:1';

/** What one build's run of a section gives: a value per figure, by the figure's name. */
type Figures = Map<string, number>;

interface FigureSpec {
  name: string;
  unit: string;
  better: Better;
}

/** One section: its figures, and one run of it for the build the measuring processes load. */
interface Section {
  name: string;
  /** How the measuring code reaches the build: its public entry points alone, or internal modules too. */
  reaches: string;
  figures: FigureSpec[];
  /** A server (or sink) process shared by every run of the section, both builds'. */
  serve?: (body: (server: ServerProcess) => Promise<void>) => Promise<void>;
  run(server: ServerProcess | undefined): Promise<Figures>;
}

interface CompareMode {
  mode: 'quick' | 'full';
  cfg: BenchConfig;
  /** Forks of the many-fork fan-out: the scaling curve's largest (100,000) in the full run. */
  manyForks: number;
}

/** What bench/scenario.ts's sab jobs load of a build besides its public entry points. */
const SCENARIO_REACHES =
  'public entry points, and dist/src/engine/run.js (FanOutRun, whose dispatch is timed), engine/options.js, engine/cache-figures.js, prefix/index.js and local-server/core/latency.js (bench/scenario.ts)';

const MODES: Record<'quick' | 'full', CompareMode> = {
  // 2,000 forks: 5 to 20 s a run on 2 cores (the slower with other work on them).
  quick: { mode: 'quick', cfg: QUICK, manyForks: 2_000 },
  full: { mode: 'full', cfg: FULL, manyForks: Math.max(...FULL.scaling.forks) },
};

function sections({ cfg, manyForks }: CompareMode): Section[] {
  // Quick: 64 forks a burst, as the full run (the quick run's 8 give too few samples for a median).
  const dispatch = { ...cfg.dispatch, n: 64, bursts: Math.max(2, cfg.dispatch.bursts) };
  const floor = cfg.floor;
  const memory = cfg.memory;
  const scaling = cfg.scaling.base;
  const retention = cfg.retention.n;
  // The streamed run is the many-fork one (100,000 in the full run): what a long run's process grows by.
  const streamed = manyForks;
  return [
    {
      name: 'dispatch',
      reaches: SCENARIO_REACHES,
      figures: dispatch.sizes.map((size) => ({ name: `dispatch per fork, sab, ${sizeLabel(size)}`, unit: 'µs', better: 'lower' })),
      async run() {
        const got = await runJobChild(
          {
            variant: 'sab',
            concurrency: dispatch.n,
            threads: cfg.threads,
            warmup: 'none',
            url: DEAD_URL,
            latency: 'zero',
            timeoutMs: cfg.forkTimeoutMs,
            dispatchBursts: dispatch.bursts,
            scenarios: dispatch.sizes.map((prefixBytes) => ({ prefixBytes, n: dispatch.n })),
          },
          600_000,
        );
        return new Map(got.map((r, i) => [`dispatch per fork, sab, ${sizeLabel(dispatch.sizes[i] ?? r.prefixBytes)}`, r.medianUs]));
      },
    },
    {
      name: 'floor',
      reaches: 'public entry points only (forkpool, forkpool/protocol)',
      figures: floor.sizes.map((size) => ({ name: `floor: client CPU per call, ${sizeLabel(size)}`, unit: 'ms', better: 'lower' })),
      serve: withSink,
      async run(sink) {
        const job: FloorJob = {
          client: 'forkpool',
          purpose: 'cpu',
          url: (sink as ServerProcess).url,
          sizes: floor.sizes,
          calls: floor.calls,
          warmupCalls: floor.warmupCalls,
          jitWarmupCalls: floor.jitWarmupCalls,
          runs: floor.runs,
          inFlight: floor.inFlight,
          threads: cfg.threads,
        };
        const boundMs =
          120_000 +
          job.jitWarmupCalls * 50 +
          job.sizes.reduce((a, size) => a + (job.runs * job.calls + job.warmupCalls) * (50 + size / 10_000), 0);
        const rows = await runScriptChild<FloorJob, FloorResult[]>('floor.ts', job, boundMs);
        return new Map(
          rows.map((r) => [`floor: client CPU per call, ${sizeLabel(r.prefixBytes)}`, median(r.runs.map((run) => run.cpuMs / r.calls))]),
        );
      },
    },
    {
      name: 'memory',
      reaches: SCENARIO_REACHES,
      figures: [
        { name: `memory: peak RSS, ${memory.nBig} forks over ${sizeLabel(memory.bigPrefix)} (sab+explicit)`, unit: 'MiB', better: 'lower' },
        {
          name: `memory: RSS growth over the fan-out, ${memory.nBig} forks over ${sizeLabel(memory.bigPrefix)}`,
          unit: 'MiB',
          better: 'lower',
        },
      ],
      serve: (body) => withServer(SWEEP_LATENCY, body),
      async run(server) {
        const job: JobSpec = {
          variant: 'sab+explicit',
          concurrency: memory.concurrency,
          threads: cfg.threads,
          warmup: 'auto',
          url: (server as ServerProcess).url,
          latency: SWEEP_LATENCY,
          timeoutMs: cfg.forkTimeoutMs,
          scenarios: [{ prefixBytes: memory.bigPrefix, n: memory.nBig }],
        };
        const [r] = await runJobChild(job, 120_000 + cfg.forkTimeoutMs + 60_000);
        if (!r) throw new Error('memory: the job gave no result');
        if (r.failed > 0) throw new Error(`memory: ${r.failed} forks failed: ${r.failures.join(' | ')}`);
        const m = r.main.memory;
        return new Map([
          [`memory: peak RSS, ${memory.nBig} forks over ${sizeLabel(memory.bigPrefix)} (sab+explicit)`, m.peakRssMiB],
          [`memory: RSS growth over the fan-out, ${memory.nBig} forks over ${sizeLabel(memory.bigPrefix)}`, m.peakRssMiB - m.startRssMiB],
        ]);
      },
    },
    {
      name: 'retention',
      reaches: 'public entry points only (forkpool)',
      figures: [
        {
          name: `memory: heap per 1,000 forks, ${retention.toLocaleString('en')} one-call forks, results retained`,
          unit: 'MiB',
          better: 'lower',
        },
        { name: `memory: RSS growth, ${streamed.toLocaleString('en')} one-call forks, results streamed`, unit: 'MiB', better: 'lower' },
        { name: `${streamed.toLocaleString('en')} one-call forks, results streamed: forks per second`, unit: 'forks/s', better: 'higher' },
      ],
      serve: (body) => withServer('zero', body),
      async run(server) {
        const url = (server as ServerProcess).url;
        const measure = async (n: number, retain: boolean): Promise<RetentionResult> => {
          const r = await runScriptChild<RetentionJob, RetentionResult>('retention.ts', { url, n, retain }, 120_000 + n * 20);
          if (r.completed !== n) throw new Error(`retention: ${r.completed} of ${n} forks completed`);
          return r;
        };
        const retained = await measure(retention, true);
        // Streamed, default options: the whole process's growth (threads and native memory too) and its pace.
        const streamedRun = await measure(streamed, false);
        return new Map([
          [`memory: heap per 1,000 forks, ${retention.toLocaleString('en')} one-call forks, results retained`, retained.heapMiBPer1000],
          [`memory: RSS growth, ${streamed.toLocaleString('en')} one-call forks, results streamed`, streamedRun.peakRssGrowthMiB],
          [`${streamed.toLocaleString('en')} one-call forks, results streamed: forks per second`, streamedRun.forksPerSecond],
        ]);
      },
    },
    {
      name: 'many forks',
      reaches: SCENARIO_REACHES,
      figures: [
        { name: `${manyForks.toLocaleString('en')} forks: forks per second (zero latency)`, unit: 'forks/s', better: 'higher' },
        { name: `${manyForks.toLocaleString('en')} forks: client CPU per fork`, unit: 'ms', better: 'lower' },
      ],
      serve: (body) =>
        withServer('zero', async (server) => {
          await primeCache(server.url, freezePrefix(makeSession(scaling.prefixBytes)));
          await body(server);
        }),
      async run(server) {
        const job: JobSpec = {
          variant: 'sab',
          threads: scaling.threads,
          concurrency: scaling.concurrency,
          warmup: 'none',
          url: (server as ServerProcess).url,
          latency: 'zero',
          timeoutMs: cfg.forkTimeoutMs,
          scenarios: [{ prefixBytes: scaling.prefixBytes, n: manyForks }],
        };
        const [r] = await runJobChild(job, 120_000 + cfg.forkTimeoutMs + 60_000 + manyForks * 20);
        if (!r) throw new Error('many forks: the job gave no result');
        if (r.failed > 0) throw new Error(`many forks: ${r.failed} forks failed: ${r.failures.join(' | ')}`);
        return new Map([
          [`${manyForks.toLocaleString('en')} forks: forks per second (zero latency)`, r.forksPerSecond],
          [`${manyForks.toLocaleString('en')} forks: client CPU per fork`, r.processCpuPerForkMs],
        ]);
      },
    },
  ];
}

interface Build {
  label: 'base' | 'change';
  commit: string;
  /** The checkout whose dist/ is measured. */
  root: string;
}

function git(args: readonly string[], cwd = changeRoot): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** The full hash of `ref`, or a clear error naming it. */
function commitOf(ref: string): string {
  try {
    return git(['rev-parse', '--verify', `${ref}^{commit}`]);
  } catch {
    throw new Error(`bench --against: ${JSON.stringify(ref)} names no commit of this repository`);
  }
}

/**
 * The base commit checked out and built in a worktree of its own under the temp directory (reused
 * when an earlier comparison left it there with --keep-base: a commit's build does not change).
 */
function prepareBase(commit: string): Build {
  const root = join(tmpdir(), `forkpool-bench-base-${commit.slice(0, 12)}`);
  if (existsSync(root)) {
    const head = git(['rev-parse', 'HEAD'], root);
    if (head !== commit)
      throw new Error(`bench --against: ${root} holds ${head}, not ${commit}: remove it (git worktree remove --force ${root})`);
    log(`base: reusing ${root}`);
  } else {
    log(`base: git worktree add ${root} ${commit.slice(0, 12)}`);
    git(['worktree', 'add', '--detach', root, commit]);
  }
  const modules = join(root, 'node_modules');
  if (!existsSync(modules)) {
    const sameLock = git(['show', `${commit}:package-lock.json`]) === readFileSync(join(changeRoot, 'package-lock.json'), 'utf8').trim();
    if (sameLock) {
      log("base: package-lock.json is the same: node_modules linked to this checkout's");
      symlinkSync(realpathSync(join(changeRoot, 'node_modules')), modules, 'dir');
    } else {
      log('base: package-lock.json differs: npm ci');
      execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    }
  }
  // Written once the build succeeded: an interrupted build leaves a dist/ that only looks built.
  const built = join(root, 'dist/.bench-built');
  if (!existsSync(built)) {
    log('base: npm run build');
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    writeFileSync(built, `${commit}\n`);
  }
  return { label: 'base', commit, root };
}

function removeBase(base: Build): void {
  const modules = join(base.root, 'node_modules');
  // The link goes first: the worktree's removal must not reach this checkout's node_modules.
  try {
    unlinkSync(modules);
  } catch {
    // npm ci made a directory of its own (or there is none): the removal takes it.
  }
  git(['worktree', 'remove', '--force', base.root]);
  log(`base: removed ${base.root}`);
}

interface ComparedRow extends FigureSpec, Verdict {
  section: string;
  baseRuns: number[];
  changeRuns: number[];
}

interface Comparison {
  meta: {
    date: string;
    mode: 'quick' | 'full';
    base: string;
    change: string;
    /** The change's working tree had uncommitted edits to what is measured (src/, workers/, bench/). */
    changeDirty: boolean;
    node: string;
    repeats: number;
    tolerance: number;
    loadAverage: { start: number; max: number; end: number };
    durationS: number;
  };
  sections: { name: string; reaches: string }[];
  rows: ComparedRow[];
  errors: { section: string; build: string; message: string }[];
}

const fmt = (x: number): string =>
  !Number.isFinite(x) ? '–' : Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2);

function renderComparison(c: Comparison): string {
  const m = c.meta;
  const lines = [
    `# Base against change (${m.mode}), ${m.date.slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `base ${m.base.slice(0, 12)}, change ${m.change.slice(0, 12)}${m.changeDirty ? ' (with uncommitted edits)' : ''}; Node ${m.node}; ` +
      `${m.repeats} runs per build, alternating; load average ${m.loadAverage.start.toFixed(1)} at the start, ${m.loadAverage.max.toFixed(1)} at most; ${m.durationS} s.`,
    `No worse: the change's median is worse than the base's by no more than ${TOLERANCE * 100} % of the base's median or the larger spread (max − min) of the two builds' runs.`,
    '',
    '| figure | better | base median (min–max) | change median (min–max) | change / base | verdict |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of c.rows) {
    const cell = (s: Verdict['base']): string => (s.n === 0 ? 'not measured' : `${fmt(s.median)} ${r.unit} (${fmt(s.min)}–${fmt(s.max)})`);
    const verdict = r.verdict === 'worse' ? '**worse**' : r.verdict;
    lines.push(
      `| ${r.name} | ${r.better} | ${cell(r.base)} | ${cell(r.change)} | ${Number.isFinite(r.ratio) ? `×${r.ratio.toFixed(3)}` : '–'} | ${verdict} |`,
    );
  }
  lines.push('', 'How the measuring code reaches each build:', '', ...c.sections.map((s) => `- ${s.name}: ${s.reaches}`));
  if (c.errors.length > 0) lines.push('', 'Errors:', '', ...c.errors.map((e) => `- ${e.section} (${e.build}): ${e.message}`));
  return `${lines.join('\n')}\n`;
}

export interface CompareOptions {
  against: string;
  quick: boolean;
  out: string;
  keepBase: boolean;
}

/** Runs the comparison; 0 when every figure is no worse, 1 when one is worse or could not be measured. */
export async function compareAgainst(options: CompareOptions): Promise<number> {
  const mode = MODES[options.quick ? 'quick' : 'full'];
  const started = new Date();
  const t0 = performance.now();
  const load = { start: loadavg()[0] ?? 0, max: loadavg()[0] ?? 0, end: 0 };
  const loadTimer = setInterval(() => (load.max = Math.max(load.max, loadavg()[0] ?? 0)), 5_000).unref();
  ensureBuilt(changeRoot, log);
  const change: Build = { label: 'change', commit: git(['rev-parse', 'HEAD']), root: changeRoot };
  const changeDirty = git(['status', '--porcelain', '--', 'src', 'workers', 'bench']) !== '';
  const base = prepareBase(commitOf(options.against));
  const runs = new Map<string, { base: number[]; change: number[] }>();
  const errors: Comparison['errors'] = [];
  const chosen = sections(mode);
  try {
    for (const section of chosen) {
      log(`${section.name}: ${REPEATS} runs per build, base and change alternately`);
      const failed = new Set<string>();
      const body = async (server: ServerProcess | undefined): Promise<void> => {
        for (let rep = 1; rep <= REPEATS; rep++) {
          for (const build of [base, change]) {
            // A build that failed once fails again (a module it lacks): its other runs are skipped.
            if (failed.has(build.label)) continue;
            measureBuild(build.label === 'base' ? build.root : undefined);
            const s0 = performance.now();
            try {
              const figures = await section.run(server);
              for (const [name, value] of figures) {
                const entry = runs.get(name) ?? { base: [], change: [] };
                entry[build.label].push(value);
                runs.set(name, entry);
              }
              const shown = [...figures].map(([name, value]) => `${name.replace(/^.*?: /, '')} ${fmt(value)}`).join('; ');
              log(`  ${build.label.padEnd(6)} run ${rep}: ${shown} (${((performance.now() - s0) / 1000).toFixed(1)} s)`);
            } catch (err) {
              const message = err instanceof Error ? err.message : String(err);
              failed.add(build.label);
              errors.push({ section: section.name, build: build.label, message });
              log(`  ${build.label} run ${rep} failed: ${message}`);
            } finally {
              measureBuild(undefined);
            }
          }
        }
      };
      if (section.serve) await section.serve(body);
      else await body(undefined);
    }
  } finally {
    if (!options.keepBase) removeBase(base);
    clearInterval(loadTimer);
  }
  load.end = loadavg()[0] ?? 0;
  load.max = Math.max(load.max, load.end);
  const rows: ComparedRow[] = chosen.flatMap((section) =>
    section.figures.map((figure) => {
      const got = runs.get(figure.name) ?? { base: [], change: [] };
      return {
        section: section.name,
        ...figure,
        baseRuns: got.base,
        changeRuns: got.change,
        ...judge(got.base, got.change, figure.better),
      };
    }),
  );
  const comparison: Comparison = {
    meta: {
      date: started.toISOString(),
      mode: mode.mode,
      base: base.commit,
      change: change.commit,
      changeDirty,
      node: process.version,
      repeats: REPEATS,
      tolerance: TOLERANCE,
      loadAverage: load,
      durationS: Math.round((performance.now() - t0) / 100) / 10,
    },
    sections: chosen.map(({ name, reaches }) => ({ name, reaches })),
    rows,
    errors,
  };
  mkdirSync(options.out, { recursive: true });
  const file = join(options.out, `${started.toISOString().slice(0, 16).replace(':', '-')}-compare-${mode.mode}`);
  const markdown = renderComparison(comparison);
  writeFileSync(`${file}.json`, `${JSON.stringify(comparison, null, 2)}\n`);
  writeFileSync(`${file}.md`, markdown);
  process.stdout.write(markdown);
  log(`\nwrote ${file}.json, ${file}.md (${comparison.meta.durationS} s)`);
  return rows.every((r) => r.verdict === 'no worse') ? 0 : 1;
}
