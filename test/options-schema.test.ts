import { availableParallelism } from 'node:os';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENGINE_OPTION_FLAGS } from '../src/engine/option-flags.js';
import { defaultOf } from '../src/engine/option-read.js';
import { EngineOptionsSchema } from '../src/engine/option-schema.js';
import { optionTables } from '../src/engine/option-tables.js';
import { ENGINE_DEFAULTS, planOf, resolveOptions, type ResolvedOptions } from '../src/engine/options.js';
import { ForkEngine } from '../src/index.js';
import { forkJobOf } from '../src/engine/fork-job.js';
import { DEFAULT_RETRY } from '../src/model/types.js';
import { freezePrefix } from '../src/prefix/index.js';
import type { ParentSession } from '../src/shapes/registry.js';
import { runCli } from './fixtures/cli/run-cli.js';

/*
 * The option schema is the one declaration of the engine's options: the docs' tables are what it
 * generates, help's defaults are the ones the engine applies, and a setting keeps its name down to
 * the thread job.
 */

const DOC = 'docs/options.md';
const MARKER = '<!-- The tables below are generated from src/engine/option-schema.ts';
const LOCAL = { kind: 'local', url: 'http://127.0.0.1:9' } as const;

describe('docs/options.md', () => {
  it('holds the tables the option schema generates (UPDATE_OPTIONS_DOC=1 rewrites them)', () => {
    const text = readFileSync(DOC, 'utf8');
    const at = text.indexOf(MARKER);
    expect(at, `${DOC} has lost its marker line`).toBeGreaterThan(0);
    const head = text.slice(0, text.indexOf('\n', at) + 1);
    const want = `${head}\n${optionTables()}`;
    if (process.env.UPDATE_OPTIONS_DOC === '1') writeFileSync(DOC, want);
    expect(
      text,
      `${DOC} differs from what src/engine/option-schema.ts generates: run UPDATE_OPTIONS_DOC=1 npx vitest run test/options-schema.test.ts`,
    ).toBe(want);
    // Every engine option has its row, and each flag is named in its option's row.
    for (const key of Object.keys(EngineOptionsSchema.shape)) expect(want).toContain(`| \`${key}\` |`);
    for (const [flag, { option }] of Object.entries(ENGINE_OPTION_FLAGS))
      expect(want).toMatch(new RegExp(`\\| \`${option.join('\\.')}\` \\|[^\\n]*\`--${flag}\``));
  });
});

/** A value of the resolved options at a path, with the nested groups given empty so that their defaults apply. */
function appliedAt(path: readonly string[]): unknown {
  const resolved = resolveOptions({ provider: LOCAL, retry: {}, rateLimit: {}, telemetry: {} }) as unknown as Record<string, unknown>;
  return path.reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], resolved);
}

/** Each flag's help block in a command's --help, from its line to the next flag's. */
function helpBlocks(help: string): Map<string, string> {
  const blocks = new Map<string, string>();
  let current: string | undefined;
  for (const line of help.split('\n')) {
    const flag = /^ {2}--([a-z-]+)/.exec(line)?.[1];
    if (flag !== undefined) current = flag;
    else if (!line.startsWith('    ')) current = undefined;
    if (current !== undefined) blocks.set(current, `${blocks.get(current) ?? ''} ${line.trim()}`);
  }
  return blocks;
}

function chatSession(model: string): ParentSession {
  return { format: 'openai-chat', model, messages: [{ role: 'user', content: 'hi' }] } as ParentSession;
}

describe("help's defaults are the ones the engine applies", () => {
  it("run, prompt and worker --help: each engine flag shows its option's default, and that is what an engine without it gets", async () => {
    const helps = await Promise.all(['run', 'prompt', 'worker'].map((command) => runCli([command, '--help'])));
    let checked = 0;
    for (const help of helps) {
      expect(help.code).toBe(0);
      const blocks = helpBlocks(help.stdout);
      for (const [flag, { option }] of Object.entries(ENGINE_OPTION_FLAGS)) {
        const block = blocks.get(flag);
        if (block === undefined) continue;
        checked++;
        const fallback = defaultOf(EngineOptionsSchema, option);
        const shown = /\(default ([^):;]+)\)/.exec(block)?.[1];
        if (fallback !== undefined && 'value' in fallback) {
          expect(shown, `--${flag}`).toBe(String(fallback.value));
          expect(appliedAt(option), `--${flag}`).toBe(fallback.value);
        } else {
          // No fixed default: help shows none as a number, and none is applied in the engine's options.
          expect(shown, `--${flag}`).toBeUndefined();
          if (fallback !== undefined) expect(block, `--${flag}`).toContain(`(default: ${fallback.text.split(' ').slice(0, 3).join(' ')}`);
          if (flag === 'threads') expect(appliedAt(option)).toBe(Math.min(availableParallelism(), 256));
          // No prices of one's own: forkpool's table.
          else if (flag === 'prices') expect(appliedAt(option)).toEqual({});
          else expect(appliedAt(option), `--${flag}`).toBeUndefined();
        }
      }
    }
    expect(checked).toBeGreaterThan(Object.keys(ENGINE_OPTION_FLAGS).length * 2);
    // The retry policy a provider applies when no `retry` is given is the one help shows.
    expect(DEFAULT_RETRY.maxAttempts).toBe(ENGINE_DEFAULTS.maxAttempts);
  });

  it("no made-up minimum: minCacheTokens has no engine default, and the providers' minimums help names are their plans'", () => {
    expect(ENGINE_DEFAULTS).not.toHaveProperty('minCacheTokens');
    const resolved = (kind: 'openai' | 'deepseek'): ResolvedOptions => resolveOptions({ provider: { kind } });
    const rules = (kind: 'openai' | 'deepseek', model: string) =>
      planOf(resolved(kind), chatSession(model), { cacheKey: undefined, role: 'forks', parentWarm: false });
    expect(resolved('openai').minCacheTokens).toBeUndefined();
    // The figures the default texts name, each checked against the provider's plan.
    const said = (path: string[]): string => {
      const d = defaultOf(EngineOptionsSchema, path);
      return d !== undefined && 'text' in d ? d.text : '';
    };
    expect(said(['minCacheTokens'])).toContain('OpenAI 1024');
    expect(rules('openai', 'gpt-4.1-mini').rules.minCacheTokens).toBe(1024);
    expect(said(['cacheBlockTokens'])).toContain('OpenAI 128, DeepSeek 64');
    expect(rules('openai', 'gpt-4.1-mini').rules.cacheBlockTokens).toBe(128);
    expect(rules('deepseek', 'deepseek-chat').rules.cacheBlockTokens).toBe(64);
    expect(said(['cacheBuildMs'])).toContain('DeepSeek 3000, others 0');
    expect(rules('deepseek', 'deepseek-chat').readable.buildMs).toBe(3000);
    expect(rules('openai', 'gpt-4.1-mini').readable.buildMs).toBe(0);
    // Given, it is what the plan uses.
    expect(
      planOf(resolveOptions({ provider: { kind: 'openai' }, minCacheTokens: 4000 }), chatSession('gpt-4.1-mini'), {
        cacheKey: undefined,
        role: 'forks',
        parentWarm: false,
      }).rules.minCacheTokens,
    ).toBe(4000);
  });
});

describe('one name per setting, down to the thread job', () => {
  it('the job carries the per-fork token budget as maxTokensPerFork and the per-fork retries as retry.forkBudget', () => {
    const options = resolveOptions({ provider: LOCAL, maxTokens: 10_000, maxTokensPerFork: 500, retry: { forkBudget: 2 } });
    const prefix = freezePrefix({ model: 'gemini-2.5-flash', history: [{ role: 'user', parts: [{ text: 'hi' }] }] });
    const plan = planOf(options, prefix.session, { cacheKey: prefix.id, role: 'forks', parentWarm: false });
    const job = forkJobOf(prefix, options, {
      provider: { kind: 'local', baseUrl: LOCAL.url },
      plan,
      toolTimeoutMs: 1_000,
      captureContent: false,
    });
    expect(job.maxTokensPerFork).toBe(500);
    expect(job.retry?.forkBudget).toBe(2);
    // The run's budget is the run's: no job field is named maxTokens, none retryBudget.
    expect(Object.keys(job)).not.toContain('maxTokens');
    expect(Object.keys(job)).not.toContain('retryBudget');
  });
});

describe("the ranges are the schema's, for the library and the CLI alike", () => {
  it("a flag over its option's maximum is a usage error naming the flag, before anything starts", async () => {
    const run = await runCli([
      'run',
      '--session',
      'test/fixtures/cli/session.json',
      '--tasks',
      'examples/research.jsonl',
      '--timeout-ms',
      '2147483648',
    ]);
    expect(run).toMatchObject({ code: 2, stdout: '', stderr: 'forkpool: --timeout-ms: at most 2147483647 (got 2147483648)\n' });
  });

  it("checks runFork's options and the values of resourceLimits, naming the option", async () => {
    await expect(ForkEngine.create({ provider: LOCAL, resourceLimits: { maxOldGenerationSizeMb: -1 } })).rejects.toThrow(
      'ForkEngine: options.resourceLimits.maxOldGenerationSizeMb must be a positive number, got -1',
    );
    const engine = await ForkEngine.create({ provider: LOCAL, threads: 1 });
    try {
      const prefix = engine.freeze({ model: 'gemini-2.5-flash', history: [{ role: 'user', parts: [{ text: 'hi' }] }] });
      const task = { id: 'a', directive: 'x' };
      expect(() => engine.runFork(prefix, task, { onEvnt: () => {} } as never)).toThrow(
        'ForkEngine.runFork: options.onEvnt is not an option (known: plan, callGate, onEvent, transcript, traceParent, onCallsInFlight)',
      );
      expect(() => engine.runFork(prefix, task, { onEvent: 'log' } as never)).toThrow(
        'ForkEngine.runFork: options.onEvent must be a function',
      );
      expect(() => engine.fanOut(prefix, [], { transcripts: { dir: 'x', resumes: true } } as never)).toThrow(
        'ForkEngine.fanOut: options.transcripts.resumes is not an option (known: dir, resume)',
      );
    } finally {
      await engine.close();
    }
  });
});
